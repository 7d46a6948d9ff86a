/* cmd_probe.c: `impactcv probe [--json] [--capture-fps F] VIDEO`: what capture knows about
 * one video (capture_probe_run): frames, rates, timing faults, flicker, flash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "cli/cli.h"

static const char help[] =
    "usage: impactcv probe [--json] [--capture-fps F] [--exposure S] VIDEO\n"
    "\n"
    "Frames, rates, timestamps, timing faults (VFR, duplicates, drops, lost frames),\n"
    "mains flicker and the flash (with its sub-frame onset) of a video file or an image\n"
    "sequence (a printf pattern like 'img_%04d.png', a quoted glob, or a folder).\n"
    "\n"
    "  --json            print the contract's probe object instead of the summary\n"
    "  --capture-fps F   the true capture rate in Hz (a slow-motion clip saved at 30 fps);\n"
    "                    default: a capture-rate tag in the container, else the nominal rate\n"
    "  --exposure S      exposure time in seconds, for the flash's sub-frame onset;\n"
    "                    default: a full frame period\n"
    "\n"
    "Exit status 1, with one line, when the file cannot be read or frames are lost.\n";

int cmd_probe(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    int json = 0;
    const char *path = NULL;
    capture_options opt = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--capture-fps")) {
            if (i + 1 >= argc)
                return cli_usage_error("probe", "--capture-fps needs a value");
            char *end;
            opt.capture_fps = strtod(argv[++i], &end);
            if (*end || !(opt.capture_fps > 0) || !isfinite(opt.capture_fps))
                return cli_usage_error("probe", "--capture-fps: '%s' is not a rate > 0", argv[i]);
        } else if (!strcmp(argv[i], "--exposure")) {
            if (i + 1 >= argc)
                return cli_usage_error("probe", "--exposure needs a value");
            char *end;
            opt.exposure_s = strtod(argv[++i], &end);
            if (*end || !(opt.exposure_s > 0) || !isfinite(opt.exposure_s))
                return cli_usage_error("probe", "--exposure: '%s' is not a time > 0 (seconds)", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("probe", "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error("probe", "one video only ('%s' is extra)", argv[i]);
        }
    }
    if (!path)
        return cli_usage_error("probe", "no video given");
    capture_probe p;
    icv_err err = {0};
    if (capture_probe_run(path, &opt, &p, &err))
        return cli_fail(&err);
    int rc = json ? capture_probe_write_json(&p, stdout, &err) : (capture_probe_print(&p, stdout), 0);
    if (!rc)
        rc = capture_probe_check(&p, &err);
    capture_probe_free(&p);
    return rc ? cli_fail(&err) : CLI_OK;
}
