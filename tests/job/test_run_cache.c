/* test_run_cache.c: `impactcv run`'s stage cache (issue #10 item 1), in process so
 * that capture's decoded-frame counter shows what was decoded: on a copy of the
 * one-camera sample (the fastest), changing only model: re-uses the tracks without
 * decoding a frame and changes results.json's model block; a changed video or board
 * image re-runs the tracking; --from track runs every stage; a failing run leaves the
 * previous results, and their manifest, as they were. */
#include <stdlib.h>
#include <unistd.h>

#include "job/job.h"
#include "tests/harness.h"

#define SAMPLE "sample_videos/03_rod_drop_planar"

static int run(const char *exp, const char *out, const char *from, job_run_result *r, icv_err *err)
{
    job_run_options o = {0};
    o.experiment_path = exp;
    o.out_dir = out;
    o.from = from;
    return job_run(&o, r, err);
}

/* The experiment's text with `old` replaced by `new` (once). */
static int edit_experiment(const char *path, const char *old, const char *new)
{
    const char *text = th_read_file(path);
    const char *at = text ? strstr(text, old) : NULL;
    if (!at)
        return -1;
    char *buf = malloc(strlen(text) + strlen(new) + 1);
    sprintf(buf, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
    int rc = th_write_file(path, buf);
    free(buf);
    return rc;
}

static double results_e_n(const char *out)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/results.json", out);
    analysis_result res;
    icv_err err;
    if (report_results_read(path, &res, &err) || res.n_impacts < 1)
        return NAN;
    return res.impacts[0].model.e_n;
}

static int all_ran(const job_run_result *r)
{
    int n = 0;
    for (int s = 0; s < JOB_N_STAGES; s++)
        n += r->ran[s];
    return n == JOB_N_STAGES;
}

