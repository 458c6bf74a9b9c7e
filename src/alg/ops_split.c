/*
 * ops_split.c - seed 003's improved operations ("Improving the Speed of
 * Some Communication Operations"): the data of m bytes is split into p
 * blocks of m/p and the operation runs as two operations one after the
 * other, two phases of one schedule (xchg_sched_append):
 *   bcast-split      scatter from the root, then allgather:
 *                    2 (t_s log p + t_w (p-1) m/p) on a hypercube, eq. (10);
 *   reduce-split     reduce_scatter, then gather to the root: the same;
 *   allreduce-split  reduce_scatter, then allgather: the same ("the
 *                    intervening gather and scatter cancel each other").
 * The parts are the registry's algorithms for the topology: the ring ones
 * on a ring, a linear array, or a switch (complete:p) when p is not 2^d,
 * the mesh ones on a 2-D mesh or torus, the hypercube ones elsewhere when
 * p = 2^d ("<op>-ring", "<op>-mesh", "<op>-hc"); an entry applies where
 * both of its parts do. On a switch any p is then served (the MPI
 * executor maps a communicator without a grid to complete:p). It claims to be
 * contention-free on a hypercube, a switch, a ring and a linear array,
 * where its parts do; not on a mesh or torus, where a 3-D torus of 2^d
 * nodes would take the hypercube's parts, which are not. Counts: the sum
 * of the parts', in blocks of m/p (xchg_op.pieces = p). What phase 1 leaves
 * at node j (block j, complete) is what phase 2 starts with at origin j.
 * Only the reduce_scatter part combines, so reduce-split and
 * allreduce-split keep MPI's rank order where it does: always with the
 * hypercube's (low bit first), on a ring or array only for p <= 2, on a
 * 2-D mesh or torus only on 2 x 2
 * (docs/operations.md, tests/test_opprog.c).
 */
#include <stdio.h>
#include <string.h>

#include "alg/ops.h"

/* The two parts of entry a. */
static void split_parts(const xchg_alg *a, xchg_op_kind *first, xchg_op_kind *second)
{
    *first = a->op == XCHG_OP_BCAST ? XCHG_OP_SCATTER : XCHG_OP_REDUCE_SCATTER;
    *second = a->op == XCHG_OP_REDUCE ? XCHG_OP_GATHER : XCHG_OP_ALLGATHER;
}

/* The registry entry performing op on t: "<op>-ring", "-mesh" or "-hc";
 * NULL when there is none. */
static const xchg_alg *part_for(xchg_op_kind op, const xchg_topo *t)
{
    int pow2 = (t->nodes & (t->nodes - 1)) == 0;
    const char *family =
        t->kind == XCHG_TOPO_RING || t->kind == XCHG_TOPO_ARRAY ||
                (t->kind == XCHG_TOPO_COMPLETE && !pow2)
            ? "ring"
        : (t->kind == XCHG_TOPO_MESH || t->kind == XCHG_TOPO_TORUS) && t->ndims == 2 ? "mesh"
                                                                                     : "hc";
    char name[64];
    snprintf(name, sizeof name, "%s-%s", xchg_op_name(op), family);
    for (char *c = name; *c; c++)
        if (*c == '_')
            *c = '-';
    const xchg_alg *p = xchg_alg_find(name);
    if (!p && strcmp(family, "hc") != 0) { /* the hypercube's, where p = 2^d */
        snprintf(name, sizeof name, "%s-hc", xchg_op_name(op));
        for (char *c = name; *c; c++)
            if (*c == '_')
                *c = '-';
        p = xchg_alg_find(name);
    }
    return p && p->op == op ? p : NULL;
}

/* Both parts of a on t with opts, or ENOTAPPLIC saying which does not
 * apply. */
static int split_find(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                      const xchg_alg **pa, const xchg_alg **pb, xchg_err *err)
{
    xchg_op_kind ka, kb;
    split_parts(a, &ka, &kb);
    int rc = xchg_ops_check(a, t, opts, err);
    if (rc)
        return rc;
    *pa = part_for(ka, t);
    *pb = part_for(kb, t);
    for (int k = 0; k < 2; k++) {
        const xchg_alg *part = k ? *pb : *pa;
        xchg_err why = {{0}};
        char spec[64];
        if (!part)
            return xchg_fail(err, XCHG_ENOTAPPLIC,
                             "%s: no %s algorithm for %s; accepted: a ring, a linear array, a "
                             "switch, a 2-D mesh or torus, or p = 2^d nodes",
                             a->name, xchg_op_name(k ? kb : ka),
                             xchg_topo_spec(t, spec, sizeof spec));
        if (xchg_alg_applies(part, t, opts, &why) != XCHG_OK)
            return xchg_fail(err, XCHG_ENOTAPPLIC, "%s: its %s part does not apply: %s", a->name,
                             part->name, why.msg);
    }
    return XCHG_OK;
}

