/* MGPBD's images on the device (shared/layout.h, SINEW_AMG_*): the finest
 * operator's pattern, built from the constraints that share moving
 * particles; the static part of AMG_INDEX and AMG_REAL (constraints,
 * adjacency, the finest operator, vectors, scalars); the host's AMG
 * hierarchy laid out after it at every setup; each image split into chunks
 * of one storage buffer each, and the copies between them and the host. */
#include "mgpbd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the finest operator's pattern */

typedef struct entry { uint32_t col, pairs; } entry;

/* Room for entry len of a row being gathered (doubling). */
static int room(entry **row, size_t *cap, size_t len)
{
    if (len < *cap)
        return 1;
    size_t grown_cap = *cap ? 2 * *cap : 64;
    entry *grown = realloc(*row, sizeof **row * grown_cap);
    if (!grown)
        return 0;
    *row = grown;
    *cap = grown_cap;
    return 1;
}

static int entry_cmp(const void *x, const void *y)
{
    uint32_t a = ((const entry *)x)->col, b = ((const entry *)y)->col;
    return (a > b) - (a < b);
}

/* The (row slot, column slot) pairs of an entry ordered by the particle
 * they name, so that A_ij and A_ji add the same terms in the same order: the
 * assembled matrix is symmetric to the bit, which the host's setup checks. */
static uint32_t sort_pairs(uint32_t packed, const uint32_t *row_cons)
{
    uint32_t count = packed & 7u, pair[4];
    for (uint32_t q = 0; q < count; q++)
        pair[q] = (packed >> (3 + 4 * q)) & 15u;
    for (uint32_t a = 1; a < count; a++)
        for (uint32_t b = a; b > 0 && row_cons[pair[b - 1] & 3u] > row_cons[pair[b] & 3u]; b--) {
            uint32_t t = pair[b];
            pair[b] = pair[b - 1];
            pair[b - 1] = t;
        }
    uint32_t out = count;
    for (uint32_t q = 0; q < count; q++)
        out |= pair[q] << (3 + 4 * q);
    return out;
}

/* The finest operator's pattern (its values, zero, live on the device).
 * Constraints i and j are neighbours when they share a particle that moves
 * (w > 0); PAIRS[e] lists the slots of the shared particles. Every row has
 * its diagonal. cons: 4 particles per constraint (NONE past a distance's). */
static sinew_result build_pattern(sinew_mgpbd *s, const uint32_t *cons, const uint32_t *adj_start,
                                  const uint32_t *adj, uint32_t **pairs_out)
{
    const uint32_t m = s->m;
    uint32_t *mark = malloc(sizeof *mark * ((size_t)m + 1)), *where = malloc(sizeof *where * ((size_t)m + 1));
    size_t cap = 16 * (size_t)m + 16, nnz = 0;
    uint32_t *col = malloc(sizeof *col * cap), *pairs = malloc(sizeof *pairs * cap);
    entry *row = NULL;
    size_t row_cap = 0;
    s->pattern.rows = s->pattern.cols = m;
    s->pattern.row = calloc((size_t)m + 1, sizeof *s->pattern.row);
    if (!mark || !where || !col || !pairs || !s->pattern.row)
        goto fail;
    for (uint32_t i = 0; i < m; i++)
        mark[i] = UINT32_MAX;
    for (uint32_t i = 0; i < m; i++) {
        size_t len = 0;
        for (uint32_t si = 0; si < 4; si++) {
            uint32_t p = cons[4 * i + si];
            if (p == SINEW_AMG_NONE || s->w[p] == 0.0f)
                continue;
            for (uint32_t e = adj_start[p]; e < adj_start[p + 1]; e++) {
                uint32_t j = adj[e] >> 2, sj = adj[e] & 3u;
                if (mark[j] != i) {
                    if (!room(&row, &row_cap, len))
                        goto fail;
                    mark[j] = i;
                    where[j] = (uint32_t)len;
                    row[len].col = j;
                    row[len].pairs = 0;
                    len++;
                }
                uint32_t *pk = &row[where[j]].pairs, count = *pk & 7u;
                *pk = (*pk & ~7u) | ((si | sj << 2) << (3 + 4 * count)) | (count + 1);
            }
        }
        if (mark[i] != i) { /* a constraint of pinned particles only: alpha~ alone */
            if (!room(&row, &row_cap, len))
                goto fail;
            mark[i] = i;
            row[len].col = i;
            row[len].pairs = 0;
            len++;
        }
        for (size_t k = 0; k < len; k++) /* shared particles in increasing order: row j adds them as row i does */
            row[k].pairs = sort_pairs(row[k].pairs, &cons[4 * i]);
        qsort(row, len, sizeof *row, entry_cmp);
        if (nnz + len > SINEW_CSR_MAX_NNZ) {
            free(mark), free(where), free(col), free(pairs), free(row);
            return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_LIMIT, "mgpbd",
                              "the dual system has more than %u nonzeros", SINEW_CSR_MAX_NNZ);
        }
        while (nnz + len > cap) {
            cap *= 2;
            uint32_t *c2 = realloc(col, sizeof *col * cap), *p2 = c2 ? realloc(pairs, sizeof *pairs * cap) : NULL;
            if (c2)
                col = c2;
            if (!p2)
                goto fail;
            pairs = p2;
        }
        for (size_t k = 0; k < len; k++) {
            col[nnz] = row[k].col;
            pairs[nnz++] = row[k].pairs;
        }
        s->pattern.row[i + 1] = (uint32_t)nnz;
    }
    free(mark);
    free(where);
    free(row);
    s->pattern.col = col;
    s->pattern.val = calloc(nnz + 1, sizeof *s->pattern.val); /* values live on the device */
    *pairs_out = pairs;
    if (!s->pattern.val) {
        free(pairs);
        return sinew_mgpbd_oom(s);
    }
    return SINEW_RESULT_OK;
