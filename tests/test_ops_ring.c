/*
 * test_ops_ring.c - the ring, linear-array and mesh algorithms of the
 * operations other than the complete exchange (seed 003; ops_ring.c,
 * ops_mesh.c) held to the slides' cost formulas on many sizes (powers of two
 * and not) and every root and shift of the small ones: the verifier passes
 * with no link carrying two messages, the cost model with t_s = 1, t_w = 0
 * and t_s = 0, t_w = 1 gives exactly the slide's start-ups and volume, and
 * the simulator agrees with the cost model. The broadcast's messages are
 * the slide's figure (eight-node ring) and the worked case of six nodes;
 * the mesh shift is the slide's figure (4 x 4, q = 5). Then schedules broken
 * on purpose, one per way the operations count blocks: the verifier reports
 * the undelivered tokens and the mis-declared sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg/ops.h"
#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

/* ceil(log2 n). */
static unsigned clog2(uint32_t n)
{
    unsigned d = 0;
    while ((1ull << d) < n)
        d++;
    return d;
}

static unsigned long slide_cases;

/* check_slide_cost, counted. */
static void slide_cost_blocks(const char *tspec, const char *spec, int free, double a, double b,
                              double blocks)
{
    slide_cases += check_slide_cost(tspec, spec, free, a, b, blocks);
}

/* The same where a block is the operation's m (all but -split). */
static void slide_cost(const char *tspec, const char *spec, int free, double a, double b)
{
    slide_cost_blocks(tspec, spec, free, a, b, b);
}

/*
 * Ring and linear array, p = 1..17, 24, 32, 33 (complete:p too): broadcast
 * and reduction in ceil(log2 p) steps of one block (eq. (1) for any p),
 * scatter and gather t_s ceil(log2 p) + t_w m (p-1) (eq. (3), "for a
 * linear array as well"), every root up to 17 nodes; the all-to-all
 * broadcast and reduction (t_s + t_w m)(p-1); the q-shift in min(q, p-q)
 * steps, every q.
 */
static void test_ring(void)
{
    const uint32_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24, 32, 33};
    const char *kinds[] = {"ring", "array", "complete"};
    char tspec[32], spec[64];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t p = sizes[i];
        double L = clog2(p);
        for (int k = 0; k < 3; k++) {
            snprintf(tspec, sizeof tspec, "%s:%u", kinds[k], p);
            uint32_t step = p <= 17 ? 1 : 7;
            for (uint32_t root = 0; root < p; root += step) {
                snprintf(spec, sizeof spec, "bcast-ring:root=%u", root);
                slide_cost(tspec, spec, 1, L, L);
                snprintf(spec, sizeof spec, "reduce-ring:root=%u", root);
                slide_cost(tspec, spec, 1, L, L);
                snprintf(spec, sizeof spec, "scatter-ring:root=%u", root);
                slide_cost(tspec, spec, 1, L, p - 1);
                snprintf(spec, sizeof spec, "gather-ring:root=%u", root);
                slide_cost(tspec, spec, 1, L, p - 1);
            }
            slide_cost(tspec, "allgather-ring", 1, p - 1, p - 1);
            slide_cost(tspec, "reduce-scatter-ring", 1, p - 1, p - 1);
            for (uint32_t q = 1; q < p; q += step) {
                double n = q <= p - q ? q : p - q;
                snprintf(spec, sizeof spec, "shift-ring:q=%u", q);
                slide_cost(tspec, spec, 1, n, n);
            }
        }
    }
    /* the rooted ones and the shift on any topology, as ids in a line
     * (no contention claim there) */
    const char *other[] = {"mesh:3x4", "torus:3x5", "hypercube:3", "torus:2x2x2"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        xchg_topo t = check_topo(other[i]);
        double L = clog2(t.nodes);
        slide_cost(other[i], "bcast-ring:root=5", 0, L, L);
        slide_cost(other[i], "gather-ring:root=2", 0, L, t.nodes - 1);
        slide_cost(other[i], "shift-ring:q=3", 0, 3, 3);
    }
    /* the improved operations (eq. (10)) on a ring now have ring parts:
     * scatter + allgather, in blocks of m/p */
    for (uint32_t p = 3; p <= 9; p += 3) {
        snprintf(tspec, sizeof tspec, "ring:%u", p);
        snprintf(spec, sizeof spec, "bcast-split:root=%u", p - 1);
        slide_cost_blocks(tspec, spec, 0, clog2(p) + p - 1, 2.0 * (p - 1) / p, 2 * (p - 1));
        slide_cost_blocks(tspec, "allreduce-split", 0, 2.0 * (p - 1), 2.0 * (p - 1) / p,
                          2 * (p - 1));
    }
}

