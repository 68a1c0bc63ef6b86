/* The one place that reads inputs and writes outputs (core/file.h), on every
 * kind of path: a regular file, a symbolic link to one, a dangling link, a
 * character device (made with mknod where the tests run as root), a FIFO, a
 * folder. Outputs replace a regular file atomically, write through a link to
 * its target and refuse the rest, changing nothing; inputs are regular files,
 * and a FIFO is refused without waiting for a writer; a file longer than its
 * header declares is refused on its size. */
#define _XOPEN_SOURCE 700 /* mknod */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/file.h"

#define OUT SINEW_TEST_OUT_DIR "/files"

static char messages[4096];

static void capture(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    (void)level;
    size_t len = strlen(messages);
    snprintf(messages + len, sizeof messages - len, "[%s] %s\n", id, message);
}

static const sinew_logger lg = {capture, NULL, SINEW_LOG_INFO};

static void fresh_dir(void)
{
    messages[0] = '\0';
    cr_assert(system("rm -rf '" OUT "' && mkdir -p '" OUT "'") == 0);
}

TestSuite(files, .init = fresh_dir, .timeout = 10);

static void put_bytes(const char *path, const char *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(bytes, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

static void put(const char *path, const char *text) { put_bytes(path, text, strlen(text)); }

static void assert_holds(const char *path, const char *text)
{
    char buf[256] = {0};
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    cr_assert_eq(n, strlen(text), "%s holds %zu bytes, not %zu", path, n, strlen(text));
    cr_assert_str_eq(buf, text, "%s", path);
}

static mode_t kind_of(const char *path)
{
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mode & S_IFMT;
}

static void assert_absent(const char *path)
{
    struct stat st;
    cr_assert_neq(lstat(path, &st), 0, "%s is there", path);
}

static void assert_said(const char *needle)
{
    cr_assert(strstr(messages, needle), "no \"%s\" in:\n%s", needle, messages);
}

static sinew_result replace(const char *path)
{
    return sinew_file_write_replace(path, "new", 3, &lg, "out");
}

/* ---------------------------------------------------------------- outputs */

Test(files, output_replaces_a_regular_file_and_leaves_no_temporary)
{
    put(OUT "/a.snw", "old contents");
    cr_assert_eq(replace(OUT "/a.snw"), SINEW_RESULT_OK, "%s", messages);
    assert_holds(OUT "/a.snw", "new");
    assert_absent(OUT "/a.snw.tmp");
}

Test(files, output_writes_through_a_link_to_its_target)
{
    put(OUT "/target.snw", "old");
    cr_assert_eq(symlink("target.snw", OUT "/link.snw"), 0);
    cr_assert_eq(replace(OUT "/link.snw"), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(kind_of(OUT "/link.snw"), S_IFLNK, "the link was replaced by a file");
    assert_holds(OUT "/target.snw", "new");
    assert_absent(OUT "/target.snw.tmp");
    assert_absent(OUT "/link.snw.tmp");
}

Test(files, output_through_a_chain_of_links_into_another_folder)
{
    cr_assert_eq(mkdir(OUT "/sub", 0777), 0);
    put(OUT "/sub/target.snw", "old");
    cr_assert_eq(symlink("sub/target.snw", OUT "/one"), 0);
    cr_assert_eq(symlink("one", OUT "/two"), 0);
    cr_assert_eq(replace(OUT "/two"), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(kind_of(OUT "/one"), S_IFLNK);
    cr_assert_eq(kind_of(OUT "/two"), S_IFLNK);
    assert_holds(OUT "/sub/target.snw", "new");
}

Test(files, output_through_a_dangling_link_makes_its_target)
{
    cr_assert_eq(symlink("made.snw", OUT "/dangling.snw"), 0);
    cr_assert_eq(replace(OUT "/dangling.snw"), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(kind_of(OUT "/dangling.snw"), S_IFLNK);
    assert_holds(OUT "/made.snw", "new");
}

Test(files, output_refuses_a_character_device)
{
    if (geteuid() != 0)
        cr_skip_test("mknod needs root: the character device case runs only as root");
    cr_assert_eq(mknod(OUT "/null", S_IFCHR | 0666, makedev(1, 3)), 0, "mknod: %s", strerror(errno));
    cr_assert_eq(replace(OUT "/null"), SINEW_RESULT_ERROR_IO);
    cr_assert_eq(kind_of(OUT "/null"), S_IFCHR, "the device was replaced");
    assert_said("null: is a character device, not a file; nothing was written");
    assert_absent(OUT "/null.tmp");
    FILE *f = (FILE *)1;
    cr_assert_eq(sinew_file_open_output(OUT "/null", &lg, "out", &f), SINEW_RESULT_ERROR_IO);
    cr_assert_null(f);
}

Test(files, output_refuses_a_link_to_a_device)
{
    cr_assert_eq(symlink("/dev/null", OUT "/to-null"), 0);
    cr_assert_eq(replace(OUT "/to-null"), SINEW_RESULT_ERROR_IO);
    cr_assert_eq(kind_of(OUT "/to-null"), S_IFLNK);
    assert_said("to-null, a link to /dev/null: is a character device, not a file; nothing was written");
    cr_assert_eq(kind_of("/dev/null"), S_IFCHR);
}

Test(files, output_refuses_a_fifo_without_waiting)
{
    cr_assert_eq(mkfifo(OUT "/fifo", 0666), 0);
    cr_assert_eq(replace(OUT "/fifo"), SINEW_RESULT_ERROR_IO);
    cr_assert_eq(sinew_file_check_output(OUT "/fifo", &lg, "out"), SINEW_RESULT_ERROR_IO);
    FILE *f = NULL;
    cr_assert_eq(sinew_file_open_output(OUT "/fifo", &lg, "out", &f), SINEW_RESULT_ERROR_IO);
    cr_assert_eq(kind_of(OUT "/fifo"), S_IFIFO);
    assert_said("fifo: is a FIFO (named pipe), not a file; nothing was written");
    assert_absent(OUT "/fifo.tmp");
}

Test(files, output_refuses_a_folder)
{
    cr_assert_eq(mkdir(OUT "/folder", 0777), 0);
    cr_assert_eq(replace(OUT "/folder"), SINEW_RESULT_ERROR_IO);
    cr_assert_eq(kind_of(OUT "/folder"), S_IFDIR);
    assert_said("folder: is a folder, not a file; nothing was written");
}

Test(files, output_never_writes_through_a_link_at_the_temporary_name)
{
    put(OUT "/victim", "untouched");
    put(OUT "/a.snw", "old");
    cr_assert_eq(symlink("victim", OUT "/a.snw.tmp"), 0);
    cr_assert_eq(replace(OUT "/a.snw"), SINEW_RESULT_ERROR_IO);
    assert_holds(OUT "/victim", "untouched");
    assert_holds(OUT "/a.snw", "old");
    cr_assert_eq(kind_of(OUT "/a.snw.tmp"), S_IFLNK);
    assert_said("a.snw.tmp: cannot create: something other than a file is there");
}

Test(files, output_replaces_a_leftover_temporary_file)
{
    put(OUT "/a.snw.tmp", "left by an interrupted write");
    cr_assert_eq(replace(OUT "/a.snw"), SINEW_RESULT_OK, "%s", messages);
    assert_holds(OUT "/a.snw", "new");
    assert_absent(OUT "/a.snw.tmp");
}

Test(files, streamed_output_writes_through_a_link)
{
    put(OUT "/log.csv", "old");
    cr_assert_eq(symlink("log.csv", OUT "/link.csv"), 0);
    FILE *f = NULL;
    cr_assert_eq(sinew_file_open_output(OUT "/link.csv", &lg, "out", &f), SINEW_RESULT_OK, "%s", messages);
    fputs("a,b", f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(kind_of(OUT "/link.csv"), S_IFLNK);
    assert_holds(OUT "/log.csv", "a,b");
}

Test(files, check_output_names_a_missing_folder_and_creates_nothing)
{
    cr_assert_eq(sinew_file_check_output(OUT "/no/such/out.json", &lg, "--json"), SINEW_RESULT_ERROR_IO);
    assert_said("[--json] " OUT "/no/such/out.json: cannot create: No such file or directory");
    cr_assert_eq(sinew_file_check_output(OUT "/fine.json", &lg, "--json"), SINEW_RESULT_OK, "%s", messages);
    assert_absent(OUT "/fine.json");
}

/* ---------------------------------------------------------------- inputs */

static sinew_result read_file(const char *path)
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    sinew_result r = sinew_file_read(path, 1 << 20, &lg, "in", &bytes, &size);
    free(bytes);
    return r;
}

Test(files, input_reads_a_file_and_a_link_to_one)
{
    put(OUT "/in.txt", "text");
    cr_assert_eq(symlink("in.txt", OUT "/link.txt"), 0);
    cr_assert_eq(read_file(OUT "/in.txt"), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(read_file(OUT "/link.txt"), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(sinew_file_check_input(OUT "/link.txt", &lg, "in"), SINEW_RESULT_OK, "%s", messages);
}

/* Opening a FIFO to read waits for a writer: without the check first this
 * test would hang (the suite's timeout fails it). */
Test(files, input_refuses_a_fifo_without_waiting)
{
    cr_assert_eq(mkfifo(OUT "/fifo", 0666), 0);
    cr_assert_eq(read_file(OUT "/fifo"), SINEW_RESULT_ERROR_IO);
    assert_said("fifo: is a FIFO (named pipe), not a file; nothing was read");
    cr_assert_eq(sinew_file_check_input(OUT "/fifo", &lg, "in"), SINEW_RESULT_ERROR_IO);
}

Test(files, input_refuses_a_folder_and_a_device)
{
    cr_assert_eq(read_file(OUT), SINEW_RESULT_ERROR_IO);
    assert_said("is a folder, not a file; nothing was read");
    cr_assert_eq(read_file("/dev/null"), SINEW_RESULT_ERROR_IO);
    assert_said("/dev/null: is a character device, not a file; nothing was read");
}

Test(files, input_past_the_limit_is_refused_on_its_size)
{
    int fd = open(OUT "/sparse", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, (off_t)1 << 30), 0); /* 1 GiB, sparse */
    close(fd);
    cr_assert_eq(read_file(OUT "/sparse"), SINEW_RESULT_ERROR_LIMIT);
    assert_said("sparse: 1073741824 bytes, larger than the reader's limit of 1048576 bytes; nothing was read");
}

/* A format whose 8-byte header declares its size: "SIZE" and a u32. */
static uint64_t declared(const uint8_t *h)
{
    return memcmp(h, "SIZE", 4) == 0 ? (uint64_t)h[4] | (uint64_t)h[5] << 8 | (uint64_t)h[6] << 16 : 0;
}

static sinew_result read_declared(const char *path, size_t *size)
{
    uint8_t *bytes = NULL;
    sinew_result r = sinew_file_read_declared(path, 8, declared, (size_t)1 << 31, SINEW_RESULT_ERROR_BAD_ASSET, &lg,
                                              "in", &bytes, size);
    free(bytes);
    return r;
}

/* A valid header on a 1 GiB sparse file: refused on the two sizes, where
 * the whole gigabyte used to be read first. */
Test(files, input_longer_than_its_header_declares_is_refused_on_its_size)
{
    put_bytes(OUT "/big", "SIZE\x10\0\0\0" "12345678", 16);
    size_t size = 0;
    cr_assert_eq(read_declared(OUT "/big", &size), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(size, 16);
    cr_assert_eq(truncate(OUT "/big", (off_t)1 << 30), 0);
    cr_assert_eq(read_declared(OUT "/big", &size), SINEW_RESULT_ERROR_BAD_ASSET);
    assert_said("big: 1073741824 bytes, more than the 16 its header declares (trailing bytes?); only the header was "
                "read");
}

Test(files, input_shorter_than_its_header_declares_is_read_for_the_reader)
{
    put_bytes(OUT "/short", "SIZE\x40\0\0\0" "1234", 12);
    size_t size = 0;
    cr_assert_eq(read_declared(OUT "/short", &size), SINEW_RESULT_OK, "%s", messages);
    cr_assert_eq(size, 12);
}
