/* sinew-prep's soft bodies: a volume mesh (Gmsh .msh, TetGen .node/.ele), a
 * closed surface tetrahedralised by TetGen, or a generated box, to an asset of
 * tetrahedra for the GPBD solvers (src/prep/soft.c builds it).
 *
 * Files are read in a child process, as sinew-prep reads cloth meshes: the
 * readers are sinew's own and fuzzed, but assimp's importers (surfaces in PLY,
 * STL, glTF) crash on some malformed files, and in a child such a crash
 * becomes an error naming the file. The child sends the mesh back through a
 * pipe: a header of counts, then the arrays.
 *
 * A mesh's regions (Gmsh physical groups, TetGen region attributes) become
 * materials, one per region; --region gives a region its own. */
#define _POSIX_C_SOURCE 200809L
#include "prep_soft.h"

#include <sinew/sinew.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mesh_pipe.h"
#include "prep/estimate.h"
#include "prep/soft.h"
#include "stop.h"

static const char *const tool = "sinew-prep";

void prep_soft_help(FILE *f)
{
    sinew_soft_options d = sinew_soft_options_default();
    fprintf(f, "\n"
           "Soft bodies (tetrahedra for the GPBD solvers):\n"
           "  sinew-prep VOLUME.msh|X.node|X.ele -o ASSET.snw [options]   Gmsh 2.2/4.1, TetGen\n"
           "  sinew-prep SURFACE --tetrahedralise -o ASSET.snw [options]  the solid a surface bounds\n"
           "  sinew-prep SURFACE --lattice N -o ASSET.snw [options]  the same, as lattice cubes\n"
           "  sinew-prep --box NX NY NZ SX SY SZ -o ASSET.snw [options]   NX x NY x NZ vertices,\n"
           "                            SX x SY x SZ m, 6 tetrahedra per cell, centred at x = z = 0\n"
           "      --tetrahedralise      mesh the solid a surface bounds: a closed, clean surface by\n"
           "                            Debian's tetgen; one with holes, self-intersections or\n"
           "                            overlapping parts as lattice cubes inside it by generalised\n"
           "                            winding number, moved onto the surface (a warning says so)\n"
           "      --max-volume V        largest tetrahedron TetGen makes (m^3; default: no bound)\n"
           "      --quality Q           TetGen's radius-edge ratio bound, >= 1 (default 1.4; 0: none)\n"
           "      --tetgen PATH         the tetgen executable (default: tetgen on PATH)\n"
           "      --lattice N           mesh the solid a surface bounds as the cubes of a lattice whose\n"
           "                            centres are inside it (generalised winding number), N along\n"
           "                            the longest side, 6 tetrahedra each: evenly sized, a staircase\n"
           "                            boundary\n"
           "      --follow-surface      --lattice: move the boundary's corners onto the surface\n"
           "      --pieces all|largest  parts joined by no face (loose pieces, cubes touching by an edge)\n"
           "                            are reported; keep them all (default) or only the largest\n"
           "      --material nh|snh     neo-Hookean (default) or stable neo-Hookean\n"
           "      --youngs E            Young's modulus (default %g Pa)\n"
           "      --poisson NU          Poisson ratio, [0, 0.5) (default %g)\n"
           "      --density RHO         density (default %g kg/m^3)\n"
           "      --region R:MATERIAL   the material of region R (Gmsh physical group, TetGen region\n"
           "                            attribute), repeatable; MATERIAL is nh|snh and any of\n"
           "                            E=PA,nu=NU,density=RHO, e.g. 3:snh,E=2e7,nu=0.3,density=1900;\n"
           "                            what it leaves out, and regions not named, take the options\n"
           "                            above. Each region becomes a material (in increasing order\n"
           "                            of R), its tetrahedra's masses from its own density\n"
           "      --pin I,J,...         pin vertices by index (0-based, as in the file)\n"
           "      --pin-box X0,Y0,Z0,X1,Y1,Z1   pin vertices inside the box (after --scale and\n"
           "                            --translate: where the mesh ends up in the world);\n"
           "                            repeatable, each one more box\n"
           "      --pin-bottom F        pin vertices within fraction F of the height above the lowest\n"
           "      --units mm|cm|m|in    the unit of the file's coordinates (default m): with --scale,\n"
           "                            applied to the mesh as read, before anything is built from\n"
           "                            it (TetGen and --max-volume, the lattice, masses, pins)\n"
           "      --scale S, --translate X,Y,Z   transform the mesh (scale first, as --units);\n"
           "                            --translate moves the asset's origin (double), not its\n"
           "                            float positions\n"
           "      --height Y            --box: height of its centre (default 1 m)\n"
           "      --colouring balanced|greedy   (default balanced)\n"
           "      --max-memory SIZE     as for cloth: the box, the volume file's tetrahedra, the lattice\n"
           "                            (from the surface's bounds and enclosed volume) or TetGen's\n"
           "                            tetrahedra (from the enclosed volume over --max-volume and the\n"
           "                            surface's faces) are estimated before any meshing\n"
           "  -q, --quiet               errors only\n",
           d.youngs_modulus, d.poisson_ratio, d.density);
}

