/* Mesh import through assimp (Debian's libassimp-dev, 5.2): PLY, STL, glTF 2.0
 * and every other surface format assimp reads, for the offline tools only; the
 * runtime library never depends on it.
 *
 * Polygons stay polygons (no triangulation, so quads keep their diagonals out
 * of the stretch constraints), node transforms are applied, and the polygon
 * faces of every mesh in the scene are gathered into one sinew_mesh; points
 * and lines are skipped. Degenerate faces are left for the cloth builder,
 * which drops them and says which.
 *
 * Many formats split a vertex wherever its normal or UV changes (OBJ and glTF
 * seams), and STL stores each triangle's corners separately: such a surface
 * would arrive torn into patches. So vertices at identical positions (bit for
 * bit, but -0.0 == +0.0) are welded (sinew_mesh_weld), by sorting, keeping the
 * order of first occurrences. A surface cut open along coincident vertices is
 * closed.
 * The vertices before the weld are the render mesh (mesh.h): UVs and normals
 * kept, polygons fanned.
 *
 * assimp 5.2 is not safe for untrusted input. On PLY, found by fuzzing: a
 * binary file shorter than its header says crashes it, one without end_header
 * hangs it, a short ASCII one is read on into garbage, a blank line is read as
 * a record, and out-of-range indices or "nan" come back as other, plausible
 * vertices. So a PLY file is walked here against its header first, in a
 * stricter grammar than assimp's, and refused with the line and problem
 * named. tests/fuzz/fuzz_ply found more: assimp writes past its arrays when
 * a vertex or face element is declared twice, reaches a face's texture
 * coordinates through its vertex list (past the end when there are more than
 * two per corner, through a null pointer when there is no list), and reads
 * some lines its own way (an unknown element's count from its name's digits,
 * words after the expected ones, unsigned values with a sign), so the walk
 * refuses those too. Before any record is walked, the counts in the header
 * must fit in the file (4000000000 vertices would otherwise be walked until
 * the data ran out, or the face lines be read as vertices), and a file
 * without faces is refused as the point cloud it is. A binary STL file's
 * triangle count must match its size, which is all assimp goes by (it said
 * only "Failed to determine STL storage representation"). A binary glTF
 * file's header is checked against its size
 * as well: assimp allocates and zeroes the chunk lengths it declares before
 * reading them, so a 700-byte .glb asked for 1.85 GB (found by
 * tests/fuzz/fuzz_gltf). A glTF 2 file's JSON is read first (json.h, so a
 * .gltf that is not JSON no longer goes to whichever importer claims its
 * content), and every accessor must lie within its bufferView and every
 * bufferView within its buffer, named with its range where not. Other
 * formats rely on assimp's own checks, which are not enough for glTF: its
 * importer still crashes on some primitives without positions
 * (docs/fuzzing.md lists them). Whatever assimp returns is checked again:
 * indices, finite coordinates, limits.
 */
#include "mesh.h"
#include "mesh_text.h"

#include "json.h"

#include "core/bytes.h"
#include "core/file.h"
#include "core/log.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No aiProcess_Triangulate: quads must stay quads. No aiProcess_FindDegenerates:
 * the cloth builder drops degenerate faces itself and names them. No
 * aiProcess_JoinIdenticalVertices: sinew_mesh_weld does its work for positions
 * (it would join only vertices alike in every attribute), and in 5.2.5 it
 * crashed on a fuzzed PLY whose positions are denormals and signed zeros. */
#define IMPORT_FLAGS aiProcess_PreTransformVertices

/* ------------------------------------------------------------ PLY structure */

enum { PLY_ASCII, PLY_LITTLE, PLY_BIG };
enum { PLY_MAX_ELEMENTS = 64, PLY_MAX_PROPERTIES = 256 };
/* What a property's values must satisfy: coordinates finite, indices in
 * range, a face's texture coordinates two per corner. */
enum { PLY_OTHER, PLY_COORDINATE, PLY_INDEX, PLY_TEXCOORD };

/* Scalar types in both spellings; the position in this table is the type code. */
enum { PLY_FLOAT = 6, PLY_DOUBLE = 7 };
static const struct {
    const char *name, *alias;
    uint8_t size, integer, is_signed;
} ply_types[] = {
    {"char", "int8", 1, 1, 1},   {"uchar", "uint8", 1, 1, 0},   {"short", "int16", 2, 1, 1},
    {"ushort", "uint16", 2, 1, 0}, {"int", "int32", 4, 1, 1},   {"uint", "uint32", 4, 1, 0},
    {"float", "float32", 4, 0, 1}, {"double", "float64", 8, 0, 1},
};
#define PLY_TYPE_COUNT (sizeof ply_types / sizeof ply_types[0])
#define PLY_SCALAR 0xff

typedef struct ply_property {
    uint8_t type;
    uint8_t count_type; /* PLY_SCALAR, or the type of a list's length */
    uint8_t role;
} ply_property;

typedef struct ply_element {
    char name[24];
    uint64_t count, line_no; /* line_no: of its element line */
    uint32_t first, property_count; /* properties[first .. first + property_count) */
} ply_element;

