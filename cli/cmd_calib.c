/* cmd_calib.c: `impactcv calib`: mono or stereo calibration from checkerboard
 * images (calib/). Parses the arguments, expands the image lists, calls calib_,
 * prints the summary and writes the OpenCV YAML (and optionally the HTML report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv calib --board COLSxROWS@SQUARE [--stereo] -o OUT.yaml 'IMAGES' ['IMAGES2']\n"
    "       impactcv calib --board COLSxROWS@SQUARE [--stereo [--offset N]] -o OUT.yaml VIDEO [VIDEO2]\n"
    "\n"
    "Mono calibration from one image list or one video, or stereo (--stereo) from two\n"
    "lists paired by sorted name, or two synchronised videos paired by frame. Image lists\n"
    "are quoted glob patterns or folders; an existing file that is not a still image is\n"
    "a video (anything FFmpeg reads): the board is looked for in every k-th frame, blurred\n"
    "views are rejected and the most distinct sharp views are kept.\n"
    "\n"
    "  --board CxR@S      inner corners along a row (C) and a column (R), square side S in\n"
    "                     metres, e.g. 9x6@0.023\n"
    "  -o OUT.yaml        OpenCV FileStorage YAML (contract names; *_std = standard errors)\n"
    "  --stereo           two image lists or videos: camera 1 then camera 2\n"
    "  --fix-k3           keep k3 = 0 (default: phone lenses over-fit k3 from few views)\n"
    "  --free-k3          estimate k3 too (wide-angle lenses with many views)\n"
    "  --outlier-factor F drop views whose error exceeds F x the median (default 3; 0 = never)\n"
    "  --min-views N      fewest usable views (default 4 mono, 5 stereo pairs)\n"
    "  --report FILE.html a self-contained page: per-view errors, coverage, board poses,\n"
    "                     an undistorted example (image input), the verdict\n"
    "  --surface IMG      an image of the board lying on the impact surface (stereo: give\n"
    "                     it twice, camera 1's then camera 2's): the surface frame is\n"
    "                     written as surface_R, surface_t (x_cam1 = R x_surface + t)\n"
    "video input:\n"
    "  --offset N         stereo: frame n of VIDEO pairs with frame n + N of VIDEO2 (default 0)\n"
    "  --max-views N      views kept at most (default 25)\n"
    "  --examine N        frames the board is looked for in at most, spread over the clip\n"
    "                     (default 150; bounds the time, ~0.1 s a 1280x720 frame)\n";

/* Video input: sample views, calibrate, add the surface frame, write. */
static int calib_from_video(const char *const *vid, int stereo, const calib_board *b, const calib_options *opt,
                            const char *const *surf, int nsurf, const char *out, const char *report)
{
    icv_err err = {0};
    int rc;
    if (!stereo) {
        calib_camera cam;
        rc = job_calib_camera_from_video(vid[0], b, opt, &cam, &err);
        if (rc)
            return cli_fail(&err);
        if (nsurf) {
            rc = calib_surface_from_images(&cam.in, NULL, NULL, NULL, b, surf[0], NULL, &cam.surface, &err);
            cam.has_surface = !rc;
        }
        if (!rc) {
            if (cli_summary_stream())
                calib_camera_summary(&cam, stdout);
            rc = calib_camera_write(&cam, out, &err);
        }
        if (!rc && report)
            rc = calib_report_write_camera(&cam, NULL, 0, report, &err);
        calib_camera_free(&cam);
    } else {
        calib_stereo st;
        rc = job_calib_stereo_from_videos(vid[0], vid[1], b, opt, &st, &err);
        if (rc)
            return cli_fail(&err);
        if (nsurf) {
            rc = calib_surface_from_images(&st.cam[0].in, &st.cam[1].in, st.R, st.T, b, surf[0], surf[1], &st.surface,
                                           &err);
            st.has_surface = !rc;
        }
        if (!rc) {
            if (cli_summary_stream())
                calib_stereo_summary(&st, stdout);
            rc = calib_stereo_write(&st, out, &err);
        }
        if (!rc && report)
            rc = calib_report_write_stereo(&st, NULL, 0, report, &err);
        calib_stereo_free(&st);
    }
    if (rc)
        return cli_fail(&err);
    cli_summary("wrote %s%s%s\n", out, report ? " and " : "", report ? report : "");
    return CLI_OK;
}

