/* test_flicker.c: mains flicker (100/120 Hz) found at its alias in the per-frame
 * brightness, through FFV1 video and on brightness series; none in a steady video. */
#include <math.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

/* Brightness of n frames at fs of a lamp flickering at f (amplitude a) plus a slow drift
 * and deterministic pseudo-noise of +-1 gray level. */
static void series(double *t, double *b, int n, double fs, double f, double a)
{
    unsigned s = 7;
    for (int k = 0; k < n; k++) {
        s = s * 1103515245u + 12345u;
        t[k] = k / fs;
        b[k] = 100.0 + a * sin(2 * M_PI * f * t[k] + 0.4) + 0.01 * k + ((double)((s >> 16) % 2001) / 1000.0 - 1.0);
    }
}

TEST(test_flicker_100hz_at_240fps_and_120hz_at_50fps)
{
    double t[400], b[400];
    capture_flicker fl;
    series(t, b, 400, 240.0, 100.0, 3.0);
    capture_flicker_detect(t, b, 400, 240.0, &fl);
    ASSERT_NEAR(fl.hz, 100.0, 0.0);
    ASSERT_NEAR(fl.alias_hz, 100.0, 240.0 / 400.0); /* within one bin of resolution fs/n */
    ASSERT_NEAR(fl.amplitude, 3.0, 0.5);            /* noise of +-1 spread over 400 samples */

    series(t, b, 400, 50.0, 120.0, 3.0);            /* aliases to |120 - 2*50| = 20 Hz */
    capture_flicker_detect(t, b, 400, 50.0, &fl);
    ASSERT_NEAR(fl.hz, 120.0, 0.0);
    ASSERT_NEAR(fl.alias_hz, 20.0, 50.0 / 400.0);

    series(t, b, 300, 30.0, 100.0, 2.0);            /* a phone at 30 fps: 10 Hz beat */
    capture_flicker_detect(t, b, 300, 30.0, &fl);
    ASSERT_NEAR(fl.hz, 100.0, 0.0);
    ASSERT_NEAR(fl.alias_hz, 10.0, 30.0 / 300.0);
}

TEST(test_no_flicker_in_noise)
{
    double t[400], b[400];
    capture_flicker fl;
    series(t, b, 400, 240.0, 100.0, 0.0);
    capture_flicker_detect(t, b, 400, 240.0, &fl);
    ASSERT_NEAR(fl.hz, 0.0, 0.0);
}

TEST(test_probe_finds_flicker_in_video)
{
    double level[96];
    for (int k = 0; k < 96; k++)
        level[k] = 100.0 + 6.0 * sin(2 * M_PI * 100.0 * k / 240.0);
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("flicker.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "240", "-c:v ffv1", 96, NULL, level), 0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    double hz = p.flicker.hz;
    int flash = p.has_flash;
    capture_probe_free(&p);
    ASSERT_NEAR(hz, 100.0, 0.0);
    ASSERT_EQ_INT(flash, 0); /* flicker is not a flash */
}
