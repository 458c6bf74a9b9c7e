/*
 * test_sim.c - the network simulator (xchg_sim_run) held to the cost model
 * and to cases worked by hand:
 *   - exactness: every registry entry and variant on many topologies whose
 *     schedule claims to be contention-free runs, in barrier mode with
 *     th = 0, in the cost model's time (up to rounding: relative 1e-12),
 *     with and without copies and barriers, and no message waits; every
 *     other schedule takes at least that long;
 *   - both routings (wormhole, virtual cut-through) in every run above:
 *     the same messages and link hops, exact when contention-free;
 *   - a contended step worked by hand (hc-standard on array:4, whose
 *     second step sends two messages over each of two links), and two
 *     hand-built steps where the routings differ;
 *   - per-hop latency adds hops*th to a lone message;
 *   - async mode finishes every message and is never slower than the cost
 *     model's contention-free line allows for a schedule without copies;
 *   - the trace sees every message once, with ready <= start <= end;
 *   - another network: a hypercube schedule on a mesh runs as the mesh's
 *     own, a torus schedule loses on a mesh, other sizes are refused;
 *   - node maps: row-major is the identity, snake reverses every other
 *     line, a mirrored placement sees the same contention, and a map that
 *     is not a permutation is refused;
 *   - bad arguments are refused.
 * With XCHG_TEST_REDUCED=1 (the sanitizer build) the largest networks are
 * left out (main).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

#define REL 1e-12

static unsigned long exact_runs, contended_runs;

/* A machine with every term non-zero, so each is exercised. */
static xchg_machine machine(int barrier)
{
    xchg_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "test");
    snprintf(m.units, sizeof m.units, "us");
    m.ts = 75;
    m.tw = 0.011;
    m.tr = 0.014;
    m.barrier = barrier ? 130 : 0;
    return m;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= REL * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-300;
}

/* One barrier-mode run of s, held to the cost model; *w is the wormhole
 * run of the same case (set by it, compared with by the VCT run). */
static void check_run(const xchg_sched *s, const char *tspec, const char *spec, int barrier,
                      double m, int routing, xchg_sim_report *w)
{
    xchg_machine mach = machine(barrier);
    xchg_sim_opts o = {.mode = XCHG_SIM_BARRIER, .with_barrier = barrier, .routing = routing};
    xchg_sim_report r;
    xchg_err err = {{0}};
    int rc = xchg_sim_run(s, &mach, m, &o, &r, &err);
    CHECK(rc == 0, "%s on %s: %s", spec, tspec, err.msg);
    if (rc)
        return;
    if (routing == XCHG_SIM_WORMHOLE)
        *w = r;
    else
        CHECK(r.messages == w->messages && r.link_hops == w->link_hops,
              "%s on %s: vct and wormhole see other messages", spec, tspec);
    if (xchg_sched_contention_free(s)) {
        exact_runs++;
        CHECK(close_to(r.time, r.predicted) && r.waited == 0,
              "%s on %s, m = %g, barrier %d, routing %d: simulated %.17g, model %.17g, %llu "
              "waited",
              spec, tspec, m, barrier, routing, r.time, r.predicted,
              (unsigned long long)r.waited);
    } else {
        contended_runs++;
        CHECK(r.time >= r.predicted * (1 - REL),
              "%s on %s, m = %g, routing %d: contention made it faster (%.17g < %.17g)", spec,
              tspec, m, routing, r.time, r.predicted);
    }
}

/* Simulate spec on tspec in barrier mode and hold it to the cost model:
 * wormhole at three block sizes, with and without barriers; VCT at the
 * middle size (the others add time, not cases). */
static void check_spec(const char *tspec, const char *spec)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return;
    const double sizes[] = {1, 64, 65536};
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++) {
            xchg_sim_report w;
            memset(&w, 0, sizeof w);
            check_run(s, tspec, spec, b, sizes[k], XCHG_SIM_WORMHOLE, &w);
            if (k == 1)
                check_run(s, tspec, spec, b, sizes[k], XCHG_SIM_VCT, &w);
        }
    xchg_sched_free(s);
}

