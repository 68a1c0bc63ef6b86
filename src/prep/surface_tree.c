/* A bounding-volume tree of a surface's triangles: the generalised winding
 * number (Jacobson, Kavan and Sorkine-Hornung, "Robust Inside-Outside
 * Segmentation using Generalized Winding Numbers", SIGGRAPH 2013) made fast
 * by the far field of clusters (Barill, Dickson, Schmidt, Levin and Jacobson,
 * "Fast Winding Numbers for Soups and Clouds", SIGGRAPH 2018, its first-order
 * dipole term), and closest points. Nodes split at the median of the longest
 * axis of their triangles' centroids; the tree is built and queried in a
 * fixed order, so every answer is the same on every run. */
#include "surface_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 8u
#define FAR_FACTOR 3.0 /* a cluster is far beyond this many radii: about 1 % error in all */
#define MAX_DEPTH 64

typedef struct tree_node {
    double lo[3], hi[3];   /* bounding box of the triangles' corners */
    double centre[3];      /* area-weighted centroid */
    double normal[3];      /* sum of the area vectors (1/2 (b - a) x (c - a)) */
    double radius;         /* from centre to the farthest corner */
    uint32_t first, count; /* leaf: its triangles; inner: count = 0 */
    uint32_t child[2];
} tree_node;

struct sinew_surface_tree {
    double *corners;  /* 9 per triangle */
    uint32_t *order;  /* triangles in leaf order */
    uint32_t triangle_count;
    tree_node *nodes;
    uint32_t node_count;
};

static const double *corner(const sinew_surface_tree *t, uint32_t tri, int k)
{
    return t->corners + 9 * (size_t)tri + 3 * k;
}

static void sub3(const double *a, const double *b, double *o)
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* A triangle and its centroid along the axis a node splits: qsort takes no
 * context, so the key travels with the triangle. */
typedef struct keyed {
    double key;
    uint32_t tri;
} keyed;

static int compare_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->tri > y->tri) - (x->tri < y->tri);
}

static void fit_node(sinew_surface_tree *t, tree_node *n)
{
    double area = 0.0;
    for (int k = 0; k < 3; k++) {
        n->lo[k] = HUGE_VAL;
        n->hi[k] = -HUGE_VAL;
        n->centre[k] = n->normal[k] = 0.0;
    }
    double mean[3] = {0, 0, 0};
    for (uint32_t i = n->first; i < n->first + n->count; i++) {
        uint32_t tri = t->order[i];
        const double *a = corner(t, tri, 0), *b = corner(t, tri, 1), *c = corner(t, tri, 2);
        double e1[3], e2[3], an[3];
        sub3(b, a, e1);
        sub3(c, a, e2);
        cross3(e1, e2, an);
        double w = 0.5 * sqrt(dot3(an, an));
        for (int k = 0; k < 3; k++) {
            n->normal[k] += 0.5 * an[k];
            double g = (a[k] + b[k] + c[k]) / 3.0;
            n->centre[k] += w * g;
            mean[k] += g;
            n->lo[k] = fmin(n->lo[k], fmin(a[k], fmin(b[k], c[k])));
            n->hi[k] = fmax(n->hi[k], fmax(a[k], fmax(b[k], c[k])));
        }
        area += w;
    }
    for (int k = 0; k < 3; k++)
        n->centre[k] = area > 0.0 ? n->centre[k] / area : mean[k] / n->count;
    n->radius = 0.0;
    for (uint32_t i = n->first; i < n->first + n->count; i++)
        for (int j = 0; j < 3; j++) {
            double d[3];
            sub3(corner(t, t->order[i], j), n->centre, d);
            n->radius = fmax(n->radius, sqrt(dot3(d, d)));
        }
}

