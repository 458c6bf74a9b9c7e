/*
 * test_counts.c - count matrices and the model with uneven block sizes
 * (src/model/counts.c, src/model/cost_counts.c; docs/alltoallv.md): counts
 * files read and refused line by line, the named distributions, the
 * summary; uniform counts give xchg_cost_compute's figures for every
 * registry algorithm on several topologies; pairwise on sparse counts pays
 * a start-up only for the steps with a nonzero message; Bruck with a hot
 * rank, its step volumes worked out by hand; the simulator equals the cost
 * on counts without contention; the verifier weighs bytes; the planner
 * ranks by the counts' cost.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Relative closeness, for sums whose rounding may differ in the last bits. */
static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-300;
}

/* Parse text (NUL-terminated) for p nodes; the status, *out on success. */
static int parse(const char *text, uint32_t p, xchg_vcounts **out, xchg_err *err)
{
    return xchg_vcounts_parse(text, strlen(text), p, out, err);
}

/* A named matrix the test needs (a failed check when it is refused). */
static xchg_vcounts *named(const char *spec, uint32_t p, double m, uint64_t seed)
{
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    int rc = xchg_vcounts_named(spec, p, m, seed, &c, &err);
    CHECK(rc == 0 && c, "counts %s on %u nodes: %s", spec, (unsigned)p, err.msg);
    return c;
}

static void test_parse_good(void)
{
    const char *text = "# xchg counts p=3\n"
                       "# a comment line\n"
                       "\n"
                       "0 10\t20   # origin 0\r\n"
                       "  30 0 40\n"
                       "\t\n"
                       "50 60 0\n";
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    CHECK(parse(text, 3, &c, &err) == 0 && c, "good file: %s", err.msg);
    if (c) {
        uint64_t want[3][3] = {{0, 10, 20}, {30, 0, 40}, {50, 60, 0}};
        for (uint32_t i = 0; i < 3; i++)
            for (uint32_t j = 0; j < 3; j++)
                CHECK_EQ_U64(xchg_vcounts_get(c, i, j), want[i][j], "block (i,j)");
        CHECK_EQ_U64(xchg_vcounts_nodes(c), 3, "nodes");
        CHECK(xchg_vcounts_row(c, 1)[2] == 40 && xchg_vcounts_row(c, 3) == NULL, "rows");
        CHECK(xchg_vcounts_get(c, 3, 0) == 0 && xchg_vcounts_get(NULL, 0, 0) == 0,
              "out of range reads 0");
        xchg_vcounts_summary s;
        CHECK(xchg_vcounts_summarize(c, &s) == 0, "summary");
        CHECK_EQ_U64(s.total, 210, "total");
        CHECK_EQ_U64(s.max_block, 60, "largest block");
        CHECK_EQ_U64(s.nonzero, 6, "nonzero off the diagonal");
        CHECK(close_to(s.mean, 210.0 / 9), "mean %g", s.mean);
        CHECK_EQ_U64(s.max_send, 110, "largest row sum");
        CHECK_EQ_U64(s.max_recv, 80, "largest column sum");
        CHECK_EQ_U64(s.max_send_blocks, 2, "most nonzero blocks a row");
        CHECK(close_to(s.copy_block, 110.0 / 3), "copy block %g", s.copy_block);
        CHECK(xchg_vcounts_set(c, 0, 0, 7) == 0 && xchg_vcounts_get(c, 0, 0) == 7, "set");
        CHECK(xchg_vcounts_set(c, 0, 3, 7) == XCHG_EINVAL &&
                  xchg_vcounts_set(c, 0, 0, XCHG_VCOUNTS_MAX_BLOCK + 1) == XCHG_EINVAL,
              "set refuses out of range");
        xchg_vcounts_free(c);
    }
    /* p from the header, and from the first row */
    c = NULL;
    CHECK(parse("# xchg counts p=2\n1 2\n3 4\n", 0, &c, &err) == 0 && xchg_vcounts_nodes(c) == 2,
          "p from the header: %s", err.msg);
    xchg_vcounts_free(c);
    c = NULL;
    CHECK(parse("1 2\n3 4", 0, &c, &err) == 0 && xchg_vcounts_nodes(c) == 2 &&
              xchg_vcounts_get(c, 1, 1) == 4,
          "p from the first row, no final newline: %s", err.msg);
    xchg_vcounts_free(c);
    xchg_vcounts_free(NULL);
}

