/*
 * ops.h - what the algorithms of the operations other than the complete
 * exchange share (ops_*.c; docs/operations.md): their options (root=R,
 * q=Q), their applies check, a new schedule that records its operation, a
 * step whose partners are a table, and the recursive halving of a line of
 * any length that the rooted operations of the ring, linear array and mesh
 * run (ops_ring.c, ops_mesh.c).
 */
#ifndef XCHG_OPS_H
#define XCHG_OPS_H

#include "alg/alg_common.h"

/* The options text every operation's algorithm takes. */
#define XCHG_OPS_OPTIONS_ROOTED "root=R: the root node (default 0)"
#define XCHG_OPS_OPTIONS_SHIFT "q=Q: the shift, 1 <= Q < p (default 1)"

/* Seed 003, the source every operation's entry cites. */
#define XCHG_OPS_SOURCE                                                                            \
    "Grama et al., Basic Communication Operations (slides to Introduction to Parallel "            \
    "Computing, 2003)"

/* A registry generate hook fn for entry, returning call, in which `a` is
 * the entry and t, o, out, err the hook's arguments. */
#define XCHG_OPS_GEN(fn, entry, call)                                                              \
    static int fn(const xchg_topo *t, const xchg_opts *o, xchg_sched **out, xchg_err *err)         \
    {                                                                                              \
        const xchg_alg *a = &entry;                                                                \
        return call;                                                                               \
    }

/* A registry formula or estimate hook fn for entry (out of type T): the
 * family's shared family_fn(&entry, t, o, out). */
#define XCHG_OPS_BIND(fn, entry, family_fn, T)                                                     \
    static int fn(const xchg_topo *t, const xchg_opts *o, T *out)                                  \
    {                                                                                              \
        return family_fn(&entry, t, o, out);                                                       \
    }

/* A registry applies hook fn for entry: its root and q fit t. */
#define XCHG_OPS_APPLIES(fn, entry)                                                                \
    static int fn(const xchg_topo *t, const xchg_opts *o, xchg_err *err)                           \
    {                                                                                              \
        return xchg_ops_check(&entry, t, o, err);                                                  \
    }

/* A registry entry var of an operation's algorithm: its name nm, operation
 * opk, summary, the slide it comes from (src, after XCHG_OPS_SOURCE), the
 * topologies in words, its needs and the kinds it claims to be
 * contention-free on (both single tokens, e.g. macros), and its hooks. */
#define XCHG_OPS_ENTRY(var, nm, opk, summ, src, topo, needs_v, free_v, opts_text, prs, app, gen, \
                       form, est)                                                                  \
    const xchg_alg var = {                                                                         \
        .name = nm,                                                                                \
        .op = opk,                                                                                 \
        .summary = summ,                                                                           \
        .source = XCHG_OPS_SOURCE ", " src,                                                        \
        .topologies = topo,                                                                        \
        .options = opts_text,                                                                      \
        .needs = needs_v,                                                                          \
        .free_on = free_v,                                                                         \
        .parse = prs,                                                                              \
        .applies = app,                                                                            \
        .generate = gen,                                                                           \
        .formula = form,                                                                           \
        .estimate = est,                                                                           \
    }

/* The group_arg of a mesh step (ops_mesh.c names the sender groups):
 * along a row, along a column, or the shift's compensation step. The
 * halving and the neighbour steps set them on a line of ids too, where
 * no group_fn reads them. */
enum { XCHG_OPS_GROUP_ROW = 0, XCHG_OPS_GROUP_COLUMN = 1, XCHG_OPS_GROUP_COMPENSATION = 2 };

/* Parse "", "root=R" or "q=Q" into opts->root / opts->shift. EINVAL with
 * what is accepted otherwise. q defaults to 1. */
XCHG_INTERNAL int xchg_ops_parse(const char *args, xchg_opts *opts, xchg_err *err);

/* The operation of entry a with opts' parameters. */
XCHG_INTERNAL xchg_op xchg_ops_op(const xchg_alg *a, const xchg_opts *opts);

/* 0 when a's operation with opts' parameters fits t (xchg_op_check), else
 * EINVAL naming a. */
XCHG_INTERNAL int xchg_ops_check(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                                 xchg_err *err);

/* A new empty schedule of entry a on t: its spec ("bcast-hc:root=3"), its
 * contention-free claim and its operation. NULL when out of memory. */
