/*
 * test_hier.c - the node-aware exchange (src/alg/hier.c, src/model/hier.c;
 * docs/hierarchical.md): every composition (gather in the node, the inner
 * schedule between nodes over aggregated blocks, the leaders' exchange,
 * scatter) followed block by block by the one verifier at every ppn from 1
 * to 8 on complete, ring, 2-D torus and hypercube node networks, with every
 * registry algorithm as the inner one and every number of leaders; the
 * model's counts (xchg_hier_line) held to the composition's declared steps;
 * the flat line at ppn 1 held to the cost model's; the worked example of
 * docs/hierarchical.md; the planner's candidates with ppn; the refusals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A machine with every figure set, distinct, so a wrong count shows. */
static xchg_machine test_machine(void)
{
    xchg_machine m = check_machine(10.0, 0.5);
    m.tr = 0.25;
    m.barrier = 7.0;
    m.ts_node = 3.0;
    m.tw_node = 0.125;
    return m;
}

/* Declared counts of s: non-empty steps, volume, copies. */
static void declared(const xchg_sched *s, uint64_t *startups, uint64_t *volume,
                     uint64_t *copies)
{
    *startups = *volume = *copies = 0;
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++) {
        uint64_t mb = xchg_sched_step_max_blocks(s, k);
        *startups += mb > 0;
        *volume += mb;
        *copies += xchg_sched_copy_blocks(s, k);
    }
}

/* Compose variant L over inner on t with ppn K, verify it block by block,
 * and hold xchg_hier_line's counts to its declared steps. */
static void one_case(const xchg_topo *t, const char *tspec, uint32_t K, uint32_t L,
                     const char *inner)
{
    char spec[XCHG_SPEC_MAX], what[160];
    if (L == 1)
        snprintf(spec, sizeof spec, "leader:%.50s", inner);
    else if (L == K)
        snprintf(spec, sizeof spec, "pairs:%.50s", inner);
    else
        snprintf(spec, sizeof spec, "leaders:%u:%.40s", (unsigned)L, inner);
    snprintf(what, sizeof what, "%s on %s, ppn %u", spec, tspec, (unsigned)K);
    xchg_sched *s = NULL, *in = NULL;
    xchg_err err = {{0}};
    int rc = xchg_hier_generate(t, K, spec, &s, &err);
    CHECK(rc == 0, "%s: generate: %s", what, err.msg);
    if (rc)
        return;
    CHECK_EQ_U64(xchg_sched_topo(s)->nodes, t->nodes * K, what);
    xchg_verify_report rep;
    check_verify_clean(s, what, &rep);
    /* the model counts the same steps */
    if (xchg_generate(t, inner, &in, &err) == 0) {
        xchg_machine m = test_machine();
        xchg_line il, hl;
        CHECK(xchg_cost_line(in, &m, NULL, &il, &err) == 0, "%s: inner line", what);
        CHECK(xchg_hier_line(&il, t, K, L, &m, 0, &hl, &err) == 0, "%s: line: %s", what,
              err.msg);
        uint64_t su, vol, cp;
        declared(s, &su, &vol, &cp);
        CHECK_EQ_U64(xchg_sched_nsteps(s), hl.steps, what);
        CHECK_EQ_U64(su, il.startups + hl.node_startups, what);
        CHECK_EQ_U64(vol, hl.node_volume_blocks + hl.volume_blocks / L, what);
        CHECK_EQ_U64(cp, hl.copy_blocks, what);
        CHECK_EQ_U64(rep.startups, su, what);
        CHECK_EQ_U64(rep.volume_blocks, vol, what);
        xchg_sched_free(in);
    }
    xchg_sched_free(s);
}

/* Every registry algorithm of the complete exchange that applies to tspec,
 * at every ppn in [k_lo, k_hi] and every L dividing it. */