sinew_surface_tree *sinew_surface_tree_build(const sinew_mesh *m)
{
    uint64_t triangles = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        triangles += k >= 3 ? k - 2 : 0;
    }
    if (triangles == 0 || triangles > UINT32_MAX / 4)
        return NULL;
    sinew_surface_tree *t = calloc(1, sizeof *t);
    double *centroids = NULL;
    uint32_t *stack = NULL;
    keyed *sorting = NULL;
    if (!t)
        return NULL;
    t->triangle_count = (uint32_t)triangles;
    t->corners = malloc(sizeof(double) * 9 * triangles);
    t->order = malloc(sizeof(uint32_t) * triangles);
    t->nodes = malloc(sizeof(tree_node) * 2 * triangles);
    centroids = malloc(sizeof(double) * 3 * triangles);
    stack = malloc(sizeof(uint32_t) * 2 * triangles);
    sorting = malloc(sizeof(keyed) * triangles);
    if (!t->corners || !t->order || !t->nodes || !centroids || !stack || !sorting)
        goto fail;
    uint32_t n = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *idx = m->face_indices + m->face_offsets[f];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        for (uint32_t i = 1; i + 1 < k; i++, n++) {
            const uint32_t v[3] = {idx[0], idx[i], idx[i + 1]};
            for (int c = 0; c < 3; c++)
                memcpy(t->corners + 9 * (size_t)n + 3 * c, m->positions + 3 * (size_t)v[c], sizeof(double) * 3);
            for (int a = 0; a < 3; a++)
                centroids[3 * (size_t)n + a] = (corner(t, n, 0)[a] + corner(t, n, 1)[a] + corner(t, n, 2)[a]) / 3.0;
            t->order[n] = n;
        }
    }
    /* Top-down: each node is fitted, then split at its median when large. */
    t->nodes[0] = (tree_node){.first = 0, .count = t->triangle_count};
    t->node_count = 1;
    uint32_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t id = stack[--top];
        tree_node *nd = &t->nodes[id];
        fit_node(t, nd);
        if (nd->count <= LEAF_SIZE)
            continue;
        double clo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, chi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
            for (int a = 0; a < 3; a++) {
                double c = centroids[3 * (size_t)t->order[i] + a];
                clo[a] = fmin(clo[a], c);
                chi[a] = fmax(chi[a], c);
            }
        int axis = 0;
        for (int a = 1; a < 3; a++)
            if (chi[a] - clo[a] > chi[axis] - clo[axis])
                axis = a;
        for (uint32_t i = 0; i < nd->count; i++) {
            uint32_t tri = t->order[nd->first + i];
            sorting[i] = (keyed){centroids[3 * (size_t)tri + axis], tri};
        }
        qsort(sorting, nd->count, sizeof(keyed), compare_keyed);
        for (uint32_t i = 0; i < nd->count; i++)
            t->order[nd->first + i] = sorting[i].tri;
        uint32_t half = nd->count / 2, l = t->node_count, r = t->node_count + 1;
        t->nodes[l] = (tree_node){.first = nd->first, .count = half};
        t->nodes[r] = (tree_node){.first = nd->first + half, .count = nd->count - half};
        nd->child[0] = l;
        nd->child[1] = r;
        nd->count = 0;
        t->node_count += 2;
        stack[top++] = r;
        stack[top++] = l;
    }
    free(centroids);
    free(stack);
    free(sorting);
    return t;
fail:
    free(centroids);
    free(stack);
    free(sorting);
    sinew_surface_tree_destroy(t);
    return NULL;
}

void sinew_surface_tree_destroy(sinew_surface_tree *t)
{
    if (!t)
        return;
    free(t->corners);
    free(t->order);
    free(t->nodes);
    free(t);
}

/* The signed solid angle of triangle abc seen from p (Van Oosterom and
 * Strackee 1983): positive when p lies behind it, on the side its normal
 * (b - a) x (c - a) points away from, as a point inside a closed surface
 * with outward normals does for every face. */
static double solid_angle(const double *a, const double *b, const double *c, const double *p)
{
    double x[3], y[3], z[3], yz[3];
    sub3(a, p, x);
    sub3(b, p, y);
    sub3(c, p, z);
    double lx = sqrt(dot3(x, x)), ly = sqrt(dot3(y, y)), lz = sqrt(dot3(z, z));
    cross3(y, z, yz);
    double num = dot3(x, yz);
    double den = lx * ly * lz + dot3(x, y) * lz + dot3(y, z) * lx + dot3(z, x) * ly;
    return 2.0 * atan2(num, den);
}

double sinew_surface_winding(const sinew_surface_tree *t, const double p[3])
{
    uint32_t stack[2 * MAX_DEPTH + 2], top = 0;
    double sum = 0.0;
    stack[top++] = 0;
    while (top > 0) {
        const tree_node *n = &t->nodes[stack[--top]];
        double d[3];
        sub3(n->centre, p, d);
        double r2 = dot3(d, d);
        if (r2 > FAR_FACTOR * FAR_FACTOR * n->radius * n->radius) {
            double r = sqrt(r2);
            sum += dot3(d, n->normal) / (r2 * r); /* the dipole: 4 pi times its winding number */
        } else if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; i++) {
                uint32_t tri = t->order[i];
                sum += solid_angle(corner(t, tri, 0), corner(t, tri, 1), corner(t, tri, 2), p);
            }
        } else if (top + 2 <= 2 * MAX_DEPTH + 2) {
            stack[top++] = n->child[1];
            stack[top++] = n->child[0];
        }
    }
    return sum / (4.0 * 3.14159265358979323846);
}

static double box_distance2(const tree_node *n, const double *p)
{
    double s = 0.0;
    for (int a = 0; a < 3; a++) {
        double d = p[a] < n->lo[a] ? n->lo[a] - p[a] : p[a] > n->hi[a] ? p[a] - n->hi[a] : 0.0;
        s += d * d;
    }
    return s;
}

/* The closest point of triangle abc to p (Ericson, Real-Time Collision
 * Detection, 5.1.5). */
