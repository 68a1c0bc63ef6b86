#!/usr/bin/env python3
"""Regenerates the committed seed corpora in tests/fuzz/corpus/ from real files.

    tests/fuzz/make_seeds.py [CGAL_MESHES_DIR] [SINEW_PREP] [SINEW_SIM]

    tests/fuzz/make_seeds.py --only checkpoint,prep [SINEW_PREP] [SINEW_SIM]

CGAL_MESHES_DIR defaults to build/cgal-data/meshes (tools/run.sh test unpacks
Debian's CGAL demo models there), SINEW_PREP to build/tools/sinew-prep and
SINEW_SIM to build/tools/sinew-sim (checkpoints need a Vulkan device:
lavapipe will do). --only regenerates those targets' seeds alone.

  obj, cloth  tests/data/*.obj, and small CGAL models converted to OBJ
  off         tests/data/*.off and small CGAL models as they are
  ply         CGAL's PLY files, and CGAL models written as ASCII and binary PLY
  stl         CGAL's sphere.stl, and CGAL models written as ASCII and binary STL
  gltf        CGAL models written as .gltf (embedded buffer) and .glb
  asset       what sinew-prep builds from some of the above (named .asset,
              since *.snw is ignored by git), plus two hand-made variants: an
              unknown section, and no META; hierarchy.asset (format 1.2, a
              particle hierarchy); red_black.asset (format 1.3, a red-black
              partition); clusters.asset (format 1.5, clustered sweeps
              of several passes); render.asset (format 1.6, a render
              mesh with a UV seam); origin.asset (format 1.7, a grid
              placed 10 km out: an ORIG section); materials.asset (format
              1.8, a flag of three usemtl groups and its .mtl); and elements.asset, a format 1.1
              asset of finite elements written here from the format's
              specification
  checkpoint  checkpoints sinew-sim writes (docs/checkpoint-format.md): a
              cloth of XPBD, the same as versions 1 and 2 wrote it, an
              implicit cloth (anchors), a soft bar of MGPBD (its record),
              a world of two cloths
  prep        inputs of fuzz_prep's decoder (tests/fuzz/fuzz_prep.c), one
              per entry point, each a small valid mesh or graph

Only the standard library; the conversions are written here from the formats'
specifications so that the seeds do not depend on assimp's exporters.
"""
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
DATA = os.path.join(ROOT, "tests", "data")

# Small CGAL models (each < 10 KB): triangles, quads, polygons, colours, comments.
OFF_MODELS = ["cube_quad", "torus_quad", "cross", "tripod", "hole", "icosahedron", "mesh_with_colors",
              "corner_poly", "cube_poly", "star", "P", "tetrahedron", "quad", "triangle", "hedra", "fold",
              "octahedron", "negative", "u", "mpi"]


def read_off(path):
    """Vertices and polygon faces of an OFF file (colours and comments skipped)."""
    lines = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                lines.append(line)
    head = lines.pop(0)
    if head[0].endswith("OFF"):
        head = head[1:] or lines.pop(0)
    nv, nf = int(head[0]), int(head[1])
    verts = [tuple(float(x) for x in lines[i][:3]) for i in range(nv)]
    faces = []
    for line in lines[nv:nv + nf]:
        k = int(line[0])
        faces.append([int(x) for x in line[1:1 + k]])
    return verts, faces


def triangles(faces):
    """Fan triangulation, for the formats that only hold triangles."""
    return [(f[0], f[i], f[i + 1]) for f in faces for i in range(1, len(f) - 1)]


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(CORPUS, target, name), mode) as f:
        f.write(data)


def obj_text(verts, faces, negative=False):
    out = ["# converted from a CGAL demo model\n"]
    out += ["v %.9g %.9g %.9g\n" % v for v in verts]
    for f in faces:
        idx = [str(i - len(verts)) if negative else "%d/%d" % (i + 1, i + 1) for i in f]
        out.append("f " + " ".join(idx) + "\n")
    return "".join(out)


