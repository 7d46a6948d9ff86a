/* test_atomic_dir.c: output folders that appear whole (core/atomic_dir.c): a working
 * folder beside DIR starting as DIR was (its files linked), swapped into place, or
 * removed leaving DIR as it was. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "tests/harness.h"

TEST(test_workdir_swapped_into_place_keeps_what_dir_held)
{
    const char *d = th_tmpdir();
    char dir[1024], path[1200], work[4096];
    icv_err err = {0};
    snprintf(dir, sizeof dir, "%s/out", d);
    snprintf(path, sizeof path, "%s/sub", dir);
    ASSERT(icv_mkdirs(path, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/sub/tracks.csv", dir);
    th_write_file(path, "old tracks\n");
    /* a trailing slash is the same folder: the working one goes beside it */
    char slashed[1100];
    snprintf(slashed, sizeof slashed, "%s/", dir);
    ASSERT(icv_workdir_make(slashed, "job", work, sizeof work, &err) == 0, "%s", err.msg);
    ASSERT(!strncmp(work, dir, strlen(dir)) && !strncmp(work + strlen(dir), ".job.", 5), "working folder %s", work);
    ASSERT(icv_dir_link_tree(dir, work, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/sub/tracks.csv", work);
    ASSERT_STR_CONTAINS(th_read_file(path), "old tracks");
    snprintf(path, sizeof path, "%s/result.json", work);
    th_write_file(path, "new\n");
    /* DIR unchanged until the swap */
    snprintf(path, sizeof path, "%s/result.json", dir);
    ASSERT(access(path, F_OK) != 0, "result.json in DIR before the swap");
    ASSERT(icv_dir_swap(work, slashed, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(th_read_file(path), "new");
    snprintf(path, sizeof path, "%s/sub/tracks.csv", dir);
    ASSERT_STR_CONTAINS(th_read_file(path), "old tracks");
    ASSERT_EQ_INT(th_dir_count(d, "out."), 0); /* neither the working folder nor the old DIR */
}

TEST(test_workdir_removed_on_failure_leaves_dir_as_it_was)
{
    const char *d = th_tmpdir();
    char dir[1024], path[1200], work[4096];
    icv_err err = {0};
    snprintf(dir, sizeof dir, "%s/absent/out", d);
    ASSERT(icv_workdir_make(dir, "job", work, sizeof work, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/partial.csv", work);
    th_write_file(path, "half\n");
    icv_dir_remove(work);
    struct stat st;
    ASSERT(stat(dir, &st) != 0, "DIR made");
    snprintf(path, sizeof path, "%s/absent", d);
    ASSERT_EQ_INT(th_dir_count(path, "out."), 0);
    /* "." and ".." are replaced as a whole by no one */
    ASSERT_EQ_INT(icv_workdir_make(".", "job", work, sizeof work, &err), ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "by its name");
    ASSERT_EQ_INT(icv_workdir_make("a/..", "job", work, sizeof work, &err), ICV_EINVAL);
}

/* A process id that no process has (kill(pid, 0) fails with ESRCH). */
static long dead_pid(void)
{
    for (long pid = 4000000; pid > 1000; pid -= 7919)
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return pid;
    return -1;
}

TEST(test_workdir_make_cleans_up_after_a_dead_process)
{
    /* kill -9 between the two renames of the fallback swap left DIR.old.<pid> and no
     * DIR; an interrupted job left DIR.run.<pid>.XXXXXX: the next job puts the old
     * results back and removes the working folder; a live process's folders stay */
    const char *d = th_tmpdir();
    long pid = dead_pid();
    ASSERT(pid > 0, "no free process id found");
    char dir[1024], path[1200], work[4096];
    icv_err err = {0};
    snprintf(dir, sizeof dir, "%s/out", d);
    snprintf(path, sizeof path, "%s.old.%ld", dir, pid);
    ASSERT(icv_mkdirs(path, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s.old.%ld/results.json", dir, pid);
    th_write_file(path, "old results\n");
    snprintf(path, sizeof path, "%s.run.%ld.Ab12Cd/sub", dir, pid);
    ASSERT(icv_mkdirs(path, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s.run.%ld.Zz99Yy", dir, (long)getpid()); /* ours: alive */
    ASSERT(icv_mkdirs(path, &err) == 0, "%s", err.msg);
    ASSERT(icv_workdir_make(dir, "run", work, sizeof work, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/results.json", dir);
    ASSERT_STR_CONTAINS(th_read_file(path), "old results");
    /* left: our live folder and the one just made */
    ASSERT_EQ_INT(th_dir_count(d, "out.run."), 2);
    ASSERT_EQ_INT(th_dir_count(d, "out.old."), 0);
    icv_dir_remove(work);
}

TEST(test_dir_swap_exchanges_and_keeps_no_old_copy)
{
    const char *d = th_tmpdir();
    char dir[1024], path[1200], work[4096];
    icv_err err = {0};
    snprintf(dir, sizeof dir, "%s/out", d);
    ASSERT(icv_mkdirs(dir, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    th_write_file(path, "first\n");
    ASSERT(icv_workdir_make(dir, "run", work, sizeof work, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/a.txt", work);
    th_write_file(path, "second\n");
    ASSERT(icv_dir_swap(work, dir, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    ASSERT_STR_CONTAINS(th_read_file(path), "second");
    ASSERT_EQ_INT(th_dir_count(d, "out."), 0);
}

TEST(test_dir_link_missing_keeps_what_the_job_wrote)
{
    const char *d = th_tmpdir();
    char src[1024], dst[1024], path[1200];
    icv_err err = {0};
    snprintf(src, sizeof src, "%s/old", d);
    snprintf(dst, sizeof dst, "%s/new", d);
    snprintf(path, sizeof path, "%s/sub", src);
    ASSERT(icv_mkdirs(path, &err) == 0, "%s", err.msg);
    ASSERT(icv_mkdirs(dst, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/notes.txt", src);
    th_write_file(path, "user\n");
    snprintf(path, sizeof path, "%s/sub/mine.csv", src);
    th_write_file(path, "user csv\n");
    snprintf(path, sizeof path, "%s/results.json", src);
    th_write_file(path, "old result\n");
    snprintf(path, sizeof path, "%s/results.json", dst);
    th_write_file(path, "new result\n");
    ASSERT(icv_dir_link_missing(src, dst, NULL, NULL, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(th_read_file(path), "new result");
    snprintf(path, sizeof path, "%s/notes.txt", dst);
    ASSERT_STR_CONTAINS(th_read_file(path), "user");
    snprintf(path, sizeof path, "%s/sub/mine.csv", dst);
    ASSERT_STR_CONTAINS(th_read_file(path), "user csv");
}
