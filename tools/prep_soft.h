/* sinew-prep's soft bodies: volume meshes (Gmsh, TetGen), surfaces
 * tetrahedralised by TetGen, and generated boxes, to GPBD tetrahedra assets.
 * sinew-prep.c hands the whole command line over when it asks for one. */
#ifndef SINEW_TOOLS_PREP_SOFT_H
#define SINEW_TOOLS_PREP_SOFT_H

/* --pin-box may be given this many times, each one more box (cloth and
 * soft bodies alike). */
#define PREP_MAX_PIN_BOXES 64
#define PREP_MAX_PIN_BOXES_TEXT "64"

/* 1 when the command line asks for a soft body: --box, --tetrahedralise, or an
 * input named .msh, .node or .ele. */
int prep_soft_wanted(int argc, char **argv);

/* Parses the command line, builds and writes the asset, prints the report.
 * Exit status: 0 done, 1 failed, 2 bad options. */
int prep_soft_main(int argc, char **argv);

/* The options, for --help. */
void prep_soft_help(void);

#endif
