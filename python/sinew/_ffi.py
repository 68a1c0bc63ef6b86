"""The C API as ctypes declares it: structures, enumerations, functions.

Each structure mirrors one of include/sinew/*.h field for field, in order,
and names it in ``_c_name_``. The package's build turns every declared size
and offset into a static assertion against the C compiler's (layout_check.py),
so a header that changes without this file fails the build, naming the field.
Nothing here loads a library (_lib.py does).
"""

import ctypes as C

u8, u32, u64, i32 = C.c_uint8, C.c_uint32, C.c_uint64, C.c_int
f32, f64 = C.c_float, C.c_double
ptr, char_p, size_t = C.c_void_p, C.c_char_p, C.c_size_t
enum = C.c_int  # every C enum of the headers fits an int

LOG_FN = C.CFUNCTYPE(None, ptr, i32, char_p, char_p)


class Struct(C.Structure):
    """A structure of the C API; _c_name_ is its C name."""

    _c_name_ = ""


class Logger(Struct):
    _c_name_ = "sinew_logger"
    _fields_ = [("fn", LOG_FN), ("user", ptr), ("level", enum)]


class ContextDesc(Struct):
    _c_name_ = "sinew_context_desc"
    _fields_ = [("cookie", u32), ("logger", Logger), ("validation", i32), ("device", char_p),
                ("memory", i32), ("device_memory_limit", u64), ("limits", i32)]


class DeviceInfo(Struct):
    _c_name_ = "sinew_device_info"
    _fields_ = [("name", C.c_char * 256), ("driver", C.c_char * 256), ("vendor_id", u32), ("device_id", u32),
                ("api_version", u32), ("type", i32), ("timestamp_period_ns", f32), ("limits", i32),
                ("max_storage_buffer_range", u64), ("max_workgroup_invocations", u32),
                ("max_shared_memory", u32), ("max_push_constants", u32),
                ("max_storage_buffers_per_stage", u32), ("max_workgroup_count", u32)]


class AssetInfo(Struct):
    _c_name_ = "sinew_asset_info"
    _fields_ = [("particle_count", u32), ("triangle_count", u32), ("distance_count", u32), ("bend_count", u32),
                ("colour_count", u32), ("pinned_count", u32), ("bounds_min", f32 * 3), ("bounds_max", f32 * 3),
                ("total_mass", f32), ("element_count", u32), ("tet_count", u32), ("membrane_count", u32),
                ("spring_count", u32), ("element_colour_count", u32), ("material_count", u32),
                ("rest_volume", f32), ("hierarchy_levels", u32), ("coarsest_particles", u32),
                ("coarse_distance_count", u32), ("multigrid_levels", u32),
                ("multigrid_coarsest_particles", u32), ("cluster_passes", u32), ("cluster_count", u32)]


TABLE_POINTS = 8


class Material(Struct):
    _c_name_ = "sinew_material"
    _fields_ = [("model", u32), ("youngs_modulus", f32), ("poisson_ratio", f32), ("thickness", f32),
                ("compliance", f32), ("density", f32), ("reserved", f32 * 2),
                ("table_strain", (f32 * TABLE_POINTS) * 3), ("table_stress", (f32 * TABLE_POINTS) * 3)]


class ImplicitDesc(Struct):
    _c_name_ = "sinew_implicit_desc"
    _fields_ = [("stretch", f32), ("shear", f32), ("bend", f32), ("damping", f32), ("density", f32),
                ("pin_stiffness", f32), ("contact_stiffness", f32), ("friction_stiffness", f32),
                ("pre_smooth", u32), ("post_smooth", u32), ("coarse_iterations", u32), ("tolerance", f32),
                ("max_cycles", u32), ("max_pcg_iterations", u32), ("fallback_iterations", u32), ("bdf2", i32)]


class Frame(Struct):
    _c_name_ = "sinew_frame"
    _fields_ = [("position", f32 * 3), ("rotation", f32 * 4)]


