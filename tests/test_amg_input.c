/* AMG's refusal of every kind of bad matrix, and Matrix Market files (src/prep/mtx.h): round trips and refusals. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg_fixture.h"
#include "prep/mtx.h"
#include "prep/volume.h"
#include "solvers/amg.h"

/* ------------------------------------------------------------ 5. bad input */

/* A small matrix from a dense row-major array (zeros left out). */
static sinew_csr from_dense(uint32_t rows, uint32_t cols, const double *d)
{
    sinew_csr m;
    cr_assert_eq(sinew_csr_alloc(rows, cols, rows * cols, &m, NULL), SINEW_RESULT_OK);
    uint32_t k = 0;
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < cols; j++)
            if (d[i * cols + j] != 0.0 || isnan(d[i * cols + j])) {
                m.col[k] = j;
                m.val[k++] = d[i * cols + j];
            }
        m.row[i + 1] = k;
    }
    return m;
}

static void expect_refused(const sinew_csr *A, const char *needle)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_amg amg;
    memset(&amg, 0xab, sizeof amg);
    sinew_result r = sinew_amg_setup(A, NULL, &amg, &lg);
    cr_assert_neq(r, SINEW_RESULT_OK, "accepted a matrix with %s", needle);
    cr_assert_eq(c.errors, 1, "%s", c.text);
    cr_assert_not_null(strstr(c.text, needle), "expected \"%s\" in: %s", needle, c.text);
    cr_assert_eq(amg.levels, 0);
    cr_assert_null(amg.coarse_factor);
    sinew_amg_free(&amg);
}

Test(amg, bad_matrices_are_refused)
{
    const double spd[9] = {4, -1, 0, -1, 4, -1, 0, -1, 4};
    sinew_csr A = from_dense(3, 3, spd);
    sinew_amg amg = setup(&A, NULL);
    cr_assert_eq(amg.levels, 1);
    sinew_amg_free(&amg);

    sinew_csr empty = {0};
    uint32_t zero_row = 0;
    empty.row = &zero_row;
    expect_refused(&empty, "empty");

    const double wide[12] = {4, -1, 0, 1, -1, 4, -1, 0, 0, -1, 4, 0};
    sinew_csr W = from_dense(3, 4, wide);
    expect_refused(&W, "not square");
    sinew_csr_free(&W);

    double d[9];
    memcpy(d, spd, sizeof d);
    d[1] = d[3] = NAN;
    sinew_csr N = from_dense(3, 3, d);
    expect_refused(&N, "nan");
    sinew_csr_free(&N);

    memcpy(d, spd, sizeof d);
    d[4] = 0.0;
    sinew_csr Z = from_dense(3, 3, d);
    expect_refused(&Z, "no diagonal entry in row 1");
    Z.val[Z.row[1]] = 0.0; /* back in the pattern, now as an explicit zero */
    sinew_csr_free(&Z);
    Z = from_dense(3, 3, spd);
    Z.val[Z.row[1] + 1] = 0.0;
    expect_refused(&Z, "diagonal entry (1, 1) = 0");
    Z.val[Z.row[1] + 1] = -2.0;
    expect_refused(&Z, "diagonal entry (1, 1) = -2");
    sinew_csr_free(&Z);

    memcpy(d, spd, sizeof d);
    d[1] = -1.5;
    sinew_csr U = from_dense(3, 3, d);
    expect_refused(&U, "not symmetric");
    sinew_csr_free(&U);

    sinew_csr S;
    cr_assert_eq(sinew_csr_copy(&A, &S, NULL), SINEW_RESULT_OK);
    S.col[0] = 1, S.col[1] = 0; /* row 0's columns out of order */
    expect_refused(&S, "strictly increase");
    S.col[0] = 0, S.col[1] = 7;
    expect_refused(&S, "beyond its 3 columns");
    sinew_csr_free(&S);

    /* Semi-definite: a graph Laplacian (a zero eigenvalue) fails the coarse Cholesky. */
    sinew_csr L = poisson(16);
    for (uint32_t i = 0; i < L.rows; i++) {
        double off = 0.0;
        for (uint32_t q = L.row[i]; q < L.row[i + 1]; q++)
            off += L.col[q] != i ? -L.val[q] : 0.0;
        for (uint32_t q = L.row[i]; q < L.row[i + 1]; q++)
            if (L.col[q] == i)
                L.val[q] = off;
    }
    expect_refused(&L, "not positive definite");
    sinew_csr_free(&L);

    /* Update: another pattern, a NaN, a non-positive diagonal; the hierarchy survives each. */
    sinew_csr B = poisson(12);
    amg = setup(&B, NULL);
    cr_assert_geq(amg.levels, 2);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_neq(sinew_amg_update(&amg, &A, &lg), SINEW_RESULT_OK);
    cr_assert_not_null(strstr(c.text, "pattern"), "%s", c.text);
    sinew_csr B2;
    cr_assert_eq(sinew_csr_copy(&B, &B2, NULL), SINEW_RESULT_OK);
    B2.val[5] = NAN;
    lg = capture_logger(&c);
    cr_assert_neq(sinew_amg_update(&amg, &B2, &lg), SINEW_RESULT_OK);
    cr_assert_not_null(strstr(c.text, "nan"), "%s", c.text);
    B2.val[5] = B.val[5];
    B2.val[0] = -1.0;
    lg = capture_logger(&c);
    cr_assert_neq(sinew_amg_update(&amg, &B2, &lg), SINEW_RESULT_OK);
    cr_assert_not_null(strstr(c.text, "diagonal"), "%s", c.text);
    double *b = random_vector(B.rows, 3);
    sinew_amg_cycle cyc = sinew_amg_cycle_default();
    run r = solve_amg(&B, b, &amg, &cyc, 200);
    cr_assert_lt(r.relative, 1e-5, "the hierarchy was damaged by a refused update");
    free(b);
    sinew_amg_free(&amg);
    sinew_csr_free(&B);
    sinew_csr_free(&B2);

    /* Options out of range. */
    sinew_amg_options o = sinew_amg_options_default();
    o.max_levels = SINEW_AMG_MAX_LEVELS + 1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_amg_setup(&A, &o, &amg, &lg), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(c.text, "max_levels"), "%s", c.text);
    sinew_csr_free(&A);
}