int prep_soft_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--box") || !strcmp(a, "--tetrahedralise") || !strcmp(a, "--tetrahedralize") ||
            !strcmp(a, "--lattice"))
            return 1;
        /* The value of -o is an output, not an input. */
        if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            i++;
            continue;
        }
        if (a[0] != '-' && sinew_volume_is_volume_path(a))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- isolated reading */

/* What travels through the pipe: up to three arrays after a header. */
typedef struct shipment {
    uint32_t result, counts[3];
    void *arrays[3];
    size_t sizes[3]; /* bytes per element */
} shipment;

static void send_shipment(int fd, const char *path, int volume, const sinew_logger *lg)
{
    shipment s = {0};
    sinew_mesh m = {0};
    sinew_volume v = {0};
    if (volume) {
        s.result = (uint32_t)sinew_volume_read(path, lg, &v);
        s.counts[0] = v.vertex_count;
        s.counts[1] = v.tet_count;
    } else {
        s.result = (uint32_t)sinew_mesh_read(path, lg, &m);
        s.counts[0] = m.vertex_count;
        s.counts[1] = s.result == SINEW_RESULT_OK ? m.face_count + 1 : 0;
        s.counts[2] = s.result == SINEW_RESULT_OK ? m.face_offsets[m.face_count] : 0;
    }
    /* The last field: whether a volume's regions follow its tetrahedra. */
    uint32_t head[5] = {s.result, s.counts[0], s.counts[1], s.counts[2], v.regions != NULL};
    int ok = cli_write_all(fd, head, sizeof head);
    if (ok && s.result == SINEW_RESULT_OK) {
        if (volume)
            ok = cli_write_all(fd, v.positions, sizeof(double) * 3 * v.vertex_count) &&
                 cli_write_all(fd, v.tets, sizeof(uint32_t) * 4 * (size_t)v.tet_count) &&
                 (!v.regions || cli_write_all(fd, v.regions, sizeof(uint32_t) * (size_t)v.tet_count));
        else
            ok = cli_write_all(fd, m.positions, sizeof(double) * 3 * m.vertex_count) &&
                 cli_write_all(fd, m.face_offsets, sizeof(uint32_t) * (m.face_count + 1ull)) &&
                 cli_write_all(fd, m.face_indices, sizeof(uint32_t) * (size_t)head[3]) &&
                 mesh_pipe_send_render(fd, &m);
    }
    sinew_mesh_free(&m);
    sinew_volume_free(&v);
    fflush(stderr);
    _exit(ok ? 0 : 1);
}

/* Reads a volume (volume = 1) or a surface in a child process. */
static sinew_result read_isolated(const char *path, int volume, const sinew_logger *lg, sinew_mesh *mesh,
                                  sinew_volume *vol)
{
    int fd[2];
    if (pipe(fd) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", tool, strerror(errno));
        return SINEW_RESULT_ERROR_IO;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", tool, strerror(errno));
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
        send_shipment(fd[1], path, volume, lg);
    }
    close(fd[1]);
    uint32_t head[5] = {0};
    sinew_result r = SINEW_RESULT_ERROR_BAD_MESH;
    int got = cli_read_all(fd[0], head, sizeof head);
    if (got && head[0] == SINEW_RESULT_OK) {
        double *positions = malloc(sizeof(double) * 3 * ((size_t)head[1] + 1));
        uint32_t *a = malloc(sizeof(uint32_t) * ((volume ? 4 * (size_t)head[2] : head[2]) + 1));
        uint32_t *b = volume ? NULL : malloc(sizeof(uint32_t) * ((size_t)head[3] + 1));
        uint32_t *regions = volume && head[4] ? malloc(sizeof(uint32_t) * ((size_t)head[2] + 1)) : NULL;
        got = positions && a && (volume || b) && (!(volume && head[4]) || regions) &&
              cli_read_all(fd[0], positions, sizeof(double) * 3 * head[1]) &&
              cli_read_all(fd[0], a, sizeof(uint32_t) * (volume ? 4 * (size_t)head[2] : head[2])) &&
              (volume || cli_read_all(fd[0], b, sizeof(uint32_t) * head[3])) &&
              (!regions || cli_read_all(fd[0], regions, sizeof(uint32_t) * (size_t)head[2]));
        if (volume)
            *vol = (sinew_volume){head[1], positions, head[2], a, regions};
        else
            *mesh = (sinew_mesh){head[1], positions, head[2] ? head[2] - 1 : 0, a, b};
        if (got && !volume)
            got = mesh_pipe_receive_render(fd[0], mesh, path, lg);
        r = got ? SINEW_RESULT_OK : SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    } else if (got) {
        r = head[0] < SINEW_RESULT_COUNT ? (sinew_result)head[0] : SINEW_RESULT_ERROR_BAD_MESH;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        fprintf(stderr,
                "sinew error [mesh]: %s: the importer crashed reading it (signal %d, %s); the file is refused\n",
                path, WTERMSIG(status), strsignal(WTERMSIG(status)));
        r = SINEW_RESULT_ERROR_BAD_MESH;
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && r == SINEW_RESULT_OK) {
        r = SINEW_RESULT_ERROR_IO;
    }
    if (r != SINEW_RESULT_OK) {
        sinew_volume_free(vol);
        sinew_mesh_free(mesh);
    }
    return r;
}

