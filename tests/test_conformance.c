/*
 * test_conformance.c - every registry entry, and each of its variants, over
 * many topologies: where the entry applies, the schedule must pass the
 * verifier (contention allowed only where the schedule does not claim to be
 * free of it), and three counts must agree: what the verifier counted by
 * following every block, what the cost model reads from the declared sizes,
 * and the closed-form formula the algorithm's source gives (start-ups,
 * volume, and the local copies against the cost model's). Also checks
 * that preconditions refuse what they must.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "xchg.h"


/* Whether the family's doc says the schedule is contention-free on t (so
 * the claim, which the verifier then holds it to, is never vacuous). */
static int expected_claim(const char *name, const xchg_topo *t)
{
    int hc = t->kind == XCHG_TOPO_HYPERCUBE, sw = t->kind == XCHG_TOPO_COMPLETE;
    if (strcmp(name, "ring") == 0 || strcmp(name, "ring-bidir") == 0 ||
        strcmp(name, "mesh2") == 0)
        return 1;
    if (strcmp(name, "ar1") == 0 || strcmp(name, "at2") == 0)
        return 1; /* seed 001 ring / 2-D: only the paper's sizes apply */
    if (strcmp(name, "pt4") == 0 || strcmp(name, "ptk") == 0 || strcmp(name, "mt3") == 0 ||
        strcmp(name, "mtk") == 0)
        return 1; /* seed 001 k-D: only tori/rings of the paper's sizes */
    if (strcmp(name, "t1") == 0 || strcmp(name, "t2") == 0 || strcmp(name, "t1.x") == 0)
        return 1; /* seed 000: only 2^d x 2^d tori apply */
    if (strcmp(name, "bruck") == 0)
        return sw;
    return hc || sw; /* hc-standard, hc-direct, multiphase, pairwise */
}

static unsigned long runs_of[64];

/* One (spec, topology) case where the algorithm applies. */
static void run_case(const xchg_alg *a, const char *spec, const xchg_opts *o, const xchg_topo *t,
                     const char *tspec)
{
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = a->generate(t, o, &s, &err);
    CHECK(rc == 0 && s, "%s on %s: generate %d %s", spec, tspec, rc, err.msg);
    if (rc || !s)
        return;
    CHECK(strcmp(xchg_sched_algorithm(s), spec) == 0, "%s on %s: schedule names itself %s",
          spec, tspec, xchg_sched_algorithm(s));

    CHECK(xchg_sched_contention_free(s) == expected_claim(a->name, t),
          "%s on %s: contention-free claim %d", spec, tspec, xchg_sched_contention_free(s));

    xchg_verify_report rep;
    memset(&rep, 0, sizeof rep);
    xchg_verify_opts vo = {.threads = 0, .max_work = 0};
    rc = xchg_verify(s, &vo, &rep, &err);
    CHECK(rc == 0, "%s on %s: verify %d %s", spec, tspec, rc, err.msg);
    if (rc == 0) {
        CHECK(rep.ok, "%s on %s: verifier says not ok (%llu failures; %s)", spec, tspec,
              (unsigned long long)rep.failures, rep.reported > 0 ? rep.msgs[0] : "");
        CHECK(rep.undelivered == 0 && rep.size_mismatches == 0 && rep.port_violations == 0 &&
                  rep.route_failures == 0,
              "%s on %s: undelivered %llu, size mismatches %llu, port %llu, route %llu", spec,
              tspec, (unsigned long long)rep.undelivered,
              (unsigned long long)rep.size_mismatches, (unsigned long long)rep.port_violations,
              (unsigned long long)rep.route_failures);
        if (xchg_sched_contention_free(s))
            CHECK(rep.link_conflicts == 0, "%s on %s: claims contention-free, %llu conflicts",
                  spec, tspec, (unsigned long long)rep.link_conflicts);
        CHECK_EQ_U64(rep.blocks, (uint64_t)t->nodes * t->nodes, "blocks followed");
    }

    xchg_machine mach;
    memset(&mach, 0, sizeof mach);
    snprintf(mach.name, sizeof mach.name, "unit");
    snprintf(mach.units, sizeof mach.units, "us");
    mach.ts = 1.0;
    mach.tw = 1.0;
    xchg_cost cost;
    memset(&cost, 0, sizeof cost);
    rc = xchg_cost_compute(s, &mach, 1.0, 0, &cost, &err);
    CHECK(rc == 0, "%s on %s: cost %d %s", spec, tspec, rc, err.msg);

    xchg_counts f;
    memset(&f, 0, sizeof f);
    int frc = a->formula(t, o, &f);
    CHECK(frc == 0, "%s on %s: formula refused (%d)", spec, tspec, frc);

    char what[200];
    snprintf(what, sizeof what, "%.63s on %.63s: verifier vs formula start-ups", spec, tspec);
    if (rep.ok)
        CHECK_EQ_U64(rep.startups, f.startups, what);
    snprintf(what, sizeof what, "%.63s on %.63s: verifier vs formula volume", spec, tspec);
    if (rep.ok)
        CHECK_EQ_U64(rep.volume_blocks, f.volume_blocks, what);
    snprintf(what, sizeof what, "%.63s on %.63s: cost vs formula start-ups", spec, tspec);
    CHECK_EQ_U64(cost.startups, f.startups, what);
    snprintf(what, sizeof what, "%.63s on %.63s: cost vs formula volume", spec, tspec);
    CHECK_EQ_U64(cost.volume_blocks, f.volume_blocks, what);
    snprintf(what, sizeof what, "%.63s on %.63s: cost steps", spec, tspec);
    CHECK_EQ_U64(cost.steps, xchg_sched_nsteps(s), what);
    snprintf(what, sizeof what, "%.63s on %.63s: cost vs formula copies", spec, tspec);
    CHECK_EQ_U64(cost.copy_blocks, f.copy_blocks, what);
    xchg_sched_free(s);
}

