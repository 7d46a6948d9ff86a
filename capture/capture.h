/* capture.h: video input with exact frame timing, timing forensics and camera sync.
 *
 * A capture_source reads a video file (anything libavformat opens: mp4/mov/avi/mkv with
 * H.264, H.265, MJPEG, FFV1, raw; Phantom .cine) or an image sequence (printf pattern,
 * glob or folder; PNG, TIFF incl. 16-bit, JPEG) and delivers luma planes into
 * caller-owned buffers. Frames are numbered from 0 in presentation order; an index of
 * every frame's presentation time is built at open, so the frame count is exact and
 * seeking to frame N returns frame N. Time conventions: docs/conventions.md ("Time");
 * the module's choices: docs/capture.md. */
#ifndef ICV_CAPTURE_H
#define ICV_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* Returned by capture_source_read at the end of the stream (not an error). */
#define CAPTURE_EOF 1

/* ---- the frame source --------------------------------------------------- */

typedef struct capture_source capture_source;

/* Options are data. Zero-initialise, then set what you need. */
typedef struct {
    double capture_fps; /* Hz: true capture rate (e.g. 240 for a slow-motion clip saved at
                           30 fps). 0 = from container metadata, else the nominal rate.
                           For image sequences it is also the frame rate (default 25). */
    int threads;        /* decoder threads; 0 = automatic (all cores) */
    int want_8bit;      /* 1: deliver 8-bit samples even from a 16-bit source (shifted) */
    int want_rgb;       /* 1: deliver packed 8-bit R, G, B (bytes_per_sample 3) for a colour
                           key (track.markers {color: ...}); 0 (default): luma, as fast as
                           before */
    double exposure_s;  /* s (capture clock): exposure time, for the flash's sub-frame onset;
                           0 = a full frame period (360-degree shutter) */
    size_t keep_bytes;  /* bytes: a video's decoded frames are kept (those reads deliver and
                           those seeks decode on the way) up to this many bytes, and a seek
                           to a kept frame and the reads after it are served from them
                           without decoding, the decoder resuming where it stopped (a
                           look's trial frames, then a pass over the clip: each frame decoded
                           once). 0 (default): none. Frames past the budget are decoded
                           again. Kept until capture_source_keep_stop and a read past them */
} capture_options;

/* Where the capture rate came from. */
typedef enum {
    CAPTURE_RATE_NOMINAL = 0,  /* the container's frame rate */
    CAPTURE_RATE_METADATA = 1, /* a capture-rate tag in the container (capture_fps_key) */
    CAPTURE_RATE_USER = 2,     /* capture_options.capture_fps */
    CAPTURE_RATE_ASSUMED = 3,  /* image sequence without a rate: FFmpeg's default 25 fps */
} capture_rate_source;

typedef struct {
    char path[ICV_PATH_MAX];  /* as given to capture_source_open */
    char codec[32];           /* FFmpeg decoder name ("h264", "ffv1", "png", ...) */
    char container[64];       /* demuxer name, or "image sequence" */
    char member[256];   /* a video read from inside a zip archive (path): its name there;
                           "" for a plain file */
    int width, height;        /* px, as displayed (after rotation_deg) */
    int rotation_deg;         /* degrees clockwise each stored picture is turned before it is
                                 delivered: 0, 90, 180 or 270, from the stream's display matrix
                                 (a phone's rotate tag), applied as FFmpeg's player does */
    int bytes_per_sample;     /* of delivered frames: 1 or 2 (3: packed RGB, want_rgb) */
    int bits;                 /* significant bits per delivered sample (8..16) */
    int luma_direct;          /* 1: the Y plane is copied as is (no colour conversion) */
    long frames;              /* frames in the index (presentation order) */
    long container_frames;    /* frame count the container's header states; 0 = none */
    double nominal_fps;       /* Hz: playback rate the container states */
    double capture_fps;       /* Hz: true capture rate (see capture_rate_source) */
    capture_rate_source capture_fps_from;
    char capture_fps_key[96]; /* the metadata key, when capture_fps_from is METADATA */
    double time_scale;        /* nominal_fps / capture_fps: experiment time = pts * this */
    double duration_s;        /* s, experiment clock: last frame time + one frame period */
    int is_image_sequence;
} capture_info;

