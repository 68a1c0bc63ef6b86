/* Internal logging, allocation and assertion helpers. */
#ifndef SINEW_CORE_LOG_H
#define SINEW_CORE_LOG_H

#include <sinew/core.h>

#if defined(__MINGW32__)
/* mingw-w64 formats through its own C99 stdio (__USE_MINGW_ANSI_STDIO, set in
 * CMakeLists.txt), not msvcrt's, which lacks %zu: checked as GNU formats. */
#define SINEW_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define SINEW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SINEW_PRINTF(a, b)
#endif

/* Formats and sends one message. lg may be NULL (stderr, warnings and errors). */
void sinew_logf(const sinew_logger *lg, sinew_log_level level, const char *id, const char *fmt, ...)
    SINEW_PRINTF(4, 5);

/* Logs an error and returns code, for `return sinew_fail(lg, CODE, "id", "...")`. */
sinew_result sinew_fail(const sinew_logger *lg, sinew_result code, const char *id, const char *fmt, ...)
    SINEW_PRINTF(4, 5);

void sinew_assert_failed(const char *expression, const char *file, int line);

#define SINEW_ASSERT(e) ((e) ? (void)0 : sinew_assert_failed(#e, __FILE__, __LINE__))

/* Cookie stamped into descs by their default functions. */
#define SINEW_DESC_COOKIE 0x5e1e3c0du

#endif
