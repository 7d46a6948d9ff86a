/* test_frame_timing.c: frame times on the experiment clock. A high-speed clip saved for
 * 30 fps playback runs on its capture clock (option or container tag); a variable-rate
 * file keeps its container times; gaps and duplicated frames are reported. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

TEST(test_capture_fps_option_puts_30fps_tagged_clip_on_240fps_clock)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("slowmo.mp4"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p", 48, NULL, NULL), 0);
    capture_options opt = {.capture_fps = 240};
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, &opt, &err) == 0, "%s", err.msg);
    const capture_info *in = capture_source_info(src);
    double t24 = capture_source_time(src, 24), nominal = in->nominal_fps, dur = in->duration_s;
    int from = in->capture_fps_from;
    capture_source_close(src);
    ASSERT_NEAR(nominal, 30.0, 1e-9);      /* the container's rate, exact (time base 1/15360) */
    ASSERT_EQ_INT(from, CAPTURE_RATE_USER);
    ASSERT_NEAR(t24, 24.0 / 240.0, 1e-9);  /* 24 frames at 240 fps; 30 fps pts are exact in the time base */
    ASSERT_NEAR(dur, 48.0 / 240.0, 1e-9);
}

TEST(test_capture_fps_read_from_android_capture_tag)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("android.mp4"));
    ASSERT_EQ_INT(vm_encode(path, "30",
                            "-c:v libx264 -preset veryfast -pix_fmt yuv420p -movflags use_metadata_tags "
                            "-metadata com.android.capture.fps=240.000000",
                            24, NULL, NULL),
                  0);
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    const capture_info *in = capture_source_info(src);
    double fps = in->capture_fps, t12 = capture_source_time(src, 12);
    int from = in->capture_fps_from;
    capture_source_close(src);
    ASSERT_EQ_INT(from, CAPTURE_RATE_METADATA);
    ASSERT_NEAR(fps, 240.0, 1e-9);        /* the tag's value */
    ASSERT_NEAR(t12, 12.0 / 240.0, 1e-9); /* exact pts rescaled by 30/240 */
}

TEST(test_vfr_file_gets_container_times_and_is_flagged)
{
    /* 30 frames at 30 fps, then 30 at 60 fps: t_n = n/30, then 1 + (n-30)/60 (integer pts
     * in a 1/600 time base, so the file holds these times exactly) */
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("vfr.mp4"));
    ASSERT_EQ_INT(vm_encode(path, "30",
                            "-vf \"settb=1/600,setpts='if(lt(N,30),20*N,600+10*(N-30))'\" -fps_mode vfr -enc_time_base:v 1/600 "
                            "-c:v libx264 -preset veryfast -bf 0 -pix_fmt yuv420p",
                            60, NULL, NULL),
                  0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    int vfr = p.timing.vfr;
    long frames = p.info.frames;
    double t10 = p.time_s[10], t45 = p.time_s[45];
    size_t ndrop = p.timing.n_dropped;
    capture_probe_free(&p);
    ASSERT_EQ_INT(frames, 60);
    ASSERT_TRUE(vfr);
    ASSERT_EQ_INT(ndrop, 0);                /* 30 -> 60 fps is faster, not a gap */
    ASSERT_NEAR(t10, 10.0 / 30.0, 1e-9);   /* exact: the mp4 time base is 1/600 */
    ASSERT_NEAR(t45, 1.0 + 15.0 / 60.0, 1e-9);
}

TEST(test_constant_rate_file_is_not_vfr_and_has_no_gaps)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("cfr.mkv"));
    /* 240 fps in a 1 ms time base: intervals of 4 and 5 ms, rounding, not VFR */
    ASSERT_EQ_INT(vm_encode(path, "240", "-c:v ffv1", 60, NULL, NULL), 0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    int vfr = p.timing.vfr;
    size_t ndrop = p.timing.n_dropped, ndup = p.n_duplicates, nlost = p.n_lost;
    double fps = p.info.nominal_fps, t7 = p.time_s[7], t59 = p.time_s[59];
    capture_probe_free(&p);
    ASSERT_EQ_INT(vfr, 0);
    /* the file holds 29 ms and 246 ms (times rounded to its 1 ms tick); every frame lies
     * within half a tick of n / 240 s, so the camera's times are given back exactly */
    ASSERT_NEAR(t7, 7.0 / 240.0, 1e-12);
    ASSERT_NEAR(t59, 59.0 / 240.0, 1e-12);
    ASSERT_EQ_INT(ndrop, 0);
    ASSERT_EQ_INT(ndup, 0);
    ASSERT_EQ_INT(nlost, 0);
    ASSERT_NEAR(fps, 240.0, 1e-6); /* avg_frame_rate of the stream */
}

TEST(test_dropped_frame_is_reported_after_its_gap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("drop.mp4"));
    /* frames 40 and 41 removed with their timestamps kept: a gap of 3 periods */
    ASSERT_EQ_INT(vm_encode(path, "30",
                            "-vf \"select='not(between(n\\,40\\,41))'\" -fps_mode passthrough "
                            "-c:v libx264 -preset veryfast -pix_fmt yuv420p",
                            60, NULL, NULL),
                  0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    long frames = p.info.frames, missing = p.timing.missing;
    size_t ndrop = p.timing.n_dropped;
    long first = ndrop ? p.timing.dropped[0] : -1;
    double t40 = p.time_s[40];
    int vfr = p.timing.vfr;
    capture_probe_free(&p);
    ASSERT_EQ_INT(frames, 58);
    ASSERT_EQ_INT(ndrop, 1);
    ASSERT_EQ_INT(first, 40);      /* the frame after the gap, counted in the file */
    ASSERT_EQ_INT(missing, 2);
    ASSERT_EQ_INT(vfr, 0);         /* a whole number of periods: a drop, not VFR */
    ASSERT_NEAR(t40, 42.0 / 30.0, 1e-4); /* it keeps its true time (mp4 time base 1/15360) */
}

TEST(test_duplicated_frames_are_listed)
{
    int code[40];
    for (int i = 0; i < 40; i++)
        code[i] = i;
    code[21] = 20; /* frame 21 repeats 20; frames 33, 34 repeat 32 */
    code[33] = code[34] = 32;
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("dup.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v ffv1", 40, code, NULL), 0);
    capture_probe p;
    icv_err err;
    ASSERT(capture_probe_run(path, NULL, &p, &err) == 0, "%s", err.msg);
    size_t n = p.n_duplicates;
    long d[3] = {-1, -1, -1};
    for (size_t i = 0; i < n && i < 3; i++)
        d[i] = p.duplicates[i];
    capture_probe_free(&p);
    ASSERT_EQ_INT(n, 3);
    ASSERT_EQ_INT(d[0], 21);
    ASSERT_EQ_INT(d[1], 33);
    ASSERT_EQ_INT(d[2], 34);
}

TEST(test_timing_analysis_counts_gaps_and_tolerates_rounding)
{
    /* 100 frames at 240 fps rounded to a 1 ms tick, frame 50 missing */
    double t[99];
    long dropped[99];
    for (int i = 0, k = 0; i < 100; i++)
        if (i != 50)
            t[k++] = floor(i * 1000.0 / 240.0 + 0.5) / 1000.0;
    capture_timing tm;
    capture_timing_analyze(t, 99, 0.001, dropped, &tm);
    ASSERT_EQ_INT(tm.vfr, 0);
    ASSERT_EQ_INT(tm.n_dropped, 1);
    ASSERT_EQ_INT(dropped[0], 50);
    ASSERT_EQ_INT(tm.missing, 1);
}
