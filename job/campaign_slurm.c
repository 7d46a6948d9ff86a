/* campaign_slurm.c: the slurm engine of `impactcv campaign`. One job array,
 * a task per experiment to run (its index the experiment's place in the campaign),
 * each running this same impactcv's campaign --slurm-task, which runs that experiment
 * into DIR/<name>/ and leaves its result line (the local engine's pipe protocol:
 * "O <seconds> <impacts>" or "E <error>") in DIR/.slurm/<array>_<index>.result; then a
 * job depending on the array (afterany) running --slurm-gather, which makes the table
 * and page as the local engine does. sbatch, squeue, sacct, scancel run by posix_spawnp with
 * an argv (never a shell line of user text); the batch script is constant and gets its
 * paths as arguments. docs/campaign.md. */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job/job_campaign_internal.h"

extern char **environ;

#define SLURM_DIR ".slurm"

/* The batch script: the same for every campaign (paths come as its arguments).
 * $1 impactcv, $2 task | gather, $3 campaign.yaml, $4 DIR, $5 the array's id (gather). */
static const char task_script[] =
    "#!/bin/sh\n"
    "# impactcv campaign's Slurm job (docs/campaign.md); written by impactcv, the same for\n"
    "# every campaign. It installs nothing: it runs the impactcv given, or says why not.\n"
    "bin=$1 mode=$2 campaign=$3 dir=$4\n"
    "if [ \"$mode\" = task ]; then\n"
    "  # the marker the submitter looks for: DIR is on a file system it shares with this node\n"
    "  hostname > \"$dir/" SLURM_DIR "/${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}.marker\" ||\n"
    "    echo \"impactcv campaign task: cannot write into $dir/" SLURM_DIR " on $(hostname): is DIR on a file "
    "system the nodes share?\" >&2\n"
    "fi\n"
    "if [ ! -x \"$bin\" ]; then\n"
    "  echo \"impactcv campaign task: $bin is not visible on $(hostname): put impactcv on a file system the "
    "nodes share (campaign.yaml slurm: binary:)\" >&2\n"
    "  exit 2\n"
    "fi\n"
    "if [ \"$mode\" = task ]; then\n"
    "  exec \"$bin\" campaign \"$campaign\" -o \"$dir\" --slurm-task\n"
    "fi\n"
    "exec \"$bin\" campaign \"$campaign\" -o \"$dir\" --slurm-gather \"$5\"\n";

/* ---- running Slurm's commands --------------------------------------------- */

/* Runs argv[0] (found on PATH) with stdout and stderr into out (NUL-terminated, the
 * end kept when longer); *status its exit status. Fails when it cannot start. */
static int run_tool(char *const argv[], char *out, size_t n, int *status, icv_err *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return icv_err_set(err, ICV_EIO, "cannot make a pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        if (rc == ENOENT)
            return icv_err_set(err, ICV_ENOTFOUND,
                               "%s not found on PATH: run the campaign where Slurm's commands are (the cluster's "
                               "login node), or use the local engine (--engine local)",
                               argv[0]);
        return icv_err_set(err, ICV_EIO, "%s: cannot start: %s", argv[0], strerror(rc));
    }
    size_t len = 0;
    char buf[4096];
    ssize_t got;
    while ((got = read(fds[0], buf, sizeof buf)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        for (ssize_t i = 0; i < got && n > 0; i++) { /* keep the end: the error is last */
            if (len + 1 >= n) {
                memmove(out, out + n / 2, len - n / 2);
                len -= n / 2;
            }
            out[len++] = buf[i];
        }
    }
    close(fds[0]);
    if (n > 0)
        out[len] = '\0';
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return 0;
}

/* text's lines joined by "; " into out (a tool's message as one line). */
static void one_line(const char *text, char *out, size_t n)
{
    size_t k = 0;
    for (const char *c = text; *c && k + 3 < n; c++) {
        if (*c == '\r')
            continue;
        if (*c == '\n') {
            if (c[1] && c[1] != '\n' && k > 0)
                out[k++] = ';', out[k++] = ' ';
        } else {
            out[k++] = *c;
        }
    }
    out[k] = '\0';
}

/* ---- files in DIR/.slurm ---------------------------------------------------- */

static int slurm_file(const job_campaign *c, const char *name, char *out, icv_err *err)
{
    char dir[ICV_PATH_MAX];
    int rc = icv_path_join(dir, sizeof dir, c->out_dir, SLURM_DIR, err);
    return rc ? rc : icv_path_join(out, ICV_PATH_MAX, dir, name, err);
}

static int task_file(const job_campaign *c, const char *array, int idx, const char *ext, char *out, icv_err *err)
{
    char name[128];
    snprintf(name, sizeof name, "%s_%d.%s", array, idx, ext);
    return slurm_file(c, name, out, err);
}

/* The last line of a file that says why (an error, Slurm's CANCELLED or TIMEOUT line),
 * else its last line; "" when unreadable. */
static void reason_from_log(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char line[1024], last[1024] = "";
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        snprintf(last, sizeof last, "%s", line);
        if (strstr(line, "error") || strstr(line, "CANCELLED") || strstr(line, "TIME LIMIT") ||
            strstr(line, "impactcv") || strstr(line, "oom") || strstr(line, "Killed"))
            snprintf(out, n, "%s", line);
    }
    fclose(fp);
    if (!out[0])
        snprintf(out, n, "%s", last);
}

