"""Contexts, assets, bodies, worlds and colliders: the C API's handles as
Python objects.

Each object owns its handle and frees it on close() (or when collected);
a closed object refuses every call with sinew.Error rather than passing a
dangling handle to C. A context closes what was made on it first, a world
the bodies in it, as the C API asks.
"""

import ctypes as C
import os
import weakref
from dataclasses import replace
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _convert as cv
from . import _ffi
from ._lib import LOGGER, Error, call, cstr, lib
from ._types import (AssetInfo, ColliderInfo, DeviceInfo, Material, PrepReport, StaticError, StepParams, StepStats,
                     WorldStats, _from_c)

PathLike = Union[str, "os.PathLike[str]"]


def solvers() -> List[str]:
    """Every solver's name, as the tools spell them ("xpbd-gs", "gpbd-gs", ...)."""
    names: List[str] = []
    while True:
        n = lib.solver_name(len(names))
        if n is None:
            return names
        names.append(n.decode())


def solver_label(name: str) -> str:
    """What the solver of that name is, in a few words."""
    return lib.solver_label(_solver(name)).decode()


def _solver(name):
    if isinstance(name, str):
        s = C.c_int()
        if lib.solver_from_name(name.encode(), C.byref(s)) != 0:
            raise Error(f"solver {name!r} is none of {', '.join(solvers())}", "ERROR_INVALID_ARGUMENT")
        return s.value
    return cv.count(name, "solver", len(solvers()))


