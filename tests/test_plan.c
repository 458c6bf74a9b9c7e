/*
 * test_plan.c - the planner (src/model/planner.c): xchg_plan and
 * xchg_plan_sweep. Tests that the winner is no slower than any eligible
 * candidate, that the extremes go where the cost lines say (fewest
 * start-ups for tiny blocks, least link volume for huge ones), that --only
 * restricts the candidates (t1.x alone picks x), that the tie rule (least
 * time, then smaller per_unit, then earlier candidate) holds at every size,
 * that crossovers are where the winner's line is crossed, that verifying
 * the candidates (compare) and not (plan) give the same lines and winners,
 * that a schedule whose link volume is not measured never wins, that
 * Liu et al.'s algorithms are candidates in their padded (:virtual) forms
 * where their sizes do not fit, verified and costed like the rest, and win
 * where they should, and that bad input is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

#define MAXC 512

/* Suh et al.'s model: ts = a, tw = 1 per flit. */
static xchg_machine suh_model(double a)
{
    xchg_machine m;
    CHECK(xchg_machine_ratio(a, &m, NULL) == 0, "machine a = %g", a);
    return m;
}

static xchg_plan_entry cand[MAXC];

/* a and b agree to 1e-12 relative. */
static int near_eq(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b));
}

/* Time of candidate i at m. */
static double tm(const xchg_plan_entry *e, double m)
{
    return xchg_line_time(&e->line, m);
}

/* Plan and check the winner against every candidate; returns n or 0. */
static size_t plan_ok(const char *topo, const xchg_machine *mach, double m, const char *only,
                      xchg_plan_entry *best)
{
    xchg_topo t = check_topo(topo);
    size_t n = 0;
    xchg_err err = {{0}};
    xchg_plan_opts po = {.only = only};
    int rc = xchg_plan(&t, mach, m, &po, best, cand, MAXC, &n, &err);
    CHECK(rc == 0, "plan %s m=%g only=%s: %d %s", topo, m, only ? only : "-", rc, err.msg);
    if (rc)
        return 0;
    CHECK(n > 0 && n <= MAXC, "%s: %zu candidates", topo, n);
    CHECK(best->eligible, "%s: the winner %s is eligible", topo, best->alg);
    for (size_t i = 0; i < n && i < MAXC; i++) {
        /* every candidate of these small networks (or contention-free
         * families) has its link volume claimed or measured */
        CHECK(cand[i].eligible, "%s: %s eligible (%s)", topo, cand[i].alg, cand[i].why);
        CHECK(tm(best, m) <= tm(&cand[i], m), "%s m=%g: winner %s (%g) slower than %s (%g)",
              topo, m, best->alg, tm(best, m), cand[i].alg, tm(&cand[i], m));
        CHECK(fabs(cand[i].line.fixed + cand[i].line.per_unit * m - tm(&cand[i], m)) <=
                  1e-9 * (tm(&cand[i], m) + 1),
              "%s: line of %s gives its time", topo, cand[i].alg);
    }
    return n;
}

/* Candidate with the fewest start-ups (ties: least per-unit cost). */
static const xchg_plan_entry *fewest_startups(size_t n)
{
    const xchg_plan_entry *b = &cand[0];
    for (size_t i = 1; i < n; i++)
        if (cand[i].line.startups < b->line.startups ||
            (cand[i].line.startups == b->line.startups &&
             cand[i].line.per_unit < b->line.per_unit))
            b = &cand[i];
    return b;
}

/* Candidate with the least per-unit cost (ties: fewest start-ups). */
static const xchg_plan_entry *least_volume(size_t n)
{
    const xchg_plan_entry *b = &cand[0];
    for (size_t i = 1; i < n; i++)
        if (cand[i].line.per_unit < b->line.per_unit ||
            (cand[i].line.per_unit == b->line.per_unit &&
             cand[i].line.startups < b->line.startups))
            b = &cand[i];
    return b;
}

