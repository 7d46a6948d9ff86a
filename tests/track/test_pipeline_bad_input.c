/* test_pipeline_bad_input.c: `impactcv track` on bad input fails with one line naming
 * the camera, file or frame, exits 1, and leaves no output file (issue #8 item 7).
 * Videos are small PGM sequences drawn here (render.h); the calibration is a
 * hand-written stereo file, the surface a plane, so each test reaches the stage whose
 * failure it checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/harness.h"
#include "tests/track/render.h"

enum { W = 160, H = 120, NF = 24 };

/* A stereo calibration of two identical cameras 0.1 m apart (OpenCV FileStorage). */
static void write_calibration(const char *path, int w, int h)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%%YAML:1.0\n---\nimage_width: %d\nimage_height: %d\n"
             "M1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [200., 0., 79.5, 0., 200., 59.5, 0., 0., 1.]\n"
             "D1: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n   data: [0., 0., 0., 0., 0.]\n"
             "M2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [200., 0., 79.5, 0., 200., 59.5, 0., 0., 1.]\n"
             "D2: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n   data: [0., 0., 0., 0., 0.]\n"
             "R: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [1., 0., 0., 0., 1., 0., 0., 0., 1.]\n"
             "T: !!opencv-matrix\n   rows: 3\n   cols: 1\n   dt: d\n   data: [-0.1, 0., 0.]\n",
             w, h);
    th_write_file(path, text);
}

/* The markers 0.375 m apart: 30 px at 2.5 m (8 px of disparity) through f = 200 px. */
static void write_experiment(const char *dir)
{
    char path[1024], text[2048];
    snprintf(text, sizeof text,
             "name: bad\n"
             "cameras:\n  - {id: a, video: 'a/f_%%03d.pgm'}\n  - {id: b, video: 'b/f_%%03d.pgm'}\n"
             "calibration: {file: stereo.yaml}\n"
             "surface: {plane: {point: [0, 0, 1], normal: [0, 0, -1]}}\n"
             "sync: {offsets: {a: 0, b: 0}}\n"
             "body:\n  mass: 0.1\n  inertia: [[1e-4,0,0],[0,1e-5,0],[0,0,1e-4]]\n"
             "  markers: [[0,0.375,0],[0,0,0],[0,-0.375,0]]\n  marker_diameter: 0.01\n");
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    th_write_file(path, text);
}

/* Marker k of frame f: a spot moving down 2 px per frame; hidden when lost_from >= 0
 * and f >= lost_from for marker 1. */
typedef struct {
    int n_markers;
    int lost_from;  /* frame from which marker 1 is gone, -1 never */
    int n_clutter;  /* extra still spots in every frame */
    int blink;      /* 1: from frame 3, marker 1 hidden in frames 3k + 1, marker 2 in 3k + 2 */
} scene;

static void write_video(const char *dir, const char *cam, const scene *sc, double shift)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, cam);
    mkdir(path, 0777);
    rn_rng rng = {42};
    uint8_t *px = malloc((size_t)W * H);
    for (int f = 0; f < NF; f++) {
        rn_img im = rn_new(W, H, 20);
        for (int k = 0; k < sc->n_markers; k++) {
            if (k == 1 && sc->lost_from >= 0 && f >= sc->lost_from)
                continue;
            if (sc->blink && f >= 3 && k > 0 && f % 3 == k)
                continue;
            rn_gauss_spot(&im, 50 + 30 * k + shift, 20 + 2.0 * f, 1.5, 200, 1);
        }
        rn_rng crng = {7}; /* clutter at the same places every frame */
        for (int k = 0; k < sc->n_clutter; k++)
            rn_gauss_spot(&im, 5 + (W - 10) * rn_uniform(&crng), 5 + (H - 10) * rn_uniform(&crng), 1.2, 180, 1);
        rn_to_u8(&im, 2, &rng, px);
        rn_free(&im);
        snprintf(path, sizeof path, "%s/%s/f_%03d.pgm", dir, cam, f);
        FILE *fp = fopen(path, "wb");
        fprintf(fp, "P5\n%d %d\n255\n", W, H);
        fwrite(px, 1, (size_t)W * H, fp);
        fclose(fp);
    }
    free(px);
}

static const char *make_case(const scene *sc, int calib_w)
{
    const char *dir = th_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/stereo.yaml", dir);
    write_calibration(path, calib_w, H);
    write_experiment(dir);
    write_video(dir, "a", sc, 0);
    write_video(dir, "b", sc, -8);
    return dir;
}

/* Runs the command; checks status 1, one line, and that no output file was left. */
static int run_failing(const char *dir, th_proc *p)
{
    th_run_cli(p, "track %s/experiment.yaml -o %s/out", dir, dir);
    return p->status;
}