static void run_topology(const char *tspec)
{
    xchg_topo t = check_topo(tspec);
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        xchg_spec specs[XCHG_MAX_VARIANTS];
        int n = xchg_alg_variants(&t, xchg_alg_at(i), specs, XCHG_MAX_VARIANTS, NULL);
        for (int k = 0; k < n; k++)
            check_spec(tspec, specs[k]);
    }
}

/* hc-standard on array:4: the XOR-1 step is free; in the XOR-2 step 0->2
 * and 1->3 share link 1->2, 2->0 and 3->1 share link 2->1, so each pair
 * goes one after the other: 2 ts + (2 + 2*2) blocks' time, and two
 * messages wait one message's time each. */
static void test_hand_worked(void)
{
    xchg_sched *s = check_generate("array:4", "hc-standard");
    if (!s)
        return;
    xchg_machine mach = machine(0);
    mach.tr = 0;
    double m = 100, blk = 2 * m * mach.tw; /* one message: p/2 = 2 blocks */
    for (int ports = 0; ports < 2; ports++)
        for (int mode = 0; mode < 2; mode++) {
            xchg_sim_opts o = {.mode = mode, .all_port = ports};
            xchg_sim_report r;
            xchg_err err = {{0}};
            CHECK(xchg_sim_run(s, &mach, m, &o, &r, &err) == 0, "array:4: %s", err.msg);
            CHECK(close_to(r.time, 2 * mach.ts + 3 * blk),
                  "array:4 hc-standard (ports %d, mode %d): %.17g, want %.17g", ports, mode,
                  r.time, 2 * mach.ts + 3 * blk);
            CHECK(close_to(r.predicted, 2 * mach.ts + 2 * blk), "array:4: predicted %.17g",
                  r.predicted);
            CHECK(r.waited == 2 && close_to(r.wait, 2 * blk) && close_to(r.max_wait, blk),
                  "array:4: %llu waited, %.17g in all, %.17g at most",
                  (unsigned long long)r.waited, r.wait, r.max_wait);
            CHECK_EQ_U64(r.messages, 8, "array:4: 8 messages");
            CHECK_EQ_U64(r.link_hops, 4 + 8, "array:4: 4 one-hop and 4 two-hop messages");
            CHECK(r.nlinks > 0 && close_to(r.busiest[0].busy, 2 * blk) &&
                      r.busiest[0].messages == 2,
                  "array:4: the busiest link carries two messages (%.17g, %llu)",
                  r.nlinks ? r.busiest[0].busy : 0.0,
                  (unsigned long long)(r.nlinks ? r.busiest[0].messages : 0));
        }
    xchg_sched_free(s);
}

/* One step on tspec in which node i sends one block to to[i] (XCHG_NONE:
 * idle); the simulator reads only the messages. */
static xchg_sched *one_step(const char *tspec, const uint32_t *to)
{
    xchg_topo t = check_topo(tspec);
    xchg_sched *s = xchg_sched_new(&t, "hand", 0);
    uint32_t *table = malloc(t.nodes * sizeof *table);
    if (!s || !table) {
        free(table);
        xchg_sched_free(s);
        CHECK(0, "out of memory");
        return NULL;
    }
    memcpy(table, to, t.nodes * sizeof *table);
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = table;
    st.rule = xchg_rule_dest_is_to();
    st.blocks = 1;
    if (xchg_sched_add(s, &st)) {
        xchg_sched_free(s);
        CHECK(0, "out of memory");
        return NULL;
    }
    return s;
}

/* When each message started and ended, by sender (the trace). */
typedef struct ends {
    double start[8], end[8];
} ends;