/* A frame: caller-owned pixels the source fills. Allocate once with capture_frame_alloc
 * (or point data at your own buffer of stride * height bytes). */
typedef struct {
    int width, height;        /* px */
    int bytes_per_sample;     /* 1 or 2 (native-endian uint16); 3: packed R, G, B (want_rgb) */
    int bits;                 /* significant bits per sample */
    size_t stride;            /* bytes per row */
    void *data;               /* caller owns */
    long index;               /* frame number from 0, presentation order */
    double pts_s;             /* s: container presentation time minus that of frame 0 */
    double time_s;            /* s: this camera's clock at mid-exposure (pts_s * time_scale) */
} capture_frame;

/* Opens a video file or an image sequence (a path containing a printf pattern such as
 * %04d, glob characters, or a folder) and builds its frame index (demuxing only).
 * Fails with one line naming the file: not found, not a video, no video stream, an
 * unsupported codec, zero frames. */
int capture_source_open(capture_source **src, const char *path, const capture_options *opt, icv_err *err);
void capture_source_close(capture_source *src);

const capture_info *capture_source_info(const capture_source *src);

/* Reads the next frame into f (whose size must match info). Returns 0, CAPTURE_EOF at
 * the end, or a negative code. A frame that cannot be decoded is skipped (the next
 * frame's index shows the gap) and recorded in capture_source_lost. No allocation. */
int capture_source_read(capture_source *src, capture_frame *f, icv_err *err);

/* As capture_source_read, without copying a kept frame (capture_options.keep_bytes):
 * the frame is *view, whose pixels are the kept copy's (read-only, packed rows) when
 * the frame is kept, else f's. A kept frame's pixels stay valid until the source is
 * closed or, after capture_source_keep_stop, until the next read or seek after the one
 * that passed the last kept frame (a pass's previous frame stays readable). No
 * allocation. */
int capture_source_read_view(capture_source *src, capture_frame *f, capture_frame *view, icv_err *err);

/* As capture_source_read_view, for reading on in order (a pass): a frame not kept whose
 * decoded picture needs no conversion (luma as stored, of info's sample size, not
 * turned) is lent in place too, not copied into f (its rows then at the picture's own
 * stride). A lent frame's pixels stay valid until the read after the next (the previous
 * frame stays readable), a seek in between included. Not while keeping (before
 * capture_source_keep_stop): its frames are copied into the kept block. No allocation
 * per frame (two frame holders at the first lent, the decoder's pool grows by two
 * pictures once). */
int capture_source_read_next(capture_source *src, capture_frame *f, capture_frame *view, icv_err *err);

/* Positions the source so that the next read returns exactly frame n (decodes from the
 * keyframe before n; decodes on when n is ahead within the current group of pictures).
 * Fails on n past the end or a frame that cannot be decoded; after such a failure a video
 * is read again from frame 0, an image sequence from the image after n. */
int capture_source_seek(capture_source *src, long n, icv_err *err);

/* Keeps no more frames (capture_options.keep_bytes): those kept are still served, and
 * freed once a read has passed them all; no copy per frame from here on. */
void capture_source_keep_stop(capture_source *src);

/* Per-frame presentation times of the index (s, relative to frame 0), frames entries. */
const double *capture_source_pts(const capture_source *src);
/* Time of frame n on this camera's clock (s): pts * time_scale. */
double capture_source_time(const capture_source *src, long n);
/* The smallest time step the container can express (s): one time-base tick. */
double capture_source_tick(const capture_source *src);

