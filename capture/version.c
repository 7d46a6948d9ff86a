/* version.c: FFmpeg's version as linked, for `impactcv --version` and results.json. */
#include <libavutil/avutil.h>

#include "capture/capture.h"

const char *capture_ffmpeg_version(void) { return av_version_info(); }
