/*
 * ring.c - complete exchange on a one-dimensional network: `ring` and
 * `ring-bidir`.
 *
 * ring (Grama et al., Introduction to Parallel Computing, section 4.5.1,
 * Figure 4.18): every node sends all the blocks it holds that are not for
 * itself, as one message, to its +1 neighbour. Of what a node receives, one
 * block is its own; it keeps that one and forwards the rest at the next step.
 * After p-1 steps every block has travelled its clockwise distance. Step k
 * (1..p-1) carries p-k blocks.
 *   Preconditions: a topology with exactly one dimension: ring:P, array:P,
 *   complete:P (also hypercube:1), P >= 1.
 *   Route: always +1 (XCHG_ROUTE_PLUS). On an array, the message from node
 *   P-1 to node 0 goes the long way back over the -1 links, which no other
 *   message uses, so the schedule is still contention-free.
 *   Cost: start-ups p-1, volume sum_{k=1}^{p-1} (p-k) = p(p-1)/2 blocks,
 *   no local copies (a node keeps its block and forwards the rest as they
 *   are; Grama et al. account no rearrangement for the ring).
 *
 * ring-bidir: Grama et al. (section 4.5.1) note that sending half of the
 * blocks one way round and half the other way "reduces the t_w term by a
 * factor of two". Our model is one-port (a node sends one message and
 * receives one per step, links full duplex), so the two directions cannot
 * both be driven in the same step by the same node: a node that sent
 * clockwise and counter-clockwise at once would inject two messages in one
 * step. Instead the two halves run one after the other:
 *   phase 1 (clockwise), h1 = ceil((p-1)/2) steps: shift +1, the blocks whose
 *   +1 distance to their destination is 1..h1; its k-th step carries
 *   h1-k+1 blocks;
 *   phase 2 (counter-clockwise), h2 = floor((p-1)/2) steps: shift -1, the
 *   blocks whose -1 distance is 1..h2; its k-th step carries h2-k+1 blocks.
 * The start-ups stay p-1 (h1 + h2 = p-1), and the volume halves because no
 * block is carried more than half way round:
 *   start-ups p-1, volume h1(h1+1)/2 + h2(h2+1)/2 (about p^2/4 against
 *   p^2/2 for `ring`), no local copies.
 * Same preconditions and the same contention argument as `ring` (phase 2
 * on an array sends 0 -> P-1 the long way over the +1 links, idle in that
 * phase).
 */
#include "alg_common.h"

/* Steps of `ring` on p nodes: p-1 (none for p <= 1). */
static uint32_t ring_nsteps(uint32_t p)
{
    return p ? p - 1 : 0;
}

/* The two phases of `ring-bidir` on p nodes: h1 = ceil((p-1)/2) clockwise
 * steps, h2 = floor((p-1)/2) counter-clockwise (none for p <= 1). */
static void bidir_halves(uint32_t p, uint32_t *h1, uint32_t *h2)
{
    *h1 = p / 2;
    *h2 = p ? (p - 1) / 2 : 0;
}

/* `ring`: p-1 steps of shift +1 carrying every block not for the sender. */
static int ring_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                         xchg_err *err)
{
    (void)opts;
    int rc;
    xchg_sched *s = xchg_sched_new(t, "ring", xchg_alg_claims_free(&xchg_alg_ring, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t p = t->nodes;
    for (uint32_t k = 1; k <= ring_nsteps(p); k++) {
        xchg_step st = xchg_step_shift(0, 1, xchg_rule_coord_ne(0), (uint64_t)(p - k));
        st.route_policy = XCHG_ROUTE_PLUS;
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* Both: steps only (shifts, no tables, no ctx). O(1). */
static int ring_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    xchg_est_steps(out, ring_nsteps(t->nodes));
    return XCHG_OK;
}

/* Grama et al. eq. 4.7: (t_s + t_w m p/2)(p-1). */
static int ring_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    uint64_t p = t->nodes;
    out->startups = p - 1;
    out->volume_blocks = p * (p - 1) / 2;
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* `ring-bidir`: a clockwise phase, then a counter-clockwise one. */
static int ring_bidir_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                               xchg_err *err)
{
    (void)opts;
    int rc;
    xchg_sched *s = xchg_sched_new(t, "ring-bidir", xchg_alg_claims_free(&xchg_alg_ring_bidir, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t h1, h2;
    bidir_halves(t->nodes, &h1, &h2);
    for (uint32_t k = 1; k <= h1; k++) {
        xchg_step st = xchg_step_shift(0, 1, xchg_rule_coord_dist(0, +1, 1, h1),
                                       (uint64_t)(h1 - k + 1));
        st.route_policy = XCHG_ROUTE_PLUS;
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    for (uint32_t k = 1; k <= h2; k++) {
        xchg_step st = xchg_step_shift(0, -1, xchg_rule_coord_dist(0, -1, 1, h2),
                                       (uint64_t)(h2 - k + 1));
        st.route_policy = XCHG_ROUTE_MINUS;
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

static int ring_bidir_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    uint32_t h1, h2;
    bidir_halves(t->nodes, &h1, &h2);
    xchg_est_steps(out, (uint64_t)h1 + h2);
    return XCHG_OK;
}

static int ring_bidir_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    uint64_t p = t->nodes;
    uint64_t h1 = p / 2, h2 = p ? (p - 1) / 2 : 0;
    out->startups = p ? p - 1 : 0;
    out->volume_blocks = h1 * (h1 + 1) / 2 + h2 * (h2 + 1) / 2;
    out->copy_blocks = 0;
    return XCHG_OK;
}

const xchg_alg xchg_alg_ring = {
    .name = "ring",
    .summary = "p-1 steps to the +1 neighbour, each forwarding every block not yet home",
    .source = "Grama et al., Introduction to Parallel Computing, section 4.5.1, Figure 4.18, "
              "eq. 4.7",
    .topologies = "one-dimensional: ring:P, array:P, complete:P",
    .options = "",
    .needs = {.dims = 1},
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1,
    .symmetry = XCHG_SYM_CYCLIC,
    .parse = NULL,
    .applies = NULL,
    .generate = ring_generate,
    .formula = ring_formula,
    .variants = NULL,
    .estimate = ring_estimate,
};

const xchg_alg xchg_alg_ring_bidir = {
    .name = "ring-bidir",
    .summary = "ring, half the blocks clockwise then half counter-clockwise (one-port)",
    .source = "Grama et al., Introduction to Parallel Computing, section 4.5.1, the factor-two "
              "remark",
    .topologies = "one-dimensional: ring:P, array:P, complete:P",
    .options = "",
    .needs = {.dims = 1},
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1,
    .symmetry = XCHG_SYM_CYCLIC,
    .parse = NULL,
    .applies = NULL,
    .generate = ring_bidir_generate,
    .formula = ring_bidir_formula,
    .variants = NULL,
    .estimate = ring_bidir_estimate,
};