static int no_outputs(const char *dir)
{
    char path[1024];
    const char *names[] = {"tracks2d_a.csv", "tracks2d_b.csv", "tracks3d.csv", "tracks3d_quality.csv"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/out/%s", dir, names[i]);
        if (th_read_file(path))
            return 0;
    }
    return 1;
}

static int one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && nl[1] == '\0';
}

TEST(test_track_no_marker_names_camera_and_what_each_look_saw)
{
    scene sc = {0, -1, 0, 0};
    const char *dir = make_case(&sc, W);
    th_proc p;
    ASSERT_EQ_INT(run_failing(dir, &p), 1);
    ASSERT_STR_CONTAINS(p.err, "camera 'a'");
    /* track.markers auto (the default) finds no look for it, and says what each saw */
    ASSERT_STR_CONTAINS(p.err, "no look finds the 3 markers");
    ASSERT_STR_CONTAINS(p.err, "bright kept no blob");
    ASSERT(one_line(p.err), "one line expected: %s", p.err);
    ASSERT(no_outputs(dir), "an output file was left");
}

TEST(test_track_far_more_blobs_than_markers_suggests_roi_mask_or_another_look)
{
    scene sc = {3, -1, 60, 0}; /* 60 still glints: more than 8 x 3 markers in every frame */
    const char *dir = make_case(&sc, W);
    /* the bright look set by hand: auto leaves a look this crowded out (the motion look
       sees the three markers without the still glints) */
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "%s/experiment.yaml", dir);
    FILE *fp = fopen(yaml, "a");
    ASSERT_TRUE(fp != NULL);
    fprintf(fp, "track:\n  markers: bright\n");
    fclose(fp);
    th_proc p;
    ASSERT_EQ_INT(run_failing(dir, &p), 1);
    ASSERT_STR_CONTAINS(p.err, "camera 'a'");
    ASSERT_STR_CONTAINS(p.err, "bright blobs of a marker's size in every frame");
    ASSERT_STR_CONTAINS(p.err, "roi");
    ASSERT_STR_CONTAINS(p.err, "track.markers");
    /* the automatic threshold already leaves the noise out: a higher one is no fix */
    ASSERT(strstr(p.err, "higher") == NULL, "suggests a higher threshold: %s", p.err);
    ASSERT(one_line(p.err), "one line expected: %s", p.err);
    ASSERT(no_outputs(dir), "an output file was left");
}

TEST(test_track_markers_auto_tracks_markers_among_still_glints_with_the_motion_look)
{
    /* the scene above with track.markers auto: the bright look keeps more than 8 blobs a
       marker in every frame, which the camera would be refused for; auto leaves it out
       and the motion look sees the three moving markers without the still glints (it
       kept bright whenever bright kept blobs, and the job failed) */
    scene sc = {3, -1, 60, 0};
    const char *dir = make_case(&sc, W);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "track %s/experiment.yaml -o %s/out", dir, dir), 0);
    ASSERT_STR_CONTAINS(p.err, "track.markers auto: motion (");
    char path[1200];
    snprintf(path, sizeof path, "%s/out/tracks3d.csv", dir);
    ASSERT(th_read_file(path) != NULL, "tracks3d.csv");
}

TEST(test_track_marker_lost_for_good_is_a_gap_warned_not_a_failure)
{
    scene sc = {3, 12, 0, 0}; /* marker 1 vanishes at frame 12, mid-image, for good */
    const char *dir = make_case(&sc, W);
    th_proc p;
    th_run_cli(&p, "track %s/experiment.yaml -o %s/out", dir, dir);
    printf("%s", p.err);
    ASSERT(p.status == 0, "the job failed: %s", p.err);
    char path[1024];
    snprintf(path, sizeof path, "%s/out/track_info.json", dir);
    const char *info = th_read_file(path);
    ASSERT(info, "no %s", path);
    /* frames 12..23 of 24, in both cameras, listed and warned */
    int ok = strstr(info, "camera 'a': marker 1 missing in frames 12-23 (12 frames, to the clip's end): not found") &&
             strstr(info, "camera 'b': marker 1 missing in frames 12-23") && strstr(info, "\"first_frame\": 12");
    ASSERT(ok, "gap not listed in %s", path);
    ASSERT_STR_CONTAINS(p.err, "marker 1 missing in frames 12-23");
}