fail:
    free(mark);
    free(where);
    free(col);
    free(pairs);
    free(row);
    return sinew_mgpbd_oom(s);
}

/* ---------------------------------------------------------------- buffers */

/* Chunk c of an image: AMG_INDEX (real 0) or AMG_REAL (real 1). */
static sinew_buffer *chunk(sinew_mgpbd *s, int real, uint32_t c)
{
    return &s->own[(real ? SINEW_AMG_BIND_REAL : SINEW_AMG_BIND_INDEX) + c];
}

/* An image's chunks with room for `words`, keeping what they hold: a chunk
 * too small is replaced by a larger one (a quarter to spare) with its
 * contents copied over. */
static sinew_result reserve_image(sinew_mgpbd *s, int real, uint64_t words, uint64_t *capacity)
{
    sinew_context *ctx = s->ctx;
    const uint64_t per = 1ull << s->chunk_shift;
    const char *what = real ? "MGPBD values" : "MGPBD indices";
    if (words > SINEW_AMG_CHUNKS * per)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_LIMIT, "mgpbd",
                          "%s need %llu bytes, more than %u storage buffers of %llu bytes (this device's "
                          "maxStorageBufferRange) hold", what, 4ull * (unsigned long long)words, SINEW_AMG_CHUNKS,
                          4ull * (unsigned long long)per);
    for (uint32_t c = 0; c < SINEW_AMG_CHUNKS; c++) {
        sinew_buffer *old = chunk(s, real, c);
        uint64_t need = words > c * per ? words - c * per : 0;
        need = need > per ? per : need;
        if (need * 4 <= old->size && old->buffer)
            continue;
        uint64_t want = need + need / 4;
        want = want > per ? per : want;
        sinew_buffer fresh = {0};
        sinew_result r = sinew_buffer_create(ctx, want ? 4 * want : 16, SINEW_MEMORY_DEVICE, what, &fresh);
        if (r == SINEW_RESULT_OK && old->buffer && old->size > 16)
            r = sinew_buffer_copy(ctx, old, 0, &fresh, 0, old->size);
        if (r != SINEW_RESULT_OK) {
            sinew_buffer_destroy(ctx, &fresh);
            return r;
        }
        sinew_buffer_destroy(ctx, old);
        *old = fresh;
    }
    *capacity = 0;
    for (uint32_t c = 0; c < SINEW_AMG_CHUNKS; c++)
        *capacity += chunk(s, real, c)->size / 4;
    return SINEW_RESULT_OK;
}

