#!/usr/bin/env python3
"""Writes the sample meshes the README's examples use, beside this script:

  tablecloth.obj  an open surface for cloth: a round tablecloth of radius
              0.6 m at y = 1 m, rings of 6k vertices at k x 3 cm (k = 0..20:
              1261 vertices, 2400 nearly equilateral triangles whose edges
              follow no grid direction). Dropped on a sphere it falls into
              folds all round.
  pebble.off  a closed surface for soft bodies: an icosahedron split four
              ways three times (642 vertices, 1280 triangles) pushed out to
              a flattened, gently lobed pebble about 0.36 x 0.2 x 0.26 m
              resting 0.3 m above the origin. `sinew-prep --tetrahedralise`
              fills it with tetrahedra.

Everything is computed from closed-form shapes (no randomness); coordinates
are rounded to 6 decimals, so the files are the same on every machine.
Run: python3 data/make_samples.py
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def tablecloth():
    rings, spacing, height = 20, 0.03, 1.0
    v = [(0.0, height, 0.0)]
    first = [0]  # each ring's first vertex
    for k in range(1, rings + 1):
        first.append(len(v))
        for i in range(6 * k):
            a = 2 * math.pi * i / (6 * k)
            v.append((k * spacing * math.cos(a), height, k * spacing * math.sin(a)))
    f = []
    for i in range(6):  # the centre's fan
        f.append((0, 1 + (i + 1) % 6, 1 + i))
    for k in range(2, rings + 1):  # ring k-1 zipped to ring k by angle
        n_in, n_out = 6 * (k - 1), 6 * k
        i = j = 0
        while i < n_in or j < n_out:
            a, b = first[k - 1] + i % n_in, first[k] + j % n_out
            if j < n_out and (i == n_in or (j + 1) * n_in <= (i + 1) * n_out):
                f.append((a, first[k] + (j + 1) % n_out, b))
                j += 1
            else:
                f.append((a, first[k - 1] + (i + 1) % n_in, b))
                i += 1
    return v, f


def icosphere(levels):
    p = (1 + math.sqrt(5)) / 2
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p),
         (0, -1, -p), (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    v = [tuple(c / math.sqrt(1 + p * p) for c in x) for x in v]
    for _ in range(levels):
        mid = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                m = [(v[a][k] + v[b][k]) / 2 for k in range(3)]
                n = math.sqrt(sum(c * c for c in m))
                v.append(tuple(c / n for c in m))
                mid[key] = len(v) - 1
            return mid[key]

        g = []
        for a, b, c in f:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    return v, f


def pebble():
    v, f = icosphere(2)
    out = []
    for x, y, z in v:
        lobes = 1 + 0.08 * math.sin(3 * math.atan2(z, x)) * (1 - y * y) + 0.05 * x * y
        out.append((0.18 * x * lobes, 0.3 + 0.1 * y * lobes, 0.13 * z * lobes))
    return out, f


def fmt(x):
    s = "%.6f" % x
    return "0.000000" if s == "-0.000000" else s


def main():
    v, f = tablecloth()
    with open(os.path.join(HERE, "tablecloth.obj"), "w") as out:
        out.write("# A round tablecloth for cloth examples (data/make_samples.py; MIT, the sinew authors)\n")
        for p in v:
            out.write("v %s\n" % " ".join(fmt(c) for c in p))
        for t in f:
            out.write("f %d %d %d\n" % tuple(i + 1 for i in t))
    v, f = pebble()
    with open(os.path.join(HERE, "pebble.off"), "w") as out:
        out.write("OFF\n# A lobed pebble for soft-body examples (data/make_samples.py; MIT, the sinew authors)\n")
        out.write("%d %d 0\n" % (len(v), len(f)))
        for p in v:
            out.write("%s\n" % " ".join(fmt(c) for c in p))
        for t in f:
            out.write("3 %d %d %d\n" % t)


if __name__ == "__main__":
    main()
