/* Text scanning shared by the OBJ and OFF readers, safe for untrusted input:
 * the buffer need not be NUL-terminated and may hold any bytes, lines may be
 * of any length, and numbers must fill their whole token.
 *
 * Numbers go through strtod, which uses the C library's current locale for the
 * decimal point. Both formats use '.', and sinew never calls setlocale, so
 * this holds unless the application switched LC_NUMERIC away from "C".
 */
#ifndef SINEW_PREP_MESH_TEXT_H
#define SINEW_PREP_MESH_TEXT_H

#include <sinew/core.h>

/* Reader limits: far below 32-bit overflow in every size computed from them. */
#define SINEW_MESH_MAX_VERTICES (1u << 26)
#define SINEW_MESH_MAX_FACES (1u << 26)
#define SINEW_MESH_MAX_INDICES (1u << 28)

typedef struct sinew_token {
    const char *s;
    size_t len;
} sinew_token;

typedef struct sinew_text {
    const char *data;           /* borrowed */
    size_t size, next;          /* next: offset of the line after the current one */
    const char *line, *end;     /* current line, without terminator and comment */
    const char *cursor;         /* where the next token search starts */
    uint64_t line_no;           /* 1-based number of the current line */
    char *scratch;              /* NUL-terminated copy of a token for strtod */
    size_t scratch_cap;
} sinew_text;

void sinew_text_init(sinew_text *t, const char *data, size_t size);
void sinew_text_free(sinew_text *t);

/* Moves to the next line, cutting it at the first '#'. 0 at the end of the text. */
int sinew_text_next_line(sinew_text *t);

/* Next whitespace-separated token of the current line; 0 when none is left. */
int sinew_text_token(sinew_text *t, sinew_token *tok);

/* 1 when the whole token is a number (*out may then be infinite or NaN), 0 when
 * it is not, -1 when out of memory. */
int sinew_text_double(sinew_text *t, sinew_token tok, double *out);

/* 1 when the whole token is a decimal integer with optional sign. Magnitudes
 * beyond 2^40 saturate there, which every caller's range check rejects. */
int sinew_token_int(sinew_token tok, int64_t *out);

/* Up to 32 bytes of the token with unprintable bytes replaced, for messages. */
const char *sinew_token_printable(sinew_token tok, char buf[40]);

/* 1 when path ends in ext (".ply"; given in lower case), in any case. */
int sinew_path_has_extension(const char *path, const char *ext);

/* Mesh files are read whole (core/file.h), up to this size. */
#define SINEW_MESH_MAX_FILE ((size_t)1 << 30)

/* Grows *p to hold at least need elements of elem bytes (geometric growth).
 * 0 on overflow or when out of memory; *p is then unchanged. */
int sinew_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