def ply_bytes(verts, faces, fmt):
    head = ("ply\nformat %s 1.0\ncomment converted from a CGAL demo model\nelement vertex %d\n"
            "property float x\nproperty float y\nproperty float z\nelement face %d\n"
            "property list uchar int vertex_indices\nend_header\n" % (fmt, len(verts), len(faces)))
    if fmt == "ascii":
        body = "".join("%.9g %.9g %.9g\n" % v for v in verts)
        body += "".join("%d %s\n" % (len(f), " ".join(map(str, f))) for f in faces)
        return (head + body).encode()
    e = "<" if fmt == "binary_little_endian" else ">"
    body = b"".join(struct.pack(e + "3f", *v) for v in verts)
    body += b"".join(struct.pack(e + "B%di" % len(f), len(f), *f) for f in faces)
    return head.encode() + body


def normal(a, b, c):
    u = [b[k] - a[k] for k in range(3)]
    w = [c[k] - a[k] for k in range(3)]
    n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
    length = sum(x * x for x in n) ** 0.5 or 1.0
    return tuple(x / length for x in n)


def stl_ascii(verts, faces):
    out = ["solid cgal\n"]
    for t in triangles(faces):
        p = [verts[i] for i in t]
        out.append(" facet normal %.6g %.6g %.6g\n  outer loop\n" % normal(*p))
        out += ["   vertex %.9g %.9g %.9g\n" % v for v in p]
        out.append("  endloop\n endfacet\n")
    out.append("endsolid cgal\n")
    return "".join(out).encode()


def stl_binary(verts, faces):
    tris = triangles(faces)
    out = [b"converted from a CGAL demo model".ljust(80, b" "), struct.pack("<I", len(tris))]
    for t in tris:
        p = [verts[i] for i in t]
        out.append(struct.pack("<12fH", *normal(*p), *p[0], *p[1], *p[2], 0))
    return b"".join(out)


def gltf_parts(verts, faces, translation):
    """The JSON and binary buffer of a one-mesh glTF 2.0 scene."""
    tris = triangles(faces)
    pos = b"".join(struct.pack("<3f", *v) for v in verts)
    idx = b"".join(struct.pack("<3H", *t) for t in tris)
    idx += b"\0" * (-len(idx) % 4)
    lo = [min(v[k] for v in verts) for k in range(3)]
    hi = [max(v[k] for v in verts) for k in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "sinew make_seeds.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "translation": translation}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
        "buffers": [{"byteLength": len(pos) + len(idx)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
                        {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx), "target": 34963}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(verts), "type": "VEC3",
                       "min": lo, "max": hi},
                      {"bufferView": 1, "componentType": 5123, "count": 3 * len(tris), "type": "SCALAR"}],
    }
    return doc, pos + idx


def gltf_embedded(verts, faces):
    doc, buf = gltf_parts(verts, faces, [0, 1, 0])
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(buf).decode()
    return json.dumps(doc, indent=1).encode()


def glb(verts, faces):
    doc, buf = gltf_parts(verts, faces, [0, 0, 0])
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    buf += b"\0" * (-len(buf) % 4)
    chunks = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(buf), b"BIN\0") + buf
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def add_section(asset, tag, payload):
    """The asset with one more section (docs/asset-format.md), CRCs recomputed."""
    count = struct.unpack_from("<I", asset, 8)[0]
    table_end = 32 + 32 * (count + 1)
    entries = []
    for i in range(count):
        e = bytearray(asset[32 + 32 * i:64 + 32 * i])
        struct.pack_into("<Q", e, 8, struct.unpack_from("<Q", e, 8)[0] + 32)  # payloads move down one entry
        entries.append(bytes(e))
    body = asset[32 + 32 * count:]
    offset = table_end + len(body)
    entries.append(struct.pack("<4sIQQII", tag, 1, offset, len(payload), len(payload),
                               zlib.crc32(payload)))
    payload += b"\0" * (-len(payload) % 16)
    header = bytearray(asset[:32])
    struct.pack_into("<I", header, 8, count + 1)
    struct.pack_into("<Q", header, 16, table_end + len(body) + len(payload))
    struct.pack_into("<I", header, 12, 0)
    out = bytearray(bytes(header) + b"".join(entries) + body + payload)
    struct.pack_into("<I", out, 12, zlib.crc32(bytes(out[:table_end])))
    return bytes(out)


