/*
 * cli_progress.c - a progress bar on stderr for work that takes a while:
 * shown only when stderr is a terminal and the work has run for more than
 * XCHG_PROGRESS_AFTER seconds (default 2), redrawn at most ten times a
 * second with the fraction done and an estimate of the time left, and
 * erased when the work ends. Nothing is written when stderr is not a
 * terminal, so pipes and logs stay clean.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define BAR_WIDTH 30
#define DEFAULT_AFTER 2.0
#define REDRAW_EVERY 0.1

int xchg_cli_progress_start(xchg_cli_progress *pr, const char *what)
{
    memset(pr, 0, sizeof *pr);
    pr->what = what;
    pr->start = xchg_cli_now();
    pr->after = DEFAULT_AFTER;
    const char *env = getenv("XCHG_PROGRESS_AFTER");
    if (env) {
        char *end = NULL;
        double v = strtod(env, &end);
        if (end == env || *end != '\0' || !(v >= 0 && v <= 3600))
            return xchg_cli_error("bad XCHG_PROGRESS_AFTER '%s'; accepted: seconds from 0 to "
                                  "3600 before a progress bar appears",
                                  env);
        pr->after = v;
    }
    pr->on = isatty(STDERR_FILENO);
    return 0;
}

void xchg_cli_progress_hook(void *ctx, double done)
{
    xchg_cli_progress *pr = ctx;
    if (!pr->on)
        return;
    double now = xchg_cli_now(), spent = now - pr->start;
    if (spent < pr->after || now - pr->last < REDRAW_EVERY)
        return;
    pr->last = now;
    if (done < 0)
        done = 0;
    if (done > 1)
        done = 1;
    int fill = (int)(done * BAR_WIDTH + 0.5);
    char bar[BAR_WIDTH + 1];
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
    bar[BAR_WIDTH] = '\0';
    char left[32] = "time left unknown";
    if (done > 0.001)
        snprintf(left, sizeof left, "about %.0f s left", spent * (1 - done) / done);
    fprintf(stderr, "\r%s [%s] %3.0f%%  %s ", pr->what, bar, 100 * done, left);
    fflush(stderr);
    pr->drawn = 1;
}

void xchg_cli_progress_end(xchg_cli_progress *pr)
{
    if (pr->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pr->drawn = 0;
}
