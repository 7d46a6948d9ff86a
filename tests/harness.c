/* harness.c: the test runner. Runs the registered tests in order (those whose
 * name contains argv[1] if given), one line each, then the summary line
 * "N passed, N failed, N skipped" that CI reads; exits 1 if any failed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "tests/harness.h"

#define MAX_TESTS 4096

static struct {
    const char *name, *file;
    th_fn fn;
} tests[MAX_TESTS];
static int n_tests;

static int cur_failed, cur_skipped;
static char cur_msg[2048];
static char cur_tmp[512];

void th_register(const char *name, const char *file, th_fn fn)
{
    if (n_tests < MAX_TESTS) {
        tests[n_tests].name = name;
        tests[n_tests].file = file;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

void th_fail(const char *file, int line, const char *fmt, ...)
{
    int n = snprintf(cur_msg, sizeof cur_msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur_msg + n, sizeof cur_msg - (size_t)n, fmt, ap);
    va_end(ap);
    cur_failed = 1;
}

void th_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur_msg, sizeof cur_msg, fmt, ap);
    va_end(ap);
    cur_skipped = 1;
}

int th_failed(void) { return cur_failed; }

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

const char *th_tmpdir(void)
{
    if (!cur_tmp[0]) {
        snprintf(cur_tmp, sizeof cur_tmp, "/tmp/icv-test-XXXXXX");
        if (!mkdtemp(cur_tmp)) {
            fprintf(stderr, "cannot create a temporary folder: %s\n", strerror(errno));
            exit(2);
        }
    }
    return cur_tmp;
}

const char *th_tmp(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", th_tmpdir(), name);
    return buf;
}

int th_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

const char *th_read_file(const char *path)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

int th_dir_count(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    size_t k = strlen(prefix);
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !strncmp(e->d_name, prefix, k);
    closedir(d);
    return n;
}

const char *th_bin(void)
{
    const char *b = getenv("ICV_BIN");
    return b && *b ? b : "build/impactcv";
}

const char *th_root(void)
{
    const char *r = getenv("ICV_ROOT");
    return r && *r ? r : ".";
}

const char *th_shared(const char *rel)
{
    static char buf[1024];
    const char *s = getenv("ICV_SHARED");
    if (s && *s)
        snprintf(buf, sizeof buf, "%s/%s", s, rel);
    else
        snprintf(buf, sizeof buf, "%s/../shared/%s", th_root(), rel);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

int th_accuracy(void) { return getenv("ICV_ACCURACY") != NULL; }
int th_sanitized(void) { return getenv("ICV_SANITIZED") != NULL; }

double th_uniform(uint64_t seed, uint64_t k)
{
    uint64_t h = seed * 0x9E3779B97F4A7C15u + k * 0xBF58476D1CE4E5B9u; /* splitmix64's finaliser */
    h ^= h >> 31;
    h *= 0x94D049BB133111EBu;
    h ^= h >> 29;
    return (double)(h >> 11) / 9007199254740992.0 - 0.5;
}

static void slurp(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
}

static int run_shell(th_proc *p, const char *cmd)
{
    char full[8192], o[600], e[600];
    snprintf(o, sizeof o, "%s/.stdout", th_tmpdir());
    snprintf(e, sizeof e, "%s/.stderr", th_tmpdir());
    snprintf(full, sizeof full, "(%s) >'%s' 2>'%s' </dev/null", cmd, o, e);
    int st = system(full);
    slurp(o, p->out, sizeof p->out);
    slurp(e, p->err, sizeof p->err);
    remove(o);
    remove(e);
    if (st == -1)
        p->status = -1;
    else if (WIFEXITED(st))
        p->status = WEXITSTATUS(st);
    else
        p->status = 128 + WTERMSIG(st);
    return p->status;
}

int th_run_sh(th_proc *p, const char *fmt, ...)
{
    char cmd[6144];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return run_shell(p, cmd);
}

int th_run_cli(th_proc *p, const char *fmt, ...)
{
    char args[6144], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", th_bin(), args);
    return run_shell(p, cmd);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0, skipped = 0;
    double t_all = now();
    setvbuf(stdout, NULL, _IOLBF, 0);
    gsl_set_error_handler_off(); /* the program's policy (cli/main.c): statuses, never abort */
    for (int i = 0; i < n_tests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter))
            continue;
        cur_failed = cur_skipped = 0;
        cur_msg[0] = cur_tmp[0] = '\0';
        double t0 = now();
        tests[i].fn();
        double dt = now() - t0;
        if (cur_failed) {
            failed++;
            printf("FAIL %s (%.2f s)\n     %s\n", tests[i].name, dt, cur_msg);
            if (cur_tmp[0])
                printf("     files kept in %s\n", cur_tmp);
        } else {
            if (cur_skipped) {
                skipped++;
                printf("skip %s: %s\n", tests[i].name, cur_msg);
            } else {
                passed++;
                printf("ok   %s (%.2f s)\n", tests[i].name, dt);
            }
            if (cur_tmp[0])
                nftw(cur_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
    }
    printf("%.1f s\n", now() - t_all);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
