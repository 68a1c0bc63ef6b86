/* Matrix Market files (NIST's exchange format, "coordinate" kind) to and from
 * a sinew_csr: for exchanging constraint-space systems with other solvers and
 * keeping test matrices. Reading is safe for untrusted input.
 */
#ifndef SINEW_PREP_MTX_H
#define SINEW_PREP_MTX_H

#include <sinew/core.h>

#include "math/csr.h"

/* Files are read whole (core/file.h), up to this size. */
#define SINEW_MTX_MAX_FILE ((size_t)1 << 31)

/* Reads "%%MatrixMarket matrix coordinate real|integer general|symmetric"
 * (keywords in any case), '%' comment lines and blank lines up to the size
 * line "rows cols entries", then exactly that many "i j value" lines, 1-based,
 * blank lines allowed among them. A symmetric file lists the lower triangle
 * (i >= j); each entry off the diagonal is mirrored. Refused with
 * INVALID_ARGUMENT (the code sinew's other data files use) naming the file,
 * the line and the problem, *out zeroed: a missing or unknown header (array,
 * pattern, complex, hermitian and skew-symmetric files are not read), a bad
 * size line, an entry count the rest of the file is too short to hold
 * (checked before anything is allocated), an index out of range, an entry
 * above the diagonal of a symmetric file, a value that is not a finite number
 * (or, in an integer file, not an integer), an entry given twice (both lines
 * named), a missing or extra token, a comment among the entries, fewer or
 * more entries than declared. LIMIT for more than 2^26 rows or columns or
 * SINEW_CSR_MAX_NNZ entries (after mirroring), IO when the file cannot be
 * read. Free *out with sinew_csr_free. */
sinew_result sinew_mtx_read(const char *path, const sinew_logger *lg, sinew_csr *out);

/* The same, from memory; name labels the messages. */
sinew_result sinew_mtx_read_memory(const void *data, size_t size, const char *name, const sinew_logger *lg,
                                   sinew_csr *out);

/* Writes m as "coordinate real general", or "symmetric" (its lower triangle
 * only; INVALID_ARGUMENT unless m is square and exactly symmetric), every
 * value in 17 significant digits so that reading it back gives the same bits.
 * The file is replaced atomically (core/file.h). IO when it cannot be
 * written. */
sinew_result sinew_mtx_write(const char *path, const sinew_csr *m, int symmetric, const sinew_logger *lg);

#endif
