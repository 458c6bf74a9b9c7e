/*
 * test_verify.c - the verifier (src/check/verify.c) on schedules built by hand:
 * correct ones on every topology kind (it must pass them and count
 * start-ups, volume, link load and hops as worked out below), and broken
 * ones it must catch, each asserting the precise counter and message.
 *
 * The hand-built algorithms (derivations in the comments):
 *   hc-standard  XOR 2^j, blocks whose dest agrees with the partner on bit
 *                j, p/2 each, j = D-1..0 (seed 004 section 4.5.3);
 *   ring         p-1 steps, everyone sends to the +1 neighbour the blocks
 *                not bound for itself; at step k that is p-k blocks
 *                (only the blocks of origin n-k+1 are still travelling);
 *   2-phase      ring along the last dimension, then along the first
 *                (torus, and with wrap-around partners on a mesh/array);
 *   two-way      on an array, alternate +1 steps carrying right-bound
 *                blocks and -1 steps carrying left-bound blocks;
 *   direct       step k sends block (n, n+k mod p) straight there;
 *   bruck        step k shifts by 2^k the blocks whose (dest-origin) mod p
 *                has bit k set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"


/* Verify with the given thread count; checks the call itself succeeded. */
static xchg_verify_report verify(const xchg_sched *s, int threads)
{
    xchg_verify_report r;
    xchg_err err = {{0}};
    xchg_verify_opts o = {.threads = threads, .max_work = 0};
    memset(&r, 0xff, sizeof r); /* the verifier must fill every field */
    int rc = xchg_verify(s, &o, &r, &err);
    CHECK(rc == 0, "xchg_verify on %s returned %d: %s", xchg_sched_algorithm(s), rc, err.msg);
    return r;
}

/* Uniform-size per-node table helper: p entries all v. */
static uint32_t *table_of(uint32_t p, uint32_t v)
{
    uint32_t *t = malloc(p * sizeof *t);
    for (uint32_t i = 0; i < p; i++)
        t[i] = v;
    return t;
}

/* hc-standard by hand; skip_bit >= 0 leaves that bit's step out. */
static xchg_sched *hc_standard(const xchg_topo *t, int cf, int skip_bit)
{
    xchg_sched *s = xchg_sched_new(t, "hc-standard(test)", cf);
    int D = 0;
    while ((1u << D) < t->nodes)
        D++;
    for (int j = D - 1; j >= 0; j--) {
        if (j == skip_bit)
            continue;
        xchg_step st = xchg_step_xor(1u << j, xchg_rule_dest_mask_to(1u << j), t->nodes / 2);
        xchg_sched_add(s, &st);
    }
    return s;
}

/* Ring along dimension dim of t, appended to s: size-1 steps of +1 shifts,
 * each carrying the blocks whose coordinate along dim is not the holder's;
 * at step k that is (p/size)*(size-k) blocks. coord_ne picks the rule
 * (COORD_NE or COORD_DIST over [1, size-1], the same set). */
static void add_ring_phase(xchg_sched *s, int dim, int coord_ne)
{
    const xchg_topo *t = &s->topo;
    uint32_t n = t->size[dim], rest = t->nodes / n;
    for (uint32_t k = 1; k < n; k++) {
        xchg_rule r = coord_ne ? xchg_rule_coord_ne(dim) : xchg_rule_coord_dist(dim, +1, 1, n - 1);
        xchg_step st = xchg_step_shift(dim, +1, r, (uint64_t)rest * (n - k));
        xchg_sched_add(s, &st);
    }
}

/* Direct exchange over ids: step k sends (n, n+k) to n+k, one block. */
static void add_direct(xchg_sched *s)
{
    for (uint32_t k = 1; k < s->topo.nodes; k++) {
        xchg_step st = xchg_step_shift(-1, k, xchg_rule_dest_is_to(), 1);
        xchg_sched_add(s, &st);
    }
}

/* Check the counters every correct contention-free schedule must show. */
static void expect_clean(const xchg_verify_report *r, const char *what)
{
    CHECK(r->ok == 1, "%s: ok (first message: %s)", what, r->reported ? r->msgs[0] : "-");
    CHECK_EQ_U64(r->failures, 0, what);
    CHECK_EQ_U64(r->undelivered, 0, what);
    CHECK_EQ_U64(r->size_mismatches, 0, what);
    CHECK_EQ_U64(r->port_violations, 0, what);
    CHECK_EQ_U64(r->route_failures, 0, what);
    CHECK_EQ_U64(r->reported, 0, what);
}

