/*
 * ops_ring.c - the basic operations other than the complete exchange on a
 * ring or a linear array of p nodes, any p, as Grama et al.'s slides (seed
 * 003, "Basic Communication Operations") give them. The nodes are the ids
 * 0..p-1 in a line; the rooted operations and the shift accept any
 * topology seen that way, the others one-dimensional ones.
 *
 *   bcast-ring   "One-to-All Broadcast ... on Rings": recursive doubling.
 *                The segment holding the data (first the whole line) splits
 *                in two; the holder keeps the half of ceil(L/2) nodes that
 *                contains it and sends one block to the node at the same
 *                offset in the other half (its last node when that half is
 *                shorter), which then holds that half (ops.h,
 *                xchg_ops_halve). ceil(log2 p) steps of one block:
 *                (t_s + t_w m) ceil(log2 p), eq. (1); any root.
 *   reduce-ring  its reverse ("Reduction can be performed in an identical
 *                fashion by inverting the process"): the same messages in
 *                reverse order, each carrying its sender's partial result,
 *                one block: (t_s + t_w m) ceil(log2 p).
 *   scatter-ring the broadcast's pattern, a message carrying the tokens of
 *                the half it sends ("Scatter and Gather"); the halves sent
 *                at the root's level are floor(L/2) of a segment of L, and
 *                they add up to p - 1 for any p (L_{k+1} = ceil(L_k / 2), so
 *                the sum telescopes): t_s ceil(log2 p) + t_w m (p-1), eq.
 *                (3), which the slide says "holds for a linear array as well
 *                as a 2-D mesh".
 *   gather-ring  the scatter reversed: the same counts.
 *   allgather-ring  ALL_TO_ALL_BC_RING: p-1 steps, every node sends to its
 *                right neighbour the data it received last (first its own):
 *                (t_s + t_w m)(p-1) ("Cost Analysis", ring). As tokens: a
 *                node forwards every token not bound for itself, all of one
 *                origin.
 *   reduce-scatter-ring  its dual ("All-to-all Reduction"): at step k
 *                (1..p-1) node n sends to n+1 the partial result for dest
 *                n-k mod p (its own contribution combined with what it
 *                received for that dest), one block: (t_s + t_w m)(p-1).
 *                The partial for dest d goes round d+1, ..., p-1, 0, ...,
 *                d (forced: p-1 steps of one block leave each node one
 *                send per dest), so for p >= 3 it breaks MPI's rank order
 *                for a non-commutative operator (docs/operations.md).
 *   shift-ring   "Circular Shift": min(q, p-q) neighbour steps, every node
 *                passing its token to n+1 when q <= p/2, to n-1 otherwise:
 *                (t_s + t_w m) min(q, p-q).
 * Contention: on a ring the rooted messages stay inside their segment, of
 * at most ceil(p/2) nodes after the first step (which sends one message),
 * so the shortest route runs inside it; on a linear array the segments are
 * disjoint intervals. The neighbour steps on a linear array send the
 * wrapping message (p-1 -> 0) back along the whole array, the one message
 * going that way. Claimed on ring, array and complete; the verifier holds it.
 * Preconditions: root < p, 1 <= q < p; allgather and reduce-scatter: a
 * one-dimensional topology (ring:P, array:P, complete:P). Memory: a partner
 * table a step for the rooted operations (and a size table a step for
 * scatter and gather), nothing per node for the others.
 *
 * The slides' start-up counts charge a message t_s + t_w m however many
 * links it crosses (cut-through routing): the broadcast's first message on
 * eight nodes goes 0 -> 4, four hops, and the all-gather's and the shift's
 * wrapping message on a linear array crosses all p-1 links; the counts here
 * are theirs (messages, not hops). The slides' "(t_s + t_w m) log p" for
 * the ring is eq. (1) of the hypercube, exact on a ring only with
 * log p = ceil(log2 p).
 * The slide's broadcast on "an eight-node ring" assumes p = 2^d; for any p
 * the halves differ by one: on p = 6 from root 0 the steps are 0 -> 3, then
 * 0 -> 2 (segment {0,1,2} keeps {0,1}) and 3 -> 5, then 0 -> 1 and 3 -> 4:
 * 3 = ceil(log2 6) steps; the scatter's messages carry 3, 1 and 1 tokens:
 * 5 = p - 1.
 */
#include <stdlib.h>

#include "alg/ops.h"

#define RING_FREE_ON                                                                               \
    (XCHG_KIND(XCHG_TOPO_RING) | XCHG_KIND(XCHG_TOPO_ARRAY) | XCHG_KIND(XCHG_TOPO_COMPLETE))

