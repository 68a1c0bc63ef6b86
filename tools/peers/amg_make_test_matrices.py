#!/usr/bin/env python3
"""Write test matrices for the AMG peer benchmark (tools/peers/amg.sh).

    amg_make_test_matrices.py OUTDIR [--grid 100] [--mesh tests/data/bracket]
                                     [--box N] [--mu 1e9] [--h 0.01]

Writes, in Matrix Market:

- poisson2d.mtx: the 5-point Laplacian (4 on the diagonal, -1 to each grid
  neighbour, Dirichlet boundary) on a grid x grid interior grid, stored as
  'symmetric' (lower triangle). No .b.mtx: the benchmark takes b = ones.
- bracket.mtx, bracket.b.mtx: the XPBD constraint-space system of a
  tetrahedral mesh (TetGen .node/.ele) with one volume constraint per tet,
      A = G M^-1 G^T + diag(alpha~),  b = -C(x),
  stored as 'general'. See constraint_system() for the physics.
- box<N>.mtx, box<N>.b.mtx (only with --box N): the same system on the unit
  cube cut into N^3 cells of 6 tets each, a larger case than the bracket.

Nothing random: the perturbation of the positions comes from an integer hash
of (vertex, axis), so every run writes the same files.
"""

import argparse
import os
import sys

import numpy as np
import scipy.sparse as sp
import scipy.io

DENSITY = 1000.0  # kg/m^3
MU = 1.0e9  # Pa, the volume constraint's stiffness: compliance 1/(mu V); --mu
H = 0.01  # s, time step; --h
PERTURB = 0.10  # of the mean edge length


def poisson2d(n):
    """5-point Laplacian on an n x n interior grid, row-major unknowns."""
    one = np.ones(n)
    t = sp.diags([-one[:-1], 2.0 * one, -one[:-1]], [-1, 0, 1])
    eye = sp.identity(n)
    return (sp.kron(eye, t) + sp.kron(t, eye)).tocsr()


def read_tetgen(stem):
    """Nodes (n x 3) and tets (m x 4, 0-based) of STEM.node / STEM.ele.

    TetGen numbers nodes from whatever index the first node line carries (0
    or 1); the .ele file uses the same base."""

    def rows(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].split()
                if line:
                    yield line

    node_rows = rows(stem + ".node")
    count, dim = (int(v) for v in next(node_rows)[:2])
    if dim != 3:
        sys.exit("%s.node: dimension %d, expected 3" % (stem, dim))
    ids, xyz = [], []
    for r in node_rows:
        ids.append(int(r[0]))
        xyz.append([float(v) for v in r[1:4]])
    if len(ids) != count:
        sys.exit("%s.node: header says %d nodes, found %d" % (stem, count, len(ids)))
    base = ids[0]
    if ids != list(range(base, base + count)):
        sys.exit("%s.node: node ids are not consecutive" % stem)

    ele_rows = rows(stem + ".ele")
    tcount, per = (int(v) for v in next(ele_rows)[:2])
    if per != 4:
        sys.exit("%s.ele: %d nodes per element; only linear tets (4)" % (stem, per))
    tets = [[int(v) - base for v in r[1:5]] for r in ele_rows]
    if len(tets) != tcount:
        sys.exit("%s.ele: header says %d tets, found %d" % (stem, tcount, len(tets)))
    tets = np.array(tets, dtype=np.int64)
    if tets.min() < 0 or tets.max() >= count:
        sys.exit("%s.ele: node index out of range (base %d)" % (stem, base))
    return np.array(xyz), tets


def box_mesh(n):
    """Unit cube, n^3 cells, each cut into 6 tets around its main diagonal
    (Kuhn's subdivision, so neighbouring cells share faces conformingly)."""
    g = np.arange(n + 1)
    x, y, z = np.meshgrid(g, g, g, indexing="ij")
    nodes = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1) / float(n)

    def vid(i, j, k):
        return (i * (n + 1) + j) * (n + 1) + k

    paths = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    tets = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for p in paths:
                    c = [i, j, k]
                    t = [vid(*c)]
                    for axis in p:
                        c[axis] += 1
                        t.append(vid(*c))
                    tets.append(t)
    return nodes, np.array(tets, dtype=np.int64)