static void closest_on_triangle(const double *a, const double *b, const double *c, const double *p, double *q)
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(p, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        memcpy(q, a, sizeof(double) * 3);
        return;
    }
    sub3(p, b, bp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        memcpy(q, b, sizeof(double) * 3);
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k];
        return;
    }
    sub3(p, c, cp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        memcpy(q, c, sizeof(double) * 3);
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double den = va + vb + vc;
    if (!(den > 0.0)) { /* a degenerate triangle: its first corner */
        memcpy(q, a, sizeof(double) * 3);
        return;
    }
    double v = vb / den, w = vc / den;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
}

int sinew_surface_closest(const sinew_surface_tree *t, const double p[3], double max_distance, double q[3],
                          double *distance)
{
    return sinew_surface_closest_triangle(t, p, max_distance, q, distance, NULL);
}

int sinew_surface_closest_triangle(const sinew_surface_tree *t, const double p[3], double max_distance, double q[3],
                                   double *distance, uint32_t *triangle)
{
    uint32_t stack[2 * MAX_DEPTH + 2], top = 0;
    double best = max_distance * max_distance;
    int found = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tree_node *n = &t->nodes[stack[--top]];
        if (box_distance2(n, p) > best)
            continue;
        if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; i++) {
                uint32_t tri = t->order[i];
                double c[3], d[3];
                closest_on_triangle(corner(t, tri, 0), corner(t, tri, 1), corner(t, tri, 2), p, c);
                sub3(c, p, d);
                double d2 = dot3(d, d);
                if (d2 <= best) {
                    best = d2;
                    memcpy(q, c, sizeof c);
                    found = 1;
                    if (triangle)
                        *triangle = tri;
                }
            }
        } else if (top + 2 <= 2 * MAX_DEPTH + 2) {
            const tree_node *a = &t->nodes[n->child[0]], *b = &t->nodes[n->child[1]];
            int near_first = box_distance2(a, p) <= box_distance2(b, p);
            stack[top++] = n->child[near_first ? 1 : 0]; /* the nearer child is visited first */
            stack[top++] = n->child[near_first ? 0 : 1];
        }
    }
    if (found && distance)
        *distance = sqrt(best);
    return found;
}

int sinew_surface_touches_box(const sinew_surface_tree *t, const double lo[3], const double hi[3])
{
    uint32_t stack[2 * MAX_DEPTH + 2], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tree_node *n = &t->nodes[stack[--top]];
        if (n->lo[0] > hi[0] || n->hi[0] < lo[0] || n->lo[1] > hi[1] || n->hi[1] < lo[1] || n->lo[2] > hi[2] ||
            n->hi[2] < lo[2])
            continue;
        if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; i++) {
                const double *a = corner(t, t->order[i], 0), *b = corner(t, t->order[i], 1),
                             *c = corner(t, t->order[i], 2);
                int apart = 0;
                for (int k = 0; k < 3 && !apart; k++)
                    apart = fmin(a[k], fmin(b[k], c[k])) > hi[k] || fmax(a[k], fmax(b[k], c[k])) < lo[k];
                if (!apart)
                    return 1;
            }
        } else if (top + 2 <= 2 * MAX_DEPTH + 2) {
            stack[top++] = n->child[1];
            stack[top++] = n->child[0];
        }
    }
    return 0;
}

/* Whether segment ab meets triangle t (Moeller and Trumbore 1997, the
 * parameters on closed intervals). */
static int segment_meets(const double *a, const double *b, const double *p0, const double *p1, const double *p2)
{
    double d[3], e1[3], e2[3], h[3], s[3], q[3];
    sub3(b, a, d);
    sub3(p1, p0, e1);
    sub3(p2, p0, e2);
    cross3(d, e2, h);
    double det = dot3(e1, h);
    if (det == 0.0)
        return 0;
    double inv = 1.0 / det;
    sub3(a, p0, s);
    double u = dot3(s, h) * inv;
    if (u < 0.0 || u > 1.0)
        return 0;
    cross3(s, e1, q);
    double v = dot3(d, q) * inv;
    if (v < 0.0 || u + v > 1.0)
        return 0;
    double t = dot3(e2, q) * inv;
    return t >= 0.0 && t <= 1.0;
}

int sinew_surface_crosses(const sinew_surface_tree *t, const double a[3], const double b[3])
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(a[k], b[k]);
        hi[k] = fmax(a[k], b[k]);
    }
    uint32_t stack[2 * MAX_DEPTH + 2], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tree_node *n = &t->nodes[stack[--top]];
        if (n->lo[0] > hi[0] || n->hi[0] < lo[0] || n->lo[1] > hi[1] || n->hi[1] < lo[1] || n->lo[2] > hi[2] ||
            n->hi[2] < lo[2])
            continue;
        if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; i++)
                if (segment_meets(a, b, corner(t, t->order[i], 0), corner(t, t->order[i], 1),
                                  corner(t, t->order[i], 2)))
                    return 1;
        } else if (top + 2 <= 2 * MAX_DEPTH + 2) {
            stack[top++] = n->child[1];
            stack[top++] = n->child[0];
        }
    }
    return 0;
}