static int split_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                          xchg_sched **out, xchg_err *err)
{
    const xchg_alg *pa, *pb;
    int rc = split_find(a, t, opts, &pa, &pb, err);
    xchg_sched *sa = NULL, *sb = NULL;
    if (rc == XCHG_OK)
        rc = pa->generate(t, opts, &sa, err);
    if (rc == XCHG_OK)
        rc = pb->generate(t, opts, &sb, err);
    if (rc != XCHG_OK) {
        xchg_sched_free(sa);
        return rc;
    }
    xchg_op second = sb->op;
    rc = xchg_sched_append(sa, sb, &second);
    if (rc != XCHG_OK) {
        xchg_sched_free(sa);
        return xchg_fail(err, rc, "%s: cannot join its parts %s and %s", a->name, pa->name,
                         pb->name);
    }
    xchg_op op = xchg_ops_op(a, opts);
    op.pieces = t->nodes;
    sa->op = op;
    if (opts->args[0])
        snprintf(sa->algorithm, sizeof sa->algorithm, "%.40s:%.50s", a->name, opts->args);
    else
        snprintf(sa->algorithm, sizeof sa->algorithm, "%s", a->name);
    sa->contention_free =
        xchg_alg_claims_free(a, t) && xchg_alg_claims_free(pa, t) && xchg_alg_claims_free(pb, t);
    *out = sa;
    return XCHG_OK;
}

static int split_formula(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                         xchg_counts *out)
{
    const xchg_alg *pa, *pb;
    xchg_counts ca, cb;
    if (split_find(a, t, opts, &pa, &pb, NULL) != XCHG_OK || !pa->formula || !pb->formula ||
        pa->formula(t, opts, &ca) != XCHG_OK || pb->formula(t, opts, &cb) != XCHG_OK)
        return XCHG_ENOTAPPLIC;
    out->startups = ca.startups + cb.startups;
    out->volume_blocks = ca.volume_blocks + cb.volume_blocks;
    out->copy_blocks = ca.copy_blocks + cb.copy_blocks;
    return XCHG_OK;
}

static int split_estimate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                          xchg_estimate *out)
{
    const xchg_alg *pa, *pb;
    xchg_estimate ea, eb;
    memset(out, 0, sizeof *out);
    if (split_find(a, t, opts, &pa, &pb, NULL) != XCHG_OK ||
        pa->estimate(t, opts, &ea) != XCHG_OK || pb->estimate(t, opts, &eb) != XCHG_OK)
        return XCHG_OK;
    /* the joined schedule holds one step array, grown to hold both parts'
     * steps (xchg_sched_append), not one per part */
    uint64_t sz = sizeof(xchg_step);
    uint64_t parts = xchg_est_prod(
        xchg_est_sum(xchg_sched_step_capacity(ea.steps), xchg_sched_step_capacity(eb.steps)), sz);
    uint64_t joined = xchg_est_prod(xchg_sched_step_capacity(ea.steps + eb.steps), sz);
    out->steps = ea.steps + eb.steps;
    uint64_t both = xchg_est_sum(ea.bytes, eb.bytes);
    out->bytes = xchg_est_sum(both > parts ? both - parts : 0, joined);
    out->work = ea.work + eb.work;
    return XCHG_OK;
}

#define SPLIT_ENTRY(var, nm, opk, summ, opts_text, prs)                                            \
    static int var##_applies(const xchg_topo *t, const xchg_opts *o, xchg_err *err)                \
    {                                                                                              \
        const xchg_alg *pa, *pb;                                                                   \
        return split_find(&var, t, o, &pa, &pb, err);                                              \
    }                                                                                              \
    static int var##_generate(const xchg_topo *t, const xchg_opts *o, xchg_sched **out,            \
                              xchg_err *err)                                                       \
    {                                                                                              \
        return split_generate(&var, t, o, out, err);                                               \
    }                                                                                              \
    static int var##_formula(const xchg_topo *t, const xchg_opts *o, xchg_counts *out)             \
    {                                                                                              \
        return split_formula(&var, t, o, out);                                                     \
    }                                                                                              \
    static int var##_estimate(const xchg_topo *t, const xchg_opts *o, xchg_estimate *out)          \
    {                                                                                              \
        return split_estimate(&var, t, o, out);                                                    \
    }                                                                                              \
    const xchg_alg var = {                                                                         \
        .name = nm,                                                                                \
        .op = opk,                                                                                 \
        .summary = summ,                                                                           \
        .source = XCHG_OPS_SOURCE ", Improving the Speed of Some Communication "                   \
                                  "Operations, eq. (10)",                                          \
        .topologies = "where both parts apply: ring, linear array, switch (complete:P, any P), "    \
                      "2-D mesh or torus, or p = 2^D nodes",                                       \
        .options = opts_text,                                                                      \
        .free_on = XCHG_KIND(XCHG_TOPO_HYPERCUBE) | XCHG_KIND(XCHG_TOPO_COMPLETE) |                \
                   XCHG_KIND(XCHG_TOPO_RING) | XCHG_KIND(XCHG_TOPO_ARRAY),                         \
        .parse = prs,                                                                              \
        .applies = var##_applies,                                                                  \
        .generate = var##_generate,                                                                \
        .formula = var##_formula,                                                                  \
        .estimate = var##_estimate,                                                                \
    }

SPLIT_ENTRY(xchg_alg_bcast_split, "bcast-split", XCHG_OP_BCAST,
            "broadcast of m as p blocks of m/p: scatter, then allgather", XCHG_OPS_OPTIONS_ROOTED,
            xchg_ops_parse);
SPLIT_ENTRY(xchg_alg_reduce_split, "reduce-split", XCHG_OP_REDUCE,
            "reduction of m as p blocks of m/p: reduce_scatter, then gather",
            XCHG_OPS_OPTIONS_ROOTED, xchg_ops_parse);
SPLIT_ENTRY(xchg_alg_allreduce_split, "allreduce-split", XCHG_OP_ALLREDUCE,
            "all-reduce of m as p blocks of m/p: reduce_scatter, then allgather", "", NULL);