static void compositions(const char *tspec, uint32_t k_lo, uint32_t k_hi)
{
    xchg_topo t = check_topo(tspec);
    int algs = 0;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a->op != XCHG_OP_ALLTOALL)
            continue;
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&t, a, specs, XCHG_MAX_VARIANTS, NULL);
        /* every variant of the first kind, the first one of the others:
         * what the composition does not depend on is the inner's options */
        for (int v = 0; v < n && v < 2; v++, algs++)
            for (uint32_t K = k_lo; K <= k_hi; K++)
                for (uint32_t L = 1; L <= K; L++)
                    if (K % L == 0)
                        one_case(&t, tspec, K, L, specs[v]);
    }
    CHECK(algs > 0, "some algorithm applies to %s", tspec);
}

/* The worked example of docs/hierarchical.md: leader:pairwise and
 * pairs:pairwise on complete:4 nodes of 4 ranks, machine of the page. */
static void worked_example(void)
{
    xchg_topo t = check_topo("complete:4");
    xchg_machine m = check_machine(10.0, 0.01);
    m.tr = 0.001;
    m.ts_node = 1.0;
    m.tw_node = 0.002;
    xchg_sched *in = check_generate("complete:4", "pairwise");
    if (!in)
        return;
    xchg_line il, lead, pairs, l2;
    CHECK(xchg_cost_line(in, &m, NULL, &il, NULL) == 0, "pairwise line");
    CHECK_EQ_U64(il.startups, 3, "pairwise on 4 nodes: start-ups");
    CHECK_EQ_U64(il.volume_blocks, 3, "pairwise on 4 nodes: volume");
    CHECK(xchg_hier_line(&il, &t, 4, 1, &m, 0, &lead, NULL) == 0, "leader line");
    CHECK(xchg_hier_line(&il, &t, 4, 4, &m, 0, &pairs, NULL) == 0, "pairs line");
    CHECK(xchg_hier_line(&il, &t, 4, 2, &m, 0, &l2, NULL) == 0, "leaders:2 line");
    /* leader: 3 start-ups; 48 blocks; copies 2*4*16 = 128; gather and
     * scatter 3 + 3 node start-ups of 16 blocks */
    CHECK_EQ_U64(lead.startups, 3, "leader start-ups");
    CHECK_EQ_U64(lead.link_volume_blocks, 48, "leader volume");
    CHECK_EQ_U64(lead.copy_blocks, 128, "leader copies");
    CHECK_EQ_U64(lead.node_startups, 6, "leader node start-ups");
    CHECK_EQ_U64(lead.node_volume_blocks, 96, "leader node volume");
    CHECK(fabs(lead.fixed - 36.0) < 1e-9, "leader fixed %g, want 36", lead.fixed);
    CHECK(fabs(lead.per_unit - 0.8) < 1e-9, "leader per_unit %g, want 0.8", lead.per_unit);
    CHECK(fabs(xchg_line_time(&lead, 64) - 87.2) < 1e-9, "leader at 64 B: %g, want 87.2",
          xchg_line_time(&lead, 64));
    /* pairs: 4 lanes x 3 start-ups; 48 blocks; copies 16; 3 node start-ups
     * of 4 blocks */
    CHECK_EQ_U64(pairs.startups, 12, "pairs start-ups");
    CHECK_EQ_U64(pairs.link_volume_blocks, 48, "pairs volume");
    CHECK_EQ_U64(pairs.copy_blocks, 16, "pairs copies");
    CHECK_EQ_U64(pairs.node_startups, 3, "pairs node start-ups");
    CHECK_EQ_U64(pairs.node_volume_blocks, 12, "pairs node volume");
    CHECK(fabs(pairs.fixed - 123.0) < 1e-9, "pairs fixed %g, want 123", pairs.fixed);
    CHECK(fabs(pairs.per_unit - 0.52) < 1e-9, "pairs per_unit %g, want 0.52", pairs.per_unit);
    /* leaders:2: 6 start-ups; copies 3*32 = 96; node 1+1+1 start-ups,
     * 16+16+16 blocks */
    CHECK_EQ_U64(l2.startups, 6, "leaders:2 start-ups");
    CHECK_EQ_U64(l2.copy_blocks, 96, "leaders:2 copies");
    CHECK_EQ_U64(l2.node_startups, 3, "leaders:2 node start-ups");
    CHECK_EQ_U64(l2.node_volume_blocks, 48, "leaders:2 node volume");
    /* flat pairwise on complete:16 hosted 4 a node: 15 steps, rank r
     * with r XOR s at step s (p a power of two): steps 1-3 stay in the
     * node (one block), steps 4-15 send 4 messages of 1 block out of
     * every node */
    xchg_sched *flat = check_generate("complete:16", "pairwise");
    if (flat) {
        xchg_line fl;
        CHECK(xchg_flat_line(flat, &t, 4, &m, NULL, &fl, NULL) == 0, "flat line");
        CHECK_EQ_U64(fl.startups, 48, "flat start-ups (4 a step)");
        CHECK_EQ_U64(fl.link_volume_blocks, 48, "flat volume");
        CHECK_EQ_U64(fl.node_startups, 3, "flat node start-ups");
        CHECK_EQ_U64(fl.node_volume_blocks, 3, "flat node volume");
        CHECK(fabs(fl.fixed - 483.0) < 1e-9, "flat fixed %g, want 483", fl.fixed);
        xchg_sched_free(flat);
    }
    xchg_sched_free(in);
}

