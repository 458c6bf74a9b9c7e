/*
 * torus_suh.c - configurable complete exchange on a 2^d x 2^d torus:
 * `t1`, `t2` and `t1.x` (x = 1 .. d-4, also written t1.1, t1.2, ...).
 *
 * Suh et al. (Suh, Shin & An), sections 3.1 (T1), 3.2 (T2), 4.1 (T1.1) and
 * 4.2 (T1.x), Table 1. The OCR text is garbled in places; this is a
 * reconstruction from the paper's ideas, checked block by block by the
 * verifier. docs/torus-suh.md explains it with pictures.
 *
 * Coordinates: node id = y*2^d + x (y = row = dimension 0, x = column =
 * dimension 1), so the low d bits of an id are x, the high d bits are y, and
 * every move below is an XOR on the id. z = x XOR y.
 *   Mirror at level L:  x -> x XOR (2^L - 1), the reflection of x inside its
 *     aligned 2^L block (P(..x_L, ~x_{L-1}..~x_0) in the paper); same for y.
 *   G_L(1) (the paper's SG_L(1), both main diagonals of every 2^L block):
 *     z mod 2^L in {0, 2^L-1};  G_L(2): z mod 2^L in {2^(L-1)-1, 2^(L-1)}.
 *     G_L(1) = G_(L+1)(1) + G_(L+1)(2); a level-L mirror maps G_(L+1)(1)
 *     onto G_(L+1)(2).
 *   Level-L groups: k_L = (z mod 2^L), folded (complemented when bit L-1 is
 *     set), 2^(L-1) groups; a group has one mirror pair per row and per
 *     column of every 2^L block, so all its x moves (y moves) are link
 *     disjoint. k = 0 is G_L(1), k = 2^(L-1)-1 is G_L(2).
 *
 * One generator with a concentration depth c (t2: c = 0; t1.x: c = x;
 * t1: c = d-3 for d >= 4, c = 0 for d < 4, where T1 equals T2):
 *   phases q = 1..c (two steps each, all of G_q(1) active):
 *     A: level-q x mirror between G_(q+1)(1) and G_(q+1)(2), each sends half
 *        of what it holds (2^(q-2) p blocks);
 *     B: every G_(q+1)(2) node sends everything it holds (2^(q-1) p) to its
 *        level-q y mirror, a G_(q+1)(1) node, and falls idle.
 *   phases p = c+1..d, active G_(c+1)(1), each node holds 2^c p blocks and
 *     sends half (2^(c-1) p) per step: one x mirror and one y mirror at
 *     level p per node; the groups (level p, or level d-1 in phase d where a
 *     row takes one local and one wrap-around pair) inside G_(c+1)(1) are
 *     paired k, k XOR (2^(L-1)-1): one does x then y, the other y then x.
 *   send phase s = 1..c: every G_(c+2-s)(1) node sends to its level
 *     (c+1-s) x mirror the blocks for that node and the nodes it will serve,
 *     2^(c-s) p blocks.
 * Block rules are linear in w = dest XOR holder (XCHG_RULE_REL_LINEAR):
 *   A of phase q: send iff w_y bit (q-1) XOR w_y bit q differs from 0 for a
 *     G_(q+1)(1) node, equals 0 for a G_(q+1)(2) node (B then flips that
 *     parity for everything it moves);
 *   halving at level p: send iff w bit (p-1) XOR w bit p (w bit d-1 alone at
 *     p = d) is 1 in the moving coordinate;
 *   send phase step s: w_y = 0, w_x bits >= c-s equal to just bit c-s.
 * Routes: shortest way round (local inside a 2^p block for p < d; in phase
 *   d one pair of a row goes local, the other over the wrap-around link).
 *   Contention-free, one port.
 * t1:paper, the paper's own T1 phase pattern (idle nodes keep blocks), is
 * in torus_suh_paper.c, the senders' groups (xchg_sched_group) of both in
 * torus_suh_groups.c, the geometry helpers in torus_suh.h. This file may
 * call those two; neither calls it.
 * Preconditions: torus:NxN with N = 2^d, d >= 2 (t1.x: d >= x+4), declared
 * in the registry entries (SUH_NEEDS; t1.x's x <= d-4 is its applies hook).
 * Cost (p = 4^d nodes), derived from the schedule and verified:
 *   start-ups 3c + 3*2^(d-2-c) (d >= c+3; t2: 3*2^(d-2), 4 at d = 2);
 *   volume p*(3*2^(d-3) + 5*2^(c-1) - 5/2) blocks (t2: 3*2^(3d-3)).
 *   Equal to Table 1 for T2, T1.1 and T1 with d <= 5; see docs for T1 at
 *   d >= 6 and T1.x with x >= 2, where the table differs. No local copies
 *   are modelled.
 * Estimate (xchg_estimate, before building): the steps as the builders add
 *   them (suh_nsteps), each with a partner table (4 bytes a node) and a
 *   class table (1 byte a node); no context, no other working memory.
 */
