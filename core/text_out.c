/* text_out.c: writing text that other tools read: base64 (inline images in the
 * HTML reports) and HTML-escaped text. */
#include <string.h>

#include "core/core.h"

void icv_fput_base64(FILE *f, const void *data, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *d = data;
    char buf[4096]; /* a block at a time: fputc per character was most of a report's writing */
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        buf[k++] = t[v >> 18 & 63];
        buf[k++] = t[v >> 12 & 63];
        buf[k++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        buf[k++] = i + 2 < n ? t[v & 63] : '=';
        if (k == sizeof buf) {
            fwrite(buf, 1, k, f);
            k = 0;
        }
    }
    fwrite(buf, 1, k, f);
}

/* the n first characters of s (all of it for n < 0) escaped for HTML */
static void put_html_n(FILE *f, const char *s, long n)
{
    for (; s && *s && n != 0; s++, n--) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

void icv_fput_html(FILE *f, const char *s) { put_html_n(f, s, -1); }

void icv_fput_html_items(FILE *f, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        long len = nl ? (long)(nl - text) : (long)strlen(text);
        fputs("<li>", f);
        put_html_n(f, text, len);
        fputs("</li>", f);
        text += len + (nl != NULL);
    }
}