static void on_end(void *ctx, size_t step, uint32_t from, uint32_t to, uint64_t blocks,
                   double ready, double start, double end)
{
    (void)step, (void)to, (void)blocks, (void)ready;
    ends *e = ctx;
    if (from < 8) {
        e->start[from] = start;
        e->end[from] = end;
    }
}

/*
 * Where the routings differ, worked by hand: th = 1, a block's time
 * L = m*tw = 10, ts = 0, nodes in a line.
 *
 * array:4, A = 0->3 (links 0>1, 1>2, 2>3), B = 1->2 (link 1>2), both ready
 * at 0, A first:
 *   wormhole: A takes its whole path at 0 and holds it 3*th + L = 13; B
 *     waits for 1>2 until 13 and ends at 13 + 1 + 10 = 24.
 *   vct: A's head takes 0>1 at 0 and reaches 1>2 at 1; B took 1>2 at 0
 *     and ends at 0 + 1 + 10 = 11, freeing it; A takes it at 11, 2>3 at
 *     12, and ends at 12 + 1 + 10 = 23. A waited 10.
 * With one-port nodes the ports change nothing here (each is used once).
 *
 * array:5, A = 0->4, C = 1->2, B = 2->3, all ready at 0:
 *   wormhole: A holds 0>1..3>4 from 0 to 4 + 10 = 14; C and B wait for it
 *     and end at 14 + 11 = 25.
 *   vct: C and B take their links at 0 and end at 11; A's head waits at
 *     1>2 from 1 to 11, then goes on: 2>3 at 12, 3>4 at 13, end 24. The
 *     links a message has passed are freed as its tail passes them, and C
 *     and B finish 14 earlier.
 */
static void test_vct_by_hand(void)
{
    xchg_machine mach = machine(0);
    mach.ts = 0;
    mach.tw = 1;
    mach.tr = 0;
    const uint32_t N = XCHG_NONE;
    const uint32_t two[4] = {3, 2, N, N}, three[5] = {4, 2, 3, N, N};
    xchg_sched *s4 = one_step("array:4", two), *s5 = one_step("array:5", three);
    if (!s4 || !s5) {
        xchg_sched_free(s4);
        xchg_sched_free(s5);
        return;
    }
    for (int ports = 0; ports < 2; ports++)
        for (int routing = XCHG_SIM_WORMHOLE; routing <= XCHG_SIM_VCT; routing++) {
            int vct = routing == XCHG_SIM_VCT;
            ends e;
            memset(&e, 0, sizeof e);
            xchg_sim_opts o = {.th = 1, .routing = routing, .all_port = ports,
                               .trace = on_end, .trace_ctx = &e};
            xchg_sim_report r;
            xchg_err err = {{0}};
            CHECK(xchg_sim_run(s4, &mach, 10, &o, &r, &err) == 0, "array:4: %s", err.msg);
            CHECK(close_to(r.time, vct ? 23 : 24), "array:4, routing %d, ports %d: %.17g",
                  routing, ports, r.time);
            CHECK(close_to(e.end[0], vct ? 23 : 13) && close_to(e.end[1], vct ? 11 : 24),
                  "array:4, routing %d: A ends %.17g, B %.17g", routing, e.end[0], e.end[1]);
            CHECK(r.waited == 1 && close_to(r.wait, vct ? 10 : 13) &&
                      close_to(r.max_wait, vct ? 10 : 13),
                  "array:4, routing %d: %llu waited, %.17g", routing,
                  (unsigned long long)r.waited, r.wait);
            memset(&e, 0, sizeof e);
            CHECK(xchg_sim_run(s5, &mach, 10, &o, &r, &err) == 0, "array:5: %s", err.msg);
            CHECK(close_to(r.time, vct ? 24 : 25), "array:5, routing %d, ports %d: %.17g",
                  routing, ports, r.time);
            CHECK(close_to(e.end[1], vct ? 11 : 25) && close_to(e.end[2], vct ? 11 : 25) &&
                      close_to(e.end[0], vct ? 24 : 14),
                  "array:5, routing %d: A %.17g, C %.17g, B %.17g", routing, e.end[0],
                  e.end[1], e.end[2]);
            CHECK(close_to(e.start[0], 0), "A's head leaves at 0 (%.17g)", e.start[0]);
            CHECK_EQ_U64(r.link_hops, 4 + 1 + 1, "array:5: link hops");
        }
    xchg_sched_free(s4);
    xchg_sched_free(s5);
}

