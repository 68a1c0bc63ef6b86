"""The values the API passes: step parameters, shapes, frames, materials, and
the statistics and descriptions it returns, as dataclasses.

Each mirrors a C structure of the same fields (include/sinew/*.h says what
each means); defaults are the library's own, read from its *_default()
functions, so Python and C start from the same values.
"""

import ctypes as C
from dataclasses import dataclass, field, fields
from typing import List, Sequence, Tuple

from . import _convert as cv
from . import _ffi
from ._lib import lib

Vec3 = Tuple[float, float, float]
Quat = Tuple[float, float, float, float]

_SHAPE_KINDS = {"sphere": 0, "capsule": 1, "box": 2, "mesh": 3}
MATERIAL_MODELS = {"spring": 0, "neo-hookean": 1, "stable-neo-hookean": 2, "stvk": 3, "tabulated": 4}


def _default(struct, name):
    return lambda: cv.plain(getattr(struct, name))


# ---------------------------------------------------------------- inputs

@dataclass
class Frame:
    """A rigid frame attached particles follow: a position (m, relative to
    the body's origin) and a unit quaternion x, y, z, w."""

    position: Vec3 = (0.0, 0.0, 0.0)
    rotation: Quat = (0.0, 0.0, 0.0, 1.0)

    def _c(self, where):
        f = _ffi.Frame()
        cv.set_fields(f, {"position": self.position, "rotation": self.rotation}, where)
        return f


@dataclass
class Attachment:
    """Particles bound to frame ``frame`` (an index into the body's frames):
    compliance 0 holds them exactly, > 0 (m/N) pulls them there."""

    particles: Sequence[int]
    frame: int = 0
    compliance: float = 0.0


_SHAPE_C = lib.shape_default(0)


@dataclass
class Shape:
    """A collider of the step's list (docs/colliders.md): kind "sphere",
    "capsule", "box" or "mesh" (then ``mesh`` indexes the body's meshes)."""

    kind: str = "sphere"
    position: Vec3 = field(default_factory=_default(_SHAPE_C, "position"))
    rotation: Quat = field(default_factory=_default(_SHAPE_C, "rotation"))
    velocity: Vec3 = field(default_factory=_default(_SHAPE_C, "velocity"))
    angular_velocity: Vec3 = field(default_factory=_default(_SHAPE_C, "angular_velocity"))
    radius: float = 0.0
    half_extents: Vec3 = (0.0, 0.0, 0.0)
    mesh: int = 0

    def _c(self, where):
        if self.kind not in _SHAPE_KINDS:
            cv.refuse(f"{where}: kind", f"= {self.kind!r} is none of {', '.join(_SHAPE_KINDS)}")
        s = lib.shape_default(_SHAPE_KINDS[self.kind])
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "kind"}
        cv.set_fields(s, values, where)
        return s


_PARAMS_C = lib.step_params_default()


def _p(name):
    return field(default_factory=_default(_PARAMS_C, name))