/* At ppn 1 the flat line of a schedule on the node network is the cost
 * model's measured line. */
static void flat_is_plain(const char *tspec, const char *alg)
{
    xchg_sched *s = check_generate(tspec, alg);
    if (!s)
        return;
    xchg_topo t = check_topo(tspec);
    xchg_machine m = test_machine();
    m.barrier = 0;
    xchg_verify_opts vo = {.messages_only = 1};
    xchg_verify_report rep;
    CHECK(xchg_verify(s, &vo, &rep, NULL) == 0, "messages-only check");
    xchg_line_opts lo = {.report = &rep};
    xchg_line a, b;
    CHECK(xchg_cost_line(s, &m, &lo, &a, NULL) == 0, "line");
    CHECK(xchg_flat_line(s, &t, 1, &m, NULL, &b, NULL) == 0, "flat line");
    char what[96];
    snprintf(what, sizeof what, "%s on %s at ppn 1", alg, tspec);
    CHECK_EQ_U64(b.startups, a.startups, what);
    CHECK_EQ_U64(b.link_volume_blocks, a.link_volume_blocks, what);
    CHECK_EQ_U64(b.copy_blocks, a.copy_blocks, what);
    CHECK(fabs(b.fixed - a.fixed) < 1e-9 && fabs(b.per_unit - a.per_unit) < 1e-9,
          "%s: %g + %g m against %g + %g m", what, b.fixed, b.per_unit, a.fixed, a.per_unit);
    xchg_sched_free(s);
}

/* The planner with ppn: flat and node-aware candidates on one line. */
static void planner(void)
{
    xchg_topo t = check_topo("torus:4x4");
    xchg_machine m;
    CHECK(xchg_machine_preset("paragon", 16, &m, NULL) == 0, "preset");
    CHECK(m.ts_node == m.ts && m.tw_node == m.tr, "preset's intra-node defaults");
    xchg_plan_opts po = {.ppn = 4};
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_plan_sweep(&t, &m, 8, 65536, &po, &sw, &err) == 0, "sweep: %s", err.msg);
    if (!sw)
        return;
    int flat = 0, leader = 0, leaders = 0, pairs = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++) {
        const char *a = xchg_sweep_candidate(sw, i)->alg;
        leader += strncmp(a, "leader:", 7) == 0;
        leaders += strncmp(a, "leaders:2:", 10) == 0;
        pairs += strncmp(a, "pairs:", 6) == 0;
        flat += strchr(a, ':') == NULL || strncmp(a, "bruck:", 6) == 0;
    }
    CHECK(flat > 0 && leader > 0 && leaders > 0 && pairs > 0,
          "candidates: flat %d, leader %d, leaders:2 %d, pairs %d", flat, leader, leaders,
          pairs);
    CHECK(leader == pairs && leader == leaders, "one of each variant per inner");
    size_t w = xchg_sweep_best_at(sw, 8);
    CHECK(w != XCHG_NO_WINNER, "a winner at 8 B");
    /* at small blocks one leader a node pays fewest start-ups on the Paragon */
    if (w != XCHG_NO_WINNER)
        CHECK(strncmp(xchg_sweep_candidate(sw, w)->alg, "leader:", 7) == 0,
              "winner at 8 B: %s", xchg_sweep_candidate(sw, w)->alg);
    xchg_sweep_free(sw);
    /* another operation is refused */
    po.op = XCHG_OP_BCAST;
    CHECK(xchg_plan_sweep(&t, &m, 8, 8, &po, &sw, &err) == XCHG_EINVAL, "bcast with ppn");
    CHECK(strstr(err.msg, "complete exchange only") != NULL, "message: %s", err.msg);
}