static void test_parse_bad(void)
{
    struct {
        const char *text;
        uint32_t p;
        const char *want; /* in the message */
    } bad[] = {
        {"1 2\n3\n", 2, "counts line 2: 1 number; accepted: 2"},
        {"1 2 3\n3 4\n", 2, "counts line 1: 3 numbers; accepted: 2"},
        {"1 2\n", 2, "1 row, 2 wanted"},
        {"1 2\n3 4\n5 6\n", 2, "counts line 3: a row more than the 2 wanted"},
        {"1 -2\n3 4\n", 2, "column 2: '-2' is negative"},
        {"1 x\n3 4\n", 2, "'x' is not a number"},
        {"1 2.5\n3 4\n", 2, "'2.5' is not a whole number"},
        {"1 1000000000000001\n3 4\n", 2, "is over the largest block"},
        {"1 99999999999999999999999\n3 4\n", 2, "is over the largest block"},
        {"# xchg counts p=3\n1 2\n3 4\n", 2, "the file is for p = 3 nodes, but 2"},
        {"# xchg counts p=x\n1 2\n3 4\n", 2, "is not a header"},
        {"# xchg counts p=2\n", 2, "0 rows, 2 wanted"},
        {"# only a comment\n\n", 0, "no rows"},
        {"", 2, "0 rows, 2 wanted"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xchg_vcounts *c = NULL;
        xchg_err err = {{0}};
        int rc = parse(bad[i].text, bad[i].p, &c, &err);
        CHECK(rc == XCHG_EINVAL && !c && strstr(err.msg, bad[i].want) &&
                  strstr(err.msg, "accepted"),
              "bad counts %zu: want '%s', got %d '%s'", i, bad[i].want, rc, err.msg);
        xchg_vcounts_free(c);
    }
    const char nul[] = "1 2\n3\0 4\n";
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_vcounts_parse(nul, sizeof nul - 1, 2, &c, &err) == XCHG_EINVAL &&
              strstr(err.msg, "line 2: a NUL byte"),
          "NUL byte: %s", err.msg);
}

static void test_named(void)
{
    uint32_t p = 8;
    double m = 1000;
    xchg_vcounts *u = named("uniform", p, m, 1);
    xchg_vcounts *r0 = named("random:0", p, m, 1);
    xchg_vcounts *r = named("random:50", p, m, 7), *r2 = named("random:50", p, m, 7);
    xchg_vcounts *r3 = named("random:50", p, m, 8);
    xchg_vcounts *h = named("hot:2", p, m, 1), *h3 = named("hot:2:3", p, m, 1);
    xchg_vcounts *s1 = named("sparse:1", p, m, 1), *s = named("sparse:0.25", p, m, 3);
    xchg_vcounts *s2 = named("sparse:0.25", p, m, 3);
    if (!u || !r0 || !r || !r2 || !r3 || !h || !h3 || !s1 || !s || !s2)
        goto out;
    int same_seed = 1, other_seed = 0, in_range = 1, sparse_ok = 1, sparse_same = 1;
    uint64_t zeros = 0;
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++) {
            CHECK_EQ_U64(xchg_vcounts_get(u, i, j), 1000, "uniform");
            CHECK_EQ_U64(xchg_vcounts_get(r0, i, j), 1000, "random:0 is uniform");
            CHECK_EQ_U64(xchg_vcounts_get(s1, i, j), 1000, "sparse:1 is uniform");
            uint64_t x = xchg_vcounts_get(r, i, j);
            in_range &= x >= 500 && x <= 1500;
            same_seed &= x == xchg_vcounts_get(r2, i, j);
            other_seed |= x != xchg_vcounts_get(r3, i, j);
            int hot = i == 2 || j == 2;
            CHECK_EQ_U64(xchg_vcounts_get(h, i, j), hot ? 8000 : 1000, "hot:2");
            CHECK_EQ_U64(xchg_vcounts_get(h3, i, j), hot ? 3000 : 1000, "hot:2:3");
            uint64_t y = xchg_vcounts_get(s, i, j);
            sparse_ok &= i == j ? y == 1000 : (y == 0 || y == 1000);
            sparse_same &= y == xchg_vcounts_get(s2, i, j);
            zeros += y == 0;
        }
    CHECK(in_range, "random:50 stays in [m/2, 3m/2]");
    CHECK(same_seed && other_seed, "random: one seed, one matrix; another seed, another");
    CHECK(sparse_ok && sparse_same, "sparse: diagonal m, the rest 0 or m, deterministic");
    CHECK(zeros > 20 && zeros < 56, "sparse:0.25 leaves most blocks 0 (%llu of 56)",
          (unsigned long long)zeros);
    xchg_vcounts *f = named("uniform", 3, 2.5, 1); /* rounded to whole bytes */
    CHECK(f && xchg_vcounts_get(f, 0, 1) == 3, "m = 2.5 rounds to 3 bytes");
    xchg_vcounts_free(f);

    const char *bad[] = {"random", "random:", "random:101", "random:-5", "random:nan",
                         "hot",    "hot:8",   "hot:x",      "hot:1:0",   "hot:1:-2",
                         "sparse:0", "sparse:1.5", "sparse", "zipf:1", "uniform:3", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xchg_vcounts *c = NULL;
        xchg_err err = {{0}};
        int rc = xchg_vcounts_named(bad[i], p, m, 1, &c, &err);
        CHECK(rc == XCHG_EINVAL && !c && strstr(err.msg, "accepted: uniform, random:X") &&
                  strstr(err.msg, "sparse:F"),
              "bad spec '%s': %d %s", bad[i], rc, err.msg);
    }
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_vcounts_named("uniform", p, -1, 1, &c, &err) == XCHG_EINVAL &&
              xchg_vcounts_named("hot:0", p, 2e14, 1, &c, &err) == XCHG_EINVAL &&
              xchg_vcounts_named("uniform", 0, 1, 1, &c, &err) == XCHG_EINVAL && !c,
          "bad m, a hot block over 1e15, p 0 refused");
