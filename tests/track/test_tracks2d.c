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
    ASSERT_TRUE(strcmp(track_flags_format(0, buf, sizeof buf), "") == 0);
}
