/*
 * test_torus_liu.c - ar1 and at2 (seed 001 sections 3 and 4) and the AR1
 * building blocks of src/alg/torus_liu.h:
 *   - the AR1 primitives against a step-by-step replay of the logical ring
 *     (every group from every origin ends at its destination, locate agrees
 *     with the replay, every node sends exactly the declared groups);
 *   - ar1 on every even ring up to 130 and a few larger: verified block by
 *     block, contention-free, counts = seed 001's T_ring;
 *   - at2 on every r x s (multiples of 4) up to 32x32 and the large ones the
 *     issue names (64x64): verified, contention-free, counts = the registry
 *     formula = seed 001's T_2D (4x4: 4 start-ups, docs/at2.md); without
 *     the split final the volume would be higher exactly where docs/at2.md
 *     says (8x12: 352 by hand);
 *   - the Lemma 1 bound (N1 * prod Ni / 8 blocks) from the cost model, and
 *     that AR1's and AT2's volume exceed it only by lower-order terms.
 * The full sweep up to 64x64 in both orders is bench/liu_verify.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg/torus_liu.h"
#include "check.h"

/* Bisection bound of the cost model for t (seed 001 Lemma 1 on tori). */
static uint64_t lemma1(const xchg_topo *t)
{
    xchg_cost c;
    memset(&c, 0, sizeof c);
    xchg_cost_lower_bounds(t, NULL, 1.0, &c);
    return c.lb_bisection_blocks;
}

/*
 * Replay AR1 on q logical nodes with one group per (origin, dest): at each
 * step every node sends the groups xchg_liu_ar1_sends picks to
 * i + xchg_liu_ar1_offset. Checks per-node counts against
 * xchg_liu_ar1_groups, locate against the replay, and final delivery.
 */
static void replay_ar1(uint32_t q)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    uint32_t *at = malloc((size_t)q * q * sizeof *at);
    uint64_t *sent = calloc(q, sizeof *sent);
    if (!at || !sent) {
        CHECK(0, "out of memory");
        free(at);
        free(sent);
        return;
    }
    for (uint32_t o = 0; o < q; o++)
        for (uint32_t j = 0; j < q; j++)
            at[o * q + j] = o;
    int bad_locate = 0, bad_count = 0, bad_behind = 0;
    for (uint32_t k = 0; k <= n; k++) {
        for (uint32_t o = 0; o < q; o++)
            for (uint32_t j = 0; j < q; j++)
                bad_locate += xchg_liu_ar1_locate(q, k, o, j) != at[o * q + j];
        if (k == n)
            break;
        memset(sent, 0, q * sizeof *sent);
        for (uint32_t o = 0; o < q; o++)
            for (uint32_t j = 0; j < q; j++) {
                uint32_t i = at[o * q + j];
                if (xchg_liu_ar1_sends(q, k, i, j)) {
                    /* the final's groups come from origins 0..g-1 behind */
                    if (k + 1 == n)
                        bad_behind += xchg_liu_ar1_behind(q, i, o) >= xchg_liu_ar1_groups(q, k);
                    sent[i]++;
                    at[o * q + j] = (uint32_t)(((int64_t)i + xchg_liu_ar1_offset(q, k, i) + q) % q);
                }
            }
        for (uint32_t i = 0; i < q; i++)
            bad_count += sent[i] != xchg_liu_ar1_groups(q, k);
    }
    int undelivered = 0;
    for (uint32_t o = 0; o < q; o++)
        for (uint32_t j = 0; j < q; j++)
            undelivered += at[o * q + j] != j;
    CHECK(bad_locate == 0, "AR1 q=%u: locate disagrees with the replay %d times", q, bad_locate);
    CHECK(bad_count == 0, "AR1 q=%u: %d (step, node) send other than declared", q, bad_count);
    CHECK(undelivered == 0, "AR1 q=%u: %d groups undelivered", q, undelivered);
    CHECK(bad_behind == 0, "AR1 q=%u: %d final groups from too far behind", q, bad_behind);
    uint64_t st, g;
    xchg_liu_ar1_counts(q, &st, &g);
    CHECK_EQ_U64(g, (uint64_t)q * q / 8 + q / 2, "AR1 groups = floor(q^2/8)+q/2");
    CHECK_EQ_U64(st, q == 2 ? 1 : (q + 3) / 4 + 1, "AR1 start-ups = ceil(q/4)+1");
    free(at);
    free(sent);
}

