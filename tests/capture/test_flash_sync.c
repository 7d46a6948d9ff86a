/* test_flash_sync.c: the flash onset to a fraction of a frame from the partly exposed
 * first flash frame, through H.264 and on brightness series; offsets between cameras;
 * manual offsets override. The target: onset within 0.1 frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

#define BASE 60.0
#define RISE 120.0

/* Background level of frame k when a light of RISE comes on at fractional frame u and
 * the exposure lasts e frame periods, centred on k (frame k's mid-exposure is at k). */
static double lit_level(int k, double u, double e)
{
    double end = k + e / 2.0, frac = (end - u) / e;
    return BASE + RISE * (frac < 0 ? 0 : frac > 1 ? 1 : frac);
}

static void check_onset(double u, double e, double want)
{
    double b[60], t[60];
    for (int k = 0; k < 60; k++) {
        t[k] = k / 100.0;
        /* +-0.3 gray levels of deterministic noise on a 120-level rise */
        b[k] = lit_level(k, u, e) + 0.3 * sin(7.1 * k);
    }
    capture_flash fl;
    ASSERT_EQ_INT(capture_flash_detect(b, t, 60, e / 100.0, &fl), 1);
    ASSERT_NEAR(fl.onset_frame, want, 0.1);        /* the tolerance */
    ASSERT_NEAR(fl.onset_s, want / 100.0, 0.1 / 100.0);
}

TEST(test_flash_onset_from_brightness_ratio_within_0_1_frame)
{
    /* full-period exposure: frame 20 is exposed over [19.5, 20.5] */
    const double onsets[] = {19.55, 19.8, 20.0, 20.25, 20.45, 20.5};
    for (size_t i = 0; i < sizeof onsets / sizeof onsets[0]; i++) {
        check_onset(onsets[i], 1.0, onsets[i]);
        if (th_failed())
            return;
    }
    /* half-period exposure: frame 20 over [19.75, 20.25]; ratio gives the onset inside it */
    check_onset(19.8, 0.5, 19.8);
    check_onset(20.1, 0.5, 20.1);
    /* an onset while the shutter is closed (20.25..20.75) is placed mid-gap: off by at most
     * a quarter frame here, the information the images hold */
    check_onset(20.5, 0.5, 20.5);
}

TEST(test_no_flash_in_steady_video)
{
    double b[80], t[80];
    for (int k = 0; k < 80; k++) {
        t[k] = k / 30.0;
        b[k] = 100.0 + 1.5 * sin(0.9 * k) + 0.02 * k; /* flicker-like wobble and a drift */
    }
    capture_flash fl;
    ASSERT_EQ_INT(capture_flash_detect(b, t, 80, 0.0, &fl), 0);
}

/* Encodes a 120 fps H.264 clip whose flash comes on at fractional frame u. */
static int make_flash_clip(const char *path, double u)
{
    double level[100];
    for (int k = 0; k < 100; k++)
        level[k] = lit_level(k, u, 1.0);
    return vm_encode(path, "120", "-c:v libx264 -preset veryfast -crf 16 -pix_fmt yuv420p", 100, NULL, level);
}

TEST(test_flash_found_within_0_1_frame_in_h264_video)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("flash.mp4"));
    ASSERT_EQ_INT(make_flash_clip(path, 37.3), 0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    int has = p.has_flash;
    capture_flash fl = p.flash;
    capture_probe_free(&p);
    ASSERT_TRUE(has);
    ASSERT_EQ_INT(fl.frame, 37);                       /* 20 % of frame 37 is lit */
    ASSERT_NEAR(fl.onset_frame, 37.3, 0.1);            /* the target */
    ASSERT_NEAR(fl.onset_s, 37.3 / 120.0, 0.1 / 120.0);
}