/* ---------------------------------------------------------------- command line */

/* --region R:MATERIAL; what it leaves out comes from the body's options. */
typedef struct region_arg {
    uint32_t region;
    int has_model, has_youngs, has_poisson, has_density;
    sinew_material_model model;
    double youngs, poisson, density;
} region_arg;

typedef struct soft_args {
    const char *input, *out, *tetgen;
    region_arg *regions;
    uint32_t region_count;
    int tetrahedralise, quiet, box_given, follow, largest_piece;
    unsigned box[3], lattice;
    double box_size[3];
    double max_volume, quality, scale, units, translate[3], height;
    double boxes[6 * PREP_MAX_PIN_BOXES]; /* --pin-box, each one more */
    unsigned box_count;
    uint64_t max_memory; /* bytes a build is estimated to take, at most (0: no bound) */
    uint32_t *pins, pin_count;
    sinew_soft_options opt;
} soft_args;

static int parse_pins(const char *text, soft_args *s)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    uint32_t *list = realloc(s->pins, (s->pin_count + cap) * sizeof *list);
    if (!list)
        return 0;
    s->pins = list;
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || v > 0xffffffffu || (*end != ',' && *end != '\0'))
            return cli_error(tool, "--pin: \"%s\" is not a list of vertex indices%s", text, "");
        list[s->pin_count++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    return 1;
}

/* One E=, nu= or density= of --region, checked as its options are. */
static int parse_region_value(const char *text, const char *key, double *out)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--region %s", key);
    if (!cli_double(tool, opt, text, out))
        return 0;
    if (!strcmp(key, "nu"))
        return (*out >= 0 && *out < 0.5) || cli_error(tool, "%s must be in [0, 0.5)%s", opt, "");
    return *out > 0 || cli_error(tool, "%s must be > 0%s", opt, "");
}

/* R:MATERIAL, MATERIAL a comma-separated list of nh|snh, E=, nu=, density=. */
static int parse_region(const char *text, soft_args *s)
{
    region_arg g = {0};
    char *end, item[128];
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (end == text || text[0] == '-' || errno || value > 0xffffffffu || *end != ':' || !end[1])
        return cli_error(tool, "--region: \"%s\" is not R:MATERIAL (R a region number, MATERIAL like nh,E=1e6,nu=0.45)%s",
                         text, "");
    g.region = (uint32_t)value;
    char number[16];
    snprintf(number, sizeof number, "%u", g.region);
    for (uint32_t i = 0; i < s->region_count; i++)
        if (s->regions[i].region == g.region)
            return cli_error(tool, "--region: region %s is given twice%s", number, "");
    for (const char *p = end + 1; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof item)
            return cli_error(tool, "--region: \"%s\": an empty or overlong item%s", text, "");
        memcpy(item, p, n);
        item[n] = '\0';
        p += n + (p[n] == ',');
        const char *eq = strchr(item, '=');
        if (!eq && (!strcmp(item, "nh") || !strcmp(item, "snh"))) {
            g.has_model = 1;
            g.model = !strcmp(item, "snh") ? SINEW_MATERIAL_STABLE_NEO_HOOKEAN : SINEW_MATERIAL_NEO_HOOKEAN;
        } else if (eq && !strncmp(item, "E=", 2)) {
            g.has_youngs = parse_region_value(eq + 1, "E", &g.youngs);
            if (!g.has_youngs)
                return 0;
        } else if (eq && !strncmp(item, "nu=", 3)) {
            g.has_poisson = parse_region_value(eq + 1, "nu", &g.poisson);
            if (!g.has_poisson)
                return 0;
        } else if (eq && !strncmp(item, "density=", 8)) {
            g.has_density = parse_region_value(eq + 1, "density", &g.density);
            if (!g.has_density)
                return 0;
        } else {
            return cli_error(tool, "--region: \"%s\" is not nh, snh, E=, nu= or density= (in \"%s\")", item, text);
        }
    }
    region_arg *list = realloc(s->regions, (s->region_count + 1) * sizeof *list);
    if (!list)
        return cli_error(tool, "--region: out of memory%s%s", "", "");
    s->regions = list;
    list[s->region_count++] = g;
    return 1;
}

