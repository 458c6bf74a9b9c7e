/*
 * test_cost.c - the cost model: machine presets (Bokhari, Table 1), counts
 * and time of hand-built schedules, argument checks, the one time line
 * (xchg_cost_line: claimed, measured and unmeasured link volumes), and the
 * lower bounds, the bisection bound cross-checked against a brute-force cut
 * count over the topology's own neighbour function.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1.0 + fabs(b));
}


static void test_presets(void)
{
    xchg_machine r;
    CHECK(xchg_machine_ratio(5000, &r, NULL) == 0 && r.ts == 5000 && r.tw == 1 && r.tr == 0 &&
              strcmp(r.units, "t_c") == 0,
          "Suh et al.'s model a = 5000");
    xchg_err re;
    CHECK(xchg_machine_ratio(-1, &r, &re) == XCHG_EINVAL && strstr(re.msg, "a = t_s/t_c"),
          "negative a refused");
    CHECK(xchg_machine_ratio(NAN, &r, &re) == XCHG_EINVAL, "NaN a refused");
    CHECK_EQ_U64(xchg_machine_preset_count(), 3, "preset count");
    const char *want[] = {"paragon", "sp2", "cs2"};
    for (size_t i = 0; i < 3; i++)
        CHECK(xchg_machine_preset_name(i) && strcmp(xchg_machine_preset_name(i), want[i]) == 0,
              "preset %zu is %s", i, want[i]);
    CHECK(xchg_machine_preset_name(3) == NULL, "no 4th preset");

    /* Bokhari, Table 1 on 64 = 2^6 nodes. */
    struct {
        const char *name;
        double ts, tw, tr, bar64;
    } rows[] = {
        {"paragon", 75, 0.011, 0.0140, 126.0 * 6 - 113},
        {"sp2", 70, 0.043, 0.0043, 72.0 * 6 - 52},
        {"cs2", 105, 0.025, 0.0153, 17.0 * 6 - 5.6},
    };
    for (size_t i = 0; i < 3; i++) {
        xchg_machine m;
        xchg_err e;
        int rc = xchg_machine_preset(rows[i].name, 64, &m, &e);
        CHECK(rc == 0, "preset %s", rows[i].name);
        CHECK(strcmp(m.name, rows[i].name) == 0, "name %s", m.name);
        CHECK(near(m.ts, rows[i].ts) && near(m.tw, rows[i].tw) && near(m.tr, rows[i].tr),
              "%s ts/tw/tr", rows[i].name);
        CHECK(near(m.barrier, rows[i].bar64), "%s barrier(64) %g want %g", rows[i].name,
              m.barrier, rows[i].bar64);
        CHECK(strcmp(m.units, "us") == 0, "units us");
    }
    xchg_machine m;
    /* Non power of two rounds d up: 100 nodes -> d = 7. */
    CHECK(xchg_machine_preset("paragon", 100, &m, NULL) == 0 && near(m.barrier, 126.0 * 7 - 113),
          "paragon barrier(100) uses d=7: %g", m.barrier);
    CHECK(xchg_machine_preset("sp2", 128, &m, NULL) == 0 && near(m.barrier, 72.0 * 7 - 52),
          "sp2 barrier(128) d=7");
    /* One node: d = 0, formula negative, clamped to 0. */
    CHECK(xchg_machine_preset("paragon", 1, &m, NULL) == 0 && m.barrier == 0.0,
          "barrier on 1 node is 0, got %g", m.barrier);
    CHECK(xchg_machine_preset("cs2", 2, &m, NULL) == 0 && near(m.barrier, 17.0 - 5.6),
          "cs2 barrier(2) d=1");

    /* Unknown name: EINVAL, message lists every preset, out untouched. */
    memset(&m, 0x5a, sizeof m);
    xchg_machine before = m;
    xchg_err e;
    e.msg[0] = '\0';
    int rc = xchg_machine_preset("cray", 64, &m, &e);
    CHECK(rc == XCHG_EINVAL, "unknown preset -> EINVAL (%d)", rc);
    CHECK(strstr(e.msg, "cray") && strstr(e.msg, "paragon") && strstr(e.msg, "sp2") &&
              strstr(e.msg, "cs2"),
          "message names the input and the presets: %s", e.msg);
    CHECK(memcmp(&m, &before, sizeof m) == 0, "out untouched on failure");
    CHECK(xchg_machine_preset(NULL, 64, &m, NULL) == XCHG_EINVAL, "NULL name -> EINVAL");
}

