/* The world: many bodies stepped in one submit (include/sinew/world.h).
 *
 * Bodies of one position-based family whose descriptions agree are packed
 * into batches: asset/merge.c merges their assets, each body's records in
 * its own order within every colour, pass, element colour and level, and
 * the batch is an ordinary body of the merged asset, recorded once. The
 * other bodies are bodies of their own. Each step the world writes every
 * chain's parameters, submits all chains' recorded steps at once and waits
 * once:
 *
 *     sinew_world_step
 *       build            batches whose bodies changed: merge, create, carry
 *                        the state of the bodies already batched
 *       begin            per chain: parameters checked and written
 *       one submit       every chain's command buffer, one fence
 *       one wait
 *       end              per chain: statistics, health, rollback
 */
#include "world.h"

#include "checkpoint.h"
#include "collider.h"
#include "stages.h"

#include <sinew/vulkan.h>

#include "core/bytes.h"
#include "core/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_world_desc sinew_world_desc_default(void)
{
    sinew_world_desc d = {0};
    d.cookie = SINEW_DESC_COOKIE;
    d.batch = 1;
    return d;
}

sinew_result sinew_world_create(sinew_context *ctx, const sinew_world_desc *desc, sinew_world **out)
{
    SINEW_ASSERT(ctx && desc && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_world_desc_default");
    *out = NULL;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    sinew_world *w = calloc(1, sizeof *w);
    if (!w)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    w->ctx = ctx;
    w->desc = *desc;
    snprintf(w->name, sizeof w->name, "%s", desc->name ? desc->name : "world");
    w->desc.name = w->name;
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    VkResult vr = ctx->vk.vkCreateFence(ctx->device, &fi, NULL, &w->fence);
    if (vr != VK_SUCCESS) {
        free(w);
        return sinew_vk_fail(ctx, vr, "vkCreateFence", __FILE__, __LINE__);
    }
    w->stats.ms_total = -1.0;
    *out = w;
    return SINEW_RESULT_OK;
}

/* A member's handle is the application's until it destroys it: freed here. */
static void member_free(sinew_body *b)
{
    sinew_asset_destroy(b->asset);
    sinew_merge_map_free(&b->map);
    sinew_collider_destroy(b->collider);
    free(b);
}

static void batch_free(sinew_batch *t)
{
    if (t->body)
        sinew_body_unmake(t->body);
    free(t->members);
    memset(t, 0, sizeof *t);
}

void sinew_world_destroy(sinew_world *w)
{
    if (!w)
        return;
    sinew_context *ctx = w->ctx;
    for (uint32_t i = 0; i < w->batch_count; i++)
        batch_free(&w->batches[i]);
    free(w->batches);
    for (uint32_t i = 0; i < w->body_count; i++) {
        sinew_body *b = w->bodies[i];
        b->world = NULL;
        if (b->asset)
            member_free(b);
        else
            sinew_body_unmake(b);
    }
    free(w->bodies);
    free(w->chains);
    free(w->cmds);
    if (w->fence) {
        if (!ctx->lost)
            ctx->vk.vkWaitForFences(ctx->device, 1, &w->fence, VK_TRUE, UINT64_MAX);
        ctx->vk.vkDestroyFence(ctx->device, w->fence, NULL);
    }
    free(w);
}

/* The families a batch can hold: one recorded step serves bodies whose
 * records lie side by side. Frames (attachments) and pipelined steps stay
 * a body's own; mesh colliders of the list are borrowed at creation only. */
static int batchable(const sinew_world *w, const sinew_body_desc *d)
{
    const sinew_solver_ops *ops = sinew_solver_row_of(d->solver)->ops;
    return w->desc.batch && (ops == &sinew_pbd_ops || ops == &sinew_pd_ops) && d->attachment_count == 0 &&
           d->frame_count == 0 && !d->pipelined && d->mesh_count == 0;
}

/* Two descriptions one batch can follow: the same in everything but the
 * name and the materials (which the merged asset carries per body). */
static int descs_agree(const sinew_body_desc *a, const sinew_body_desc *b)
{
#define SAME(f) (a->f == b->f)
    return SAME(solver) && SAME(substeps) && SAME(iterations) && SAME(stretch_compliance) &&
           SAME(shear_compliance) && SAME(bend_compliance) && SAME(jacobi_omega) && SAME(residual) &&
           SAME(timestamps) && SAME(health_check) && SAME(max_speed) && SAME(max_inverted) &&
           SAME(max_volume_error) && SAME(rollback) && SAME(newton_iterations) && SAME(newton_tolerance) &&
           SAME(level_iterations) && SAME(sweep_order) && SAME(sweep_layout) && SAME(chebyshev_rho) &&
           SAME(chebyshev_delay) && SAME(normals) && SAME(collider) && SAME(self_collision) &&
           SAME(self_thickness) && SAME(self_friction) && SAME(self_capacity) && SAME(origin[0]) &&
           SAME(origin[1]) && SAME(origin[2]) && SAME(render_mesh) && SAME(max_shapes) && SAME(drag) &&
           SAME(lift) && SAME(tethers) && SAME(tether_scale);
#undef SAME
}

/* A copy of the asset that the body keeps (with the desc's materials). */
static sinew_result clone_asset(sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d, sinew_asset **out)
{
    void *bytes = NULL;
    size_t size = 0;
    sinew_result r = sinew_asset_serialize(a, &bytes, &size, &ctx->logger);
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_load_memory(bytes, size, d->name ? d->name : "body", &ctx->logger, out);
    free(bytes);
    if (r == SINEW_RESULT_OK && d->materials)
        memcpy((*out)->materials, d->materials, sizeof *d->materials * (*out)->material_count);
    return r;
}

/* A body is made in its world, or alone. */
sinew_result sinew_body_create(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc,
                               sinew_body **out)
{
    SINEW_ASSERT(ctx && asset && desc && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_body_desc_default");
    *out = NULL;
    /* The body's frame is the asset's origin moved by desc.origin, summed in
     * double: the positions stay the asset's small numbers. */
    sinew_body_desc own = *desc;
    for (int k = 0; k < 3; k++)
        own.origin[k] = asset->origin[k] + desc->origin[k];
    return desc->world ? sinew_world_add_body(desc->world, ctx, asset, &own, out)
                       : sinew_body_make(ctx, asset, &own, out);
}

/* A body in a world leaves it first (a member of a batch is freed there). */
void sinew_body_destroy(sinew_body *b)
{
    if (!b)
        return;
    const int member = b->asset != NULL;
    if (b->world)
        sinew_world_remove_body(b->world, b);
    if (!member)
        sinew_body_unmake(b);
}

sinew_result sinew_world_add_body(sinew_world *w, sinew_context *ctx, const sinew_asset *asset,
                                  const sinew_body_desc *desc, sinew_body **out)
{
    SINEW_ASSERT(w && ctx && asset && desc && out);
    *out = NULL;
    if (ctx != w->ctx)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "world",
                          "world '%s' was made on another context", w->name);
    sinew_result r = sinew_body_check(ctx, asset, desc);
    if (r != SINEW_RESULT_OK)
        return r;
    /* One step's ground and colliders serve every body: one frame for all. */
    const double *o = desc->origin, *first = w->body_count ? w->bodies[0]->desc.origin : o;
    if (o[0] != first[0] || o[1] != first[1] || o[2] != first[2])
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "world",
                          "body '%s' has origin (%.17g, %.17g, %.17g) m (its asset's plus desc.origin) but world "
                          "'%s' has its bodies at (%.17g, %.17g, %.17g): a world's bodies share one origin, as they "
                          "share the step's ground and colliders; give desc.origin the difference and move its "
                          "positions by the opposite (sinew/world.h)", desc->name ? desc->name : "body", o[0], o[1],
                          o[2], w->name, first[0], first[1], first[2]);
    if (w->body_count == w->body_capacity) {
        uint32_t cap = w->body_capacity ? 2 * w->body_capacity : 8;
        sinew_body **grown = realloc(w->bodies, sizeof *grown * cap);
        if (!grown)
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
        w->bodies = grown;
        w->body_capacity = cap;
    }
    sinew_body_desc own = *desc;
    own.world = NULL;
    sinew_body *b = NULL;
    if (!batchable(w, desc)) {
        if ((r = sinew_body_make(ctx, asset, &own, &b)) != SINEW_RESULT_OK)
            return r;
    } else {
        b = calloc(1, sizeof *b);
        if (!b)
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
        if ((r = clone_asset(ctx, asset, desc, &b->asset)) != SINEW_RESULT_OK) {
            free(b);
            return r;
        }
        b->refs = 1;
        b->ctx = ctx;
        b->desc = own;
        b->solver = sinew_solver_row_of(desc->solver);
        snprintf(b->name, sizeof b->name, "%s", desc->name ? desc->name : "body");
        b->desc.name = b->name;
        b->desc.materials = NULL;
        b->desc.meshes = NULL;
        b->collider = desc->collider;
        if (b->collider)
            sinew_collider_retain(b->collider);
        b->particle_count = asset->particle_count;
        b->distance_count = asset->distance_count;
        b->bend_count = asset->bend_count;
        b->element_count = asset->element_count;
        b->material_count = asset->material_count;
        b->triangle_count = asset->triangle_count;
        if ((r = sinew_render_map_plan(b, asset)) != SINEW_RESULT_OK) { /* as its batch will */
            member_free(b);
            return r;
        }
        sinew_body_unmeasured(&b->stats);
        b->build = sinew_world_build;
    }
    b->world = w;
    b->world_name = w->name;
    w->dirty = 1; /* its batch, or the chains' contact lists */
    w->bodies[w->body_count++] = b;
    *out = b;
    return SINEW_RESULT_OK;
}

