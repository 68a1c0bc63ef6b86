/* Whole-file reading and atomic replacement. */
#include "file.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

/* The size ftell reports is only a first guess for the buffer (pipes have
 * none, directories report nonsense, a file may grow while it is read), so the
 * loop reads to the end and enforces the limit itself. */
sinew_result sinew_file_read(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id,
                             uint8_t **bytes, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1u << 16;
    long hint = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (hint >= 0 && (uint64_t)hint < max_bytes)
        cap = (size_t)hint + 1; /* one spare byte, so reaching the end needs no regrowth */
    rewind(f);
    uint8_t *buf = malloc(cap);
    size_t len = 0;
    sinew_result r = SINEW_RESULT_OK;
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break; /* end of file or an error, told apart below */
        if (cap > max_bytes) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id, "%s: larger than the reader's limit of %zu bytes", path,
                           max_bytes);
            break;
        }
        cap = cap > max_bytes / 2 ? max_bytes + 1 : 2 * cap;
        uint8_t *grown = realloc(buf, cap);
        if (!grown)
            free(buf);
        buf = grown;
    }
    int err = errno;
    if (r == SINEW_RESULT_OK && !buf)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory for %zu bytes", path, cap);
    if (r == SINEW_RESULT_OK && ferror(f))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot read: %s", path, strerror(err));
    fclose(f);
    if (r != SINEW_RESULT_OK) {
        free(buf);
        return r;
    }
    *bytes = buf;
    *size = len;
    return SINEW_RESULT_OK;
}

/* rename over an existing file: atomic on POSIX, refused by Windows' C
 * library, where MoveFileEx does it (and errno stands for its error). */
static int replace_file(const char *from, const char *to)
{
#if defined(_WIN32)
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        return 0;
    DWORD e = GetLastError();
    errno = e == ERROR_ACCESS_DENIED || e == ERROR_SHARING_VIOLATION ? EACCES : EIO;
    return -1;
#else
    return rename(from, to);
#endif
}

sinew_result sinew_file_write_replace(const char *path, const void *bytes, size_t size, const sinew_logger *lg,
                                      const char *id)
{
    size_t path_len = strlen(path);
    char *tmp = malloc(path_len + sizeof ".tmp");
    if (!tmp)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory", path);
    memcpy(tmp, path, path_len);
    memcpy(tmp + path_len, ".tmp", sizeof ".tmp");
    sinew_result r = SINEW_RESULT_OK;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return r;
    }
    int ok = fwrite(bytes, 1, size, f) == size;
    int err = errno;
    /* fclose flushes, so a full disk may only show here. */
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        remove(tmp);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot write: %s", tmp, strerror(err));
    } else if (replace_file(tmp, path) != 0) {
        err = errno;
        remove(tmp);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot replace with %s: %s", path, tmp, strerror(err));
    }
    free(tmp);
    return r;
}
