/*
 * ops_hypercube.c - the basic operations other than the complete exchange
 * on p = 2^d nodes, as Grama et al.'s slides (seed 003, "Basic
 * Communication Operations") give them for the hypercube. Node n's virtual
 * id is v = n XOR root (the slides' my_virtual_id), so any root works.
 *
 *   bcast-hc    GENERAL_ONE_TO_ALL_BC: for i = d-1 downto 0 the nodes with
 *               v's low i+1 bits zero send to n XOR 2^i the tokens whose
 *               dest has bit i of the partner's; one block each step.
 *               (t_s + t_w m) log p, eq. (1).
 *   scatter-hc  the same pattern; a message carries the 2^i tokens of its
 *               half: t_s log p + t_w m (p-1), eq. (3).
 *   reduce-hc   ALL_TO_ONE_REDUCE: for i = 0 to d-1 the nodes with v's low
 *               i bits zero and bit i set send everything to n XOR 2^i;
 *               contributions combine: one block. (t_s + t_w m) log p.
 *   gather-hc   the same pattern, 2^i tokens: t_s log p + t_w m (p-1).
 *   allgather-hc  ALL_TO_ALL_BC_HCUBE: for i = 0 to d-1 every node sends to
 *               n XOR 2^i the tokens bound for the partner's half, of 2^i
 *               origins: t_s log p + t_w m (p-1), eq. (2).
 *   reduce-scatter-hc  all-to-all reduction: for i = 0 to d-1 every node
 *               sends to n XOR 2^i the partials bound for the partner's
 *               half, p/2^(i+1) dests a message: t_s log p + t_w m (p-1).
 *               The slides run it as the all-to-all broadcast reversed
 *               (i = d-1 downto 0); crossing the low bit first instead
 *               costs the same and makes every partial an aligned interval
 *               of ids, 2^i of them before step i, so each combination
 *               joins two adjacent intervals and MPI's rank order holds
 *               for a non-commutative operator (docs/operations.md).
 *   allreduce-hc  the all-to-all broadcast pattern with messages that do
 *               not grow: every dest of a message holds the same origins,
 *               one block: (t_s + t_w m) log p.
 *   scan-hc     PREFIX_SUMS_HCUBE: the same pattern over the tokens
 *               (o, d), o <= d; a node whose partner is lower sends only
 *               while some higher subcube needs its origins (in the last
 *               step the upper half sends nothing): (t_s + t_w m) log p.
 *               On any other p (MPI_Scan takes any), the same steps for
 *               i = 0 to ceil(log2 p)-1 with the partners n XOR 2^i >= p
 *               left out, as MPICH's recursive-doubling scan does: no
 *               token needs them (below), so (t_s + t_w m) ceil(log2 p).
 *   shift-hc    a q-shift as one shift by 2^k per set bit k of q, node n to
 *               n + 2^k mod p (ids in binary order, e-cube routes), one
 *               block a step: (t_s + t_w m) popcount(q). The slides map a
 *               linear array onto the hypercube by a Gray code and bound a
 *               shift by (t_s + t_w m)(2 log p - 1), eq. (8); here the
 *               ranks are the node ids, so there is no Gray code
 *               (docs/operations.md).
 *   shift-hc-ecube  the slides' e-cube form, eq. (9): one step, node n
 *               straight to n + q mod p along its e-cube route: t_s + t_w m.
 *
 * On a balanced binary tree (tree:D, processors at the leaves, switches
 * inside), the slides' "Broadcast and Reduction on a Balanced Binary Tree":
 *   bcast-tree  the source sends to the first leaf of the other half of
 *               the tree, then each half does the same alone: the
 *               GENERAL_ONE_TO_ALL_BC template, whose step i keeps every
 *               message inside its own subtree of 2^(i+1) leaves, so no
 *               edge carries two: (t_s + t_w m) log p, as on a hypercube.
 *   reduce-tree the same reversed: (t_s + t_w m) log p.
 * They are bcast-hc and reduce-hc on the tree under the names the slides
 * give them; the rooted hypercube entries claim the tree as well.
 *
 * Preconditions: p = 2^d nodes on any topology (contention-free on a
 * hypercube and a switch, the rooted ones on a tree too; the verifier holds
 * every claim), scan-hc any p; bcast-tree and reduce-tree on a tree only.
 * Memory: a partner table a step for the rooted ones, a size table for
 * scan (and a partner table when p is not a power of two).
 * Sender groups (xchg draw): every sender of a step of the rooted and
 * pairwise patterns is in "dimension i", the bit it crosses; the shifts
 * name none (a shift by 2^k carries into higher bits).
 */