/* ring on ring:8: every message goes one hop; th adds 1 * th per step. */
static void test_hop_latency(void)
{
    xchg_sched *s = check_generate("ring:8", "ring");
    if (!s)
        return;
    xchg_machine mach = machine(0);
    xchg_sim_opts o = {.th = 3};
    xchg_sim_report r;
    CHECK(xchg_sim_run(s, &mach, 64, &o, &r, NULL) == 0, "ring:8 with th");
    CHECK(close_to(r.time, r.predicted + 7 * 3.0), "ring:8: th once per step (%.17g vs %.17g)",
          r.time, r.predicted);
    xchg_sched_free(s);
}

/* Trace: every message once, in order of its end, ready <= start <= end. */
typedef struct seen {
    uint64_t n;
    double last_end;
    int bad;
} seen;

static void on_trace(void *ctx, size_t step, uint32_t from, uint32_t to, uint64_t blocks,
                     double ready, double start, double end)
{
    seen *sn = ctx;
    (void)step;
    (void)from;
    (void)to;
    sn->n++;
    if (!(ready <= start && start <= end && end >= sn->last_end && blocks > 0))
        sn->bad++;
    sn->last_end = end;
}

/* Async mode on every kind of network: every message runs and ends, and
 * the trace agrees with the report. */
