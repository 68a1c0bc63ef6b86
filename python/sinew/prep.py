"""Assets from arrays, through the asset-building library (sinew/prep.h).

Each function builds an asset in memory and returns it loaded
(sinew.Asset, with ``report`` saying what was made and ``save(path)``
writing the .snw file). Keyword options are sinew-prep's flags, spelled
with underscores (--pin-box is pin_box, --no-shear is no_shear); what is
not given takes the library's default. Arrays may be any numbers numpy
converts; positions are passed in double precision.

    import numpy as np, sinew
    asset = sinew.prep.grid(32, 32, size=(1.0, 1.0), pin_corners=True)
    asset = sinew.prep.cloth(vertices, faces, pins=[0, 31], no_bending=True)
    asset = sinew.prep.soft(vertices, tets, youngs=1e5, poisson=0.45)
"""

import ctypes as C
import os
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _convert as cv
from . import _ffi
from ._core import Asset
from ._lib import LOGGER, call, cstr
from ._lib import _fns as lib
from ._types import Material, PrepReport, _from_c

_COLOURING = {"balanced": 0, "greedy": 1}
_REST = {"pose": 0, "geodesic": 1}
_SOFT_MODEL = {"nh": 1, "neo-hookean": 1, "snh": 2, "stable-neo-hookean": 2}
Box = Tuple[Sequence[float], Sequence[float]]


def _choice(table, value, where):
    if value not in table:
        cv.refuse(where, f"= {value!r} is none of {', '.join(table)}")
    return table[value]


def _pins(options, pins, keep, where):
    if pins is None:
        return
    p = cv.array(pins, f"{where}: pins", np.uint32).ravel()
    keep.append(p)
    options.pins, options.pin_count = cv.pointer(p, C.c_uint32), p.size


def _box(options, box, keep, where):
    """pin_box: one box (min, max), or a list of them (each one more)."""
    if box is None:
        return
    try:
        boxes = [box] if len(box) == 2 and all(len(c) == 3 for c in box) else list(box)
        corners = [(lo, hi) for lo, hi in boxes]
    except (TypeError, ValueError):
        cv.refuse(f"{where}: pin_box", "is not (min, max), two points, nor a list of such")
    flat = (C.c_double * (6 * len(corners)))()
    for k, (lo, hi) in enumerate(corners):
        flat[6 * k:6 * k + 3] = list(cv.field(C.c_double * 3, lo, f"{where}: pin_box {k} min"))
        flat[6 * k + 3:6 * k + 6] = list(cv.field(C.c_double * 3, hi, f"{where}: pin_box {k} max"))
    keep.append(flat)
    options.pin_boxes = C.cast(flat, C.POINTER(C.c_double))
    options.pin_box_count = len(corners)


def _build(fn, where, *args):
    out = _ffi.PrepOutput()
    call(fn, *args, C.byref(LOGGER), C.byref(out), what=where)
    try:
        data = C.string_at(out.bytes, out.size)
        report = _from_c(PrepReport, out.report)
    finally:
        lib.prep_output_free(C.byref(out))
    return data, report


def _mesh(vertices, faces, uvs, normals, quads, keep, where):
    m = _ffi.PrepMesh()
    v = cv.array(vertices, f"{where}: vertices", np.float64, 3)
    f = cv.array(faces, f"{where}: faces", np.uint32)
    if f.ndim != 2 or f.shape[1] not in (3, 4):
        if not (f.size == 0 and quads is not None):
            cv.refuse(f"{where}: faces", f"has shape {f.shape}, not (N, 3) triangles or (N, 4) quads")
    if f.ndim == 2 and f.shape[1] == 4:
        if quads is not None:
            cv.refuse(f"{where}: quads", "given with faces of four corners: give the quads once")
        f, q = np.empty((0, 3), np.uint32), f
    else:
        q = cv.array(quads, f"{where}: quads", np.uint32, 4) if quads is not None else np.empty((0, 4), np.uint32)
    m.vertex_count = cv.count(len(v), f"{where}: vertex count")
    m.positions_f64 = cv.pointer(v, C.c_double)
    m.triangle_count, m.triangles = len(f), cv.pointer(f, C.c_uint32) if len(f) else None
    m.quad_count, m.quads = len(q), cv.pointer(q, C.c_uint32) if len(q) else None
    keep += [v, f, q]
    if uvs is not None:
        u = cv.array(uvs, f"{where}: uvs", np.float32, 2, len(v))
        m.uvs = cv.pointer(u, C.c_float)
        keep.append(u)
    if normals is not None:
        n = cv.array(normals, f"{where}: normals", np.float32, 3, len(v))
        m.normals = cv.pointer(n, C.c_float)
        keep.append(n)
    return m


def fabric(source: Union[str, "os.PathLike[str]", bytes]) -> Material:
    """A tabulated fabric (data/fabrics/*.json) as a material: from a file's
    path, or its text as bytes."""
    if isinstance(source, bytes):
        text, name = source, "fabric"
    else:
        name = os.fspath(source)
        with open(source, "rb") as f:
            text = f.read()
    m = _ffi.Material()
    call(lib.prep_fabric_parse, text, len(text), name.encode(), C.byref(LOGGER), C.byref(m),
         what=f"reading fabric {name}")
    return Material._from_c(m)


