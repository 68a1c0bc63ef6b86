/* The one definition of what C and GLSL share: workgroup size, binding indices,
 * GPU record layouts and push constants. Included by the C sources and by every kernel.
 * 32-bit scalars and 16-byte vectors only, explicit padding (std430 == C).
 */
#ifndef SINEW_SHADER_LAYOUT_H
#define SINEW_SHADER_LAYOUT_H

#if defined(__STDC_VERSION__) || defined(__cplusplus)
#include <stdint.h>
#define SINEW_UINT uint32_t
#define SINEW_VEC4(name) float name[4]
#define SINEW_UVEC4(name) uint32_t name[4]
#define SINEW_STRUCT(name) typedef struct name
#define SINEW_END(name) name;
#else
#define SINEW_UINT uint
#define SINEW_VEC4(name) vec4 name
#define SINEW_UVEC4(name) uvec4 name
#define SINEW_STRUCT(name) struct name
#define SINEW_END(name) ;
#endif

/* Invocations per workgroup: within the 128 that every device (mobile
 * included) guarantees. */
#define SINEW_WORKGROUP_SIZE 64
/* Largest change of a hinge angle one bending projection may aim for (rad):
 * the linearization of the dihedral angle holds only near the current shape,
 * and a hinge folded far from its rest angle (cloth crumpling on landing)
 * projected in one go overshoots and diverges. Farther hinges take several
 * projections (docs/step.md). */
#define SINEW_BEND_STEP_LIMIT 0.1

/* Largest change of any entry of a stable neo-Hookean element's deformation
 * gradient in one GPBD update (a trust region; docs/gpbd.md). */
#define SINEW_GPBD_STEP_LIMIT 4.0

/* Workgroup size of the final residual reduction (one workgroup). */
#define SINEW_REDUCE_SIZE 64

/* Two descriptor sets, every kernel's pipeline layout:
 *
 *   set 0 (SINEW_SET_BODY)    the body's buffers, below: particles, the
 *                             asset's constraints and elements, per-step
 *                             parameters, statistics, normals, the collider
 *   set 1 (SINEW_SET_SOLVER)  the solver's own buffers, at most
 *                             SINEW_SOLVER_BINDINGS, numbered by each solver
 *                             family in its own header (shared/pbd.h,
 *                             shared/pd.h, shared/mg.h, shared/amg.h)
 *
 * Every kernel declares set 0 (common.glsl) and, if it is a solver's, that
 * solver's set 1 (pbd.glsl, pd.glsl, mg.glsl, amg.glsl).
 *
 * Set 0:
 *   POS       [n] vec4   x, y, z (m), w = inverse mass (1/kg, 0 = pinned)
 *   PREV      [n] vec4   positions at the start of the substep (the
 *                        implicit solvers: the pins' anchors)
 *   VEL       [n] vec4   velocity (m/s), w unused
 *   PARAMS    [1] GpuParams     per-step values written by the host
 *   STATS     [1] GpuStats      reduced residual and health, read by the host
 *   PARTIAL   [groups] vec4     residual partials: strain max and sum of squares,
 *                               element measure error max and sum of squares;
 *                               then as many of the error estimate's virtual
 *                               works (internal, gravity's, inertia's, 0); then
 *                               the solver's residual partials
 *   DIST      [d] GpuDistance   sorted by colour
 *   BEND      [b] GpuBend       sorted by colour
 *   ANGLE     [b] float     hinge angle of each bend at its last projection,
 *                           unwrapped: continuous through +-pi
 *   ELEM      [e] GpuElement  GPBD elements, sorted by element colour
 *   MATERIAL  [m] GpuMaterial
 *   MESH      [n + 1 + 6t] uint  surface triangles around each particle:
 *                           particle i's entries are MESH[MESH[i] .. MESH[i+1]),
 *                           pairs (a, b) such that (i, a, b) is a triangle in
 *                           its winding order
 *   NORMAL    [n] vec4      unit vertex normals of the surface after each step
 *                           (area-weighted; w = 0), for renderers
 *   SDF       float         the mesh collider's signed distance field (m),
 *                           node (i, j, k) at i + nx (j + ny k); owned by the
 *                           collider, shared by the bodies that use it
 *   SELF_INDEX uint         self-collision (desc.self_collision): the surface,
 *                           the spatial hash and the candidate lists, laid out
 *                           by its header (shared/selfcol.h)
 *   SELF_REAL vec4          self-collision: the primitives' boxes, the
 *                           contacts' corrections
 *   RENDER    vec4          render mesh (docs/render-mesh.md; desc.render_mesh),
 *                           r render vertices, i indices, one buffer:
 *                             [0, 4r)    GpuRenderVertex per render vertex
 *                             [4r, 6r)   output, 2 vec4 (32 B) per render
 *                                        vertex: (x, y, z, nx), (ny, nz, u, v)
 *                             then       i uint32 indices (vec4 6r on)
 *                           the output and the indices are the engine's
 *                           vertex and index buffers (sinew/vulkan.h)
 *   SHAPES    vec4          the collider list (docs/colliders.md) and wind
 *                           (docs/wind.md), at vec4 offsets in GpuParams.shapes:
 *                           [max_shapes] GpuShape as the host wrote them
 *                           (the pose at the step's start), [max_shapes]
 *                           GpuShape at the end of the current substep
 *                           (shapes.comp), 2 vec4 per mesh collider (origin
 *                           xyz, cell; dims xyz and the first value's float
 *                           index as uint bits), the meshes' distance
 *                           values (floats, 4 a vec4), [n] the wind's
 *                           velocity change of each particle (wind.comp)
 *   REST      [3n] vec4     the error estimate (desc.residual, a solid of
 *                           tetrahedra; one vec4 of its own otherwise): 3i the
 *                           rest position, 3i + 1 and 3i + 2 the positions at
 *                           the ends of the last two steps (written by the
 *                           residual kernel at each step's end)
 *   ATTACH    vec4          attachments to frames, pins' targets and tethers
 *                           (docs/attachments.md), in vec4s:
 *                             [0, 4F)        per frame: position and rotation
 *                                            (x y z w) at the step's start,
 *                                            then at its end (from the host
 *                                            each step)
 *                             [4F, +P)       per pin slot: target xyz, w the
 *                                            particle's bits (SINEW_ATTACH_NONE:
 *                                            slot free; from the host each step)
 *                             [.., +2A)      per attachment: offset in its
 *                                            frame xyz, w compliance (m/N);
 *                                            then (particle, frame) as bits
 *                             [.., +A)       per attachment: this substep's
 *                                            target xyz, w the multiplier
 *                             [.., +T)       per tether: particle and anchor
 *                                            bits, rest length (m), 0
 */
