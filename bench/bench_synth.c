/* bench_synth.c: render speed of synth/ for a 1280x720 stereo scenario with 8 blur
 * sub-frames (issue #5 goal: >= 60 frames/s per camera on one core), rendering only
 * (no encoding); also the one-off cost per camera (rays, static background). */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "synth/synth.h"

int main(void)
{
    gsl_set_error_handler_off(); /* the program's policy, as in cli/main.c */
    static synth_scenario sc;
    synth_scenario_defaults(&sc);
    sc.n_cameras = 2;
    const char *ids[2] = {"left", "right"};
    for (int i = 0; i < 2; i++) {
        synth_camera *c = &sc.cameras[i];
        snprintf(c->id, sizeof c->id, "%s", ids[i]);
        c->model.width = 1280;
        c->model.height = 720;
        c->model.fx = c->model.fy = 1000;
        c->model.cx = 639.5;
        c->model.cy = 359.5;
        c->model.dist[0] = -0.1;
        icv_err err;
        synth_camera_look_at(&c->model, icv_v3(i ? 0.3 : -0.3, 0.35, 0.9), icv_v3(0, 0.12, 0), icv_v3(0, 1, 0), &err);
        c->fps = 240;
        c->exposure_s = 1.0 / 480;
        c->n_frames = 96; /* 0.4 s */
    }
    sc.render.blur_subframes = 8;
    sc.release_time_s = 0.02;
    sc.release.p = icv_v3(0, 0.3, 0);
    sc.release.R = icv_euler213_to_matrix(icv_v3(0.3, 0.6, 0.1));
    sc.release.omega = icv_v3(0, 0, 3);
    sc.max_impacts = 1;
    icv_err err;
    synth_flight *f;
    if (synth_flight_run(&sc, 0.45, &f, &err)) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return 1;
    }
    uint8_t *img = malloc(1280 * 720);
    double total_fps = 0, total_cpu_fps = 0;
    for (int ci = 0; ci < 2; ci++) {
        double t0 = icv_now();
        synth_renderer *r;
        if (synth_renderer_alloc(&sc, ci, &r, &err)) {
            fprintf(stderr, "bench_synth: %s\n", err.msg);
            return 1;
        }
        double t1 = icv_now(), c1 = icv_cpu_now();
        int n = sc.cameras[ci].n_frames;
        for (int k = 0; k < n; k++)
            synth_renderer_frame(r, f, k, img);
        double t2 = icv_now(), c2 = icv_cpu_now();
        double fps = n / (t2 - t1);
        total_fps += fps;
        total_cpu_fps += n / (c2 - c1);
        printf("camera %-5s 1280x720, 8 blur sub-frames, 8x8 edge supersampling, noise on: %6.1f frames/s "
               "(goal 60: ratio %.2f), %6.1f per CPU second; one-off setup %.2f s\n",
               sc.cameras[ci].id, fps, fps / 60, n / (c2 - c1), t1 - t0);
        synth_renderer_free(r);
    }
    printf("mean per camera: %.1f frames/s (goal >= 60, ratio %.2f); %.1f per CPU second (the rate on an "
           "unshared core)\n",
           total_fps / 2, total_fps / 2 / 60, total_cpu_fps / 2);
    free(img);
    synth_flight_free(f);
    return 0;
}