typedef struct ply_file {
    const char *path;
    const sinew_logger *lg;
    int format;
    uint32_t element_count, property_count;
    ply_element elements[PLY_MAX_ELEMENTS];
    ply_property properties[PLY_MAX_PROPERTIES];
    uint64_t vertex_count;
    sinew_text t;                 /* the header, then an ASCII body, line by line */
    const unsigned char *p, *end; /* a binary body still to walk; p NULL before it */
} ply_file;

/* Prefixes the problem with the file and, in text, the line. */
static sinew_result ply_fail(ply_file *f, const char *fmt, ...) SINEW_PRINTF(2, 3);
static sinew_result ply_fail(ply_file *f, const char *fmt, ...)
{
    char problem[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    if (f->p)
        return sinew_fail(f->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: %s", f->path, problem);
    return sinew_fail(f->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s", f->path, f->t.line_no,
                      problem);
}

static int ply_type(sinew_token tok)
{
    for (size_t i = 0; i < PLY_TYPE_COUNT; i++)
        if ((strlen(ply_types[i].name) == tok.len && memcmp(ply_types[i].name, tok.s, tok.len) == 0) ||
            (strlen(ply_types[i].alias) == tok.len && memcmp(ply_types[i].alias, tok.s, tok.len) == 0))
            return (int)i;
    return -1;
}

static int token_is(sinew_token tok, const char *word)
{
    return tok.len == strlen(word) && memcmp(tok.s, word, tok.len) == 0;
}

/* assimp splits PLY text where sinew_text does not ('\f', '\v', '\0', a lone
 * '\r' end lines for it, '#' is no comment) and takes a blank line in the data
 * for a record, so rather than be read two ways such lines are refused: the
 * first byte of the current line that is not printable ASCII, a tab, or a
 * final "\r\n"; with comment 0, a '#' too. NULL when there is none. */
static const char *ply_odd_byte(const sinew_text *t, int comment)
{
    const char *s = t->line, *e = t->data + t->next;
    if (e > s && e[-1] == '\n')
        e--;
    if (e > s && e[-1] == '\r')
        e--;
    for (; s < e; s++) {
        unsigned char c = (unsigned char)*s;
        if (!(c == '\t' || (c >= 0x20 && c < 0x7f)) || (c == '#' && !comment))
            return s;
    }
    return NULL;
}

static sinew_result ply_bad_byte(ply_file *f, const char *at)
{
    return ply_fail(f, "unexpected byte 0x%02x in column %zu", (unsigned char)*at, (size_t)(at - f->t.line) + 1);
}

static sinew_result ply_bad_header(ply_file *f, const char *problem, sinew_token tok)
{
    char buf[40];
    return ply_fail(f, "%s '%s'", problem, sinew_token_printable(tok, buf));
}

/* Of an element it does not know by name, assimp reads the count from the
 * name's leading digits ("foo 5" as 0 records, "7foo 0" as 7), and then the
 * records that follow as the wrong element's. */
static int ply_assimp_reads(const ply_element *e)
{
    static const char *const known[] = {"vertex", "face", "tristrips", "edge", "material"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(e->name, known[i]) == 0)
            return 1;
    return 0;
}

static int ply_has_role(const ply_file *f, const ply_element *e, int role)
{
    for (uint32_t i = 0; i < e->property_count; i++)
        if (f->properties[e->first + i].role == role)
            return 1;
    return 0;
}

static int ply_has_faces(const ply_file *f)
{
    for (uint32_t i = 0; i < f->element_count; i++)
        if (f->elements[i].count > 0 &&
            (strcmp(f->elements[i].name, "face") == 0 || strcmp(f->elements[i].name, "tristrips") == 0))
            return 1;
    return 0;
}

/* The fewest bytes the records the header declares can take (binary: each
 * scalar and list length, lists empty; ASCII: a digit and a separator per
 * value) must fit in the file after the header, else it is refused naming
 * the count and the file size it needs: a count of 4000000000 would
 * otherwise be walked record by record until the data ran out, or be read
 * as other elements' lines. */
static sinew_result ply_fits(ply_file *f, size_t header, size_t size)
{
    uint64_t need = header;
    for (uint32_t i = 0; i < f->element_count; i++) {
        const ply_element *e = &f->elements[i];
        uint64_t record = 0;
        for (uint32_t k = 0; k < e->property_count; k++) {
            const ply_property *p = &f->properties[e->first + k];
            record += f->format == PLY_ASCII ? 2 : ply_types[p->count_type == PLY_SCALAR ? p->type : p->count_type].size;
        }
        /* A record of at most 256 * 8 bytes: saturate rather than wrap. */
        need = record && e->count > (UINT64_MAX - need) / record ? UINT64_MAX : need + e->count * record;
        if (need > size)
            return sinew_fail(f->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                              "%s:%" PRIu64 ": the header declares %" PRIu64 " '%s' records, which need a file of "
                              "at least %" PRIu64 " bytes (%s); this one has %zu",
                              f->path, e->line_no, e->count, e->name, need,
                              f->format == PLY_ASCII ? "a digit and a space per value" : "every list empty", size);
    }
    return SINEW_RESULT_OK;
}

/* A header line assimp skips: its first word a name (a letter, then letters,
 * digits, '_', '-' or '.') that is no PLY keyword, as writers add them
 * ("author", "TextureFile", "generated_by"). A line opening with anything
 * else (a number, punctuation) is no header line, and is refused. */
static int ply_named_line(sinew_token tok)
{
    static const char *const keywords[] = {"format", "element", "property", "end_header"};
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
        if (token_is(tok, keywords[k]))
            return 0;
    if (tok.len == 0 || !isalpha((unsigned char)tok.s[0]))
        return 0;
    for (size_t i = 1; i < tok.len; i++) {
        unsigned char c = (unsigned char)tok.s[i];
        if (!isalnum(c) && c != '_' && c != '-' && c != '.')
            return 0;
    }
    return 1;
}

/* Reads the header up to end_header, where f->t is left; a binary body starts
 * at f->p. */
static sinew_result ply_header(ply_file *f)
{
    sinew_text *t = &f->t;
    sinew_token tok = {NULL, 0}, a = tok, b = tok, c = tok, d = tok;
    const char *odd;
    if (!sinew_text_next_line(t) || !sinew_text_token(t, &tok) || !(token_is(tok, "ply") || token_is(tok, "PLY")) ||
        sinew_text_token(t, &a) || ply_odd_byte(t, 0))
        return ply_bad_header(f, "first line is not 'ply':", tok);
    int have_format = 0;
    while (sinew_text_next_line(t)) {
        int has_token = sinew_text_token(t, &tok);
        int comment = has_token && (token_is(tok, "comment") || token_is(tok, "obj_info"));
        int named = has_token && !comment && ply_named_line(tok);
        if ((odd = ply_odd_byte(t, comment || named)) != NULL)
            return ply_bad_byte(f, odd);
        if (named) {
            char buf[40];
            sinew_logf(f->lg, SINEW_LOG_INFO, "mesh", "%s:%" PRIu64 ": '%s' is no PLY keyword; the line is skipped, "
                       "as assimp skips it", f->path, t->line_no, sinew_token_printable(tok, buf));
        }
        if (!has_token || comment || named)
            continue;
        if (token_is(tok, "end_header")) {
            if (!have_format)
                return ply_bad_header(f, "no format line before", tok);
            if (sinew_text_token(t, &a))
                return ply_bad_header(f, "extra word at the end of the line:", a);
            for (uint32_t i = 0; i < f->element_count; i++) {
                const ply_element *e = &f->elements[i];
                if (e->count > 0 && e->property_count == 0)
                    return ply_fail(f, "element '%s' has records but no properties", e->name);
                if (e->count > 0 && !ply_assimp_reads(e))
                    return ply_fail(f, "element '%s' has records, but assimp reads those of vertex, face, "
                                    "tristrips, edge and material only", e->name);
                if (e->count > 0 && strcmp(e->name, "face") == 0 && !ply_has_role(f, e, PLY_INDEX))
                    return ply_fail(f, "element 'face' has records but no vertex_indices list");
            }
            /* assimp hung on a header of no element after a skipped line. */
            if (f->vertex_count == 0)
                return ply_fail(f, "the header declares no vertices (no 'element vertex' with records)");
            if (!ply_has_faces(f))
                return sinew_fail(f->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                                  "%s: has no faces: a point cloud of %" PRIu64 " vertices, not a surface "
                                  "(no 'element face' or 'tristrips' with records)", f->path, f->vertex_count);
            sinew_result r = ply_fits(f, t->next, t->size);
            if (r != SINEW_RESULT_OK)
                return r;
            if (f->format != PLY_ASCII) {
                f->p = (const unsigned char *)t->data + t->next;
                f->end = (const unsigned char *)t->data + t->size;
            }
            return SINEW_RESULT_OK;
        }
        if (token_is(tok, "format")) {
            if (!sinew_text_token(t, &a))
                return ply_bad_header(f, "format line without a format:", tok);
            f->format = token_is(a, "ascii") ? PLY_ASCII
                        : token_is(a, "binary_little_endian") ? PLY_LITTLE
                        : token_is(a, "binary_big_endian") ? PLY_BIG
                        : -1;
            if (f->format < 0)
                return ply_bad_header(f, "unknown format", a);
            if (!sinew_text_token(t, &b))
                return ply_bad_header(f, "format line without a version:", a);
            have_format = 1;
        } else if (token_is(tok, "element")) {
            int64_t count;
            /* assimp reads a count without a sign only. */
            if (!sinew_text_token(t, &a) || !sinew_text_token(t, &b) || b.s[0] < '0' || b.s[0] > '9' ||
                !sinew_token_int(b, &count))
                return ply_bad_header(f, "expected 'element NAME COUNT' at", tok);
            if (f->element_count == PLY_MAX_ELEMENTS)
                return ply_bad_header(f, "too many elements at", a);
            /* assimp fills one array per name, sized by the first. */
            for (uint32_t i = 0; i < f->element_count; i++)
                if (token_is(a, f->elements[i].name))
                    return ply_bad_header(f, "second element named", a);
            /* See ply_assimp_reads. */
            if (a.s[0] >= '0' && a.s[0] <= '9')
                return ply_bad_header(f, "element name starts with a digit:", a);
            ply_element *e = &f->elements[f->element_count++];
            memset(e, 0, sizeof *e);
            memcpy(e->name, a.s, a.len < sizeof e->name - 1 ? a.len : sizeof e->name - 1);
            e->count = (uint64_t)count;
            e->line_no = t->line_no;
            e->first = f->property_count;
            if (token_is(a, "vertex"))
                f->vertex_count = e->count;
        } else if (token_is(tok, "property")) {
            if (f->element_count == 0)
                return ply_bad_header(f, "property before any element:", tok);
            if (f->property_count == PLY_MAX_PROPERTIES)
                return ply_bad_header(f, "too many properties at", tok);
            ply_element *e = &f->elements[f->element_count - 1];
            ply_property *p = &f->properties[f->property_count];
            if (!sinew_text_token(t, &a))
                return ply_bad_header(f, "property without a type:", tok);
            int list = token_is(a, "list"), ct = -1, ty;
            if (list) {
                if (!sinew_text_token(t, &b) || (ct = ply_type(b)) < 0 || !ply_types[ct].integer)
                    return ply_bad_header(f, "list length type is not an integer type:", b);
                if (!sinew_text_token(t, &c) || (ty = ply_type(c)) < 0)
                    return ply_bad_header(f, "unknown list item type", c);
            } else if ((ty = ply_type(a)) < 0) {
                return ply_bad_header(f, "unknown property type", a);
            }
            if (!sinew_text_token(t, &d))
                return ply_bad_header(f, "property without a name:", tok);
            p->type = (uint8_t)ty;
            p->count_type = list ? (uint8_t)ct : PLY_SCALAR;
            p->role = PLY_OTHER;
            if (!list && strcmp(e->name, "vertex") == 0 && (token_is(d, "x") || token_is(d, "y") || token_is(d, "z")))
                p->role = PLY_COORDINATE;
            if (list && strcmp(e->name, "face") == 0 &&
                (token_is(d, "vertex_indices") || token_is(d, "vertex_index")))
                p->role = PLY_INDEX;
            if (list && strcmp(e->name, "face") == 0 && token_is(d, "texcoord"))
                p->role = PLY_TEXCOORD;
            f->property_count++;
            e->property_count++;
        } else {
            return ply_bad_header(f, "not a header line (no keyword; data before end_header?):", tok);
        }
        /* assimp reads on into the next line with them, and hung on an
         * element line with two more words before a final end_header. */
        if (sinew_text_token(t, &a))
            return ply_bad_header(f, "extra word at the end of the line:", a);
    }
    return ply_bad_header(f, "no end_header after", tok);
}

/* Next value of the given type: 1 read; 0 the line (ASCII) or the file
 * (binary) ends first; -1 malformed (ASCII; the token is in tok); -2 out of memory. */
static int ply_value(ply_file *f, int type, double *v, sinew_token *tok)
{
    if (f->format == PLY_ASCII) {
        /* Plain decimals only: strtod's hex, "inf" and "nan" and a fraction in
         * an integer would each be read otherwise by assimp. */
        if (!sinew_text_token(&f->t, tok))
            return 0;
        if (ply_types[type].integer) {
            /* assimp reads an unsigned value only without a sign. */
            int64_t i;
            if (!sinew_token_int(*tok, &i) || (!ply_types[type].is_signed && (tok->s[0] < '0' || tok->s[0] > '9')))
                return -1;
            *v = (double)i;
            return 1;
        }
        for (size_t k = 0; k < tok->len; k++)
            if (!strchr("0123456789+-.eE", tok->s[k]))
                return -1;
        int ok = sinew_text_double(&f->t, *tok, v);
        return ok < 0 ? -2 : ok ? 1 : -1;
    }
    size_t size = ply_types[type].size;
    if ((size_t)(f->end - f->p) < size)
        return 0;
    uint64_t u = 0;
    for (size_t k = 0; k < size; k++)
        u |= (uint64_t)f->p[f->format == PLY_LITTLE ? k : size - 1 - k] << (8 * k);
    f->p += size;
    if (type == PLY_FLOAT) {
        uint32_t bits = (uint32_t)u;
        float x;
        memcpy(&x, &bits, sizeof x);
        *v = x;
    } else if (type == PLY_DOUBLE) {
        memcpy(v, &u, sizeof *v);
    } else if (ply_types[type].is_signed && (u >> (8 * size - 1)) & 1) {
        *v = (double)(int64_t)(u | ~(uint64_t)0 << (8 * size - 1));
    } else {
        *v = (double)u;
    }
    return 1;
}

/* Record i of element e. In ASCII each record is one line (assimp reads them
 * so), with exactly the values the header declares and nothing else. */
static sinew_result ply_record(ply_file *f, const ply_element *e, uint64_t i)
{
    sinew_token tok = {NULL, 0};
    if (f->format == PLY_ASCII) {
        if (!sinew_text_next_line(&f->t))
            return ply_fail(f, "file ends in %s %" PRIu64 " of the %" PRIu64 " its header declares", e->name, i,
                            e->count);
        const char *odd = ply_odd_byte(&f->t, 0);
        if (odd)
            return ply_bad_byte(f, odd);
        if (!sinew_text_token(&f->t, &tok))
            return ply_fail(f, "blank line where %s %" PRIu64 " should be", e->name, i);
        f->t.cursor = f->t.line;
    }
    double corners = 0, texcoords = -1; /* of a face, as assimp reads it: the last lists */
    for (uint32_t pi = 0; pi < e->property_count; pi++) {
        const ply_property *p = &f->properties[e->first + pi];
        double n = 1.0, v;
        int got = 1;
        if (p->count_type != PLY_SCALAR && (got = ply_value(f, p->count_type, &n, &tok)) == 1 && n < 0)
            return ply_fail(f, "%s %" PRIu64 ": negative list length %.0f", e->name, i, n);
        for (double k = 0; got == 1 && k < n; k++) {
            got = ply_value(f, p->type, &v, &tok);
            if (got == 1 && p->role == PLY_COORDINATE && !isfinite(v))
                return ply_fail(f, "vertex %" PRIu64 " has a non-finite coordinate", i);
            if (got == 1 && p->role == PLY_INDEX && !(v >= 0 && v < (double)f->vertex_count && v == floor(v)))
                return ply_fail(f, "face %" PRIu64 ": vertex index %.0f out of range (%" PRIu64 " vertices)", i, v,
                                f->vertex_count);
        }
        char buf[40];
        if (got == 0 && f->format == PLY_ASCII)
            return ply_fail(f, "%s %" PRIu64 " has fewer values than the header declares", e->name, i);
        if (got == 0)
            return ply_fail(f, "file ends in %s %" PRIu64 " of the %" PRIu64 " its header declares", e->name, i,
                            e->count);
        if (got == -1)
            return ply_fail(f, "%s %" PRIu64 ": malformed number '%s'", e->name, i, sinew_token_printable(tok, buf));
        if (got == -2)
            return sinew_fail(f->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", f->path);
        if (p->role == PLY_INDEX)
            corners = n;
        else if (p->role == PLY_TEXCOORD)
            texcoords = n;
    }
    if (texcoords >= 0 && texcoords != 2 * corners)
        return ply_fail(f, "face %" PRIu64 ": %.0f texture coordinates for %.0f corners (two per corner)", i,
                        texcoords, corners);
    if (f->format == PLY_ASCII && sinew_text_token(&f->t, &tok))
        return ply_fail(f, "%s %" PRIu64 " has more values than the header declares", e->name, i);
    return SINEW_RESULT_OK;
}

/* Walks every record the header declares: the body must hold them all, face
 * indices must name existing vertices, coordinates must be finite. */
static sinew_result ply_check(const char *path, const sinew_logger *lg, const char *data, size_t size)
{
    ply_file *f = calloc(1, sizeof *f);
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", path);
    f->path = path;
    f->lg = lg;
    sinew_text_init(&f->t, data, size);
    sinew_result r = ply_header(f);
    for (uint32_t ei = 0; r == SINEW_RESULT_OK && ei < f->element_count; ei++)
        for (uint64_t i = 0; r == SINEW_RESULT_OK && i < f->elements[ei].count; i++)
            r = ply_record(f, &f->elements[ei], i);
    sinew_text_free(&f->t);
    free(f);
    return r;
}

/* Whatever assimp would read as PLY: its name, or the magic it looks for. */
static int is_ply(const char *path, const char *data, size_t size)
{
    return sinew_path_has_extension(path, ".ply") ||
           (size >= 3 && (memcmp(data, "ply", 3) == 0 || memcmp(data, "PLY", 3) == 0));
}

/* ------------------------------------------------------------ STL structure */

/* assimp reads an STL file as binary when its size is 84 + 50 per triangle
 * of the count at byte 80 (computed in 32 bits), else as ASCII when it
 * starts with "solid" (after spaces and tabs), else it fails with
 * "Failed to determine STL storage representation". A binary file whose
 * count does not match its size is refused here naming both; so is one whose
 * count matches only once assimp's sum wraps. */
static sinew_result stl_check(const char *path, const sinew_logger *lg, const uint8_t *p, size_t size)
{
    uint32_t count = size >= 84 ? sinew_get_u32(p + 80) : 0;
    uint64_t need = 84 + 50 * (uint64_t)count;
    if (size >= 84 && need == size)
        return SINEW_RESULT_OK;
    if (size >= 84 && (uint32_t)need == size)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: binary STL header declares %u triangles, which need a file of %" PRIu64
                          " bytes (84 + 50 per triangle); this one has %zu",
                          path, count, need, size);
    size_t i = 0;
    while (i < size && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (size - i > 5 && memcmp(p + i, "solid", 5) == 0)
        return SINEW_RESULT_OK;
    if (size < 84)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: %zu bytes: shorter than a binary STL header (84 bytes), and not ASCII STL (no "
                          "'solid' first)", path, size);
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                      "%s: binary STL header declares %u triangles, which need a file of %" PRIu64
                      " bytes (84 + 50 per triangle); this one has %zu",
                      path, count, need, size);
}

/* ------------------------------------------------------------ GLB structure */

/* A binary glTF file (assimp reads one as such by its .glb extension):
 *
 *   0   "glTF"  version  length (of the whole file)      12-byte header
 *   12  length  type ("JSON"; glTF 1: format)  JSON       first chunk
 *   ..  length  type ("BIN\0")  data, glTF 2 only          second chunk
 *
 * Every length must lie within the file before assimp sees it. */
static sinew_result glb_check(const char *path, const sinew_logger *lg, const uint8_t *p, size_t size)
{
    if (size < 20 || memcmp(p, "glTF", 4) != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: not a binary glTF file (no 20-byte header starting with \"glTF\")", path);
    uint32_t version = sinew_get_u32(p + 4), length = sinew_get_u32(p + 8), json = sinew_get_u32(p + 12);
    if (length != size)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: binary glTF header gives a length of %u bytes but the file has %zu", path, length,
                          size);
    if (json > size - 20)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: binary glTF JSON chunk of %u bytes runs past the end of the file (%zu bytes)", path,
                          json, size);
    /* Where glTF 2 puts the BIN chunk: after the JSON, padded to 4 bytes. */
    uint64_t bin = 20 + ((uint64_t)json + 3) / 4 * 4;
    if (version == 2 && bin + 8 <= size && sinew_get_u32(p + bin) > size - (bin + 8))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s: binary glTF BIN chunk of %u bytes runs past the end of the file (%zu bytes)", path,
                          sinew_get_u32(p + bin), size);
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ glTF ranges */

#ifdef SINEW_HAVE_CJSON

/* A member that is a whole number in [0, 2^53], as *v; 0 if absent or not
 * one (assimp's own checks answer for that). */
static int gltf_count(const cJSON *o, const char *key, double fallback, double *v)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = fallback;
    if (!m)
        return 1;
    if (!cJSON_IsNumber(m) || !(m->valuedouble >= 0 && m->valuedouble <= 9007199254740992.0) ||
        m->valuedouble != floor(m->valuedouble))
        return 0;
    *v = m->valuedouble;
    return 1;
}

