/* sinew-sim's report: the summary printed after the run, the checks the
 * options ask for (recovered shape, strain, residual, stretch, colliders,
 * the flag's fly end) and the exit status they give, and the same summary
 * as JSON (--json). */
#include <sinew/sinew.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef SINEW_HAVE_CJSON
#include <cjson/cJSON.h>
#endif
#include "sim_run.h"
#include "stop.h"

/* The stretch the summary reports: elongation l / L - 1 of the distance
 * constraints at positions xyz (L: the rest pose's length; compression does
 * not count, cloth buckles). Edges shorter than a tenth of the median rest
 * length are left out of the largest and reported apart: a scaled CAD mesh
 * has micrometre edges whose relative stretch says nothing of the cloth. The
 * length-weighted mean is the total elongation over the total rest length. */
typedef struct stretch_report {
    double median;             /* m, of the rest lengths */
    double most, weighted;     /* over the edges of at least a tenth of the median, free and whole */
    uint32_t worst, counted;   /* the constraint of the largest; how many count */
    double short_most;         /* over the shorter ones */
    uint32_t short_worst, short_count;
    double pinned_most;        /* over the edges at a pin */
    uint32_t pinned_worst, pinned_count, cut_count;
} stretch_report;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stretch_report measure_stretch(const float *xyz, const uint32_t *ends, const double *rest_length,
                                      const uint8_t *left_out, uint32_t count)
{
    stretch_report r = {0};
    r.worst = r.short_worst = r.pinned_worst = UINT32_MAX;
    double *sorted = malloc(sizeof *sorted * ((size_t)count + 1));
    if (!sorted || count == 0) {
        free(sorted);
        return r;
    }
    memcpy(sorted, rest_length, sizeof *sorted * count);
    qsort(sorted, count, sizeof *sorted, compare_doubles);
    r.median = sorted[count / 2];
    free(sorted);
    double elongation = 0.0, length = 0.0;
    for (uint32_t c = 0; c < count; c++) {
        const float *a = &xyz[3 * ends[2 * c]], *b = &xyz[3 * ends[2 * c + 1]];
        double l = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2)), L = rest_length[c];
        double e = L > 0.0 ? l / L - 1.0 : 0.0;
        if (left_out && left_out[c] == 2) { /* cut: its ends part as they should */
            r.cut_count++;
            continue;
        }
        if (left_out && left_out[c] == 1) { /* at a pin: where the cloth is held, reported apart */
            r.pinned_count++;
            if (e > r.pinned_most || r.pinned_worst == UINT32_MAX) {
                r.pinned_most = e;
                r.pinned_worst = c;
            }
            continue;
        }
        if (L < 0.1 * r.median) {
            r.short_count++;
            if (e > r.short_most || r.short_worst == UINT32_MAX) {
                r.short_most = e;
                r.short_worst = c;
            }
            continue;
        }
        r.counted++;
        elongation += l > L ? l - L : 0.0;
        length += L;
        if (e > r.most || r.worst == UINT32_MAX) {
            r.most = e;
            r.worst = c;
        }
    }
    r.weighted = length > 0.0 ? elongation / length : 0.0;
    r.most = r.most > 0.0 ? r.most : 0.0;
    r.short_most = r.short_most > 0.0 ? r.short_most : 0.0;
    r.pinned_most = r.pinned_most > 0.0 ? r.pinned_most : 0.0;
    return r;
}

/* The tetrahedra a run may end with inverted and still be stable: what
 * --max-inverted gives, none when it is not given (the health check's
 * landing bound for an asset, sim_scene.c, is for the steps, not the end). */
static uint32_t end_bound(const options *o)
{
    return o->max_inverted_set && o->max_inverted != UINT32_MAX ? o->max_inverted : 0;
}

/* The run ended with more tetrahedra inverted than that: a run that did not
 * end stable, whatever each step's health check passed. */
static int ended_inverted(const options *o, const sim *s, const sinew_step_stats *st)
{
    return s->soft && st->inverted_elements > end_bound(o);
}

#ifdef SINEW_HAVE_CJSON
/* A float's value as the shortest decimal that reads back as that float
 * (0.001, not 0.0010000000474974513); any other double as it is. */
static double json_tidy(double v)
{
    if (!isfinite(v) || (double)(float)v != v)
        return v;
    char text[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if ((float)strtod(text, NULL) == (float)v)
            return strtod(text, NULL);
    }
    return v;
}

/* A number, or null where it is not finite (JSON has no NaN). */
static void json_num(cJSON *obj, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(obj, key, json_tidy(v));
    else
        cJSON_AddNullToObject(obj, key);
}