/* ---------------------------------------------------------------- */
/* Correct schedules                                                  */
/* ---------------------------------------------------------------- */

static void test_hypercube(void)
{
    for (int D = 0; D <= 7; D++) {
        char spec[32];
        snprintf(spec, sizeof spec, "hypercube:%d", D);
        xchg_topo t = check_topo(spec);
        uint64_t p = t.nodes;
        xchg_sched *s = hc_standard(&t, 1, -1);
        xchg_verify_report r = verify(s, 0);
        expect_clean(&r, spec);
        CHECK_EQ_U64(r.blocks, p * p, "blocks followed");
        CHECK_EQ_U64(r.steps, D, "steps");
        CHECK_EQ_U64(r.startups, D, "hc-standard start-ups = D");
        CHECK_EQ_U64(r.volume_blocks, (uint64_t)D * p / 2, "hc-standard volume = D p/2");
        CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "contention-free: link volume");
        CHECK_EQ_U64(r.link_conflicts, 0, "e-cube neighbours: no conflicts");
        CHECK_EQ_U64(r.max_link_messages, D > 0 ? 1 : 0, "one message per link");
        CHECK_EQ_U64(r.max_hops, D > 0 ? 1 : 0, "neighbours are one hop");
        xchg_sched_free(s);
    }
}

/* Callback rule standing for hc-standard's mask rule: step i works on bit
 * D-1-i; ctx holds D. */
static int hc_fn(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)origin;
    int j = *(const int *)ctx - 1 - (int)step;
    return ((dest ^ node) >> j & 1u) != 0;
}

static void test_callback_rule(void)
{
    static int D = 6;
    xchg_topo t = check_topo("hypercube:6");
    xchg_sched *a = hc_standard(&t, 1, -1);
    xchg_sched *b = xchg_sched_new(&t, "hc-standard(fn)", 1);
    b->ctx = &D;
    for (int j = D - 1; j >= 0; j--) {
        xchg_step st = xchg_step_xor(1u << j, xchg_rule_fn(hc_fn), t.nodes / 2);
        xchg_sched_add(b, &st);
    }
    xchg_verify_report ra = verify(a, 2), rb = verify(b, 2);
    expect_clean(&rb, "callback rule");
    CHECK_EQ_U64(rb.volume_blocks, ra.volume_blocks, "callback = mask rule volume");
    CHECK_EQ_U64(rb.startups, ra.startups, "callback = mask rule start-ups");
    /* a callback that selects one block too many on node 9 at step 2 */
    b->steps[2].blocks_table = table_of(t.nodes, t.nodes / 2);
    b->steps[2].blocks_table[9] = t.nodes / 2 + 1;
    xchg_verify_report rc = verify(b, 2);
    CHECK_EQ_U64(rc.size_mismatches, 1, "declared size off on one node");
    CHECK(rc.reported >= 1 &&
              strcmp(rc.msgs[0], "step 2 node 9 declares 33 blocks but holds and selects 32") == 0,
          "message: %s", rc.reported ? rc.msgs[0] : "-");
    xchg_sched_free(a);
    xchg_sched_free(b);
}

static void test_ring(void)
{
    static const uint32_t sizes[] = {2, 3, 5, 8, 13};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char spec[32];
        uint64_t P = sizes[i];
        snprintf(spec, sizeof spec, "ring:%u", sizes[i]);
        xchg_topo t = check_topo(spec);
        xchg_sched *s = xchg_sched_new(&t, "ring(test)", 1);
        add_ring_phase(s, 0, 0);
        xchg_verify_report r = verify(s, 0);
        expect_clean(&r, spec);
        CHECK_EQ_U64(r.startups, P - 1, "ring start-ups p-1");
        CHECK_EQ_U64(r.volume_blocks, P * (P - 1) / 2, "ring volume p(p-1)/2");
        CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "ring: link volume = volume");
        CHECK_EQ_U64(r.max_hops, 1, "ring: neighbours");
        CHECK_EQ_U64(r.max_link_messages, 1, "ring: one message per link");
        xchg_sched_free(s);
    }
}

