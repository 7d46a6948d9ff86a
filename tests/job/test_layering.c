/* test_layering.c: what each library may do (issue #21 items 1 and 6). Only capture/
 * decodes; the jobs (job/) and the CLI's probe and check ask it to open a video. The
 * libraries report/, analysis/, calib/ and track/ never do (the track stage and the
 * calibration from video moved into job/ in session 12).
 * GSL's error handler is the program's (switched off once in cli/main.c): no library
 * sets it, which would also race between the cameras' threads. */
#include <dirent.h>
#include <string.h>

#include "core/core.h"
#include "tests/harness.h"

static int allowed(const char *module)
{
    return !strcmp(module, "capture") || !strcmp(module, "job") || !strcmp(module, "cli");
}

TEST(test_layering_only_capture_job_and_cli_open_videos_and_only_cli_sets_gsl_handler)
{
    static const char *const modules[] = {"core", "solver", "capture", "calib", "track", "analysis",
                                          "synth", "report", "job", "cli"};
    char offenders[2000] = "", gsl_setters[2000] = "";
    int n_files = 0, n_open = 0;
    for (size_t m = 0; m < sizeof modules / sizeof modules[0]; m++) {
        char dir[ICV_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", th_root(), modules[m]);
        DIR *d = opendir(dir);
        ASSERT(d, "%s: cannot list", dir);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
                continue;
            char path[ICV_PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            const char *text = th_read_file(path);
            ASSERT(text, "%s: cannot read", path);
            n_files++;
            if (strcmp(modules[m], "cli") && strstr(text, "gsl_set_error_handler")) {
                size_t k = strlen(gsl_setters);
                snprintf(gsl_setters + k, sizeof gsl_setters - k, " %s/%s", modules[m], e->d_name);
            }
            if (!strstr(text, "capture_source_open("))
                continue;
            n_open++;
            if (!allowed(modules[m])) {
                size_t k = strlen(offenders);
                snprintf(offenders + k, sizeof offenders - k, " %s/%s", modules[m], e->d_name);
            }
        }
        closedir(d);
    }
    ASSERT(n_files > 100, "only %d source files found under %s", n_files, th_root());
    ASSERT(n_open >= 2, "capture_source_open found in %d files: the scan is not reading the sources", n_open);
    ASSERT(!offenders[0], "videos opened outside capture/, job/ and cli/:%s", offenders);
    ASSERT(!gsl_setters[0], "GSL's error handler set by library code:%s", gsl_setters);
}
