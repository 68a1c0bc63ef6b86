/* CPU double-precision reference of XPBD, mirroring the GLSL kernels. */
#include "xpbd_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "collider.h"
#include "solvers/gpbd.h"
#include "math/xpbd_math.h"
#include "gpbd_ref.h"
#include "selfcol_ref.h"
#include "shared/layout.h"

struct xpbd_ref {
    sinew_body_desc desc;
    const sinew_asset *a;
    uint32_t n;
    double *x, *w, *prev, *v;   /* 3n, n, 3n, 3n */
    double *alpha;              /* per constraint: distances then bends */
    double *lambda;
    double *angle;              /* per bend: hinge angle at its last projection, unwrapped */
    double *delta;              /* 3 per slot (Jacobi) */
    uint32_t *adj_start, *adj;
    GpuElement *elem;           /* GPBD elements and materials, as the device has them */
    GpuMaterial *mat;
    double *z;                  /* 12 per element: displacement at each vertex */
    double *q;                  /* 3n: HPBD positions before the hierarchy's sweep */
    long long newton_iterations; /* summed over the last step */
    selfcol_ref *self;          /* desc.self_collision; NULL: off */
};

xpbd_ref *xpbd_ref_create(const sinew_asset *a, const sinew_body_desc *d)
{
    xpbd_ref *r = calloc(1, sizeof *r);
    uint32_t n = a->particle_count, m = a->distance_count + a->bend_count;
    uint32_t slots = 2 * a->distance_count + 4 * a->bend_count + 4 * a->element_count;
    r->desc = *d;
    r->a = a;
    r->n = n;
    r->self = selfcol_ref_create(a, d);
    r->x = calloc(3 * n, sizeof(double));
    r->w = calloc(n, sizeof(double));
    r->prev = calloc(3 * n, sizeof(double));
    r->v = calloc(3 * n, sizeof(double));
    r->alpha = calloc(m + 1, sizeof(double));
    r->lambda = calloc(m + 1, sizeof(double));
    r->angle = calloc(a->bend_count + 1, sizeof(double));
    r->delta = calloc(3 * (slots + 1), sizeof(double));
    r->adj_start = calloc(n + 1, sizeof(uint32_t));
    r->adj = calloc(slots + 1, sizeof(uint32_t));
    r->elem = calloc(a->element_count + 1, sizeof *r->elem);
    r->mat = calloc(a->material_count + 1, sizeof *r->mat);
    r->z = calloc(12 * (size_t)a->element_count + 1, sizeof(double));
    r->q = calloc(3 * (size_t)n + 1, sizeof(double));
    for (uint32_t e = 0; e < a->element_count; e++)
        r->elem[e] = sinew_gpbd_element(&a->elements[e]);
    for (uint32_t q = 0; q < a->material_count; q++)
        r->mat[q] = sinew_gpbd_material(d->materials ? &d->materials[q] : &a->materials[q]);
    for (uint32_t i = 0; i < n; i++) {
        r->x[3 * i] = a->particles[i].x;
        r->x[3 * i + 1] = a->particles[i].y;
        r->x[3 * i + 2] = a->particles[i].z;
        r->w[i] = a->particles[i].w;
    }
    for (uint32_t c = 0; c < a->distance_count; c++)
        r->alpha[c] = a->distances[c].kind == SINEW_KIND_SHEAR ? d->shear_compliance : d->stretch_compliance;
    for (uint32_t c = 0; c < a->bend_count; c++) {
        r->alpha[a->distance_count + c] = d->bend_compliance;
        r->angle[c] = a->bends[c].rest_angle;
    }
    /* Gather lists in the same order as the runtime builds them. */
    for (uint32_t c = 0; c < a->distance_count; c++) {
        r->adj_start[a->distances[c].a + 1]++;
        r->adj_start[a->distances[c].b + 1]++;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (int j = 0; j < 4; j++)
            r->adj_start[a->bends[c].v[j] + 1]++;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (int j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                r->adj_start[a->elements[e].v[j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        r->adj_start[i + 1] += r->adj_start[i];
    uint32_t *fill = malloc((n + 1) * sizeof(uint32_t));
    memcpy(fill, r->adj_start, n * sizeof(uint32_t));
    for (uint32_t c = 0; c < a->distance_count; c++) {
        r->adj[fill[a->distances[c].a]++] = 2 * c;
        r->adj[fill[a->distances[c].b]++] = 2 * c + 1;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (uint32_t j = 0; j < 4; j++)
            r->adj[fill[a->bends[c].v[j]]++] = 2 * a->distance_count + 4 * c + j;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (uint32_t j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                r->adj[fill[a->elements[e].v[j]]++] = 2 * a->distance_count + 4 * a->bend_count + 4 * e + j;
    free(fill);
    return r;
}

void xpbd_ref_destroy(xpbd_ref *r)
{
    if (!r)
        return;
    free(r->x); free(r->w); free(r->prev); free(r->v); free(r->alpha); free(r->lambda);
    free(r->angle); free(r->delta); free(r->adj_start); free(r->adj);
    free(r->elem); free(r->mat); free(r->z); free(r->q);
    selfcol_ref_destroy(r->self);
    free(r);
}

void xpbd_ref_set_contact_bodies(xpbd_ref *r, const sinew_asset *const *others, uint32_t count)
{
    selfcol_ref_destroy(r->self);
    r->self = selfcol_ref_create_with(r->a, &r->desc, others, count);
}

void xpbd_ref_set_others(xpbd_ref *r, const double *xyz)
{
    if (r->self)
        selfcol_ref_set_others(r->self, xyz);
}

void xpbd_ref_self_counts(const xpbd_ref *r, uint64_t *candidates, uint64_t *dropped, uint64_t *contacts)
{
    *candidates = *dropped = *contacts = 0;
    if (r->self)
        selfcol_ref_counts(r->self, candidates, dropped, contacts);
}

const double *xpbd_ref_position(const xpbd_ref *r, uint32_t i) { return &r->x[3 * i]; }

/* Distance constraint c: corrections for a and b into da, db; returns 0 if skipped. */
static int project_distance(xpbd_ref *r, uint32_t c, double inv_h2, double *da, double *db)
{
    const sinew_distance_rec *d = &r->a->distances[c];
    double *pa = &r->x[3 * d->a], *pb = &r->x[3 * d->b];
    double wa = r->w[d->a], wb = r->w[d->b], w = wa + wb;
    double e[3];
    sinew_v3_sub(pa, pb, e);
    double len = sqrt(sinew_v3_dot(e, e));
    memset(da, 0, 3 * sizeof *da);
    memset(db, 0, 3 * sizeof *db);
    if (w == 0.0 || len < 1e-9)
        return 0;
    double at = r->alpha[c] * inv_h2;
    double dl = (-(len - d->rest) - at * r->lambda[c]) / (w + at);
    r->lambda[c] += dl;
    for (int k = 0; k < 3; k++) {
        da[k] = wa * dl * e[k] / len;
        db[k] = -wb * dl * e[k] / len;
    }
    return 1;
}

static int project_bend(xpbd_ref *r, uint32_t c, double inv_h2, double dp[4][3])
{
    const sinew_bend_rec *b = &r->a->bends[c];
    const double *p[4];
    for (int j = 0; j < 4; j++)
        p[j] = &r->x[3 * b->v[j]];
    memset(dp, 0, 12 * sizeof(double));
    double g[4][3];
    int ok = 0;
    double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok);
    if (!ok || !sinew_dihedral_gradient(p[0], p[1], p[2], p[3], g))
        return 0;
    double denom = 0.0;
    for (int j = 0; j < 4; j++)
        denom += r->w[b->v[j]] * sinew_v3_dot(g[j], g[j]);
    uint32_t li = r->a->distance_count + c;
    double at = r->alpha[li] * inv_h2;
    if (denom + at == 0.0)
        return 0;
    theta = sinew_unwrap_angle(theta, r->angle[c]);
    r->angle[c] = theta;
    double C = theta - b->rest_angle;
    double dl = (-C - at * r->lambda[li]) / (denom + at);
    double aimed = fabs(dl) * denom; /* the linearized change of theta: a trust region */
    if (aimed > SINEW_BEND_STEP_LIMIT)
        dl *= SINEW_BEND_STEP_LIMIT / aimed;
    r->lambda[li] += dl;
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            dp[j][k] = r->w[b->v[j]] * dl * g[j][k];
    return 1;
}

static void friction(const xpbd_ref *r, double *p, const double *x0, const double *n, double depth, double mu)
{
    (void)r;
    double dp[3], t[3];
    sinew_v3_sub(p, x0, dp);
    double dn = sinew_v3_dot(dp, n);
    for (int k = 0; k < 3; k++)
        t[k] = dp[k] - n[k] * dn;
    double lt = sqrt(sinew_v3_dot(t, t)), limit = mu * depth;
    double s = lt <= limit ? 1.0 : limit / lt;
    for (int k = 0; k < 3; k++)
        p[k] -= t[k] * s;
}

/* Within rad of the point c: out along the line from c, then friction. */
static void push_out(xpbd_ref *r, double *p, const double *x0, const double *c, double rad, double mu)
{
    double d[3];
    sinew_v3_sub(p, c, d);
    double dist = sqrt(sinew_v3_dot(d, d));
    if (dist >= rad)
        return;
    double n[3] = {0, 1, 0};
    if (dist > 1e-12)
        for (int k = 0; k < 3; k++)
            n[k] = d[k] / dist;
    double depth = rad - dist;
    for (int k = 0; k < 3; k++)
        p[k] = c[k] + n[k] * rad;
    friction(r, p, x0, n, depth, mu);
}

static void collide_particle(xpbd_ref *r, const sinew_step_params *sp, uint32_t i)
{
    double off = sp->contact_offset;
    if (r->w[i] == 0.0)
        return;
    double *p = &r->x[3 * i];
    const double *x0 = &r->prev[3 * i];
    if (sp->ground && p[1] < sp->ground_height + off) {
        double floor_y = sp->ground_height + off, depth = floor_y - p[1];
        const double up[3] = {0, 1, 0};
        p[1] = floor_y;
        friction(r, p, x0, up, depth, sp->friction);
    }
    if (sp->sphere) {
        double c[3] = {sp->sphere_center[0], sp->sphere_center[1], sp->sphere_center[2]};
        push_out(r, p, x0, c, sp->sphere_radius + off, sp->friction);
    }
    if (sp->capsule) { /* out from the nearest point of the segment */
        double a[3] = {sp->capsule_a[0], sp->capsule_a[1], sp->capsule_a[2]}, ab[3], ap[3], c[3];
        double b[3] = {sp->capsule_b[0], sp->capsule_b[1], sp->capsule_b[2]};
        sinew_v3_sub(b, a, ab);
        sinew_v3_sub(p, a, ap);
        double len2 = sinew_v3_dot(ab, ab), t = len2 > 0.0 ? sinew_v3_dot(ap, ab) / len2 : 0.0;
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        for (int k = 0; k < 3; k++)
            c[k] = a[k] + t * ab[k];
        push_out(r, p, x0, c, sp->capsule_radius + off, sp->friction);
    }
    if (sp->collider && r->desc.collider) { /* out along the field's normal, one linearised step */
        double n[3], phi = sinew_collider_sample_world(r->desc.collider, sp, p, n);
        if (phi < off) {
            double depth = off - phi, h = (double)sp->dt / r->desc.substeps, moved[3];
            for (int k = 0; k < 3; k++) {
                p[k] += n[k] * depth;
                moved[k] = x0[k] + (double)sp->collider_velocity[k] * h;
            }
            friction(r, p, moved, n, depth, sp->friction);
        }
    }
}

static void collide(xpbd_ref *r, const sinew_step_params *sp)
{
    for (uint32_t i = 0; i < r->n; i++)
        collide_particle(r, sp, i);
}

/* HPBD (Müller 2008, section 7), as shaders/hpbd_*.comp and record_hierarchy. */
static void prolongate(xpbd_ref *r, uint32_t level)
{
    const sinew_asset *a = r->a;
    for (uint32_t k = a->levels[level + 1].particle_count; k < a->levels[level].particle_count; k++) {
        const sinew_node_rec *v = &a->nodes[k];
        if (r->w[v->particle] == 0.0)
            continue;
        double dp[3] = {0, 0, 0};
        for (uint32_t j = v->link_begin; j < v->link_begin + v->link_count; j++)
            for (int c = 0; c < 3; c++)
                dp[c] += a->links[j].weight * (r->x[3 * a->links[j].parent + c] - r->q[3 * a->links[j].parent + c]);
        for (int c = 0; c < 3; c++)
            r->x[3 * v->particle + c] += dp[c];
    }
}

static void hierarchy(xpbd_ref *r, const sinew_step_params *sp)
{
    const sinew_asset *a = r->a;
    memcpy(r->q, r->x, 3 * sizeof(double) * r->n);
    for (uint32_t level = a->level_count - 1; level >= 1; level--) {
        const sinew_level_rec *lv = &a->levels[level];
        if (level + 1 < a->level_count)
            prolongate(r, level);
        for (uint32_t it = 0; it < r->desc.level_iterations; it++)
            for (uint32_t c = lv->distance_begin; c < lv->distance_begin + lv->distance_count; c++) {
                const sinew_distance_rec *d = &a->hdistances[c];
                double *pa = &r->x[3 * d->a], *pb = &r->x[3 * d->b], e[3];
                double w = r->w[d->a] + r->w[d->b];
                sinew_v3_sub(pa, pb, e);
                double len = sqrt(sinew_v3_dot(e, e)), cv = len - d->rest;
                if (cv <= 0.0 || w == 0.0 || len < 1e-9)
                    continue;
                for (int k = 0; k < 3; k++) {
                    pa[k] -= r->w[d->a] * cv / w * e[k] / len;
                    pb[k] += r->w[d->b] * cv / w * e[k] / len;
                }
            }
        for (uint32_t k = 0; k < lv->particle_count; k++)
            collide_particle(r, sp, a->nodes[k].particle);
    }
    prolongate(r, 0);
}

/* GPBD update of element e at the current positions. Gauss-Seidel (dx_out
 * NULL) writes positions; Jacobi writes the displacements to dx_out and grows
 * z by the share the gather will apply. */
static void update_element(xpbd_ref *r, uint32_t e, double h, double dx_out[4][3])
{
    const GpuElement *el = &r->elem[e];
    double x[4][3] = {{0}}, w[4] = {0}, z[4][3], dx[4][3], z0[4][3];
    int nv = el->kind == SINEW_GPU_TET ? 4 : el->kind == SINEW_GPU_TRIANGLE ? 3 : 2;
    for (int j = 0; j < nv; j++) {
        memcpy(x[j], &r->x[3 * el->v[j]], sizeof x[j]);
        w[j] = r->w[el->v[j]];
    }
    memcpy(z, &r->z[12 * e], sizeof z);
    memcpy(z0, z, sizeof z0);
    gpbd_ref_stats st;
    gpbd_ref_update(el, &r->mat[el->material], h, (int)r->desc.newton_iterations, r->desc.newton_tolerance, x, w,
                    z, dx, &st);
    r->newton_iterations += st.newton_iterations;
    if (!dx_out) {
        for (int j = 0; j < nv; j++)
            memcpy(&r->x[3 * el->v[j]], x[j], sizeof x[j]);
        memcpy(&r->z[12 * e], z, sizeof z);
        return;
    }
    memset(dx_out, 0, 12 * sizeof(double));
    for (int j = 0; j < nv; j++) {
        uint32_t v = el->v[j];
        double share = r->desc.jacobi_omega / (r->adj_start[v + 1] - r->adj_start[v]);
        for (int q = 0; q < 3; q++) {
            r->z[12 * e + 3 * j + q] = z0[j][q] + share * (z[j][q] - z0[j][q]);
            dx_out[j][q] = dx[j][q];
        }
    }
}

long long xpbd_ref_newton_iterations(const xpbd_ref *r) { return r->newton_iterations; }

/* Constraint c of the combined numbering (distances, then bends), applied. */
static void project_and_apply(xpbd_ref *r, uint32_t c, double inv_h2)
{
    const sinew_asset *a = r->a;
    if (c < a->distance_count) {
        double da[3], db[3];
        if (!project_distance(r, c, inv_h2, da, db))
            return;
        for (int k = 0; k < 3; k++) {
            r->x[3 * a->distances[c].a + k] += da[k];
            r->x[3 * a->distances[c].b + k] += db[k];
        }
        return;
    }
    c -= a->distance_count;
    double dp[4][3];
    if (!project_bend(r, c, inv_h2, dp))
        return;
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            r->x[3 * a->bends[c].v[j] + k] += dp[j][k];
}

/* Forward; the symmetric solver comes back without the last colour;
 * alternating sweeps run odd iterations backwards. */
static void sweep_colours(xpbd_ref *r, double inv_h2, int backwards)
{
    const sinew_asset *a = r->a;
    uint32_t nc = a->colour_count;
    uint32_t sweep = r->desc.solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL && nc ? 2 * nc - 1 : nc;
    for (uint32_t q = 0; q < sweep; q++) {
        const sinew_colour_rec *cr = &a->colours[backwards ? nc - 1 - q : q < nc ? q : 2 * nc - 2 - q];
        for (uint32_t c = cr->distance_begin; c < cr->distance_begin + cr->distance_count; c++)
            project_and_apply(r, c, inv_h2);
        for (uint32_t c = cr->bend_begin; c < cr->bend_begin + cr->bend_count; c++)
            project_and_apply(r, a->distance_count + c, inv_h2);
    }
}

/* One pass of clusters, each cluster's colours forward or backward, the
 * last one left out when skip_last. */
static void run_pass(xpbd_ref *r, uint32_t p, double inv_h2, int backwards, int skip_last)
{
    const sinew_asset *a = r->a;
    for (uint32_t k = a->cpasses[p].begin; k < a->cpasses[p].begin + a->cpasses[p].count; k++) {
        const sinew_cluster_rec *cl = &a->clusters[k];
        uint32_t runs = cl->colour_count - (skip_last ? 1 : 0);
        for (uint32_t q = 0; q < runs; q++) {
            uint32_t colour = backwards ? cl->colour_count - 1 - q - (skip_last ? 1 : 0) : q;
            const sinew_range_rec *cc = &a->ccolours[cl->colour_begin + colour];
            for (uint32_t i = cc->begin; i < cc->begin + cc->count; i++)
                project_and_apply(r, a->citems[i].constraint, inv_h2);
        }
    }
}

/* Whether the body this follows sweeps its asset's clusters: the library's
 * rule (sinew_sweep_layout) on a device that is not a CPU. Tests on a CPU
 * device resolve the default first (gpu_resolve_layout). */
static int sweeps_clusters(const xpbd_ref *r)
{
    return r->a->cpass_count && r->desc.sweep_layout != SINEW_SWEEP_LAYOUT_COLOURS;
}

/* The clustered sweep (docs/colouring.md) in the kernels' order. */
static void sweep_clusters(xpbd_ref *r, double inv_h2, int backwards)
{
    uint32_t np = r->a->cpass_count;
    if (backwards) {
        for (uint32_t p = np; p-- > 0;)
            run_pass(r, p, inv_h2, 1, 0);
        return;
    }
    for (uint32_t p = 0; p < np; p++)
        run_pass(r, p, inv_h2, 0, 0);
    if (r->desc.solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL)
        for (uint32_t p = np; p-- > 0;)
            run_pass(r, p, inv_h2, 1, p == np - 1);
}

void xpbd_ref_step(xpbd_ref *r, const sinew_step_params *sp)
{
    const sinew_asset *a = r->a;
    double h = (double)sp->dt / r->desc.substeps, inv_h2 = 1.0 / (h * h);
    double damp = exp(-(double)sp->damping * h);
    uint32_t m = a->distance_count + a->bend_count;
    const int jacobi = r->desc.solver == SINEW_SOLVER_XPBD_JACOBI || r->desc.solver == SINEW_SOLVER_GPBD_JACOBI;
    r->newton_iterations = 0;
    if (r->self)
        selfcol_ref_reset_counts(r->self);
    for (uint32_t s = 0; s < r->desc.substeps; s++) {
        memset(r->lambda, 0, m * sizeof(double));
        memset(r->z, 0, 12 * (size_t)a->element_count * sizeof(double));
        for (uint32_t i = 0; i < r->n; i++) {
            memcpy(&r->prev[3 * i], &r->x[3 * i], 3 * sizeof(double));
            if (r->w[i] == 0.0) {
                memset(&r->v[3 * i], 0, 3 * sizeof(double));
                continue;
            }
            for (int k = 0; k < 3; k++) {
                r->v[3 * i + k] += h * sp->gravity[k];
                r->x[3 * i + k] += h * r->v[3 * i + k];
            }
        }
        if (r->self) /* the substep's candidates, as the device finds them after the prediction */
            selfcol_ref_build(r->self, r->prev, r->x, r->w);
        if (r->desc.solver == SINEW_SOLVER_HPBD)
            hierarchy(r, sp);
        for (uint32_t it = 0; it < r->desc.iterations; it++) {
            if (!jacobi) {
                for (uint32_t q = 0; q < a->element_colour_count; q++)
                    for (uint32_t e = a->element_colours[q].begin;
                         e < a->element_colours[q].begin + a->element_colours[q].count; e++)
                        update_element(r, e, h, NULL);
                sinew_sweep_order order = r->desc.sweep_order != SINEW_SWEEP_DEFAULT ? r->desc.sweep_order
                                          : r->desc.solver == SINEW_SOLVER_HPBD ? SINEW_SWEEP_ALTERNATING
                                                                                  : SINEW_SWEEP_FORWARD;
                int backwards = order == SINEW_SWEEP_ALTERNATING && it % 2 == 1;
                if (sweeps_clusters(r))
                    sweep_clusters(r, inv_h2, backwards);
                else
                    sweep_colours(r, inv_h2, backwards);
            } else {
                for (uint32_t c = 0; c < a->distance_count; c++)
                    project_distance(r, c, inv_h2, &r->delta[6 * c], &r->delta[6 * c + 3]);
                for (uint32_t c = 0; c < a->bend_count; c++)
                    project_bend(r, c, inv_h2, (double(*)[3])&r->delta[3 * (2 * a->distance_count + 4 * c)]);
                for (uint32_t e = 0; e < a->element_count; e++)
                    update_element(r, e, h,
                                   (double(*)[3])&r->delta[3 * (2 * a->distance_count + 4 * a->bend_count + 4 * e)]);
                for (uint32_t i = 0; i < r->n; i++) {
                    uint32_t b0 = r->adj_start[i], b1 = r->adj_start[i + 1];
                    if (r->w[i] == 0.0 || b0 == b1)
                        continue;
                    double sum[3] = {0, 0, 0};
                    for (uint32_t k = b0; k < b1; k++)
                        for (int q = 0; q < 3; q++)
                            sum[q] += r->delta[3 * r->adj[k] + q];
                    for (int q = 0; q < 3; q++)
                        r->x[3 * i + q] += r->desc.jacobi_omega / (b1 - b0) * sum[q];
                }
            }
            if (r->self)
                selfcol_ref_project(r->self, r->prev, r->x, r->w);
            collide(r, sp);
        }
        for (uint32_t i = 0; i < r->n; i++)
            for (int k = 0; k < 3; k++)
                r->v[3 * i + k] = r->w[i] == 0.0 ? 0.0 : (r->x[3 * i + k] - r->prev[3 * i + k]) / h * damp;
    }
}

void xpbd_ref_strain(const xpbd_ref *r, double *max_strain, double *rms_strain)
{
    double mx = 0.0, ss = 0.0;
    for (uint32_t c = 0; c < r->a->distance_count; c++) {
        const sinew_distance_rec *d = &r->a->distances[c];
        double e[3];
        sinew_v3_sub(&r->x[3 * d->a], &r->x[3 * d->b], e);
        double s = fabs(sqrt(sinew_v3_dot(e, e)) - d->rest) / d->rest;
        mx = s > mx ? s : mx;
        ss += s * s;
    }
    *max_strain = mx;
    *rms_strain = r->a->distance_count ? sqrt(ss / r->a->distance_count) : 0.0;
}

double xpbd_ref_violation(const xpbd_ref *r)
{
    double sum = 0.0;
    for (uint32_t c = 0; c < r->a->distance_count; c++) {
        const sinew_distance_rec *d = &r->a->distances[c];
        double e[3];
        sinew_v3_sub(&r->x[3 * d->a], &r->x[3 * d->b], e);
        double C = sqrt(sinew_v3_dot(e, e)) - d->rest;
        sum += C * C;
    }
    for (uint32_t c = 0; c < r->a->bend_count; c++) {
        const sinew_bend_rec *b = &r->a->bends[c];
        int ok = 0;
        double th = sinew_dihedral_angle(&r->x[3 * b->v[0]], &r->x[3 * b->v[1]], &r->x[3 * b->v[2]],
                                         &r->x[3 * b->v[3]], &ok);
        if (ok) {
            double C = sinew_unwrap_angle(th, r->angle[c]) - b->rest_angle;
            sum += C * C;
        }
    }
    return sum;
}

double xpbd_ref_max_speed(const xpbd_ref *r)
{
    double fastest = 0.0;
    for (uint32_t i = 0; i < r->n; i++) {
        const double *x = &r->x[3 * i], *v = &r->v[3 * i];
        double speed = sqrt(sinew_v3_dot(v, v));
        if (!isfinite(x[0] + x[1] + x[2]) || !isfinite(speed))
            return INFINITY;
        fastest = speed > fastest ? speed : fastest;
    }
    return fastest;
}
