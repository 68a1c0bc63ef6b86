/* MGPBD on the GPU (Li et al. 2025, "MGPBD: a multigrid accelerated global
 * XPBD solver"; MATH.md 6; docs/mgpbd.md): the layout of AMG_INDEX and
 * AMG_REAL (shared/layout.h, SINEW_AMG_*), the host's AMG setup laid out on
 * the device, and the recording of the outer loop: constraints and gradients,
 * the dual system's assembly, CG preconditioned by a V-cycle, the positions'
 * update. Data flow of one outer iteration:
 *
 *   amg_constraint: C, grad C, b = -C - alpha~ lambda      (one submit; |b| read)
 *   amg_assemble:   A = G M^-1 G^T + alpha~ in its fixed pattern
 *   lazy setup due? A downloaded, sinew_amg_setup on the host, P, R and the
 *                   coarse operators uploaded
 *   else            GRAM (default): amg_product X_{l+1} = R_l X_l, amg_gram
 *                   A_{l+1} = X_{l+1} W X_{l+1}^T, level by level (X_0's
 *                   values written by amg_assemble);
 *                   PRODUCT: amg_product A_l P_l, then R_l (A_l P_l)
 *   amg_coarse:     the coarsest operator's Cholesky factor
 *   CG:             amg_spmv, amg_vector, amg_reduce; the V-cycle's smoothers,
 *                   restriction, prolongation and coarse solve
 *   amg_apply:      x += omega M^-1 G^T dlambda; lambda += dlambda
 */
#include "mgpbd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct level_gpu {
    uint32_t rows;
    uint32_t A, P, R, AP;   /* matrix records in AMG_INDEX (AP: PRODUCT only) */
    uint32_t X;             /* GRAM: the record of X_l (level 0: the static X_0), else NONE */
    uint32_t nnz, x_nnz, ap_nnz; /* nonzeros of A, X and AP */
    uint32_t a_mode, x_mode, ap_mode; /* amg_product's way (product_mode) for the products making A, X, AP */
    uint32_t a_val;         /* where A's values start in AMG_REAL */
    uint32_t x, f, r, d;    /* vectors in AMG_REAL (level 0: r and d only; x and f are the caller's) */
    double rho;
} level_gpu;

typedef struct colour_range { uint32_t first, count; } colour_range;

struct sinew_mgpbd {
    sinew_context *ctx;
    sinew_mgpbd_desc desc;
    sinew_buffer buffers[SINEW_BIND_COUNT];
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkFence fence;
    uint32_t n, d, t, m;
    float *w;                      /* inverse masses, n */
    sinew_csr pattern;             /* the finest operator's pattern (val unused) */
    sinew_csr x0;                  /* GRAM: X_0's pattern (val zero); else empty */
    int gram;                      /* coarse operators in the Gram form */
    uint32_t gram_levels;          /* levels 1..gram_levels are recomputed in the Gram form, the rest as products */
    float *readback;               /* refresh_rho: room for the largest level's values (set up with the hierarchy) */
    uint32_t static_words, static_floats;  /* where the hierarchy's part starts */
    uint64_t index_capacity, real_capacity; /* words, floats */
    uint32_t chunk_shift;          /* each image's chunks hold 2^chunk_shift words */
    uint32_t a0, a0_val, x0_rec;
    uint32_t vb, vx, vr, vz, vp, vq, vsr, vsd, vl;  /* the finest level's vectors (vl: lambda at a line search's base) */
    uint32_t partial, scalars, groups, lambda;
    colour_range *colours;
    uint32_t colour_count;
    sinew_amg amg;
    level_gpu L[SINEW_AMG_MAX_LEVELS];
    uint32_t levels, dense_rows;   /* dense_rows: the coarsest level's, when solved exactly; else 0 */
    uint64_t frame, setup_frame;
    uint32_t step_iteration;
    int have_setup;
};

sinew_mgpbd_desc sinew_mgpbd_desc_default(void)
{
    sinew_mgpbd_desc d;
    memset(&d, 0, sizeof d);
    d.distances = 1;
    d.tets = 1;
    d.distance_compliance = 1e-8;
    d.amg = sinew_amg_options_default();
    d.cycle = sinew_amg_cycle_default();
    d.precond = SINEW_MGPBD_PRECOND_AMG;
    d.setup_interval = 20;
    d.coarse = SINEW_MGPBD_COARSE_PRODUCT;
    d.refresh_rho = 1;
    d.pcg_iterations = 20;
    d.pcg_tolerance = 1e-3;
    d.pcg_batch = 5;
    d.omega = 1.0;
    d.line_search = 6;
    d.lambda_full = 0;
    d.max_iterations = 100;
    d.tolerance = 1e-2;
    d.cookie = SINEW_DESC_COOKIE;
    return d;
}

uint32_t sinew_mgpbd_constraint_count(const sinew_mgpbd *s) { return s->m; }
uint32_t sinew_mgpbd_particle_count(const sinew_mgpbd *s) { return s->n; }
const sinew_amg *sinew_mgpbd_amg(const sinew_mgpbd *s) { return &s->amg; }

uint32_t sinew_mgpbd_real_chunks(const sinew_mgpbd *s)
{
    uint32_t c = 0;
    while (c < SINEW_AMG_CHUNKS && s->buffers[SINEW_BIND_AMG_REAL + c].size > 16)
        c++;
    return c;
}

uint64_t sinew_mgpbd_device_bytes(const sinew_mgpbd *s)
{
    uint64_t b = 0;
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        b += s->buffers[i].allocated;
    return b;
}

void sinew_mgpbd_destroy(sinew_mgpbd *s)
{
    if (!s)
        return;
    sinew_context *ctx = s->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (s->fence)
        vk->vkDestroyFence(ctx->device, s->fence, NULL);
    if (s->cmd)
        vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &s->cmd);
    if (s->pool)
        vk->vkDestroyDescriptorPool(ctx->device, s->pool, NULL);
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        sinew_buffer_destroy(ctx, &s->buffers[i]);
    sinew_amg_free(&s->amg);
    sinew_csr_free(&s->pattern);
    sinew_csr_free(&s->x0);
    free(s->readback);
    free(s->w);
    free(s->colours);
    free(s);
}

static sinew_result oom(sinew_mgpbd *s)
{
    return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
}

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
        return oom(s);
    }
    return SINEW_RESULT_OK;
fail:
    free(mark);
    free(where);
    free(col);
    free(pairs);
    free(row);
    return oom(s);
}

/* ---------------------------------------------------------------- buffers */

static sinew_result make_set(sinew_mgpbd *s)
{
    if (s->pool) {
        s->ctx->vk.vkDestroyDescriptorPool(s->ctx->device, s->pool, NULL);
        s->pool = VK_NULL_HANDLE;
    }
    return sinew_descriptor_set_create(s->ctx, s->buffers, &s->pool, &s->set);
}

/* Chunk c of an image: AMG_INDEX (real 0) or AMG_REAL (real 1). */
static sinew_buffer *chunk(sinew_mgpbd *s, int real, uint32_t c)
{
    return &s->buffers[(real ? SINEW_BIND_AMG_REAL : SINEW_BIND_AMG_INDEX) + c];
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
    if (words <= s->index_capacity && floats <= s->real_capacity && s->set)
        return SINEW_RESULT_OK;
    sinew_result r = reserve_image(s, 0, words, &s->index_capacity);
    if (r == SINEW_RESULT_OK)
        r = reserve_image(s, 1, floats, &s->real_capacity);
    return r == SINEW_RESULT_OK ? make_set(s) : r;
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
        at += n;
        p += 4 * n;
        count -= n;
    }
    return SINEW_RESULT_OK;
}