out:
    xchg_vcounts_free(u);
    xchg_vcounts_free(r0);
    xchg_vcounts_free(r);
    xchg_vcounts_free(r2);
    xchg_vcounts_free(r3);
    xchg_vcounts_free(h);
    xchg_vcounts_free(h3);
    xchg_vcounts_free(s1);
    xchg_vcounts_free(s);
    xchg_vcounts_free(s2);
}

/* What test_uniform checks each schedule at: a machine, its barrier, m. */
typedef struct uctx {
    xchg_machine mach;
    double m;
    int exact; /* m a power of two: times equal to the last bit */
    int ran;
} uctx;

/* Uniform counts of m give xchg_cost_compute's figures, with and without
 * the barrier; the link time is xchg_cost_line's at m. */
static void uniform_one(const char *alg, const char *tspec, const xchg_topo *t, xchg_sched *s,
                        void *ctx)
{
    uctx *u = ctx;
    xchg_vcounts *c = named("uniform", t->nodes, u->m, 1);
    if (!c)
        return;
    for (int bar = 0; bar < 2; bar++) {
        xchg_cost pc;
        xchg_vcost vc;
        xchg_err err = {{0}};
        int rc1 = xchg_cost_compute(s, &u->mach, u->m, bar, &pc, &err);
        int rc2 = xchg_cost_vcounts(s, &u->mach, c, bar, &vc, &err);
        CHECK(rc1 == 0 && rc2 == 0, "%s on %s: %s", alg, tspec, err.msg);
        if (rc1 || rc2)
            continue;
        CHECK(vc.steps == pc.steps && vc.startups == pc.startups &&
                  vc.volume_bytes == (uint64_t)((double)pc.volume_blocks * u->m) &&
                  vc.copy_blocks == pc.copy_blocks,
              "%s on %s: counts (%llu, %llu B) against blocks (%llu, %llu)", alg, tspec,
              (unsigned long long)vc.startups, (unsigned long long)vc.volume_bytes,
              (unsigned long long)pc.startups, (unsigned long long)pc.volume_blocks);
        CHECK(u->exact ? vc.time == pc.time : close_to(vc.time, pc.time),
              "%s on %s, m = %g, barrier %d: time %.17g, xchg_cost_compute %.17g", alg, tspec,
              u->m, bar, vc.time, pc.time);
        CHECK(vc.lb_startups == pc.lb_startups &&
                  vc.lb_injection_bytes == (uint64_t)((double)pc.lb_injection_blocks * u->m),
              "%s on %s: the lower bounds are the plain ones", alg, tspec);
        xchg_line l;
        xchg_line_opts lo = {.with_barrier = bar, .threads = 1};
        if (xchg_cost_line(s, &u->mach, &lo, &l, &err) == 0 &&
            l.link_source != XCHG_LINK_UNMEASURED)
            CHECK(close_to(vc.link_time, xchg_line_time(&l, u->m)) &&
                      vc.link_volume_bytes == (uint64_t)((double)l.link_volume_blocks * u->m),
                  "%s on %s: link time %.17g, the line's %.17g", alg, tspec, vc.link_time,
                  xchg_line_time(&l, u->m));
    }
    u->ran++;
    xchg_vcounts_free(c);
}

