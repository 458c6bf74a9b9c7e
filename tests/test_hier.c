/*
 * test_hier.c - the node-aware exchange (src/alg/hier.c, src/model/hier.c;
 * docs/hierarchical.md): every composition (gather in the node, the inner
 * schedule between nodes over aggregated blocks, the leaders' exchange,
 * scatter) followed block by block by the one verifier at every ppn from 1
 * to 8 on complete, ring, 2-D torus and hypercube node networks, with every
 * registry algorithm as the inner one and every number of leaders; the
 * model's counts (xchg_hier_line) held to the composition's declared steps;
 * aggregate (locality-aware aggregation) verified at every ppn from 1 to 8
 * on N = 1 .. 17 nodes (N < K, N a multiple of K or not), its messages
 * between nodes held to one of K*K blocks for every ordered node pair and
 * its line's counts (xchg_aggregate_line) to the schedule's, its link
 * volume to the routes walked here; the flat line at ppn 1 held to the
 * cost model's; the lanes' and the flat ranks' start-ups side by side
 * (one lane's, one a step that leaves the node); the worked examples of
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

/*
 * aggregate on tspec's N nodes with K ranks a node: the composition
 * verified block by block; its messages between nodes are one of K*K
 * blocks for every ordered pair of nodes, from (n, b mod K) to
 * (b, n mod K), at most one a rank a step and O = ceil(N/K) a rank in
 * all; every other message stays in its node; and xchg_aggregate_line
 * counts the schedule's steps, start-ups, volumes and copies.
 */
