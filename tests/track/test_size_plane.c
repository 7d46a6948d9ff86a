/* test_size_plane.c: the plane's tilt from the ball's sizes (track/size_plane.c) on
 * positions along one line. */
#include <math.h>

#include "tests/harness.h"
#include "track/track_3d.h"

/* A puck sliding along a line 10 degrees off the image's x axis, then at rest at its
 * end (as PhysTrack's HeadOn puck: 40 frames moving, 85 at rest), seen square to the
 * table: R / z the same everywhere, but 2% larger while it moves (the outline's blur)
 * and 0.05% of noise. Before, both slopes were kept (t 5.9 and 5.3 on HeadOn's own
 * sizes) and a tilt of ~70 degrees applied: the 2% read across the line, from the
 * rest point's pixel offsets. Now the slope across a line is not measured: a tilt of
 * a few degrees along it at most, none across. */
TEST(test_size_plane_positions_on_a_line_give_no_steep_tilt)
{
    enum { N = 125 };
    double x[N], y[N], w[N], work[6 * N];
    const double a = 17.1 / 2 / 320, th = 10 * M_PI / 180;
    for (int i = 0; i < N; i++) {
        double s = i < 40 ? -0.37 + 0.27 * i / 39.0 : -0.10; /* along the line, normalised */
        double off = 0.001 * th_uniform(9, (uint64_t)i);    /* a third of a pixel across it */
        x[i] = s * cos(th) - off * sin(th);
        y[i] = 0.1 + s * sin(th) + off * cos(th);
        w[i] = a * (i < 40 ? 1.02 : 1.0) * (1 + 0.001 * th_uniform(10, (uint64_t)i));
    }
    track_size_plane sp;
    ASSERT_EQ_INT(track_size_plane_fit(x, y, w, N, work, &sp), 0);
    printf("    tilt %.2f +- %.2f degrees (pitch %.2f, yaw %.2f), slopes kept: %d %d\n", sp.tilt * 180 / M_PI,
           sp.tilt_sd * 180 / M_PI, sp.pitch * 180 / M_PI, sp.yaw * 180 / M_PI, sp.free_b, sp.free_c);
    /* a 2% size step over the line's 0.27 normalised reads as at most atan(0.02 / 0.27 * 2)
       ~ 8.5 degrees along it; across it nothing */
    ASSERT(!sp.significant || sp.tilt < 10 * M_PI / 180, "tilt %.1f degrees", sp.tilt * 180 / M_PI);
    ASSERT(fabs(sp.b * sin(th) - sp.c * cos(th)) < 0.05 * a, "a slope across the line: (%.4g, %.4g), a %.4g",
           sp.b, sp.c, a);
}
