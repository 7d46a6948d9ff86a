/* test_near_duplicates.c: a "60 fps" file of a 30 fps capture (every picture stored
 * twice, each copy with its own noise, as a phone re-encodes them) has its second copies
 * listed by probe, which says the real rate; the same motion filmed at 60 distinct
 * pictures lists none, and a ball at rest is not a repeated picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/harness.h"

enum { W = 320, H = 240, N = 60 };

/* A bright disc of radius 12 px on a mid-gray textured background, centre (cx, cy), with
 * Gaussian-ish noise of about sd gray levels drawn from seed (a different seed for each
 * stored frame: copies of a picture differ by noise). */
static void render(uint8_t *img, double cx, double cy, unsigned seed, double sd)
{
    unsigned s = seed * 2654435761u + 7u;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double g = 90 + 20 * sin(x * 0.11) * cos(y * 0.07); /* texture: still parts with edges */
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < 144)
                g = 220;
            double u = 0; /* sum of 4 uniforms: near Gaussian, sd 1 */
            for (int k = 0; k < 4; k++) {
                s = s * 1664525u + 1013904223u;
                u += ((s >> 8) & 0xFFFF) / 65536.0 - 0.5;
            }
            g += sd * u * sqrt(3.0);
            img[(size_t)y * W + x] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : lround(g));
        }
}

/* n frames at 60 fps (H.264 crf 18); picture of frame i = pic[i] (the disc's position
 * index), noise seed = i (every stored frame its own noise) */
static int encode(const char *path, const int *pic)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -v error -y -f rawvideo -pix_fmt gray -s %dx%d -framerate 60 -i - -c:v libx264 -crf 18 "
             "-pix_fmt yuv420p '%s'",
             W, H, path);
    FILE *f = popen(cmd, "w");
    if (!f)
        return -1;
    uint8_t *img = malloc((size_t)W * H);
    for (int i = 0; img && i < N; i++) {
        /* a ball falling then resting: pictures 0-39 move (3-6 px a picture), 40+ rest */
        double t = pic[i] < 40 ? pic[i] : 40;
        render(img, 40 + 5.0 * t, 30 + 0.1 * t * t, (unsigned)i + 1, 2.0);
        fwrite(img, 1, (size_t)W * H, f);
    }
    free(img);
    return pclose(f) == 0 ? 0 : -1;
}

static int probe(const char *path, capture_probe *p)
{
    icv_err err = {0};
    return capture_probe_run(path, NULL, p, &err);
}

TEST(test_near_duplicates_every_picture_stored_twice_is_found)
{
    int pic[N];
    for (int i = 0; i < N; i++)
        pic[i] = i / 2; /* 30 pictures/s stored at 60 */
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("twice.mp4"));
    ASSERT_EQ_INT(encode(path, pic), 0);
    capture_probe p;
    ASSERT_EQ_INT(probe(path, &p), 0);
    /* the second copies: every odd frame from 3 to N - 3 (the ball moves all along; the
     * first and last copies have no change on one side to tell a repeat from a start or
     * an end) and no even frame */
    int missing = 0, wrong = 0;
    for (int i = 3; i < N - 1; i += 2) {
        int found = 0;
        for (size_t k = 0; k < p.n_duplicates; k++)
            found |= p.duplicates[k] == i;
        missing += !found;
    }
    for (size_t k = 0; k < p.n_duplicates; k++)
        wrong += p.duplicates[k] % 2 == 0;
    ASSERT(missing == 0 && wrong == 0, "%d second copies missed, %d new pictures called repeats (of %zu listed)",
           missing, wrong, p.n_duplicates);
    ASSERT(p.n_near_duplicates >= 28, "%zu near-duplicates (the copies differ by noise: not identical)",
           p.n_near_duplicates);
    ASSERT_EQ_INT(p.stored_times, 2);
    capture_probe_free(&p);
    th_proc pr;
    ASSERT_EQ_INT(th_run_cli(&pr, "probe '%s'", path), 0);
    ASSERT_STR_CONTAINS(pr.out, "every picture is stored 2 times: the real rate is 30 pictures/s");
}

TEST(test_near_duplicates_distinct_pictures_and_rest_are_not_repeats)
{
    int pic[N];
    for (int i = 0; i < N; i++)
        pic[i] = i < 30 ? i : 40 + (i - 30); /* moving, then at rest (position held from picture 40) */
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("distinct.mp4"));
    ASSERT_EQ_INT(encode(path, pic), 0);
    capture_probe p;
    ASSERT_EQ_INT(probe(path, &p), 0);
    ASSERT(p.n_duplicates == 0, "%zu frames called repeats (first %ld) in a clip of distinct pictures",
           p.n_duplicates, p.n_duplicates ? p.duplicates[0] : -1L);
    ASSERT_EQ_INT(p.stored_times, 0);
    capture_probe_free(&p);
}

TEST(test_near_duplicates_real_phone_clip_doubled_to_60_fps)
{
    /* the green ball (real 29.97 fps footage, ../shared/data/real) stored as a "60 fps"
     * file the way a phone does it: every picture twice, each copy with its own temporal
     * noise, re-encoded; the original clip has no repeated picture */
    const char *src = th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi");
    if (!src)
        SKIP("../shared/data is absent: the real clip is not here");
    char orig[1024], path[1024];
    snprintf(orig, sizeof orig, "%s", src);
    snprintf(path, sizeof path, "%s", th_tmp("green60.mp4"));
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p,
                            "ffmpeg -v error -y -i '%s' -vf \"fps=60000/1001,noise=alls=4:allf=t,scale=480:270\" "
                            "-c:v libx264 -crf 23 -preset ultrafast '%s'",
                            orig, path),
                  0);
    capture_probe pr;
    ASSERT_EQ_INT(probe(path, &pr), 0);
    int k = pr.stored_times;
    size_t nd = pr.n_duplicates;
    capture_probe_free(&pr);
    ASSERT_EQ_INT(k, 2);
    /* 432 frames: the repeats from the first clear change on (frame ~19) to the last */
    ASSERT(nd >= 180, "%zu repeats listed", nd);
    ASSERT_EQ_INT(probe(orig, &pr), 0);
    k = pr.stored_times;
    nd = pr.n_duplicates;
    capture_probe_free(&pr);
    ASSERT(k == 0 && nd == 0, "the original clip: stored %d times, %zu repeats", k, nd);
}
