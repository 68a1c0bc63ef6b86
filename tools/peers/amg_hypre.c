/* hypre BoomerAMG as the preconditioner of a plain CG, on one Matrix Market
 * matrix: the hypre side of the AMG peer benchmark (tools/peers/amg.sh,
 * README.md). Classical (Ruge-Stueben style) AMG: HMIS coarsening (De Sterck,
 * Yang, Heys 2006), extended+i interpolation (De Sterck, Falgout, Nolting,
 * Yang 2008), one V-cycle per CG iteration.
 *
 *   amg_hypre MATRIX.mtx [--b B.mtx] [--theta 0.25] [--relax 18]
 *             [--max-coarse 64] [--pmax 4] [--tol 1e-6] [--maxiter 5000]
 *             [--repeat 3] [--verbose]
 *
 * b is B.mtx (Matrix Market array, one column) or all ones; x0 = 0. CG stops
 * when the recursively updated residual has |r| <= tol |b|, as scipy's does;
 * final_relative is the true |b - A x| / |b| afterwards. Prints one JSON line.
 *
 * One MPI rank, so each hypre matrix is one local CSR block; the operator and
 * grid complexities are read off BoomerAMG's level matrices through its
 * internal data (hypre_ParAMGData), which the public API does not expose.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        HYPRE_Int check_rc_ = (call);                                          \
        if (check_rc_ != 0) {                                                  \
            char check_msg_[256];                                              \
            HYPRE_DescribeError(check_rc_, check_msg_);                        \
            fprintf(stderr, "amg_hypre: %s failed: %s\n", #call, check_msg_);  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

typedef struct options {
    const char *matrix;
    const char *rhs;      /* NULL: b = ones */
    double theta;         /* strong threshold */
    int relax;            /* BoomerAMG relax type, up and down cycles */
    int max_coarse;       /* rows on the coarsest level, at most */
    int pmax;             /* interpolation entries per row, at most; 0 = all */
    double tol;           /* relative to |b| */
    int maxiter;
    int repeat;           /* timings: fastest of this many */
    int verbose;
} options;

typedef struct csr {
    int n;
    int *rowptr; /* n + 1 */
    int *col;    /* rowptr[n] */
    double *val;
} csr;

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "amg_hypre: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) die("out of memory%s", "");
    return p;
}

/* Next line that is not a comment, into buf; 0 at end of file. */
static int next_line(FILE *f, char *buf, int size)
{
    while (fgets(buf, size, f)) {
        if (buf[0] != '%') return 1;
    }
    return 0;
}

/* Lower-cases in place; Matrix Market banners are case-insensitive. */
static void lower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

typedef struct triplet {
    int row, col;
    double val;
} triplet;

static int by_row_col(const void *a, const void *b)
{
    const triplet *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return 0;
}

/* Reads a square 'coordinate real|integer general|symmetric' file into CSR,
 * the symmetric triangle mirrored and duplicate entries summed. */
