#!/usr/bin/env python3
"""Peer benchmark: the hanging-cloth scene (tools/peers/SCENE.md) with NVIDIA
Newton (built on NVIDIA Warp), on Warp's CPU backend.

Solvers:
  --solver xpbd  newton.solvers.SolverXPBD  -> method "XPBD"
  --solver vbd   newton.solvers.SolverVBD   -> method "VBD"

The same elements go to both solvers:
  - stretch: one spring per structural grid edge (2 N (N-1) of them),
  - shear:   one spring per diagonal, both diagonals of every quad,
  - bending: Newton's dihedral-angle edges from add_cloth_grid (one per
             interior edge of its triangulation),
  - no triangle (FEM membrane) elements: tri_ke = tri_ka = tri_kd = 0, so
    the membrane is the springs alone, as in the other peers.

XPBD turns a spring's ke into compliance 1/ke; a bending edge's ke likewise.
VBD treats ke as a penalty stiffness (it cannot take an infinite one); see
--stretch-ke, --shear-ke, --bend-ke.

A "substep" is one solver.step() of dt/substeps; an "iteration" is one
solver iteration inside it (XPBD: one Jacobi sweep over all springs and
bending edges; VBD: one Gauss-Seidel sweep over the vertex colours, each
vertex doing one 3x3 Newton step).

Usage: python warp_cloth.py --n N --substeps S --iterations K [--steps 120]
       [--solver xpbd|vbd]   -> one JSONL line on stdout.
"""

import argparse
import json
import math
import os
import sys
import time
from importlib import metadata

import numpy as np
import warp as wp

import newton

DT = 1.0 / 60.0
WARMUP = 10  # steps excluded from the timing (kernel compile / load)

XPBD_STRETCH_KE = 1.0e30  # compliance 1/ke ~ 1e-30: XPBD compliance 0
SHEAR_KE = 1.0e6  # compliance 1e-6 m/N
BEND_KE = 1.0e2  # compliance 1e-2 1/(N m)
VBD_STRETCH_KE = 1.0e6  # N/m, penalty (see PYTHON.md for the choice)


def diverged_bound(steps):
    """'diverged': a position is not finite, or farther from the origin than
    free fall from rest plus the sheet's size could take it (energy from
    nowhere, not mere stretch)."""
    t = steps * DT
    return 0.5 * 9.81 * t * t + 2.0


def strain(x, n):
    """max and RMS of |len - L| / L over the 2 N (N-1) structural edges."""
    p = x.reshape(n, n, 3)  # [j, i, xyz], index j N + i
    rest = 1.0 / (n - 1)
    lu = np.linalg.norm(p[:, 1:, :] - p[:, :-1, :], axis=2).ravel()
    lv = np.linalg.norm(p[1:, :, :] - p[:-1, :, :], axis=2).ravel()
    e = np.abs(np.concatenate([lu, lv]) - rest) / rest
    return float(e.max()), float(math.sqrt(float(np.mean(e * e))))


