/* sinew-prep's soft bodies: volume meshes (Gmsh, TetGen), surfaces
 * tetrahedralised by TetGen, and generated boxes, to GPBD tetrahedra assets.
 * sinew-prep.c hands the whole command line over when it asks for one. */
#ifndef SINEW_TOOLS_PREP_SOFT_H
#define SINEW_TOOLS_PREP_SOFT_H

#include <stdint.h>
#include <stdio.h>

/* --pin-box may be given this many times, each one more box (cloth and
 * soft bodies alike). */
#define PREP_MAX_PIN_BOXES 64
#define PREP_MAX_PIN_BOXES_TEXT "64"

/* --units mm|cm|m|in: metres per unit of the file into *factor; 0 with a
 * message naming the option otherwise. */
int prep_parse_units(const char *tool, const char *opt, const char *text, double *factor);

/* The model's size and mass, in a line; warnings when it looks like the
 * wrong unit (under a centimetre or over 100 m across, or over a tonne):
 * "is it in millimetres? --units mm". xyz: count positions (3 floats each,
 * metres). */
void prep_report_size(const char *tool, const char *what, const float *xyz, uint32_t count, double mass, int quiet);

/* 1 when the command line asks for a soft body: --box, --tetrahedralise, or an
 * input named .msh, .node or .ele. */
int prep_soft_wanted(int argc, char **argv);

/* Parses the command line, builds and writes the asset, prints the report.
 * Exit status: 0 done, 1 failed, 2 bad options. */
int prep_soft_main(int argc, char **argv);

/* The options, for --help. */
void prep_soft_help(FILE *f);

#endif