/* ---- the task and the gather, on the nodes ----------------------------------- */

int job_campaign_slurm_task(job_campaign *c, icv_err *err)
{
    const char *array = getenv("SLURM_ARRAY_JOB_ID"), *t = getenv("SLURM_ARRAY_TASK_ID");
    report_campaign_result *r = c->r;
    char *end;
    long idx = t ? strtol(t, &end, 10) : -1;
    if (!array || !t || *end || idx < 0 || idx >= r->n)
        return icv_err_set(err, ICV_EINVAL,
                           "--slurm-task: SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID (0 to %d) name no experiment "
                           "of %s",
                           r->n - 1, c->path);
    report_campaign_experiment *x = &r->exps[idx];
    char line[ICV_ERR_MSG_MAX + 64], path[ICV_PATH_MAX];
    int rc = job_campaign_calibration_find(c, (int)idx, err);
    if (rc)
        return rc;
    if (x->status == REPORT_EXP_FAILED) {
        snprintf(line, sizeof line, "E %s", x->error);
    } else {
        job_run_options ro;
        job_campaign_run_options(c, (int)idx, &ro);
        job_run_result *res = malloc(sizeof *res);
        icv_err rerr = {0};
        int rrc = res ? job_run(&ro, res, &rerr) : icv_err_set(&rerr, ICV_ENOMEM, "out of memory");
        if (rrc)
            snprintf(line, sizeof line, "E %s", rerr.msg);
        else
            snprintf(line, sizeof line, "O %.3f %d", res->seconds, res->job.res.n_impacts);
        free(res);
    }
    for (char *s = line; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
    job_campaign_result_line(x, line);
    size_t n = strlen(line);
    line[n++] = '\n';
    if ((rc = task_file(c, array, (int)idx, "result", path, err)) || (rc = icv_atomic_write(path, line, n, err)))
        return rc;
    if (x->status == REPORT_EXP_FAILED)
        return icv_err_set(err, ICV_EIO, "%s failed: %s", x->name, x->error);
    icv_info("%s: done in %.1f s, %d impact%s", x->name, x->seconds, x->n_impacts, x->n_impacts == 1 ? "" : "s");
    return 0;
}

void job_campaign_slurm_collect(job_campaign *c, const char *array)
{
    report_campaign_result *r = c->r;
    for (int i = 0; i < r->n; i++) {
        report_campaign_experiment *x = &r->exps[i];
        char path[ICV_PATH_MAX], line[ICV_ERR_MSG_MAX + 64] = "";
        icv_err e2;
        if (x->status == REPORT_EXP_FAILED)
            continue;
        if (!task_file(c, array, i, "result", path, &e2)) {
            FILE *fp = fopen(path, "r");
            if (fp) {
                if (!fgets(line, sizeof line, fp))
                    line[0] = '\0';
                fclose(fp);
                line[strcspn(line, "\n")] = '\0';
                if (job_campaign_result_line(x, line))
                    continue;
            }
        }
        job_run_options ro;
        int up = 0;
        int frc = job_campaign_calibration_find(c, i, &e2);
        job_campaign_run_options(c, i, &ro);
        if (!frc && job_run_up_to_date(&ro, &up, &e2) == 0 && up) {
            x->status = REPORT_EXP_UP_TO_DATE;
            continue;
        }
        /* its task ended without a result: killed (scancel, time limit, memory), or it never ran */
        x->status = REPORT_EXP_FAILED;
        char why[900] = "";
        if (!task_file(c, array, i, "log", path, &e2))
            reason_from_log(path, why, sizeof why);
        if (why[0])
            snprintf(x->error, sizeof x->error, "its Slurm task %s_%d ended without a result: %s (%s)", array, i,
                     why, path);
        else
            snprintf(x->error, sizeof x->error,
                     "its Slurm task %s_%d left no result nor log in %s/" SLURM_DIR "/ (cancelled before it "
                     "started, or DIR is not on a file system the nodes share)",
                     array, i, c->out_dir);
    }
}

/* ---- submitting ----------------------------------------------------------------- */

/* 1 when the cluster's one node is this machine (sinfo): then its own folders are the
 * node's (scripts/slurm-local.sh's cluster). */
static int cluster_is_this_machine(void)
{
    char *argv[] = {"sinfo", "-h", "-N", "-o", "%N", NULL}, out[4096], host[256];
    int st = 1;
    icv_err e2;
    if (run_tool(argv, out, sizeof out, &st, &e2) || st != 0 || gethostname(host, sizeof host) != 0)
        return 0;
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    int same = 0, other = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        line[strcspn(line, " \r.")] = '\0';
        if (!strcmp(line, host))
            same = 1;
        else if (line[0])
            other = 1;
    }
    return same && !other;
}