static void agg_case(const char *tspec, uint32_t K)
{
    char what[96];
    snprintf(what, sizeof what, "aggregate on %s, ppn %u", tspec, (unsigned)K);
    xchg_topo t = check_topo(tspec);
    uint32_t N = t.nodes, p = N * K, O = (N + K - 1) / K;
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_hier_generate(&t, K, "aggregate", &s, &err);
    CHECK(rc == 0, "%s: generate: %s", what, err.msg);
    if (rc)
        return;
    CHECK_EQ_U64(xchg_sched_topo(s)->nodes, p, what);
    xchg_verify_report rep;
    check_verify_clean(s, what, &rep);
    /* the messages, walked */
    unsigned char *pair = calloc((size_t)N * N, 1);
    uint32_t *sent = calloc(p, sizeof *sent);
    uint64_t between_steps = 0, between_volume = 0, bad = 0, port_out0 = 0;
    for (size_t k = 0; pair && sent && k < xchg_sched_nsteps(s); k++) {
        int between = 0;
        for (uint32_t r = 0; r < p; r++) {
            xchg_msg m;
            xchg_sched_message(s, k, r, &m);
            if (m.to == XCHG_NONE)
                continue;
            uint32_t n = r / K, b = m.to / K;
            if (n == b)
                continue; /* within the node: the verifier has followed it */
            between = 1;
            sent[r]++;
            pair[(size_t)n * N + b]++;
            port_out0 += n == 0 ? m.blocks : 0;
            bad += m.blocks != (uint64_t)K * K || r % K != b % K || m.to % K != n % K;
        }
        between_steps += between;
        between_volume += between ? (uint64_t)K * K : 0;
        if (between) /* no message within a node in a step between nodes */
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, k), (uint64_t)K * K, what);
    }
    CHECK(pair && sent, "%s: memory", what);
    CHECK_EQ_U64(bad, 0, what);
    for (uint32_t n = 0; pair && n < N; n++)
        for (uint32_t b = 0; b < N; b++)
            CHECK(pair[(size_t)n * N + b] == (n != b), "%s: %u messages from node %u to %u",
                  what, (unsigned)pair[(size_t)n * N + b], (unsigned)n, (unsigned)b);
    uint32_t most = 0;
    for (uint32_t r = 0; sent && r < p; r++)
        most = sent[r] > most ? sent[r] : most;
    CHECK(most <= O, "%s: a rank sends %u messages between nodes, more than O = %u", what,
          (unsigned)most, (unsigned)O);
    free(pair);
    free(sent);
    /* the model counts the same */
    xchg_machine m = test_machine();
    xchg_line l;
    CHECK(xchg_aggregate_line(&t, K, &m, NULL, &l, &err) == 0, "%s: line: %s", what, err.msg);
    uint64_t su, vol, cp;
    declared(s, &su, &vol, &cp);
    CHECK_EQ_U64(xchg_sched_nsteps(s), l.steps, what);
    CHECK_EQ_U64(su, l.startups + l.node_startups, what);
    CHECK_EQ_U64(between_steps, l.startups, what);
    CHECK_EQ_U64(vol, l.node_volume_blocks + between_volume, what);
    CHECK_EQ_U64(port_out0, l.volume_blocks, what);
    CHECK_EQ_U64(cp, l.copy_blocks, what);
    CHECK_EQ_U64(rep.startups, su, what);
    CHECK_EQ_U64(rep.volume_blocks, vol, what);
    /* the formulas themselves, at the edges too */
    CHECK_EQ_U64(l.startups, N == 1 ? 0 : K == 1 ? N - 1 : O, what);
    CHECK_EQ_U64(l.volume_blocks, (uint64_t)(N - 1) * K * K, what);
    CHECK_EQ_U64(l.copy_blocks, p > 1 ? 4 * (uint64_t)p : 0, what);
    CHECK_EQ_U64(l.node_startups, (uint64_t)(K - 1) * (N > 1 ? 2 : 1), what);
    CHECK(fabs(l.fixed - ((double)l.startups * m.ts + (double)l.node_startups * m.ts_node)) <
              1e-9,
          "%s: fixed %g", what, l.fixed);
    CHECK(fabs(l.per_unit - ((double)l.link_volume_blocks * m.tw +
                             (double)l.copy_blocks * m.tr +
                             (double)l.node_volume_blocks * m.tw_node)) < 1e-9,
          "%s: per_unit %g", what, l.per_unit);
    xchg_line_opts lo = {.with_barrier = 1};
    xchg_line lb;
    CHECK(xchg_aggregate_line(&t, K, &m, &lo, &lb, &err) == 0, "%s: barrier line", what);
    CHECK(fabs(lb.fixed - l.fixed - (double)l.startups * m.barrier) < 1e-9,
          "%s: a barrier per start-up between nodes: %g against %g", what, lb.fixed, l.fixed);
    xchg_sched_free(s);
}

/* aggregate at every ppn from 1 to 8 on complete:N for N = 1 .. 17 (N
 * below, at, above K, a multiple of it or not), and on networks with
 * links (the same composition; the link volume is measured). */