/* Specs that are refused, and the ones that are not node-aware. */
static void parsing(void)
{
    xchg_hier h;
    xchg_err err = {{0}};
    CHECK(xchg_hier_parse("leader", 4, &h, &err) == 1 && h.leaders == 1 &&
              strcmp(h.inner, "auto") == 0,
          "leader is leader:auto");
    CHECK(xchg_hier_parse("leaders:2:bruck:3", 4, &h, &err) == 1 && h.leaders == 2 &&
              strcmp(h.inner, "bruck:3") == 0,
          "leaders:2:bruck:3");
    CHECK(xchg_hier_parse("pairs:t2", 8, &h, &err) == 1 && h.leaders == 8, "pairs:t2");
    CHECK(xchg_hier_parse("pairwise", 4, &h, &err) == 0, "pairwise is flat");
    CHECK(xchg_hier_parse("leaderx", 4, &h, &err) == 0, "leaderx is not a variant");
    CHECK(xchg_hier_parse("leaders:3", 8, &h, &err) == XCHG_EINVAL, "3 does not divide 8");
    CHECK(strstr(err.msg, "divisor") != NULL, "message: %s", err.msg);
    CHECK(xchg_hier_parse("leaders", 8, &h, &err) == XCHG_EINVAL, "leaders without L");
    CHECK(xchg_hier_parse("leaders:0:ring", 8, &h, &err) == XCHG_EINVAL, "leaders:0");
    CHECK(xchg_hier_parse("leader:", 8, &h, &err) == XCHG_EINVAL, "leader: empty");
    xchg_topo t = check_topo("ring:4");
    xchg_sched *s = NULL;
    CHECK(xchg_hier_generate(&t, 2, "leader", &s, &err) == XCHG_EINVAL && !s,
          "the composition needs X named");
    CHECK(xchg_hier_generate(&t, 2, "leader:t2", &s, &err) == XCHG_ENOTAPPLIC && !s,
          "t2 does not apply to ring:4: %s", err.msg);
    CHECK(xchg_hier_generate(&t, 1u << 23, "leader:ring", &s, &err) == XCHG_EINVAL && !s,
          "too many ranks");
    xchg_line l;
    memset(&l, 0, sizeof l);
    xchg_machine m = test_machine();
    CHECK(xchg_hier_line(&l, &t, 4, 3, &m, 0, &l, &err) == XCHG_EINVAL, "3 leaders of 4");
    m.ts_node = -1;
    CHECK(xchg_hier_line(&l, &t, 4, 2, &m, 0, &l, &err) == XCHG_EINVAL, "ts_node < 0");
}

int main(void)
{
    parsing();
    worked_example();
    compositions("complete:1", 1, 8);
    compositions("complete:3", 1, 8);
    compositions("complete:4", 1, 8);
    compositions("ring:4", 1, 8);
    compositions("ring:5", 1, 8);
    compositions("torus:2x3", 1, 8);
    compositions("torus:4x4", 1, 4);
    compositions("hypercube:2", 1, 8);
    compositions("hypercube:3", 1, 8);
    flat_is_plain("torus:4x4", "pairwise");
    flat_is_plain("torus:4x4", "bruck:2");
    flat_is_plain("torus:4x4", "mesh2");
    flat_is_plain("ring:6", "ring");
    flat_is_plain("hypercube:3", "hc-direct");
    flat_is_plain("complete:8", "pairwise");
    planner();
    return check_finish("test_hier");
}