def _cloth_options(where, keep, name=None, density=None, no_shear=False, no_bending=False, triangulate=False,
                   quadrangulate=False, colouring=None, clusters=None, pins=None, pin_box=None, pin_top=None,
                   free_parts=False, membrane=None, youngs=None, poisson=None, thickness=None, springs=None,
                   keep_distances=False, warp=None, hierarchy=None, hierarchy_k=None, hierarchy_min=None,
                   hierarchy_rest=None, subdivide=None, red_black=False, max_memory=None, origin=None):
    o = lib.prep_cloth_options_default()
    if name is not None:
        keep.append(cstr(name))
        o.name = keep[-1]
    values = {"density": density, "pin_top": pin_top, "warp": warp, "hierarchy_levels": hierarchy,
              "hierarchy_k": hierarchy_k, "hierarchy_min_particles": hierarchy_min, "subdivisions": subdivide,
              "max_memory": max_memory, "origin": origin}
    cv.set_fields(o, {k: v for k, v in values.items() if v is not None}, where)
    o.shear, o.bending = int(not no_shear), int(not no_bending)
    o.triangulate, o.quadrangulate = int(bool(triangulate)), int(bool(quadrangulate))
    o.free_parts, o.keep_distances, o.red_black = int(bool(free_parts)), int(bool(keep_distances)), int(bool(red_black))
    if colouring is not None:
        o.colouring = _choice(_COLOURING, colouring, f"{where}: colouring")
    if clusters is not None:
        o.cluster_particles = 0 if clusters == "none" else cv.count(clusters, f"{where}: clusters")
    if hierarchy_rest is not None:
        o.hierarchy_rest = _choice(_REST, hierarchy_rest, f"{where}: hierarchy_rest")
    if springs is not None:
        o.springs, o.spring_compliance = 1, cv.number(springs, f"{where}: springs (compliance)")
    _pins(o, pins, keep, where)
    _box(o, pin_box, keep, where)
    stvk = {"youngs_modulus": youngs, "poisson_ratio": poisson, "thickness": thickness}
    if membrane is None:
        if any(v is not None for v in stvk.values()):
            cv.refuse(f"{where}: youngs, poisson and thickness", "are the membrane's: give membrane='stvk'")
    elif membrane == "stvk":
        o.membrane = _ffi.ENUMS["SINEW_MATERIAL_STVK"]
        cv.set_fields(o.membrane_material, {k: v for k, v in stvk.items() if v is not None}, f"{where}: membrane")
    else:
        m = membrane if isinstance(membrane, Material) else fabric(membrane)
        o.membrane, o.membrane_material = _ffi.ENUMS["SINEW_MATERIAL_TABULATED"], m._c(f"{where}: membrane")
        o.density = m.density if density is None else o.density
    return o


def cloth(vertices, faces, uvs=None, normals=None, *, quads=None, **options: Any) -> Asset:
    """A cloth asset from a surface mesh (sinew_prep_cloth).

    vertices (N, 3) in m; faces (F, 3) triangles or (F, 4) quads (quads=
    adds quads to triangles); uvs (N, 2) and normals (N, 3) keep the render
    mesh. options, as sinew-prep's: name, density (kg/m^2), no_shear,
    no_bending, triangulate, quadrangulate, colouring ("balanced",
    "greedy"), clusters (particles a cluster, or "none"), pins (vertex
    indices), pin_box ((min), (max), or a list of such boxes), pin_top, free_parts, membrane
    ("stvk", a fabric file or a tabulated sinew.Material) with youngs,
    poisson, thickness, springs (compliance), keep_distances, warp,
    hierarchy (levels), hierarchy_k, hierarchy_min, hierarchy_rest
    ("pose", "geodesic"), subdivide, red_black, max_memory (bytes the build
    may take, refused before any work past it; 0: no bound), origin ((x, y, z)
    m: where the asset sits in the world, sinew-prep --translate; the
    positions stay as given, relative to it)."""
    keep: list = []
    o = _cloth_options("cloth", keep, **options)
    m = _mesh(vertices, faces, uvs, normals, quads, keep, "cloth")
    data, report = _build(lib.prep_cloth, "building a cloth", C.byref(m), C.byref(o))
    return Asset.from_bytes(data, options.get("name") or "cloth", report)


