/* cli.h: the impactcv command's internals. Each subcommand is one file
 * (cmd_<name>.c) with one entry point; it parses its arguments, calls one module
 * function and prints. No computation here. */
#ifndef ICV_CLI_H
#define ICV_CLI_H

#include "core/core.h"
#include "job/job.h"

/* Exit statuses: 0 success; 1 the job failed (bad input, I/O, ...); 2 usage
 * error or a command that is not built yet. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

typedef struct {
    const char *name;
    const char *summary;                 /* one line for `impactcv --help` */
    int (*run)(int argc, char **argv);   /* argv[0] is the subcommand's name */
} cli_command;

/* Prints "impactcv: <msg>" on stderr (the one line) and returns CLI_FAIL. */
int cli_fail(const icv_err *err);
/* Prints "impactcv <cmd>: <message>" and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "impactcv <cmd>: not implemented yet (<what>)", status 2. */
int cli_not_implemented(const char *cmd, const char *what);
/* A summary line on stdout, left out under -q (only warnings and errors then). */
void cli_summary(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stdout for a summary a module prints, NULL under -q. */
FILE *cli_summary_stream(void);
/* True when argv holds -h or --help (before a "--"). */
int cli_wants_help(int argc, char **argv);
/* 0 when the experiment at path has cameras (or does not load: the command says
 * why); else prints that only `analyze --tracks` reads it and returns CLI_FAIL.
 * For the stages that read videos (track, run, coefficients without --tracks). */
int cli_need_cameras(const char *path);
/* The experiment's calibration file as the stages will read it (calibration_check.c):
 * one camera: intrinsics; two: a stereo file in metres; more: refused. Sets the
 * calibrated image size (0 without a file). */
int cli_calibration_check(const icv_experiment *e, int *width, int *height, icv_err *err);
/* The same from the experiment's path, before `track` or `run`: 0, or the one line
   printed and CLI_FAIL */
int cli_calibration_check_path(const char *experiment_path);

/* 1 when the experiment names several bodies (bodies:); a file that does not load is
 * left to the job, which says why. */
int cli_several_bodies(const char *path);
/* Several bodies' analysis: each body-body impact's e, impulse ratio, loss, momentum
 * change and mismatch, each joint's residual. */
void cli_bodies_summary(const job_bodies_result *r);

int cmd_calib(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_track(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_undistort(int argc, char **argv);
int cmd_campaign(int argc, char **argv);
int cmd_coefficients(int argc, char **argv);

#endif