#include "torus_suh.h"

/* Parse the concentration depth for t1.x: "N" (1..30). */
static int t1x_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    uint64_t v;
    if (xchg_parse_u64(args, 1, 30, &v) != 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "t1.x: bad x '%s'; write t1.N or t1.x:N with N >= 1 (N <= d-4 on a "
                         "2^d x 2^d torus)",
                         args);
    opts->x = (int)v;
    return XCHG_OK;
}

/* t1's options: none, or "paper" (the paper's own phase pattern). */
static int t1_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    (void)opts;
    if (*args && strcmp(args, "paper") != 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "t1: unknown option '%s'; accepted: t1 or t1:paper (the paper's own "
                         "SG phase pattern)",
                         args);
    return XCHG_OK;
}

/* Is this t1:paper? */
static int is_paper(char which, const xchg_opts *opts)
{
    return which == '1' && strcmp(opts->args, "paper") == 0;
}

/* d of a 2^d x 2^d torus with d >= 2, or -1. */
static int suh_dim(const xchg_topo *t)
{
    if (t->kind != XCHG_TOPO_TORUS || t->ndims != 2 || t->size[0] != t->size[1] ||
        !xchg_alg_is_pow2(t->size[0]) || t->size[0] < 4)
        return -1;
    return xchg_alg_log2(t->size[0]);
}

/* Concentration depth of an algorithm on a 2^d torus. */
static int depth_of(char which, int d, const xchg_opts *opts)
{
    if (which == '2')
        return 0;
    if (which == '1')
        return d >= 4 ? d - 3 : 0;
    return opts->x;
}

/* The registry entry of t1 ('1'), t2 ('2') or t1.x ('x'). */
static const xchg_alg *entry_of(char which)
{
    return which == '1' ? &xchg_alg_t1 : which == '2' ? &xchg_alg_t2 : &xchg_alg_t1x;
}

/* What t1.x's needs cannot say: its x fits the torus, 1 <= x <= d-4 (the
 * declared d >= 5 is the least any x needs). */
static int t1x_applies(const xchg_topo *t, const xchg_opts *opts, xchg_err *err)
{
    char buf[64];
    int d = suh_dim(t);
    if (opts->x < 1 || opts->x > d - 4)
        return xchg_fail(err, XCHG_ENOTAPPLIC,
                         "t1.%d needs 1 <= x <= d-4 on a 2^d x 2^d torus; %s has d = %d",
                         opts->x, xchg_topo_spec(t, buf, sizeof buf), d);
    return XCHG_OK;
}

/* A new table step of `blocks` blocks in *st (new_step); on failure frees
 * s, as xchg_alg_add does, and returns ENOMEM with a message. */
static int suh_new(const suh_geo *g, xchg_step *st, uint64_t blocks, xchg_sched *s,
                   xchg_err *err)
{
    if (new_step(g, st, blocks) == XCHG_OK)
        return XCHG_OK;
    xchg_sched_free(s);
    return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
}

/* Concentration phases 1..c: two steps each (x, then y). On failure s is
 * freed. */
