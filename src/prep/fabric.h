/* Tabulated fabrics: a measured (or illustrative) fabric in a JSON file, read
 * into a sinew_material of model TABULATED for the membrane elements of a cloth
 * asset (src/prep/cloth.h). Safe for untrusted input: the file's size, the
 * number of points and every value are bounded and checked, and each refusal
 * names the file, the key and the problem.
 *
 * The file (data/fabrics/ holds examples):
 *
 *   {
 *     "name": "woven cotton",            optional string, for people
 *     "comment": "...",                  optional, anything: provenance
 *     "thickness": 3e-4,                 m, in (0, 0.1]
 *     "areal_density": 0.12,             kg/m^2, in (0, 100]
 *     "stress_unit": "Pa",               optional: "Pa" (default) or "N/m",
 *                                        force per width, divided by thickness
 *     "warp":  [[0, 0], [0.01, 2e5], ...],   [Green strain, stress] pairs
 *     "weft":  [[0, 0], ...],
 *     "shear": [[0, 0], ...]
 *   }
 *
 * Each curve: 2 to SINEW_FABRIC_MAX_POINTS pairs of finite numbers, strains
 * strictly increasing, stresses non-decreasing, zero strain within the range
 * with stress zero there (to 1e-6 of the largest |stress|: the rest shape is at
 * rest). Warp and weft strains are above -0.5 (Green strain of a fibre
 * shrunk to nothing). Shear is the Green strain E_uv against the stress S_uv
 * conjugate to it (the material's energy counts it twice, E_uv and E_vu).
 *
 * A curve becomes exactly SINEW_TABLE_POINTS points. The point at zero strain
 * is always one of them (inserted if the file has none, stress set to 0).
 * Longer curves keep their end points and, one at a time, the point farthest
 * (in stress) from the piecewise-linear curve through those kept so far
 * (greedy, as Douglas-Peucker); shorter ones are refined by halving their
 * longest interval, which leaves the curve unchanged.
 */
#ifndef SINEW_PREP_FABRIC_H
#define SINEW_PREP_FABRIC_H

#include <sinew/material.h>

#include <stddef.h>

#define SINEW_FABRIC_MAX_BYTES (1u << 20)
#define SINEW_FABRIC_MAX_POINTS 4096u

/* Reads the fabric file at path into *out: model TABULATED, thickness, density
 * = the areal density (kg/m^2), the three tables. ERROR_IO if it cannot be
 * read, ERROR_LIMIT if larger than SINEW_FABRIC_MAX_BYTES, ERROR_INVALID_ARGUMENT
 * for anything else wrong with it; ERROR_UNSUPPORTED in a build without cJSON.
 * *out is written only on success. */
sinew_result sinew_fabric_read(const char *path, const sinew_logger *lg, sinew_material *out);

/* The same from size bytes of text (need not be NUL-terminated); name stands
 * for the file in messages. */
sinew_result sinew_fabric_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                                sinew_material *out);

#endif