class Attachment(Struct):
    _c_name_ = "sinew_attachment"
    _fields_ = [("particles", C.POINTER(u32)), ("count", u32), ("frame", u32), ("compliance", f32)]


class BodyDesc(Struct):
    _c_name_ = "sinew_body_desc"
    _fields_ = [("cookie", u32), ("solver", enum), ("substeps", u32), ("iterations", u32),
                ("stretch_compliance", f32), ("shear_compliance", f32), ("bend_compliance", f32),
                ("jacobi_omega", f32), ("residual", i32), ("timestamps", i32), ("name", char_p),
                ("health_check", i32), ("max_speed", f32), ("max_inverted", u32), ("max_volume_error", f32),
                ("rollback", i32), ("pipelined", i32), ("newton_iterations", u32), ("newton_tolerance", f32),
                ("materials", C.POINTER(Material)), ("material_count", u32), ("level_iterations", u32),
                ("sweep_order", enum), ("sweep_layout", enum), ("chebyshev_rho", f32),
                ("chebyshev_delay", u32), ("normals", i32), ("implicit", ImplicitDesc),
                ("mgpbd_cg_iterations", u32), ("mgpbd_setup_interval", u32), ("collider", ptr),
                ("self_collision", i32), ("self_thickness", f32), ("self_friction", f32),
                ("self_capacity", u32), ("origin", f64 * 3), ("render_mesh", i32), ("max_shapes", u32),
                ("meshes", C.POINTER(ptr)), ("mesh_count", u32), ("drag", f32), ("lift", f32),
                ("attachments", C.POINTER(Attachment)), ("attachment_count", u32),
                ("frames", C.POINTER(Frame)), ("frame_count", u32), ("frame_names", C.POINTER(char_p)),
                ("tethers", i32), ("tether_scale", f32), ("collision_category", u32),
                ("collision_mask", u32), ("world", ptr)]


class Shape(Struct):
    _c_name_ = "sinew_shape"
    _fields_ = [("kind", enum), ("position", f32 * 3), ("rotation", f32 * 4), ("velocity", f32 * 3),
                ("angular_velocity", f32 * 3), ("radius", f32), ("half_extents", f32 * 3), ("mesh", u32)]


class StepParams(Struct):
    _c_name_ = "sinew_step_params"
    _fields_ = [("dt", f32), ("gravity", f32 * 3), ("damping", f32), ("ground", i32), ("ground_height", f32),
                ("sphere", i32), ("sphere_center", f32 * 3), ("sphere_radius", f32), ("box", i32),
                ("box_center", f32 * 3), ("box_half_extents", f32 * 3), ("box_velocity", f32 * 3),
                ("capsule", i32), ("capsule_a", f32 * 3), ("capsule_b", f32 * 3), ("capsule_radius", f32),
                ("collider", i32), ("collider_position", f32 * 3), ("collider_rotation", f32 * 4),
                ("collider_velocity", f32 * 3), ("friction", f32), ("contact_offset", f32),
                ("shapes", C.POINTER(Shape)), ("shape_count", u32), ("ground_normal", f32 * 3),
                ("wind", f32 * 3), ("air_density", f32), ("frames", C.POINTER(Frame)), ("frame_count", u32)]


class StepStats(Struct):
    _c_name_ = "sinew_step_stats"
    _fields_ = [("step_index", u64), ("max_strain", f32), ("rms_strain", f32), ("max_measure_error", f32),
                ("rms_measure_error", f32), ("residual", f32), ("ms_predict", f64), ("ms_solve", f64),
                ("ms_contacts", f64), ("ms_velocity", f64), ("ms_residual", f64), ("ms_total", f64),
                ("dispatches", u32), ("barriers", u32), ("bytes", u64), ("device_memory", u64),
                ("device_allocations", u32), ("submits", u32), ("host_waits", u32), ("readback_bytes", u64),
                ("bad_particles", u32), ("first_bad", u32), ("last_bad", u32), ("max_speed", f32),
                ("rolled_back", i32), ("inverted_elements", u32), ("first_inverted", u32),
                ("max_volume_error", f32), ("newton_iterations", u64), ("loops_cut", u32),
                ("linear_iterations", u32), ("linear_residual", f64), ("linear_unconverged", u32),
                ("ms_linear", f64), ("linear_fallback_iterations", u32), ("self_candidates", u64),
                ("self_dropped", u32), ("self_contacts", u64),
                ("error_estimate", f32)]