static void test_torus(void)
{
    static const char *const specs[] = {"torus:2x3", "torus:3x4", "torus:4x4", "torus:2x2x3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        xchg_topo t = check_topo(specs[i]);
        xchg_sched *s = xchg_sched_new(&t, "dim-rings(test)", 1);
        uint64_t vol = 0, ups = 0;
        for (int dim = t.ndims - 1; dim >= 0; dim--) {
            add_ring_phase(s, dim, 1);
            uint64_t n = t.size[dim], rest = t.nodes / n;
            ups += n - 1;
            vol += rest * n * (n - 1) / 2;
        }
        xchg_verify_report r = verify(s, 3);
        expect_clean(&r, specs[i]);
        CHECK_EQ_U64(r.startups, ups, "torus start-ups sum(Ni-1)");
        CHECK_EQ_U64(r.volume_blocks, vol, "torus volume sum (p/Ni) Ni(Ni-1)/2");
        CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "torus: link volume = volume");
        CHECK_EQ_U64(r.max_hops, 1, "torus: neighbours");
        xchg_sched_free(s);
    }
}

/* On a mesh or array the +1 shift wraps: the last node's message goes the
 * long way back, size-1 hops over the -1 links, which nobody else uses. */
static void test_mesh_long_way(void)
{
    xchg_topo t = check_topo("array:6");
    xchg_sched *s = xchg_sched_new(&t, "ring-on-array(test)", 1);
    add_ring_phase(s, 0, 0);
    xchg_verify_report r = verify(s, 2);
    expect_clean(&r, "array:6");
    CHECK_EQ_U64(r.max_hops, 5, "array:6 wrap message goes 5 hops back");
    CHECK_EQ_U64(r.link_conflicts, 0, "array:6 no conflicts");
    CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "array:6 link volume");
    CHECK_EQ_U64(r.volume_blocks, 15, "array:6 volume 6*5/2");
    xchg_sched_free(s);

    t = check_topo("mesh:3x5");
    s = xchg_sched_new(&t, "dim-rings-on-mesh(test)", 1);
    add_ring_phase(s, 1, 1);
    add_ring_phase(s, 0, 0);
    r = verify(s, 2);
    expect_clean(&r, "mesh:3x5");
    CHECK_EQ_U64(r.max_hops, 4, "mesh:3x5 longest wrap is 4 hops");
    CHECK_EQ_U64(r.startups, 4 + 2, "mesh:3x5 start-ups");
    CHECK_EQ_U64(r.volume_blocks, 3 * 10 + 5 * 3, "mesh:3x5 volume");
    CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "mesh:3x5 link volume");
    xchg_sched_free(s);
}

/* Two-way array exchange with COORD_SIDE rules. Round k = 1..P-1: a +1
 * step where node c (c >= k-1) forwards origin c-k+1's P-1-c right-bound
 * blocks, then a -1 step where node c (c <= P-k) forwards origin c+k-1's c
 * left-bound blocks; other nodes declare 0 (idle, so the wrapping partner of
 * the end node is never used). Volume 2 sum_k (P-k) = P(P-1). */
static void test_array_two_way(void)
{
    const uint32_t P = 7;
    xchg_topo t = check_topo("array:7");
    xchg_sched *s = xchg_sched_new(&t, "two-way(test)", 1);
    for (uint32_t k = 1; k < P; k++) {
        xchg_step a = xchg_step_shift(0, +1, xchg_rule_coord_side(0, +1), 0);
        xchg_step b = xchg_step_shift(0, -1, xchg_rule_coord_side(0, -1), 0);
        a.blocks_table = table_of(P, 0);
        b.blocks_table = table_of(P, 0);
        for (uint32_t c = 0; c < P; c++) {
            a.blocks_table[c] = c + 1 >= k ? P - 1 - c : 0;
            b.blocks_table[c] = c + k <= P ? c : 0;
        }
        xchg_sched_add(s, &a);
        xchg_sched_add(s, &b);
    }
    xchg_verify_report r = verify(s, 2);
    expect_clean(&r, "array:7 two-way");
    CHECK_EQ_U64(r.startups, 2 * (P - 1), "two-way start-ups");
    CHECK_EQ_U64(r.volume_blocks, P * (P - 1), "two-way volume P(P-1)");
    CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks, "two-way link volume");
    CHECK_EQ_U64(r.max_hops, 1, "two-way: idle wrap partner not routed");
    xchg_sched_free(s);
}