/* The winner at m by brute force over the rule, XCHG_NO_WINNER if none. */
static size_t brute_winner(const xchg_sweep *sw, double m)
{
    size_t b = XCHG_NO_WINNER;
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        if (!e->eligible)
            continue;
        if (b == XCHG_NO_WINNER) {
            b = i;
            continue;
        }
        const xchg_plan_entry *f = xchg_sweep_candidate(sw, b);
        if (tm(e, m) < tm(f, m) || (tm(e, m) == tm(f, m) && e->line.per_unit < f->line.per_unit))
            b = i;
    }
    return b;
}

/* Check the sweep's winners, crossovers and ranking against the rule. */
static void check_sweep(const char *what, const xchg_sweep *sw, double lo, double hi)
{
    size_t n = xchg_sweep_ncandidates(sw);
    double m = lo;
    for (size_t k = 0; k < xchg_sweep_nsizes(sw); k++, m *= 2) {
        CHECK(xchg_sweep_size(sw, k) == m, "%s: size %zu is %g", what, k, m);
        size_t w = xchg_sweep_winner(sw, k);
        CHECK(w == brute_winner(sw, m), "%s m=%g: winner %zu, rule says %zu", what, m, w,
              brute_winner(sw, m));
        CHECK(w == xchg_sweep_best_at(sw, m), "%s m=%g: best_at agrees", what, m);
        size_t rank[MAXC];
        CHECK(xchg_sweep_rank(sw, m, rank, MAXC) == n, "%s: rank counts every candidate", what);
        CHECK(n == 0 || rank[0] == w || w == XCHG_NO_WINNER, "%s m=%g: rank[0] is the winner",
              what, m);
        for (size_t i = 1; i < n && i < MAXC; i++) {
            const xchg_plan_entry *a = xchg_sweep_candidate(sw, rank[i - 1]);
            const xchg_plan_entry *b = xchg_sweep_candidate(sw, rank[i]);
            if (a->eligible && b->eligible)
                CHECK(tm(a, m) <= tm(b, m), "%s m=%g: rank %zu not slower than %zu", what, m,
                      i - 1, i);
            CHECK(a->eligible || !b->eligible, "%s: ineligible ranked last", what);
        }
    }
    CHECK(m > hi || xchg_sweep_nsizes(sw) == 0, "%s: the sweep reaches hi", what);
    CHECK(m / 2 <= hi, "%s: no size above hi", what);
    double at = lo;
    size_t prev_to = xchg_sweep_winner(sw, 0);
    for (size_t k = 0; k < xchg_sweep_ncrossovers(sw); k++) {
        const xchg_crossover *c = xchg_sweep_crossover(sw, k);
        const xchg_plan_entry *f = xchg_sweep_candidate(sw, c->from);
        const xchg_plan_entry *t = xchg_sweep_candidate(sw, c->to);
        CHECK(c->m > at && c->m <= hi, "%s: crossover %zu at %g in (%g, %g]", what, k, c->m, at,
              hi);
        CHECK(c->from == prev_to, "%s: crossover %zu starts from the previous winner", what, k);
        CHECK(fabs(tm(f, c->m) - tm(t, c->m)) <= 1e-9 * tm(f, c->m),
              "%s: %s and %s meet at %g", what, f->alg, t->alg, c->m);
        CHECK(t->line.per_unit < f->line.per_unit, "%s: slopes decrease", what);
        CHECK(xchg_sweep_best_at(sw, c->m * (1 - 1e-9)) == c->from, "%s: %s wins just below %g",
              what, f->alg, c->m);
        CHECK(xchg_sweep_best_at(sw, c->m * (1 + 1e-9)) == c->to, "%s: %s wins just above %g",
              what, t->alg, c->m);
        at = c->m;
        prev_to = c->to;
    }
    CHECK(xchg_sweep_best_at(sw, hi) == prev_to, "%s: the last winner holds to hi", what);
}

/*
 * The same question asked with and without verification (compare and plan)
 * gets the same candidates, lines and winners; a contention-free claim
 * stands for the measurement (same link volume).
 */
