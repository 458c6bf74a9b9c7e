/*
 * plan.c - the planner: for a topology, a machine and a block size, cost
 * every applicable registry algorithm (with each of its variants, e.g. every
 * t1.x) and pick the fastest. Generic over the registry: it keeps no list of
 * algorithms of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * Generate spec on t and cost it; fills *e and returns 1 when it is a
 * candidate (applies, generates, claims contention-free), 0 when skipped,
 * or a negative code on ENOMEM.
 */
static int plan_cost(const xchg_topo *t, const xchg_machine *mach, double m, const char *spec,
                     xchg_plan_entry *e)
{
    xchg_sched *s = NULL;
    xchg_cost c;
    int rc = xchg_generate(t, spec, &s, NULL);
    if (rc == XCHG_ENOMEM)
        return rc;
    if (rc)
        return 0;
    int keep = xchg_sched_contention_free(s) &&
               xchg_cost_compute(s, mach, m, 0, &c, NULL) == XCHG_OK;
    xchg_sched_free(s);
    if (!keep)
        return 0;
    memset(e, 0, sizeof *e);
    snprintf(e->alg, sizeof e->alg, "%.*s", (int)sizeof e->alg - 1, spec);
    e->startups = c.startups;
    e->volume_blocks = c.volume_blocks;
    e->copy_blocks = c.copy_blocks;
    e->fixed = (double)c.startups * mach->ts;
    e->per_unit = (double)c.volume_blocks * mach->tw + (double)c.copy_blocks * mach->tr;
    e->time = c.time;
    return 1;
}

int xchg_plan(const xchg_topo *t, const xchg_machine *mach, double m, const char *only,
              xchg_plan_entry *best, xchg_plan_entry *all, size_t max_all, size_t *n_all,
              xchg_err *err)
{
    if (!t || !mach || !best)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plan needs a topology, a machine and a result");
    if (!(m >= 0) || m > 1e300)
        return xchg_fail(err, XCHG_EINVAL, "planner: block size %g must be a finite number >= 0",
                         m);
    int rc = xchg_alg_check_list(only, err);
    if (rc)
        return rc;
    xchg_spec specs[XCHG_MAX_VARIANTS];
    xchg_plan_entry win, e;
    size_t found = 0;
    memset(&win, 0, sizeof win);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!xchg_alg_in_list(only, a->name))
            continue;
        int n = xchg_alg_variants(t, a, specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < n; k++) {
            rc = plan_cost(t, mach, m, specs[k], &e);
            if (rc < 0) {
                rc = xchg_fail(err, rc, "planner: out of memory costing %s", specs[k]);
                return rc;
            }
            if (rc == 0)
                continue;
            if (all && found < max_all)
                all[found] = e;
            if (found == 0 || e.time < win.time)
                win = e;
            found++;
        }
    }
    if (n_all)
        *n_all = found;
    if (found == 0) {
        char spec[64];
        return xchg_fail(err, XCHG_ENOTAPPLIC,
                         "planner: no contention-free algorithm%s%s applies to %s",
                         only && *only ? " among " : "", only && *only ? only : "",
                         xchg_topo_spec(t, spec, sizeof spec));
    }
    *best = win;
    return XCHG_OK;
}