#define SINEW_SET_BODY 0
#define SINEW_SET_SOLVER 1
#define SINEW_BIND_POS 0
#define SINEW_BIND_PREV 1
#define SINEW_BIND_VEL 2
#define SINEW_BIND_PARAMS 3
#define SINEW_BIND_STATS 4
#define SINEW_BIND_PARTIAL 5
#define SINEW_BIND_DIST 6
#define SINEW_BIND_BEND 7
#define SINEW_BIND_ANGLE 8
#define SINEW_BIND_ELEM 9
#define SINEW_BIND_MATERIAL 10
#define SINEW_BIND_MESH 11
#define SINEW_BIND_NORMAL 12
#define SINEW_BIND_SDF 13
#define SINEW_BIND_SELF_INDEX 14
#define SINEW_BIND_SELF_REAL 15
#define SINEW_BIND_SHAPES 16
/* Attachments to moving frames, pins, tethers (docs/attachments.md). */
#define SINEW_BIND_ATTACH 17
/* Render mesh (docs/render-mesh.md). */
#define SINEW_BIND_RENDER 18
/* The error estimate's rest pose and step-start velocities (desc.residual). */
#define SINEW_BIND_REST 19
#define SINEW_BODY_BINDINGS 20
/* ATTACH: a pin slot without a particle. */
#define SINEW_ATTACH_NONE 0xFFFFFFFFu
/* Set 1's size: the most buffers any solver owns. Both sets together stay
 * within the storage buffers a stage may use (32 on lavapipe; context.c
 * checks the device's limits). */
#define SINEW_SOLVER_BINDINGS 10

/* AMG_INDEX and AMG_REAL are each split into SINEW_AMG_CHUNKS storage
 * buffers of 2^shift words (the shifts in GpuAmgPush; the last chunk in use
 * may be shorter): word k lies in chunk k >> shift at k & (2^shift - 1). A
 * device's maxStorageBufferRange bounds one binding, not the images. */
#define SINEW_AMG_CHUNKS 2
/* MGPBD (global XPBD with algebraic multigrid; docs/mgpbd.md). AMG_INDEX
 * starts with SINEW_AMG_HEADER words (offsets into AMG_INDEX unless marked
 * REAL); each sparse matrix is a record of SINEW_AMG_MAT words there, its
 * values in AMG_REAL. Constraints are the distances first, then the
 * tetrahedra, each sorted by colour. */
#define SINEW_AMG_HEADER 16
#define SINEW_AMG_PARTICLES 0  /* n */
#define SINEW_AMG_DISTANCES 1  /* d */
#define SINEW_AMG_TETS 2       /* t; m = d + t constraints */
#define SINEW_AMG_CONS 3       /* [4 m] each constraint's particles (SINEW_AMG_NONE past a distance's two) */
#define SINEW_AMG_ADJ_START 4  /* [n + 1] each particle's entries in ADJ */
#define SINEW_AMG_ADJ 5        /* 4 c + slot: constraint c holds the particle at slot */
#define SINEW_AMG_PAIRS 6      /* [nnz of A] the particles two constraints share: count in bits 0-2,
                                  then (slot in the row's constraint, slot in the column's) 2 + 2 bits each */
