/*
 * ops_mesh.c - the basic operations other than the complete exchange on a
 * two-dimensional mesh or torus of R x C nodes (id = row * C + col), any
 * sizes, as Grama et al.'s slides (seed 003, "Basic Communication
 * Operations") give them for the mesh: each row and column is a linear
 * array, and an operation runs along the rows, then along the columns (or
 * the reverse).
 *
 *   bcast-mesh   "Broadcast and Reduction on a Mesh": the ring broadcast
 *                (ops_ring.c, recursive doubling on a line of any length)
 *                along the root's row, over the columns, then along every
 *                column at once: ceil(log2 C) + ceil(log2 R) steps of one
 *                block, (t_s + t_w m) log p when R and C are powers of two;
 *                any root.
 *   reduce-mesh  a reduction along the rows first: every row at once to
 *                the root's column (the line halving reversed), then that
 *                column to the root; the same counts. The slides reverse
 *                the broadcast (columns first); with row-major ids rows
 *                first keep every partial an interval of ids, so the
 *                combinations keep MPI's rank order (docs/operations.md).
 *   scatter-mesh the broadcast's pattern, a message carrying the tokens of
 *                the nodes it sends to: R per column along the root's row (R
 *                (C-1) in all), one per node along the columns:
 *                t_s (ceil(log2 C) + ceil(log2 R)) + t_w m (p-1), eq. (3),
 *                "for a linear array as well as a 2-D mesh".
 *   gather-mesh  the scatter reversed: the same counts.
 *   allgather-mesh  ALL_TO_ALL_BC_MESH: C-1 steps along the rows (every
 *                node to its right neighbour, one block: the row's ring
 *                allgather), then R-1 steps along the columns with the row's
 *                C blocks consolidated: (C-1) + (R-1) start-ups, volume
 *                (C-1) + C (R-1) = p-1 blocks; on a square mesh
 *                2 t_s (sqrt(p) - 1) + t_w m (p-1), as the slide says. As
 *                tokens: along a row a node forwards the tokens whose dest
 *                column is not its own, along a column those whose dest row
 *                is not its own.
 *   reduce-scatter-mesh  its dual, rows first: C-1 steps along the rows,
 *                at step k node (r, c) passing the partials for the R dests
 *                of column c-k (R blocks), then R-1 steps down the columns
 *                passing the partial for dest (r-k, c) (one block): (C-1) +
 *                start-ups, volume R (C-1) + (R-1) = p-1 blocks, the
 *                same counts as the exact reverse of the allgather (columns
 *                first, C blocks). Rows first, a row's partial covers an
 *                interval of ids; but each phase is a ring reduce-scatter,
 *                whose partial for position j goes round j+1, ..., n-1, 0,
 *                ..., j, so rank order holds only when no row or column has
 *                more than two nodes, i.e. on 2 x 2 (docs/operations.md).
 *   shift-mesh   "Circular Shift on a Mesh": with q = a C + b, node i's
 *                token goes to i + q mod p. The rows shift by b (min(b, C-b)
 *                neighbour steps the shorter way round); the tokens whose
 *                row shift wrapped (now in columns 0..b-1) take one step
 *                down, the compensation step (only when b > 0 and R > 1);
 *                then the columns shift by a (min(a, R-a) neighbour steps):
 *                min(b, C-b) + [b > 0] + min(a, R-a) start-ups of one block,
 *                at most sqrt(p)/2 + 1 + sqrt(p)/2 on a square: the slide's
 *                bound (t_s + t_w m)(sqrt(p) + 1). Worked case (the slide's
 *                figure, 5-shift on 4 x 4): a = 1, b = 1, steps 1 + 1 + 1.
 *
 * Mesh or torus: shifting by min(b, C-b) neighbour steps the shorter way
 * round needs the wrap-around link, so the slides' mesh for the circular
 * shift is a torus (their figure of the 4 x 4 circular 5-shift draws the
 * wrap-around arrows); the allgather's and reduce-scatter's neighbour steps
 * also wrap (node C-1 sends to node 0 of its row). Both run on a mesh too:
 * there the one wrapping message of a row (or column) crosses it the other
 * way, C-1 hops, and no directed link carries two messages; the counts are
 * the same, but that message travels C-1 hops where store-and-forward
 * would charge them. The rooted operations keep each message inside its
 * segment of a row or column (at most ceil(n/2) nodes after the first
 * level, so the shortest way round stays inside on a torus). Contention-free
 * on mesh and torus, held by the verifier.
 *
 * The slides' counts assume R = C = sqrt(p) = 2^d (scatter's t_s log p);
 * for other sizes the rooted ones take ceil(log2 C) + ceil(log2 R) steps,
 * which can be one more than ceil(log2 p): on 3 x 5, 2 + 3 = 5 against
 * ceil(log2 15) = 4. Worked cases: the allgather on the slide's 3 x 3 mesh
 * takes 2 + 2 = 4 = 2 (sqrt(p) - 1) start-ups and 2 * 1 + 2 * 3 = 8 = p - 1
 * blocks (the figure's caption says every node ends with "(0,1,...,7)": 8
 * messages, but 3 x 3 has 9 nodes, 0..8). The shift bound is reached: a
 * 10-shift on 4 x 4 is a = 2, b = 2: 2 + 1 + 2 = 5 = sqrt(p) + 1 steps; the
 * figure's 5-shift takes 3. Like the slides, the counts charge a message
 * t_s + t_w m whatever its hops (the wrapping message on a mesh, and the
 * rooted operations' first messages, which cross half a row or column).
 * Preconditions: mesh:RxC or torus:RxC; root < p; 1 <= q < p. Memory: a
 * partner table a step for the rooted operations (a size table a step for
 * scatter and gather), one for the shift's compensation step. Sender
 * groups (xchg draw): "row phase" for the steps along a row, "column
 * phase" for those along a column, and the shift's "compensation step".
 */
