/* sinew-prep: mesh (or generated grid) -> cloth asset (.snw), with the particle
 * hierarchy of Hierarchical PBD on request. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mesh_pipe.h"
#include "prep/cloth.h"
#include "prep/estimate.h"
#include "prep/fabric.h"
#include "prep/hierarchy.h"
#include "prep/mesh_text.h" /* the mesh limits */
#include "prep/nested.h"
#include "prep/redblack.h"
#include "prep_soft.h"

static const char *const usage =
    "usage: sinew-prep MESH -o ASSET.snw [options]\n"
    "       sinew-prep --grid NXxNY -o ASSET.snw [options]\n"
    "       sinew-prep VOLUME.msh|--box ...|SURFACE --tetrahedralise -o ASSET.snw   (soft bodies, below)\n"
    "\n"
    "Builds a cloth asset: particles with masses lumped from the triangles' areas,\n"
    "distance constraints along polygon edges (stretch) and quad diagonals (shear),\n"
    "dihedral bending across interior edges, a graph colouring for Gauss-Seidel.\n"
    "Reads OBJ and OFF, with assimp also PLY, STL, glTF (triangles, quads, polygons).\n"
    "\n"
    "  -o, --out FILE            asset to write (required; never the input)\n"
    "      --grid NXxNY          generate a grid of NX x NY particles instead of reading\n"
    "      --size WxH            grid size in m (default 1x1)\n"
    "      --plane xz|xy         grid plane (default xz: horizontal)\n"
    "      --height Y            grid height (xz) or centre (xy) in m (default 1)\n"
    "      --layers N            N copies of the grid (1..64, default 1), each --layer-gap\n"
    "                            above the one before (along +y for xz, +z for xy):\n"
    "                            separate parts in one asset; vertex v of layer L (from\n"
    "                            0) is L * NX * NY + v for --pin\n"
    "      --layer-gap G         between layers in m, > 0 (default 0.02; --scale scales it)\n"
    "      --units mm|cm|m|in    the unit of the mesh file's coordinates (default m), applied\n"
    "                            with --scale before anything is built\n"
    "      --scale S             scale the mesh uniformly\n"
    "      --translate X,Y,Z     then move it (m): the asset's origin goes there (in double,\n"
    "                            its ORIG section) and its float positions stay as they\n"
    "                            were, relative to it, so a cloth 10 km out is as precise\n"
    "                            as one at home; bodies start at the origin (sinew-sim)\n"
    "      --density KG_M2       areal density (default 0.2 kg/m^2)\n"
    "      --pin I,J,...         pin vertices by index (0-based, as in the file)\n"
    "      --pin-corners         grid only: pin the two corners of the first row (of\n"
    "                            each layer; --pin-box and --pin-top go by position)\n"
    "      --pin-box X0,Y0,Z0,X1,Y1,Z1   pin vertices inside the box (after --scale and\n"
    "                            --translate: where the mesh ends up in the world);\n"
    "                            the smaller corner first; repeatable, each one more box\n"
    "      --pin-top F           pin vertices within fraction F of the height below the top\n"
    "                            (refused where that pins every vertex: a mesh flat along y)\n"
    "      --free-parts          connected parts without a pin are meant to fall on their own\n"
    "                            (without it, a warning counts them)\n"
    "      --no-shear            no diagonal constraints\n"
    "      --no-bending          no bending constraints\n"
    "      --triangulate         split quads into triangles first, the diagonals in a\n"
    "                            checkerboard (--grid 64x64 --triangulate --no-shear:\n"
    "                            a cloth of a triangle mesh)\n"
    "      --colouring balanced|greedy   (default balanced)\n"
    "      --compare-colouring   print colour counts of both methods\n"
    "      --clusters N|none     Gauss-Seidel sweeps in passes of clusters of at most N\n"
    "                            particles (16..512, default 256), one dispatch a pass\n"
    "                            (docs/colouring.md); none: one dispatch a colour\n"
    "      --max-memory SIZE     refuse a build whose memory, estimated before any work\n"
    "                            from the input's size and the options (--subdivide,\n"
    "                            --lattice, --max-volume, --box), passes SIZE: bytes, or\n"
    "                            512M, 4G (default: half of this machine's memory; 0: no\n"
    "                            bound); a build of more than a minute is warned about\n"
    "  -q, --quiet               errors only\n"
    "  -h, --help                this text\n";

