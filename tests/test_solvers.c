/* The solver table: every solver named once, names and values round-trip,
 * and the table's rows sit at their enum values (table.c relies on it). */
#include <criterion/criterion.h>

#include <string.h>

#include <sinew/body.h>

#include "solvers/solver.h"

Test(solvers, names_round_trip_and_are_unique)
{
    int count = 0;
    for (int s = 0; sinew_solver_name((sinew_solver)s); s++, count++) {
        const char *name = sinew_solver_name((sinew_solver)s);
        cr_assert(name[0] != '\0', "solver %d has an empty name", s);
        cr_assert_not_null(sinew_solver_label((sinew_solver)s));
        sinew_solver back = (sinew_solver)-1;
        cr_assert_eq(sinew_solver_from_name(name, &back), SINEW_RESULT_OK, "%s", name);
        cr_assert_eq((int)back, s, "%s", name);
        for (int t = 0; t < s; t++)
            cr_assert(strcmp(name, sinew_solver_name((sinew_solver)t)) != 0, "%s named twice", name);
        const sinew_solver_row *row = sinew_solver_row_of((sinew_solver)s);
        cr_assert_eq((int)row->id, s, "the row of solver %d sits at %d", (int)row->id, s);
        cr_assert_not_null(row->ops);
        cr_assert(row->ops->check && row->ops->create && row->ops->destroy && row->ops->buffers,
                  "%s lacks a required operation", name);
        cr_assert(row->ops->timestamps != NULL, "%s says nothing of its timestamps", name);
        cr_assert((row->ops->record_solve != NULL) != (row->ops->record_substep != NULL),
                  "%s records its solve or its whole substep, one of them", name);
    }
    cr_assert_eq(count, SINEW_SOLVER_MGPBD + 1, "every enum value has a row");
    cr_assert_null(sinew_solver_name((sinew_solver)count));
    cr_assert_null(sinew_solver_label((sinew_solver)-1));
}

Test(solvers, unknown_names_are_refused)
{
    sinew_solver s = SINEW_SOLVER_HPBD;
    cr_assert_eq(sinew_solver_from_name("gs", &s), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_solver_from_name("", &s), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_solver_from_name(NULL, &s), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(s, SINEW_SOLVER_HPBD, "a refused name writes nothing");
}