class StaticError(Struct):
    _c_name_ = "sinew_static_error"
    _fields_ = [("error", f64), ("iterations", u32), ("converged", i32)]


class RenderMaterial(Struct):
    _c_name_ = "sinew_render_material"
    _fields_ = [("name", char_p), ("first_index", u32), ("index_count", u32)]


class WorldDesc(Struct):
    _c_name_ = "sinew_world_desc"
    _fields_ = [("cookie", u32), ("name", char_p), ("batch", i32), ("contacts", i32)]


class WorldStats(Struct):
    _c_name_ = "sinew_world_stats"
    _fields_ = [("step_index", u64), ("body_count", u32), ("chain_count", u32), ("dispatches", u32),
                ("barriers", u32), ("bytes", u64), ("submits", u32), ("host_waits", u32),
                ("readback_bytes", u64), ("device_memory", u64), ("device_allocations", u32),
                ("bad_particles", u32), ("inverted_elements", u32), ("rolled_back", i32), ("ms_total", f64)]


class ColliderDesc(Struct):
    _c_name_ = "sinew_collider_desc"
    _fields_ = [("cookie", u32), ("vertices", C.POINTER(f32)), ("vertex_count", u32),
                ("triangles", C.POINTER(u32)), ("triangle_count", u32), ("cell_size", f32),
                ("resolution", u32), ("margin", f32), ("name", char_p)]


class ColliderInfo(Struct):
    _c_name_ = "sinew_collider_info"
    _fields_ = [("dims", u32 * 3), ("origin", f32 * 3), ("cell_size", f32), ("inside_nodes", u32),
                ("open_edges", u32), ("device_memory", u64), ("build_ms", f64)]


# ---------------------------------------------------------------- sinew/prep.h

class PrepMesh(Struct):
    _c_name_ = "sinew_prep_mesh"
    _fields_ = [("vertex_count", u32), ("positions", C.POINTER(f32)), ("positions_f64", C.POINTER(f64)),
                ("triangle_count", u32), ("triangles", C.POINTER(u32)), ("quad_count", u32),
                ("quads", C.POINTER(u32)), ("uvs", C.POINTER(f32)), ("normals", C.POINTER(f32))]


class PrepVolume(Struct):
    _c_name_ = "sinew_prep_volume"
    _fields_ = [("vertex_count", u32), ("positions", C.POINTER(f32)), ("positions_f64", C.POINTER(f64)),
                ("tet_count", u32), ("tets", C.POINTER(u32)), ("regions", C.POINTER(u32))]


class PrepReport(Struct):
    _c_name_ = "sinew_prep_report"
    _fields_ = [("particle_count", u32), ("pinned_count", u32), ("triangle_count", u32), ("tet_count", u32),
                ("stretch_count", u32), ("shear_count", u32), ("bend_count", u32), ("colour_count", u32),
                ("element_count", u32), ("dropped_faces", u32), ("dropped_vertices", u32),
                ("flipped_tets", u32), ("part_count", u32), ("unpinned_parts", u32),
                ("hierarchy_levels", u32), ("multigrid_levels", u32), ("cluster_passes", u32),
                ("red_count", u32), ("black_count", u32), ("total_mass", f64), ("welded_vertices", u32)]


class PrepOutput(Struct):
    _c_name_ = "sinew_prep_output"
    _fields_ = [("bytes", ptr), ("size", size_t), ("report", PrepReport)]