/*
 * Mesh and torus R x C: broadcast and reduction in ceil(log2 C) +
 * ceil(log2 R) steps of one block, scatter and gather with p-1 blocks
 * (log p steps on a square of 2^d: eq. (3) "as well as a 2-D mesh"), every
 * root up to 16 nodes; the all-to-all broadcast 2 t_s (sqrt(p)-1) +
 * t_w m (p-1) on a square ((C-1) + (R-1) steps otherwise) and its dual; the
 * q-shift, every q, within the slide's (t_s + t_w m)(sqrt(p) + 1) on a
 * square.
 */
static void test_mesh(void)
{
    const uint32_t shapes[][2] = {{2, 2}, {3, 3}, {4, 4}, {3, 5}, {5, 3},
                                  {2, 8}, {8, 2}, {4, 6}, {8, 8}, {5, 7}};
    const char *kinds[] = {"mesh", "torus"};
    char tspec[32], spec[64];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        uint32_t R = shapes[i][0], C = shapes[i][1], p = R * C;
        double L = clog2(R) + clog2(C);
        if (R == C && (R & (R - 1)) == 0)
            CHECK(L == clog2(p), "log p steps on %ux%u", R, C);
        for (int k = 0; k < 2; k++) {
            snprintf(tspec, sizeof tspec, "%s:%ux%u", kinds[k], R, C);
            uint32_t step = p <= 16 ? 1 : 5;
            for (uint32_t root = 0; root < p; root += step) {
                snprintf(spec, sizeof spec, "bcast-mesh:root=%u", root);
                slide_cost(tspec, spec, 1, L, L);
                snprintf(spec, sizeof spec, "reduce-mesh:root=%u", root);
                slide_cost(tspec, spec, 1, L, L);
                snprintf(spec, sizeof spec, "scatter-mesh:root=%u", root);
                slide_cost(tspec, spec, 1, L, p - 1);
                snprintf(spec, sizeof spec, "gather-mesh:root=%u", root);
                slide_cost(tspec, spec, 1, L, p - 1);
            }
            double steps = (C - 1) + (R - 1);
            if (R == C)
                CHECK(steps == 2.0 * (R - 1), "2 (sqrt(p) - 1) on %ux%u", R, C);
            slide_cost(tspec, "allgather-mesh", 1, steps, p - 1);
            slide_cost(tspec, "reduce-scatter-mesh", 1, steps, p - 1);
            for (uint32_t q = 1; q < p; q += step) {
                uint32_t a = q / C, b = q % C;
                double n = (b <= C - b ? b : C - b) + (b > 0) + (a <= R - a ? a : R - a);
                if (R == C)
                    CHECK(n <= R + 1, "%u-shift on %ux%u: %g steps > sqrt(p) + 1", q, R, C, n);
                snprintf(spec, sizeof spec, "shift-mesh:q=%u", q);
                slide_cost(tspec, spec, 1, n, n);
            }
        }
        /* the improved operations with mesh parts */
        snprintf(tspec, sizeof tspec, "torus:%ux%u", R, C);
        snprintf(spec, sizeof spec, "bcast-split:root=%u", p / 2);
        slide_cost_blocks(tspec, spec, 0, L + (C - 1) + (R - 1), 2.0 * (p - 1) / p, 2 * (p - 1));
    }
}

