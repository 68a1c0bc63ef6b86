"""A cloth dropped on a ball, written to OBJ.

    python cloth_drop.py [--steps 120] [--out cloth.obj] [--device NAME]

A 40 x 40 square metre of cloth, lying 1 m up, falls on a ball of 0.3 m
resting on the ground; its positions at the end go to an OBJ file with the
asset's triangles.
"""

import argparse

import numpy as np

import sinew


def write_obj(path, positions, triangles):
    with open(path, "w") as f:
        f.write("# sinew: cloth_drop.py\n")
        np.savetxt(f, positions, fmt="v %.9g %.9g %.9g")
        np.savetxt(f, triangles + 1, fmt="f %d %d %d")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--out", default="cloth.obj")
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    ctx = sinew.Context(args.device)
    asset = sinew.prep.grid(40, 40, size=(1.0, 1.0), height=1.0, pin_corners=False)
    body = ctx.create_body(asset, solver="xpbd-gs", substeps=8, stretch_compliance=1e-6)
    body.params.sphere = True
    body.params.sphere_center = (0.0, 0.3, 0.0)
    body.params.sphere_radius = 0.3
    for _ in range(args.steps):
        body.step()
    x = body.positions()
    s = body.stats()
    print(f"{ctx.device.name}: {args.steps} steps, max strain {100 * s.max_strain:.2f} %, "
          f"lowest point y = {x[:, 1].min():.3f} m, {s.dispatches} dispatches a step")
    write_obj(args.out, x, asset.triangles())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