static void test_complete(void)
{
    xchg_topo t = check_topo("complete:9");
    xchg_sched *s = xchg_sched_new(&t, "direct(test)", 1);
    add_direct(s);
    xchg_verify_report r = verify(s, 0);
    expect_clean(&r, "complete:9 direct");
    CHECK_EQ_U64(r.startups, 8, "direct start-ups");
    CHECK_EQ_U64(r.volume_blocks, 8, "direct volume");
    CHECK_EQ_U64(r.link_volume_blocks, 8, "complete: link volume is the largest message");
    CHECK_EQ_U64(r.max_hops, 1, "complete: one hop");
    CHECK_EQ_U64(r.max_link_messages, 0, "complete: no links");
    xchg_sched_free(s);

    /* hc-standard on a switch: no links, so no contention either */
    t = check_topo("complete:16");
    s = hc_standard(&t, 1, -1);
    r = verify(s, 2);
    expect_clean(&r, "complete:16 hc-standard");
    CHECK_EQ_U64(r.volume_blocks, 32, "complete:16 hc-standard volume");
    CHECK_EQ_U64(r.link_volume_blocks, 32, "complete:16 link volume");
    xchg_sched_free(s);
}

/* Bruck (radix 2) with REL_DIGIT rules on p nodes: a node holds one block
 * per (dest-origin) value, so step k carries #{r < p : bit k of r}. */
static xchg_sched *bruck(const xchg_topo *t, int cf, uint64_t *vol)
{
    xchg_sched *s = xchg_sched_new(t, "bruck(test)", cf);
    *vol = 0;
    for (uint32_t w = 1; w < t->nodes; w *= 2) {
        uint64_t n = 0;
        for (uint32_t r = 0; r < t->nodes; r++)
            n += (r / w) % 2;
        xchg_step st = xchg_step_shift(-1, w, xchg_rule_rel_digit(2, w, 1), n);
        xchg_sched_add(s, &st);
        *vol += n;
    }
    return s;
}

static void test_bruck(void)
{
    uint64_t vol;
    xchg_topo t = check_topo("complete:6");
    xchg_sched *s = bruck(&t, 1, &vol);
    xchg_verify_report r = verify(s, 2);
    expect_clean(&r, "complete:6 bruck");
    CHECK_EQ_U64(r.startups, 3, "bruck on 6: ceil(log2 6) start-ups");
    CHECK_EQ_U64(r.volume_blocks, vol, "bruck volume");
    CHECK_EQ_U64(vol, 3 + 2 + 2, "bruck on 6: 3+2+2 blocks");
    xchg_sched_free(s);

    /* On ring:8 the shifts by 2 and 4 go 2 and 4 hops the +1 way, so every +1
     * link carries 2, then 4 messages of 4 blocks: 8 + 8 conflicts. Not
     * claimed contention-free: counted, not failed. */
    t = check_topo("ring:8");
    s = bruck(&t, 0, &vol);
    r = verify(s, 2);
    expect_clean(&r, "ring:8 bruck");
    CHECK_EQ_U64(r.link_conflicts, 16, "ring:8 bruck conflicts");
    CHECK_EQ_U64(r.max_link_messages, 4, "ring:8 bruck busiest link");
    CHECK_EQ_U64(r.volume_blocks, 12, "ring:8 bruck volume");
    CHECK_EQ_U64(r.link_volume_blocks, 4 + 2 * 4 + 4 * 4, "ring:8 bruck link volume");
    CHECK_EQ_U64(r.max_hops, 4, "ring:8 bruck longest route");
    xchg_sched_free(s);
}

/* hc-standard on torus:4x4 without the claim: bits 1 and 3 pair nodes two
 * apart in a ring of 4, both going +1 (tie), so every +1 link of that
 * dimension carries 2 messages of 8 blocks: 16 conflicts per such step.
 * With the claim the same conflicts are failures. */