class _Handle:
    """An owned C handle; _close_c frees it."""

    _kind = "object"

    def __init__(self, handle):
        self._h = handle

    def _handle(self):
        if self._h is None:
            raise Error(f"this {self._kind} is closed", "ERROR_INVALID_ARGUMENT")
        return self._h

    def _close_c(self, handle: int) -> None:
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        return self._h is None

    def close(self) -> None:
        """Frees the object now (it also is when collected); later calls raise sinew.Error."""
        if self._h is not None:
            h, self._h = self._h, None
            self._close_c(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _float3_out(count, out, where):
    """The (count, 3) float32 array a readback fills: out, checked, or a new one."""
    if out is None:
        return np.empty((count, 3), dtype=np.float32)
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (count, 3) \
            or not out.flags.c_contiguous or not out.flags.writeable:
        raise Error(f"{where}: out must be a writable C-contiguous float32 array of shape ({count}, 3)",
                    "ERROR_INVALID_ARGUMENT")
    return out


def _save(what, size_fn, save_fn, save_file_fn, h, path):
    if path is not None:
        call(save_file_fn, h, cstr(path), what=f"{what}: saving a checkpoint to {os.fspath(path)}")
        return None
    buf = C.create_string_buffer(size_fn(h))
    call(save_fn, h, buf, len(buf), what=f"{what}: saving a checkpoint")
    return buf.raw


def _load(what, load_fn, load_file_fn, h, src):
    if isinstance(src, (bytes, bytearray, memoryview)):
        data = bytes(src)
        call(load_fn, h, data, len(data), what=f"{what}: loading a checkpoint")
    else:
        call(load_file_fn, h, cstr(src), what=f"{what}: loading the checkpoint {os.fspath(src)}")


# ---------------------------------------------------------------- assets

class Asset(_Handle):
    """A preprocessed asset (sinew/asset.h): what bodies are made from.

    Asset.load(path) reads a .snw file; sinew.prep builds one from arrays
    (its bytes kept: save() writes them)."""

    _kind = "asset"

    def __init__(self, handle, name, data=None, report=None):
        super().__init__(handle)
        self.name = name
        self._bytes = data
        self.report: Optional[PrepReport] = report

    @classmethod
    def load(cls, path: PathLike) -> "Asset":
        """Reads and checks an asset file; sinew.Error names what is wrong with it."""
        h = C.c_void_p()
        call(lib.asset_load, cstr(path), C.byref(LOGGER), C.byref(h), what=f"loading {os.fspath(path)}")
        return cls(h.value, os.fspath(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "asset", report: Optional[PrepReport] = None) -> "Asset":
        """An asset from the bytes of its file (kept, so save() writes them)."""
        data = bytes(data)
        h = C.c_void_p()
        call(lib.asset_load_memory, data, len(data), name.encode(), C.byref(LOGGER), C.byref(h),
             what=f"loading {name}")
        return cls(h.value, name, data, report)

    def _close_c(self, h):
        lib.asset_destroy(h)

    def save(self, path: PathLike) -> None:
        """Writes the asset's file (assets built by sinew.prep or from_bytes)."""
        if self._bytes is None:
            raise Error(f"{self.name}: an asset loaded from a file keeps no bytes to save; copy the file",
                        "ERROR_INVALID_ARGUMENT")
        self._handle()
        with open(path, "wb") as f:
            f.write(self._bytes)

    @property
    def info(self) -> AssetInfo:
        return _from_c(AssetInfo, lib.asset_get_info(self._handle()))

    def positions(self) -> np.ndarray:
        """The rest positions, (N, 3) float32, relative to the asset's origin."""
        out = np.empty((self.info.particle_count, 3), dtype=np.float32)
        lib.asset_get_positions(self._handle(), out.ctypes.data)
        return out

    def inverse_masses(self) -> np.ndarray:
        """Each particle's inverse mass (1/kg), (N,) float32; 0: pinned."""
        out = np.empty(self.info.particle_count, dtype=np.float32)
        lib.asset_get_inverse_masses(self._handle(), out.ctypes.data)
        return out

    def render_materials(self) -> List[Tuple[str, int, int]]:
        """The render mesh's material groups (the source's usemtl names in
        order of first use): (name, first index, index count) each, runs of
        the render index buffer; [] when the source named none."""
        groups = []
        for g in range(lib.asset_get_render_material_count(self._handle())):
            m = _ffi.RenderMaterial()
            call(lib.asset_get_render_material, self._handle(), g, C.byref(m), what=f"render material {g}")
            groups.append((m.name.decode("utf-8", "replace"), m.first_index, m.index_count))
        return groups

    def material_library(self) -> Optional[Tuple[str, bytes]]:
        """The source's material library (OBJ mtllib) carried in the asset:
        (file name, text), the text b"" when it was named but not found;
        None when the asset has none."""
        text = C.c_void_p()
        size = C.c_size_t()
        name = lib.asset_get_material_library(self._handle(), C.byref(text), C.byref(size))
        if name is None:
            return None
        return name.decode("utf-8", "replace"), C.string_at(text.value, size.value) if text.value else b""

    @property
    def origin(self) -> Tuple[float, float, float]:
        """Where the asset's frame sits in the world (m, double): prep's
        ``origin=``, sinew-prep --translate; bodies start there."""
        o = (C.c_double * 3)()
        lib.asset_get_origin(self._handle(), o)
        return tuple(o)

    def triangles(self) -> np.ndarray:
        """The surface triangles, (T, 3) uint32 particle indices."""
        n = C.c_uint32()
        p = lib.asset_get_triangles(self._handle(), C.byref(n))
        if not n.value:
            return np.empty((0, 3), dtype=np.uint32)
        return np.ctypeslib.as_array(p, shape=(n.value * 3,)).reshape(-1, 3).copy()

    def tets(self) -> np.ndarray:
        """The tetrahedra, (K, 4) uint32, positively oriented at rest."""
        out = np.empty((self.info.tet_count, 4), dtype=np.uint32)
        lib.asset_get_tets(self._handle(), out.ctypes.data)
        return out

    def distances(self) -> np.ndarray:
        """The particle pairs of the distance constraints, (D, 2) uint32 (what Body.cut takes)."""
        out = np.empty((self.info.distance_count, 2), dtype=np.uint32)
        lib.asset_get_distances(self._handle(), out.ctypes.data)
        return out

    def material(self, index: int) -> Material:
        m = _ffi.Material()
        call(lib.asset_get_material, self._handle(), cv.count(index, "material index"), C.byref(m),
             what=f"{self.name}: material {index}")
        return Material._from_c(m)


# ---------------------------------------------------------------- contexts

_MEMORY = {"default": 0, "device": 1, "discrete": 2}
_LIMITS = {"default": 0, "device": 1, "portable": 2}


def _choice(table, value, where):
    if value not in table:
        cv.refuse(where, f"= {value!r} is none of {', '.join(table)}")
    return table[value]


class Context(_Handle):
    """A Vulkan device sinew computes on (sinew/context.h).

    device: None (the SINEW_DEVICE environment variable, else the best
    device), an index, or part of a device's name. validation: the Khronos
    validation layer with synchronisation checks (must be installed).
    memory: "default", "device" or "discrete"; limits: "default", "device"
    or "portable"; device_memory_limit: bytes this context may allocate (0:
    no cap)."""

    _kind = "context"

    def __init__(self, device: Optional[Union[str, int]] = None, *, validation: bool = False,
                 memory: str = "default", limits: str = "default", device_memory_limit: int = 0):
        d = lib.context_desc_default()
        d.logger = LOGGER
        d.validation = int(bool(validation))
        self._device_name = None if device is None else str(device).encode()
        d.device = self._device_name
        d.memory = _choice(_MEMORY, memory, "memory")
        d.limits = _choice(_LIMITS, limits, "limits")
        d.device_memory_limit = cv.count(device_memory_limit, "device_memory_limit", 2**64)
        h = C.c_void_p()
        self._h = None
        call(lib.context_create, C.byref(d), C.byref(h), what="creating a Vulkan context")
        super().__init__(h.value)
        self._children: "weakref.WeakSet[_Handle]" = weakref.WeakSet()

    def _close_c(self, h):
        for child in list(self._children):
            if isinstance(child, World):
                child.close()
        for child in list(self._children):
            child.close()
        lib.context_destroy(h)

    @property
    def device(self) -> DeviceInfo:
        """The device and the limits sinew computes within."""
        return _from_c(DeviceInfo, lib.context_get_device_info(self._handle()))

    @property
    def device_memory(self) -> int:
        """Bytes of device memory this context holds."""
        return lib.context_get_device_memory(self._handle())

    @property
    def allocation_count(self) -> int:
        return lib.context_get_allocation_count(self._handle())

    @property
    def is_lost(self) -> bool:
        return bool(lib.context_is_lost(self._handle()))

    @property
    def validation_messages(self) -> int:
        """Warnings and errors the validation layer reported so far."""
        return lib.context_get_validation_message_count(self._handle())

    def create_body(self, asset: Asset, solver: Union[str, int] = "xpbd-gs", *,
                    world: Optional["World"] = None, **desc: Any) -> "Body":
        """A body of the asset (sinew_body_create). desc: any field of
        sinew_body_desc by its C name (substeps, iterations,
        stretch_compliance, ...; include/sinew/body.h), the library's
        default where not given; implicit=dict(...) for the implicit
        solvers', materials=[Material], attachments=[Attachment] with
        frames=[Frame], collider=Collider, meshes=[Collider],
        sweep_order="forward"|"alternating", sweep_layout="colours"|"clusters"."""
        return Body._create(self, asset, solver, world, desc)

    def create_world(self, *, name: Optional[str] = None, batch: bool = True, contacts: bool = False) -> "World":
        """A world (sinew/world.h): bodies made with world=it step together in one submit."""
        return World._create(self, name, batch, contacts)

    def create_collider(self, vertices, triangles, *, cell_size: float = 0.0, resolution: Optional[int] = None,
                        margin: float = 0.0, name: Optional[str] = None) -> "Collider":
        """A rigid triangle mesh as a signed distance field (sinew/collider.h)."""
        return Collider._create(self, vertices, triangles, cell_size, resolution, margin, name)

    def _adopt(self, child):
        self._children.add(child)
        return child


# ---------------------------------------------------------------- colliders

class Collider(_Handle):
    """A rigid mesh bodies collide with (desc collider= or meshes=)."""

    _kind = "collider"
    context: Context

    @classmethod
    def _create(cls, ctx, vertices, triangles, cell_size, resolution, margin, name):
        v = cv.array(vertices, "collider: vertices", np.float32, 3)
        t = cv.array(triangles, "collider: triangles", np.uint32, 3)
        d = lib.collider_desc_default()
        d.vertices, d.vertex_count = cv.pointer(v, C.c_float), len(v)
        d.triangles, d.triangle_count = cv.pointer(t, C.c_uint32), len(t)
        d.cell_size = cv.number(cell_size, "collider: cell_size", C.c_float)
        if resolution is not None:
            d.resolution = cv.count(resolution, "collider: resolution")
        d.margin = cv.number(margin, "collider: margin", C.c_float)
        d.name = cstr(name)
        h = C.c_void_p()
        call(lib.collider_create, ctx._handle(), C.byref(d), C.byref(h), what=f"collider {name or ''}".strip())
        c = cls(h.value)
        c.context = ctx
        return ctx._adopt(c)

    def _close_c(self, h):
        lib.collider_destroy(h)

    @property
    def info(self) -> ColliderInfo:
        return _from_c(ColliderInfo, lib.collider_get_info(self._handle()))

    def distance(self, point: Sequence[float]) -> Tuple[float, Tuple[float, float, float]]:
        """The signed distance (m, negative inside) at a point of the
        collider's frame, and the outward normal there."""
        p = cv.field(C.c_float * 3, point, "point")
        n = (C.c_float * 3)()
        d = lib.collider_distance(self._handle(), p, n)
        return d, tuple(n)


# ---------------------------------------------------------------- bodies

_SWEEP_ORDER = {"default": 0, "forward": 1, "alternating": 2}
_SWEEP_LAYOUT = {"default": 0, "colours": 1, "clusters": 2}
_INFINITE_OK = ("max_volume_error",)


def _body_desc(ctx, solver, world, desc, keep):
    """sinew_body_desc from the keywords; keep holds what it points into."""
    d = lib.body_desc_default()
    d.solver = _solver(solver)
    desc = dict(desc)
    name = desc.pop("name", None)
    if name is not None:
        keep.append(cstr(name))
        d.name = keep[-1]
    if world is not None:
        d.world = world._handle()
    if "sweep_order" in desc:
        d.sweep_order = _choice(_SWEEP_ORDER, desc.pop("sweep_order"), "sweep_order")
    if "sweep_layout" in desc:
        d.sweep_layout = _choice(_SWEEP_LAYOUT, desc.pop("sweep_layout"), "sweep_layout")
    implicit = desc.pop("implicit", None)
    if implicit is not None:
        cv.set_fields(d.implicit, dict(implicit), "implicit")
    materials = desc.pop("materials", None)
    if materials is not None:
        arr = (_ffi.Material * len(materials))(*(m._c(f"materials[{k}]") for k, m in enumerate(materials)))
        d.materials, d.material_count = C.cast(arr, C.POINTER(_ffi.Material)), len(materials)
        keep.append(arr)
    collider = desc.pop("collider", None)
    if collider is not None:
        d.collider = collider._handle()
        keep.append(collider)
    meshes = desc.pop("meshes", None)
    if meshes:
        arr = (C.c_void_p * len(meshes))(*(m._handle() for m in meshes))
        d.meshes, d.mesh_count = C.cast(arr, C.POINTER(C.c_void_p)), len(meshes)
        keep.extend([arr, *meshes])
    frames = desc.pop("frames", None)
    if frames:
        arr = (_ffi.Frame * len(frames))(*(f._c(f"frames[{k}]") for k, f in enumerate(frames)))
        d.frames, d.frame_count = C.cast(arr, C.POINTER(_ffi.Frame)), len(frames)
        keep.append(arr)
    frame_names = desc.pop("frame_names", None)
    if frame_names:
        arr = (C.c_char_p * len(frame_names))(*(cstr(n) for n in frame_names))
        d.frame_names = C.cast(arr, C.POINTER(C.c_char_p))
        keep.append(arr)
    attachments = desc.pop("attachments", None)
    if attachments:
        arr = (_ffi.Attachment * len(attachments))()
        for k, a in enumerate(attachments):
            where = f"attachments[{k}]"
            p = cv.array(a.particles, f"{where}.particles", np.uint32)
            keep.append(p)
            arr[k].particles, arr[k].count = cv.pointer(p, C.c_uint32), p.size
            arr[k].frame = cv.count(a.frame, f"{where}.frame")
            arr[k].compliance = cv.number(a.compliance, f"{where}.compliance", C.c_float)
        d.attachments, d.attachment_count = C.cast(arr, C.POINTER(_ffi.Attachment)), len(attachments)
        keep.append(arr)
    for managed in ("cookie", "material_count", "mesh_count", "frame_count", "attachment_count", "world"):
        if managed in desc:
            raise TypeError(f"create_body: {managed!r} is set by the package, not given")
    cv.set_fields(d, desc, "body", _INFINITE_OK)
    return d


class Body(_Handle):
    """A simulated body (sinew/body.h). step() advances it (a body of a
    world steps with its world); positions(), velocities() read it back.
    params holds the step's inputs (sinew.StepParams) that step() uses
    unless told otherwise."""

    _kind = "body"
    context: Context
    world: Optional["World"]
    name: str
    solver: str
    particle_count: int
    params: StepParams

    @classmethod
    def _create(cls, ctx, asset, solver, world, desc):
        if world is not None and world.context is not ctx:
            raise Error("create_body: the world was made on another context", "ERROR_INVALID_ARGUMENT")
        keep: List[Any] = []
        d = _body_desc(ctx, solver, world, desc, keep)
        h = C.c_void_p()
        name = desc.get("name") or asset.name
        call(lib.body_create, ctx._handle(), asset._handle(), C.byref(d), C.byref(h),
             what=f"creating a body of {name}")
        b = cls(h.value)
        b.context, b.world, b.name = ctx, world, name
        b.solver = lib.solver_name(d.solver).decode()
        b.particle_count = lib.body_get_particle_count(h.value)
        b.params = StepParams()
        b._keep = [k for k in keep if isinstance(k, Collider)]
        if world is not None:
            world._bodies.append(b)
        return ctx._adopt(b)

    def _close_c(self, h):
        lib.body_destroy(h)
        if self.world is not None and self in self.world._bodies:
            self.world._bodies.remove(self)

    def step(self, dt: Optional[float] = None, **params: Any) -> None:
        """One step (sinew_body_step) with self.params, changed by the
        keywords for this step only (any field of sinew.StepParams)."""
        p = replace(self.params, **params) if params else self.params
        if dt is not None:
            p = replace(p, dt=dt)
        c, keep = p._c()
        call(lib.body_step, self._handle(), C.byref(c), what=f"{self.name}: step")

    def wait(self) -> None:
        """Finishes a pipelined step (desc pipelined=True)."""
        call(lib.body_wait, self._handle(), what=f"{self.name}: wait")

    def positions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Current positions, (N, 3) float32 (filled into out when given)."""
        out = _float3_out(self.particle_count, out, f"{self.name}: positions")
        call(lib.body_read_positions, self._handle(), out.ctypes.data, self.particle_count,
             what=f"{self.name}: reading positions")
        return out

    def velocities(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Current velocities (m/s), (N, 3) float32."""
        out = _float3_out(self.particle_count, out, f"{self.name}: velocities")
        call(lib.body_read_velocities, self._handle(), out.ctypes.data, self.particle_count,
             what=f"{self.name}: reading velocities")
        return out

    def normals(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Unit vertex normals of the last step, (N, 3) float32."""
        out = _float3_out(self.particle_count, out, f"{self.name}: normals")
        call(lib.body_read_normals, self._handle(), out.ctypes.data, self.particle_count,
             what=f"{self.name}: reading normals")
        return out

    def write_positions(self, xyz) -> None:
        """Overwrites the positions (and zeroes the velocities)."""
        a = cv.array(xyz, f"{self.name}: positions", np.float32, 3, self.particle_count)
        call(lib.body_write_positions, self._handle(), a.ctypes.data, self.particle_count,
             what=f"{self.name}: writing positions")

    @property
    def origin(self) -> Tuple[float, float, float]:
        o = (C.c_double * 3)()
        lib.body_get_origin(self._handle(), o)
        return tuple(o)

    def set_pinned(self, index: int, pinned: bool = True) -> None:
        """Pins a particle where it is, or frees it again."""
        call(lib.body_set_pinned, self._handle(), cv.count(index, "index"), int(bool(pinned)),
             what=f"{self.name}: pinning particle {index}")

    def set_substeps(self, substeps: int) -> None:
        """Sets the substeps of every later step (1..1000), recording the
        step again: to retry a step the health check rolled back
        (sinew.Error with result ERROR_UNSTABLE) at smaller substeps."""
        call(lib.body_set_substeps, self._handle(), cv.count(substeps, "substeps"),
             what=f"{self.name}: substeps {substeps}")

    def move_pinned(self, indices, xyz) -> None:
        """Moves pinned particles indices[k] to xyz[k] at the next step."""
        i = cv.array(indices, "indices", np.uint32).ravel()
        x = cv.array(xyz, "xyz", np.float32, 3, i.size)
        call(lib.body_move_pinned, self._handle(), i.ctypes.data, i.size, x.ctypes.data,
             what=f"{self.name}: moving pins")

    def set_material(self, index: int, material: Material) -> None:
        """Replaces material `index` from the next step (GPBD bodies)."""
        m = material._c(f"{self.name}: material {index}")
        call(lib.body_set_material, self._handle(), cv.count(index, "index"), C.byref(m),
             what=f"{self.name}: material {index}")

    def cut(self, pairs) -> int:
        """Cuts the distance constraints joining each pair of particles
        ((K, 2) indices); returns how many were cut."""
        p = cv.array(pairs, "pairs", np.uint32, 2)
        n = C.c_uint32()
        call(lib.body_cut, self._handle(), p.ctypes.data, len(p), C.byref(n), what=f"{self.name}: cut")
        return n.value

    def stats(self) -> StepStats:
        """Statistics of the last step (never waits)."""
        return _from_c(StepStats, lib.body_get_stats(self._handle()))

    def estimate_error(self, **params: Any) -> StaticError:
        """The static error estimate of a cloth or spring network
        (sinew_body_estimate_error): one Newton step of its energy under the
        gravity of self.params (changed by the keywords), on the host."""
        p = replace(self.params, **params) if params else self.params
        c, keep = p._c()
        out = _ffi.StaticError()
        call(lib.body_estimate_error, self._handle(), C.byref(c), C.byref(out),
             what=f"{self.name}: error estimate")
        return _from_c(StaticError, out)

    def state_hash(self) -> int:
        """64-bit hash of the state a checkpoint holds (sinew_body_state_hash)."""
        h = C.c_uint64()
        call(lib.body_state_hash, self._handle(), C.byref(h), what=f"{self.name}: state hash")
        return h.value

    def save_checkpoint(self, path: Optional[PathLike] = None) -> Optional[bytes]:
        """The checkpoint's bytes, or written to path (atomically) when given."""
        return _save(self.name, lib.body_checkpoint_size, lib.body_save_checkpoint,
                     lib.body_save_checkpoint_file, self._handle(), path)

    def load_checkpoint(self, src: Union[bytes, PathLike]) -> None:
        """Restores a checkpoint (bytes, or a file's path); a refused one changes nothing."""
        _load(self.name, lib.body_load_checkpoint, lib.body_load_checkpoint_file, self._handle(), src)


# ---------------------------------------------------------------- worlds

class World(_Handle):
    """Many bodies stepped as one (sinew/world.h): one submit, one wait.
    Bodies join it when made (ctx.create_body(..., world=w) or
    w.create_body(...)); bodies lists them in the order they joined."""

    _kind = "world"
    context: Context
    name: str
    params: StepParams
    _bodies: List[Body]

    @classmethod
    def _create(cls, ctx, name, batch, contacts):
        d = lib.world_desc_default()
        encoded = cstr(name)
        d.name = encoded
        d.batch = int(bool(batch))
        d.contacts = int(bool(contacts))
        h = C.c_void_p()
        call(lib.world_create, ctx._handle(), C.byref(d), C.byref(h), what=f"creating world {name or ''}".strip())
        w = cls(h.value)
        w.context, w.name, w._bodies, w.params = ctx, name or "world", [], StepParams()
        return ctx._adopt(w)

    def _close_c(self, h):
        for b in self._bodies:
            b._h = None  # sinew_world_destroy destroys them
        self._bodies = []
        lib.world_destroy(h)

    @property
    def bodies(self) -> List[Body]:
        return list(self._bodies)

    def create_body(self, asset: Asset, solver: Union[str, int] = "xpbd-gs", **desc: Any) -> Body:
        """ctx.create_body(asset, solver, world=self, **desc)."""
        return self.context.create_body(asset, solver, world=self, **desc)

    def step(self, dt: Optional[float] = None, **params: Any) -> None:
        """Every body one step (sinew_world_step) with self.params, changed
        by the keywords for this step only."""
        p = replace(self.params, **params) if params else self.params
        if dt is not None:
            p = replace(p, dt=dt)
        c, keep = p._c()
        call(lib.world_step, self._handle(), C.byref(c), what=f"{self.name}: step")

    def stats(self) -> WorldStats:
        return _from_c(WorldStats, lib.world_get_stats(self._handle()))

    def state_hash(self) -> int:
        h = C.c_uint64()
        call(lib.world_state_hash, self._handle(), C.byref(h), what=f"{self.name}: state hash")
        return h.value

    def save_checkpoint(self, path: Optional[PathLike] = None) -> Optional[bytes]:
        return _save(self.name, lib.world_checkpoint_size, lib.world_save_checkpoint,
                     lib.world_save_checkpoint_file, self._handle(), path)

    def load_checkpoint(self, src: Union[bytes, PathLike]) -> None:
        _load(self.name, lib.world_load_checkpoint, lib.world_load_checkpoint_file, self._handle(), src)