#define SINEW_AMG_REST 7       /* REAL [12 m]: distance (rest length m, compliance m/N);
                                  tetrahedron (Dm^-1 by rows, 9; compliance 1/(Pa m^3)) */
#define SINEW_AMG_GRAD 8       /* REAL [12 m]: the gradient of each constraint at its 4 slots */
#define SINEW_AMG_C 9          /* REAL [m]: each constraint's value */
#define SINEW_AMG_LAMBDA 10    /* REAL [m]: multipliers */
#define SINEW_AMG_PARTIAL 11   /* REAL: workgroups' partial sums */
#define SINEW_AMG_SCALARS 12   /* REAL: SINEW_AMG_S_* */
#define SINEW_AMG_FACTOR 13    /* REAL: the coarsest operator's dense Cholesky factor (rows x rows) */
#define SINEW_AMG_A0 14        /* the finest operator's matrix record */
#define SINEW_AMG_X0 15        /* NONE, or the record of X_0 = [G | diag(sqrt alpha~)] (m x (3 n + m)), whose
                                  values amg_assemble writes: A_0 = X_0 diag(w, 1) X_0^T (amg_gram) */
#define SINEW_AMG_NONE 0xFFFFFFFFu
/* A matrix record. */
#define SINEW_AMG_MAT 8
#define SINEW_AMG_M_ROWS 0
#define SINEW_AMG_M_COLS 1
#define SINEW_AMG_M_ROW 2      /* [rows + 1] first entry of each row */
#define SINEW_AMG_M_COL 3      /* [nnz] columns, increasing within a row */
#define SINEW_AMG_M_VAL 4      /* REAL [nnz] */
#define SINEW_AMG_M_DIAG 5     /* [rows] each row's diagonal entry (square matrices; NONE: none) */
#define SINEW_AMG_M_NNZ 6
/* Scalars (AMG_REAL[scalars + k]): PCG's r.z by iteration parity, p.q, dot
 * products, the gates and the decisions the device takes within an outer
 * iteration (docs/mgpbd.md, "One submit an outer iteration"), each level's
 * smoother rho, and CG's history. The host reads the first
 * SINEW_AMG_S_REPORT of them once an outer iteration. */
#define SINEW_AMG_S_RZ 0
#define SINEW_AMG_S_PQ 2
#define SINEW_AMG_S_BB 3
#define SINEW_AMG_S_RR 4
#define SINEW_AMG_S_DOT 5
#define SINEW_AMG_S_INDEFINITE 6 /* a coarse operator came out with a diagonal <= 0 (amg_product), or CG
                                  * met rz < 0 or p.Ap <= 0 (amg_vector): not positive definite */
#define SINEW_AMG_S_COARSE_DIAGONAL 7 /* raised with INDEFINITE by amg_product and amg_gram alone */
#define SINEW_AMG_S_CG_OPEN 8    /* gate: CG goes on (> 0) */
#define SINEW_AMG_S_LS_OPEN 9    /* gate: the line search has not accepted a step yet (> 0) */
#define SINEW_AMG_S_CG_ITERATIONS 10 /* CG iterations done by the solve */
#define SINEW_AMG_S_BB0 11       /* |b|^2 at the outer iteration's start */
#define SINEW_AMG_S_RR_END 12    /* |r|^2 where CG stopped */
#define SINEW_AMG_S_STEP 13      /* the line search's t (0: no step) */
#define SINEW_AMG_S_AFTER 14     /* |b| after the step */
#define SINEW_AMG_S_TARGET 15    /* the line search's |b| to beat */
#define SINEW_AMG_S_HISTORY_COUNT 16 /* batches written into S_HISTORY */
#define SINEW_AMG_S_REPORT 17    /* the scalars above: what the host reads */
#define SINEW_AMG_S_FIRST 18     /* |b|^2 at the first outer iteration of a body's substep (the residual's base) */
#define SINEW_AMG_S_RHO 20       /* [SINEW_AMG_MAX_LEVELS]: each level's rho(D^-1 A), safety included */
#define SINEW_AMG_S_POWER 32     /* the power iteration's |y|^2_{D^-1} and y.e */
#define SINEW_AMG_S_HISTORY 36   /* [SINEW_AMG_HISTORY]: CG's |r| / |b| after each batch */
#define SINEW_AMG_HISTORY 256
#define SINEW_AMG_SCALAR_COUNT (SINEW_AMG_S_HISTORY + SINEW_AMG_HISTORY)
/* Largest coarsest level solved exactly (one workgroup, its factor in shared memory). */
#define SINEW_AMG_DENSE_ROWS 64
/* The longest row of a Gram factor X_l that amg_gram merges (its loops,
 * twice this, stay within llvmpipe's 65 535 iterations an invocation). */
