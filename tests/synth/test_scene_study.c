/* test_scene_study.c: the scene-variety study (issue #18 item 4). Per seed, a random
 * scene (`impactcv synth --random SEED`, synth/random_scene.c) goes through the
 * whole pipeline (`impactcv run`), then, when it completed, through the same run
 * with `--truth truth.json` (every stage reused from the cache: only the truth's
 * comparison runs, analysis/truth_compare.c, issue #9's tolerances for |g|, the
 * impact time, v, omega, e, impulse ratio and energy loss). Per scene: completed
 * (exit 0 and results.json) or failed with its one error line; within tolerance or
 * not; the 2D track errors (tracks2d_<camera>.csv against truth.json's
 * markers_2d_centroid, what a perfect blob detector measures; a band's against
 * markers_2d, the image of its axis point, where tracks2d puts it) and the 3D ones
 * (tracks3d.csv against markers_3d, both in the surface frame, so the surface
 * frame's own error is in them; in-plane x, y in one-camera mode). One table: share
 * completed, failures grouped by their line with numbers, files and names stripped,
 * share within tolerance, error percentiles. Two worker processes (fork) share the
 * seeds, one scene each at a time.
 *
 * Seeds: 1000-1199 tune the generator's defaults; 5000-5199 are held out, the
 * figures reported. `make test`: 5000-5019; `make accuracy`: 5000-5199. The issue's
 * targets (>= 98% completed, >= 95% within tolerance) are asserted only with
 * ICV_SCENE_STUDY_ASSERT=1 while the detector and tracker are rewritten; otherwise the
 * test SKIPs with the measured figures. ICV_SEEDS=a:b runs seeds a..b-1;
 * ICV_STUDY_DIR=folder keeps every scene and its run there (seed<N>/, seed<N>/out/,
 * the commands' stderr in seed<N>/<step>.err) and reuses a seed's finished result: delete
 * seed<N>/status to run the pipeline again on the kept scene, the folder to synthesise it
 * again (after a change to synth). */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "tests/harness.h"
#include "track/track_3d.h"

enum { WORKERS = 2, MAX_SEEDS = 2000, MAX_CLASSES = 64 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* One scene, in a worker: synth, run, run --truth; their exit statuses and times
 * in seed<N>/status (written last: a kept folder with a status is finished). */
static void scene(const char *base, long seed)
{
    char dir[1024], cmd[4096], st_path[1100];
    snprintf(dir, sizeof dir, "%s/seed%ld", base, seed);
    snprintf(st_path, sizeof st_path, "%s/status", dir);
    if (file_exists(st_path))
        return;
    /* a scene synthesised before (its marker written after synth succeeded) is kept:
     * synth is two thirds of a scene's time, and the pipeline is what changes */
    char synth_ok[1100];
    snprintf(synth_ok, sizeof synth_ok, "%s/synth.ok", dir);
    int have_scene = file_exists(synth_ok);
    if (have_scene)
        snprintf(cmd, sizeof cmd, "rm -rf '%s/out' '%s/run.err' '%s/truth.out' '%s/truth.err'", dir, dir, dir, dir);
    else
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return;
    double t0 = now_s();
    snprintf(cmd, sizeof cmd, "'%s' -q synth --random %ld -o '%s/exp' >'%s/synth.out' 2>'%s/synth.err'", th_bin(),
             seed, dir, dir, dir);
    int rs = have_scene ? 0 : system(cmd), rr = -1, rt = -1;
    if (rs == 0 && !have_scene)
        th_write_file(synth_ok, "");
    double t1 = now_s(), t2 = t1;
    if (rs == 0) {
        snprintf(cmd, sizeof cmd, "'%s' -q run '%s/exp/experiment.yaml' -o '%s/out' >/dev/null 2>'%s/run.err'",
                 th_bin(), dir, dir, dir);
        rr = system(cmd);
        t2 = now_s();
        if (rr == 0) {
            snprintf(cmd, sizeof cmd,
                     "'%s' -q run '%s/exp/experiment.yaml' -o '%s/out' --truth '%s/exp/truth.json' "
                     ">'%s/truth.out' 2>'%s/truth.err'",
                     th_bin(), dir, dir, dir, dir, dir);
            rt = system(cmd);
        }
    }
    char text[128];
    snprintf(text, sizeof text, "%d %d %d %.3f %.3f\n", rs ? 1 : 0, rr < 0 ? -1 : rr ? 1 : 0, rt < 0 ? -1 : rt ? 1 : 0,
             t1 - t0, t2 - t1);
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", st_path);
    if (th_write_file(tmp, text) == 0)
        rename(tmp, st_path);
}

/* the last "impactcv: " line of a stderr file, without the prefix ("" if none) */
static void error_line(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, "impactcv: ");
        if (p) {
            p += strlen("impactcv: ");
            p[strcspn(p, "\n")] = 0;
            snprintf(out, n, "%s", p);
        }
    }
    fclose(f);
}

