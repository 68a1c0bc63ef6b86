/* The clustered sweeps of an asset (format 1.5; docs/asset-format.md,
 * docs/colouring.md): their allocation and every check the loader makes of
 * them, so that a kernel indexing shared memory by an item's locals never
 * leaves its cluster and no two workgroups of a pass write one particle. */
#include "asset.h"

#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

int sinew_asset_alloc_clusters(sinew_asset *a, uint32_t passes, uint32_t clusters, uint32_t particles,
                               uint32_t colours, uint32_t items)
{
    SINEW_ASSERT(a);
    sinew_range_rec *p = calloc(passes ? passes : 1, sizeof *p);
    sinew_cluster_rec *k = calloc(clusters ? clusters : 1, sizeof *k);
    uint32_t *v = calloc(particles ? particles : 1, sizeof *v);
    sinew_range_rec *c = calloc(colours ? colours : 1, sizeof *c);
    sinew_citem_rec *i = calloc(items ? items : 1, sizeof *i);
    if (!p || !k || !v || !c || !i) {
        free(p);
        free(k);
        free(v);
        free(c);
        free(i);
        return 0;
    }
    free(a->cpasses);
    free(a->clusters);
    free(a->cparticles);
    free(a->ccolours);
    free(a->citems);
    a->cpasses = p;
    a->clusters = k;
    a->cparticles = v;
    a->ccolours = c;
    a->citems = i;
    a->cpass_count = passes;
    a->cluster_count = clusters;
    a->cparticle_count = particles;
    a->ccolour_count = colours;
    a->citem_count = items;
    return 1;
}

/* The vertices of constraint c (2 for a distance, 4 for a bend). */
static int constraint_vertices(const sinew_asset *a, uint32_t c, uint32_t v[4])
{
    if (c < a->distance_count) {
        v[0] = a->distances[c].a;
        v[1] = a->distances[c].b;
        return 2;
    }
    memcpy(v, a->bends[c - a->distance_count].v, 4 * sizeof *v);
    return 4;
}

/* Ranges that tile [0, total) in order. */
static sinew_result check_tiling(const sinew_asset *a, const char *name, const sinew_logger *lg, const char *tag,
                                 const sinew_range_rec *r, uint32_t count, uint32_t total, const char *what)
{
    (void)a;
    uint64_t next = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (r[k].begin != next || r[k].count == 0 || (uint64_t)r[k].begin + r[k].count > total)
            return sinew_asset_bad_record(lg, name, tag, k, "range [%u, +%u) of %s does not follow the one before "
                                          "it (%llu) within %u, or is empty", r[k].begin, r[k].count, what,
                                          (unsigned long long)next, total);
        next += r[k].count;
    }
    if (next != total)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section %s: ranges cover %llu of %u %s",
                          name, tag, (unsigned long long)next, total, what);
    return SINEW_RESULT_OK;
}

static sinew_result check_clusters(const sinew_asset *a, const char *name, const sinew_logger *lg, uint32_t *stamp)
{
    uint64_t next_particle = 0, next_colour = 0;
    for (uint32_t p = 0; p < a->cpass_count; p++)
        for (uint32_t k = a->cpasses[p].begin; k < a->cpasses[p].begin + a->cpasses[p].count; k++) {
            const sinew_cluster_rec *c = &a->clusters[k];
            if (c->particle_begin != next_particle || c->particle_count == 0 ||
                c->particle_count > SINEW_CLUSTER_MAX_PARTICLES ||
                (uint64_t)c->particle_begin + c->particle_count > a->cparticle_count)
                return sinew_asset_bad_record(lg, name, "CLUS", k, "particles [%u, +%u) do not follow the cluster "
                                              "before (%llu), or are not 1 to %u of the %u", c->particle_begin,
                                              c->particle_count, (unsigned long long)next_particle,
                                              SINEW_CLUSTER_MAX_PARTICLES, a->cparticle_count);
            if (c->colour_begin != next_colour || c->colour_count == 0 ||
                (uint64_t)c->colour_begin + c->colour_count > a->ccolour_count)
                return sinew_asset_bad_record(lg, name, "CLUS", k, "colours [%u, +%u) do not follow the cluster "
                                              "before (%llu) within the %u, or are none", c->colour_begin,
                                              c->colour_count, (unsigned long long)next_colour, a->ccolour_count);
            next_particle += c->particle_count;
            next_colour += c->colour_count;
            /* No particle twice in a pass: stamp p + 1. */
            for (uint32_t j = c->particle_begin; j < c->particle_begin + c->particle_count; j++) {
                uint32_t v = a->cparticles[j];
                if (v >= a->particle_count)
                    return sinew_asset_bad_record(lg, name, "CPRT", j, "particle index %u out of range (%u "
                                                  "particles)", v, a->particle_count);
                if (stamp[v] == p + 1)
                    return sinew_asset_bad_record(lg, name, "CPRT", j, "particle %u is in two clusters of pass %u",
                                                  v, p);
                stamp[v] = p + 1;
            }
        }
    if (next_particle != a->cparticle_count || next_colour != a->ccolour_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: sections CLUS, CPRT, CCOL: the clusters "
                          "hold %llu of %u particles and %llu of %u colours", name,
                          (unsigned long long)next_particle, a->cparticle_count, (unsigned long long)next_colour,
                          a->ccolour_count);
    return SINEW_RESULT_OK;
}