/* --box NX NY NZ SX SY SZ: six arguments. */
static int parse_box(int argc, char **argv, int i, soft_args *s)
{
    if (i + 6 >= argc)
        return cli_error(tool, "--box needs NX NY NZ SX SY SZ (vertices per axis, then sizes in m)%s%s", "", "");
    for (int k = 0; k < 3; k++)
        if (!cli_uint(tool, "--box", argv[i + 1 + k], 1024, &s->box[k]))
            return 0;
    for (int k = 0; k < 3; k++)
        if (!cli_double(tool, "--box", argv[i + 4 + k], &s->box_size[k]))
            return 0;
    for (int k = 0; k < 3; k++) {
        if (s->box[k] < 2)
            return cli_error(tool, "--box: every axis needs at least 2 vertices%s%s", "", "");
        if (!(s->box_size[k] > 0))
            return cli_error(tool, "--box: sizes must be > 0%s%s", "", "");
    }
    s->box_given = 1;
    return 1;
}

/* 0 and a message on a bad option; i moves past the option's values. */
static int parse_option(int argc, char **argv, int *i, soft_args *s)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    int ok = 1, used = 1;
    if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
        ok = v != NULL || cli_error(tool, "%s needs a file name%s", a, "");
        s->out = v;
    } else if (!strcmp(a, "--box")) {
        ok = parse_box(argc, argv, *i, s);
        used = 6;
    } else if (!strcmp(a, "--tetrahedralise") || !strcmp(a, "--tetrahedralize")) {
        s->tetrahedralise = 1;
        used = 0;
    } else if (!strcmp(a, "--lattice")) {
        ok = cli_uint(tool, a, v, 1024, &s->lattice) &&
             (s->lattice >= 1 || cli_error(tool, "%s must be 1 to 1024 cubes%s", a, ""));
    } else if (!strcmp(a, "--follow-surface")) {
        s->follow = 1;
    } else if (!strcmp(a, "--pieces")) {
        ok = v && (!strcmp(v, "all") || !strcmp(v, "largest"));
        if (!ok)
            cli_error(tool, "--pieces: \"%s\" is not all or largest%s", v ? v : "", "");
        s->largest_piece = ok && !strcmp(v, "largest");
    } else if (!strcmp(a, "--max-volume")) {
        ok = cli_double(tool, a, v, &s->max_volume) && (s->max_volume >= 0 || cli_error(tool, "%s must be >= 0%s", a, ""));
    } else if (!strcmp(a, "--quality")) {
        ok = cli_double(tool, a, v, &s->quality) &&
             (s->quality == 0 || s->quality >= 1 || cli_error(tool, "%s must be >= 1, or 0 for none%s", a, ""));
    } else if (!strcmp(a, "--max-memory")) {
        ok = cli_bytes(tool, a, v, &s->max_memory);
    } else if (!strcmp(a, "--tetgen")) {
        ok = v != NULL || cli_error(tool, "%s needs a path%s", a, "");
        s->tetgen = v;
    } else if (!strcmp(a, "--material")) {
        ok = v && (!strcmp(v, "nh") || !strcmp(v, "snh"));
        if (!ok)
            cli_error(tool, "--material: \"%s\" is not nh or snh%s", v ? v : "", "");
        s->opt.model = ok && !strcmp(v, "snh") ? SINEW_MATERIAL_STABLE_NEO_HOOKEAN : SINEW_MATERIAL_NEO_HOOKEAN;
    } else if (!strcmp(a, "--youngs")) {
        ok = cli_double(tool, a, v, &s->opt.youngs_modulus) &&
             (s->opt.youngs_modulus > 0 || cli_error(tool, "%s must be > 0%s", a, ""));
    } else if (!strcmp(a, "--poisson")) {
        ok = cli_double(tool, a, v, &s->opt.poisson_ratio) &&
             ((s->opt.poisson_ratio >= 0 && s->opt.poisson_ratio < 0.5) ||
              cli_error(tool, "%s must be in [0, 0.5)%s", a, ""));
    } else if (!strcmp(a, "--density")) {
        ok = cli_double(tool, a, v, &s->opt.density) && (s->opt.density > 0 || cli_error(tool, "%s must be > 0%s", a, ""));
    } else if (!strcmp(a, "--region")) {
        ok = v ? parse_region(v, s) : cli_error(tool, "%s needs R:MATERIAL%s", a, "");
    } else if (!strcmp(a, "--pin")) {
        ok = v ? parse_pins(v, s) : cli_error(tool, "%s needs a list of vertex indices%s", a, "");
    } else if (!strcmp(a, "--pin-box")) { /* each one more box */
        ok = (s->box_count < PREP_MAX_PIN_BOXES || cli_error(tool, "%s: at most %s boxes", a, PREP_MAX_PIN_BOXES_TEXT)) &&
             cli_doubles(tool, a, v, 6, &s->boxes[6 * s->box_count]);
        s->box_count += ok;
    } else if (!strcmp(a, "--pin-bottom")) {
        ok = cli_double(tool, a, v, &s->opt.pin_bottom) &&
             ((s->opt.pin_bottom >= 0 && s->opt.pin_bottom <= 1) || cli_error(tool, "%s must be in [0, 1]%s", a, ""));
    } else if (!strcmp(a, "--scale")) {
        ok = cli_double(tool, a, v, &s->scale) && (s->scale > 0 || cli_error(tool, "%s must be > 0%s", a, ""));
    } else if (!strcmp(a, "--units")) {
        ok = prep_parse_units(tool, a, v, &s->units);
    } else if (!strcmp(a, "--translate")) {
        ok = cli_doubles(tool, a, v, 3, s->translate) &&
             ((fabs(s->translate[0]) <= 1e9 && fabs(s->translate[1]) <= 1e9 && fabs(s->translate[2]) <= 1e9) ||
              cli_error(tool, "%s: \"%s\" reaches beyond 1e9 m (the bound of an asset's origin)", a, v));
    } else if (!strcmp(a, "--height")) {
        ok = cli_double(tool, a, v, &s->height);
    } else if (!strcmp(a, "--colouring")) {
        ok = v && (!strcmp(v, "balanced") || !strcmp(v, "greedy"));
        if (!ok)
            cli_error(tool, "--colouring: \"%s\" is not balanced or greedy%s", v ? v : "", "");
        s->opt.colouring = ok && !strcmp(v, "greedy") ? SINEW_COLOURING_GREEDY : SINEW_COLOURING_BALANCED;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
        s->quiet = 1;
        used = 0;
    } else if (a[0] == '-') {
        ok = cli_error(tool, "%s is not an option for soft bodies (--box, --tetrahedralise, .msh/.node/.ele)%s", a,
                       "");
    } else {
        ok = !s->input || cli_error(tool, "only one mesh may be given (\"%s\", then \"%s\")", s->input, a);
        s->input = a;
        used = 0;
    }
    *i += used;
    return ok;
}