#include <stdio.h>
#include <stdlib.h>

#include "alg/ops.h"

#define MESH_FREE_ON (XCHG_KIND(XCHG_TOPO_MESH) | XCHG_KIND(XCHG_TOPO_TORUS))

/* Rows and columns of a 2-D topology. */
#define ROWS(t) ((t)->size[0])
#define COLS(t) ((t)->size[1])

/* Sender groups (xchg_sched_group): a step's senders are all in its
 * group_arg's group (XCHG_OPS_GROUP_*, the index). */
static int mesh_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    static const char *const names[] = {"row phase", "column phase", "compensation step"};
    (void)node;
    int g = s->steps[step].group_arg;
    if (g < 0 || g > XCHG_OPS_GROUP_COMPENSATION)
        return -1;
    snprintf(name, len, "%s", names[g]);
    return g;
}

/* The rooted operations: the halving of ops.c on the R x C grid, with the
 * mesh's groups. */
static int halving_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, int down,
                            int per_token, xchg_sched **out, xchg_err *err)
{
    int rc = xchg_ops_halving_generate(a, t, opts, ROWS(t), COLS(t), down, per_token, out, err);
    if (rc == XCHG_OK)
        (*out)->group_fn = mesh_group;
    return rc;
}

/* All-to-all broadcast (rows, then columns with C blocks) or all-to-all
 * reduction (rows with R blocks, then columns). */
static int two_phase_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                              int reduce, xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    s->group_fn = mesh_group;
    for (int ph = 0; ph < 2; ph++) {
        int dim = 1 - ph; /* 1: along the rows, 0: along the columns */
        uint64_t blocks = reduce ? (dim == 1 ? ROWS(t) : 1) : (dim == 0 ? COLS(t) : 1);
        for (uint32_t k = 1; k < t->size[dim]; k++) {
            xchg_rule rule = reduce ? xchg_rule_coord_dist(dim, -1, k, k) : xchg_rule_coord_ne(dim);
            xchg_step st = xchg_step_shift(dim, 1, rule, blocks);
            st.group_arg = dim == 1 ? XCHG_OPS_GROUP_ROW : XCHG_OPS_GROUP_COLUMN;
            int rc = xchg_alg_add(s, &st, err);
            if (rc)
                return rc;
        }
    }
    *out = s;
    return XCHG_OK;
}

/* The circular q-shift: rows by b, the compensation step, columns by a. */
static int shift_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                          xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint32_t q = s->op.shift, R = ROWS(t), C = COLS(t), p = t->nodes;
    uint32_t qa = q / C, qb = q % C;
    s->group_fn = mesh_group;
    int rc = qb ? xchg_ops_shift_steps(s, 1, qb, err) : XCHG_OK;
    if (rc)
        return rc;
    if (qb && R > 1) {
        /* the tokens that wrapped round their row are in columns 0..b-1 */
        uint32_t *part = malloc((size_t)p * sizeof *part);
        if (!part) {
            xchg_sched_free(s);
            return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
        }
        for (uint32_t n = 0; n < p; n++)
            part[n] = n % C < qb ? xchg_shift_node(t, 0, 1, n) : XCHG_NONE;
        xchg_step st = xchg_ops_table_step(part, xchg_rule_dest_mask_to(0), 1);
        st.group_arg = XCHG_OPS_GROUP_COMPENSATION;
        rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    if (qa)
        rc = xchg_ops_shift_steps(s, 0, qa, err);
    if (rc)
        return rc;
    *out = s;
    return XCHG_OK;
}