/* A machine with simple numbers so the arithmetic can be done by hand. */
static xchg_machine simple_machine(void)
{
    xchg_machine m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "simple");
    m.ts = 10;
    m.tw = 0.5;
    m.tr = 0.25;
    m.barrier = 7;
    strcpy(m.units, "us");
    return m;
}

/*
 * A schedule on ring:6 whose declared sizes are arbitrary (the cost model
 * reads declared sizes only): step 0 uniform 3 blocks, step 1 per-node
 * sizes with maximum 5 and 2 copied blocks, step 2 everyone idle (declares
 * 4 but nobody sends), step 3 uniform 0 blocks, step 4 one sender with 2
 * blocks and 1 copied. steps 5, start-ups 3, volume 3+5+2 = 10, copies 3.
 */
static xchg_sched *handmade(void)
{
    xchg_topo t = check_topo("ring:6");
    xchg_sched *s = xchg_sched_new(&t, "handmade", 0);
    CHECK(s != NULL, "sched_new");
    if (!s)
        return NULL;
    int rc = 0;
    xchg_step a = xchg_step_shift(0, 1, xchg_rule_dest_is_to(), 3);
    rc |= xchg_sched_add(s, &a);
    xchg_step b = xchg_step_shift(0, -1, xchg_rule_dest_is_to(), 0);
    b.blocks_table = calloc(6, sizeof *b.blocks_table);
    if (b.blocks_table) {
        uint32_t sizes[6] = {1, 5, 2, 0, 4, 3};
        memcpy(b.blocks_table, sizes, sizeof sizes);
    }
    b.copy_blocks = 2;
    rc |= xchg_sched_add(s, &b);
    xchg_step c = xchg_step_xor(0, xchg_rule_dest_is_to(), 4);
    c.partner = XCHG_PARTNER_TABLE;
    c.partner_table = malloc(6 * sizeof *c.partner_table);
    if (c.partner_table)
        for (int i = 0; i < 6; i++)
            c.partner_table[i] = XCHG_NONE;
    rc |= xchg_sched_add(s, &c);
    xchg_step d = xchg_step_shift(0, 2, xchg_rule_dest_is_to(), 0);
    rc |= xchg_sched_add(s, &d);
    xchg_step e = xchg_step_xor(0, xchg_rule_dest_is_to(), 2);
    e.partner = XCHG_PARTNER_TABLE;
    e.partner_table = malloc(6 * sizeof *e.partner_table);
    if (e.partner_table) {
        for (int i = 0; i < 6; i++)
            e.partner_table[i] = XCHG_NONE;
        e.partner_table[3] = 4;
    }
    e.copy_blocks = 1;
    rc |= xchg_sched_add(s, &e);
    CHECK(rc == 0 && b.blocks_table && c.partner_table && e.partner_table, "building");
    return s;
}

