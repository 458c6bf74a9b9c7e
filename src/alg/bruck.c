/*
 * bruck.c - Bruck's index algorithm for complete exchange: `bruck[:r]`.
 *
 * Source: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby,
 * "Efficient algorithms for all-to-all communications in multiport
 * message-passing systems", IEEE TPDS 8(11), 1997, the index algorithm
 * (the one MPI libraries use for small blocks), here with one port.
 *
 * Every node first rotates its p blocks so that the block for node
 * (i + j) mod p sits at position j (its relative destination). Position j
 * is written in radix r; for each digit position k (weight w = r^k < p) and
 * each digit value z = 1..r-1 with z*w < p there is one step in which node i
 * sends to node (i + z*w) mod p every block it holds whose relative
 * destination (dest - origin) mod p has digit k equal to z. A block moves
 * by the sum of its digits times their weights, i.e. exactly its relative
 * destination, so it arrives. A node holds p blocks at every step (one per
 * position) and a final rotation puts them in origin order.
 *   Preconditions: any p >= 1, any topology; radix r >= 2 (default 2).
 *   Steps and sizes: the (k, z) step carries the number of j in [0, p)
 *   whose k-th radix-r digit is z:
 *       floor(p / (w r)) * w + min(max(p mod (w r) - z w, 0), w).
 *   Cost: start-ups sum_k min(r-1, floor((p-1)/w)) (= (r-1) log_r p when p
 *   is a power of r); volume sum_k (p - #{j < p : digit k of j is 0}), where
 *   #{digit k is 0} = floor(p/(w r)) w + min(p mod (w r), w) (= (r-1)/r p
 *   log_r p when p is a power of r). Local copies: the blocks of a step's
 *   message are not contiguous (they are every position whose digit k is z),
 *   so each step packs what it sends and unpacks what it receives: twice the
 *   step's size, the same kind of rearrangement Grama et al. charge
 *   hc-standard for. Add p for the first rotation, accounted before the first step, and
 *   p for the final one, accounted (as the schedule has no step after the
 *   last) on the last step: 2p + 2*volume in all when p >= 2, none for
 *   p = 1.
 *   Contention: the shifts by z*w take shortest routes that overlap on
 *   every network with links; the schedule claims contention-freedom only on
 *   complete:P.
 */
#include "alg_common.h"

static int bruck_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    uint64_t r = 2;
    if (args && *args && xchg_parse_u64(args, 2, XCHG_MAX_NODES, &r) != 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "bruck: bad radix '%s': expected an integer from 2 to %u "
                         "(e.g. bruck:4; default 2)",
                         args, (unsigned)XCHG_MAX_NODES);
    opts->radix = (uint32_t)r;
    return XCHG_OK;
}

/* Radix from opts, 2 when unset (opts not from bruck_parse). */
static uint32_t radix_of(const xchg_opts *opts)
{
    return opts && opts->radix >= 2 ? opts->radix : 2;
}

/* Number of j in [0, p) whose radix-r digit of weight w equals z. */
static uint64_t digit_count(uint64_t p, uint64_t w, uint64_t r, uint64_t z)
{
    uint64_t wr = w * r, rem = p % wr, extra = 0;
    if (rem > z * w)
        extra = rem - z * w < w ? rem - z * w : w;
    return p / wr * w + extra;
}

/* Steps of bruck on p nodes with radix r: for each digit weight w < p,
 * one step per digit value z = 1..r-1 with z*w < p, i.e. min(r-1,
 * floor((p-1)/w)) of them, as bruck_generate's loops run. */
static uint64_t bruck_nsteps(uint64_t p, uint64_t r)
{
    uint64_t n = 0;
    for (uint64_t w = 1; w < p; w *= r) {
        uint64_t zs = (p - 1) / w;
        n += zs < r - 1 ? zs : r - 1;
    }
    return n;
}

/* Steps only (shifts, rel-digit rules, uniform sizes: no tables, no
 * ctx). O(log_r p). */
static int bruck_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    xchg_est_steps(out, bruck_nsteps(t->nodes, radix_of(opts)));
    return XCHG_OK;
}

static int bruck_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                          xchg_err *err)
{
    int rc;
    uint64_t p = t->nodes, r = radix_of(opts);
    char spec[32];
    snprintf(spec, sizeof spec, "bruck:%u", (unsigned)r);
    xchg_sched *s = xchg_sched_new(t, spec, xchg_alg_claims_free(&xchg_alg_bruck, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    for (uint64_t w = 1; w < p; w *= r) {
        for (uint64_t z = 1; z < r && z * w < p; z++) {
            xchg_step st = xchg_step_shift(-1, (int64_t)(z * w),
                                           xchg_rule_rel_digit((uint32_t)r, (uint32_t)w,
                                                               (uint32_t)z),
                                           digit_count(p, w, r, z));
            st.copy_blocks = 2 * st.blocks; /* pack what goes, unpack what comes */
            if (s->nsteps == 0)
                st.copy_blocks += p; /* the first rotation */
            if ((rc = xchg_alg_add(s, &st, err)))
                return rc;
        }
    }
    if (s->nsteps > 0)
        s->steps[s->nsteps - 1].copy_blocks += p; /* the final rotation */
    *out = s;
    return XCHG_OK;
}

/* Closed form per digit position; independent of the per-step sizes. */
static int bruck_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    uint64_t p = t->nodes, r = radix_of(opts), su = 0, vol = 0;
    for (uint64_t w = 1; w < p; w *= r) {
        uint64_t zs = (p - 1) / w;
        su += zs < r - 1 ? zs : r - 1;
        uint64_t wr = w * r, zeros = p / wr * w + (p % wr < w ? p % wr : w);
        vol += p - zeros;
    }
    out->startups = su;
    out->volume_blocks = vol;
    /* two rotations, and every step packs and unpacks its message */
    out->copy_blocks = p >= 2 ? 2 * p + 2 * vol : 0;
    return XCHG_OK;
}

/* Radices 2, 4, 8 and ceil(sqrt p), distinct and <= p (2 always). */
static int bruck_variants(const xchg_topo *t, xchg_spec *specs, int max)
{
    uint32_t p = t->nodes, sq = 1;
    while ((uint64_t)sq * sq < p)
        sq++;
    uint32_t cand[4] = {2, 4, 8, sq}, have[4];
    int n = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t r = cand[i];
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= have[j] == r;
        if (dup || r < 2 || (r > p && r != 2))
            continue;
        if (n < max)
            snprintf(specs[n], XCHG_SPEC_MAX, "bruck:%u", (unsigned)r);
        have[n++] = r;
    }
    return n;
}

const xchg_alg xchg_alg_bruck = {
    .name = "bruck",
    .summary = "log_r p rounds of shifts by z r^k carrying the blocks whose relative "
               "destination has digit z",
    .source = "Bruck, Ho, Kipnis, Upfal, Weathersby, IEEE TPDS 8(11) 1997, index algorithm",
    .topologies = "any (contention-free on complete:P only)",
    .options = "r: the radix, an integer >= 2 (default 2), e.g. bruck:4",
    .needs = {0},
    .free_on = XCHG_KIND(XCHG_TOPO_COMPLETE),
    .in_place = 1,
    .symmetry = XCHG_SYM_CYCLIC,
    .parse = bruck_parse,
    .applies = NULL,
    .generate = bruck_generate,
    .formula = bruck_formula,
    .variants = bruck_variants,
    .estimate = bruck_estimate,
};
