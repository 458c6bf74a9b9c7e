/*
 * test_torus_suh.c - seed 000's T1, T2 and T1.x (src/alg/torus_suh.c):
 *   - every one on every 2^d x 2^d torus, d = 2..5, verified block by block
 *     (delivery, sizes, one port, routes, no link used twice in a step), with
 *     the verifier's counts equal to the cost model's and to the closed form;
 *   - the counts against seed 000 Table 1 for d = 2..8 through
 *     xchg_cost_compute (T2, T1.1 and T1 up to d = 5 equal the table; T1 at
 *     d >= 6 and T1.x at x >= 2 differ as docs/torus-suh.md shows, and the
 *     test pins the difference to its cause: the send phase and the number
 *     of steps per phase);
 *   - the structure the docs describe: message sizes per step, who is idle,
 *     one local and one wrap-around pair per row in phase d;
 *   - t1:paper (the paper's own SG pattern, idle nodes keep blocks): verified
 *     for d = 2..5, its volume against Table 1 and t1;
 *   - the lower bound for T1's phase structure (docs/torus-suh.md): per step
 *     from the docs' formulas, equal to what t1:paper's partners force,
 *     below t1:paper and, from d = 6, above Table 1;
 *   - spec parsing (t1.2 = t1.x:2), preconditions, variants;
 *   - a broken schedule is caught (the tests can fail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"
#include "xchg.h"

/* Seed 000's model: ts = a, tw = 1 per flit. */
static xchg_machine seed000(double a)
{
    xchg_machine m;
    CHECK(xchg_machine_ratio(a, &m, NULL) == 0, "machine a = %g", a);
    return m;
}

/* Generate spec on a 2^d x 2^d torus; NULL (and a failed check) on error. */
static xchg_sched *gen(int d, const char *spec)
{
    char ts[64];
    snprintf(ts, sizeof ts, "torus:%ux%u", 1u << d, 1u << d);
    return check_generate(ts, spec);
}

/* Start-ups and volume from the cost model. */
static xchg_cost cost_of(const xchg_sched *s)
{
    xchg_cost c;
    memset(&c, 0, sizeof c);
    xchg_machine m = seed000(5000);
    CHECK(xchg_cost_compute(s, &m, 1, 0, &c, NULL) == 0, "cost of %s", xchg_sched_algorithm(s));
    return c;
}

/* Verify spec on 2^d block by block; counts must equal cost and formula. */
static void verify_case(int d, const char *spec)
{
    xchg_sched *s = gen(d, spec);
    if (!s)
        return;
    xchg_verify_report r;
    xchg_err err = {{0}};
    int rc = xchg_verify(s, NULL, &r, &err);
    CHECK(rc == 0 && r.ok, "%s on 2^%d: verify rc %d ok %d (%s)", spec, d, rc, r.ok,
          r.reported ? r.msgs[0] : err.msg);
    CHECK(xchg_sched_contention_free(s), "%s claims contention-free", spec);
    CHECK_EQ_U64(r.link_conflicts, 0, "link conflicts");
    CHECK_EQ_U64(r.blocks, (uint64_t)1 << (4 * d), "blocks followed");
    xchg_cost c = cost_of(s);
    CHECK_EQ_U64(r.startups, c.startups, "verified start-ups = cost");
    CHECK_EQ_U64(r.volume_blocks, c.volume_blocks, "verified volume = cost");
    CHECK_EQ_U64(r.link_volume_blocks, c.volume_blocks, "link volume = volume");
    const xchg_alg *a;
    xchg_opts o;
    CHECK(xchg_alg_parse(spec, &a, &o, NULL) == 0, "parse %s", spec);
    xchg_counts f;
    if (strcmp(spec, "t1:paper") == 0 && d >= 4) {
        /* no closed form: the paper's pattern, per-node sizes; 3d-3 steps */
        CHECK(a->formula(&s->topo, &o, &f) == XCHG_ENOTAPPLIC, "t1:paper has no formula");
        CHECK_EQ_U64(c.startups, 3ull * (uint64_t)d - 3, "t1:paper start-ups");
    } else {
        CHECK(a->formula(&s->topo, &o, &f) == 0, "formula %s", spec);
        CHECK_EQ_U64(f.startups, c.startups, "formula start-ups");
        CHECK_EQ_U64(f.volume_blocks, c.volume_blocks, "formula volume");
    }
    xchg_sched_free(s);
}

