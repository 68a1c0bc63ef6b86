/* Result strings, the logger and the assert hook. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const result_strings[] = {
#define SINEW_X_STRING(name, text) text,
    SINEW_RESULT_LIST(SINEW_X_STRING)
#undef SINEW_X_STRING
};

const char *sinew_result_string(sinew_result result)
{
    if ((unsigned)result >= (unsigned)SINEW_RESULT_COUNT)
        return "unknown result";
    return result_strings[result];
}

uint32_t sinew_version(void) { return SINEW_VERSION; }

sinew_logger sinew_logger_default(void)
{
    sinew_logger lg = {0};
    lg.level = SINEW_LOG_INFO;
    return lg;
}

static const char *level_name(sinew_log_level level)
{
    switch (level) {
    case SINEW_LOG_ERROR: return "error";
    case SINEW_LOG_WARNING: return "warning";
    case SINEW_LOG_INFO: return "info";
    default: return "debug";
    }
}

static void vlog(const sinew_logger *lg, sinew_log_level level, const char *id, const char *fmt, va_list ap)
{
    sinew_log_level threshold = lg ? lg->level : SINEW_LOG_WARNING;
    if (level > threshold)
        return;
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (lg && lg->fn)
        lg->fn(lg->user, level, id, text);
    else
        fprintf(stderr, "sinew %s [%s]: %s\n", level_name(level), id, text);
}

void sinew_logf(const sinew_logger *lg, sinew_log_level level, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(lg, level, id, fmt, ap);
    va_end(ap);
}

sinew_result sinew_fail(const sinew_logger *lg, sinew_result code, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(lg, SINEW_LOG_ERROR, id, fmt, ap);
    va_end(ap);
    return code;
}

static sinew_assert_fn assert_hook;

void sinew_set_assert_hook(sinew_assert_fn fn) { assert_hook = fn; }

void sinew_assert_failed(const char *expression, const char *file, int line)
{
    fprintf(stderr, "sinew: assertion failed: %s (%s:%d)\n", expression, file, line);
    if (assert_hook)
        assert_hook(expression, file, line);
    else
        abort();
}
