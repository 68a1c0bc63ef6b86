#!/usr/bin/env python3
"""Writes the textured sample meshes of data/ (docs/render-mesh.md): a tube
with a UV seam, as OBJ (v, vt, vn, f v/vt/vn) and as glTF 2.0 (one .gltf,
its buffer embedded as base64). Closed-form, no randomness, coordinates
rounded to 6 decimals: `python3 data/make_render_samples.py` (from the
repository's root) writes the same files again.

The tube's axis is y; around it u = angle / 2 pi runs from 0 to 1, so the
column of vertices at angle 0 carries u = 0 on one side and u = 1 on the
other: one position, two render vertices (the seam). v = (y - y0) / height.
Normals point outwards, radially.
"""
import base64
import json
import math
import struct


def tube(around, rings, radius, height, y0):
    """Positions (around per ring), and render vertices (around + 1 per ring):
    (position index, u, v, normal)."""
    positions, render = [], []
    for i in range(rings):
        y = y0 + height * i / (rings - 1)
        for j in range(around):
            a = 2 * math.pi * j / around
            positions.append((round(radius * math.cos(a), 6), round(y, 6), round(radius * math.sin(a), 6)))
        for j in range(around + 1):
            a = 2 * math.pi * j / around
            render.append((i * around + j % around, round(j / around, 6), round(i / (rings - 1), 6),
                           (round(math.cos(a), 6), 0.0, round(math.sin(a), 6))))
    quads = []
    for i in range(rings - 1):
        for j in range(around):
            a, b = i * (around + 1) + j, i * (around + 1) + j + 1
            c, d = b + around + 1, a + around + 1
            quads.append((a, d, c, b))  # outward winding: normal along +radius
    return positions, render, quads


def write_obj(path, around, rings, radius, height, y0):
    positions, render, quads = tube(around, rings, radius, height, y0)
    with open(path, "w") as f:
        f.write("# A textured tube with a UV seam (data/make_render_samples.py; MIT, the sinew authors)\n")
        for p in positions:
            f.write("v %.6f %.6f %.6f\n" % p)
        for r in render:
            f.write("vt %.6f %.6f\n" % (r[1], r[2]))
        for r in render:
            f.write("vn %.6f %.6f %.6f\n" % r[3])
        for q in quads:
            f.write("f " + " ".join("%d/%d/%d" % (render[k][0] + 1, k + 1, k + 1) for k in q) + "\n")


def write_gltf(path, around, rings, radius, height, y0):
    positions, render, quads = tube(around, rings, radius, height, y0)
    pos = [positions[r[0]] for r in render]
    nrm = [r[3] for r in render]
    uv = [(r[1], r[2]) for r in render]  # glTF's v runs downwards; the file keeps v as it is
    idx = []
    for a, b, c, d in quads:
        idx += [a, b, c, a, c, d]
    blob = b"".join(struct.pack("<3f", *p) for p in pos)
    blob += b"".join(struct.pack("<3f", *n) for n in nrm)
    blob += b"".join(struct.pack("<2f", *t) for t in uv)
    blob += b"".join(struct.pack("<I", k) for k in idx)
    n = len(render)
    lo = [min(p[k] for p in pos) for k in range(3)]
    hi = [max(p[k] for p in pos) for k in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "data/make_render_samples.py (MIT, the sinew authors)"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3}]}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12 * n, "target": 34962},
            {"buffer": 0, "byteOffset": 12 * n, "byteLength": 12 * n, "target": 34962},
            {"buffer": 0, "byteOffset": 24 * n, "byteLength": 8 * n, "target": 34962},
            {"buffer": 0, "byteOffset": 32 * n, "byteLength": 4 * len(idx), "target": 34963}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5125, "count": len(idx), "type": "SCALAR"}],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    write_obj("data/textured_tube.obj", 24, 9, 0.1, 0.3, 0.85)
    write_gltf("data/textured_tube.gltf", 16, 6, 0.1, 0.25, 0.85)