/* Both images with room for words and floats; the descriptor set made anew
 * when a buffer changed. */
static sinew_result reserve(sinew_mgpbd *s, uint64_t words, uint64_t floats)
{
    if (words <= s->index_capacity && floats <= s->real_capacity && s->ws.own.pool)
        return SINEW_RESULT_OK;
    sinew_result r = reserve_image(s, 0, words, &s->index_capacity);
    if (r == SINEW_RESULT_OK)
        r = reserve_image(s, 1, floats, &s->real_capacity);
    if (r == SINEW_RESULT_OK)
        r = sinew_workspace_bind(s->ctx, &s->ws, s->body, s->own, SINEW_AMG_BINDINGS);
    return r;
}

/* Copies count words between the host and an image at word offset at,
 * chunk by chunk. */
static sinew_result image_io(sinew_mgpbd *s, int real, uint64_t at, void *data, uint64_t count, int download)
{
    const uint64_t per = 1ull << s->chunk_shift;
    uint8_t *p = data;
    while (count) {
        uint32_t c = (uint32_t)(at / per);
        uint64_t o = at % per, n = per - o < count ? per - o : count;
        sinew_result r = download ? sinew_buffer_download(s->ctx, chunk(s, real, c), 4 * o, p, 4 * n)
                                  : sinew_buffer_upload(s->ctx, chunk(s, real, c), 4 * o, p, 4 * n);
        if (r != SINEW_RESULT_OK)
            return r;
        if (download)
            s->counters.readback_bytes += 4 * n;
        else
            s->counters.upload_bytes += 4 * n;
        at += n;
        p += 4 * n;
        count -= n;
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_upload(sinew_mgpbd *s, int real, uint64_t at, const void *data, uint64_t count)
{
    return image_io(s, real, at, (void *)data, count, 0);
}

sinew_result sinew_mgpbd_download(sinew_mgpbd *s, int real, uint64_t at, void *data, uint64_t count)
{
    return image_io(s, real, at, data, count, 1);
}

sinew_result sinew_mgpbd_submit(sinew_mgpbd *s, sinew_recorder *r)
{
    s->counters.submits++;
    s->counters.dispatches += r->dispatches;
    s->counters.barriers += r->barriers;
    return sinew_workspace_submit(r, &s->ws);
}

/* Entry i of the power iteration's deterministic start vector, in [-1, 1). */
static float power_start(uint32_t i)
{
    uint32_t x = i + 0x9e3779b9u; /* an integer hash (lowbias32) */
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return (float)((double)x / 2147483648.0 - 1.0);
}

/* Appends the power iteration's start vector of rows entries. */
static uint32_t put_power_start(sinew_image *real, uint32_t rows)
{
    const uint32_t at = sinew_image_reserve(real, rows);
    float chunk[256];
    for (uint32_t i = 0; i < rows; i += 256) {
        uint32_t n = rows - i < 256 ? rows - i : 256;
        for (uint32_t k = 0; k < n; k++)
            chunk[k] = power_start(i + k);
        sinew_image_write(real, at + i, chunk, n);
    }
    return at;
}

/* ---------------------------------------------------------------- the images */

/* Appends a matrix record to the index image, its rows and columns (and
 * each row's diagonal entry when diag) after it; its values are at val in
 * AMG_REAL. Returns the record's offset. */
static uint32_t put_matrix(sinew_image *index, const sinew_csr *M, uint32_t val, int diag)
{
    const uint32_t nnz = M->row[M->rows];
    uint32_t rec[SINEW_AMG_MAT] = {0};
    const uint32_t at = sinew_image_reserve(index, SINEW_AMG_MAT);
    rec[SINEW_AMG_M_ROWS] = M->rows;
    rec[SINEW_AMG_M_COLS] = M->cols;
    rec[SINEW_AMG_M_VAL] = val;
    rec[SINEW_AMG_M_NNZ] = nnz;
    rec[SINEW_AMG_M_ROW] = sinew_image_put(index, M->row, M->rows + 1ull);
    rec[SINEW_AMG_M_COL] = sinew_image_put(index, M->col, nnz);
    rec[SINEW_AMG_M_DIAG] = SINEW_AMG_NONE;
    if (diag) {
        rec[SINEW_AMG_M_DIAG] = sinew_image_reserve(index, M->rows);
        for (uint32_t i = 0; i < M->rows; i++) {
            uint32_t e = M->row[i];
            while (e < M->row[i + 1] && M->col[e] != i)
                e++;
            sinew_image_write(index, rec[SINEW_AMG_M_DIAG] + i, &e, 1); /* sinew_amg_setup refuses a missing diagonal */
        }
    }
    sinew_image_write(index, at, rec, SINEW_AMG_MAT);
    return at;
}

/* Appends M's values, as floats, to the real image; returns their offset. */
static uint32_t put_values(sinew_image *real, const sinew_csr *M)
{
    const uint32_t nnz = M->row[M->rows], at = sinew_image_reserve(real, nnz);
    float v[256];
    for (uint32_t e = 0; e < nnz; e += 256) {
        const uint32_t count = nnz - e < 256 ? nnz - e : 256;
        for (uint32_t k = 0; k < count; k++)
            v[k] = (float)M->val[e + k];
        sinew_image_write(real, at + e, v, count);
    }
    return at;
}

/* amg_product's way for C = X Y: a row of C per invocation (mode bit 1)
 * when no row needs more than SINEW_AMG_LOOP_BUDGET loop iterations (each
 * term once: the cheap way), else an entry per invocation (bounded by X's
 * row length). llvmpipe ends an invocation's loops after 65 535 in all. */
static uint32_t product_mode(const sinew_csr *C, const sinew_csr *X, const sinew_csr *Y)
{
    for (uint32_t i = 0; i < C->rows; i++) {
        uint32_t len = C->row[i + 1] - C->row[i], search = 1;
        while ((1u << search) <= len)
            search++;
        uint64_t cost = len;
        for (uint32_t k = X->row[i]; k < X->row[i + 1]; k++)
            cost += (uint64_t)(Y->row[X->col[k] + 1] - Y->row[X->col[k]]) * (search + 1);
        if (cost > SINEW_AMG_LOOP_BUDGET)
            return 0;
    }
    return 2;
}

/* The longest row of m. */
static uint32_t longest_row(const sinew_csr *m)
{
    uint32_t most = 0;
    for (uint32_t i = 0; i < m->rows; i++)
        most = m->row[i + 1] - m->row[i] > most ? m->row[i + 1] - m->row[i] : most;
    return most;
}

/* Lays the hierarchy s->amg out after the static part and uploads it.
 * Levels 1..gram_levels get their coarse operators in the Gram form (X_l =
 * R_{l-1} X_{l-1}, X_0 = s->x0 in the static part), as long as X_l's rows
 * stay within SINEW_AMG_GRAM_ROW_MAX; the levels below, from A_l P_l. */
sinew_result sinew_mgpbd_upload_hierarchy(sinew_mgpbd *s)
{
    const sinew_amg *H = &s->amg;
    sinew_csr X[SINEW_AMG_MAX_LEVELS];
    memset(X, 0, sizeof X);
    sinew_result r = SINEW_RESULT_OK;
    uint32_t g = 0;
    for (uint32_t l = 1; s->gram && l < H->levels && r == SINEW_RESULT_OK; l++) {
        r = sinew_csr_multiply(&H->L[l - 1].R, l == 1 ? &s->x0 : &X[l - 1], &X[l], &s->ctx->logger);
        if (r != SINEW_RESULT_OK || longest_row(&X[l]) > SINEW_AMG_GRAM_ROW_MAX) {
            sinew_csr_free(&X[l]);
            break;
        }
        g = l;
    }
    if (r != SINEW_RESULT_OK) {
        for (uint32_t l = 0; l < SINEW_AMG_MAX_LEVELS; l++)
            sinew_csr_free(&X[l]);
        return r;
    }
    /* Both images go on where the static part ends. */
    sinew_image index, real;
    sinew_image_init(&index, 4, s->static_words);
    sinew_image_init(&real, 4, s->static_floats);
    for (uint32_t l = 0; l < H->levels; l++) {
        const sinew_amg_level *L = &H->L[l];
        level_gpu *G = &s->L[l];
        G->rows = L->A.rows;
        G->nnz = L->A.row[L->A.rows];
        G->X = G->AP = SINEW_AMG_NONE;
        G->x_nnz = G->ap_nnz = 0;
        G->a_mode = G->x_mode = G->ap_mode = 0;
        if (l > 0 && l <= g)
            G->x_mode = product_mode(&X[l], &H->L[l - 1].R, l == 1 ? &s->x0 : &X[l - 1]);
        else if (l > 0)
            G->a_mode = product_mode(&L->A, &H->L[l - 1].R, &H->L[l - 1].AP);
        if (l + 1 < H->levels && l + 1 > g)
            G->ap_mode = product_mode(&L->AP, &L->A, &L->P);
        if (l == 0) {
            G->A = s->a0;
            G->a_val = s->a0_val;
            G->r = s->vsr;
            G->d = s->vsd;
            G->e = s->ve;
            if (g > 0) {
                G->X = s->x0_rec;
                G->x_nnz = s->x0.row[s->x0.rows];
            }
        } else {
            G->a_val = put_values(&real, &L->A);
            G->A = put_matrix(&index, &L->A, G->a_val, 1);
            G->x = sinew_image_reserve(&real, 4ull * L->A.rows);
            G->f = G->x + L->A.rows;
            G->r = G->x + 2 * L->A.rows;
            G->d = G->x + 3 * L->A.rows;
            G->e = put_power_start(&real, L->A.rows);
            if (l <= g) { /* values written on the device (record_galerkin) */
                G->x_nnz = X[l].row[X[l].rows];
                G->X = put_matrix(&index, &X[l], sinew_image_reserve(&real, G->x_nnz), 0);
            }
        }
        if (l + 1 < H->levels) {
            const sinew_csr *Ms[3] = {&L->P, &L->R, &L->AP};
            uint32_t *recs[3] = {&G->P, &G->R, &G->AP};
            for (int k = 0; k < (l + 1 > g ? 3 : 2); k++) {
                const uint32_t val = put_values(&real, Ms[k]);
                *recs[k] = put_matrix(&index, Ms[k], val, 0);
            }
            if (l + 1 > g)
                G->ap_nnz = L->AP.row[L->AP.rows];
        }
    }
    for (uint32_t l = 0; l < SINEW_AMG_MAX_LEVELS; l++)
        sinew_csr_free(&X[l]);
    s->levels = H->levels;
    s->gram_levels = g;
    s->dense_rows = H->coarse_factor ? H->L[H->levels - 1].A.rows : 0;
    r = sinew_image_check(&index, &s->ctx->logger, "mgpbd", "MGPBD indices");
    if (r == SINEW_RESULT_OK)
        r = sinew_image_check(&real, &s->ctx->logger, "mgpbd", "MGPBD values");
    if (r == SINEW_RESULT_OK)
        r = reserve(s, sinew_image_next(&index), sinew_image_next(&real));
    uint64_t most = 0; /* refresh_rho_host's read-back buffer */
    for (uint32_t l = 0; l < H->levels; l++)
        most = H->L[l].A.row[H->L[l].A.rows] > most ? H->L[l].A.row[H->L[l].A.rows] : most;
    float *readback = r == SINEW_RESULT_OK ? realloc(s->readback, sizeof *readback * (most + 1)) : NULL;
    if (readback)
        s->readback = readback;
    else if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_oom(s);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 0, index.base, index.bytes, index.count);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 1, real.base, real.bytes, real.count);
    float rho[SINEW_AMG_MAX_LEVELS]; /* the setup's estimates, where the device's start */
    for (uint32_t l = 0; l < H->levels; l++)
        rho[l] = (float)H->L[l].rho;
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 1, s->scalars + SINEW_AMG_S_RHO, rho, H->levels);
    /* The finest level's power vector (in the static part) starts afresh
     * too: after a setup nothing depends on the iterations before it, so a
     * body resumed from a checkpoint (which sets up afresh) steps as the one
     * that saved it. */
    if (r == SINEW_RESULT_OK) {
        sinew_image e;
        sinew_image_init(&e, 4, 0);
        put_power_start(&e, s->m);
        r = sinew_image_check(&e, &s->ctx->logger, "mgpbd", "the power iteration's start");
        if (r == SINEW_RESULT_OK)
            r = sinew_mgpbd_upload(s, 1, s->ve, e.bytes, s->m);
        sinew_image_free(&e);
    }
    sinew_image_free(&index);
    sinew_image_free(&real);
    return r;
}