XCHG_INTERNAL xchg_sched *xchg_ops_new(const xchg_alg *a, const xchg_topo *t,
                                       const xchg_opts *opts);

/* Neighbour steps moving every token by `by` along dimension dim (along
 * the ids mod p when dim is -1), the shorter way round: min(by, n-by)
 * steps of one block, every node passing on the one token it holds; on a
 * 2-D grid dim 1 runs along the rows and 0 along the columns (their
 * group_arg, XCHG_OPS_GROUP_*). 0, or ENOMEM with s freed (xchg_alg_add). */
XCHG_INTERNAL int xchg_ops_shift_steps(xchg_sched *s, int dim, uint32_t by, xchg_err *err);

/* A zeroed step whose partners are part (p entries, XCHG_NONE idle; taken
 * over), with rule and uniform size blocks. */
XCHG_INTERNAL xchg_step xchg_ops_table_step(uint32_t *part, xchg_rule rule, uint64_t blocks);

/*
 * Recursive halving on a line of n positions (seed 003, "One-to-All
 * Broadcast and All-to-One Reduction on Rings", for any n): a segment
 * [lo, hi) whose data sits at position holder splits in two; the holder
 * keeps the half of ceil(L/2) positions that contains it and sends the other
 * half, of floor(L/2), to the position there at the same offset (the last
 * one when that half is shorter), which then holds it. Every segment of two
 * or more positions splits at each level, so ceil(log2 n) levels; the
 * segment of the first holder is the largest at every level, and the halves
 * it sends add up to n - 1.
 */
typedef struct xchg_ops_seg {
    uint32_t lo, hi; /* positions [lo, hi) */
    uint32_t holder; /* the position holding the segment's data */
} xchg_ops_seg;

/* Split seg (two or more positions) into the half its holder keeps and the
 * half it sends (whose holder is the receiver). */
XCHG_INTERNAL void xchg_ops_halve(const xchg_ops_seg *seg, xchg_ops_seg *kept, xchg_ops_seg *sent);

/* 1 when position x sends at level k of the halving of [0, n) from holder
 * h0, with the half it sends in *sent; 0 otherwise. O(k), no memory. */
XCHG_INTERNAL int xchg_ops_halving_sends(uint32_t n, uint32_t h0, int k, uint32_t x,
                                         xchg_ops_seg *sent);

/*
 * The rooted operations as halvings on a rows x cols grid of ids
 * (id = row * cols + col): first along the root's row (over the columns),
 * then along every column at once (over the rows), as seed 003's "Broadcast
 * and Reduction on a Mesh" says; a line of ids is the grid 1 x p.
 *   down: bcast (per_token 0) or scatter (1): each message carries the
 *         tokens bound for the half it sends (a block, or a token each);
 *   up:   gather (per_token 1): the scatter's messages reversed, each
 *         carrying everything its sender holds; reduce (0): the transposed
 *         broadcast reversed, along every row at once to the root's column,
 *         then along that column to the root, one block each. Rows first
 *         keep each partial an interval of ids (a segment of a row, then
 *         a run of whole rows), so every combination joins two adjacent
 *         intervals: MPI's rank order. The counts are the same either way.
 * The down schedules select with a callback on a small context (root and
 * grid), so they must be a schedule's first phase (the callback reads the
 * step index). Each step's group_arg says whether it runs along a row or
 * a column (XCHG_OPS_GROUP_*). Steps: ceil(log2 cols) + ceil(log2 rows); memory: a partner
 * table a step and, per token, a size table a step. ENOMEM on no memory.
 */
XCHG_INTERNAL int xchg_ops_halving_generate(const xchg_alg *a, const xchg_topo *t,
                                            const xchg_opts *opts, uint32_t rows, uint32_t cols,
                                            int down, int per_token, xchg_sched **out,
                                            xchg_err *err);

/* The halving's counts and estimate on a rows x cols grid of ids. */
XCHG_INTERNAL void xchg_ops_halving_counts(uint32_t rows, uint32_t cols, int per_token,
                                           xchg_counts *out);
XCHG_INTERNAL void xchg_ops_halving_estimate(uint32_t rows, uint32_t cols, int down, int per_token,
                                             xchg_estimate *out);

#endif /* XCHG_OPS_H */