/* ------------------------------------------------------------ Matrix Market */

static void expect_mtx_refused(const char *text, const char *needle)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_csr m;
    sinew_result r = sinew_mtx_read_memory(text, strlen(text), "t.mtx", &lg, &m);
    cr_assert_neq(r, SINEW_RESULT_OK, "accepted: %s", text);
    cr_assert_not_null(strstr(c.text, needle), "expected \"%s\" in: %s", needle, c.text);
    cr_assert_null(m.row);
}

Test(amg, matrix_market_round_trip_and_refusals)
{
    /* Round trip, general and symmetric, bit for bit. */
    tet_problem p;
    sinew_csr A = bracket_matrix(&p, 0.1, 5), back;
    const char *paths[2] = {SINEW_TEST_OUT_DIR "/bracket-general.mtx", SINEW_TEST_OUT_DIR "/bracket-symmetric.mtx"};
    for (int sym = 0; sym < 2; sym++) {
        capture c;
        sinew_logger lg = capture_logger(&c);
        cr_assert_eq(sinew_mtx_write(paths[sym], &A, sym, &lg), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_eq(sinew_mtx_read(paths[sym], &lg, &back), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_eq(back.rows, A.rows);
        cr_assert_eq(back.cols, A.cols);
        cr_assert_eq(memcmp(back.row, A.row, sizeof *A.row * (A.rows + 1)), 0);
        cr_assert_eq(memcmp(back.col, A.col, sizeof *A.col * A.row[A.rows]), 0);
        cr_assert_eq(memcmp(back.val, A.val, sizeof *A.val * A.row[A.rows]), 0);
        sinew_csr_free(&back);
    }
    tet_problem_free(&p);
    /* Not symmetric: refused as symmetric, written as general. */
    A.val[1] += 1.0;
    cr_assert_eq(sinew_mtx_write(paths[1], &A, 1, &quiet), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    sinew_csr_free(&A);

    /* What a reader accepts: any case, comments, blank lines, integers. */
    const char *ok = "%%matrixmarket MATRIX Coordinate integer general\n% comment\n\n2 3 3\n1 1 5\n\n2 3 -7\n1 2 0\n";
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_mtx_read_memory(ok, strlen(ok), "ok.mtx", &lg, &back), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(back.rows, 2);
    cr_assert_eq(back.cols, 3);
    cr_assert_eq(back.row[1], 2);
    cr_assert_eq(back.col[1], 1);
    cr_assert_eq(back.val[2], -7.0);
    sinew_csr_free(&back);
    const char *sym = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 -1.5\n1 1 4\n";
    cr_assert_eq(sinew_mtx_read_memory(sym, strlen(sym), "sym.mtx", &lg, &back), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(back.row[2], 3); /* (1,1), (1,2) and (2,1) */
    cr_assert_eq(back.val[1], -1.5);
    cr_assert_eq(back.val[2], -1.5);
    sinew_csr_free(&back);

    const char *H = "%%MatrixMarket matrix coordinate real general\n";
    char text[512];
    expect_mtx_refused("", "t.mtx:0: empty file");
    expect_mtx_refused("3 3 1\n1 1 1\n", "t.mtx:1: not a Matrix Market file");
    expect_mtx_refused("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "t.mtx:1: header: format");
    expect_mtx_refused("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "field \"complex\"");
    /* Found by fuzz_mtx: rows cost memory even when no entry names them. */
    expect_mtx_refused("%%MatrixMarket matrix coordinate real general\n67108865 1 0\n", "out of range");
    expect_mtx_refused("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", "symmetry \"hermitian\"");
    expect_mtx_refused("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", "header has 4 words");
    snprintf(text, sizeof text, "%s", H);
    expect_mtx_refused(text, "ends before the size line");
    snprintf(text, sizeof text, "%s3 x 1\n1 1 1\n", H);
    expect_mtx_refused(text, "t.mtx:2: column count \"x\" is not an integer");
    snprintf(text, sizeof text, "%s3 3 4\n1 1 1.000000000\n2 2 1.000000000\n3 3 1.000000000\n", H);
    expect_mtx_refused(text, "t.mtx:5: the file ends after 3 of the 4 entries");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1.0\n2 2", H);
    expect_mtx_refused(text, "t.mtx:4: value missing");
    snprintf(text, sizeof text, "%s1000 1000 1000000\n1 1 1\n", H);
    expect_mtx_refused(text, "t.mtx:2: 1000000 entries declared, but the");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n4 1 1\n", H);
    expect_mtx_refused(text, "t.mtx:4: row index 4 is out of range [1, 3]");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n1 0 1\n", H);
    expect_mtx_refused(text, "t.mtx:4: column index 0 is out of range");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n2 2 nan\n", H);
    expect_mtx_refused(text, "t.mtx:4: value \"nan\" is not finite");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n2 2 1e999\n", H);
    expect_mtx_refused(text, "t.mtx:4: value \"1e999\" is not finite");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n2 2 1.0x\n", H);
    expect_mtx_refused(text, "t.mtx:4: value \"1.0x\" is not a number");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n2 2 1 9\n", H);
    expect_mtx_refused(text, "t.mtx:4: unexpected \"9\" after the value");
    snprintf(text, sizeof text, "%s3 3 3\n1 1 1\n2 2 1\n1 1 2\n", H);
    expect_mtx_refused(text, "t.mtx:5: entry (1, 1) is given again, first at line 3");
    snprintf(text, sizeof text, "%s3 3 1\n1 1 1\n2 2 1\n", H);
    expect_mtx_refused(text, "t.mtx:4: more lines than the 1 entries declared");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n%% late\n2 2 1\n", H);
    expect_mtx_refused(text, "t.mtx:4: a comment among the entries");
    expect_mtx_refused("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 1\n",
                       "t.mtx:4: entry (1, 2) is above the diagonal");
    expect_mtx_refused("%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n", "is not square");
    expect_mtx_refused("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n", "is not an integer");
    snprintf(text, sizeof text, "%s3 3 2\n1 1 1\n\x01\xff 2 1\n", H);
    expect_mtx_refused(text, "t.mtx:4: row index \"??\" is not an integer");
    snprintf(text, sizeof text, "%s4294967296 1 0\n", H);
    expect_mtx_refused(text, "t.mtx:2: row count 4294967296 is out of range");
    expect_mtx_refused("%%MatrixMarket matrix coordinate real general\n2 2 5\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n1 1 1\n",
                       "5 entries declared for a 2 x 2 matrix");

    lg = capture_logger(&c);
    cr_assert_eq(sinew_mtx_read(SINEW_TEST_OUT_DIR "/no-such-file.mtx", &lg, &back), SINEW_RESULT_ERROR_IO);
    cr_assert_not_null(strstr(c.text, "no-such-file.mtx"), "%s", c.text);
}
