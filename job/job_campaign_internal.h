/* job_campaign_internal.h: what the campaign's files share (private to job/):
 * campaign.c (campaign.yaml, the local engine, the gather), campaign_calibration.c
 * (one calibration shared by the experiments that name the same board images) and
 * campaign_slurm.c (the slurm engine: a job array and a dependent gather job).
 * docs/campaign.md. */
#ifndef ICV_JOB_CAMPAIGN_INTERNAL_H
#define ICV_JOB_CAMPAIGN_INTERNAL_H

#include "job/job_internal.h"

/* campaign.yaml's calibration: */
enum {
    CAMPAIGN_CALIB_AUTO = 0, /* experiments naming the same board images (by content) share one */
    CAMPAIGN_CALIB_EACH,     /* each calibrates itself in its run */
    CAMPAIGN_CALIB_ONE,      /* one calibration for all: they must name the same board images */
    CAMPAIGN_CALIB_FILE      /* the calibration file given, for all */
};

enum { CAMPAIGN_SLURM_MAX_ARGS = 16 };

/* campaign.yaml's slurm: */
typedef struct {
    char partition[128];
    char time[64];       /* sbatch --time, as written (e.g. 00:30:00) */
    char mem[64];        /* sbatch --mem, as written (e.g. 4G) */
    int cpus_per_task;   /* 0: Slurm's default */
    int n_args;
    char args[CAMPAIGN_SLURM_MAX_ARGS][256]; /* sbatch_args: passed as given, one argv item each */
    char binary[ICV_PATH_MAX]; /* the impactcv the tasks run; "": this process's own */
} campaign_slurm_settings;

typedef struct {
    const job_campaign_options *o;
    char path[ICV_PATH_MAX];     /* campaign.yaml, absolute (the tasks read it again) */
    char out_dir[ICV_PATH_MAX];  /* DIR, absolute */
    report_campaign_result *r;
    icv_experiment *model;
    int has_model;
    int engine;                  /* campaign.yaml's engine: JOB_ENGINE_* (DEFAULT: absent) */
    int calib_mode;              /* CAMPAIGN_CALIB_* */
    char calib_given[ICV_PATH_MAX]; /* CAMPAIGN_CALIB_FILE: the file, absolute */
    campaign_slurm_settings slurm;
    char (*calibration)[ICV_PATH_MAX]; /* per experiment: the shared calibration file its run
                                          reads, "" none (it calibrates itself) */
    int *todo;                   /* the experiments to run (not up to date, not failed) */
    int n_todo;
} job_campaign;

/* The options of experiment i's run (its out_dir, the shared model and calibration). */
void job_campaign_run_options(const job_campaign *c, int i, job_run_options *ro);

/* campaign_calibration.c: each experiment's shared calibration (c->calibration),
 * computed once into DIR/calibration/<content hash>/calibration.yaml unless there
 * already (the local engine, and the slurm engine before it submits). An experiment
 * whose calibration cannot be computed is failed with the reason; fails (one line)
 * only on campaign.yaml's own contradictions (calibration: one over experiments naming
 * different boards). */
int job_campaign_calibrations(job_campaign *c, icv_err *err);
/* Experiment i's alone (a slurm task, the gather): the file the campaign made for its
 * board images' hash, when there; nothing computed, no other experiment's images read
 * (without it, its run calibrates itself: the same calibration). */
int job_campaign_calibration_find(job_campaign *c, int i, icv_err *err);

/* campaign.c: the validation table, campaign.html and the joint fit from the results in
 * DIR (the statuses already set: RAN, UP_TO_DATE, FAILED; 0 = see whether up to date). */
int job_campaign_gather(job_campaign *c, icv_err *err);

/* campaign_slurm.c */
/* Submits the job array of c->todo and the gather job (afterany), fills c->o->slurm; with
 * o->wait follows them and fills c->r from the gather's results. */
int job_campaign_slurm_submit(job_campaign *c, icv_err *err);
/* In a task: runs experiment $SLURM_ARRAY_TASK_ID into DIR/<name>/ and leaves its result
 * line in DIR/.slurm/<array>_<index>.result. */
int job_campaign_slurm_task(job_campaign *c, icv_err *err);
/* In the gather job: each experiment's status from its task's result, or the reason
 * its log gives. */
void job_campaign_slurm_collect(job_campaign *c, const char *array_id);
/* s since the array was submitted (its DIR/.slurm/<array>_submitted), or -1. */
double job_campaign_slurm_since_submitted(job_campaign *c, const char *array_id);
/* In the gather job: its exit status, where a follower (wait) reads it. */
int job_campaign_slurm_gather_status(job_campaign *c, const char *array_id, int status, icv_err *err);

/* A result line ("O <seconds> <impacts>" or "E <error>") into experiment x's fields;
 * 0 when the line is not one. */
int job_campaign_result_line(report_campaign_experiment *x, const char *line);

#endif