void sinew_world_remove_body(sinew_world *w, sinew_body *b)
{
    uint32_t k = 0;
    while (k < w->body_count && w->bodies[k] != b)
        k++;
    SINEW_ASSERT(k < w->body_count && "the body is in its world");
    memmove(&w->bodies[k], &w->bodies[k + 1], sizeof *w->bodies * (w->body_count - k - 1));
    w->body_count--;
    b->world = NULL;
    w->dirty = 1;
    if (!b->asset)
        return; /* a body of its own: the caller destroys it */
    for (uint32_t i = 0; i < w->batch_count; i++) {
        sinew_batch *t = &w->batches[i];
        for (uint32_t j = 0; j < t->member_count; j++)
            if (t->members[j] == b) {
                memmove(&t->members[j], &t->members[j + 1], sizeof *t->members * (t->member_count - j - 1));
                t->member_count--;
                break;
            }
    }
    member_free(b);
    w->dirty = 1;
}

/* The batch holding exactly these members in this order, or NULL. */
static sinew_batch *batch_of(sinew_world *w, sinew_body *const *members, uint32_t count)
{
    for (uint32_t i = 0; i < w->batch_count; i++) {
        sinew_batch *t = &w->batches[i];
        if (t->body && t->member_count == count && memcmp(t->members, members, sizeof *members * count) == 0)
            return t;
    }
    return NULL;
}

