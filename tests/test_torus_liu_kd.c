/*
 * test_torus_liu_kd.c - seed 001's k-D torus algorithms (mt3, mtk, pt4,
 * ptk; src/alg/torus_liu_kd.c) on the sizes the paper allows, small enough
 * for a test (the big ones, 24x24x24 and up, are in bench/liukd_verify.sh):
 *   - every schedule verified block by block (delivery, declared sizes,
 *     one-port, routes, no directed link used twice in a step), and the
 *     verifier's counts = the cost model's = the entry's formula;
 *   - the formula against seed 001's closed forms (MT_3D/MT_kD, T_4D/T_kD),
 *     equal except in exactly the documented case (docs/mt.md, docs/pt.md)
 *     N1 = 2k (k fewer start-ups), including the mixed sizes where only
 *     the split of a shorter ring's final step reaches the formula (N1/k =
 *     2 mod 4 with a shorter ring N_i/k = 0 mod 4, N_i/k > N1/2k);
 *   - the paper's structure: AR1 steps select what torus_liu.h's AR1 says,
 *     MT3's groups move along x, y, z in the order of Figure 5 on every
 *     third node, phase 2 is Figure 6, PT's last steps are the binary cube;
 *   - volume never below the torus bisection bound (seed 001 Lemma 1);
 *   - with `virtual`, any sizes (primes, odd, mixed): hosted schedules
 *     verified block by block, contention-free, no closed form claimed;
 *   - the verifier's inline CLASS_DIST path against a plain follow through
 *     the public API (xchg_sched_message, xchg_sched_selects) on small cases;
 *   - the entries' formulas (the slot placement) against the paper's on
 *     every allowed size up to 160x160, 96^3 and 48^4, no schedule built;
 *   - the preconditions refuse what they must, with a message, and a
 *     torus too large for per-node tables is refused, not thrashed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg/torus_liu.h"
#include "alg/torus_liu_kd.h"
#include "check.h"

/* Generate alg on spec; NULL (and a failed check) when it does not. */
static xchg_sched *gen(const char *alg, const char *spec)
{
    return check_generate(spec, alg);
}

/* Largest size of t. */
static uint32_t max_size(const xchg_topo *t)
{
    uint32_t n1 = 0;
    for (int d = 0; d < t->ndims; d++)
        if (t->size[d] > n1)
            n1 = t->size[d];
    return n1;
}

/*
 * The paper's counts for t, corrected by the documented exception
 * (a) q1 = N1/k = 2: AR1 on 2 nodes has no final step, k start-ups fewer.
 * Sets *exc to 'a'; or to 'b' for the sizes where the formula holds only
 * because the shorter ring's final is split (q1 = 2 mod 4 and some q_i = 0
 * mod 4 with q_i > q1/2: unsplit, that final, p/2 blocks, would outweigh
 * the longest ring's, p/2 - p/q1, and every free slot); else 0.
 */
static xchg_counts paper_corrected(const xchg_topo *t, int which, int *exc)
{
    xchg_counts c;
    memset(&c, 0, sizeof c);
    CHECK(xchg_liu_kd_paper(t, which, &c) == 0, "paper formula refuses");
    uint64_t k = (uint64_t)t->ndims, q1 = max_size(t) / k;
    *exc = 0;
    if (q1 == 2) {
        c.startups -= k;
        *exc = 'a';
    }
    int b = 0;
    for (int d = 0; d < t->ndims; d++) {
        uint64_t q = t->size[d] / k;
        if (q1 % 4 == 2 && q % 4 == 0 && 2 * q > q1)
            b = 1;
    }
    if (b)
        *exc = 'b';
    return c;
}

static int nexc[3];

/* Verify alg on spec; check verifier = cost = formula = paper (corrected)
 * and volume >= Lemma 1's bound. which: XCHG_LIU_KD_*. */
