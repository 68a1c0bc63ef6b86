/* The one list of solvers: each public sinew_solver, its name as the tools
 * spell it, what it is in a few words, and the family that implements it
 * (solver.h). Adding a solver is a row here. */
#include "solver.h"

#include <string.h>

static const sinew_solver_row rows[] = {
    {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "xpbd-gs", "XPBD Gauss-Seidel", &sinew_pbd_ops},
    {SINEW_SOLVER_XPBD_JACOBI, "xpbd-jacobi", "XPBD Jacobi", &sinew_pbd_ops},
    {SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL, "xpbd-sgs", "XPBD symmetric Gauss-Seidel", &sinew_pbd_ops},
    {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, "gpbd-gs", "GPBD Gauss-Seidel", &sinew_pbd_ops},
    {SINEW_SOLVER_GPBD_JACOBI, "gpbd-jacobi", "GPBD Jacobi", &sinew_pbd_ops},
    {SINEW_SOLVER_HPBD, "hpbd", "Hierarchical PBD", &sinew_pbd_ops},
    {SINEW_SOLVER_PD_RED_BLACK, "pd-rbgs", "PD red-black Gauss-Seidel", &sinew_pd_ops},
    {SINEW_SOLVER_PD_JACOBI, "pd-jacobi", "PD Jacobi", &sinew_pd_ops},
    {SINEW_SOLVER_PD_CHEBYSHEV, "pd-chebyshev", "PD Chebyshev", &sinew_pd_ops},
    {SINEW_SOLVER_IMPLICIT_MG, "implicit-mg", "implicit, constrainable multigrid", &sinew_implicit_ops},
    {SINEW_SOLVER_IMPLICIT_PCG, "implicit-pcg", "implicit, modified PCG", &sinew_implicit_ops},
    {SINEW_SOLVER_MGPBD, "mgpbd", "MGPBD, multigrid-preconditioned global XPBD", &sinew_mgpbd_ops},
};
#define ROW_COUNT (sizeof rows / sizeof rows[0])

const sinew_solver_row *sinew_solver_row_of(sinew_solver solver)
{
    /* Rows are in enum order: the enum is numbered from 0 without gaps. */
    if ((unsigned)solver >= ROW_COUNT)
        return NULL;
    return &rows[solver];
}

const char *sinew_solver_name(sinew_solver solver)
{
    const sinew_solver_row *row = sinew_solver_row_of(solver);
    return row ? row->name : NULL;
}

const char *sinew_solver_label(sinew_solver solver)
{
    const sinew_solver_row *row = sinew_solver_row_of(solver);
    return row ? row->label : NULL;
}

sinew_result sinew_solver_check_fit(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d,
                                    int elements, int gauss_seidel)
{
    const sinew_logger *lg = &ctx->logger;
    if (a->element_count && !elements)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the asset has %u finite elements, which only the GPBD solvers and MGPBD simulate "
                          "(SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SOLVER_GPBD_JACOBI or SINEW_SOLVER_MGPBD)", a->element_count);
    if (d->sweep_order == SINEW_SWEEP_ALTERNATING && !gauss_seidel)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "alternating sweeps need a Gauss-Seidel solver (XPBD_GAUSS_SEIDEL, GPBD_GAUSS_SEIDEL or "
                          "HPBD)");
    return SINEW_RESULT_OK;
}

sinew_result sinew_solver_from_name(const char *name, sinew_solver *out)
{
    SINEW_ASSERT(out);
    for (size_t i = 0; name && i < ROW_COUNT; i++)
        if (!strcmp(name, rows[i].name)) {
            *out = rows[i].id;
            return SINEW_RESULT_OK;
        }
    return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
}