#define SINEW_AMG_GRAM_ROW_MAX 16384
/* The most loop iterations an amg_product invocation may need for a row of
 * the product (mgpbd_layout.c, product_mode): half of llvmpipe's 65 535. */
#define SINEW_AMG_LOOP_BUDGET 32768

/* Modes of the MGPBD kernels (GpuAmgPush.mode). */
#define SINEW_AMG_SPMV_SET 0      /* y = M x */
#define SINEW_AMG_SPMV_RESIDUAL 1 /* y = z - M x */
#define SINEW_AMG_SPMV_SUB 2      /* y -= M x */
#define SINEW_AMG_SPMV_ADD 3      /* y += M x */
#define SINEW_AMG_VEC_CHEB_FIRST 0 /* d (w) = a D^-1 r (y); x = d, or x += d when b != 0 */
#define SINEW_AMG_VEC_CHEB_NEXT 1  /* d = a d + c D^-1 r; x += d */
#define SINEW_AMG_VEC_JACOBI 2     /* x = a D^-1 y, or x += a D^-1 y when b != 0 */
#define SINEW_AMG_VEC_PCG_UPDATE 3 /* alpha = rz / pq; x += alpha p (z); y -= alpha q (w) */
#define SINEW_AMG_VEC_PCG_DIRECTION 4 /* beta = rz_new / rz; z(p) = y(z) + beta z(p) */
#define SINEW_AMG_VEC_DOT 5        /* partial sums of x . y */
#define SINEW_AMG_VEC_COPY 6       /* y = x */
#define SINEW_AMG_VEC_AXPY 7       /* y += a x */
#define SINEW_AMG_VEC_ZERO 8       /* y = 0 */
#define SINEW_AMG_VEC_DOT_DINV 9   /* partial sums of x . D^-1 y */
#define SINEW_AMG_VEC_POWER 10     /* x = D^-1 y / sqrt(scalar S_POWER) (the power iteration's next vector) */
/* One invocation: the device's decisions (the gate of each is pc.gate). */
#define SINEW_AMG_VEC_SET 11       /* scalar pc.slot = a */
#define SINEW_AMG_VEC_RHO 12       /* scalar pc.slot (a level's rho) = max(itself, a S_POWER + 1) when finite, > 0 */
#define SINEW_AMG_VEC_CG_CHECK 13  /* after a batch of b iterations: count them; history; close CG's gate at
                                      rr <= a bb (lowering an INDEFINITE CG raised itself: a breakdown at
                                      round-off), at NaN or when INDEFINITE is raised */
#define SINEW_AMG_VEC_LS_BEGIN 14  /* LS_OPEN = 1, unless a (lazy) and INDEFINITE: the solve is redone */
#define SINEW_AMG_VEC_LS_CHECK 15  /* the trial t = a: |b| < b scalar pc.slot accepts it (STEP, AFTER, gate closed) */
#define SINEW_AMG_VEC_LS_FAIL 16   /* no trial accepted: STEP 0, AFTER = scalar pc.slot, gate closed */
#define SINEW_AMG_VEC_FALLBACK 17  /* CG_OPEN = 1 and INDEFINITE lowered when it was raised,
                                      else CG_OPEN = 0: CG again with the Jacobi preconditioner */
#define SINEW_AMG_CONS_EVAL 0      /* C, gradients, b = -C - alpha~ lambda into y */
#define SINEW_AMG_CONS_XPBD 1      /* XPBD's projection of constraints [first, first + count) */
#define SINEW_AMG_CONS_JACOBI 2    /* XPBD's dlambda of every constraint at once into y; lambda += dlambda */
#define SINEW_AMG_COARSE_FACTOR 0
#define SINEW_AMG_COARSE_SOLVE 1

/* Implicit multigrid cloth (docs/implicit.md). MG_INDEX starts with
 * SINEW_MG_HEADER words: level count, the MG_REAL index of the globals, the
 * MG_INDEX index of the parents (2 per particle), the MG_REAL indices of the
 * workgroups' partial sums and of the scalars; then SINEW_MG_FIELDS words per
 * level, coarsest level first, with these
 * fields (offsets into MG_INDEX unless marked REAL). Level l's particles are
 * 0 .. n - 1, the same indices as the finest level's. */
#define SINEW_MG_HEADER 16
#define SINEW_MG_H_TETS 5      /* header word: a solid's element scratch in REAL (mg_tet.comp) */
#define SINEW_MG_FIELDS 16
#define SINEW_MG_N 0           /* particles */
#define SINEW_MG_ROW 1         /* [n + 1] first block of each row (block indices of the level) */
#define SINEW_MG_COL 2         /* [blocks] column (particle) of each block, increasing within a row */
#define SINEW_MG_DIAG 3        /* [n] each row's diagonal block */
#define SINEW_MG_TRI 4         /* [4 t] triangles: v0 v1 v2 0 */
#define SINEW_MG_TRI_COUNT 5
#define SINEW_MG_HINGE 6       /* [4 h] hinges: edge p0 p1, wings p2 p3 */
#define SINEW_MG_HINGE_COUNT 7
#define SINEW_MG_INC_START 8   /* [n + 1] each particle's incident elements in INC */
#define SINEW_MG_INC 9         /* triangle t, corner c: 4t + c; hinge h, slot s: 0x80000000 | 4h + s;
                                  the body's tetrahedron e, corner c: 0x40000000 | 4e + c */