/* The defaults are the library's (sinew_hierarchy_options_default). */
static void print_hierarchy_help(const sinew_hierarchy_options *o)
{
    printf("\n"
           "Red-black partition for the mass-spring solvers (Pall et al.), of the distance\n"
           "constraints: a quad network without diagonals (--no-shear) splits into two sets\n"
           "with every spring between them; anything else is refused naming an odd cycle:\n"
           "      --red-black           store the partition in the asset\n"
           "      --quadrangulate       first split every polygon into quads around its centre\n"
           "                            through its edges' midpoints (no smoothing): any mesh\n"
           "                            becomes a quad network that is always red-black\n");
    printf("\n"
           "Multigrid levels for implicit cloth (Jeon et al. 2013): nested meshes by 1 -> 4\n"
           "subdivision of the input, each new particle at the midpoint of an edge of the\n"
           "level before; the asset holds the finest, every level with its colouring:\n"
           "      --subdivide N         N subdivisions (1..%u); quads are split into triangles\n"
           "                            first; --pin names the input's vertices (a pin past\n"
           "                            them is refused)\n",
           SINEW_ASSET_MAX_MLEVELS - 1);
    printf("\n"
           "Particle hierarchy for Hierarchical PBD (Mueller 2008), built from the distance\n"
           "constraints; a table of the levels is printed (particles, constraints, colours):\n"
           "      --hierarchy LEVELS    at most LEVELS levels, level 0 included (2..%u)\n"
           "      --hierarchy-k K       parents of each fine particle, >= 1 (default %u)\n"
           "      --hierarchy-min N     stop after a level of N particles or fewer (default %u)\n"
           "      --hierarchy-rest geodesic|pose   coarse rest lengths: the sum of the collapsed\n"
           "                            ones, or the distance in the rest pose (default %s)\n",
           SINEW_ASSET_MAX_LEVELS, o->k, o->min_particles,
           o->rest == SINEW_HIERARCHY_REST_GEODESIC ? "geodesic" : "pose");
}

/* The defaults are the library's (sinew_cloth_options_default), printed from it. */
static void print_element_help(const sinew_cloth_options *o)
{
    const sinew_material *m = &o->membrane_material;
    printf("\n"
           "Finite elements for the GPBD solvers (stretch and shear distances become elements):\n"
           "      --membrane stvk|FABRIC.json   a membrane triangle per triangle: St. Venant-Kirchhoff\n"
           "                            of the three options below, or a tabulated fabric\n"
           "                            (data/fabrics/*.json), whose areal density the masses\n"
           "                            take unless --density is given\n"
           "      --youngs E            StVK Young's modulus (default %g Pa)\n"
           "      --poisson NU          StVK Poisson ratio, [0, 0.5) (default %g)\n"
           "      --thickness T         StVK thickness (default %g m). The defaults are a woven\n"
           "                            cotton shirting: E T = %g N/m, about its secant stiffness\n"
           "                            at the 490 N/m load of the Kawabata (KES-F) tensile test,\n"
           "                            where such fabrics stretch some 5 %%\n"
           "      --springs COMPLIANCE  every stretch and shear distance as a spring element (m/N)\n"
           "      --keep-distances      keep the distance constraints as well\n"
           "      --warp X,Y,Z          warp (material u) direction, projected on each triangle\n"
           "                            (default %g,%g,%g; also as three arguments)\n",
           (double)m->youngs_modulus, (double)m->poisson_ratio, (double)m->thickness,
           (double)m->youngs_modulus * (double)m->thickness, o->warp[0], o->warp[1], o->warp[2]);
}

static int parse_pins(const char *text, uint32_t **pins, uint32_t *count)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    uint32_t *list = realloc(*pins, (*count + cap) * sizeof *list);
    if (!list)
        return 0;
    *pins = list;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || v > 0xffffffffu || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "sinew-prep: --pin: \"%s\" is not a list of vertex indices\n", text);
            return 0;
        }
        list[(*count)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    return 1;
}

/* "AxB": two finite numbers joined by an x and nothing else (no sign, no
 * trailing text: "16x16junk" is refused, not read as 16 x 16). */
static int parse_pair(const char *text, double out[2])
{
    const char *p = text;
    for (int k = 0; k < 2; k++) {
        char *end;
        if (!text || *p == '-' || *p == '+' || isspace((unsigned char)*p))
            return 0;
        errno = 0;
        out[k] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(out[k]) || *end != (k == 0 ? 'x' : '\0'))
            return 0;
        p = end + 1;
    }
    return 1;
}

/* Whether --triangulate (or --quadrangulate) keeps the mesh within the
 * mesh limits, saying by how much it would not. */
static int within_mesh_limits(const char *t, const sinew_mesh *m, int quadrangulate)
{
    uint64_t quads = 0, corners = m->face_count ? m->face_offsets[m->face_count] : 0;
    for (uint32_t f = 0; f < m->face_count; f++)
        quads += m->face_offsets[f + 1] - m->face_offsets[f] == 4;
    /* a quad becomes two triangles; quadrangulating a polygon of k corners
     * adds a vertex per corner's edge and one at its centre, k quads */
    uint64_t faces = quadrangulate ? corners : m->face_count + quads;
    uint64_t vertices = quadrangulate ? m->vertex_count + corners + m->face_count : m->vertex_count;
    if (faces <= SINEW_MESH_MAX_FACES && vertices <= SINEW_MESH_MAX_VERTICES)
        return 1;
    fprintf(stderr, "%s: --%s would make %llu vertices and %llu faces of %u vertices and %u faces, past the limits "
            "of %u and %u\n", t, quadrangulate ? "quadrangulate" : "triangulate", (unsigned long long)vertices,
            (unsigned long long)faces, m->vertex_count, m->face_count, SINEW_MESH_MAX_VERTICES, SINEW_MESH_MAX_FACES);
    return 0;
}

/* Whether the cloth (subdivided) is estimated to fit in max_memory, saying
 * why not. */