static int add_concentration(const suh_geo *g, int c, xchg_sched *s, xchg_err *err)
{
    const uint64_t p = g->p;
    xchg_step st;
    int rc;
    for (int q = 1; q <= c; q++) {
        uint32_t gmask = (3u << (q - 1)) << g->d;
        if ((rc = suh_new(g, &st, (p << (q - 1)) / 2, s, err)))
            return rc;
        st.group_arg = SUH_GROUP_CONC * SUH_GROUP_KIND + q + 1;
        st.rule.lpmask[0] = gmask;
        st.rule.lpval[0] = 1;
        st.rule.lpmask[1] = gmask;
        st.rule.lpval[1] = 0;
        for (uint32_t i = 0; i < g->p; i++) {
            if (!in_g1(g, i, q))
                continue;
            st.partner_table[i] = i ^ xm(q);
            st.class_table[i] = in_g1(g, i, q + 1) ? 0 : 1;
        }
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
        if ((rc = suh_new(g, &st, p << (q - 1), s, err)))
            return rc;
        st.group_arg = SUH_GROUP_CONC * SUH_GROUP_KIND + q + 1;
        for (uint32_t i = 0; i < g->p; i++)
            if (in_g2(g, i, q + 1))
                st.partner_table[i] = i ^ ym(g, q);
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    return XCHG_OK;
}

/* Level of the groups paired in halving phase ph of a 2^d torus: ph, or
 * d-1 in phase d (a row takes one local and one wrap-around pair), at
 * least 1. */
static int halving_level(int d, int ph)
{
    int level = ph < d ? ph : d - 1;
    return level < 1 ? 1 : level;
}

/* Nonzero when level-`level` group k leads a pair (k, k XOR (2^(level-1)
 * - 1)) that moves at depth c: k is active and the smaller of the two. */
static int halving_leads(int level, int c, uint32_t k)
{
    uint32_t k2 = k ^ ((1u << (level - 1)) - 1);
    return group_active(level, c, k) && k2 >= k;
}

/* Steps of the schedule of depth c on a 2^d torus, counted as the builders
 * below add them: two per concentration phase, two per leading group of
 * each halving phase, one per send phase. O(2^d): about 3000 groups at
 * d = 12, the largest torus. */
static uint64_t suh_nsteps(int d, int c)
{
    uint64_t n = 3 * (uint64_t)c;
    for (int ph = c + 1; ph <= d; ph++) {
        int level = halving_level(d, ph);
        for (uint32_t k = 0; k < (1u << (level - 1)); k++)
            n += 2 * (uint64_t)halving_leads(level, c, k);
    }
    return n;
}

/* Halving phases c+1..d among G_(c+1)(1): for each active pair of groups
 * (k, k XOR flip) two half-steps, one group moving in x while the other
 * moves in y, then the other way. On failure s is freed. */
static int add_halving(const suh_geo *g, int c, xchg_sched *s, xchg_err *err)
{
    const int d = g->d;
    const uint64_t half = ((uint64_t)g->p << c) / 2;
    xchg_step st;
    int rc;
    for (int ph = c + 1; ph <= d; ph++) {
        int level = halving_level(d, ph);
        uint32_t ngroups = 1u << (level - 1);
        uint32_t flip = ngroups - 1;
        uint32_t mx = xm(ph), my = ym(g, ph);
        for (uint32_t k = 0; k < ngroups; k++) {
            uint32_t k2 = k ^ flip;
            if (!halving_leads(level, c, k))
                continue;
            for (int half_step = 0; half_step < 2; half_step++) {
                if ((rc = suh_new(g, &st, half, s, err)))
                    return rc;
                st.group_arg = SUH_GROUP_HALVE * SUH_GROUP_KIND + level;
                st.rule.lpmask[0] = halving_mask(g, ph, 0);
                st.rule.lpval[0] = 1;
                st.rule.lpmask[1] = halving_mask(g, ph, d);
                st.rule.lpval[1] = 1;
                for (uint32_t i = 0; i < g->p; i++) {
                    if (!in_g1(g, i, c + 1))
                        continue;
                    uint32_t gi = group_of(g, i, level);
                    int xfirst;
                    if (gi == k)
                        xfirst = 1;
                    else if (gi == k2)
                        xfirst = 0;
                    else
                        continue;
                    int movex = xfirst ^ half_step;
                    st.partner_table[i] = i ^ (movex ? mx : my);
                    st.class_table[i] = movex ? 0 : 1;
                }
                if ((rc = xchg_alg_add(s, &st, err)))
                    return rc;
            }
        }
    }
    return XCHG_OK;
}

/* Send phases 1..c: each mirror level hands its receivers' blocks back
 * out. On failure s is freed. */
static int add_sending(const suh_geo *g, int c, xchg_sched *s, xchg_err *err)
{
    xchg_step st;
    int rc;
    for (int sp = 1; sp <= c; sp++) {
        int lv = c + 1 - sp; /* mirror level; receivers serve 2^(c-sp) nodes */
        if ((rc = suh_new(g, &st, (uint64_t)g->p << (c - sp), s, err)))
            return rc;
        st.group_arg = SUH_GROUP_SEND * SUH_GROUP_KIND + lv + 1;
        st.rule.lemask[0] = ((g->p - 1) & ~xm(lv - 1));
        st.rule.leval[0] = 1u << (lv - 1);
        for (uint32_t i = 0; i < g->p; i++)
            if (in_g1(g, i, lv + 1))
                st.partner_table[i] = i ^ xm(lv);
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    return XCHG_OK;
}

/*
 * Build the schedule of depth c on the 2^d torus t (see the header) for
 * entry a: concentration, halving, sending. name goes into the schedule.
 * Returns 0, ENOMEM.
 */
static int suh_build(const xchg_alg *a, const xchg_topo *t, int c, const char *name,
                     xchg_sched **out, xchg_err *err)
{
    suh_geo g = suh_geo_of(t);
    xchg_sched *s = xchg_sched_new(t, name, xchg_alg_claims_free(a, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    s->group_fn = a == &xchg_alg_t1 ? xchg_suh_t1_group : xchg_suh_t2_group;
    int rc;
    if ((rc = add_concentration(&g, c, s, err)) || (rc = add_halving(&g, c, s, err)) ||
        (rc = add_sending(&g, c, s, err)))
        return rc;
    *out = s;
    return XCHG_OK;
}

/* Closed-form counts of depth c on a 2^d torus (see the header). */
static void suh_counts(int d, int c, xchg_counts *out)
{
    uint64_t p = 1ull << (2 * d);
    out->copy_blocks = 0; /* no local copies are modelled */
    if (c == 0) {
        out->startups = d == 2 ? 4 : 3ull << (d - 2);
        out->volume_blocks = d == 2 ? 32 : 3ull << (3 * d - 3);
        return;
    }
    out->startups = 3ull * (uint64_t)c + (3ull << (d - 2 - c));
    /* p*(3*2^(d-3) + 5*2^(c-1) - 5/2), kept in integers: p is even. */
    out->volume_blocks = 3 * (p << (d - 3)) + 5 * (p << (c - 1)) - 5 * (p / 2);
}

/* Generate (preconditions checked by the registry); the schedule is named
 * by which. */
static int suh_generate(char which, const xchg_topo *t, const xchg_opts *opts,
                        xchg_sched **out, xchg_err *err)
{
    int d = suh_dim(t);
    char name[32];
    if (is_paper(which, opts) && d > 9)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "t1:paper is built up to torus:512x512 (its generator follows 2^d "
                         "origins through every node to size the messages); t1 has no limit");
    if (is_paper(which, opts) && d >= 4)
        return xchg_suh_paper_build(t, xchg_alg_claims_free(&xchg_alg_t1, t), out, err);
    if (is_paper(which, opts))
        snprintf(name, sizeof name, "t1:paper");
    else if (which == 'x')
        snprintf(name, sizeof name, "t1.%d", opts->x);
    else
        snprintf(name, sizeof name, "t%c", which);
    return suh_build(entry_of(which), t, depth_of(which, d, opts), name, out, err);
}

static int t1_generate(const xchg_topo *t, const xchg_opts *o, xchg_sched **s, xchg_err *e)
{
    return suh_generate('1', t, o, s, e);
}
static int t2_generate(const xchg_topo *t, const xchg_opts *o, xchg_sched **s, xchg_err *e)
{
    return suh_generate('2', t, o, s, e);
}
static int t1x_generate(const xchg_topo *t, const xchg_opts *o, xchg_sched **s, xchg_err *e)
{
    return suh_generate('x', t, o, s, e);
}

/* Formula hooks: our derived counts (equal to Table 1 where the table is
 * right; docs/torus-suh.md lists where it is not). */
static int suh_formula(char which, const xchg_topo *t, const xchg_opts *opts,
                       xchg_counts *out)
{
    if (xchg_alg_applies(entry_of(which), t, opts, NULL))
        return XCHG_ENOTAPPLIC;
    if (is_paper(which, opts) && suh_dim(t) >= 4)
        return XCHG_ENOTAPPLIC; /* no closed form: measured, docs/torus-suh.md */
    int d = suh_dim(t);
    suh_counts(d, depth_of(which, d, opts), out);
    return XCHG_OK;
}
static int t1_formula(const xchg_topo *t, const xchg_opts *o, xchg_counts *c)
{
    return suh_formula('1', t, o, c);
}
static int t2_formula(const xchg_topo *t, const xchg_opts *o, xchg_counts *c)
{
    return suh_formula('2', t, o, c);
}
static int t1x_formula(const xchg_topo *t, const xchg_opts *o, xchg_counts *c)
{
    return suh_formula('x', t, o, c);
}

/*
 * Estimate hooks (xchg_estimate): t1:paper from d = 4 on is
 * xchg_suh_paper_estimate; everything else is suh_build, whose steps each
 * own a partner table (4 bytes a node) and a class table (1 byte a node),
 * and nothing more: no context, no working memory beyond the step being
 * filled, which the schedule then owns.
 */
static int suh_estimate(char which, const xchg_topo *t, const xchg_opts *opts,
                        xchg_estimate *out)
{
    int d = suh_dim(t);
    if (is_paper(which, opts) && d >= 4) {
        xchg_suh_paper_estimate(t, out);
        return XCHG_OK;
    }
    uint64_t n = suh_nsteps(d, depth_of(which, d, opts));
    xchg_est_steps(out, n);
    xchg_est_tables(out, n, t->nodes, sizeof(uint32_t)); /* partner_table */
    xchg_est_tables(out, n, t->nodes, sizeof(uint8_t));  /* class_table */
    return XCHG_OK;
}
static int t1_estimate(const xchg_topo *t, const xchg_opts *o, xchg_estimate *e)
{
    return suh_estimate('1', t, o, e);
}
static int t2_estimate(const xchg_topo *t, const xchg_opts *o, xchg_estimate *e)
{
    return suh_estimate('2', t, o, e);
}
static int t1x_estimate(const xchg_topo *t, const xchg_opts *o, xchg_estimate *e)
{
    return suh_estimate('x', t, o, e);
}

/* What the family needs: a 2^d x 2^d torus with d >= min_d. */
#define SUH_NEEDS(min_d, why_text)                                                         \
    {.kinds = XCHG_KIND(XCHG_TOPO_TORUS), .dims = 2, .square_pow2 = (min_d), .why = (why_text)}

/* t1.1 .. t1.(d-4) on a 2^d torus. */
static int t1x_variants(const xchg_topo *t, xchg_spec *specs, int max)
{
    int d = suh_dim(t);
    int n = d >= 5 ? d - 4 : 0;
    for (int x = 1; x <= n && x <= max; x++)
        snprintf(specs[x - 1], XCHG_SPEC_MAX, "t1.%d", x);
    return n;
}

const xchg_alg xchg_alg_t1 = {
    .name = "t1",
    .summary = "Suh-Shin-An T1: few start-ups, 2-step phases on shrinking diagonal groups, "
               "send phase",
    .source = "Suh et al. section 3.1, Table 1 (T1 = T2 for d < 4)",
    .topologies = "torus:NxN with N = 2^d, d >= 2",
    .options = "none, or 'paper': the paper's own SG phase pattern, idle nodes keep "
               "their blocks (t1:paper; sizes per node, no closed form)",
    .needs = SUH_NEEDS(2, NULL),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 0, /* from d = 4 on, concentration phases gather 2^c p blocks */
    .symmetry = XCHG_SYM_NONE, /* node classes by quadrant: none found */
    .parse = t1_parse,
    .applies = NULL,
    .generate = t1_generate,
    .formula = t1_formula,
    .variants = NULL,
    .estimate = t1_estimate,
};

const xchg_alg xchg_alg_t2 = {
    .name = "t2",
    .summary = "Suh-Shin-An T2: every node in every phase, 2^(p-1) steps in phase p, "
               "least volume",
    .source = "Suh et al. section 3.2, Table 1",
    .topologies = "torus:NxN with N = 2^d, d >= 2",
    .options = "",
    .needs = SUH_NEEDS(2, NULL),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* every node sends half of its p blocks and gets as many */
    .symmetry = XCHG_SYM_NONE, /* node classes by quadrant: none found */
    .parse = NULL,
    .applies = NULL,
    .generate = t2_generate,
    .formula = t2_formula,
    .variants = NULL,
    .estimate = t2_estimate,
};

const xchg_alg xchg_alg_t1x = {
    .name = "t1.x",
    .summary = "Suh-Shin-An T1.x: between T1 and T2, x concentration phases then T2-like "
               "phases and an x-step send phase",
    .source = "Suh et al. sections 4.1 (T1.1) and 4.2 (T1.x), Table 1",
    .topologies = "torus:NxN with N = 2^d, d >= x+4",
    .options = "x, written t1.N (t1.1, t1.2) or t1.x:N, 1 <= N <= d-4",
    .needs = SUH_NEEDS(5, "1 <= x <= d-4"),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 0, /* x concentration phases gather 2^x p blocks */
    .symmetry = XCHG_SYM_NONE, /* node classes by quadrant: none found */
    .parse = t1x_parse,
    .applies = t1x_applies,
    .generate = t1x_generate,
    .formula = t1x_formula,
    .variants = t1x_variants,
    .estimate = t1x_estimate,
};