#define SINEW_MG_CHILD_START 10 /* [n + 1] the particles of the next finer level whose parent it is */
#define SINEW_MG_CHILD 11
#define SINEW_MG_BLOCKS 12     /* REAL: 3 vec4 (rows) per block */
#define SINEW_MG_D 13          /* REAL: 3 vec4 per particle: soft constraint D */
#define SINEW_MG_REST 14       /* REAL: 2 vec4 per triangle (Bm; area), then 1 per hinge (rest angle, weight) */
#define SINEW_MG_VEC 15        /* REAL: vector k of the level at VEC + k n */
/* The vectors of every level. */
#define SINEW_MG_U 0
#define SINEW_MG_F 1
#define SINEW_MG_R 2
#define SINEW_MG_P 3
#define SINEW_MG_Z 4
#define SINEW_MG_Q 5
#define SINEW_MG_MASS 6        /* x = lumped mass (kg) */
#define SINEW_MG_TARGET 7      /* the soft constraints' target displacements d */
#define SINEW_MG_FILTER 8      /* the constraint of each particle: xyz its normal,
                                  w SINEW_MG_FREE, SINEW_MG_SLIDING or SINEW_MG_POINT */
#define SINEW_MG_VECTORS 9
#define SINEW_MG_FREE 0.0
#define SINEW_MG_SLIDING 1.0
#define SINEW_MG_POINT 2.0
/* Globals at MG_REAL[globals]: (h, beta, k_stretch, k_shear), (k_bend,
 * gravity), (k_contact, k_friction, k_pin, flags). Flags: SINEW_MG_FILTERED,
 * the constrained directions filtered out of PCG (Baraff and Witkin's
 * modified PCG: constraints hard, not soft). */
#define SINEW_MG_GLOBALS 3
#define SINEW_MG_FILTERED 1u
/* Scalars at MG_REAL[scalars + k]: PCG's r.z (two, by iteration parity),
 * p.q, two dot products (|b|^2, |r|^2); then what the device decides with
 * (mg_control): a solve's control record, two vec4s, for the V-cycles (at
 * S_MG) and for PCG (at S_PCG, the PCG solver's and the V-cycles' fallback):
 *   (running, count, relative residual, best), (|b|, cycles in a row that
 *   gained < 5 %, diverged, 0)
 * the fallback's flag (S_FALLBACK.x: the V-cycles diverged, PCG starts
 * again), BDF2's blend of this substep (S_BLEND.x), the step's totals
 * (S_TOTAL: iterations, the worst relative residual, solves ended above the
 * tolerance, fallback iterations) and the relative residual after each of
 * the first 64 V-cycles (S_HISTORY + k / 4, component k % 4). A kernel
 * whose push constant `gate` is not 0 does nothing unless scalar gate's x
 * is > 0: the work after a solve has converged costs its launch alone. */
#define SINEW_MG_S_RZ 0
#define SINEW_MG_S_PQ 2
#define SINEW_MG_S_BB 3
#define SINEW_MG_S_RR 4
#define SINEW_MG_S_MG 5
#define SINEW_MG_S_PCG 7
#define SINEW_MG_S_FALLBACK 9
#define SINEW_MG_S_BLEND 10
#define SINEW_MG_S_TOTAL 11
#define SINEW_MG_S_HISTORY 16
#define SINEW_MG_SCALARS 32
/* mg_control's modes (range.count2); range.slot_base the control record. */
#define SINEW_MG_CONTROL_SUBSTEP 0 /* the substep's h and gravity from PARAMS, BDF2's blend (range.first: substep,
                                      range.count: BDF2); substep 0 clears the totals */
#define SINEW_MG_CONTROL_START 1   /* |b| from S_BB; running unless |b| = 0 (range.distance_total & 1: and the
                                      fallback was called for) */
#define SINEW_MG_CONTROL_CHECK 2   /* after |r|^2 into S_RR: range.first2 more iterations done; running while
                                      below range.first iterations and above the tolerance (range.weight);
                                      V-cycles (distance_total & 2) also stop on a stall or divergence */
#define SINEW_MG_CONTROL_END 3     /* into the totals (V-cycles with distance_total & 4: a diverged solve
                                      calls for the fallback instead); distance_total & 1: the fallback's end */
