/* test_text_out.c: the base64 writer the reports inline their images with, against
 * RFC 4648's test vectors and, across its block boundary, against a decoder. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "tests/harness.h"

/* the base64 text of n bytes of data, malloc'd */
static char *encode(const void *data, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    icv_fput_base64(f, data, n);
    fclose(f);
    return text;
}

static int sextet(char c)
{
    const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(t, c);
    return c && p ? (int)(p - t) : -1;
}

TEST(test_base64_matches_rfc4648_vectors)
{
    /* RFC 4648 section 10 */
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *t = encode(in[i], strlen(in[i]));
        ASSERT(!strcmp(t, out[i]), "'%s' -> '%s', RFC 4648 says '%s'", in[i], t, out[i]);
        free(t);
    }
}

TEST(test_base64_round_trips_across_its_output_blocks)
{
    /* 10 000 bytes: several 4096-character output blocks and a tail of one byte */
    size_t n = 10000;
    unsigned char *d = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(i * 2654435761u >> 13);
    char *t = encode(d, n);
    size_t len = strlen(t);
    ASSERT_EQ_INT((long)len, (long)((n + 2) / 3 * 4));
    size_t k = 0;
    for (size_t i = 0; i + 4 <= len; i += 4) {
        int a = sextet(t[i]), b = sextet(t[i + 1]), c = sextet(t[i + 2]), e = sextet(t[i + 3]);
        ASSERT(a >= 0 && b >= 0, "bad character at %zu", i);
        back[k++] = (unsigned char)(a << 2 | b >> 4);
        if (c >= 0)
            back[k++] = (unsigned char)((b & 15) << 4 | c >> 2);
        if (e >= 0)
            back[k++] = (unsigned char)((c & 3) << 6 | e);
    }
    ASSERT_EQ_INT((long)k, (long)n);
    ASSERT(!memcmp(d, back, n), "the decoded bytes differ from the input");
    free(t);
    free(d);
    free(back);
}