/* Table 1 of seed 000, in start-ups and blocks (volume / m t_c). */
static void table1_t1(int d, uint64_t *steps, uint64_t *vol)
{
    uint64_t p = 1ull << (2 * d);
    if (d < 4) {
        *steps = 2ull * (uint64_t)d;
        *vol = (uint64_t)d * p;
    } else {
        *steps = 3ull * (uint64_t)d - 3;
        /* 9*2^(3d-4) + (d^2-5d+3) 2^(2d-1); d^2-5d+3 is -1 at d = 4 */
        *vol = (uint64_t)((int64_t)(9ull << (3 * d - 4)) +
                          ((int64_t)d * d - 5 * d + 3) * (int64_t)(p / 2));
    }
}

static void table1_t2(int d, uint64_t *steps, uint64_t *vol)
{
    if (d < 4) {
        table1_t1(d, steps, vol);
        return;
    }
    *steps = 3ull << (d - 2);
    *vol = 3ull << (3 * d - 3);
}

/* Section 4.1's counts for T1.1 (Table 1's T1.x row at x = 1). */
static void table1_t1x(int d, int x, uint64_t *steps, uint64_t *vol)
{
    *steps = (3ull << (d - 3)) + 3ull * (uint64_t)x + 2 - (1ull << x);
    *vol = (3ull << (3 * d + x - 4)) + (2ull * (uint64_t)x + 3) * (1ull << (2 * d + x - 2));
}

/* Counts against Table 1 for d = 2..8 (no verification: declared sizes). */
static void table1_checks(void)
{
    for (int d = 2; d <= 8; d++) {
        uint64_t p = 1ull << (2 * d), st, vol;
        xchg_sched *s = gen(d, "t2");
        if (s) {
            xchg_cost c = cost_of(s);
            table1_t2(d, &st, &vol);
            CHECK_EQ_U64(c.startups, st, "t2 start-ups vs Table 1");
            CHECK_EQ_U64(c.volume_blocks, vol, "t2 volume vs Table 1");
            xchg_sched_free(s);
        }
        s = gen(d, "t1");
        if (s) {
            xchg_cost c = cost_of(s);
            table1_t1(d, &st, &vol);
            CHECK_EQ_U64(c.startups, st, "t1 start-ups vs Table 1");
            if (d <= 5) {
                CHECK_EQ_U64(c.volume_blocks, vol, "t1 volume vs Table 1 (d <= 5)");
            } else {
                /* The table's send phase carries (d-2-s) p blocks at step s;
                 * a node receiving at step s serves itself and the 2^(d-3-s)-1
                 * nodes it sends to later, so it needs 2^(d-3-s) p blocks. */
                uint64_t table_send = 0, real_send = 0;
                for (int k = 1; k <= d - 3; k++) {
                    table_send += (uint64_t)(d - 2 - k) * p;
                    real_send += p << (d - 3 - k);
                }
                CHECK(real_send > table_send, "d=%d: the send phase is where they differ", d);
                CHECK_EQ_U64(c.volume_blocks, vol - table_send + real_send,
                             "t1 volume = Table 1 with the send phase corrected");
            }
            xchg_sched_free(s);
        }
        /* The paper's own pattern: idle nodes keep their blocks, so below
         * Table 1 (which counts every message as full) while the send phase
         * is short, above it from d = 6 (the table's send phase, as above);
         * never above our t1 (d <= 7 here: generation follows N origins). */
        s = d <= 7 ? gen(d, "t1:paper") : NULL;
        if (s) {
            xchg_cost c = cost_of(s);
            table1_t1(d, &st, &vol);
            CHECK_EQ_U64(c.startups, st, "t1:paper start-ups vs Table 1");
            if (d >= 4)
                CHECK(d <= 5 ? c.volume_blocks < vol : c.volume_blocks > vol,
                      "t1:paper on 2^%d: %llu vs Table 1 %llu", d,
                      (unsigned long long)c.volume_blocks, (unsigned long long)vol);
            xchg_sched *s1 = gen(d, "t1");
            if (s1) {
                xchg_cost c1 = cost_of(s1);
                CHECK(c.volume_blocks <= c1.volume_blocks, "t1:paper <= t1 volume on 2^%d", d);
                xchg_sched_free(s1);
            }
            xchg_sched_free(s);
        }
        for (int x = 1; x <= d - 4; x++) {
            char spec[16];
            snprintf(spec, sizeof spec, "t1.%d", x);
            s = gen(d, spec);
            if (!s)
                continue;
            xchg_cost c = cost_of(s);
            table1_t1x(d, x, &st, &vol);
            if (x == 1) {
                CHECK_EQ_U64(c.startups, st, "t1.1 start-ups vs section 4.1");
                CHECK_EQ_U64(c.volume_blocks, vol, "t1.1 volume vs section 4.1");
            } else {
                /* Phases p >= x+2 need 2^(p-1-x) steps (G_(x+1)(1) is 2^(p-1-x)
                 * level-p groups), not the table's 2^(p-2); phase d 2^(d-2-x). */
                uint64_t ours = 2ull * (uint64_t)x + 2 + (uint64_t)x + (1ull << (d - 2 - x));
                for (int ph = x + 2; ph <= d - 1; ph++)
                    ours += 1ull << (ph - 1 - x);
                CHECK_EQ_U64(c.startups, ours, "t1.x start-ups by phase");
                CHECK(c.startups < st, "t1.%d on 2^%d: fewer steps than the table (%llu < %llu)",
                      x, d, (unsigned long long)c.startups, (unsigned long long)st);
                /* exchange steps from phase x+1 carry 2^(x-1) p as the table
                 * says; 3*2^(d-2-x) of them */
                uint64_t big = (3ull << (d - 2 - x)) * (p << x) / 2;
                CHECK(c.volume_blocks > big && c.volume_blocks < vol,
                      "t1.%d on 2^%d volume %llu between %llu and the table's %llu", x, d,
                      (unsigned long long)c.volume_blocks, (unsigned long long)big,
                      (unsigned long long)vol);
            }
            xchg_sched_free(s);
        }
    }
}