static void same_answer(const char *topo, const xchg_machine *mach, double lo, double hi)
{
    xchg_topo t = check_topo(topo);
    xchg_err err = {{0}};
    xchg_plan_opts plan = {.threads = 1}, cmp = {.threads = 1, .verify = 1};
    xchg_sweep *a = NULL, *b = NULL;
    CHECK(xchg_plan_sweep(&t, mach, lo, hi, &plan, &a, &err) == 0, "sweep %s: %s", topo,
          err.msg);
    CHECK(xchg_plan_sweep(&t, mach, lo, hi, &cmp, &b, &err) == 0, "verified sweep %s: %s", topo,
          err.msg);
    if (a && b) {
        check_sweep(topo, a, lo, hi);
        check_sweep(topo, b, lo, hi);
        size_t n = xchg_sweep_ncandidates(a);
        CHECK_EQ_U64(n, xchg_sweep_ncandidates(b), "same candidates");
        CHECK(strcmp(xchg_sweep_not_applicable(a), xchg_sweep_not_applicable(b)) == 0,
              "%s: same not applicable", topo);
        for (size_t i = 0; i < n && i < xchg_sweep_ncandidates(b); i++) {
            const xchg_plan_entry *x = xchg_sweep_candidate(a, i), *y = xchg_sweep_candidate(b, i);
            CHECK(strcmp(x->alg, y->alg) == 0, "%s: candidate %zu %s = %s", topo, i, x->alg,
                  y->alg);
            CHECK(x->eligible && y->eligible, "%s: %s eligible both ways", topo, x->alg);
            CHECK(y->check == XCHG_CHECK_BLOCKS, "%s: %s verified block by block", topo, y->alg);
            CHECK(x->check == (x->contention_free ? XCHG_CHECK_NONE : XCHG_CHECK_MESSAGES),
                  "%s: %s checked by its messages only when not contention-free", topo, x->alg);
            CHECK(x->line.link_source ==
                      (x->contention_free ? XCHG_LINK_CLAIMED : XCHG_LINK_MEASURED),
                  "%s: %s link volume claimed or measured", topo, x->alg);
            CHECK(y->line.link_source == XCHG_LINK_MEASURED, "%s: %s measured when verified",
                  topo, y->alg);
            CHECK_EQ_U64(x->line.link_volume_blocks, y->line.link_volume_blocks,
                         "link volume: claimed/messages-only = followed blocks");
            CHECK(x->line.fixed == y->line.fixed && x->line.per_unit == y->line.per_unit,
                  "%s: %s same line", topo, x->alg);
            if (x->contention_free)
                CHECK_EQ_U64(x->line.link_volume_blocks, x->line.volume_blocks,
                             "claimed: link volume = volume");
            else
                CHECK(x->line.link_volume_blocks >= x->line.volume_blocks,
                      "%s: %s link volume >= volume", topo, x->alg);
        }
        CHECK_EQ_U64(xchg_sweep_nsizes(a), xchg_sweep_nsizes(b), "same sizes");
        for (size_t k = 0; k < xchg_sweep_nsizes(a); k++)
            CHECK(xchg_sweep_winner(a, k) == xchg_sweep_winner(b, k), "%s size %g: same winner",
                  topo, xchg_sweep_size(a, k));
        CHECK_EQ_U64(xchg_sweep_ncrossovers(a), xchg_sweep_ncrossovers(b), "same crossovers");
        for (size_t k = 0; k < xchg_sweep_ncrossovers(a) && k < xchg_sweep_ncrossovers(b); k++)
            CHECK(xchg_sweep_crossover(a, k)->m == xchg_sweep_crossover(b, k)->m &&
                      xchg_sweep_crossover(a, k)->to == xchg_sweep_crossover(b, k)->to,
                  "%s: crossover %zu the same", topo, k);
    }
    xchg_sweep_free(a);
    xchg_sweep_free(b);
}

/*
 * Liu et al.'s algorithms on sizes they refuse: the candidates are their
 * padded forms (xchg_alg_variants offers "name:virtual" where no plain
 * spec applies), verified block by block with their claim held, each with
 * the counts of `xchg cost` on the same spec; no plain form of them, and
 * no padded form where the plain one applies.
 */