static int parse(int argc, char **argv, soft_args *s)
{
    static const char *const repeatable[] = {"--pin", "--pin-box", "--region", NULL};
    const char *seen[128];
    unsigned seen_count = 0;
    for (int i = 1; i < argc; i++)
        if ((argv[i][0] == '-' && argv[i][1] && !cli_once(tool, argv[i], repeatable, seen, &seen_count)) ||
            !parse_option(argc, argv, &i, s))
            return 0;
    if (!s->out || (!s->input && !s->box_given) || (s->input && s->box_given)) {
        fprintf(stderr, "%s: give one VOLUME, SURFACE --tetrahedralise or --box, and -o ASSET.snw\n(try %s --help)\n",
                tool, tool);
        return 0;
    }
    if (s->tetrahedralise && s->lattice) {
        fprintf(stderr, "%s: --tetrahedralise or --lattice, not both\n", tool);
        return 0;
    }
    if (s->follow && !s->lattice) {
        fprintf(stderr, "%s: --follow-surface goes with --lattice N (--tetrahedralise follows the surface)\n", tool);
        return 0;
    }
    const int surface = s->tetrahedralise || s->lattice;
    if (s->input && !surface && !sinew_volume_is_volume_path(s->input)) {
        fprintf(stderr, "%s: %s is a surface: add --tetrahedralise or --lattice N to mesh the solid it bounds\n", tool,
                s->input);
        return 0;
    }
    if (s->input && cli_same_file(s->out, s->input)) {
        fprintf(stderr, "%s: -o %s is the mesh %s: the asset would overwrite its input\n", tool, s->out, s->input);
        return 0;
    }
    if (s->input && surface && sinew_volume_is_volume_path(s->input)) {
        fprintf(stderr, "%s: %s is already a volume mesh: %s takes a closed surface\n", tool, s->input,
                s->lattice ? "--lattice" : "--tetrahedralise");
        return 0;
    }
    return cli_output(tool, "-o", s->out);
}

/* ---------------------------------------------------------------- building */

/* Whether the build is estimated to fit in --max-memory, before the work it
 * measures: the box's, the volume file's (vol), or the meshing of the
 * surface m; LIMIT, having said why, if not. */
static sinew_result within_memory(const soft_args *s, const sinew_mesh *m, const sinew_volume *vol,
                                  const sinew_logger *lg)
{
    char job[64];
    sinew_estimate e;
    if (s->box_given) {
        const uint64_t n[3] = {s->box[0], s->box[1], s->box[2]};
        e = sinew_estimate_soft(n[0] * n[1] * n[2], 6 * (n[0] - 1) * (n[1] - 1) * (n[2] - 1));
        snprintf(job, sizeof job, "--box %u %u %u", s->box[0], s->box[1], s->box[2]);
    } else if (vol) {
        e = sinew_estimate_soft(vol->vertex_count, vol->tet_count);
        snprintf(job, sizeof job, "its %u tetrahedra", vol->tet_count);
    } else if (s->lattice) {
        e = sinew_estimate_lattice(m, s->lattice);
        snprintf(job, sizeof job, "--lattice %u", s->lattice);
    } else if (s->max_volume > 0) {
        e = sinew_estimate_tetgen(m, s->max_volume);
        snprintf(job, sizeof job, "--max-volume %g", s->max_volume);
    } else {
        e = sinew_estimate_tetgen(m, 0.0);
        snprintf(job, sizeof job, "--tetrahedralise");
    }
    return sinew_estimate_check(&e, s->max_memory, s->input ? s->input : "box", job, "--max-memory SIZE", lg);
}