/* All-to-all broadcast (reduce 0) or all-to-all reduction (reduce 1) on a
 * one-dimensional topology: p-1 steps to the right neighbour, one block. */
static int neighbour_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                              int reduce, xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    for (uint32_t k = 1; k < t->nodes; k++) {
        /* reduce: the partial for dest n-k, k before the sender */
        xchg_rule rule = reduce ? xchg_rule_coord_dist(0, -1, k, k) : xchg_rule_coord_ne(0);
        xchg_step st = xchg_step_shift(0, 1, rule, 1);
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* A q-shift as min(q, p-q) neighbour steps along the ids. */
static int shift_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                          xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    int rc = xchg_ops_shift_steps(s, -1, s->op.shift, err);
    if (rc)
        return rc;
    *out = s;
    return XCHG_OK;
}

#define GEN XCHG_OPS_GEN

GEN(bcast_gen, xchg_alg_bcast_ring, xchg_ops_halving_generate(a, t, o, 1, t->nodes, 1, 0, out, err))
GEN(scatter_gen, xchg_alg_scatter_ring,
    xchg_ops_halving_generate(a, t, o, 1, t->nodes, 1, 1, out, err))
GEN(reduce_gen, xchg_alg_reduce_ring,
    xchg_ops_halving_generate(a, t, o, 1, t->nodes, 0, 0, out, err))
GEN(gather_gen, xchg_alg_gather_ring,
    xchg_ops_halving_generate(a, t, o, 1, t->nodes, 0, 1, out, err))
GEN(allgather_gen, xchg_alg_allgather_ring, neighbour_generate(a, t, o, 0, out, err))
GEN(rscatter_gen, xchg_alg_reduce_scatter_ring, neighbour_generate(a, t, o, 1, out, err))
GEN(shift_gen, xchg_alg_shift_ring, shift_generate(a, t, o, out, err))

/* The slides' counts: the halving's ceil(log2 p) start-ups and one block
 * each, or p-1 blocks in all (per token); p-1 neighbour steps of one block;
 * min(q, p-q) for the shift. */
static int ops_ring_formula(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                            xchg_counts *out)
{
    uint32_t p = t->nodes;
    out->copy_blocks = 0;
    switch (a->op) {
    case XCHG_OP_BCAST:
    case XCHG_OP_REDUCE:
        xchg_ops_halving_counts(1, p, 0, out);
        return XCHG_OK;
    case XCHG_OP_SCATTER:
    case XCHG_OP_GATHER:
        xchg_ops_halving_counts(1, p, 1, out);
        return XCHG_OK;
    case XCHG_OP_SHIFT: {
        uint32_t q = opts->shift ? opts->shift : 1;
        if (q >= p)
            return XCHG_ENOTAPPLIC;
        out->startups = out->volume_blocks = q <= p - q ? q : p - q;
        return XCHG_OK;
    }
    default:
        out->startups = out->volume_blocks = p ? p - 1 : 0;
        return XCHG_OK;
    }
}

#define FORMULA(fn, entry) XCHG_OPS_BIND(fn, entry, ops_ring_formula, xchg_counts)

FORMULA(bcast_formula, xchg_alg_bcast_ring)
FORMULA(scatter_formula, xchg_alg_scatter_ring)
FORMULA(reduce_formula, xchg_alg_reduce_ring)
FORMULA(gather_formula, xchg_alg_gather_ring)
FORMULA(allgather_formula, xchg_alg_allgather_ring)
FORMULA(rscatter_formula, xchg_alg_reduce_scatter_ring)
FORMULA(shift_formula, xchg_alg_shift_ring)

/* Steps and tables: the halving's (ops.c), or p-1 or min(q, p-q) steps
 * with no table. */
static int ops_ring_estimate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                             xchg_estimate *out)
{
    uint32_t p = t->nodes;
    int down = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_SCATTER;
    int per_token = a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_GATHER;
    if (down || a->op == XCHG_OP_REDUCE || a->op == XCHG_OP_GATHER) {
        xchg_ops_halving_estimate(1, p, down, per_token, out);
        return XCHG_OK;
    }
    uint64_t steps = p ? p - 1 : 0;
    if (a->op == XCHG_OP_SHIFT) {
        uint32_t q = opts->shift ? opts->shift : 1;
        steps = q >= p ? 0 : q <= p - q ? q : p - q;
    }
    xchg_est_steps(out, steps);
    return XCHG_OK;
}