static int within_memory(const sinew_mesh *m, const char *mesh_path, const unsigned grid[2], uint32_t subdivide,
                         uint64_t max_memory, const sinew_logger *lg)
{
    char job[64];
    if (subdivide)
        snprintf(job, sizeof job, "--subdivide %u", subdivide);
    else if (grid[0])
        snprintf(job, sizeof job, "--grid %ux%u", grid[0], grid[1]);
    else
        snprintf(job, sizeof job, "its cloth");
    const sinew_estimate e = sinew_estimate_cloth_mesh(m, subdivide);
    return sinew_estimate_check(&e, max_memory, mesh_path ? mesh_path : "grid", job, "--max-memory SIZE", lg) ==
           SINEW_RESULT_OK;
}

static void print_hierarchy(const sinew_hierarchy_report *r, const sinew_hierarchy_options *o)
{
    printf("hierarchy: %u levels (k = %u, %s rest lengths), %u parent links\n", r->level_count, o->k,
           o->rest == SINEW_HIERARCHY_REST_GEODESIC ? "geodesic" : "rest-pose", r->links);
    printf("  level  particles  constraints  colours\n");
    for (uint32_t l = 0; l < r->level_count; l++)
        printf("  %5u  %9u  %11u  %7u\n", l, r->particles[l], r->constraints[l], r->colours[l]);
}

static void print_colouring(const char *name, const sinew_colouring *c)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t k = 0; k < c->colour_count; k++) {
        lo = c->sizes[k] < lo ? c->sizes[k] : lo;
        hi = c->sizes[k] > hi ? c->sizes[k] : hi;
    }
    printf("  %-9s %3u colours, sizes %u..%u\n", name, c->colour_count, c->colour_count ? lo : 0, hi);
}

/* Colours the asset's constraints again with both methods, for comparison. */
static void compare_colourings(const sinew_asset *a)
{
    uint32_t m = a->distance_count + a->bend_count;
    uint32_t *offsets = malloc((m + 1ull) * sizeof *offsets);
    uint32_t *indices = malloc((2ull * a->distance_count + 4ull * a->bend_count + 1) * sizeof *indices);
    if (!offsets || !indices)
        goto done;
    uint32_t k = 0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        offsets[c] = k;
        indices[k++] = a->distances[c].a;
        indices[k++] = a->distances[c].b;
    }
    for (uint32_t c = 0; c < a->bend_count; c++) {
        offsets[a->distance_count + c] = k;
        for (int j = 0; j < 4; j++)
            indices[k++] = a->bends[c].v[j];
    }
    offsets[m] = k;
    printf("colouring of %u constraints:\n", m);
    const char *names[] = {"greedy", "balanced"};
    for (int method = 0; method < 2; method++) {
        sinew_colouring col;
        if (sinew_colour_constraints(m, offsets, indices, a->particle_count, (sinew_colouring_method)method, NULL,
                                     &col) == SINEW_RESULT_OK) {
            print_colouring(names[method], &col);
            sinew_colouring_free(&col);
        }
    }
done:
    free(offsets);
    free(indices);
}

/* ---------------------------------------------------------------- isolated reading
 * Meshes are read in a child process. sinew's own OBJ and OFF readers are
 * fuzzed and safe, but assimp's importers (PLY, STL, glTF, ...) crash on some
 * malformed files (docs/fuzzing.md): in a child, such a crash becomes an
 * error message naming the file instead of a crash of sinew-prep. The child
 * sends the mesh back through a pipe: counts, then the arrays. */

static void send_mesh(int fd, const char *path, const sinew_logger *lg)
{
    sinew_mesh m = {0};
    sinew_result r = sinew_mesh_read(path, lg, &m);
    uint32_t head[4] = {(uint32_t)r, m.vertex_count, m.face_count, r == SINEW_RESULT_OK ? m.face_offsets[m.face_count] : 0};
    int ok = cli_write_all(fd, head, sizeof head);
    if (ok && r == SINEW_RESULT_OK)
        ok = cli_write_all(fd, m.positions, 3 * sizeof *m.positions * m.vertex_count) &&
             cli_write_all(fd, m.face_offsets, sizeof *m.face_offsets * (m.face_count + 1ull)) &&
             cli_write_all(fd, m.face_indices, sizeof *m.face_indices * (size_t)head[3]) &&
             mesh_pipe_send_render(fd, &m);
    sinew_mesh_free(&m);
    fflush(stderr);
    _exit(ok ? 0 : 1);
}