static void padded_candidates(const char *topo, const xchg_machine *mach, const char *want)
{
    xchg_topo t = check_topo(topo);
    xchg_err err = {{0}};
    xchg_plan_opts cmp = {.threads = 1, .verify = 1};
    xchg_sweep *sw = NULL;
    CHECK(xchg_plan_sweep(&t, mach, 1, 65536, &cmp, &sw, &err) == 0, "sweep %s: %s", topo,
          err.msg);
    size_t found = 0, n = xchg_sweep_ncandidates(sw);
    for (size_t i = 0; i < n; i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        const char *colon = strchr(e->alg, ':');
        int padded = colon && strcmp(colon, ":virtual") == 0;
        char name[XCHG_SPEC_MAX];
        snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - e->alg) : 60, e->alg);
        int wanted = *want && xchg_alg_in_list(want, name);
        CHECK(!wanted || padded, "%s: %s offered plain", topo, e->alg);
        if (!padded)
            continue;
        CHECK(wanted, "%s: %s offered, not expected", topo, e->alg);
        found++;
        CHECK(e->eligible && e->check == XCHG_CHECK_BLOCKS && e->failures == 0,
              "%s: %s verified block by block and eligible (%s)", topo, e->alg, e->why);
        CHECK(e->contention_free && e->line.link_source == XCHG_LINK_MEASURED &&
                  e->line.link_volume_blocks == e->line.volume_blocks,
              "%s: %s claims contention-free and the verifier measured it so", topo, e->alg);
        xchg_sched *s = NULL;
        xchg_cost c;
        CHECK(xchg_generate(&t, e->alg, &s, &err) == 0 &&
                  xchg_cost_compute(s, mach, 1024, 0, &c, &err) == 0,
              "%s: cost %s: %s", topo, e->alg, err.msg);
        if (s) {
            CHECK_EQ_U64(e->line.startups, c.startups, "padded: planner = cost start-ups");
            CHECK_EQ_U64(e->line.volume_blocks, c.volume_blocks, "padded: planner = cost volume");
            CHECK(near_eq(tm(e, 1024), c.time), "%s: %s time %g, cost says %g", topo, e->alg,
                  tm(e, 1024), c.time);
        }
        xchg_sched_free(s);
    }
    size_t expected = 0;
    for (const char *w = want; *w; w++)
        expected += *w == ',';
    CHECK_EQ_U64(found, *want ? expected + 1 : 0, "padded candidates found");
    xchg_sweep_free(sw);
}

/* Ties: identical lines (t1, t2, at2, ptk, mtk on torus:8x8 all have 6
 * start-ups and 192 blocks) go to the earliest in registry order. */
static void test_ties(const xchg_machine *mach)
{
    xchg_topo t = check_topo("torus:8x8");
    xchg_plan_opts po = {.only = "mtk,at2,t2,t1,ptk", .threads = 1};
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_plan_sweep(&t, mach, 1, 1 << 20, &po, &sw, &err) == 0, "tie sweep: %s", err.msg);
    if (!sw)
        return;
    CHECK_EQ_U64(xchg_sweep_ncandidates(sw), 5, "five candidates");
    CHECK(strcmp(xchg_sweep_candidate(sw, 0)->alg, "t1") == 0, "registry order: t1 first (%s)",
          xchg_sweep_candidate(sw, 0)->alg);
    for (size_t k = 0; k < xchg_sweep_nsizes(sw); k++)
        CHECK(xchg_sweep_winner(sw, k) == 0, "identical lines: the earliest wins at %g",
              xchg_sweep_size(sw, k));
    CHECK_EQ_U64(xchg_sweep_ncrossovers(sw), 0, "identical lines never cross");
    xchg_sweep_free(sw);
}

/* A schedule that is not contention-free and whose link volume is over the
 * work limit is shown, with its volume, but never wins. */