/* A failure's class: paths, quoted names and numbers stripped, the headline only. */
static void error_class(const char *msg, char *out, size_t n)
{
    char buf[1024];
    size_t k = 0;
    for (const char *p = msg; *p && k + 8 < sizeof buf;) {
        /* a file (a token with '/' and a '.', or two '/', or a leading one; not
         * "m/s^2") -> <file> */
        size_t len = strcspn(p, " :;,()");
        const char *sl = len && (p == msg || strchr(" :;,()", p[-1])) ? memchr(p, '/', len) : NULL;
        if (sl && (memchr(p, '.', len) || *p == '/' || memchr(sl + 1, '/', len - (size_t)(sl + 1 - p)))) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "<file>");
            p += len;
        } else if (*p == '\'') {
            const char *e = strchr(p + 1, '\'');
            k += (size_t)snprintf(buf + k, sizeof buf - k, "'*'");
            p = e ? e + 1 : p + strlen(p);
        } else if (isdigit((unsigned char)*p) || ((*p == '-' || *p == '+' || *p == '.') && isdigit((unsigned char)p[1]))) {
            buf[k++] = 'N';
            p++;
            while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' ||
                   ((*p == '-' || *p == '+') && p[-1] == 'e'))
                p++;
        } else {
            buf[k++] = *p++;
        }
    }
    buf[k] = 0;
    char *cut = strstr(buf, "; ");
    if (cut)
        *cut = 0;
    if ((cut = strstr(buf, ": measured N"))) /* a truth disagreement: the quantity */
        *cut = 0;
    if ((cut = strstr(buf, " (<file>)")))
        memmove(cut, cut + 9, strlen(cut + 9) + 1);
    snprintf(out, n, "%.110s", buf);
}

typedef struct {
    char text[128];
    int count;
    long first_seed;
} err_class;

static void count_class(err_class *c, int *nc, const char *text, long seed)
{
    for (int i = 0; i < *nc; i++)
        if (!strcmp(c[i].text, text)) {
            c[i].count++;
            return;
        }
    if (*nc < MAX_CLASSES) {
        snprintf(c[*nc].text, sizeof c[*nc].text, "%s", text);
        c[*nc].count = 1;
        c[*nc].first_seed = seed;
        (*nc)++;
    }
}

/* growing arrays of errors (px, m) */
typedef struct {
    double *v;
    size_t n, cap;
} dvec;

static void push(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4096;
        double *nv = realloc(d->v, cap * sizeof *nv);
        if (!nv)
            return;
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n++] = x;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(dvec *d, double q)
{
    if (!d->n)
        return NAN;
    size_t i = (size_t)floor(q * (double)(d->n - 1) + 0.5);
    return d->v[i];
}

static double jnum(json_t *a, size_t i) { return json_number_value(json_array_get(a, i)); }

/* Which markers are bands round a rod (on a capsule's or cylinder's axis): tracks2d
 * gives a band at the image of its axis point (track/band_marker.c), not at the centroid
 * of the half band in view, several px from it. */