def drop_meta(asset):
    """The asset without its META section (the last one the writer writes)."""
    count = struct.unpack_from("<I", asset, 8)[0]
    tag, _, offset = struct.unpack_from("<4sIQ", asset, 32 + 32 * (count - 1))
    assert tag == b"META"
    out = bytearray(asset[:offset])
    del out[32 + 32 * (count - 1):32 + 32 * count]  # the entry; payload offsets shift by 32
    for i in range(count - 1):
        at = 32 + 32 * i + 8
        struct.pack_into("<Q", out, at, struct.unpack_from("<Q", out, at)[0] - 32)
    struct.pack_into("<I", out, 8, count - 1)
    struct.pack_into("<Q", out, 16, len(out))
    struct.pack_into("<I", out, 12, 0)
    struct.pack_into("<I", out, 12, zlib.crc32(bytes(out[:32 + 32 * (count - 1)])))
    return bytes(out)


def f32(v):
    """v rounded to binary32, as C's (float) cast does."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def asset_file(minor, sections):
    """An asset file (docs/asset-format.md) of (tag, record count, payload)."""
    table_end = 32 + 32 * len(sections)
    entries, body = [], b""
    for tag, count, payload in sections:
        entries.append(struct.pack("<4sIQQII", tag, 1, table_end + len(body), len(payload), count,
                                   zlib.crc32(payload)))
        body += payload + b"\0" * (-len(payload) % 16)
    header = struct.pack("<4sHHIIQ8x", b"SNWA", 1, minor, len(sections), 0, table_end + len(body))
    out = bytearray(header + b"".join(entries) + body)
    struct.pack_into("<I", out, 12, zlib.crc32(bytes(out[:table_end])))
    return bytes(out)


def element_asset():
    """Format 1.1: two tetrahedra sharing a face, two membrane triangles (warp
    along x, weft along z) and two springs, one material of each model, three
    element colours: the solid of tests/test_asset.c, up to rounding."""
    x = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (0, 2, 0), (1, 2, 0), (0, 2, 1), (1, 2, 1)]
    part = b"".join(struct.pack("<4f", *p, 0.0 if i == 5 else 2.0) for i, p in enumerate(x))
    none = 0xFFFFFFFF

    def tet(v, material):
        d = [[x[v[c + 1]][r] - x[v[0]][r] for c in range(3)] for r in range(3)]
        det = (d[0][0] * (d[1][1] * d[2][2] - d[2][1] * d[1][2]) - d[0][1] * (d[1][0] * d[2][2] - d[2][0] * d[1][2])
               + d[0][2] * (d[1][0] * d[2][1] - d[2][0] * d[1][1]))
        assert det > 0
        inv = [0.0] * 9  # column-major: row r, column c at 3c + r
        for r in range(3):
            for c in range(3):
                r1, r2, c1, c2 = (c + 1) % 3, (c + 2) % 3, (r + 1) % 3, (r + 2) % 3
                inv[3 * c + r] = (d[r1][c1] * d[r2][c2] - d[r1][c2] * d[r2][c1]) / det
        return struct.pack("<6If9f", *v, 2, material, det / 6, *inv)

    def membrane(v, material):
        (a, b, c) = (x[i] for i in v)
        d00, d01, d10, d11 = b[0] - a[0], c[0] - a[0], b[2] - a[2], c[2] - a[2]
        det = d00 * d11 - d01 * d10
        inv = [d11 / det, -d10 / det, 0, -d01 / det, d00 / det, 0, 0, 0, 0]
        return struct.pack("<6If9f", *v, none, 1, material, abs(det) / 2, *inv)

    def spring(v, material):
        length = sum((x[v[1]][k] - x[v[0]][k]) ** 2 for k in range(3)) ** 0.5
        return struct.pack("<6If9f", *v, none, none, 0, material, length, *[0.0] * 9)

    elem = (tet((0, 1, 2, 3), 0) + membrane((5, 6, 7), 2) + tet((1, 2, 3, 4), 1) + membrane((6, 8, 7), 3)
            + spring((4, 5), 4) + spring((0, 8), 4))
    ecol = b"".join(struct.pack("<2I", 2 * c, 2) for c in range(3))

    def material(model, e, nu, thickness=0.0, compliance=0.0, density=1000.0, strain=None, stress=None):
        strain = strain or [[0.0] * 8] * 3
        stress = stress or [[0.0] * 8] * 3
        return struct.pack("<I7f24f24f", model, e, nu, thickness, compliance, density, 0, 0,
                           *[v for curve in strain for v in curve], *[v for curve in stress for v in curve])

    e = [f32(f32(-0.1) + f32(0.05) * i) for i in range(8)]
    warp = [1e6 * v + (4e7 * v * v if v > 0 else 0.0) for v in e]
    matl = (material(2, 1e6, 0.45) + material(1, 5e5, 0.3) + material(3, 2e6, 0.25, thickness=1e-3)
            + material(4, 0, 0, thickness=4e-4, density=300, strain=[e] * 3,
                       stress=[warp, [2e5 * v for v in e], [5e4 * v for v in e]])
            + material(0, 0, 0, compliance=1e-6))
    meta = b"name=elements\nsource=make_seeds.py\n"
    return asset_file(1, [(b"PART", len(x), part), (b"TRIS", 0, b""), (b"DIST", 0, b""), (b"BEND", 0, b""),
                          (b"COLR", 0, b""), (b"ELEM", 6, elem), (b"ECOL", 3, ecol), (b"MATL", 5, matl),
                          (b"META", len(meta), meta)])


# ---------------------------------------------------------------- checkpoints

def checkpoint_with_version(ck, version):
    """A version 3 checkpoint without a record as an older version wrote it:
    version 1 has no mass CRC either. The header CRC made right again."""
    out = bytearray(ck)
    assert struct.unpack_from("<I", out, 52)[0] == 0, "a record: no older version holds it"
    struct.pack_into("<I", out, 4, version)
    if version < 2:
        struct.pack_into("<I", out, 48, 0)
    struct.pack_into("<I", out, 60, zlib.crc32(bytes(out[:60])))
    return bytes(out)


def checkpoint_seeds(prep, sim):
    shutil.rmtree(os.path.join(CORPUS, "checkpoint"), ignore_errors=True)
    env = dict(os.environ, XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
    with tempfile.TemporaryDirectory() as tmp:
        def run(args):
            subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def saved(name, asset, extra):
            out = os.path.join(tmp, name + ".snwc")
            run([sim, asset, "-n", "3", "-q", "--no-png", "-o", os.path.join(tmp, name), "--checkpoint", out] + extra)
            with open(out, "rb") as f:
                return f.read()

        grid = os.path.join(tmp, "grid.snw")
        run([prep, "--grid", "4x4", "--pin-corners", "-q", "-o", grid])
        sub = os.path.join(tmp, "sub.snw")
        run([prep, "--grid", "3x3", "--pin-corners", "--subdivide", "1", "-q", "-o", sub])
        bar = os.path.join(tmp, "bar.snw")
        run([prep, os.path.join(DATA, "bar-v2.msh"), "-q", "-o", bar])
        cloth = saved("cloth", grid, [])
        write("checkpoint", "cloth.snwc", cloth)
        write("checkpoint", "cloth_v2.snwc", checkpoint_with_version(cloth, 2))
        write("checkpoint", "cloth_v1.snwc", checkpoint_with_version(cloth, 1))
        write("checkpoint", "implicit.snwc", saved("implicit", sub, ["--solver", "implicit-pcg", "--substeps", "1"]))
        write("checkpoint", "mgpbd.snwc", saved("mgpbd", bar, ["--solver", "mgpbd", "--setup-interval", "2"]))
        write("checkpoint", "world.snwc", saved("world", grid, ["--add", grid + "@0.1,0.3,0"]))


# ---------------------------------------------------------------- fuzz_prep's inputs

def prep_value(v):
    """fuzz_prep's value(): 255, then the float's four bytes."""
    return b"\xff" + struct.pack("<f", v)


def prep_positions(points):
    return b"".join(prep_value(c) for p in points for c in p)


def prep_seeds():
    """One input per entry point of fuzz_prep (the decoder's order: entry,
    then its arrays, then the options' bits, all zero here: the defaults)."""
    shutil.rmtree(os.path.join(CORPUS, "prep"), ignore_errors=True)
    quad = [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1), (2, 0, 0), (2, 0, 1)]
    # cloth: flags 0 (floats, no UVs), 6 vertices, 1 triangle, 1 quad
    write("prep", "cloth.bin", bytes([0, 0, 6]) + prep_positions(quad) + bytes([1, 1, 1, 4, 5, 0, 1, 2, 3])
          + bytes(4))
    # cloth with UVs (flags 8) and double positions (flags 1)
    uvs = b"".join(prep_value(c) for p in quad for c in (p[0] / 2, p[2]))
    write("prep", "cloth_uv.bin", bytes([0, 9, 6]) + prep_positions(quad) + bytes([0, 1, 0, 1, 2, 3]) + uvs
          + bytes(4))
    # grid: flags 0, 5 x 4 vertices, the default options
    write("prep", "grid.bin", bytes([1, 0, 5, 4]) + bytes(4))
    # soft: two tetrahedra sharing a face
    tets = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]
    write("prep", "soft.bin", bytes([2, 0, 5]) + prep_positions(tets) + bytes([2, 0, 1, 2, 3, 1, 2, 3, 4])
          + bytes(4))
    # soft from a surface: a closed tetrahedron's four faces, lattice of 4 cells (bits 9..11: 3)
    faces = bytes([0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2])
    write("prep", "surface.bin", bytes([3, 0, 4]) + prep_positions(tets[:4]) + bytes([4, 0]) + faces
          + struct.pack("<I", 3 << 9))
    # colouring: 4 constraints of 2 particles on a chain of 5, in range (flags 2)
    write("prep", "colour.bin", bytes([4, 4, 5, 2, 2, 2, 2, 2, 0, 1, 1, 2, 2, 3, 3, 4]))