#define GEN XCHG_OPS_GEN

GEN(bcast_gen, xchg_alg_bcast_mesh, halving_generate(a, t, o, 1, 0, out, err))
GEN(scatter_gen, xchg_alg_scatter_mesh, halving_generate(a, t, o, 1, 1, out, err))
GEN(reduce_gen, xchg_alg_reduce_mesh, halving_generate(a, t, o, 0, 0, out, err))
GEN(gather_gen, xchg_alg_gather_mesh, halving_generate(a, t, o, 0, 1, out, err))
GEN(allgather_gen, xchg_alg_allgather_mesh, two_phase_generate(a, t, o, 0, out, err))
GEN(rscatter_gen, xchg_alg_reduce_scatter_mesh, two_phase_generate(a, t, o, 1, out, err))
GEN(shift_gen, xchg_alg_shift_mesh, shift_generate(a, t, o, out, err))

/* Steps of the q-shift on t (0 when q does not fit). */
static uint64_t shift_steps(const xchg_topo *t, uint32_t q)
{
    uint32_t R = ROWS(t), C = COLS(t);
    if (q == 0 || q >= t->nodes)
        return 0;
    uint32_t qa = q / C, qb = q % C;
    return (uint64_t)(qb <= C - qb ? qb : C - qb) + (qb && R > 1) + (qa <= R - qa ? qa : R - qa);
}

/* The counts above: the halving's, (C-1) + (R-1) start-ups and p-1 blocks,
 * or the shift's steps of one block. */
static int ops_mesh_formula(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                            xchg_counts *out)
{
    if (t->ndims != 2)
        return XCHG_ENOTAPPLIC;
    out->copy_blocks = 0;
    switch (a->op) {
    case XCHG_OP_BCAST:
    case XCHG_OP_REDUCE:
        xchg_ops_halving_counts(ROWS(t), COLS(t), 0, out);
        return XCHG_OK;
    case XCHG_OP_SCATTER:
    case XCHG_OP_GATHER:
        xchg_ops_halving_counts(ROWS(t), COLS(t), 1, out);
        return XCHG_OK;
    case XCHG_OP_SHIFT:
        out->startups = out->volume_blocks = shift_steps(t, opts->shift ? opts->shift : 1);
        return XCHG_OK;
    default:
        out->startups = (uint64_t)ROWS(t) - 1 + COLS(t) - 1;
        out->volume_blocks = (uint64_t)t->nodes - 1;
        return XCHG_OK;
    }
}

#define FORMULA(fn, entry) XCHG_OPS_BIND(fn, entry, ops_mesh_formula, xchg_counts)

FORMULA(bcast_formula, xchg_alg_bcast_mesh)
FORMULA(scatter_formula, xchg_alg_scatter_mesh)
FORMULA(reduce_formula, xchg_alg_reduce_mesh)
FORMULA(gather_formula, xchg_alg_gather_mesh)
FORMULA(allgather_formula, xchg_alg_allgather_mesh)
FORMULA(rscatter_formula, xchg_alg_reduce_scatter_mesh)
FORMULA(shift_formula, xchg_alg_shift_mesh)

/* Steps and tables: the halving's (ops.c), (C-1) + (R-1) steps with no
 * table, or the shift's steps with one table. */
static int ops_mesh_estimate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                             xchg_estimate *out)
{
    int down = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_SCATTER;
    int per_token = a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_GATHER;
    if (down || a->op == XCHG_OP_REDUCE || a->op == XCHG_OP_GATHER) {
        xchg_ops_halving_estimate(ROWS(t), COLS(t), down, per_token, out);
        return XCHG_OK;
    }
    if (a->op == XCHG_OP_SHIFT) {
        uint32_t q = opts->shift ? opts->shift : 1;
        xchg_est_steps(out, shift_steps(t, q));
        if (q % COLS(t) && ROWS(t) > 1)
            xchg_est_tables(out, 1, t->nodes, sizeof(uint32_t));
        return XCHG_OK;
    }
    xchg_est_steps(out, (uint64_t)ROWS(t) - 1 + COLS(t) - 1);
    return XCHG_OK;
}