static void band_markers(const char *experiment, int *band, int n)
{
    memset(band, 0, sizeof *band * (size_t)n);
    icv_experiment exp;
    icv_err err = {0};
    if (icv_experiment_load(experiment, &exp, &err) != 0)
        return;
    track_band b;
    track_band_init(&exp, &b);
    for (int k = 0; k < exp.n_markers && k < n; k++)
        band[k] = b.band[k];
}

/* 2D errors of tracks2d_<cam>.csv against markers_2d_centroid, for bands markers_2d */
static void errors_2d(json_t *truth, const char *out, const int *band, dvec *e2)
{
    json_t *cams = json_object_get(truth, "cameras"), *cent = json_object_get(truth, "markers_2d_centroid");
    json_t *proj = json_object_get(truth, "markers_2d");
    for (size_t c = 0; c < json_array_size(cams); c++) {
        const char *id = json_string_value(json_object_get(json_array_get(cams, c), "id"));
        json_t *frames = json_object_get(cent, id ? id : ""), *frames_proj = json_object_get(proj, id ? id : "");
        char path[1200], line[512];
        snprintf(path, sizeof path, "%s/tracks2d_%s.csv", out, id ? id : "");
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(line, sizeof line, f))
            while (fgets(line, sizeof line, f)) {
                long frame;
                int k;
                double u, v;
                if (sscanf(line, "%ld,%*[^,],%d,%lf,%lf", &frame, &k, &u, &v) != 4 || frame < 0 ||
                    (size_t)frame >= json_array_size(frames))
                    continue;
                json_t *ref = k >= 0 && k < ICV_MAX_MARKERS && band[k] ? frames_proj : frames;
                json_t *p = json_array_get(json_object_get(json_array_get(ref, (size_t)frame), "uv"), (size_t)k);
                if (json_is_array(p))
                    push(e2, hypot(u - jnum(p, 0), v - jnum(p, 1)));
            }
        fclose(f);
    }
}

/* 3D errors of tracks3d.csv against markers_3d (in-plane only in one-camera mode) */
static void errors_3d(json_t *truth, const char *out, int planar, dvec *e3)
{
    json_t *m3 = json_object_get(truth, "markers_3d");
    char path[1200], line[8192];
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(line, sizeof line, f))
        while (fgets(line, sizeof line, f)) {
            char *fields[2 + 3 * 32];
            int nf = 0;
            for (char *p = line; nf < 2 + 3 * 32;) {
                fields[nf++] = p;
                p = strchr(p, ',');
                if (!p)
                    break;
                *p++ = 0;
            }
            long frame = atol(fields[0]);
            json_t *pos = json_object_get(json_array_get(m3, (size_t)frame), "positions");
            for (int k = 0; 2 + 3 * k + 2 < nf; k++) {
                json_t *p = json_array_get(pos, (size_t)k);
                if (!fields[2 + 3 * k][0] || fields[2 + 3 * k][0] == '\n' || !json_is_array(p))
                    continue;
                double d[3];
                for (int a = 0; a < 3; a++)
                    d[a] = atof(fields[2 + 3 * k + a]) - jnum(p, (size_t)a);
                push(e3, planar ? hypot(d[0], d[1]) : sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            }
        }
    fclose(f);
}

/* |a| against tolerance tol and sigma sd: 0 within tolerance; 1 out but within 3
 * sigmas whose sigma exceeds half the tolerance (the scene's own noise cannot give
 * it); 2 out beyond 3 sigmas, or with a sigma that says it should not be */
static int miss_kind(double a, double sd, double tol)
{
    if (fabs(a) <= tol)
        return 0;
    return sd > 0.5 * tol && fabs(a) <= 3 * sd ? 1 : 2;
}

/* Why a completed scene is out of tolerance, from results.json against truth.json with
 * issue #9's tolerances and the reported sigmas (|g|, the impact time, v, e and the
 * impulse ratio; omega and the energy loss only through `analyze --truth`'s verdict):
 * the impact count, the scene's noise (every miss within 3 of its reported sigmas,
 * each above half its tolerance), or the first quantity beyond that. */