TEST(test_track_many_gaps_are_warned_eight_per_camera_and_counted)
{
    scene sc = {3, -1, 0, 1}; /* markers 1 and 2 hidden by turns: 14 one-frame gaps per camera */
    const char *dir = make_case(&sc, W);
    th_proc p;
    th_run_cli(&p, "track %s/experiment.yaml -o %s/out", dir, dir);
    ASSERT(p.status == 0, "the job failed: %s", p.err);
    int lines = 0;
    for (const char *q = p.err; (q = strstr(q, "missing in frame")) != NULL; q++)
        lines++;
    /* 8 warned in each camera; the other 6 of each (one frame each) counted in one line */
    ASSERT_EQ_INT(lines, 16);
    ASSERT_STR_CONTAINS(p.err, "camera 'a': 6 more gaps in the markers' tracks (6 frames; track_info.json");
    ASSERT_STR_CONTAINS(p.err, "camera 'b': 6 more gaps");
    char path[1024];
    snprintf(path, sizeof path, "%s/out/track_info.json", dir);
    const char *info = th_read_file(path);
    ASSERT(info, "no %s", path);
    ASSERT_STR_CONTAINS(info, "\"first_frame\": 23"); /* every gap listed there */
    ASSERT_STR_CONTAINS(info, "camera 'a': 6 more gaps in the markers' tracks (6 frames");
}

TEST(test_track_calibration_size_differing_from_video_is_refused)
{
    scene sc = {3, -1, 0, 0};
    const char *dir = make_case(&sc, 2 * W);
    th_proc p;
    ASSERT_EQ_INT(run_failing(dir, &p), 1);
    ASSERT_STR_CONTAINS(p.err, "stereo.yaml");
    ASSERT_STR_CONTAINS(p.err, "image size 320x120 differs from camera 'a'");
    ASSERT_STR_CONTAINS(p.err, "(160x120)");
    ASSERT(one_line(p.err), "one line expected: %s", p.err);
    ASSERT(no_outputs(dir), "an output file was left");
}

/* The cameras are decoded concurrently (camera a in the caller, b in a thread): a
 * camera whose frame cannot be read fails the job with its own error, the other camera
 * stops early, and nothing is written (under ASan: nothing leaks on either path). */
TEST(test_track_a_camera_failing_while_decoded_concurrently_names_its_frame)
{
    for (int failing = 0; failing < 2; failing++) {
        scene sc = {3, -1, 0, 0};
        const char *dir = make_case(&sc, W);
        const char *cam = failing ? "b" : "a";
        char odd[1024];
        snprintf(odd, sizeof odd, "%s/%s/f_010.pgm", dir, cam);
        FILE *fp = fopen(odd, "wb"); /* an image of another size in the middle of the sequence */
        ASSERT(fp, "cannot write %s", odd);
        fprintf(fp, "P5\n%d %d\n255\n", W / 2, H / 2);
        for (int i = 0; i < W / 2 * H / 2; i++)
            fputc(20, fp);
        fclose(fp);
        th_proc p;
        ASSERT_EQ_INT(run_failing(dir, &p), 1);
        char want[1100];
        snprintf(want, sizeof want, "camera '%s': %s: image is 80x60", cam, odd);
        ASSERT_STR_CONTAINS(p.err, want);
        ASSERT(one_line(p.err), "one line expected: %s", p.err);
        ASSERT(no_outputs(dir), "an output file was left");
    }
}

/* The cameras are opened concurrently too (their auto look trials): each camera's
 * look line comes once, in the experiment's order, whichever camera chose first. */
TEST(test_track_look_lines_of_cameras_opened_concurrently_come_in_their_order)
{
    scene sc = {3, -1, 0, 0};
    const char *dir = make_case(&sc, W);
    th_proc p;
    th_run_cli(&p, "-v track %s/experiment.yaml -o %s/out", dir, dir);
    ASSERT_EQ_INT(p.status, 0);
    const char *a = strstr(p.err, "camera 'a': track.markers auto: ");
    const char *b = strstr(p.err, "camera 'b': track.markers auto: ");
    ASSERT(a && b && a < b, "camera a's look line, then b's, expected: %s", p.err);
    ASSERT(!strstr(a + 1, "camera 'a': track.markers auto: ") && !strstr(b + 1, "camera 'b': track.markers auto: "),
           "one look line per camera expected: %s", p.err);
}

TEST(test_track_usage_errors_exit_2)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "track"), 2);
    ASSERT_EQ_INT(th_run_cli(&p, "track x.yaml"), 2);
    ASSERT_EQ_INT(th_run_cli(&p, "track x.yaml -o d --bogus"), 2);
    ASSERT_EQ_INT(th_run_cli(&p, "track --help"), 0);
    ASSERT_STR_CONTAINS(p.out, "tracks3d.csv");
}

/* Appends a track: section to the case's experiment.yaml. */
static void add_track_section(const char *dir, const char *yaml)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    FILE *fp = fopen(path, "a");
    fprintf(fp, "track:\n%s", yaml);
    fclose(fp);
}