static void full_case(const char *alg, const char *spec, int which)
{
    xchg_sched *s = gen(alg, spec);
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    xchg_verify_report rep;
    xchg_err err = {{0}};
    char what[160];
    snprintf(what, sizeof what, "%s on %s", alg, spec);
    int rc = check_verify_clean(s, what, &rep);
    if (rc == 0)
        CHECK(rep.link_volume_blocks == rep.volume_blocks, "%s on %s: link volume", alg, spec);
    xchg_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.ts = 1;
    mach.tw = 1;
    xchg_cost cost;
    CHECK(xchg_cost_compute(s, &mach, 1.0, 0, &cost, &err) == 0, "cost: %s", err.msg);
    xchg_counts f;
    const xchg_alg *a = xchg_alg_find(alg);
    xchg_opts o;
    memset(&o, 0, sizeof o);
    CHECK(a && a->formula(t, &o, &f) == 0, "%s on %s: formula", alg, spec);
    snprintf(what, sizeof what, "%s on %s: verifier vs formula start-ups", alg, spec);
    CHECK_EQ_U64(rep.startups, f.startups, what);
    snprintf(what, sizeof what, "%s on %s: verifier vs formula volume", alg, spec);
    CHECK_EQ_U64(rep.volume_blocks, f.volume_blocks, what);
    snprintf(what, sizeof what, "%s on %s: cost vs verifier start-ups", alg, spec);
    CHECK_EQ_U64(cost.startups, rep.startups, what);
    snprintf(what, sizeof what, "%s on %s: cost vs verifier volume", alg, spec);
    CHECK_EQ_U64(cost.volume_blocks, rep.volume_blocks, what);
    int exc;
    xchg_counts pc = paper_corrected(t, which, &exc);
    nexc[exc == 0 ? 0 : exc == 'a' ? 1 : 2]++;
    snprintf(what, sizeof what, "%s on %s: paper start-ups (exception %c)", alg, spec,
             exc ? exc : '-');
    CHECK_EQ_U64(rep.startups, pc.startups, what);
    snprintf(what, sizeof what, "%s on %s: paper volume (exception %c)", alg, spec,
             exc ? exc : '-');
    CHECK_EQ_U64(rep.volume_blocks, pc.volume_blocks, what);
    /* Lemma 1: N1 * p / 8 blocks, rounded up (a ring of 2 has one link:
     * 1 block) */
    uint64_t n1 = max_size(t);
    uint64_t lb = n1 == 2 ? 1 : (n1 * t->nodes + 7) / 8;
    CHECK_EQ_U64(cost.lb_bisection_blocks, lb, "Lemma 1 bound from the cost model");
    CHECK(rep.volume_blocks >= lb, "%s on %s: volume %llu below Lemma 1's %llu", alg, spec,
          (unsigned long long)rep.volume_blocks, (unsigned long long)lb);
    xchg_sched_free(s);
}

/* AR1 steps of mtk/ptk on ring:q select exactly what torus_liu.h's
 * xchg_liu_ar1_sends says, to the partner xchg_liu_ar1_offset says. */
static void ar1_agrees(const char *alg, uint32_t q)
{
    char spec[32];
    snprintf(spec, sizeof spec, "ring:%u", q);
    xchg_sched *s = gen(alg, spec);
    if (!s)
        return;
    CHECK_EQ_U64(xchg_sched_nsteps(s), xchg_liu_ar1_nsteps(q), "AR1 steps");
    int bad = 0;
    for (size_t k = 0; k < xchg_sched_nsteps(s); k++)
        for (uint32_t i = 0; i < q; i++) {
            xchg_msg m;
            xchg_sched_message(s, k, i, &m);
            uint32_t want = (uint32_t)(((int64_t)i + xchg_liu_ar1_offset(q, (uint32_t)k, i) + q) % q);
            if (m.to != want)
                bad++;
            for (uint32_t j = 0; j < q; j++)
                if (!!xchg_sched_selects(s, k, i, i, j) != !!xchg_liu_ar1_sends(q, (uint32_t)k, i, j))
                    bad++;
        }
    CHECK(bad == 0, "%s on ring:%u: %d disagreements with torus_liu.h's AR1", alg, q, bad);
    xchg_sched_free(s);
}

/* Signed move of a message along dim (shortest representative). */
static int64_t move_along(const xchg_topo *t, uint32_t from, uint32_t to, int dim)
{
    int64_t n = t->size[dim];
    int64_t dlt = (int64_t)xchg_topo_coord(t, to, dim) - (int64_t)xchg_topo_coord(t, from, dim);
    dlt = ((dlt % n) + n) % n;
    return dlt > n / 2 ? dlt - n : dlt;
}