static void test_xor_on_torus(void)
{
    xchg_topo t = check_topo("torus:4x4");
    xchg_sched *s = hc_standard(&t, 0, -1);
    xchg_verify_report r = verify(s, 2);
    expect_clean(&r, "torus:4x4 hc-standard unclaimed");
    CHECK_EQ_U64(r.link_conflicts, 32, "torus:4x4 conflicts");
    CHECK_EQ_U64(r.max_link_messages, 2, "torus:4x4 busiest link");
    CHECK_EQ_U64(r.volume_blocks, 32, "torus:4x4 volume");
    CHECK_EQ_U64(r.link_volume_blocks, 16 + 8 + 16 + 8, "torus:4x4 link volume");
    CHECK_EQ_U64(r.max_hops, 2, "torus:4x4 longest route");
    s->contention_free = 1;
    r = verify(s, 1);
    CHECK(r.ok == 0, "claimed contention-free with conflicts must fail");
    CHECK_EQ_U64(r.failures, 32, "torus:4x4 claimed: failures are the conflicts");
    CHECK_EQ_U64(r.undelivered, 0, "torus:4x4 claimed: delivered");
    CHECK(r.reported == XCHG_VERIFY_MAX_REPORTED, "reported %d", r.reported);
    xchg_sched_free(s);
}

/* ---------------------------------------------------------------- */
/* Broken schedules                                                   */
/* ---------------------------------------------------------------- */

/* Leaving out bit 0 of hc-standard on a 4-cube strands every block whose
 * origin and dest differ in bit 0: p*p/2 = 128 blocks. */
static void test_missing_step(void)
{
    xchg_topo t = check_topo("hypercube:4");
    xchg_sched *s = hc_standard(&t, 1, 0);
    xchg_verify_report r = verify(s, 2);
    CHECK(r.ok == 0, "missing step must fail");
    CHECK_EQ_U64(r.undelivered, 128, "undelivered blocks");
    CHECK_EQ_U64(r.failures, 128, "failures = undelivered");
    CHECK_EQ_U64(r.size_mismatches, 0, "sizes still right");
    CHECK_EQ_U64(r.port_violations, 0, "ports still right");
    CHECK_EQ_U64(r.startups, 3, "three steps left");
    CHECK_EQ_U64(r.reported, XCHG_VERIFY_MAX_REPORTED, "reports capped");
    CHECK(strcmp(r.msgs[0], "block (0,1) ended at node 0") == 0, "first: %s", r.msgs[0]);
    CHECK(strcmp(r.msgs[1], "block (0,3) ended at node 2") == 0, "second: %s", r.msgs[1]);
    xchg_sched_free(s);
}

static void test_wrong_size(void)
{
    xchg_topo t = check_topo("hypercube:3");
    xchg_sched *s = hc_standard(&t, 1, -1);
    s->steps[1].blocks = 5; /* every node at step 1 claims 5, holds and selects 4 */
    xchg_verify_report r = verify(s, 2);
    CHECK(r.ok == 0, "wrong size must fail");
    CHECK_EQ_U64(r.size_mismatches, 8, "every node of step 1");
    CHECK_EQ_U64(r.failures, 8, "failures = mismatches");
    CHECK_EQ_U64(r.undelivered, 0, "blocks still delivered");
    CHECK(strcmp(r.msgs[0], "step 1 node 0 declares 5 blocks but holds and selects 4") == 0,
          "message: %s", r.msgs[0]);
    xchg_sched_free(s);

    /* A node claiming to send blocks it does not hold: the first step of a
     * ring schedule declaring more than the node's p-1 blocks on node 3. */
    t = check_topo("ring:5");
    s = xchg_sched_new(&t, "ring(test)", 1);
    add_ring_phase(s, 0, 0);
    s->steps[0].blocks_table = table_of(5, 4);
    s->steps[0].blocks_table[3] = 6;
    r = verify(s, 1);
    CHECK_EQ_U64(r.size_mismatches, 1, "one node over-declares");
    CHECK_EQ_U64(r.failures, 1, "one failure");
    CHECK(strcmp(r.msgs[0], "step 0 node 3 declares 6 blocks but holds and selects 4") == 0,
          "message: %s", r.msgs[0]);
    xchg_sched_free(s);
}

/* Direct exchange on complete:4 with blocks (1,0) and (2,0) sent early, in
 * a step where nodes 1 and 2 both send to node 0; the direct steps that
 * would have carried them (k=3 for node 1, k=2 for node 2) declare 0. */