/* Every entry and variant that applies to the topology tspec. */
static void run_topology(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        char specs[32][64];
        int n = 1;
        if (a->variants) {
            n = a->variants(&t, specs, 32);
            CHECK(n >= 0 && n <= 32, "%s on %s: %d variants", a->name, tspec, n);
            if (n > 32)
                n = 32;
        } else {
            snprintf(specs[0], 64, "%s", a->name);
        }
        for (int v = 0; v < n; v++) {
            const xchg_alg *pa = NULL;
            xchg_opts o;
            xchg_err err = {{0}};
            int rc = xchg_alg_parse(specs[v], &pa, &o, &err);
            CHECK(rc == 0 && pa == a, "variant %s of %s does not parse back: %s", specs[v],
                  a->name, err.msg);
            if (rc || pa != a)
                continue;
            rc = xchg_alg_applies(a, &t, &o, &err);
            if (a->variants)
                CHECK(rc == 0, "variant %s offered on %s but does not apply: %s", specs[v],
                      tspec, err.msg);
            if (rc) {
                CHECK(rc == XCHG_ENOTAPPLIC || rc == XCHG_EINVAL, "%s: applies code %d", a->name,
                      rc);
                CHECK(err.msg[0] != '\0', "%s on %s refused without a message", a->name, tspec);
                continue;
            }
            run_case(a, specs[v], &o, &t, tspec);
            if (i < 64)
                runs_of[i]++;
        }
    }
}

/* One algorithm spec on one topology, for the sizes too large to run every
 * registry entry on (the size-restricted families start there). */
static void run_only(const char *alg_spec, const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    const xchg_alg *a = NULL;
    xchg_opts o;
    xchg_err err = {{0}};
    int rc = xchg_alg_parse(alg_spec, &a, &o, &err);
    CHECK(rc == 0, "%s: %s", alg_spec, err.msg);
    if (rc)
        return;
    rc = xchg_alg_applies(a, &t, &o, &err);
    CHECK(rc == 0, "%s on %s: %s", alg_spec, tspec, err.msg);
    if (rc)
        return;
    run_case(a, alg_spec, &o, &t, tspec);
    for (size_t i = 0; i < xchg_alg_count() && i < 64; i++)
        if (xchg_alg_at(i) == a)
            runs_of[i]++;
}

/* Fewest topologies an entry must run on here: 10, but the families that
 * apply only to a few sizes (their own test files cover them in depth). */
static unsigned long min_runs(const char *name)
{
    if (strcmp(name, "t1") == 0 || strcmp(name, "t2") == 0)
        return 4; /* torus 4x4, 8x8, 16x16, 32x32 */
    if (strcmp(name, "t1.x") == 0 || strcmp(name, "pt4") == 0)
        return 1; /* t1.1 from 32x32 on; pt4 from 8x8x8x8 on */
    return 10;
}

