/* campaign.c: `impactcv campaign`. Reads campaign.yaml, runs every
 * experiment as `impactcv run` into DIR/<name>/ (job_run), each in a child process
 * made by fork: PLplot is not thread-safe, and a crash stays in its child. At most
 * -j children run at once; each sends its log lines and, last, one result line
 * through a pipe ("L<level> text", then "O <seconds> <impacts>" or "E <error>"), and
 * ends with _exit (a forked child must not return into its parent's code). An
 * experiment whose results are up to date (job_run_up_to_date) is not run. Then
 * the joint fit (analysis_validation_write), the tables and the parameter plot (the
 * gather, which the slurm engine's gather job runs too: campaign_slurm.c). Before the
 * runs, the calibrations the experiments share (campaign_calibration.c). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/job_campaign_internal.h"

#define MAX_JOBS 64

/* ---- campaign.yaml ------------------------------------------------------ */

static int add_experiment(report_campaign_result *r, const char *path, icv_err *err)
{
    char real[PATH_MAX];
    const char *key = realpath(path, real) ? real : path;
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->exps[i].path, key))
            return 0; /* named twice (two globs) */
    report_campaign_experiment *e = realloc(r->exps, (size_t)(r->n + 1) * sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    r->exps = e;
    memset(&e[r->n], 0, sizeof *e);
    snprintf(e[r->n].path, sizeof e->path, "%s", key);
    r->n++;
    return 0;
}

/* experiments: a list of experiment files, globs or folders (their experiment.yaml),
 * relative to the campaign file */
static int read_experiments(icv_ynode list, const char *dir, report_campaign_result *r, icv_err *err)
{
    if (!icv_ynode_exists(list))
        return icv_ynode_fail(list, err, ICV_EINVAL, "missing (required): a list of experiment files or globs");
    size_t n = icv_ynode_is_seq(list) ? icv_ynode_len(list) : 1;
    if (n == 0)
        return icv_ynode_fail(list, err, ICV_EINVAL, "empty: name at least one experiment");
    for (size_t i = 0; i < n; i++) {
        icv_ynode it = icv_ynode_is_seq(list) ? icv_ynode_at(list, i) : list;
        const char *s = icv_ynode_str(it);
        if (!s)
            return icv_ynode_fail(it, err, ICV_EINVAL, "expected a file name or a glob");
        char pattern[ICV_PATH_MAX], sub[ICV_PATH_MAX];
        struct stat st;
        char **paths = NULL;
        size_t np = 0;
        int rc = icv_path_join(pattern, sizeof pattern, dir, s, err);
        if (!rc && stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)) { /* a folder: its experiment.yaml */
            if (!(rc = icv_path_join(sub, sizeof sub, pattern, "experiment.yaml", err)))
                rc = add_experiment(r, sub, err);
        } else if (!rc && !(rc = icv_paths_expand(pattern, &paths, &np, err)) && np == 0) {
            rc = icv_ynode_fail(it, err, ICV_ENOTFOUND, "'%s' matches no file", s);
        }
        for (size_t k = 0; !rc && k < np; k++)
            rc = add_experiment(r, paths[k], err);
        icv_paths_free(paths, np);
        if (rc)
            return rc;
    }
    return 0;
}

/* engine: local | slurm */
static int read_engine(icv_ynode root, job_campaign *c, icv_err *err)
{
    icv_ynode n = icv_ynode_get(root, "engine");
    const char *s = icv_ynode_str(n);
    if (!icv_ynode_exists(n))
        return 0;
    if (s && !strcmp(s, "local"))
        c->engine = JOB_ENGINE_LOCAL;
    else if (s && !strcmp(s, "slurm"))
        c->engine = JOB_ENGINE_SLURM;
    else
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected local or slurm");
    return 0;
}

