/*
 * test_conformance.c - every registry entry, and each of its variants, over
 * many topologies, held to what its registry entry declares. Nothing here
 * names an algorithm except the refusal messages checked at the end: a new
 * entry is tested by adding it to the registry.
 *
 * On every topology, for every entry:
 *   - the declared needs agree with applies, both ways: where the needs
 *     refuse, every spec the entry offers is refused with the declared
 *     message (and a variants hook offers nothing); where they accept, every
 *     offered spec applies, and an entry without an applies hook offers one;
 * and where a spec applies:
 *   - the schedule passes the verifier, and its contention-free claim is the
 *     declared one (xchg_alg_claims_free), which the verifier then holds;
 *   - three counts agree: what the verifier counted by following every
 *     block, what the cost model reads from the declared sizes, and the
 *     closed-form formula (start-ups, volume, and the local copies);
 *   - where an entry's size rule refuses t and "virtual" lifts it, the one
 *     variant enumeration (xchg_alg_variants) offers "name:virtual" alone,
 *     and it is run like the rest, its counts held to the verifier's;
 *   - the in-place declaration holds: following every block with the public
 *     API (small topologies) and the declared sizes (all), no node holds
 *     more than p blocks after any step when in_place is declared, and an
 *     entry declared not in place exceeds p somewhere (the complete
 *     exchange's entries; the other operations' messages are not counted
 *     in tokens, so only their verifier, cost and formula counts are held).
 * The fewest runs each entry must make come from its needs: WALK_RUNS, or
 * as many topologies as its needs accept. Entries whose needs accept fewer
 * than that also run on a few larger topologies. Finally, preconditions
 * refuse what they must, with messages that say why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xchg.h"

/* Runs an entry must make on the topologies below, unless its declared
 * needs accept fewer of them. */
#define WALK_RUNS 10
/* Most block-steps (p*p*steps) followed block by block for the in-place
 * check; larger runs are checked from the declared sizes only. */
#define FOLLOW_BUDGET (1u << 20)
#define MAX_ALGS 64

/* Per registry entry: variant runs, topologies its needs accept, runs that
 * claimed contention-freedom, and runs where a node held more than p. */
static unsigned long runs_of[MAX_ALGS], accepted_of[MAX_ALGS], claimed_of[MAX_ALGS],
    over_p_of[MAX_ALGS], padded_of[MAX_ALGS];

/*
 * Most blocks any node holds after any step of s, from the declared sizes:
 * a node that sends a message of b blocks loses b, its partner gains b (the
 * verifier checks that the sizes are what the node holds and selects). When
 * held is not NULL, it gets the count of every node after every step
 * (steps*p entries).
 */
static uint64_t most_held_by_sizes(const xchg_sched *s, uint64_t *held)
{
    uint32_t p = xchg_sched_topo(s)->nodes;
    size_t steps = xchg_sched_nsteps(s);
    uint64_t *now = malloc((size_t)p * sizeof *now), most = p;
    if (!now) {
        CHECK(0, "out of memory");
        return 0;
    }
    for (uint32_t n = 0; n < p; n++)
        now[n] = p;
    for (size_t k = 0; k < steps; k++) {
        for (uint32_t n = 0; n < p; n++) {
            xchg_msg m;
            xchg_sched_message(s, k, n, &m);
            if (m.to == XCHG_NONE || m.to >= p)
                continue;
            now[n] -= m.blocks;
            now[m.to] += m.blocks;
        }
        for (uint32_t n = 0; n < p; n++) {
            if (now[n] > most)
                most = now[n];
            if (held)
                held[k * p + n] = now[n];
        }
    }
    free(now);
    return most;
}

/*
 * Follow every block of s with the public API (where each block is after
 * every step) and check that every node holds what the declared sizes say
 * (most_held_by_sizes). what names the case in failures.
 */
static void follow_held(const xchg_sched *s, const char *what)
{
    uint32_t p = xchg_sched_topo(s)->nodes;
    size_t steps = xchg_sched_nsteps(s);
    uint32_t *at = malloc((size_t)p * p * sizeof *at), *to = malloc((size_t)p * sizeof *to);
    uint64_t *count = malloc((size_t)p * sizeof *count);
    uint64_t *want = malloc((steps ? steps : 1) * (size_t)p * sizeof *want);
    if (!at || !to || !count || !want) {
        CHECK(0, "out of memory");
        free(at), free(to), free(count), free(want);
        return;
    }
    most_held_by_sizes(s, want);
    for (size_t b = 0; b < (size_t)p * p; b++)
        at[b] = (uint32_t)(b / p);
    for (size_t k = 0; k < steps; k++) {
        for (uint32_t n = 0; n < p; n++) {
            xchg_msg m;
            xchg_sched_message(s, k, n, &m);
            to[n] = m.to;
            count[n] = 0;
        }
        /* a block moves at most once a step: its holder's rule decides */
        for (size_t b = 0; b < (size_t)p * p; b++) {
            uint32_t n = at[b];
            if (to[n] < p && xchg_sched_selects(s, k, n, (uint32_t)(b / p), (uint32_t)(b % p)))
                at[b] = to[n];
            count[at[b]]++;
        }
        for (uint32_t n = 0; n < p; n++)
            if (count[n] != want[k * p + n]) {
                CHECK(0, "%s: after step %zu node %u holds %llu blocks, the sizes say %llu",
                      what, k, n, (unsigned long long)count[n],
                      (unsigned long long)want[k * p + n]);
                k = steps;
                break;
            }
    }
    free(at), free(to), free(count), free(want);
}