/* Carries each member's state from the batch it was in (if any) into the
 * new batch's state: positions (inverse masses with them, so pins stay
 * pinned), velocities and hinge angles. */
static sinew_result carry_state(sinew_body *body, sinew_body *const *members, const sinew_merge_map *maps,
                                uint32_t count)
{
    int any = 0;
    for (uint32_t k = 0; k < count; k++)
        any |= members[k]->batch != NULL;
    if (!any)
        return SINEW_RESULT_OK;
    const size_t floats = sinew_body_state_floats(body);
    float *state = malloc(4 * floats + 4), *old = NULL;
    if (!state)
        return sinew_fail(&body->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    sinew_result r = sinew_body_download_state(body, state);
    const size_t n = body->particle_count;
    for (uint32_t k = 0; k < count && r == SINEW_RESULT_OK; k++) {
        sinew_body *m = members[k];
        if (!m->batch)
            continue;
        float *own = malloc(4 * ((size_t)8 * m->particle_count + m->bend_count) + 4);
        if (!own) {
            r = sinew_fail(&body->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
            break;
        }
        if ((r = sinew_body_download_state(m, own)) == SINEW_RESULT_OK) {
            const size_t p0 = maps[k].particle_first, mn = m->particle_count;
            memcpy(&state[4 * p0], own, 16 * mn);
            memcpy(&state[4 * (n + p0)], own + 4 * mn, 16 * mn);
            for (uint32_t c = 0; c < m->bend_count; c++)
                state[8 * n + maps[k].bend_of[c]] = own[8 * mn + c];
        }
        free(own);
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_body_load_state(body, state, 0);
    free(state);
    free(old);
    return r;
}

/* Makes the batch of these members: their assets merged, a body of the
 * first one's description, their state carried. */
static sinew_result build_batch(sinew_world *w, sinew_body *const *members, uint32_t count, uint32_t index,
                                sinew_batch *out, sinew_merge_map *maps)
{
    sinew_context *ctx = w->ctx;
    const sinew_asset **assets = malloc(sizeof *assets * count);
    if (!assets)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    for (uint32_t k = 0; k < count; k++)
        assets[k] = members[k]->asset;
    sinew_asset *merged = NULL;
    sinew_result r = sinew_asset_merge(assets, count, &ctx->logger, &merged, maps);
    free(assets);
    if (r != SINEW_RESULT_OK)
        return r;
    char name[64];
    snprintf(name, sizeof name, "%.40s/batch %u", w->name, index);
    sinew_body_desc d = members[0]->desc;
    d.name = name;
    d.world = NULL;
    d.materials = NULL;
    /* contact within the batch: self-collision over all its surfaces (the
     * position-based solvers' only) */
    d.self_collision |= w->desc.contacts && sinew_solver_row_of(d.solver)->ops == &sinew_pbd_ops;
    memset(out, 0, sizeof *out);
    r = sinew_body_make(ctx, merged, &d, &out->body);
    sinew_asset_destroy(merged);
    if (r == SINEW_RESULT_OK)
        r = carry_state(out->body, members, maps, count);
    if (r == SINEW_RESULT_OK && !(out->members = malloc(sizeof *out->members * count)))
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    if (r != SINEW_RESULT_OK) {
        batch_free(out);
        for (uint32_t k = 0; k < count; k++)
            sinew_merge_map_free(&maps[k]);
        return r;
    }
    memcpy(out->members, members, sizeof *members * count);
    out->member_count = count;
    return SINEW_RESULT_OK;
}

/* Which members can share a batch with the first of a group. */
static int joins(const sinew_body *first, const sinew_body *m)
{
    const sinew_asset *a = first->asset, *b = m->asset;
    /* the symmetric sweep runs its last colour (or pass) once, between the
     * forward and the backward sweep: a body with fewer colours than the
     * batch would run its own last one twice */
    if (first->desc.solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL &&
        (a->colour_count != b->colour_count || a->cpass_count != b->cpass_count))
        return 0;
    return descs_agree(&first->desc, &m->desc) && sinew_asset_merge_conflict(a, b) == NULL;
}

static uint32_t chains_of(const sinew_world *w, sinew_body **out);

/* The chains a step submits, kept with their command buffers, so that a
 * step allocates nothing (made again when the world is built). */
static sinew_result list_chains(sinew_world *w)
{
    const uint32_t most = w->body_count + w->batch_count + 1;
    sinew_body **chains = realloc(w->chains, sizeof *chains * most);
    if (chains)
        w->chains = chains;
    VkCommandBuffer *cmds = chains ? realloc(w->cmds, sizeof *cmds * most) : NULL;
    if (cmds)
        w->cmds = cmds;
    if (!chains || !cmds)
        return sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    w->chain_count = chains_of(w, w->chains);
    for (uint32_t i = 0; i < w->chain_count; i++)
        w->cmds[i] = w->chains[i]->cmd;
    return SINEW_RESULT_OK;
}

/* The world's index of each particle of a chain: a batch's members'
 * ranges, or the body itself. */
static void chain_bodies(const sinew_world *w, const sinew_body *chain, uint32_t *out)
{
    for (uint32_t k = 0; k < w->body_count; k++) {
        const sinew_body *b = w->bodies[k];
        if (b == chain)
            for (uint32_t i = 0; i < b->particle_count; i++)
                out[i] = k;
        else if (b->asset && b->batch == chain)
            for (uint32_t i = 0; i < b->particle_count; i++)
                out[b->map.particle_first + i] = k;
    }
}

/* Contact in a world (world.h): every position-based chain that collides
 * (the world's contacts, or its bodies' own self-collision) gets a table of
 * which body each particle is (its own and its contact bodies') and each
 * body's filter (collision_category, collision_mask, self_collision; no
 * body touches another without the world's contacts), planned into its
 * self-collision. Bodies of one batch meet in its own query; the other
 * chains come through its contact list (body_contacts.c): in one submit a
 * chain's copies of the others' positions follow every chain submitted
 * before it (its first copy's barrier orders them), so it sees those at
 * the end of this step and the later ones at its start: across chains the
 * order matters, as it does not within a batch. */
static sinew_result contact_tables(sinew_world *w)
{
    const uint32_t B = w->body_count;
    sinew_body **chains = malloc(sizeof *chains * (B + w->batch_count + 1)), **others = NULL;
    uint32_t *filter = malloc(sizeof *filter * (3 * (size_t)B + 1));
    sinew_result r = SINEW_RESULT_OK;
    const uint32_t count = chains ? chains_of(w, chains) : 0;
    if (!chains || !filter || !(others = malloc(sizeof *others * (count + 1))))
        r = sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    for (uint32_t k = 0; k < B && r == SINEW_RESULT_OK; k++) {
        const sinew_body_desc *d = &w->bodies[k]->desc;
        filter[3 * k] = w->desc.contacts ? d->collision_category : 0u;
        filter[3 * k + 1] = d->collision_mask;
        filter[3 * k + 2] = d->self_collision ? 1u : 0u;
    }
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) {
        sinew_body *c = chains[i];
        if (sinew_body_ops(c) != &sinew_pbd_ops || !c->surface || !(w->desc.contacts || c->desc.self_collision))
            continue; /* self-collision is the position-based solvers' (XPBD, GPBD, HPBD) */
        uint32_t n = 0;
        uint64_t particles = c->particle_count;
        for (uint32_t j = 0; j < count && w->desc.contacts; j++)
            if (j != i && chains[j]->surface && n < SINEW_MAX_CONTACT_BODIES) {
                others[n++] = chains[j];
                particles += chains[j]->particle_count;
            }
        sinew_selfcol_bodies *t = calloc(1, sizeof *t);
        uint32_t *body_of = malloc(sizeof *body_of * (particles + 1)), *f = malloc(sizeof *f * (3 * (size_t)B + 1));
        if (!t || !body_of || !f) {
            free(t), free(body_of), free(f);
            r = sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
            break;
        }
        chain_bodies(w, c, body_of);
        uint64_t at = c->particle_count;
        for (uint32_t j = 0; j < n; j++) {
            chain_bodies(w, others[j], body_of + at);
            at += others[j]->particle_count;
        }
        memcpy(f, filter, sizeof *f * 3 * B);
        *t = (sinew_selfcol_bodies){body_of, (uint32_t)particles, f, B};
        if (c->world_bodies) {
            free(c->world_bodies->body_of);
            free(c->world_bodies->filter);
            free(c->world_bodies);
        }
        c->world_bodies = t;
        r = sinew_body_set_contacts(c, others, n);
    }
    free(chains);
    free(others);
    free(filter);
    return r;
}

sinew_result sinew_world_build(sinew_world *w)
{
    /* while building, a member's calls (its state carried) reach the batch
     * it is still in */
    if (!w->dirty || w->building)
        return SINEW_RESULT_OK;
    sinew_context *ctx = w->ctx;
    const uint32_t n = w->body_count;
    /* group the members: each joins the first group it fits */
    sinew_body **order = malloc(sizeof *order * (n + 1));
    uint32_t *group_of = malloc(sizeof *group_of * (n + 1)), *firsts = malloc(sizeof *firsts * (n + 1));
    uint32_t *index = malloc(sizeof *index * (n + 1));
    sinew_batch *fresh = calloc(n + 1, sizeof *fresh);
    sinew_merge_map *maps = calloc(n + 1, sizeof *maps), *new_map = calloc(n + 1, sizeof *new_map);
    sinew_body **new_batch = calloc(n + 1, sizeof *new_batch);
    int *reused = calloc(n + 1, sizeof *reused);
    sinew_result r = SINEW_RESULT_OK;
    if (!order || !group_of || !firsts || !index || !fresh || !maps || !new_map || !new_batch || !reused)
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    uint32_t groups = 0, built = 0;
    w->building = 1;
    for (uint32_t i = 0; i < n && r == SINEW_RESULT_OK; i++) {
        sinew_body *b = w->bodies[i];
        if (!b->asset)
            continue;
        uint32_t g = 0;
        while (g < groups && !joins(w->bodies[firsts[g]], b))
            g++;
        if (g == groups)
            firsts[groups++] = i;
        group_of[i] = g;
    }
    /* every batch made before any member moves to one: on failure the
     * world is as it was */
    for (uint32_t g = 0; g < groups && r == SINEW_RESULT_OK; g++) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; i++)
            if (w->bodies[i]->asset && group_of[i] == g) {
                index[count] = i;
                order[count++] = w->bodies[i];
            }
        const sinew_batch *same = batch_of(w, order, count);
        if (same) { /* unchanged: kept as it is */
            fresh[built] = *same;
            reused[built++] = 1;
            continue;
        }
        memset(maps, 0, sizeof *maps * count);
        if ((r = build_batch(w, order, count, built, &fresh[built], maps)) != SINEW_RESULT_OK)
            break;
        for (uint32_t k = 0; k < count; k++) {
            new_map[index[k]] = maps[k];
            new_batch[index[k]] = fresh[built].body;
        }
        built++;
    }
    w->building = 0;
    if (r != SINEW_RESULT_OK) {
        for (uint32_t i = 0; i < built; i++)
            if (!reused[i])
                batch_free(&fresh[i]);
        for (uint32_t i = 0; i < n && new_map; i++)
            sinew_merge_map_free(&new_map[i]);
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (new_batch[i]) {
                sinew_merge_map_free(&w->bodies[i]->map);
                w->bodies[i]->map = new_map[i];
                w->bodies[i]->batch = new_batch[i];
            }
        for (uint32_t i = 0; i < w->batch_count; i++) { /* the batches no group kept */
            int kept = 0;
            for (uint32_t j = 0; j < built && !kept; j++)
                kept = reused[j] && fresh[j].body == w->batches[i].body;
            if (!kept)
                batch_free(&w->batches[i]);
        }
        free(w->batches);
        w->batches = fresh;
        w->batch_count = built;
        fresh = NULL;
        w->dirty = 0;
        r = contact_tables(w);
        if (r == SINEW_RESULT_OK)
            r = list_chains(w);
        w->dirty = r != SINEW_RESULT_OK;
    }
    free(order), free(group_of), free(firsts), free(index), free(fresh), free(maps), free(new_map);
    free(new_batch), free(reused);
    return r;
}

