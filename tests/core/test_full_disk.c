/* test_full_disk.c: a full disk is reported with its own errno (issue #20 item 9).
 * /dev/full fails every write with ENOSPC (no tmpfs can be mounted here). An
 * atomic file whose write failed earlier used to report whatever errno a later
 * call left ("No such file or directory"); stdout on a full disk used to lose the
 * output with exit 0. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/core.h"
#include "tests/harness.h"

TEST(test_full_disk_atomic_file_reports_enospc_not_a_stale_errno)
{
    icv_atomic_file af;
    icv_err err = {0};
    const char *path = th_tmp("out.csv");
    ASSERT(icv_atomic_open(&af, path, &err) == 0, "%s", err.msg);
    char tmp[sizeof af.tmp];
    snprintf(tmp, sizeof tmp, "%s", af.tmp);
    fclose(af.fp);
    af.fp = fopen("/dev/full", "wb"); /* the temporary file's disk is full */
    ASSERT(af.fp, "cannot open /dev/full");
    static char block[1 << 16];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 4; i++)
        fwrite(block, 1, sizeof block, af.fp); /* fails with ENOSPC, leaving ferror set */
    FILE *nf = fopen(th_tmp("nowhere/at/all"), "r"); /* what the program did since: errno = ENOENT */
    ASSERT(!nf && errno == ENOENT, "the stale errno was not set");
    int rc = icv_atomic_commit(&af, &err);
    unlink(tmp);
    ASSERT_EQ_INT(rc, ICV_EIO);
    ASSERT_STR_CONTAINS(err.msg, "out.csv: write failed: No space left on device");
    ASSERT(access(path, F_OK) != 0, "a partial file was renamed into place");
}

TEST(test_full_disk_stdout_is_an_error_naming_enospc)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "--version >/dev/full"), 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: standard output: write failed: No space left on device");
    /* more than a stdio buffer: the first failure happens while printing */
    ASSERT_EQ_INT(th_run_cli(&p, "solve --reference >/dev/full"), 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: standard output: write failed: No space left on device");
}