static void aggregates(void)
{
    for (uint32_t K = 1; K <= 8; K++)
        for (uint32_t N = 1; N <= 17; N++) {
            char tspec[32];
            snprintf(tspec, sizeof tspec, "complete:%u", (unsigned)N);
            agg_case(tspec, K);
        }
    static const char *const nets[] = {"ring:5", "torus:2x3", "torus:4x4", "hypercube:3",
                                       "array:6", "mesh:3x4"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
        for (uint32_t K = 1; K <= 5; K++)
            agg_case(nets[i], K);
}

/* The most node pairs whose shortest route crosses one directed link of
 * tspec, every pair's route walked (the model walks fewer where the
 * network looks the same from every node). */
static uint64_t busiest_link(const xchg_topo *t)
{
    size_t nlinks = xchg_topo_link_count(t);
    uint64_t *load = calloc(nlinks + 1, sizeof *load), most = 0;
    for (uint32_t n = 0; load && n < t->nodes; n++)
        for (uint32_t b = 0; b < t->nodes; b++) {
            xchg_seg segs[2 * XCHG_MAX_DIMS];
            int nsegs = 0;
            if (b == n)
                continue;
            xchg_topo_route(t, n, b, XCHG_ROUTE_SHORTEST, segs, &nsegs);
            uint32_t at = n;
            for (int i = 0; i < nsegs; i++)
                for (uint32_t h = 0; h < segs[i].hops; h++) {
                    size_t id = xchg_topo_link_id(t, at, segs[i].dim, segs[i].dir);
                    if (id < nlinks && ++load[id] > most)
                        most = load[id];
                    at = xchg_topo_neighbor(t, at, segs[i].dim, segs[i].dir);
                }
        }
    free(load);
    return most;
}

/* aggregate's link volume: the port's (N-1)*K*K, or K*K times the busiest
 * link's node pairs where that is more (a ring of 8: 1+2+3+4 = 10 pairs on
 * each link going up; an array of 8: 4*4 across the middle); measured on
 * networks with links, claimed on complete; unmeasured over max_work. */
static void aggregate_links(void)
{
    static const struct {
        const char *topo;
        uint64_t pairs; /* busiest link's node pairs, 0: not checked here */
    } nets[] = {{"ring:8", 10},   {"array:8", 16},   {"ring:5", 0},      {"torus:3x4", 0},
                {"torus:4x4", 12}, {"torus:2x2x3", 0}, {"hypercube:4", 8}, {"mesh:3x4", 0},
                {"mesh:4x4x2", 0}, {"tree:3", 0}};
    xchg_machine m = test_machine();
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        xchg_topo t = check_topo(nets[i].topo);
        uint64_t most = busiest_link(&t), K = 3, N = t.nodes;
        if (nets[i].pairs)
            CHECK_EQ_U64(most, nets[i].pairs, nets[i].topo);
        xchg_line l;
        CHECK(xchg_aggregate_line(&t, (uint32_t)K, &m, NULL, &l, NULL) == 0, "%s line",
              nets[i].topo);
        uint64_t want = most > N - 1 ? most * K * K : (N - 1) * K * K;
        CHECK_EQ_U64(l.link_volume_blocks, want, nets[i].topo);
        CHECK(l.link_source == XCHG_LINK_MEASURED, "%s: measured", nets[i].topo);
    }
    xchg_topo c = check_topo("complete:8");
    xchg_line l;
    CHECK(xchg_aggregate_line(&c, 3, &m, NULL, &l, NULL) == 0, "complete line");
    CHECK(l.link_source == XCHG_LINK_CLAIMED && l.link_volume_blocks == 7 * 9,
          "complete:8: claimed, the port's volume");
    xchg_topo a = check_topo("mesh:8x8");
    xchg_line_opts lo = {.max_work = 1000};
    CHECK(xchg_aggregate_line(&a, 3, &m, &lo, &l, NULL) == 0, "mesh line, small max_work");
    CHECK(l.link_source == XCHG_LINK_UNMEASURED && l.link_volume_blocks == l.volume_blocks,
          "mesh:8x8 over max_work: unmeasured");
    xchg_topo tor = check_topo("torus:64x64");
    CHECK(xchg_aggregate_line(&tor, 16, &m, &lo, &l, NULL) == 0, "torus:64x64 line");
    CHECK(l.link_source == XCHG_LINK_MEASURED, "a torus is measured from one node's routes");
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
    /* pairs: 4 lanes of 3 start-ups side by side, 3; 48 blocks; copies 16;
     * 3 node start-ups of 4 blocks */
    CHECK_EQ_U64(pairs.startups, 3, "pairs start-ups");
    CHECK_EQ_U64(pairs.link_volume_blocks, 48, "pairs volume");
    CHECK_EQ_U64(pairs.copy_blocks, 16, "pairs copies");
    CHECK_EQ_U64(pairs.node_startups, 3, "pairs node start-ups");
    CHECK_EQ_U64(pairs.node_volume_blocks, 12, "pairs node volume");
    CHECK(fabs(pairs.fixed - 33.0) < 1e-9, "pairs fixed %g, want 33", pairs.fixed);
    CHECK(fabs(pairs.per_unit - 0.52) < 1e-9, "pairs per_unit %g, want 0.52", pairs.per_unit);
    CHECK(fabs(xchg_line_time(&pairs, 64) - 66.28) < 1e-9, "pairs at 64 B: %g, want 66.28",
          xchg_line_time(&pairs, 64));
    /* leaders:2: 3 start-ups (2 lanes side by side); copies 3*32 = 96; node
     * 1+1+1 start-ups, 16+16+16 blocks: 33 + 0.672*m */
    CHECK_EQ_U64(l2.startups, 3, "leaders:2 start-ups");
    CHECK_EQ_U64(l2.copy_blocks, 96, "leaders:2 copies");
    CHECK_EQ_U64(l2.node_startups, 3, "leaders:2 node start-ups");
    CHECK_EQ_U64(l2.node_volume_blocks, 48, "leaders:2 node volume");
    CHECK(fabs(xchg_line_time(&l2, 64) - 76.008) < 1e-9, "leaders:2 at 64 B: %g, want 76.008",
          xchg_line_time(&l2, 64));
    /* aggregate: O = 1 step between nodes, 3 messages of 16 blocks through
     * each port; 3 + 3 steps within nodes of 4+1 and 4 blocks; 4*16 copies */
    xchg_line ag;
    CHECK(xchg_aggregate_line(&t, 4, &m, NULL, &ag, NULL) == 0, "aggregate line");
    CHECK_EQ_U64(ag.startups, 1, "aggregate start-ups");
    CHECK_EQ_U64(ag.volume_blocks, 48, "aggregate volume");
    CHECK_EQ_U64(ag.link_volume_blocks, 48, "aggregate link volume");
    CHECK_EQ_U64(ag.copy_blocks, 64, "aggregate copies");
    CHECK_EQ_U64(ag.node_startups, 6, "aggregate node start-ups");
    CHECK_EQ_U64(ag.node_volume_blocks, 27, "aggregate node volume");
    CHECK(fabs(ag.fixed - 16.0) < 1e-9, "aggregate fixed %g, want 16", ag.fixed);
    CHECK(fabs(ag.per_unit - 0.598) < 1e-9, "aggregate per_unit %g, want 0.598", ag.per_unit);
    CHECK(fabs(xchg_line_time(&ag, 64) - 54.272) < 1e-9, "aggregate at 64 B: %g, want 54.272",
          xchg_line_time(&ag, 64));
    /* aggregate on 6 nodes of 4 (O = 2, the second slot half full): 2
     * start-ups between nodes, 5*16 blocks through a port, 24*4 copies,
     * 6 node start-ups of 2*4+1 and 2*4 blocks */
    xchg_topo t6 = check_topo("complete:6");
    CHECK(xchg_aggregate_line(&t6, 4, &m, NULL, &ag, NULL) == 0, "aggregate line, 6 nodes");
    CHECK_EQ_U64(ag.startups, 2, "aggregate 6x4 start-ups");
    CHECK_EQ_U64(ag.volume_blocks, 80, "aggregate 6x4 volume");
    CHECK_EQ_U64(ag.copy_blocks, 96, "aggregate 6x4 copies");
    CHECK_EQ_U64(ag.node_startups, 6, "aggregate 6x4 node start-ups");
    CHECK_EQ_U64(ag.node_volume_blocks, 51, "aggregate 6x4 node volume");
    CHECK(fabs(xchg_line_time(&ag, 64) - 89.872) < 1e-9, "aggregate 6x4 at 64 B: %g, want 89.872",
          xchg_line_time(&ag, 64));
    /* flat pairwise on complete:16 hosted 4 a node: 15 steps, rank r
     * with r XOR s at step s (p a power of two): steps 1-3 stay in the
     * node (one block), steps 4-15 send 4 messages of 1 block out of
     * every node, started side by side by its 4 ranks: 12 start-ups, 48
     * blocks through each port */
    xchg_sched *flat = check_generate("complete:16", "pairwise");
    if (flat) {
        xchg_line fl;
        CHECK(xchg_flat_line(flat, &t, 4, &m, NULL, &fl, NULL) == 0, "flat line");
        CHECK_EQ_U64(fl.startups, 12, "flat start-ups (one a step between nodes)");
        CHECK_EQ_U64(fl.link_volume_blocks, 48, "flat volume");
        CHECK_EQ_U64(fl.node_startups, 3, "flat node start-ups");
        CHECK_EQ_U64(fl.node_volume_blocks, 3, "flat node volume");
        CHECK(fabs(fl.fixed - 123.0) < 1e-9, "flat fixed %g, want 123", fl.fixed);
        CHECK(fabs(xchg_line_time(&fl, 64) - 154.104) < 1e-9, "flat at 64 B: %g, want 154.104",
              xchg_line_time(&fl, 64));
        xchg_sched_free(flat);
    }
    xchg_sched_free(in);
}

