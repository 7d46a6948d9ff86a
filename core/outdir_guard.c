/* outdir_guard.c: what `-o DIR` may replace. A job's output folder replaces DIR as a
 * whole, so DIR must be new, empty or an earlier result of the program (its marker
 * file, written last, is there); anything else is the user's and is refused unless
 * they force it. Never, forced or not, when DIR is or holds one of the job's inputs. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"

/* Whether path (resolved) is dir (resolved) or lies below it. */
static int inside(const char *dir_real, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    size_t n = strlen(dir_real);
    return !strncmp(real, dir_real, n) && (real[n] == '\0' || real[n] == '/' || !strcmp(dir_real, "/"));
}

static int empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

int icv_outdir_check(const char *dir, const char *marker_rel, int force, const char *const *inputs, int n_inputs,
                     icv_err *err)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? 0 : icv_err_set(err, ICV_EIO, "-o %s: %s", dir, strerror(errno));
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return icv_err_set(err, ICV_EIO, "-o %s: %s", dir, strerror(errno));
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i] && inputs[i][0] && inside(real, inputs[i]))
            return icv_err_set(err, ICV_EINVAL,
                               "-o %s %s the experiment's input %s: give the results a folder of their own", dir,
                               S_ISDIR(st.st_mode) ? "holds" : "is", inputs[i]);
    if (force)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return icv_err_set(err, ICV_EINVAL,
                           "-o %s is a file, not a results folder: give another name, or --force to replace it", dir);
    if (empty_dir(dir))
        return 0;
    char marker[ICV_PATH_MAX];
    if (icv_path_join(marker, sizeof marker, dir, marker_rel, err))
        return ICV_EINVAL;
    if (stat(marker, &st) == 0 && S_ISREG(st.st_mode))
        return 0;
    return icv_err_set(err, ICV_EINVAL,
                       "-o %s: the folder holds files but no impactcv results (no %s): give a new or empty folder, or "
                       "--force to write the results into it (its files are kept)",
                       dir, marker_rel);
}