/* The recorded steps the world submits: its batches', then its own bodies'. */
static uint32_t chains_of(const sinew_world *w, sinew_body **out)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < w->batch_count; i++)
        if (w->batches[i].body)
            out[count++] = w->batches[i].body;
    for (uint32_t i = 0; i < w->body_count; i++)
        if (!w->bodies[i]->asset)
            out[count++] = w->bodies[i];
    return count;
}

/* Every chain's statistics gathered into the world's, and each member's
 * as its batch's. */
static void gather_stats(sinew_world *w, sinew_body *const *chains, uint32_t count)
{
    sinew_world_stats *s = &w->stats;
    s->body_count = w->body_count;
    s->chain_count = count;
    s->dispatches = s->barriers = s->device_allocations = s->bad_particles = s->inverted_elements = 0;
    s->bytes = s->device_memory = 0;
    s->rolled_back = 0;
    s->ms_total = -1.0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_step_stats *c = &chains[i]->stats;
        s->dispatches += c->dispatches;
        s->barriers += c->barriers;
        s->bytes += c->bytes;
        s->device_memory += c->device_memory;
        s->device_allocations += c->device_allocations;
        s->bad_particles += c->bad_particles;
        s->inverted_elements += c->inverted_elements;
        s->rolled_back |= c->rolled_back;
        if (c->ms_total >= 0.0)
            s->ms_total = (s->ms_total < 0.0 ? 0.0 : s->ms_total) + c->ms_total;
    }
    for (uint32_t i = 0; i < w->body_count; i++) {
        sinew_body *b = w->bodies[i];
        if (b->asset && b->batch)
            b->stats = b->batch->stats;
    }
}