static void test_async(void)
{
    const char *cases[][2] = {{"torus:8x8", "hc-direct"},  {"torus:8x8", "t1"},
                              {"mesh:4x6", "mesh2"},       {"hypercube:5", "multiphase:2,3"},
                              {"ring:12", "ar1"},          {"torus:8x12", "at2"},
                              {"complete:9", "bruck:3"},   {"torus:6x6x6", "mt3"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xchg_sched *s = check_generate(cases[i][0], cases[i][1]);
        if (!s)
            continue;
        xchg_machine mach = machine(0);
        seen sn = {0, 0, 0};
        xchg_sim_opts o = {.mode = XCHG_SIM_ASYNC, .trace = on_trace, .trace_ctx = &sn};
        xchg_sim_opts ob = {.mode = XCHG_SIM_BARRIER};
        xchg_sim_report ra, rb;
        CHECK(xchg_sim_run(s, &mach, 256, &o, &ra, NULL) == 0, "async %s", cases[i][1]);
        CHECK(xchg_sim_run(s, &mach, 256, &ob, &rb, NULL) == 0, "barrier %s", cases[i][1]);
        CHECK(ra.messages == rb.messages && sn.n == ra.messages && sn.bad == 0,
              "%s on %s: async ran %llu messages, barrier %llu, traced %llu (%d bad)",
              cases[i][1], cases[i][0], (unsigned long long)ra.messages,
              (unsigned long long)rb.messages, (unsigned long long)sn.n, sn.bad);
        CHECK(ra.time > 0 && ra.time >= sn.last_end, "%s: async time %.17g covers the last end",
              cases[i][1], ra.time);
        xchg_sched_free(s);
    }
}

/* Node maps: row-major is no map at all; snake on mesh:3x4 runs every
 * other row backwards; any permutation gives a run of the same messages;
 * what is not a permutation is refused. */
static void test_maps(void)
{
    xchg_topo t = check_topo("mesh:3x4");
    uint32_t map[12];
    CHECK(xchg_sim_map(&t, "snake", map, NULL) == 0, "snake on mesh:3x4");
    const uint32_t want[12] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11};
    CHECK(memcmp(map, want, sizeof want) == 0, "snake: row 1 backwards (%u %u %u %u)", map[4],
          map[5], map[6], map[7]);
    xchg_err err = {{0}};
    CHECK(xchg_sim_map(&t, "spiral", map, &err) == XCHG_EINVAL && strstr(err.msg, "snake"),
          "unknown map: %s", err.msg);

    xchg_sched *s = check_generate("mesh:16x16", "hc-direct");
    if (!s)
        return;
    xchg_machine mach = machine(0);
    uint32_t rm[256], rev[256];
    xchg_topo big = check_topo("mesh:16x16");
    CHECK(xchg_sim_map(&big, "row-major", rm, NULL) == 0, "row-major");
    for (uint32_t i = 0; i < 256; i++)
        rev[i] = 255 - i;
    xchg_sim_opts plain = {0}, o_rm = {.map = rm}, o_rev = {.map = rev};
    xchg_sim_report a, b, c;
    CHECK(xchg_sim_run(s, &mach, 512, &plain, &a, NULL) == 0 &&
              xchg_sim_run(s, &mach, 512, &o_rm, &b, NULL) == 0 &&
              xchg_sim_run(s, &mach, 512, &o_rev, &c, NULL) == 0,
          "maps run");
    CHECK(a.time == b.time && a.waited == b.waited, "row-major map = no map");
    /* reversing every coordinate mirrors the mesh: the same contention */
    CHECK(c.messages == a.messages && c.link_hops == a.link_hops && close_to(c.time, a.time),
          "mirrored placement: %.17g vs %.17g", c.time, a.time);
    rev[3] = rev[4];
    o_rev.map = rev;
    CHECK(xchg_sim_run(s, &mach, 512, &o_rev, &c, &err) == XCHG_EINVAL &&
              strstr(err.msg, "twice"),
          "a repeated node is refused: %s", err.msg);
    rev[3] = 256;
    CHECK(xchg_sim_run(s, &mach, 512, &o_rev, &c, &err) == XCHG_EINVAL &&
              strstr(err.msg, "past the network"),
          "a node past the network is refused: %s", err.msg);
    xchg_sched_free(s);
}

/* Another network: a hypercube schedule on a 16x16 mesh runs as the same
 * algorithm generated for the mesh (row-major ids, row-first routes); a
 * torus schedule on a mesh of the same shape loses its wrap-around links
 * and can only be slower; a network of another size is refused. */
static void test_network(void)
{
    xchg_sched *hc = check_generate("hypercube:8", "hc-direct");
    xchg_sched *mesh = check_generate("mesh:16x16", "hc-direct");
    xchg_sched *t1 = check_generate("torus:16x16", "t1");
    if (!hc || !mesh || !t1)
        return;
    xchg_machine mach = machine(0);
    xchg_topo m16 = check_topo("mesh:16x16"), small = check_topo("mesh:4x4");
    xchg_sim_opts on_mesh = {.network = &m16}, own = {0};
    xchg_sim_report a, b;
    CHECK(xchg_sim_run(hc, &mach, 4096, &on_mesh, &a, NULL) == 0 &&
              xchg_sim_run(mesh, &mach, 4096, &own, &b, NULL) == 0,
          "hc-direct on the mesh");
    CHECK(a.time == b.time && a.link_hops == b.link_hops && a.waited == b.waited,
          "hypercube schedule on mesh:16x16 = mesh schedule (%.17g vs %.17g)", a.time, b.time);
    CHECK(xchg_sim_run(t1, &mach, 4096, &own, &b, NULL) == 0 && b.waited == 0,
          "t1 on its torus: no waiting");
    CHECK(xchg_sim_run(t1, &mach, 4096, &on_mesh, &a, NULL) == 0 && a.time > b.time &&
              a.waited > 0,
          "t1 on a mesh without wrap-around: slower (%.17g vs %.17g), %llu waited", a.time,
          b.time, (unsigned long long)a.waited);
    xchg_err err = {{0}};
    xchg_sim_opts on_small = {.network = &small};
    CHECK(xchg_sim_run(hc, &mach, 64, &on_small, &a, &err) == XCHG_EINVAL &&
              strstr(err.msg, "as many nodes"),
          "a network of another size: %s", err.msg);
    xchg_sched_free(hc);
    xchg_sched_free(mesh);
    xchg_sched_free(t1);
}

