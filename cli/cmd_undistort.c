/* cmd_undistort.c: `impactcv undistort IMAGE --calib CAM.yaml -o OUT`: an
 * undistorted copy of an image, for looking (calib/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "cli/cli.h"

static const char help[] =
    "usage: impactcv undistort IMAGE --calib CAM.yaml -o OUT [--camera 1|2]\n"
    "\n"
    "An undistorted image, for looking: the same camera matrix, distortion removed.\n"
    "CAM.yaml is a calibration written by `impactcv calib` or another OpenCV tool;\n"
    "for a stereo file --camera 2 takes the second camera (M2, D2). OUT's extension\n"
    "(.png, .jpg, .tif, ...) picks the format.\n";

int cmd_undistort(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *image = NULL, *calib = NULL, *out = NULL;
    int camera = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--calib") && i + 1 < argc)
            calib = argv[++i];
        else if (!strcmp(a, "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(a, "--camera") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "1") && strcmp(v, "2"))
                return cli_usage_error("undistort", "--camera '%s': expected 1 or 2", v);
            camera = atoi(v);
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("undistort", "unknown option or missing value '%s'", a);
        else if (!image)
            image = a;
        else
            return cli_usage_error("undistort", "one image at a time ('%s')", a);
    }
    if (!image || !calib || !out)
        return cli_usage_error("undistort", "expected IMAGE --calib CAM.yaml -o OUT");
    calib_intrinsics in;
    icv_err err = {0};
    if (calib_intrinsics_read(calib, camera - 1, &in, NULL, &err) ||
        calib_undistort_image_file(&in, image, out, &err))
        return cli_fail(&err);
    cli_summary("wrote %s\n", out);
    return CLI_OK;
}