sinew_result sinew_world_step(sinew_world *w, const sinew_step_params *p)
{
    SINEW_ASSERT(w && p);
    sinew_context *ctx = w->ctx;
    if (w->recorded)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "world",
                          "world '%s': a recorded step was not collected (sinew_world_collect_stats)", w->name);
    sinew_result r = sinew_world_build(w);
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_counters before = ctx->counters;
    sinew_body **chains = w->chains;
    const uint32_t count = w->chain_count;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) /* may record a chain's step again */
        r = sinew_body_begin_step(chains[i], p);
    for (uint32_t i = 0; i < count; i++)
        w->cmds[i] = chains[i]->cmd;
    if (r == SINEW_RESULT_OK && count)
        r = sinew_submit_many(ctx, w->cmds, count, w->fence);
    if (r == SINEW_RESULT_OK && count) {
        VkResult vr = ctx->vk.vkWaitForFences(ctx->device, 1, &w->fence, VK_TRUE, UINT64_MAX);
        ctx->counters.host_waits++;
        if (vr != VK_SUCCESS)
            r = sinew_vk_fail(ctx, vr, "vkWaitForFences", __FILE__, __LINE__);
    }
    if (r == SINEW_RESULT_OK) {
        for (uint32_t i = 0; i < count; i++) {
            sinew_result e = sinew_body_end_step(chains[i]);
            r = r == SINEW_RESULT_OK ? e : r;
        }
        w->stats.step_index++;
    }
    const sinew_counters *now = &ctx->counters;
    w->stats.submits = (uint32_t)(now->submits - before.submits);
    w->stats.host_waits = (uint32_t)(now->host_waits - before.host_waits);
    w->stats.readback_bytes = now->readback_bytes - before.readback_bytes;
    for (uint32_t i = 0; i < count; i++) { /* each chain shared the world's submit and wait */
        chains[i]->stats.submits = w->stats.submits;
        chains[i]->stats.host_waits = w->stats.host_waits;
        chains[i]->stats.readback_bytes = w->stats.readback_bytes;
    }
    gather_stats(w, chains, count);
    return r;
}

