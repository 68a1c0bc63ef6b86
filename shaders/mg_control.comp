#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the decisions the host used to take between
// submits, taken on the device by one invocation (shared/layout.h, the
// scalars and SINEW_MG_CONTROL_*): the substep's globals, when a solve has
// converged, stalled or diverged, and the step's totals. The kernels after a
// solve has stopped find their gate closed and do nothing.
#include "common.glsl"
#include "mg.glsl"

vec4 scalar(uint k) { return mg_real[mg_scalars() + k]; }
void set_scalar(uint k, vec4 v) { mg_real[mg_scalars() + k] = v; }

// The step's totals (S_TOTAL) take in a finished solve.
void total(float count, float rel, float tolerance, bool fallback)
{
    vec4 t = scalar(SINEW_MG_S_TOTAL);
    if (fallback)
        t.w += count;
    else
        t.x += count;
    if (!(rel <= t.y)) // NaN stays
        t.y = rel;
    if (!(rel <= tolerance))
        t.z += 1.0;
    set_scalar(SINEW_MG_S_TOTAL, t);
}

void main()
{
    if (linear_id() != 0u)
        return;
    uint mode = range.count2, flags = range.distance_total, at = range.slot_base;
    float tolerance = range.weight;
    if (mode == SINEW_MG_CONTROL_SUBSTEP) {
        // BDF2 (docs/implicit.md): each substep after the first blends with
        // the one before and steps 2h/3; the first does when the step before
        // left its record (PARAMS.solver_flags).
        bool blend = range.count != 0u && (range.first > 0u || (params.solver_flags & 1u) != 0u);
        uint g = mg_globals();
        float h = params.gravity.w;
        mg_real[g].x = blend ? h * (2.0 / 3.0) : h;
        mg_real[g + 1u].yzw = params.gravity.xyz;
        set_scalar(SINEW_MG_S_BLEND, vec4(blend ? 1.0 : 0.0, 0.0, 0.0, 0.0));
        if (range.first == 0u)
            set_scalar(SINEW_MG_S_TOTAL, vec4(0.0));
    } else if (mode == SINEW_MG_CONTROL_START) {
        float bb = scalar(SINEW_MG_S_BB).x;
        bool run = bb > 0.0 && ((flags & SINEW_MG_CONTROL_FALLBACK) == 0u || scalar(SINEW_MG_S_FALLBACK).x > 0.0);
        set_scalar(at, vec4(run ? 1.0 : 0.0, 0.0, bb > 0.0 ? 1.0 : 0.0, 3.0e38));
        set_scalar(at + 1u, vec4(sqrt(bb), 0.0, 0.0, 0.0));
    } else if (mode == SINEW_MG_CONTROL_CHECK) {
        vec4 c = scalar(at), d = scalar(at + 1u);
        if (c.x <= 0.0)
            return;
        float rel = sqrt(scalar(SINEW_MG_S_RR).x) / d.x;
        c.y += float(range.first2);
        c.z = rel;
        bool more = c.y < float(range.first) && rel > tolerance;
        if ((flags & SINEW_MG_CONTROL_VCYCLES) != 0u) {
            // The first cycle from y = 0 may raise the residual and still
            // converge: stalls and divergence are judged against the best.
            d.y = rel > 0.95 * c.w ? d.y + 1.0 : 0.0;
            if (!(rel <= 2.0 * c.w)) // NaN too
                d.z = 1.0;
            uint k = uint(c.y) - 1u;
            if (k < 64u)
                mg_real[mg_scalars() + SINEW_MG_S_HISTORY + k / 4u][k % 4u] = rel;
            if (rel < c.w)
                c.w = rel;
            more = more && d.y < 3.0 && d.z == 0.0;
        }
        c.x = more ? 1.0 : 0.0;
        set_scalar(at, c);
        set_scalar(at + 1u, d);
    } else if (mode == SINEW_MG_CONTROL_END) {
        vec4 c = scalar(at), d = scalar(at + 1u);
        if ((flags & SINEW_MG_CONTROL_FALLBACK) != 0u) {
            if (scalar(SINEW_MG_S_FALLBACK).x > 0.0)
                total(c.y, c.z, tolerance, true);
            set_scalar(SINEW_MG_S_FALLBACK, vec4(0.0));
            return;
        }
        // A stall far above the tolerance is the V-cycle failing, not
        // float's floor.
        bool vcycles = (flags & SINEW_MG_CONTROL_VCYCLES) != 0u;
        bool diverged = vcycles && (d.z > 0.0 || (d.y >= 3.0 && c.z > 10.0 * tolerance));
        d.z = diverged ? 1.0 : 0.0;
        set_scalar(at + 1u, d);
        c.x = 0.0;
        set_scalar(at, c);
        bool fall_back = diverged && (flags & SINEW_MG_CONTROL_MAY_FALL_BACK) != 0u;
        set_scalar(SINEW_MG_S_FALLBACK, vec4(fall_back ? 1.0 : 0.0, 0.0, 0.0, 0.0));
        if (fall_back) { // the fallback's end says how the solve ended
            vec4 t = scalar(SINEW_MG_S_TOTAL);
            t.x += c.y;
            set_scalar(SINEW_MG_S_TOTAL, t);
        } else {
            total(c.y, c.z, tolerance, false);
        }
    } else { // SINEW_MG_CONTROL_STATS
        vec4 t = scalar(SINEW_MG_S_TOTAL);
        stats.linear_iterations = uint(t.x);
        stats.linear_residual = t.y;
        stats.linear_unconverged = uint(t.z);
        stats.linear_fallback = uint(t.w);
    }
}