static csr read_matrix(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open %s", path);
    char line[1024], object[64], format[64], field[64], symmetry[64];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", object, format, field, symmetry) != 4)
        die("%s: no %%%%MatrixMarket banner", path);
    lower(object), lower(format), lower(field), lower(symmetry);
    if (strcmp(object, "matrix") || strcmp(format, "coordinate"))
        die("%s: not a coordinate matrix", path);
    if (strcmp(field, "real") && strcmp(field, "integer") && strcmp(field, "double"))
        die("%s: field must be real or integer", path);
    int sym = !strcmp(symmetry, "symmetric");
    if (!sym && strcmp(symmetry, "general")) die("%s: symmetry must be general or symmetric", path);

    long rows, cols, entries;
    if (!next_line(f, line, sizeof line) || sscanf(line, "%ld %ld %ld", &rows, &cols, &entries) != 3)
        die("%s: bad size line", path);
    if (rows != cols || rows <= 0 || entries < 0 || rows > 1000000000L || entries > 500000000L)
        die("%s: not a square matrix of a usable size", path);

    long cap = sym ? 2 * entries : entries;
    triplet *t = xmalloc((size_t)cap * sizeof *t);
    long k = 0;
    for (long e = 0; e < entries; e++) {
        long i, j;
        double v;
        if (!next_line(f, line, sizeof line) || sscanf(line, "%ld %ld %lf", &i, &j, &v) != 3)
            die("%s: truncated or malformed entry", path);
        if (i < 1 || i > rows || j < 1 || j > cols) die("%s: entry index out of range", path);
        t[k++] = (triplet){(int)(i - 1), (int)(j - 1), v};
        if (sym && i != j) t[k++] = (triplet){(int)(j - 1), (int)(i - 1), v};
    }
    fclose(f);

    qsort(t, (size_t)k, sizeof *t, by_row_col);
    csr A = {(int)rows, xmalloc(((size_t)rows + 1) * sizeof(int)), xmalloc((size_t)k * sizeof(int)),
             xmalloc((size_t)k * sizeof(double))};
    int nnz = 0;
    A.rowptr[0] = 0;
    long e = 0;
    for (int r = 0; r < A.n; r++) {
        for (; e < k && t[e].row == r; e++) {
            if (nnz > A.rowptr[r] && A.col[nnz - 1] == t[e].col) {
                A.val[nnz - 1] += t[e].val;
            } else {
                A.col[nnz] = t[e].col;
                A.val[nnz] = t[e].val;
                nnz++;
            }
        }
        A.rowptr[r + 1] = nnz;
    }
    free(t);
    return A;
}

/* Reads an 'array real general' file with n rows and one column. */
static double *read_vector(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open %s", path);
    char line[1024], object[64], format[64], field[64];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%%%%MatrixMarket %63s %63s %63s", object, format, field) != 3)
        die("%s: no %%%%MatrixMarket banner", path);
    lower(object), lower(format), lower(field);
    if (strcmp(object, "matrix") || strcmp(format, "array") ||
        (strcmp(field, "real") && strcmp(field, "integer") && strcmp(field, "double")))
        die("%s: not a real array", path);
    long rows, cols;
    if (!next_line(f, line, sizeof line) || sscanf(line, "%ld %ld", &rows, &cols) != 2 ||
        rows != n || cols != 1)
        die("%s: size does not match the matrix (one column of its rows)", path);
    double *b = xmalloc((size_t)n * sizeof *b);
    for (int i = 0; i < n; i++) {
        if (!next_line(f, line, sizeof line) || sscanf(line, "%lf", &b[i]) != 1)
            die("%s: truncated or malformed value", path);
    }
    fclose(f);
    return b;
}

static HYPRE_IJVector make_vector(int n, const double *values)
{
    HYPRE_IJVector v;
    CHECK(HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, &v));
    CHECK(HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR));
    CHECK(HYPRE_IJVectorInitialize(v));
    if (values) {
        int *idx = xmalloc((size_t)n * sizeof *idx);
        for (int i = 0; i < n; i++) idx[i] = i;
        CHECK(HYPRE_IJVectorSetValues(v, n, idx, values));
        free(idx);
    }
    CHECK(HYPRE_IJVectorAssemble(v));
    return v;
}

static HYPRE_ParVector par(HYPRE_IJVector v)
{
    void *obj;
    CHECK(HYPRE_IJVectorGetObject(v, &obj));
    return (HYPRE_ParVector)obj;
}

static double dot(HYPRE_ParVector x, HYPRE_ParVector y)
{
    double d;
    CHECK(HYPRE_ParVectorInnerProd(x, y, &d));
    return d;
}