sinew_result sinew_world_record_step(sinew_world *w, VkCommandBuffer cmd, const sinew_step_params *p)
{
    SINEW_ASSERT(w && cmd && p);
    sinew_result r = sinew_world_build(w);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t i = 0; i < w->chain_count && r == SINEW_RESULT_OK; i++)
        r = sinew_body_record_into(w->chains[i], cmd, p);
    w->recorded = r == SINEW_RESULT_OK && w->chain_count;
    gather_stats(w, w->chains, w->chain_count);
    return r;
}

sinew_result sinew_world_collect_stats(sinew_world *w)
{
    SINEW_ASSERT(w);
    if (!w->recorded)
        return sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "world",
                          "world '%s': no recorded step to collect (sinew_world_record_step)", w->name);
    w->recorded = 0;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < w->chain_count; i++) {
        sinew_result e = sinew_body_collect_from(w->chains[i]);
        r = r == SINEW_RESULT_OK ? e : r;
    }
    w->stats.step_index++;
    gather_stats(w, w->chains, w->chain_count);
    return r;
}

sinew_world_stats sinew_world_get_stats(const sinew_world *w)
{
    SINEW_ASSERT(w);
    return w->stats;
}

uint32_t sinew_world_get_body_count(const sinew_world *w)
{
    SINEW_ASSERT(w);
    return w->body_count;
}

