/* Set 1 of the implicit cloth solvers (constrainable multigrid;
 * src/solvers/imc.c). Included by C and GLSL (mg.glsl).
 *
 *   INDEX   uint   the levels' index data, laid out by the table at its
 *                  start (SINEW_MG_* in layout.h)
 *   REAL    vec4   the levels' matrices, soft constraints, rest data and vectors
 *   HISTORY [2n] vec4  BDF2: positions then velocities of the step before
 */
#ifndef SINEW_SHADER_MG_BIND_H
#define SINEW_SHADER_MG_BIND_H

#define SINEW_MG_BIND_INDEX 0
#define SINEW_MG_BIND_REAL 1
#define SINEW_MG_BIND_HISTORY 2
#define SINEW_MG_BINDINGS 3

#endif