/* ar1 on ring:p (and torus:p): verified, counts = T_ring, vs Lemma 1. */
static void check_ar1(uint32_t p)
{
    char tspec[32], what[64];
    snprintf(tspec, sizeof tspec, "ring:%u", p);
    xchg_sched *s = check_generate(tspec, "ar1");
    if (!s)
        return;
    xchg_verify_report rep;
    snprintf(what, sizeof what, "ar1 on %s", tspec);
    check_verify_clean(s, what, &rep);
    uint64_t P = p;
    /* seed 001 T_ring, with p = 2 needing one start-up (empty final) */
    CHECK_EQ_U64(rep.startups, P == 2 ? 1 : (P + 3) / 4 + 1, what);
    CHECK_EQ_U64(rep.volume_blocks, P * P / 8 + P / 2, what);
    CHECK_EQ_U64(rep.max_hops, P <= 4 ? 1 : 2, what); /* ring steps only from p = 6 */
    /* Lemma 1 on a ring: p^2/8 (rounded up); the excess is about p/2 */
    uint64_t lb = lemma1(xchg_sched_topo(s));
    CHECK_EQ_U64(lb, (P * P + 7) / 8, "Lemma 1 on a ring");
    CHECK(rep.volume_blocks >= lb && rep.volume_blocks - lb <= P / 2,
          "ar1 on %s: volume %llu vs Lemma 1 %llu", tspec,
          (unsigned long long)rep.volume_blocks, (unsigned long long)lb);
    xchg_sched_free(s);
}

/* at2 on torus:rxs: verified, counts = registry formula; returns volume. */
static uint64_t check_at2(uint32_t r, uint32_t s, uint64_t *startups)
{
    char tspec[32], what[80];
    snprintf(tspec, sizeof tspec, "torus:%ux%u", r, s);
    xchg_sched *sc = check_generate(tspec, "at2");
    if (!sc)
        return 0;
    xchg_verify_report rep;
    snprintf(what, sizeof what, "at2 on %s", tspec);
    check_verify_clean(sc, what, &rep);
    xchg_counts f;
    xchg_opts o;
    memset(&o, 0, sizeof o);
    CHECK(xchg_alg_find("at2")->formula(xchg_sched_topo(sc), &o, &f) == 0, "at2 formula");
    CHECK_EQ_U64(rep.startups, f.startups, what);
    CHECK_EQ_U64(rep.volume_blocks, f.volume_blocks, what);
    /* the torus_liu.h layout: two rings side by side, split final */
    xchg_liu_ar1_layout lay;
    xchg_liu_ar1_lay_out(s / 2, 2ull * r, r / 2, 2ull * s, &lay);
    CHECK_EQ_U64(2 * lay.volume + (uint64_t)r * s, rep.volume_blocks,
                 "at2 volume = 2 * layout volume + rs");
    /* unsplit (xchg_liu_ar1_pair) is never cheaper, and dearer exactly
     * where docs/at2.md says: a = 0 mod 8, b = 4 mod 8, b < 2a, by 2a a part */
    uint64_t a = r < s ? r : s, b = r < s ? s : r;
    int late = a % 8 == 0 && b % 8 == 4 && b < 2 * a;
    CHECK_EQ_U64(xchg_liu_ar1_pair_volume(s / 2, 2ull * r, r / 2, 2ull * s) - lay.volume,
                 late ? 2 * a : 0, "unsplit - split volume of a part");
    CHECK((lay.split != 0) == late, "%s: split %d, expected %d", what, lay.split, late);
    CHECK(rep.max_hops <= 4, "%s: a route of %llu hops", what,
          (unsigned long long)rep.max_hops);
    /* Lemma 1: N1 * prod Ni / 8 with N1 the largest size */
    uint64_t n1 = r > s ? r : s, lb = lemma1(xchg_sched_topo(sc));
    CHECK_EQ_U64(lb, n1 * r * s / 8, "Lemma 1 on an r x s torus");
    /* the main term is the bound: the rest is at most 2rs + 2*N1 */
    CHECK(rep.volume_blocks >= lb && rep.volume_blocks - lb <= 2ull * r * s + 2 * n1,
          "%s: volume %llu, Lemma 1 %llu", what, (unsigned long long)rep.volume_blocks,
          (unsigned long long)lb);
    *startups = rep.startups;
    xchg_sched_free(sc);
    return rep.volume_blocks;
}

/* Seed 001's T_2D for r <= s: start-ups and volume. */
static void paper_t2d(uint64_t r, uint64_t s, uint64_t *st, uint64_t *vol)
{
    *st = 2 * ((s + 7) / 8) + 4;
    *vol = 4 * r * (s * s / 32) + 2 * r * s;
}

