/* text_in.c: fields read from outside files (tracks written by other tools) and
 * their echo in messages: a file's bytes never reach the terminal raw. */
#include <string.h>
#include <strings.h>

#include "core/core.h"

int icv_csv_missing(const char *f)
{
    if (!f)
        return 1;
    while (*f == ' ' || *f == '\t')
        f++;
    if (*f == '+' || *f == '-')
        f += f[1] && (f[1] == 'n' || f[1] == 'N');
    size_t n = strcspn(f, " \t\r\n");
    if (f[n] && strspn(f + n, " \t\r\n") != strlen(f + n))
        return 0;
    return n == 0 || (n == 3 && !strncasecmp(f, "nan", 3));
}

const char *icv_printable(const char *s, size_t max_in, char *out, size_t out_size)
{
    if (!out_size)
        return out;
    size_t k = 0, i = 0;
    if (!s)
        s = "";
    for (; s[i] && i < max_in; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[8];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            tmp[0] = (char)c, tmp[1] = 0;
        else if (c == '\\' || c == '"')
            tmp[0] = '\\', tmp[1] = (char)c, tmp[2] = 0;
        else
            snprintf(tmp, sizeof tmp, "\\x%02X", c);
        size_t n = strlen(tmp);
        if (k + n + 4 > out_size) { /* room for "..." and the terminator */
            break;
        }
        memcpy(out + k, tmp, n);
        k += n;
    }
    if (s[i] && k + 4 <= out_size) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k < out_size ? k : out_size - 1] = 0;
    return out;
}
