/* Whole-file reading and atomic replacement: the one place where sinew and
 * its tools decide what may be read from or written to a path. Inputs are
 * regular files, their size checked before any read; outputs are regular
 * files, and a symbolic link is written through to its target. */
#define _POSIX_C_SOURCE 200809L /* lstat, readlink, fdopen */
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
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#if defined(_WIN32) && !defined(S_ISCHR)
#define S_ISCHR(m) (((m) & _S_IFMT) == _S_IFCHR)
#endif
#if defined(_WIN32) && !defined(S_ISDIR)
#define S_ISDIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#endif
#if defined(_WIN32) && !defined(S_ISREG)
#define S_ISREG(m) (((m) & _S_IFMT) == _S_IFREG)
#endif

/* What st is when it is not a regular file, for messages ("a folder"); NULL
 * for a regular file. A folder, device, FIFO or socket has no length that
 * means anything (or an endless one), and opening a FIFO waits for its other
 * end: sinew reads and writes none of them. */
static const char *not_a_file(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return NULL;
    if (S_ISDIR(st->st_mode))
        return "a folder";
    if (S_ISCHR(st->st_mode))
        return "a character device";
#ifdef S_ISBLK
    if (S_ISBLK(st->st_mode))
        return "a block device";
#endif
#ifdef S_ISFIFO
    if (S_ISFIFO(st->st_mode))
        return "a FIFO (named pipe)";
#endif
#ifdef S_ISSOCK
    if (S_ISSOCK(st->st_mode))
        return "a socket";
#endif
    return "not a regular file";
}

/* ------------------------------------------------------------------ reading */

/* Opens path to read after checking, without opening it, that it is a
 * regular file of at most max_bytes (*size: its size). */
static sinew_result open_file(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id, FILE **out,
                              size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot open: %s", path, strerror(errno));
    const char *kind = not_a_file(&st);
    if (kind)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: is %s, not a file; nothing was read", path, kind);
    if ((unsigned long long)st.st_size > max_bytes)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id,
                          "%s: %lld bytes, larger than the reader's limit of %zu bytes; nothing was read", path,
                          (long long)st.st_size, max_bytes);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot open: %s", path, strerror(errno));
    *out = f;
    *size = (size_t)st.st_size;
    return SINEW_RESULT_OK;
}

/* Reads f from where it is, after the `len` bytes already in buf (of `cap`),
 * to its end, or past `limit` bytes in all: ERROR_LIMIT then. The size the
 * file had is only a first guess for the buffer (a file may grow while it is
 * read), so the loop reads to the end and enforces the limit itself. Closes
 * f; frees buf on failure. */
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
    size_t file_size = 0;
    sinew_result r = open_file(path, max_bytes, lg, id, &f, &file_size);
    if (r != SINEW_RESULT_OK)
        return r;
    /* One spare byte, so reaching the end needs no regrowth. */
    return read_rest(f, path, max_bytes, lg, id, malloc(file_size + 1), 0, file_size + 1, bytes, size);
}

sinew_result sinew_file_read_declared(const char *path, size_t header_size, sinew_file_declared_fn declared,
                                      size_t max_bytes, sinew_result malformed, const sinew_logger *lg,
                                      const char *id, uint8_t **bytes, size_t *size)
{
    FILE *f = NULL;
    size_t file_size = 0;
    sinew_result r = open_file(path, max_bytes, lg, id, &f, &file_size);
    if (r != SINEW_RESULT_OK)
        return r;
    uint8_t *buf = malloc(header_size + 1);
    size_t len = buf ? fread(buf, 1, header_size, f) : 0;
    const uint64_t total = buf && len == header_size ? declared(buf) : 0;
    /* A header that declares nothing (too short, another format) ends the
     * read: the format's reader refuses what it got. A file longer than its
     * header declares is refused on the two sizes: a valid header on a large
     * file (a sparse one, a disk image) would otherwise be read whole for
     * nothing. A shorter one is read, for the reader to say what is missing. */
    const int declares = total >= header_size;
    const size_t cap = (file_size > len ? file_size : len) + 1;
    if (!buf) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory", path);
    } else if (declares && file_size > total) {
        r = sinew_fail(lg, malformed, id,
                       "%s: %zu bytes, more than the %llu its header declares (trailing bytes?); only the header "
                       "was read",
                       path, file_size, (unsigned long long)total);
    } else if (declares) {
        uint8_t *grown = realloc(buf, cap);
        if (grown)
            return read_rest(f, path, max_bytes, lg, id, grown, len, cap, bytes, size);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory for %zu bytes", path, cap);
    }
    fclose(f);
    if (r != SINEW_RESULT_OK) {
        free(buf);
        return r;
    }
    *bytes = buf;
    *size = len;
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------------ writing */

#if !defined(_WIN32)
/* link's target, a path relative to the link's folder made relative to
 * where link is named from; malloc'd, NULL with errno set on failure. */
static char *link_target(const char *link)
{
    char to[4096];
    ssize_t n = readlink(link, to, sizeof to);
    if (n < 0)
        return NULL;
    if ((size_t)n == sizeof to) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    const char *slash = strrchr(link, '/');
    const size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - link) + 1;
    char *out = malloc(dir + (size_t)n + 1);
    if (!out)
        return NULL;
    memcpy(out, link, dir);
    memcpy(out + dir, to, (size_t)n);
    out[dir + (size_t)n] = '\0';
    return out;
}
#endif