/* Per-step structure: sizes, active nodes, routes. */
static void structure_checks(void)
{
    /* T2: every step carries p/2 blocks per active node, every node is
     * active in exactly one x and one y move per phase. */
    for (int d = 3; d <= 6; d++) {
        xchg_sched *s = gen(d, "t2");
        if (!s)
            continue;
        uint64_t p = s->topo.nodes;
        uint64_t moves = 0;
        for (size_t i = 0; i < s->nsteps; i++) {
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, i), p / 2, "t2 step size p/2");
            for (uint32_t n = 0; n < p; n++) {
                xchg_msg msg;
                xchg_sched_message(s, i, n, &msg);
                moves += msg.to != XCHG_NONE;
            }
        }
        CHECK_EQ_U64(moves, 2ull * (uint64_t)d * p, "t2: 2d moves per node");
        xchg_sched_free(s);
    }
    /* T1.x on 64x64: halving phases use G_(x+1)(1), a 2^-x share of nodes;
     * the last x steps (send phase) carry 2^(x-s) p. */
    for (int x = 1; x <= 2; x++) {
        char spec[16];
        snprintf(spec, sizeof spec, "t1.%d", x);
        xchg_sched *s = gen(6, spec);
        if (!s)
            continue;
        uint64_t p = s->topo.nodes;
        size_t n = s->nsteps;
        for (int k = 1; k <= x; k++)
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s, n - (size_t)x - 1 + (size_t)k),
                         p << (x - k), "send step size");
        /* the step after the concentration phases: level x+1, G_(x+1)(1) */
        size_t first = 2 * (size_t)x;
        uint64_t senders = 0;
        for (uint32_t v = 0; v < p; v++) {
            xchg_msg msg;
            xchg_sched_message(s, first, v, &msg);
            senders += msg.to != XCHG_NONE;
        }
        CHECK_EQ_U64(senders, p >> x, "active share in phase x+1");
        CHECK_EQ_U64(xchg_sched_step_max_blocks(s, first), (p << x) / 2, "phase x+1 size");
        xchg_sched_free(s);
    }
    /* Phase d of T2 on 16x16: per row one local and one wrap-around pair. */
    xchg_sched *s = gen(4, "t2");
    if (s) {
        const xchg_topo *t = &s->topo;
        size_t last = s->nsteps - 1;
        uint32_t wraps = 0, locals = 0;
        for (uint32_t v = 0; v < t->nodes; v++) {
            xchg_msg msg;
            xchg_sched_message(s, last, v, &msg);
            if (msg.to == XCHG_NONE || xchg_topo_coord(t, v, 0) != xchg_topo_coord(t, msg.to, 0))
                continue;
            xchg_seg seg[XCHG_MAX_DIMS];
            int ns = 0;
            xchg_topo_route(t, v, msg.to, msg.route_policy, seg, &ns);
            uint32_t a = xchg_topo_coord(t, v, 1), b = xchg_topo_coord(t, msg.to, 1);
            int wrap = ns == 1 && ((seg[0].dir > 0) != (b > a));
            wraps += (uint32_t)wrap;
            locals += (uint32_t)!wrap;
        }
        CHECK(wraps > 0 && wraps == locals, "phase d: %u wrap-around and %u local x moves",
              wraps, locals);
        xchg_sched_free(s);
    }
}