/* MT3 on 12x12x12 (AR1 parts of 2 slots): phase 1 part j, group g moves
 * along dimension (g + j) mod 3 only (x, y, z for G0; y, z, x for G1; z, x,
 * y for G2: Figure 5), by multiples of 3; phase 2 is Figure 6. */
static void mt3_structure(void)
{
    xchg_sched *s = gen("mt3", "torus:12x12x12");
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    CHECK_EQ_U64(xchg_sched_nsteps(s), 3 * 2 + 6, "mt3 12x12x12 steps");
    int bad = 0;
    for (size_t k = 0; k < 6; k++) {
        int j = (int)k / 2;
        for (uint32_t v = 0; v < t->nodes; v++) {
            xchg_msg m;
            xchg_sched_message(s, k, v, &m);
            uint32_t g = (xchg_topo_coord(t, v, 0) + xchg_topo_coord(t, v, 1) +
                          xchg_topo_coord(t, v, 2)) % 3;
            int dim = (int)(g + (uint32_t)j) % 3;
            for (int d = 0; d < 3; d++) {
                int64_t mv = m.to == XCHG_NONE ? 0 : move_along(t, v, m.to, d);
                if (d != dim ? mv != 0 : (mv == 0 || mv % 3 != 0))
                    bad++;
            }
        }
    }
    CHECK(bad == 0, "mt3 phase 1: %d moves off the Figure 5 pattern", bad);
    /* Figure 6: step 2d+1: r=0,1 -> +1, r=2 -> -2; step 2d+2: 0 -> +2, 1,2 -> -1 */
    static const int fig6[2][3] = {{1, 1, -2}, {2, -1, -1}};
    bad = 0;
    for (int d = 0; d < 3; d++)
        for (int e = 0; e < 2; e++)
            for (uint32_t v = 0; v < t->nodes; v++) {
                xchg_msg m;
                xchg_sched_message(s, (size_t)(6 + 2 * d + e), v, &m);
                uint32_t r = xchg_topo_coord(t, v, d) % 3;
                if (m.to == XCHG_NONE || move_along(t, v, m.to, d) != fig6[e][r] ||
                    m.blocks != t->nodes / 3)
                    bad++;
            }
    CHECK(bad == 0, "mt3 phase 2: %d messages off Figure 6", bad);
    xchg_sched_free(s);
}

/* PT4 on 8x8x8x8: the last four steps are the binary 4-cube (partner across
 * coordinate bit 0 of dimension j, p/2 blocks each), the four before them
 * the 2-cubes of the two PT2 runs at stride 2 (moves of 2). */
static void pt4_structure(void)
{
    xchg_sched *s = gen("pt4", "torus:8x8x8x8");
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    size_t n = xchg_sched_nsteps(s);
    int bad = 0;
    for (int j = 0; j < 4; j++)
        for (uint32_t v = 0; v < t->nodes; v++) {
            xchg_msg m;
            xchg_sched_message(s, n - 4 + (size_t)j, v, &m);
            uint32_t c = xchg_topo_coord(t, v, j);
            uint32_t want = v + ((c ^ 1u) - c) * t->stride[j];
            if (m.to != want || m.blocks != t->nodes / 2)
                bad++;
        }
    CHECK(bad == 0, "pt4: %d messages of the last four steps are not the 4-cube", bad);
    bad = 0;
    for (size_t k = n - 6; k < n - 4; k++)
        for (uint32_t v = 0; v < t->nodes; v++) {
            xchg_msg m;
            xchg_sched_message(s, k, v, &m);
            int moved = 0;
            for (int d = 0; d < 4; d++) {
                int64_t mv = move_along(t, v, m.to, d);
                if (mv != 0 && (mv == 2 || mv == -2))
                    moved++;
                else if (mv != 0)
                    moved += 10;
            }
            if (moved != 1)
                bad++;
        }
    CHECK(bad == 0, "pt4: %d messages of the stride-2 cube steps move otherwise", bad);
    xchg_sched_free(s);
}

/*
 * The entries' formulas (the slot placement's counts, which full_case ties
 * to verified schedules) against the paper's closed forms on every size the
 * paper allows up to 160x160, 96^3 and 48^4 (N1 >= N2 >= ...): equal, but
 * for k fewer start-ups where N1 = 2k. No schedule is built here.
 */
