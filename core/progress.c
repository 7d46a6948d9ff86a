/* progress.c: a one-line progress bar on a terminal, silent everywhere else
 * (pipes, files, CI logs), so long loops show life without polluting output. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

double icv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double icv_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int icv_progress_enabled(void)
{
    const char *ci = getenv("CI");
    if (ci && *ci)
        return 0;
    return icv_log_get_level() >= ICV_LOG_INFO && isatty(STDERR_FILENO);
}

static void draw(icv_progress *p, int final)
{
    double el = icv_now() - p->t_start;
    const int width = 30;
    if (p->total > 0) {
        double f = (double)p->done / (double)p->total;
        if (f > 1)
            f = 1;
        int fill = (int)(f * width + 0.5);
        char bar[64];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        double eta = f > 0 ? el * (1 - f) / f : 0;
        fprintf(stderr, "\r%-16s [%s] %3.0f%% %ld/%ld  %.1fs%s", p->label, bar, 100 * f, p->done,
                p->total, final ? el : eta, final ? "   \n" : " left");
    } else {
        fprintf(stderr, "\r%-16s %ld  %.1fs%s", p->label, p->done, el, final ? "\n" : "");
    }
    fflush(stderr);
}

void icv_progress_begin(icv_progress *p, const char *label, long total)
{
    p->label = label;
    p->total = total;
    p->done = 0;
    p->active = icv_progress_enabled();
    p->t_start = icv_now();
    p->t_drawn = 0;
    if (p->active)
        draw(p, 0);
}

void icv_progress_update(icv_progress *p, long done)
{
    p->done = done;
    if (!p->active)
        return;
    double t = icv_now();
    if (t - p->t_drawn < 0.1)
        return;
    p->t_drawn = t;
    draw(p, 0);
}

void icv_progress_end(icv_progress *p)
{
    if (p->active) {
        if (p->total > 0)
            p->done = p->total;
        draw(p, 1);
    }
    p->active = 0;
}
