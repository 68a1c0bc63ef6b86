/* Whole-file reading and atomic replacement, shared by assets, checkpoints,
 * meshes and the tools' outputs: the one place that decides what a path may
 * be read from or written to. */
#ifndef SINEW_CORE_FILE_H
#define SINEW_CORE_FILE_H

#include <sinew/core.h>

#include <stdio.h>

/* Reads the whole file into *bytes (malloc'd; free it). Only a regular file is
 * read: a folder, a device (/dev/zero), a FIFO or a socket is refused with
 * ERROR_IO, naming what it is, before it is opened (a FIFO's open would wait
 * for a writer); a file larger than max_bytes with ERROR_LIMIT, on its size,
 * before any read. id tags the messages ("asset", ...). */
sinew_result sinew_file_read(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id,
                             uint8_t **bytes, size_t *size);

/* How long a file says it is, from its first header_size bytes: its total
 * size in bytes, or 0 when the header does not say (another format). */
typedef uint64_t (*sinew_file_declared_fn)(const uint8_t *header);

/* Reads a file of a format whose header declares its size: the header first,
 * then the rest. A header that declares nothing ends the read there (the
 * format's reader then refuses what it got); a file longer than its header
 * declares is refused with `malformed` (the format's own result) having read
 * only the header. Everything sinew_file_read refuses is refused as there. */
sinew_result sinew_file_read_declared(const char *path, size_t header_size, sinew_file_declared_fn declared,
                                      size_t max_bytes, sinew_result malformed, const sinew_logger *lg,
                                      const char *id, uint8_t **bytes, size_t *size);

/* Whether path can be read as an input, checked by opening it (nothing is
 * read): what sinew_file_read refuses but for the size, ERROR_IO naming what
 * is wrong. For tools that check every input before they start. */
sinew_result sinew_file_check_input(const char *path, const sinew_logger *lg, const char *id);

/* Whether path can take an output, without creating or opening anything: yes
 * when nothing is there yet or a regular file, or a symbolic link (dangling
 * or not) that ends at either, which outputs are written through, and the
 * file system lets the file be made or replaced there; ERROR_IO naming what
 * is wrong otherwise. A folder, a device, a FIFO or a socket is refused: no
 * output replaces one or writes into it. */
sinew_result sinew_file_check_output(const char *path, const sinew_logger *lg, const char *id);

/* Opens path to write from its start ("wb"), for an output written as it goes
 * (a log, a mesh): what sinew_file_check_output refuses is refused, and a
 * symbolic link is written through to the file it names. */
sinew_result sinew_file_open_output(const char *path, const sinew_logger *lg, const char *id, FILE **out);

/* Writes a whole output atomically: the bytes go to a new file beside the one
 * path names (beside a symbolic link's target, so the link stays a link),
 * TARGET.tmp, which is then renamed over it, so no reader ever sees half a
 * file and a failed write leaves whatever was there untouched. What
 * sinew_file_check_output refuses is refused; a regular file left at
 * TARGET.tmp by an interrupted write is replaced, anything else there
 * refused (never written through). */
sinew_result sinew_file_write_replace(const char *path, const void *bytes, size_t size, const sinew_logger *lg,
                                      const char *id);

#endif