/* The messages of step k of s: "from>to" pairs in node order, with each
 * message's declared size after a colon when sizes is set. */
static void messages(const xchg_sched *s, size_t k, int sizes, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t n = 0; n < xchg_sched_topo(s)->nodes && at < len; n++) {
        xchg_msg m;
        xchg_sched_message(s, k, n, &m);
        if (m.to == XCHG_NONE)
            continue;
        int w = sizes ? snprintf(buf + at, len - at, "%s%u>%u:%llu", at ? " " : "", n, m.to,
                                 (unsigned long long)m.blocks)
                      : snprintf(buf + at, len - at, "%s%u>%u", at ? " " : "", n, m.to);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* The step-by-step messages of spec on tspec are want[0..n). */
static void expect_steps(const char *tspec, const char *spec, int sizes, const char *const *want,
                         size_t n)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return;
    CHECK_EQ_U64(xchg_sched_nsteps(s), n, spec);
    for (size_t k = 0; k < n && k < xchg_sched_nsteps(s); k++) {
        char got[512];
        messages(s, k, sizes, got, sizeof got);
        CHECK(strcmp(got, want[k]) == 0, "%s on %s step %zu: '%s', want '%s'", spec, tspec, k, got,
              want[k]);
    }
    xchg_sched_free(s);
}

/* The slides' figures and the worked cases of the header comments. */
static void test_figures(void)
{
    /* "One-to-all broadcast on an eight-node ring": 0 -> 4, then 0 -> 2 and
     * 4 -> 6, then the odd nodes */
    const char *bc8[] = {"0>4", "0>2 4>6", "0>1 2>3 4>5 6>7"};
    expect_steps("ring:8", "bcast-ring", 0, bc8, 3);
    /* "Reduction on an eight-node ring with node 0 as the destination" */
    const char *rd8[] = {"1>0 3>2 5>4 7>6", "2>0 6>4", "4>0"};
    expect_steps("ring:8", "reduce-ring", 0, rd8, 3);
    /* six nodes: the holder keeps the longer half; scatter sizes 3, 1, 1 */
    const char *sc6[] = {"0>3:3", "0>2:1 3>5:1", "0>1:1 3>4:1"};
    expect_steps("ring:6", "scatter-ring", 1, sc6, 3);
    /* a root in the upper half keeps the upper half: 7 nodes from 5 */
    const char *bc7[] = {"5>2", "2>0 5>3", "2>1 3>4 5>6"};
    expect_steps("array:7", "bcast-ring:root=5", 0, bc7, 3);
    const char *ga7[] = {"1>2:1 4>3:1 6>5:1", "0>2:1 3>5:2", "2>5:3"};
    expect_steps("array:7", "gather-ring:root=5", 1, ga7, 3);
    /* the mesh broadcast: the root's row, then every column (3 x 4, root 5) */
    const char *bm[] = {"5>7", "5>4 7>6", "4>8 5>9 6>10 7>11", "4>0 5>1 6>2 7>3"};
    expect_steps("mesh:3x4", "bcast-mesh:root=5", 0, bm, 4);
    /* scatter on the mesh: R tokens a column along the row, then one each */
    const char *sm[] = {"5>7:6", "5>4:3 7>6:3", "4>8:1 5>9:1 6>10:1 7>11:1",
                        "4>0:1 5>1:1 6>2:1 7>3:1"};
    expect_steps("mesh:3x4", "scatter-mesh:root=5", 1, sm, 4);
    /* "a circular 5-shift on a 4 x 4 mesh": the row shift, the compensation
     * of the one column whose row shift wrapped, the column shift */
    xchg_sched *s = check_generate("torus:4x4", "shift-mesh:q=5");
    if (s) {
        CHECK_EQ_U64(xchg_sched_nsteps(s), 3, "5-shift on 4 x 4: three steps");
        char got[512];
        messages(s, 1, 0, got, sizeof got);
        CHECK(strcmp(got, "0>4 4>8 8>12 12>0") == 0, "compensation step: %s", got);
        xchg_sched_free(s);
    }
    /* the allgather on a 3 x 3 mesh: 2 row steps of one block, 2 column
     * steps of three */
    xchg_sched *g = check_generate("mesh:3x3", "allgather-mesh");
    if (g) {
        CHECK_EQ_U64(xchg_sched_nsteps(g), 4, "3 x 3 allgather steps");
        for (size_t k = 0; k < 4 && k < xchg_sched_nsteps(g); k++)
            CHECK_EQ_U64(xchg_sched_step_max_blocks(g, k), k < 2 ? 1 : 3, "allgather sizes");
        xchg_sched_free(g);
    }
}