static sinew_result read_mesh_isolated(const char *path, const sinew_logger *lg, sinew_mesh *out)
{
    const char *t = "sinew-prep";
    memset(out, 0, sizeof *out);
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", t, strerror(errno));
        return SINEW_RESULT_ERROR_IO;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", t, strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return SINEW_RESULT_ERROR_IO;
    }
    if (pid == 0) {
        /* A crash ends the child with its signal, which the parent reports
         * (a sanitizer's handler would otherwise report it as its own). */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGFPE, SIG_DFL);
        signal(SIGILL, SIG_DFL);
        close(fd[0]);
        send_mesh(fd[1], path, lg);
    }
    close(fd[1]);
    uint32_t head[4] = {0};
    sinew_result r = SINEW_RESULT_ERROR_BAD_MESH;
    int got = cli_read_all(fd[0], head, sizeof head);
    if (got && head[0] == SINEW_RESULT_OK) {
        out->vertex_count = head[1];
        out->face_count = head[2];
        out->positions = malloc(3 * sizeof *out->positions * ((size_t)head[1] + 1));
        out->face_offsets = malloc(sizeof *out->face_offsets * ((size_t)head[2] + 1));
        out->face_indices = malloc(sizeof *out->face_indices * ((size_t)head[3] + 1));
        got = out->positions && out->face_offsets && out->face_indices &&
              cli_read_all(fd[0], out->positions, 3 * sizeof *out->positions * head[1]) &&
              cli_read_all(fd[0], out->face_offsets, sizeof *out->face_offsets * ((size_t)head[2] + 1)) &&
              cli_read_all(fd[0], out->face_indices, sizeof *out->face_indices * (size_t)head[3]) &&
              mesh_pipe_receive_render(fd[0], out, path, lg);
        r = got ? SINEW_RESULT_OK : SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    } else if (got) {
        r = head[0] < SINEW_RESULT_COUNT ? (sinew_result)head[0] : SINEW_RESULT_ERROR_BAD_MESH;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "sinew error [mesh]: %s: the importer crashed reading it (signal %d, %s); the file is refused\n",
                path, WTERMSIG(status), strsignal(WTERMSIG(status)));
        r = SINEW_RESULT_ERROR_BAD_MESH;
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && r == SINEW_RESULT_OK) {
        r = SINEW_RESULT_ERROR_IO;
    }
    if (r != SINEW_RESULT_OK)
        sinew_mesh_free(out);
    return r;
}