static void out_cause(json_t *truth, const char *results, char *cls, size_t n)
{
    json_error_t je;
    json_t *r = json_load_file(results, 0, &je);
    json_t *ti = json_object_get(truth, "impacts"), *ri = json_object_get(r, "impacts");
    double fps = json_number_value(json_object_get(json_array_get(json_object_get(truth, "cameras"), 0), "fps"));
    int worst = 0;
    const char *what = "";
    if (!r || json_array_size(ri) != json_array_size(ti)) {
        snprintf(cls, n, "%s", r ? "impact count unlike the truth's" : "results.json unreadable");
        json_decref(r);
        return;
    }
    if (json_is_true(json_object_get(r, "gravity_estimated"))) {
        json_t *g = json_object_get(r, "gravity"), *gs = json_object_get(r, "gravity_sd"),
               *gt = json_object_get(truth, "gravity");
        double gn = 0, gtn = 0, var = 0;
        for (size_t a = 0; a < 3; a++)
            gn += jnum(g, a) * jnum(g, a), gtn += jnum(gt, a) * jnum(gt, a);
        gn = sqrt(gn), gtn = sqrt(gtn);
        for (size_t a = 0; a < 3; a++)
            var += pow(jnum(g, a) / gn * jnum(gs, a), 2);
        int k = miss_kind(gn - gtn, sqrt(var), 0.005 * gtn);
        if (k > worst)
            worst = k, what = "|g|";
    }
    for (size_t i = 0; i < json_array_size(ri); i++) {
        json_t *im = json_array_get(ri, i), *u = json_object_get(im, "uncertainty"), *best = NULL;
        double t = json_number_value(json_object_get(im, "time_s")), bd = INFINITY;
        for (size_t k = 0; k < json_array_size(ti); k++) {
            double d = fabs(json_number_value(json_object_get(json_array_get(ti, k), "time_s")) - t);
            if (d < bd)
                bd = d, best = json_array_get(ti, k);
        }
        int k = miss_kind(t - json_number_value(json_object_get(best, "time_s")),
                          json_number_value(json_object_get(u, "time_s")), fps > 0 ? 0.2 / fps : INFINITY);
        if (k > worst)
            worst = k, what = "impact time";
        json_t *vt = json_object_get(json_object_get(best, "pre"), "v");
        double speed = sqrt(jnum(vt, 0) * jnum(vt, 0) + jnum(vt, 1) * jnum(vt, 1) + jnum(vt, 2) * jnum(vt, 2));
        const char *side[2] = {"pre", "post"}, *usd[2] = {"v_pre", "v_post"};
        for (int sdx = 0; sdx < 2; sdx++)
            for (size_t a = 0; a < 3; a++) {
                json_t *vm = json_object_get(json_object_get(im, side[sdx]), "v"),
                       *vq = json_object_get(json_object_get(best, side[sdx]), "v");
                k = miss_kind(jnum(vm, a) - jnum(vq, a), jnum(json_object_get(u, usd[sdx]), a), 0.005 * speed);
                if (k > worst)
                    worst = k, what = sdx ? "v after" : "v before";
            }
        const char *q[2] = {"e_kinematic", "impulse_ratio"};
        for (int j = 0; j < 2; j++) {
            json_t *m = json_object_get(im, q[j]), *tq = json_object_get(best, q[j]);
            if (!json_is_number(m) || !json_is_number(tq))
                continue;
            k = miss_kind(json_number_value(m) - json_number_value(tq), json_number_value(json_object_get(u, q[j])),
                          0.01);
            if (k > worst)
                worst = k, what = q[j];
        }
    }
    if (worst == 2)
        snprintf(cls, n, "%s beyond 3 of its sigmas", what);
    else if (worst == 1)
        snprintf(cls, n, "the scene's noise: every miss within 3 sigmas above half its tolerance");
    else
        snprintf(cls, n, "omega or the energy loss");
    json_decref(r);
}

