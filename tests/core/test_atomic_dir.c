/* test_atomic_dir.c: output folders that appear whole (core/atomic_dir.c): a working
 * folder beside DIR starting as DIR was (its files linked), swapped into place, or
 * removed leaving DIR as it was. */
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
