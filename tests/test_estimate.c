/*
 * test_estimate.c - every registry entry's estimate (xchg_alg_estimate) held
 * to the schedule it then builds: the same number of steps (at least as many
 * for a schedule hosted on virtual nodes, whose packing is only known once
 * built), at least the memory the schedule holds (xchg_sched_bytes: steps,
 * per-node tables, context) and not far above it, so that the limits the
 * commands enforce from estimates (docs/limits.md) are neither broken nor
 * needlessly tight. Nothing here names an algorithm: every spec comes from
 * the registry (its variants, and its "virtual" and "paper" forms where they
 * parse and apply). Finally the estimate answers, without building anything,
 * on the largest networks the parser accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

/* An estimate may exceed what the schedule holds by this factor plus this
 * many bytes (hosted schedules: the _HOSTED pair). */
#define OVER_FACTOR 2
#define OVER_BYTES (64u << 10)
#define OVER_FACTOR_HOSTED 8
#define OVER_BYTES_HOSTED (1u << 20)

static unsigned long cases, hosted_cases;

/* Estimate, then generate, spec on t and hold the one to the other. */
static void check_spec(const xchg_topo *t, const char *tspec, const char *spec)
{
    const xchg_alg *alg;
    xchg_opts opts;
    xchg_err err = {{0}};
    if (xchg_alg_parse(spec, &alg, &opts, &err) || xchg_alg_applies(alg, t, &opts, NULL))
        return;
    xchg_estimate e;
    int rc = xchg_alg_estimate(alg, t, &opts, &e, &err);
    CHECK(rc == XCHG_OK, "%s on %s: estimate failed: %s", spec, tspec, err.msg);
    if (rc)
        return;
    xchg_sched *s = NULL;
    rc = xchg_alg_generate(alg, t, &opts, &s, &err);
    CHECK(rc == XCHG_OK, "%s on %s: generate failed: %s", spec, tspec, err.msg);
    if (rc)
        return;
    uint64_t steps = xchg_sched_nsteps(s), bytes = xchg_sched_bytes(s);
    int hosted = opts.virtual_nodes;
    cases++;
    hosted_cases += hosted != 0;
    if (hosted)
        CHECK(e.steps >= steps, "%s on %s: estimated %llu steps, built %llu", spec, tspec,
              (unsigned long long)e.steps, (unsigned long long)steps);
    else
        CHECK(e.steps == steps, "%s on %s: estimated %llu steps, built %llu", spec, tspec,
              (unsigned long long)e.steps, (unsigned long long)steps);
    CHECK(e.bytes >= bytes, "%s on %s: estimated %llu bytes, the schedule holds %llu", spec,
          tspec, (unsigned long long)e.bytes, (unsigned long long)bytes);
    uint64_t factor = hosted ? OVER_FACTOR_HOSTED : OVER_FACTOR;
    uint64_t slack = hosted ? OVER_BYTES_HOSTED : OVER_BYTES;
    CHECK(e.bytes <= factor * bytes + slack,
          "%s on %s: estimated %llu bytes, far above the %llu the schedule holds", spec, tspec,
          (unsigned long long)e.bytes, (unsigned long long)bytes);
    CHECK(e.work >= steps, "%s on %s: work %llu below the %llu steps", spec, tspec,
          (unsigned long long)e.work, (unsigned long long)steps);
    xchg_sched_free(s);
}

/* Every spec of every entry on tspec. */
static void run_topology(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        CHECK(a->estimate != NULL, "%s has no estimate hook", a->name);
        if (!a->estimate)
            continue;
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&t, a, specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < n; k++)
            check_spec(&t, tspec, specs[k]);
        char extra[XCHG_SPEC_MAX];
        const char *forms[] = {"virtual", "paper"};
        for (int f = 0; f < 2; f++) {
            snprintf(extra, sizeof extra, "%s:%s", a->name, forms[f]);
            int listed = 0;
            for (int k = 0; k < n; k++)
                listed |= strcmp(specs[k], extra) == 0;
            if (!listed)
                check_spec(&t, tspec, extra);
        }
    }
}

/* On the largest networks: every entry that applies answers, with at
 * least one step and at least the step array's memory. */
static void run_huge(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&t, a, specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < n; k++) {
            xchg_estimate e;
            xchg_err err = {{0}};
            int rc = xchg_estimate_spec(&t, specs[k], &e, &err);
            CHECK(rc == XCHG_OK, "%s on %s: estimate failed: %s", specs[k], tspec, err.msg);
            CHECK(rc || (e.steps > 0 && e.bytes >= e.steps * sizeof(xchg_step)),
                  "%s on %s: estimate of %llu steps, %llu bytes", specs[k], tspec,
                  (unsigned long long)e.steps, (unsigned long long)e.bytes);
        }
    }
}

int main(void)
{
    char spec[64];
    const char *kinds[] = {"ring", "array", "complete"};
    for (int k = 0; k < 3; k++)
        for (int p = 1; p <= 20; p++) {
            snprintf(spec, sizeof spec, "%s:%d", kinds[k], p);
            run_topology(spec);
        }
    run_topology("ring:64");
    run_topology("ring:1000");
    const char *grids[] = {"2x2", "3x5", "4x4", "5x7", "8x8", "6x10", "8x12", "16x16",
                           "16x20", "32x32", "64x64"};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        snprintf(spec, sizeof spec, "mesh:%s", grids[g]);
        run_topology(spec);
        snprintf(spec, sizeof spec, "torus:%s", grids[g]);
        run_topology(spec);
    }
    const char *tori[] = {"torus:2x2x2", "torus:6x6x6", "torus:12x6x6", "torus:5x6x7",
                          "torus:2x2x2x2", "torus:8x8x8x8", "mesh:3x2x2"};
    for (size_t g = 0; g < sizeof tori / sizeof tori[0]; g++)
        run_topology(tori[g]);
    for (int d = 0; d <= 10; d++) {
        snprintf(spec, sizeof spec, "hypercube:%d", d);
        run_topology(spec);
    }
    CHECK(cases > 500, "only %lu estimates checked", cases);
    CHECK(hosted_cases > 20, "only %lu hosted estimates checked", hosted_cases);

    const char *huge[] = {"ring:16777216", "array:16777216", "complete:16777216",
                          "hypercube:24", "torus:4096x4096", "mesh:4096x4096",
                          "torus:64x64x64x64", "torus:4096x4095", "ring:16777215"};
    for (size_t g = 0; g < sizeof huge / sizeof huge[0]; g++)
        run_huge(huge[g]);
    return check_finish("estimate");
}
