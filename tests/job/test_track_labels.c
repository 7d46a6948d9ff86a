/* test_track_labels.c: the body marker of each 2D point (job/track_labels.c). A 2D
 * track lends its label to its unlabelled frames, but a marker is named at most once
 * per frame: in held-out scene 5002 (a board left in view) board squares' tracks,
 * each labelled in a few frames, carried markers 0-2 through the whole clip, and
 * tracks2d listed up to ten points a frame for one marker. */
#include <string.h>

#include "job/job_track_internal.h"
#include "tests/harness.h"

enum { FRAMES = 20, IDS = 3 };

/* track 0 is marker 1's own, labelled in frames 0-9 and 15-19 (the other camera lost
 * it in 10-14); track 1 a glint labelled as marker 1 in frames 2 and 3 only; track 2
 * another glint, labelled as marker 1 in frame 17 only */
static void scene(job_track_camera *c, int *label, track_raw_point *raw)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < FRAMES * IDS; i++)
        label[i] = -1;
    long n = 0;
    for (int f = 0; f < FRAMES; f++) {
        if (f < 10 || f >= 15)
            label[f * IDS + 0] = 1;
        for (int id = 0; id < IDS; id++)
            raw[n++] = (track_raw_point){.frame = f, .id = id};
    }
    label[2 * IDS + 1] = label[3 * IDS + 1] = 1;
    label[17 * IDS + 2] = 1;
    label[2 * IDS + 0] = label[3 * IDS + 0] = -1; /* the glint took marker 1 there */
    label[17 * IDS + 0] = -1;
    c->label = label;
    c->raw = raw;
    c->n_raw = n;
    c->frames = FRAMES;
    c->n_ids = IDS;
}

TEST(test_track_labels_a_marker_is_named_once_a_frame_and_its_own_track_keeps_it)
{
    job_track_camera c;
    int label[FRAMES * IDS], marker[FRAMES * IDS];
    track_raw_point raw[FRAMES * IDS];
    scene(&c, label, raw);
    icv_err err = {0};
    ASSERT(job_track_labels_2d(&c, marker, &err) == 0, "%s", err.msg);
    for (int f = 0; f < FRAMES; f++) {
        int named = 0;
        for (int id = 0; id < IDS; id++)
            named += marker[f * IDS + id] == 1;
        ASSERT(named == 1, "frame %d: marker 1 named %d times", f, named);
    }
    /* labelled frames keep their labels; frames 10-14 (the other camera lost it) go to
       marker 1's own track, which carries it in 13 frames, not to a glint's */
    ASSERT_EQ_INT(marker[2 * IDS + 1], 1);
    ASSERT_EQ_INT(marker[17 * IDS + 2], 1);
    for (int f = 10; f < 15; f++)
        ASSERT(marker[f * IDS + 0] == 1 && marker[f * IDS + 1] < 0 && marker[f * IDS + 2] < 0,
               "frame %d: tracks 0-2 named %d %d %d", f, marker[f * IDS], marker[f * IDS + 1], marker[f * IDS + 2]);
    /* a glint's frames near its own labelled ones lend only where marker 1 is free */
    ASSERT_EQ_INT(marker[4 * IDS + 1], -1);
    ASSERT_EQ_INT(marker[2 * IDS + 0], -1);
    /* the one-point query never duplicates a label held at that frame */
    ASSERT_EQ_INT(job_track_label_2d(&c, 5, 1), -1);
    ASSERT_EQ_INT(job_track_label_2d(&c, 5, 0), 1);
    ASSERT_EQ_INT(job_track_label_2d(&c, 12, 0), 1);
}