/* slurm: {partition, time, mem, cpus_per_task, sbatch_args, binary} */
static int read_slurm(icv_ynode root, const char *dir, job_campaign *c, icv_err *err)
{
    icv_ynode m = icv_ynode_get(root, "slurm");
    campaign_slurm_settings *s = &c->slurm;
    if (!icv_ynode_exists(m))
        return 0;
    if (!icv_ynode_is_map(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected a mapping (partition, time, mem, cpus_per_task, "
                                                  "sbatch_args, binary)");
    static const char *const known[] = {"partition", "time", "mem", "cpus_per_task", "sbatch_args", "binary", NULL};
    icv_ynode_warn_unknown(m, known);
    char binary[ICV_PATH_MAX] = "";
    int rc = icv_yread_str(m, "partition", 0, s->partition, sizeof s->partition, err);
    if (!rc)
        rc = icv_yread_str(m, "time", 0, s->time, sizeof s->time, err);
    if (!rc)
        rc = icv_yread_str(m, "mem", 0, s->mem, sizeof s->mem, err);
    if (!rc)
        rc = icv_yread_int(m, "cpus_per_task", 0, &s->cpus_per_task, err);
    if (!rc && s->cpus_per_task < 0)
        rc = icv_ynode_fail(icv_ynode_get(m, "cpus_per_task"), err, ICV_EINVAL, "expected a positive number");
    if (!rc)
        rc = icv_yread_str(m, "binary", 0, binary, sizeof binary, err);
    if (!rc && binary[0])
        rc = icv_path_join(s->binary, sizeof s->binary, dir, binary, err);
    icv_ynode a = icv_ynode_get(m, "sbatch_args");
    size_t n = !icv_ynode_exists(a) ? 0 : icv_ynode_is_seq(a) ? icv_ynode_len(a) : 1;
    for (size_t i = 0; !rc && i < n; i++) {
        icv_ynode it = icv_ynode_is_seq(a) ? icv_ynode_at(a, i) : a;
        const char *v = icv_ynode_str(it);
        if (!v)
            rc = icv_ynode_fail(it, err, ICV_EINVAL, "expected an sbatch argument (one per item)");
        else if (s->n_args >= CAMPAIGN_SLURM_MAX_ARGS || strlen(v) >= sizeof s->args[0])
            rc = icv_ynode_fail(it, err, ICV_EINVAL, "at most %d arguments of %zu characters",
                                CAMPAIGN_SLURM_MAX_ARGS, sizeof s->args[0] - 1);
        else
            snprintf(s->args[s->n_args++], sizeof s->args[0], "%s", v);
    }
    return rc;
}

/* calibration: auto | each | one | {file: calibration.yaml} */
static int read_calibration(icv_ynode root, const char *dir, job_campaign *c, icv_err *err)
{
    icv_ynode n = icv_ynode_get(root, "calibration");
    const char *s = icv_ynode_str(n);
    c->calib_mode = CAMPAIGN_CALIB_AUTO;
    if (!icv_ynode_exists(n) || (s && !strcmp(s, "auto")))
        return 0;
    if (s && !strcmp(s, "each"))
        c->calib_mode = CAMPAIGN_CALIB_EACH;
    else if (s && !strcmp(s, "one"))
        c->calib_mode = CAMPAIGN_CALIB_ONE;
    else if (icv_ynode_is_map(n) && icv_ynode_str(icv_ynode_get(n, "file"))) {
        c->calib_mode = CAMPAIGN_CALIB_FILE;
        int rc = icv_path_join(c->calib_given, sizeof c->calib_given, dir, icv_ynode_str(icv_ynode_get(n, "file")),
                               err);
        if (!rc && !icv_file_exists(c->calib_given))
            rc = icv_ynode_fail(icv_ynode_get(n, "file"), err, ICV_ENOTFOUND, "%s: no such file", c->calib_given);
        return rc;
    } else
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected auto, each, one or {file: calibration.yaml}");
    return 0;
}

static int read_campaign(job_campaign *c, icv_err *err)
{
    const char *path = c->path;
    report_campaign_result *r = c->r;
    icv_experiment *model = c->model;
    icv_yaml *doc;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc)
        return rc;
    static const char *const known[] = {"name", "experiments", "model", "joint", "engine", "slurm", "calibration",
                                        NULL};
    icv_ynode_warn_unknown(root, known);
    const char *base = strrchr(path, '/');
    snprintf(r->name, sizeof r->name, "%s", base ? base + 1 : path);
    r->name[strcspn(r->name, ".")] = '\0';
    memset(model, 0, sizeof *model);
    icv_path_dirname(model->dir, sizeof model->dir, path);
    icv_ynode m = icv_ynode_get(root, "model");
    c->has_model = icv_ynode_exists(m);
    if (!(rc = icv_yread_str(root, "name", 0, r->name, sizeof r->name, err)) &&
        !(rc = icv_yread_bool(root, "joint", 0, &r->joint, err)) &&
        !(rc = read_experiments(icv_ynode_get(root, "experiments"), model->dir, r, err)) &&
        !(rc = read_engine(root, c, err)) && !(rc = read_slurm(root, model->dir, c, err)) &&
        !(rc = read_calibration(root, model->dir, c, err)))
        rc = icv_experiment_model_read(m, model, err);
    icv_yaml_free(doc);
    return rc;
}

/* Each experiment's name (its folder under DIR); one that does not load is failed now. */
static int name_experiments(const char *out_dir, report_campaign_result *r, icv_err *err)
{
    icv_experiment *e = malloc(sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    int rc = 0;
    for (int i = 0; !rc && i < r->n; i++) {
        report_campaign_experiment *x = &r->exps[i];
        icv_err lerr = {0};
        if (icv_experiment_load(x->path, e, &lerr)) {
            char dir[ICV_PATH_MAX];
            icv_path_dirname(dir, sizeof dir, x->path);
            const char *b = strrchr(dir, '/');
            snprintf(x->name, sizeof x->name, "%s", b ? b + 1 : dir);
            x->status = REPORT_EXP_FAILED;
            snprintf(x->error, sizeof x->error, "%s", lerr.msg);
            continue;
        }
        snprintf(x->name, sizeof x->name, "%s", e->name);
        for (char *c = x->name; *c; c++) /* a folder name */
            if (*c == '/' || *c == '\\' || (unsigned char)*c < ' ')
                *c = '_';
        if (!strcmp(x->name, ".") || !strcmp(x->name, ".."))
            x->name[0] = '_';
        if (!strcmp(x->name, "calibration")) { /* DIR/calibration/ holds the shared calibrations */
            x->status = REPORT_EXP_FAILED;
            snprintf(x->error, sizeof x->error,
                     "%s: its name 'calibration' is the campaign's folder of shared calibrations (%s/calibration/): "
                     "rename it",
                     x->path, out_dir);
            continue;
        }
        for (int j = 0; j < i; j++)
            if (r->exps[j].status != REPORT_EXP_FAILED && !strcmp(r->exps[j].name, x->name))
                rc = icv_err_set(err, ICV_EINVAL,
                                 "%s and %s are both named '%s': their results would share %s/%s/ (rename one)",
                                 r->exps[j].path, x->path, x->name, out_dir, x->name);
        if (!rc)
            rc = icv_path_join(x->out_dir, sizeof x->out_dir, out_dir, x->name, err);
    }
    free(e);
    return rc;
}

/* ---- the children ------------------------------------------------------- */

static int child_fd = -1;

static void write_line(int fd, char *line)
{
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    size_t n = strlen(line);
    line[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, line + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

static void child_sink(icv_log_level level, const char *line, void *user)
{
    (void)user;
    char buf[ICV_ERR_MSG_MAX + 16];
    snprintf(buf, sizeof buf - 1, "L%d %s", (int)level, line);
    write_line(child_fd, buf);
}

/* The child's whole life: the run, its result line, _exit. */
static void child_main(int fd, const job_campaign *c, int idx)
{
    child_fd = fd;
    icv_log_set_sink(child_sink, NULL);
    if (icv_log_get_level() > ICV_LOG_WARN) /* no progress bars from several children at once */
        icv_log_set_level(ICV_LOG_WARN);
    job_run_options o;
    job_campaign_run_options(c, idx, &o);
    job_run_result *r = malloc(sizeof *r);
    icv_err err = {0};
    int rc = r ? job_run(&o, r, &err) : icv_err_set(&err, ICV_ENOMEM, "out of memory");
    char line[ICV_ERR_MSG_MAX + 64];
    if (rc)
        snprintf(line, sizeof line - 1, "E %s", err.msg);
    else
        snprintf(line, sizeof line - 1, "O %.3f %d", r->seconds, r->job.res.n_impacts);
    write_line(fd, line);
    _exit(rc ? 1 : 0);
}

typedef struct {
    pid_t pid;
    int fd, idx;
    char buf[4096];
    size_t len;
    char result[ICV_ERR_MSG_MAX + 64];
} child;

static int spawn(child *c, int idx, const job_campaign *cp, icv_err *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return icv_err_set(err, ICV_EIO, "cannot make a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return icv_err_set(err, ICV_EIO, "cannot start a process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], cp, idx);
    }
    close(fds[1]);
    memset(c, 0, sizeof *c);
    c->pid = pid;
    c->fd = fds[0];
    c->idx = idx;
    return 0;
}

/* A line from a child: a log line passed on with the experiment's name, or its result. */
static void child_line(child *c, const report_campaign_result *r, const char *line)
{
    if (line[0] == 'L') {
        const char *msg = strchr(line, ' ');
        icv_log((icv_log_level)atoi(line + 1), "%s: %s", r->exps[c->idx].name, msg ? msg + 1 : "");
    } else {
        snprintf(c->result, sizeof c->result, "%s", line);
    }
}

static void child_read(child *c, const report_campaign_result *r, int *eof)
{
    ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        *eof = 1;
        return;
    }
    c->len += (size_t)n;
    c->buf[c->len] = '\0';
    char *start = c->buf, *nl;
    while ((nl = strchr(start, '\n'))) {
        *nl = '\0';
        child_line(c, r, start);
        start = nl + 1;
    }
    c->len = strlen(start);
    memmove(c->buf, start, c->len + 1);
    if (c->len == sizeof c->buf - 1) { /* a line longer than the buffer: pass on its start */
        child_line(c, r, c->buf);
        c->len = 0;
    }
}

static void child_finish(child *c, report_campaign_result *r, int done)
{
    close(c->fd);
    int st = 0;
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
        ;
    report_campaign_experiment *x = &r->exps[c->idx];
    if (c->result[0] == 'O' && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        job_campaign_result_line(x, c->result);
        icv_info("[%d/%d] %s: done in %.1f s, %d impact%s", done, r->n, x->name, x->seconds, x->n_impacts,
                 x->n_impacts == 1 ? "" : "s");
        return;
    }
    x->status = REPORT_EXP_FAILED;
    if (c->result[0] == 'E')
        snprintf(x->error, sizeof x->error, "%s", c->result + 2);
    else if (WIFSIGNALED(st))
        snprintf(x->error, sizeof x->error, "its run was stopped by signal %d", WTERMSIG(st));
    else
        snprintf(x->error, sizeof x->error, "its run ended without a result (exit status %d)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    icv_info("[%d/%d] %s: failed", done, r->n, x->name);
}

/* Runs the experiments listed in todo, at most jobs at once. */
static void run_children(const job_campaign *cp, int jobs)
{
    report_campaign_result *r = cp->r;
    const int *todo = cp->todo;
    int n_todo = cp->n_todo;
    child kids[MAX_JOBS];
    int active = 0, next = 0, done = r->n - n_todo;
    while (next < n_todo || active > 0) {
        while (active < jobs && next < n_todo) {
            icv_err serr = {0};
            int idx = todo[next++];
            if (spawn(&kids[active], idx, cp, &serr)) {
                r->exps[idx].status = REPORT_EXP_FAILED;
                snprintf(r->exps[idx].error, sizeof r->exps[idx].error, "%s", serr.msg);
                done++;
            } else {
                active++;
            }
        }
        struct pollfd pf[MAX_JOBS];
        for (int i = 0; i < active; i++)
            pf[i] = (struct pollfd){.fd = kids[i].fd, .events = POLLIN};
        if (active == 0 || poll(pf, (nfds_t)active, -1) < 0)
            continue; /* EINTR: poll again */
        for (int i = active - 1; i >= 0; i--) {
            int eof = 0;
            if (pf[i].revents)
                child_read(&kids[i], r, &eof);
            if (eof) {
                child_finish(&kids[i], r, ++done);
                kids[i] = kids[--active];
            }
        }
    }
}

/* ---- after the runs ----------------------------------------------------- */

static void provenance(const analysis_experiment_result *j, const analysis_impact *im, int has_model, int mu,
                       char *out, size_t n)
{
    const char *from = mu ? j->exp.mu_k_from : j->exp.e_n_from;
    int fitted = mu ? im->model.mu_fitted : im->model.e_n_fitted;
    if (fitted && mu && !im->model.mu_identifiable)
        snprintf(out, n, "fitted to this impact; it sticks: mu >= %.3f", im->model.mu_lower_bound);
    else if (fitted)
        snprintf(out, n, "fitted to this impact (measured)");
    else if (from[0])
        snprintf(out, n, "from %s", from);
    else
        snprintf(out, n, "given in %s", has_model ? "campaign.yaml" : "experiment.yaml");
}

static int make_rows(report_campaign_result *r, analysis_experiment_result **jobs, const int *job_exp, int nj,
                     int has_model, report_campaign_row **rows, icv_err *err)
{
    int n = 0;
    for (int j = 0; j < nj; j++)
        n += jobs[j]->res.n_impacts;
    *rows = calloc(n ? (size_t)n : 1, sizeof **rows);
    if (!*rows)
        return icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    int k = 0;
    for (int j = 0; j < nj; j++)
        for (int i = 0; i < jobs[j]->res.n_impacts; i++, k++) {
            report_campaign_row *w = &(*rows)[k];
            w->job = jobs[j];
            w->exp = &r->exps[job_exp[j]];
            w->impact = i;
            w->im = &jobs[j]->res.impacts[i];
            if (r->joint) {
                snprintf(w->mu_source, sizeof w->mu_source, "joint fit over %d impacts (+- %.3f)", r->fit.n_obs,
                         r->fit.mu_se);
                if (!r->fit.mu_identifiable)
                    snprintf(w->mu_source, sizeof w->mu_source,
                             "joint fit over %d impacts; they stick: mu >= %.3f", r->fit.n_obs, r->fit.mu_lower_bound);
                snprintf(w->e_n_source, sizeof w->e_n_source, "joint fit over %d impacts (+- %.3f)", r->fit.n_obs,
                         r->fit.e_n_se);
            } else {
                provenance(jobs[j], w->im, has_model, 1, w->mu_source, sizeof w->mu_source);
                provenance(jobs[j], w->im, has_model, 0, w->e_n_source, sizeof w->e_n_source);
            }
            report_campaign_row_kinematics(w);
        }
    r->n_impacts = n;
    return 0;
}

/* The joint (mu, e_n) over every impact (analysis's fit, whose own table goes to
 * DIR/joint/), then each impact compared with it. */
static int joint_fit(const char *dir, report_campaign_result *r, analysis_experiment_result **jobs, int nj,
                     icv_err *err)
{
    char jdir[ICV_PATH_MAX];
    int rc = icv_path_join(jdir, sizeof jdir, dir, "joint", err);
    if (!rc && (rc = analysis_validation_write(jdir, jobs, nj, &r->fit, err)))
        icv_err_prefix(err, "joint fit: ");
    for (int j = 0; !rc && j < nj; j++) {
        analysis_model m = {.law = jobs[0]->model.law, .method = IMPACT_EXACT, .mu_s = r->fit.mu, .mu_k = r->fit.mu,
                            .e_n = r->fit.e_n};
        rc = analysis_model_compare(&jobs[j]->body, &m, &jobs[j]->res, err);
    }
    return rc;
}

static int write_outputs(const char *dir, report_campaign_result *r, analysis_experiment_result **jobs,
                         const int *job_exp, int nj, int has_model, icv_err *err)
{
    report_campaign_row *rows = NULL;
    char note[ICV_ERR_MSG_MAX] = "";
    int rc = r->joint ? joint_fit(dir, r, jobs, nj, err) : 0;
    if (!rc)
        rc = make_rows(r, jobs, job_exp, nj, has_model, &rows, err);
    if (!rc && r->n_impacts == 0)
        rc = icv_err_set(err, ICV_ENOTFOUND, "campaign: no impact in the %d experiments that ran", nj);
    if (!rc)
        rc = report_campaign_tables_write(dir, r, rows, r->n_impacts, err);
    if (!rc)
        rc = report_campaign_plots_write(dir, rows, r->n_impacts, note, err);
    if (!rc)
        rc = report_campaign_html_write(dir, r, rows, r->n_impacts, note, err);
    free(rows);
    return rc;
}

int job_campaign_result_line(report_campaign_experiment *x, const char *line)
{
    if (line[0] == 'O' && sscanf(line + 1, "%lf %d", &x->seconds, &x->n_impacts) == 2) {
        x->status = REPORT_EXP_RAN;
        return 1;
    }
    if (line[0] == 'E') {
        x->status = REPORT_EXP_FAILED;
        snprintf(x->error, sizeof x->error, "%s", line[1] ? line + 2 : "");
        return 1;
    }
    return 0;
}

void job_campaign_run_options(const job_campaign *c, int i, job_run_options *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->experiment_path = c->r->exps[i].path;
    ro->out_dir = c->r->exps[i].out_dir;
    ro->model = c->has_model ? c->model : NULL;
    ro->calibration_file = c->calibration && c->calibration[i][0] ? c->calibration[i] : NULL;
}

int job_campaign_gather(job_campaign *c, icv_err *err)
{
    report_campaign_result *r = c->r;
    int nj = 0, *job_exp = NULL, rc = 0;
    analysis_experiment_result **jobs = NULL;
    if (!(jobs = calloc((size_t)r->n, sizeof *jobs)) || !(job_exp = calloc((size_t)r->n, sizeof *job_exp)))
        rc = icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    for (int i = 0; !rc && i < r->n; i++) {
        report_campaign_experiment *x = &r->exps[i];
        icv_err lerr = {0};
        if (x->status == REPORT_EXP_FAILED)
            continue;
        if (!(jobs[nj] = malloc(sizeof **jobs))) {
            rc = icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
        } else if (job_run_load(x->path, c->has_model ? c->model : NULL, x->out_dir, jobs[nj], &lerr)) {
            x->status = REPORT_EXP_FAILED;
            snprintf(x->error, sizeof x->error, "%s", lerr.msg);
            free(jobs[nj]);
        } else {
            x->n_impacts = jobs[nj]->res.n_impacts;
            job_exp[nj++] = i;
        }
    }
    r->n_ran = r->n_up_to_date = r->n_failed = 0;
    for (int i = 0; i < r->n; i++) {
        r->n_ran += r->exps[i].status == REPORT_EXP_RAN;
        r->n_up_to_date += r->exps[i].status == REPORT_EXP_UP_TO_DATE;
        r->n_failed += r->exps[i].status == REPORT_EXP_FAILED;
    }
    if (!rc && nj == 0)
        rc = icv_err_set(err, ICV_ENOTFOUND, "campaign %s: no experiment succeeded (%d failed)", r->name, r->n_failed);
    if (!rc)
        rc = write_outputs(c->out_dir, r, jobs, job_exp, nj, c->has_model, err);
    if (!rc)
        icv_path_join(r->html_path, sizeof r->html_path, c->out_dir, "campaign.html", NULL);
    for (int j = 0; j < nj; j++)
        free(jobs[j]);
    free(jobs);
    free(job_exp);
    return rc;
}

/* The experiments to run: not failed, not up to date (each told which). */
static void find_todo(job_campaign *c, int quiet)
{
    report_campaign_result *r = c->r;
    c->n_todo = 0;
    for (int i = 0; i < r->n; i++) {
        report_campaign_experiment *x = &r->exps[i];
        job_run_options ro;
        int up = 0;
        icv_err uerr = {0};
        if (x->status == REPORT_EXP_FAILED)
            continue;
        job_campaign_run_options(c, i, &ro);
        if (job_run_up_to_date(&ro, &up, &uerr) == 0 && up) {
            x->status = REPORT_EXP_UP_TO_DATE;
            if (!quiet)
                icv_info("%s: up to date in %s, not run again", x->name, x->out_dir);
        } else {
            c->todo[c->n_todo++] = i;
        }
    }
}

/* campaign.yaml read, the experiments named, their folders under DIR absolute (the
 * slurm engine's tasks run elsewhere). */
static int campaign_open(job_campaign *c, const job_campaign_options *o, report_campaign_result *r, icv_err *err)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    c->r = r;
    int rc = icv_mkdirs(o->out_dir, err);
    if (!rc && !realpath(o->campaign_path, c->path))
        rc = icv_err_set(err, ICV_ENOTFOUND, "%s: %s", o->campaign_path, strerror(errno));
    if (!rc && !realpath(o->out_dir, c->out_dir))
        rc = icv_err_set(err, ICV_ENOTFOUND, "%s: %s", o->out_dir, strerror(errno));
    if (!rc && !(c->model = calloc(1, sizeof *c->model)))
        rc = icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    if (!rc)
        rc = read_campaign(c, err);
    if (!rc)
        rc = name_experiments(c->out_dir, r, err);
    if (!rc && (!(c->todo = calloc((size_t)r->n + 1, sizeof *c->todo)) ||
                !(c->calibration = calloc((size_t)r->n + 1, sizeof *c->calibration))))
        rc = icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    return rc;
}

static void campaign_close(job_campaign *c)
{
    free(c->todo);
    free(c->calibration);
    free(c->model);
}

int job_campaign_run(const job_campaign_options *o, report_campaign_result *r, icv_err *err)
{
    memset(r, 0, sizeof *r);
    double t0 = icv_now();
    job_campaign c;
    int rc = campaign_open(&c, o, r, err);
    int engine = o->engine != JOB_ENGINE_DEFAULT ? o->engine : c.engine;
    if (rc) {
    } else if (o->task) {
        /* a slurm task: its experiment's calibration (computed before submitting) and run */
        rc = job_campaign_slurm_task(&c, err);
    } else if (o->gather) {
        job_campaign_slurm_collect(&c, o->gather);
        rc = job_campaign_gather(&c, err);
        icv_err serr = {0}; /* for a follower (wait): the campaign's status */
        if (job_campaign_slurm_gather_status(&c, o->gather, rc || r->n_failed ? 1 : 0, &serr))
            icv_warn("%s", serr.msg);
    } else if (!(rc = job_campaign_calibrations(&c, err))) {
        find_todo(&c, 0);
        if (engine == JOB_ENGINE_SLURM && c.n_todo > 0) {
            rc = job_campaign_slurm_submit(&c, err);
        } else {
            int jobs_n = o->jobs < 1 ? 1 : o->jobs > MAX_JOBS ? MAX_JOBS : o->jobs;
            run_children(&c, jobs_n);
            rc = job_campaign_gather(&c, err);
        }
    }
    /* the gather's campaign took from the submission to now */
    double since = !rc && o->gather ? job_campaign_slurm_since_submitted(&c, o->gather) : -1;
    campaign_close(&c);
    r->seconds = since >= 0 ? since : icv_now() - t0;
    return rc;
}