static double gltf_element_size(const cJSON *accessor)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(accessor, "type");
    double component;
    if (!gltf_count(accessor, "componentType", -1, &component) || !cJSON_IsString(type))
        return 0;
    static const struct {
        const char *name;
        int n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    int bytes = component == 5120 || component == 5121 ? 1 : component == 5122 || component == 5123 ? 2
              : component == 5125 || component == 5126 ? 4 : 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type->valuestring, types[i].name) == 0)
            return (double)bytes * types[i].n;
    return 0;
}

/* Every accessor must lie within its bufferView, every bufferView within its
 * buffer, and in a .glb the buffer without a uri within the BIN chunk
 * (bin_size; -1 for a .gltf): assimp said "Accessor with offset/length
 * (0/16000) is out of range", naming neither the accessor nor its range.
 * What is not a whole number here is left to assimp's own checks. */
static sinew_result gltf_ranges(const char *path, const sinew_logger *lg, const char *text, size_t size,
                                double bin_size)
{
    cJSON *root = NULL;
    sinew_result r = sinew_json_parse(text, size, path, lg, "mesh", SINEW_RESULT_ERROR_BAD_MESH, &root);
    if (r != SINEW_RESULT_OK)
        return r;
    const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    int nb = cJSON_IsArray(buffers) ? cJSON_GetArraySize(buffers) : 0;
    int nv = cJSON_IsArray(views) ? cJSON_GetArraySize(views) : 0;
    int na = cJSON_IsArray(accessors) ? cJSON_GetArraySize(accessors) : 0;
    for (int i = 0; r == SINEW_RESULT_OK && i < nb; i++) {
        const cJSON *b = cJSON_GetArrayItem(buffers, i);
        double length;
        if (bin_size >= 0 && !cJSON_GetObjectItemCaseSensitive(b, "uri") && gltf_count(b, "byteLength", 0, &length) &&
            length > bin_size)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                           "%s: buffer %d has a byteLength of %.0f, but the BIN chunk holds %.0f bytes", path, i,
                           length, bin_size);
    }
    for (int i = 0; r == SINEW_RESULT_OK && i < nv; i++) {
        const cJSON *v = cJSON_GetArrayItem(views, i);
        double buffer, offset, length, buffer_length;
        if (!gltf_count(v, "buffer", -1, &buffer) || !gltf_count(v, "byteOffset", 0, &offset) ||
            !gltf_count(v, "byteLength", -1, &length) || buffer < 0 || length < 0)
            continue;
        if (buffer >= nb) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: bufferView %d names buffer %.0f of %d", path,
                           i, buffer, nb);
        } else if (gltf_count(cJSON_GetArrayItem(buffers, (int)buffer), "byteLength", -1, &buffer_length) &&
                   buffer_length >= 0 && offset + length > buffer_length) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                           "%s: bufferView %d (bytes %.0f to %.0f) runs past the end of buffer %.0f (%.0f bytes)",
                           path, i, offset, offset + length, buffer, buffer_length);
        }
    }
    for (int i = 0; r == SINEW_RESULT_OK && i < na; i++) {
        const cJSON *a = cJSON_GetArrayItem(accessors, i);
        double view, offset, count, stride, length, element = gltf_element_size(a);
        if (!gltf_count(a, "bufferView", -1, &view) || view < 0 || !gltf_count(a, "byteOffset", 0, &offset) ||
            !gltf_count(a, "count", -1, &count) || count < 1 || element == 0)
            continue;
        if (view >= nv) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: accessor %d names bufferView %.0f of %d",
                           path, i, view, nv);
            continue;
        }
        const cJSON *v = cJSON_GetArrayItem(views, (int)view);
        if (!gltf_count(v, "byteLength", -1, &length) || length < 0 || !gltf_count(v, "byteStride", 0, &stride))
            continue;
        double end = offset + (count - 1) * (stride > 0 ? stride : element) + element;
        if (end > length)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                           "%s: accessor %d (%.0f elements of %.0f bytes from offset %.0f) needs bytes %.0f to %.0f "
                           "of bufferView %.0f, which has %.0f",
                           path, i, count, element, offset, offset, end, view, length);
    }
    cJSON_Delete(root);
    return r;
}

