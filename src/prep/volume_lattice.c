/* The lattice tetrahedralisation of the solid a surface bounds: the cubes of
 * a regular lattice whose centres lie inside it, each split into
 * sinew_volume_box's six tetrahedra, the corners on the solid's boundary
 * moved onto the surface where the tetrahedra stay well shaped.
 *
 * Inside is the generalised winding number (Jacobson et al. 2013,
 * surface_tree.c) at the cube's centre, >= 1/2: a surface need not be closed,
 * manifold or free of self-intersections, as real scans and game models are
 * not. Faces are first oriented consistently (each part of the surface the
 * way most of its faces already run, then all of them outward when the
 * enclosed volume comes out negative). Away from the surface the winding
 * number changes slowly: a block of cubes that no triangle comes near takes
 * the value at its centre unless that is within 1/4 of 1/2 (an opening's
 * span), so the cost grows with the cubes the surface and its openings pass
 * through, not with all of them.
 *
 * Parts thinner than a cube (ears, fingers, a tail, a sheet of cloth sewn
 * on) have no cube centre inside them. Where the boundary follows the
 * surface they are kept: every cube holding a
 * point of the surface farther than half a cube from the cubes inside joins
 * them, and from those the cubes the surface runs through join too until
 * they reach the cubes inside, so that a thin part stays attached to the
 * body it grows from.
 *
 * The boundary's corners, once on the surface, cut across its convex parts,
 * leaving about half the surface's vertices just outside. Where a render
 * mesh is to be embedded in the tetrahedra (SINEW_LATTICE_COVER), the
 * tetrahedra hold every vertex of the surface instead: the cube each vertex
 * lies in is kept too, and a corner moves onto the surface only as far as
 * every vertex its tetrahedra hold stays in one of them, and each keeps 0.3
 * of a lattice tetrahedron's shape (volume over longest edge cubed: below
 * it a coarse covered elephant kept jiggling on the ground). What holding
 * costs is volume beyond the surface where it is convex, about a cube's
 * edge at most and on average much less; the log says how much. */
#include "volume.h"
#include "surface_tree.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define BLOCK 4u             /* cubes per side of a block that may share one winding number */
#define SNAP_KEEP 0.25       /* a moved corner keeps its tetrahedra above this fraction of their volume */
#define THIN_REACH 0.5       /* cubes: surface farther than this from the cubes inside is a thin part */
#define HOLD_PASSES 3        /* covering: passes of moving the boundary onto the surface */
#define HOLD_SHAPE 0.3       /* covering: a moved corner keeps this of a lattice tetrahedron's shape */
#define LATTICE_SHAPE (1.0 / (6.0 * 3.0 * 1.7320508075688772)) /* h^3 / 6 over (h sqrt 3)^3 */
#define HOLD_SLACK 1e-9      /* of a tetrahedron's volume: a vertex on a face is held by the tetrahedron */
/* A surface encloses a volume when the surface passes through at least this
 * fraction of the boundary faces of the cubes inside, and their winding
 * number is at least this on average: a box without its lid has 0.83 and
 * 0.83, a terrain with peaks 0.76 and 0.66, a mask 0.56 and 0.59. */
#define MIN_ENCLOSED 0.75

typedef struct lattice {
    double lo[3], h;  /* corner (i, j, k) = lo + (i, j, k) h */
    uint32_t n[3];    /* cubes along each axis */
} lattice;

/* ------------------------------------------------------------ orientation */

static void reverse_face(sinew_mesh *m, uint32_t f)
{
    uint32_t *idx = m->face_indices + m->face_offsets[f];
    for (uint32_t i = 1, j = m->face_offsets[f + 1] - m->face_offsets[f] - 1; i < j; i++, j--) {
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* Orients m's faces in place: across every edge of exactly two faces the two
 * run it in opposite directions where the surface allows (a Moebius band
 * does not); each connected part keeps the orientation most of its faces
 * had; then all faces turn over if the enclosed volume is negative. Counts
 * the faces turned. 0 when out of memory. */
static int orient(sinew_mesh *m, uint32_t *turned)
{
    const size_t n = m->face_offsets[m->face_count];
    sinew_half_edge *h = malloc(sizeof *h * (n + 1));
    uint32_t *adj_start = calloc((size_t)m->face_count + 1, sizeof *adj_start);
    uint32_t *adj = malloc(sizeof *adj * 2 * (n + 1)), *queue = malloc(sizeof *queue * ((size_t)m->face_count + 1));
    uint8_t *flip = calloc((size_t)m->face_count + 1, 1), *seen = calloc((size_t)m->face_count + 1, 1);
    int ok = h && adj_start && adj && queue && flip && seen;
    *turned = 0;
    if (ok) {
        const size_t e = sinew_surface_half_edges(m, h);
        /* Faces across manifold edges, CSR; bit 31 of an entry: same direction. */
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i + 1 < e; i++) {
                if (h[i].key != h[i + 1].key || (i > 0 && h[i - 1].key == h[i].key) ||
                    (i + 2 < e && h[i + 2].key == h[i].key) || h[i].face == h[i + 1].face)
                    continue;
                uint32_t same = h[i].forward == h[i + 1].forward ? 1u << 31 : 0u;
                if (pass == 0) {
                    adj_start[h[i].face + 1]++;
                    adj_start[h[i + 1].face + 1]++;
                } else {
                    adj[adj_start[h[i].face]++] = h[i + 1].face | same;
                    adj[adj_start[h[i + 1].face]++] = h[i].face | same;
                }
            }
            if (pass == 0)
                for (uint32_t f = 0; f < m->face_count; f++)
                    adj_start[f + 1] += adj_start[f];
            else
                for (uint32_t f = m->face_count; f > 0; f--)
                    adj_start[f] = adj_start[f - 1];
            if (pass == 1)
                adj_start[0] = 0;
        }
        for (uint32_t seed = 0; seed < m->face_count; seed++) {
            if (seen[seed])
                continue;
            uint32_t head = 0, tail = 0, flipped = 0;
            queue[tail++] = seed;
            seen[seed] = 1;
            while (head < tail) {
                uint32_t f = queue[head++];
                flipped += flip[f];
                for (uint32_t j = adj_start[f]; j < adj_start[f + 1]; j++) {
                    uint32_t g = adj[j] & 0x7fffffffu;
                    if (!seen[g]) {
                        seen[g] = 1;
                        flip[g] = (uint8_t)(flip[f] ^ (adj[j] >> 31));
                        queue[tail++] = g;
                    }
                }
            }
            if (2 * flipped > tail) /* the part's majority keeps its orientation */
                for (uint32_t i = 0; i < tail; i++)
                    flip[queue[i]] ^= 1u;
        }
        for (uint32_t f = 0; f < m->face_count; f++)
            if (flip[f]) {
                reverse_face(m, f);
                (*turned)++;
            }
        if (sinew_surface_enclosed_volume(m) < 0.0) {
            for (uint32_t f = 0; f < m->face_count; f++)
                reverse_face(m, f);
            *turned = m->face_count - *turned;
        }
    }
    free(h);
    free(adj_start);
    free(adj);
    free(queue);
    free(flip);
    free(seen);
    return ok;
}