static void test_two_senders(void)
{
    xchg_topo t = check_topo("complete:4");
    xchg_sched *s = xchg_sched_new(&t, "two-senders(test)", 1);
    xchg_step st = xchg_step_xor(0, xchg_rule_dest_is_to(), 1);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = table_of(4, XCHG_NONE);
    st.partner_table[1] = 0;
    st.partner_table[2] = 0;
    xchg_sched_add(s, &st);
    add_direct(s);
    s->steps[3].blocks_table = table_of(4, 1);
    s->steps[3].blocks_table[1] = 0;
    s->steps[2].blocks_table = table_of(4, 1);
    s->steps[2].blocks_table[2] = 0;
    xchg_verify_report r = verify(s, 2);
    CHECK(r.ok == 0, "two senders must fail");
    CHECK_EQ_U64(r.port_violations, 1, "one receiver with two messages");
    CHECK_EQ_U64(r.failures, 1, "only the port violation");
    CHECK_EQ_U64(r.undelivered, 0, "all delivered");
    CHECK(strcmp(r.msgs[0], "step 0 node 0 receives 2 messages (from 1, 2)") == 0, "message: %s",
          r.msgs[0]);
    xchg_sched_free(s);
}

/* Ring schedule on ring:8 preceded by a step where node 0 sends (0,2) and
 * node 1 sends (1,3), each 2 hops +1: both cross link 1->2. The ring steps
 * that would have carried those blocks declare one block less: step 1 on
 * nodes 0 and 1, step 2 on nodes 1 and 2. */
static xchg_sched *ring_overlap(int cf)
{
    xchg_topo t = check_topo("ring:8");
    xchg_sched *s = xchg_sched_new(&t, "ring-overlap(test)", cf);
    xchg_step st = xchg_step_xor(0, xchg_rule_dest_is_to(), 1);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = table_of(8, XCHG_NONE);
    st.partner_table[0] = 2;
    st.partner_table[1] = 3;
    xchg_sched_add(s, &st);
    add_ring_phase(s, 0, 0);
    s->steps[1].blocks_table = table_of(8, 7);
    s->steps[1].blocks_table[0] = s->steps[1].blocks_table[1] = 6;
    s->steps[2].blocks_table = table_of(8, 6);
    s->steps[2].blocks_table[1] = s->steps[2].blocks_table[2] = 5;
    return s;
}

static void test_link_contention(void)
{
    xchg_sched *s = ring_overlap(1);
    xchg_verify_report r = verify(s, 2);
    CHECK(r.ok == 0, "claimed contention-free with an overlap must fail");
    CHECK_EQ_U64(r.link_conflicts, 1, "link 1->2 at step 0");
    CHECK_EQ_U64(r.failures, 1, "only the conflict");
    CHECK_EQ_U64(r.max_link_messages, 2, "two messages on it");
    CHECK_EQ_U64(r.size_mismatches, 0, "declared sizes account for the early blocks");
    CHECK_EQ_U64(r.undelivered, 0, "delivered");
    CHECK_EQ_U64(r.max_hops, 2, "two-hop messages");
    CHECK_EQ_U64(r.link_volume_blocks, r.volume_blocks + 1, "link 1->2 carries 2 blocks");
    CHECK(strcmp(r.msgs[0], "step 0 link 1->2 (dim 0) carries 2 messages (0->2, 1->3) in a "
                            "contention-free schedule") == 0,
          "message: %s", r.msgs[0]);
    xchg_sched_free(s);

    s = ring_overlap(0);
    r = verify(s, 2);
    expect_clean(&r, "same overlap, not claimed");
    CHECK_EQ_U64(r.link_conflicts, 1, "still counted");
    CHECK_EQ_U64(r.max_link_messages, 2, "still counted");
    xchg_sched_free(s);
}

/* Direct exchange on complete:4 after a step where node 0 "sends" all its 4
 * blocks to a bad partner (7, then itself): the blocks stay, so only the
 * partner is wrong. */
