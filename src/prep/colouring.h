/* Graph colouring of constraints for Gauss-Seidel on the GPU: two constraints
 * that share a particle never share a colour, so each colour is one parallel
 * dispatch.
 *
 * Constraints are given as CSR: constraint c touches particles
 * indices[offsets[c] .. offsets[c+1]).
 */
#ifndef SINEW_PREP_COLOURING_H
#define SINEW_PREP_COLOURING_H

#include <sinew/core.h>

typedef enum sinew_colouring_method {
    /* First fit in input order: the baseline. */
    SINEW_COLOURING_GREEDY = 0,
    /* First fit in decreasing conflict-degree order, then a balancing pass that
     * moves constraints from large colours into smaller ones where allowed. */
    SINEW_COLOURING_BALANCED = 1,
} sinew_colouring_method;

typedef struct sinew_colouring {
    uint32_t colour_count;
    uint32_t *colour_of;    /* per constraint */
    uint32_t *sizes;        /* per colour */
} sinew_colouring;

sinew_result sinew_colour_constraints(uint32_t constraint_count, const uint32_t *offsets,
                                      const uint32_t *indices, uint32_t particle_count,
                                      sinew_colouring_method method, const sinew_logger *lg,
                                      sinew_colouring *out);

/* 1 when no particle appears twice within a colour and every colour is in range. */
int sinew_colouring_is_valid(const sinew_colouring *c, uint32_t constraint_count,
                             const uint32_t *offsets, const uint32_t *indices,
                             uint32_t particle_count);

void sinew_colouring_free(sinew_colouring *c);

#endif