static void test_unmeasured(const xchg_machine *mach)
{
    xchg_topo t = check_topo("torus:8x8");
    xchg_plan_opts po = {.threads = 1, .max_work = 10}; /* p*steps is at least 64 */
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_plan_sweep(&t, mach, 1, 65536, &po, &sw, &err) == 0, "sweep: %s", err.msg);
    if (!sw)
        return;
    size_t unmeasured = 0, claimed = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        if (e->contention_free) {
            claimed++;
            CHECK(e->eligible && e->line.link_source == XCHG_LINK_CLAIMED,
                  "%s: claim stands without a check", e->alg);
        } else {
            unmeasured++;
            CHECK(!e->eligible && e->line.link_source == XCHG_LINK_UNMEASURED &&
                      e->check == XCHG_CHECK_TOOBIG && e->why[0],
                  "%s: not measured, not eligible, says why", e->alg);
            CHECK_EQ_U64(e->line.link_volume_blocks, e->line.volume_blocks,
                         "unmeasured: the volume is shown");
        }
    }
    CHECK(unmeasured > 0 && claimed > 0, "torus:8x8 has both kinds (%zu, %zu)", unmeasured,
          claimed);
    check_sweep("unmeasured", sw, 1, 65536);
    xchg_sweep_free(sw);

    /* Only unmeasured candidates: the sweep answers "nobody", plan refuses. */
    po.only = "pairwise,hc-direct";
    CHECK(xchg_plan_sweep(&t, mach, 1, 64, &po, &sw, &err) == 0, "sweep: %s", err.msg);
    if (sw) {
        CHECK_EQ_U64(xchg_sweep_ncandidates(sw), 2, "two candidates");
        for (size_t k = 0; k < xchg_sweep_nsizes(sw); k++)
            CHECK(xchg_sweep_winner(sw, k) == XCHG_NO_WINNER, "no winner at %g",
                  xchg_sweep_size(sw, k));
        CHECK(xchg_sweep_best_at(sw, 8) == XCHG_NO_WINNER, "no winner anywhere");
        CHECK_EQ_U64(xchg_sweep_ncrossovers(sw), 0, "no crossover");
        xchg_sweep_free(sw);
    }
    xchg_plan_entry best;
    memset(&best, 0x5a, sizeof best);
    xchg_plan_entry before = best;
    CHECK(xchg_plan(&t, mach, 8, &po, &best, NULL, 0, NULL, &err) == XCHG_ENOTAPPLIC &&
              strstr(err.msg, "may win"),
          "plan: nobody may win: %s", err.msg);
    CHECK(memcmp(&best, &before, sizeof best) == 0, "best untouched on failure");
    /* With the default limit they are measured and one wins. */
    po.max_work = 0;
    CHECK(xchg_plan(&t, mach, 8, &po, &best, NULL, 0, NULL, &err) == 0 && best.eligible &&
              best.line.link_source == XCHG_LINK_MEASURED,
          "measured pairwise/hc-direct win: %s", err.msg);
}