/* X_0's pattern: row c holds 3 columns for each of constraint c's particles,
 * in increasing order, then column 3 n + c (sqrt alpha~_c). amg_assemble
 * writes the values in that order. *ok stays 0 (GRAM off) when a
 * constraint names a particle twice or the pattern would not fit. */
static sinew_result build_x0(sinew_mgpbd *s, const uint32_t *cons, int *ok)
{
    const uint32_t m = s->m, n = s->n;
    *ok = 0;
    uint64_t nnz = 0;
    for (uint32_t c = 0; c < m; c++)
        nnz += 3u * (c < s->d ? 2u : 4u) + 1u;
    if (nnz >= UINT32_MAX || 3ull * n + m >= UINT32_MAX)
        return SINEW_RESULT_OK;
    sinew_result r = sinew_csr_alloc(m, 3 * n + m, (uint32_t)nnz, &s->x0, &s->ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    uint32_t e = 0;
    for (uint32_t c = 0; c < m; c++) {
        uint32_t nv = c < s->d ? 2u : 4u, v[4];
        for (uint32_t j = 0; j < nv; j++) { /* insertion sort of 4 */
            uint32_t x = cons[4 * c + j], k = j;
            for (; k > 0 && v[k - 1] > x; k--)
                v[k] = v[k - 1];
            v[k] = x;
        }
        for (uint32_t j = 1; j < nv; j++)
            if (v[j] == v[j - 1]) {
                sinew_csr_free(&s->x0);
                return SINEW_RESULT_OK;
            }
        s->x0.row[c] = e;
        for (uint32_t j = 0; j < nv; j++)
            for (uint32_t k = 0; k < 3; k++)
                s->x0.col[e++] = 3 * v[j] + k;
        s->x0.col[e++] = 3 * n + c;
    }
    s->x0.row[m] = e;
    memset(s->x0.val, 0, sizeof *s->x0.val * e);
    *ok = 1;
    return SINEW_RESULT_OK;
}

/* The static part of both images: the header, constraints, adjacency, the
 * finest operator's pattern and pairs (and X_0's); rest data, gradients,
 * multipliers, the finest level's vectors, partial sums, scalars and the
 * dense factor. The hierarchy's part follows it (upload_hierarchy). */
static void lay_out_static(sinew_mgpbd *s, const uint32_t *cons, const uint32_t *adj_start, const uint32_t *adj,
                           const float *rest, const sinew_csr *values, const uint32_t *pairs, sinew_image *index,
                           sinew_image *real)
{
    const uint32_t m = s->m, n = s->n, nnz = s->pattern.row[m], slots = adj_start ? adj_start[n] : 0;
    uint32_t header[SINEW_AMG_HEADER] = {0};
    sinew_image_reserve(index, SINEW_AMG_HEADER); /* written last */
    header[SINEW_AMG_PARTICLES] = n;
    header[SINEW_AMG_DISTANCES] = s->d;
    header[SINEW_AMG_TETS] = s->t;
    header[SINEW_AMG_CONS] = sinew_image_put(index, cons, 4ull * m);
    header[SINEW_AMG_ADJ_START] = sinew_image_put(index, adj_start, n + 1ull); /* zeros without particles */
    header[SINEW_AMG_ADJ] = sinew_image_put(index, adj, slots);
    header[SINEW_AMG_REST] = sinew_image_put(real, rest, 12ull * m);
    header[SINEW_AMG_GRAD] = sinew_image_reserve(real, 12ull * m);
    header[SINEW_AMG_C] = sinew_image_reserve(real, m);
    s->lambda = header[SINEW_AMG_LAMBDA] = sinew_image_reserve(real, m);
    s->a0_val = values ? put_values(real, values) : sinew_image_reserve(real, nnz);
    s->a0 = header[SINEW_AMG_A0] = put_matrix(index, &s->pattern, s->a0_val, 1);
    header[SINEW_AMG_PAIRS] = sinew_image_put(index, pairs, nnz);
    s->x0_rec = header[SINEW_AMG_X0] = SINEW_AMG_NONE;
    if (s->gram)
        s->x0_rec = header[SINEW_AMG_X0] = put_matrix(index, &s->x0, sinew_image_reserve(real, s->x0.row[m]), 0);
    uint32_t *vecs[9] = {&s->vb, &s->vx, &s->vr, &s->vz, &s->vp, &s->vq, &s->vsr, &s->vsd, &s->vl};
    for (int k = 0; k < 9; k++)
        *vecs[k] = sinew_image_reserve(real, m);
    s->ve = put_power_start(real, m);
    s->partial = header[SINEW_AMG_PARTIAL] = sinew_image_reserve(real, s->groups);
    s->scalars = header[SINEW_AMG_SCALARS] = sinew_image_reserve(real, SINEW_AMG_SCALAR_COUNT);
    header[SINEW_AMG_FACTOR] = sinew_image_reserve(real, SINEW_AMG_DENSE_ROWS * SINEW_AMG_DENSE_ROWS);
    sinew_image_write(index, 0, header, SINEW_AMG_HEADER);
}

/* The pattern, the static part laid out and uploaded, the particles'
 * buffers and the workspace: what both kinds of solver share. */
sinew_result sinew_mgpbd_lay_out(sinew_mgpbd *s, const uint32_t *cons, const uint32_t *adj_start, const uint32_t *adj,
                                 const float *rest, const sinew_csr *values)
{
    sinew_context *ctx = s->ctx;
    uint32_t *pairs = NULL;
    sinew_result r = sinew_workspace_create(ctx, "MGPBD", &s->ws);
    if (r == SINEW_RESULT_OK && values) {
        r = sinew_csr_copy(values, &s->pattern, &ctx->logger);
        pairs = calloc((size_t)values->row[values->rows] + 1, sizeof *pairs);
        if (r == SINEW_RESULT_OK && !pairs)
            r = sinew_mgpbd_oom(s);
    } else if (r == SINEW_RESULT_OK) {
        r = build_pattern(s, cons, adj_start, adj, &pairs);
    }
    if (r == SINEW_RESULT_OK && cons && s->desc.coarse == SINEW_MGPBD_COARSE_GRAM)
        r = build_x0(s, cons, &s->gram);
    if (r != SINEW_RESULT_OK) {
        free(pairs);
        return r;
    }
    const uint32_t m = s->m, n = s->n;
    s->groups = (m + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    sinew_image index, real;
    sinew_image_init(&index, 4, 0);
    sinew_image_init(&real, 4, 0);
    lay_out_static(s, cons, adj_start, adj, rest, values, pairs, &index, &real);
    free(pairs);
    r = sinew_image_check(&index, &ctx->logger, "mgpbd", "MGPBD indices");
    if (r == SINEW_RESULT_OK)
        r = sinew_image_check(&real, &ctx->logger, "mgpbd", "MGPBD values");
    s->static_words = sinew_image_next(&index);
    s->static_floats = sinew_image_next(&real);
    s->L[0].rows = m;
    s->L[0].A = s->a0;
    s->L[0].nnz = s->pattern.row[m];
    s->L[0].r = s->vsr;
    s->L[0].d = s->vsd;
    s->L[0].e = s->ve;

    /* Positions, the start of the step, velocities; the saved positions and
     * corrections of amg_apply. */
    sinew_buffer *particles[] = {&s->body[SINEW_BIND_POS], &s->body[SINEW_BIND_PREV], &s->body[SINEW_BIND_VEL],
                                 &s->own[SINEW_AMG_BIND_SAVED]};
    for (int i = 0; i < 4 && r == SINEW_RESULT_OK; i++) {
        uint64_t bytes = !n ? 16 : i == 3 ? 32ull * n : 16ull * n;
        r = sinew_buffer_check_size(ctx, bytes, "MGPBD particles");
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_create(ctx, bytes, SINEW_MEMORY_DEVICE, "MGPBD particles", particles[i]);
        if (r == SINEW_RESULT_OK) {
            static const uint8_t zero[16];
            r = sinew_buffer_upload(ctx, particles[i], 0, zero, 16);
        }
    }
    if (r == SINEW_RESULT_OK)
        r = reserve(s, index.count, real.count);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 0, 0, index.bytes, index.count);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 1, 0, real.bytes, real.count);
    sinew_image_free(&index);
    sinew_image_free(&real);
    if (r == SINEW_RESULT_OK && n) { /* positions and inverse masses at rest */
        float *p = calloc(4 * (size_t)n, sizeof *p);
        if (!p)
            return sinew_mgpbd_oom(s);
        for (uint32_t i = 0; i < n; i++)
            p[4 * i + 3] = s->w[i];
        r = sinew_buffer_upload(ctx, &s->body[SINEW_BIND_POS], 0, p, 16ull * n);
        free(p);
    }
    return r;
}

