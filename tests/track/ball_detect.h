/* ball_detect.h: the blob the detector finds nearest a ball's true centre in a
 * test frame, with the arc's and outline's circle on or off (disc_outline_px),
 * for the tests that compare the two against the truth. */
#ifndef ICV_TEST_TRACK_BALL_DETECT_H
#define ICV_TEST_TRACK_BALL_DETECT_H

#include <math.h>
#include <stdint.h>

#include "track/track.h"

/* buf (w x h, 8-bit): the blob nearest (u, v) and within half the ball's
 * diameter of it, in *b; 0, or -1 when none (the plate's edges and glints give
 * blobs too) */
static inline int ball_detect_nearest(const uint8_t *buf, int w, int h,
                                      double diameter, int outline, double u,
                                      double v, track_blob *b) {
  track_detector *d = track_detector_alloc(w, h, NULL);
  if (!d)
    return -1;
  track_detector_set_scene_markers(d);
  track_detector_set_marker_size(d, diameter, 40);
  d->static_frames = 0;
  d->disc_outline_px = outline ? diameter : 0;
  track_frame fr = {buf, w, h, w, 8};
  track_blob out[8];
  int nb = 0;
  int rc = track_detector_detect(d, &fr, NULL, 0, out, 8, &nb, NULL);
  track_detector_free(d);
  int best = -1;
  for (int i = 0; i < nb; i++)
    if (best < 0 || hypot(out[i].u - u, out[i].v - v) <
                        hypot(out[best].u - u, out[best].v - v))
      best = i;
  if (rc || best < 0 ||
      hypot(out[best].u - u, out[best].v - v) > 0.5 * diameter)
    return -1;
  *b = out[best];
  return 0;
}

#endif
