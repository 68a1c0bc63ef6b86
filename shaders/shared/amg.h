/* Set 1 of MGPBD (src/solvers/mgpbd*.c). Included by C and GLSL (amg.glsl).
 *
 *   INDEX  uint   SINEW_AMG_CHUNKS bindings: constraints, adjacency and the
 *                 AMG hierarchy's sparse patterns (SINEW_AMG_* in layout.h)
 *   REAL   float  SINEW_AMG_CHUNKS bindings: rest data, gradients,
 *                 multipliers, the hierarchy's values and vectors, scalars
 *   SAVED  [2n] vec4  positions at the start of the solve, then each
 *                 particle's correction (amg_apply)
 */
#ifndef SINEW_SHADER_AMG_BIND_H
#define SINEW_SHADER_AMG_BIND_H

#define SINEW_AMG_BIND_INDEX 0 /* and 1 */
#define SINEW_AMG_BIND_REAL 2  /* and 3 */
#define SINEW_AMG_BIND_SAVED 4
#define SINEW_AMG_BINDINGS 5

#endif