#endif

/* ------------------------------------------------------------ import */

/* Polygon faces (3 or more corners) of one assimp mesh. */
static uint32_t polygon_count(const struct aiMesh *am, uint64_t *indices)
{
    uint32_t n = 0;
    for (unsigned f = 0; f < am->mNumFaces; f++)
        if (am->mFaces[f].mNumIndices >= 3) {
            n++;
            *indices += am->mFaces[f].mNumIndices;
        }
    return n;
}

/* Appends the polygon faces of every mesh to out, vertices numbered mesh after mesh. */
static sinew_result gather(const struct aiScene *scene, const char *path, const sinew_logger *lg, sinew_mesh *out)
{
    uint64_t vertices = 0, faces = 0, indices = 0, skipped = 0;
    for (unsigned i = 0; i < scene->mNumMeshes; i++) {
        const struct aiMesh *am = scene->mMeshes[i];
        uint32_t polygons = polygon_count(am, &indices);
        skipped += am->mNumFaces - polygons;
        if (polygons) {
            vertices += am->mNumVertices;
            faces += polygons;
        }
    }
    if (skipped)
        sinew_logf(lg, SINEW_LOG_WARNING, "mesh", "%s: ignored %" PRIu64 " point and line primitives", path, skipped);
    if (faces == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: no triangle or polygon meshes", path);
    if (vertices > SINEW_MESH_MAX_VERTICES || faces > SINEW_MESH_MAX_FACES || indices > SINEW_MESH_MAX_INDICES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "mesh",
                          "%s: %" PRIu64 " vertices, %" PRIu64 " faces, %" PRIu64
                          " face indices (limits %u, %u, %u)",
                          path, vertices, faces, indices, SINEW_MESH_MAX_VERTICES, SINEW_MESH_MAX_FACES,
                          SINEW_MESH_MAX_INDICES);
    out->positions = malloc(sizeof(double) * 3 * vertices);
    out->face_offsets = malloc(sizeof(uint32_t) * (faces + 1));
    out->face_indices = malloc(sizeof(uint32_t) * indices);
    if (!out->positions || !out->face_offsets || !out->face_indices)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", path);
    /* The render mesh: assimp's vertices as they are, before the weld. */
    int has_uv = 0, has_n = 0;
    for (unsigned i = 0; i < scene->mNumMeshes; i++) {
        has_uv |= scene->mMeshes[i]->mTextureCoords[0] != NULL;
        has_n |= scene->mMeshes[i]->mNormals != NULL;
    }
    out->render_vertex = malloc(sizeof(uint32_t) * (vertices + 1));
    out->render_uv = has_uv ? calloc(2 * vertices + 1, sizeof(float)) : NULL;
    out->render_normal = has_n ? calloc(3 * vertices + 1, sizeof(float)) : NULL;
    out->render_triangles = malloc(sizeof(uint32_t) * 3 * (indices - 2 * faces + 1));
    if (!out->render_vertex || (has_uv && !out->render_uv) || (has_n && !out->render_normal) ||
        !out->render_triangles)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", path);
    uint32_t t = 0;

    uint32_t v = 0, f = 0, k = 0;
    out->face_offsets[0] = 0;
    for (unsigned i = 0; i < scene->mNumMeshes; i++) {
        const struct aiMesh *am = scene->mMeshes[i];
        uint64_t unused = 0;
        if (polygon_count(am, &unused) == 0)
            continue;
        if (!am->mVertices)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: mesh %u has no positions", path, i);
        uint32_t base = v;
        for (unsigned j = 0; j < am->mNumVertices; j++, v++) {
            double *p = out->positions + 3 * (size_t)v;
            p[0] = am->mVertices[j].x;
            p[1] = am->mVertices[j].y;
            p[2] = am->mVertices[j].z;
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                                  "%s: vertex %u of mesh %u has a non-finite coordinate", path, j, i);
            out->render_vertex[v] = v;
            if (am->mTextureCoords[0]) {
                out->render_uv[2 * (size_t)v] = am->mTextureCoords[0][j].x;
                out->render_uv[2 * (size_t)v + 1] = am->mTextureCoords[0][j].y;
            }
            if (am->mNormals) {
                out->render_normal[3 * (size_t)v] = am->mNormals[j].x;
                out->render_normal[3 * (size_t)v + 1] = am->mNormals[j].y;
                out->render_normal[3 * (size_t)v + 2] = am->mNormals[j].z;
            }
        }
        for (unsigned fi = 0; fi < am->mNumFaces; fi++) {
            const struct aiFace *af = &am->mFaces[fi];
            if (af->mNumIndices < 3)
                continue;
            for (unsigned c = 0; c < af->mNumIndices; c++) {
                if (af->mIndices[c] >= am->mNumVertices)
                    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                                      "%s: face %u of mesh %u: vertex index %u out of range (%u vertices)", path,
                                      fi, i, af->mIndices[c], am->mNumVertices);
                out->face_indices[k++] = base + af->mIndices[c];
            }
            for (unsigned c = 1; c + 1 < af->mNumIndices; c++, t++) {
                out->render_triangles[3 * (size_t)t] = base + af->mIndices[0];
                out->render_triangles[3 * (size_t)t + 1] = base + af->mIndices[c];
                out->render_triangles[3 * (size_t)t + 2] = base + af->mIndices[c + 1];
            }
            out->face_offsets[++f] = k;
        }
    }
    out->vertex_count = v;
    out->face_count = f;
    out->render_vertex_count = v;
    out->render_triangle_count = t;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mesh_read_assimp(const char *path, const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(path && out);
    memset(out, 0, sizeof *out);
    /* Read here first: a missing file is an I/O error with its reason, and a
     * PLY file is checked, then imported from exactly the bytes checked. */
    uint8_t *bytes;
    size_t size;
    sinew_result r = sinew_file_read(path, SINEW_MESH_MAX_FILE, lg, "mesh", &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    char *data = (char *)bytes;
    const struct aiScene *scene = NULL;
    if (is_ply(path, data, size)) {
        r = ply_check(path, lg, data, size);
        if (r == SINEW_RESULT_OK)
            scene = aiImportFileFromMemory(data, (unsigned)size, IMPORT_FLAGS, "ply");
    } else {
        if (sinew_path_has_extension(path, ".glb"))
            r = glb_check(path, lg, bytes, size);
#ifdef SINEW_HAVE_CJSON
        /* A glTF 2 file's JSON (glb_check has bounded the chunks). */
        if (r == SINEW_RESULT_OK && sinew_path_has_extension(path, ".glb") && sinew_get_u32(bytes + 4) == 2) {
            uint32_t json = sinew_get_u32(bytes + 12);
            uint64_t bin = 20 + ((uint64_t)json + 3) / 4 * 4;
            /* Some writers pad the chunk with NUL bytes rather than spaces. */
            while (json > 0 && data[20 + json - 1] == '\0')
                json--;
            r = gltf_ranges(path, lg, data + 20, json, bin + 8 <= size ? sinew_get_u32(bytes + bin) : 0);
        } else if (sinew_path_has_extension(path, ".gltf")) {
            r = gltf_ranges(path, lg, data, size, -1);
        }
#endif
        if (sinew_path_has_extension(path, ".stl"))
            r = stl_check(path, lg, bytes, size);
        /* From the path: glTF buffers and OBJ materials may live in other files. */
        free(data);
        data = NULL;
        if (r == SINEW_RESULT_OK)
            scene = aiImportFile(path, IMPORT_FLAGS);
    }
    free(data);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!scene)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: %s", path, aiGetErrorString());

    r = gather(scene, path, lg, out);
    aiReleaseImport(scene);
    uint32_t merged = 0;
    if (r == SINEW_RESULT_OK && !sinew_mesh_weld(out, NULL, &merged))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", path);
    if (r == SINEW_RESULT_OK)
        r = sinew_mesh_render_finish(out, path, lg);
    if (r != SINEW_RESULT_OK) {
        sinew_mesh_free(out);
        return r;
    }
    if (merged)
        sinew_logf(lg, SINEW_LOG_INFO, "mesh", "%s: welded %u vertices onto others at the same position", path,
                   merged);
    return SINEW_RESULT_OK;
}
