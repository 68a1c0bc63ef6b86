#!/usr/bin/env python3
"""PyAMG smoothed aggregation as a CG preconditioner, on Matrix Market files:
the peer side of the AMG benchmark (tools/peers/amg.sh, README.md).

    amg_pyamg.py PATH... [--peers pyamg-sa,pyamg-sa-default,scipy-jacobi-cg]
                         [--tol 1e-6] [--maxiter 5000] [--repeat 3]
                         [--theta 0.0] [--improve-sweeps 4] [--max-coarse 64]

PATH is NAME.mtx or a directory of them (NAME.b.mtx files are right-hand
sides, not matrices). b is NAME.b.mtx when it exists, else all ones; x0 = 0.
Prints one JSON object per line per (matrix, peer) on stdout:

- pyamg-sa: smoothed aggregation set to match sinew's (matched()),
- pyamg-sa-default: pyamg.smoothed_aggregation_solver(A) as it comes,
- scipy-jacobi-cg: CG preconditioned by diag(A)^-1, the baseline.

Each peer runs scipy.sparse.linalg.cg with M = one V-cycle
(ml.aspreconditioner(cycle='V')) and stops when the recursively updated
residual reaches |r| < tol |b| (scipy's rtol, atol = 0); iterations are the
callback's count. final_relative is the true |b - A x| / |b| afterwards.
setup_ms is the hierarchy's construction (smoothed_aggregation_solver, which
includes the smoothers' spectral radius estimates), solve_ms the CG call; the
fastest of --repeat runs of each, both on one thread if the BLAS is.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import pyamg
from pyamg.relaxation.smoothing import rho_D_inv_A

def jacobi_chebyshev(A, degree, lower=1.0 / 30.0, upper=1.1):
    """x += p(D^-1 A) D^-1 (b - A x): Chebyshev acceleration of Jacobi of the
    given degree on [lower rho, upper rho], rho the largest eigenvalue of
    D^-1 A (Saad, Iterative Methods for Sparse Linear Systems, Alg. 12.1 with
    the Jacobi preconditioner), the smoother sinew's V-cycle uses. pyamg's own
    'chebyshev' is the same polynomial in A itself, unscaled by D, which
    matters where the diagonal varies (constraint-space matrices do, with the
    elements' sizes and masses). Self-adjoint in the A inner product, so the
    same smoother pre and post keeps the V-cycle symmetric."""
    dinv = 1.0 / A.diagonal()
    rho = rho_D_inv_A(A)
    lo, hi = lower * rho, upper * rho
    theta, delta = 0.5 * (hi + lo), 0.5 * (hi - lo)
    sigma = theta / delta

    def smoother(A_, x, b):
        r = b - A @ x
        rho_old = 1.0 / sigma
        d = dinv * r / theta
        for i in range(degree):
            x += d
            if i == degree - 1:
                break
            r -= A @ d
            rho_new = 1.0 / (2.0 * sigma - rho_old)
            d = rho_new * rho_old * d + (2.0 * rho_new / delta) * (dinv * r)
            rho_old = rho_new

    return smoother


def matched(A, theta=0.0, improve_sweeps=4, max_coarse=64, degree=3):
    """Smoothed aggregation set up like sinew's (src/solvers/amg.c): symmetric
    strength |a_ij| >= theta sqrt(a_ii a_jj), standard (three-pass)
    aggregation, the tentative prolongator smoothed by one Jacobi step
    (omega 4/3 / rho(D^-1 A)), the candidate B = ones improved by symmetric
    Gauss-Seidel sweeps on A x = 0 on the finest level, Jacobi-Chebyshev of
    degree 3 pre and post (jacobi_chebyshev), at most max_coarse rows on the
    coarsest level, solved there exactly (Cholesky)."""
    improve = [("gauss_seidel", {"sweep": "symmetric", "iterations": improve_sweeps}), None] \
        if improve_sweeps > 0 else None
    ml = pyamg.smoothed_aggregation_solver(
        A,
        B=None,
        symmetry="symmetric",
        strength=("symmetric", {"theta": theta}),
        aggregate="standard",
        smooth=("jacobi", {"omega": 4.0 / 3.0}),
        improve_candidates=improve,
        presmoother=None,  # replaced below
        postsmoother=None,
        max_levels=50,
        max_coarse=max_coarse,
        coarse_solver="cholesky",
    )
    for lvl in ml.levels[:-1]:
        lvl.presmoother = lvl.postsmoother = jacobi_chebyshev(lvl.A.tocsr(), degree)
    return ml


def matched_settings(args):
    return ("smoothed_aggregation_solver: symmetry symmetric, B ones, strength symmetric theta %g, "
            "aggregate standard, smooth jacobi omega 4/3, improve_candidates gauss_seidel symmetric "
            "x%d (finest level), pre/post Jacobi-Chebyshev degree 3 on [rho/30, 1.1 rho] of D^-1 A "
            "(own smoother; rho by pyamg's rho_D_inv_A), max_coarse %d, "
            "max_levels 50, coarse cholesky; scipy cg, M = one V-cycle"
            % (args.theta, args.improve_sweeps, args.max_coarse))


DEFAULT_SETTINGS = (
    "smoothed_aggregation_solver(A) defaults: strength symmetric theta 0.0, aggregate standard, "
    "smooth jacobi omega 4/3, improve_candidates block_gauss_seidel symmetric x4 (finest level), "
    "pre/post block_gauss_seidel symmetric, max_coarse 10, max_levels 10, coarse pinv; "
    "scipy cg, M = one V-cycle"
)


VARIANT = {"pyamg-sa": "matched", "pyamg-sa-default": "defaults", "scipy-jacobi-cg": ""}


def cg(A, b, M, tol, maxiter):
    """scipy's CG from x = 0; returns x, the iteration count and whether it
    reached the tolerance."""
    count = [0]

    def callback(_xk):
        count[0] += 1

    try:
        x, info = spla.cg(A, b, rtol=tol, atol=0.0, maxiter=maxiter, M=M, callback=callback)
    except TypeError:  # scipy older than 1.12 calls rtol 'tol'
        x, info = spla.cg(A, b, tol=tol, atol=0.0, maxiter=maxiter, M=M, callback=callback)
    if info < 0:
        raise RuntimeError("scipy cg: illegal input or breakdown (info %d)" % info)
    return x, count[0], info == 0


def best_of(repeat, fn):
    """(result, ms) of the fastest of REPEAT calls of fn()."""
    best, result = None, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        ms = (time.perf_counter() - t0) * 1e3
        best = ms if best is None else min(best, ms)
    return result, best


def run_peer(peer, name, A, b, args):
    """One JSON record for PEER on (A, b)."""

    def setup():
        np.random.seed(0)  # pyamg's spectral radius estimates start from random vectors
        if peer == "pyamg-sa":
            return matched(A, args.theta, args.improve_sweeps, args.max_coarse)
        if peer == "pyamg-sa-default":
            return pyamg.smoothed_aggregation_solver(A)
        d = A.diagonal()
        if np.any(d <= 0.0):
            raise RuntimeError("diagonal not positive: not SPD")
        return sp.diags(1.0 / d).tocsr()

    ml, setup_ms = best_of(args.repeat, setup)
    if peer == "scipy-jacobi-cg":
        M = ml
        levels, oc, gc = 1, 1.0, 1.0
        settings = "scipy cg, M = diag(A)^-1"
    else:
        M = ml.aspreconditioner(cycle="V")
        levels = len(ml.levels)
        oc, gc = ml.operator_complexity(), ml.grid_complexity()
        settings = matched_settings(args) if peer == "pyamg-sa" else DEFAULT_SETTINGS
    (x, iterations, converged), solve_ms = best_of(args.repeat, lambda: cg(A, b, M, args.tol, args.maxiter))
    bnorm = np.linalg.norm(b)
    final = np.linalg.norm(b - A @ x) / bnorm if bnorm > 0 else 0.0
    return {
        "peer": peer,
        "variant": VARIANT[peer],
        "matrix": name,
        "rows": A.shape[0],
        "nnz": A.nnz,
        "setup_ms": round(setup_ms, 3),
        "solve_ms": round(solve_ms, 3),
        "iterations": iterations,
        "converged": bool(converged),
        "operator_complexity": round(oc, 4),
        "grid_complexity": round(gc, 4),
        "levels": levels,
        "level_rows": [] if peer == "scipy-jacobi-cg" else [lv.A.shape[0] for lv in ml.levels],
        "final_relative": float("%.3e" % final),
        "settings": settings,
        "versions": "pyamg %s, scipy %s, numpy %s" % (pyamg.__version__, scipy.__version__,
                                                      np.__version__),
    }


def load(path):
    """(name, A as CSR with duplicates summed, b)."""
    name = os.path.basename(path)[: -len(".mtx")]
    A = scipy.io.mmread(path)
    if not sp.issparse(A):
        raise ValueError("%s: not a coordinate (sparse) Matrix Market file" % path)
    if A.shape[0] != A.shape[1]:
        raise ValueError("%s: not square (%d x %d)" % (path, A.shape[0], A.shape[1]))
    A = sp.csr_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    A.sort_indices()
    bpath = path[: -len(".mtx")] + ".b.mtx"
    if os.path.exists(bpath):
        b = np.asarray(scipy.io.mmread(bpath), dtype=np.float64).ravel()
        if b.size != A.shape[0]:
            raise ValueError("%s: %d values, matrix has %d rows" % (bpath, b.size, A.shape[0]))
    else:
        b = np.ones(A.shape[0])
    return name, A, b


def matrix_paths(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p)
                          if f.endswith(".mtx") and not f.endswith(".b.mtx"))
        else:
            out.append(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", metavar="PATH")
    ap.add_argument("--peers", default="pyamg-sa,pyamg-sa-default,scipy-jacobi-cg")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--maxiter", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--theta", type=float, default=0.0, help="pyamg-sa: strength threshold")
    ap.add_argument("--improve-sweeps", type=int, default=4,
                    help="pyamg-sa: symmetric Gauss-Seidel sweeps on the candidate (0: none)")
    ap.add_argument("--max-coarse", type=int, default=64, help="pyamg-sa: coarsest level rows")
    args = ap.parse_args()
    peers = args.peers.split(",")
    for p in peers:
        if p not in ("pyamg-sa", "pyamg-sa-default", "scipy-jacobi-cg"):
            ap.error("unknown peer %r" % p)
    paths = matrix_paths(args.paths)
    if not paths:
        sys.exit("amg_pyamg: no .mtx files in %s" % " ".join(args.paths))
    status = 0
    for path in paths:
        try:
            name, A, b = load(path)
        except (OSError, ValueError) as e:
            print("amg_pyamg: %s" % e, file=sys.stderr)
            status = 1
            continue
        for peer in peers:
            try:
                print(json.dumps(run_peer(peer, name, A, b, args)), flush=True)
            except Exception as e:  # one failing peer should not hide the others
                print("amg_pyamg: %s on %s: %s: %s" % (peer, name, type(e).__name__, e),
                      file=sys.stderr)
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
