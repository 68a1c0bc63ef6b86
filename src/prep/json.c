/* JSON text parsed with Debian's cJSON, refused with its line, column and key
 * where cJSON would choke on it (nesting: cJSON recurses a level at a time)
 * or misread it (a NUL byte ends cJSON's text early). */
#include "json.h"

#ifdef SINEW_HAVE_CJSON

#include "core/log.h"

#include <stdio.h>
#include <string.h>

/* The last object key that begins before text[pos] (printable ASCII, cut at
 * cap - 1 bytes; "" if none): where a fault is, in the file's words. */
static void key_before(const char *text, size_t pos, char *key, size_t cap)
{
    key[0] = '\0';
    size_t i = 0;
    while (i < pos) {
        if (text[i++] != '"')
            continue;
        size_t start = i;
        while (i < pos && text[i] != '"')
            i += text[i] == '\\' ? 2 : 1;
        if (i >= pos)
            return;
        size_t end = i++, j = i;
        while (j < pos && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
            j++;
        if (j < pos && text[j] == ':') {
            size_t k = 0;
            for (size_t c = start; c < end && k + 1 < cap; c++)
                key[k++] = text[c] >= 0x20 && text[c] < 0x7f ? text[c] : '?';
            key[k] = '\0';
        }
    }
}

static sinew_result fail_at(const char *text, size_t size, size_t pos, const char *name, const sinew_logger *lg,
                            const char *id, sinew_result code, const char *what)
{
    pos = pos > size ? size : pos;
    unsigned line = 1, column = 1;
    for (size_t i = 0; i < pos; i++) {
        column = text[i] == '\n' ? 1 : column + 1;
        line += text[i] == '\n';
    }
    char key[48];
    key_before(text, pos, key, sizeof key);
    if (key[0])
        return sinew_fail(lg, code, id, "%s: key \"%s\": %s at line %u, column %u", name, key, what, line, column);
    return sinew_fail(lg, code, id, "%s: %s at line %u, column %u", name, what, line, column);
}

/* Where arrays and objects first nest deeper than SINEW_JSON_MAX_DEPTH (the
 * offset of the bracket), or size where they never do; brackets in strings
 * do not count. */
static size_t too_deep(const char *text, size_t size)
{
    unsigned depth = 0;
    for (size_t i = 0; i < size; i++) {
        const char c = text[i];
        if (c == '"') {
            for (i++; i < size && text[i] != '"'; i++)
                i += text[i] == '\\';
        } else if (c == '[' || c == '{') {
            if (++depth > SINEW_JSON_MAX_DEPTH)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return size;
}

sinew_result sinew_json_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                              const char *id, sinew_result code, cJSON **root)
{
    *root = NULL;
    const char *nul = size ? memchr(text, '\0', size) : NULL;
    if (nul)
        return fail_at(text, size, (size_t)(nul - text), name, lg, id, code, "a NUL byte");
    const size_t deep = too_deep(text, size);
    if (deep < size) {
        char what[64];
        snprintf(what, sizeof what, "arrays and objects nested deeper than %u", SINEW_JSON_MAX_DEPTH);
        return fail_at(text, size, deep, name, lg, id, code, what);
    }
    const char *end = NULL;
    *root = size ? cJSON_ParseWithLengthOpts(text, size, &end, 0) : NULL;
    if (!*root) {
        size_t pos = end && end >= text && end <= text + size ? (size_t)(end - text) : size;
        return fail_at(text, size, pos, name, lg, id, code, size ? "not valid JSON" : "empty: not valid JSON");
    }
    size_t pos = (size_t)(end - text);
    while (pos < size && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
        pos++;
    if (pos == size)
        return SINEW_RESULT_OK;
    cJSON_Delete(*root);
    *root = NULL;
    return fail_at(text, size, pos, name, lg, id, code, "text after the JSON value");
}

#endif