/*
 * Start-ups overlap, bytes do not (docs/hierarchical.md, "Start-ups side
 * by side, bytes one after another"): the L lanes of xchg_hier_line pay X's s start-ups once at
 * L = 1, 2 and K, and still put K*K*v blocks through the port; a flat
 * pairwise hosted K a node pays one start-up a step that sends a message
 * out of its node. The steps that do are counted here from pairwise's own
 * rule (partner r XOR s for p a power of two, (r + s) mod p otherwise),
 * not from the model's walk.
 */
static void side_by_side(void)
{
    static const struct {
        const char *topo, *alg;
    } inners[] = {{"complete:4", "pairwise"}, {"torus:4x4", "t2"}, {"ring:5", "bruck:2"}};
    xchg_machine m = test_machine();
    for (size_t i = 0; i < sizeof inners / sizeof inners[0]; i++) {
        xchg_topo t = check_topo(inners[i].topo);
        xchg_sched *in = check_generate(inners[i].topo, inners[i].alg);
        if (!in)
            continue;
        xchg_line il;
        CHECK(xchg_cost_line(in, &m, NULL, &il, NULL) == 0, "%s line", inners[i].alg);
        for (uint32_t K = 4; K <= 6; K += 2) {
            uint32_t Ls[] = {1, 2, K};
            for (size_t j = 0; j < sizeof Ls / sizeof Ls[0]; j++) {
                char what[96];
                snprintf(what, sizeof what, "%u lanes over %s on %s, ppn %u", (unsigned)Ls[j],
                         inners[i].alg, inners[i].topo, (unsigned)K);
                xchg_line hl, hb;
                CHECK(xchg_hier_line(&il, &t, K, Ls[j], &m, 0, &hl, NULL) == 0, "%s", what);
                CHECK(xchg_hier_line(&il, &t, K, Ls[j], &m, 1, &hb, NULL) == 0, "%s", what);
                CHECK_EQ_U64(hl.startups, il.startups, what);
                CHECK_EQ_U64(hl.link_volume_blocks, (uint64_t)K * K * il.link_volume_blocks,
                             what);
                double fixed = (double)il.startups * m.ts + (double)hl.node_startups * m.ts_node;
                CHECK(fabs(hl.fixed - fixed) < 1e-9, "%s: fixed %g, want %g", what, hl.fixed,
                      fixed);
                CHECK(fabs(hb.fixed - hl.fixed - (double)il.startups * m.barrier) < 1e-9,
                      "%s: one barrier a step of X", what);
            }
        }
        xchg_sched_free(in);
    }
    static const struct {
        uint32_t N, K;
    } clusters[] = {{4, 4}, {8, 4}, {2, 8}, {3, 4}, {5, 3}};
    for (size_t i = 0; i < sizeof clusters / sizeof clusters[0]; i++) {
        uint32_t N = clusters[i].N, K = clusters[i].K, p = N * K;
        int pow2 = (p & (p - 1)) == 0;
        uint64_t crossing = 0;
        for (uint32_t st = 1; st < p; st++) {
            int out = 0;
            for (uint32_t r = 0; r < p && !out; r++) {
                uint32_t to = pow2 ? r ^ st : (r + st) % p;
                out = to / K != r / K;
            }
            crossing += out;
        }
        char nspec[32], rspec[32], what[96];
        snprintf(nspec, sizeof nspec, "complete:%u", (unsigned)N);
        snprintf(rspec, sizeof rspec, "complete:%u", (unsigned)p);
        snprintf(what, sizeof what, "flat pairwise on %u nodes of %u", (unsigned)N, (unsigned)K);
        xchg_topo t = check_topo(nspec);
        xchg_sched *s = check_generate(rspec, "pairwise");
        if (!s)
            continue;
        xchg_line fl;
        CHECK(xchg_flat_line(s, &t, K, &m, NULL, &fl, NULL) == 0, "%s", what);
        CHECK_EQ_U64(fl.startups, crossing, what);
        if (pow2) /* every rank's block leaves in a crossing step: K a port */
            CHECK_EQ_U64(fl.volume_blocks, crossing * K, what);
        xchg_sched_free(s);
    }
    /* the page's case, not the node's 4 messages a step: 4*12 = 48 */
    xchg_topo t4 = check_topo("complete:4");
    xchg_sched *s16 = check_generate("complete:16", "pairwise");
    if (s16) {
        xchg_line fl;
        CHECK(xchg_flat_line(s16, &t4, 4, &m, NULL, &fl, NULL) == 0, "flat 16 on 4");
        CHECK_EQ_U64(fl.startups, 12, "flat pairwise on 4 nodes of 4: steps 4..15");
        xchg_sched_free(s16);
    }
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
    int agg = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++)
        agg += strcmp(xchg_sweep_candidate(sw, i)->alg, "aggregate") == 0;
    CHECK(agg == 1, "one aggregate candidate, not %d", agg);
    size_t w = xchg_sweep_best_at(sw, 8);
    CHECK(w != XCHG_NO_WINNER, "a winner at 8 B");
    /* at small blocks on the Paragon (ts = 75 us) start-ups decide: flat
     * hc-standard on 64 ranks pays log2(64) = 6, 2 within the node and 4
     * between nodes, its 4 ranks a node starting theirs side by side */
    if (w != XCHG_NO_WINNER)
        CHECK(strcmp(xchg_sweep_candidate(sw, w)->alg, "hc-standard") == 0,
              "winner at 8 B: %s", xchg_sweep_candidate(sw, w)->alg);
    /* and after it every rank a lane over a torus schedule of 4 steps, the
     * lanes side by side: 4 between nodes and 3 within (one leader a node
     * pays 6 within, aggregate 6 within) */
    size_t n = xchg_sweep_ncandidates(sw), *ord = calloc(n ? n : 1, sizeof *ord);
    if (ord && n >= 2) {
        xchg_sweep_rank(sw, 8, ord, n);
        CHECK(strncmp(xchg_sweep_candidate(sw, ord[1])->alg, "pairs:", 6) == 0,
              "second at 8 B: %s", xchg_sweep_candidate(sw, ord[1])->alg);
    }
    free(ord);
    xchg_sweep_free(sw);
    /* verified: aggregate's composition followed block by block */
    xchg_plan_opts pv = {.ppn = 4, .verify = 1, .only = "pairwise"};
    CHECK(xchg_plan_sweep(&t, &m, 64, 64, &pv, &sw, &err) == 0, "verified sweep: %s", err.msg);
    for (size_t i = 0; sw && i < xchg_sweep_ncandidates(sw); i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        if (strcmp(e->alg, "aggregate") == 0)
            CHECK(e->check == XCHG_CHECK_BLOCKS && e->eligible, "aggregate verified: %d %s",
                  e->check, e->why);
    }
    xchg_sweep_free(sw);
    sw = NULL;
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
    memset(&h, 0, sizeof h);
    CHECK(xchg_hier_parse("aggregate", 4, &h, &err) == 1 && h.aggregate && h.leaders == 4 &&
              strcmp(h.kind, "aggregate") == 0 && h.inner[0] == '\0',
          "aggregate");
    CHECK(xchg_hier_parse("aggregatex", 4, &h, &err) == 0, "aggregatex is not a variant");
    CHECK(xchg_hier_parse("leader:t2", 4, &h, &err) == 1 && !h.aggregate, "leader is not");
    CHECK(xchg_hier_parse("aggregate:bruck", 4, &h, &err) == XCHG_EINVAL, "aggregate:bruck");
    CHECK(strstr(err.msg, "aggregate takes nothing after it") != NULL, "message: %s", err.msg);
    CHECK(xchg_hier_parse("aggregate:", 4, &h, &err) == XCHG_EINVAL, "aggregate: empty");
    xchg_topo t = check_topo("ring:4");
    xchg_sched *s = NULL;
    CHECK(xchg_hier_generate(&t, 2, "leader", &s, &err) == XCHG_EINVAL && !s,
          "the composition needs X named");
    CHECK(xchg_hier_generate(&t, 2, "leader:t2", &s, &err) == XCHG_ENOTAPPLIC && !s,
          "t2 does not apply to ring:4: %s", err.msg);
    CHECK(xchg_hier_generate(&t, 1u << 23, "leader:ring", &s, &err) == XCHG_EINVAL && !s,
          "too many ranks");
    CHECK(xchg_hier_generate(&t, 1u << 23, "aggregate", &s, &err) == XCHG_EINVAL && !s,
          "aggregate: too many ranks");
    CHECK(xchg_hier_generate(&t, 2, "aggregate:pairwise", &s, &err) == XCHG_EINVAL && !s,
          "aggregate takes no X");
    xchg_line l;
    memset(&l, 0, sizeof l);
    xchg_machine m = test_machine();
    CHECK(xchg_hier_line(&l, &t, 4, 3, &m, 0, &l, &err) == XCHG_EINVAL, "3 leaders of 4");
    CHECK(xchg_aggregate_line(&t, 0, &m, NULL, &l, &err) == XCHG_EINVAL, "aggregate ppn 0");
    CHECK(xchg_aggregate_line(&t, 1u << 23, &m, NULL, &l, &err) == XCHG_EINVAL,
          "aggregate: too many ranks");
    m.ts_node = -1;
    CHECK(xchg_hier_line(&l, &t, 4, 2, &m, 0, &l, &err) == XCHG_EINVAL, "ts_node < 0");
    CHECK(xchg_aggregate_line(&t, 4, &m, NULL, &l, &err) == XCHG_EINVAL,
          "aggregate: ts_node < 0");
}

int main(void)
{
    parsing();
    worked_example();
    side_by_side();
    compositions("complete:1", 1, 8);
    compositions("complete:3", 1, 8);
    compositions("complete:4", 1, 8);
    compositions("ring:4", 1, 8);
    compositions("ring:5", 1, 8);
    compositions("torus:2x3", 1, 8);
    compositions("torus:4x4", 1, 4);
    compositions("hypercube:2", 1, 8);
    compositions("hypercube:3", 1, 8);
    aggregates();
    aggregate_links();
    flat_is_plain("torus:4x4", "pairwise");
    flat_is_plain("torus:4x4", "bruck:2");
    flat_is_plain("torus:4x4", "mesh2");
    flat_is_plain("ring:6", "ring");
    flat_is_plain("hypercube:3", "hc-direct");
    flat_is_plain("complete:8", "pairwise");
    planner();
    return check_finish("test_hier");
}