static void test_counts_and_time(void)
{
    xchg_sched *s = handmade();
    if (!s)
        return;
    xchg_machine m = simple_machine();
    xchg_cost c;
    xchg_err e;
    int rc = xchg_cost_compute(s, &m, 4.0, 0, &c, &e);
    CHECK(rc == 0, "cost: %s", rc ? e.msg : "");
    CHECK_EQ_U64(c.steps, 5, "steps");
    CHECK_EQ_U64(c.startups, 3, "startups");
    CHECK_EQ_U64(c.volume_blocks, 10, "volume");
    CHECK_EQ_U64(c.copy_blocks, 3, "copies");
    /* 3*10 + 10*4*0.5 + 3*4*0.25 = 30 + 20 + 3 */
    CHECK(near(c.time, 53.0), "time %g want 53", c.time);
    rc = xchg_cost_compute(s, &m, 4.0, 1, &c, &e);
    CHECK(rc == 0 && near(c.time, 53.0 + 3 * 7.0), "with barrier %g want 74", c.time);
    /* m = 0: only start-ups remain. */
    rc = xchg_cost_compute(s, &m, 0.0, 0, &c, &e);
    CHECK(rc == 0 && near(c.time, 30.0), "m=0 time %g", c.time);
    /* The bounds are filled by compute too: ring:6 -> bisection 3*3/2 = 4.5 -> 5. */
    CHECK_EQ_U64(c.lb_startups, 3, "lb startups ring:6");
    CHECK_EQ_U64(c.lb_injection_blocks, 5, "lb injection ring:6");
    CHECK_EQ_U64(c.lb_bisection_blocks, 5, "lb bisection ring:6 rounds 4.5 up");

    /* Bad arguments: EINVAL, out untouched. */
    xchg_cost before;
    memset(&before, 0x33, sizeof before);
    struct {
        double m;
        double ts, tw, tr, bar;
        const char *what;
    } bad[] = {
        {-1, 10, 0.5, 0.25, 7, "m < 0"},     {NAN, 10, 0.5, 0.25, 7, "m NaN"},
        {INFINITY, 10, 0.5, 0.25, 7, "m inf"}, {4, NAN, 0.5, 0.25, 7, "ts NaN"},
        {4, 10, -0.5, 0.25, 7, "tw < 0"},    {4, 10, 0.5, INFINITY, 7, "tr inf"},
        {4, 10, 0.5, 0.25, -1, "barrier < 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xchg_machine mm = m;
        mm.ts = bad[i].ts;
        mm.tw = bad[i].tw;
        mm.tr = bad[i].tr;
        mm.barrier = bad[i].bar;
        xchg_cost out = before;
        e.msg[0] = '\0';
        rc = xchg_cost_compute(s, &mm, bad[i].m, 0, &out, &e);
        CHECK(rc == XCHG_EINVAL, "%s -> EINVAL (%d)", bad[i].what, rc);
        CHECK(e.msg[0] != '\0', "%s has a message", bad[i].what);
        CHECK(memcmp(&out, &before, sizeof out) == 0, "%s: out untouched", bad[i].what);
    }
    CHECK(xchg_cost_compute(NULL, &m, 1, 0, &c, NULL) == XCHG_EINVAL, "NULL sched");
    CHECK(xchg_cost_compute(s, NULL, 1, 0, &c, NULL) == XCHG_EINVAL, "NULL machine");
    xchg_sched_free(s);
}

/*
 * Brute-force bisection bound: for every dimension cut at floor(n/2), count
 * the distinct directed links (u, v) with u below the cut and v above it,
 * using xchg_topo_neighbor; bound = ceil(|A|*|B| / links), max over dims.
 * On a tree, every edge cut: the leaves below it times the rest.
 */
static uint64_t brute_bisection(const xchg_topo *t)
{
    if (!xchg_topo_has_links(t) || t->nodes < 2)
        return 0;
    uint64_t best = 0;
    if (t->kind == XCHG_TOPO_TREE) {
        /* each edge is one link each way between the 2^l leaves below it
         * and the rest */
        for (int l = 0; l < t->ndims; l++) {
            uint64_t below = 1ull << l, bound = below * (t->nodes - below);
            if (bound > best)
                best = bound;
        }
        return best;
    }
    for (int k = 0; k < t->ndims; k++) {
        uint32_t n = t->size[k];
        uint64_t a = 0, links = 0;
        for (uint32_t u = 0; u < t->nodes; u++) {
            if (xchg_topo_coord(t, u, k) >= n / 2)
                continue;
            a++;
            uint32_t seen[2 * XCHG_MAX_DIMS];
            int nseen = 0;
            for (int j = 0; j < t->ndims; j++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    uint32_t v = xchg_topo_neighbor(t, u, j, dir);
                    if (v == XCHG_NONE || xchg_topo_coord(t, v, k) < n / 2)
                        continue;
                    int dup = 0;
                    for (int q = 0; q < nseen; q++)
                        dup |= seen[q] == v;
                    if (!dup) {
                        seen[nseen++] = v;
                        links++;
                    }
                }
        }
        uint64_t b = t->nodes - a;
        if (links) {
            uint64_t bound = (a * b + links - 1) / links;
            if (bound > best)
                best = bound;
        }
    }
    return best;
}

static void test_lower_bounds(void)
{
    xchg_machine m = simple_machine();
    struct {
        const char *spec;
        uint64_t startups, injection, bisection;
        const char *bis_name, *binding;
    } rows[] = {
        /* p^2/8 = 8 (Liu et al.: ring volume p^2/8 meets Lemma 1). */
        {"ring:8", 3, 7, 8, "ring bisection (Liu et al., Lemma 1)",
         "ring bisection (Liu et al., Lemma 1)"},
        /* N1*p/8 = 8*64/8 = 64. */
        {"torus:8x8", 6, 63, 64, "torus bisection (Liu et al., Lemma 1)",
         "torus bisection (Liu et al., Lemma 1)"},
        /* Odd: cut the 7 into 3|4 columns of 5: 15*20 = 300 blocks over
         * 2*5 = 10 links -> 30; the 5 gives 14*21/14 = 21. 30 < 34. */
        {"torus:5x7", 6, 34, 30, "torus bisection (Liu et al., Lemma 1, odd N1)", "injection"},
        /* 8*8 = 64 blocks over 4 links = 16 > 15. */
        {"mesh:4x4", 4, 15, 16, "mesh bisection", "mesh bisection"},
        {"hypercube:4", 4, 15, 8, "hypercube bisection", "injection"},
        {"complete:9", 4, 8, 0, "", "injection"},
        /* A size-2 wrapped dimension has one link per pair: 3*3/3 = 3,
         * better than cutting the 3 (2*4/4 = 2). */
        {"torus:3x2", 3, 5, 3, "torus bisection (size-2 dimension)", "injection"},
        /* Linear array: 2*3 = 6 blocks over 1 link. */
        {"array:5", 3, 4, 6, "array bisection", "array bisection"},
        {"ring:1", 0, 0, 0, "", "injection"},
        {"hypercube:0", 0, 0, 0, "", "injection"},
        /* 16*16*... : N1 = 16, p = 256: 16*256/8 = 512. */
        {"torus:16x4x4", 8, 255, 512, "torus bisection (Liu et al., Lemma 1)",
         "torus bisection (Liu et al., Lemma 1)"},
        /* A tree: the 4 leaves of each half send 4*4 blocks through the one
         * edge into the other half. */
        {"tree:3", 3, 7, 16, "tree bisection (one edge below the root)",
         "tree bisection (one edge below the root)"},
        {"tree:1", 1, 1, 1, "tree bisection (one edge below the root)", "injection"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        xchg_topo t = check_topo(rows[i].spec);
        xchg_cost c;
        memset(&c, 0, sizeof c);
        c.steps = 12345; /* must stay: lower_bounds fills lb_* only */
        xchg_cost_lower_bounds(&t, &m, 8.0, &c);
        CHECK_EQ_U64(c.steps, 12345, "lower_bounds leaves other fields");
        char what[96];
        snprintf(what, sizeof what, "%s lb_startups", rows[i].spec);
        CHECK_EQ_U64(c.lb_startups, rows[i].startups, what);
        snprintf(what, sizeof what, "%s lb_injection", rows[i].spec);
        CHECK_EQ_U64(c.lb_injection_blocks, rows[i].injection, what);
        snprintf(what, sizeof what, "%s lb_bisection", rows[i].spec);
        CHECK_EQ_U64(c.lb_bisection_blocks, rows[i].bisection, what);
        snprintf(what, sizeof what, "%s bisection vs brute-force cut", rows[i].spec);
        CHECK_EQ_U64(c.lb_bisection_blocks, brute_bisection(&t), what);
        CHECK(strcmp(c.lb_bisection_name, rows[i].bis_name) == 0, "%s name '%s' want '%s'",
              rows[i].spec, c.lb_bisection_name, rows[i].bis_name);
        CHECK(strcmp(c.lb_binding, rows[i].binding) == 0, "%s binding '%s' want '%s'",
              rows[i].spec, c.lb_binding, rows[i].binding);
        uint64_t vol = rows[i].injection > rows[i].bisection ? rows[i].injection
                                                             : rows[i].bisection;
        double want = (double)rows[i].startups * m.ts + (double)vol * 8.0 * m.tw;
        CHECK(near(c.lb_time, want), "%s lb_time %g want %g", rows[i].spec, c.lb_time, want);
    }
    /* Even torus with a non-leading largest dimension and many shapes: the
     * closed form must equal the brute-force cut count. */
    const char *more[] = {"torus:4x6",  "torus:6x4x2", "torus:3x3",  "torus:2x2x2",
                          "mesh:3x5",   "mesh:2x2",    "mesh:7x2x3", "ring:2",
                          "ring:3",     "ring:9",      "array:2",    "array:8",
                          "hypercube:1", "hypercube:7", "torus:10x9", "mesh:6x6",
                          "tree:0",      "tree:5"};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        xchg_topo t = check_topo(more[i]);
        xchg_cost c;
        xchg_cost_lower_bounds(&t, NULL, 1.0, &c);
        char what[96];
        snprintf(what, sizeof what, "%s bisection vs brute force", more[i]);
        CHECK_EQ_U64(c.lb_bisection_blocks, brute_bisection(&t), what);
        CHECK(c.lb_time == 0.0, "%s: no machine, lb_time 0", more[i]);
    }
    /* Lemma 1 exactly for even N1: N1*p/8. */
    xchg_topo t = check_topo("torus:12x6x4");
    xchg_cost c;
    xchg_cost_lower_bounds(&t, NULL, 1.0, &c);
    CHECK_EQ_U64(c.lb_bisection_blocks, 12ull * 288 / 8, "torus:12x6x4 Lemma 1");
}

/* hc-standard-like schedule on hypercube:D built by hand: D steps, XOR bit
 * b, p/2 blocks each. */
static void test_big_schedule(void)
{
    xchg_topo t = check_topo("hypercube:14");
    xchg_sched *s = xchg_sched_new(&t, "hand-standard", 1);
    CHECK(s != NULL, "sched_new 16384");
    if (!s)
        return;
    for (int b = 0; b < 14; b++) {
        xchg_step st = xchg_step_xor(1u << b, xchg_rule_dest_mask_to(1u << b), 8192);
        st.copy_blocks = 8192;
        CHECK(xchg_sched_add(s, &st) == 0, "add");
    }
    xchg_machine m;
    CHECK(xchg_machine_preset("paragon", t.nodes, &m, NULL) == 0, "paragon 16384");
    xchg_cost c;
    CHECK(xchg_cost_compute(s, &m, 64, 1, &c, NULL) == 0, "cost 16384");
    CHECK_EQ_U64(c.steps, 14, "steps");
    CHECK_EQ_U64(c.startups, 14, "startups");
    CHECK_EQ_U64(c.volume_blocks, 14 * 8192, "volume");
    CHECK_EQ_U64(c.copy_blocks, 14 * 8192, "copies");
    CHECK_EQ_U64(c.lb_startups, 14, "lb startups");
    CHECK_EQ_U64(c.lb_injection_blocks, 16383, "lb injection");
    CHECK_EQ_U64(c.lb_bisection_blocks, 8192, "lb bisection");
    CHECK(c.volume_blocks >= c.lb_injection_blocks && c.startups >= c.lb_startups,
          "schedule respects its bounds");
    double want = 14 * 75.0 + 14 * 8192 * 64 * 0.011 + 14 * 8192 * 64 * 0.0140 +
                  14 * (126.0 * 14 - 113);
    CHECK(near(c.time, want), "time %g want %g", c.time, want);
    xchg_sched_free(s);

    /* A torus:128x128 schedule of 127+127 shift steps: O(steps) cost. */
    t = check_topo("torus:128x128");
    s = xchg_sched_new(&t, "hand-shifts", 0);
    if (!s)
        return;
    for (int d = 0; d < 2; d++)
        for (int k = 1; k < 128; k++) {
            xchg_rule r = xchg_rule_coord_dist(d, 1, (uint32_t)k, (uint32_t)k);
            xchg_step st = xchg_step_shift(d, k, r, 128);
            CHECK(xchg_sched_add(s, &st) == 0, "add torus step");
        }
    CHECK(xchg_cost_compute(s, &m, 1, 0, &c, NULL) == 0, "cost 128x128");
    CHECK_EQ_U64(c.startups, 254, "torus startups");
    CHECK_EQ_U64(c.volume_blocks, 254 * 128, "torus volume");
    CHECK_EQ_U64(c.lb_bisection_blocks, 128ull * 16384 / 8, "torus:128x128 Lemma 1");
    xchg_sched_free(s);
}

/*
 * Every registry algorithm (and its variants) on small networks: the
 * schedule respects the lower bounds, and the declared counts the cost
 * model reads agree with what the verifier counts by following blocks.
 * The bisection bound limits the busiest-link volume of any schedule, and
 * the plain volume of a contention-free one (docs/cost-model.md).
 */
/* One schedule: cost and verify it, compare the counts, check the bounds. */
static void registry_case(const char *spec, const char *tspec, const xchg_topo *t, xchg_sched *s,
                          void *ctx)
{
    const xchg_machine *m = ctx;
    (void)t;
    xchg_cost c;
    xchg_err e;
    int rc = xchg_cost_compute(s, m, 16, 0, &c, &e);
    CHECK(rc == 0, "cost %s on %s", spec, tspec);
    xchg_verify_opts vo = {.threads = 1, .max_work = 0};
    xchg_verify_report r;
    rc = xchg_verify(s, &vo, &r, &e);
    CHECK(rc == 0, "verify %s on %s: %s", spec, tspec, rc ? e.msg : "");
    if (rc == 0) {
        CHECK_EQ_U64(c.startups, r.startups, "declared vs counted start-ups");
        CHECK_EQ_U64(c.volume_blocks, r.volume_blocks, "declared vs counted volume");
        CHECK(r.link_volume_blocks >= c.lb_bisection_blocks,
              "%s on %s: busiest-link volume %llu >= bisection %llu", spec, tspec,
              (unsigned long long)r.link_volume_blocks,
              (unsigned long long)c.lb_bisection_blocks);
        if (r.ok && xchg_sched_contention_free(s))
            CHECK(c.volume_blocks >= c.lb_bisection_blocks,
                  "%s on %s: contention-free volume %llu >= bisection %llu", spec, tspec,
                  (unsigned long long)c.volume_blocks, (unsigned long long)c.lb_bisection_blocks);
    }
    CHECK(c.startups >= c.lb_startups, "%s on %s: start-ups %llu >= %llu", spec, tspec,
          (unsigned long long)c.startups, (unsigned long long)c.lb_startups);
    CHECK(c.volume_blocks >= c.lb_injection_blocks, "%s on %s: volume %llu >= injection %llu",
          spec, tspec, (unsigned long long)c.volume_blocks,
          (unsigned long long)c.lb_injection_blocks);
    CHECK(c.time >= c.lb_time || !xchg_sched_contention_free(s),
          "%s on %s: time %g >= lb_time %g", spec, tspec, c.time, c.lb_time);
}

static void test_registry_bounds(void)
{
    const char *specs[] = {"ring:4",    "ring:6",      "ring:8",      "array:5",
                           "mesh:4x4",  "mesh:3x5",    "torus:4x4",   "torus:8x8",
                           "torus:3x5", "hypercube:3", "hypercube:4", "hypercube:6",
                           "complete:6", "complete:7"};
    xchg_machine m;
    CHECK(xchg_machine_preset("sp2", 64, &m, NULL) == 0, "sp2");
    int ran = 0;
    int ops = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ran += check_each_schedule(specs[i], registry_case, &m);
        ops += check_each_op_schedule(specs[i], registry_case, &m);
    }
    CHECK(ran > 0, "some registry algorithm ran (%d)", ran);
    CHECK(ops > 0, "some algorithm of the other operations ran (%d)", ops);
}

