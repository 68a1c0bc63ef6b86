/* The Gmsh MSH reader's private parts, shared by volume_msh.c (2.2, the rest) and volume_msh4.c (4.1). */
#ifndef SINEW_PREP_VOLUME_MSH_H
#define SINEW_PREP_VOLUME_MSH_H

#include "volume.h"
#include "mesh_text.h"

#include "core/log.h"

#include <stddef.h>
#include <stdint.h>

#define MAX_ELEMENTS (1u << 28) /* elements of all types */

typedef struct tag_pair {
    uint64_t tag;
    uint32_t index;
} tag_pair;

/* A volume of 4.1's $Entities: its first physical tag is its region. */
typedef struct msh_volume {
    int64_t tag;
    int64_t physical;        /* the first physical tag; 0 when none */
    uint64_t physical_count;
    int warned;
} msh_volume;

/* A 4.1 element block of tetrahedra, whose entity gives their region. */
typedef struct tet_block {
    uint64_t index;          /* in the file, for messages */
    size_t mark;             /* where its header starts */
    int64_t dim, entity;
    uint32_t first, count;   /* tetrahedra first .. first + count - 1 */
} tet_block;

typedef struct msh_reader {
    const char *data;
    size_t size, pos;
    size_t mark;            /* start of what is being read, for messages */
    const char *name;
    const sinew_logger *lg;
    sinew_volume *v;
    int version;            /* 2 or 4 */
    int binary;
    size_t tag_size;        /* 4.1 binary: bytes of an unsigned integer */
    size_t line_end;        /* ASCII element records: end of the current line */
    sinew_text scratch;     /* strtod's NUL-terminated copy of a token */
    uint64_t *tags;         /* node tag of each vertex */
    tag_pair *sorted;       /* sparse tags: (tag, vertex) by tag; NULL when dense */
    uint64_t first_tag;     /* dense tags: first_tag + vertex */
    size_t tet_cap, region_cap;
    msh_volume *volumes;    /* 4.1 $Entities: volumes by tag; NULL without */
    uint32_t volume_count;
    int partitioned;        /* a $PartitionedEntities section */
    tet_block *blocks;
    size_t block_count, block_cap;
    uint64_t skipped;       /* elements of other types */
    int64_t first_skipped_type;
    int saw_tet10;
} msh_reader;

/* volume_msh.c: messages (a bad mesh), reading either encoding, nodes and tetrahedra. */
sinew_result msh_fail(msh_reader *r, const char *fmt, ...) SINEW_PRINTF(2, 3);
sinew_result msh_out_of_memory(msh_reader *r);
int msh_is_space(char c);
sinew_result msh_ascii_int(msh_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out);
sinew_result msh_ascii_double(msh_reader *r, const char *what, uint64_t index, double *out);
sinew_result msh_bin_int(msh_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out);
sinew_result msh_bin_size(msh_reader *r, const char *what, uint64_t *out);
sinew_result msh_take(msh_reader *r, void *dst, size_t n, const char *what);
sinew_result msh_read_count(msh_reader *r, const char *what, uint64_t max, uint64_t *out);
sinew_result msh_check_fits(msh_reader *r, uint64_t count, uint64_t bytes, const char *what);
sinew_result msh_end_line(msh_reader *r);
sinew_result msh_alloc_nodes(msh_reader *r, uint64_t count);
sinew_result msh_store_node(msh_reader *r, uint32_t i, uint64_t tag, const double p[3]);
sinew_result msh_ascii_element(msh_reader *r, int64_t block_type);
uint32_t msh_type_nodes(int64_t type);
void msh_skipped(msh_reader *r, int64_t type, uint64_t count);
sinew_result msh_add_tet(msh_reader *r, uint64_t element, const uint64_t nodes[4], uint32_t region);

/* volume_msh4.c: the sections of 4.1 (nodes, entities, elements) and the regions they give. */
sinew_result msh_read_nodes_4(msh_reader *r);
sinew_result msh_read_entities(msh_reader *r);
sinew_result msh_read_elements_4(msh_reader *r);
sinew_result msh_resolve_regions(msh_reader *r);

#endif