static void json_shape(cJSON *root, const char *key, const soft_shape *s, long step)
{
    cJSON *o = cJSON_AddObjectToObject(root, key);
    if (step >= 0)
        cJSON_AddNumberToObject(o, "step", (double)step);
    json_num(o, "max_volume_error", s->max_error);
    json_num(o, "rms_volume_error", s->rms_error);
    json_num(o, "total_volume_error", s->total_error);
    json_num(o, "max_green_strain", s->max_green);
    cJSON_AddNumberToObject(o, "inverted_tets", s->inverted);
    cJSON_AddBoolToObject(o, "finite", s->finite);
}

/* Every option of the command line's table with the value the run used
 * (the scene's defaults filled in), and the command line itself: what
 * reproduces the run. An option whose value is a list (shapes, pins, bodies)
 * says whether it was given; its text is in "command_line". */
static void json_settings(cJSON *root, const options *o)
{
    cJSON *line = cJSON_AddArrayToObject(root, "command_line");
    for (int k = 0; k < o->argc; k++)
        cJSON_AddItemToArray(line, cJSON_CreateString(o->argv[k]));
    cJSON *set = cJSON_AddObjectToObject(root, "settings");
    for (unsigned k = 0; k < o->setting_count; k++) {
        const sim_setting *e = &o->settings[k];
        const char *key = e->name + 2; /* without "--" */
        switch (e->kind) {
        case CLI_FLAG:
            cJSON_AddBoolToObject(set, key, *(const int *)e->value != 0);
            break;
        case CLI_UINT:
            cJSON_AddNumberToObject(set, key, *(const unsigned *)e->value);
            break;
        case CLI_DOUBLE:
            json_num(set, key, *(const double *)e->value);
            break;
        case CLI_STRING: {
            const char *text = *(const char *const *)e->value;
            if (text)
                cJSON_AddStringToObject(set, key, text);
            else
                cJSON_AddNullToObject(set, key);
            break;
        }
        case CLI_DOUBLES: {
            cJSON *list = cJSON_AddArrayToObject(set, key);
            for (int c = 0; c < e->count; c++)
                cJSON_AddItemToArray(list, isfinite(((const double *)e->value)[c])
                                               ? cJSON_CreateNumber(json_tidy(((const double *)e->value)[c]))
                                               : cJSON_CreateNull());
            break;
        }
        default:
            cJSON_AddBoolToObject(set, key, e->given);
        }
    }
}

/* The summary as JSON (--json), through cJSON: strings escaped, numbers
 * finite or null, and the settings that made the run. */