/* alg_spec must not apply to tspec: code and a word of the message. */
static void refuses(const char *tspec, const char *alg_spec, int code, const char *needle)
{
    xchg_topo t = check_topo(tspec);
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_generate(&t, alg_spec, &s, &err);
    CHECK(rc == code && s == NULL, "%s on %s: got %d want %d", alg_spec, tspec, rc, code);
    CHECK(strstr(err.msg, needle) != NULL, "%s on %s: message '%s' lacks '%s'", alg_spec, tspec,
          err.msg, needle);
    xchg_sched_free(s);
}

int main(void)
{
    char spec[64];
    const char *kinds[] = {"ring", "array", "complete"};
    for (int k = 0; k < 3; k++)
        for (int p = 1; p <= 33; p++) {
            snprintf(spec, sizeof spec, "%s:%d", kinds[k], p);
            run_topology(spec);
        }
    const char *grids[] = {"2x2", "2x3", "3x3", "3x5", "4x4", "5x7", "8x8", "6x10", "2x8",
                           /* at2 (multiples of 4) on 10 shapes */
                           "4x8", "8x12", "12x8", "12x12", "4x16", "16x16", "8x16", "16x20"};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        snprintf(spec, sizeof spec, "mesh:%s", grids[g]);
        run_topology(spec);
        snprintf(spec, sizeof spec, "torus:%s", grids[g]);
        run_topology(spec);
    }
    run_topology("torus:2x2x2");
    /* mt3 (every size a multiple of 6) on 10 shapes, mtk and the rest too */
    const char *tori3[] = {"6x6x6", "12x6x6", "6x12x6", "6x6x12", "18x6x6",
                           "6x18x6", "6x6x18", "12x12x6", "12x6x12", "6x12x12"};
    for (size_t g = 0; g < sizeof tori3 / sizeof tori3[0]; g++) {
        snprintf(spec, sizeof spec, "torus:%s", tori3[g]);
        run_topology(spec);
    }
    run_topology("mesh:3x2x2");
    for (int d = 0; d <= 8; d++) {
        snprintf(spec, sizeof spec, "hypercube:%d", d);
        run_topology(spec);
    }
    /* the smallest sizes of the size-restricted families */
    run_only("t1", "torus:32x32");
    run_only("t2", "torus:32x32");
    run_only("t1.1", "torus:32x32");
    run_only("pt4", "torus:8x8x8x8");
    for (size_t i = 0; i < xchg_alg_count() && i < 64; i++)
        CHECK(runs_of[i] >= min_runs(xchg_alg_at(i)->name), "%s ran on only %lu topologies",
              xchg_alg_at(i)->name, runs_of[i]);

    refuses("ring:9", "mesh2", XCHG_ENOTAPPLIC, "mesh");
    refuses("hypercube:4", "mesh2", XCHG_ENOTAPPLIC, "mesh");
    refuses("mesh:3x3", "ring", XCHG_ENOTAPPLIC, "one-dimensional");
    refuses("hypercube:2", "ring-bidir", XCHG_ENOTAPPLIC, "one-dimensional");
    refuses("ring:6", "hc-standard", XCHG_ENOTAPPLIC, "power-of-two");
    refuses("complete:6", "hc-direct", XCHG_ENOTAPPLIC, "6 nodes");
    refuses("torus:3x5", "hc-standard", XCHG_ENOTAPPLIC, "torus:3x5 has 15 nodes");
    refuses("hypercube:5", "multiphase:2,2", XCHG_ENOTAPPLIC, "d = log2 p = 5");
    refuses("hypercube:3", "multiphase:2,2", XCHG_ENOTAPPLIC, "sum to 4");
    refuses("ring:6", "multiphase:1,1", XCHG_ENOTAPPLIC, "power-of-two");
    refuses("hypercube:5", "multiphase", XCHG_EINVAL, "partition");
    refuses("ring:8", "pairwise:2", XCHG_EINVAL, "takes no options");
    refuses("ring:8", "bruck:0", XCHG_EINVAL, "radix");
    refuses("ring:8", "alltoall", XCHG_EINVAL, "ring-bidir");
    return check_finish("test_conformance");
}