def hash_unit(i, axis):
    """A number in [-1, 1) from (i, axis): splitmix64's finaliser."""
    v = (i * 3 + axis + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    v ^= v >> 31
    return (v >> 11) / float(1 << 52) - 1.0


def constraint_system(rest, tets, mu=MU, h=H):
    """A = G M^-1 G^T + diag(alpha~) and b = -C for one volume constraint per
    tet, C = det(F) - 1, F = Ds Dm^-1, at positions x = rest + a deterministic
    perturbation of PERTURB times the mean edge length per coordinate.

    dC/dx_j (j = 1..3) is column j of cof(F) Dm^-T, dC/dx_0 = -(their sum);
    masses are lumped (a quarter of each tet's rest mass to each vertex);
    alpha~_e = 1 / (mu V_e h^2), V_e the rest volume."""
    nv, nt = len(rest), len(tets)

    edges = set()
    for t in tets:
        for a in range(4):
            for c in range(a + 1, 4):
                edges.add((min(t[a], t[c]), max(t[a], t[c])))
    e = np.array(sorted(edges))
    mean_edge = np.linalg.norm(rest[e[:, 0]] - rest[e[:, 1]], axis=1).mean()
    jitter = np.array([[hash_unit(i, k) for k in range(3)] for i in range(nv)])
    x = rest + PERTURB * mean_edge * jitter

    Dm = np.stack([rest[tets[:, j]] - rest[tets[:, 0]] for j in (1, 2, 3)], axis=2)
    Ds = np.stack([x[tets[:, j]] - x[tets[:, 0]] for j in (1, 2, 3)], axis=2)
    detDm = np.linalg.det(Dm)
    if np.any(np.abs(detDm) < 1e-14):
        sys.exit("degenerate tet in the rest mesh")
    vol = np.abs(detDm) / 6.0
    DmInv = np.linalg.inv(Dm)
    F = Ds @ DmInv
    detF = np.linalg.det(F)
    # cof(F) = det(F) F^-T
    cof = detF[:, None, None] * np.transpose(np.linalg.inv(F), (0, 2, 1))
    grad3 = cof @ np.transpose(DmInv, (0, 2, 1))  # columns: dC/dx_1..3
    grads = np.empty((nt, 4, 3))
    grads[:, 1:, :] = np.transpose(grad3, (0, 2, 1))
    grads[:, 0, :] = -grads[:, 1:, :].sum(axis=1)

    mass = np.zeros(nv)
    np.add.at(mass, tets.ravel(), np.repeat(DENSITY * vol / 4.0, 4))
    if np.any(mass <= 0.0):
        sys.exit("a vertex belongs to no tet")

    rows = np.repeat(np.arange(nt), 12)
    cols = (3 * tets[:, :, None] + np.arange(3)[None, None, :]).reshape(nt, 12).ravel()
    G = sp.csr_matrix((grads.reshape(nt, 12).ravel(), (rows, cols)), shape=(nt, 3 * nv))
    Minv = sp.diags(np.repeat(1.0 / mass, 3))
    alpha = 1.0 / (mu * vol * h * h)
    A = (G @ Minv @ G.T + sp.diags(alpha)).tocsr()
    A = 0.5 * (A + A.T)  # exact symmetry despite rounding in the product
    A.sum_duplicates()
    A.sort_indices()
    b = -(detF - 1.0)
    return A.tocoo(), b, mean_edge


def write_pair(outdir, name, A, b, symmetry, comment):
    path = os.path.join(outdir, name + ".mtx")
    scipy.io.mmwrite(path, A, comment=comment, field="real", symmetry=symmetry)
    if b is not None:
        scipy.io.mmwrite(os.path.join(outdir, name + ".b.mtx"), b.reshape(-1, 1),
                         comment="right-hand side of " + name + ".mtx", field="real")
    print("%s: %d rows, %d stored entries (%s)" % (path, A.shape[0], A.nnz, symmetry),
          file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--grid", type=int, default=100, help="Poisson grid side (default 100)")
    ap.add_argument("--mesh", default=os.path.join(here, "..", "..", "tests", "data", "bracket"),
                    help="TetGen mesh stem (default tests/data/bracket)")
    ap.add_argument("--box", type=int, default=0,
                    help="also write box<N>: the unit cube in N^3 x 6 tets")
    ap.add_argument("--mu", type=float, default=MU, help="stiffness, Pa (default 1e9)")
    ap.add_argument("--h", type=float, default=H, help="time step, s (default 0.01)")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)

    P = poisson2d(args.grid)
    write_pair(args.outdir, "poisson2d", sp.tril(P).tocoo(), None, "symmetric",
               "5-point Laplacian, %d x %d grid, b = ones" % (args.grid, args.grid))

    meshes = [(os.path.basename(args.mesh), read_tetgen(args.mesh))]
    if args.box > 0:
        meshes.append(("box%d" % args.box, box_mesh(args.box)))
    for name, (rest, tets) in meshes:
        A, b, mean_edge = constraint_system(rest, tets, args.mu, args.h)
        note = ("XPBD volume constraints, A = G M^-1 G^T + alpha~: %d tets, %d vertices, "
                "density %g, mu %g Pa, h %g s, positions perturbed by %g x mean edge %.4g m"
                % (len(tets), len(rest), DENSITY, args.mu, args.h, PERTURB, mean_edge))
        write_pair(args.outdir, name, A, b, "general", note)


if __name__ == "__main__":
    main()