/* ------------------------------------------------------------ inside */

/* A cube's centre, nudged off it by fixed irrational fractions of a cube's
 * edge: a flat or axis-aligned surface (a sheet in a lattice one cube thick,
 * a box on the lattice's planes) would otherwise pass exactly through
 * centres, where the winding number is +-1/2 by rounding alone. */
static void cube_centre(const lattice *L, uint32_t i, uint32_t j, uint32_t k, double c[3])
{
    c[0] = L->lo[0] + (i + 0.5 + 0.000577350269190) * L->h;
    c[1] = L->lo[1] + (j + 0.5 + 0.000414213562373) * L->h;
    c[2] = L->lo[2] + (k + 0.5 + 0.000732050807569) * L->h;
}

/* inside[cube] = winding number >= 1/2 at its centre; the largest winding
 * number met into *largest, the mean over the cubes inside into *mean.
 * Returns the cubes inside. */
static uint64_t mark_inside(const sinew_surface_tree *tree, const lattice *L, uint8_t *inside, double *largest,
                            double *mean)
{
    uint64_t count = 0;
    double sum = 0.0;
    *largest = -HUGE_VAL;
    for (uint32_t bk = 0; bk < L->n[2]; bk += BLOCK)
        for (uint32_t bj = 0; bj < L->n[1]; bj += BLOCK)
            for (uint32_t bi = 0; bi < L->n[0]; bi += BLOCK) {
                const uint32_t b0[3] = {bi, bj, bk};
                uint32_t b1[3];
                double lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    b1[a] = b0[a] + BLOCK < L->n[a] ? b0[a] + BLOCK : L->n[a];
                    lo[a] = L->lo[a] + (b0[a] - 0.5) * L->h;
                    hi[a] = L->lo[a] + (b1[a] + 0.5) * L->h;
                }
                int near = sinew_surface_touches_box(tree, lo, hi);
                double shared = 0.0;
                if (!near) {
                    const double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
                    shared = sinew_surface_winding(tree, c);
                    /* Across an opening the level 1/2 passes far from any
                     * triangle: there each cube decides for itself. */
                    near = fabs(shared - 0.5) < 0.25;
                }
                for (uint32_t k = b0[2]; k < b1[2]; k++)
                    for (uint32_t j = b0[1]; j < b1[1]; j++)
                        for (uint32_t i = b0[0]; i < b1[0]; i++) {
                            double w = shared;
                            if (near) {
                                double c[3];
                                cube_centre(L, i, j, k, c);
                                w = sinew_surface_winding(tree, c);
                            }
                            *largest = fmax(*largest, w);
                            uint8_t in = w >= 0.5;
                            inside[((size_t)k * L->n[1] + j) * L->n[0] + i] = in;
                            count += in;
                            sum += in ? w : 0.0;
                        }
            }
    *mean = count ? sum / (double)count : 0.0;
    return count;
}

/* The fraction of the kept cubes' boundary faces that the surface passes
 * through: it meets the segment from the kept cube's centre to the left-out
 * neighbour's. Where the winding number's solid is bounded by no surface
 * (spanning a hole, the open side of a bowl, the hollow under a sheet), it
 * does not. */