static void test_uniform(void)
{
    const char *topos[] = {"complete:8", "ring:6", "torus:4x4", "hypercube:3", "mesh:3x4",
                           "complete:12"};
    double sizes[] = {1024, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uctx u;
        memset(&u, 0, sizeof u);
        CHECK(xchg_machine_preset("paragon", 16, &u.mach, NULL) == 0, "paragon");
        u.m = sizes[k];
        u.exact = sizes[k] == 1024;
        for (size_t i = 0; i < sizeof topos / sizeof topos[0]; i++)
            check_each_schedule(topos[i], uniform_one, &u);
        CHECK(u.ran > 40, "uniform == cost_compute over %d schedules", u.ran);
    }
}

/* Pairwise sends block (n, partner) straight: on sparse counts a step
 * costs a start-up only when some node's block to its partner has bytes. */
static void test_pairwise_sparse(void)
{
    const char *topos[] = {"complete:8", "complete:12"};
    for (size_t ti = 0; ti < 2; ti++) {
        xchg_sched *s = check_generate(topos[ti], "pairwise");
        xchg_topo t = check_topo(topos[ti]);
        xchg_vcounts *c = named("sparse:0.25", t.nodes, 4096, 5);
        if (!s || !c)
            goto next;
        uint64_t steps = 0, msgs = 0, big_sum = 0;
        for (size_t k = 0; k < xchg_sched_nsteps(s); k++) {
            uint64_t big = 0;
            for (uint32_t n = 0; n < t.nodes; n++) {
                xchg_msg msg;
                xchg_sched_message(s, k, n, &msg);
                uint64_t b = msg.to == XCHG_NONE ? 0 : xchg_vcounts_get(c, n, msg.to);
                msgs += b > 0;
                if (b > big)
                    big = b;
            }
            steps += big > 0;
            big_sum += big;
        }
        xchg_machine mach = check_machine(100, 0.01);
        xchg_vcost v;
        xchg_err err = {{0}};
        xchg_vcounts_summary sm;
        CHECK(xchg_cost_vcounts(s, &mach, c, 0, &v, &err) == 0 &&
                  xchg_vcounts_summarize(c, &sm) == 0,
              "pairwise on sparse: %s", err.msg);
        CHECK_EQ_U64(v.startups, steps, "pairwise start-ups = steps with a nonzero message");
        if (ti == 0) /* seed 5 leaves steps of complete:8 empty: the check bites */
            CHECK(v.startups < xchg_sched_nsteps(s), "some steps are empty (%llu of %zu)",
                  (unsigned long long)v.startups, xchg_sched_nsteps(s));
        CHECK_EQ_U64(v.messages, sm.nonzero, "pairwise sends one message per nonzero block");
        CHECK_EQ_U64(v.messages, msgs, "messages");
        CHECK_EQ_U64(v.volume_bytes, big_sum, "volume");
        uint64_t k = sm.max_send_blocks > sm.max_recv_blocks ? sm.max_send_blocks
                                                             : sm.max_recv_blocks;
        CHECK_EQ_U64(v.max_node_messages, sm.max_send_blocks, "most messages one node sends");
        CHECK_EQ_U64(v.lb_direct_startups, k, "direct bound");
        CHECK(v.lb_startups < v.lb_direct_startups && v.startups >= v.lb_direct_startups,
              "pairwise meets the direct bound, above the forwarding one");
        CHECK(close_to(v.time, (double)v.startups * 100 + (double)v.volume_bytes * 0.01),
              "time %.17g", v.time);
    next:
        xchg_sched_free(s);
        xchg_vcounts_free(c);
    }
}