static sinew_result upload_words(sinew_mgpbd *s, int real, uint64_t at, const void *data, uint64_t count)
{
    return image_io(s, real, at, (void *)data, count, 0);
}

static sinew_result download_words(sinew_mgpbd *s, int real, uint64_t at, void *data, uint64_t count)
{
    return image_io(s, real, at, data, count, 1);
}

/* Writes a matrix record at image[at], its rows, columns (and diagonal
 * positions when diag) after it; values go to AMG_REAL at *val. Returns the
 * next free word. */
static uint32_t put_matrix(uint32_t *image, uint32_t base, uint32_t at, const sinew_csr *M, uint32_t val, int diag)
{
    uint32_t *rec = &image[at - base], nnz = M->row[M->rows];
    rec[SINEW_AMG_M_ROWS] = M->rows;
    rec[SINEW_AMG_M_COLS] = M->cols;
    rec[SINEW_AMG_M_VAL] = val;
    rec[SINEW_AMG_M_NNZ] = nnz;
    rec[7] = 0;
    uint32_t next = at + SINEW_AMG_MAT;
    rec[SINEW_AMG_M_ROW] = next;
    memcpy(&image[next - base], M->row, sizeof *M->row * (M->rows + 1));
    next += M->rows + 1;
    rec[SINEW_AMG_M_COL] = next;
    if (nnz)
        memcpy(&image[next - base], M->col, sizeof *M->col * nnz);
    next += nnz;
    rec[SINEW_AMG_M_DIAG] = diag ? next : SINEW_AMG_NONE;
    if (diag) {
        for (uint32_t i = 0; i < M->rows; i++) {
            uint32_t e = M->row[i];
            while (e < M->row[i + 1] && M->col[e] != i)
                e++;
            image[next - base + i] = e; /* sinew_amg_setup refuses a missing diagonal */
        }
        next += M->rows;
    }
    return next;
}

static uint64_t matrix_words(const sinew_csr *M, int diag)
{
    return SINEW_AMG_MAT + M->rows + 1ull + M->row[M->rows] + (diag ? M->rows : 0);
}

static void put_values(float *real, const sinew_csr *M)
{
    for (uint32_t e = 0; e < M->row[M->rows]; e++)
        real[e] = (float)M->val[e];
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
static sinew_result upload_hierarchy(sinew_mgpbd *s)
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
    uint64_t words = 0, floats = 0;
    for (uint32_t l = 0; l < H->levels && r == SINEW_RESULT_OK; l++) {
        const sinew_amg_level *L = &H->L[l];
        if (l > 0) {
            words += matrix_words(&L->A, 1);
            floats += L->A.row[L->A.rows] + 4ull * L->A.rows;
        }
        if (l > 0 && l <= g) {
            words += matrix_words(&X[l], 0);
            floats += X[l].row[X[l].rows];
        }
        if (l + 1 < H->levels) {
            words += matrix_words(&L->P, 0) + matrix_words(&L->R, 0);
            floats += (uint64_t)L->P.row[L->P.rows] + L->R.row[L->R.rows];
            if (l + 1 > g) {
                words += matrix_words(&L->AP, 0);
                floats += L->AP.row[L->AP.rows];
            }
        }
    }
    if (r == SINEW_RESULT_OK)
        r = reserve(s, s->static_words + words, s->static_floats + floats);
    uint64_t most = 0; /* refresh_rho's read-back buffer */
    for (uint32_t l = 0; l < H->levels; l++)
        most = H->L[l].A.row[H->L[l].A.rows] > most ? H->L[l].A.row[H->L[l].A.rows] : most;
    float *readback = r == SINEW_RESULT_OK ? realloc(s->readback, sizeof *readback * (most + 1)) : NULL;
    if (readback)
        s->readback = readback;
    else if (r == SINEW_RESULT_OK)
        r = oom(s);
    uint32_t *image = r == SINEW_RESULT_OK ? calloc(words + 1, sizeof *image) : NULL;
    float *real = r == SINEW_RESULT_OK ? calloc(floats + 1, sizeof *real) : NULL;
    if (r == SINEW_RESULT_OK && (!image || !real))
        r = oom(s);
    if (r != SINEW_RESULT_OK) {
        free(image);
        free(real);
        for (uint32_t l = 0; l < SINEW_AMG_MAX_LEVELS; l++)
            sinew_csr_free(&X[l]);
        return r;
    }
    uint32_t at = s->static_words, rat = s->static_floats;
    for (uint32_t l = 0; l < H->levels; l++) {
        const sinew_amg_level *L = &H->L[l];
        level_gpu *G = &s->L[l];
        G->rows = L->A.rows;
        G->nnz = L->A.row[L->A.rows];
        G->rho = L->rho;
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
            if (g > 0) {
                G->X = s->x0_rec;
                G->x_nnz = s->x0.row[s->x0.rows];
            }
        } else {
            G->A = at;
            G->a_val = rat;
            at = put_matrix(image, s->static_words, at, &L->A, rat, 1);
            put_values(&real[rat - s->static_floats], &L->A);
            rat += L->A.row[L->A.rows];
            G->x = rat;
            G->f = rat + L->A.rows;
            G->r = rat + 2 * L->A.rows;
            G->d = rat + 3 * L->A.rows;
            rat += 4 * L->A.rows;
            if (l <= g) { /* values written on the device (record_galerkin) */
                G->X = at;
                G->x_nnz = X[l].row[X[l].rows];
                at = put_matrix(image, s->static_words, at, &X[l], rat, 0);
                rat += X[l].row[X[l].rows];
            }
        }
        if (l + 1 < H->levels) {
            const sinew_csr *Ms[3] = {&L->P, &L->R, &L->AP};
            uint32_t *recs[3] = {&G->P, &G->R, &G->AP};
            for (int k = 0; k < (l + 1 > g ? 3 : 2); k++) {
                *recs[k] = at;
                at = put_matrix(image, s->static_words, at, Ms[k], rat, 0);
                put_values(&real[rat - s->static_floats], Ms[k]);
                rat += Ms[k]->row[Ms[k]->rows];
            }
            if (l + 1 > g)
                G->ap_nnz = L->AP.row[L->AP.rows];
        }
    }
    SINEW_ASSERT(at - s->static_words == words && rat - s->static_floats == floats);
    for (uint32_t l = 0; l < SINEW_AMG_MAX_LEVELS; l++)
        sinew_csr_free(&X[l]);
    s->levels = H->levels;
    s->gram_levels = g;
    s->dense_rows = H->coarse_factor ? H->L[H->levels - 1].A.rows : 0;
    r = upload_words(s, 0, s->static_words, image, words);
    if (r == SINEW_RESULT_OK)
        r = upload_words(s, 1, s->static_floats, real, floats);
    free(image);
    free(real);
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

/* The static part: header, constraints, adjacency, the finest operator's
 * pattern and pairs; rest data, gradients, multipliers, the finest level's
 * vectors, partial sums, scalars and the dense factor. */