static void formula_sweep(void)
{
    char spec[80];
    int n = 0, bad = 0;
    for (int pass = 0; pass < 3; pass++) {
        int k = pass + 2, top = pass == 0 ? 40 : pass == 1 ? 16 : 6;
        for (int a = 1; a <= top; a++)
            for (int b = 1; b <= a; b++)
                for (int c = 1; c <= (k >= 3 ? b : 1); c++)
                    for (int d = 1; d <= (k >= 4 ? c : 1); d++) {
                        int m = 2 * (k == 4 ? 4 : k);
                        if (k == 2)
                            snprintf(spec, sizeof spec, "torus:%dx%d", m * a, m * b);
                        else if (k == 3)
                            snprintf(spec, sizeof spec, "torus:%dx%dx%d", m * a, m * b, m * c);
                        else
                            snprintf(spec, sizeof spec, "torus:%dx%dx%dx%d", m * a, m * b,
                                     m * c, m * d);
                        xchg_topo t = check_topo(spec);
                        for (int e = 0; e < 2; e++) {
                            if (e == 1 && k == 3)
                                continue;
                            const xchg_alg *al = xchg_alg_find(e ? "ptk" : "mtk");
                            xchg_opts o;
                            memset(&o, 0, sizeof o);
                            xchg_counts f;
                            int exc;
                            if (!al || al->formula(&t, &o, &f) != 0) {
                                bad++;
                                continue;
                            }
                            xchg_counts pc = paper_corrected(
                                &t, e ? XCHG_LIU_KD_PT_PRINTED : XCHG_LIU_KD_MT, &exc);
                            n++;
                            bad += f.startups != pc.startups || f.volume_blocks != pc.volume_blocks;
                        }
                    }
    }
    CHECK(bad == 0 && n > 2000, "formula sweep: %d of %d sizes off the paper's formulas", bad, n);
}

/* Cost only (too big to verify in a test): pt4 on 16^4 against T_4D. */
static void pt4_cost_only(void)
{
    xchg_sched *s = gen("pt4", "torus:16x16x16x16");
    if (!s)
        return;
    xchg_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.ts = 1;
    mach.tw = 1;
    xchg_cost c;
    xchg_err err = {{0}};
    CHECK(xchg_cost_compute(s, &mach, 1.0, 0, &c, &err) == 0, "cost: %s", err.msg);
    /* T_4D by hand: start-ups 4*ceil(16/16) + 12 = 16; volume
     * (16*floor(256/128) + 6*16) * 16^3 = 128 * 4096 = 524288 blocks */
    CHECK_EQ_U64(c.startups, 16, "pt4 16^4 start-ups = T_4D");
    CHECK_EQ_U64(c.volume_blocks, 524288, "pt4 16^4 volume = T_4D");
    xchg_counts pc;
    xchg_liu_kd_paper(xchg_sched_topo(s), XCHG_LIU_KD_PT_PRINTED, &pc);
    CHECK_EQ_U64(pc.volume_blocks, 524288, "xchg_liu_kd_paper T_4D 16^4");
    xchg_sched_free(s);
}

/* Follow every block of alg on spec through the public API, one block at a
 * time: every block delivered and every (step, node) sends exactly its
 * declared number of blocks -- the verifier's checks, without its fast
 * paths, so a bug in the inline CLASS_DIST evaluation would show here. */
static void slow_follow(const char *alg, const char *spec)
{
    xchg_sched *s = gen(alg, spec);
    if (!s)
        return;
    const xchg_topo *t = xchg_sched_topo(s);
    uint32_t p = t->nodes;
    size_t T = xchg_sched_nsteps(s);
    uint64_t *cnt = calloc(T * p, sizeof *cnt);
    uint32_t *to = malloc(T * p * sizeof *to);
    CHECK(cnt && to, "memory");
    if (!cnt || !to) {
        free(cnt);
        free(to);
        xchg_sched_free(s);
        return;
    }
    for (size_t k = 0; k < T; k++)
        for (uint32_t v = 0; v < p; v++) {
            xchg_msg m;
            xchg_sched_message(s, k, v, &m);
            to[k * p + v] = m.to;
        }
    uint64_t lost = 0, bad = 0;
    for (uint32_t o = 0; o < p; o++)
        for (uint32_t d = 0; d < p; d++) {
            uint32_t at = o;
            for (size_t k = 0; k < T; k++)
                if (to[k * p + at] != XCHG_NONE && xchg_sched_selects(s, k, at, o, d)) {
                    cnt[k * p + at]++;
                    at = to[k * p + at];
                }
            lost += at != d;
        }
    for (size_t k = 0; k < T; k++)
        for (uint32_t v = 0; v < p; v++) {
            xchg_msg m;
            xchg_sched_message(s, k, v, &m);
            bad += cnt[k * p + v] != (m.to == XCHG_NONE ? 0 : m.blocks);
        }
    CHECK(lost == 0 && bad == 0, "%s on %s, followed one by one: %llu lost, %llu size errors",
          alg, spec, (unsigned long long)lost, (unsigned long long)bad);
    free(cnt);
    free(to);
    xchg_sched_free(s);
}