static double coverage(const sinew_surface_tree *tree, const lattice *L, const uint8_t *inside)
{
    uint64_t faces = 0, near = 0;
    for (uint32_t k = 0; k < L->n[2]; k++)
        for (uint32_t j = 0; j < L->n[1]; j++)
            for (uint32_t i = 0; i < L->n[0]; i++) {
                if (!inside[((size_t)k * L->n[1] + j) * L->n[0] + i])
                    continue;
                const uint32_t ijk[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    for (int side = -1; side <= 1; side += 2) {
                        uint32_t n[3] = {i, j, k};
                        int beyond = (side < 0 && ijk[a] == 0) || (side > 0 && ijk[a] + 1 == L->n[a]);
                        n[a] += (uint32_t)side;
                        if (!beyond && inside[((size_t)n[2] * L->n[1] + n[1]) * L->n[0] + n[0]])
                            continue;
                        double c[3], d[3];
                        cube_centre(L, i, j, k, c);
                        memcpy(d, c, sizeof d);
                        d[a] += side * L->h;
                        faces++;
                        near += sinew_surface_crosses(tree, c, d);
                    }
            }
    return faces ? (double)near / (double)faces : 0.0;
}

/* ------------------------------------------------------------ thin parts */

/* The cube holding p (clamped into the lattice). */
static size_t cube_of(const lattice *L, const double p[3], uint32_t c[3])
{
    for (int a = 0; a < 3; a++) {
        double x = floor((p[a] - L->lo[a]) / L->h);
        c[a] = x < 0.0 ? 0 : x >= L->n[a] ? L->n[a] - 1 : (uint32_t)x;
    }
    return ((size_t)c[2] * L->n[1] + c[1]) * L->n[0] + c[0];
}

/* The distance from p to the nearest cube marked in `kept` among the 27
 * around cube c; INFINITY when none is. */
static double near_kept(const lattice *L, const uint8_t *kept, const double p[3], const uint32_t c[3])
{
    double best = INFINITY;
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                const int64_t q[3] = {(int64_t)c[0] + di, (int64_t)c[1] + dj, (int64_t)c[2] + dk};
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= L->n[0] || q[1] >= L->n[1] || q[2] >= L->n[2] ||
                    !kept[((size_t)q[2] * L->n[1] + (size_t)q[1]) * L->n[0] + (size_t)q[0]])
                    continue;
                double d2 = 0.0;
                for (int a = 0; a < 3; a++) {
                    double lo = L->lo[a] + q[a] * L->h, hi = lo + L->h;
                    double e = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0.0;
                    d2 += e * e;
                }
                best = fmin(best, sqrt(d2));
            }
    return best;
}

/* Samples of every face of the surface no farther apart than half a cube
 * (each polygon fanned into triangles, a barycentric grid on each), passed
 * to visit(p, user). */
static void sample_surface(const sinew_mesh *m, double spacing, void (*visit)(const double p[3], void *user),
                           void *user)
{
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *idx = m->face_indices + m->face_offsets[f];
        const uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        for (uint32_t t = 1; t + 1 < k; t++) {
            const double *a = m->positions + 3 * (size_t)idx[0], *b = m->positions + 3 * (size_t)idx[t],
                         *c = m->positions + 3 * (size_t)idx[t + 1];
            double longest = 0.0;
            for (int e = 0; e < 3; e++) {
                const double *u = e == 0 ? a : e == 1 ? b : c, *v = e == 0 ? b : e == 1 ? c : a;
                longest = fmax(longest, sqrt((u[0] - v[0]) * (u[0] - v[0]) + (u[1] - v[1]) * (u[1] - v[1]) +
                                             (u[2] - v[2]) * (u[2] - v[2])));
            }
            const double steps = ceil(longest / spacing);
            const uint32_t n = steps < 1.0 ? 1u : steps > 4096.0 ? 4096u : (uint32_t)steps;
            for (uint32_t i = 0; i <= n; i++)
                for (uint32_t j = 0; i + j <= n; j++) {
                    const double wb = (double)i / n, wc = (double)j / n, wa = 1.0 - wb - wc;
                    const double p[3] = {wa * a[0] + wb * b[0] + wc * c[0], wa * a[1] + wb * b[1] + wc * c[1],
                                         wa * a[2] + wb * b[2] + wc * c[2]};
                    visit(p, user);
                }
        }
    }
}

typedef struct thin_pass {
    const lattice *L;
    const uint8_t *inside;
    uint8_t *mark; /* bit 0: the surface runs through the cube; bit 1: a sample in it lies far from inside */
} thin_pass;

static void visit_sample(const double p[3], void *user)
{
    thin_pass *t = user;
    uint32_t c[3];
    const size_t q = cube_of(t->L, p, c);
    t->mark[q] |= 1;
    if (!t->inside[q] && near_kept(t->L, t->inside, p, c) > THIN_REACH * t->L->h)
        t->mark[q] |= 2;
}

/* Keeps the thin parts (see the top of the file): marks the cubes they add
 * in `inside` (value 2) and returns how many. 0 cubes and *ok 0 when out of
 * memory. */