static HYPRE_Solver amg_create(const options *o)
{
    HYPRE_Solver amg;
    CHECK(HYPRE_BoomerAMGCreate(&amg));
    CHECK(HYPRE_BoomerAMGSetPrintLevel(amg, o->verbose ? 1 : 0));
    CHECK(HYPRE_BoomerAMGSetCoarsenType(amg, 10));  /* HMIS */
    CHECK(HYPRE_BoomerAMGSetInterpType(amg, 6));    /* extended+i */
    CHECK(HYPRE_BoomerAMGSetPMaxElmts(amg, o->pmax));
    CHECK(HYPRE_BoomerAMGSetStrongThreshold(amg, o->theta));
    CHECK(HYPRE_BoomerAMGSetAggNumLevels(amg, 0));  /* no aggressive coarsening */
    CHECK(HYPRE_BoomerAMGSetMaxCoarseSize(amg, o->max_coarse));
    CHECK(HYPRE_BoomerAMGSetMaxLevels(amg, 50));
    /* The same relaxation down and up, in lexicographic order (C/F order
     * would make the V-cycle nonsymmetric), one sweep each; an exact solve
     * (Gaussian elimination) on the coarsest level. */
    CHECK(HYPRE_BoomerAMGSetCycleRelaxType(amg, o->relax, 1));
    CHECK(HYPRE_BoomerAMGSetCycleRelaxType(amg, o->relax, 2));
    CHECK(HYPRE_BoomerAMGSetCycleRelaxType(amg, 9, 3));
    CHECK(HYPRE_BoomerAMGSetCycleNumSweeps(amg, 1, 1));
    CHECK(HYPRE_BoomerAMGSetCycleNumSweeps(amg, 1, 2));
    CHECK(HYPRE_BoomerAMGSetCycleNumSweeps(amg, 1, 3));
    CHECK(HYPRE_BoomerAMGSetRelaxOrder(amg, 0));
    CHECK(HYPRE_BoomerAMGSetCycleType(amg, 1));     /* V */
    /* As a preconditioner: exactly one V-cycle per application. */
    CHECK(HYPRE_BoomerAMGSetMaxIter(amg, 1));
    CHECK(HYPRE_BoomerAMGSetTol(amg, 0.0));
    return amg;
}

static const char *relax_name(int relax)
{
    switch (relax) {
    case 0: return "weighted Jacobi";
    case 6: return "hybrid symmetric Gauss-Seidel";
    case 8: return "l1 symmetric Gauss-Seidel";
    case 16: return "Chebyshev";
    case 18: return "l1-Jacobi";
    default: return "relax type";
    }
}

typedef struct cg_result {
    int iterations;
    int converged;
} cg_result;

/* Preconditioned CG from x = 0, M = one BoomerAMG V-cycle. */
static cg_result cg(HYPRE_ParCSRMatrix A, HYPRE_Solver amg, HYPRE_ParVector b, HYPRE_ParVector x,
                    HYPRE_ParVector r, HYPRE_ParVector z, HYPRE_ParVector p, HYPRE_ParVector q,
                    const options *o)
{
    cg_result res = {0, 0};
    CHECK(HYPRE_ParVectorSetConstantValues(x, 0.0));
    CHECK(HYPRE_ParVectorCopy(b, r));
    double stop = o->tol * sqrt(dot(b, b));
    if (sqrt(dot(r, r)) <= stop) {
        res.converged = 1;
        return res;
    }
    double rho_prev = 0.0;
    while (res.iterations < o->maxiter) {
        CHECK(HYPRE_ParVectorSetConstantValues(z, 0.0));
        CHECK(HYPRE_BoomerAMGSolve(amg, A, r, z));
        double rho = dot(r, z);
        if (res.iterations == 0) {
            CHECK(HYPRE_ParVectorCopy(z, p));
        } else {
            CHECK(HYPRE_ParVectorScale(rho / rho_prev, p));
            CHECK(HYPRE_ParVectorAxpy(1.0, z, p));
        }
        CHECK(HYPRE_ParCSRMatrixMatvec(1.0, A, p, 0.0, q));
        double pq = dot(p, q);
        if (!(pq > 0.0)) {
            fprintf(stderr, "amg_hypre: CG breakdown (p.Ap = %g): matrix or preconditioner not SPD\n", pq);
            break;
        }
        double alpha = rho / pq;
        CHECK(HYPRE_ParVectorAxpy(alpha, p, x));
        CHECK(HYPRE_ParVectorAxpy(-alpha, q, r));
        rho_prev = rho;
        res.iterations++;
        if (sqrt(dot(r, r)) <= stop) {
            res.converged = 1;
            break;
        }
    }
    return res;
}

