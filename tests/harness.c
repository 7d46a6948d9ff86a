/* harness.c: the test runner. Runs the registered tests (those whose name or file
 * contains argv[1] if given), one line each, then the summary line
 * "N passed, N failed, N skipped" that CI reads; exits 1 if any failed.
 *
 * ICV_TEST_JOBS worker processes (default: one per core) share the work a test file
 * at a time, so a file's tests run in order in one process (their shared caches and
 * the Slurm tests' one cluster stay as written). Each test's printed lines and
 * warnings are captured and shown together with its result line. ICV_TEST_JOBS=1
 * runs everything in this process, in order (for a debugger). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <poll.h>
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

enum { RESULT_START, RESULT_PASSED, RESULT_FAILED, RESULT_SKIPPED };

/* One test's outcome, as a worker sends it to the runner. */
typedef struct {
    int test, kind;
    double seconds;
    char msg[2048];
    char kept_dir[512];    /* its temporary folder, kept because it failed */
    char output_path[256]; /* the file its printed lines went to ("" when not captured) */
} test_result;

static void run_test(int i, test_result *r)
{
    cur_failed = cur_skipped = 0;
    cur_msg[0] = cur_tmp[0] = '\0';
    double t0 = now();
    tests[i].fn();
    r->test = i;
    r->seconds = now() - t0;
    r->kind = cur_failed ? RESULT_FAILED : cur_skipped ? RESULT_SKIPPED : RESULT_PASSED;
    snprintf(r->msg, sizeof r->msg, "%s", cur_msg);
    r->kept_dir[0] = '\0';
    if (cur_failed)
        snprintf(r->kept_dir, sizeof r->kept_dir, "%s", cur_tmp);
    else if (cur_tmp[0])
        nftw(cur_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int n_passed, n_failed, n_skipped;

/* The test's captured lines, then its result line. */
static void print_result(const test_result *r)
{
    if (r->output_path[0]) {
        FILE *f = fopen(r->output_path, "rb");
        if (f) {
            char buf[8192];
            for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
                fwrite(buf, 1, n, stdout);
            fclose(f);
        }
        remove(r->output_path);
    }
    const char *name = tests[r->test].name;
    if (r->kind == RESULT_FAILED) {
        n_failed++;
        printf("FAIL %s (%.2f s)\n     %s\n", name, r->seconds, r->msg);
        if (r->kept_dir[0])
            printf("     files kept in %s\n", r->kept_dir);
    } else if (r->kind == RESULT_SKIPPED) {
        n_skipped++;
        printf("skip %s: %s\n", name, r->msg);
    } else {
        n_passed++;
        printf("ok   %s (%.2f s)\n", name, r->seconds);
    }
    fflush(stdout);
}

static int selected(int i, const char *filter)
{
    return !filter || strstr(tests[i].name, filter) || strstr(tests[i].file, filter);
}

static int write_all(int fd, const void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = write(fd, (const char *)p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

/* 1 when a whole record was read, 0 at the end of the stream */
static int read_all(int fd, void *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = read(fd, (char *)p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        done += (size_t)k;
    }
    return 1;
}

/* A worker: takes test files from `work` until none is left; runs each selected test
 * of the file in order with its output captured, and reports before and after it. */
static void worker(int work, int results, const char *filter)
{
    int saved_out = dup(1), saved_err = dup(2);
    for (int first; read_all(work, &first, sizeof first);) {
        for (int i = first; i < n_tests; i++) {
            if (strcmp(tests[i].file, tests[first].file))
                continue;
            if (!selected(i, filter))
                continue;
            static test_result r;
            memset(&r, 0, sizeof r);
            r.test = i;
            r.kind = RESULT_START;
            snprintf(r.output_path, sizeof r.output_path, "/tmp/icv-test-output-XXXXXX");
            int fd = mkstemp(r.output_path);
            if (fd < 0)
                r.output_path[0] = '\0';
            if (write_all(results, &r, sizeof r))
                _exit(2);
            fflush(stdout);
            fflush(stderr);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
            run_test(i, &r);
            fflush(stdout);
            fflush(stderr);
            dup2(saved_out, 1);
            dup2(saved_err, 2);
            if (write_all(results, &r, sizeof r))
                _exit(2);
        }
    }
    close(results);
    exit(0); /* through exit: LeakSanitizer checks the worker's heap here */
}

static int run_parallel(int jobs, const char *filter)
{
    /* a file's first selected test stands for the file */
    static int firsts[MAX_TESTS];
    int n_files = 0;
    for (int i = 0; i < n_tests; i++) {
        if (!selected(i, filter))
            continue;
        int seen = 0;
        for (int k = 0; k < n_files && !seen; k++)
            seen = !strcmp(tests[firsts[k]].file, tests[i].file);
        if (!seen)
            firsts[n_files++] = i;
    }
    if (jobs > n_files)
        jobs = n_files > 0 ? n_files : 1;
    int work[2];
    if (pipe(work) || write_all(work[1], firsts, sizeof firsts[0] * (size_t)n_files)) {
        fprintf(stderr, "test runner: cannot share out the work: %s\n", strerror(errno));
        return -1;
    }
    close(work[1]);
    struct pollfd fds[64];
    pid_t pid[64];
    test_result running[64];
    if (jobs > 64)
        jobs = 64;
    fflush(stdout);
    fflush(stderr);
    for (int w = 0; w < jobs; w++) {
        int res[2];
        if (pipe(res)) {
            fprintf(stderr, "test runner: pipe: %s\n", strerror(errno));
            return -1;
        }
        pid[w] = fork();
        if (pid[w] < 0) {
            fprintf(stderr, "test runner: fork: %s\n", strerror(errno));
            return -1;
        }
        if (pid[w] == 0) {
            close(res[0]);
            for (int k = 0; k < w; k++)
                close(fds[k].fd);
            worker(work[0], res[1], filter);
        }
        close(res[1]);
        fds[w].fd = res[0];
        fds[w].events = POLLIN;
        running[w].test = -1;
    }
    close(work[0]);
    for (int open = jobs; open > 0;) {
        if (poll(fds, (nfds_t)jobs, -1) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "test runner: poll: %s\n", strerror(errno));
            return -1;
        }
        for (int w = 0; w < jobs; w++) {
            if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            static test_result r;
            if (read_all(fds[w].fd, &r, sizeof r)) {
                if (r.kind == RESULT_START)
                    running[w] = r;
                else {
                    print_result(&r);
                    running[w].test = -1;
                }
                continue;
            }
            /* the worker is gone: a crash (a sanitizer's report, a signal) fails the test
               it was running; a bad exit status after its last test (leaks) fails the run */
            close(fds[w].fd);
            fds[w].fd = -1;
            open--;
            int st = 0;
            waitpid(pid[w], &st, 0);
            char how[128];
            if (WIFSIGNALED(st))
                snprintf(how, sizeof how, "signal %d", WTERMSIG(st));
            else
                snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(st));
            if (running[w].test >= 0) {
                running[w].kind = RESULT_FAILED;
                snprintf(running[w].msg, sizeof running[w].msg, "the test process ended during the test (%s)", how);
                print_result(&running[w]);
            } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                n_failed++;
                printf("FAIL a test process ended with %s after its last test (see its messages above)\n", how);
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    double t_all = now();
    setvbuf(stdout, NULL, _IOLBF, 0);
    gsl_set_error_handler_off(); /* the program's policy (cli/main.c): statuses, never abort */
    const char *j = getenv("ICV_TEST_JOBS");
    long jobs = j && *j ? strtol(j, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs > 1) {
        if (run_parallel((int)jobs, filter))
            return 2;
    } else {
        for (int i = 0; i < n_tests; i++) {
            if (!selected(i, filter))
                continue;
            static test_result r;
            run_test(i, &r);
            r.output_path[0] = '\0';
            print_result(&r);
        }
    }
    printf("%.1f s\n", now() - t_all);
    printf("%d passed, %d failed, %d skipped\n", n_passed, n_failed, n_skipped);
    return n_failed ? 1 : 0;
}
