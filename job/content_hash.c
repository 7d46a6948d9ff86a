/* content_hash.c: SHA-256 digests of what a stage of `impactcv run` reads (files'
 * bytes, experiment.yaml subtrees, values), by OpenSSL's libcrypto (EVP, SHA-NI where
 * the CPU has it: 1.7 GB/s here, 12 ms for the demo's two videos). The stage cache
 * (run_cache.c) keys stages with these digests. Every item is fed with a type byte and
 * its length, so that two different sequences of items never hash alike. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_internal.h"

struct job_hash {
    EVP_MD_CTX *ctx;
};

int job_hash_begin(job_hash **h, icv_err *err)
{
    *h = calloc(1, sizeof **h);
    if (!*h || !((*h)->ctx = EVP_MD_CTX_new()) || EVP_DigestInit_ex((*h)->ctx, EVP_sha256(), NULL) != 1) {
        job_hash_free(*h);
        *h = NULL;
        return icv_err_set(err, ICV_ENOMEM, "cache: cannot start a SHA-256 digest (libcrypto)");
    }
    return 0;
}

void job_hash_free(job_hash *h)
{
    if (h) {
        EVP_MD_CTX_free(h->ctx);
        free(h);
    }
}

void job_hash_end(job_hash *h, char hex[JOB_DIGEST_HEX])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(h->ctx, md, &n);
    for (unsigned i = 0; i < n && 2 * i + 2 < JOB_DIGEST_HEX; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    job_hash_free(h);
}

static void item(job_hash *h, char type, const void *data, uint64_t n)
{
    EVP_DigestUpdate(h->ctx, &type, 1);
    EVP_DigestUpdate(h->ctx, &n, sizeof n);
    if (n)
        EVP_DigestUpdate(h->ctx, data, n);
}

void job_hash_str(job_hash *h, const char *s)
{
    item(h, 's', s ? s : "", s ? strlen(s) : 0);
}

void job_hash_bytes(job_hash *h, const void *data, size_t n) { item(h, 'b', data, n); }

void job_hash_double(job_hash *h, double x)
{
    char buf[40]; /* the value, not its bytes: -0 and 0, and every NaN, hash alike */
    snprintf(buf, sizeof buf, "%.17g", x == 0 ? 0.0 : x);
    item(h, 'd', buf, strlen(buf));
}

void job_hash_int(job_hash *h, long x)
{
    int64_t v = x;
    item(h, 'i', &v, sizeof v);
}

int job_hash_file(job_hash *h, const char *path, icv_err *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return icv_err_set(err, ICV_EIO, "%s: cannot read: %s", path, strerror(errno));
    static const size_t chunk = 1 << 20;
    unsigned char *buf = malloc(chunk);
    if (!buf) {
        fclose(fp);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    char type = 'f';
    EVP_DigestUpdate(h->ctx, &type, 1);
    uint64_t total = 0;
    size_t n;
    while ((n = fread(buf, 1, chunk, fp)) > 0) {
        EVP_DigestUpdate(h->ctx, buf, n);
        total += n;
    }
    int bad = ferror(fp);
    fclose(fp);
    free(buf);
    if (bad)
        return icv_err_set(err, ICV_EIO, "%s: read error", path);
    EVP_DigestUpdate(h->ctx, &total, sizeof total); /* the length after the bytes: one pass */
    return 0;
}

int job_file_digest(const char *path, char hex[JOB_DIGEST_HEX], icv_err *err)
{
    job_hash *h;
    int rc = job_hash_begin(&h, err);
    if (rc)
        return rc;
    if ((rc = job_hash_file(h, path, err))) {
        job_hash_free(h);
        return rc;
    }
    job_hash_end(h, hex);
    return 0;
}
