/* Set 1 of the position-based solvers (XPBD, GPBD, HPBD; src/solvers/pbd.c):
 * their own buffers, at these bindings. Included by C and GLSL (pbd.glsl).
 *
 *   LAMBDA    [d + b] float   XPBD multipliers: distances first, then bends
 *   DELTA     [2d + 4b + 4e] vec4  Jacobi: each constraint's correction per
 *                             vertex: distance c at 2c, 2c+1; bend c at
 *                             2d + 4c + j; element e at 2d + 4b + 4e + j
 *   ADJ_START [n + 1] uint    Jacobi gather: particle i reads DELTA entries
 *   ADJ       [2d + 4b + 4e] uint   ADJ[ADJ_START[i] .. ADJ_START[i+1])
 *   ZDISP     [4e] vec4       GPBD: displacement z of each element at each of
 *                             its vertices (element e, vertex j at 4e + j);
 *                             reset every substep
 *   Q         [n] vec4        HPBD: positions when the hierarchy's sweep began
 *                             (corrections are prolongated, not positions)
 *   HDIST     [h] GpuDistance HPBD coarse constraints, by level then colour
 *                             (unilateral; a == b marks one removed by a cut)
 *   HNODE     [n] GpuNode     HPBD: every particle, coarsest level first; a
 *                             level's particles are a prefix
 *   HLINK     [l] GpuLink     HPBD parent links of the nodes
 *   CLUSTERS  uint[]          clustered sweeps (the asset's CLUS, CCOL, CPRT,
 *                             CITM sections): words 0-3 are where the
 *                             cluster records (4 words: particle begin and
 *                             count, colour begin and count), the colour
 *                             ranges (2 words: item begin and count), the
 *                             particle indices (1 word) and the items (3
 *                             words: constraint, locals 0-1, locals 2-3, 16
 *                             bits each) start, in words
 */
#ifndef SINEW_SHADER_PBD_H
#define SINEW_SHADER_PBD_H

#define SINEW_PBD_LAMBDA 0
#define SINEW_PBD_DELTA 1
#define SINEW_PBD_ADJ_START 2
#define SINEW_PBD_ADJ 3
#define SINEW_PBD_ZDISP 4
#define SINEW_PBD_Q 5
#define SINEW_PBD_HDIST 6
#define SINEW_PBD_HNODE 7
#define SINEW_PBD_HLINK 8
#define SINEW_PBD_CLUSTERS 9
#define SINEW_PBD_BINDINGS 10

/* project_clusters: a cluster's particles in shared memory (16 B each; the
 * asset's SINEW_CLUSTER_MAX_PARTICLES). */
#define SINEW_CLUSTER_SHARED_PARTICLES 512
/* project_clusters: push constant first2 (the sweep's direction). */
#define SINEW_CLUSTER_FORWARD 0u
#define SINEW_CLUSTER_BACKWARD 1u
#define SINEW_CLUSTER_BACKWARD_AFTER 2u /* backward, each cluster's last colour left out: it just ran */

#endif