TEST(test_scene_study_random_scenes_complete_and_agree_with_truth)
{
    if (th_sanitized())
        SKIP("not under the sanitizers: each scene renders and runs the whole pipeline (~5 s plain, ~10x that "
             "under ASan), and the pipeline's code is covered by the other tests there");
    long a = 5000, b = th_accuracy() ? 5200 : 5020;
    const char *seeds = getenv("ICV_SEEDS");
    if (seeds && (sscanf(seeds, "%ld:%ld", &a, &b) != 2 || a < 0 || b <= a || b - a > MAX_SEEDS))
        ASSERT(0, "ICV_SEEDS='%s': expected a:b (seeds a..b-1, at most %d)", seeds, MAX_SEEDS);
    const char *base = getenv("ICV_STUDY_DIR") ? getenv("ICV_STUDY_DIR") : th_tmpdir();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", base);
    ASSERT(system(cmd) == 0, "cannot create %s", base);

    double t0 = now_s();
    fflush(NULL);
    pid_t pid[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pid[w] = fork();
        ASSERT(pid[w] >= 0, "fork failed");
        if (pid[w] == 0) {
            for (long s = a + w; s < b; s += WORKERS)
                scene(base, s);
            _exit(0);
        }
    }
    for (int w = 0; w < WORKERS; w++) {
        int st;
        waitpid(pid[w], &st, 0);
    }
    double wall = now_s() - t0;

    int n = (int)(b - a), synth_failed = 0, completed = 0, within = 0, nfail = 0, nout = 0, n_planar = 0;
    double synth_s = 0, run_s = 0;
    err_class fails[MAX_CLASSES], outs[MAX_CLASSES], causes[MAX_CLASSES];
    int ncause = 0;
    dvec e2 = {0}, e3 = {0};
    long first_synth_fail = -1;
    char first_synth_msg[512] = "";
    for (long s = a; s < b; s++) {
        char path[1200], msg[1024], cls[160];
        snprintf(path, sizeof path, "%s/seed%ld/status", base, s);
        const char *st = th_read_file(path);
        int rs = 1, rr = -1, rt = -1;
        double ts = 0, tr = 0;
        if (!st || sscanf(st, "%d %d %d %lf %lf", &rs, &rr, &rt, &ts, &tr) != 5)
            rs = 1;
        synth_s += ts;
        run_s += tr;
        if (rs) {
            synth_failed++;
            snprintf(path, sizeof path, "%s/seed%ld/synth.err", base, s);
            if (first_synth_fail < 0) {
                first_synth_fail = s;
                error_line(path, first_synth_msg, sizeof first_synth_msg);
            }
            continue;
        }
        snprintf(path, sizeof path, "%s/seed%ld/exp/truth.json", base, s);
        json_error_t je;
        json_t *truth = json_load_file(path, 0, &je);
        int planar = json_array_size(json_object_get(truth, "cameras")) == 1;
        n_planar += planar;
        snprintf(path, sizeof path, "%s/seed%ld/out/results.json", base, s);
        if (rr == 0 && file_exists(path)) {
            completed++;
            if (rt == 0) {
                within++;
            } else {
                snprintf(path, sizeof path, "%s/seed%ld/truth.err", base, s);
                error_line(path, msg, sizeof msg);
                const char *q = strstr(msg, "disagrees with the truth: ");
                error_class(q ? q + strlen("disagrees with the truth: ") : msg, cls, sizeof cls);
                count_class(outs, &nout, cls, s);
                snprintf(path, sizeof path, "%s/seed%ld/out/results.json", base, s);
                out_cause(truth, path, cls, sizeof cls);
                count_class(causes, &ncause, cls, s);
            }
            int band[ICV_MAX_MARKERS];
            snprintf(path, sizeof path, "%s/seed%ld/exp/experiment.yaml", base, s);
            band_markers(path, band, ICV_MAX_MARKERS);
            snprintf(path, sizeof path, "%s/seed%ld/out", base, s);
            errors_2d(truth, path, band, &e2);
            errors_3d(truth, path, planar, &e3);
        } else {
            snprintf(path, sizeof path, "%s/seed%ld/run.err", base, s);
            error_line(path, msg, sizeof msg);
            error_class(msg[0] ? msg : "(no error line)", cls, sizeof cls);
            count_class(fails, &nfail, cls, s);
        }
        json_decref(truth);
    }
    qsort(e2.v, e2.n, sizeof *e2.v, cmp_d);
    qsort(e3.v, e3.n, sizeof *e3.v, cmp_d);
    int made = n - synth_failed;
    printf("     scene study, seeds %ld-%ld (%d scenes, %d one-camera; %d workers): %.1f s wall, per scene synth "
           "%.2f s + run %.2f s\n",
           a, b - 1, n, n_planar, WORKERS, wall, made ? synth_s / made : 0, made ? run_s / made : 0);
    printf("     completed          %3d of %3d  %5.1f%%   (target >= 98%%)\n", completed, n, 100.0 * completed / n);
    printf("     within tolerance   %3d of %3d  %5.1f%%   (target >= 95%%; of the completed: %d of %d)\n", within, n,
           100.0 * within / n, within, completed);
    printf("     failed             %3d   by reason (count, first seed):\n", n - completed - synth_failed);
    for (int i = 0; i < nfail; i++)
        printf("       %3d  %5ld  %s\n", fails[i].count, fails[i].first_seed, fails[i].text);
    printf("     out of tolerance   %3d   by the first quantity out (count, first seed):\n", completed - within);
    for (int i = 0; i < nout; i++)
        printf("       %3d  %5ld  %s\n", outs[i].count, outs[i].first_seed, outs[i].text);
    printf("     out of tolerance   %3d   by cause, against the reported sigmas (count, first seed):\n",
           completed - within);
    for (int i = 0; i < ncause; i++)
        printf("       %3d  %5ld  %s\n", causes[i].count, causes[i].first_seed, causes[i].text);
    printf("     2D track error px (vs markers_2d_centroid, %zu points): p50 %.3g  p90 %.3g  p99 %.3g\n", e2.n,
           pct(&e2, 0.5), pct(&e2, 0.9), pct(&e2, 0.99));
    printf("     3D track error mm (vs markers_3d, surface frame, %zu points): p50 %.3g  p90 %.3g  p99 %.3g\n", e3.n,
           1e3 * pct(&e3, 0.5), 1e3 * pct(&e3, 0.9), 1e3 * pct(&e3, 0.99));
    double p2 = pct(&e2, 0.5), p3 = pct(&e3, 0.5);
    free(e2.v);
    free(e3.v);

    /* the generator gives a valid scene for every seed, today already */
    ASSERT(synth_failed == 0, "synth --random failed on %d of %d seeds (first %ld: %s)", synth_failed, n,
           first_synth_fail, first_synth_msg);
    double share_c = (double)completed / n, share_w = (double)within / n;
    if (!getenv("ICV_SCENE_STUDY_ASSERT") || strcmp(getenv("ICV_SCENE_STUDY_ASSERT"), "1"))
        SKIP("targets not asserted until the new detector and tracker land (ICV_SCENE_STUDY_ASSERT=1 asserts "
             "them): completed %.1f%%, within tolerance %.1f%% of %d scenes (seeds %ld-%ld); track error p50 "
             "2D %.3g px, 3D %.3g mm",
             100 * share_c, 100 * share_w, n, a, b - 1, p2, 1e3 * p3);
    /* issue #18: the pipeline completes on the scenes labs film and gets their physics */
    ASSERT(share_c >= 0.98, "completed %d of %d scenes (%.1f%%), target >= 98%%", completed, n, 100 * share_c);
    ASSERT(share_w >= 0.95, "within tolerance %d of %d scenes (%.1f%%), target >= 95%%", within, n, 100 * share_w);
}