def grid(nx: int = 16, ny: int = 16, *, size: Optional[Sequence[float]] = None, height: Optional[float] = None,
         plane: str = "xz", pin_corners: Optional[bool] = None, **options: Any) -> Asset:
    """A regular grid of nx x ny vertices (sinew-prep --grid NXxNY):
    size (x, y) in m, lying at height (plane "xz") or hanging (plane "xy",
    centred at height); pin_corners pins the ends of the first row. The
    library's defaults: 1 m x 1 m, 1 m up, corners pinned. options as
    cloth()'s."""
    g = lib.prep_grid_default()
    g.nx, g.ny = cv.count(nx, "grid: nx"), cv.count(ny, "grid: ny")
    if size is not None:
        g.size_x, g.size_y = cv.field(C.c_double * 2, size, "grid: size")
    if height is not None:
        g.height = cv.number(height, "grid: height")
    g.vertical = _choice({"xz": 0, "xy": 1}, plane, "grid: plane")
    if pin_corners is not None:
        g.pin_corners = int(bool(pin_corners))
    keep: list = []
    o = _cloth_options("grid", keep, **options)
    data, report = _build(lib.prep_cloth_grid, f"building a {nx} x {ny} grid", C.byref(g), C.byref(o))
    return Asset.from_bytes(data, options.get("name") or f"grid {nx}x{ny}", report)


def _soft_options(where, keep, name=None, material=None, youngs=None, poisson=None, density=None,
                  region: Optional[Mapping[int, Material]] = None, colouring=None, pins=None, pin_box=None,
                  pin_bottom=None, pieces=None, tetrahedralise=None, lattice=None, follow_surface=False,
                  max_volume=None, quality=None, tetgen=None, max_memory=None, origin=None):
    o = lib.prep_soft_options_default()
    if name is not None:
        keep.append(cstr(name))
        o.name = keep[-1]
    if material is not None:
        o.model = _choice(_SOFT_MODEL, material, f"{where}: material")
    values = {"youngs_modulus": youngs, "poisson_ratio": poisson, "density": density, "pin_bottom": pin_bottom,
              "max_volume": max_volume, "quality": quality, "max_memory": max_memory, "origin": origin}
    cv.set_fields(o, {k: v for k, v in values.items() if v is not None}, where)
    if region:
        arr = (_ffi.PrepRegionMaterial * len(region))()
        for k, (value, m) in enumerate(sorted(region.items())):
            arr[k].region = cv.count(value, f"{where}: region")
            arr[k].material = m._c(f"{where}: region {value}")
        o.regions, o.region_count = C.cast(arr, C.POINTER(_ffi.PrepRegionMaterial)), len(region)
        keep.append(arr)
    if colouring is not None:
        o.colouring = _choice(_COLOURING, colouring, f"{where}: colouring")
    if pieces is not None:
        o.largest_piece = _choice({"all": 0, "largest": 1}, pieces, f"{where}: pieces")
    _pins(o, pins, keep, where)
    _box(o, pin_box, keep, where)
    if lattice is not None:
        if tetrahedralise:
            cv.refuse(f"{where}: lattice", "and tetrahedralise both given: choose one mesher")
        o.mesher, o.lattice_cells = _ffi.ENUMS["SINEW_PREP_MESHER_LATTICE"], cv.count(lattice, f"{where}: lattice")
    o.follow_surface = int(bool(follow_surface))
    if tetgen is not None:
        keep.append(cstr(tetgen))
        o.tetgen = keep[-1]
    return o


def soft(vertices, tets, regions=None, **options: Any) -> Asset:
    """A soft-body asset from a tetrahedral mesh (sinew_prep_soft):
    vertices (N, 3) in m, tets (K, 4) indices, regions (K,) optional.
    options, as sinew-prep's: name, material ("nh", "snh"), youngs (Pa),
    poisson, density (kg/m^3), region ({value: sinew.Material}), colouring,
    pins, pin_box, pin_bottom, pieces ("all", "largest"), max_memory and
    origin (as cloth()'s)."""
    keep: list = []
    o = _soft_options("soft", keep, **options)
    v = cv.array(vertices, "soft: vertices", np.float64, 3)
    t = cv.array(tets, "soft: tets", np.uint32, 4)
    vol = _ffi.PrepVolume(vertex_count=cv.count(len(v), "soft: vertex count"),
                          positions_f64=cv.pointer(v, C.c_double), tet_count=len(t), tets=cv.pointer(t, C.c_uint32))
    if regions is not None:
        r = cv.array(regions, "soft: regions", np.uint32).ravel()
        if r.size != len(t):
            cv.refuse("soft: regions", f"has {r.size} values for {len(t)} tetrahedra")
        vol.regions = cv.pointer(r, C.c_uint32)
        keep.append(r)
    data, report = _build(lib.prep_soft, "building a soft body", C.byref(vol), C.byref(o))
    return Asset.from_bytes(data, options.get("name") or "soft body", report)


def soft_from_surface(vertices, faces, uvs=None, normals=None, *, quads=None, **options: Any) -> Asset:
    """The solid a closed surface bounds (sinew_prep_soft_from_surface),
    by TetGen (the default, sinew-prep --tetrahedralise: max_volume,
    quality, tetgen) or as lattice cubes (lattice=N, follow_surface); then
    soft()'s options."""
    keep: list = []
    o = _soft_options("soft", keep, **options)
    m = _mesh(vertices, faces, uvs, normals, quads, keep, "soft")
    data, report = _build(lib.prep_soft_from_surface, "building a soft body from a surface", C.byref(m), C.byref(o))
    return Asset.from_bytes(data, options.get("name") or "soft body", report)


__all__ = ["cloth", "grid", "soft", "soft_from_surface", "fabric"]