@dataclass
class StepParams:
    """A step's inputs (sinew_step_params): the time step, gravity, the
    ground and the colliders, wind, the attachments' frames. Defaults are
    sinew_step_params_default()'s. Flags (ground, sphere, box, capsule,
    collider) switch each collider on."""

    dt: float = _p("dt")
    gravity: Vec3 = _p("gravity")
    damping: float = _p("damping")
    ground: bool = _p("ground")
    ground_height: float = _p("ground_height")
    sphere: bool = _p("sphere")
    sphere_center: Vec3 = _p("sphere_center")
    sphere_radius: float = _p("sphere_radius")
    box: bool = _p("box")
    box_center: Vec3 = _p("box_center")
    box_half_extents: Vec3 = _p("box_half_extents")
    box_velocity: Vec3 = _p("box_velocity")
    capsule: bool = _p("capsule")
    capsule_a: Vec3 = _p("capsule_a")
    capsule_b: Vec3 = _p("capsule_b")
    capsule_radius: float = _p("capsule_radius")
    collider: bool = _p("collider")
    collider_position: Vec3 = _p("collider_position")
    collider_rotation: Quat = _p("collider_rotation")
    collider_velocity: Vec3 = _p("collider_velocity")
    friction: float = _p("friction")
    contact_offset: float = _p("contact_offset")
    shapes: List[Shape] = field(default_factory=list)
    ground_normal: Vec3 = _p("ground_normal")
    wind: Vec3 = _p("wind")
    air_density: float = _p("air_density")
    frames: List[Frame] = field(default_factory=list)

    def _c(self):
        """The C structure and the arrays it points into (keep both alive)."""
        p = _ffi.StepParams()
        plain = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("shapes", "frames")}
        cv.set_fields(p, plain, "step")
        keep = []
        if self.shapes:
            shapes = (_ffi.Shape * len(self.shapes))(*(s._c(f"step: shapes[{k}]") for k, s in enumerate(self.shapes)))
            p.shapes, p.shape_count = C.cast(shapes, C.POINTER(_ffi.Shape)), len(self.shapes)
            keep.append(shapes)
        if self.frames:
            frames = (_ffi.Frame * len(self.frames))(*(f._c(f"step: frames[{k}]") for k, f in enumerate(self.frames)))
            p.frames, p.frame_count = C.cast(frames, C.POINTER(_ffi.Frame)), len(self.frames)
            keep.append(frames)
        return p, keep


