/* cmd_track.c: `impactcv track EXPERIMENT.yaml -o DIR`: 2D tracks per camera, then 3D
 * tracks (job_track_run, job/track.c); this file only parses and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv track EXPERIMENT.yaml -o DIR [--frames N] [--no-refine] [--keep-lost]\n"
    "\n"
    "2D marker tracks per camera (DIR/tracks2d_<camera>.csv), then 3D tracks in the\n"
    "surface frame (DIR/tracks3d.csv) with each point's residual and covariance\n"
    "(DIR/tracks3d_quality.csv). Files are written only when the whole job succeeds.\n"
    "\n"
    "  -o DIR        output folder (created)\n"
    "  --frames N    read at most N frames per camera\n"
    "  --no-refine   keep the flash offset: do not refine the sub-frame offset of the\n"
    "                second camera from the motion\n"
    "  --keep-lost   accepted, no effect: a lost marker is a gap in its track (a warning\n"
    "                and track_info.json cameras[].gaps), never an error\n"
    "  --debug-frames with -v: the detector's line for every frame, and the matches\n"
    "\n"
    "Exit status 1, with one line naming the file, camera or frame, when the job fails.\n";

int cmd_track(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *path = NULL, *out = NULL;
    job_track_options opt;
    job_track_options_default(&opt);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc)
                return cli_usage_error("track", "-o needs a folder");
            out = argv[++i];
        } else if (!strcmp(argv[i], "--frames")) {
            if (i + 1 >= argc)
                return cli_usage_error("track", "--frames needs a number");
            char *end;
            opt.max_frames = strtol(argv[++i], &end, 10);
            if (*end || opt.max_frames <= 0)
                return cli_usage_error("track", "--frames: '%s' is not a count > 0", argv[i]);
        } else if (!strcmp(argv[i], "--debug-frames")) {
            opt.debug_frames = 1;
        } else if (!strcmp(argv[i], "--keep-lost")) {
            opt.max_coast_error = 0;
        } else if (!strcmp(argv[i], "--no-refine")) {
            opt.refine_offset = 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("track", "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error("track", "one experiment only ('%s' is extra)", argv[i]);
        }
    }
    if (!path)
        return cli_usage_error("track", "an experiment.yaml is needed (see --help)");
    if (!out)
        return cli_usage_error("track", "-o DIR is needed (see --help)");
    if (cli_need_cameras(path))
        return CLI_FAIL;
    if (cli_calibration_check_path(path))
        return CLI_FAIL;
    icv_err err;
    icv_err_clear(&err);
    job_track_result r;
    if (job_track_run(path, out, &opt, &r, &err) != 0)
        return cli_fail(&err);
    for (int c = 0; c < r.n_cameras; c++)
        cli_summary("camera %-8s %6ld frames, %6ld 2D points, %d track identities\n", r.camera_id[c], r.frames[c],
               r.points2d[c], r.identities[c]);
    for (int c = 1; c < r.n_cameras; c++) {
        cli_summary("sync: camera %s offset %.3f frames (%s)", r.camera_id[c], r.offset_initial_frames[c],
               r.sync_source);
        if (r.offset_refined_each[c])
            cli_summary(", refined from the motion to %.3f +- %.3f frames (epipolar RMS %.3f px)", r.offset_frames[c],
                   r.offset_sigma_each[c], r.offset_residual_each_px[c]);
        cli_summary("\n");
    }
    cli_summary("3D (%s): %ld rows, %ld marker positions (%ld with an interpolated second view, %ld on one camera's "
           "ray at the body's pose, %ld bands moved to the rod's axis), %ld outliers, RMS residual %.3f px, template "
           "misfit %.2f mm RMS, %ld swaps repaired\n",
           r.planar ? "one camera, motion plane" : "triangulated", r.rows3d, r.points3d, r.interpolated3d,
           r.one_view3d, r.band_corrected, r.outliers3d, r.residual_rms_px, 1e3 * r.template_rms_m, r.swaps_repaired);
    cli_summary("wrote %s/tracks2d_*.csv, tracks3d.csv, tracks3d_quality.csv in %.2f s (decoding %.2f s)\n", out,
           r.seconds, r.decode_seconds);
    return CLI_OK;
}