/* One (spec, topology) case where entry i applies. */
static void run_case(size_t i, const char *spec, const xchg_opts *o, const xchg_topo *t,
                     const char *tspec)
{
    const xchg_alg *a = xchg_alg_at(i);
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_alg_generate(a, t, o, &s, &err);
    CHECK(rc == 0 && s, "%s on %s: generate %d %s", spec, tspec, rc, err.msg);
    if (rc || !s)
        return;
    runs_of[i]++;
    CHECK(strcmp(xchg_sched_algorithm(s), spec) == 0, "%s on %s: schedule names itself %s",
          spec, tspec, xchg_sched_algorithm(s));

    CHECK(xchg_sched_contention_free(s) == xchg_alg_claims_free(a, t),
          "%s on %s: contention-free claim %d, declared %d", spec, tspec,
          xchg_sched_contention_free(s), xchg_alg_claims_free(a, t));
    claimed_of[i] += xchg_sched_contention_free(s) != 0;

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
        xchg_op op;
        xchg_sched_op(s, &op);
        CHECK_EQ_U64(op.kind, a->op, "the schedule's operation is its entry's");
        uint64_t tokens = 0; /* every phase's */
        for (size_t k = 0; k < xchg_sched_nphases(s); k++) {
            xchg_op ph;
            size_t from, upto;
            xchg_sched_phase(s, k, &ph, &from, &upto);
            for (uint32_t x = 0; x < t->nodes; x++)
                for (uint32_t y = 0; y < t->nodes; y++)
                    tokens += xchg_op_has_token(&ph, t->nodes, x, y) != 0;
        }
        CHECK_EQ_U64(rep.blocks, tokens, "blocks (tokens) followed");
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
    if (o->virtual_nodes) {
        /* hosted: no closed form, so the cost model's counts are held to
         * the verifier's (copies: none is declared for hosting) */
        CHECK(frc == XCHG_ENOTAPPLIC, "%s on %s: a closed form for a hosted schedule (%d)",
              spec, tspec, frc);
        f.startups = rep.startups;
        f.volume_blocks = rep.volume_blocks;
        f.copy_blocks = cost.copy_blocks;
    } else {
        CHECK(frc == 0, "%s on %s: formula refused (%d)", spec, tspec, frc);
    }

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

    /* in place: the sizes say what every node holds (the verifier checked
     * them); on small runs the blocks, followed one by one, must agree.
     * Only for the complete exchange: the other operations' sizes count
     * blocks made of several tokens (docs/operations.md). */
    if (a->op != XCHG_OP_ALLTOALL) {
        xchg_sched_free(s);
        return;
    }
    uint64_t most = most_held_by_sizes(s, NULL);
    over_p_of[i] += most > t->nodes;
    if (xchg_alg_in_place(a, o))
        CHECK(most <= t->nodes, "%s on %s: declared in place, but a node holds %llu blocks "
              "(p = %u)", spec, tspec, (unsigned long long)most, (unsigned)t->nodes);
    snprintf(what, sizeof what, "%.63s on %.63s", spec, tspec);
    if ((uint64_t)t->nodes * t->nodes * (xchg_sched_nsteps(s) + 1) <= FOLLOW_BUDGET)
        follow_held(s, what);
    xchg_sched_free(s);
}

/*
 * Entry i on topology t: check its declared needs against applies (both
 * ways, see the file comment) and run every spec that applies. Returns
 * nonzero when the needs accept t.
 */