int main(int argc, char **argv)
{
    if (prep_soft_wanted(argc, argv))
        return prep_soft_main(argc, argv);
    const char *t = "sinew-prep", *mesh_path = NULL, *out = NULL;
    unsigned grid[2] = {0, 0}, layers = 1;
    double layer_gap = 0.02;
    int layer_options = 0;
    double size[2] = {1.0, 1.0}, height = 1.0, scale = 1.0, units = 1.0, translate[3] = {0, 0, 0}, boxes[6 * PREP_MAX_PIN_BOXES];
    unsigned box_count = 0;
    int plane_xy = 0, pin_corners = 0, compare = 0, quiet = 0, triangulate = 0, quadrangulate = 0;
    uint32_t *pins = NULL, pin_count = 0;
    sinew_cloth_options opt = sinew_cloth_options_default();
    int status = 2;
    const char *fabric = NULL;
    double youngs = opt.membrane_material.youngs_modulus, poisson = opt.membrane_material.poisson_ratio;
    double thickness = opt.membrane_material.thickness;
    int stvk_options = 0, density_given = 0;
    sinew_hierarchy_options hopt = sinew_hierarchy_options_default();
    unsigned levels = 0, hierarchy_k = hopt.k, hierarchy_min = hopt.min_particles;
    int red_black = 0;
    uint32_t subdivide = 0;
    int hierarchy_options = 0;
    uint64_t max_memory = sinew_estimate_memory_default();

    static const char *const repeatable[] = {"--pin", "--pin-box", NULL};
    const char *seen[128];
    unsigned seen_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, used = 1;
        if (a[0] == '-' && a[1] && !cli_once(t, a, repeatable, seen, &seen_count))
            goto done;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            print_hierarchy_help(&hopt);
            print_element_help(&opt);
            prep_soft_help(stdout);
            free(pins);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            ok = v != NULL || cli_error(t, "%s needs a file name%s", a, "");
            out = v;
        } else if (!strcmp(a, "--grid")) {
            double g[2];
            ok = parse_pair(v, g) && g[0] == floor(g[0]) && g[1] == floor(g[1]) && g[0] >= 2 && g[1] >= 2 &&
                 g[0] <= 2048 && g[1] <= 2048 && strspn(v, "0123456789x") == strlen(v);
            if (ok) {
                grid[0] = (unsigned)g[0];
                grid[1] = (unsigned)g[1];
            } else {
                cli_error(t, "--grid: \"%s\" is not NXxNY, two whole numbers with 2 <= NX, NY <= 2048%s",
                          v ? v : "", "");
            }
        } else if (!strcmp(a, "--size")) {
            ok = parse_pair(v, size) && size[0] > 0 && size[1] > 0;
            if (!ok)
                cli_error(t, "--size: \"%s\" is not WxH, two finite sizes > 0 in m%s", v ? v : "", "");
        } else if (!strcmp(a, "--plane")) {
            ok = v && (!strcmp(v, "xz") || !strcmp(v, "xy"));
            if (!ok)
                cli_error(t, "--plane: \"%s\" is not xz or xy%s", v ? v : "", "");
            plane_xy = ok && !strcmp(v, "xy");
        } else if (!strcmp(a, "--layers")) {
            ok = cli_uint_in(t, a, v, 1, 64, &layers);
            layer_options = 1;
        } else if (!strcmp(a, "--layer-gap")) {
            ok = cli_double(t, a, v, &layer_gap) &&
                 (layer_gap > 0 || cli_error(t, "%s: \"%s\" is not a gap > 0 (m)", a, v));
            layer_options = 1;
        } else if (!strcmp(a, "--height")) {
            ok = cli_double(t, a, v, &height);
        } else if (!strcmp(a, "--scale")) {
            ok = cli_double(t, a, v, &scale) && (scale > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--units")) {
            ok = prep_parse_units(t, a, v, &units);
        } else if (!strcmp(a, "--translate")) {
            ok = cli_doubles(t, a, v, 3, translate) &&
                 ((fabs(translate[0]) <= 1e9 && fabs(translate[1]) <= 1e9 && fabs(translate[2]) <= 1e9) ||
                  cli_error(t, "%s: \"%s\" reaches beyond 1e9 m (the bound of an asset's origin)", a, v));
        } else if (!strcmp(a, "--density")) {
            ok = cli_double(t, a, v, &opt.density);
            density_given = 1;
        } else if (!strcmp(a, "--membrane")) {
            ok = v && *v != '\0' && *v != '-';
            if (!ok)
                cli_error(t, "--membrane needs stvk or a fabric file (FABRIC.json)%s%s", "", "");
            opt.membrane = SINEW_MATERIAL_STVK;
            fabric = ok && strcmp(v, "stvk") ? v : NULL;
        } else if (!strcmp(a, "--youngs")) {
            ok = cli_double(t, a, v, &youngs) && (youngs > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            stvk_options = 1;
        } else if (!strcmp(a, "--poisson")) {
            ok = cli_double(t, a, v, &poisson) &&
                 ((poisson >= 0 && poisson < 0.5) || cli_error(t, "%s must be in [0, 0.5)%s", a, ""));
            stvk_options = 1;
        } else if (!strcmp(a, "--thickness")) {
            ok = cli_double(t, a, v, &thickness) && (thickness > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            stvk_options = 1;
        } else if (!strcmp(a, "--springs")) {
            ok = cli_double(t, a, v, &opt.spring_compliance) &&
                 (opt.spring_compliance >= 0 || cli_error(t, "%s must be >= 0 (m/N)%s", a, ""));
            opt.springs = 1;
        } else if (!strcmp(a, "--keep-distances")) {
            opt.keep_distances = 1;
            used = 0;
        } else if (!strcmp(a, "--warp")) {
            /* X,Y,Z as --translate, or X Y Z. */
            if (v && strchr(v, ',')) {
                ok = cli_doubles(t, a, v, 3, opt.warp);
            } else {
                for (int k = 0; k < 3 && ok; k++)
                    ok = cli_double(t, a, i + 1 + k < argc ? argv[i + 1 + k] : NULL, &opt.warp[k]);
                used = 3;
            }
            ok = ok && (opt.warp[0] != 0 || opt.warp[1] != 0 || opt.warp[2] != 0 ||
                        cli_error(t, "%s must not be zero%s", a, ""));
        } else if (!strcmp(a, "--pin")) {
            ok = v && parse_pins(v, &pins, &pin_count);
        } else if (!strcmp(a, "--pin-corners")) {
            pin_corners = 1;
            used = 0;
        } else if (!strcmp(a, "--pin-box")) { /* each one more box */
            ok = (box_count < PREP_MAX_PIN_BOXES ||
                  cli_error(t, "%s: at most %s boxes", a, PREP_MAX_PIN_BOXES_TEXT)) &&
                 cli_doubles(t, a, v, 6, &boxes[6 * box_count]);
            box_count += ok;
            opt.pin_boxes = boxes;
            opt.pin_box_count = box_count;
        } else if (!strcmp(a, "--pin-top")) {
            ok = cli_double(t, a, v, &opt.pin_top);
        } else if (!strcmp(a, "--free-parts")) {
            opt.free_parts = 1;
            used = 0;
        } else if (!strcmp(a, "--no-shear")) {
            opt.shear = 0;
            used = 0;
        } else if (!strcmp(a, "--no-bending")) {
            opt.bending = 0;
            used = 0;
        } else if (!strcmp(a, "--triangulate")) {
            triangulate = 1;
            used = 0;
        } else if (!strcmp(a, "--quadrangulate")) {
            quadrangulate = 1;
            used = 0;
        } else if (!strcmp(a, "--subdivide")) {
            ok = cli_uint(t, a, v, SINEW_ASSET_MAX_MLEVELS - 1, &subdivide) &&
                 (subdivide >= 1 || cli_error(t, "--subdivide: %s subdivisions; give 1 to %s", v, "11"));
        } else if (!strcmp(a, "--red-black")) {
            red_black = 1;
            used = 0;
        } else if (!strcmp(a, "--hierarchy")) {
            ok = cli_uint(t, a, v, 1u << 20, &levels) &&
                 ((levels >= 2 && levels <= SINEW_ASSET_MAX_LEVELS) ||
                  cli_error(t, "%s %s: LEVELS must be in 2..32 (level 0 included)", a, v));
        } else if (!strcmp(a, "--hierarchy-k")) {
            ok = cli_uint(t, a, v, 1u << 20, &hierarchy_k) &&
                 (hierarchy_k >= 1 || cli_error(t, "%s must be >= 1%s", a, ""));
            hierarchy_options = 1;
        } else if (!strcmp(a, "--hierarchy-min")) {
            ok = cli_uint(t, a, v, SINEW_ASSET_MAX_PARTICLES, &hierarchy_min);
            hierarchy_options = 1;
        } else if (!strcmp(a, "--hierarchy-rest")) {
            ok = v && (!strcmp(v, "geodesic") || !strcmp(v, "pose"));
            if (!ok)
                cli_error(t, "--hierarchy-rest: \"%s\" is not geodesic or pose%s", v ? v : "", "");
            hopt.rest = ok && !strcmp(v, "pose") ? SINEW_HIERARCHY_REST_POSE : SINEW_HIERARCHY_REST_GEODESIC;
            hierarchy_options = 1;
        } else if (!strcmp(a, "--colouring")) {
            ok = v && (!strcmp(v, "balanced") || !strcmp(v, "greedy"));
            if (!ok)
                cli_error(t, "--colouring: \"%s\" is not balanced or greedy%s", v ? v : "", "");
            opt.colouring = ok && !strcmp(v, "greedy") ? SINEW_COLOURING_GREEDY : SINEW_COLOURING_BALANCED;
        } else if (!strcmp(a, "--clusters")) {
            unsigned cluster_size = 0;
            ok = (v && !strcmp(v, "none")) ||
                 cli_uint_in(t, a, v, SINEW_CLUSTER_MIN_PARTICLES, SINEW_CLUSTER_MAX_PARTICLES, &cluster_size);
            opt.cluster_particles = cluster_size;
        } else if (!strcmp(a, "--max-memory")) {
            ok = cli_bytes(t, a, v, &max_memory);
        } else if (!strcmp(a, "--compare-colouring")) {
            compare = 1;
            used = 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
            used = 0;
        } else if (a[0] == '-') {
            ok = cli_error(t, "unknown option %s%s", a, "");
        } else {
            ok = !mesh_path || cli_error(t, "only one mesh may be given (\"%s\", then \"%s\")", mesh_path, a);
            mesh_path = a;
            used = 0;
        }
        if (!ok)
            goto done;
        i += used;
    }
    if (!out || (!mesh_path && !grid[0]) || (mesh_path && grid[0])) {
        fprintf(stderr, "%s: give one MESH or --grid, and -o ASSET.snw\n(try %s --help)\n", t, t);
        goto done;
    }
    /* The asset never replaces an input. */
    const char *inputs[] = {mesh_path, fabric};
    for (int k = 0; k < 2; k++)
        if (inputs[k] && cli_same_file(out, inputs[k])) {
            fprintf(stderr, "%s: -o %s is the %s %s: the asset would overwrite its input\n", t, out,
                    k ? "fabric" : "mesh", inputs[k]);
            goto done;
        }
    if (pin_corners && !grid[0]) {
        fprintf(stderr, "%s: --pin-corners applies to --grid only; use --pin or --pin-box\n", t);
        goto done;
    }
    if (layer_options && !grid[0]) {
        fprintf(stderr, "%s: --layers and --layer-gap apply to --grid only\n", t);
        goto done;
    }
    if ((uint64_t)grid[0] * grid[1] * layers > SINEW_MESH_MAX_VERTICES) {
        fprintf(stderr, "%s: --grid %ux%u --layers %u makes %llu particles, past the limit of %u\n", t, grid[0],
                grid[1], layers, (unsigned long long)grid[0] * grid[1] * layers, SINEW_MESH_MAX_VERTICES);
        goto done;
    }
    if (hierarchy_options && !levels) {
        fprintf(stderr, "%s: --hierarchy-k, --hierarchy-min and --hierarchy-rest apply with --hierarchy LEVELS\n"
                "(try %s --help)\n", t, t);
        goto done;
    }
    hopt.max_levels = levels;
    hopt.k = hierarchy_k;
    hopt.min_particles = hierarchy_min;
    hopt.colouring = opt.colouring;
    if (stvk_options && (opt.membrane != SINEW_MATERIAL_STVK || fabric)) {
        fprintf(stderr, "%s: --youngs, --poisson and --thickness apply to --membrane stvk\n", t);
        goto done;
    }
    opt.membrane_material.youngs_modulus = (float)youngs;
    opt.membrane_material.poisson_ratio = (float)poisson;
    opt.membrane_material.thickness = (float)thickness;

    /* The output and the inputs before anything is built: a device, FIFO or
     * folder is never read or replaced, a symbolic link written through. */
    if (!cli_output(t, "-o", out))
        goto done;
    /* An asset given as the mesh would be read whole before its format is
     * known: refused by its name. */
    if (mesh_path && (sinew_path_has_extension(mesh_path, ".snw") || sinew_path_has_extension(mesh_path, ".snwc"))) {
        fprintf(stderr, "%s: %s is a sinew asset or checkpoint, not a mesh: sinew-prep makes assets from meshes "
                        "(sinew-info shows what an asset holds)\n", t, mesh_path);
        goto done;
    }
    status = 1;
    if ((mesh_path && !cli_input(t, "the mesh", mesh_path)) || (fabric && !cli_input(t, "the fabric", fabric)))
        goto done;
    sinew_logger lg = sinew_logger_default();
    lg.level = quiet ? SINEW_LOG_ERROR : SINEW_LOG_INFO;
    lg.fn = cli_log_flags; /* the library's fields named with the flags that set them */
    lg.user = (void *)usage;
    sinew_mesh mesh = {0};
    sinew_result r;
    if (fabric) {
        r = sinew_fabric_read(fabric, &lg, &opt.membrane_material);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "%s: %s: %s\n", t, fabric, sinew_result_string(r));
            goto done;
        }
        opt.membrane = SINEW_MATERIAL_TABULATED;
        if (!density_given)
            opt.density = opt.membrane_material.density;
    }
    if (grid[0]) {
        double origin[3] = {0.0, height, 0.0};
        r = sinew_mesh_grid(grid[0], grid[1], size[0], size[1], plane_xy ? SINEW_GRID_XY : SINEW_GRID_XZ, origin,
                            &mesh);
        /* Layers at the mesh stage: all that follows (triangles, colours,
         * clusters) sees one mesh of separate parts. */
        const double step[3] = {0.0, plane_xy ? 0.0 : layer_gap, plane_xy ? layer_gap : 0.0};
        if (r == SINEW_RESULT_OK)
            r = sinew_mesh_stack(&mesh, layers, step);
        /* Every layer's corners, so that no layer is a part without a pin. */
        for (uint32_t l = 0; pin_corners && l < layers; l++) {
            char corners[32];
            uint32_t first = l * grid[0] * grid[1];
            snprintf(corners, sizeof corners, "%u,%u", first, first + grid[0] - 1);
            if (!parse_pins(corners, &pins, &pin_count)) {
                sinew_mesh_free(&mesh);
                goto done;
            }
        }
    } else {
        r = read_mesh_isolated(mesh_path, &lg, &mesh);
    }
    if (r == SINEW_RESULT_OK && triangulate && quadrangulate) {
        fprintf(stderr, "%s: --triangulate and --quadrangulate undo each other: give one\n", t);
        sinew_mesh_free(&mesh);
        goto done;
    }
    if (r == SINEW_RESULT_OK && (triangulate || quadrangulate) && !within_mesh_limits(t, &mesh, quadrangulate))
        r = SINEW_RESULT_ERROR_LIMIT;
    if (r == SINEW_RESULT_OK && triangulate)
        r = sinew_mesh_triangulate_quads(&mesh);
    if (r == SINEW_RESULT_OK && quadrangulate) {
        uint32_t before = mesh.vertex_count;
        r = sinew_mesh_quadrangulate(&mesh);
        if (r == SINEW_RESULT_OK && !quiet)
            printf("quadrangulated: %u vertices -> %u, %u quads\n", before, mesh.vertex_count, mesh.face_count);
    }
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: %s: %s\n", t, mesh_path ? mesh_path : "grid", sinew_result_string(r));
        sinew_mesh_free(&mesh);
        goto done;
    }
    /* --translate places the asset's origin, not its positions: they stay
     * small, relative to it (docs/asset-format.md, ORIG). --pin-box is given
     * in the world, where the translation puts the mesh: into the asset's
     * frame with it. */
    for (uint32_t i = 0; i < mesh.vertex_count; i++)
        for (int k = 0; k < 3; k++)
            mesh.positions[3 * i + k] *= scale * units;
    for (unsigned b = 0; b < box_count; b++)
        for (int k = 0; k < 6; k++)
            boxes[6 * b + k] -= translate[k % 3];
    sinew_nested nested = {0};
    /* Subdivision numbers the input's vertices first: a pin past them would
     * take a particle subdivision made, which no one can name. */
    for (uint32_t k = 0; k < pin_count && subdivide; k++)
        if (pins[k] >= mesh.vertex_count) {
            fprintf(stderr, "%s: --pin %u: the %s has %u vertices (0..%u); with --subdivide pins name the input's "
                    "vertices, not the particles subdivision adds\n", t, pins[k], mesh_path ? "mesh" : "grid",
                    mesh.vertex_count, mesh.vertex_count - 1);
            sinew_mesh_free(&mesh);
            goto done;
        }
    if (!within_memory(&mesh, mesh_path, grid, subdivide, max_memory, &lg)) {
        sinew_mesh_free(&mesh);
        goto done;
    }
    if (subdivide) {
        int quads = 0;
        for (uint32_t f = 0; f < mesh.face_count; f++)
            quads |= mesh.face_offsets[f + 1] - mesh.face_offsets[f] == 4;
        r = quads ? sinew_mesh_triangulate_quads(&mesh) : SINEW_RESULT_OK;
        if (r == SINEW_RESULT_OK)
            r = sinew_nested_subdivide(&mesh, subdivide, &lg, &nested);
        /* The finest mesh numbers the input's vertices first: the render
         * mesh stays on them. */
        sinew_mesh render = {0};
        sinew_mesh_move_render(&render, &mesh);
        sinew_mesh_free(&mesh);
        if (r == SINEW_RESULT_OK)
            r = sinew_nested_finest_mesh(&nested, &mesh);
        if (r == SINEW_RESULT_OK)
            sinew_mesh_move_render(&mesh, &render);
        sinew_mesh_free_render(&render);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "%s: %s: subdivision: %s\n", t, mesh_path ? mesh_path : "grid", sinew_result_string(r));
            sinew_nested_free(&nested);
            goto done;
        }
    }
    opt.pin_indices = pins;
    opt.pin_count = pin_count;
    char source[512];
    snprintf(source, sizeof source, "%s", mesh_path ? mesh_path : "grid");
    opt.source_name = source;
    sinew_asset *asset = NULL;
    sinew_cloth_report report;
    r = sinew_cloth_build(&mesh, &opt, &lg, &asset, &report);
    sinew_mesh_free(&mesh);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: %s: %s\n", t, mesh_path ? mesh_path : "grid", sinew_result_string(r));
        sinew_nested_free(&nested);
        goto done;
    }
    if (subdivide) {
        r = sinew_nested_attach(asset, &nested, &lg);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "%s: %s: multigrid levels: %s\n", t, mesh_path ? mesh_path : "grid",
                    sinew_result_string(r));
            sinew_asset_destroy(asset);
            sinew_nested_free(&nested);
            goto done;
        }
    }
    if (compare)
        compare_colourings(asset);
    if ((r = sinew_asset_set_origin(asset, translate, &lg)) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: --translate: %s\n", t, sinew_result_string(r));
        sinew_asset_destroy(asset);
        sinew_nested_free(&nested);
        goto done;
    }
    sinew_hierarchy_report hierarchy;
    if (levels) {
        r = sinew_hierarchy_build(asset, &hopt, &lg, &hierarchy);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "%s: %s: hierarchy: %s\n", t, mesh_path ? mesh_path : "grid", sinew_result_string(r));
            sinew_asset_destroy(asset);
            goto done;
        }
    }
    sinew_redblack_report rb;
    if (red_black) {
        r = sinew_redblack_asset(asset, mesh_path ? mesh_path : "grid", &lg, &rb);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "%s: %s: red-black partition: %s\n", t, mesh_path ? mesh_path : "grid",
                    sinew_result_string(r));
            sinew_asset_destroy(asset);
            goto done;
        }
    }
    r = sinew_asset_write(asset, out, &lg);
    if (r == SINEW_RESULT_OK) {
        sinew_asset_info info = sinew_asset_get_info(asset);
        if (!quiet)
            printf("wrote %s: %u particles (%u pinned), %u triangles, %u stretch + %u shear + %u bend constraints, "
                   "%u colours (sizes %u..%u)\n",
                   out, info.particle_count, info.pinned_count, info.triangle_count, report.stretch_count,
                   report.shear_count, report.bend_count, report.colour_count, report.smallest_colour,
                   report.largest_colour);
        if (!quiet && info.cluster_passes)
            printf("  %u clusters of %u..%u particles in %u passes (%u grown, %u coloured for %u constraints; at "
                   "most %u colours in a cluster): %u dispatches a sweep in place of %u\n",
                   report.clusters.cluster_count, report.clusters.smallest, report.clusters.largest,
                   report.clusters.pass_count, report.clusters.grown_passes,
                   report.clusters.pass_count - report.clusters.grown_passes, report.clusters.leftover,
                   report.clusters.most_colours, report.clusters.pass_count, report.clusters.colour_count);
        if (!quiet && info.element_count)
            printf("  %u membrane + %u spring elements in %u colours, %u materials%s%s\n", report.membrane_count,
                   report.spring_count, report.element_colour_count, info.material_count,
                   fabric ? ", fabric " : "", fabric ? fabric : "");
        if (!quiet && levels)
            print_hierarchy(&hierarchy, &hopt);
        if (!quiet && subdivide) {
            printf("multigrid levels: particles, triangles, colours\n");
            for (uint32_t l = 0; l < nested.level_count; l++)
                printf("  %2u  %9u  %9u  %2u\n", l, nested.levels[l].vertex_count, nested.levels[l].triangle_count,
                       nested.levels[l].colour_count);
        }
        if (!quiet && red_black)
            printf("red-black partition: %u red, %u black particles in %u piece%s\n", rb.red, rb.black, rb.pieces,
                   rb.pieces == 1 ? "" : "s");
        /* its size and mass (areal density times the triangles' area), and
         * a warning when they look like the wrong unit */
        double area = 0.0;
        for (uint32_t k = 0; k < asset->triangle_count; k++) {
            const sinew_triangle_rec *tr = &asset->triangles[k];
            const sinew_particle_rec *p0 = &asset->particles[tr->v[0]], *p1 = &asset->particles[tr->v[1]],
                                     *p2 = &asset->particles[tr->v[2]];
            const double e1[3] = {p1->x - p0->x, p1->y - p0->y, p1->z - p0->z};
            const double e2[3] = {p2->x - p0->x, p2->y - p0->y, p2->z - p0->z};
            const double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                 e1[0] * e2[1] - e1[1] * e2[0]};
            area += 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        }
        float *xyz = malloc(12ull * info.particle_count + 12);
        if (xyz) {
            sinew_asset_get_positions(asset, xyz);
            prep_report_size(t, mesh_path ? mesh_path : "grid", xyz, info.particle_count, opt.density * area, quiet);
        }
        free(xyz);
        status = 0;
    }
    sinew_asset_destroy(asset);
    sinew_nested_free(&nested);
done:
    free(pins);
    return status;
}
