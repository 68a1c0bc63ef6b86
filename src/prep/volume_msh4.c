/* Gmsh MSH 4.1: node blocks, $Entities and the regions they give, element blocks (the rest: volume_msh.c). */
#include "volume_msh.h"

#include "core/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

sinew_result msh_read_nodes_4(msh_reader *r)
{
    uint64_t blocks = 0, count = 0, min_tag = 0, max_tag = 0;
    sinew_result res;
    if (r->binary && (res = msh_end_line(r)))
        return res;
    if ((res = msh_read_count(r, "entity block count", UINT32_MAX, &blocks)) ||
        (res = msh_read_count(r, "node count", SINEW_VOLUME_MAX_VERTICES, &count)) ||
        (res = msh_read_count(r, "minimum node tag", UINT64_MAX, &min_tag)) ||
        (res = msh_read_count(r, "maximum node tag", UINT64_MAX, &max_tag)))
        return res;
    /* A block header is 4 values; a node a tag and 3 coordinates. */
    uint64_t block_bytes = r->binary ? 12 + r->tag_size : 8, node_bytes = r->binary ? 24 + r->tag_size : 8;
    if ((res = msh_check_fits(r, blocks, block_bytes, "node blocks")) ||
        (res = msh_check_fits(r, count, node_bytes, "nodes")) || (res = msh_alloc_nodes(r, count)))
        return res;
    uint64_t done = 0;
    for (uint64_t b = 0; b < blocks; b++) {
        int64_t dim = 0, entity = 0, parametric = 0;
        uint64_t n = 0;
        if (r->binary) {
            if ((res = msh_bin_int(r, "entity dimension", 0, 3, &dim)) ||
                (res = msh_bin_int(r, "entity tag", INT32_MIN, INT32_MAX, &entity)) ||
                (res = msh_bin_int(r, "parametric flag", 0, 1, &parametric)) ||
                (res = msh_bin_size(r, "block node count", &n)))
                return res;
        } else if ((res = msh_ascii_int(r, "entity dimension", 0, 3, &dim)) ||
                   (res = msh_ascii_int(r, "entity tag", -((int64_t)1 << 40), (int64_t)1 << 40, &entity)) ||
                   (res = msh_ascii_int(r, "parametric flag", 0, 1, &parametric)) ||
                   (res = msh_read_count(r, "block node count", UINT64_MAX, &n))) {
            return res;
        }
        if (n > count - done)
            return msh_fail(r, "node block %" PRIu64 " holds %" PRIu64 " nodes, more than the %" PRIu64
                               " the header has left", b, n, count - done);
        uint32_t first = (uint32_t)done, params = parametric ? (uint32_t)dim : 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t tag = 0;
            if ((res = msh_read_count(r, "node tag", UINT64_MAX, &tag)))
                return res;
            r->tags[first + i] = tag;
        }
        for (uint64_t i = 0; i < n; i++) {
            double p[6];
            uint64_t tag = r->tags[first + i];
            if (r->binary) {
                if ((res = msh_take(r, p, sizeof(double) * (3 + params), "node coordinates")))
                    return res;
            } else {
                for (uint32_t k = 0; k < 3 + params; k++)
                    if ((res = msh_ascii_double(r, "node", tag, &p[k])))
                        return res;
            }
            if ((res = msh_store_node(r, first + (uint32_t)i, tag, p)))
                return res;
        }
        done += n;
    }
    if (done != count)
        return msh_fail(r, "node blocks hold %" PRIu64 " nodes, the header says %" PRIu64, done, count);
    r->v->vertex_count = (uint32_t)count;
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ regions (4.1) */

static sinew_result note_block(msh_reader *r, uint64_t index, size_t header, int64_t dim, int64_t entity,
                               uint32_t first)
{
    if (!sinew_grow((void **)&r->blocks, &r->block_cap, r->block_count + 1, sizeof *r->blocks))
        return msh_out_of_memory(r);
    /* The header's first byte, past the blank space before it in ASCII. */
    while (!r->binary && header < r->size && msh_is_space(r->data[header]))
        header++;
    r->blocks[r->block_count++] = (tet_block){index, header, dim, entity, first, r->v->tet_count - first};
    return SINEW_RESULT_OK;
}