class PrepClothOptions(Struct):
    _c_name_ = "sinew_prep_cloth_options"
    _fields_ = [("cookie", u32), ("name", char_p), ("density", f64), ("shear", i32), ("bending", i32),
                ("triangulate", i32), ("quadrangulate", i32), ("colouring", enum), ("cluster_particles", u32),
                ("pins", C.POINTER(u32)), ("pin_count", u32), ("pin_box", i32), ("box_min", f64 * 3),
                ("box_max", f64 * 3), ("pin_boxes", C.POINTER(f64)), ("pin_box_count", u32), ("pin_top", f64), ("free_parts", i32), ("membrane", u32),
                ("membrane_material", Material), ("springs", i32), ("spring_compliance", f64),
                ("keep_distances", i32), ("warp", f64 * 3), ("hierarchy_levels", u32), ("hierarchy_k", u32),
                ("hierarchy_min_particles", u32), ("hierarchy_rest", enum), ("subdivisions", u32),
                ("red_black", i32), ("max_memory", u64), ("origin", f64 * 3)]


class PrepGrid(Struct):
    _c_name_ = "sinew_prep_grid"
    _fields_ = [("nx", u32), ("ny", u32), ("size_x", f64), ("size_y", f64), ("height", f64),
                ("vertical", i32), ("pin_corners", i32)]


class PrepRegionMaterial(Struct):
    _c_name_ = "sinew_prep_region_material"
    _fields_ = [("region", u32), ("material", Material)]


class PrepSoftOptions(Struct):
    _c_name_ = "sinew_prep_soft_options"
    _fields_ = [("cookie", u32), ("name", char_p), ("model", enum), ("youngs_modulus", f64),
                ("poisson_ratio", f64), ("density", f64), ("regions", C.POINTER(PrepRegionMaterial)),
                ("region_count", u32), ("colouring", enum), ("pins", C.POINTER(u32)), ("pin_count", u32),
                ("pin_box", i32), ("box_min", f64 * 3), ("box_max", f64 * 3), ("pin_boxes", C.POINTER(f64)),
                ("pin_box_count", u32), ("pin_bottom", f64),
                ("largest_piece", i32), ("mesher", enum), ("max_volume", f64), ("quality", f64),
                ("tetgen", char_p), ("lattice_cells", u32), ("follow_surface", i32),
                ("max_memory", u64), ("origin", f64 * 3)]


STRUCTS = [Logger, ContextDesc, DeviceInfo, AssetInfo, Material, ImplicitDesc, Frame, Attachment, BodyDesc,
           Shape, StepParams, StepStats, StaticError, RenderMaterial, WorldDesc, WorldStats, ColliderDesc, ColliderInfo, PrepMesh, PrepVolume,
           PrepReport, PrepOutput, PrepClothOptions, PrepGrid, PrepRegionMaterial, PrepSoftOptions]

# Enumerations the package names, value by C name (checked by the build too).
ENUMS = {
    "SINEW_RESULT_OK": 0,
    "SINEW_LOG_ERROR": 0, "SINEW_LOG_WARNING": 1, "SINEW_LOG_INFO": 2, "SINEW_LOG_DEBUG": 3,
    "SINEW_LIMITS_DEFAULT": 0, "SINEW_LIMITS_DEVICE": 1, "SINEW_LIMITS_PORTABLE": 2,
    "SINEW_MEMORY_MODEL_DEFAULT": 0, "SINEW_MEMORY_MODEL_DEVICE": 1, "SINEW_MEMORY_MODEL_DISCRETE": 2,
    "SINEW_MATERIAL_SPRING": 0, "SINEW_MATERIAL_NEO_HOOKEAN": 1, "SINEW_MATERIAL_STABLE_NEO_HOOKEAN": 2,
    "SINEW_MATERIAL_STVK": 3, "SINEW_MATERIAL_TABULATED": 4, "SINEW_MATERIAL_MODEL_COUNT": 5,
    "SINEW_SWEEP_DEFAULT": 0, "SINEW_SWEEP_FORWARD": 1, "SINEW_SWEEP_ALTERNATING": 2,
    "SINEW_SWEEP_LAYOUT_DEFAULT": 0, "SINEW_SWEEP_LAYOUT_COLOURS": 1, "SINEW_SWEEP_LAYOUT_CLUSTERS": 2,
    "SINEW_SHAPE_SPHERE": 0, "SINEW_SHAPE_CAPSULE": 1, "SINEW_SHAPE_BOX": 2, "SINEW_SHAPE_MESH": 3,
    "SINEW_PREP_COLOURING_BALANCED": 0, "SINEW_PREP_COLOURING_GREEDY": 1,
    "SINEW_PREP_HIERARCHY_REST_POSE": 0, "SINEW_PREP_HIERARCHY_REST_GEODESIC": 1,
    "SINEW_PREP_MESHER_TETGEN": 0, "SINEW_PREP_MESHER_LATTICE": 1,
    "SINEW_TABLE_POINTS": TABLE_POINTS, "SINEW_MAX_CONTACT_BODIES": 64,
}