static void test_bad_partner(void)
{
    static const uint32_t bad[] = {7, 0};
    static const char *const want[] = {"step 0 node 0 sends 4 blocks to 7, not a node (p = 4)",
                                       "step 0 node 0 sends 4 blocks to itself"};
    for (int i = 0; i < 2; i++) {
        xchg_topo t = check_topo("complete:4");
        xchg_sched *s = xchg_sched_new(&t, "bad-partner(test)", 1);
        xchg_step st = xchg_step_xor(0, xchg_rule_dest_mask_to(0), 4);
        st.partner = XCHG_PARTNER_TABLE;
        st.partner_table = table_of(4, XCHG_NONE);
        st.partner_table[0] = bad[i];
        xchg_sched_add(s, &st);
        add_direct(s);
        xchg_verify_report r = verify(s, 2);
        CHECK(r.ok == 0, "bad partner must fail");
        CHECK_EQ_U64(r.port_violations, 1, "bad partner is a port violation");
        CHECK_EQ_U64(r.failures, 1, "only that");
        CHECK_EQ_U64(r.size_mismatches, 0, "node 0 does hold and select 4");
        CHECK(strcmp(r.msgs[0], want[i]) == 0, "message: %s", r.msgs[0]);
        xchg_sched_free(s);
    }
    /* a declared-0 message to a bad partner is idle: no failure */
    xchg_topo t = check_topo("complete:4");
    xchg_sched *s = xchg_sched_new(&t, "idle-bad-partner(test)", 1);
    xchg_step st = xchg_step_xor(0, xchg_rule_dest_is_to(), 0);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = table_of(4, XCHG_NONE);
    st.partner_table[0] = 9;
    xchg_sched_add(s, &st);
    add_direct(s);
    xchg_verify_report r = verify(s, 1);
    expect_clean(&r, "declared-0 message to node 9 is idle");
    xchg_sched_free(s);
}

/* A hand-made, inconsistent "array" of 8 ids but size 4: id 6 has
 * coordinate 2, so the route 1->6 ends at node 2. */
static void test_route_failure(void)
{
    xchg_topo t;
    memset(&t, 0, sizeof t);
    t.kind = XCHG_TOPO_ARRAY;
    t.ndims = 1;
    t.size[0] = 4;
    t.stride[0] = 1;
    t.nodes = 8;
    xchg_sched *s = xchg_sched_new(&t, "broken-check_topo(test)", 0);
    xchg_step st = xchg_step_xor(0, xchg_rule_dest_is_to(), 1);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = table_of(8, XCHG_NONE);
    st.partner_table[1] = 6;
    xchg_sched_add(s, &st);
    xchg_verify_report r = verify(s, 1);
    CHECK_EQ_U64(r.route_failures, 1, "route 1->6 misses");
    CHECK_EQ_U64(r.undelivered, 64 - 8 - 1, "only (i,i) and (1,6) delivered");
    CHECK(strcmp(r.msgs[0], "step 0 route 1->6 ends at node 2 after 1 hops") == 0, "message: %s",
          r.msgs[0]);
    xchg_sched_free(s);
}

static void test_limits_and_errors(void)
{
    xchg_topo t = check_topo("hypercube:3"); /* 64 blocks, 3 steps: 192 block-steps */
    xchg_sched *s = hc_standard(&t, 1, -1);
    xchg_verify_report r;
    memset(&r, 0, sizeof r);
    xchg_err err = {{0}};
    xchg_verify_opts o = {.threads = 1, .max_work = 191};
    int rc = xchg_verify(s, &o, &r, &err);
    CHECK(rc == XCHG_ETOOBIG, "191 < 192 block-steps: got %d", rc);
    CHECK(strstr(err.msg, "max_work") != NULL && strstr(err.msg, "hypercube:3") != NULL,
          "message names the limit and topology: %s", err.msg);
    o.max_work = 192;
    rc = xchg_verify(s, &o, &r, &err);
    CHECK(rc == 0 && r.ok, "exactly at the limit runs");
    o.max_work = 10;
    rc = xchg_verify(s, &o, &r, NULL);
    CHECK(rc == XCHG_ETOOBIG, "tiny max_work, NULL err: got %d", rc);
    CHECK(xchg_verify(NULL, NULL, &r, &err) == XCHG_EINVAL, "NULL schedule");
    CHECK(xchg_verify(s, NULL, NULL, &err) == XCHG_EINVAL, "NULL report");
    s->steps[0].rule = xchg_rule_coord_ne(5);
    rc = xchg_verify(s, NULL, &r, &err);
    CHECK(rc == XCHG_EINVAL && strstr(err.msg, "dimension 5") != NULL, "bad rule dim: %d %s", rc,
          err.msg);
    xchg_sched_free(s);

    /* the default limit (2e10) refuses hc-standard on a 20-cube up front */
    t = check_topo("hypercube:20");
    s = hc_standard(&t, 1, -1);
    rc = xchg_verify(s, NULL, &r, &err);
    CHECK(rc == XCHG_ETOOBIG, "hypercube:20 over the default limit: %d", rc);
    xchg_sched_free(s);
}