/* A hand-made schedule of op on tspec (for the broken ones below). */
static xchg_sched *by_hand(const char *tspec, xchg_op op)
{
    xchg_topo t = check_topo(tspec);
    xchg_sched *s = xchg_sched_new(&t, "by-hand", 1);
    if (s)
        s->op = op;
    return s;
}

/* A step whose partners are pairs from[i] -> to[i] (the rest idle). */
static void add_pairs(xchg_sched *s, const uint32_t *from, const uint32_t *to, size_t n,
                      xchg_rule rule, uint64_t blocks)
{
    uint32_t p = s->topo.nodes;
    uint32_t *part = malloc(p * sizeof *part);
    if (!part) {
        CHECK(0, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < p; i++)
        part[i] = XCHG_NONE;
    for (size_t i = 0; i < n; i++)
        part[from[i]] = to[i];
    xchg_step st = xchg_step_xor(0, rule, blocks);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = part;
    CHECK(xchg_sched_add(s, &st) == 0, "add a step");
}

/* The counters of a broken schedule's report. */
static void expect_broken(xchg_sched *s, uint64_t undelivered, uint64_t sizes, const char *what)
{
    if (!s)
        return;
    xchg_verify_report r = check_verify(s);
    CHECK(!r.ok, "%s: the verifier passes it", what);
    CHECK_EQ_U64(r.undelivered, undelivered, what);
    CHECK_EQ_U64(r.size_mismatches, sizes, what);
    CHECK_EQ_U64(r.port_violations, 0, what);
    xchg_sched_free(s);
}

/*
 * Broken schedules, one per way the operations count blocks: per origin
 * (bcast, allgather), per dest (reduce, reduce-scatter), per token
 * (scatter, shift). Tokens move and are never copied, so a skipped node or
 * a contribution sent twice shows as an undelivered token or as a message
 * that declares what it does not carry.
 */
static void test_broken(void)
{
    xchg_op bc = {XCHG_OP_BCAST, 0, 0, 0}, rd = {XCHG_OP_REDUCE, 0, 0, 0},
            ag = {XCHG_OP_ALLGATHER, 0, 0, 0};

    /* a broadcast on ring:8 that skips node 7: the last step has no 6 -> 7 */
    xchg_sched *s = by_hand("ring:8", bc);
    uint32_t f0[] = {0}, t0[] = {4}, f1[] = {0, 4}, t1[] = {2, 6};
    uint32_t f2[] = {0, 2, 4}, t2[] = {1, 3, 5}, f2all[] = {0, 2, 4, 6}, t2all[] = {1, 3, 5, 7};
    add_pairs(s, f0, t0, 1, xchg_rule_dest_mask_to(4), 1);
    add_pairs(s, f1, t1, 2, xchg_rule_dest_mask_to(2), 1);
    add_pairs(s, f2, t2, 3, xchg_rule_dest_mask_to(1), 1);
    expect_broken(s, 1, 0, "broadcast skipping node 7");
    /* the same with every message: it passes */
    s = by_hand("ring:8", bc);
    add_pairs(s, f0, t0, 1, xchg_rule_dest_mask_to(4), 1);
    add_pairs(s, f1, t1, 2, xchg_rule_dest_mask_to(2), 1);
    add_pairs(s, f2all, t2all, 4, xchg_rule_dest_mask_to(1), 1);
    if (s) {
        xchg_verify_report r = check_verify(s);
        CHECK(r.ok && r.startups == 3 && r.volume_blocks == 3, "the whole broadcast passes: %s",
              r.reported ? r.msgs[0] : "");
        xchg_sched_free(s);
    }
    /* a generated broadcast with one message taken out: 6 nodes, root 3,
     * the last step's 3 -> 4 gone */
    s = check_generate("ring:6", "bcast-ring:root=3");
    if (s) {
        s->steps[2].partner_table[3] = XCHG_NONE;
        expect_broken(s, 1, 0, "generated broadcast missing 3 -> 4");
    }

    /* a reduction on ring:4 to 0 where node 3 sends its contribution to 2
     * and then again to 0: in real buffers 0 would count x3 twice; here
     * node 3 has nothing left, so its second message declares a block it
     * does not carry */
    s = by_hand("ring:4", rd);
    uint32_t r0f[] = {1, 3}, r0t[] = {0, 2}, r1f[] = {2}, r1t[] = {0}, r2f[] = {3}, r2t[] = {0};
    add_pairs(s, r0f, r0t, 2, xchg_rule_dest_mask_to(0), 1);
    add_pairs(s, r1f, r1t, 1, xchg_rule_dest_mask_to(0), 1);
    add_pairs(s, r2f, r2t, 1, xchg_rule_dest_mask_to(0), 1);
    expect_broken(s, 0, 1, "reduction sending x3 twice");
    /* a reduction whose root passes the sum on: every contribution ends at
     * node 1, none at the root */
    s = by_hand("ring:4", rd);
    uint32_t r3f[] = {0}, r3t[] = {1};
    add_pairs(s, r0f, r0t, 2, xchg_rule_dest_mask_to(0), 1);
    add_pairs(s, r1f, r1t, 1, xchg_rule_dest_mask_to(0), 1);
    add_pairs(s, r3f, r3t, 1, xchg_rule_dest_mask_to(0), 1);
    expect_broken(s, 4, 0, "reduction overshooting the root");

    /* an all-gather on ring:5 declaring two blocks a step: each message
     * carries one origin's data */
    s = by_hand("ring:5", ag);
    for (uint32_t k = 1; s && k < 5; k++) {
        xchg_step st = xchg_step_shift(0, 1, xchg_rule_coord_ne(0), 2);
        CHECK(xchg_sched_add(s, &st) == 0, "add");
    }
    expect_broken(s, 0, 20, "all-gather declaring 2 blocks");
    /* the mesh all-gather declaring one block in the column phase, where a
     * message carries a row's C = 3 origins */
    s = check_generate("mesh:3x3", "allgather-mesh");
    if (s) {
        s->steps[2].blocks = s->steps[3].blocks = 1;
        s->steps[2].max_blocks = s->steps[3].max_blocks = 1;
        expect_broken(s, 0, 18, "mesh all-gather declaring 1 block in its columns");
    }
    /* a reduce-scatter on ring:5 whose step k passes the partial for
     * n-k-1 instead of n-k: the contributions of n+1 to n are never sent
     * (5 undelivered), the others arrive a step early and stay (a token at
     * its dest does not move), and the last step, passing the partial for
     * the node itself, finds nothing to send though it declares a block */
    s = check_generate("ring:5", "reduce-scatter-ring");
    if (s) {
        for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
            s->steps[k].rule = xchg_rule_coord_dist(0, -1, (uint32_t)k + 2, (uint32_t)k + 2);
        expect_broken(s, 5, 5, "reduce-scatter off by one");
    }
    /* a scatter declaring one block a message: the first carries 3 tokens
     * (6 nodes), the others one */
    s = check_generate("ring:6", "scatter-ring");
    if (s) {
        for (uint32_t n = 0; n < 6; n++)
            if (s->steps[0].blocks_table[n])
                s->steps[0].blocks_table[n] = 1;
        expect_broken(s, 0, 1, "scatter declaring 1 token where it sends 3");
    }
    /* a 2-shift on ring:6 that stops after one step: every token is one
     * node short */
    s = check_generate("ring:6", "shift-ring:q=2");
    if (s) {
        s->nsteps = 1; /* shift steps hold no tables */
        expect_broken(s, 6, 0, "2-shift stopping after one step");
    }
}

/* Preconditions: roots and shifts out of range, the one-dimensional and
 * mesh-only entries elsewhere. */
static void test_refusals(void)
{
    xchg_err err = {{0}};
    xchg_sched *s = NULL;
    xchg_topo r6 = check_topo("ring:6"), m = check_topo("mesh:3x4"), h = check_topo("hypercube:3");
    CHECK(xchg_generate(&r6, "bcast-ring:root=6", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "root 6 is not a node; accepted: 0 to 5"),
          "root 6 on 6 nodes: %s", err.msg);
    CHECK(xchg_generate(&r6, "shift-ring:q=6", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: 1 to 5"),
          "q = p: %s", err.msg);
    CHECK(xchg_generate(&m, "allgather-ring", &s, &err) == XCHG_ENOTAPPLIC &&
              strstr(err.msg, "one-dimensional"),
          "allgather-ring on a mesh: %s", err.msg);
    CHECK(xchg_generate(&r6, "bcast-mesh", &s, &err) == XCHG_ENOTAPPLIC && strstr(err.msg, "mesh"),
          "bcast-mesh on a ring: %s", err.msg);
    CHECK(xchg_generate(&h, "allgather-mesh", &s, &err) == XCHG_ENOTAPPLIC,
          "allgather-mesh on a hypercube: %s", err.msg);
    CHECK(xchg_generate(&m, "shift-mesh:q=12", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: 1 to 11"),
          "q = p on the mesh: %s", err.msg);
    CHECK(xchg_generate(&m, "gather-mesh:rot=1", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "unknown option 'rot=1'"),
          "bad option: %s", err.msg);
    CHECK(s == NULL, "nothing made on refusal");
}

/*
 * The halving itself (ops.h), on every line of up to 40 positions and every
 * first holder: ceil(log2 n) levels, every position reached exactly once,
 * sent halves adding up to n - 1, the first holder's segment the largest.
 */
static void test_halving(void)
{
    for (uint32_t n = 1; n <= 40; n++) {
        for (uint32_t h0 = 0; h0 < n; h0++) {
            unsigned levels = clog2(n), reached = 1;
            uint64_t root_sum = 0;
            for (unsigned k = 0; k < levels + 1; k++) {
                uint64_t biggest = 0, root_half = 0;
                for (uint32_t x = 0; x < n; x++) {
                    xchg_ops_seg half;
                    if (!xchg_ops_halving_sends(n, h0, (int)k, x, &half))
                        continue;
                    CHECK(k < levels, "n %u from %u: a send at level %u", n, h0, k);
                    CHECK(half.holder >= half.lo && half.holder < half.hi &&
                              (x < half.lo || x >= half.hi),
                          "n %u: receiver inside the half, sender outside", n);
                    reached++;
                    if (half.hi - half.lo > biggest)
                        biggest = half.hi - half.lo;
                    if (x == h0)
                        root_half = half.hi - half.lo;
                }
                if (k < levels)
                    CHECK(root_half == biggest && biggest > 0,
                          "n %u from %u level %u: the root sends the largest half", n, h0, k);
                root_sum += root_half;
            }
            CHECK(reached == n, "n %u from %u: %u positions reached", n, h0, reached);
            CHECK(root_sum == (uint64_t)n - 1, "n %u from %u: the root's halves add up to %llu", n,
                  h0, (unsigned long long)root_sum);
        }
    }
}

int main(void)
{
    test_halving();
    test_ring();
    test_mesh();
    test_figures();
    test_broken();
    test_refusals();
    printf("slide formula cases: %lu\n", slide_cases);
    return check_finish("test_ops_ring");
}
