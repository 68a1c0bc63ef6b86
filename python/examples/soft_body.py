"""A soft body from a tetrahedral mesh given as arrays, dropped on the ground.

    python soft_body.py [--cells 4] [--steps 90] [--youngs 2e5]

The mesh is made here with numpy (a cube of cells, six tetrahedra each), as
a program would pass one it made or read; sinew.prep.soft builds the asset
(masses, elements, colouring) and Generalized PBD steps it.
"""

import argparse

import numpy as np

import sinew


def cube(cells, size, height):
    """Vertices (N, 3) and tetrahedra (K, 4) of a cube of cells^3 cells."""
    g = np.linspace(-size / 2, size / 2, cells + 1)
    x, y, z = np.meshgrid(g, g + height, g, indexing="ij")
    vertices = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    index = np.arange((cells + 1) ** 3).reshape(cells + 1, cells + 1, cells + 1)
    corners = np.stack([index[a:a + cells, b:b + cells, c:c + cells].ravel()
                        for a in (0, 1) for b in (0, 1) for c in (0, 1)], axis=1)
    split = np.array([(0, 1, 3, 7), (0, 1, 5, 7), (0, 2, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 4, 6, 7)])
    tets = corners[:, split].reshape(-1, 4)
    # Each positively oriented (sinew.prep would turn the others over, with a warning).
    a, b, c, d = (vertices[tets[:, k]] for k in range(4))
    negative = np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) < 0
    tets[negative, 2], tets[negative, 3] = tets[negative, 3], tets[negative, 2].copy()
    return vertices, tets


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--steps", type=int, default=90)
    ap.add_argument("--youngs", type=float, default=2e5)
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    vertices, tets = cube(args.cells, 0.4, 0.6)
    asset = sinew.prep.soft(vertices, tets, youngs=args.youngs, poisson=0.4, density=400.0)
    print(f"{asset.report.tet_count} tetrahedra, {asset.report.particle_count} particles, "
          f"{asset.report.colour_count} colours, {asset.report.total_mass:.2f} kg")

    ctx = sinew.Context(args.device)
    body = ctx.create_body(asset, solver="gpbd-gs", substeps=4, iterations=2)
    for step in range(args.steps):
        body.step()
        if step % 30 == 29:
            s = body.stats()
            y = body.positions()[:, 1]
            print(f"step {step + 1:4d}: lowest y {y.min():+.4f} m, highest {y.max():.4f} m, "
                  f"inverted {s.inverted_elements}, largest |V/V0 - 1| {s.max_volume_error:.3f}")


if __name__ == "__main__":
    main()