/* The file path leads to, following symbolic links (a dangling one to the
 * file it would create), malloc'd; NULL with errno set on failure (ELOOP
 * past 40 links, as the kernel). */
static char *follow_links(const char *path)
{
    const size_t n = strlen(path) + 1;
    char *at = malloc(n);
    if (at)
        memcpy(at, path, n);
#if !defined(_WIN32)
    struct stat st;
    for (int hops = 0; at && lstat(at, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        char *next = hops < 40 ? link_target(at) : (errno = ELOOP, NULL);
        free(at);
        at = next;
    }
#endif
    return at;
}

/* Where an output named path goes (*target, malloc'd: path itself, or where
 * its symbolic links end): refused unless nothing is there yet or a regular
 * file. */
static sinew_result output_target(const char *path, const sinew_logger *lg, const char *id, char **target)
{
    *target = follow_links(path);
    if (!*target)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot follow its links: %s", path, strerror(errno));
    struct stat st;
    const char *kind = stat(*target, &st) == 0 ? not_a_file(&st) : NULL;
    if (!kind)
        return SINEW_RESULT_OK;
    const int linked = strcmp(path, *target) != 0;
    sinew_result r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s%s%s: is %s, not a file; nothing was written", path,
                                linked ? ", a link to " : "", linked ? *target : "", kind);
    free(*target);
    *target = NULL;
    return r;
}

/* Whether a file can be made at target or replace the one there: its
 * folder takes new files (a temporary one) and, where the file exists, it
 * can be written; 0 with errno set if not. Asked of the file system
 * (access), so nothing is created. */
static int can_write(const char *target, int exists)
{
#if defined(_WIN32)
    (void)target;
    (void)exists;
    return 1;
#else
    if (exists && access(target, W_OK) != 0)
        return 0;
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target)) : NULL;
    if (slash && !dir)
        return 0;
    int ok = access(dir ? dir : ".", W_OK | X_OK) == 0;
    free(dir);
    return ok;
#endif
}

sinew_result sinew_file_check_output(const char *path, const sinew_logger *lg, const char *id)
{
    char *target;
    sinew_result r = output_target(path, lg, id, &target);
    if (r != SINEW_RESULT_OK)
        return r;
    struct stat st;
    const int exists = stat(target, &st) == 0;
    if (!can_write(target, exists))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot %s: %s", path, exists ? "write" : "create",
                       strerror(errno));
    free(target);
    return r;
}

sinew_result sinew_file_check_input(const char *path, const sinew_logger *lg, const char *id)
{
    FILE *f = NULL;
    size_t size = 0;
    sinew_result r = open_file(path, SIZE_MAX, lg, id, &f, &size);
    if (f)
        fclose(f);
    return r;
}

sinew_result sinew_file_open_output(const char *path, const sinew_logger *lg, const char *id, FILE **out)
{
    *out = NULL;
    char *target;
    sinew_result r = output_target(path, lg, id, &target);
    if (r != SINEW_RESULT_OK)
        return r;
    *out = fopen(target, "wb");
    if (!*out)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot create: %s", path, strerror(errno));
    free(target);
    return r;
}

/* A new file at tmp, to write. One already there is never written through:
 * a regular file (what an interrupted write leaves) is removed first, and
 * anything else refused (EEXIST). */
static FILE *create_temporary(const char *tmp)
{
#if defined(_WIN32)
    return fopen(tmp, "wb");
#else
    for (int tries = 0; tries < 2; tries++) {
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            FILE *f = fdopen(fd, "wb");
            if (!f)
                close(fd);
            return f;
        }
        struct stat st;
        if (errno != EEXIST || lstat(tmp, &st) != 0)
            return NULL;
        if (!S_ISREG(st.st_mode) || unlink(tmp) != 0) {
            errno = EEXIST;
            return NULL;
        }
    }
    errno = EEXIST;
    return NULL;
#endif
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

/* Writes bytes to tmp (created anew) and renames it over target. */
static sinew_result write_and_rename(const char *target, const char *tmp, const void *bytes, size_t size,
                                     const sinew_logger *lg, const char *id)
{
    FILE *f = create_temporary(tmp);
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot create: %s", tmp,
                          errno == EEXIST ? "something other than a file is there" : strerror(errno));
    int ok = fwrite(bytes, 1, size, f) == size;
    int err = errno;
    /* fclose flushes, so a full disk may only show here. */
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        remove(tmp);
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot write: %s", tmp, strerror(err));
    }
    if (replace_file(tmp, target) != 0) {
        err = errno;
        remove(tmp);
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, id, "%s: cannot replace with %s: %s", target, tmp,
                          strerror(err));
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_file_write_replace(const char *path, const void *bytes, size_t size, const sinew_logger *lg,
                                      const char *id)
{
    char *target;
    sinew_result r = output_target(path, lg, id, &target);
    if (r != SINEW_RESULT_OK)
        return r;
    /* Beside the target, so the rename stays on its file system and a link
     * stays a link. */
    const size_t len = strlen(target);
    char *tmp = malloc(len + sizeof ".tmp");
    if (tmp) {
        memcpy(tmp, target, len);
        memcpy(tmp + len, ".tmp", sizeof ".tmp");
        r = write_and_rename(target, tmp, bytes, size, lg, id);
    } else {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, id, "%s: no memory", path);
    }
    free(tmp);
    free(target);
    return r;
}