int cmd_calib(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *board = NULL, *out = NULL, *report = NULL, *pat[2] = {NULL, NULL}, *surf[2] = {NULL, NULL};
    int stereo = 0, npat = 0, nsurf = 0, offset_given = 0;
    calib_options opt;
    calib_options_defaults(&opt);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_val = i + 1 < argc;
        if (!strcmp(a, "--board") && has_val)
            board = argv[++i];
        else if (!strcmp(a, "-o") && has_val)
            out = argv[++i];
        else if (!strcmp(a, "--report") && has_val)
            report = argv[++i];
        else if (!strcmp(a, "--surface") && has_val) {
            if (nsurf == 2)
                return cli_usage_error("calib", "--surface given more than twice");
            surf[nsurf++] = argv[++i];
        } else if (!strcmp(a, "--stereo"))
            stereo = 1;
        else if (!strcmp(a, "--fix-k3"))
            opt.fix_k3 = 1;
        else if (!strcmp(a, "--free-k3"))
            opt.fix_k3 = 0;
        else if (!strcmp(a, "--outlier-factor") && has_val) {
            char *end;
            opt.outlier_factor = strtod(argv[++i], &end);
            if (*end || opt.outlier_factor < 0)
                return cli_usage_error("calib", "--outlier-factor '%s': expected a number >= 0", argv[i]);
        } else if (!strcmp(a, "--min-views") && has_val) {
            char *end;
            opt.min_views = (int)strtol(argv[++i], &end, 10);
            if (*end || opt.min_views < 3)
                return cli_usage_error("calib", "--min-views '%s': expected an integer >= 3", argv[i]);
        } else if ((!strcmp(a, "--offset") || !strcmp(a, "--max-views") || !strcmp(a, "--examine")) && has_val) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || !*argv[i] || (strcmp(a, "--offset") && (v < 1 || v > 100000)))
                return cli_usage_error("calib", "%s '%s': expected an integer%s", a, argv[i],
                                       strcmp(a, "--offset") ? " from 1" : "");
            if (!strcmp(a, "--offset"))
                opt.video.offset = v, offset_given = 1;
            else if (!strcmp(a, "--max-views"))
                opt.video.max_views = (int)v;
            else
                opt.video.max_examined = (int)v;
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("calib", "unknown option or missing value '%s'", a);
        else if (npat < 2)
            pat[npat++] = a;
        else
            return cli_usage_error("calib", "too many image lists ('%s')", a);
    }
    calib_board b;
    icv_err err = {0};
    if (!board)
        return cli_usage_error("calib", "--board COLSxROWS@SQUARE is required");
    if (calib_board_parse(board, &b, &err))
        return cli_usage_error("calib", "%s", err.msg);
    if (!out)
        return cli_usage_error("calib", "-o OUT.yaml is required");
    if (npat != (stereo ? 2 : 1))
        return cli_usage_error("calib", stereo ? "--stereo needs two image lists" : "expected one image list%s",
                               stereo ? "" : " (two lists need --stereo)");
    if (nsurf && nsurf != (stereo ? 2 : 1))
        return cli_usage_error("calib", stereo ? "--stereo needs --surface twice (camera 1's image, camera 2's)"
                                               : "--surface once for one camera");
    int video = calib_input_is_video(pat[0]);
    if (stereo && video != calib_input_is_video(pat[1]))
        return cli_usage_error("calib", "--stereo needs two videos or two image lists ('%s' is %s, '%s' is not)",
                               video ? pat[0] : pat[1], "a video", video ? pat[1] : pat[0]);
    if (offset_given && !(stereo && video))
        return cli_usage_error("calib", "--offset pairs the frames of two videos: it needs --stereo and two videos");
    if (video)
        return calib_from_video(pat, stereo, &b, &opt, surf, nsurf, out, report);
    char **paths[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    for (int k = 0; k < npat; k++) {
        if (icv_paths_expand(pat[k], &paths[k], &n[k], &err)) {
            icv_paths_free(paths[0], n[0]);
            return cli_fail(&err);
        }
        if (n[k] == 0) {
            icv_paths_free(paths[0], n[0]);
            icv_err_set(&err, ICV_ENOTFOUND, "%s: no images match", pat[k]);
            return cli_fail(&err);
        }
    }
    int rc;
    if (!stereo) {
        calib_camera cam;
        rc = calib_camera_from_images(paths[0], n[0], &b, &opt, &cam, &err);
        if (!rc && nsurf) {
            rc = calib_surface_from_images(&cam.in, NULL, NULL, NULL, &b, surf[0], NULL, &cam.surface, &err);
            cam.has_surface = !rc;
            if (rc)
                calib_camera_free(&cam);
        }
        if (!rc) {
            if (cli_summary_stream())
                calib_camera_summary(&cam, stdout);
            rc = calib_camera_write(&cam, out, &err);
            if (!rc && report)
                rc = calib_report_write_camera(&cam, paths[0], n[0], report, &err);
            calib_camera_free(&cam);
        }
    } else {
        calib_stereo st;
        rc = calib_stereo_from_images(paths[0], n[0], paths[1], n[1], &b, &opt, &st, &err);
        if (!rc && nsurf) {
            rc = calib_surface_from_images(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &b, surf[0], surf[1], &st.surface,
                                           &err);
            st.has_surface = !rc;
            if (rc)
                calib_stereo_free(&st);
        }
        if (!rc) {
            if (cli_summary_stream())
                calib_stereo_summary(&st, stdout);
            rc = calib_stereo_write(&st, out, &err);
            if (!rc && report)
                rc = calib_report_write_stereo(&st, paths[0], n[0], report, &err);
            calib_stereo_free(&st);
        }
    }
    icv_paths_free(paths[0], n[0]);
    icv_paths_free(paths[1], n[1]);
    if (rc)
        return cli_fail(&err);
    cli_summary("wrote %s%s%s\n", out, report ? " and " : "", report ? report : "");
    return CLI_OK;
}