/*
 * bruck:2 on complete:8 with rank 0 hot (hot:0, F = 8, m = 1024: row 0
 * and column 0 are 8192 bytes, the rest 1024). Block (o, d), r = d - o
 * mod 8, moves +2^k at step k when bit k of r is set, so before step k it
 * is at o + (r mod 2^k):
 *   step 0: node 0 sends its own blocks r = 1, 3, 5, 7: all of row 0,
 *           4*8192 = 32768; an odd node i also sends (i, 0): 8192 + 3*1024.
 *   step 1: r = 2, 6 from origin i and r = 3, 7 from origin i-1; node 0:
 *           (0,2) (0,6) hot, (7,2) (7,6) not: 18432, as nodes 1, 2, 6.
 *   step 2: every block node i sends goes to i+4: node 4 sends (1,0)
 *           (2,0) (3,0) (4,0), all of column 0: 32768.
 * Volume 32768 + 18432 + 32768 = 83968; copies 40 blocks at the heaviest
 * node's mean block, row 0's 65536/8 = 8192.
 */
static void test_bruck_hot(void)
{
    xchg_sched *s = check_generate("complete:8", "bruck:2");
    xchg_vcounts *c = named("hot:0", 8, 1024, 1);
    if (!s || !c)
        goto out;
    uint64_t bytes[3 * 8];
    xchg_err err = {{0}};
    CHECK(xchg_vcounts_messages(s, c, bytes, 3 * 8, &err) == 0, "messages: %s", err.msg);
    CHECK_EQ_U64(bytes[0 * 8 + 0], 32768, "step 0, node 0: all of row 0");
    CHECK_EQ_U64(bytes[0 * 8 + 1], 8192 + 3 * 1024, "step 0, node 1: (1,0) hot");
    CHECK_EQ_U64(bytes[0 * 8 + 2], 4 * 1024, "step 0, node 2: nothing hot");
    CHECK_EQ_U64(bytes[1 * 8 + 0], 2 * 8192 + 2 * 1024, "step 1, node 0");
    CHECK_EQ_U64(bytes[1 * 8 + 2], 2 * 8192 + 2 * 1024, "step 1, node 2: (1,0) (2,0)");
    CHECK_EQ_U64(bytes[1 * 8 + 3], 4 * 1024, "step 1, node 3");
    CHECK_EQ_U64(bytes[2 * 8 + 4], 32768, "step 2, node 4: all of column 0");
    CHECK_EQ_U64(bytes[2 * 8 + 1], 8192 + 3 * 1024, "step 2, node 1: (0,5) hot");
    CHECK_EQ_U64(bytes[2 * 8 + 5], 4 * 1024, "step 2, node 5: (2,1) .. (5,1), none hot");
    uint64_t small[3];
    CHECK(xchg_vcounts_messages(s, c, small, 3, &err) == XCHG_EINVAL, "too small an array");
    xchg_machine mach = check_machine(75, 0.011);
    mach.tr = 0.014;
    xchg_vcost v;
    CHECK(xchg_cost_vcounts(s, &mach, c, 0, &v, &err) == 0, "cost: %s", err.msg);
    CHECK_EQ_U64(v.startups, 3, "bruck start-ups");
    CHECK_EQ_U64(v.volume_bytes, 83968, "bruck volume on hot:0");
    CHECK_EQ_U64(v.max_message_bytes, 32768, "largest message");
    CHECK(v.copy_blocks == 40 && v.copy_bytes == 40 * 8192.0, "copies %llu, %g B",
          (unsigned long long)v.copy_blocks, v.copy_bytes);
    CHECK(close_to(v.time, 3 * 75 + 83968 * 0.011 + 40 * 8192 * 0.014), "time %.17g", v.time);
    CHECK(v.lb_injection_bytes == 7 * 8192 && v.lb_startups == 3 && v.lb_direct_startups == 7,
          "bounds: inject %llu, start-ups %llu, direct %llu",
          (unsigned long long)v.lb_injection_bytes, (unsigned long long)v.lb_startups,
          (unsigned long long)v.lb_direct_startups);
out:
    xchg_sched_free(s);
    xchg_vcounts_free(c);
}

