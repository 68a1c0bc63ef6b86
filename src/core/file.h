/* Whole-file reading and atomic replacement, shared by assets and checkpoints. */
#ifndef SINEW_CORE_FILE_H
#define SINEW_CORE_FILE_H

#include <sinew/core.h>

/* Reads the whole file into *bytes (malloc'd; free it), refusing files larger
 * than max_bytes with ERROR_LIMIT (a regular file before reading it), and a
 * folder or a device (/dev/zero) with ERROR_IO before any read. id tags the
 * messages ("asset", ...). */
sinew_result sinew_file_read(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id,
                             uint8_t **bytes, size_t *size);

/* How long a file says it is, from its first header_size bytes: its total
 * size in bytes, or 0 when the header does not say (another format). */
typedef uint64_t (*sinew_file_declared_fn)(const uint8_t *header);

/* Reads a file of a format whose header declares its size: the header first,
 * then, for a stream, no more than one byte past the size it declares; for a
 * regular file, to its end. A header that declares nothing ends the read
 * there: the format's reader then refuses what it got. Folders, devices and
 * regular files past max_bytes are refused before any read, as by
 * sinew_file_read. */
sinew_result sinew_file_read_declared(const char *path, size_t header_size, sinew_file_declared_fn declared,
                                      size_t max_bytes, const sinew_logger *lg, const char *id, uint8_t **bytes,
                                      size_t *size);

/* Writes path.tmp and renames it over path, so no reader ever sees half a file
 * and a failed write leaves whatever was at path untouched. */
sinew_result sinew_file_write_replace(const char *path, const void *bytes, size_t size, const sinew_logger *lg,
                                      const char *id);

#endif
