/* libFuzzer target: sinew_mtx_read_memory (Matrix Market coordinate files) on
 * arbitrary bytes. What it accepts must be a well-formed sparse matrix
 * (sinew_csr_check), no larger than the input can describe, and, when the
 * banner says symmetric, exactly equal to its transpose. */
#include "fuzz_common.h"

#include "prep/mtx.h"

#include <ctype.h>
#include <string.h>

/* The blanks of mesh_text.h's tokens. */
static int blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Whether the banner's last word (the symmetry, of a file the reader
 * accepted) is "symmetric": the first line, cut at '#' as the reader cuts it. */
static int banner_says_symmetric(const uint8_t *data, size_t size)
{
    static const char word[] = "symmetric";
    const size_t n = sizeof word - 1;
    size_t end = 0;
    while (end < size && data[end] != '\n' && data[end] != '#')
        end++;
    while (end > 0 && blank(data[end - 1]))
        end--;
    if (end < n)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (tolower(data[end - n + k]) != word[k])
            return 0;
    return 1;
}

static void check_symmetric(const sinew_csr *m)
{
    const uint32_t nnz = m->row[m->rows];
    sinew_csr t;
    FUZZ_CHECK(m->rows == m->cols);
    FUZZ_CHECK(sinew_csr_transpose(m, &t, &fuzz_logger) == SINEW_RESULT_OK);
    FUZZ_CHECK(memcmp(t.row, m->row, sizeof *t.row * ((size_t)m->rows + 1)) == 0);
    FUZZ_CHECK(nnz == 0 || (memcmp(t.col, m->col, sizeof *t.col * nnz) == 0 &&
                            memcmp(t.val, m->val, sizeof *t.val * nnz) == 0));
    sinew_csr_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_csr m;
    memset(&m, 0xA5, sizeof m); /* a refusal must zero it */
    sinew_result r = sinew_mtx_read_memory(data, size, "fuzz.mtx", &fuzz_logger, &m);
    /* Out of memory is no answer to a small input (see fuzz_check_mesh). */
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_INVALID_ARGUMENT || r == SINEW_RESULT_ERROR_LIMIT);
    if (r != SINEW_RESULT_OK) {
        FUZZ_CHECK(!m.row && !m.col && !m.val && m.rows == 0 && m.cols == 0);
        return 0;
    }
    FUZZ_CHECK(m.row && m.col && m.val);
    FUZZ_CHECK(sinew_csr_check(&m, "fuzz.mtx", &fuzz_logger) == SINEW_RESULT_OK);
    /* Every entry line takes 6 bytes or more ("1 1 1\n", the last without its
     * newline), and a symmetric one stands for two entries at most. */
    const uint32_t nnz = m.row[m.rows];
    FUZZ_CHECK(nnz <= (uint64_t)m.rows * m.cols);
    FUZZ_CHECK(nnz <= 2 * ((uint64_t)size + 1) / 6);
    if (banner_says_symmetric(data, size))
        check_symmetric(&m);
    sinew_csr_free(&m);
    return 0;
}