/* The volume, and the surface it was made from (zeroed for a box or a volume
 * file): its render mesh is embedded in the tetrahedra. */
int prep_parse_units(const char *tool_name, const char *opt, const char *text, double *factor)
{
    static const struct { const char *name; double metres; } units[] = {
        {"mm", 1e-3}, {"cm", 1e-2}, {"m", 1.0}, {"in", 0.0254}};
    for (size_t k = 0; text && k < sizeof units / sizeof units[0]; k++)
        if (!strcmp(text, units[k].name)) {
            *factor = units[k].metres;
            return 1;
        }
    return cli_error(tool_name, "%s: \"%s\" is not mm, cm, m or in", opt, text ? text : "");
}

void prep_report_size(const char *tool_name, const char *what, const float *xyz, uint32_t count, double mass, int quiet)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], xyz[3 * i + k]);
            hi[k] = fmax(hi[k], xyz[3 * i + k]);
        }
    if (!count)
        return;
    const double span = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!quiet)
        printf("  size %.4g x %.4g x %.4g m, mass %.4g kg\n", hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], mass);
    if (span < 0.01)
        fprintf(stderr, "%s: warning: %s is %.3g m across, under a centimetre: is it in metres while the file is "
                        "in another unit? (--units cm, --units in, or --scale)\n", tool_name, what, span);
    else if (span > 100.0)
        fprintf(stderr, "%s: warning: %s is %.4g m across, over 100 m: is it in millimetres? --units mm (or "
                        "--units cm, --scale)\n", tool_name, what, span);
    else if (mass > 1000.0)
        fprintf(stderr, "%s: warning: %s weighs %.4g kg, over a tonne: is it in millimetres? --units mm (or "
                        "--units cm, --scale, --density)\n", tool_name, what, mass);
}

static void scale_positions(double *xyz, uint32_t count, double factor)
{
    for (size_t i = 0; factor != 1.0 && i < 3 * (size_t)count; i++)
        xyz[i] *= factor;
}

/* The volume (or the surface to mesh) read and scaled to metres (--units,
 * --scale) before anything is built from it. */
static sinew_result make_volume(const soft_args *s, const sinew_logger *lg, sinew_volume *v, sinew_mesh *surface)
{
    memset(v, 0, sizeof *v);
    memset(surface, 0, sizeof *surface);
    if (s->box_given) {
        double origin[3] = {0.0, s->height, 0.0};
        sinew_result r = within_memory(s, NULL, NULL, lg);
        if (r != SINEW_RESULT_OK)
            return r; /* the estimate said why */
        r = sinew_volume_box(s->box[0], s->box[1], s->box[2], s->box_size, origin, v);
        if (r == SINEW_RESULT_OK)
            scale_positions(v->positions, v->vertex_count, s->scale * s->units);
        if (r == SINEW_RESULT_ERROR_LIMIT)
            fprintf(stderr, "%s: --box %u %u %u: %llu vertices and %llu tetrahedra, past the limits of %u and %u\n",
                    tool, s->box[0], s->box[1], s->box[2],
                    (unsigned long long)s->box[0] * s->box[1] * s->box[2],
                    6ull * (s->box[0] - 1) * (s->box[1] - 1) * (s->box[2] - 1), SINEW_VOLUME_MAX_VERTICES,
                    SINEW_VOLUME_MAX_TETS);
        else if (r != SINEW_RESULT_OK)
            fprintf(stderr, "%s: --box %u %u %u: %s\n", tool, s->box[0], s->box[1], s->box[2],
                    sinew_result_string(r));
        return r;
    }
    if (!s->tetrahedralise && !s->lattice) {
        sinew_result r = read_isolated(s->input, 1, lg, NULL, v);
        if (r == SINEW_RESULT_OK)
            scale_positions(v->positions, v->vertex_count, s->scale * s->units);
        if (r == SINEW_RESULT_OK && (r = within_memory(s, NULL, v, lg)) != SINEW_RESULT_OK)
            sinew_volume_free(v);
        return r;
    }
    sinew_mesh m = {0};
    sinew_result r = read_isolated(s->input, 0, lg, &m, NULL);
    if (r == SINEW_RESULT_OK) /* units first: TetGen's --max-volume and the lattice see the mesh in metres */
        scale_positions(m.positions, m.vertex_count, s->scale * s->units);
    if (r == SINEW_RESULT_OK)
        r = within_memory(s, &m, NULL, lg);
    /* A lattice following the surface holds every vertex of it, and the
     * model is drawn as it is (its render mesh, or its own faces). */
    int by_lattice = s->lattice && s->follow;
    if (r == SINEW_RESULT_OK && s->lattice)
        r = sinew_volume_lattice(&m, s->lattice, s->follow ? SINEW_LATTICE_FOLLOW | SINEW_LATTICE_COVER : 0, s->input,
                                 lg, v);
    else if (r == SINEW_RESULT_OK) {
        /* Ctrl-C, a kill or a hang-up while TetGen runs: the run stops and its
         * temporary folder is removed before sinew-prep exits (stop.h). No
         * SA_RESTART: the wait for TetGen returns. */
        stop_catch(0);
        r = sinew_volume_tetrahedralise_cover(&m, s->max_volume, s->quality, s->tetgen, 1, s->input, lg, v,
                                              &by_lattice);
        stop_release();
    }
    if (r == SINEW_RESULT_OK && by_lattice && !sinew_mesh_render_from_faces(&m)) {
        sinew_volume_free(v);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", s->input);
    }
    if (r == SINEW_RESULT_OK)
        *surface = m;
    else
        sinew_mesh_free(&m);
    return r;
}

