/* test_tracks2d.c: the tracks2d file has the contract's header and columns, empty
 * positions for coasted rows, flag names joined by '|', and is written atomically. */
#include <stdlib.h>
#include <unistd.h>

#include "track/track.h"
#include "tests/harness.h"

TEST(test_tracks2d_file_has_contract_columns_and_flag_names)
{
    track_row2d rows[3] = {
        {0, 0.0, 0, 100.25, 50.5, 49, 0},
        {0, 0.0, 1, 140.125, 60.0, 51, TRACK_FLAG_SATURATED | TRACK_FLAG_BLURRED},
        {1, 0.001, 1, 0, 0, 0, TRACK_FLAG_COASTED},
    };
    const char *path = th_tmp("tracks2d_left.csv");
    icv_err err = {0};
    ASSERT_EQ_INT(track_tracks2d_write(path, rows, 3, &err), 0);
    const char *text = th_read_file(path);
    ASSERT_TRUE(text != NULL);
    const char *want = "frame,time_s,marker,u_px,v_px,area_px,flags\n"
                       "0,0.000000000,0,100.2500,50.5000,49,\n"
                       "0,0.000000000,1,140.1250,60.0000,51,saturated|blurred\n"
                       "1,0.001000000,1,,,,coasted\n";
    ASSERT_TRUE(strcmp(text, want) == 0);
}

TEST(test_tracks2d_nonfinite_position_leaves_no_file)
{
    track_row2d rows[1] = {{0, 0.0, 0, NAN, 1, 1, 0}};
    const char *path = th_tmp("tracks2d_bad.csv");
    icv_err err = {0};
    ASSERT_EQ_INT(track_tracks2d_write(path, rows, 1, &err), ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "frame 0 marker 0");
    ASSERT_TRUE(access(path, F_OK) != 0);
}

TEST(test_flag_names_cover_the_vocabulary)
{
    char buf[128];
    ASSERT_TRUE(strcmp(track_flags_format(0x3f, buf, sizeof buf),
                       "coasted|interpolated|merged|saturated|blurred|outlier") == 0);
    ASSERT_TRUE(strcmp(track_flags_format(TRACK_FLAG_EXTRAPOLATED | TRACK_FLAG_ONE_VIEW, buf, sizeof buf),
                       "extrapolated|one_view") == 0);
    ASSERT_TRUE(strcmp(track_flags_format(0, buf, sizeof buf), "") == 0);
}

TEST(test_tracks3d_file_has_contract_columns_and_empty_unseen_markers)
{
    long frame[2] = {0, 1};
    double t[2] = {0, 0.004};
    double xyz[2 * 2 * 3] = {0.1, 0.2, 0.3, NAN, NAN, NAN, -0.5, 0.25, 1e-3, 0.0, 0.0, 0.0};
    const char *path = th_tmp("tracks3d.csv");
    ASSERT_EQ_INT(track_tracks3d_write(path, 2, 2, frame, t, xyz, NULL), 0);
    const char *want = "frame,time_s,m0_x,m0_y,m0_z,m1_x,m1_y,m1_z\n"
                       "0,0.000000000,0.1000000,0.2000000,0.3000000,,,\n"
                       "1,0.004000000,-0.5000000,0.2500000,0.0010000,0.0000000,0.0000000,0.0000000\n";
    const char *text = th_read_file(path);
    ASSERT_TRUE(text != NULL && strcmp(text, want) == 0);
}

TEST(test_quality3d_side_file_lists_residual_and_covariance)
{
    track_quality3d q = {3, 0.012, 1, 0.25, {{1e-8, 2e-9, 0}, {2e-9, 4e-8, 0}, {0, 0, 9e-8}}, TRACK_FLAG_OUTLIER};
    const char *path = th_tmp("tracks3d_quality.csv");
    ASSERT_EQ_INT(track_quality3d_write(path, &q, 1, NULL), 0);
    const char *text = th_read_file(path);
    ASSERT_STR_CONTAINS(text, "frame,time_s,marker,residual_px,cov_xx_m2");
    ASSERT_STR_CONTAINS(text, "3,0.012000000,1,0.2500,1.000000e-08,2.000000e-09,0.000000e+00,4.000000e-08,"
                              "0.000000e+00,9.000000e-08,outlier\n");
}