#define ESTIMATE(fn, entry) XCHG_OPS_BIND(fn, entry, ops_ring_estimate, xchg_estimate)

ESTIMATE(bcast_estimate, xchg_alg_bcast_ring)
ESTIMATE(scatter_estimate, xchg_alg_scatter_ring)
ESTIMATE(reduce_estimate, xchg_alg_reduce_ring)
ESTIMATE(gather_estimate, xchg_alg_gather_ring)
ESTIMATE(allgather_estimate, xchg_alg_allgather_ring)
ESTIMATE(rscatter_estimate, xchg_alg_reduce_scatter_ring)
ESTIMATE(shift_estimate, xchg_alg_shift_ring)

#define APPLIES XCHG_OPS_APPLIES

APPLIES(bcast_applies, xchg_alg_bcast_ring)
APPLIES(scatter_applies, xchg_alg_scatter_ring)
APPLIES(reduce_applies, xchg_alg_reduce_ring)
APPLIES(gather_applies, xchg_alg_gather_ring)
APPLIES(shift_applies, xchg_alg_shift_ring)

#define TOPO_ANY "any, as a line of ids 0..p-1 (contention-free on ring, array, complete)"
#define TOPO_1D "one-dimensional: ring:P, array:P, complete:P"
#define RING_NEEDS(nd) {.dims = nd}
#define ENTRY(var, nm, opk, summ, src, topo, nd, opts_text, prs, app, gen, form, est)              \
    XCHG_OPS_ENTRY(var, nm, opk, summ, src, topo, RING_NEEDS(nd), RING_FREE_ON, opts_text, prs,    \
                   app, gen, form, est)

ENTRY(xchg_alg_bcast_ring, "bcast-ring", XCHG_OP_BCAST,
      "one-to-all broadcast by recursive doubling on a line of any length",
      "One-to-All Broadcast on Rings, eq. (1)", TOPO_ANY, 0, XCHG_OPS_OPTIONS_ROOTED,
      xchg_ops_parse, bcast_applies, bcast_gen, bcast_formula, bcast_estimate);
ENTRY(xchg_alg_reduce_ring, "reduce-ring", XCHG_OP_REDUCE,
      "all-to-one reduction: the ring broadcast reversed", "All-to-One Reduction on Rings, eq. (1)",
      TOPO_ANY, 0, XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse, reduce_applies, reduce_gen,
      reduce_formula, reduce_estimate);
ENTRY(xchg_alg_scatter_ring, "scatter-ring", XCHG_OP_SCATTER,
      "one-to-all personalized: the ring broadcast's halving, messages halving",
      "Scatter and Gather, eq. (3) on a linear array", TOPO_ANY, 0, XCHG_OPS_OPTIONS_ROOTED,
      xchg_ops_parse, scatter_applies, scatter_gen, scatter_formula, scatter_estimate);
ENTRY(xchg_alg_gather_ring, "gather-ring", XCHG_OP_GATHER,
      "all-to-one personalized: the ring scatter reversed, messages doubling",
      "Scatter and Gather, eq. (3) on a linear array", TOPO_ANY, 0, XCHG_OPS_OPTIONS_ROOTED,
      xchg_ops_parse, gather_applies, gather_gen, gather_formula, gather_estimate);
ENTRY(xchg_alg_allgather_ring, "allgather-ring", XCHG_OP_ALLGATHER,
      "all-to-all broadcast: p-1 steps, forwarding to the right what came from the left",
      "ALL_TO_ALL_BC_RING, (t_s + t_w m)(p-1)", TOPO_1D, 1, "", NULL, NULL, allgather_gen,
      allgather_formula, allgather_estimate);
ENTRY(xchg_alg_reduce_scatter_ring, "reduce-scatter-ring", XCHG_OP_REDUCE_SCATTER,
      "all-to-all reduction: p-1 steps, node n passing the partial for n-k at step k",
      "All-to-all Reduction on a Ring, (t_s + t_w m)(p-1)", TOPO_1D, 1, "", NULL, NULL,
      rscatter_gen, rscatter_formula, rscatter_estimate);
ENTRY(xchg_alg_shift_ring, "shift-ring", XCHG_OP_SHIFT,
      "circular q-shift in min(q, p-q) neighbour steps the shorter way round",
      "Circular Shift, min{q, p-q} neighbor communications", TOPO_ANY, 0, XCHG_OPS_OPTIONS_SHIFT,
      xchg_ops_parse, shift_applies, shift_gen, shift_formula, shift_estimate);