/* alg:virtual on spec: verified, contention-free, named, volume >= the
 * bisection bound, start-ups >= ceil(log2 p); the formula refuses. */
static void virtual_case(const char *alg, const char *spec)
{
    char full[64];
    snprintf(full, sizeof full, "%s:virtual", alg);
    xchg_sched *s = gen(full, spec);
    if (!s)
        return;
    CHECK(strcmp(xchg_sched_algorithm(s), full) == 0, "%s names itself %s", full,
          xchg_sched_algorithm(s));
    xchg_verify_report rep;
    xchg_err err = {{0}};
    char what[160];
    snprintf(what, sizeof what, "%s on %s", full, spec);
    int rc = check_verify_clean(s, what, &rep);
    xchg_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.ts = 1;
    mach.tw = 1;
    xchg_cost cost;
    CHECK(xchg_cost_compute(s, &mach, 1.0, 0, &cost, &err) == 0, "cost: %s", err.msg);
    if (rc == 0) {
        CHECK_EQ_U64(cost.volume_blocks, rep.volume_blocks, "virtual: cost vs verifier volume");
        CHECK_EQ_U64(cost.startups, rep.startups, "virtual: cost vs verifier start-ups");
    }
    CHECK(cost.volume_blocks >= cost.lb_bisection_blocks &&
              cost.volume_blocks >= cost.lb_injection_blocks &&
              cost.startups >= cost.lb_startups,
          "%s on %s: below a lower bound", full, spec);
    const xchg_alg *a = NULL;
    xchg_opts o;
    CHECK(xchg_alg_parse(full, &a, &o, &err) == 0 && a, "parse %s", full);
    xchg_counts f;
    if (a)
        CHECK(a->formula(xchg_sched_topo(s), &o, &f) == XCHG_ENOTAPPLIC,
              "%s: hosted schedules have no closed form", full);
    xchg_sched_free(s);
}

/* alg must refuse spec with code and a message containing needle. */
static void refuses(const char *alg, const char *spec, const char *needle)
{
    xchg_topo t = check_topo(spec);
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    int rc = xchg_generate(&t, alg, &s, &err);
    CHECK(rc == XCHG_ENOTAPPLIC && !s, "%s on %s: got %d", alg, spec, rc);
    CHECK(strstr(err.msg, needle) != NULL, "%s on %s: message '%s' lacks '%s'", alg, spec,
          err.msg, needle);
    xchg_sched_free(s);
}