static long level_nnz(hypre_ParCSRMatrix *A)
{
    return (long)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) +
           (long)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A));
}

static void usage(void)
{
    fprintf(stderr, "usage: amg_hypre MATRIX.mtx [--b B.mtx] [--theta 0.25] [--relax 18] "
                    "[--max-coarse 64] [--pmax 4] [--tol 1e-6] [--maxiter 5000] [--repeat 3] "
                    "[--verbose]\n");
    exit(2);
}

static options parse(int argc, char **argv)
{
    options o = {NULL, NULL, 0.25, 18, 64, 4, 1e-6, 5000, 3, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--b") && more) o.rhs = argv[++i];
        else if (!strcmp(a, "--theta") && more) o.theta = atof(argv[++i]);
        else if (!strcmp(a, "--relax") && more) o.relax = atoi(argv[++i]);
        else if (!strcmp(a, "--max-coarse") && more) o.max_coarse = atoi(argv[++i]);
        else if (!strcmp(a, "--pmax") && more) o.pmax = atoi(argv[++i]);
        else if (!strcmp(a, "--tol") && more) o.tol = atof(argv[++i]);
        else if (!strcmp(a, "--maxiter") && more) o.maxiter = atoi(argv[++i]);
        else if (!strcmp(a, "--repeat") && more) o.repeat = atoi(argv[++i]);
        else if (!strcmp(a, "--verbose")) o.verbose = 1;
        else if (a[0] != '-' && !o.matrix) o.matrix = a;
        else usage();
    }
    if (!o.matrix || o.repeat < 1 || o.maxiter < 1 || !(o.tol > 0.0)) usage();
    return o;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options o = parse(argc, argv);
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks != 1) die("runs on one MPI rank only%s", "");
    CHECK(HYPRE_Init());

    csr M = read_matrix(o.matrix);
    int n = M.n;
    double *bvals = o.rhs ? read_vector(o.rhs, n) : NULL;
    if (!bvals) {
        bvals = xmalloc((size_t)n * sizeof *bvals);
        for (int i = 0; i < n; i++) bvals[i] = 1.0;
    }

    HYPRE_IJMatrix ij;
    CHECK(HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, n - 1, 0, n - 1, &ij));
    CHECK(HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR));
    int *ncols = xmalloc((size_t)n * sizeof *ncols), *rows = xmalloc((size_t)n * sizeof *rows);
    for (int i = 0; i < n; i++) {
        rows[i] = i;
        ncols[i] = M.rowptr[i + 1] - M.rowptr[i];
    }
    CHECK(HYPRE_IJMatrixSetRowSizes(ij, ncols));
    CHECK(HYPRE_IJMatrixInitialize(ij));
    CHECK(HYPRE_IJMatrixSetValues(ij, n, ncols, rows, M.col, M.val));
    CHECK(HYPRE_IJMatrixAssemble(ij));
    void *obj;
    CHECK(HYPRE_IJMatrixGetObject(ij, &obj));
    HYPRE_ParCSRMatrix A = obj;

    HYPRE_IJVector vb = make_vector(n, bvals), vx = make_vector(n, NULL), vr = make_vector(n, NULL),
                   vz = make_vector(n, NULL), vp = make_vector(n, NULL), vq = make_vector(n, NULL);
    HYPRE_ParVector b = par(vb), x = par(vx);

    double setup_ms = INFINITY, solve_ms = INFINITY;
    cg_result res = {0, 0};
    HYPRE_Solver amg = NULL;
    for (int rep = 0; rep < o.repeat; rep++) {
        if (amg) HYPRE_BoomerAMGDestroy(amg);
        amg = amg_create(&o);
        double t0 = MPI_Wtime();
        CHECK(HYPRE_BoomerAMGSetup(amg, A, b, x));
        double t1 = MPI_Wtime();
        res = cg(A, amg, b, x, par(vr), par(vz), par(vp), par(vq), &o);
        double t2 = MPI_Wtime();
        setup_ms = fmin(setup_ms, (t1 - t0) * 1e3);
        solve_ms = fmin(solve_ms, (t2 - t1) * 1e3);
    }

    /* True residual. */
    HYPRE_ParVector r = par(vr);
    CHECK(HYPRE_ParVectorCopy(b, r));
    CHECK(HYPRE_ParCSRMatrixMatvec(-1.0, A, x, 1.0, r));
    double bnorm = sqrt(dot(b, b));
    double final = bnorm > 0.0 ? sqrt(dot(r, r)) / bnorm : 0.0;

    hypre_ParAMGData *data = (hypre_ParAMGData *)amg;
    int levels = hypre_ParAMGDataNumLevels(data);
    hypre_ParCSRMatrix **As = hypre_ParAMGDataAArray(data);
    long nnz0 = level_nnz(As[0]);
    double nnz_sum = 0.0, rows_sum = 0.0;
    char level_rows[1024] = "";
    size_t used = 0;
    for (int l = 0; l < levels; l++) {
        long lr = (long)hypre_ParCSRMatrixGlobalNumRows(As[l]);
        nnz_sum += (double)level_nnz(As[l]);
        rows_sum += (double)lr;
        if (used < sizeof level_rows - 24)
            used += (size_t)snprintf(level_rows + used, sizeof level_rows - used, "%s%ld", l ? ", " : "", lr);
    }

    const char *name = strrchr(o.matrix, '/');
    name = name ? name + 1 : o.matrix;
    size_t len = strlen(name);
    if (len > 4 && !strcmp(name + len - 4, ".mtx")) len -= 4;

    printf("{\"peer\": \"hypre-boomeramg\", \"variant\": \"theta %g %s\", "
           "\"matrix\": \"%.*s\", \"rows\": %d, \"nnz\": %ld, "
           "\"setup_ms\": %.3f, \"solve_ms\": %.3f, \"iterations\": %d, \"converged\": %s, "
           "\"operator_complexity\": %.4f, \"grid_complexity\": %.4f, \"levels\": %d, "
           "\"level_rows\": [%s], \"final_relative\": %.3e, "
           "\"settings\": \"BoomerAMG: HMIS coarsening, ext+i interpolation (PMaxElmts %d), "
           "strong threshold %g, %s (relax type %d) 1 sweep down and up, lexicographic, "
           "coarsest: Gaussian elimination, max_coarse %d, no aggressive coarsening; "
           "own CG, M = one V-cycle (BoomerAMGSolve, 1 iteration)\", \"versions\": \"hypre %s\"}\n",
           o.theta, relax_name(o.relax), (int)len, name, n, (long)M.rowptr[n], setup_ms, solve_ms, res.iterations, res.converged ? "true" : "false",
           nnz_sum / (double)nnz0, rows_sum / (double)n, levels, level_rows, final, o.pmax, o.theta,
           relax_name(o.relax), o.relax, o.max_coarse, HYPRE_RELEASE_VERSION);

    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_IJVectorDestroy(vb), HYPRE_IJVectorDestroy(vx), HYPRE_IJVectorDestroy(vr);
    HYPRE_IJVectorDestroy(vz), HYPRE_IJVectorDestroy(vp), HYPRE_IJVectorDestroy(vq);
    HYPRE_IJMatrixDestroy(ij);
    free(ncols), free(rows), free(bvals), free(M.rowptr), free(M.col), free(M.val);
    HYPRE_Finalize();
    MPI_Finalize();
    return 0;
}