/* The impactcv the tasks run: campaign.yaml's slurm: binary, else this one. Refused in
 * a folder that is each machine's own (a node would not see it), unless the cluster's
 * one node is this machine. */
static int task_binary(const job_campaign *c, char *out, icv_err *err)
{
    char self[ICV_PATH_MAX];
    const char *b = c->slurm.binary[0] ? c->slurm.binary : "/proc/self/exe";
    if (!realpath(b, self))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: slurm: binary: %s: %s", c->path, b, strerror(errno));
    if (access(self, X_OK) != 0)
        return icv_err_set(err, ICV_EINVAL, "%s: not executable", self);
    static const char *const local[] = {"/tmp/", "/var/tmp/", "/dev/shm/", "/run/", NULL};
    const char *tmpdir = getenv("TMPDIR");
    for (int i = 0; local[i] || (tmpdir && tmpdir[0] == '/' && i == 4); i++) {
        const char *p = local[i] ? local[i] : tmpdir;
        if (!strncmp(self, p, strlen(p)) && !cluster_is_this_machine())
            return icv_err_set(err, ICV_EINVAL,
                               "the tasks would run %s, in %s, which is each machine's own: the nodes do not see "
                               "it. Copy impactcv to the shared file system and name it in campaign.yaml "
                               "(slurm: {binary: /shared/bin/impactcv}) or run that copy",
                               self, p);
        if (!local[i])
            break;
    }
    snprintf(out, ICV_PATH_MAX, "%s", self);
    return 0;
}

static int add_arg(char **argv, int *n, int max, const char *fmt, const char *v, char *store, size_t size)
{
    if (*n >= max - 1)
        return -1;
    snprintf(store, size, fmt, v);
    argv[(*n)++] = store;
    return 0;
}

/* One sbatch; *id its job id (--parsable: "id" or "id;cluster"). */
static int sbatch(char **argv, char id[32], const char *what, icv_err *err)
{
    char raw[2048], out[2100];
    int st = 0;
    int rc = run_tool(argv, raw, sizeof raw, &st, err);
    if (rc)
        return rc;
    /* the id is the line "<id>" or "<id>;<cluster>"; warnings may come before it */
    id[0] = '\0';
    for (const char *l = raw; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t k = strspn(l, "0123456789");
        if (k > 0 && k < 32 && (l[k] == ';' || l[k] == '\n' || l[k] == '\r' || !l[k])) {
            memcpy(id, l, k);
            id[k] = '\0';
        }
    }
    one_line(raw, out, sizeof out);
    if (st != 0 || !id[0])
        return icv_err_set(err, ICV_EIO, "sbatch refused %s (exit status %d): %s", what, st,
                           out[0] ? out : "(it said nothing)");
    return 0;
}

