/* error.c: the error type every module fills (core.h). One line, naming the
 * file, frame, camera or key and the reason; the CLI prints it. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"

int icv_err_set(icv_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int icv_err_prefix(icv_err *err, const char *fmt, ...)
{
    if (!err)
        return ICV_EINVAL;
    char prefix[ICV_ERR_MSG_MAX], old[ICV_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s%s", prefix, old);
    return err->code;
}

void icv_err_clear(icv_err *err)
{
    if (err) {
        err->code = ICV_OK;
        err->msg[0] = '\0';
    }
}

const char *icv_err_name(int code)
{
    switch (code) {
    case ICV_OK: return "success";
    case ICV_EINVAL: return "invalid input";
    case ICV_EIO: return "I/O error";
    case ICV_ENOMEM: return "out of memory";
    case ICV_ENOTIMPL: return "not implemented yet";
    case ICV_ENOTFOUND: return "not found";
    case ICV_EFORMAT: return "bad file format";
    case ICV_ENUMERIC: return "numerical failure";
    default: return "unknown error";
    }
}

void icv_err_rename_path(icv_err *err, const char *from, const char *to)
{
    size_t lf = from ? strlen(from) : 0;
    if (!err || !lf || !to)
        return;
    char out[ICV_ERR_MSG_MAX];
    size_t k = 0;
    for (const char *p = err->msg; *p && k + 1 < sizeof out;) {
        /* the folder itself or a path in it, not a longer name that starts the same */
        if (!strncmp(p, from, lf) && (p[lf] == '/' || p[lf] == ':' || p[lf] == ' ' || p[lf] == '\0' || p[lf] == '\'')) {
            k += (size_t)snprintf(out + k, sizeof out - k, "%s", to);
            if (k >= sizeof out)
                k = sizeof out - 1;
            p += lf;
        } else {
            out[k++] = *p++;
        }
    }
    out[k] = '\0';
    /* "P: P: reason" (a caller prefixed the name the callee gave too): once */
    const char *colon = strstr(out, ": ");
    size_t lp = colon ? (size_t)(colon - out) : 0;
    if (lp && !strncmp(out + lp + 2, out, lp) && !strncmp(out + 2 * lp + 2, ": ", 2))
        memmove(out, out + lp + 2, strlen(out + lp + 2) + 1);
    snprintf(err->msg, sizeof err->msg, "%s", out);
}