/* Argument checks: NULLs, counts of another size, another operation. */
static void test_refusals(void)
{
    xchg_sched *s = check_generate("complete:8", "pairwise");
    xchg_vcounts *c4 = named("uniform", 4, 1, 1), *c8 = named("uniform", 8, 1, 1);
    xchg_machine mach = check_machine(1, 1);
    xchg_vcost v;
    xchg_err err = {{0}};
    if (s && c4 && c8) {
        CHECK(xchg_cost_vcounts(s, &mach, c4, 0, &v, &err) == XCHG_EINVAL &&
                  strstr(err.msg, "counts are for 4 nodes"),
              "counts of 4 nodes on 8: %s", err.msg);
        CHECK(xchg_cost_vcounts(NULL, &mach, c8, 0, &v, &err) == XCHG_EINVAL &&
                  xchg_cost_vcounts(s, NULL, c8, 0, &v, &err) == XCHG_EINVAL &&
                  xchg_cost_vcounts(s, &mach, NULL, 0, &v, &err) == XCHG_EINVAL,
              "NULL arguments");
        mach.ts = -1;
        CHECK(xchg_cost_vcounts(s, &mach, c8, 0, &v, &err) == XCHG_EINVAL, "bad machine");
        xchg_verify_opts vo = {.threads = 1, .counts = c4};
        xchg_verify_report rep;
        CHECK(xchg_verify(s, &vo, &rep, &err) == XCHG_EINVAL, "verify: counts of 4 on 8");
        vo.counts = c8;
        vo.messages_only = 1;
        CHECK(xchg_verify(s, &vo, &rep, &err) == XCHG_EINVAL, "verify: counts, messages only");
    }
    xchg_sched *b = check_generate("hypercube:3", "bcast-hc");
    if (b && c8) {
        mach.ts = 1;
        CHECK(xchg_cost_vcounts(b, &mach, c8, 0, &v, &err) == XCHG_EINVAL &&
                  strstr(err.msg, "performs bcast"),
              "a broadcast is not sized by counts: %s", err.msg);
    }
    xchg_sched_free(b);
    xchg_sched_free(s);
    xchg_vcounts_free(c4);
    xchg_vcounts_free(c8);
}

/* Without contention, in barrier mode with th = 0, the simulator's time on
 * counts is the cost's; the verifier weighs the same bytes. */
static void sim_one(const char *alg, const char *tspec, const xchg_topo *t, xchg_sched *s,
                    void *ctx)
{
    int *ran = ctx;
    const char *specs[] = {"random:60", "hot:1:4", "sparse:0.3"};
    xchg_machine mach = check_machine(50, 0.02);
    mach.tr = 0.005;
    mach.barrier = 7;
    for (size_t i = 0; i < 3; i++) {
        xchg_vcounts *c = named(specs[i], t->nodes, 512, 11);
        if (!c)
            continue;
        for (int bar = 0; bar < 2; bar++) {
            xchg_vcost v;
            xchg_err err = {{0}};
            xchg_sim_opts so = {.counts = c, .with_barrier = bar};
            xchg_sim_report r;
            int rc1 = xchg_cost_vcounts(s, &mach, c, bar, &v, &err);
            int rc2 = xchg_sim_run(s, &mach, 512, &so, &r, &err);
            CHECK(rc1 == 0 && rc2 == 0, "%s on %s, %s: %s", alg, tspec, specs[i], err.msg);
            if (rc1 || rc2)
                continue;
            if (xchg_sched_contention_free(s)) {
                CHECK(fabs(r.time - v.time) <= 1e-9 * v.time && r.waited == 0,
                      "%s on %s, %s, barrier %d: simulated %.17g, cost %.17g", alg, tspec,
                      specs[i], bar, r.time, v.time);
                CHECK(close_to(r.predicted, v.time), "predicted is the counts' cost");
            }
            CHECK_EQ_U64(r.messages, v.messages, "the simulator sends the nonzero messages");
        }
        xchg_verify_opts vo = {.threads = 2, .counts = c};
        xchg_verify_report rep;
        xchg_err err = {{0}};
        xchg_vcost v;
        if (xchg_verify(s, &vo, &rep, &err) == 0 &&
            xchg_cost_vcounts(s, &mach, c, 0, &v, &err) == 0) {
            CHECK(rep.ok && rep.counted_bytes && rep.volume_bytes == v.volume_bytes &&
                      rep.max_message_bytes == v.max_message_bytes &&
                      rep.startups_bytes == v.startups && rep.messages_bytes == v.messages &&
                      rep.undelivered == 0,
                  "verify on %s of %s on %s: ok %d, %llu B against %llu B", specs[i], alg,
                  tspec, rep.ok, (unsigned long long)rep.volume_bytes,
                  (unsigned long long)v.volume_bytes);
        } else {
            CHECK(0, "verify with counts ran: %s", err.msg);
        }
        xchg_vcounts_free(c);
    }
    (*ran)++;
}