_H = ptr  # an opaque handle
_PH = C.POINTER(ptr)

# Every function the package calls: name -> (result type, argument types).
FUNCTIONS = {
    # sinew/core.h
    "sinew_result_string": (char_p, [i32]),
    "sinew_version": (u32, []),
    # sinew/context.h
    "sinew_context_desc_default": (ContextDesc, []),
    "sinew_context_create": (i32, [C.POINTER(ContextDesc), _PH]),
    "sinew_context_destroy": (None, [_H]),
    "sinew_context_is_lost": (i32, [_H]),
    "sinew_context_get_device_info": (DeviceInfo, [_H]),
    "sinew_context_get_device_memory": (u64, [_H]),
    "sinew_context_get_allocation_count": (u32, [_H]),
    "sinew_context_get_validation_message_count": (u32, [_H]),
    # sinew/asset.h
    "sinew_asset_load": (i32, [char_p, C.POINTER(Logger), _PH]),
    "sinew_asset_load_memory": (i32, [ptr, size_t, char_p, C.POINTER(Logger), _PH]),
    "sinew_asset_destroy": (None, [_H]),
    "sinew_asset_get_info": (AssetInfo, [_H]),
    "sinew_asset_get_triangles": (C.POINTER(u32), [_H, C.POINTER(u32)]),
    "sinew_asset_get_tets": (None, [_H, ptr]),
    "sinew_asset_get_positions": (None, [_H, ptr]),
    "sinew_asset_get_inverse_masses": (None, [_H, ptr]),
    "sinew_asset_get_origin": (None, [_H, f64 * 3]),
    "sinew_asset_get_distances": (None, [_H, ptr]),
    "sinew_asset_get_material": (i32, [_H, u32, C.POINTER(Material)]),
    "sinew_asset_get_render_material_count": (u32, [_H]),
    "sinew_asset_get_render_material": (i32, [_H, u32, C.POINTER(RenderMaterial)]),
    "sinew_asset_get_material_library": (char_p, [_H, C.POINTER(C.c_void_p), C.POINTER(size_t)]),
    # sinew/material.h
    "sinew_material_make": (Material, [enum, f32, f32]),
    "sinew_material_check": (i32, [C.POINTER(Material), char_p, C.POINTER(Logger)]),
    # sinew/collider.h
    "sinew_collider_desc_default": (ColliderDesc, []),
    "sinew_collider_create": (i32, [_H, C.POINTER(ColliderDesc), _PH]),
    "sinew_collider_destroy": (None, [_H]),
    "sinew_collider_get_info": (ColliderInfo, [_H]),
    "sinew_collider_distance": (f32, [_H, C.POINTER(f32), C.POINTER(f32)]),
    # sinew/body.h
    "sinew_solver_name": (char_p, [enum]),
    "sinew_solver_label": (char_p, [enum]),
    "sinew_solver_from_name": (i32, [char_p, C.POINTER(enum)]),
    "sinew_body_desc_default": (BodyDesc, []),
    "sinew_step_params_default": (StepParams, []),
    "sinew_shape_default": (Shape, [enum]),
    "sinew_body_create": (i32, [_H, _H, C.POINTER(BodyDesc), _PH]),
    "sinew_body_destroy": (None, [_H]),
    "sinew_body_step": (i32, [_H, C.POINTER(StepParams)]),
    "sinew_body_wait": (i32, [_H]),
    "sinew_body_read_positions": (i32, [_H, ptr, u32]),
    "sinew_body_read_normals": (i32, [_H, ptr, u32]),
    "sinew_body_read_velocities": (i32, [_H, ptr, u32]),
    "sinew_body_write_positions": (i32, [_H, ptr, u32]),
    "sinew_body_get_origin": (None, [_H, f64 * 3]),
    "sinew_body_move_pinned": (i32, [_H, ptr, u32, ptr]),
    "sinew_body_checkpoint_size": (size_t, [_H]),
    "sinew_body_save_checkpoint": (i32, [_H, ptr, size_t]),
    "sinew_body_load_checkpoint": (i32, [_H, ptr, size_t]),
    "sinew_body_save_checkpoint_file": (i32, [_H, char_p]),
    "sinew_body_load_checkpoint_file": (i32, [_H, char_p]),
    "sinew_body_state_hash": (i32, [_H, C.POINTER(u64)]),
    "sinew_body_get_stats": (StepStats, [_H]),
    "sinew_body_estimate_error": (i32, [_H, C.POINTER(StepParams), C.POINTER(StaticError)]),
    "sinew_body_get_particle_count": (u32, [_H]),
    "sinew_body_set_pinned": (i32, [_H, u32, i32]),
    "sinew_body_set_substeps": (i32, [_H, u32]),
    "sinew_body_set_material": (i32, [_H, u32, C.POINTER(Material)]),
    "sinew_body_cut": (i32, [_H, ptr, u32, C.POINTER(u32)]),
    # sinew/world.h
    "sinew_world_desc_default": (WorldDesc, []),
    "sinew_world_create": (i32, [_H, C.POINTER(WorldDesc), _PH]),
    "sinew_world_destroy": (None, [_H]),
    "sinew_world_step": (i32, [_H, C.POINTER(StepParams)]),
    "sinew_world_get_stats": (WorldStats, [_H]),
    "sinew_world_get_body_count": (u32, [_H]),
    "sinew_world_state_hash": (i32, [_H, C.POINTER(u64)]),
    "sinew_world_checkpoint_size": (size_t, [_H]),
    "sinew_world_save_checkpoint": (i32, [_H, ptr, size_t]),
    "sinew_world_load_checkpoint": (i32, [_H, ptr, size_t]),
    "sinew_world_save_checkpoint_file": (i32, [_H, char_p]),
    "sinew_world_load_checkpoint_file": (i32, [_H, char_p]),
}