/*
 * The lower bound for T1's phase structure (docs/torus-suh.md, "A lower
 * bound for T1's phase structure"): a block's route is fixed by the node of
 * its target's server chain where it ends phase d, and the moves every
 * admissible end shares are in that message in every schedule with the
 * paper's pattern. bound_step() is the per-step count of the docs, derived
 * by hand; forced_steps() computes the same thing from t1:paper's partners
 * alone (no block rule): a message must carry every block whose every path
 * through the step graph uses it (edge dominators, one origin at a time).
 */

/* Targets per origin an admissible end at level k collects (its send tree
 * below the nodes idle before phase k). */
static uint64_t bound_w(int d, int k)
{
    if (k <= 2)
        return 1;
    return 1ull << (k < d - 1 ? k - 2 : d - 3);
}

/* Admissible ends at level k (q <= k <= d) of the blocks a node with x = y
 * moves in both x and y in phase q (q <= d-2). */
static uint64_t bound_n(int d, int q, int k)
{
    if (k == q)
        return 1;
    if (k == q + 1)
        return 3;
    if (q == d - 2)
        return 12; /* k = d */
    return k < d ? 12ull << (k - q - 2) : 24ull << (d - q - 2);
}

/* X_q: forced two-move blocks at a node with x = y in phase q (for q = d-2,
 * Y: its two-move blocks, all forced). */
static uint64_t bound_x(int d, int q)
{
    uint64_t sum = 0;
    for (int k = q; k <= d; k++)
        sum += bound_n(d, q, k) * bound_w(d, k);
    return sum << (2 * (q - 1));
}

/* The bound for step `step` (1-based) of T1's 3d-3 on the 2^d torus, d >= 4. */
static uint64_t bound_step(int d, int step)
{
    uint64_t p = 1ull << (2 * d);
    if (step <= 2 * d) {
        int q = (step + 1) / 2, second = step % 2 == 0;
        if (q <= d - 3)
            return second ? 2 * bound_x(d, q) : bound_x(d, q);
        if (q == d - 2)
            return 2 * bound_x(d, q);
        return 1ull << (3 * d - 4);
    }
    int q = 3 * d - 1 - step; /* send step s = step - 2d reaches a(t) = d-1-s */
    return (p - (1ull << (2 * q))) << (q - 2);
}

/* Lowest common dominator of a and b (idom tree with depths). */
static uint32_t dom_meet(const uint32_t *idom, const uint32_t *depth, uint32_t a, uint32_t b)
{
    while (a != b) {
        if (depth[a] >= depth[b])
            a = idom[a];
        else
            b = idom[b];
    }
    return a;
}

/*
 * For each step of s (a 2^d x 2^d torus schedule), the largest number of
 * blocks one message must carry under any routing over s's partners:
 * blocks (o, t) whose every path from o at time 0 to t at the end uses the
 * message. The graph has a node (v, i) per node and time and one per
 * message; (t, end)'s dominators that are messages are the forced ones.
 * Origins (x, 0) only, one per orbit of (x, y) -> (x^v, y^v), which must
 * map the partners onto themselves (checked); a node's count is then the
 * sum over its orbit. out[i] for each step; 0, or -1 (and a failed check).
 */