TEST(test_flash_offsets_between_two_cameras)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", th_tmp("left.mp4"));
    snprintf(b, sizeof b, "%s", th_tmp("right.mp4"));
    ASSERT_EQ_INT(make_flash_clip(a, 37.3), 0);
    ASSERT_EQ_INT(make_flash_clip(b, 40.7), 0); /* the right camera sees it 3.4 frames later */
    static icv_experiment exp;
    memset(&exp, 0, sizeof exp);
    exp.n_cameras = 2;
    snprintf(exp.cameras[0].id, sizeof exp.cameras[0].id, "left");
    snprintf(exp.cameras[1].id, sizeof exp.cameras[1].id, "right");
    snprintf(exp.cameras[0].video, sizeof exp.cameras[0].video, "%s", a);
    snprintf(exp.cameras[1].video, sizeof exp.cameras[1].video, "%s", b);
    exp.sync = ICV_SYNC_FLASH;
    capture_sync s[2];
    capture_flash fl[2];
    icv_err err;
    ASSERT(capture_sync_experiment(&exp, 0, s, fl, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(s[0].offset_frames, 0.0, 1e-12);
    /* each onset is within 0.1 frame (issue target); the offset of two such is held to it too */
    ASSERT_NEAR(s[1].offset_frames, 3.4, 0.1);
    ASSERT_NEAR(s[1].offset_s, 3.4 / 120.0, 0.1 / 120.0);
    ASSERT_EQ_INT(s[1].manual, 0);

    /* manual offsets override the flash */
    exp.sync = ICV_SYNC_OFFSETS;
    exp.sync_offsets[0] = 0.0;
    exp.sync_offsets[1] = 2.5;
    ASSERT(capture_sync_experiment(&exp, 0, s, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(s[1].offset_frames, 2.5, 1e-12);
    ASSERT_NEAR(s[1].offset_s, 2.5 / 120.0, 1e-12);
    ASSERT_EQ_INT(s[1].manual, 1);
}

TEST(test_sync_without_flash_names_the_camera)
{
    char a[1024];
    snprintf(a, sizeof a, "%s", th_tmp("dark.mkv"));
    ASSERT_EQ_INT(vm_encode(a, "30", "-c:v ffv1", 30, NULL, NULL), 0);
    static icv_experiment exp;
    memset(&exp, 0, sizeof exp);
    exp.n_cameras = 2;
    snprintf(exp.cameras[0].id, sizeof exp.cameras[0].id, "left");
    snprintf(exp.cameras[1].id, sizeof exp.cameras[1].id, "right");
    snprintf(exp.cameras[0].video, sizeof exp.cameras[0].video, "%s", a);
    snprintf(exp.cameras[1].video, sizeof exp.cameras[1].video, "%s", a);
    exp.sync = ICV_SYNC_FLASH;
    capture_sync s[2];
    icv_err err;
    ASSERT_EQ_INT(capture_sync_experiment(&exp, 0, s, NULL, &err), ICV_ENOTFOUND);
    ASSERT_STR_CONTAINS(err.msg, "camera 'left': no flash found");
}

/* The onset error over sub-frame positions through H.264 (a few in make test; a table of
 * 21 positions at two qualities under make accuracy). */
TEST(test_flash_onset_error_over_subframe_positions)
{
    const int crfs[] = {16, 28};
    int n_on = th_accuracy() ? 21 : 4, n_crf = th_accuracy() ? 2 : 1;
    if (th_accuracy())
        printf("\n     flash onset through H.264, 120 fps, full-period exposure\n     crf  onset   found   error(frames)\n");
    double worst = 0;
    for (int c = 0; c < n_crf; c++)
        for (int i = 0; i < n_on; i++) {
            double u = 30.0 + (th_accuracy() ? 0.05 * i : 0.3 * i + 0.05);
            double level[80];
            for (int k = 0; k < 80; k++)
                level[k] = lit_level(k, u, 1.0);
            char path[1024], args[256];
            snprintf(path, sizeof path, "%s", th_tmp("onset.mp4"));
            snprintf(args, sizeof args, "-c:v libx264 -preset veryfast -crf %d -pix_fmt yuv420p", crfs[c]);
            ASSERT_EQ_INT(vm_encode(path, "120", args, 80, NULL, level), 0);
            capture_probe p;
            icv_err err;
            ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
            int has = p.has_flash;
            double got = p.flash.onset_frame;
            capture_probe_free(&p);
            ASSERT_TRUE(has);
            if (th_accuracy())
                printf("     %3d  %6.2f  %6.3f  %+.3f\n", crfs[c], u, got, got - u);
            if (fabs(got - u) > worst)
                worst = fabs(got - u);
        }
    if (th_accuracy())
        printf("     worst |error| %.3f frames\n", worst);
    ASSERT_NEAR(worst, 0.0, 0.1); /* the target */
}

TEST(test_experiment_capture_fps_puts_flash_on_the_capture_clock)
{
    /* the same 30 fps-tagged clip as two cameras; the second declares capture_fps: 240
     * (experiment.yaml cameras[].capture_fps), so its onset is 8x earlier in seconds */
    char a[1024];
    snprintf(a, sizeof a, "%s", th_tmp("slowmo.mp4"));
    double level[100];
    for (int k = 0; k < 100; k++)
        level[k] = lit_level(k, 37.3, 1.0);
    ASSERT_EQ_INT(vm_encode(a, "30", "-c:v libx264 -preset veryfast -crf 16 -pix_fmt yuv420p", 100, NULL, level), 0);
    static icv_experiment exp;
    memset(&exp, 0, sizeof exp);
    exp.n_cameras = 2;
    snprintf(exp.cameras[0].id, sizeof exp.cameras[0].id, "ref");
    snprintf(exp.cameras[1].id, sizeof exp.cameras[1].id, "fast");
    snprintf(exp.cameras[0].video, sizeof exp.cameras[0].video, "%s", a);
    snprintf(exp.cameras[1].video, sizeof exp.cameras[1].video, "%s", a);
    exp.cameras[1].capture_fps = 240.0;
    exp.sync = ICV_SYNC_FLASH;
    capture_sync s[2];
    capture_flash fl[2];
    icv_err err;
    ASSERT(capture_sync_experiment(&exp, 0, s, fl, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(fl[0].onset_s, 37.3 / 30.0, 0.1 / 30.0);   /* issue's 0.1 frame, at 30 fps */
    ASSERT_NEAR(fl[1].onset_s, 37.3 / 240.0, 0.1 / 240.0); /* the same, on the 240 fps clock */
    ASSERT_NEAR(fl[1].onset_frame, 37.3, 0.1);
    ASSERT_NEAR(s[1].offset_s, fl[1].onset_s - fl[0].onset_s, 1e-12);   /* the definition */
    ASSERT_NEAR(s[1].offset_frames, s[1].offset_s * 240.0, 1e-9);
    /* the flash is at the same experiment time in both cameras, by construction */
    ASSERT_NEAR(capture_sync_experiment_time(&s[1], fl[1].onset_s), capture_sync_experiment_time(&s[0], fl[0].onset_s),
                1e-12);
}

TEST(test_probe_exposure_option_times_a_short_exposure_flash)
{
    /* exposure half a frame period (a 180-degree shutter): frame 30 is exposed over
     * [29.75, 30.25]; the light comes on at 29.9, so 70 % of frame 30 is lit */
    double level[80];
    for (int k = 0; k < 80; k++)
        level[k] = lit_level(k, 29.9, 0.5);
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("short.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "120", "-c:v ffv1", 80, NULL, level), 0);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "probe --json --exposure %.9f '%s'", 0.5 / 120.0, path), 0);
    const char *t = strstr(p.out, "\"time_s\": ");
    ASSERT(t != NULL, "no flash time: %s", p.out);
    double ts = atof(t + 10);
    ASSERT_NEAR(ts * 120.0, 29.9, 0.1); /* the 0.1 frame */
    ASSERT_EQ_INT(th_run_cli(&p, "probe --exposure -1 '%s'", path), 2);
}

TEST(test_flash_found_under_slow_flicker)
{
    /* 100 Hz flicker of +-12 grey levels at 1000 fps (10 frames a cycle) on a level of
     * 75: its frame-to-frame changes reach 7 levels, so 12 of their robust sigmas
     * (~90 levels) would hide a 50-level flash step that any eye sees. */
    double b[40], t[40];
    const double u = 20.3, rise = 50.0;
    for (int k = 0; k < 40; k++) {
        t[k] = k / 1000.0;
        double frac = k + 0.5 - u; /* full-period exposure: frame k over [k - 0.5, k + 0.5] */
        b[k] = 75.0 + 12.0 * sin(2 * M_PI * k / 10.0 + 0.4) + 0.5 * sin(7.1 * k) +
               rise * (frac < 0 ? 0 : frac > 1 ? 1 : frac);
    }
    capture_flash fl;
    ASSERT_EQ_INT(capture_flash_detect(b, t, 40, 0.001, &fl), 1);
    /* the flicker moves the baseline and plateau by a few levels of the 50: a few
     * hundredths of a frame each */
    ASSERT_NEAR(fl.onset_frame, u, 0.25);
    /* and steady light with the same flicker holds no flash */
    for (int k = 0; k < 40; k++)
        b[k] = 75.0 + 12.0 * sin(2 * M_PI * k / 10.0 + 0.4) + 0.5 * sin(7.1 * k);
    ASSERT_EQ_INT(capture_flash_detect(b, t, 40, 0.001, &fl), 0);
}

TEST(test_flash_pulse_found_under_flicker_near_half_the_frame_rate)
{
    /* The mean brightness of the first 30 frames of two scene-study clips (synth's random
       scenes 5013 and 5046, left camera): 120 Hz flicker at 240 fps alternates frames by
       12 levels, at 500 fps it swings 16; the frame-to-frame sigma it swells hid a one-
       frame flash pulse of 110 and 125 levels ("no flash found for sync"). */
    static const double b240[30] = {60.90, 72.90, 60.91, 170.43, 81.73, 72.82, 61.12, 72.82, 61.12, 72.88,
                                    61.11, 72.86, 60.93, 72.94, 61.02, 72.86, 60.94, 72.95, 61.00, 72.95,
                                    60.97, 73.29, 61.19, 73.37, 61.13, 73.13, 61.33, 73.21, 61.12, 73.16};
    static const double b500[30] = {18.43, 29.04, 147.81, 56.08, 18.05, 27.12, 32.43, 23.62, 17.68, 26.14,
                                    33.02, 24.95, 17.06, 23.35, 32.32, 27.09, 17.09, 20.55, 30.19, 27.42,
                                    17.06, 18.64, 30.22, 30.21, 19.13, 17.76, 28.13, 30.31, 20.88, 16.43};
    const double *series[2] = {b240, b500}, fps[2] = {240, 500};
    const long lit[2] = {3, 2};
    for (int c = 0; c < 2; c++) {
        double b[30], t[30];
        for (int k = 0; k < 30; k++)
            b[k] = series[c][k], t[k] = k / fps[c];
        capture_flash fl;
        ASSERT_EQ_INT(capture_flash_detect(b, t, 30, 0, &fl), 1);
        ASSERT_EQ_INT((int)fl.frame, (int)lit[c]);
        /* the flicker alone holds no flash: the pulse's frames at their neighbours' level */
        b[lit[c]] = b[lit[c] - 2], b[lit[c] + 1] = b[lit[c] + 3];
        ASSERT_EQ_INT(capture_flash_detect(b, t, 30, 0, &fl), 0);
    }
}
