/* atomic_dir.c: output folders that appear whole or not at all, as atomic_file.c
 * does for single files. A job writes into a working folder beside DIR
 * ("DIR.<tag>.XXXXXX": the same filesystem, so rename(2) is atomic) and swaps it
 * into place only once everything succeeded; the previous DIR is removed after the
 * swap. On failure the working folder is removed and DIR is left as it was. A job
 * that reuses what DIR holds first links DIR's files into the working folder. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

/* dir without its trailing slashes ("out/" + ".run.XXXXXX" would be inside out) */
static int base_name_of(const char *dir, char *out, size_t n, icv_err *err)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (len == 0 || len >= n)
        return icv_err_set(err, ICV_EINVAL, "'%s': not a folder name", dir);
    memcpy(out, dir, len);
    out[len] = '\0';
    const char *last = strrchr(out, '/');
    last = last ? last + 1 : out;
    if (!strcmp(out, "/") || !strcmp(last, ".") || !strcmp(last, ".."))
        return icv_err_set(err, ICV_EINVAL, "%s: give the output folder by its name: it is replaced as a whole", dir);
    return 0;
}

int icv_workdir_make(const char *dir, const char *tag, char *work, size_t n, icv_err *err)
{
    char base[ICV_PATH_MAX], parent[ICV_PATH_MAX];
    int rc = base_name_of(dir, base, sizeof base, err);
    if (rc)
        return rc;
    icv_path_dirname(parent, sizeof parent, base);
    if ((rc = icv_mkdirs(parent, err)))
        return rc;
    if (snprintf(work, n, "%s.%s.XXXXXX", base, tag) >= (int)n)
        return icv_err_set(err, ICV_EINVAL, "%s: path too long", dir);
    if (!mkdtemp(work))
        return icv_err_set(err, ICV_EIO, "%s: cannot make a working folder beside it: %s", base, strerror(errno));
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void icv_dir_remove(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

int icv_dir_swap(const char *tmp, const char *dir_in, icv_err *err)
{
    char dir[ICV_PATH_MAX], old[ICV_PATH_MAX];
    int rc = base_name_of(dir_in, dir, sizeof dir, err);
    if (rc)
        return rc;
    struct stat st;
    int had = stat(dir, &st) == 0;
    if (had) {
        if (snprintf(old, sizeof old, "%s.old.%ld", dir, (long)getpid()) >= (int)sizeof old)
            return icv_err_set(err, ICV_EINVAL, "%s: path too long", dir);
        if (rename(dir, old) != 0)
            return icv_err_set(err, ICV_EIO, "%s: cannot move the previous results aside: %s", dir, strerror(errno));
    }
    if (rename(tmp, dir) != 0) {
        int e = errno;
        if (had)
            rename(old, dir);
        return icv_err_set(err, ICV_EIO, "%s: cannot move the new results into place: %s", dir, strerror(e));
    }
    if (had)
        icv_dir_remove(old);
    return 0;
}

/* a copy where a hard link cannot be made (a filesystem without them) */
static int copy_file(const char *from, const char *to, icv_err *err)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", from, strerror(errno));
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, to, err);
    char buf[1 << 16];
    size_t k;
    while (!rc && (k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, af.fp) != k)
            rc = icv_err_set(err, ICV_EIO, "%s: write failed", to);
    if (!rc && ferror(in))
        rc = icv_err_set(err, ICV_EIO, "%s: read failed", from);
    fclose(in);
    if (rc)
        icv_atomic_abort(&af);
    return rc ? rc : icv_atomic_commit(&af, err);
}

int icv_dir_link_tree(const char *src, const char *dst, icv_err *err)
{
    DIR *d = opendir(src);
    if (!d)
        return icv_err_set(err, ICV_EIO, "%s: cannot read the folder: %s", src, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char from[ICV_PATH_MAX], to[ICV_PATH_MAX];
        struct stat st;
        if ((rc = icv_path_join(from, sizeof from, src, e->d_name, err)) ||
            (rc = icv_path_join(to, sizeof to, dst, e->d_name, err)))
            break;
        if (lstat(from, &st) != 0) {
            rc = icv_err_set(err, ICV_EIO, "%s: %s", from, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdir(to, 0755) != 0 && errno != EEXIST)
                rc = icv_err_set(err, ICV_EIO, "%s: cannot create folder: %s", to, strerror(errno));
            else
                rc = icv_dir_link_tree(from, to, err);
        } else if (S_ISLNK(st.st_mode)) {
            char target[ICV_PATH_MAX];
            ssize_t k = readlink(from, target, sizeof target - 1);
            if (k < 0 || (target[k] = '\0', symlink(target, to) != 0))
                rc = icv_err_set(err, ICV_EIO, "%s: cannot copy the link: %s", from, strerror(errno));
        } else if (S_ISREG(st.st_mode) && link(from, to) != 0) {
            rc = copy_file(from, to, err);
        }
    }
    closedir(d);
    return rc;
}
