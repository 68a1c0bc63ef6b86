/* JSON text parsed with Debian's cJSON (fabric files, glTF), refusing with
 * its line and column what cJSON would choke on or misread. */
#ifndef SINEW_PREP_JSON_H
#define SINEW_PREP_JSON_H

#include <sinew/core.h>

#ifdef SINEW_HAVE_CJSON
#include <cjson/cJSON.h>

/* Arrays and objects nest no deeper than this: the formats read need a
 * handful of levels, and cJSON recurses once a level. */
#define SINEW_JSON_MAX_DEPTH 64

/* Parses size bytes of text (not NUL-terminated) into *root (cJSON_Delete
 * it). Refused with `code`, logged with id and naming `name`, the line and
 * column and the key the place falls in: a NUL byte, nesting deeper than
 * SINEW_JSON_MAX_DEPTH, text that is not JSON, text after the value. */
sinew_result sinew_json_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                              const char *id, sinew_result code, cJSON **root);

#endif

#endif
