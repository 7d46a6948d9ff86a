/* test_calib_file_quality.c: a calibration file read back with what it says of its
 * quality (calib_camera_file_read, calib_stereo_file_read), for the report of a run
 * given a ready calibration file: ours give back every per-view (per-pair) error,
 * the coverage map and the verdict exactly; another tool's file, what it holds and
 * nothing invented. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

TEST(test_calib_mono_file_gives_back_its_view_errors_coverage_and_verdict)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    d->mono_only = 1;
    sp_generate(d, 8, 0.1, 3);
    static calib_camera cam, back;
    calib_camera_free(&cam); /* a previous run's (static: a failed ASSERT does not leak them) */
    calib_camera_free(&back);
    icv_err err = {0};
    int rc = calib_camera_calibrate(&d->obs[0], NULL, &cam, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    cam.views[5].status = CALIB_VIEW_BLURRED; /* a view not used: listed with its status */
    char p[1024];
    snprintf(p, sizeof p, "%s", th_tmp("cam.yaml"));
    ASSERT(calib_camera_write(&cam, p, &err) == 0, "%s", err.msg);
    ASSERT(calib_camera_file_read(p, &back, &err) == 0, "%s", err.msg);
    /* FileStorage prints 17 significant digits: the doubles come back exactly */
    ASSERT_NEAR(back.rms, cam.rms, 0);
    ASSERT_NEAR(back.in.fx, cam.in.fx, 0);
    ASSERT_NEAR(back.std.fx, cam.std.fx, 0);
    ASSERT_NEAR(back.coverage, cam.coverage, 0);
    ASSERT(!memcmp(back.coverage_map, cam.coverage_map, sizeof cam.coverage_map), "coverage map differs");
    ASSERT_EQ_INT(back.verdict_ok, cam.verdict_ok);
    ASSERT(!strcmp(back.verdict, cam.verdict), "verdict \"%s\" read back as \"%s\"", cam.verdict, back.verdict);
    ASSERT_EQ_INT(back.n_views, 8);
    ASSERT_EQ_INT(back.n_used, 7);
    /* the used views first, in the file's order (that of the calibration), then the others */
    for (int v = 0, k = 0; v < 8; v++) {
        if (v == 5)
            continue;
        ASSERT(!strcmp(back.views[k].name, cam.views[v].name), "view %d: %s, not %s", k, back.views[k].name,
               cam.views[v].name);
        ASSERT_NEAR(back.views[k].rms, cam.views[v].rms, 0);
        ASSERT_EQ_INT(back.views[k].status, CALIB_VIEW_USED);
        k++;
    }
    ASSERT(!strcmp(back.views[7].name, cam.views[5].name), "the unused view is %s", back.views[7].name);
    ASSERT_EQ_INT(back.views[7].status, CALIB_VIEW_BLURRED);
}

TEST(test_calib_stereo_file_gives_back_its_pair_errors_baseline_and_verdict)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    sp_generate(d, 8, 0.1, 4);
    static calib_stereo st, back;
    calib_stereo_free(&st);
    calib_stereo_free(&back);
    icv_err err = {0};
    int rc = calib_stereo_calibrate(&d->obs[0], &d->obs[1], NULL, &st, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    char p[1024];
    snprintf(p, sizeof p, "%s", th_tmp("stereo.yaml"));
    ASSERT(calib_stereo_write(&st, p, &err) == 0, "%s", err.msg);
    ASSERT(calib_stereo_file_read(p, &back, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(back.rms, st.rms, 0);
    ASSERT_NEAR(back.epipolar, st.epipolar, 0);
    ASSERT_NEAR(back.baseline, st.baseline, 0);
    ASSERT_NEAR(back.baseline_std, st.baseline_std, 0);
    ASSERT_NEAR(back.T[2], st.T[2], 0);
    ASSERT_EQ_INT(back.verdict_ok, st.verdict_ok);
    ASSERT(!strcmp(back.verdict, st.verdict), "verdict differs");
    ASSERT_EQ_INT(back.n_used, st.n_used);
    for (int i = 0, k = 0; i < st.n_pairs; i++) {
        if (st.pairs[i].status != CALIB_VIEW_USED)
            continue;
        ASSERT_NEAR(back.pairs[k].rms1, st.pairs[i].rms1, 0);
        ASSERT_NEAR(back.pairs[k].rms2, st.pairs[i].rms2, 0);
        ASSERT_NEAR(back.pairs[k].epipolar, st.pairs[i].epipolar, 0);
        k++;
    }
    /* a stereo file has no per-camera views or coverage: unknown, not zero */
    ASSERT(isnan(back.cam[0].rms) && isnan(back.cam[1].coverage), "per-camera quality invented");
    ASSERT_EQ_INT(back.cam[0].n_views, 0);
    ASSERT_EQ_INT(back.cam[1].verdict_ok, -1);
}

TEST(test_calib_other_tools_file_quality_is_what_it_holds)
{
    ASSERT_EQ_INT(th_write_file(th_tmp("cv2.yaml"),
                                "%YAML:1.0\n---\nimageSize: [ 1280, 720 ]\nrms: 0.31\n"
                                "cameraMatrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                                "   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
                                "distCoeffs: !!opencv-matrix\n   rows: 1\n   cols: 4\n   dt: d\n"
                                "   data: [ -0.1, 0.02, 0., 0. ]\n"
                                "per_view_errors: [ 0.25, 0.4, 0.3 ]\n"),
                  0);
    static calib_camera c;
    calib_camera_free(&c);
    icv_err err = {0};
    ASSERT(calib_camera_file_read(th_tmp("cv2.yaml"), &c, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(c.rms, 0.31, 0);
    ASSERT_EQ_INT(c.n_views, 3);
    ASSERT(!strcmp(c.views[1].name, "view01"), "unnamed view named %s", c.views[1].name);
    ASSERT_NEAR(c.views[1].rms, 0.4, 0);
    ASSERT(isnan(c.coverage), "coverage %g: not in the file", c.coverage);
    ASSERT_EQ_INT(c.verdict_ok, -1);
    ASSERT_EQ_INT((int)strlen(c.verdict), 0);
    calib_camera none;
    ASSERT(calib_camera_file_read(th_tmp("absent.yaml"), &none, &err) != 0, "an absent file read");
    ASSERT_STR_CONTAINS(err.msg, "absent.yaml");
}
