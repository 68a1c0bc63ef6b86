/* What every fuzz target shares: a logger that formats every message, debug
 * included, and throws it away (so the formatting runs but the fuzzer's output
 * stays readable), and checks that turn a broken promise of a reader into a
 * crash libFuzzer reports. A reader may refuse any input; what it accepts must
 * be consistent. */
#ifndef SINEW_FUZZ_COMMON_H
#define SINEW_FUZZ_COMMON_H

#include "prep/mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_discard(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    (void)level;
    (void)id;
    (void)message;
}

static const sinew_logger fuzz_logger = {fuzz_discard, NULL, SINEW_LOG_DEBUG};

/* A failed promise: abort, which libFuzzer reports as a crash with the input. */
#define FUZZ_CHECK(e)                                                                          \
    do {                                                                                       \
        if (!(e)) {                                                                            \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #e, __FILE__, __LINE__);        \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* What a reader promises about a mesh it returns: faces of at least three
 * vertices, in range, with increasing offsets, and finite positions. A refused
 * input leaves the mesh zeroed. Out of memory is no answer to an input of a
 * few kilobytes: it means a count was trusted before it was checked. */
static inline void fuzz_check_mesh(sinew_result r, const sinew_mesh *m)
{
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT);
    if (r != SINEW_RESULT_OK) {
        FUZZ_CHECK(!m->positions && !m->face_offsets && !m->face_indices);
        FUZZ_CHECK(m->vertex_count == 0 && m->face_count == 0);
        return;
    }
    FUZZ_CHECK(m->vertex_count > 0 && m->face_count > 0);
    for (uint32_t i = 0; i < 3 * m->vertex_count; i++)
        FUZZ_CHECK(isfinite(m->positions[i]));
    FUZZ_CHECK(m->face_offsets[0] == 0);
    for (uint32_t f = 0; f < m->face_count; f++) {
        FUZZ_CHECK(m->face_offsets[f + 1] >= m->face_offsets[f] + 3);
        for (uint32_t k = m->face_offsets[f]; k < m->face_offsets[f + 1]; k++)
            FUZZ_CHECK(m->face_indices[k] < m->vertex_count);
    }
}

#endif