sinew_body *sinew_world_get_body(const sinew_world *w, uint32_t index)
{
    SINEW_ASSERT(w && index < w->body_count);
    return w->bodies[index];
}

sinew_result sinew_world_state_hash(sinew_world *w, uint64_t *hash)
{
    SINEW_ASSERT(w && hash);
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < w->body_count; i++) {
        uint64_t one = 0;
        sinew_result r = sinew_body_state_hash(w->bodies[i], &one);
        if (r != SINEW_RESULT_OK)
            return r;
        for (int k = 0; k < 8; k++) {
            h ^= (one >> 8 * k) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    *hash = h;
    return SINEW_RESULT_OK;
}

/* A world's checkpoint: "SNWW", version 1, the chain count, then each
 * chain's body checkpoint (docs/checkpoint-format.md) after its size
 * (u64), in the world's chain order; read by checkpoint_read.c. */

static sinew_result world_chains(sinew_world *w, sinew_body ***out, uint32_t *count)
{
    sinew_result r = sinew_world_build(w);
    if (r != SINEW_RESULT_OK)
        return r;
    *out = malloc(sizeof **out * (w->body_count + w->batch_count + 1));
    if (!*out)
        return sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "world", "out of host memory");
    *count = chains_of(w, *out);
    return SINEW_RESULT_OK;
}

size_t sinew_world_checkpoint_size(sinew_world *w)
{
    SINEW_ASSERT(w);
    sinew_body **chains = NULL;
    uint32_t count = 0;
    if (world_chains(w, &chains, &count) != SINEW_RESULT_OK)
        return 0;
    size_t size = SINEW_WORLD_CHECKPOINT_HEADER;
    for (uint32_t i = 0; i < count; i++)
        size += 8 + sinew_body_checkpoint_size(chains[i]);
    free(chains);
    return size;
}

sinew_result sinew_world_save_checkpoint(sinew_world *w, void *dst, size_t size)
{
    SINEW_ASSERT(w && dst);
    const size_t need = sinew_world_checkpoint_size(w);
    if (need == 0 || size < need)
        return sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "world '%s': a checkpoint needs %zu bytes, the buffer has %zu", w->name, need, size);
    sinew_body **chains = NULL;
    uint32_t count = 0;
    sinew_result r = world_chains(w, &chains, &count);
    if (r != SINEW_RESULT_OK)
        return r;
    uint8_t *p = dst;
    memset(p, 0, SINEW_WORLD_CHECKPOINT_HEADER);
    memcpy(p, "SNWW", 4);
    sinew_put_u32(p + 4, 1);
    sinew_put_u32(p + 8, count);
    size_t at = SINEW_WORLD_CHECKPOINT_HEADER;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) {
        const size_t one = sinew_body_checkpoint_size(chains[i]);
        sinew_put_u64(p + at, one);
        r = sinew_body_save_checkpoint(chains[i], p + at + 8, one);
        at += 8 + one;
    }
    free(chains);
    return r;
}

