/* sinew/core.h: result codes, logging and the assert hook shared by every module.
 *
 * Two kinds of failure, never mixed:
 *  - environment and data failures (no Vulkan loader, bad asset, out of memory)
 *    return a sinew_result and send a message naming what was wrong to the logger;
 *  - programmer errors (null handle, unstamped desc) trip SINEW_ASSERT, which logs
 *    and calls the assert hook (abort() unless replaced).
 *
 * Every function given a handle, or a pointer it needs, checks it is not NULL
 * before anything else. The NULLs allowed are said where each function is:
 * destroying NULL does nothing, a NULL logger sends messages to stderr, an
 * optional output may be NULL, and an array whose length is 0 may be NULL.
 * The asset-building library (prep.h) takes untrusted input and refuses a
 * NULL with SINEW_RESULT_ERROR_INVALID_ARGUMENT instead.
 */
#ifndef SINEW_CORE_H
#define SINEW_CORE_H

#include <stddef.h>
#include <stdint.h>

/* The version of these headers (semantic: a new minor version adds, a new
 * major one may break); CMakeLists.txt takes the project's from here. */
#define SINEW_VERSION_MAJOR 0
#define SINEW_VERSION_MINOR 3
#define SINEW_VERSION_PATCH 0
#define SINEW_MAKE_VERSION(major, minor, patch) \
    (((uint32_t)(major) << 22) | ((uint32_t)(minor) << 12) | (uint32_t)(patch))
#define SINEW_VERSION SINEW_MAKE_VERSION(SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH)

/* Marks the functions of the public API: the only symbols the shared library
 * exports (everything else is built with hidden visibility). */
#if defined(_WIN32)
#if defined(SINEW_BUILDING_SHARED)
#define SINEW_API __declspec(dllexport)
#elif defined(SINEW_SHARED)
#define SINEW_API __declspec(dllimport)
#else
#define SINEW_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define SINEW_API __attribute__((visibility("default")))
#else
#define SINEW_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One list generates the enum and its strings, so a code can never lack its text. */
#define SINEW_RESULT_LIST(X)                                                        \
    X(OK, "ok")                                                                     \
    X(ERROR_INVALID_ARGUMENT, "invalid argument")                                   \
    X(ERROR_IO, "file could not be read or written")                                \
    X(ERROR_BAD_ASSET, "asset file is malformed")                                   \
    X(ERROR_BAD_MESH, "mesh is malformed")                                          \
    X(ERROR_OUT_OF_HOST_MEMORY, "out of host memory")                               \
    X(ERROR_OUT_OF_DEVICE_MEMORY, "out of device memory")                           \
    X(ERROR_NO_VULKAN, "Vulkan loader not found")                                   \
    X(ERROR_NO_DEVICE, "no suitable Vulkan device")                                 \
    X(ERROR_UNSUPPORTED, "not supported by this device or this build")              \
    X(ERROR_DEVICE_LOST, "Vulkan device lost")                                      \
    X(ERROR_VULKAN, "Vulkan call failed")                                           \
    X(ERROR_LIMIT, "size exceeds a library or device limit")                       \
    X(ERROR_UNSTABLE, "simulation produced non-finite or runaway values")

typedef enum sinew_result {
#define SINEW_X_ENUM(name, text) SINEW_RESULT_##name,
    SINEW_RESULT_LIST(SINEW_X_ENUM)
#undef SINEW_X_ENUM
    SINEW_RESULT_COUNT
} sinew_result;

/* Short English text of a result code; never NULL, static storage. */
SINEW_API const char *sinew_result_string(sinew_result result);

typedef enum sinew_log_level {
    SINEW_LOG_ERROR = 0,
    SINEW_LOG_WARNING = 1,
    SINEW_LOG_INFO = 2,
    SINEW_LOG_DEBUG = 3,
} sinew_log_level;

/* Receives every message of the library, Vulkan validation output included.
 * id: a short stable tag of the message's origin ("asset", "vulkan", "prep", or a
 *     validation-layer message id such as "VUID-vkCmdDispatch-groupCountX-00386").
 * message: transient, valid only for the duration of the call. */
typedef void (*sinew_log_fn)(void *user, sinew_log_level level, const char *id, const char *message);

typedef struct sinew_logger {
    sinew_log_fn fn;        /* NULL: messages go to stderr */
    void *user;             /* passed back to fn */
    sinew_log_level level;  /* messages less severe than this are dropped; default INFO */
} sinew_logger;

/* The version of the library as built (SINEW_MAKE_VERSION): a program linked
 * against a shared library can compare it with the SINEW_VERSION it was
 * compiled with. */
SINEW_API uint32_t sinew_version(void);

/* A logger writing to stderr, dropping messages below INFO. */
SINEW_API sinew_logger sinew_logger_default(void);

/* Programmer-error hook, called with the failed check's text, file and line.
 * Default (and fn NULL): abort(). A test may install its own; it must not
 * return (it may exit, or longjmp out), since the library would go on past
 * the failed check. */
typedef void (*sinew_assert_fn)(const char *expression, const char *file, int line);
SINEW_API void sinew_set_assert_hook(sinew_assert_fn fn);

#ifdef __cplusplus
}
#endif
#endif