static void scancel(const char *id)
{
    char *argv[] = {"scancel", (char *)id, NULL}, out[256];
    int st;
    icv_err e2;
    run_tool(argv, out, sizeof out, &st, &e2);
}

static int state_finished(const char *state)
{
    static const char *const running[] = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                                          "REQUEUED", "RESIZING", NULL};
    for (int i = 0; running[i]; i++)
        if (!strcmp(state, running[i]))
            return 0;
    return 1;
}

/* sacct's state of job id (where the cluster keeps accounting: squeue forgets a job
 * MinJobAge after it ends), or "" */
static void sacct_state(const char *id, char *state, size_t n)
{
    char *argv[] = {"sacct", "-n", "-X", "-P", "-j", (char *)id, "-o", "State", NULL}, out[512];
    int st = 1;
    icv_err e2;
    state[0] = '\0';
    if (run_tool(argv, out, sizeof out, &st, &e2) || st != 0)
        return;
    snprintf(state, n, "%.*s", (int)strcspn(out, " \n"), out);
}

/* Follows the array and the gather with squeue until the gather ends; a progress line
 * each time the counts change. Then checks each finished task's marker (DIR shared). */
static int follow(job_campaign *c, const char *array, const char *gather, icv_err *err)
{
    char ids[80], out[65536];
    snprintf(ids, sizeof ids, "%s,%s", array, gather);
    char *argv[] = {"squeue", "-h", "-t", "all", "-j", ids, "-o", "%i %T %N", NULL};
    int last_done = -1, last_run = -1, gone = 0;
    double poll_s = getenv("ICV_SLURM_POLL_S") ? atof(getenv("ICV_SLURM_POLL_S")) : 2.0;
    char (*node)[64] = calloc((size_t)c->r->n, sizeof *node);
    int *ran = calloc((size_t)c->r->n, sizeof *ran);
    if (!node || !ran) {
        free(node);
        free(ran);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    int rc = 0;
    for (;;) {
        int st = 0;
        if ((rc = run_tool(argv, out, sizeof out, &st, err)))
            break;
        int done = 0, failed = 0, running = 0, gather_done = 0, gather_seen = 0;
        size_t alen = strlen(array);
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char id[64], state[32], where[64] = "";
            if (sscanf(line, "%63s %31s %63s", id, state, where) < 2)
                continue;
            int finished = state_finished(state);
            if (!strcmp(id, gather)) {
                gather_seen = 1;
                gather_done = finished;
            } else if (!strncmp(id, array, alen) && id[alen] == '_' && id[alen + 1] != '[') {
                int idx = atoi(id + alen + 1);
                done += finished;
                failed += finished && strcmp(state, "COMPLETED");
                running += !strcmp(state, "RUNNING");
                if (idx >= 0 && idx < c->r->n) {
                    snprintf(node[idx], sizeof node[idx], "%s", where);
                    ran[idx] = finished && strcmp(state, "CANCELLED") ? 1 : ran[idx];
                }
            }
        }
        if (done != last_done || running != last_run)
            icv_info("slurm: %d of %d tasks ended (%d failed), %d running", done, c->n_todo, failed, running);
        last_done = done, last_run = running;
        char name[64], status[ICV_PATH_MAX];
        snprintf(name, sizeof name, "%s_gather.status", array);
        if ((rc = slurm_file(c, name, status, err)))
            break;
        if (gather_done || (!gather_seen && icv_file_exists(status)))
            break;
        char acct[32];
        if (!gather_seen && (sacct_state(gather, acct, sizeof acct), acct[0]) && state_finished(acct))
            break;
        if (!gather_seen && ++gone > 5) {
            rc = icv_err_set(err, ICV_EIO, "the gather job %s is gone from squeue without leaving %s", gather, status);
            break;
        }
        usleep((useconds_t)(poll_s * 1e6));
    }
    /* DIR shared: each task that ran left its marker where this machine sees it */
    for (int k = 0; !rc && k < c->n_todo; k++) {
        int i = c->todo[k];
        char marker[ICV_PATH_MAX];
        if (!ran[i] || (rc = task_file(c, array, i, "marker", marker, err)))
            continue;
        if (!icv_file_exists(marker))
            rc = icv_err_set(err, ICV_EIO,
                             "%s is not on a file system the nodes share: task %s_%d ran on %s but its marker %s is "
                             "not here: give -o a folder on the shared file system",
                             c->out_dir, array, i, node[i][0] ? node[i] : "its node", marker);
    }
    free(node);
    free(ran);
    return rc;
}