/* The chains' states as they are, into *backup (each its checkpoint, one
 * after the other), so that a refused load can put them back. */
static sinew_result back_up(sinew_body **chains, uint32_t count, const sinew_logger *lg, uint8_t **backup)
{
    size_t total = 0, at = 0;
    for (uint32_t i = 0; i < count; i++)
        total += sinew_body_checkpoint_size(chains[i]);
    *backup = malloc(total + 1);
    if (!*backup)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) {
        const size_t one = sinew_body_checkpoint_size(chains[i]);
        r = sinew_body_save_checkpoint(chains[i], *backup + at, one);
        at += one;
    }
    return r;
}

/* Chains 0 .. count - 1 back to their states in backup (each checkpoint's
 * size from its header: a chain's size may have changed with what it
 * loaded). */
static void restore(sinew_body **chains, uint32_t count, const uint8_t *backup)
{
    size_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        const size_t one = SINEW_CHECKPOINT_HEADER + sinew_get_u32(backup + at + SINEW_CK_PAYLOAD_SIZE);
        sinew_body_load_checkpoint(chains[i], backup + at, one);
        at += one;
    }
}

sinew_result sinew_world_load_checkpoint(sinew_world *w, const void *src, size_t size)
{
    SINEW_ASSERT(w && (src || size == 0));
    const sinew_logger *lg = &w->ctx->logger;
    const uint8_t *p = src;
    sinew_body **chains = NULL;
    uint32_t count = 0, held = 0;
    /* the header first: no batch is built for bytes that are no world checkpoint */
    sinew_result r = sinew_checkpoint_world_header(src, size, w->name, lg, &held);
    if (r == SINEW_RESULT_OK)
        r = world_chains(w, &chains, &count);
    size_t *at = r == SINEW_RESULT_OK ? malloc(sizeof *at * 2 * ((size_t)count + 1)) : NULL;
    if (r == SINEW_RESULT_OK && !at)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    if (r == SINEW_RESULT_OK) /* every chain's part in bounds first */
        r = sinew_checkpoint_world_chains(src, size, count, w->name, lg, at, at + count + 1);
    /* the state as it is kept, so a chain that refuses its part leaves every
     * chain as it was */
    uint8_t *backup = NULL;
    if (r == SINEW_RESULT_OK)
        r = back_up(chains, count, lg, &backup);
    uint32_t loaded = 0;
    for (; loaded < count && r == SINEW_RESULT_OK; loaded++)
        r = sinew_body_load_checkpoint(chains[loaded], p + at[loaded], at[count + 1 + loaded]);
    if (r != SINEW_RESULT_OK && backup && loaded) /* the chains loaded already go back */
        restore(chains, loaded - 1, backup);
    free(backup);
    free(at);
    free(chains);
    return r;
}

sinew_result sinew_world_save_checkpoint_file(sinew_world *w, const char *path)
{
    SINEW_ASSERT(w && path);
    const size_t size = sinew_world_checkpoint_size(w);
    void *bytes = size ? malloc(size) : NULL;
    if (!bytes)
        return sinew_fail(&w->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_result r = sinew_world_save_checkpoint(w, bytes, size);
    if (r == SINEW_RESULT_OK)
        r = sinew_file_write_replace(path, bytes, size, &w->ctx->logger, "checkpoint");
    free(bytes);
    return r;
}

sinew_result sinew_world_load_checkpoint_file(sinew_world *w, const char *path)
{
    SINEW_ASSERT(w && path);
    uint8_t *bytes;
    size_t size;
    /* No more than a checkpoint of this world holds: a larger file is
     * refused on its size, before any read. */
    sinew_result r = sinew_world_build(w);
    if (r == SINEW_RESULT_OK)
        r = sinew_file_read(path, sinew_world_checkpoint_size(w), &w->ctx->logger, "checkpoint", &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_world_load_checkpoint(w, bytes, size);
    free(bytes);
    return r;
}
