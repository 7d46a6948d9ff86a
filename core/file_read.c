/* file_read.c: a whole file into memory, with a bound on its size for files from
 * outside (a calibration, a page's parts). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

int icv_file_read(const char *path, size_t max_bytes, char **data, size_t *len, icv_err *err)
{
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return icv_err_set(err, ICV_EIO, "%s: cannot read: %s", path, strerror(errno));
    size_t cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0 || !*data) {
        if (max_bytes > 0 && *len + n > max_bytes) {
            free(*data);
            *data = NULL;
            *len = 0;
            fclose(fp);
            return icv_err_set(err, ICV_EFORMAT, "%s: above the limit of %zu bytes for this file", path, max_bytes);
        }
        if (*len + n + 1 > cap) {
            char *b = realloc(*data, cap = 2 * (*len + n + 1));
            if (!b) {
                free(*data);
                *data = NULL;
                *len = 0;
                fclose(fp);
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
            }
            *data = b;
        }
        memcpy(*data + *len, chunk, n);
        *len += n;
        (*data)[*len] = '\0';
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(*data);
        *data = NULL;
        *len = 0;
        return icv_err_set(err, ICV_EIO, "%s: read error", path);
    }
    return 0;
}