/* The report must not depend on the thread count (failures included). */
static void test_threads_agree(void)
{
    xchg_topo t = check_topo("hypercube:6");
    xchg_sched *s = hc_standard(&t, 1, 2);
    s->steps[1].blocks_table = table_of(64, 32);
    s->steps[1].blocks_table[40] = 31;
    xchg_verify_report base = verify(s, 1);
    CHECK(base.undelivered > 0 && base.size_mismatches > 0, "broken on purpose");
    static const int th[] = {2, 3, 5, 64, 1000};
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++) {
        xchg_verify_report r = verify(s, th[i]);
        CHECK(memcmp(&r, &base, sizeof r) == 0, "report with %d threads differs", th[i]);
    }
    xchg_sched_free(s);
}

/* Message-level mode: the same checks of routes, ports and links as a full
 * run, start-ups and volume from the declared sizes, and no block followed,
 * so a missing step (undelivered blocks) is not seen. */
static void test_messages_only(void)
{
    xchg_err err = {{0}};
    xchg_verify_report r;
    xchg_verify_opts mo = {.threads = 2, .max_work = 0, .messages_only = 1};

    xchg_sched *s = ring_overlap(1);
    memset(&r, 0xff, sizeof r);
    CHECK(xchg_verify(s, &mo, &r, &err) == 0, "messages only: %s", err.msg);
    xchg_verify_report full = verify(s, 2);
    CHECK(r.messages_only == 1 && full.messages_only == 0, "mode reported");
    CHECK_EQ_U64(r.blocks, 0, "no block followed");
    CHECK(r.ok == 0, "the overlap is still caught");
    CHECK_EQ_U64(r.link_conflicts, full.link_conflicts, "same conflicts as a full run");
    CHECK_EQ_U64(r.link_volume_blocks, full.link_volume_blocks, "same link volume");
    CHECK_EQ_U64(r.startups, full.startups, "declared start-ups = counted ones here");
    CHECK_EQ_U64(r.volume_blocks, full.volume_blocks, "declared volume = counted one here");
    xchg_sched_free(s);

    xchg_topo t = check_topo("hypercube:4");
    s = hc_standard(&t, 1, 0);
    CHECK(xchg_verify(s, &mo, &r, &err) == 0, "messages only: %s", err.msg);
    CHECK(r.ok == 1 && r.undelivered == 0, "a missing step is invisible to the messages");
    CHECK_EQ_U64(r.startups, 3, "declared start-ups");
    CHECK_EQ_U64(r.volume_blocks, 24, "declared volume: 3 steps of 8");
    mo.max_work = 3 * 16 * 4 - 1; /* link hops: p * steps * (longest route, 4) = 192 */
    CHECK(xchg_verify(s, &mo, &r, &err) == XCHG_ETOOBIG, "limit on link hops");
    CHECK(strstr(err.msg, "link hops") != NULL, "message names the limit: %s", err.msg);
    CHECK(xchg_verify_check_work(&t, 3, &mo, &err) == XCHG_ETOOBIG,
          "the same refusal before the schedule is built");
    mo.max_work = 3 * 16 * 4;
    CHECK(xchg_verify_check_work(&t, 3, &mo, &err) == 0, "at the limit before it is built");
    CHECK(xchg_verify(s, &mo, &r, &err) == 0, "exactly at the limit runs");
    xchg_sched_free(s);
}

int main(void)
{
    test_hypercube();
    test_callback_rule();
    test_ring();
    test_torus();
    test_mesh_long_way();
    test_array_two_way();
    test_complete();
    test_bruck();
    test_xor_on_torus();
    test_missing_step();
    test_wrong_size();
    test_two_senders();
    test_link_contention();
    test_bad_partner();
    test_route_failure();
    test_limits_and_errors();
    test_threads_agree();
    test_messages_only();
    return check_finish("test_verify");
}