/* Parts of the mesh joined by no face fall on their own: say so, with their
 * sizes, and keep only the largest when asked. */
static sinew_result report_pieces(const soft_args *s, const sinew_logger *lg, sinew_volume *v)
{
    const char *what = s->input ? s->input : "box";
    uint32_t *piece = malloc(sizeof *piece * ((size_t)v->tet_count + 1));
    uint32_t count = piece ? sinew_volume_pieces(v, piece) : 0;
    uint32_t *size = count ? calloc(count, sizeof *size) : NULL;
    if (!size) {
        free(piece);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t t = 0; t < v->tet_count; t++)
        size[piece[t]]++;
    uint32_t largest = 0, singles = 0;
    for (uint32_t p = 0; p < count; p++) {
        largest = size[p] > size[largest] ? p : largest;
        singles += size[p] <= 6;
    }
    if (count > 1) {
        uint32_t smallest = size[0];
        for (uint32_t p = 1; p < count; p++)
            smallest = size[p] < smallest ? size[p] : smallest;
        sinew_logf(lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u pieces joined by no face (largest %u of %u tetrahedra, smallest %u; %u of at most 6 "
                   "tetrahedra); each moves on its own. %s",
                   what, count, size[largest], v->tet_count, smallest, singles,
                   s->largest_piece ? "Keeping the largest (--pieces largest)"
                                    : "Keeping all; --pieces largest keeps only the largest");
        if (s->largest_piece) {
            uint8_t *keep = malloc((size_t)v->tet_count + 1);
            if (!keep) {
                free(piece);
                free(size);
                return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            }
            for (uint32_t t = 0; t < v->tet_count; t++)
                keep[t] = piece[t] == largest;
            sinew_volume_keep_tets(v, keep);
            free(keep);
        }
    }
    free(piece);
    free(size);
    return SINEW_RESULT_OK;
}

/* The --region materials, what they leave out from the body's options. */
static sinew_soft_region_material *region_materials(const soft_args *s)
{
    sinew_soft_region_material *list = calloc(s->region_count + 1, sizeof *list);
    for (uint32_t i = 0; list && i < s->region_count; i++) {
        const region_arg *g = &s->regions[i];
        const sinew_soft_options *o = &s->opt;
        list[i].region = g->region;
        list[i].material = sinew_material_make(g->has_model ? g->model : o->model,
                                               (float)(g->has_youngs ? g->youngs : o->youngs_modulus),
                                               (float)(g->has_poisson ? g->poisson : o->poisson_ratio));
        list[i].material.density = (float)(g->has_density ? g->density : o->density);
    }
    return list;
}

static const char *model_name(uint32_t model)
{
    return model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "stable neo-Hookean" : "neo-Hookean";
}

/* One line for a body of one material; with regions, a line for each. */
static void print_report(const soft_args *s, const sinew_asset *asset, const sinew_soft_report *rep,
                         const sinew_soft_region *regions, uint32_t region_count, int by_region)
{
    sinew_material m;
    if (sinew_asset_get_material(asset, 0, &m) != SINEW_RESULT_OK)
        return;
    printf("wrote %s: %u particles (%u pinned), %u tetrahedra, %u boundary triangles, %u colours (sizes %u..%u)\n",
           s->out, rep->vertex_count, rep->pinned_count, rep->tet_count, rep->triangle_count, rep->colour_count,
           rep->smallest_colour, rep->largest_colour);
    if (by_region)
        printf("  %u region%s: %.6g kg, %.6g m^3", region_count, region_count == 1 ? "" : "s", rep->total_mass,
               rep->volume);
    else
        printf("  %s, E %g Pa, nu %g, %g kg/m^3: %.6g kg, %.6g m^3", model_name(m.model), (double)m.youngs_modulus,
               (double)m.poisson_ratio, (double)m.density, rep->total_mass, rep->volume);
    if (rep->flipped_tets || rep->dropped_vertices)
        printf("; repaired: %u tetrahedra reoriented, %u unused vertices dropped", rep->flipped_tets,
               rep->dropped_vertices);
    printf("\n");
    for (uint32_t k = 0; by_region && k < region_count; k++) {
        const sinew_soft_region *g = &regions[k];
        if (sinew_asset_get_material(asset, g->material, &m) != SINEW_RESULT_OK)
            return;
        printf("  region %u: %u tetrahedra, %.6g m^3, %.6g kg; material %u: %s, E %g Pa, nu %g, %g kg/m^3\n",
               g->value, g->tet_count, g->volume, g->mass, g->material, model_name(m.model),
               (double)m.youngs_modulus, (double)m.poisson_ratio, (double)m.density);
    }
}

int prep_soft_main(int argc, char **argv)
{
    soft_args s = {.quality = 1.4, .scale = 1.0, .units = 1.0, .height = 1.0, .opt = sinew_soft_options_default(),
                   .max_memory = sinew_estimate_memory_default()};
    if (!parse(argc, argv, &s)) {
        free(s.pins);
        free(s.regions);
        return 2;
    }
    if (s.input && !cli_input(tool, "the mesh", s.input)) {
        free(s.pins);
        free(s.regions);
        return 1;
    }
    sinew_logger lg = sinew_logger_default();
    lg.level = s.quiet ? SINEW_LOG_ERROR : SINEW_LOG_INFO;
    /* the library's fields named with the flags that set them (the help's) */
    char *flags = NULL;
    size_t flags_size = 0;
    FILE *help = open_memstream(&flags, &flags_size);
    if (help) {
        prep_soft_help(help);
        fclose(help);
        lg.fn = cli_log_flags;
        lg.user = flags;
    }
    const char *what = s.input ? s.input : "box";

    sinew_volume v;
    sinew_mesh surface;
    sinew_result r = make_volume(&s, &lg, &v, &surface);
    if (r == SINEW_RESULT_OK)
        r = report_pieces(&s, &lg, &v);
    if (r != SINEW_RESULT_OK) {
        if (stop_signal())
            fprintf(stderr, "%s: %s: stopped by %s\n", tool, what, stop_name());
        else
            fprintf(stderr, "%s: %s: %s\n", tool, what, sinew_result_string(r));
        sinew_volume_free(&v);
        sinew_mesh_free(&surface);
        free(s.pins);
        free(s.regions);
        free(flags);
        return stop_signal() ? stop_status() : 1;
    }
    /* --translate places the asset's origin; the positions stay relative to
     * it (sinew-prep.c says why), and --pin-box comes into that frame. (The
     * mesh was scaled as it was read.) */
    for (unsigned b = 0; b < s.box_count; b++)
        for (int k = 0; k < 6; k++)
            s.boxes[6 * b + k] -= s.translate[k % 3];
    s.opt.pin_boxes = s.boxes;
    s.opt.pin_box_count = s.box_count;
    s.opt.render_source = surface.render_vertex_count ? &surface : NULL;
    char source[512];
    snprintf(source, sizeof source, "%s", what);
    s.opt.source_name = source;
    s.opt.pin_indices = s.pins;
    s.opt.pin_count = s.pin_count;
    sinew_soft_region_material *materials = region_materials(&s);
    s.opt.region_materials = materials;
    s.opt.region_material_count = materials ? s.region_count : 0;
    int by_region = v.regions != NULL || s.region_count > 0;
    sinew_asset *asset = NULL;
    sinew_soft_report rep;
    sinew_soft_region *regions = NULL;
    uint32_t region_count = 0;
    r = materials ? sinew_soft_build_with_regions(&v, &s.opt, &lg, &asset, &rep, &regions, &region_count)
                  : SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sinew_volume_free(&v);
    sinew_mesh_free(&surface);
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_set_origin(asset, s.translate, &lg);
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_write(asset, s.out, &lg);
    if (r == SINEW_RESULT_OK && !s.quiet)
        print_report(&s, asset, &rep, regions, region_count, by_region && regions);
    if (r == SINEW_RESULT_OK) {
        const sinew_asset_info ai = sinew_asset_get_info(asset);
        float *xyz = malloc(12ull * ai.particle_count + 12);
        if (xyz) {
            sinew_asset_get_positions(asset, xyz);
            prep_report_size(tool, what, xyz, ai.particle_count, rep.total_mass, s.quiet);
        }
        free(xyz);
    }
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "%s: %s: %s\n", tool, what, sinew_result_string(r));
    sinew_asset_destroy(asset);
    free(regions);
    free(materials);
    free(s.pins);
    free(s.regions);
    free(flags);
    return r == SINEW_RESULT_OK ? 0 : 1;
}
