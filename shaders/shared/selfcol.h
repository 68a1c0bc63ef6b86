/* Self-collision (docs/self-collision.md; src/selfcol.c, selfcol_kernels.glsl):
 * what C and GLSL share. Included by both.
 *
 * The surface's primitives are items of one numbering: surface vertices
 * [0, V), triangles [V, V + T), edges [V + T, V + T + E) (I = V + T + E).
 * SELF_INDEX (uint) starts with SINEW_SELF_HEADER words; those marked
 * "offset" give where an array starts, in words:
 *
 *   VERTS     [V]      the particle of each surface vertex, ascending
 *   TRIS      [3T]     the asset's surface triangles
 *   EDGES     [2E]     their edges, each once (lower particle first), ascending
 *   GVERTS, GTRIS, GEDGES [GV, 3GT, 2GE]  the same of the other bodies'
 *                      surfaces, their particles numbered from N (below)
 *   TABLE     [H]      the spatial hash: entries per bucket, then (after the
 *                      scan) each bucket's end, then (after the scatter) its
 *                      start
 *   ITEMS     [R]      the entries, by bucket (any order within one): an item
 *                      in each cell its box overlaps
 *   KEYS      [R]      each entry's cell hash (its bucket's low bits; the
 *                      whole tells cells sharing a bucket apart)
 *   COUNT     [I]      candidates kept in each item's list
 *   LIST      [I K]    each item's candidates, nearest first (by distance at
 *                      the substep's start, then item number): the item in the
 *                      low 30 bits, the pair's side above (SINEW_SELF_SIDE_*:
 *                      the vertex against the triangle's plane; for two
 *                      edges, a0 - b0 against ea x eb)
 *   INC_START [N + 1]  each particle's correction slots in INC
 *   INC       [V + 3T + 2E]  slots of SELF_REAL's corrections: vertex v at v,
 *                      triangle t's corner j at V + 3t + j, edge e's end j
 *                      at V + 3T + 2e + j
 *
 * A particle's sweep is how far the substep's prediction moves it (PREV to
 * POS, h v + h^2 g; 0 pinned); the common sweep is the free particles'
 * mean, an item's sweep its particles' mean, its spread their largest
 * distance from it. SELF_REAL (vec4): per item 4 (other bodies' items
 * included), its box (over its
 * particles at PREV and moved by their sweeps less the common one, grown by
 * half the reach (SINEW_SELF_REACH thicknesses); min with w the spread, max), its sweep, and a ball
 * holding its particles at PREV (centre, radius: a first distance test);
 * then the
 * workgroups' partial sums of the sweeps (REAL_PARTIAL), the rest positions
 * (REAL_REST: pairs nearer than the thickness at rest never collide),
 * then from REAL_DELTA the corrections of the slots above (xyz the sum over
 * the item's active contacts, w how many), then from REAL_GHOST the other
 * bodies' positions (below).
 */
#ifndef SINEW_SHADER_SELFCOL_H
#define SINEW_SHADER_SELFCOL_H

#define SINEW_SELF_HEADER 48
#define SINEW_SELF_ITEM_VEC4S 4u /* SELF_REAL's vec4s per item */
#define SINEW_SELF_V 0
#define SINEW_SELF_T 1
#define SINEW_SELF_E 2
#define SINEW_SELF_K 3          /* candidates kept per item */
#define SINEW_SELF_H 4          /* buckets, a power of two */
#define SINEW_SELF_N 5          /* particles */
#define SINEW_SELF_THICKNESS 6  /* float bits (m) */
#define SINEW_SELF_FRICTION 7   /* float bits, Coulomb coefficient */
#define SINEW_SELF_CELL 8       /* float bits: the cell size (m), from the rest shape */
#define SINEW_SELF_VERTS 9      /* offsets */
#define SINEW_SELF_TRIS 10
#define SINEW_SELF_EDGES 11
#define SINEW_SELF_TABLE 12
#define SINEW_SELF_ITEMS 13
#define SINEW_SELF_KEYS 14
#define SINEW_SELF_COUNT 15
#define SINEW_SELF_LIST 16
#define SINEW_SELF_INC_START 17
#define SINEW_SELF_INC 18
#define SINEW_SELF_REAL_DELTA 19 /* in SELF_REAL, vec4s */
#define SINEW_SELF_REAL_PARTIAL 21 /* in SELF_REAL: each workgroup's sum of sweeps (xyz) and free particles (w) */
#define SINEW_SELF_ENTRIES 22   /* R: room for entries (items in cells) */
#define SINEW_SELF_TOTAL 23     /* entries this step (the scan's), room or not */
#define SINEW_SELF_COMMON 24    /* 3 float bits: the common sweep this step */
#define SINEW_SELF_REAL_REST 28 /* in SELF_REAL: the asset's rest positions */
/* Other bodies (sinew_body_set_contact_bodies): their surfaces are items
 * numbered after the body's own, [I, I + GV + GT + GE) (vertices, triangles,
 * edges), over particles numbered from N: particle N + j is
 * SELF_REAL[REAL_GHOST + j], the other bodies' positions one after another,
 * copied from their position buffers when the step begins and still
 * through it (inverse mass 0: they do not yield). They are in the hash and
 * never query; the body's own items are in it only when OWN is 1. */