/* Bad arguments to the sweep: EINVAL, *out untouched. */
static void test_refusals(const xchg_machine *mach)
{
    xchg_topo t = check_topo("ring:8");
    xchg_sweep *sw = (xchg_sweep *)&t; /* a sentinel: must stay */
    xchg_err err = {{0}};
    struct {
        double lo, hi;
    } bad[] = {{2, 1}, {0, 8}, {-1, 8}, {NAN, 8}, {1, INFINITY}, {1, NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(xchg_plan_sweep(&t, mach, bad[i].lo, bad[i].hi, NULL, &sw, &err) == XCHG_EINVAL,
              "sweep [%g, %g] refused", bad[i].lo, bad[i].hi);
        CHECK(sw == (xchg_sweep *)&t, "out untouched");
    }
    CHECK(xchg_plan_sweep(NULL, mach, 1, 2, NULL, &sw, &err) == XCHG_EINVAL, "NULL topology");
    CHECK(xchg_plan_sweep(&t, NULL, 1, 2, NULL, &sw, &err) == XCHG_EINVAL, "NULL machine");
    CHECK(xchg_plan_sweep(&t, mach, 1, 2, NULL, NULL, &err) == XCHG_EINVAL, "NULL out");
    xchg_plan_opts po = {.only = "ring,nope"};
    CHECK(xchg_plan_sweep(&t, mach, 1, 2, &po, &sw, &err) == XCHG_EINVAL &&
              strstr(err.msg, "nope"),
          "unknown name: %s", err.msg);
    po.only = "t1";
    CHECK(xchg_plan_sweep(&t, mach, 1, 2, &po, &sw, &err) == XCHG_ENOTAPPLIC, "t1 on a ring");
    CHECK(sw == (xchg_sweep *)&t, "out untouched");
    /* another operation's algorithm is refused, not planned as an exchange
     * nor left out silently; and the exchange's in another operation's */
    po.only = "ring,bcast-hc";
    CHECK(xchg_plan_sweep(&t, mach, 1, 2, &po, &sw, &err) == XCHG_EINVAL &&
              strstr(err.msg, "bcast-hc performs bcast, not the complete exchange; accepted: "
                              "an algorithm of the complete exchange ('xchg list --op "
                              "alltoall'), or --op bcast"),
          "bcast-hc in the exchange's plan: %s", err.msg);
    CHECK(sw == (xchg_sweep *)&t, "out untouched");
    po.only = "hc-direct";
    po.op = XCHG_OP_SCAN;
    CHECK(xchg_plan_sweep(&t, mach, 1, 2, &po, &sw, &err) == XCHG_EINVAL &&
              strstr(err.msg, "hc-direct performs alltoall, not scan"),
          "hc-direct in scan's plan: %s", err.msg);
    po.op = XCHG_OP_ALLTOALL;
    /* One size, m = 0: only start-ups count. */
    sw = NULL;
    CHECK(xchg_plan_sweep(&t, mach, 0, 0, NULL, &sw, &err) == 0 && xchg_sweep_nsizes(sw) == 1,
          "m = 0 is one size: %s", err.msg);
    xchg_sweep_free(sw);
    xchg_sweep_free(NULL);
    CHECK(xchg_sweep_ncandidates(NULL) == 0 && xchg_sweep_candidate(NULL, 0) == NULL &&
              xchg_sweep_winner(NULL, 0) == XCHG_NO_WINNER && xchg_sweep_nsizes(NULL) == 0 &&
              xchg_sweep_crossover(NULL, 0) == NULL && xchg_sweep_not_applicable(NULL)[0] == 0,
          "accessors accept NULL");
}

/* Candidates over the memory or build-work limit are skipped, not built:
 * named, with the estimate in why, never eligible; the others are costed as
 * usual. The limit is set between the candidates' own estimates. */
static void test_skipped(const xchg_machine *mach, int by_work)
{
    const char *tspec = "torus:16x16";
    xchg_topo t = check_topo(tspec);
    xchg_plan_opts po = {.threads = 1};
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_plan_sweep(&t, mach, 64, 64, &po, &sw, &err) == 0, "sweep: %s", err.msg);
    if (!sw)
        return;
    size_t n = xchg_sweep_ncandidates(sw);
    uint64_t *est = calloc(n, sizeof *est), lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n && est; i++) {
        xchg_estimate e;
        CHECK(xchg_estimate_spec(&t, xchg_sweep_candidate(sw, i)->alg, &e, &err) == 0,
              "estimate %s: %s", xchg_sweep_candidate(sw, i)->alg, err.msg);
        est[i] = by_work ? e.work : e.bytes;
        lo = est[i] < lo ? est[i] : lo;
        hi = est[i] > hi ? est[i] : hi;
    }
    xchg_sweep_free(sw);
    CHECK(est && lo < hi, "the candidates' estimates differ (%llu..%llu)",
          (unsigned long long)lo, (unsigned long long)hi);
    if (!est || lo >= hi) {
        free(est);
        return;
    }
    uint64_t limit = lo + (hi - lo) / 2;
    if (by_work)
        po.max_build_work = limit;
    else
        po.max_bytes = limit;
    sw = NULL;
    CHECK(xchg_plan_sweep(&t, mach, 64, 64, &po, &sw, &err) == 0, "limited sweep: %s", err.msg);
    size_t skipped = 0;
    for (size_t i = 0; sw && i < xchg_sweep_ncandidates(sw) && i < n; i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        int over = by_work ? est[i] > limit : est[i] >= limit;
        skipped += e->check == XCHG_CHECK_SKIPPED;
        CHECK((e->check == XCHG_CHECK_SKIPPED) == over, "%s: estimate %llu, limit %llu, check %d",
              e->alg, (unsigned long long)est[i], (unsigned long long)limit, e->check);
        if (over)
            CHECK(!e->eligible && strstr(e->why, by_work ? "work limit" : "memory limit"),
                  "%s: skipped, not eligible, says why: %s", e->alg, e->why);
        else
            CHECK(e->check != XCHG_CHECK_ERROR, "%s: costed: %s", e->alg, e->why);
    }
    CHECK(skipped > 0 && skipped < n, "some skipped, some not (%zu of %zu)", skipped, n);
    xchg_sweep_free(sw);
    free(est);
}