PREP_FUNCTIONS = {
    "sinew_prep_output_free": (None, [C.POINTER(PrepOutput)]),
    "sinew_prep_output_write": (i32, [C.POINTER(PrepOutput), char_p, C.POINTER(Logger)]),
    "sinew_prep_cloth_options_default": (PrepClothOptions, []),
    "sinew_prep_cloth": (i32, [C.POINTER(PrepMesh), C.POINTER(PrepClothOptions), C.POINTER(Logger),
                               C.POINTER(PrepOutput)]),
    "sinew_prep_grid_default": (PrepGrid, []),
    "sinew_prep_cloth_grid": (i32, [C.POINTER(PrepGrid), C.POINTER(PrepClothOptions), C.POINTER(Logger),
                                    C.POINTER(PrepOutput)]),
    "sinew_prep_fabric_parse": (i32, [char_p, size_t, char_p, C.POINTER(Logger), C.POINTER(Material)]),
    "sinew_prep_soft_options_default": (PrepSoftOptions, []),
    "sinew_prep_soft": (i32, [C.POINTER(PrepVolume), C.POINTER(PrepSoftOptions), C.POINTER(Logger),
                              C.POINTER(PrepOutput)]),
    "sinew_prep_soft_from_surface": (i32, [C.POINTER(PrepMesh), C.POINTER(PrepSoftOptions), C.POINTER(Logger),
                                           C.POINTER(PrepOutput)]),
}
