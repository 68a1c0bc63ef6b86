/* Whole-file reading and atomic replacement, shared by assets and checkpoints. */
#ifndef SINEW_CORE_FILE_H
#define SINEW_CORE_FILE_H

#include <sinew/core.h>

/* Reads the whole file into *bytes (malloc'd; free it), refusing files larger
 * than max_bytes with ERROR_LIMIT. id tags the messages ("asset", ...). */
sinew_result sinew_file_read(const char *path, size_t max_bytes, const sinew_logger *lg, const char *id,
                             uint8_t **bytes, size_t *size);

/* Writes path.tmp and renames it over path, so no reader ever sees half a file
 * and a failed write leaves whatever was at path untouched. */
sinew_result sinew_file_write_replace(const char *path, const void *bytes, size_t size, const sinew_logger *lg,
                                      const char *id);

#endif
