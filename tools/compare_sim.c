/*
 * compare_sim.c - `xchg compare --sim`: every candidate of a sweep that has
 * a time line, simulated at every block size of the sweep (xchg_sim_run:
 * barrier steps, one-port nodes, th = 0, no barrier time), so compare can
 * rank them by simulated time beside the cost model. A contention-free
 * candidate simulates in its model time; the others show what contention
 * costs them.
 */
#include <math.h>
#include <stdlib.h>

#include "cli.h"

int xchg_cli_compare_sim(const xchg_topo *t, const xchg_machine *mach, const xchg_sweep *sw,
                         xchg_cli_progress *bar, double **out)
{
    size_t n = xchg_sweep_ncandidates(sw), ns = xchg_sweep_nsizes(sw);
    size_t cells = n * ns;
    double *v = malloc((cells > 0 ? cells : 1) * sizeof *v);
    if (!v)
        return xchg_cli_error("out of memory for --sim");
    for (size_t i = 0; i < cells; i++)
        v[i] = NAN;
    for (size_t i = 0; i < n; i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        xchg_cli_progress_hook(bar, (double)i / (double)n);
        if (xchg_cli_no_line(e) || e->check == XCHG_CHECK_FAILED)
            continue;
        xchg_sched *s = NULL;
        xchg_err err = {{0}};
        if (xchg_generate(t, e->alg, &s, &err) != XCHG_OK)
            continue; /* the planner built it once; a second failure leaves NaN */
        for (size_t k = 0; k < ns; k++) {
            xchg_sim_opts o = {.mode = XCHG_SIM_BARRIER};
            xchg_sim_report r;
            if (xchg_sim_run(s, mach, xchg_sweep_size(sw, k), &o, &r, &err) == XCHG_OK)
                v[i * ns + k] = r.time;
        }
        xchg_sched_free(s);
    }
    *out = v;
    return 0;
}

size_t xchg_cli_sim_best(const xchg_sweep *sw, const double *sim, size_t k)
{
    size_t n = xchg_sweep_ncandidates(sw), ns = xchg_sweep_nsizes(sw), best = XCHG_NO_WINNER;
    for (size_t i = 0; i < n; i++) {
        double x = sim[i * ns + k];
        if (!xchg_sweep_candidate(sw, i)->eligible || isnan(x))
            continue;
        if (best == XCHG_NO_WINNER || x < sim[best * ns + k])
            best = i;
    }
    return best;
}
