/* Whole-file reading and atomic replacement. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "file.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

#if defined(_WIN32) && !defined(S_ISCHR)
#define S_ISCHR(m) (((m) & _S_IFMT) == _S_IFCHR)
#endif
#if defined(_WIN32) && !defined(S_ISDIR)
#define S_ISDIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#endif

/* Opens path to read: a regular file (*size_hint its size) or a stream such
 * as a pipe (*size_hint -1). A folder or a device (/dev/zero, a disk) is
 * refused before any read: its length means nothing, or is endless; so is a
 * regular file past max_bytes. */
static sinew_result open_file(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id, FILE **out,
                              long long *size_hint)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    const char *kind = NULL;
    *size_hint = -1;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            kind = "a folder";
        else if (S_ISCHR(st.st_mode))
            kind = "a character device";
#ifdef S_ISBLK
        else if (S_ISBLK(st.st_mode))
            kind = "a block device";
#endif
#ifdef S_ISREG
        else if (S_ISREG(st.st_mode))
            *size_hint = (long long)st.st_size;
#endif
    }
    sinew_result r = SINEW_RESULT_OK;
    if (kind)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: is %s, not a file; nothing was read", path, kind);
    else if (*size_hint >= 0 && (unsigned long long)*size_hint > max_bytes)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id, "%s: %lld bytes, larger than the reader's limit of %zu bytes",
                       path, *size_hint, max_bytes);
    if (r != SINEW_RESULT_OK) {
        fclose(f);
        return r;
    }
    *out = f;
    return SINEW_RESULT_OK;
}

/* Reads f from where it is, after the `len` bytes already in buf (of `cap`),
 * to its end, or past `limit` bytes in all: ERROR_LIMIT then. The size a
 * regular file had is only a first guess for the buffer (a file may grow while
 * it is read; pipes have none), so the loop reads to the end and enforces the
 * limit itself. */
static sinew_result read_rest(FILE *f, const char *path, size_t limit, const sinew_logger *lg, const char *id,
                              uint8_t *buf, size_t len, size_t cap, uint8_t **bytes, size_t *size)
{
    sinew_result r = SINEW_RESULT_OK;
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break; /* end of file or an error, told apart below */
        if (cap > limit) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id, "%s: larger than the reader's limit of %zu bytes", path,
                           limit);
            break;
        }
        cap = cap > limit / 2 ? limit + 1 : 2 * cap;
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

sinew_result sinew_file_read(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id,
                             uint8_t **bytes, size_t *size)
{
    FILE *f = NULL;
    long long hint;
    sinew_result r = open_file(path, max_bytes, lg, id, &f, &hint);
    if (r != SINEW_RESULT_OK)
        return r;
    /* One spare byte, so reaching the end needs no regrowth. */
    size_t cap = hint >= 0 ? (size_t)hint + 1 : (size_t)1 << 16;
    return read_rest(f, path, max_bytes, lg, id, malloc(cap), 0, cap, bytes, size);
}

sinew_result sinew_file_read_declared(const char *path, size_t header_size, sinew_file_declared_fn declared,
                                      size_t max_bytes, const sinew_logger *lg, const char *id, uint8_t **bytes,
                                      size_t *size)
{
    FILE *f = NULL;
    long long hint;
    sinew_result r = open_file(path, max_bytes, lg, id, &f, &hint);
    if (r != SINEW_RESULT_OK)
        return r;
    uint8_t *buf = malloc(header_size + 1);
    size_t len = buf ? fread(buf, 1, header_size, f) : 0;
    const uint64_t total = buf && len == header_size ? declared(buf) : 0;
    /* A regular file is read to its end (its size is known and within the
     * limit), so the format's messages can give its true size; a stream up
     * to one byte past the size its header declares, so trailing bytes show;
     * nothing more where the header says nothing (too short, another
     * format): the format's reader refuses what it got. */
    size_t limit = len;
    if (!buf)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory", path);
    else if (total > max_bytes && hint < 0)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id,
                       "%s: its header declares %llu bytes, more than the reader's limit of %zu bytes", path,
                       (unsigned long long)total, max_bytes);
    else if (total >= header_size)
        limit = hint >= 0 ? (size_t)hint : (size_t)total + 1;
    if (limit > len && r == SINEW_RESULT_OK) {
        uint8_t *grown = realloc(buf, limit + 1);
        if (grown) {
            buf = grown;
            len += fread(buf + len, 1, limit - len, f);
        } else {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory for %zu bytes", path, limit);
        }
    }
    if (r == SINEW_RESULT_OK && ferror(f))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot read: %s", path, strerror(errno));
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