#define SINEW_SELF_OWN 29       /* 1: the body's own pairs collide (desc.self_collision) */
#define SINEW_SELF_GV 30
#define SINEW_SELF_GT 31
#define SINEW_SELF_GE 32
#define SINEW_SELF_GVERTS 33    /* offsets, particles numbered from N */
#define SINEW_SELF_GTRIS 34
#define SINEW_SELF_GEDGES 35
#define SINEW_SELF_REAL_GHOST 36 /* in SELF_REAL, vec4s */
#define SINEW_SELF_GN 37        /* the other bodies' particles */
/* Bodies of a world (src/world.c): where each particle's body index lies
 * (N + GN words: the chain's own particles, then the other chains'), 0 when
 * the chain is one body and every pair of it may collide; and each body's
 * filter (3 words a body: its category bits, its mask bits, 1 when its own
 * pairs collide). Two bodies collide when each one's category meets the
 * other's mask. */
#define SINEW_SELF_BODY 38
#define SINEW_SELF_FILTER 39

/* Pairs nearer than this many thicknesses (plus how far their predicted
 * motions may bring them together) when a substep begins are candidates:
 * one thickness is the contact, the rest a margin for the solver's own
 * motion within the substep. Each item's box is grown by half of it. */
#define SINEW_SELF_REACH 1.5

/* How far outside its triangle (in barycentric terms) a vertex's projection
 * may fall and the vertex still be held by it: a vertex right above a vertex
 * or an edge of the layer below (aligned layers) falls on the triangles'
 * borders, where rounding would otherwise leave it held by none. */
#define SINEW_SELF_BARY_SLACK 0.02

/* A candidate's side: kept from the substep's start (the pair face to face
 * then), or FREE (not face to face then): the side it is on when projected. */
#define SINEW_SELF_SIDE_SHIFT 30
#define SINEW_SELF_ITEM_MASK 0x3FFFFFFFu
#define SINEW_SELF_SIDE_ABOVE 0u
#define SINEW_SELF_SIDE_BELOW 1u
#define SINEW_SELF_SIDE_FREE 2u

/* An item whose box overlaps more cells than this along an axis or in all
 * goes in none and is counted as dropped; the room for entries is this
 * many per item on average (a box at rest overlaps at most 8). */
#define SINEW_SELF_MAX_CELLS 64
#define SINEW_SELF_ENTRIES_PER_ITEM 8

/* Most candidates an item keeps (desc.self_capacity), and most items one
 * query looks at before it gives up (the rest counted as dropped). */
#define SINEW_SELF_MAX_CAPACITY 32
#define SINEW_SELF_SCAN_LIMIT 4096

/* the self-collision kernels' modes (GpuRange.first2), one dispatch each, in order:
 * the first seven after each substep's prediction, PROJECT each iteration. */
#define SINEW_SELF_SWEEP 0u     /* per workgroup the sum of its particles' sweeps; the table cleared */
#define SINEW_SELF_COMMON_SWEEP 1u /* one workgroup: the mean sweep */
#define SINEW_SELF_BOUNDS 2u    /* each item's box, spread and sweep */
#define SINEW_SELF_COUNT_ITEMS 3u /* entries per bucket: each item in each cell its box overlaps */
#define SINEW_SELF_SCAN 4u      /* one workgroup: buckets' ends */
#define SINEW_SELF_SCATTER 5u   /* the entries into their buckets */
#define SINEW_SELF_QUERY 6u     /* each item's candidate list */
#define SINEW_SELF_PROJECT 7u   /* each item's contacts into its correction slots */

#endif
