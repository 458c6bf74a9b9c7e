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
 *   - spec parsing (t1.2 = t1.x:2), preconditions, variants;
 *   - a broken schedule is caught (the tests can fail).
 */
#include <stdio.h>
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
    structure_checks();
    api_checks();
    return check_finish("test_torus_suh");
}
