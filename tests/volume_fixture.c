/* The volume tests' shared parts: a capturing logger, a quiet one, file reading and tetrahedron volumes. */
#include <criterion/criterion.h>

#include "volume_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    c->warnings += level == SINEW_LOG_WARNING;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_DEBUG};
}

static void ignore(void *user, sinew_log_level level, const char *id, const char *message) {}

const sinew_logger quiet = {ignore, NULL, SINEW_LOG_ERROR};

char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

double tet_volume(const sinew_volume *v, uint32_t t)
{
    const uint32_t *q = v->tets + 4 * (size_t)t;
    const double *p = v->positions;
    return sinew_tet_signed_volume(p + 3 * (size_t)q[0], p + 3 * (size_t)q[1], p + 3 * (size_t)q[2],
                                   p + 3 * (size_t)q[3]);
}

double total_volume(const sinew_volume *v)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < v->tet_count; t++)
        sum += tet_volume(v, t);
    return sum;
}

sinew_volume tiny_volume(const double *positions, uint32_t vertices, const uint32_t *tets, uint32_t count)
{
    sinew_volume v = {vertices, malloc(sizeof(double) * 3 * vertices), count, malloc(sizeof(uint32_t) * 4 * count)};
    memcpy(v.positions, positions, sizeof(double) * 3 * vertices);
    memcpy(v.tets, tets, sizeof(uint32_t) * 4 * count);
    return v;
}
