/*
 * ops.c - helpers of the operations' algorithms (ops.h): options, the
 * parameter check and a schedule that records its operation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg/ops.h"

int xchg_ops_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    opts->shift = 1;
    if (args[0] == '\0')
        return XCHG_OK;
    uint64_t v;
    if (strncmp(args, "root=", 5) == 0 && xchg_parse_u64(args + 5, 0, UINT32_MAX - 1, &v) == 0) {
        opts->root = (uint32_t)v;
        return XCHG_OK;
    }
    if (strncmp(args, "q=", 2) == 0 && xchg_parse_u64(args + 2, 1, UINT32_MAX - 1, &v) == 0) {
        opts->shift = (uint32_t)v;
        return XCHG_OK;
    }
    return xchg_fail(err, XCHG_EINVAL,
                     "unknown option '%s'; accepted: root=R (a node, for bcast, reduce, "
                     "scatter and gather) or q=Q (the shift, 1 <= Q < p)",
                     args);
}

xchg_op xchg_ops_op(const xchg_alg *a, const xchg_opts *opts)
{
    xchg_op op = {a->op, 0, 0, 0};
    int rooted = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_REDUCE ||
                 a->op == XCHG_OP_SCATTER || a->op == XCHG_OP_GATHER;
    if (rooted)
        op.root = opts->root;
    if (a->op == XCHG_OP_SHIFT)
        op.shift = opts->shift ? opts->shift : 1;
    return op;
}

int xchg_ops_check(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, xchg_err *err)
{
    xchg_op op = xchg_ops_op(a, opts);
    xchg_err why = {{0}};
    if (xchg_op_check(&op, t->nodes, &why) == XCHG_OK)
        return XCHG_OK;
    return xchg_fail(err, XCHG_EINVAL, "%s: %s", a->name, why.msg);
}

xchg_sched *xchg_ops_new(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts)
{
    char spec[96];
    xchg_op op = xchg_ops_op(a, opts);
    if (opts->args[0])
        snprintf(spec, sizeof spec, "%.40s:%.50s", a->name, opts->args);
    else
        snprintf(spec, sizeof spec, "%s", a->name);
    xchg_sched *s = xchg_sched_new(t, spec, xchg_alg_claims_free(a, t));
    if (s)
        s->op = op;
    return s;
}

xchg_step xchg_ops_table_step(uint32_t *part, xchg_rule rule, uint64_t blocks)
{
    xchg_step st = xchg_step_xor(1, rule, blocks);
    st.partner = XCHG_PARTNER_TABLE;
    st.xor_mask = 0;
    st.partner_table = part;
    return st;
}