#define SINEW_MG_CONTROL_STATS 4   /* the totals into the body's STATS */
/* Flags of mg_control (range.distance_total). */
#define SINEW_MG_CONTROL_FALLBACK 1u
#define SINEW_MG_CONTROL_VCYCLES 2u
#define SINEW_MG_CONTROL_MAY_FALL_BACK 4u
/* mg_pcg's modes (range.count2). */
#define SINEW_MG_PCG_START 0
#define SINEW_MG_PCG_Q 1
#define SINEW_MG_PCG_UPDATE 2
#define SINEW_MG_PCG_DIRECTION 3
#define SINEW_MG_DOT 4
#define SINEW_MG_PCG_INIT 5    /* U = 0, or with SINEW_MG_FILTERED its constrained part */
/* Bits marking a hinge and a tetrahedron (the body's element e, corner c:
 * 4e + c) in INC. */
#define SINEW_MG_HINGE_BIT 0x80000000u
#define SINEW_MG_TET_BIT 0x40000000u

/* GPBD element kinds (the asset's enum sinew_element_kind). */
#define SINEW_GPU_SPRING 0u
#define SINEW_GPU_TRIANGLE 1u
#define SINEW_GPU_TET 2u

/* Material models on the device (include/sinew/material.h). */
#define SINEW_GPU_MODEL_SPRING 0u
#define SINEW_GPU_MODEL_NEO_HOOKEAN 1u
#define SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN 2u
#define SINEW_GPU_MODEL_STVK 3u
#define SINEW_GPU_MODEL_TABULATED 4u
#define SINEW_GPU_TABLE_POINTS 8

SINEW_STRUCT(GpuDistance) {
    SINEW_UINT a;
    SINEW_UINT b;
    float rest;        /* m */
    float compliance;  /* m/N */
} SINEW_END(GpuDistance)

SINEW_STRUCT(GpuBend) {
    SINEW_UVEC4(v);    /* shared edge v.x-v.y, wings v.z, v.w */
    float rest_angle;  /* rad */
    float compliance;  /* 1/(N m) */
    float pad0, pad1;
} SINEW_END(GpuBend)

/* HPBD: a particle of the hierarchy and its parents, HLINK[first, +count)
 * (none on the coarsest level, or after a cut removed them). */
SINEW_STRUCT(GpuNode) {
    SINEW_UINT particle;
    SINEW_UINT first;
    SINEW_UINT count;
    SINEW_UINT level;
} SINEW_END(GpuNode)

SINEW_STRUCT(GpuLink) {
    SINEW_UINT parent;
    float weight;
} SINEW_END(GpuLink)

/* A GPBD element. v: vertices (kind SPRING v.xy, TRIANGLE v.xyz, TET all).
 * r[j-1].xyz = row j-1 of the inverse rest shape matrix Dm^-1, so that
 * F = sum_j x_j r_j^T with r_0 = -(r_1 + r_2 + r_3) (triangles: xy only, r[2]
 * unused). Springs: r[0].x = rest length. measure: weight of the energy
 * (rest volume, rest area, 1 for springs). */
SINEW_STRUCT(GpuElement) {
    SINEW_UVEC4(v);
    SINEW_UINT kind;
    SINEW_UINT material;
    float measure;
    float pad0;
    SINEW_VEC4(r[3]);
} SINEW_END(GpuElement)

/* A material as the kernels use it: Lame parameters (membranes: plane stress,
 * times thickness), the SNH rest offset a, the spring compliance; tabulated
 * curves with stresses times thickness. */
SINEW_STRUCT(GpuMaterial) {
    SINEW_UINT model;
    float mu;
    float lambda;
    float extra;              /* STABLE_NEO_HOOKEAN: a; SPRING: compliance (m/N) */
    float table_strain[3 * SINEW_GPU_TABLE_POINTS];
    float table_stress[3 * SINEW_GPU_TABLE_POINTS];
} SINEW_END(GpuMaterial)