def build(n, solver, stretch_ke, shear_ke, bend_ke):
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=(0.0, -9.81, 0.0))
    h = 1.0 / (n - 1)
    # add_cloth_grid lays particle (x, y) of its local XY grid at index
    # y (dim_x + 1) + x; rotating +90 degrees about X maps local (x, y, 0) to
    # world (x, 0, y), so particle j N + i lands at (-0.5 + i h, 1, -0.5 + j h).
    builder.add_cloth_grid(
        pos=wp.vec3(-0.5, 1.0, -0.5),
        rot=wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), 0.5 * math.pi),
        vel=wp.vec3(0.0, 0.0, 0.0),
        dim_x=n - 1,
        dim_y=n - 1,
        cell_x=h,
        cell_y=h,
        mass=0.2 / (n * n),  # 0.2 kg in all, lumped by triangle area
        tri_ke=0.0,
        tri_ka=0.0,
        tri_kd=0.0,
        edge_ke=bend_ke,
        edge_kd=0.0,
        add_springs=False,
        particle_radius=0.0,  # no particle-particle contact
    )
    q = np.array(builder.particle_q, dtype=np.float64)
    ii, jj = np.meshgrid(np.arange(n), np.arange(n))
    want = np.stack([-0.5 + ii.ravel() * h, np.ones(n * n), -0.5 + jj.ravel() * h], axis=1)
    if np.abs(q - want).max() > 1e-5:
        raise SystemExit("warp_cloth: add_cloth_grid layout differs from the scene")

    # Pins: the two corners of the first row, as add_cloth_grid's fix_* do.
    for p in (0, n - 1):
        builder.particle_mass[p] = 0.0
        builder.particle_flags[p] = int(builder.particle_flags[p]) & ~int(newton.ParticleFlags.ACTIVE)

    def idx(i, j):
        return j * n + i

    for j in range(n):
        for i in range(n):
            if i + 1 < n:
                builder.add_spring(idx(i, j), idx(i + 1, j), stretch_ke, 0.0, 0.0)
            if j + 1 < n:
                builder.add_spring(idx(i, j), idx(i, j + 1), stretch_ke, 0.0, 0.0)
    for j in range(n - 1):
        for i in range(n - 1):
            builder.add_spring(idx(i, j), idx(i + 1, j + 1), shear_ke, 0.0, 0.0)
            builder.add_spring(idx(i + 1, j), idx(i, j + 1), shear_ke, 0.0, 0.0)

    if solver == "vbd":
        # VBD's Gauss-Seidel needs a vertex colouring in which no spring or
        # bending hinge has two vertices of one colour. builder.color() looks
        # at triangles and hinges only (and not at inactive ones), so colour
        # the graph of the springs and all hinge vertex pairs ourselves.
        pairs = [np.array(builder.spring_indices, dtype=np.int32).reshape(-1, 2)]
        hinges = np.array(builder.edge_indices, dtype=np.int32).reshape(-1, 4)
        for a in range(4):
            for b in range(a + 1, 4):
                pairs.append(hinges[:, [a, b]])
        e = np.concatenate(pairs)
        e = e[(e >= 0).all(axis=1)]
        e = np.unique(np.sort(e, axis=1), axis=0)
        builder.particle_color_groups = newton.utils.color_graph(n * n, wp.array(e, dtype=int, device="cpu"))

    model = builder.finalize(device="cpu")
    model.particle_grid = None  # no particle hash grid: no contacts at all
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--substeps", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--solver", choices=["xpbd", "vbd"], default="xpbd")
    ap.add_argument("--stretch-ke", type=float, default=None,
                    help="stretch spring ke [N/m]; default XPBD %g (compliance ~0), VBD 1e6" % XPBD_STRETCH_KE)
    ap.add_argument("--shear-ke", type=float, default=SHEAR_KE)
    ap.add_argument("--bend-ke", type=float, default=BEND_KE)
    ap.add_argument("--method-suffix", default="", help="appended to the method name")
    ap.add_argument("--no-graph", action="store_true", help="do not capture the step in a Warp CPU graph")
    args = ap.parse_args()
    n, S, K = args.n, args.substeps, args.iterations
    if n < 2 or S < 1 or K < 1 or args.steps <= WARMUP:
        ap.error("need n >= 2, substeps >= 1, iterations >= 1, steps > %d" % WARMUP)

    # Warp and Newton print progress (module loads) on stdout; keep stdout for
    # the JSON line alone.
    sys.stdout.flush()
    json_fd = os.dup(1)
    os.dup2(2, 1)

    wp.init()
    stretch_ke = args.stretch_ke
    if stretch_ke is None:
        stretch_ke = XPBD_STRETCH_KE if args.solver == "xpbd" else VBD_STRETCH_KE
    shear_ke, bend_ke = args.shear_ke, args.bend_ke
    model = build(n, args.solver, stretch_ke, shear_ke, bend_ke)
    if args.solver == "xpbd":
        solver = newton.solvers.SolverXPBD(model, iterations=K)
    else:
        # (its tiled kernel is CUDA-only; on CPU it runs the per-vertex one)
        solver = newton.solvers.SolverVBD(model, iterations=K, particle_enable_self_contact=False)

    s0, s1 = model.state(), model.state()
    control = model.control()
    h = DT / S

    def simulate():
        nonlocal s0, s1
        for _ in range(S):
            s0.clear_forces()
            solver.step(s0, s1, control, None, h)
            s0, s1 = s1, s0

    # Warp can record the launches of one step into a CPU graph and replay it
    # (what Newton's examples do).  With S odd the step ends in the other
    # state buffer; the graph then copies it back, so that every replay
    # starts from, and ends in, the same buffer.
    def one_step():
        nonlocal s0, s1
        simulate()
        if S % 2 == 1:
            wp.copy(s1.particle_q, s0.particle_q)
            wp.copy(s1.particle_qd, s0.particle_qd)
            s0, s1 = s1, s0

    graph = None
    if not args.no_graph:
        try:
            with wp.ScopedDevice("cpu"):
                with wp.ScopedCapture() as cap:
                    one_step()
            graph = cap.graph
        except Exception as e:  # older Warp: no CPU graphs
            print("warp_cloth: no CPU graph capture (%s); plain launches" % e, file=sys.stderr)
            graph = None
        # Start again from rest, whether or not the capture ran the launches.
        q0 = model.particle_q.numpy()
        for st in (s0, s1):
            st.particle_q.assign(q0)
            st.particle_qd.zero_()

    times = []
    window = []  # (max, rms) strain after each step of the second half
    for step in range(1, args.steps + 1):
        t0 = time.perf_counter()
        if graph is not None:
            wp.capture_launch(graph)
        else:
            one_step()
        wp.synchronize()
        t = time.perf_counter() - t0
        if step > WARMUP:
            times.append(t)
        if step > args.steps // 2:
            xs = s0.particle_q.numpy().astype(np.float64)
            window.append(strain(xs, n) if np.all(np.isfinite(xs)) else (math.inf, math.inf))

    x = s0.particle_q.numpy().astype(np.float64)
    finite = bool(np.all(np.isfinite(x)))
    diverged = (not finite) or float(np.linalg.norm(x, axis=1).max()) > diverged_bound(args.steps)
    # SCENE.md: strain after each of steps 61-120 (the second half): the
    # largest maximum seen, and the mean of the per-step RMS values.
    mx = max(w[0] for w in window)
    rms = sum(w[1] for w in window) / len(window)
    mx, rms = (mx, rms) if math.isfinite(mx) and math.isfinite(rms) else (None, None)

    method = ("XPBD" if args.solver == "xpbd" else "VBD") + args.method_suffix
    if args.solver == "xpbd":
        settings = (
            "SolverXPBD iterations=%d (Jacobi, particle deltas summed, no averaging); "
            "springs: stretch ke=%g (compliance ~0), shear ke=%g (both diagonals); "
            "dihedral bending edge_ke=%g; all kd=0; no tri elements; dt=1/60/%d%s"
            % (K, stretch_ke, shear_ke, bend_ke, S, "; CPU graph" if graph else "")
        )
    else:
        settings = (
            "SolverVBD iterations=%d (colored Gauss-Seidel, vertex Newton); "
            "springs: stretch ke=%g N/m (penalty), shear ke=%g (both diagonals); "
            "dihedral bending edge_ke=%g; all kd=0; no tri elements; self contact off; dt=1/60/%d%s"
            % (K, stretch_ke, shear_ke, bend_ke, S, "; CPU graph" if graph else "")
        )
    out = {
        "peer": "newton",
        "version": "newton %s, warp-lang %s" % (metadata.version("newton"), wp.__version__),
        "method": method,
        "backend": "cpu (Warp CPU backend, 1 thread)",
        "n": n,
        "substeps": S,
        "iterations": K,
        "steps": args.steps,
        "ms_per_step": round(1000.0 * sum(times) / len(times), 4),
        "max_strain": mx,
        "rms_strain": rms,
        "diverged": diverged,
        "settings": settings,
    }
    sys.stdout.flush()
    os.write(json_fd, (json.dumps(out) + "\n").encode())


if __name__ == "__main__":
    main()
