/* The static error of a body of constraints (sinew_body_estimate_error,
 * docs/accuracy.md "Cloth and spring networks", docs/math.md section 9):
 * one Newton step of the body's own energy, taken on the host in double
 * from its read-back positions. The forces are those of the XPBD energy
 * sum C^2 / (2 alpha) of its distance constraints and bending hinges plus
 * gravity; the tangent stiffness keeps each spring's geometric part where it
 * is stretched (none where compressed, so it stays positive semi-definite)
 * and each hinge's Gauss-Newton part k g g^T; the system K d = f + M g over
 * the free particles is solved by Jacobi-preconditioned conjugate gradients.
 * The estimate is |d|_M / |u + d|_M, u the displacement from the rest pose:
 * in the linear regime, the relative error of the deformation exactly. */
#include "body.h"
#include "body_struct.h"
#include "math/xpbd_math.h"

#include <stdlib.h>
#include <string.h>

/* CG stops at this relative residual, or after this many iterations (a
 * lower bound then, said in the log). */
#define ERROR_CG_TOLERANCE 1e-6
#define ERROR_CG_MAX 20000u

typedef struct problem {
    uint32_t first, n;       /* particles [first, first + n) of the body t */
    const double *x;         /* 3n positions */
    const double *w;         /* n inverse masses (0: pinned) */
    const GpuDistance *dist; /* the constraints within the range, indices relative to first */
    uint32_t dist_count;
    const GpuBend *bend;
    const double *angle; /* each hinge's continuous angle at x */
    const double *grad;  /* and its gradient there, 12 doubles (x stays put: taken once) */
    uint32_t bend_count;
} problem;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* f = the energy's forces at x (all particles; pinned ones are masked by the caller). */
static void forces(const problem *p, double *f)
{
    memset(f, 0, sizeof *f * 3 * p->n);
    for (uint32_t j = 0; j < p->dist_count; j++) {
        const GpuDistance *q = &p->dist[j];
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = p->x[3 * q->a + k] - p->x[3 * q->b + k];
        const double len = sqrt(dot3(e, e));
        if (len <= 0.0)
            continue;
        const double s = (len - q->rest) / (q->compliance * len);
        for (int k = 0; k < 3; k++) {
            f[3 * q->a + k] -= s * e[k];
            f[3 * q->b + k] += s * e[k];
        }
    }
    for (uint32_t j = 0; j < p->bend_count; j++) {
        const GpuBend *q = &p->bend[j];
        const double *g = &p->grad[12 * (size_t)j];
        const double s = (p->angle[j] - q->rest_angle) / q->compliance;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                f[3 * q->v[i] + k] -= s * g[3 * i + k];
    }
}

/* y = K d, the tangent stiffness at x; diag (optional) its diagonal. */
static void stiffness(const problem *p, const double *d, double *y, double *diag)
{
    memset(y, 0, sizeof *y * 3 * p->n);
    if (diag)
        memset(diag, 0, sizeof *diag * 3 * p->n);
    for (uint32_t j = 0; j < p->dist_count; j++) {
        const GpuDistance *q = &p->dist[j];
        double e[3], dd[3];
        for (int k = 0; k < 3; k++)
            e[k] = p->x[3 * q->a + k] - p->x[3 * q->b + k], dd[k] = d[3 * q->a + k] - d[3 * q->b + k];
        const double len = sqrt(dot3(e, e));
        if (len <= 0.0)
            continue;
        for (int k = 0; k < 3; k++)
            e[k] /= len;
        const double kk = 1.0 / q->compliance, geo = fmax(0.0, 1.0 - q->rest / len), ed = dot3(e, dd);
        for (int k = 0; k < 3; k++) {
            const double h = kk * (ed * e[k] + geo * (dd[k] - ed * e[k]));
            y[3 * q->a + k] += h;
            y[3 * q->b + k] -= h;
            if (diag) {
                const double g = kk * (e[k] * e[k] + geo * (1.0 - e[k] * e[k]));
                diag[3 * q->a + k] += g;
                diag[3 * q->b + k] += g;
            }
        }
    }
    for (uint32_t j = 0; j < p->bend_count; j++) {
        const GpuBend *q = &p->bend[j];
        const double *g = &p->grad[12 * (size_t)j];
        double gd = 0.0;
        for (int i = 0; i < 4; i++)
            gd += dot3(&g[3 * i], &d[3 * q->v[i]]);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++) {
                y[3 * q->v[i] + k] += gd / q->compliance * g[3 * i + k];
                if (diag)
                    diag[3 * q->v[i] + k] += g[3 * i + k] * g[3 * i + k] / q->compliance;
            }
    }
}

/* Solves K d = r over the free particles (Jacobi PCG from d = 0); returns
 * the iterations taken, *converged whether it reached the tolerance. */