static void test_errors(void)
{
    xchg_sched *s = check_generate("ring:4", "ring");
    if (!s)
        return;
    xchg_machine mach = machine(0);
    xchg_sim_report r;
    xchg_err err = {{0}};
    CHECK(xchg_sim_run(NULL, &mach, 1, NULL, &r, &err) == XCHG_EINVAL, "NULL schedule");
    CHECK(xchg_sim_run(s, &mach, -1, NULL, &r, &err) == XCHG_EINVAL, "negative m");
    CHECK(xchg_sim_run(s, &mach, NAN, NULL, &r, &err) == XCHG_EINVAL, "NaN m");
    xchg_sim_opts o = {.mode = 7};
    CHECK(xchg_sim_run(s, &mach, 1, &o, &r, &err) == XCHG_EINVAL && strstr(err.msg, "mode"),
          "unknown mode: %s", err.msg);
    o.mode = 0;
    o.routing = 2;
    CHECK(xchg_sim_run(s, &mach, 1, &o, &r, &err) == XCHG_EINVAL &&
              strstr(err.msg, "unknown routing 2; accepted: XCHG_SIM_WORMHOLE, XCHG_SIM_VCT"),
          "unknown routing: %s", err.msg);
    o.routing = 0;
    o.th = -1;
    CHECK(xchg_sim_run(s, &mach, 1, &o, &r, &err) == XCHG_EINVAL, "negative th");
    xchg_sched_free(s);
}

/* XCHG_TEST_REDUCED=1 (the sanitizer build, CMakeLists.txt): the largest
 * networks (16x16, 32x32, hypercube:7), most of this program's time under
 * the sanitizers, are left to the plain build; every algorithm and variant
 * still runs on the sizes below them, and every test_* by hand. */
int main(void)
{
    const char *reduced_env = getenv("XCHG_TEST_REDUCED");
    int reduced = reduced_env && !strcmp(reduced_env, "1");
    char spec[64];
    const char *kinds[] = {"ring", "array", "complete"};
    for (int k = 0; k < 3; k++)
        for (int p = 1; p <= 17; p++) {
            snprintf(spec, sizeof spec, "%s:%d", kinds[k], p);
            run_topology(spec);
        }
    const char *grids[] = {"2x2", "3x5", "4x4", "5x7", "8x8", "6x10", "8x12", "16x16"};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        if (reduced && !strcmp(grids[g], "16x16"))
            continue;
        snprintf(spec, sizeof spec, "mesh:%s", grids[g]);
        run_topology(spec);
        snprintf(spec, sizeof spec, "torus:%s", grids[g]);
        run_topology(spec);
    }
    run_topology("torus:6x6x6");
    run_topology("torus:2x2x2x2");
    if (!reduced)
        run_topology("torus:32x32");
    for (int d = 0; d <= (reduced ? 6 : 7); d++) {
        snprintf(spec, sizeof spec, "hypercube:%d", d);
        run_topology(spec);
    }
    CHECK(exact_runs > 1000, "only %lu contention-free runs checked", exact_runs);
    CHECK(contended_runs > 100, "only %lu contended runs checked", contended_runs);
    test_hand_worked();
    test_vct_by_hand();
    test_hop_latency();
    test_async();
    test_maps();
    test_network();
    test_errors();
    return check_finish("sim");
}
