/*
 * last_info.c - what the last call ran (xchg_mpi_last_info): its plan's
 * info, "mpi" for a call passed to the MPI library without a plan, or
 * "none" for a call with nothing to move.
 *
 * Where the memo is on (below MPI_THREAD_MULTIPLE: one MPI call at a time)
 * the process keeps one record, which the short way reads at every call
 * without a thread-local lookup (memo.c says why that counts); where it is
 * off (MPI_THREAD_MULTIPLE, SMPI's ranks as threads) each thread keeps its
 * own. A call that finds the plan remembered already skips the copy of its
 * info (over a kilobyte); every free of a cached plan moves the memo's
 * epoch first, so a new plan at a freed one's address is copied afresh.
 *
 * A variable-block call may take another way than its plan's (shm_v.c,
 * tuned_v.c: decided per call): that way is kept beside the plan's info,
 * not over it, and formatted only when it differs from the one kept (its
 * key and number), so a run of calls that go the same way formats its
 * reason once.
 */
#include "mpi/call.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct last_call {
    int have;
    const xchg_mpi_plan *from;
    unsigned epoch, version;
    xchg_mpi_plan_info info;
    /* the way this call took instead of the plan's own, when way_on */
    int way_on, way_fallback;
    const xchg_mpi_plan *way_plan;
    const void *way_key;
    uint64_t way_n;
    unsigned way_epoch;
    char way_alg[sizeof ((xchg_mpi_plan_info *)0)->alg];
    char way_why[sizeof ((xchg_mpi_plan_info *)0)->why];
} last_call;

static last_call last_of_process;
static _Thread_local last_call last_of_thread;

static last_call *record(void)
{
    return xchg_mpi_memo_on() ? &last_of_process : &last_of_thread;
}

/* Remember pl's info in l, unless l holds it already. */
static void keep(last_call *l, const xchg_mpi_plan *pl)
{
    unsigned epoch = xchg_mpi_memo_epoch();
    l->have = 1;
    l->way_on = 0;
    if (pl != l->from || epoch != l->epoch || pl->info_version != l->version) {
        l->info = pl->info;
        l->from = pl;
        l->epoch = epoch;
        l->version = pl->info_version;
    }
}

/* Remember a call without a plan: alg and why. */
static void keep_planless(const char *alg, int fallback, const char *why)
{
    last_call *l = record();
    l->have = 1;
    l->from = NULL;
    l->way_on = 0;
    memset(&l->info, 0, sizeof l->info);
    snprintf(l->info.alg, sizeof l->info.alg, "%s", alg);
    snprintf(l->info.why, sizeof l->info.why, "%s", why ? why : "");
    l->info.fallback = fallback;
}

void xchg_mpi_remember(const xchg_mpi_plan *pl)
{
    keep(record(), pl);
}

void xchg_mpi_remember_way(const xchg_mpi_plan *pl, const void *key, uint64_t n, const char *alg,
                           int fallback, const char *fmt, ...)
{
    last_call *l = record();
    keep(l, pl);
    l->way_on = 1;
    unsigned epoch = xchg_mpi_memo_epoch();
    if (key && l->way_plan == pl && l->way_key == key && l->way_n == n && l->way_epoch == epoch)
        return; /* the way kept: its alg and reason are this call's */
    l->way_plan = pl, l->way_key = key, l->way_n = n, l->way_epoch = epoch;
    l->way_fallback = fallback;
    snprintf(l->way_alg, sizeof l->way_alg, "%s", alg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->way_why, sizeof l->way_why, fmt, ap);
    va_end(ap);
}

void xchg_mpi_remember_hit(const xchg_mpi_memo_hit *hit)
{
    last_call *l = &last_of_process;
    if (hit->plan != l->from || hit->epoch != l->epoch || hit->plan->info_version != l->version)
        keep(l, hit->plan);
}

void xchg_mpi_remember_none(const char *why)
{
    keep_planless("none", 0, why);
}

void xchg_mpi_remember_passed(const char *why)
{
    keep_planless("mpi", 1, why);
}

int xchg_mpi_last_info(xchg_mpi_plan_info *info)
{
    if (!info)
        return MPI_ERR_ARG;
    const last_call *l = record();
    if (!l->have)
        return MPI_ERR_OTHER;
    *info = l->info;
    if (l->way_on) {
        memcpy(info->alg, l->way_alg, sizeof info->alg);
        memcpy(info->why, l->way_why, sizeof info->why);
        info->fallback = l->way_fallback;
    }
    return MPI_SUCCESS;
}