static uint32_t solve(const problem *p, const double *r, double *d, double *work, int *converged)
{
    const size_t m = 3ull * p->n;
    double *res = work, *z = work + m, *s = work + 2 * m, *q = work + 3 * m, *inv = work + 4 * m;
    stiffness(p, r, q, inv); /* for the diagonal */
    double rz = 0.0, r0 = 0.0;
    for (size_t i = 0; i < m; i++) {
        const int free = p->w[i / 3] > 0.0 && inv[i] > 0.0;
        inv[i] = free ? 1.0 / inv[i] : 0.0;
        res[i] = free ? r[i] : 0.0;
        d[i] = 0.0;
        s[i] = z[i] = inv[i] * res[i];
        rz += res[i] * z[i];
        r0 += res[i] * res[i];
    }
    uint32_t it = 0;
    *converged = 1;
    for (double rr = r0; rr > ERROR_CG_TOLERANCE * ERROR_CG_TOLERANCE * r0; it++) {
        if (it == ERROR_CG_MAX) {
            *converged = 0;
            break;
        }
        stiffness(p, s, q, NULL);
        double sq = 0.0;
        for (size_t i = 0; i < m; i++) {
            q[i] = inv[i] > 0.0 ? q[i] : 0.0;
            sq += s[i] * q[i];
        }
        if (!(sq > 0.0)) { /* a direction of no stiffness: the body is free to move along it */
            *converged = 0;
            break;
        }
        const double a = rz / sq;
        double rz1 = 0.0;
        rr = 0.0;
        for (size_t i = 0; i < m; i++) {
            d[i] += a * s[i];
            res[i] -= a * q[i];
            z[i] = inv[i] * res[i];
            rz1 += res[i] * z[i];
            rr += res[i] * res[i];
        }
        for (size_t i = 0; i < m; i++)
            s[i] = z[i] + rz1 / rz * s[i];
        rz = rz1;
    }
    return it;
}

static int solver_has_constraint_energy(sinew_solver s)
{
    switch (s) {
    case SINEW_SOLVER_XPBD_GAUSS_SEIDEL:
    case SINEW_SOLVER_XPBD_JACOBI:
    case SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL:
    case SINEW_SOLVER_GPBD_GAUSS_SEIDEL:
    case SINEW_SOLVER_GPBD_JACOBI:
    case SINEW_SOLVER_HPBD:
    case SINEW_SOLVER_PD_RED_BLACK:
    case SINEW_SOLVER_PD_JACOBI:
    case SINEW_SOLVER_PD_CHEBYSHEV:
        return 1;
    default:
        return 0;
    }
}

/* The body t's particles [first, first + n) with the constraints among
 * them (rec: the member's own counts, for its message). */