/*
 * The one time line: a contention-free schedule's link volume is its
 * volume, unchecked; another's is measured (pairwise on torus:8x8: 153
 * blocks against a volume of 63), read from a report when one is given, or
 * left unmeasured over the work limit; the line gives xchg_cost_compute's
 * time when the link volume is the volume.
 */
static void test_line(void)
{
    xchg_machine m = simple_machine();
    xchg_topo t = check_topo("torus:8x8");
    xchg_sched *cf = NULL, *pw = NULL;
    xchg_err e = {{0}};
    CHECK(xchg_generate(&t, "mesh2", &cf, &e) == 0, "mesh2: %s", e.msg);
    CHECK(xchg_generate(&t, "pairwise", &pw, &e) == 0, "pairwise: %s", e.msg);
    if (!cf || !pw) {
        xchg_sched_free(cf);
        xchg_sched_free(pw);
        return;
    }
    xchg_line l;
    xchg_cost c;
    CHECK(xchg_cost_line(cf, &m, NULL, &l, &e) == 0, "line mesh2: %s", e.msg);
    CHECK(l.link_source == XCHG_LINK_CLAIMED && l.link_volume_blocks == l.volume_blocks &&
              l.volume_blocks == 448 && l.startups == 14 && l.copy_blocks == 64 &&
              l.steps == 14 && l.link_conflicts == 0 && l.check_failures == 0,
          "mesh2: claimed, link volume = volume = 448");
    CHECK(near(l.fixed, 14 * 10.0) && near(l.per_unit, 448 * 0.5 + 64 * 0.25),
          "mesh2 line %g + %g*m", l.fixed, l.per_unit);
    CHECK(xchg_cost_compute(cf, &m, 4.0, 0, &c, &e) == 0 && c.time == xchg_line_time(&l, 4.0),
          "cost_compute's time is the line's: %g vs %g", c.time, xchg_line_time(&l, 4.0));
    xchg_line_opts bo = {.with_barrier = 1};
    CHECK(xchg_cost_line(cf, &m, &bo, &l, &e) == 0 && near(l.fixed, 14 * (10.0 + 7.0)),
          "barrier per start-up in fixed: %g", l.fixed);
    CHECK(xchg_cost_compute(cf, &m, 4.0, 1, &c, &e) == 0 && c.time == xchg_line_time(&l, 4.0),
          "with barrier too");

    xchg_line_opts one = {.threads = 1};
    CHECK(xchg_cost_line(pw, &m, &one, &l, &e) == 0, "line pairwise: %s", e.msg);
    CHECK(l.link_source == XCHG_LINK_MEASURED && l.volume_blocks == 63 &&
              l.link_volume_blocks == 153 && l.link_conflicts > 0 && l.check_failures == 0,
          "pairwise measured: link volume %llu, volume %llu",
          (unsigned long long)l.link_volume_blocks, (unsigned long long)l.volume_blocks);
    CHECK(near(l.per_unit, 153 * 0.5), "the line charges the link volume: %g", l.per_unit);
    CHECK(xchg_line_time(&l, 2.0) == l.fixed + l.per_unit * 2.0, "line time");
    CHECK(xchg_line_time(NULL, 2.0) == 0.0, "NULL line");

    /* From a report: a block-by-block run gives the same link volume. */
    xchg_verify_opts vo = {.threads = 1};
    xchg_verify_report rep;
    CHECK(xchg_verify(pw, &vo, &rep, &e) == 0 && rep.ok, "verify pairwise");
    xchg_line r;
    xchg_line_opts ro = {.report = &rep};
    CHECK(xchg_cost_line(pw, &m, &ro, &r, &e) == 0 && r.link_source == XCHG_LINK_MEASURED &&
              r.link_volume_blocks == l.link_volume_blocks && r.per_unit == l.per_unit,
          "line from a report = line measured");

    /* Over the work limit: not measured, the volume shown. */
    xchg_line_opts lim = {.threads = 1, .max_work = 10};
    CHECK(xchg_cost_line(pw, &m, &lim, &l, &e) == 0 && l.link_source == XCHG_LINK_UNMEASURED &&
              l.link_volume_blocks == 63 && l.link_conflicts == 0,
          "over the limit: unmeasured");
    /* The limit does not touch a claimed line. */
    CHECK(xchg_cost_line(cf, &m, &lim, &l, &e) == 0 && l.link_source == XCHG_LINK_CLAIMED,
          "claimed needs no check");

    /* Refusals: EINVAL, out untouched. */
    xchg_line before;
    memset(&before, 0x33, sizeof before);
    l = before;
    rep.steps = 5;
    CHECK(xchg_cost_line(pw, &m, &ro, &l, &e) == XCHG_EINVAL && strstr(e.msg, "report"),
          "a report of another schedule: %s", e.msg);
    xchg_machine bad = m;
    bad.tw = -1;
    CHECK(xchg_cost_line(pw, &bad, NULL, &l, &e) == XCHG_EINVAL, "negative tw");
    CHECK(xchg_cost_line(NULL, &m, NULL, &l, &e) == XCHG_EINVAL, "NULL schedule");
    CHECK(xchg_cost_line(pw, NULL, NULL, &l, &e) == XCHG_EINVAL, "NULL machine");
    CHECK(xchg_cost_line(pw, &m, NULL, NULL, &e) == XCHG_EINVAL, "NULL out");
    CHECK(memcmp(&l, &before, sizeof l) == 0, "out untouched on failure");
    xchg_sched_free(cf);
    xchg_sched_free(pw);
}

int main(void)
{
    test_presets();
    test_counts_and_time();
    test_lower_bounds();
    test_big_schedule();
    test_registry_bounds();
    test_line();
    return check_finish("test_cost");
}