TEST(test_track_markers_bad_values_name_the_key_in_one_line)
{
    const char *cases[][2] = {
        {"  markers: brigth\n", "'brigth' is not a marker look"},
        {"  markers: [1, 2]\n", "expected bright, dark"},
        {"  markers: {color: [255, 0]}\n", "color"},
        {"  markers: {color: [255, 0, 300]}\n", "must be in [0, 255]"},
        {"  markers: {color: [255, 0, 0], tolerance: 0}\n", "out of range"},
        {"  markers: {tolerance: 40}\n", "color"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scene sc = {3, -1, 0, 0};
        const char *dir = make_case(&sc, W);
        add_track_section(dir, cases[i][0]);
        th_proc p;
        ASSERT_EQ_INT(run_failing(dir, &p), 1);
        ASSERT_STR_CONTAINS(p.err, "track.markers");
        ASSERT_STR_CONTAINS(p.err, cases[i][1]);
        ASSERT(one_line(p.err), "one line expected: %s", p.err);
        ASSERT(no_outputs(dir), "an output file was left");
    }
}

TEST(test_track_markers_auto_names_what_it_tried_when_nothing_fits)
{
    scene sc = {0, -1, 0, 0}; /* no marker at all: noise on a dark background */
    const char *dir = make_case(&sc, W);
    th_proc p;
    ASSERT_EQ_INT(run_failing(dir, &p), 1);
    ASSERT_STR_CONTAINS(p.err, "track.markers auto: no look finds the 3 markers");
    ASSERT_STR_CONTAINS(p.err, "bright kept");
    ASSERT_STR_CONTAINS(p.err, "dark kept");
    ASSERT_STR_CONTAINS(p.err, "motion");
    ASSERT(one_line(p.err), "one line expected: %s", p.err);
    ASSERT(no_outputs(dir), "an output file was left");
}

TEST(test_track_markers_auto_picks_dark_for_dark_spots_the_bright_look_misses)
{
    scene sc = {3, -1, 0, 0};
    const char *dir = make_case(&sc, W);
    /* the same scene inverted: dark spots on a light background */
    for (int c = 0; c < 2; c++)
        for (int f = 0; f < NF; f++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/f_%03d.pgm", dir, c ? "b" : "a", f);
            FILE *fp = fopen(path, "r+b");
            ASSERT_TRUE(fp != NULL);
            char hdr[32];
            ASSERT_TRUE(fgets(hdr, sizeof hdr, fp) && fgets(hdr, sizeof hdr, fp) && fgets(hdr, sizeof hdr, fp));
            long at = ftell(fp);
            uint8_t *px = malloc((size_t)W * H);
            ASSERT_TRUE(fread(px, 1, (size_t)W * H, fp) == (size_t)W * H);
            for (int i = 0; i < W * H; i++)
                px[i] = (uint8_t)(255 - px[i]);
            fseek(fp, at, SEEK_SET);
            fwrite(px, 1, (size_t)W * H, fp);
            fclose(fp);
            free(px);
        }
    /* auto (the default) picks dark from the first frames and says why */
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "-v track %s/experiment.yaml -o %s/out", dir, dir), 0);
    ASSERT_STR_CONTAINS(p.err, "track.markers auto: dark (");
    /* the 2D stage finds the three spots in both cameras, and the frames whose three
       points the template labels are 0.375 m apart, as body.markers says (3 mm) */
    char path[1200];
    snprintf(path, sizeof path, "%s/out/tracks3d.csv", dir);
    const char *csv = th_read_file(path);
    ASSERT(csv != NULL, "tracks3d.csv");
    int full = 0;
    for (const char *ln = strchr(csv, '\n'); ln && ln[1]; ln = strchr(ln + 1, '\n')) {
        double x[9];
        if (sscanf(ln + 1, "%*[^,],%*[^,],%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3], &x[4],
                   &x[5], &x[6], &x[7], &x[8]) != 9)
            continue;
        for (int k = 0; k < 2; k++) {
            double d = sqrt(pow(x[3 * k + 3] - x[3 * k], 2) + pow(x[3 * k + 4] - x[3 * k + 1], 2) +
                            pow(x[3 * k + 5] - x[3 * k + 2], 2));
            ASSERT(fabs(d - 0.375) <= 0.003, "markers %d-%d %.4f m apart", k, k + 1, d);
        }
        full++;
    }
    ASSERT(full >= 3, "%d frames with the three markers", full);
    add_track_section(dir, "  markers: bright\n");
    th_run_cli(&p, "track %s/experiment.yaml -o %s/out", dir, dir);
    ASSERT_STR_CONTAINS(p.err, "no marker found"); /* the bright look sees nothing there */
}
