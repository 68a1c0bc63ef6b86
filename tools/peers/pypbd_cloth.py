#!/usr/bin/env python3
"""Peer benchmark: the hanging-cloth scene (tools/peers/SCENE.md) with Jan
Bender's PositionBasedDynamics library through its Python package pypbd, on
the CPU.

Model (PBD, not XPBD):
  - a TriangleModel on the N x N grid (one diagonal per quad, for the
    bending hinges),
  - stretch: a DistanceConstraint (stiffness 1) per structural grid edge,
  - shear:   a DistanceConstraint (stiffness 1) per diagonal, both diagonals
             of every quad (compliance 1e-6 m/N is stiffness ~1 in PBD terms
             at these masses and time steps),
  - bending: the library's dihedral constraints (addBendingConstraints,
             method 1) on every interior edge of the triangle mesh, stiffness
             --bending (default 0.1),
  - pins: mass 0 for particles 0 and N-1; every other particle 0.2 kg / N^2.
  - no collision detection, no damping, gravity (0, -9.81, 0).

A "substep" is one TimeStepController.step() with time step 1/60/S (the
controller's own NUM_SUB_STEPS is set to 1); an "iteration" is one of its
position-projection sweeps (maxIterations): Gauss-Seidel over the
constraints, graph-coloured into independent groups. maxIterationsV is 0:
cloth constraints have no velocity pass.

Usage: python pypbd_cloth.py --n N --substeps S --iterations K [--steps 120]
       -> one JSONL line on stdout.
"""

import argparse
import json
import math
import os
import sys
import time
from importlib import metadata

WARMUP = 10  # steps excluded from the timing
DT = 1.0 / 60.0


def diverged_bound(steps):
    """'diverged': a position is not finite, or farther from the origin than
    free fall from rest plus the sheet's size could take it (energy from
    nowhere, not mere stretch)."""
    t = steps * DT
    return 0.5 * 9.81 * t * t + 2.0


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--substeps", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--bending", type=float, default=0.1, help="dihedral bending stiffness (PBD, 0..1)")
    ap.add_argument("--threads", type=int, default=1, help="OpenMP threads (the library parallelises each colour group)")
    args = ap.parse_args()
    if args.n < 2 or args.substeps < 1 or args.iterations < 1 or args.steps <= WARMUP:
        ap.error("need n >= 2, substeps >= 1, iterations >= 1, steps > %d" % WARMUP)
    return args


args = parse()
# libgomp reads this when it starts, i.e. when pypbd is loaded.
os.environ["OMP_NUM_THREADS"] = str(args.threads)

import numpy as np  # noqa: E402
import pypbd as pbd  # noqa: E402


def strain(x, n):
    """max and RMS of |len - L| / L over the 2 N (N-1) structural edges."""
    p = x.reshape(n, n, 3)  # [j, i, xyz], index j N + i
    rest = 1.0 / (n - 1)
    lu = np.linalg.norm(p[:, 1:, :] - p[:, :-1, :], axis=2).ravel()
    lv = np.linalg.norm(p[1:, :, :] - p[:-1, :, :], axis=2).ravel()
    e = np.abs(np.concatenate([lu, lv]) - rest) / rest
    return float(e.max()), float(math.sqrt(float(np.mean(e * e))))


def positions(pd, count):
    x = np.array(pd.getVertices(), dtype=np.float64).reshape(-1, 3)  # a copy
    assert x.shape[0] == count
    return x


def main():
    n, S, K = args.n, args.substeps, args.iterations
    h = 1.0 / (n - 1)

    sim = pbd.Simulation.getCurrent()
    sim.initDefault()
    model = sim.getModel()
    ts = sim.getTimeStep()
    # initDefault installs a collision detector; no collision objects are
    # added, so it has nothing to do (setCollisionDetection(model, None)
    # crashes the library).
    ts.setValueUInt(pbd.TimeStepController.NUM_SUB_STEPS, 1)
    ts.setValueUInt(pbd.TimeStepController.MAX_ITERATIONS, K)
    ts.setValueUInt(pbd.TimeStepController.MAX_ITERATIONS_V, 0)
    ts.setValueInt(pbd.TimeStepController.VELOCITY_UPDATE_METHOD, 0)  # first order, v = (x - x_old) / h
    pbd.TimeManager.getCurrent().setTimeStepSize(DT / S)

    def idx(i, j):
        return j * n + i

    points = [np.array([-0.5 + i * h, 1.0, -0.5 + j * h]) for j in range(n) for i in range(n)]
    tris = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)
            tris += [a, b, d, b, c, d]
    tri_model = model.addTriangleModel(points, tris)
    offset = tri_model.getIndexOffset()
    assert offset == 0

    pd = model.getParticles()
    m = 0.2 / (n * n)
    for p in range(n * n):
        pd.setMass(p, m)
    pd.setMass(idx(0, 0), 0.0)
    pd.setMass(idx(n - 1, 0), 0.0)

    for j in range(n):
        for i in range(n):
            if i + 1 < n:
                model.addDistanceConstraint(idx(i, j), idx(i + 1, j), 1.0)
            if j + 1 < n:
                model.addDistanceConstraint(idx(i, j), idx(i, j + 1), 1.0)
    for j in range(n - 1):
        for i in range(n - 1):
            model.addDistanceConstraint(idx(i, j), idx(i + 1, j + 1), 1.0)
            model.addDistanceConstraint(idx(i + 1, j), idx(i, j + 1), 1.0)
    model.addBendingConstraints(tri_model, 1, args.bending)  # 1 = dihedral angle (PBD)
    n_constraints = len(model.getConstraints())

    times = []
    window = []  # (max, rms) strain after each step of the second half
    for step in range(1, args.steps + 1):
        t0 = time.perf_counter()
        for _ in range(S):
            ts.step(model)
        t = time.perf_counter() - t0
        if step > WARMUP:
            times.append(t)
        if step > args.steps // 2:
            xs = positions(pd, n * n)
            window.append(strain(xs, n) if np.all(np.isfinite(xs)) else (math.inf, math.inf))

    x = positions(pd, n * n)
    finite = bool(np.all(np.isfinite(x)))
    diverged = (not finite) or float(np.linalg.norm(x, axis=1).max()) > diverged_bound(args.steps)
    # SCENE.md: strain after each of steps 61-120 (the second half): the
    # largest maximum seen, and the mean of the per-step RMS values.
    mx = max(w[0] for w in window)
    rms = sum(w[1] for w in window) / len(window)
    mx, rms = (mx, rms) if math.isfinite(mx) and math.isfinite(rms) else (None, None)

    out = {
        "peer": "pypbd",
        "version": metadata.version("pypbd"),
        "method": "PBD distance + dihedral",
        "backend": "cpu, %d thread%s" % (args.threads, "" if args.threads == 1 else "s"),
        "n": n,
        "substeps": S,
        "iterations": K,
        "steps": args.steps,
        "ms_per_step": round(1000.0 * sum(times) / len(times), 4),
        "max_strain": mx,
        "rms_strain": rms,
        "diverged": diverged,
        "settings": (
            "TimeStepController maxIterations=%d maxIterationsV=0, %d step() calls of dt=1/60/%d per frame; "
            "DistanceConstraint stiffness 1 on grid edges and both quad diagonals; dihedral bending stiffness %g; "
            "%d constraints, %d colour groups; first-order velocity update; no collision objects"
            % (K, S, S, args.bending, n_constraints, len(model.getConstraintGroups()))
        ),
    }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