int main(void)
{
    for (uint32_t q = 2; q <= 120; q += 2)
        replay_ar1(q);
    CHECK(xchg_liu_ar1_nsteps(7) == 0 && xchg_liu_ar1_nsteps(0) == 0, "AR1 odd q refused");

    for (uint32_t p = 2; p <= 130; p += 2)
        check_ar1(p);
    check_ar1(256);
    check_ar1(402);

    /* The paper's 12-node ring (Figure 3): 4 steps, messages 6, 8, 4, 6. */
    xchg_sched *s12 = check_generate("ring:12", "ar1");
    if (s12) {
        uint64_t want[4] = {6, 8, 4, 6};
        CHECK_EQ_U64(xchg_sched_nsteps(s12), 4, "ring:12 steps");
        for (size_t k = 0; k < 4 && k < xchg_sched_nsteps(s12); k++)
            CHECK_EQ_U64(xchg_sched_step_max_blocks(s12, k), want[k], "ring:12 step size");
        xchg_msg m;
        xchg_sched_message(s12, 1, 4, &m); /* even node, ring step: +2 */
        CHECK(m.to == 6, "ring:12 step 1: node 4 sends to %u, want 6", m.to);
        xchg_sched_message(s12, 1, 5, &m); /* odd node: -2 */
        CHECK(m.to == 3, "ring:12 step 1: node 5 sends to %u, want 3", m.to);
        xchg_sched_free(s12);
    }

    /* at2: every r, s multiple of 4 up to 32, both orders */
    int splits = 0;
    for (uint32_t r = 4; r <= 32; r += 4)
        for (uint32_t s = 4; s <= 32; s += 4) {
            uint64_t st, vol = check_at2(r, s, &st);
            uint64_t a = r < s ? r : s, b = r < s ? s : r, pst, pvol;
            paper_t2d(a, b, &pst, &pvol);
            if (b > 4)
                CHECK_EQ_U64(st, pst, "at2 start-ups = 2*ceil(s/8)+4");
            else
                CHECK_EQ_U64(st, 4, "at2 4x4 start-ups (AR1 on 2 nodes: 1 step)");
            splits += vol == pvol && xchg_liu_ar1_pair_volume(s / 2, 2ull * r, r / 2, 2ull * s) !=
                                         (vol - (uint64_t)r * s) / 2;
            CHECK_EQ_U64(vol, pvol, "at2 volume = T_2D");
        }
    CHECK(splits == 8, "at2 up to 32x32: %d shapes need the split final (8x12, 16x20, "
                       "16x28, 24x28 and their transposes)", splits);
    /* docs/at2.md works these out by hand */
    uint64_t st;
    CHECK_EQ_U64(check_at2(8, 12, &st), 320, "at2 8x12 = T_2D with the split final");
    CHECK_EQ_U64(2 * xchg_liu_ar1_pair_volume(6, 16, 4, 24) + 96, 352,
                 "8x12 without the split: 2 * (48 + 32 + 48) + 96 (docs/at2.md)");
    CHECK_EQ_U64(check_at2(8, 8, &st), 192, "at2 8x8 (the docs' worked example)");
    CHECK_EQ_U64(st, 6, "at2 8x8 start-ups");
    CHECK_EQ_U64(check_at2(64, 64, &st), 40960, "at2 64x64 = T_2D");
    CHECK_EQ_U64(st, 20, "at2 64x64 start-ups");
    check_at2(48, 64, &st);
    check_at2(4, 64, &st);

    /* preconditions */
    xchg_topo t = check_topo("ring:7");
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_generate(&t, "ar1", &s, &err) == XCHG_ENOTAPPLIC && !s &&
              strstr(err.msg, "ar1:virtual"),
          "ar1 on ring:7: %s", err.msg);
    t = check_topo("torus:6x8");
    CHECK(xchg_generate(&t, "at2", &s, &err) == XCHG_ENOTAPPLIC && !s &&
              strstr(err.msg, "multiples of 4"),
          "at2 on 6x8: %s", err.msg);
    t = check_topo("torus:4x4x4");
    CHECK(xchg_generate(&t, "at2", &s, &err) == XCHG_ENOTAPPLIC && !s, "at2 on 3-D");
    t = check_topo("mesh:8x8");
    CHECK(xchg_generate(&t, "at2:virtual", &s, &err) == XCHG_ENOTAPPLIC && !s,
          "at2 on a mesh");
    t = check_topo("ring:8");
    CHECK(xchg_generate(&t, "ar1:fast", &s, &err) == XCHG_EINVAL && !s &&
              strstr(err.msg, "virtual"),
          "ar1:fast: %s", err.msg);
    return check_finish("test_torus_liu");
}