static int run_entry(size_t i, const xchg_topo *t, const char *tspec)
{
    const xchg_alg *a = xchg_alg_at(i);
    xchg_err derr = {{0}};
    int declared = xchg_needs_check(&a->needs, a->name, t, NULL, &derr) == XCHG_OK;
    xchg_spec specs[XCHG_MAX_VARIANTS];
    int n = 1;
    if (a->variants) {
        n = a->variants(t, specs, XCHG_MAX_VARIANTS);
        CHECK(n >= 0 && n <= XCHG_MAX_VARIANTS, "%s on %s: %d variants", a->name, tspec, n);
        if (n > XCHG_MAX_VARIANTS)
            n = XCHG_MAX_VARIANTS;
        if (!declared)
            CHECK(n <= 0, "%s offers %d variants on %s, which its needs refuse (%s)", a->name,
                  n, tspec, derr.msg);
        else if (!a->applies)
            CHECK(n >= 1, "%s offers no variant on %s, which its needs accept", a->name,
                  tspec);
    } else {
        snprintf(specs[0], sizeof specs[0], "%s", a->name);
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
        rc = xchg_alg_applies(a, t, &o, &err);
        if (a->variants)
            CHECK(rc == 0, "variant %s offered on %s but does not apply: %s", specs[v], tspec,
                  err.msg);
        if (!declared)
            CHECK(rc == XCHG_ENOTAPPLIC && strcmp(err.msg, derr.msg) == 0,
                  "%s on %s: the needs refuse (%s) but applies says %d (%s)", specs[v], tspec,
                  derr.msg, rc, err.msg);
        else if (!a->applies)
            CHECK(rc == 0, "%s on %s: the needs accept, applies refuses: %s", specs[v], tspec,
                  err.msg);
        if (rc) {
            CHECK(rc == XCHG_ENOTAPPLIC || rc == XCHG_EINVAL, "%s: applies code %d", a->name,
                  rc);
            CHECK(err.msg[0] != '\0', "%s on %s refused without a message", a->name, tspec);
            continue;
        }
        run_case(i, specs[v], &o, t, tspec);
    }
    /* The padded spec the one enumeration adds where no plain one applies
     * (compare and plan rank it): verified, its claim held, like every run. */
    int nall = xchg_alg_variants(t, a, specs, XCHG_MAX_VARIANTS, NULL);
    for (int v = 0; v < nall; v++) {
        const xchg_alg *pa = NULL;
        xchg_opts o;
        if (xchg_alg_parse(specs[v], &pa, &o, NULL) != 0 || !o.virtual_nodes)
            continue;
        CHECK(!declared && nall == 1 && a->needs.virtual_any_size,
              "%s offered on %s, where the plain sizes fit or other specs apply", specs[v],
              tspec);
        padded_of[i]++;
        run_case(i, specs[v], &o, t, tspec);
    }
    return declared;
}

/* Every entry and variant on the topology tspec; counts what the needs
 * accept. */
static void run_topology(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count() && i < MAX_ALGS; i++)
        accepted_of[i] += run_entry(i, &t, tspec) != 0;
}

/*
 * A topology too large to run every entry on: only the entries whose needs
 * accepted fewer than WALK_RUNS topologies so far run there (the smallest
 * sizes of the size-restricted families).
 */
static void run_large(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count() && i < MAX_ALGS; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (accepted_of[i] >= WALK_RUNS ||
            xchg_needs_check(&a->needs, a->name, &t, NULL, NULL) != XCHG_OK)
            continue;
        accepted_of[i] += run_entry(i, &t, tspec) != 0;
    }
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
    CHECK(xchg_alg_count() <= MAX_ALGS, "more than %d registry entries", MAX_ALGS);
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
    /* a 4-D torus pt4 pads (to 8x8x8x8) */
    run_topology("torus:2x2x2x2");
    for (int d = 0; d <= 8; d++) {
        snprintf(spec, sizeof spec, "hypercube:%d", d);
        run_topology(spec);
    }
    /* a balanced binary tree: processors at the leaves, switches inside */
    for (int d = 0; d <= 8; d++) {
        snprintf(spec, sizeof spec, "tree:%d", d);
        run_topology(spec);
    }
    /* the smallest sizes of the size-restricted families (2^5 x 2^5 tori,
     * 4-D tori of multiples of 8) */
    run_large("torus:32x32");
    run_large("torus:8x8x8x8");

    for (size_t i = 0; i < xchg_alg_count() && i < MAX_ALGS; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        unsigned long need = accepted_of[i] < WALK_RUNS ? accepted_of[i] : WALK_RUNS;
        CHECK(accepted_of[i] > 0, "%s: its needs accept none of the conformance topologies",
              a->name);
        CHECK(runs_of[i] >= need, "%s ran on only %lu topologies (its needs accept %lu)",
              a->name, runs_of[i], accepted_of[i]);
        CHECK(claimed_of[i] > 0, "%s never claims contention-freedom here (declared on %#x)",
              a->name, a->free_on);
        if (a->needs.virtual_any_size)
            CHECK(padded_of[i] > 0, "%s:virtual is never offered here", a->name);
        if (!a->in_place && a->op == XCHG_OP_ALLTOALL)
            CHECK(over_p_of[i] > 0, "%s is declared not in place, but no node ever held more "
                  "than p blocks in its %lu runs", a->name, runs_of[i]);
    }

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