static int write_json(const options *o, const sim *s, const tally *t, const sinew_material *mat0, double wall_ms,
                      double gpu_step_ms, double newton_mean, double newton_last, int status)
{
    const sinew_asset_info ai = s->ai;
    const sinew_step_stats st = sinew_body_get_stats(s->body);
    const int is_block = o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM;
    cJSON *j = cJSON_CreateObject();
    if (!j) {
        fprintf(stderr, "sinew-sim: out of host memory for --json\n");
        return 0;
    }
    cJSON_AddStringToObject(j, "scene",
                            o->asset_path ? "asset" : o->cape ? "cape" : o->flag ? "flag" : soft_scenes[o->scene].name);
    /* what the run was: the asset read (null: a scene), sinew's version, the device */
    if (o->asset_path)
        cJSON_AddStringToObject(j, "asset", o->asset_path);
    else
        cJSON_AddNullToObject(j, "asset");
    const uint32_t v = sinew_version();
    char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", v >> 22, (v >> 12) & 0x3FFu, v & 0xFFFu);
    cJSON_AddStringToObject(j, "sinew_version", version);
    cJSON_AddStringToObject(j, "device", s->di.name);
    cJSON_AddStringToObject(j, "driver", s->di.driver);
    cJSON_AddNumberToObject(j, "particles", ai.particle_count);
    cJSON_AddNumberToObject(j, "pinned", ai.pinned_count);
    cJSON_AddNumberToObject(j, "tets", ai.tet_count);
    cJSON_AddNumberToObject(j, "cells", o->asset_path ? 0 : o->cells);
    if (s->soft) {
        cJSON_AddStringToObject(j, "material", mat0->model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "snh" : "nh");
        json_num(j, "youngs", mat0->youngs_modulus);
        json_num(j, "poisson", mat0->poisson_ratio);
        json_num(j, "density", mat0->density);
    }
    cJSON_AddStringToObject(j, "solver", sinew_solver_name(o->solver));
    cJSON_AddNumberToObject(j, "substeps", o->substeps);
    cJSON_AddNumberToObject(j, "iterations", o->iterations);
    cJSON_AddNumberToObject(j, "newton_iterations", o->newton);
    json_num(j, "newton_tolerance", o->newton_tol);
    json_num(j, "dt", o->dt);
    cJSON_AddNumberToObject(j, "frames", o->frames);
    cJSON_AddNumberToObject(j, "steps", t->steps_done);
    json_num(j, "gravity", o->gravity);
    cJSON_AddBoolToObject(j, "ground", s->p.ground);
    json_num(j, "damping", o->damping);
    if (soft_scene_is_bar(o->scene)) {
        json_num(j, "scale", o->scene == SCENE_BAR_TWIST ? 1.0 : o->scale);
        json_num(j, "turns", o->scene == SCENE_BAR_TWIST ? o->turns : 0.0);
        json_num(j, "ramp", o->ramp);
    }
    const int inverted = !t->unstable_step && ended_inverted(o, s, &st);
    cJSON_AddBoolToObject(j, "stable", !(t->unstable_step || inverted));
    if (t->unstable_step)
        cJSON_AddNumberToObject(j, "unstable_step", t->unstable_step);
    else
        cJSON_AddNullToObject(j, "unstable_step");
    /* unstable: a step failed the health check (the run ended there);
     * inverted: it ended with more tetrahedra inverted than --max-inverted
     * (inverted_elements); finished: every step asked for; interrupted: a
     * signal ended it after interrupted_after_step */
    cJSON_AddStringToObject(j, "status", t->unstable_step ? "unstable"
                                         : inverted       ? "inverted"
                                         : t->interrupted ? "interrupted"
                                                          : "finished");
    if (t->interrupted) {
        cJSON_AddStringToObject(j, "interrupted_by", stop_name());
        cJSON_AddNumberToObject(j, "interrupted_after_step", t->first + t->steps_done);
    } else {
        cJSON_AddNullToObject(j, "interrupted_by");
        cJSON_AddNullToObject(j, "interrupted_after_step");
    }
    cJSON_AddNumberToObject(j, "inverted_elements", st.inverted_elements); /* at the last step */
    /* steps the health check rolled back and --retries tried again */
    cJSON *retries = cJSON_AddArrayToObject(j, "retries");
    for (unsigned k = 0; k < t->retry_count && k < SIM_MAX_RETRIES_KEPT; k++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "step", t->retries[k].step);
        cJSON_AddNumberToObject(e, "substeps_before", t->retries[k].from);
        cJSON_AddNumberToObject(e, "substeps", t->retries[k].to);
        cJSON_AddNumberToObject(e, "back_to_step", t->retries[k].back);
        cJSON_AddItemToArray(retries, e);
    }
    cJSON_AddNumberToObject(j, "retry_count", t->retry_count);
    /* the run's cost per step: the world's, all bodies together, where there is one */
    const sinew_world_stats ws = s->world ? sinew_world_get_stats(s->world) : (sinew_world_stats){0};
    cJSON_AddNumberToObject(j, "dispatches_per_step", s->world ? ws.dispatches : st.dispatches);
    cJSON_AddNumberToObject(j, "barriers_per_step", s->world ? ws.barriers : st.barriers);
    cJSON_AddNumberToObject(j, "submits_per_step", s->world ? ws.submits : st.submits);
    cJSON_AddNumberToObject(j, "host_waits_per_step", s->world ? ws.host_waits : st.host_waits);
    cJSON_AddNumberToObject(j, "readback_bytes_per_step", (double)(s->world ? ws.readback_bytes : st.readback_bytes));
    cJSON_AddNumberToObject(j, "device_allocations", s->world ? ws.device_allocations : st.device_allocations);
    sim_world_json(j, o, s);
    if (o->self_collision) {
        cJSON *sc = cJSON_AddObjectToObject(j, "self_collision");
        json_num(sc, "thickness", o->thickness);
        cJSON_AddNumberToObject(sc, "capacity", o->self_capacity);
        cJSON_AddNumberToObject(sc, "candidates", (double)t->self_candidates);
        cJSON_AddNumberToObject(sc, "contacts", (double)t->self_contacts);
        cJSON_AddNumberToObject(sc, "dropped", (double)t->self_dropped);
    }
    if (o->intersections)
        cJSON_AddNumberToObject(j, "intersections", (double)t->crossings.pairs);
    if (s->world && o->intersections)
        cJSON_AddNumberToObject(j, "intersections_between_bodies", (double)t->between);
    if (o->check_outside > 0) {
        cJSON_AddNumberToObject(j, "inside_colliders", t->inside);
        json_num(j, "nearest_collider_distance", t->nearest);
    }
    if (o->flag) {
        cJSON *fl = cJSON_AddObjectToObject(j, "flag");
        json_num(fl, "fly_downwind", t->fly_downwind);
        json_num(fl, "fly_drop", t->fly_drop);
    }
    json_num(j, "ms_per_step_wall", wall_ms);
    json_num(j, "ms_per_step_gpu", gpu_step_ms >= 0 ? gpu_step_ms : NAN);
    json_num(j, "max_speed", t->fastest);
    json_num(j, "residual", t->residual >= 0 ? t->residual : NAN);
    json_num(j, "error_estimate", t->error_estimate >= 0 || isnan(t->error_estimate) ? t->error_estimate : NAN);
    json_num(j, "worst_residual", t->worst_residual >= 0 || isnan(t->worst_residual) ? t->worst_residual : NAN);
    if (t->static_error.error >= 0 || isnan(t->static_error.error))
        json_num(j, "static_error_estimate", t->static_error.error);
    if (ai.element_count) {
        json_num(j, "newton_mean", newton_mean);
        json_num(j, "newton_last_step", newton_last);
    }
    json_num(j, "run_seconds", t->wall);
    if (s->soft) {
        json_shape(j, "start", &t->start, -1);
        json_shape(j, "final", &t->last, (long)t->first + t->steps_done);
        json_shape(j, "worst", &t->worst, t->worst_step);
        cJSON_AddNumberToObject(j, "most_inverted_tets", t->most_inverted);
        cJSON *h = cJSON_AddObjectToObject(j, "health");
        cJSON_AddNumberToObject(h, "inverted_last", st.inverted_elements);
        cJSON_AddNumberToObject(h, "inverted_most", t->health_inverted);
        json_num(h, "volume_error_last", st.max_volume_error);
        json_num(h, "volume_error_worst", t->health_volume_error);
        cJSON_AddNumberToObject(h, "max_inverted", o->max_inverted);
        json_num(h, "max_volume_error", o->max_volume_error);
        if (is_block) {
            if (t->recovered_step >= 0)
                cJSON_AddNumberToObject(j, "recovered_step", (double)t->recovered_step);
            else
                cJSON_AddNullToObject(j, "recovered_step");
            cJSON_AddBoolToObject(j, "recovered_at_end", t->recovered_step >= 0 && shape_recovered(&t->last));
        }
    } else {
        json_num(j, "max_strain", st.max_strain);
        json_num(j, "worst_max_strain", t->worst_strain);
        json_num(j, "worst_rms_strain", t->worst_rms);
        const stretch_report sr = measure_stretch(s->xyz, s->ends, s->rest_length, s->left_out, ai.distance_count);
        cJSON *sj = cJSON_AddObjectToObject(j, "stretch");
        cJSON_AddNumberToObject(sj, "edges", sr.counted);
        json_num(sj, "median_rest_length", sr.median);
        json_num(sj, "max", sr.most);
        json_num(sj, "length_weighted_mean", sr.weighted);
        if (sr.worst != UINT32_MAX) {
            cJSON *we = cJSON_AddArrayToObject(sj, "worst_edge");
            cJSON_AddItemToArray(we, cJSON_CreateNumber(s->ends[2 * sr.worst]));
            cJSON_AddItemToArray(we, cJSON_CreateNumber(s->ends[2 * sr.worst + 1]));
            json_num(sj, "worst_rest_length", s->rest_length[sr.worst]);
        }
        cJSON_AddNumberToObject(sj, "short_edges", sr.short_count);
        json_num(sj, "short_max", sr.short_most);
        cJSON_AddNumberToObject(sj, "pinned_edges", sr.pinned_count);
        json_num(sj, "pinned_max", sr.pinned_most);
        cJSON_AddNumberToObject(sj, "cut_edges", sr.cut_count);
    }
    json_settings(j, o);
    cJSON_AddNumberToObject(j, "exit_status", status);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    FILE *f = text ? cli_open_output("sinew-sim", "--json", o->json) : NULL;
    if (!text)
        fprintf(stderr, "sinew-sim: out of host memory for --json\n");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    cJSON_free(text);
    if (f && (fclose(f) != 0 || !ok)) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o->json, strerror(errno));
        return 0;
    }
    return f != NULL;
}
#else
static int write_json(const options *o, const sim *s, const tally *t, const sinew_material *mat0, double wall_ms,
                      double gpu_step_ms, double newton_mean, double newton_last, int status)
{
    (void)o, (void)s, (void)t, (void)mat0, (void)wall_ms, (void)gpu_step_ms, (void)newton_mean, (void)newton_last,
        (void)status;
    return 0; /* sim_parse refuses --json in a build without cJSON */
}
#endif

