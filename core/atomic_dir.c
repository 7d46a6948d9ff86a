/* atomic_dir.c: output folders that appear whole or not at all, as atomic_file.c
 * does for single files. A job writes into a working folder beside DIR
 * ("DIR.<tag>.<pid>.XXXXXX": the same filesystem, so a rename is atomic) and swaps it
 * into place only once everything succeeded: one renameat2(RENAME_EXCHANGE), so DIR
 * is never missing, then the previous DIR (now at the working name) is removed. On
 * failure the working folder is removed and DIR is left as it was. A job that reuses
 * what DIR holds first links DIR's files into the working folder. Working folders of
 * a process that died (kill -9, a crash) are removed by the next job on that DIR; the
 * live ones are registered for the signal handler (cleanup_signals.c). */
#define _GNU_SOURCE /* renameat2 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
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

/* Whether process pid is gone (not merely someone else's). */
static int process_dead(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* Folders beside DIR left by a job that died: "<name>.<tag>.<pid>.XXXXXX" working
 * folders are removed; "<name>.old.<pid>" (the previous DIR, moved aside by the
 * two-rename fallback) is put back when DIR is missing, else removed. */
static void clean_stale(const char *base)
{
    char parent[ICV_PATH_MAX];
    icv_path_dirname(parent, sizeof parent, base);
    const char *name = strrchr(base, '/');
    name = name ? name + 1 : base;
    size_t nl = strlen(name);
    DIR *d = opendir(parent[0] ? parent : ".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, name, nl) || e->d_name[nl] != '.')
            continue;
        const char *rest = e->d_name + nl + 1, *dot = strchr(rest, '.');
        if (!dot)
            continue;
        char *end;
        long pid = strtol(dot + 1, &end, 10);
        if (end == dot + 1 || !process_dead(pid))
            continue;
        int old = (size_t)(dot - rest) == 3 && !strncmp(rest, "old", 3) && *end == '\0';
        int work = *end == '.' && strlen(end) == 7; /* ".XXXXXX" of mkdtemp */
        if (!old && !work)
            continue;
        char path[ICV_PATH_MAX];
        if (icv_path_join(path, sizeof path, parent[0] ? parent : ".", e->d_name, NULL))
            continue;
        struct stat st;
        if (old && stat(base, &st) != 0 && errno == ENOENT && rename(path, base) == 0) {
            icv_warn("%s: put back the previous results, left aside by a run that died (process %ld)", base, pid);
            continue;
        }
        icv_dir_remove(path);
    }
    closedir(d);
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
    clean_stale(base);
    if (snprintf(work, n, "%s.%s.%ld.XXXXXX", base, tag, (long)getpid()) >= (int)n)
        return icv_err_set(err, ICV_EINVAL, "%s: path too long", dir);
    if (!mkdtemp(work))
        return icv_err_set(err, ICV_EIO, "%s: cannot make a working folder beside it: %s", base, strerror(errno));
    icv_cleanup_register(work);
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void icv_dir_remove(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    icv_cleanup_unregister(path);
}

int icv_dir_swap(const char *tmp, const char *dir_in, icv_err *err)
{
    char dir[ICV_PATH_MAX], old[ICV_PATH_MAX];
    int rc = base_name_of(dir_in, dir, sizeof dir, err);
    if (rc)
        return rc;
    struct stat st;
    int had = lstat(dir, &st) == 0;
    if (had && renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        /* one step: DIR is never missing; the previous DIR is now at tmp's name */
        icv_dir_remove(tmp);
        return 0;
    }
    if (had) { /* a filesystem without the exchange: two renames; a crash between them
                  leaves DIR.old.<pid>, which the next job puts back (clean_stale) */
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
    icv_cleanup_unregister(tmp);
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

static int link_missing(const char *src, const char *dst, const char *rel, icv_dir_skip_fn skip, void *user,
                        icv_err *err)
{
    DIR *d = opendir(src);
    if (!d)
        return icv_err_set(err, ICV_EIO, "%s: cannot read the folder: %s", src, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char from[ICV_PATH_MAX], to[ICV_PATH_MAX], sub[ICV_PATH_MAX];
        if ((rc = icv_path_join(from, sizeof from, src, e->d_name, err)) ||
            (rc = icv_path_join(to, sizeof to, dst, e->d_name, err)))
            break;
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >= (int)sizeof sub) {
            rc = icv_err_set(err, ICV_EINVAL, "%s: path too long", from);
            break;
        }
        if (skip && skip(sub, user))
            continue;
        struct stat st, dt;
        if (lstat(from, &st) != 0) {
            rc = icv_err_set(err, ICV_EIO, "%s: %s", from, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (lstat(to, &dt) != 0) {
                if (mkdir(to, st.st_mode & 07777) != 0)
                    rc = icv_err_set(err, ICV_EIO, "%s: cannot create folder: %s", to, strerror(errno));
            } else if (!S_ISDIR(dt.st_mode)) {
                continue; /* the job wrote a file where a folder was: the job's wins */
            }
            if (!rc)
                rc = link_missing(from, to, sub, skip, user, err);
        } else if (lstat(to, &dt) == 0) {
            continue; /* the job wrote this name */
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

int icv_dir_link_missing(const char *src, const char *dst, icv_dir_skip_fn skip, void *user, icv_err *err)
{
    return link_missing(src, dst, "", skip, user, err);
}

int icv_dir_link_tree(const char *src, const char *dst, icv_err *err) { return link_missing(src, dst, "", NULL, NULL, err); }