/* ---------------------------------------------------------------- matrices as the device holds them */

/* Downloads the matrix at record `record` into out (allocated). */
static sinew_result read_record(sinew_mgpbd *s, uint32_t record, sinew_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t rec[SINEW_AMG_MAT];
    sinew_result r = sinew_mgpbd_download(s, 0, record, rec, SINEW_AMG_MAT);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_alloc(rec[SINEW_AMG_M_ROWS], rec[SINEW_AMG_M_COLS], rec[SINEW_AMG_M_NNZ], out, &s->ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    const uint32_t nnz = rec[SINEW_AMG_M_NNZ];
    float *v = malloc(sizeof *v * ((size_t)nnz + 1));
    if (!v) {
        sinew_csr_free(out);
        return sinew_mgpbd_oom(s);
    }
    r = sinew_mgpbd_download(s, 0, rec[SINEW_AMG_M_ROW], out->row, out->rows + 1ull);
    if (r == SINEW_RESULT_OK && nnz)
        r = sinew_mgpbd_download(s, 0, rec[SINEW_AMG_M_COL], out->col, nnz);
    if (r == SINEW_RESULT_OK && nnz)
        r = sinew_mgpbd_download(s, 1, rec[SINEW_AMG_M_VAL], v, nnz);
    for (uint32_t e = 0; e < nnz && r == SINEW_RESULT_OK; e++)
        out->val[e] = v[e];
    free(v);
    if (r != SINEW_RESULT_OK)
        sinew_csr_free(out);
    return r;
}

sinew_result sinew_mgpbd_read_matrix(sinew_mgpbd *s, uint32_t level, sinew_csr *out)
{
    SINEW_ASSERT(level == 0 || level < s->levels);
    return read_record(s, s->L[level].A, out);
}

sinew_result sinew_mgpbd_read_gram_factor(sinew_mgpbd *s, uint32_t level, sinew_csr *out)
{
    memset(out, 0, sizeof *out);
    if (!s->gram || !(level == 0 || level < s->levels))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "no Gram factor of level %u (coarse operators as products, or no such level)", level);
    return read_record(s, level == 0 ? s->x0_rec : s->L[level].X, out);
}

sinew_result sinew_mgpbd_write_matrix(sinew_mgpbd *s, const sinew_csr *A)
{
    if (A->rows != s->m || A->row[A->rows] != s->pattern.row[s->m] ||
        memcmp(A->row, s->pattern.row, 4ull * (s->m + 1)) || memcmp(A->col, s->pattern.col, 4ull * A->row[A->rows]))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the matrix has another pattern than the solver's");
    uint32_t nnz = A->row[A->rows];
    for (uint32_t e = 0; e < nnz; e++)
        if (!isfinite((float)A->val[e]))
            return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                              "entry %u of the matrix is %g, not a finite float", e, A->val[e]);
    sinew_image v;
    sinew_image_init(&v, 4, s->a0_val);
    put_values(&v, A);
    sinew_result r = sinew_image_check(&v, &s->ctx->logger, "mgpbd", "the matrix's values");
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_upload(s, 1, s->a0_val, v.bytes, v.count);
    sinew_image_free(&v);
    return r;
}