static sinew_result estimate(const sinew_body *rec, sinew_body *t, uint32_t first, uint32_t n, const float gravity[3],
                             sinew_static_error *out)
{
    sinew_logger *log = &rec->ctx->logger;
    if (!solver_has_constraint_energy(t->desc.solver) || rec->element_count)
        return sinew_fail(log, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "body '%s': the static error estimate is for bodies of distance constraints and bending "
                          "hinges (cloth, spring networks) with the XPBD, HPBD, GPBD or PD solvers; %s",
                          rec->name,
                          rec->element_count ? "a body of finite elements has its estimate in each step's statistics"
                                             : "this solver's energy is its own");
    sinew_result r = SINEW_RESULT_OK;
    const size_t m = 3ull * n;
    float *pos = malloc(16ull * t->particle_count + 16);
    float *ang = malloc(4ull * t->bend_count + 4);
    double *x = malloc(sizeof *x * m + 8), *w = malloc(sizeof *w * n + 8);
    GpuDistance *dist = malloc(sizeof *dist * ((size_t)t->distance_count + 1));
    GpuBend *bend = malloc(sizeof *bend * ((size_t)t->bend_count + 1));
    double *angle = malloc(sizeof *angle * ((size_t)t->bend_count + 1));
    double *grad = malloc(sizeof *grad * 12 * ((size_t)t->bend_count + 1));
    double *f = malloc(sizeof *f * m + 8), *d = malloc(sizeof *d * m + 8), *work = malloc(sizeof *work * 5 * m + 8);
    if (!pos || !ang || !x || !w || !dist || !bend || !angle || !grad || !f || !d || !work)
        r = sinew_fail(log, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    if (r == SINEW_RESULT_OK) /* pins moved since the last step: where the next puts them */
        r = sinew_buffer_download(t->ctx, &t->buffers[SINEW_BIND_POS], 0, pos, 16ull * t->particle_count);
    if (r == SINEW_RESULT_OK)
        sinew_attach_overlay(&t->attach, pos, 4);
    if (r == SINEW_RESULT_OK && t->bend_count)
        r = sinew_buffer_download(t->ctx, &t->buffers[SINEW_BIND_ANGLE], 0, ang, 4ull * t->bend_count);
    problem p = {first, n, x, w, dist, 0, bend, angle, grad, 0};
    uint32_t pinned = 0;
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < n; i++) {
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = pos[4 * (first + i) + k];
        w[i] = pos[4 * (first + i) + 3];
        pinned += w[i] == 0.0;
    }
    /* the constraints among the range, not cut, each with an energy */
    for (uint32_t j = 0; r == SINEW_RESULT_OK && j < t->distance_count; j++) {
        GpuDistance q = t->dist_host[j];
        if (t->dist_cut[j] || q.a < first || q.a - first >= n || q.b < first || q.b - first >= n)
            continue;
        if (!(q.compliance > 0.0f)) {
            r = sinew_fail(log, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                           "body '%s': distance constraint %u has compliance 0 (inextensible), which has no finite "
                           "energy to estimate an error of",
                           rec->name, j);
            break;
        }
        q.a -= first, q.b -= first;
        dist[p.dist_count++] = q;
    }
    for (uint32_t j = 0; r == SINEW_RESULT_OK && j < t->bend_count; j++) {
        GpuBend q = t->bend_host[j];
        int inside = !t->bend_cut[j];
        for (int i = 0; i < 4; i++)
            inside = inside && q.v[i] >= first && q.v[i] - first < n;
        if (!inside)
            continue;
        if (!(q.compliance > 0.0f)) {
            r = sinew_fail(log, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                           "body '%s': bending hinge %u has compliance 0 (rigid), which has no finite energy to "
                           "estimate an error of",
                           rec->name, j);
            break;
        }
        double v[4][3];
        for (int i = 0; i < 4; i++) {
            q.v[i] -= first;
            for (int k = 0; k < 3; k++)
                v[i][k] = x[3 * q.v[i] + k];
        }
        int ok = 0;
        const double theta = sinew_dihedral_angle(v[0], v[1], v[2], v[3], &ok);
        double g[4][3];
        if (!ok || !sinew_dihedral_gradient(v[0], v[1], v[2], v[3], g))
            continue; /* a degenerate wing: no angle to hold */
        angle[p.bend_count] = sinew_unwrap_angle(theta, ang[j]); /* on the branch the hinge has followed */
        memcpy(&grad[12 * (size_t)p.bend_count], g, sizeof g);
        bend[p.bend_count++] = q;
    }
    if (r == SINEW_RESULT_OK && (!pinned || pinned == n))
        r = sinew_fail(log, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                       "body '%s' has %s: it has no static equilibrium to measure an error from", rec->name,
                       pinned ? "no free particle" : "no pinned particle");
    if (r == SINEW_RESULT_OK) {
        forces(&p, f);
        for (uint32_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                f[3 * i + k] += w[i] > 0.0 ? gravity[k] / w[i] : 0.0;
        int converged = 0;
        const uint32_t iterations = solve(&p, f, d, work, &converged);
        double dd = 0.0, uu = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            if (w[i] == 0.0)
                continue;
            const sinew_particle_rec *X = &t->rest[first + i];
            const double rest[3] = {X->x, X->y, X->z};
            for (int k = 0; k < 3; k++) {
                const double u = x[3 * i + k] + d[3 * i + k] - rest[k];
                dd += d[3 * i + k] * d[3 * i + k] / w[i];
                uu += u * u / w[i];
            }
        }
        out->error = uu > 0.0 ? sqrt(dd / uu) : (dd > 0.0 ? INFINITY : 0.0);
        out->iterations = iterations;
        out->converged = converged;
        if (!converged)
            sinew_logf(log, SINEW_LOG_WARNING, "body",
                      "body '%s': the static error estimate's solve stopped after %u iterations short of its "
                      "tolerance; the estimate %.3g is a lower bound",
                      rec->name, iterations, out->error);
    }
    free(pos), free(ang), free(x), free(w), free(dist), free(bend), free(angle), free(grad), free(f), free(d), free(work);
    return r;
}

sinew_result sinew_body_estimate_error(sinew_body *b, const sinew_step_params *params, sinew_static_error *out)
{
    SINEW_ASSERT(b && params && out);
    memset(out, 0, sizeof *out);
    out->error = -1.0;
    for (int k = 0; k < 3; k++)
        if (!isfinite(params->gravity[k]))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "gravity.%c is not finite", "xyz"[k]);
    sinew_result r = SINEW_RESULT_OK;
    sinew_body *t = b->asset ? sinew_member_batch(b, &r) : b;
    if (t)
        r = sinew_body_settle(t);
    if (r != SINEW_RESULT_OK)
        return r;
    const uint32_t first = b->asset ? b->map.particle_first : 0;
    return estimate(b, t, first, b->particle_count, params->gravity, out);
}