/* Items: each constraint once, locals inside the cluster naming the
 * constraint's own particles, no local twice in a colour. */
static sinew_result check_items(const sinew_asset *a, const char *name, const sinew_logger *lg, uint32_t *seen,
                                uint32_t *stamp)
{
    const uint32_t m = a->distance_count + a->bend_count;
    uint32_t colour_id = 0;
    for (uint32_t k = 0; k < a->cluster_count; k++) {
        const sinew_cluster_rec *c = &a->clusters[k];
        const uint32_t *local_of = &a->cparticles[c->particle_begin];
        for (uint32_t q = c->colour_begin; q < c->colour_begin + c->colour_count; q++) {
            colour_id++;
            const sinew_range_rec *col = &a->ccolours[q];
            for (uint32_t i = col->begin; i < col->begin + col->count; i++) {
                const sinew_citem_rec *it = &a->citems[i];
                if (it->constraint >= m)
                    return sinew_asset_bad_record(lg, name, "CITM", i, "constraint %u out of range (%u distances "
                                                  "and bends)", it->constraint, m);
                if (seen[it->constraint])
                    return sinew_asset_bad_record(lg, name, "CITM", i, "constraint %u is in two items",
                                                  it->constraint);
                seen[it->constraint] = 1;
                uint32_t v[4], local[4] = {it->local01 & 0xFFFFu, it->local01 >> 16, it->local23 & 0xFFFFu,
                                           it->local23 >> 16};
                int nv = constraint_vertices(a, it->constraint, v);
                for (int j = 0; j < 4; j++) {
                    if (j >= nv) {
                        if (local[j] != SINEW_CLUSTER_NO_LOCAL)
                            return sinew_asset_bad_record(lg, name, "CITM", i, "local %d of a distance is %u, not "
                                                          "0xFFFF", j, local[j]);
                        continue;
                    }
                    if (local[j] >= c->particle_count || local_of[local[j]] != v[j])
                        return sinew_asset_bad_record(lg, name, "CITM", i, "local %d (%u) does not name particle "
                                                      "%u of constraint %u in cluster %u (%u particles)", j,
                                                      local[j], v[j], it->constraint, k, c->particle_count);
                    if (stamp[v[j]] == colour_id)
                        return sinew_asset_bad_record(lg, name, "CITM", i, "particle %u appears twice in cluster "
                                                      "colour %u", v[j], q);
                    stamp[v[j]] = colour_id;
                }
            }
        }
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_validate_clusters(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    const uint32_t m = a->distance_count + a->bend_count;
    if (a->cpass_count == 0) {
        if (a->cluster_count || a->cparticle_count || a->ccolour_count || a->citem_count)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: sections CLUS, CPRT, CCOL, CITM hold "
                              "records without passes (CPAS)", name);
        return SINEW_RESULT_OK;
    }
    if (a->citem_count != m)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section CITM: %u items for %u distance "
                          "and bending constraints (one each)", name, a->citem_count, m);
    sinew_result r;
    if ((r = check_tiling(a, name, lg, "CPAS", a->cpasses, a->cpass_count, a->cluster_count, "clusters")) ||
        (r = check_tiling(a, name, lg, "CCOL", a->ccolours, a->ccolour_count, a->citem_count, "items")))
        return r;
    uint32_t *stamp = calloc(a->particle_count ? a->particle_count : 1, sizeof *stamp);
    uint32_t *seen = calloc(m ? m : 1, sizeof *seen);
    if (!stamp || !seen)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory to check the clusters",
                       name);
    if (r == SINEW_RESULT_OK && (r = check_clusters(a, name, lg, stamp)) == SINEW_RESULT_OK) {
        memset(stamp, 0, sizeof *stamp * a->particle_count);
        r = check_items(a, name, lg, seen, stamp);
    }
    free(stamp);
    free(seen);
    return r;
}
