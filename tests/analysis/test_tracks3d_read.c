/* test_tracks3d_read.c: tracks written by other tools (issue #20 items 3, 5, 9, 10).
 * DLTdv8, Argus and numpy write NaN for a missing value: read as not seen, like an
 * empty field. Numbers that would become indices (a frame number of 1e20: UB in the
 * int cast, caught by UBSan) or absurd coordinates (1e308 m) are refused with the
 * limit named; bytes of a binary file are escaped in the message, never echoed. */
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/harness.h"

static const char *HEAD = "frame,time_s,m0_x,m0_y,m0_z,m1_x,m1_y,m1_z\n";

TEST(test_tracks3d_read_takes_nan_and_empty_as_missing)
{
    char csv[512];
    snprintf(csv, sizeof csv,
             "%s0,0.0,0.1,0.2,0.3,NaN,NaN,NaN\n"
             "1,0.004166667,nan,nan,nan,0.5,0.6,0.7\n"
             "2,0.008333333,-nan,-nan,-nan,,,\n"
             "3,0.0125,0.125,0.25,0.375,NAN,NaN,nan\r\n",
             HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks3d.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    int rc = analysis_tracks_read_csv(th_tmp("tracks3d.csv"), &tr, &err);
    ASSERT(rc == 0, "%s", err.msg);
    int seen[8];
    for (int j = 0; j < 8; j++)
        seen[j] = tr.seen[j];
    double z1 = tr.pos[3].z, y3 = tr.pos[6].y;
    int nf = tr.n_frames;
    analysis_tracks_free(&tr);
    ASSERT_EQ_INT(nf, 4);
    int want[8] = {1, 0, 0, 1, 0, 0, 1, 0};
    for (int j = 0; j < 8; j++)
        ASSERT(seen[j] == want[j], "row %d marker %d: seen %d, expected %d", j / 2, j % 2, seen[j], want[j]);
    ASSERT_NEAR(z1, 0.7, 0);  /* exact decimal read */
    ASSERT_NEAR(y3, 0.25, 0); /* the CRLF row read too */
}

TEST(test_tracks3d_read_refuses_half_a_nan_marker)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s0,0.0,0.1,NaN,0.3,,,\n", HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("half.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("half.csv"), &tr, &err) == ICV_EFORMAT, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "half.csv:2: marker 0 has 2 of its 3 coordinates");
}

TEST(test_tracks3d_read_refuses_a_frame_number_of_1e20)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s1e20,0.0,0.1,0.2,0.3,,,\n", HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("frame.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("frame.csv"), &tr, &err) == ICV_EFORMAT, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "frame.csv:2: frame number 1e20 is above the limit 100000000");
}

TEST(test_tracks3d_read_refuses_1e308_coordinates)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s0,0.0,0.1,1e308,0.3,,,\n", HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("far.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("far.csv"), &tr, &err) == ICV_EFORMAT, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "far.csv:2: m0_y: 1e308 m is beyond the limit of 10000 m");
}

TEST(test_tracks3d_read_escapes_binary_bytes_in_its_message)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s0,0.0,0.1,\x1b[2J\xff\xfe,0.3,,,\n", HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("bin.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("bin.csv"), &tr, &err) == ICV_EFORMAT, "accepted");
    int raw = 0;
    for (const char *p = err.msg; *p; p++)
        raw += (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f;
    ASSERT_EQ_INT(raw, 0);
    ASSERT_STR_CONTAINS(err.msg, "bin.csv:2: m0_y: not a number: '\\x1B[2J\\xFF\\xFE'");
}

/* tracks3d_quality.csv's covariance: each point's sigma is sqrt(trace / 3) of its
 * 6 stored terms xx xy xz yy yz zz. The reader took the 9th column (yz) for zz, so a
 * stereo point's depth variance (there usually the largest) was left out: here
 * sqrt((1 + 4 + 16) / 3) mm = 2.65 mm, read as sqrt((1 + 4 - 3) / 3) = 0.82 mm. */
TEST(test_tracks3d_quality_sigma_takes_the_depth_variance)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s0,0.0,0.1,0.2,0.3,0.4,0.5,0.6\n1,0.01,0.1,0.2,0.3,0.4,0.5,0.6\n", HEAD);
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks3d.csv"), csv), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks3d_quality.csv"),
                                "frame,time_s,marker,residual_px,cov_xx_m2,cov_xy_m2,cov_xz_m2,cov_yy_m2,cov_yz_m2,"
                                "cov_zz_m2,flags\n"
                                "0,0.0,0,0.1,1e-6,0,0,4e-6,-3e-6,16e-6,\n"
                                "0,0.0,1,0.1,1e-6,0,0,4e-6,-3e-6,16e-6,\n"),
                  0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("tracks3d.csv"), &tr, &err) == 0, "%s", err.msg);
    int rc = analysis_tracks_read_quality(th_tmp("tracks3d_quality.csv"), &tr, &err);
    double s0 = rc == 0 ? tr.sigma[0] : NAN, s_missing = rc == 0 ? tr.sigma[2] : NAN;
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_NEAR(s0, sqrt(21e-6 / 3), 1e-12);        /* 2.646 mm */
    ASSERT_NEAR(s_missing, sqrt(21e-6 / 3), 1e-12); /* frame 1 not listed: the median */
}