def main():
    tools = os.path.join(ROOT, "build", "tools")
    if sys.argv[1:2] == ["--only"] and len(sys.argv) > 2:
        prep = sys.argv[3] if len(sys.argv) > 3 else os.path.join(tools, "sinew-prep")
        sim = sys.argv[4] if len(sys.argv) > 4 else os.path.join(tools, "sinew-sim")
        for target in sys.argv[2].split(","):
            {"checkpoint": lambda: checkpoint_seeds(prep, sim), "prep": prep_seeds}[target]()
        return
    cgal = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cgal-data", "meshes")
    prep = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tools, "sinew-prep")
    sim = sys.argv[3] if len(sys.argv) > 3 else os.path.join(tools, "sinew-sim")
    for target in ["obj", "off", "ply", "stl", "gltf", "asset", "cloth"]:
        shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)
        os.makedirs(os.path.join(CORPUS, target))

    for name in sorted(os.listdir(DATA)):
        for ext, targets in ((".obj", ["obj", "cloth"]), (".off", ["off"])):
            if name.endswith(ext):
                for t in targets:
                    shutil.copy(os.path.join(DATA, name), os.path.join(CORPUS, t, name))

    models = {}
    for m in OFF_MODELS:
        path = os.path.join(cgal, m + ".off")
        shutil.copy(path, os.path.join(CORPUS, "off", m + ".off"))
        models[m] = read_off(path)

    for m in ["cube_quad", "torus_quad", "cross", "hole", "corner_poly", "fold"]:
        v, f = models[m]
        write("obj", m + ".obj", obj_text(v, f, negative=(m == "hole")))
        write("cloth", m + ".obj", obj_text(v, f))

    for name in ["colored_tetra.ply", "sphere.ply"]:
        shutil.copy(os.path.join(cgal, name), os.path.join(CORPUS, "ply", name))
    write("ply", "cube_quad_le.ply", ply_bytes(*models["cube_quad"], "binary_little_endian"))
    write("ply", "torus_quad_be.ply", ply_bytes(*models["torus_quad"], "binary_big_endian"))
    write("ply", "cross_ascii.ply", ply_bytes(*models["cross"], "ascii"))
    write("ply", "star_le.ply", ply_bytes(*models["star"], "binary_little_endian"))

    shutil.copy(os.path.join(cgal, "sphere.stl"), os.path.join(CORPUS, "stl", "sphere.stl"))
    write("stl", "tetrahedron_ascii.stl", stl_ascii(*models["tetrahedron"]))
    write("stl", "cube_quad_binary.stl", stl_binary(*models["cube_quad"]))
    write("stl", "hole_binary.stl", stl_binary(*models["hole"]))

    write("gltf", "cube_quad.gltf", gltf_embedded(*models["cube_quad"]))
    write("gltf", "icosahedron.glb", glb(*models["icosahedron"]))
    write("gltf", "tripod.glb", glb(*models["tripod"]))

    with tempfile.TemporaryDirectory() as tmp:
        jobs = [("quad", os.path.join(DATA, "quad.obj"), []),
                ("fin", os.path.join(DATA, "fin.obj"), ["--pin", "0,3"]),
                ("tetrahedron", os.path.join(cgal, "tetrahedron.off"), []),
                ("cube_quad", os.path.join(cgal, "cube_quad.off"), ["--colouring", "greedy"]),
                ("icosahedron", os.path.join(cgal, "icosahedron.off"), ["--no-bending"]),
                ("hole", os.path.join(cgal, "hole.off"), ["--pin-top", "0.2"]),
                ("grid", None, ["--grid", "4x3", "--pin-corners", "--no-shear"]),
                ("hierarchy", None, ["--grid", "7x7", "--triangulate", "--no-shear", "--pin-corners",
                                     "--hierarchy", "3", "--hierarchy-min", "4"]),
                ("red_black", None, ["--grid", "5x4", "--no-shear", "--pin-corners", "--red-black"]),
                ("clusters", None, ["--grid", "6x5", "--pin-corners", "--clusters", "16"]),
                ("render", os.path.join(DATA, "textured_quads.obj"), ["--pin", "0,1"]),
                ("materials", os.path.join(DATA, "flag.obj"), ["--pin", "0,6"]),
                ("origin", None, ["--grid", "4x3", "--pin-corners", "--translate", "10000.0001,0,-10000"])]
        for name, src, extra in jobs:
            out = os.path.join(tmp, name + ".snw")
            subprocess.run([prep] + ([src] if src else []) + ["-o", out, "-q"] + extra, check=True)
            with open(out, "rb") as f:
                write("asset", name + ".asset", f.read())
        with open(os.path.join(CORPUS, "asset", "quad.asset"), "rb") as f:
            quad = f.read()
        write("asset", "quad_unknown_section.asset", add_section(quad, b"XTRA", b"private data"))
        write("asset", "quad_no_meta.asset", drop_meta(quad))
    write("asset", "elements.asset", element_asset())
    checkpoint_seeds(prep, sim)
    prep_seeds()

    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(CORPUS) for f in fs)
    print("seeds: %d bytes in %s" % (total, CORPUS))


if __name__ == "__main__":
    main()
