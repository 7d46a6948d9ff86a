/* test_rows2d_read.c: the overlays' 2D rows (report/rows2d_read.c) from a CSV
 * another tool or a damaged file gives: a frame number of 1e20 used to reach a
 * (long) cast (UBSan: issue #20 item 5); it is refused with the limit named. NaN is
 * read as a missing point. */
#include <stdlib.h>

#include "report/report_internal.h"
#include "tests/harness.h"

TEST(test_rows2d_read_refuses_a_frame_number_of_1e20)
{
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks2d_left.csv"), "frame,time_s,marker,u_px,v_px,area_px,flags\n"
                                                              "0,0.0,0,10.5,20.5,12,\n"
                                                              "1e20,0.1,0,11,21,12,\n"),
                  0);
    report_row2d *rows = NULL;
    long n = 0;
    icv_err err = {0};
    int rc = report_rows2d_read(th_tmp("tracks2d_left.csv"), 0, &rows, &n, &err);
    free(rows);
    ASSERT(rc == ICV_EFORMAT, "accepted (rc %d)", rc);
    ASSERT_STR_CONTAINS(err.msg, "tracks2d_left.csv:3: frame 1e+20 or marker 0 beyond the limits [0, 100000000]");
}

TEST(test_rows2d_read_takes_nan_as_a_missing_point)
{
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks2d_left.csv"), "frame,time_s,marker,u_px,v_px,area_px,flags\n"
                                                              "0,0.0,0,10.5,20.5,12,\n"
                                                              "1,0.1,0,NaN,NaN,NaN,\n"),
                  0);
    report_row2d *rows = NULL;
    long n = 0;
    icv_err err = {0};
    int rc = report_rows2d_read(th_tmp("tracks2d_left.csv"), 0, &rows, &n, &err);
    double u0 = rc == 0 && n == 2 ? rows[0].u : -1, u1 = rc == 0 && n == 2 ? rows[1].u : 0;
    free(rows);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT((int)n, 2);
    ASSERT_NEAR(u0, 10.5, 0);
    ASSERT(isnan(u1), "u of the NaN row: %g", u1);
}
