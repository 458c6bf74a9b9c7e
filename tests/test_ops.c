/*
 * test_ops.c - the operations other than the complete exchange (seed 003;
 * docs/operations.md): the operation API, the hypercube algorithms and the
 * improved (-split) ones held to the slides' cost formulas on every root
 * and many sizes, the simulator agreeing with the cost line, and the
 * verifier catching schedules that drop, double count or mis-size
 * contributions. The ring and mesh algorithms have their own file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

/* Hold spec on tspec to the slide's t_s a + t_w m b (check_slide_cost);
 * the verifier's volume is b blocks of m, or b*p of m/p for a -split
 * algorithm. */
static void slide_cost(const char *tspec, const char *spec, double a, double b)
{
    xchg_topo t = check_topo(tspec);
    double blocks = strstr(spec, "-split") ? b * t.nodes : b;
    check_slide_cost(tspec, spec, 1, a, b, blocks);
}

/* Names, parsing, tokens and parameter checks. */
static void test_api(void)
{
    for (int k = 0; k < XCHG_OP_COUNT; k++) {
        xchg_op_kind back;
        CHECK(xchg_op_parse(xchg_op_name((xchg_op_kind)k), &back, NULL) == 0 && (int)back == k,
              "name %d round trip", k);
    }
    xchg_err err = {{0}};
    xchg_op_kind kind;
    CHECK(xchg_op_parse("broadcast", &kind, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: alltoall, bcast"),
          "unknown name refused: %s", err.msg);
    CHECK(strcmp(xchg_op_name((xchg_op_kind)99), "?") == 0, "out of range name");

    /* how each operation's messages count blocks: the table of xchg.h */
    const xchg_op_sizing sizing[XCHG_OP_COUNT] = {
        [XCHG_OP_ALLTOALL] = XCHG_SIZE_TOKENS,  [XCHG_OP_BCAST] = XCHG_SIZE_ORIGINS,
        [XCHG_OP_REDUCE] = XCHG_SIZE_DESTS,     [XCHG_OP_ALLGATHER] = XCHG_SIZE_ORIGINS,
        [XCHG_OP_REDUCE_SCATTER] = XCHG_SIZE_DESTS, [XCHG_OP_ALLREDUCE] = XCHG_SIZE_SETS,
        [XCHG_OP_SCAN] = XCHG_SIZE_SETS,        [XCHG_OP_SCATTER] = XCHG_SIZE_TOKENS,
        [XCHG_OP_GATHER] = XCHG_SIZE_TOKENS,    [XCHG_OP_SHIFT] = XCHG_SIZE_TOKENS};
    for (int k = 0; k < XCHG_OP_COUNT; k++)
        CHECK(xchg_op_sizing_of((xchg_op_kind)k) == sizing[k], "%s counts blocks by sizing %d",
              xchg_op_name((xchg_op_kind)k), (int)xchg_op_sizing_of((xchg_op_kind)k));

    /* tokens: count them on p = 6 */
    const struct {
        xchg_op op;
        uint64_t tokens;
    } want[] = {{{XCHG_OP_ALLTOALL, 0, 0, 0}, 36}, {{XCHG_OP_BCAST, 2, 0, 0}, 6},
                {{XCHG_OP_REDUCE, 5, 0, 0}, 6},    {{XCHG_OP_ALLGATHER, 0, 0, 0}, 36},
                {{XCHG_OP_SCAN, 0, 0, 0}, 21},     {{XCHG_OP_SHIFT, 0, 4, 0}, 6},
                {{XCHG_OP_SCATTER, 1, 0, 0}, 6},   {{XCHG_OP_GATHER, 0, 0, 0}, 6}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint64_t n = 0;
        for (uint32_t o = 0; o < 7; o++)
            for (uint32_t d = 0; d < 7; d++)
                n += xchg_op_has_token(&want[i].op, 6, o, d) != 0;
        CHECK_EQ_U64(n, want[i].tokens, xchg_op_name(want[i].op.kind));
    }
    xchg_op sh = {XCHG_OP_SHIFT, 0, 4, 0};
    CHECK(xchg_op_has_token(&sh, 6, 5, 3) && !xchg_op_has_token(&sh, 6, 5, 4),
          "shift by 4 on 6: 5 -> 3");
    xchg_op sc = {XCHG_OP_SCAN, 0, 0, 0};
    CHECK(xchg_op_has_token(&sc, 6, 2, 2) && xchg_op_has_token(&sc, 6, 2, 5) &&
              !xchg_op_has_token(&sc, 6, 3, 2),
          "scan: (o, d) with o <= d");

    xchg_op bad = {XCHG_OP_BCAST, 8, 0, 0};
    CHECK(xchg_op_check(&bad, 8, &err) == XCHG_EINVAL &&
              strstr(err.msg, "root 8 is not a node; accepted: 0 to 7"),
          "root out of range: %s", err.msg);
    xchg_op q0 = {XCHG_OP_SHIFT, 0, 0, 0}, q8 = {XCHG_OP_SHIFT, 0, 8, 0};
    CHECK(xchg_op_check(&q0, 8, &err) == XCHG_EINVAL && strstr(err.msg, "accepted: 1 to 7"),
          "q = 0: %s", err.msg);
    CHECK(xchg_op_check(&q8, 8, NULL) == XCHG_EINVAL, "q = p");
    xchg_op split = {XCHG_OP_BCAST, 0, 0, 8};
    CHECK(xchg_op_block_bytes(&split, 1024) == 128 && xchg_op_block_bytes(&bad, 1024) == 1024,
          "block bytes m/pieces");

    /* refusals through the registry */
    xchg_topo t = check_topo("hypercube:3");
    xchg_sched *s = NULL;
    CHECK(xchg_generate(&t, "bcast-hc:root=8", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "bcast-hc: bcast: root 8 is not a node"),
          "bcast-hc:root=8 refused: %s", err.msg);
    CHECK(xchg_generate(&t, "shift-hc:q=0", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: root=R"),
          "q=0 refused: %s", err.msg);
    CHECK(xchg_generate(&t, "shift-hc:q=8", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: 1 to 7"),
          "q=8 on 8 nodes refused: %s", err.msg);
    CHECK(xchg_generate(&t, "bcast-hc:rot=1", &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "unknown option 'rot=1'"),
          "bad option refused: %s", err.msg);
    CHECK(s == NULL, "nothing made on refusal");
    xchg_topo r6 = check_topo("ring:6");
    CHECK(xchg_generate(&r6, "allgather-hc", &s, &err) == XCHG_ENOTAPPLIC, "hc needs 2^d");
}

/* The slides' formulas for the hypercube, every root up to 16 nodes. */
static void test_hypercube(void)
{
    char tspec[32], spec[64];
    for (int d = 1; d <= 7; d++) {
        uint32_t p = 1u << d;
        snprintf(tspec, sizeof tspec, "hypercube:%d", d);
        double L = d;
        /* eq. (1): broadcast and reduction, (t_s + t_w m) log p, any root */
        for (uint32_t root = 0; root < p && root<16; root += d> 4 ? 5 : 1) {
            snprintf(spec, sizeof spec, "bcast-hc:root=%u", root);
            slide_cost(tspec, spec, L, L);
            snprintf(spec, sizeof spec, "reduce-hc:root=%u", root);
            slide_cost(tspec, spec, L, L);
            /* eq. (3): scatter and gather, t_s log p + t_w m (p-1) */
            snprintf(spec, sizeof spec, "scatter-hc:root=%u", root);
            slide_cost(tspec, spec, L, p - 1);
            snprintf(spec, sizeof spec, "gather-hc:root=%u", root);
            slide_cost(tspec, spec, L, p - 1);
            /* eq. (10): 2 (t_s log p + t_w (p-1) m/p) */
            snprintf(spec, sizeof spec, "bcast-split:root=%u", root);
            slide_cost(tspec, spec, 2 * L, 2.0 * (p - 1) / p);
            snprintf(spec, sizeof spec, "reduce-split:root=%u", root);
            slide_cost(tspec, spec, 2 * L, 2.0 * (p - 1) / p);
        }
        /* eq. (2): t_s log p + t_w m (p-1), and its dual */
        slide_cost(tspec, "allgather-hc", L, p - 1);
        slide_cost(tspec, "reduce-scatter-hc", L, p - 1);
        /* all-reduce: (t_s + t_w m) log p; prefix sums the same */
        slide_cost(tspec, "allreduce-hc", L, L);
        slide_cost(tspec, "scan-hc", L, L);
        slide_cost(tspec, "allreduce-split", 2 * L, 2.0 * (p - 1) / p);
        /* shifts: one step per set bit of q (within eq. (8)'s 2 log p - 1),
         * and one step with e-cube routes (eq. (9)), every q */
        for (uint32_t q = 1; q<p; q += d> 4 ? 7 : 1) {
            double bits = __builtin_popcount(q);
            CHECK(bits <= 2 * L - 1, "shift %u within eq. (8)", q);
            snprintf(spec, sizeof spec, "shift-hc:q=%u", q);
            slide_cost(tspec, spec, bits, bits);
            snprintf(spec, sizeof spec, "shift-hc-ecube:q=%u", q);
            slide_cost(tspec, spec, 1, 1);
        }
    }
    /* not only on a hypercube: on a complete network too */
    slide_cost("complete:16", "allgather-hc", 4, 15);
    slide_cost("complete:16", "bcast-split:root=9", 8, 30.0 / 16);
}

/* scan-hc on any p (MPI_Scan's): the butterfly with the partners above p-1
 * left out, (t_s + t_w m) ceil(log2 p), verified (every token delivered,
 * every declared size what the message carries) and contention-free on a
 * switch (slide_cost), for every p from 1 to 130 and around the next
 * powers of two. */
static void test_scan_any_p(void)
{
    char tspec[32];
    uint32_t ps[140];
    size_t n = 0;
    for (uint32_t p = 1; p <= 130; p++)
        ps[n++] = p;
    const uint32_t more[] = {255, 257, 511, 513, 1000};
    for (size_t k = 0; k < sizeof more / sizeof *more; k++)
        ps[n++] = more[k];
    for (size_t k = 0; k < n; k++) {
        uint32_t p = ps[k];
        int d = 0;
        while ((1u << d) < p)
            d++;
        snprintf(tspec, sizeof tspec, "complete:%u", p);
        slide_cost(tspec, "scan-hc", d, d);
    }
    /* and on a ring of 6, where messages share links (no claim) */
    check_slide_cost("ring:6", "scan-hc", 0, 3, 3, 3);
}

/*
 * The balanced binary tree (tree:D, processors at the leaves): the slides'
 * broadcast and reduction cost eq. (1) there too, contention-free, every
 * root, and so do bcast-hc and reduce-hc run on the tree. The all-to-all
 * broadcast's pattern does not fit a tree: on tree:3 its step i sends 2^i
 * messages each way through each edge just below a level-(i+1) switch
 * (step 2: the 4 level-1 edges of the two 4-leaf subtrees, both ways, 2
 * each: 8 links; step 3: the root's 2 edges both ways with 4 each, and the
 * 8 level-1 links with 2 each: 12 more), so 20 (step, link) pairs carry
 * two or more messages, 4 at most, and the simulator is slower than the
 * contention-free cost line.
 */
static void test_tree(void)
{
    char tspec[32], spec[64];
    for (int d = 1; d <= 7; d++) {
        uint32_t p = 1u << d;
        snprintf(tspec, sizeof tspec, "tree:%d", d);
        for (uint32_t root = 0; root < p && root < 16; root += d > 4 ? 5 : 1) {
            const char *names[] = {"bcast-tree", "reduce-tree", "bcast-hc", "reduce-hc"};
            for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
                snprintf(spec, sizeof spec, "%s:root=%u", names[k], root);
                slide_cost(tspec, spec, d, d);
            }
        }
    }
    xchg_sched *s = check_generate("tree:3", "allgather-hc");
    if (s) {
        xchg_verify_report r = check_verify(s);
        CHECK(r.ok && !xchg_sched_contention_free(s) && r.link_conflicts == 20 &&
                  r.max_link_messages == 4,
              "allgather-hc on tree:3: %llu conflicts, at most %u on a link; want 20, 4",
              (unsigned long long)r.link_conflicts, r.max_link_messages);
        xchg_sched_free(s);
    }
    xchg_topo t = check_topo("hypercube:3");
    xchg_err err = {{0}};
    CHECK(xchg_generate(&t, "bcast-tree", &s, &err) == XCHG_ENOTAPPLIC &&
              strstr(err.msg, "needs a tree"),
          "bcast-tree off a tree refused: %s", err.msg);
}

/* The phases of a -split schedule. */
static void test_phases(void)
{
    xchg_sched *s = check_generate("hypercube:3", "bcast-split:root=6");
    if (!s)
        return;
    xchg_op op, ph;
    size_t a = 9, b = 9;
    xchg_sched_op(s, &op);
    CHECK(op.kind == XCHG_OP_BCAST && op.root == 6 && op.pieces == 8, "split's operation");
    CHECK(xchg_sched_nphases(s) == 2, "two phases, got %zu", xchg_sched_nphases(s));
    xchg_sched_phase(s, 0, &ph, &a, &b);
    CHECK(ph.kind == XCHG_OP_SCATTER && ph.root == 6 && a == 0 && b == 3, "phase 0: scatter");
    xchg_sched_phase(s, 1, &ph, &a, &b);
    CHECK(ph.kind == XCHG_OP_ALLGATHER && a == 3 && b == 6, "phase 1: allgather");
    a = 77;
    xchg_sched_phase(s, 2, &ph, &a, &b);
    CHECK(a == 77, "phase out of range leaves the outputs alone");
    xchg_sched_free(s);

    xchg_sched *one = check_generate("hypercube:3", "allgather-hc");
    if (one) {
        CHECK(xchg_sched_nphases(one) == 1, "one operation, one phase");
        xchg_sched_phase(one, 0, &ph, &a, &b);
        CHECK(ph.kind == XCHG_OP_ALLGATHER && a == 0 && b == 3, "its phase is every step");
        /* joining schedules of other topologies is refused */
        xchg_sched *other = check_generate("hypercube:2", "allgather-hc");
        xchg_op g = {XCHG_OP_ALLGATHER, 0, 0, 0};
        if (other)
            CHECK(xchg_sched_append(one, other, &g) == XCHG_EINVAL, "other topology refused");
        CHECK(xchg_sched_nphases(one) == 1 && xchg_sched_nsteps(one) == 3, "left unchanged");
        xchg_sched_free(one);
    }
}

/* A hand-made schedule of op on hypercube:D from XOR steps: mask[i] is the
 * partner, rule DEST_MASK_TO(rmask[i]), declared size size[i]. */
static xchg_sched *by_hand(int D, xchg_op op, int n, const uint32_t *mask, const uint32_t *rmask,
                           const uint64_t *size)
{
    char spec[32];
    snprintf(spec, sizeof spec, "hypercube:%d", D);
    xchg_topo t = check_topo(spec);
    xchg_sched *s = xchg_sched_new(&t, "by-hand", 1);
    s->op = op;
    for (int i = 0; i < n; i++) {
        xchg_step st = xchg_step_xor(mask[i], xchg_rule_dest_mask_to(rmask[i]), size[i]);
        CHECK(xchg_sched_add(s, &st) == 0, "add");
    }
    return s;
}

/* The verifier catches what a wrong schedule does to contributions. */
static void test_wrong(void)
{
    xchg_op bc = {XCHG_OP_BCAST, 0, 0, 0}, ar = {XCHG_OP_ALLREDUCE, 0, 0, 0},
            ag = {XCHG_OP_ALLGATHER, 0, 0, 0}, rd = {XCHG_OP_REDUCE, 0, 0, 0};
    /* a butterfly all-reduce that crosses bit 0 twice and never bit 1: in
     * real buffers node 0 ends with 2(x0 + x1), counting both twice and
     * missing x2, x3. The second step finds nothing to send though it
     * declares a block, and half the contributions never arrive. */
    uint32_t m1[] = {1, 1}, r1[] = {1, 1};
    uint64_t one[] = {1, 1, 1};
    xchg_sched *s = by_hand(2, ar, 2, m1, r1, one);
    xchg_verify_report r = check_verify(s);
    CHECK(!r.ok && r.undelivered == 8 && r.size_mismatches == 4,
          "double-counting all-reduce: ok %d undelivered %llu sizes %llu", r.ok,
          (unsigned long long)r.undelivered, (unsigned long long)r.size_mismatches);
    xchg_sched_free(s);
    /* the right butterfly passes */
    uint32_t m2[] = {1, 2}, r2[] = {1, 2};
    s = by_hand(2, ar, 2, m2, r2, one);
    r = check_verify(s);
    CHECK(r.ok && r.volume_blocks == 2, "butterfly all-reduce passes: %s",
          r.reported ? r.msgs[0] : "");
    xchg_sched_free(s);

    /* an all-gather that declares one block a step: the second step
     * carries two origins */
    s = by_hand(2, ag, 2, m2, r2, one);
    r = check_verify(s);
    CHECK(!r.ok && r.undelivered == 0 && r.size_mismatches == 4,
          "mis-sized all-gather: undelivered %llu sizes %llu", (unsigned long long)r.undelivered,
          (unsigned long long)r.size_mismatches);
    xchg_sched_free(s);

    /* a broadcast that stops a step early: half the nodes never get it
     * (every node sends, so the sizes are wrong too) */
    uint32_t m3[] = {4, 2}, r3[] = {4, 2};
    s = by_hand(3, bc, 2, m3, r3, one);
    r = check_verify(s);
    CHECK(!r.ok && r.undelivered == 4, "short broadcast: undelivered %llu",
          (unsigned long long)r.undelivered);
    xchg_sched_free(s);

    /* a reduction where everybody sends everything to its partner twice:
     * contributions bounce and end away from the root */
    uint32_t m4[] = {1, 1}, r4[] = {0, 0};
    s = by_hand(1, rd, 2, m4, r4, one);
    r = check_verify(s);
    CHECK(!r.ok && r.undelivered == 1, "bouncing reduction: undelivered %llu",
          (unsigned long long)r.undelivered);
    xchg_sched_free(s);
}

int main(void)
{
    test_api();
    test_hypercube();
    test_scan_any_p();
    test_tree();
    test_phases();
    test_wrong();
    return check_finish("test_ops");
}