static sinew_result create_common(sinew_mgpbd *s, const uint32_t *cons, const uint32_t *adj_start, const uint32_t *adj,
                                  const float *rest, const sinew_csr *values)
{
    sinew_context *ctx = s->ctx;
    uint32_t *pairs = NULL;
    sinew_result r = SINEW_RESULT_OK;
    if (values) {
        r = sinew_csr_copy(values, &s->pattern, &ctx->logger);
        pairs = calloc((size_t)values->row[values->rows] + 1, sizeof *pairs);
        if (r == SINEW_RESULT_OK && !pairs)
            r = oom(s);
    } else {
        r = build_pattern(s, cons, adj_start, adj, &pairs);
    }
    if (r == SINEW_RESULT_OK && cons && s->desc.coarse == SINEW_MGPBD_COARSE_GRAM)
        r = build_x0(s, cons, &s->gram);
    if (r != SINEW_RESULT_OK) {
        free(pairs);
        return r;
    }
    const uint32_t m = s->m, n = s->n, nnz = s->pattern.row[m], slots = adj_start ? adj_start[n] : 0;
    const uint32_t x0_nnz = s->gram ? s->x0.row[m] : 0;
    s->groups = (m + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    uint64_t words = SINEW_AMG_HEADER + 4ull * m + (n + 1ull) + slots + SINEW_AMG_MAT + (m + 1ull) + nnz + m + nnz +
                     (s->gram ? matrix_words(&s->x0, 0) : 0);
    uint64_t floats = 12ull * m + 12ull * m + m + m + nnz + 9ull * m + s->groups + SINEW_AMG_SCALAR_COUNT +
                      SINEW_AMG_DENSE_ROWS * SINEW_AMG_DENSE_ROWS + x0_nnz;
    if (words >= UINT32_MAX || floats >= UINT32_MAX) {
        free(pairs);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_LIMIT, "mgpbd",
                          "%u constraints with %u nonzeros need %llu words of indices and %llu values; the layout "
                          "addresses at most 2^32", m, nnz, (unsigned long long)words, (unsigned long long)floats);
    }
    uint32_t *index = calloc(words, sizeof *index);
    float *real = calloc(floats, sizeof *real);
    if (!index || !real) {
        free(index), free(real), free(pairs);
        return oom(s);
    }
    uint32_t at = SINEW_AMG_HEADER, rat = 0;
    index[SINEW_AMG_PARTICLES] = n;
    index[SINEW_AMG_DISTANCES] = s->d;
    index[SINEW_AMG_TETS] = s->t;
    index[SINEW_AMG_CONS] = at;
    if (m && cons)
        memcpy(&index[at], cons, 16ull * m);
    at += 4 * m;
    index[SINEW_AMG_ADJ_START] = at;
    if (adj_start)
        memcpy(&index[at], adj_start, 4ull * (n + 1));
    at += n + 1;
    index[SINEW_AMG_ADJ] = at;
    if (slots)
        memcpy(&index[at], adj, 4ull * slots);
    at += slots;
    index[SINEW_AMG_REST] = rat;
    if (rest)
        memcpy(&real[rat], rest, 48ull * m);
    rat += 12 * m;
    index[SINEW_AMG_GRAD] = rat;
    rat += 12 * m;
    index[SINEW_AMG_C] = rat;
    rat += m;
    s->lambda = index[SINEW_AMG_LAMBDA] = rat;
    rat += m;
    s->a0 = index[SINEW_AMG_A0] = at;
    s->a0_val = rat;
    if (values)
        put_values(&real[rat], values);
    at = put_matrix(index, 0, at, &s->pattern, rat, 1);
    rat += nnz;
    index[SINEW_AMG_PAIRS] = at;
    memcpy(&index[at], pairs, 4ull * nnz);
    at += nnz;
    s->x0_rec = index[SINEW_AMG_X0] = SINEW_AMG_NONE;
    if (s->gram) {
        s->x0_rec = index[SINEW_AMG_X0] = at;
        at = put_matrix(index, 0, at, &s->x0, rat, 0);
        rat += x0_nnz;
    }
    uint32_t *vecs[9] = {&s->vb, &s->vx, &s->vr, &s->vz, &s->vp, &s->vq, &s->vsr, &s->vsd, &s->vl};
    for (int k = 0; k < 9; k++) {
        *vecs[k] = rat;
        rat += m;
    }
    s->partial = index[SINEW_AMG_PARTIAL] = rat;
    rat += s->groups;
    s->scalars = index[SINEW_AMG_SCALARS] = rat;
    rat += SINEW_AMG_SCALAR_COUNT;
    index[SINEW_AMG_FACTOR] = rat;
    rat += SINEW_AMG_DENSE_ROWS * SINEW_AMG_DENSE_ROWS;
    SINEW_ASSERT(at == words && rat == floats);
    free(pairs);
    s->static_words = at;
    s->static_floats = rat;
    s->L[0].rows = m;
    s->L[0].A = s->a0;
    s->L[0].nnz = nnz;
    s->L[0].r = s->vsr;
    s->L[0].d = s->vsd;

    for (int i = 0; i < SINEW_BIND_COUNT && r == SINEW_RESULT_OK; i++) {
        if (i >= SINEW_BIND_AMG_INDEX && i < SINEW_BIND_AMG_REAL + SINEW_AMG_CHUNKS)
            continue;
        uint64_t bytes = (i == SINEW_BIND_POS || i == SINEW_BIND_PREV || i == SINEW_BIND_VEL) && n ? 16ull * n
                         : i == SINEW_BIND_Q && n                                                ? 32ull * n
                                                                                                 : 16;
        r = sinew_buffer_check_size(ctx, bytes, "MGPBD particles");
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_create(ctx, bytes, SINEW_MEMORY_DEVICE, "MGPBD particles", &s->buffers[i]);
        if (r == SINEW_RESULT_OK) {
            static const uint8_t zero[16];
            r = sinew_buffer_upload(ctx, &s->buffers[i], 0, zero, 16);
        }
    }
    if (r == SINEW_RESULT_OK)
        r = reserve(s, words, floats);
    if (r == SINEW_RESULT_OK)
        r = upload_words(s, 0, 0, index, words);
    if (r == SINEW_RESULT_OK)
        r = upload_words(s, 1, 0, real, floats);
    free(index);
    free(real);
    if (r == SINEW_RESULT_OK && n) { /* positions and inverse masses at rest */
        float *p = calloc(4 * (size_t)n, sizeof *p);
        if (!p)
            return oom(s);
        for (uint32_t i = 0; i < n; i++)
            p[4 * i + 3] = s->w[i];
        r = sinew_buffer_upload(ctx, &s->buffers[SINEW_BIND_POS], 0, p, 16ull * n);
        free(p);
    }
    if (r == SINEW_RESULT_OK) {
        const struct VolkDeviceTable *vk = &ctx->vk;
        VkCommandBufferAllocateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ci.commandPool = ctx->command_pool;
        ci.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ci.commandBufferCount = 1;
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkResult vr = vk->vkAllocateCommandBuffers(ctx->device, &ci, &s->cmd);
        if (vr == VK_SUCCESS)
            vr = vk->vkCreateFence(ctx->device, &fi, NULL, &s->fence);
        if (vr != VK_SUCCESS)
            r = sinew_vk_fail(ctx, vr, "MGPBD command buffer", __FILE__, __LINE__);
    }
    return r;
}

static sinew_result check_desc(sinew_context *ctx, const sinew_mgpbd_desc *d)
{
    if (d->cookie != SINEW_DESC_COOKIE)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the desc was not made by sinew_mgpbd_desc_default");
    if (!(d->omega > 0.0 && d->omega <= 2.0))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "omega is %g; it must be in (0, 2]", d->omega);
    if (!(d->pcg_tolerance >= 0.0) || !(d->tolerance >= 0.0) || !(d->time_budget_ms >= 0.0))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "a tolerance or the time budget is negative or NaN");
    if (d->pcg_iterations == 0 || d->pcg_batch == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "pcg_iterations and pcg_batch must be at least 1");
    if (d->cycle.sweeps == 0 || !(d->cycle.cheby_lower > 0.0 && d->cycle.cheby_lower < d->cycle.cheby_upper) ||
        !(d->cycle.jacobi_weight > 0.0 && d->cycle.jacobi_weight < 2.0) || d->cycle.coarse_sweeps == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the V-cycle's smoother settings are out of range (sweeps >= 1, 0 < lower < upper, "
                          "0 < jacobi_weight < 2, coarse_sweeps >= 1)");
    if (d->chunk_words && (d->chunk_words < 1024 || (d->chunk_words & (d->chunk_words - 1)) ||
                           4ull * d->chunk_words > ctx->limits.maxStorageBufferRange))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "chunk_words is %u; it must be 0 or a power of two >= 1024 within one storage buffer",
                          d->chunk_words);
    if ((unsigned)d->coarse > SINEW_MGPBD_COARSE_GRAM)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "unknown coarse operator form %d",
                          (int)d->coarse);
    if ((unsigned)d->precond > SINEW_MGPBD_PRECOND_AMG)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "unknown preconditioner %d",
                          (int)d->precond);
    return SINEW_RESULT_OK;
}

