/* atomic_file.c: output files appear whole or not at all. Everything is written
 * to "name.tmp.XXXXXX" in the target's folder (same filesystem, so rename(2) is
 * atomic) and renamed over the target once complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

int icv_atomic_open(icv_atomic_file *af, const char *path, icv_err *err)
{
    memset(af, 0, sizeof *af);
    if (snprintf(af->path, sizeof af->path, "%s", path) >= (int)sizeof af->path ||
        snprintf(af->tmp, sizeof af->tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof af->tmp)
        return icv_err_set(err, ICV_EINVAL, "%s: path too long", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0)
        return icv_err_set(err, ICV_EIO, "%s: cannot create a temporary file: %s", path, strerror(errno));
    /* mkstemp makes 0600; outputs are ordinary files */
    fchmod(fd, 0644);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        unlink(af->tmp);
        return icv_err_set(err, ICV_EIO, "%s: %s", path, strerror(errno));
    }
    return 0;
}

int icv_atomic_commit(icv_atomic_file *af, icv_err *err)
{
    if (!af->fp)
        return icv_err_set(err, ICV_EINVAL, "%s: file is not open", af->path);
    int bad = 0, saved = 0;
    if (ferror(af->fp)) {
        /* an earlier write failed; its errno is long gone (a stat since may have left
           ENOENT: a full disk was reported as "No such file or directory"): ask the
           file again, by flushing what is left and writing one byte past the end */
        bad = 1;
        clearerr(af->fp);
        errno = 0;
        if (fflush(af->fp) != 0 || write(fileno(af->fp), "", 1) < 0)
            saved = errno;
    } else if (fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0) {
        bad = 1;
        saved = errno;
    }
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    af->fp = NULL;
    if (bad) {
        unlink(af->tmp);
        if (!saved)
            return icv_err_set(err, ICV_EIO, "%s: write failed (the cause was not reported again)", af->path);
        return icv_err_set(err, ICV_EIO, "%s: write failed: %s", af->path, strerror(saved));
    }
    if (rename(af->tmp, af->path) != 0) {
        saved = errno;
        unlink(af->tmp);
        return icv_err_set(err, ICV_EIO, "%s: cannot rename the finished file into place: %s", af->path,
                           strerror(saved));
    }
    return 0;
}

void icv_atomic_abort(icv_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
        unlink(af->tmp);
    }
}

int icv_atomic_write(const char *path, const void *data, size_t len, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write failed", path);
    }
    return icv_atomic_commit(&af, err);
}

int icv_mkdirs(const char *path, icv_err *err)
{
    char buf[ICV_PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return icv_err_set(err, ICV_EINVAL, "%s: path too long", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return icv_err_set(err, ICV_EIO, "%s: cannot create folder: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return icv_err_set(err, ICV_EIO, "%s: cannot create folder: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return icv_err_set(err, ICV_EIO, "%s: exists and is not a folder", buf);
    return 0;
}