/* Frames found undecodable or missing so far (indices, ascending). */
void capture_source_lost(const capture_source *src, const long **frames, size_t *n);

/* Frames decoded so far by every source of this process (video frames and images,
 * those a seek decodes and drops included). A count, not a timer: `impactcv run`'s
 * cache test reads it to prove that a cached stage decoded nothing. Thread-safe. */
long capture_decoded_frames(void);

/* Allocates f->data for the source's frame size (once, before the loop). */
int capture_frame_alloc(capture_frame *f, const capture_info *info, icv_err *err);
void capture_frame_free(capture_frame *f);
/* Mean sample value of a frame (gray levels of its own depth). */
double capture_frame_mean(const capture_frame *f);

/* ---- timing forensics --------------------------------------------------- */

/* From the index's presentation times: variable frame rate, and timestamp gaps. */
typedef struct {
    double median_dt_s;  /* s, median interval between consecutive frames (container clock) */
    double min_dt_s, max_dt_s;
    int vfr;             /* 1: intervals vary beyond one time-base tick and 1 % (drops aside) */
    long *dropped;       /* frames after each gap > 1.5 median interval (caller array, n) */
    size_t n_dropped;
    long missing;        /* frames the gaps hold: sum of round(dt / median) - 1 */
} capture_timing;

/* Analyses n presentation times (s, ascending) with the container tick (s). dropped
 * must hold n entries. */
void capture_timing_analyze(const double *pts_s, long n, double tick_s, long *dropped, capture_timing *out);

/* Duplicated frames: each frame whose pixels are identical to its predecessor's. */
typedef struct {
    void *prev;      /* workspace: the previous frame */
    size_t size;
    int have_prev;
} capture_dup_detector;
int capture_dup_init(capture_dup_detector *d, const capture_info *info, icv_err *err);
/* 1 when f equals the frame given in the previous call (the caller passes frames in
 * order; after a lost frame call capture_dup_reset). */
int capture_dup_check(capture_dup_detector *d, const capture_frame *f);
void capture_dup_reset(capture_dup_detector *d);
void capture_dup_free(capture_dup_detector *d);
/* 1 when two frames of the same size hold the same pixels (rows compared, the stride's
 * padding ignored): the duplicate test for a caller that keeps the previous frame
 * itself (job/track_2d.c's two frame buffers, swapped: no copy per frame). */
int capture_frame_equal(const capture_frame *a, const capture_frame *b);

/* Near-duplicate pictures (near_duplicates.c): a picture stored again, re-encoded, so
 * the copies differ by compression noise. The meter reduces each frame to 8x8-pixel
 * cell means and measures its change from the frame given before (workspace allocated
 * once). */
typedef struct {
    int cols, rows;          /* cells */
    float *prev, *cur, *diff;
    int have_prev;
} capture_change_meter;
int capture_change_init(capture_change_meter *m, const capture_info *info, icv_err *err);
/* The change of f from the previous frame measured: the largest cell difference and
 * the 99th percentile of them (gray levels, 8-bit scale); both NAN for the first frame
 * (or after capture_change_reset: call it after a lost frame). */
void capture_change_measure(capture_change_meter *m, const capture_frame *f, double *max_levels,
                            double *tail_levels);
void capture_change_reset(capture_change_meter *m);
void capture_change_free(capture_change_meter *m);
/* The near-duplicates among n frames from their measured changes (index i: frame i
 * against frame i - 1; NAN: not measured): frames that do not change from their
 * predecessor beyond the clip's own cell noise (5 times the 99th percentile of the
 * quiet pairs, at least 1.5 levels: *threshold_levels) while the frames on both sides
 * change, in runs of at most 3. When the changes show every picture stored k times
 * (*stored_times = k >= 2, else 0), every frame off the new pictures' phase is one,
 * from the first change to the last. *still = 1 when changes were measured and none
 * passes the threshold (every frame repeats the first picture). out holds n entries;
 * returns how many. */
