/*
 * mesh2.c - complete exchange on a two-dimensional mesh or torus: `mesh2`.
 *
 * Grama et al., Introduction to Parallel Computing, section 4.5.2 (Figure
 * 4.19, eq. 4.8): run the ring algorithm
 * in every row, with each message a cluster of the blocks bound for one
 * column, then, after a local regrouping, run it in every column.
 *   phase 1 (along rows, dimension 1), B-1 steps: step k sends to the +1
 *   neighbour in the row every held block whose destination column is not
 *   the sender's column; it carries A*(B-k) blocks;
 *   rearrangement: before phase 2 a node regroups its p blocks by
 *   destination row (Grama et al.: "t_r m p" in all), copy_blocks = p on the
 *   first step of phase 2;
 *   phase 2 (along columns, dimension 0), A-1 steps: step k sends to the +1
 *   neighbour in the column every held block whose destination row is not
 *   the sender's row; it carries B*(A-k) blocks.
 * A = size[0] (rows), B = size[1] (columns), p = A*B.
 *   Preconditions: mesh:AxB or torus:AxB (two dimensions).
 *   Route: +1 along the phase's dimension (XCHG_ROUTE_PLUS). On a mesh the
 *   wrap message from the last column (row) to the first goes back over the
 *   -1 links, which no other message of the step uses: contention-free on
 *   both mesh and torus.
 *   Cost: start-ups (A-1)+(B-1) = A+B-2;
 *   volume A*B(B-1)/2 + B*A(A-1)/2 = p(A+B-2)/2 blocks; copies p.
 *   For a square mesh (A = B = sqrt p) this is Grama et al.'s eq. 4.8 and
 *   eq. 5 of Grama et al. (slides): (2 t_s + t_w m p)(sqrt p - 1).
 */
#include "alg_common.h"

/* Steps of mesh2 on an A x B mesh or torus: B-1 along the rows, then A-1
 * along the columns (sizes >= 2). */
static uint64_t mesh2_nsteps(const xchg_topo *t)
{
    return (uint64_t)(t->size[1] - 1) + (t->size[0] - 1);
}

/* Rows phase then columns phase, as described above. */
static int mesh2_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                          xchg_err *err)
{
    (void)opts;
    int rc;
    xchg_sched *s = xchg_sched_new(t, "mesh2", xchg_alg_claims_free(&xchg_alg_mesh2, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint64_t a = t->size[0], b = t->size[1];
    for (uint64_t k = 1; k < b; k++) {
        xchg_step st = xchg_step_shift(1, 1, xchg_rule_coord_ne(1), a * (b - k));
        st.route_policy = XCHG_ROUTE_PLUS;
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    for (uint64_t k = 1; k < a; k++) {
        xchg_step st = xchg_step_shift(0, 1, xchg_rule_coord_ne(0), b * (a - k));
        st.route_policy = XCHG_ROUTE_PLUS;
        if (k == 1)
            st.copy_blocks = a * b;
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* Steps only (shifts, no tables, no ctx). O(1). */
static int mesh2_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    xchg_est_steps(out, mesh2_nsteps(t));
    return XCHG_OK;
}

/* Start-ups A+B-2, volume p(A+B-2)/2 (Grama et al. eq. 4.8 for A = B),
 * copies p. */
static int mesh2_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    if (t->ndims != 2)
        return XCHG_ENOTAPPLIC;
    uint64_t a = t->size[0], b = t->size[1], p = a * b;
    out->startups = a + b - 2;
    out->volume_blocks = p * (a + b - 2) / 2;
    out->copy_blocks = p; /* the regrouping before phase 2 */
    return XCHG_OK;
}

const xchg_alg xchg_alg_mesh2 = {
    .name = "mesh2",
    .summary = "ring exchange along every row, regroup, then along every column",
    .source = "Grama et al., Introduction to Parallel Computing, section 4.5.2, Figure 4.19, "
              "eq. 4.8; Grama et al. (slides) eq. 5",
    .topologies = "two-dimensional mesh:AxB or torus:AxB",
    .options = "",
    .needs = {.kinds = XCHG_KIND(XCHG_TOPO_MESH) | XCHG_KIND(XCHG_TOPO_TORUS), .dims = 2},
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1,
    .symmetry = XCHG_SYM_TRANSLATE,
    .parse = NULL,
    .applies = NULL,
    .generate = mesh2_generate,
    .formula = mesh2_formula,
    .variants = NULL,
    .estimate = mesh2_estimate,
};