int main(void)
{
    xchg_machine a5 = suh_model(5000);
    xchg_plan_entry best;

    test_skipped(&a5, 0);
    test_skipped(&a5, 1);

    /* Suh et al.'s family on 64x64: t1, t2, t1.1, t1.2. */
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
    /* On torus:8x8 the contention of hc-direct is charged: its link volume
     * is 153 blocks, not its volume of 63; still below the 192 of the
     * contention-free t1 and at2, so it wins at large blocks (pairwise has
     * the same line and comes later in the registry). */
    n = plan_ok("torus:8x8", &para, 1e6, NULL, &best);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cand[i].alg, "hc-direct") == 0)
            CHECK(cand[i].line.link_volume_blocks == 153 && cand[i].line.volume_blocks == 63 &&
                      cand[i].line.link_source == XCHG_LINK_MEASURED,
                  "hc-direct on torus:8x8: link volume %llu measured",
                  (unsigned long long)cand[i].line.link_volume_blocks);
    CHECK(strcmp(best.alg, "hc-direct") == 0 && near_eq(best.line.per_unit, 153 * para.tw),
          "torus:8x8, huge blocks: hc-direct at its link volume (%s, %g)", best.alg,
          best.line.per_unit);

    /* Sweeps: with and without verification, the same answer. */
    same_answer("torus:8x8", &para, 1, 65536);
    same_answer("hypercube:6", &para, 1, 65536);
    same_answer("ring:16", &para, 1, 65536);
    same_answer("mesh:4x4", &para, 0.5, 1 << 20);
    same_answer("complete:8", &para, 8, 8);
    xchg_machine a10 = suh_model(10000);
    same_answer("torus:16x16", &a10, 0.0625, 4096);
    /* Padded Liu algorithms: offered where the sizes do not fit, and chosen
     * where they win: at2:virtual on torus:6x10 at 1 KiB on the Paragon
     * (20 start-ups, 408 blocks; docs/virtual-nodes.md shows the times). */
    padded_candidates("torus:5x7", &para, "at2,ptk,mtk");
    padded_candidates("torus:6x10", &para, "at2,ptk,mtk");
    padded_candidates("ring:7", &para, "ar1,ptk,mtk");
    padded_candidates("torus:3x5x7", &para, "mt3,mtk");
    padded_candidates("torus:8x8", &para, "");
    same_answer("torus:6x10", &para, 1, 65536);
    n = plan_ok("torus:6x10", &para, 1024, NULL, &best);
    CHECK(n && strcmp(best.alg, "at2:virtual") == 0, "torus:6x10 at 1 KiB: at2:virtual (got %s)",
          best.alg);
    test_ties(&para);
    test_unmeasured(&para);
    test_refusals(&para);

    /* Refusals of xchg_plan. */
    xchg_topo t = check_topo("torus:64x64");
    xchg_plan_opts bad = {.only = "t1,nope"};
    CHECK(xchg_plan(&t, &a5, 1, &bad, &best, NULL, 0, NULL, &err) == XCHG_EINVAL &&
              strstr(err.msg, "nope"),
          "unknown name refused: %s", err.msg);
    CHECK(xchg_plan(&t, &a5, -1, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "negative m refused");
    CHECK(xchg_plan(&t, &a5, NAN, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "nan m refused");
    CHECK(xchg_plan(NULL, &a5, 1, NULL, &best, NULL, 0, NULL, &err) == XCHG_EINVAL,
          "NULL topology refused");
    xchg_topo ring = check_topo("ring:12");
    xchg_plan_opts t1t2 = {.only = "t1,t2"};
    CHECK(xchg_plan(&ring, &a5, 1, &t1t2, &best, NULL, 0, NULL, &err) == XCHG_ENOTAPPLIC,
          "t1/t2 do not apply to a ring: %s", err.msg);
    return check_finish("test_plan");
}
