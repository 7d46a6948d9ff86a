/* paths.c: joining paths relative to an experiment file, and expanding the
 * contract's image lists (a quoted glob or a folder, sorted by name). */
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"

int icv_path_join(char *out, size_t n, const char *dir, const char *rel, icv_err *err)
{
    int w;
    if (rel[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0)
        w = snprintf(out, n, "%s", rel);
    else
        w = snprintf(out, n, "%s/%s", dir, rel);
    if (w < 0 || (size_t)w >= n)
        return icv_err_set(err, ICV_EINVAL, "%s: path too long", rel);
    return 0;
}

void icv_path_dirname(char *out, size_t n, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, n, ".");
        return;
    }
    size_t len = (size_t)(slash - path);
    if (len == 0)
        len = 1; /* "/file" -> "/" */
    if (len >= n)
        len = n - 1;
    memcpy(out, path, len);
    out[len] = '\0';
}

int icv_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int icv_paths_expand(const char *pattern, char ***paths, size_t *count, icv_err *err)
{
    *paths = NULL;
    *count = 0;
    struct stat st;
    char **list = NULL;
    size_t n = 0, cap = 0;
    if (stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(pattern);
        if (!d)
            return icv_err_set(err, ICV_EIO, "%s: cannot open folder", pattern);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            char full[ICV_PATH_MAX];
            if (icv_path_join(full, sizeof full, pattern, de->d_name, NULL) || !icv_file_exists(full))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                char **nl = realloc(list, cap * sizeof *nl);
                if (!nl) {
                    closedir(d);
                    icv_paths_free(list, n);
                    return icv_err_set(err, ICV_ENOMEM, "%s: out of memory listing folder", pattern);
                }
                list = nl;
            }
            list[n] = strdup(full);
            if (!list[n]) {
                closedir(d);
                icv_paths_free(list, n);
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory listing folder", pattern);
            }
            n++;
        }
        closedir(d);
    } else {
        glob_t g;
        int rc = glob(pattern, 0, NULL, &g);
        if (rc == GLOB_NOMATCH)
            return 0;
        if (rc != 0)
            return icv_err_set(err, ICV_EIO, "%s: cannot expand pattern", pattern);
        list = calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof *list);
        if (!list) {
            globfree(&g);
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pattern);
        }
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (!icv_file_exists(g.gl_pathv[i]))
                continue;
            list[n] = strdup(g.gl_pathv[i]);
            if (!list[n]) {
                globfree(&g);
                icv_paths_free(list, n);
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pattern);
            }
            n++;
        }
        globfree(&g);
    }
    if (n > 1) /* an empty folder leaves list NULL: qsort must not be given it */
        qsort(list, n, sizeof *list, cmp_str);
    *paths = list;
    *count = n;
    return 0;
}

void icv_paths_free(char **paths, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
}