@dataclass
class Material:
    """An elastic material (sinew/material.h): model "spring",
    "neo-hookean", "stable-neo-hookean", "stvk" or "tabulated"; moduli in
    Pa, thickness in m, compliance in m/N, density in kg/m^3 (kg/m^2 for
    membranes)."""

    model: str = "neo-hookean"
    youngs_modulus: float = 1e6
    poisson_ratio: float = 0.3
    thickness: float = 1e-3
    compliance: float = 0.0
    density: float = 1000.0
    table_strain: Tuple[Tuple[float, ...], ...] = ((0.0,) * _ffi.TABLE_POINTS,) * 3
    table_stress: Tuple[Tuple[float, ...], ...] = ((0.0,) * _ffi.TABLE_POINTS,) * 3

    @classmethod
    def make(cls, model: str, youngs_modulus: float, poisson_ratio: float) -> "Material":
        """sinew_material_make: the model's material of that E and nu, the
        library's defaults for the rest."""
        if model not in MATERIAL_MODELS:
            cv.refuse("material: model", f"= {model!r} is none of {', '.join(MATERIAL_MODELS)}")
        m = lib.material_make(MATERIAL_MODELS[model], cv.number(youngs_modulus, "material: youngs_modulus", C.c_float),
                              cv.number(poisson_ratio, "material: poisson_ratio", C.c_float))
        return cls._from_c(m)

    @classmethod
    def _from_c(cls, m):
        names = {v: k for k, v in MATERIAL_MODELS.items()}
        return cls(model=names.get(m.model, str(m.model)), youngs_modulus=m.youngs_modulus,
                   poisson_ratio=m.poisson_ratio, thickness=m.thickness, compliance=m.compliance,
                   density=m.density, table_strain=cv.plain(m.table_strain), table_stress=cv.plain(m.table_stress))

    def _c(self, where):
        if self.model not in MATERIAL_MODELS:
            cv.refuse(f"{where}: model", f"= {self.model!r} is none of {', '.join(MATERIAL_MODELS)}")
        m = _ffi.Material()
        m.model = MATERIAL_MODELS[self.model]
        cv.set_fields(m, {f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"}, where)
        return m


# ---------------------------------------------------------------- outputs

def _from_c(cls, struct):
    return cls(**{f.name: cv.plain(getattr(struct, f.name)) for f in fields(cls)})


@dataclass(frozen=True)
class StepStats:
    """Statistics of a body's last step (sinew_step_stats; include/sinew/body.h
    says what each means; negative where not measured)."""

    step_index: int
    max_strain: float
    rms_strain: float
    max_measure_error: float
    rms_measure_error: float
    residual: float
    ms_predict: float
    ms_solve: float
    ms_contacts: float
    ms_velocity: float
    ms_residual: float
    ms_total: float
    dispatches: int
    barriers: int
    bytes: int
    device_memory: int
    device_allocations: int
    submits: int
    host_waits: int
    readback_bytes: int
    bad_particles: int
    first_bad: int
    last_bad: int
    max_speed: float
    rolled_back: int
    inverted_elements: int
    first_inverted: int
    max_volume_error: float
    newton_iterations: int
    loops_cut: int
    linear_iterations: int
    linear_residual: float
    linear_unconverged: int
    ms_linear: float
    linear_fallback_iterations: int
    self_candidates: int
    self_dropped: int
    self_contacts: int
    error_estimate: float


@dataclass(frozen=True)
class StaticError:
    """How far a body of constraints rests from its static equilibrium
    (sinew_static_error, sinew_body_estimate_error; docs/accuracy.md)."""

    error: float
    iterations: int
    converged: int


@dataclass(frozen=True)
class WorldStats:
    """What a world's last step cost and found (sinew_world_stats)."""

    step_index: int
    body_count: int
    chain_count: int
    dispatches: int
    barriers: int
    bytes: int
    submits: int
    host_waits: int
    readback_bytes: int
    device_memory: int
    device_allocations: int
    bad_particles: int
    inverted_elements: int
    rolled_back: int
    ms_total: float


@dataclass(frozen=True)
class AssetInfo:
    """An asset's counts and bounds (sinew_asset_info)."""

    particle_count: int
    triangle_count: int
    distance_count: int
    bend_count: int
    colour_count: int
    pinned_count: int
    bounds_min: Vec3
    bounds_max: Vec3
    total_mass: float
    element_count: int
    tet_count: int
    membrane_count: int
    spring_count: int
    element_colour_count: int
    material_count: int
    rest_volume: float
    hierarchy_levels: int
    coarsest_particles: int
    coarse_distance_count: int
    multigrid_levels: int
    multigrid_coarsest_particles: int
    cluster_passes: int
    cluster_count: int


@dataclass(frozen=True)
class DeviceInfo:
    """The device a context computes on and the limits it computes within
    (sinew_device_info)."""

    name: str
    driver: str
    vendor_id: int
    device_id: int
    api_version: int
    type: int
    timestamp_period_ns: float
    limits: int
    max_storage_buffer_range: int
    max_workgroup_invocations: int
    max_shared_memory: int
    max_push_constants: int
    max_storage_buffers_per_stage: int
    max_workgroup_count: int


@dataclass(frozen=True)
class PrepReport:
    """What an asset build made (sinew_prep_report)."""

    particle_count: int
    pinned_count: int
    triangle_count: int
    tet_count: int
    stretch_count: int
    shear_count: int
    bend_count: int
    colour_count: int
    element_count: int
    dropped_faces: int
    dropped_vertices: int
    flipped_tets: int
    part_count: int
    unpinned_parts: int
    hierarchy_levels: int
    multigrid_levels: int
    cluster_passes: int
    red_count: int
    black_count: int
    total_mass: float
    welded_vertices: int


@dataclass(frozen=True)
class ColliderInfo:
    """A mesh collider's distance field (sinew_collider_info)."""

    dims: Tuple[int, int, int]
    origin: Vec3
    cell_size: float
    inside_nodes: int
    open_edges: int
    device_memory: int
    build_ms: float


# Which dataclass mirrors which structure (the package's tests compare them).
MIRRORS = [(StepStats, _ffi.StepStats), (WorldStats, _ffi.WorldStats), (AssetInfo, _ffi.AssetInfo),
           (DeviceInfo, _ffi.DeviceInfo), (PrepReport, _ffi.PrepReport), (ColliderInfo, _ffi.ColliderInfo),
           (StepParams, _ffi.StepParams), (StaticError, _ffi.StaticError)]
