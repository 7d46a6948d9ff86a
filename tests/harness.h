/* harness.h: impactcv's test harness. Tests register themselves:
 *
 *   TEST(test_stronge_never_creates_energy) { ... ASSERT_NEAR(x, 1.0, 1e-9); }
 *
 * An ASSERT that fails records file:line, both values and the message, and returns
 * from the test. The runner (tests/harness.c) runs every test (or those whose
 * name contains argv[1]) and ends with the line "N passed, N failed, N skipped".
 * Every tolerance in a test states its reason in a comment next to it. */
#ifndef ICV_TEST_HARNESS_H
#define ICV_TEST_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef void (*th_fn)(void);
void th_register(const char *name, const char *file, th_fn fn);
void th_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void th_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int th_failed(void); /* the current test has failed */

#define TEST(name)                                                       \
    static void name(void);                                              \
    __attribute__((constructor)) static void name##_register(void)      \
    {                                                                    \
        th_register(#name, __FILE__, name);                              \
    }                                                                    \
    static void name(void)

#define ASSERT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            th_fail(__FILE__, __LINE__, __VA_ARGS__);      \
            return;                                        \
        }                                                  \
    } while (0)

#define ASSERT_TRUE(cond) ASSERT((cond), "expected %s", #cond)

#define ASSERT_NEAR(a, b, tol)                                                                            \
    do {                                                                                                  \
        double th_a_ = (a), th_b_ = (b), th_t_ = (tol);                                                   \
        if (!(fabs(th_a_ - th_b_) <= th_t_)) {                                                            \
            th_fail(__FILE__, __LINE__, "%s = %.12g, expected %s = %.12g within %g (off by %.3g)", #a, th_a_, \
                    #b, th_b_, th_t_, fabs(th_a_ - th_b_));                                               \
            return;                                                                                       \
        }                                                                                                 \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                                               \
    do {                                                                                                  \
        long long th_a_ = (long long)(a), th_b_ = (long long)(b);                                         \
        if (th_a_ != th_b_) {                                                                             \
            th_fail(__FILE__, __LINE__, "%s = %lld, expected %s = %lld", #a, th_a_, #b, th_b_);           \
            return;                                                                                       \
        }                                                                                                 \
    } while (0)

#define ASSERT_STR_CONTAINS(hay, needle)                                                                  \
    do {                                                                                                  \
        const char *th_h_ = (hay), *th_n_ = (needle);                                                     \
        if (!th_h_ || !strstr(th_h_, th_n_)) {                                                            \
            th_fail(__FILE__, __LINE__, "%s does not contain \"%s\": \"%s\"", #hay, th_n_,                \
                    th_h_ ? th_h_ : "(null)");                                                            \
            return;                                                                                       \
        }                                                                                                 \
    } while (0)

/* Skips the rest of the test, saying why (e.g. ../shared/data absent). */
#define SKIP(...)             \
    do {                      \
        th_skip(__VA_ARGS__); \
        return;               \
    } while (0)

/* A fresh, empty folder for this test, removed when the test passes. */
const char *th_tmpdir(void);
/* tmpdir/name into a static buffer (valid until the next call). */
const char *th_tmp(const char *name);
/* Writes text to a file; returns 0 or -1. */
int th_write_file(const char *path, const char *text);
/* Reads a whole file into a static buffer of 1 MiB (NULL on failure). */
const char *th_read_file(const char *path);
/* How many entries of folder dir have names starting with prefix ("" for all; "." and
 * ".." never), or -1 when dir cannot be read (absent). */
int th_dir_count(const char *dir, const char *prefix);

/* Runs `ICV_BIN args` through /bin/sh, capturing stdout and stderr (each cut to
 * 64 KiB), and returns the exit status (128+signal when killed). */
typedef struct {
    int status;
    char out[65536];
    char err[65536];
} th_proc;
int th_run_cli(th_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs an arbitrary shell command (not the CLI), same capture. */
int th_run_sh(th_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *th_bin(void);          /* path of the impactcv binary under test */
const char *th_root(void);         /* the repository's root */
/* ../shared/<rel>, or NULL when that does not exist (then SKIP). */
const char *th_shared(const char *rel);
int th_accuracy(void);             /* `make accuracy`: run the long studies */
int th_sanitized(void);            /* running under ASan+UBSan (slower) */
/* A deterministic number in [-0.5, 0.5) from (seed, k): a test's per-seed jitter */
double th_uniform(uint64_t seed, uint64_t k);

/* The contract's rod with three band markers as a synth scenario's body block
 * (YAML, string literal to paste into a scenario's text) */
#define TH_ROD_BODY_YAML                                                                                           \
    "body:\n"                                                                                                      \
    "  mass: 0.169\n"                                                                                              \
    "  inertia: [[1.312e-3, 0, 0], [0, 7.7e-6, 0], [0, 0, 1.312e-3]]\n"                                            \
    "  markers: [[0, 0.127, 0], [0, 0, 0], [0, -0.127, 0]]\n"                                                      \
    "  marker_diameter: 0.012\n"                                                                                   \
    "  marker_style: band\n"                                                                                       \
    "  shape: {type: capsule, axis: [0, 1, 0], length: 0.3048, radius: 0.009525}\n"

#endif
