/* test_impact_any_rate_phone.c: issue #19's "Measured" figure for item 3 on video, as
 * a phone stores it. A one-camera ball bounce rendered by synth at 30, 60, 120 or 240
 * pictures/s (its throw and e drawn from the seed, so that the bounce falls anywhere
 * between two pictures) is stored as a phone does: each picture twice with fresh
 * sensor-like noise on every stored frame, re-encoded (ffmpeg's fps and noise filters,
 * x264), the pictures turned a quarter turn with a 90-degree rotation tag that turns
 * them back for display. `impactcv track` and `analyze` then measure it against
 * synth's truth: e, the launch speed (the first flight's, at its first frame) and the
 * speed at impact, the impact instant in pictures, and each one's error / sigma. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/harness.h"

typedef struct {
    double sum2[4]; /* squared error/sigma: t, e, launch speed, v_pre.y */
    int n, within;  /* measured; within the issue's tolerances */
    double worst_t, worst_e, worst_v; /* pictures, -, relative */
} phone_stats;

static double num_at(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static double vec_at(json_t *o, const char *k, int i) { return json_number_value(json_array_get(json_object_get(o, k), (size_t)i)); }

/* One seed at `fps` pictures/s in its own folder under dir; 0 when measured (errors
 * into st), else the failing step's message in msg. */
static int phone_ball(const char *dir, double fps, unsigned long seed, phone_stats *st, char *msg, size_t cap)
{
    /* the throw: released 20 ms before the first picture (so that no exposure holds it
       still), from 0.30-0.40 m, 0.3-0.9 m/s along the surface and -0.4..0.6 m/s up;
       e 0.65-0.9; the clip ends before the second landing (at most 0.3 s after the
       bounce: 8 pictures at 30/s at the least e) */
    const double g = 9.81, t_rel = -0.02, r = 0.02;
    double y0 = 0.35 + 0.1 * th_uniform(seed, 1), vx = 0.6 + 0.6 * th_uniform(seed, 2),
           vy = 0.1 + th_uniform(seed, 3), e = 0.775 + 0.25 * th_uniform(seed, 4),
           x0 = -0.28 + 0.04 * th_uniform(seed, 5);
    double t_imp = t_rel + (vy + sqrt(vy * vy + 2 * g * (y0 - r))) / g;
    double v_post = e * sqrt(vy * vy + 2 * g * (y0 - r));
    double duration = t_imp + fmin(0.3, 0.9 * 2 * v_post / g);
    char d[1200], path[1300], text[2048];
    snprintf(d, sizeof d, "%s/%.0f_%lu", dir, fps, seed);
    snprintf(text, sizeof text,
             "name: phone_ball\nseed: %lu\nduration: %.4f\nmax_impacts: 1\n"
             "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"
             "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"
             "  shape: {type: sphere, radius: %.3f}\n"
             "model: {restitution: newton, mu: 0.2, e_n: %.6f}\n"
             "release: {time: %.3f, position: [%.6f, %.6f, 0], velocity: [%.6f, %.6f, 0]}\n"
             "cameras:\n  - {id: cam, width: 640, height: 360, fx: 500, fps: %.0f, exposure: %.6f,\n"
             "     pose: {look_from: [0.0, 0.2, 1.2], look_at: [0.0, 0.2, 0]}}\n"
             "board: {cols: 7, rows: 5, square: 0.03, views: 8, max_tilt: 0.6}\n"
             "render: {flash: none}\noutput: {codec: h264, crf: 20}\n",
             seed, duration, r, e, t_rel, x0, y0, vx, vy, fps, fmin(0.004, 0.5 / fps));
    th_proc p;
    snprintf(path, sizeof path, "%s/phone.yaml", d);
    /* a kept folder (ICV_PHONE_DIR) with its phone file reruns track and analyze only */
    int rc = 0, kept = getenv("ICV_PHONE_DIR") && access(path, R_OK) == 0;
    snprintf(path, sizeof path, "%s.yaml", d);
    if (!kept && th_write_file(path, text)) {
        snprintf(msg, cap, "%s: cannot write", path);
        return -1;
    }
    if (!kept)
        rc = th_run_cli(&p, "-q synth '%s' -o '%s'", path, d);
    /* each picture twice, fresh noise on each, re-encoded; turned a quarter turn
       clockwise and tagged rotate=90, which a player (and capture) turns back */
    if (!rc && !kept)
        rc = th_run_sh(&p,
                       "cd '%s' && ffmpeg -nostdin -v error -y -i cam.mp4 -vf 'fps=%.0f,noise=alls=4:allf=t,"
                       "transpose=clock' -c:v libx264 -crf 20 -pix_fmt yuv420p turned.mp4 && ffmpeg -nostdin -v "
                       "error -y -i turned.mp4 -c copy -metadata:s:v:0 rotate=90 phone.mp4 && sed 's/video: "
                       "cam.mp4/video: phone.mp4/' experiment.yaml > phone.yaml",
                       d, 2 * fps);
    if (!rc)
        rc = th_run_cli(&p, "-q track '%s/phone.yaml' -o '%s/out'", d, d);
    if (!rc)
        rc = th_run_cli(&p, "-q analyze '%s/phone.yaml' -o '%s/out'", d, d);
    if (rc) {
        snprintf(msg, cap, "%.0f fps, seed %lu: %.400s", fps, seed, p.err);
        return -1;
    }
    snprintf(path, sizeof path, "%s/out/results.json", d);
    json_t *res = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/truth.json", d);
    json_t *tru = json_load_file(path, 0, NULL);
    json_t *im = json_array_get(json_object_get(res, "impacts"), 0), *fl = json_array_get(json_object_get(res, "flights"), 0),
           *ti = json_array_get(json_object_get(tru, "impacts"), 0);
    int ok = im && fl && ti && json_array_size(json_object_get(res, "impacts")) == 1;
    if (ok) {
        json_t *u = json_object_get(im, "uncertainty"), *fu = json_object_get(fl, "uncertainty");
        double t_true = num_at(ti, "time_s"), e_true = num_at(ti, "e_kinematic");
        double vpy_true = vec_at(json_object_get(ti, "pre"), "v", 1);
        double dt = num_at(im, "time_s") - t_true, de = num_at(im, "e_kinematic") - e_true;
        /* the launch: the truth's velocity at the first flight's first frame */
        double ts = num_at(fl, "t_start_s");
        double launch = hypot(vx, vy - g * (ts - t_rel));
        double dl = num_at(fl, "speed") - launch;
        double vpre = hypot(vec_at(json_object_get(im, "pre"), "v", 0), vec_at(json_object_get(im, "pre"), "v", 1));
        double vpre_true = hypot(vec_at(json_object_get(ti, "pre"), "v", 0), vpy_true);
        double dv = fabs(dl / launch) > fabs(vpre / vpre_true - 1) ? dl / launch : vpre / vpre_true - 1;
        double pulls[4] = {dt / num_at(u, "time_s"), de / num_at(u, "e_kinematic"), dl / num_at(fu, "speed"),
                           (vec_at(json_object_get(im, "pre"), "v", 1) - vpy_true) / vec_at(u, "v_pre", 1)};
        for (int k = 0; k < 4; k++)
            st->sum2[k] += pulls[k] * pulls[k];
        st->n++;
        st->within += fabs(dt * fps) <= 0.2 && fabs(de) <= 0.02 && fabs(dv) <= 0.01;
        st->worst_t = fmax(st->worst_t, fabs(dt * fps));
        st->worst_e = fmax(st->worst_e, fabs(de));
        st->worst_v = fmax(st->worst_v, fabs(dv));
        if (getenv("ICV_VERBOSE"))
            printf("       %3.0f fps seed %2lu: instant %+.3f pictures, e %+.4f, speed %+.2f%%; pulls t %+.2f e %+.2f "
                   "launch %+.2f v_pre.y %+.2f\n",
                   fps, seed, dt * fps, de, 100 * dv, pulls[0], pulls[1], pulls[2], pulls[3]);
    } else
        snprintf(msg, cap, "%.0f fps, seed %lu: %zu impacts measured, %zu flights (1 impact made)", fps, seed,
                 json_array_size(json_object_get(res, "impacts")), json_array_size(json_object_get(res, "flights")));
    json_decref(res);
    json_decref(tru);
    return ok ? 0 : -1;
}

TEST(test_impact_any_rate_phone_video_balls_stored_twice_and_turned_meet_the_issue)
{
    /* Issue #19, item 3's figure: e within 0.02, the launch speed (and the speed at
       impact) within 1%, the impact instant within 0.2 picture, at 30-240 pictures/s
       stored twice and tagged rotate=90; over 20 seeds per rate (ICV_ACCURACY) the RMS
       error / sigma of t, e, the launch speed and v_pre.y within 0.7-1.5 (make test: 1
       seed per rate and 30 fps seed 9, the tolerances only: one seed does not measure
       a spread). ICV_PHONE_SEEDS=N runs N per rate, ICV_PHONE_RATE=R only rate R
       (30, 60, 120 or 240), ICV_PHONE_FIRST=F seeds F..F+N-1; ICV_PHONE_DIR keeps the
       scenes there and reruns only track and analyze on a kept one. */
    if (th_sanitized())
        SKIP("5 scenes of synth, ffmpeg, track and analyze, 30 s plain, several times that under the sanitizers: "
             "test_low_rate_toss and test_repeated_pictures run the same stages there");
    const double rates[] = {30, 60, 120, 240};
    int seeds = th_accuracy() ? 20 : 1;
    if (getenv("ICV_PHONE_SEEDS"))
        seeds = atoi(getenv("ICV_PHONE_SEEDS"));
    char msg[1024], first_fail[1024] = "";
    double rms[4][4];
    phone_stats st[4];
    int n_runs[4];
    int first = getenv("ICV_PHONE_FIRST") ? atoi(getenv("ICV_PHONE_FIRST")) : 1;
    double only_rate = getenv("ICV_PHONE_RATE") ? atof(getenv("ICV_PHONE_RATE")) : 0;
    const char *dir = getenv("ICV_PHONE_DIR") ? getenv("ICV_PHONE_DIR") : th_tmpdir();
    int ran[4] = {0};
    for (int k = 0; k < 4; k++) {
        memset(&st[k], 0, sizeof st[k]);
        n_runs[k] = 0;
        if (only_rate > 0 && only_rate != rates[k])
            continue;
        ran[k] = 1;
        /* every seed is run (a failure is one line and counts as out of tolerance): the
           table is the study's figure */
        /* make test adds 30 fps seed 9: its bounce falls between the two stored copies'
           pictures 7 and 8, where the tracker lost the ball while it was fed each
           picture twice */
        int n_run = seeds + (seeds < 9 && k == 0 && first == 1);
        for (int q = 1; q <= n_run; q++) {
            int sd = q <= seeds ? first + q - 1 : 9;
            if (phone_ball(dir, rates[k], (unsigned long)(100 * k + sd), &st[k], msg, sizeof msg)) {
                printf("       %s\n", msg);
                if (!first_fail[0])
                    snprintf(first_fail, sizeof first_fail, "%s", msg);
            }
        }
        for (int q = 0; q < 4; q++)
            rms[k][q] = sqrt(st[k].sum2[q] / st[k].n);
        n_runs[k] = n_run;
        printf("     %3.0f fps: %d of %d seeds measured, %d within tolerance (worst: instant %.3f picture, e %.4f, "
               "speed %.2f%%); RMS error/sigma t %.2f e %.2f launch %.2f v_pre.y %.2f\n",
               rates[k], st[k].n, n_run, st[k].within, st[k].worst_t, st[k].worst_e, 100 * st[k].worst_v, rms[k][0],
               rms[k][1], rms[k][2], rms[k][3]);
    }
    ASSERT(!first_fail[0], "%s", first_fail);
    for (int k = 0; k < 4; k++)
        ASSERT(!ran[k] || st[k].within == n_runs[k], "%.0f fps: %d of %d seeds within the tolerances (worst: instant %.3f "
               "picture, e %.4f, speed %.2f%%)", rates[k], st[k].within, n_runs[k], st[k].worst_t, st[k].worst_e,
               100 * st[k].worst_v);
    if (seeds >= 20)
        for (int k = 0; k < 4; k++)
            for (int q = 0; q < 4 && ran[k]; q++)
                ASSERT(rms[k][q] >= 0.7 && rms[k][q] <= 1.5, "%.0f fps: RMS error/sigma %s is %.2f (target 0.7-1.5)",
                       rates[k], (const char *const[]){"t", "e", "launch speed", "v_pre.y"}[q], rms[k][q]);
}
