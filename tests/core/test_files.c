/* test_files.c: atomic output files, folder creation, image-list expansion and
 * the progress bar's silence off a terminal. */
#include <stdlib.h>
#include <unistd.h>

#include "core/core.h"
#include "tests/harness.h"

TEST(test_atomic_file_appears_only_on_commit)
{
    icv_atomic_file af;
    icv_err err = {0};
    const char *path = th_tmp("out.json");
    char target[1024];
    snprintf(target, sizeof target, "%s", path);
    ASSERT(icv_atomic_open(&af, target, &err) == 0, "%s", err.msg);
    fputs("{\"a\": 1}\n", af.fp);
    ASSERT(access(target, F_OK) != 0, "the target exists before commit");
    ASSERT(icv_atomic_commit(&af, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(th_read_file(target), "{\"a\": 1}");
}

TEST(test_atomic_abort_keeps_the_previous_file)
{
    icv_atomic_file af;
    icv_err err = {0};
    char target[1024], tmpname[4096];
    snprintf(target, sizeof target, "%s", th_tmp("results.json"));
    ASSERT_EQ_INT(icv_atomic_write(target, "old", 3, &err), 0);
    ASSERT(icv_atomic_open(&af, target, &err) == 0, "%s", err.msg);
    fputs("partial", af.fp);
    snprintf(tmpname, sizeof tmpname, "%s", af.tmp);
    icv_atomic_abort(&af);
    ASSERT_STR_CONTAINS(th_read_file(target), "old");
    ASSERT(access(tmpname, F_OK) != 0, "temporary file left behind: %s", tmpname);
}

TEST(test_atomic_open_in_missing_folder_fails_with_path)
{
    icv_atomic_file af;
    icv_err err = {0};
    ASSERT(icv_atomic_open(&af, "/nonexistent-dir/out.csv", &err) == ICV_EIO, "rc");
    ASSERT_STR_CONTAINS(err.msg, "/nonexistent-dir/out.csv");
}

TEST(test_mkdirs_and_paths_expand_sorted)
{
    icv_err err = {0};
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/a/b/c", th_tmpdir());
    ASSERT(icv_mkdirs(dir, &err) == 0, "%s", err.msg);
    ASSERT(icv_mkdirs(dir, &err) == 0, "second mkdirs: %s", err.msg);
    const char *names[] = {"img10.png", "img02.png", "img01.png", "notes.txt"};
    for (int i = 0; i < 4; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        ASSERT_EQ_INT(th_write_file(p, "x"), 0);
    }
    char pat[1100];
    snprintf(pat, sizeof pat, "%s/img*.png", dir);
    char **paths;
    size_t n;
    ASSERT(icv_paths_expand(pat, &paths, &n, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(n, 3);
    int sorted = strstr(paths[0], "img01") && strstr(paths[1], "img02") && strstr(paths[2], "img10");
    icv_paths_free(paths, n);
    ASSERT(sorted, "not sorted by name");
    ASSERT(icv_paths_expand(dir, &paths, &n, &err) == 0, "%s", err.msg); /* a folder: every file */
    icv_paths_free(paths, n);
    ASSERT_EQ_INT(n, 4);
    snprintf(pat, sizeof pat, "%s/*.jpg", dir);
    ASSERT(icv_paths_expand(pat, &paths, &n, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(n, 0);
}

TEST(test_progress_bar_is_silent_in_ci)
{
    /* The runner's stderr may be a terminal; with CI set the bar must not draw. */
    const char *old = getenv("CI");
    setenv("CI", "true", 1);
    ASSERT_EQ_INT(icv_progress_enabled(), 0);
    icv_progress p;
    icv_progress_begin(&p, "test", 10);
    ASSERT_EQ_INT(p.active, 0);
    icv_progress_end(&p);
    if (old)
        setenv("CI", old, 1);
    else
        unsetenv("CI");
}

static int captured;
static char captured_line[256];
static void sink(icv_log_level level, const char *line, void *user)
{
    (void)user;
    captured = (int)level + 1;
    snprintf(captured_line, sizeof captured_line, "%s", line);
}

TEST(test_log_level_filters_messages)
{
    icv_log_set_sink(sink, NULL);
    icv_log_set_level(ICV_LOG_WARN);
    captured = 0;
    icv_info("hidden %d", 1);
    int after_info = captured;
    icv_warn("shown %d", 2);
    icv_log_set_sink(NULL, NULL);
    icv_log_set_level(ICV_LOG_INFO);
    ASSERT_EQ_INT(after_info, 0);
    ASSERT_EQ_INT(captured, ICV_LOG_WARN + 1);
    ASSERT_STR_CONTAINS(captured_line, "shown 2");
}