size_t capture_near_duplicates(const double *max_levels, const double *tail_levels, long n, long *out,
                               double *threshold_levels, int *stored_times, int *still);

/* Every picture stored k times, from per-frame evidence: evidence[i] > 0 when frame i
 * shows a new picture, < 0 when it is seen to repeat frame i - 1's, 0 when nothing
 * tells. Believed when the new pictures are spaced by multiples of k (2-4) in 90% of at
 * least 12 spacings, by 1 frame in at most 10%, and at least 4 and half of the frames
 * off their phase are seen to repeat. Returns k, or 0 with *n_out = 0; with k, out (n
 * entries of room) lists every frame off the phase of the new picture before it, from
 * one period before the first new picture to one after the last, ascending. */
int capture_stored_times(const signed char *evidence, long n, long *out, size_t *n_out);

/* Mains flicker: lamps on 50/60 Hz mains flicker at 100/120 Hz; sampled at the capture
 * rate the oscillation aliases to |f - k fs| (it "beats" with the frame rate). Searches
 * the per-frame mean brightness b (time t on the capture clock, s) for a significant
 * periodic component at the alias of 100 or 120 Hz. */
typedef struct {
    double hz;          /* 100 or 120; 0 = none found */
    double alias_hz;    /* Hz, apparent frequency in the brightness series */
    double amplitude;   /* gray levels, amplitude of the oscillation */
    double snr;         /* peak amplitude over the median amplitude of the spectrum */
} capture_flicker;
void capture_flicker_detect(const double *t_s, const double *b, long n, double capture_fps, capture_flicker *out);

/* ---- flash sync ----------------------------------------------------------- */

/* A flash (a light switched on and held for at least two frames, or longer than the
 * exposure) seen in the per-frame mean brightness. The first flash frame is partly
 * exposed when the light comes on mid-exposure: with baseline B (robust, frames before)
 * and plateau P (frames after), its brightness b gives the exposed fraction
 * r = (b - B) / (P - B), so the onset is r exposures before the end of that exposure. */
typedef struct {
    long frame;         /* first frame with flash light, from 0 */
    double onset_frame; /* fractional frame number of the onset (frame k's mid-exposure = k) */
    double onset_s;     /* s: onset on this camera's clock (that of capture_frame.time_s) */
    double ratio;       /* r: exposed fraction of the first flash frame, [0, 1] */
    double baseline;    /* gray levels: robust mean brightness before the flash */
    double plateau;     /* gray levels: brightness with the flash fully on */
} capture_flash;

/* Looks for the flash in n frames of brightness b at times t_s (s, camera clock).
 * exposure_s: exposure time (s); 0 = a full frame period (360-degree shutter).
 * Returns 1 and fills out when found, 0 when there is no flash. */
int capture_flash_detect(const double *b, const double *t_s, long n, double exposure_s, capture_flash *out);

/* Offsets between cameras. An event at experiment time t (reference camera's clock) is
 * seen by camera c at its own clock time t + offset_s, i.e. at its fractional frame
 * t * fps_c + offset_frames (for a constant rate). The reference camera has 0. */
typedef struct {
    double offset_frames; /* frames of this camera */
    double offset_s;      /* s */
    int manual;           /* 1: from experiment.yaml sync.offsets */
} capture_sync;

/* Experiment-clock time (s) of a moment at camera-clock time camera_time_s (e.g. a
 * frame's capture_frame.time_s) of the camera whose offset is s. */
double capture_sync_experiment_time(const capture_sync *s, double camera_time_s);

/* From each camera's flash (n cameras, the first is the reference) and capture rate
 * (Hz). manual_frames (NULL or n values in each camera's frames, as sync.offsets)
 * overrides: then the flashes are not needed. */
int capture_sync_offsets(int n, const capture_flash *flashes, const double *fps, const double *manual_frames,
                         capture_sync *out, icv_err *err);