/* Per-step values, written by the host before each submit. */
SINEW_STRUCT(GpuParams) {
    SINEW_VEC4(gravity);      /* xyz m/s^2, w = substep h (s) */
    SINEW_VEC4(sphere);       /* xyz centre (m), w radius (m); radius < 0: none */
    SINEW_VEC4(box_center);   /* xyz centre of an axis-aligned box (m), w > 0: present */
    SINEW_VEC4(box_half);     /* xyz half extents (m) */
    SINEW_VEC4(box_motion);   /* xyz how far the box moves in one substep (m) */
    float inv_h;              /* 1/h */
    float inv_h2;             /* 1/h^2, turns compliance into alpha tilde */
    float damping;            /* velocity factor per substep, in [0, 1] */
    float ground;             /* plane height (m); -inf (-3e38): none */
    float friction;           /* Coulomb coefficient */
    float contact_offset;     /* m */
    float omega;              /* Jacobi over-relaxation */
    float max_speed;          /* m/s; faster particles fail the health check */
    SINEW_UINT newton_iterations; /* GPBD: most Newton iterations per element update */
    float newton_tolerance;   /* GPBD: stop when |grad| <= tol * |grad at start| */
    SINEW_UINT solver_flags;  /* the solver's own (the implicit solvers: 1 when BDF2's record of the
                                 step before is valid) */
    float step_dt;            /* s, the whole step (substeps x h): the error estimate's accelerations */
    SINEW_VEC4(capsule_a);    /* xyz one end of a capsule's segment (m), w radius (m); < 0: none */
    SINEW_VEC4(capsule_b);    /* xyz the other end */
    /* The mesh collider: a world point p is at sdf_frame * (p, 1) in the
     * collider's frame (rows of the inverse rotation, w the translation). */
    SINEW_VEC4(sdf_frame[3]);
    SINEW_VEC4(sdf_origin);   /* xyz node (0, 0, 0) in the collider's frame (m), w cell (m); w <= 0: none */
    SINEW_UVEC4(sdf_dims);    /* nodes along x, y, z (>= 2 each) */
    SINEW_VEC4(sdf_motion);   /* xyz how far the collider moves in one substep (m) */
    /* Collider list, ground normal, wind (docs/colliders.md, docs/wind.md). */
    SINEW_VEC4(ground_normal); /* xyz the ground plane's unit normal: the plane is n.x = ground; w 0 */
    SINEW_UVEC4(shapes);      /* x shapes in the list, y vec4 index in SHAPES of the current records,
                                 z of the mesh headers, w of the wind's velocity changes */
    SINEW_VEC4(wind);         /* xyz wind velocity (m/s), w air density (kg/m^3) */
    SINEW_VEC4(aero);         /* x drag, y lift coefficient (desc.drag, desc.lift); z 1 when the wind
                                 kernel runs (integrate.glsl adds its changes), w 0 */
} SINEW_END(GpuParams)

/* Shape kinds of the collider list (include/sinew/body.h, sinew_shape_kind). */
#define SINEW_GPU_SHAPE_SPHERE 0u
#define SINEW_GPU_SHAPE_CAPSULE 1u
#define SINEW_GPU_SHAPE_BOX 2u
#define SINEW_GPU_SHAPE_MESH 3u

/* A shape of the collider list. The host writes the pose at the step's
 * start (axes unused); shapes.comp writes the pose at the end of each
 * substep, axes filled. */
SINEW_STRUCT(GpuShape) {
    SINEW_VEC4(center);       /* xyz position (m), w radius (m; sphere, capsule) */
    SINEW_VEC4(rotation);     /* unit quaternion x y z w, local to world */
    SINEW_VEC4(extent);       /* xyz half extents (box; capsule: y its half length) (m), w kind (float) */
    SINEW_VEC4(velocity);     /* xyz m/s, w mesh collider index (float) */
    SINEW_VEC4(spin);         /* xyz angular velocity about center (rad/s), w 0 */
    SINEW_VEC4(axes[3]);      /* the local x, y, z axes in the world (columns of the rotation) */
} SINEW_END(GpuShape)
/* vec4s of a GpuShape. */
#define SINEW_SHAPE_VEC4S 8u

/* Written by the residual and health kernels, read by the host after each step.
 * The host writes it afresh before each step (body.c, fresh_stats). */
SINEW_STRUCT(GpuStats) {
    float max_strain;
    float rms_strain;
    SINEW_UINT count;         /* distance constraints measured */
    SINEW_UINT bad_count;     /* particles with a non-finite value or too fast */
    SINEW_UINT first_bad;     /* lowest index of such a particle; 0xffffffff: none */
    SINEW_UINT last_bad;      /* highest index */
    SINEW_UINT max_speed;     /* bits of the largest finite speed (m/s): for
                                 floats >= 0 the bit patterns order as the values */
    SINEW_UINT newton;        /* GPBD: Newton iterations of all element updates */
    float max_measure_error;  /* GPBD elements: max and RMS of |V / V0 - 1| */
    float rms_measure_error;
    SINEW_UINT element_count;
    SINEW_UINT loops_cut;     /* GPBD: element updates skipped because their loops were cut short (common.glsl,
                                 loops_intact) */
    /* The implicit solvers, the step's totals (mg_control): V-cycles or PCG
     * iterations, the worst relative residual a solve ended at, solves that
     * ended above the tolerance, fallback PCG iterations. */
    SINEW_UINT linear_iterations;
    float linear_residual;
    SINEW_UINT linear_unconverged;
    SINEW_UINT linear_fallback;
    /* The health check's elements (tetrahedra; health.comp): inverted ones
     * (det F <= 0), the lowest such index (0xffffffff: none), and the bits
     * of the largest |V / V0 - 1| (a float >= 0, ordered as its bits). */
    SINEW_UINT inverted;
    SINEW_UINT first_inverted;
    SINEW_UINT volume_error;
    /* The solver's residual (docs/math.md 9): the RMS residual of its system
     * at the end of the last substep; negative when the solver has none or
     * desc.residual is off. */
    float residual;
    /* Self-collision (selfcol_kernels.glsl), the step's totals: candidate pairs
     * kept in the lists (summed over substeps), candidates that did not fit,
     * contact projections that moved particles (summed over iterations). */
    SINEW_UINT self_candidates;
    SINEW_UINT self_dropped;
    SINEW_UINT self_contacts;
    /* The error estimate (docs/accuracy.md): the virtual work of the force
     * imbalance over that of the loads, along the displacement from rest. */
    float error;
} SINEW_END(GpuStats)