static sinew_mgpbd *alloc_solver(sinew_context *ctx, const sinew_mgpbd_desc *desc)
{
    sinew_mgpbd *s = calloc(1, sizeof *s);
    if (s) {
        s->ctx = ctx;
        s->desc = *desc;
        /* chunks of the largest power of two words one binding may hold */
        uint64_t words = desc->chunk_words ? desc->chunk_words : ctx->limits.maxStorageBufferRange / 4;
        s->chunk_shift = 10;
        while (s->chunk_shift < 30 && (2ull << s->chunk_shift) <= words)
            s->chunk_shift++;
    }
    return s;
}

sinew_result sinew_mgpbd_create_system(sinew_context *ctx, const sinew_csr *A, const sinew_mgpbd_desc *desc,
                                       sinew_mgpbd **out)
{
    *out = NULL;
    sinew_result r = check_desc(ctx, desc);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_check(A, "the system", &ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    if (A->rows == 0 || A->rows != A->cols)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the system is %u x %u; it must be square and not empty", A->rows, A->cols);
    sinew_mgpbd *s = alloc_solver(ctx, desc);
    if (!s)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
    s->m = A->rows;
    r = create_common(s, NULL, NULL, NULL, NULL, A);
    if (r != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_create(sinew_context *ctx, const sinew_asset *a, const sinew_mgpbd_desc *desc,
                                sinew_mgpbd **out)
{
    *out = NULL;
    sinew_result r = check_desc(ctx, desc);
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_logger *lg = &ctx->logger;
    uint32_t d = desc->distances ? a->distance_count : 0, t = 0;
    if (desc->tets)
        for (uint32_t e = 0; e < a->element_count; e++)
            t += a->elements[e].kind == SINEW_ELEMENT_TET;
    if (d + t == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the asset has no %s for MGPBD", desc->tets && desc->distances ? "distance constraints or tetrahedra"
                                                            : desc->tets ? "tetrahedra" : "distance constraints");
    if (d && !(desc->distance_compliance > 0.0 && isfinite(desc->distance_compliance)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "distance_compliance is %g; MGPBD's dual system needs it > 0 and finite",
                          desc->distance_compliance);
    if (!(desc->shear_modulus >= 0.0 && isfinite(desc->shear_modulus)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "shear_modulus is %g",
                          desc->shear_modulus);
    sinew_mgpbd *s = alloc_solver(ctx, desc);
    if (!s)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
    const uint32_t n = a->particle_count, m = d + t;
    s->n = n;
    s->d = d;
    s->t = t;
    s->m = m;
    s->w = malloc(sizeof *s->w * ((size_t)n + 1));
    uint32_t *cons = malloc(16 * ((size_t)m + 1)), *adj_start = calloc((size_t)n + 1, sizeof *adj_start);
    uint32_t *adj = malloc(4 * (2 * (size_t)d + 4 * (size_t)t + 1)), *fill = malloc(4 * ((size_t)n + 1));
    float *rest = calloc(12 * (size_t)m + 1, sizeof *rest);
    uint32_t ncol = (desc->distances ? a->colour_count : 0) + (desc->tets ? a->element_colour_count : 0);
    s->colours = calloc((size_t)ncol + 1, sizeof *s->colours);
    if (!s->w || !cons || !adj_start || !adj || !fill || !rest || !s->colours) {
        r = oom(s);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        s->w[i] = a->particles[i].w;
    for (uint32_t c = 0; c < d; c++) {
        const sinew_distance_rec *D = &a->distances[c];
        uint32_t v[4] = {D->a, D->b, SINEW_AMG_NONE, SINEW_AMG_NONE};
        memcpy(&cons[4 * c], v, sizeof v);
        rest[12 * c] = D->rest;
        rest[12 * c + 1] = (float)desc->distance_compliance;
    }
    if (d)
        for (uint32_t k = 0; k < a->colour_count; k++)
            if (a->colours[k].distance_count)
                s->colours[s->colour_count++] = (colour_range){a->colours[k].distance_begin, a->colours[k].distance_count};
    uint32_t c = d;
    for (uint32_t k = 0; desc->tets && k < a->element_colour_count; k++) {
        uint32_t first = c;
        const sinew_element_colour_rec *ec = &a->element_colours[k];
        for (uint32_t e = ec->begin; e < ec->begin + ec->count; e++) {
            const sinew_element_rec *E = &a->elements[e];
            if (E->kind != SINEW_ELEMENT_TET)
                continue;
            double mu = desc->shear_modulus;
            if (mu == 0.0) {
                const sinew_material_rec *M = &a->materials[E->material];
                mu = M->youngs_modulus / (2.0 * (1.0 + M->poisson_ratio));
            }
            if (!(mu > 0.0 && isfinite(mu))) {
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                               "tetrahedron %u (element %u) has shear modulus %g; it must be > 0 (its material's "
                               "Young's modulus, or desc.shear_modulus)", c - d, e, mu);
                goto done;
            }
            memcpy(&cons[4 * c], E->v, 16);
            for (int j = 0; j < 3; j++) /* row j of Dm^-1 (stored column-major) */
                for (int k2 = 0; k2 < 3; k2++)
                    rest[12 * c + 3 * j + k2] = E->inv_rest[3 * k2 + j];
            rest[12 * c + 9] = (float)(1.0 / (mu * E->rest_measure));
            c++;
        }
        if (c > first)
            s->colours[s->colour_count++] = (colour_range){first, c - first};
    }
    SINEW_ASSERT(c == m);
    for (uint32_t k = 0; k < m; k++)
        for (int j = 0; j < 4; j++)
            if (cons[4 * k + j] != SINEW_AMG_NONE)
                adj_start[cons[4 * k + j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        adj_start[i + 1] += adj_start[i];
    memcpy(fill, adj_start, 4ull * n);
    for (uint32_t k = 0; k < m; k++)
        for (uint32_t j = 0; j < 4; j++)
            if (cons[4 * k + j] != SINEW_AMG_NONE)
                adj[fill[cons[4 * k + j]]++] = 4 * k + j;
    r = create_common(s, cons, adj_start, adj, rest, NULL);
done:
    free(cons);
    free(adj_start);
    free(adj);
    free(fill);
    free(rest);
    if (r != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- recording */

static GpuAmgPush push_of(const sinew_mgpbd *s, uint32_t count, uint32_t mode)
{
    GpuAmgPush p;
    memset(&p, 0, sizeof p);
    p.count = count;
    p.mode = mode;
    p.index_shift = p.real_shift = s->chunk_shift;
    return p;
}
#define push(count, mode) push_of(s, (count), (mode))

/* One dispatch and the barrier after it: every step depends on the one before. */
static void run(sinew_recorder *r, sinew_kernel k, uint32_t threads, const GpuAmgPush *p)
{
    sinew_record_dispatch(r, k, threads, p, sizeof *p);
    sinew_record_barrier(r);
}

static void spmv(const sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t matrix, uint32_t rows, uint32_t x, uint32_t y, uint32_t z)
{
    GpuAmgPush p = push(rows, mode);
    p.matrix = matrix;
    p.x = x;
    p.y = y;
    p.z = z;
    run(r, SINEW_KERNEL_AMG_SPMV, rows, &p);
}

static void vec(const sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t count, uint32_t x, uint32_t y, float a)
{
    GpuAmgPush p = push(count, mode);
    p.x = x;
    p.y = y;
    p.a = a;
    run(r, SINEW_KERNEL_AMG_VECTOR, count, &p);
}

/* x . y over count entries into scalar slot. */
static void dot(sinew_mgpbd *s, sinew_recorder *r, uint32_t count, uint32_t x, uint32_t y, uint32_t slot)
{
    vec(s, r, SINEW_AMG_VEC_DOT, count, x, y, 0.0f);
    GpuAmgPush p = push(SINEW_WORKGROUP_SIZE, 0);
    p.groups = (count + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    p.slot = slot;
    run(r, SINEW_KERNEL_AMG_REDUCE, SINEW_WORKGROUP_SIZE, &p);
}

/* One smoother application on level l to A x = f: from x = 0 (zero) or from x. */
static void smooth(sinew_mgpbd *s, sinew_recorder *r, uint32_t l, uint32_t x, uint32_t f, int zero)
{
    const level_gpu *L = &s->L[l];
    const sinew_amg_cycle *c = &s->desc.cycle;
    if (c->smoother == SINEW_AMG_JACOBI) {
        for (uint32_t k = 0; k < c->sweeps; k++) {
            GpuAmgPush p = push(L->rows, SINEW_AMG_VEC_JACOBI);
            p.matrix = L->A;
            p.x = x;
            p.a = (float)(c->jacobi_weight / L->rho);
            if (zero && k == 0) {
                p.y = f;
            } else {
                spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
                p.y = L->r;
                p.b = 1.0f;
            }
            run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
        }
        return;
    }
    /* Chebyshev (amg.h): the coefficients are the host's, from rho. */
    const double lo = c->cheby_lower * L->rho, hi = c->cheby_upper * L->rho;
    const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
    double rho_old = 1.0 / sigma;
    GpuAmgPush p = push(L->rows, SINEW_AMG_VEC_CHEB_FIRST);
    p.matrix = L->A;
    p.x = x;
    p.w = L->d;
    p.a = (float)(1.0 / theta);
    if (zero) {
        p.y = f;
    } else {
        spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
        p.y = L->r;
        p.b = 1.0f;
    }
    run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
    for (uint32_t i = 1; i < c->sweeps; i++) {
        if (zero && i == 1) /* r = f - A x with x = d */
            spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, L->d, L->r, f);
        else
            spmv(s, r, SINEW_AMG_SPMV_SUB, L->A, L->rows, L->d, L->r, 0);
        double rho_new = 1.0 / (2.0 * sigma - rho_old);
        GpuAmgPush q = push(L->rows, SINEW_AMG_VEC_CHEB_NEXT);
        q.matrix = L->A;
        q.x = x;
        q.y = L->r;
        q.w = L->d;
        q.a = (float)(rho_new * rho_old);
        q.c = (float)(2.0 * rho_new / delta);
        run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &q);
        rho_old = rho_new;
    }
}

/* x = V-cycle of level l applied to f, from x = 0 (amg.h). */
static void vcycle(sinew_mgpbd *s, sinew_recorder *r, uint32_t l, uint32_t x, uint32_t f)
{
    const level_gpu *L = &s->L[l];
    if (l + 1 == s->levels) {
        if (s->dense_rows) {
            GpuAmgPush p = push(L->rows, SINEW_AMG_COARSE_SOLVE);
            p.x = x;
            p.y = f;
            run(r, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
        } else {
            for (uint32_t k = 0; k < s->desc.cycle.coarse_sweeps; k++)
                smooth(s, r, l, x, f, k == 0);
        }
        return;
    }
    const level_gpu *C = &s->L[l + 1];
    smooth(s, r, l, x, f, 1);
    spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
    spmv(s, r, SINEW_AMG_SPMV_SET, L->R, C->rows, L->r, C->f, 0);
    vcycle(s, r, l + 1, C->x, C->f);
    spmv(s, r, SINEW_AMG_SPMV_ADD, L->P, L->rows, C->x, x, 0);
    smooth(s, r, l, x, f, 0);
}

/* z = M^-1 r on the finest level. */
static void precondition(sinew_mgpbd *s, sinew_recorder *r, uint32_t rv, uint32_t z)
{
    if (s->desc.precond == SINEW_MGPBD_PRECOND_AMG && s->levels > 0) {
        vcycle(s, r, 0, z, rv);
    } else if (s->desc.precond == SINEW_MGPBD_PRECOND_JACOBI) {
        GpuAmgPush p = push(s->m, SINEW_AMG_VEC_JACOBI);
        p.matrix = s->a0;
        p.x = z;
        p.y = rv;
        p.a = 1.0f;
        run(r, SINEW_KERNEL_AMG_VECTOR, s->m, &p);
    } else {
        vec(s, r, SINEW_AMG_VEC_COPY, s->m, rv, z, 0.0f);
    }
}

/* CG's start from x = 0 for A x = vb: r = b, z = M^-1 r, p = z, rz, |b|^2. */
static void record_pcg_start(sinew_mgpbd *s, sinew_recorder *r, int lazy)
{
    if (!lazy) /* a lazy solve keeps record_galerkin's flag */
        vec(s, r, SINEW_AMG_VEC_ZERO, 2, 0, s->scalars + SINEW_AMG_S_INDEFINITE, 0.0f); /* and COARSE_DIAGONAL */
    if (s->dense_rows && s->desc.precond == SINEW_MGPBD_PRECOND_AMG) {
        GpuAmgPush p = push(s->dense_rows, SINEW_AMG_COARSE_FACTOR);
        p.matrix = s->L[s->levels - 1].A;
        run(r, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
    }
    vec(s, r, SINEW_AMG_VEC_ZERO, s->m, 0, s->vx, 0.0f);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vb, s->vr, 0.0f);
    dot(s, r, s->m, s->vb, s->vb, SINEW_AMG_S_BB);
    precondition(s, r, s->vr, s->vz);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vz, s->vp, 0.0f);
    dot(s, r, s->m, s->vr, s->vz, SINEW_AMG_S_RZ);
}

static void record_pcg_iteration(sinew_mgpbd *s, sinew_recorder *r, uint32_t k)
{
    const uint32_t m = s->m, parity = k & 1u;
    spmv(s, r, SINEW_AMG_SPMV_SET, s->a0, m, s->vp, s->vq, 0);
    dot(s, r, m, s->vp, s->vq, SINEW_AMG_S_PQ);
    GpuAmgPush p = push(m, SINEW_AMG_VEC_PCG_UPDATE);
    p.x = s->vx;
    p.y = s->vr;
    p.z = s->vp;
    p.w = s->vq;
    p.slot = parity;
    run(r, SINEW_KERNEL_AMG_VECTOR, m, &p);
    precondition(s, r, s->vr, s->vz);
    dot(s, r, m, s->vr, s->vz, SINEW_AMG_S_RZ + 1 - parity);
    p = push(m, SINEW_AMG_VEC_PCG_DIRECTION);
    p.y = s->vz;
    p.z = s->vp;
    p.slot = parity;
    run(r, SINEW_KERNEL_AMG_VECTOR, m, &p);
}

static sinew_result read_scalars(sinew_mgpbd *s, float out[SINEW_AMG_SCALAR_COUNT])
{
    return download_words(s, 1, s->scalars, out, SINEW_AMG_SCALAR_COUNT);
}

/* Runs CG on A0 x = vb (its start recorded into the open recorder r, which
 * this submits): max_iterations, stopping at |r| <= tol |b| checked every
 * batch, or when a batch ends with SINEW_AMG_S_INDEFINITE raised
 * (st->indefinite): a coarse operator with a diagonal <= 0 or a broken-down
 * iteration, after which CG makes no progress. lazy: the coarse operators
 * were just recomputed by record_galerkin, whose flag CG keeps; the caller
 * sets up afresh. */
static sinew_result run_pcg(sinew_mgpbd *s, sinew_recorder *r, double tol, uint32_t max_iterations, uint32_t batch,
                            int lazy, sinew_mgpbd_solve_stats *st)
{
    record_pcg_start(s, r, lazy);
    uint32_t k = 0;
    float sc[SINEW_AMG_SCALAR_COUNT] = {0};
    sinew_result res = SINEW_RESULT_OK;
    st->history_count = 0;
    st->indefinite = st->coarse_diagonal = 0;
    double rel = 1.0;
    for (;;) {
        uint32_t until = tol > 0.0 ? k + batch : max_iterations;
        if (until > max_iterations)
            until = max_iterations;
        for (; k < until; k++)
            record_pcg_iteration(s, r, k);
        dot(s, r, s->m, s->vr, s->vr, SINEW_AMG_S_RR);
        res = sinew_record_submit(r, s->fence);
        if (res == SINEW_RESULT_OK)
            res = read_scalars(s, sc);
        if (res != SINEW_RESULT_OK)
            break;
        st->residual0 = sqrt((double)sc[SINEW_AMG_S_BB]);
        st->residual = sqrt((double)sc[SINEW_AMG_S_RR]);
        st->indefinite = sc[SINEW_AMG_S_INDEFINITE] != 0.0f;
        st->coarse_diagonal = sc[SINEW_AMG_S_COARSE_DIAGONAL] != 0.0f;
        if (st->indefinite)
            break;
        rel = st->residual0 > 0.0 ? st->residual / st->residual0 : 0.0;
        if (st->history_count < sizeof st->history / sizeof st->history[0])
            st->history[st->history_count++] = rel;
        if (!(rel == rel) || k >= max_iterations || rel <= tol || st->residual0 == 0.0)
            break;
        sinew_record_begin(r, s->ctx, s->cmd, s->set);
    }
    st->iterations = k;
    if (res == SINEW_RESULT_OK && !(rel == rel))
        res = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd", "CG produced NaN");
    return res;
}

/* The coarse operators from the finest by the fixed P. GRAM: X_{l+1} =
 * R_l X_l, A_{l+1} = X_{l+1} W X_{l+1}^T (X_0 as amg_assemble left it);
 * PRODUCT: A_l P_l, R_l (A_l P_l). */
/* C = X Y by amg_product (matrix records), a row or an entry per invocation
 * as product_mode chose; flag: a coarse diagonal <= 0 raises the flag. */
static void product(const sinew_mgpbd *s, sinew_recorder *r, uint32_t C, uint32_t X, uint32_t Y, uint32_t rows,
                    uint32_t nnz, uint32_t mode, uint32_t flag)
{
    uint32_t n = mode ? rows : nnz;
    GpuAmgPush p = push(n, mode | flag);
    p.matrix = C;
    p.x = X;
    p.y = Y;
    run(r, SINEW_KERNEL_AMG_PRODUCT, n, &p);
}

static void record_galerkin(sinew_mgpbd *s, sinew_recorder *r)
{
    vec(s, r, SINEW_AMG_VEC_ZERO, 2, 0, s->scalars + SINEW_AMG_S_INDEFINITE, 0.0f); /* and COARSE_DIAGONAL */
    for (uint32_t l = 0; l + 1 < s->levels; l++) {
        const level_gpu *L = &s->L[l], *C = &s->L[l + 1];
        if (l + 1 <= s->gram_levels) {
            product(s, r, C->X, L->R, L->X, C->rows, C->x_nnz, C->x_mode, 0);
            GpuAmgPush p = push(C->nnz, 0);
            p.matrix = C->A;
            p.x = C->X;
            run(r, SINEW_KERNEL_AMG_GRAM, C->nnz, &p);
        } else {
            product(s, r, L->AP, L->A, L->P, L->rows, L->ap_nnz, L->ap_mode, 0);
            product(s, r, C->A, L->R, L->AP, C->rows, C->nnz, C->a_mode, 1);
        }
    }
}

/* Lazy iterations: every level's operator as the device now holds it into
 * the host's hierarchy, and the smoothers' rho(D^-1 A) estimated anew from
 * it. A kept from setup, rho goes stale as A changes, and a Chebyshev
 * interval below the new largest eigenvalue makes the V-cycle indefinite.
 * With a diagonal <= 0 nothing changes (the device's flag sets up afresh). */
static sinew_result refresh_rho(sinew_mgpbd *s)
{
    float *v = s->readback;
    for (uint32_t l = 0; l < s->levels; l++) {
        sinew_csr *A = &s->amg.L[l].A;
        const uint32_t nnz = A->row[A->rows];
        sinew_result r = download_words(s, 1, s->L[l].a_val, v, nnz);
        if (r != SINEW_RESULT_OK)
            return r;
        for (uint32_t i = 0; i < A->rows; i++)
            for (uint32_t e = A->row[i]; e < A->row[i + 1]; e++)
                if (A->col[e] == i && !(v[e] > 0.0f))
                    return SINEW_RESULT_OK;
        for (uint32_t e = 0; e < nnz; e++)
            A->val[e] = v[e];
    }
    sinew_amg_refresh(&s->amg);
    for (uint32_t l = 0; l < s->levels; l++)
        s->L[l].rho = s->amg.L[l].rho;
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- host operations */

/* Downloads the matrix at record `record` into out (allocated). */
static sinew_result read_record(sinew_mgpbd *s, uint32_t record, sinew_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t rec[SINEW_AMG_MAT];
    sinew_result r = download_words(s, 0, record, rec, SINEW_AMG_MAT);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_alloc(rec[SINEW_AMG_M_ROWS], rec[SINEW_AMG_M_COLS], rec[SINEW_AMG_M_NNZ], out, &s->ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    const uint32_t nnz = rec[SINEW_AMG_M_NNZ];
    float *v = malloc(sizeof *v * ((size_t)nnz + 1));
    if (!v) {
        sinew_csr_free(out);
        return oom(s);
    }
    r = download_words(s, 0, rec[SINEW_AMG_M_ROW], out->row, out->rows + 1ull);
    if (r == SINEW_RESULT_OK && nnz)
        r = download_words(s, 0, rec[SINEW_AMG_M_COL], out->col, nnz);
    if (r == SINEW_RESULT_OK && nnz)
        r = download_words(s, 1, rec[SINEW_AMG_M_VAL], v, nnz);
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
    float *v = malloc(sizeof *v * ((size_t)nnz + 1));
    if (!v)
        return oom(s);
    put_values(v, A);
    sinew_result r = upload_words(s, 1, s->a0_val, v, nnz);
    free(v);
    return r;
}

sinew_result sinew_mgpbd_setup(sinew_mgpbd *s)
{
    sinew_csr A;
    sinew_result r = sinew_mgpbd_read_matrix(s, 0, &A);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_amg fresh;
    r = sinew_amg_setup(&A, &s->desc.amg, &fresh, &s->ctx->logger);
    sinew_csr_free(&A);
    if (r != SINEW_RESULT_OK)
        return r;
    /* One level without a factor (nothing to coarsen, too large to factor)
     * is fine too: the V-cycle is then coarse_sweeps smoother applications. */
    sinew_amg_free(&s->amg);
    s->amg = fresh;
    r = upload_hierarchy(s);
    s->have_setup = r == SINEW_RESULT_OK;
    s->setup_frame = s->frame;
    if (r != SINEW_RESULT_OK) {
        sinew_amg_free(&s->amg);
        s->levels = 0;
        s->dense_rows = 0;
    }
    return r;
}

sinew_result sinew_mgpbd_galerkin(sinew_mgpbd *s)
{
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    record_galerkin(s, &rec);
    sinew_result r = sinew_record_submit(&rec, s->fence);
    float sc[SINEW_AMG_SCALAR_COUNT];
    if (r == SINEW_RESULT_OK)
        r = read_scalars(s, sc);
    if (r == SINEW_RESULT_OK && sc[SINEW_AMG_S_INDEFINITE] != 0.0f)
        r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd",
                       "a coarse operator recomputed by the kept prolongators has a diagonal <= 0: set up afresh");
    return r;
}

static sinew_result upload_vector(sinew_mgpbd *s, uint32_t at, const float *v, uint32_t count)
{
    return upload_words(s, 1, at, v, count);
}

static sinew_result download_vector(sinew_mgpbd *s, uint32_t at, float *v, uint32_t count)
{
    return download_words(s, 1, at, v, count);
}

sinew_result sinew_mgpbd_spmv(sinew_mgpbd *s, uint32_t level, int which, const float *x, float *y)
{
    SINEW_ASSERT(level < (s->levels ? s->levels : 1) && which >= 0 && which <= 2);
    SINEW_ASSERT(which == 0 || level + 1 < s->levels);
    const level_gpu *L = &s->L[level];
    uint32_t rows = which == 2 ? s->L[level + 1].rows : L->rows, cols = which == 1 ? s->L[level + 1].rows : L->rows;
    uint32_t matrix = which == 0 ? L->A : which == 1 ? L->P : L->R;
    sinew_result r = upload_vector(s, s->vp, x, cols);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    spmv(s, &rec, SINEW_AMG_SPMV_SET, matrix, rows, s->vp, s->vq, 0);
    r = sinew_record_submit(&rec, s->fence);
    return r == SINEW_RESULT_OK ? download_vector(s, s->vq, y, rows) : r;
}

sinew_result sinew_mgpbd_vcycle(sinew_mgpbd *s, const float *rv, float *z)
{
    SINEW_ASSERT(s->levels > 0);
    sinew_result r = upload_vector(s, s->vr, rv, s->m);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    if (s->dense_rows) {
        GpuAmgPush p = push(s->dense_rows, SINEW_AMG_COARSE_FACTOR);
        p.matrix = s->L[s->levels - 1].A;
        run(&rec, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
    }
    vcycle(s, &rec, 0, s->vz, s->vr);
    r = sinew_record_submit(&rec, s->fence);
    return r == SINEW_RESULT_OK ? download_vector(s, s->vz, z, s->m) : r;
}

sinew_result sinew_mgpbd_solve(sinew_mgpbd *s, const float *b, float *x, double tol, uint32_t max_iterations,
                               sinew_mgpbd_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    if (s->desc.precond == SINEW_MGPBD_PRECOND_AMG && !s->have_setup)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the AMG preconditioner has no hierarchy yet (sinew_mgpbd_setup)");
    double t0 = sinew_host_ms();
    sinew_result r = upload_vector(s, s->vb, b, s->m);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    r = run_pcg(s, &rec, tol, max_iterations, s->desc.pcg_batch, 0, st);
    st->ms = sinew_host_ms() - t0;
    return r == SINEW_RESULT_OK && x ? download_vector(s, s->vx, x, s->m) : r;
}

/* ---------------------------------------------------------------- the outer loop */

sinew_result sinew_mgpbd_set_state(sinew_mgpbd *s, const float *x, const float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return oom(s);
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        const float *src = pass ? v : x;
        for (uint32_t i = 0; i < s->n; i++) {
            for (int k = 0; k < 3; k++)
                buf[4 * i + k] = src ? src[3 * i + k] : 0.0f;
            buf[4 * i + 3] = pass ? 0.0f : s->w[i];
        }
        r = sinew_buffer_upload(s->ctx, &s->buffers[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
    }
    free(buf);
    return r;
}

sinew_result sinew_mgpbd_read_state(sinew_mgpbd *s, float *x, float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return oom(s);
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        float *dst = pass ? v : x;
        if (!dst)
            continue;
        r = sinew_buffer_download(s->ctx, &s->buffers[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
        for (uint32_t i = 0; i < s->n && r == SINEW_RESULT_OK; i++)
            memcpy(&dst[3 * i], &buf[4 * i], 3 * sizeof *dst);
    }
    free(buf);
    return r;
}

static sinew_result check_h(sinew_mgpbd *s, float h)
{
    if (!(h > 0.0f && isfinite(h)))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the step size is %g s; it must be > 0 and finite", (double)h);
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_begin_step(sinew_mgpbd *s, float h, const float gravity[3])
{
    if (h != 0.0f) { /* 0: no prediction; anything else must be a step size (NaN included) */
        sinew_result r = check_h(s, h);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    vec(s, &rec, SINEW_AMG_VEC_ZERO, s->m, 0, s->lambda, 0.0f);
    if (h > 0.0f) {
        GpuAmgPush p = push(s->n, 1);
        p.a = h;
        p.b = gravity[0];
        p.c = gravity[1];
        p.d = gravity[2];
        run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    }
    s->frame++;
    s->step_iteration = 0;
    return sinew_record_submit(&rec, s->fence);
}

sinew_result sinew_mgpbd_end_step(sinew_mgpbd *s, float h)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    GpuAmgPush p = push(s->n, 2);
    p.a = h;
    run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    return sinew_record_submit(&rec, s->fence);
}

/* C, gradients and b = -C - alpha~ lambda into vb, and |b|^2. */
static void record_eval(sinew_mgpbd *s, sinew_recorder *r, float h)
{
    GpuAmgPush p = push(s->m, SINEW_AMG_CONS_EVAL);
    p.y = s->vb;
    p.a = 1.0f / (h * h);
    run(r, SINEW_KERNEL_AMG_CONSTRAINT, s->m, &p);
    dot(s, r, s->m, s->vb, s->vb, SINEW_AMG_S_BB);
}

/* Records b's evaluation into the open recorder, submits it and reads |b|. */
static sinew_result submit_eval(sinew_mgpbd *s, sinew_recorder *r, float h, double *norm)
{
    record_eval(s, r, h);
    float sc[SINEW_AMG_SCALAR_COUNT];
    sinew_result res = sinew_record_submit(r, s->fence);
    if (res == SINEW_RESULT_OK)
        res = read_scalars(s, sc);
    if (res == SINEW_RESULT_OK)
        *norm = sqrt((double)sc[SINEW_AMG_S_BB]);
    return res;
}

sinew_result sinew_mgpbd_dual_residual(sinew_mgpbd *s, float h, double *norm)
{
    *norm = NAN;
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    return submit_eval(s, &rec, h, norm);
}

sinew_result sinew_mgpbd_assemble(sinew_mgpbd *s, float h)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    record_eval(s, &rec, h);
    GpuAmgPush p = push(s->m, 0);
    p.a = 1.0f / (h * h);
    run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
    return sinew_record_submit(&rec, s->fence);
}

sinew_result sinew_mgpbd_read_rhs(sinew_mgpbd *s, float *b) { return download_vector(s, s->vb, b, s->m); }

sinew_result sinew_mgpbd_xpbd(sinew_mgpbd *s, float h, uint32_t sweeps)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    for (uint32_t k = 0; k < sweeps; k++)
        for (uint32_t c = 0; c < s->colour_count; c++) {
            GpuAmgPush p = push(s->colours[c].count, SINEW_AMG_CONS_XPBD);
            p.first = s->colours[c].first;
            p.a = 1.0f / (h * h);
            run(&rec, SINEW_KERNEL_AMG_CONSTRAINT, p.count, &p);
        }
    return sinew_record_submit(&rec, s->fence);
}

sinew_result sinew_mgpbd_xpbd_jacobi(sinew_mgpbd *s, float h, uint32_t sweeps, float omega)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!(omega > 0.0f && omega <= 1.0f))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the Jacobi weight is %g; it must be in (0, 1]", (double)omega);
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    for (uint32_t k = 0; k < sweeps; k++) {
        GpuAmgPush p = push(s->m, SINEW_AMG_CONS_JACOBI);
        p.y = s->vx;
        p.a = 1.0f / (h * h);
        run(&rec, SINEW_KERNEL_AMG_CONSTRAINT, s->m, &p);
        p = push(s->n, 0);
        p.x = s->vx;
        p.a = omega;
        run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    }
    return sinew_record_submit(&rec, s->fence);
}

sinew_result sinew_mgpbd_iterate(sinew_mgpbd *s, float h, sinew_mgpbd_iteration *it)
{
    memset(it, 0, sizeof *it);
    it->pcg_relative = NAN;
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    const double t0 = sinew_host_ms();
    const sinew_mgpbd_desc *d = &s->desc;
    int setup = d->precond == SINEW_MGPBD_PRECOND_AMG &&
                (!s->have_setup || d->setup_interval == 0 ||
                 (s->step_iteration == 0 && s->frame - s->setup_frame >= d->setup_interval));
    sinew_recorder rec;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    record_eval(s, &rec, h);
    GpuAmgPush p = push(s->m, 0);
    p.a = 1.0f / (h * h);
    run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
    if (setup) { /* the host needs A: submit, set up, go on in a new command buffer */
        r = sinew_record_submit(&rec, s->fence);
        if (r == SINEW_RESULT_OK)
            r = sinew_mgpbd_setup(s);
        if (r != SINEW_RESULT_OK)
            return r;
        it->setup = 1;
        sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    } else if (d->precond == SINEW_MGPBD_PRECOND_AMG) {
        record_galerkin(s, &rec);
        if (d->refresh_rho) { /* the smoothers' coefficients need rho before CG is recorded */
            r = sinew_record_submit(&rec, s->fence);
            if (r == SINEW_RESULT_OK)
                r = refresh_rho(s);
            if (r != SINEW_RESULT_OK)
                return r;
            sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
        }
    }
    sinew_mgpbd_solve_stats st;
    const int lazy = !setup && d->precond == SINEW_MGPBD_PRECOND_AMG;
    r = run_pcg(s, &rec, d->pcg_tolerance, d->pcg_iterations, d->pcg_batch, lazy, &st);
    uint32_t wasted = 0;
    if (r == SINEW_RESULT_OK && st.indefinite)
        it->indefinite = 1;
    it->coarse_diagonal = st.coarse_diagonal;
    if (r == SINEW_RESULT_OK && st.indefinite && lazy) { /* set up afresh from this A and solve again */
        wasted = st.iterations;
        it->setup = 1;
        r = sinew_mgpbd_setup(s);
        if (r == SINEW_RESULT_OK) {
            sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
            r = run_pcg(s, &rec, d->pcg_tolerance, d->pcg_iterations, d->pcg_batch, 0, &st);
            it->indefinite = st.indefinite ? 2 : 1;
        }
    }
    if (r != SINEW_RESULT_OK)
        return r;
    it->dual_residual = st.residual0;
    it->pcg_iterations = wasted + st.iterations;
    it->pcg_relative = st.residual0 > 0.0 ? st.residual / st.residual0 : 0.0;
    sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
    it->step = 1.0;
    it->dual_after = NAN;
    if (d->line_search == 0) {
        p = push(s->n, 0);
        p.x = s->vx;
        p.a = (float)d->omega;
        run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
        vec(s, &rec, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->lambda, 1.0f);
        r = sinew_record_submit(&rec, s->fence);
    } else { /* backtracking: halve the step while |b| does not fall */
        vec(s, &rec, SINEW_AMG_VEC_COPY, s->m, s->lambda, s->vl, 0.0f);
        double t = 1.0, target = it->dual_residual;
        if (d->lambda_full) { /* lambda += dlambda for good; the target is |b| there at the old positions */
            vec(s, &rec, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->vl, 1.0f);
            vec(s, &rec, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
            r = submit_eval(s, &rec, h, &target);
            if (r != SINEW_RESULT_OK)
                return r;
            sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
        }
        for (uint32_t k = 0;; k++) {
            if (k > 0)
                sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
            p = push(s->n, k == 0 ? 3 : 4);
            p.x = s->vx;
            p.a = (float)(t * d->omega);
            run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
            vec(s, &rec, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
            if (!d->lambda_full)
                vec(s, &rec, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->lambda, (float)t);
            r = submit_eval(s, &rec, h, &it->dual_after);
            if (r != SINEW_RESULT_OK)
                break;
            it->step = t;
            if (it->dual_after < (d->lambda_full ? target : (1.0 - 1e-4 * t) * it->dual_residual))
                break;
            if (k >= d->line_search) { /* no step made |b| fall: take none */
                sinew_record_begin(&rec, s->ctx, s->cmd, s->set);
                p = push(s->n, 4);
                run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
                vec(s, &rec, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
                r = sinew_record_submit(&rec, s->fence);
                it->step = 0.0;
                it->dual_after = d->lambda_full ? target : it->dual_residual;
                it->line_search_failed = 1;
                break;
            }
            t *= 0.5;
        }
    }
    s->step_iteration++;
    it->ms = sinew_host_ms() - t0;
    return r;
}

sinew_result sinew_mgpbd_solve_step(sinew_mgpbd *s, float h, const float gravity[3], sinew_mgpbd_step_stats *st)
{
    memset(st, 0, sizeof *st);
    const double t0 = sinew_host_ms();
    const sinew_mgpbd_desc *d = &s->desc;
    sinew_result r = check_h(s, h);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_begin_step(s, h, gravity);
    st->stopped_by = 2;
    while (r == SINEW_RESULT_OK && st->iterations < d->max_iterations) {
        sinew_mgpbd_iteration it;
        r = sinew_mgpbd_iterate(s, h, &it);
        if (r != SINEW_RESULT_OK)
            break;
        if (st->iterations == 0)
            st->residual0 = it.dual_residual;
        double after = it.dual_after;
        if (!(after == after)) /* no line search: |b| after the step costs one more evaluation */
            r = sinew_mgpbd_dual_residual(s, h, &after);
        double rel = st->residual0 > 0.0 ? after / st->residual0 : 0.0;
        if (st->iterations < sizeof st->relative / sizeof st->relative[0])
            st->relative[st->iterations] = rel;
        st->iterations++;
        st->pcg_iterations += it.pcg_iterations;
        st->setups += (uint32_t)it.setup;
        if (!(rel == rel)) {
            r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd", "the dual residual became NaN");
            break;
        }
        if (rel <= d->tolerance) {
            st->stopped_by = 0;
            break;
        }
        if (it.line_search_failed) { /* the same iteration again would do the same */
            st->stopped_by = 3;
            break;
        }
        if (d->time_budget_ms > 0.0 && sinew_host_ms() - t0 >= d->time_budget_ms) {
            st->stopped_by = 1;
            break;
        }
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_end_step(s, h);
    st->ms = sinew_host_ms() - t0;
    return r;
}