int main(void)
{
    char spec[64];
    /* hand-checked anchors of the printed formulas */
    {
        xchg_topo t = check_topo("torus:12x12x12");
        xchg_counts c;
        CHECK(xchg_liu_kd_paper(&t, XCHG_LIU_KD_MT, &c) == 0, "MT_3D applies");
        /* MT_3D: 3*ceil(12/12)+9 = 12; 9*floor(144/72)*144 + 7*1728/2 = 8640 */
        CHECK_EQ_U64(c.startups, 12, "MT_3D 12^3 start-ups");
        CHECK_EQ_U64(c.volume_blocks, 8640, "MT_3D 12^3 volume");
    }
    for (uint32_t q = 2; q <= 40; q += 2) {
        ar1_agrees("mtk", q);
        ar1_agrees("ptk", q);
    }
    /* 2-D (k = 2): every pair of multiples of 4 up to 24, both orders */
    for (uint32_t a = 4; a <= 24; a += 4)
        for (uint32_t b = 4; b <= 24; b += 4) {
            snprintf(spec, sizeof spec, "torus:%ux%u", a, b);
            full_case("mtk", spec, XCHG_LIU_KD_MT);
            full_case("ptk", spec, XCHG_LIU_KD_PT_PRINTED);
        }
    /* 3-D (k = 3): multiples of 6 */
    const char *tori3[] = {"6x6x6", "12x6x6", "12x12x6", "12x12x12", "18x6x6", "18x12x6",
                           "18x12x12", "6x12x18", "18x18x18", "24x12x6"};
    for (size_t i = 0; i < sizeof tori3 / sizeof tori3[0]; i++) {
        snprintf(spec, sizeof spec, "torus:%s", tori3[i]);
        full_case("mt3", spec, XCHG_LIU_KD_MT);
        if (i < 6)
            full_case("mtk", spec, XCHG_LIU_KD_MT);
    }
    /* 4-D (k = 4): the smallest the paper allows */
    full_case("pt4", "torus:8x8x8x8", XCHG_LIU_KD_PT_PRINTED);
    full_case("ptk", "torus:8x8x8x8", XCHG_LIU_KD_PT_PRINTED);
    full_case("mtk", "torus:8x8x8x8", XCHG_LIU_KD_MT);
    /* 1-D (k = 1: the recursion's base, AR1) */
    for (uint32_t q = 2; q <= 24; q += 2) {
        snprintf(spec, sizeof spec, "ring:%u", q);
        full_case("mtk", spec, XCHG_LIU_KD_MT);
        full_case("ptk", spec, XCHG_LIU_KD_PT_PRINTED);
    }
    CHECK(nexc[0] > 0 && nexc[1] > 0 && nexc[2] > 0,
          "cases plain %d, with exception a %d, with a split final %d", nexc[0], nexc[1],
          nexc[2]);
    slow_follow("mt3", "torus:6x6x6");
    slow_follow("mt3", "torus:12x6x6");
    slow_follow("mtk", "torus:12x8");  /* split final */
    slow_follow("mt3", "torus:18x12x6"); /* split finals */
    slow_follow("ptk", "torus:8x12");
    slow_follow("mtk", "torus:6x6x6");
    formula_sweep();
    mt3_structure();
    pt4_structure();
    pt4_cost_only();

    /* any size with virtual nodes: odd, prime, mixed, already-native */
    virtual_case("mtk", "ring:7");
    virtual_case("ptk", "ring:13");
    virtual_case("mtk", "torus:5x7");
    virtual_case("ptk", "torus:6x10");
    virtual_case("mtk", "torus:3x3");
    virtual_case("ptk", "torus:11x13");
    virtual_case("mt3", "torus:7x5x3");
    virtual_case("mtk", "torus:2x3x5");
    virtual_case("mt3", "torus:6x6x6");
    virtual_case("pt4", "torus:3x3x3x3");
    virtual_case("mtk", "torus:2x3x2x3");

    refuses("mt3", "torus:6x6x4", "multiple of 2k = 6");
    refuses("mt3:virtual", "torus:6x6", "3-dimensional");
    refuses("pt4:virtual", "torus:5x5x5", "4-dimensional");
    refuses("mt3", "torus:6x6", "3-dimensional");
    refuses("mtk", "mesh:8x8", "torus");
    refuses("mtk", "torus:8x6", "multiple of 2k = 4");
    refuses("pt4", "torus:8x8x8", "4-dimensional");
    refuses("pt4", "torus:8x8x8x12", "multiple of 2k = 8");
    refuses("ptk", "torus:6x6x6", "power-of-two");
    refuses("ptk", "ring:7", "multiple of 2k = 2");
    {
        /* 16.7M nodes with 1000-step AR1s: refused up front, not thrashed */
        xchg_topo t = check_topo("torus:4096x4092");
        xchg_sched *s = NULL;
        xchg_err err = {{0}};
        int rc = xchg_generate(&t, "mtk", &s, &err);
        CHECK(rc == XCHG_ETOOBIG && !s && strstr(err.msg, "MiB"), "mtk 4096x4092: %d %s", rc,
              err.msg);
        xchg_sched_free(s);
    }
    return check_finish("test_torus_liu_kd");
}