/* Sync for an experiment: sync.offsets as given; sync: flash -> each camera's flash
 * (brightness over its first max_frames frames, 0 = all) into offsets; sync: none -> 0.
 * out holds exp->n_cameras entries; flashes (may be NULL) gets each camera's flash. */
int capture_sync_experiment(const icv_experiment *exp, long max_frames, capture_sync *out,
                            capture_flash *flashes, icv_err *err);

/* ---- probe: everything above for one file -------------------------------- */

typedef struct {
    capture_info info;
    long frames_decoded;    /* frames delivered by the decoder */
    double *pts_s;          /* frames entries: container times (s) */
    double *time_s;         /* frames entries: capture clock times (s) */
    double *brightness;     /* n_brightness entries from frame brightness_first: mean gray
                               level (NaN for a lost frame) */
    long brightness_first;  /* probe: 0; read back from track_info.json: its window's first */
    long n_brightness;      /* probe: frames; from track_info.json: its window's length */
    capture_timing timing;  /* timing.dropped points into this struct's own array */
    long *duplicates;       /* frames repeating their predecessor: identical, or the same picture
                               re-encoded (near-duplicates); ascending */
    size_t n_duplicates;
    size_t n_near_duplicates; /* of them, those not identical */
    double change_threshold;  /* gray levels (8-bit): a cell change above it is a new picture */
    int stored_times;         /* >= 2: every picture of the moving part is stored this many
                                 times (the real rate is capture_fps / stored_times); 0: no
                                 such pattern */
    int still;                /* 1: no frame changes from the one before beyond the clip's
                                 own noise (change_threshold): the clip holds one picture */
    long *lost;             /* frames that could not be decoded */
    size_t n_lost;
    capture_flicker flicker;
    int has_flash;
    capture_flash flash;
} capture_probe;

/* Reads the whole file once (progress bar on a terminal) and fills p. A stream with
 * lost frames still returns 0 (p->lost says which); use capture_probe_check. */
int capture_probe_run(const char *path, const capture_options *opt, capture_probe *p, icv_err *err);
void capture_probe_free(capture_probe *p);
/* Fails with one line naming the file and the lost frames, when there are any. */
int capture_probe_check(const capture_probe *p, icv_err *err);
/* The contract's probe object (../shared/spec/contract.md, "probe --json"). */
int capture_probe_write_json(const capture_probe *p, FILE *out, icv_err *err);
/* A human summary. */
void capture_probe_print(const capture_probe *p, FILE *out);

/* Still images (still_image.c). A still image file (anything FFmpeg reads: png, jpg,
 * tif, bmp, ppm/pgm, webp, ...) decoded to 8-bit gray (channels 1) or RGB (channels 3),
 * rows packed (stride width * channels); *pixels malloc'd (caller frees). */
int capture_image_read(const char *path, int channels, unsigned char **pixels, int *width, int *height,
                       icv_err *err);
/* Packed 8-bit gray (channels 1) or RGB (3) pixels encoded as the bytes of a still
 * image file of extension ext (".png", ".jpg", ".tif", ".bmp", ".ppm", ...: the codec
 * FFmpeg's image2 muxer picks for it); *buf malloc'd. PNG at zlib level 1 (fast),
 * JPEG at quality scale 2. */
int capture_image_encode(const unsigned char *pixels, int width, int height, int channels, const char *ext,
                         unsigned char **buf, size_t *len, icv_err *err);

/* Opens a video (or image sequence) and decodes its first and last frames, for
 * `impactcv check`: fails with one line naming the file when it is not a video, has
 * no video stream (audio only), no decodable frame, or is cut short or corrupt (its
 * last frame, or a frame read, lost). Fills info. */
int capture_video_check(const char *path, const capture_options *opt, capture_info *info, icv_err *err);

/* FFmpeg's version as linked (version.c), for --version and results.json. */
const char *capture_ffmpeg_version(void);

#endif