/* A soft body's stability as the health check saw it: particles and
 * tetrahedra, so that no run reads "stable" with its elements inside out. */
static void soft_stability(const options *o, const tally *t, const sinew_step_stats *st)
{
    char bounds[128];
    if (o->max_inverted == UINT32_MAX && !isfinite(o->max_volume_error))
        snprintf(bounds, sizeof bounds, "none set (--max-inverted, --max-volume-error)");
    else if (o->max_inverted == UINT32_MAX)
        snprintf(bounds, sizeof bounds, "--max-volume-error %g", o->max_volume_error);
    else if (!isfinite(o->max_volume_error))
        snprintf(bounds, sizeof bounds, "--max-inverted %u", o->max_inverted);
    else
        snprintf(bounds, sizeof bounds, "--max-inverted %u, --max-volume-error %g", o->max_inverted,
                 o->max_volume_error);
    /* the failed step, rolled back, counts too */
    uint32_t most = st->inverted_elements > t->health_inverted ? st->inverted_elements : t->health_inverted;
    double worst = fmax(t->health_volume_error, st->max_volume_error);
    if (t->unstable_step) {
        printf("  stability       UNSTABLE at step %u:", t->unstable_step);
        const char *sep = "";
        if (st->bad_particles) {
            printf(" %u particles not finite or faster than %g m/s", st->bad_particles, o->max_speed);
            sep = ";";
        }
        if (st->inverted_elements > o->max_inverted) {
            printf("%s %u tetrahedra inverted (more than %u)", sep, st->inverted_elements, o->max_inverted);
            sep = ";";
        }
        if (st->max_volume_error > o->max_volume_error)
            printf("%s max |V/V0 - 1| %.3g (above %g)", sep, st->max_volume_error, o->max_volume_error);
        printf("\n");
    } else if (st->inverted_elements > end_bound(o)) { /* ended_inverted */
        printf("  stability       NOT STABLE: %u tetrahedra inverted at the last step%s, though every step passed "
               "the health check (fastest particle %.3g m/s; exit status 3)\n",
               st->inverted_elements, end_bound(o) ? ", above --max-inverted" : "", t->fastest);
    } else if (st->inverted_elements) {
        printf("  stability       finite, %u tetrahedra inverted at the last step (within --max-inverted %u): every "
               "step passed the health check (fastest particle %.3g m/s)\n",
               st->inverted_elements, end_bound(o), t->fastest);
    } else {
        printf("  stability       stable: every step passed the health check (fastest particle %.3g m/s)\n",
               t->fastest);
    }
    printf("  health check    tetrahedra: at most %u inverted in a step, max |V/V0 - 1| %.3g (%.3g last step); "
           "bounds: %s\n",
           most, worst, st->max_volume_error, bounds);
}