#include <stdio.h>
#include <stdlib.h>

#include "alg/ops.h"

#define OPS_HC_NEEDS {.nodes_pow2 = 1}
#define OPS_ANY_NEEDS {0}
#define OPS_HC_FREE_ON (XCHG_KIND(XCHG_TOPO_HYPERCUBE) | XCHG_KIND(XCHG_TOPO_COMPLETE))
/* The rooted patterns keep each step's messages in disjoint subtrees of a
 * balanced binary tree too (bcast-tree below). */
#define OPS_HC_ROOTED_FREE_ON (OPS_HC_FREE_ON | XCHG_KIND(XCHG_TOPO_TREE))
#define OPS_TREE_NEEDS {.kinds = XCHG_KIND(XCHG_TOPO_TREE)}

/* Sender groups (xchg_sched_group): every sender of a step crosses the
 * step's dimension, its group_arg: "dimension I", index I. */
static int dimension_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    (void)node;
    int i = s->steps[step].group_arg;
    snprintf(name, len, "dimension %d", i);
    return i;
}

/* Steps of the rooted patterns: toward the leaves (bcast, scatter) or
 * toward the root (reduce, gather); each message carries one block or the
 * 2^i tokens of its subcube (per_token). */
static int rooted_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, int down,
                           int per_token, xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t p = t->nodes, root = s->op.root;
    int d = xchg_alg_log2(p);
    s->group_fn = dimension_group;
    for (int k = 0; k < d; k++) {
        int i = down ? d - 1 - k : k;
        uint32_t bit = 1u << i, low = bit - 1;
        uint32_t *part = malloc(p * sizeof *part);
        if (!part) {
            xchg_sched_free(s);
            return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
        }
        for (uint32_t n = 0; n < p; n++) {
            uint32_t v = n ^ root;
            int sends = down ? (v & (bit | low)) == 0 : (v & low) == 0 && (v & bit);
            part[n] = sends ? n ^ bit : XCHG_NONE;
        }
        xchg_rule rule = xchg_rule_dest_mask_to(down ? bit : 0);
        xchg_step st = xchg_ops_table_step(part, rule, per_token ? bit : 1);
        st.group_arg = i;
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/*
 * Whether scan-hc's node n sends at the step across bit i (partner
 * n XOR 2^i, below p), and so the size of its message, 0 or 1 block.
 * Before the step n holds the tokens (o, d) with o in its aligned group of
 * 2^i ids, d >= o, d < p and d's bits below i those of n; it sends those
 * whose bit i is the partner's. A higher partner is itself such a dest. A
 * lower partner's side has bit i clear, so such a d must lie in a higher
 * group of 2^(i+1): the first is ((n >> (i+1)) + 1) << (i+1) with n's low
 * bits, and the node sends when that is below p. The same follows a token
 * (o, d): its holder before step i has d's bits below i and o's from i up,
 * and the partner it needs has d's bits up to i and o's above, at most d
 * (o <= d), so below p: no token waits on a partner left out.
 */
static uint32_t scan_blocks(uint32_t p, uint32_t n, int i)
{
    uint32_t bit = 1u << i;
    if (!(n & bit))
        return 1;
    uint64_t next = ((uint64_t)(n >> (i + 1)) + 1) << (i + 1) | (n & (bit - 1));
    return next < p;
}

/* Steps of the pairwise patterns: every node with n XOR 2^i, i = 0 to d-1,
 * the tokens bound for the partner's half; a message is 2^i blocks (size
 * 1: doubling), p/2^(i+1) (size -1: halving, the reduce-scatter) or one
 * (size 0: allreduce); scan sizes each node's message and, on p not a
 * power of two, leaves out the partners >= p (a partner table). */
static int pairwise_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, int size,
                             xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t p = t->nodes;
    int d = xchg_alg_log2(p);
    s->group_fn = dimension_group;
    for (int i = 0; i < d; i++) {
        uint32_t bit = 1u << i;
        uint64_t blocks = size > 0 ? bit : size < 0 ? p >> (i + 1) : 1;
        xchg_step st = xchg_step_xor(bit, xchg_rule_dest_mask_to(bit), blocks);
        if (a->op == XCHG_OP_SCAN) {
            int table = !xchg_alg_is_pow2(p);
            uint32_t *part = table ? malloc(p * sizeof *part) : NULL;
            uint32_t *msg = malloc(p * sizeof *msg);
            if (!msg || (table && !part)) {
                free(part);
                free(msg);
                xchg_sched_free(s);
                return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
            }
            for (uint32_t n = 0; n < p; n++) {
                int there = (n ^ bit) < p;
                msg[n] = there ? scan_blocks(p, n, i) : 0;
                if (table)
                    part[n] = there ? n ^ bit : XCHG_NONE;
            }
            if (table)
                st = xchg_ops_table_step(part, xchg_rule_dest_mask_to(bit), 1);
            st.blocks_table = msg;
        }
        st.group_arg = i;
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* A shift by q as one step per set bit of q (phases), or one step. */
static int shift_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, int phases,
                          xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t q = s->op.shift;
    for (int k = 0; k < 32; k++) {
        uint32_t by = phases ? q & (1u << k) : (k == 0 ? q : 0);
        if (!by)
            continue;
        xchg_step st = xchg_step_shift(-1, by, xchg_rule_dest_mask_to(0), 1);
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

#define GEN XCHG_OPS_GEN

GEN(bcast_gen, xchg_alg_bcast_hc, rooted_generate(a, t, o, 1, 0, out, err))
GEN(bcast_tree_gen, xchg_alg_bcast_tree, rooted_generate(a, t, o, 1, 0, out, err))
GEN(reduce_tree_gen, xchg_alg_reduce_tree, rooted_generate(a, t, o, 0, 0, out, err))
GEN(scatter_gen, xchg_alg_scatter_hc, rooted_generate(a, t, o, 1, 1, out, err))
GEN(reduce_gen, xchg_alg_reduce_hc, rooted_generate(a, t, o, 0, 0, out, err))
GEN(gather_gen, xchg_alg_gather_hc, rooted_generate(a, t, o, 0, 1, out, err))
GEN(allgather_gen, xchg_alg_allgather_hc, pairwise_generate(a, t, o, 1, out, err))
GEN(rscatter_gen, xchg_alg_reduce_scatter_hc, pairwise_generate(a, t, o, -1, out, err))
GEN(allreduce_gen, xchg_alg_allreduce_hc, pairwise_generate(a, t, o, 0, out, err))
GEN(scan_gen, xchg_alg_scan_hc, pairwise_generate(a, t, o, 0, out, err))
GEN(shift_gen, xchg_alg_shift_hc, shift_generate(a, t, o, 1, out, err))
GEN(ecube_gen, xchg_alg_shift_hc_ecube, shift_generate(a, t, o, 0, out, err))

/* The slides' counts: log p start-ups; volume log p blocks (messages that
 * do not grow) or p-1 (halving or doubling); shifts one a set bit of q, or
 * one. Scan on other p: ceil(log2 p) of each (node 0's partner 2^i is
 * below p at every step, and it sends one block). */
static int ops_hc_formula(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                          xchg_counts *out)
{
    if (!xchg_alg_is_pow2(t->nodes) && a->op != XCHG_OP_SCAN)
        return XCHG_ENOTAPPLIC;
    uint64_t d = (uint64_t)xchg_alg_log2(t->nodes);
    out->copy_blocks = 0;
    switch (a->op) {
    case XCHG_OP_SHIFT:
        out->startups = a == &xchg_alg_shift_hc ? (uint64_t)__builtin_popcount(opts->shift) : 1;
        out->volume_blocks = out->startups;
        return XCHG_OK;
    case XCHG_OP_SCATTER:
    case XCHG_OP_GATHER:
    case XCHG_OP_ALLGATHER:
    case XCHG_OP_REDUCE_SCATTER:
        out->volume_blocks = t->nodes - 1;
        break;
    default:
        out->volume_blocks = d;
    }
    out->startups = d;
    return XCHG_OK;
}

#define FORMULA(fn, entry) XCHG_OPS_BIND(fn, entry, ops_hc_formula, xchg_counts)

FORMULA(bcast_formula, xchg_alg_bcast_hc)
FORMULA(bcast_tree_formula, xchg_alg_bcast_tree)
FORMULA(reduce_tree_formula, xchg_alg_reduce_tree)
FORMULA(scatter_formula, xchg_alg_scatter_hc)
FORMULA(reduce_formula, xchg_alg_reduce_hc)
FORMULA(gather_formula, xchg_alg_gather_hc)
FORMULA(allgather_formula, xchg_alg_allgather_hc)
FORMULA(rscatter_formula, xchg_alg_reduce_scatter_hc)
FORMULA(allreduce_formula, xchg_alg_allreduce_hc)
FORMULA(scan_formula, xchg_alg_scan_hc)
FORMULA(shift_formula, xchg_alg_shift_hc)
FORMULA(ecube_formula, xchg_alg_shift_hc_ecube)

/* Steps and tables: log p steps, a partner table each (rooted) or a size
 * table each (scan; and a partner table when p is not a power of two);
 * shifts one step a set bit. */
static int ops_hc_estimate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                           xchg_estimate *out)
{
    uint64_t d = (uint64_t)xchg_alg_log2(t->nodes), steps = d;
    if (a->op == XCHG_OP_SHIFT)
        steps = a == &xchg_alg_shift_hc ? (uint64_t)__builtin_popcount(opts->shift) : 1;
    xchg_est_steps(out, steps);
    if (a->op == XCHG_OP_BCAST || a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_REDUCE ||
        a->op == XCHG_OP_GATHER)
        xchg_est_tables(out, steps, t->nodes, sizeof(uint32_t));
    if (a->op == XCHG_OP_SCAN)
        xchg_est_tables(out, steps, t->nodes,
                        sizeof(uint32_t) * (xchg_alg_is_pow2(t->nodes) ? 1 : 2));
    return XCHG_OK;
}

#define ESTIMATE(fn, entry) XCHG_OPS_BIND(fn, entry, ops_hc_estimate, xchg_estimate)

ESTIMATE(bcast_estimate, xchg_alg_bcast_hc)
ESTIMATE(bcast_tree_estimate, xchg_alg_bcast_tree)
ESTIMATE(reduce_tree_estimate, xchg_alg_reduce_tree)
ESTIMATE(scatter_estimate, xchg_alg_scatter_hc)
ESTIMATE(reduce_estimate, xchg_alg_reduce_hc)
ESTIMATE(gather_estimate, xchg_alg_gather_hc)
ESTIMATE(allgather_estimate, xchg_alg_allgather_hc)
ESTIMATE(rscatter_estimate, xchg_alg_reduce_scatter_hc)
ESTIMATE(allreduce_estimate, xchg_alg_allreduce_hc)
ESTIMATE(scan_estimate, xchg_alg_scan_hc)
ESTIMATE(shift_estimate, xchg_alg_shift_hc)
ESTIMATE(ecube_estimate, xchg_alg_shift_hc_ecube)

#define APPLIES XCHG_OPS_APPLIES

APPLIES(bcast_applies, xchg_alg_bcast_hc)
APPLIES(bcast_tree_applies, xchg_alg_bcast_tree)
APPLIES(reduce_tree_applies, xchg_alg_reduce_tree)
APPLIES(scatter_applies, xchg_alg_scatter_hc)
APPLIES(reduce_applies, xchg_alg_reduce_hc)
APPLIES(gather_applies, xchg_alg_gather_hc)
APPLIES(shift_applies, xchg_alg_shift_hc)
APPLIES(ecube_applies, xchg_alg_shift_hc_ecube)

#define ENTRY(var, nm, opk, summ, src, opts_text, prs, app, gen, form, est)                        \
    XCHG_OPS_ENTRY(var, nm, opk, summ, src,                                                        \
                   "any topology with p = 2^D nodes (contention-free on hypercube, complete)",     \
                   OPS_HC_NEEDS, OPS_HC_FREE_ON, opts_text, prs, app, gen, form, est)
#define ROOTED_ENTRY(var, nm, opk, summ, src, app, gen, form, est)                                 \
    XCHG_OPS_ENTRY(var, nm, opk, summ, src,                                                        \
                   "any topology with p = 2^D nodes (contention-free on hypercube, complete, "     \
                   "tree)",                                                                        \
                   OPS_HC_NEEDS, OPS_HC_ROOTED_FREE_ON, XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse,   \
                   app, gen, form, est)
#define TREE_ENTRY(var, nm, opk, summ, src, app, gen, form, est)                                   \
    XCHG_OPS_ENTRY(var, nm, opk, summ, src, "tree:D (contention-free)", OPS_TREE_NEEDS,            \
                   XCHG_KIND(XCHG_TOPO_TREE), XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse, app, gen,   \
                   form, est)

ROOTED_ENTRY(xchg_alg_bcast_hc, "bcast-hc", XCHG_OP_BCAST,
             "one-to-all broadcast in log p steps, halving the subcube each step",
             "GENERAL_ONE_TO_ALL_BC, eq. (1)", bcast_applies, bcast_gen, bcast_formula,
             bcast_estimate);
ROOTED_ENTRY(xchg_alg_scatter_hc, "scatter-hc", XCHG_OP_SCATTER,
             "one-to-all personalized: the broadcast pattern, messages halving",
             "Scatter and Gather, eq. (3)", scatter_applies, scatter_gen, scatter_formula,
             scatter_estimate);
ROOTED_ENTRY(xchg_alg_reduce_hc, "reduce-hc", XCHG_OP_REDUCE,
             "all-to-one reduction in log p steps, the broadcast reversed",
             "ALL_TO_ONE_REDUCE, eq. (1)", reduce_applies, reduce_gen, reduce_formula,
             reduce_estimate);
ROOTED_ENTRY(xchg_alg_gather_hc, "gather-hc", XCHG_OP_GATHER,
             "all-to-one personalized: the scatter reversed, messages doubling",
             "Scatter and Gather, eq. (3)", gather_applies, gather_gen, gather_formula,
             gather_estimate);
TREE_ENTRY(xchg_alg_bcast_tree, "bcast-tree", XCHG_OP_BCAST,
           "one-to-all broadcast on a balanced binary tree: to the other half's first leaf, then "
           "each half alone",
           "Broadcast and Reduction on a Balanced Binary Tree", bcast_tree_applies, bcast_tree_gen,
           bcast_tree_formula, bcast_tree_estimate);
TREE_ENTRY(xchg_alg_reduce_tree, "reduce-tree", XCHG_OP_REDUCE,
           "all-to-one reduction on a balanced binary tree: the broadcast reversed",
           "Broadcast and Reduction on a Balanced Binary Tree", reduce_tree_applies,
           reduce_tree_gen, reduce_tree_formula, reduce_tree_estimate);
ENTRY(xchg_alg_allgather_hc, "allgather-hc", XCHG_OP_ALLGATHER,
      "all-to-all broadcast: log p exchanges across one bit each, messages doubling",
      "ALL_TO_ALL_BC_HCUBE, eq. (2)", "", NULL, NULL, allgather_gen, allgather_formula,
      allgather_estimate);
ENTRY(xchg_alg_reduce_scatter_hc, "reduce-scatter-hc", XCHG_OP_REDUCE_SCATTER,
      "all-to-all reduction: log p exchanges across one bit each, low bit first, messages halving",
      "All-to-all Reduction, eq. (2)", "", NULL, NULL, rscatter_gen, rscatter_formula,
      rscatter_estimate);
ENTRY(xchg_alg_allreduce_hc, "allreduce-hc", XCHG_OP_ALLREDUCE,
      "all-reduce: the all-to-all broadcast pattern with messages that do not grow",
      "All-Reduce, (t_s + t_w m) log p", "", NULL, NULL, allreduce_gen, allreduce_formula,
      allreduce_estimate);
XCHG_OPS_ENTRY(xchg_alg_scan_hc, "scan-hc", XCHG_OP_SCAN,
               "prefix sums: the all-reduce pattern, a node keeping what comes from below",
               "PREFIX_SUMS_HCUBE",
               "any topology (contention-free on hypercube, complete); p not a power of two "
               "leaves out the partners above p-1",
               OPS_ANY_NEEDS, OPS_HC_FREE_ON, "", NULL, NULL, scan_gen, scan_formula,
               scan_estimate);
ENTRY(xchg_alg_shift_hc, "shift-hc", XCHG_OP_SHIFT,
      "circular q-shift as one shift by 2^k per set bit of q",
      "Circular Shift on a Hypercube, eq. (8)", XCHG_OPS_OPTIONS_SHIFT, xchg_ops_parse,
      shift_applies, shift_gen, shift_formula, shift_estimate);
ENTRY(xchg_alg_shift_hc_ecube, "shift-hc-ecube", XCHG_OP_SHIFT,
      "circular q-shift in one step along e-cube routes", "Circular Shift on a Hypercube, eq. (9)",
      XCHG_OPS_OPTIONS_SHIFT, xchg_ops_parse, ecube_applies, ecube_gen, ecube_formula,
      ecube_estimate);