static uint64_t keep_thin_parts(const sinew_mesh *surface, const lattice *L, uint8_t *inside, int *ok)
{
    const size_t cubes = (size_t)L->n[0] * L->n[1] * L->n[2];
    uint8_t *mark = calloc(cubes + 1, 1);
    size_t *queue = malloc(sizeof *queue * (cubes + 1));
    *ok = mark && queue;
    uint64_t added = 0;
    if (*ok) {
        thin_pass t = {L, inside, mark};
        sample_surface(surface, 0.5 * L->h, visit_sample, &t);
        size_t head = 0, tail = 0;
        for (size_t q = 0; q < cubes; q++)
            if (mark[q] & 2) {
                inside[q] = 2;
                queue[tail++] = q;
                added++;
            }
        /* From each, along the cubes the surface runs through, to the cubes
         * inside: a cube next to one inside is the last of its way. */
        while (head < tail) {
            const size_t q = queue[head++];
            const uint32_t c[3] = {(uint32_t)(q % L->n[0]), (uint32_t)(q / L->n[0] % L->n[1]),
                                   (uint32_t)(q / ((size_t)L->n[0] * L->n[1]))};
            for (int dk = -1; dk <= 1; dk++)
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        const int64_t n[3] = {(int64_t)c[0] + di, (int64_t)c[1] + dj, (int64_t)c[2] + dk};
                        if (n[0] < 0 || n[1] < 0 || n[2] < 0 || n[0] >= L->n[0] || n[1] >= L->n[1] || n[2] >= L->n[2])
                            continue;
                        const size_t r = ((size_t)n[2] * L->n[1] + (size_t)n[1]) * L->n[0] + (size_t)n[0];
                        if (inside[r] || !(mark[r] & 1))
                            continue;
                        inside[r] = 2;
                        added++;
                        const uint32_t nc[3] = {(uint32_t)n[0], (uint32_t)n[1], (uint32_t)n[2]};
                        /* next to a cube inside by its centre: arrived */
                        int arrived = 0;
                        for (int dz = -1; dz <= 1 && !arrived; dz++)
                            for (int dy = -1; dy <= 1 && !arrived; dy++)
                                for (int dx = -1; dx <= 1 && !arrived; dx++) {
                                    const int64_t m[3] = {(int64_t)nc[0] + dx, (int64_t)nc[1] + dy, (int64_t)nc[2] + dz};
                                    if (m[0] >= 0 && m[1] >= 0 && m[2] >= 0 && m[0] < L->n[0] && m[1] < L->n[1] &&
                                        m[2] < L->n[2])
                                        arrived = inside[((size_t)m[2] * L->n[1] + (size_t)m[1]) * L->n[0] +
                                                         (size_t)m[0]] == 1;
                                }
                        if (!arrived)
                            queue[tail++] = r;
                    }
        }
    }
    free(mark);
    free(queue);
    return added;
}

/* ------------------------------------------------------------ what stays outside */

/* The tetrahedra's boundary as a surface over v's positions (offsets and
 * indices malloc'd into *out; free them). 0 when out of memory. */
static int tet_boundary(const sinew_volume *v, sinew_mesh *out)
{
    const size_t n = 4 * (size_t)v->tet_count;
    uint32_t *offsets = malloc(sizeof *offsets * (n + 1)), *indices = malloc(sizeof *indices * 3 * (n + 1));
    uint32_t count = 0;
    memset(out, 0, sizeof *out);
    if (!offsets || !indices || !sinew_tet_boundary(v->tets, v->tet_count, indices, &count, NULL)) {
        free(offsets);
        free(indices);
        return 0;
    }
    for (uint32_t t = 0; t <= count; t++)
        offsets[t] = 3 * t;
    *out = (sinew_mesh){v->vertex_count, v->positions, count, offsets, indices};
    return 1;
}

/* Each tetrahedron's corners' lists of the tetrahedra they belong to (CSR). */
typedef struct corner_tets {
    uint32_t *start, *list;
} corner_tets;

static int corner_tets_build(const sinew_volume *v, corner_tets *c)
{
    const uint32_t nv = v->vertex_count, nt = v->tet_count;
    c->start = calloc((size_t)nv + 1, sizeof *c->start);
    c->list = malloc(sizeof *c->list * 4 * (size_t)nt + 1);
    if (!c->start || !c->list)
        return 0;
    for (size_t q = 0; q < 4 * (size_t)nt; q++)
        c->start[v->tets[q] + 1]++;
    for (uint32_t i = 0; i < nv; i++)
        c->start[i + 1] += c->start[i];
    for (size_t q = 0; q < 4 * (size_t)nt; q++)
        c->list[c->start[v->tets[q]]++] = (uint32_t)(q / 4);
    for (uint32_t i = nv; i > 0; i--)
        c->start[i] = c->start[i - 1];
    c->start[0] = 0;
    return 1;
}

static void corner_tets_free(corner_tets *c)
{
    free(c->start);
    free(c->list);
}

/* Moves corner i to `to` unless a tetrahedron of it would keep less than
 * floor_volume, or less than min_shape times its longest edge cubed: 1 when
 * moved. */