/* The summary, the checks and the JSON; the exit status. */
int sim_report(const options *o, const sim *s, const tally *t)
{
    const sinew_asset_info ai = s->ai;
    const sinew_step_stats st = sinew_body_get_stats(s->body);
    const unsigned steps = t->steps_done;
    const double updates = element_updates(o, s);
    const double wall_ms = steps ? 1e3 * t->step_wall / steps : 0.0;
    const double gpu_step_ms = t->gpu_steps ? t->gpu_ms / t->gpu_steps : -1.0;
    const double newton_mean = updates > 0 && steps ? t->newton_sum / (updates * steps) : 0.0;
    const double newton_last = updates > 0 ? st.newton_iterations / updates : 0.0;
    sinew_material mat0 = {0};
    if (s->soft)
        sinew_asset_get_material(s->asset, 0, &mat0);
    if (s->materials)
        mat0 = s->materials[0];
    const int is_block = o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM;
    printf("summary\n");
    printf("  device          %s (%s)\n", s->di.name, s->di.driver);
    if (s->soft) {
        printf("  scene           %s: %u particles (%u pinned), %u tetrahedra", s->name, ai.particle_count,
               ai.pinned_count, ai.tet_count);
        if (!o->asset_path)
            printf(", %u^3 vertices", o->cells);
        printf("\n  material        %s, E %g Pa, nu %g, %g kg/m^3\n",
               mat0.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "stable neo-Hookean" : "neo-Hookean",
               (double)mat0.youngs_modulus, (double)mat0.poisson_ratio, (double)mat0.density);
        if (o->solver == SINEW_SOLVER_MGPBD)
            printf("  solver          %s, %u substeps x %u outer iterations, CG <= %u, a hierarchy setup every %u "
                   "steps, %u dispatches per step\n",
                   sinew_solver_label(o->solver), o->substeps, o->iterations, o->cg_iterations, o->setup_interval,
                   st.dispatches);
        else if (o->solver == SINEW_SOLVER_IMPLICIT_PCG)
            printf("  solver          %s, %u substeps, a Newton step each, %u dispatches per step\n",
                   sinew_solver_label(o->solver), o->substeps, st.dispatches);
        else
            printf("  solver          %s, %u substeps x %u iterations, Newton <= %u (tolerance %g), %u dispatches "
                   "per step\n",
                   sinew_solver_label(o->solver), o->substeps, o->iterations, o->newton, o->newton_tol, st.dispatches);
        printf("  steps           %u of %.4g s (%u asked), gravity %g m/s^2, %s\n", steps, o->dt, o->frames,
               o->gravity, s->p.ground ? "ground" : "no ground");
        if (o->solver != SINEW_SOLVER_MGPBD && o->solver != SINEW_SOLVER_IMPLICIT_PCG)
            printf("  Newton          %.2f iterations per element update on average, %.2f in the last step "
                   "(bound %u)\n", newton_mean, newton_last, o->newton);
        soft_stability(o, t, &st);
    } else {
        printf("  solver          %s, %u substeps x %u iterations, %u dispatches per step\n",
               sinew_solver_label(o->solver), o->substeps, o->iterations, st.dispatches);
        printf("  steps           %u of %.4g s\n", steps, o->dt);
        if (t->unstable_step)
            printf("  stability       UNSTABLE at step %u\n", t->unstable_step);
    }
    if (t->retry_count) {
        printf("  retries         %u: a step failed the health check, or tetrahedra stayed inverted, and the run "
               "went back and on at twice the substeps:", t->retry_count);
        for (unsigned k = 0; k < t->retry_count && k < SIM_MAX_RETRIES_KEPT; k++)
            printf("%s step %u (back to step %u, %u substeps)", k ? "," : "", t->retries[k].step, t->retries[k].back,
                   t->retries[k].to);
        printf("%s; the run %s at %u substeps\n", t->retry_count > SIM_MAX_RETRIES_KEPT ? ", ..." : "",
               t->unstable_step ? "ended" : "went on", o->substeps);
    }
    if (t->interrupted)
        printf("  interrupted     by %s after step %u, %u of the %u steps asked: what follows is that step's\n",
               stop_name(), t->first + steps, steps, o->frames);
    if ((o->solver == SINEW_SOLVER_IMPLICIT_MG || o->solver == SINEW_SOLVER_IMPLICIT_PCG) && steps)
        printf("  linear solve    %.1f %s and %.1f ms per step; worst relative residual %.2e; %u solves above "
               "the tolerance\n",
               (double)t->linear_sum / steps, o->solver == SINEW_SOLVER_IMPLICIT_MG ? "V-cycles" : "PCG iterations",
               t->linear_ms / steps, t->linear_worst, t->linear_unconverged);
    if ((o->self_collision || (s->world && !o->no_contacts)) && steps)
        printf("  %s  thickness %g m: %.0f candidate pairs and %.0f contact projections per step; %llu "
               "candidates dropped (capacity %u)\n",
               o->self_collision ? "self-collision" : "contacts      ", o->thickness, (double)t->self_candidates / steps, (double)t->self_contacts / steps,
               (unsigned long long)t->self_dropped, o->self_capacity);
    if (o->intersections) {
        printf("  intersections   %llu pairs of triangles sharing no vertex intersect after the last step",
               (unsigned long long)t->crossings.pairs);
        if (t->crossings.pairs)
            printf(" (the first: %u and %u)", t->crossings.first_a, t->crossings.first_b);
        printf("\n");
        if (s->world)
            printf("  between bodies  %llu pairs of a triangle of each body intersect after the last step\n",
                   (unsigned long long)t->between);
    }
    sim_world_summary(o, s, steps);
    if (gpu_step_ms >= 0)
        printf("  time per step   %.3f ms GPU, %.3f ms wall\n", gpu_step_ms, wall_ms);
    else
        printf("  time per step   %.3f ms wall (no GPU timestamps)\n", wall_ms);
    if (s->soft) {
        printf("  volume error    last step: max %.3g%%, RMS %.3g%%, total %.3g%%; worst step %ld: max %.3g%%\n",
               100.0 * t->last.max_error, 100.0 * t->last.rms_error, 100.0 * t->last.total_error, t->worst_step,
               100.0 * t->worst.max_error);
        printf("  inverted tets   %u last step, at most %u (step %ld); max Green strain %.3g last step\n",
               t->last.inverted, t->most_inverted, t->worst_inverted_step, t->last.max_green);
        if (is_block) {
            printf("  start           %u inverted, max |V/V0 - 1| %.3g, max Green strain %.3g\n", t->start.inverted,
                   t->start.max_error, t->start.max_green);
            if (t->recovered_step >= 0)
                printf("  recovered       at step %ld (%.3g s): no inverted tetrahedra, Green strain < 1%%; %s at "
                       "the last step\n",
                       t->recovered_step, t->recovered_step * o->dt, shape_recovered(&t->last) ? "still" : "NOT");
            else
                printf("  recovered       no: not within %u steps\n", steps);
        }
    } else {
        /* Stretch at the last step, over edges of a meaningful length; then
         * the device's strain |C|/L of every distance constraint. */
        const stretch_report sr = measure_stretch(s->xyz, s->ends, s->rest_length, s->left_out, ai.distance_count);
        if (sr.worst != UINT32_MAX)
            printf("  stretch         %.3f%% at most at the last step, edge %u-%u (rest %.3g m), over the %u edges at "
                   "least a tenth of the median rest length %.3g m, free of pins and whole; %.3f%% length-weighted "
                   "mean\n",
                   100.0 * sr.most, s->ends[2 * sr.worst], s->ends[2 * sr.worst + 1], s->rest_length[sr.worst],
                   sr.counted, sr.median, 100.0 * sr.weighted);
        if (sr.pinned_count)
            printf("  edges at pins   %u left out above: at most %.3f%%, edge %u-%u (rest %.3g m)\n", sr.pinned_count,
                   100.0 * sr.pinned_most, s->ends[2 * sr.pinned_worst], s->ends[2 * sr.pinned_worst + 1],
                   s->rest_length[sr.pinned_worst]);
        if (sr.cut_count)
            printf("  cut edges       %u left out above (--cut-y: their ends part)\n", sr.cut_count);
        if (sr.short_count)
            printf("  short edges     %u shorter than %.3g m left out above: at most %.3g%%, edge %u-%u (rest %.3g m)\n",
                   sr.short_count, 0.1 * sr.median, 100.0 * sr.short_most, s->ends[2 * sr.short_worst],
                   s->ends[2 * sr.short_worst + 1], s->rest_length[sr.short_worst]);
        printf("  strain          max %.3f%% last step, %.3f%% worst step, RMS %.3f%% (|C|/L of every distance "
               "constraint, short edges included)\n",
               100.0 * st.max_strain, 100.0 * t->worst_strain, 100.0 * st.rms_strain);
    }
    if ((t->residual >= 0 || isnan(t->worst_residual)) && o->solver == SINEW_SOLVER_MGPBD)
        printf("  residual        %.3g last step, %.3g worst step (the dual residual |b| after the last outer "
               "iteration over its value at the first, in the step's last substep)\n",
               t->residual, t->worst_residual);
    else if (t->residual >= 0 || isnan(t->worst_residual))
        printf("  residual        %.3g last step, %.3g worst step (RMS of the solver's system at the end of each "
               "step's iterations: strain and radians; 0 solved exactly)\n",
               t->residual, t->worst_residual);
    if (t->error_estimate >= 0 || isnan(t->error_estimate))
        printf("  error estimate  %.3g last step (how far the body is from where its equations put it, relative "
               "to its deformation: docs/accuracy.md)\n", t->error_estimate);
    if (t->static_error.error >= 0 || isnan(t->static_error.error))
        printf("  error estimate  %.3g after the last step, static (a Newton step of the body's energy on the host, "
               "%u CG iterations%s: docs/accuracy.md)\n",
               t->static_error.error, t->static_error.iterations,
               t->static_error.converged ? "" : ", short of their tolerance: a lower bound");
    printf("  device memory   %.2f MiB body, %.2f MiB context\n", st.device_memory / 1048576.0,
           sinew_context_get_device_memory(s->ctx) / 1048576.0);
    printf("  run time        %.1f s\n", t->wall);
    printf("  final mesh      %s\n", t->mesh);
    if (*t->picture)
        printf("  picture         %s\n", t->picture);
    if (o->video)
        printf("  video           %s\n", o->video);
    if (o->checkpoint)
        printf("  checkpoint      %s (step %llu)\n", o->checkpoint, (unsigned long long)st.step_index);
    if (o->hash && s->world && !sim_world_hashes(s))
        return 1;
    if (o->hash && !s->world) {
        uint64_t h;
        if (sinew_body_state_hash(s->body, &h) != SINEW_RESULT_OK)
            return 1;
        printf("  state hash      %016llx\n", (unsigned long long)h);
    }
    int status = t->unstable_step || ended_inverted(o, s, &st) ? 3 : 0;
    if (o->check_strain > 0 && !(t->worst_rms <= o->check_strain)) {
        printf("  check           FAILED: RMS strain reached %.3g, above %.3g\n", t->worst_rms, o->check_strain);
        status = 3;
    } else if (o->check_strain > 0) {
        printf("  check           passed: RMS strain at most %.3g (limit %.3g)\n", t->worst_rms, o->check_strain);
    }
    if (o->check_residual > 0 && (t->error_estimate >= 0 || isnan(t->error_estimate))) {
        /* the error estimate where the body has one: the last step's, a body's resting error */
        const int ok = t->error_estimate <= o->check_residual;
        printf("  check           %s: error estimate %.3g at the last step, %s %.3g%s\n", ok ? "passed" : "FAILED",
               t->error_estimate, ok ? "within" : "above", o->check_residual,
               ok ? "" : " (more iterations or substeps, or a global solver: docs/accuracy.md)");
        status = ok ? status : 3;
    } else if (o->check_residual > 0 && (t->static_error.error >= 0 || isnan(t->static_error.error))) {
        /* a body of constraints: its static estimate after the last step */
        const int ok = t->static_error.error <= o->check_residual;
        printf("  check           %s: static error estimate %.3g after the last step, %s %.3g%s\n",
               ok ? "passed" : "FAILED", t->static_error.error, ok ? "within" : "above", o->check_residual,
               ok ? "" : " (more iterations or substeps: docs/accuracy.md)");
        status = ok ? status : 3;
    } else if (o->check_residual > 0 && !(t->worst_residual >= 0 || isnan(t->worst_residual))) {
        printf("  check           FAILED: --check-residual, but this solver measures no residual (docs/math.md 9)\n");
        status = 3;
    } else if (o->check_residual > 0 && !(t->worst_residual <= o->check_residual)) {
        printf("  check           FAILED: residual reached %.3g, above %.3g (more iterations or substeps)\n",
               t->worst_residual, o->check_residual);
        status = 3;
    } else if (o->check_residual > 0) {
        printf("  check           passed: residual at most %.3g (limit %.3g)\n", t->worst_residual,
               o->check_residual);
    }
    if (o->check_outside > 0) {
        static const char *const kinds[] = {"sphere", "capsule", "box", "mesh"};
        const sinew_shape *near = &s->shapes[t->nearest_shape];
        printf("  check           %s: %u particles deeper than %g m inside a collider of the list; the nearest, "
               "particle %u, %.3g m from collider %u's surface (a %s; negative: inside)\n",
               t->inside ? "FAILED" : "passed", t->inside, o->check_outside, t->nearest_particle, (double)t->nearest,
               t->nearest_shape, kinds[near->kind]);
        if (t->inside)
            status = 3;
    }
    if (o->flag)
        printf("  flag            its fly end %.3g m downwind of its hoist (along the horizontal wind), %.3g m "
               "below it (the middles of the two edges)\n",
               t->fly_downwind, t->fly_drop);
    if (o->check_downwind > 0) {
        const int ok = t->fly_downwind >= o->check_downwind; /* NaN fails */
        printf("  check           %s: the fly end %.3g m downwind of the hoist (at least %g m asked)\n",
               ok ? "passed" : "FAILED", t->fly_downwind, o->check_downwind);
        if (!ok)
            status = 3;
    }
    if (o->check_recovered && !(s->soft && !t->unstable_step && shape_recovered(&t->last))) {
        printf("  check           FAILED: not recovered at the last step\n");
        status = 3;
    } else if (o->check_recovered) {
        printf("  check           passed: recovered\n");
    }
    if (t->interrupted) /* 130 for Ctrl-C, whatever the checks said of the steps done */
        status = 128 + t->interrupted;
    if (o->json && !write_json(o, s, t, &mat0, wall_ms, gpu_step_ms, newton_mean, newton_last, status))
        return 1;
    return status;
}