/* Push constants of every kernel. Threads [0, count) work on records
 * [first, first + count); constraint kernels run threads [count, count + count2)
 * on bends [first2, first2 + count2). The contact kernel with first2 == 1
 * works on the particles of HNODE[first, first + count) instead. The
 * prediction kernels (predict, velocity_predict) clear LAMBDA[0, count2) and
 * ZDISP[0, slot_base) beside particles [0, count); the velocity kernel with
 * first2 != 0 runs the health check too, of elements [0, count2) as well. */
SINEW_STRUCT(GpuRange) {
    SINEW_UINT first;
    SINEW_UINT count;
    SINEW_UINT first2;
    SINEW_UINT count2;
    SINEW_UINT distance_total;  /* LAMBDA of bend c is at distance_total + c */
    SINEW_UINT slot_base;       /* GPBD Jacobi: DELTA slot of element 0 (2d + 4b) */
    float weight;               /* PD Chebyshev: the iteration's omega */
    SINEW_UINT gate;            /* the implicit solvers: 0, or the scalar whose x > 0 lets the kernel work */
} SINEW_END(GpuRange)

/* Push constants of the MGPBD kernels (amg_*). Vector arguments are offsets
 * into AMG_REAL; matrix arguments offsets of matrix records in AMG_INDEX. */
SINEW_STRUCT(GpuAmgPush) {
    SINEW_UINT count;          /* invocations doing work */
    SINEW_UINT mode;
    SINEW_UINT matrix;         /* the operator (spmv; its diagonal for the smoothers) */
    SINEW_UINT first;          /* first record (a colour's constraints) */
    SINEW_UINT x, y, z, w;     /* vectors, by kernel and mode */
    SINEW_UINT slot;           /* scalar written or read */
    SINEW_UINT groups;         /* amg_reduce: partial sums to add */
    SINEW_UINT index_shift;    /* AMG_INDEX's chunks hold 2^index_shift words */
    SINEW_UINT real_shift;     /* AMG_REAL's 2^real_shift */
    float a, b, c, d;          /* coefficients */
    SINEW_UINT gate;           /* 0, or the scalar whose value > 0 lets the dispatch work */
} SINEW_END(GpuAmgPush)

/* One render vertex on the device: the asset's record (src/asset/asset.h)
 * with its normal prepared for the kernel. normal: PARTICLES mode, the unit
 * rest normal (used where the particles' normals cancel); TET mode, Dm^T n,
 * the rest normal n through the tetrahedron's rest edges, so that the
 * current normal is Ds^-T (Dm^T n) = F^-T n (Ds the current edges). */
SINEW_STRUCT(GpuRenderVertex) {
    SINEW_UVEC4(particle);
    SINEW_VEC4(weight);
    SINEW_VEC4(normal);         /* xyz; w = mode (0 PARTICLES, 1 TET) */
    SINEW_VEC4(uv);             /* xy; zw 0 */
} SINEW_END(GpuRenderVertex)
/* Floats of one render vertex in the output: position, normal, uv. */
#define SINEW_RENDER_OUTPUT_FLOATS 8

#if defined(__STDC_VERSION__) || defined(__cplusplus)
_Static_assert(sizeof(GpuRenderVertex) == 64, "std430 layout");
_Static_assert(sizeof(GpuAmgPush) == 68, "push constants <= 128 bytes");
_Static_assert(sizeof(GpuDistance) == 16, "std430 layout");
_Static_assert(sizeof(GpuBend) == 32, "std430 layout");
_Static_assert(sizeof(GpuParams) == 320, "std430 layout");
_Static_assert(sizeof(GpuShape) == 16 * SINEW_SHAPE_VEC4S, "std430 layout");
_Static_assert(sizeof(GpuElement) == 80, "std430 layout");
_Static_assert(sizeof(GpuMaterial) == 208, "std430 layout");
_Static_assert(sizeof(GpuStats) == 96, "std430 layout");
_Static_assert(sizeof(GpuRange) == 32, "push constants <= 128 bytes");
_Static_assert(sizeof(GpuNode) == 16, "std430 layout");
_Static_assert(sizeof(GpuLink) == 8, "std430 layout");
#endif

#endif