static void test_sim_and_verify(void)
{
    int ran = 0;
    check_each_schedule("complete:8", sim_one, &ran);
    check_each_schedule("hypercube:3", sim_one, &ran);
    check_each_schedule("torus:4x4", sim_one, &ran);
    CHECK(ran > 20, "sim == cost on counts over %d schedules", ran);

    /* a message of only 0-byte blocks is not sent; the blocks still arrive */
    xchg_sched *s = check_generate("complete:4", "pairwise");
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    if (s && parse("0 5 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n", 4, &c, &err) == 0) {
        xchg_verify_opts vo = {.threads = 1, .counts = c};
        xchg_verify_report rep;
        CHECK(xchg_verify(s, &vo, &rep, &err) == 0 && rep.ok && rep.messages_bytes == 1 &&
                  rep.startups_bytes == 1 && rep.max_message_bytes == 5 &&
                  rep.startups == 3,
              "one nonzero block: one message of 5 bytes, every block delivered");
        xchg_machine mach = check_machine(10, 1);
        xchg_sim_opts so = {.counts = c};
        xchg_sim_report r;
        CHECK(xchg_sim_run(s, &mach, 1, &so, &r, &err) == 0 && r.messages == 1 &&
                  close_to(r.time, 15),
              "sim: one message, ts + 5 bytes (%.17g)", r.time);
    }
    xchg_vcounts_free(c);
    xchg_sched_free(s);
}

/* The planner ranks by the counts' cost: uniform counts name the plain
 * winner; on sparse counts pairwise's start-ups fall with the nonzeros. */
static void test_plan(void)
{
    xchg_topo t = check_topo("complete:8");
    xchg_machine mach;
    CHECK(xchg_machine_preset("paragon", 8, &mach, NULL) == 0, "paragon");
    double sizes[] = {64, 4096, 65536};
    for (size_t k = 0; k < 3; k++) {
        xchg_vcounts *u = named("uniform", 8, sizes[k], 1);
        xchg_plan_entry plain, counted;
        xchg_plan_opts po = {0};
        xchg_err err = {{0}};
        int rc1 = xchg_plan(&t, &mach, sizes[k], &po, &plain, NULL, 0, NULL, &err);
        po.counts = u;
        int rc2 = xchg_plan(&t, &mach, sizes[k], &po, &counted, NULL, 0, NULL, &err);
        CHECK(rc1 == 0 && rc2 == 0 && strcmp(plain.alg, counted.alg) == 0 &&
                  counted.has_vcost &&
                  close_to(counted.vcost.link_time, xchg_line_time(&plain.line, sizes[k])),
              "m = %g: plain best %s, uniform counts best %s (%s)", sizes[k], plain.alg,
              counted.alg, err.msg);
        xchg_sweep *sw = NULL;
        CHECK(xchg_plan_sweep(&t, &mach, 64, 128, &po, &sw, &err) == XCHG_EINVAL,
              "counts take one size");
        xchg_sweep_free(sw);
        xchg_vcounts_free(u);
    }
    xchg_vcounts *s = named("sparse:0.25", 8, 1024, 1);
    xchg_plan_opts po = {.counts = s};
    xchg_plan_entry best;
    xchg_plan_entry all[64];
    size_t n = 0;
    xchg_err err = {{0}};
    CHECK(xchg_plan(&t, &mach, 1024, &po, &best, all, 64, &n, &err) == 0, "plan: %s",
          err.msg);
    for (size_t i = 0; i < n && i < 64; i++)
        if (all[i].eligible)
            CHECK(all[i].has_vcost && best.vcost.link_time <= all[i].vcost.link_time,
                  "%s (%.6g) does not beat the best %s (%.6g)", all[i].alg,
                  all[i].vcost.link_time, best.alg, best.vcost.link_time);
    xchg_vcounts_free(s);
}

int main(void)
{
    test_parse_good();
    test_parse_bad();
    test_named();
    test_uniform();
    test_pairwise_sparse();
    test_bruck_hot();
    test_refusals();
    test_sim_and_verify();
    test_plan();
    return check_finish("test_counts");
}