int job_campaign_slurm_submit(job_campaign *c, icv_err *err)
{
    const campaign_slurm_settings *s = &c->slurm;
    job_campaign_slurm_info info0, *info = c->o->slurm ? c->o->slurm : &info0;
    memset(info, 0, sizeof *info);
    char bin[ICV_PATH_MAX], dir[ICV_PATH_MAX], script[ICV_PATH_MAX], logs[ICV_PATH_MAX];
    int rc = task_binary(c, bin, err);
    if (!rc && strchr(c->out_dir, '%'))
        rc = icv_err_set(err, ICV_EINVAL, "%s: a '%%' in DIR would be read by Slurm as a pattern: choose another",
                         c->out_dir);
    if (!rc && !(rc = icv_path_join(dir, sizeof dir, c->out_dir, SLURM_DIR, err)) && !(rc = icv_mkdirs(dir, err)))
        rc = slurm_file(c, "job.sh", script, err);
    if (!rc)
        rc = icv_atomic_write(script, task_script, strlen(task_script), err);
    if (rc)
        return rc;
    /* the array: the experiments' indices, "0,3,5" */
    size_t cap = (size_t)c->n_todo * 12 + 16;
    char *spec = malloc(cap), name[160], out_opt[ICV_PATH_MAX + 32], store[8][ICV_PATH_MAX + 64];
    if (!spec)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    size_t len = (size_t)snprintf(spec, cap, "--array=");
    for (int k = 0; k < c->n_todo; k++) { /* runs of consecutive places as ranges: "0-7,9" */
        int last = k;
        while (last + 1 < c->n_todo && c->todo[last + 1] == c->todo[last] + 1)
            last++;
        len += (size_t)snprintf(spec + len, cap - len, "%s%d", k ? "," : "", c->todo[k]);
        if (last > k)
            len += (size_t)snprintf(spec + len, cap - len, "-%d", c->todo[last]);
        k = last;
    }
    snprintf(name, sizeof name, "--job-name=icv-%s", c->r->name);
    snprintf(logs, sizeof logs, "%s/%%A_%%a.log", dir);
    char *argv[48];
    int n = 0, bad = 0;
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    argv[n++] = name;
    int common = n; /* from here: what both jobs get */
    if (s->partition[0])
        bad |= add_arg(argv, &n, 40, "--partition=%s", s->partition, store[0], sizeof store[0]);
    if (s->time[0])
        bad |= add_arg(argv, &n, 40, "--time=%s", s->time, store[1], sizeof store[1]);
    if (s->mem[0])
        bad |= add_arg(argv, &n, 40, "--mem=%s", s->mem, store[2], sizeof store[2]);
    char cpus[32];
    snprintf(cpus, sizeof cpus, "%d", s->cpus_per_task);
    if (s->cpus_per_task > 0)
        bad |= add_arg(argv, &n, 40, "--cpus-per-task=%s", cpus, store[3], sizeof store[3]);
    for (int i = 0; i < s->n_args && n < 40; i++)
        argv[n++] = (char *)s->args[i];
    int n_common = n - common;
    char *common_args[CAMPAIGN_SLURM_MAX_ARGS + 8];
    memcpy(common_args, argv + common, sizeof *argv * (size_t)n_common);
    argv[n++] = spec;
    add_arg(argv, &n, 48, "--output=%s", logs, out_opt, sizeof out_opt);
    argv[n++] = script;
    argv[n++] = bin;
    argv[n++] = "task";
    argv[n++] = c->path;
    argv[n++] = c->out_dir;
    argv[n] = NULL;
    if (bad)
        rc = icv_err_set(err, ICV_EINVAL, "too many sbatch arguments");
    if (!rc)
        rc = sbatch(argv, info->array_id, "the job array", err);
    if (!rc) { /* the gather: after every task, however each ended */
        char dep[64], glog[ICV_PATH_MAX + 32], gname[176];
        snprintf(dep, sizeof dep, "--dependency=afterany:%s", info->array_id);
        snprintf(gname, sizeof gname, "--job-name=icv-%s-gather", c->r->name);
        snprintf(info->gather_log, sizeof info->gather_log, "%s/%s_gather.log", dir, info->array_id);
        snprintf(glog, sizeof glog, "--output=%s", info->gather_log);
        n = 0;
        argv[n++] = "sbatch";
        argv[n++] = "--parsable";
        argv[n++] = gname;
        for (int i = 0; i < n_common; i++)
            argv[n++] = common_args[i];
        argv[n++] = dep;
        argv[n++] = glog;
        argv[n++] = script;
        argv[n++] = bin;
        argv[n++] = "gather";
        argv[n++] = c->path;
        argv[n++] = c->out_dir;
        argv[n++] = info->array_id;
        argv[n] = NULL;
        if ((rc = sbatch(argv, info->gather_id, "the gather job", err)))
            scancel(info->array_id);
    }
    free(spec);
    if (rc)
        return rc;
    char when[64], tname[64], tpath[ICV_PATH_MAX];
    int wn = snprintf(when, sizeof when, "%ld\n", (long)time(NULL));
    snprintf(tname, sizeof tname, "%s_submitted", info->array_id);
    icv_err e2; /* only for the gather's "in N s": a failure to write it is no failure */
    if (!slurm_file(c, tname, tpath, &e2))
        icv_atomic_write(tpath, when, (size_t)wn, &e2);
    info->submitted = 1;
    info->n_tasks = c->n_todo;
    snprintf(info->log_dir, sizeof info->log_dir, "%s", dir);
    icv_info("slurm: job array %s (%d task%s), gather job %s after it", info->array_id, c->n_todo,
             c->n_todo == 1 ? "" : "s", info->gather_id);
    if (!c->o->wait)
        return 0;
    if ((rc = follow(c, info->array_id, info->gather_id, err)))
        return rc;
    char status[ICV_PATH_MAX], name2[64];
    snprintf(name2, sizeof name2, "%s_gather.status", info->array_id);
    if ((rc = slurm_file(c, name2, status, err)))
        return rc;
    FILE *fp = fopen(status, "r");
    int code = -1;
    if (fp) {
        if (fscanf(fp, "%d", &code) != 1)
            code = -1;
        fclose(fp);
    }
    if (code < 0) {
        char why[900];
        reason_from_log(info->gather_log, why, sizeof why);
        return icv_err_set(err, ICV_EIO, "the gather job %s ended without a status: %s (%s)", info->gather_id,
                           why[0] ? why : "its log is empty", info->gather_log);
    }
    info->waited = 1;
    info->status = code;
    job_campaign_slurm_collect(c, info->array_id); /* the statuses, for the caller */
    for (int i = 0; i < c->r->n; i++) {
        c->r->n_ran += c->r->exps[i].status == REPORT_EXP_RAN;
        c->r->n_up_to_date += c->r->exps[i].status == REPORT_EXP_UP_TO_DATE;
        c->r->n_failed += c->r->exps[i].status == REPORT_EXP_FAILED;
    }
    return 0;
}

/* The gather job's exit status for a follower: DIR/.slurm/<array>_gather.status. */
int job_campaign_slurm_gather_status(job_campaign *c, const char *array, int status, icv_err *err)
{
    char name[64], path[ICV_PATH_MAX], text[32];
    snprintf(name, sizeof name, "%s_gather.status", array);
    int rc = slurm_file(c, name, path, err);
    int n = snprintf(text, sizeof text, "%d\n", status);
    return rc ? rc : icv_atomic_write(path, text, (size_t)n, err);
}

double job_campaign_slurm_since_submitted(job_campaign *c, const char *array)
{
    char name[64], path[ICV_PATH_MAX];
    icv_err e2;
    long t = 0;
    snprintf(name, sizeof name, "%s_submitted", array);
    if (slurm_file(c, name, path, &e2))
        return -1;
    FILE *fp = fopen(path, "r");
    int ok = fp && fscanf(fp, "%ld", &t) == 1;
    if (fp)
        fclose(fp);
    return ok ? difftime(time(NULL), (time_t)t) : -1;
}