static int compare_volumes(const void *a, const void *b)
{
    const msh_volume *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* A 4-byte int of binary 4.1, or an ASCII integer. */
static sinew_result entity_int(msh_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    return r->binary ? msh_bin_int(r, what, lo, hi, out) : msh_ascii_int(r, what, lo, hi, out);
}

/* A count, then as many ints that must fit in the rest of the file; the
 * first goes to *first (when given). what names one ("physical tag"),
 * plural several. */
static sinew_result entity_tags(msh_reader *r, const char *what, const char *plural, uint64_t *count,
                                int64_t *first)
{
    char count_what[48];
    snprintf(count_what, sizeof count_what, "%s count", what);
    sinew_result res;
    if ((res = msh_read_count(r, count_what, UINT32_MAX, count)) ||
        (res = msh_check_fits(r, *count, r->binary ? 4 : 2, plural)))
        return res;
    if (r->binary && !first) {
        r->pos += (size_t)(*count * 4); /* checked to fit, and not needed */
        return SINEW_RESULT_OK;
    }
    for (uint64_t i = 0; i < *count; i++) {
        int64_t x = 0;
        if ((res = entity_int(r, what, INT32_MIN, INT32_MAX, &x)))
            return res;
        if (i == 0 && first)
            *first = x;
    }
    return SINEW_RESULT_OK;
}

/* One entity of dimension dim: its tag, a point's coordinates or another
 * entity's bounding box, its physical tags and (not points) the entities
 * bounding it. */
static sinew_result read_entity(msh_reader *r, int dim, msh_volume *e)
{
    int64_t tag = 0;
    uint64_t bounding = 0;
    double box[6];
    int coords = dim == 0 ? 3 : 6;
    sinew_result res;
    if ((res = entity_int(r, "entity tag", 0, INT32_MAX, &tag)))
        return res;
    if (r->binary) {
        if ((res = msh_take(r, box, sizeof(double) * (size_t)coords, "an entity's coordinates")))
            return res;
    } else {
        for (int k = 0; k < coords; k++)
            if ((res = msh_ascii_double(r, "entity", (uint64_t)tag, &box[k])))
                return res;
    }
    e->tag = tag;
    if ((res = entity_tags(r, "physical tag", "physical tags", &e->physical_count, &e->physical)))
        return res;
    if (dim > 0 && (res = entity_tags(r, "bounding entity", "bounding entities", &bounding, NULL)))
        return res;
    return SINEW_RESULT_OK;
}

/* Keeps the volumes (dimension 3), sorted by tag, a repeated tag refused. */
sinew_result msh_read_entities(msh_reader *r)
{
    static const char *const counts_what[4] = {"point count", "curve count", "surface count", "volume count"};
    static const char *const names[4] = {"points", "curves", "surfaces", "volumes"};
    uint64_t counts[4] = {0};
    sinew_result res;
    if (r->volumes)
        return msh_fail(r, "a second $Entities section");
    if (r->binary && (res = msh_end_line(r)))
        return res;
    for (int d = 0; d < 4; d++)
        if ((res = msh_read_count(r, counts_what[d], UINT32_MAX, &counts[d])))
            return res;
    /* A point: a tag, 3 reals and a count; others: a tag, 6 reals, 2 counts. */
    for (int d = 0; d < 4; d++) {
        uint64_t bytes = r->binary ? (d ? 52 + 2 * r->tag_size : 28 + r->tag_size) : (d ? 18 : 10);
        if ((res = msh_check_fits(r, counts[d], bytes, names[d])))
            return res;
    }
    r->volumes = malloc(sizeof *r->volumes * (counts[3] ? counts[3] : 1));
    if (!r->volumes)
        return msh_out_of_memory(r);
    for (int d = 0; d < 4; d++)
        for (uint64_t i = 0; i < counts[d]; i++) {
            msh_volume e = {0};
            if ((res = read_entity(r, d, &e)))
                return res;
            if (d == 3)
                r->volumes[i] = e;
        }
    r->volume_count = (uint32_t)counts[3];
    qsort(r->volumes, r->volume_count, sizeof *r->volumes, compare_volumes);
    for (uint32_t i = 1; i < r->volume_count; i++)
        if (r->volumes[i].tag == r->volumes[i - 1].tag)
            return msh_fail(r, "volume entity %" PRId64 " is given twice in $Entities", r->volumes[i].tag);
    return SINEW_RESULT_OK;
}

static msh_volume *find_volume(msh_reader *r, int64_t tag)
{
    size_t lo = 0, hi = r->volume_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->volumes[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->volume_count && r->volumes[lo].tag == tag ? &r->volumes[lo] : NULL;
}

/* Each block of tetrahedra takes its volume's first physical tag as region.
 * Without $Entities every region stays 0. */
sinew_result msh_resolve_regions(msh_reader *r)
{
    if (!r->volumes || r->block_count == 0)
        return SINEW_RESULT_OK;
    if (r->partitioned) {
        sinew_logf(r->lg, SINEW_LOG_WARNING, "mesh",
                   "%s: a partitioned mesh ($PartitionedEntities): its regions are not read, every tetrahedron is "
                   "in region 0",
                   r->name);
        return SINEW_RESULT_OK;
    }
    uint32_t several = 0;
    const msh_volume *first_several = NULL;
    for (size_t i = 0; i < r->block_count; i++) {
        const tet_block *b = &r->blocks[i];
        r->mark = b->mark;
        if (b->dim != 3)
            return msh_fail(r, "element block %" PRIu64 " holds tetrahedra but is of dimension %" PRId64 ", not 3",
                            b->index, b->dim);
        msh_volume *e = find_volume(r, b->entity);
        if (!e)
            return msh_fail(r, "element block %" PRIu64 ": volume entity %" PRId64 " is not in $Entities", b->index,
                            b->entity);
        if (e->physical_count == 0)
            continue;
        if (e->physical < 0)
            return msh_fail(r, "element block %" PRIu64 ": volume entity %" PRId64 " is in physical group %" PRId64
                               ", which is negative (regions are 0 or more)",
                            b->index, e->tag, e->physical);
        if (e->physical_count > 1 && !e->warned) {
            e->warned = 1;
            first_several = several++ == 0 ? e : first_several;
        }
        for (uint32_t t = b->first; t < b->first + b->count; t++)
            r->v->regions[t] = (uint32_t)e->physical;
    }
    if (several)
        sinew_logf(r->lg, SINEW_LOG_WARNING, "mesh",
                   "%s: %u volume entities are in several physical groups; each takes the first as its region "
                   "(first: volume entity %" PRId64 ", in %" PRIu64 " groups, region %" PRId64 ")",
                   r->name, several, first_several->tag, first_several->physical_count, first_several->physical);
    return SINEW_RESULT_OK;
}

sinew_result msh_read_elements_4(msh_reader *r)
{
    uint64_t blocks = 0, count = 0, min_tag = 0, max_tag = 0;
    sinew_result res;
    if (r->binary && (res = msh_end_line(r)))
        return res;
    if ((res = msh_read_count(r, "entity block count", UINT32_MAX, &blocks)) ||
        (res = msh_read_count(r, "element count", MAX_ELEMENTS, &count)) ||
        (res = msh_read_count(r, "minimum element tag", UINT64_MAX, &min_tag)) ||
        (res = msh_read_count(r, "maximum element tag", UINT64_MAX, &max_tag)))
        return res;
    uint64_t block_bytes = r->binary ? 12 + r->tag_size : 8, element_bytes = r->binary ? 2 * r->tag_size : 4;
    if ((res = msh_check_fits(r, blocks, block_bytes, "element blocks")) ||
        (res = msh_check_fits(r, count, element_bytes, "elements")))
        return res;
    uint64_t done = 0;
    for (uint64_t b = 0; b < blocks; b++) {
        int64_t dim = 0, entity = 0, type = 0;
        uint64_t n = 0;
        size_t header = r->pos;
        if (r->binary) {
            if ((res = msh_bin_int(r, "entity dimension", 0, 3, &dim)) ||
                (res = msh_bin_int(r, "entity tag", INT32_MIN, INT32_MAX, &entity)) ||
                (res = msh_bin_int(r, "element type", 1, INT32_MAX, &type)) ||
                (res = msh_bin_size(r, "block element count", &n)))
                return res;
        } else if ((res = msh_ascii_int(r, "entity dimension", 0, 3, &dim)) ||
                   (res = msh_ascii_int(r, "entity tag", -((int64_t)1 << 40), (int64_t)1 << 40, &entity)) ||
                   (res = msh_ascii_int(r, "element type", 1, INT32_MAX, &type)) ||
                   (res = msh_read_count(r, "block element count", UINT64_MAX, &n))) {
            return res;
        }
        if (n > count - done)
            return msh_fail(r, "element block %" PRIu64 " holds %" PRIu64 " elements, more than the %" PRIu64
                               " the header has left", b, n, count - done);
        uint32_t first = r->v->tet_count;
        if (!r->binary) {
            for (uint64_t i = 0; i < n; i++)
                if ((res = msh_ascii_element(r, type)))
                    return res;
        } else {
            uint32_t nodes = msh_type_nodes(type);
            if (nodes == 0)
                return msh_fail(r, "element type %" PRId64 " is unknown: its size in binary data cannot be told", type);
            if ((res = msh_check_fits(r, n, r->tag_size * (1 + nodes), "elements")))
                return res;
            if (type != 4) {
                msh_skipped(r, type, n);
                r->pos += (size_t)(n * r->tag_size * (1 + nodes));
            }
            for (uint64_t i = 0; type == 4 && i < n; i++) {
                uint64_t tag = 0, v[4] = {0};
                if ((res = msh_bin_size(r, "element tag", &tag)))
                    return res;
                for (int k = 0; k < 4; k++)
                    if ((res = msh_bin_size(r, "node tag", &v[k])))
                        return res;
                if ((res = msh_add_tet(r, tag, v, 0)))
                    return res;
            }
        }
        if (r->v->tet_count > first && (res = note_block(r, b, header, dim, entity, first)))
            return res;
        done += n;
    }
    if (done != count)
        return msh_fail(r, "element blocks hold %" PRIu64 " elements, the header says %" PRIu64, done, count);
    return SINEW_RESULT_OK;
}

