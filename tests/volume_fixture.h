/* What the volume tests share: a capturing logger, a quiet one, file reading and tetrahedron volumes. */
#ifndef SINEW_VOLUME_FIXTURE_H
#define SINEW_VOLUME_FIXTURE_H

#include "prep/volume.h"

#include <stddef.h>
#include <stdint.h>

/* Records every message so tests can check what was reported. */
typedef struct capture {
    char text[8192];
    int errors, warnings;
} capture;

/* A logger into c (emptied), at every level. */
sinew_logger capture_logger(capture *c);

/* For inputs whose failure is expected and not under test. */
extern const sinew_logger quiet;

/* The whole file, with room for a NUL after it; the test fails if it cannot be read. */
char *read_bytes(const char *path, size_t *size);

/* A volume of the given vertices and tetrahedra (copies; sinew_volume_free frees). */
sinew_volume tiny_volume(const double *positions, uint32_t vertices, const uint32_t *tets, uint32_t count);

double tet_volume(const sinew_volume *v, uint32_t t);
double total_volume(const sinew_volume *v);

#endif