#define ESTIMATE(fn, entry) XCHG_OPS_BIND(fn, entry, ops_mesh_estimate, xchg_estimate)

ESTIMATE(bcast_estimate, xchg_alg_bcast_mesh)
ESTIMATE(scatter_estimate, xchg_alg_scatter_mesh)
ESTIMATE(reduce_estimate, xchg_alg_reduce_mesh)
ESTIMATE(gather_estimate, xchg_alg_gather_mesh)
ESTIMATE(allgather_estimate, xchg_alg_allgather_mesh)
ESTIMATE(rscatter_estimate, xchg_alg_reduce_scatter_mesh)
ESTIMATE(shift_estimate, xchg_alg_shift_mesh)

#define APPLIES XCHG_OPS_APPLIES

APPLIES(bcast_applies, xchg_alg_bcast_mesh)
APPLIES(scatter_applies, xchg_alg_scatter_mesh)
APPLIES(reduce_applies, xchg_alg_reduce_mesh)
APPLIES(gather_applies, xchg_alg_gather_mesh)
APPLIES(shift_applies, xchg_alg_shift_mesh)

#define MESH_NEEDS {.kinds = XCHG_KIND(XCHG_TOPO_MESH) | XCHG_KIND(XCHG_TOPO_TORUS), .dims = 2}
#define ENTRY(var, nm, opk, summ, src, opts_text, prs, app, gen, form, est)                        \
    XCHG_OPS_ENTRY(var, nm, opk, summ, src, "two-dimensional mesh:RxC or torus:RxC", MESH_NEEDS,   \
                   MESH_FREE_ON, opts_text, prs, app, gen, form, est)

ENTRY(xchg_alg_bcast_mesh, "bcast-mesh", XCHG_OP_BCAST,
      "one-to-all broadcast: the ring broadcast along the root's row, then every column",
      "Broadcast and Reduction on a Mesh", XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse, bcast_applies,
      bcast_gen, bcast_formula, bcast_estimate);
ENTRY(xchg_alg_reduce_mesh, "reduce-mesh", XCHG_OP_REDUCE,
      "all-to-one reduction: every row to the root's column, then that column",
      "Broadcast and Reduction on a Mesh", XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse, reduce_applies,
      reduce_gen, reduce_formula, reduce_estimate);
ENTRY(xchg_alg_scatter_mesh, "scatter-mesh", XCHG_OP_SCATTER,
      "one-to-all personalized: halving along the root's row, then every column",
      "Scatter and Gather, eq. (3) on a 2-D mesh", XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse,
      scatter_applies, scatter_gen, scatter_formula, scatter_estimate);
ENTRY(xchg_alg_gather_mesh, "gather-mesh", XCHG_OP_GATHER,
      "all-to-one personalized: the mesh scatter reversed",
      "Scatter and Gather, eq. (3) on a 2-D mesh", XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse,
      gather_applies, gather_gen, gather_formula, gather_estimate);
ENTRY(xchg_alg_allgather_mesh, "allgather-mesh", XCHG_OP_ALLGATHER,
      "all-to-all broadcast: a ring allgather along the rows, then along the columns",
      "ALL_TO_ALL_BC_MESH, 2 t_s (sqrt(p)-1) + t_w m (p-1)", "", NULL, NULL, allgather_gen,
      allgather_formula, allgather_estimate);
ENTRY(xchg_alg_reduce_scatter_mesh, "reduce-scatter-mesh", XCHG_OP_REDUCE_SCATTER,
      "all-to-all reduction: a ring reduce-scatter along the rows, then the columns",
      "All-to-all Reduction (dual of ALL_TO_ALL_BC_MESH)", "", NULL, NULL, rscatter_gen,
      rscatter_formula, rscatter_estimate);
ENTRY(xchg_alg_shift_mesh, "shift-mesh", XCHG_OP_SHIFT,
      "circular q-shift: rows by q mod C, a compensation step, columns by q div C",
      "Circular Shift on a Mesh, (t_s + t_w m)(sqrt(p) + 1)", XCHG_OPS_OPTIONS_SHIFT,
      xchg_ops_parse, shift_applies, shift_gen, shift_formula, shift_estimate);
