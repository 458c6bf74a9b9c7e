/*
 * test_plan.c - the planner (src/model/planner.c, xchg_plan): it costs every
 * applicable contention-free registry algorithm and variant and picks the
 * fastest; tests that the winner is no slower than any candidate, that the
 * extremes go where the cost lines say (fewest start-ups for tiny blocks,
 * least volume for huge ones), that --only restricts the candidates (t1.x
 * alone picks x), and that bad input is refused.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

#define MAXC 512

/* Seed 000's model: ts = a, tw = 1 per flit. */
static xchg_machine seed000(double a)
{
    xchg_machine m;
    CHECK(xchg_machine_ratio(a, &m, NULL) == 0, "machine a = %g", a);
    return m;
}

static xchg_plan_entry cand[MAXC];

/* Plan and check the winner against every candidate; returns n or 0. */
static size_t plan_ok(const char *topo, const xchg_machine *mach, double m, const char *only,
                      xchg_plan_entry *best)
{
    xchg_topo t = check_topo(topo);
    size_t n = 0;
    xchg_err err = {{0}};
    int rc = xchg_plan(&t, mach, m, only, best, cand, MAXC, &n, &err);
    CHECK(rc == 0, "plan %s m=%g only=%s: %d %s", topo, m, only ? only : "-", rc, err.msg);
    if (rc)
        return 0;
    CHECK(n > 0 && n <= MAXC, "%s: %zu candidates", topo, n);
    for (size_t i = 0; i < n && i < MAXC; i++) {
        CHECK(best->time <= cand[i].time, "%s m=%g: winner %s (%g) slower than %s (%g)", topo,
              m, best->alg, best->time, cand[i].alg, cand[i].time);
        CHECK(fabs(cand[i].fixed + cand[i].per_unit * m - cand[i].time) <=
                  1e-9 * (cand[i].time + 1),
              "%s: line of %s gives its time", topo, cand[i].alg);
    }
    return n;
}

/* Candidate with the fewest start-ups (ties: least volume). */
static const xchg_plan_entry *fewest_startups(size_t n)
{
    const xchg_plan_entry *b = &cand[0];
    for (size_t i = 1; i < n; i++)
        if (cand[i].startups < b->startups ||
            (cand[i].startups == b->startups && cand[i].per_unit < b->per_unit))
            b = &cand[i];
    return b;
}

/* Candidate with the least per-unit cost (ties: fewest start-ups). */
static const xchg_plan_entry *least_volume(size_t n)
{
    const xchg_plan_entry *b = &cand[0];
    for (size_t i = 1; i < n; i++)
        if (cand[i].per_unit < b->per_unit ||
            (cand[i].per_unit == b->per_unit && cand[i].startups < b->startups))
            b = &cand[i];
    return b;
}

int main(void)
{
    xchg_machine a5 = seed000(5000);
    xchg_plan_entry best;

    /* Seed 000's family on 64x64: t1, t2, t1.1, t1.2. */
    size_t n = plan_ok("torus:64x64", &a5, 1e-6, "t1,t1.x,t2", &best);
    CHECK_EQ_U64(n, 4, "t1, t2, t1.1, t1.2 on 64x64");
    if (n) {
        CHECK(strcmp(best.alg, fewest_startups(n)->alg) == 0,
              "tiny blocks: %s wins, the fewest start-ups is %s", best.alg,
              fewest_startups(n)->alg);
        CHECK(strcmp(best.alg, "t1") == 0, "tiny blocks on 64x64: t1 (got %s)", best.alg);
    }
    n = plan_ok("torus:64x64", &a5, 1e6, "t1,t1.x,t2", &best);
    if (n) {
        CHECK(strcmp(best.alg, least_volume(n)->alg) == 0, "huge blocks: the least volume");
        CHECK(strcmp(best.alg, "t2") == 0, "huge blocks on 64x64: t2 (got %s)", best.alg);
    }
    /* Between the crossovers a T1.x wins; --only t1.x picks x. */
    n = plan_ok("torus:64x64", &a5, 5, "t1,t1.x,t2", &best);
    if (n)
        CHECK(strncmp(best.alg, "t1.", 3) == 0, "m=5 on 64x64: a t1.x wins (got %s)",
              best.alg);
    n = plan_ok("torus:128x128", &a5, 5, "t1.x", &best);
    CHECK_EQ_U64(n, 3, "t1.1..t1.3 on 128x128");
    if (n) {
        CHECK(strncmp(best.alg, "t1.", 3) == 0, "only t1.x: %s", best.alg);
        for (size_t i = 0; i < n; i++)
            CHECK(strncmp(cand[i].alg, "t1.", 3) == 0, "only t1.x candidates: %s",
                  cand[i].alg);
    }

    /* The whole registry on a hypercube and a small torus. */
    xchg_err err = {{0}};
    xchg_machine para;
    CHECK(xchg_machine_preset("paragon", 64, &para, &err) == 0, "paragon preset");
    plan_ok("hypercube:6", &para, 1024, NULL, &best);
    plan_ok("torus:8x8", &para, 64, "", &best);
    plan_ok("ring:12", &para, 8, NULL, &best);

    /* Refusals. */
    xchg_topo t = check_topo("torus:64x64");
    CHECK(xchg_plan(&t, &a5, 1, "t1,nope", &best, NULL, 0, NULL, &err) == XCHG_EINVAL &&
              strstr(err.msg, "nope"),
          "unknown name refused: %s", err.msg);
    CHECK(xchg_plan(&t, &a5, -1, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "negative m refused");
    CHECK(xchg_plan(&t, &a5, NAN, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "nan m refused");
    CHECK(xchg_plan(NULL, &a5, 1, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "NULL topology refused");
    xchg_topo ring = check_topo("ring:12");
    CHECK(xchg_plan(&ring, &a5, 1, "t1,t2", &best, NULL, 0, NULL, &err) == XCHG_ENOTAPPLIC,
          "t1/t2 do not apply to a ring: %s", err.msg);
    return check_finish("test_plan");
}