static int move_corner(sinew_volume *v, const corner_tets *c, uint32_t i, const double to[3], double floor_volume,
                       double min_shape)
{
    double *p = v->positions + 3 * (size_t)i, was[3];
    memcpy(was, p, sizeof was);
    memcpy(p, to, sizeof was);
    for (uint32_t j = c->start[i]; j < c->start[i + 1]; j++) {
        const uint32_t *t = v->tets + 4 * (size_t)c->list[j];
        const double *x = v->positions;
        const double volume = sinew_tet_signed_volume(x + 3 * (size_t)t[0], x + 3 * (size_t)t[1],
                                                      x + 3 * (size_t)t[2], x + 3 * (size_t)t[3]);
        double longest2 = 0.0;
        for (int a = 0; a < 4 && min_shape > 0.0; a++)
            for (int b = a + 1; b < 4; b++) {
                const double *u = x + 3 * (size_t)t[a], *w = x + 3 * (size_t)t[b];
                longest2 = fmax(longest2, (u[0] - w[0]) * (u[0] - w[0]) + (u[1] - w[1]) * (u[1] - w[1]) +
                                              (u[2] - w[2]) * (u[2] - w[2]));
            }
        if (volume < floor_volume || volume < min_shape * longest2 * sqrt(longest2)) {
            memcpy(p, was, sizeof was);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ holding the surface's vertices */

/* When covering, which tetrahedron holds each of the surface's vertices:
 * per tetrahedron a list of its vertices (head, next), and room for the
 * vertices of one corner's tetrahedra and where they go. */
typedef struct hold {
    const double *points;      /* the surface's positions */
    uint32_t *head, *next;     /* tetrahedron -> its first vertex, vertex -> the next; NONE ends */
    uint32_t *star, *place;    /* scratch, a vertex count each */
} hold;

/* Whether tetrahedron t holds p: its four barycentric volumes are at least
 * -HOLD_SLACK of its volume. */
static int tet_holds(const sinew_volume *v, uint32_t t, const double p[3])
{
    const uint32_t *q = v->tets + 4 * (size_t)t;
    const double *x[4] = {v->positions + 3 * (size_t)q[0], v->positions + 3 * (size_t)q[1],
                          v->positions + 3 * (size_t)q[2], v->positions + 3 * (size_t)q[3]};
    const double slack = -HOLD_SLACK * sinew_tet_signed_volume(x[0], x[1], x[2], x[3]);
    for (int k = 0; k < 4; k++) {
        const double *y[4] = {x[0], x[1], x[2], x[3]};
        y[k] = p;
        if (sinew_tet_signed_volume(y[0], y[1], y[2], y[3]) < slack)
            return 0;
    }
    return 1;
}

/* The tetrahedron of corner i that holds p, or NONE. */
static uint32_t holder(const sinew_volume *v, const corner_tets *c, uint32_t i, const double p[3])
{
    for (uint32_t j = c->start[i]; j < c->start[i + 1]; j++)
        if (tet_holds(v, c->list[j], p))
            return c->list[j];
    return NONE;
}

static void hold_free(hold *h)
{
    free(h->head);
    free(h->next);
    free(h->star);
    free(h->place);
}

/* Each used vertex of the surface into the tetrahedron of its cube that
 * holds it (every such cube is kept when covering); base(cube) is the
 * corner its six tetrahedra share. *unheld counts the vertices no
 * tetrahedron held (none, barring rounding). 0 when out of memory. */
static int hold_build(const sinew_volume *v, const corner_tets *ct, const lattice *L, const uint32_t *map,
                      const sinew_mesh *surface, const uint8_t *used, hold *h, uint32_t *unheld)
{
    const size_t n = surface->vertex_count;
    h->points = surface->positions;
    h->head = malloc(sizeof *h->head * ((size_t)v->tet_count + 1));
    h->next = malloc(sizeof *h->next * (n + 1));
    h->star = malloc(sizeof *h->star * (n + 1));
    h->place = malloc(sizeof *h->place * (n + 1));
    if (!h->head || !h->next || !h->star || !h->place)
        return 0;
    memset(h->head, 0xff, sizeof *h->head * v->tet_count);
    *unheld = 0;
    const size_t nx = L->n[0] + 1, ny = L->n[1] + 1;
    for (uint32_t i = 0; i < n; i++) {
        if (!used[i])
            continue;
        const double *p = surface->positions + 3 * (size_t)i;
        uint32_t c[3];
        cube_of(L, p, c);
        const uint32_t base = map[((size_t)c[2] * ny + c[1]) * nx + c[0]];
        const uint32_t t = base == NONE ? NONE : holder(v, ct, base, p);
        if (t == NONE) {
            ++*unheld;
            continue;
        }
        h->next[i] = h->head[t];
        h->head[t] = i;
    }
    return 1;
}

/* Whether corner i, just moved, still holds every vertex its tetrahedra
 * held (gathered into h->star, `count` of them): if so, each goes to the
 * tetrahedron now holding it. */
static int still_held(const sinew_volume *v, const corner_tets *ct, uint32_t i, hold *h, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        if ((h->place[k] = holder(v, ct, i, h->points + 3 * (size_t)h->star[k])) == NONE)
            return 0;
    for (uint32_t j = ct->start[i]; j < ct->start[i + 1]; j++)
        h->head[ct->list[j]] = NONE;
    for (uint32_t k = 0; k < count; k++) {
        h->next[h->star[k]] = h->head[h->place[k]];
        h->head[h->place[k]] = h->star[k];
    }
    return 1;
}

/* The surface's vertices (those a face uses) outside v's tetrahedra (inside: the winding number
 * of their boundary is at least 1/2; on the boundary within rounding counts
 * as inside) into *outside, the farthest's distance into *worst (INFINITY:
 * beyond reach). 0 when out of memory. */
static int outside_pass(const sinew_volume *v, const sinew_mesh *surface, const uint8_t *used, double reach,
                        uint32_t *outside, double *worst)
{
    sinew_mesh boundary;
    if (!tet_boundary(v, &boundary))
        return 0;
    sinew_surface_tree *tree = boundary.face_count ? sinew_surface_tree_build(&boundary) : NULL;
    int ok = tree || !boundary.face_count;
    *outside = 0;
    *worst = 0.0;
    for (uint32_t i = 0; ok && tree && i < surface->vertex_count; i++) {
        const double *p = surface->positions + 3 * (size_t)i;
        if (!used[i] || sinew_surface_winding(tree, p) >= 0.5)
            continue;
        double q[3], d = INFINITY;
        uint32_t tri = 0;
        if (!sinew_surface_closest_triangle(tree, p, reach, q, &d, &tri))
            d = INFINITY;
        if (d <= 1e-9 * reach) /* on the boundary, as far as rounding can tell */
            continue;
        ++*outside;
        *worst = fmax(*worst, d);
    }
    sinew_surface_tree_destroy(tree);
    free(boundary.face_offsets);
    free(boundary.face_indices);
    return ok;
}

/* ------------------------------------------------------------ following the surface */

/* Each corner with kept and left-out cubes around it (in index order) moves
 * to the surface's closest point within a cube's edge, or half or a quarter
 * of the way there, whichever first keeps every tetrahedron it belongs to
 * above SNAP_KEEP of its volume and, with h, every vertex of the surface
 * they held in one of them. Returns the corners moved. */
static uint32_t follow_surface(const sinew_surface_tree *tree, const lattice *L, const uint8_t *boundary,
                               sinew_volume *v, const corner_tets *ct, hold *h)
{
    const double floor_volume = SNAP_KEEP * L->h * L->h * L->h / 6.0;
    uint32_t moved = 0;
    for (uint32_t i = 0; i < v->vertex_count; i++) {
        double *p = v->positions + 3 * (size_t)i, q[3];
        if (!boundary[i] || !sinew_surface_closest(tree, p, h ? 2.0 * L->h : L->h, q, NULL))
            continue;
        uint32_t count = 0;
        for (uint32_t j = 0; h && j < ct->start[i + 1] - ct->start[i]; j++)
            for (uint32_t k = h->head[ct->list[ct->start[i] + j]]; k != NONE; k = h->next[k])
                h->star[count++] = k;
        const double was[3] = {p[0], p[1], p[2]};
        /* Holding, finer steps: a vertex may stop the larger ones. */
        static const double plain[] = {1.0, 0.5, 0.25}, holding[] = {1.0, 0.75, 0.5, 0.25, 0.125};
        const double *fractions = h ? holding : plain;
        int kept = 0;
        for (int f = 0; f < (h ? 5 : 3) && !kept; f++) {
            const double to[3] = {was[0] + fractions[f] * (q[0] - was[0]), was[1] + fractions[f] * (q[1] - was[1]),
                                  was[2] + fractions[f] * (q[2] - was[2])};
            kept = move_corner(v, ct, i, to, floor_volume, h ? HOLD_SHAPE * LATTICE_SHAPE : 0.0);
            if (kept && h && !still_held(v, ct, i, h, count)) {
                memcpy(p, was, sizeof was);
                kept = 0;
            }
        }
        moved += (uint32_t)kept;
    }
    return moved;
}

/* ------------------------------------------------------------ the lattice */

sinew_result sinew_volume_lattice(const sinew_mesh *surface, uint32_t cells, int follow, const char *name,
                                  const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(surface && out && (surface->positions || surface->vertex_count == 0) &&
                 (surface->face_offsets || surface->face_count == 0));
    memset(out, 0, sizeof *out);
    name = name ? name : "surface";
    if (cells == 0 || cells > 1024)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: %u lattice cells along the longest side; 1 to 1024", name, cells);
    if (surface->face_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: no faces", name);
    for (uint32_t f = 0; f < surface->face_count; f++) {
        uint32_t begin = surface->face_offsets[f], end = surface->face_offsets[f + 1];
        if (end < begin + 3)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: face %u has fewer than 3 vertices", name,
                              f);
        for (uint32_t k = begin; k < end; k++)
            if (surface->face_indices[k] >= surface->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: face %u: vertex index %u out of range (%u vertices)", name, f,
                                  surface->face_indices[k], surface->vertex_count);
    }
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t v = 0; v < surface->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            double x = surface->positions[3 * (size_t)v + a];
            if (!isfinite(x))
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: vertex %u has a non-finite coordinate",
                                  name, v);
            lo[a] = fmin(lo[a], x);
            hi[a] = fmax(hi[a], x);
        }
    lattice L;
    L.h = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells;
    if (!(L.h > 0.0) || !isfinite(L.h))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: the surface has no extent", name);
    for (int a = 0; a < 3; a++) { /* the lattice centred on the bounding box */
        double n = ceil((hi[a] - lo[a]) / L.h - 1e-9);
        L.n[a] = n < 1.0 ? 1 : (uint32_t)n;
        L.lo[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * L.n[a] * L.h;
    }
    const uint32_t nx = L.n[0] + 1, ny = L.n[1] + 1, nz = L.n[2] + 1;
    const size_t cubes_all = (size_t)L.n[0] * L.n[1] * L.n[2], corners = (size_t)nx * ny * nz;
    if (corners > SINEW_VOLUME_MAX_VERTICES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: a lattice of %u x %u x %u cubes is too large (%zu corners, limit %u)", name, L.n[0],
                          L.n[1], L.n[2], corners, SINEW_VOLUME_MAX_VERTICES);
    sinew_mesh oriented = {surface->vertex_count, surface->positions, surface->face_count, surface->face_offsets,
                           malloc(sizeof(uint32_t) * ((size_t)surface->face_offsets[surface->face_count] + 1))};
    uint32_t *map = malloc(sizeof *map * corners);
    uint8_t *inside = calloc(cubes_all + 1, 1), *around = calloc(corners + 1, 1), *boundary = NULL, *used = NULL;
    sinew_surface_tree *tree = NULL;
    sinew_result r = SINEW_RESULT_OK;
    uint32_t turned = 0;
    if (oriented.face_indices)
        memcpy(oriented.face_indices, surface->face_indices,
               sizeof(uint32_t) * surface->face_offsets[surface->face_count]);
    if (!oriented.face_indices || !map || !inside || !around || !orient(&oriented, &turned) ||
        !(tree = sinew_surface_tree_build(&oriented))) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    if (turned)
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u faces turned over to orient the surface consistently",
                   name, turned, surface->face_count);
    double largest, mean;
    uint64_t cubes = mark_inside(tree, &L, inside, &largest, &mean);
    if (cubes == 0) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                       "%s: encloses no volume: no cube of a %u x %u x %u lattice has its centre inside (the largest "
                       "winding number there is %.2f, where a closed surface gives 1 inside and an open sheet less "
                       "than 0.5); %s",
                       name, L.n[0], L.n[1], L.n[2], largest,
                       cells < 1024 ? "an open sheet is cloth: leave out --tetrahedralise / --lattice, or try more cubes"
                                    : "an open sheet is cloth: leave out --tetrahedralise / --lattice");
        goto done;
    }
    const double covered = coverage(tree, &L, inside);
    if (covered < MIN_ENCLOSED || mean < MIN_ENCLOSED) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                       "%s: encloses no volume: it is open, and of the solid its winding number outlines (%llu of "
                       "%u x %u x %u lattice cubes) %.0f%% of the boundary lies on it, the rest spanning its "
                       "openings, with a winding number of %.2f on average inside (a closed surface or one with "
                       "small holes: %.0f%% and %.2f or more); an open sheet is cloth: leave out --tetrahedralise / "
                       "--lattice",
                       name, (unsigned long long)cubes, L.n[0], L.n[1], L.n[2], 100.0 * covered, mean,
                       100.0 * MIN_ENCLOSED, MIN_ENCLOSED);
        goto done;
    }
    int thin_ok;
    const int cover = (follow & SINEW_LATTICE_COVER) && (follow & SINEW_LATTICE_FOLLOW);
    follow &= SINEW_LATTICE_FOLLOW;
    const uint64_t thin = follow ? keep_thin_parts(surface, &L, inside, &thin_ok) : (thin_ok = 1, 0);
    if (!thin_ok) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    cubes += thin;
    /* Covering: the cube of every vertex a face uses joins them. */
    uint64_t holding = 0;
    if (!(used = calloc((size_t)surface->vertex_count + 1, 1))) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    uint32_t used_count = 0;
    for (uint32_t k = 0; k < surface->face_offsets[surface->face_count]; k++)
        used[surface->face_indices[k]] = 1;
    for (uint32_t i = 0; i < surface->vertex_count; i++)
        used_count += used[i];
    for (uint32_t i = 0; cover && i < surface->vertex_count; i++) {
        uint32_t c[3];
        const size_t q = cube_of(&L, surface->positions + 3 * (size_t)i, c);
        if (used[i] && !inside[q]) {
            inside[q] = 3;
            holding++;
        }
    }
    cubes += holding;
    if (6 * cubes > SINEW_VOLUME_MAX_TETS) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %llu lattice cubes make %llu tetrahedra, limit %u",
                       name, (unsigned long long)cubes, 6ull * cubes, SINEW_VOLUME_MAX_TETS);
        goto done;
    }
    /* The corners the kept cubes use, numbered in lattice order, and how
     * many kept cubes each has around it (8: an interior corner). */
    memset(map, 0xff, sizeof *map * corners);
    uint32_t vertices = 0;
    for (uint32_t k = 0; k < L.n[2]; k++)
        for (uint32_t j = 0; j < L.n[1]; j++)
            for (uint32_t i = 0; i < L.n[0]; i++)
                if (inside[((size_t)k * L.n[1] + j) * L.n[0] + i])
                    for (uint32_t c = 0; c < 8; c++) {
                        size_t q = ((size_t)(k + (c >> 2)) * ny + j + ((c >> 1) & 1u)) * nx + i + (c & 1u);
                        map[q] = 0;
                        around[q]++;
                    }
    for (size_t c = 0; c < corners; c++)
        if (map[c] == 0)
            map[c] = vertices++;
    out->positions = malloc(sizeof *out->positions * 3 * (size_t)vertices);
    out->tets = malloc(sizeof *out->tets * 4 * 6 * (size_t)cubes);
    boundary = malloc((size_t)vertices + 1);
    if (!out->positions || !out->tets || !boundary) {
        sinew_volume_free(out);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                size_t q = ((size_t)k * ny + j) * nx + i;
                uint32_t v = map[q];
                if (v == NONE)
                    continue;
                out->positions[3 * (size_t)v] = L.lo[0] + i * L.h;
                out->positions[3 * (size_t)v + 1] = L.lo[1] + j * L.h;
                out->positions[3 * (size_t)v + 2] = L.lo[2] + k * L.h;
                boundary[v] = around[q] < 8;
            }
    /* sinew_volume_box's six tetrahedra a cube (see there), through map. */
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const size_t stride[3] = {1, nx, (size_t)nx * ny};
    uint32_t *t = out->tets;
    for (uint32_t k = 0; k < L.n[2]; k++)
        for (uint32_t j = 0; j < L.n[1]; j++)
            for (uint32_t i = 0; i < L.n[0]; i++) {
                if (!inside[((size_t)k * L.n[1] + j) * L.n[0] + i])
                    continue;
                size_t base = ((size_t)k * ny + j) * nx + i;
                for (int p = 0; p < 6; p++) {
                    size_t v1 = base + stride[perms[p][0]], v2 = v1 + stride[perms[p][1]];
                    size_t v3 = base + stride[0] + stride[1] + stride[2];
                    int odd = p >= 3;
                    t[0] = map[base];
                    t[1] = map[odd ? v2 : v1];
                    t[2] = map[odd ? v1 : v2];
                    t[3] = map[v3];
                    t += 4;
                }
            }
    out->vertex_count = vertices;
    out->tet_count = (uint32_t)(6 * cubes);
    uint32_t moved = 0, unheld = 0;
    corner_tets ct = {0};
    hold h = {0};
    if (follow) {
        /* Onto the surface, holding its vertices when covering. */
        int ok = corner_tets_build(out, &ct) && (!cover || hold_build(out, &ct, &L, map, surface, used, &h, &unheld));
        for (int pass = 0; ok && pass < (cover ? HOLD_PASSES : 1); pass++) {
            const uint32_t now = follow_surface(tree, &L, boundary, out, &ct, cover ? &h : NULL);
            sinew_logf(lg, SINEW_LOG_DEBUG, "prep", "%s: pass %d: %u corners moved", name, pass + 1, now);
            moved = pass ? moved : now;
        }
        hold_free(&h);
        if (!ok) {
            corner_tets_free(&ct);
            sinew_volume_free(out);
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
            goto done;
        }
    }
    corner_tets_free(&ct);
    sinew_logf(lg, SINEW_LOG_INFO, "prep",
               "%s: %llu of %u x %u x %u lattice cubes (edge %.3g m) inside by winding number (%.2f on average); "
               "%.0f%% of their boundary on the surface",
               name, (unsigned long long)(cubes - thin), L.n[0], L.n[1], L.n[2], L.h, mean, 100.0 * covered);
    if (thin)
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %llu more cubes keep the parts thinner than a cube (the surface "
                   "farther than half a cube from those inside, and its way back to them)", name,
                   (unsigned long long)thin);
    if (holding) {
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %llu more cubes hold the surface's vertices, for the render "
                   "mesh embedded in the tetrahedra", name, (unsigned long long)holding);
        /* What holding costs: volume, and how far the boundary stands out. */
        double held = 0.0, beyond = 0.0;
        for (uint32_t e = 0; e < out->tet_count; e++) {
            const uint32_t *q = out->tets + 4 * (size_t)e;
            const double *x = out->positions;
            held += sinew_tet_signed_volume(x + 3 * (size_t)q[0], x + 3 * (size_t)q[1], x + 3 * (size_t)q[2],
                                            x + 3 * (size_t)q[3]);
        }
        for (uint32_t i = 0; i < vertices; i++) {
            double q[3], d = 0.0;
            const double *p = out->positions + 3 * (size_t)i;
            if (boundary[i] && sinew_surface_winding(tree, p) < 0.5 && sinew_surface_closest(tree, p, 2.0 * L.h, q, &d))
                beyond = fmax(beyond, d);
        }
        const double enclosed = sinew_surface_enclosed_volume(&oriented);
        char more[32] = "";
        if (enclosed > 0.0)
            snprintf(more, sizeof more, " (%+.0f%%)", 100.0 * (held / enclosed - 1.0));
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: holding them, the tetrahedra take %.3g m^3 where the surface "
                   "encloses %.3g m^3%s, their boundary at most %.3g m (%.2f cubes) beyond it", name, held, enclosed,
                   more, beyond, beyond / L.h);
    }
    if (unheld)
        sinew_logf(lg, SINEW_LOG_WARNING, "prep", "%s: %u of the surface's vertices lie in no tetrahedron of their cube "
                   "(rounding)", name, unheld);
    if (follow) {
        uint32_t on_boundary = 0;
        for (uint32_t v = 0; v < vertices; v++)
            on_boundary += boundary[v];
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u boundary corners moved onto the surface", name, moved,
                   on_boundary);
    }
    uint32_t outside;
    double farthest;
    if (!outside_pass(out, surface, used, 4.0 * L.h, &outside, &farthest)) {
        sinew_volume_free(out);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    if (isfinite(farthest))
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u surface vertices (%.2f%%) outside the tetrahedra, the "
                   "farthest %.3g m (%.2f cubes)", name, outside, used_count,
                   100.0 * outside / used_count, farthest, farthest / L.h);
    else
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u surface vertices (%.2f%%) outside the tetrahedra, the "
                   "farthest more than %.3g m (4 cubes)", name, outside, used_count,
                   100.0 * outside / used_count, 4.0 * L.h);
done:
    sinew_surface_tree_destroy(tree);
    free(oriented.face_indices);
    free(map);
    free(inside);
    free(around);
    free(boundary);
    free(used);
    return r;
}