static int forced_steps(const xchg_sched *s, int d, uint64_t *out)
{
    const uint32_t n = 1u << d, p = n * n, ns = (uint32_t)xchg_sched_nsteps(s);
    const size_t layers = (size_t)(ns + 1) * p, total = layers + (size_t)ns * p;
    uint32_t *to = malloc((size_t)ns * p * sizeof *to);
    uint32_t *idom = malloc(total * sizeof *idom), *depth = malloc(total * sizeof *depth);
    uint8_t *seen = malloc(total);
    uint64_t *cnt = calloc((size_t)ns * p, sizeof *cnt), *orbit = calloc(n, sizeof *orbit);
    int rc = -1;
    if (!to || !idom || !depth || !seen || !cnt || !orbit) {
        CHECK(0, "forced_steps: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < ns; i++)
        for (uint32_t v = 0; v < p; v++) {
            xchg_msg m;
            xchg_sched_message(s, i, v, &m);
            to[(size_t)i * p + v] = m.to;
        }
    for (uint32_t i = 0; i < ns; i++)
        for (uint32_t sh = 1; sh < n; sh++)
            for (uint32_t v = 0; v < p; v++) {
                uint32_t f = sh | (sh << d), a = to[(size_t)i * p + v];
                uint32_t b = to[(size_t)i * p + (v ^ f)];
                if (a == XCHG_NONE ? b != XCHG_NONE : b != (a ^ f)) {
                    CHECK(0, "2^%d: step %u not symmetric at node %u", d, i + 1, v);
                    goto done;
                }
            }
    for (uint32_t o = 0; o < n; o++) {
        memset(seen, 0, total);
        seen[o] = 1;
        idom[o] = o;
        depth[o] = 0;
        for (uint32_t i = 0; i < ns; i++) {
            const uint32_t *ti = to + (size_t)i * p;
            size_t here = (size_t)i * p, next = here + p, msg = layers + (size_t)i * p;
            for (uint32_t v = 0; v < p; v++) {
                if (seen[here + v]) { /* staying put */
                    seen[next + v] = 1;
                    idom[next + v] = (uint32_t)(here + v);
                }
                if (ti[v] != XCHG_NONE && seen[here + v]) {
                    seen[msg + v] = 1;
                    idom[msg + v] = (uint32_t)(here + v);
                    depth[msg + v] = depth[here + v] + 1;
                }
            }
            for (uint32_t v = 0; v < p; v++) {
                if (ti[v] == XCHG_NONE || !seen[msg + v])
                    continue;
                size_t x = next + ti[v];
                if (!seen[x]) {
                    seen[x] = 1;
                    idom[x] = (uint32_t)(msg + v);
                } else {
                    idom[x] = dom_meet(idom, depth, idom[x], (uint32_t)(msg + v));
                }
            }
            for (uint32_t v = 0; v < p; v++)
                if (seen[next + v])
                    depth[next + v] = depth[idom[next + v]] + 1;
        }
        for (uint32_t t = 0; t < p; t++) {
            size_t x = (size_t)ns * p + t;
            if (!seen[x]) {
                CHECK(0, "2^%d: block (%u,%u) cannot arrive", d, o, t);
                goto done;
            }
            while (x != o) {
                if (x >= layers)
                    cnt[x - layers]++;
                x = idom[x];
            }
        }
    }
    for (uint32_t i = 0; i < ns; i++) {
        memset(orbit, 0, n * sizeof *orbit);
        for (uint32_t v = 0; v < p; v++)
            orbit[(v ^ (v >> d)) & (n - 1)] += cnt[(size_t)i * p + v];
        out[i] = 0;
        for (uint32_t z = 0; z < n; z++)
            if (orbit[z] > out[i])
                out[i] = orbit[z];
    }
    rc = 0;
done:
    free(to);
    free(idom);
    free(depth);
    free(seen);
    free(cnt);
    free(orbit);
    return rc;
}

/* The bound against Table 1, t1:paper and the docs, d = 4..7. */
static void t1_bound_checks(void)
{
    /* docs/torus-suh.md and docs/liu-comparison.md: bound, t1:paper */
    const uint64_t doc_bound[8] = {[6] = 166808, [7] = 1375384};
    const uint64_t doc_paper[8] = {[6] = 167064, [7] = 1377432};
    /* the worked cases' tables, step by step: bound, then t1:paper */
    static const uint64_t doc_steps[8][2][18] = {
        [6] = {{2044, 4088, 4060, 8120, 7904, 15808, 15872, 15872, 16384, 16384, 16384, 16384,
                15360, 8064, 4080},
               {2048, 4088, 4088, 8120, 8128, 15808, 15872, 15872, 16384, 16384, 16384, 16384,
                15360, 8064, 4080}},
        [7] = {{8188, 16376, 16348, 32696, 32480, 64960, 63232, 126464, 126976, 126976, 131072,
                131072, 131072, 131072, 122880, 64512, 32640, 16368},
               {8192, 16376, 16376, 32696, 32704, 64960, 65024, 126464, 126976, 126976, 131072,
                131072, 131072, 131072, 122880, 64512, 32640, 16368}},
    };
    for (int d = 4; d <= 7; d++) {
        uint64_t p = 1ull << (2 * d), bound = 0, st, table;
        /* the closed forms the docs give for X_q and Y */
        CHECK_EQ_U64(bound_x(d, 1), p / 2 - 4, "X_1 = p/2 - 4");
        for (int q = 2; q <= d - 3; q++)
            CHECK_EQ_U64(bound_x(d, q), (p << q) / 4 - (9ull << (3 * q - 4)),
                         "X_q = 2^(q-2) p - 9*2^(3q-4)");
        CHECK_EQ_U64(bound_x(d, d - 2), 31ull << (3 * d - 10), "Y = 31*2^(3d-10)");
        xchg_sched *s = gen(d, "t1:paper");
        if (!s)
            continue;
        uint64_t forced[3 * 8];
        size_t ns = xchg_sched_nsteps(s);
        CHECK_EQ_U64(ns, 3ull * (uint64_t)d - 3, "t1:paper steps");
        int have_forced = ns == 3u * (unsigned)d - 3 && forced_steps(s, d, forced) == 0;
        for (size_t i = 0; i < ns; i++) {
            uint64_t b = bound_step(d, (int)i + 1), got = xchg_sched_step_max_blocks(s, i);
            bound += b;
            CHECK(b <= got, "2^%d step %zu: bound %llu <= t1:paper's %llu", d, i + 1,
                  (unsigned long long)b, (unsigned long long)got);
            if (d >= 6) {
                CHECK_EQ_U64(b, doc_steps[d][0][i], "the docs' bound for this step");
                CHECK_EQ_U64(got, doc_steps[d][1][i], "the docs' t1:paper message for this step");
            }
            if (have_forced)
                CHECK(forced[i] == b, "2^%d step %zu: forced by the pattern %llu = bound %llu", d,
                      i + 1, (unsigned long long)forced[i], (unsigned long long)b);
        }
        xchg_cost c = cost_of(s);
        table1_t1(d, &st, &table);
        CHECK(bound <= c.volume_blocks, "2^%d: bound %llu <= t1:paper %llu", d,
              (unsigned long long)bound, (unsigned long long)c.volume_blocks);
        if (d <= 5) {
            CHECK(bound < table, "2^%d: bound %llu below Table 1's %llu (d <= 5)", d,
                  (unsigned long long)bound, (unsigned long long)table);
        } else {
            CHECK(table < bound, "2^%d: Table 1's %llu below the bound %llu", d,
                  (unsigned long long)table, (unsigned long long)bound);
            CHECK_EQ_U64(bound, doc_bound[d], "the bound as the docs give it");
            CHECK_EQ_U64(c.volume_blocks, doc_paper[d], "t1:paper's volume as the docs give it");
        }
        xchg_sched_free(s);
    }
    /* Beyond what is generated here, the formulas alone: above Table 1 for
     * every d >= 6, by more each time (docs: 844952 blocks at d = 8). */
    uint64_t gap = 0;
    for (int d = 6; d <= 12; d++) {
        uint64_t bound = 0, st, table;
        for (int i = 1; i <= 3 * d - 3; i++)
            bound += bound_step(d, i);
        table1_t1(d, &st, &table);
        CHECK(bound > table && bound - table > gap, "2^%d: bound %llu above Table 1's %llu", d,
              (unsigned long long)bound, (unsigned long long)table);
        if (d == 8)
            CHECK_EQ_U64(bound - table, 844952, "the gap at d = 8 as the docs give it");
        gap = bound > table ? bound - table : 0;
    }
}

/* Parsing, preconditions, variants, and a broken schedule. */
static void api_checks(void)
{
    const xchg_alg *a = NULL;
    xchg_opts o;
    xchg_err err = {{0}};
    CHECK(xchg_alg_parse("t1.2", &a, &o, &err) == 0 && a && strcmp(a->name, "t1.x") == 0 &&
              o.x == 2,
          "t1.2 parses as t1.x with x = 2 (%s)", err.msg);
    CHECK(xchg_alg_parse("t1.x:3", &a, &o, &err) == 0 && o.x == 3, "t1.x:3");
    CHECK(xchg_alg_parse("t1.0", &a, &o, &err) == XCHG_EINVAL, "t1.0 refused");
    CHECK(xchg_alg_parse("t1.2:3", &a, &o, &err) == XCHG_EINVAL, "t1.2:3 refused");
    CHECK(xchg_alg_parse("t1.x", &a, &o, &err) == XCHG_EINVAL, "t1.x needs x");
    CHECK(xchg_alg_parse("t3.2", &a, &o, &err) == XCHG_EINVAL, "t3.2 unknown");
    CHECK(xchg_alg_parse("t1:paper", &a, &o, &err) == 0 && strcmp(a->name, "t1") == 0,
          "t1:paper parses");
    CHECK(xchg_alg_parse("t1:pap", &a, &o, &err) == XCHG_EINVAL && strstr(err.msg, "paper"),
          "t1:pap refused: %s", err.msg);

    const char *bad[] = {"torus:8x4", "torus:6x6", "mesh:8x8", "torus:2x2", "torus:4x4x4",
                         "hypercube:4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xchg_topo t = check_topo(bad[i]);
        xchg_sched *s = NULL;
        CHECK(xchg_generate(&t, "t2", &s, &err) == XCHG_ENOTAPPLIC && !s, "t2 refuses %s",
              bad[i]);
        CHECK(xchg_generate(&t, "t1", &s, &err) == XCHG_ENOTAPPLIC && !s, "t1 refuses %s",
              bad[i]);
    }
    xchg_topo t16 = check_topo("torus:16x16");
    xchg_sched *s = NULL;
    CHECK(xchg_generate(&t16, "t1.1", &s, &err) == XCHG_ENOTAPPLIC && !s &&
              strstr(err.msg, "d-4"),
          "t1.1 needs d >= 5: %s", err.msg);

    xchg_topo t1k = check_topo("torus:1024x1024");
    CHECK(xchg_generate(&t1k, "t1:paper", &s, &err) == XCHG_ETOOBIG && !s,
          "t1:paper refuses 1024x1024: %s", err.msg);
    xchg_topo t256 = check_topo("torus:256x256");
    a = xchg_alg_find("t1.x");
    char specs[8][64];
    int n = a ? a->variants(&t256, specs, 8) : 0;
    CHECK(n == 4 && strcmp(specs[0], "t1.1") == 0 && strcmp(specs[3], "t1.4") == 0,
          "variants on 256x256: t1.1..t1.4 (got %d)", n);

    /* Break one concentration step: a G(2) node keeps the wrong half. */
    s = gen(4, "t1");
    if (s) {
        xchg_step *st = &s->steps[0];
        for (uint32_t v = 0; v < s->topo.nodes; v++)
            if (st->class_table[v] == 1) {
                st->class_table[v] = 0;
                break;
            }
        xchg_verify_report r;
        CHECK(xchg_verify(s, NULL, &r, NULL) == 0 && !r.ok && r.size_mismatches > 0,
              "a wrong class is caught (ok %d, mismatches %llu)", r.ok,
              (unsigned long long)r.size_mismatches);
        xchg_sched_free(s);
    }
}

int main(void)
{
    for (int d = 2; d <= 5; d++) {
        verify_case(d, "t1");
        verify_case(d, "t1:paper");
        verify_case(d, "t2");
        for (int x = 1; x <= d - 4; x++) {
            char spec[16];
            snprintf(spec, sizeof spec, "t1.%d", x);
            verify_case(d, spec);
        }
    }
    table1_checks();
    t1_bound_checks();
    structure_checks();
    api_checks();
    return check_finish("test_torus_suh");
}