TEST(test_run_cache_reuses_tracks_when_only_the_model_changes_and_reruns_what_inputs_changed)
{
    char exp[1200], out[1200];
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "cp -r '%s/" SAMPLE "' '%s/exp'", th_root(), th_tmpdir()), 0);
    snprintf(exp, sizeof exp, "%s/exp/experiment.yaml", th_tmpdir());
    snprintf(out, sizeof out, "%s/out", th_tmpdir());
    job_run_result *r = calloc(1, sizeof *r);
    icv_err err = {0};

    /* cold: every stage runs and decodes the video (plus the calibration's images) */
    int rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "cold run: %s", err.msg);
    ASSERT(all_ran(r), "a stage was reused on a cold run");
    long cold_frames = r->decoded_frames;
    ASSERT(cold_frames >= 96, "cold run decoded %ld frames (the video has 96)", cold_frames);
    double fitted = results_e_n(out);
    ASSERT_NEAR(fitted, 0.5, 0.02); /* e_n fitted to the impact; the truth's 0.5, issue #9 tolerance */
    double cold_s = r->seconds;

    /* only model: changed -> model and report run; nothing is decoded */
    ASSERT_EQ_INT(edit_experiment(exp, "e_n: measured", "e_n: 0.35"), 0);
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "model-only run: %s", err.msg);
    printf("    cold run %.2f s (%ld frames decoded); model changed: %.3f s, %ld frames decoded\n", cold_s,
           cold_frames, r->seconds, r->decoded_frames);
    ASSERT_EQ_INT(r->decoded_frames, 0);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_TRACK], 0);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_ANALYZE], 0);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_OVERLAYS], 0);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_EXPORTS], 0);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_MODEL], 1);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_REPORT], 1);
    ASSERT_NEAR(results_e_n(out), 0.35, 1e-12); /* the given e_n, written as is */
    ASSERT_NEAR(r->job.res.impacts[0].model.e_n, 0.35, 1e-12);

    /* the same again: nothing runs, DIR is left as it is */
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "cached run: %s", err.msg);
    for (int s = 0; s < JOB_N_STAGES; s++)
        ASSERT(!r->ran[s], "stage %s ran again with nothing changed", job_stage_name(s));
    ASSERT_EQ_INT(r->decoded_frames, 0);
    /* the same experiment spelled otherwise (a number's digits, a comment): the keys are
     * the parsed model's, not the file's text, so nothing runs */
    ASSERT_EQ_INT(edit_experiment(exp, "e_n: 0.35", "e_n: 0.350  # respelled"), 0);
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "respelled run: %s", err.msg);
    for (int s = 0; s < JOB_N_STAGES; s++)
        ASSERT(!r->ran[s], "stage %s ran again for a respelled experiment.yaml", job_stage_name(s));
    int up = 0;
    job_run_options o = {.experiment_path = exp, .out_dir = out};
    ASSERT_EQ_INT(job_run_up_to_date(&o, &up, &err), 0);
    ASSERT_EQ_INT(up, 1);

    /* a video with other bytes (remuxed with a title: the same frames) -> track runs;
     * its tracks are the same bytes, so the analysis is reused */
    if (th_run_sh(&p, "command -v ffmpeg") == 0) {
        ASSERT_EQ_INT(th_run_sh(&p,
                                "cd '%s/exp' && ffmpeg -nostdin -loglevel error -i cam.mp4 -c copy "
                                "-metadata title=again re.mp4 && mv re.mp4 cam.mp4",
                                th_tmpdir()),
                      0);
        ASSERT_EQ_INT(job_run_up_to_date(&o, &up, &err), 0);
        ASSERT_EQ_INT(up, 0);
        rc = run(exp, out, NULL, r, &err);
        ASSERT(rc == 0, "changed video: %s", err.msg);
        ASSERT_EQ_INT(r->ran[JOB_STAGE_TRACK], 1);
        ASSERT(r->decoded_frames >= 96, "changed video: %ld frames decoded", r->decoded_frames);
        ASSERT_EQ_INT(r->ran[JOB_STAGE_ANALYZE], 0);
        ASSERT_EQ_INT(r->ran[JOB_STAGE_OVERLAYS], 1); /* keyed by the video itself */
    }

    /* a board image changed (the last view replaced by the first: a different
     * calibration) -> track and what depends on its tracks run */
    ASSERT_EQ_INT(th_run_sh(&p, "cd '%s/exp/calib' && cp cam_00.png cam_09.png", th_tmpdir()), 0);
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "changed board image: %s", err.msg);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_TRACK], 1);
    ASSERT_EQ_INT(r->ran[JOB_STAGE_ANALYZE], 1); /* other calibration, other tracks3d.csv bytes */
    ASSERT_EQ_INT(r->ran[JOB_STAGE_EXPORTS], 1);

    /* --from track: every stage runs although nothing changed */
    rc = run(exp, out, "track", r, &err);
    ASSERT(rc == 0, "--from track: %s", err.msg);
    ASSERT(all_ran(r), "--from track left a stage out");
    ASSERT(r->decoded_frames >= 96, "--from track decoded %ld frames", r->decoded_frames);

    /* a failing run (the video replaced by garbage) keeps the previous results and
     * manifest: the next run with the video restored reuses every stage */
    char before[8192], manifest[1200], results[1200];
    snprintf(manifest, sizeof manifest, "%s/.impactcv/manifest.json", out);
    snprintf(results, sizeof results, "%s/results.json", out);
    snprintf(before, sizeof before, "%s", th_read_file(results));
    ASSERT_EQ_INT(
        th_run_sh(&p, "cd '%s/exp' && mv cam.mp4 keep.mp4 && head -c 5000 /dev/urandom > cam.mp4", th_tmpdir()), 0);
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc != 0, "a garbage video ran");
    ASSERT_STR_CONTAINS(err.msg, "track: ");
    ASSERT(!strcmp(th_read_file(results), before), "results.json changed by a failed run");
    ASSERT(access(manifest, R_OK) == 0, "the manifest was lost");
    ASSERT_EQ_INT(th_run_sh(&p, "ls -d '%s'.run.* 2>/dev/null | wc -l | grep -qx 0", out), 0);
    ASSERT_EQ_INT(th_run_sh(&p, "cd '%s/exp' && mv keep.mp4 cam.mp4", th_tmpdir()), 0);
    rc = run(exp, out, NULL, r, &err);
    ASSERT(rc == 0, "restored: %s", err.msg);
    for (int s = 0; s < JOB_N_STAGES; s++)
        ASSERT(!r->ran[s], "stage %s ran after a failed run (its cache was damaged)", job_stage_name(s));
    free(r);
}

TEST(test_run_cache_unknown_from_stage_is_a_usage_error)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "run x.yaml -o d --from tracking"), 2);
    ASSERT_STR_CONTAINS(p.err, "--from tracking: no such stage (track, analyze");
}
