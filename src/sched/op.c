/*
 * op.c - the collective operations a schedule can perform (xchg_op_*,
 * xchg_sched_op; docs/operations.md): their names, which tokens each has,
 * and how the tokens of one message make blocks; a schedule's phases
 * (xchg_sched_append joins two schedules into one of two operations). The
 * verifier (src/check/verify_op.c) and every other consumer read them from
 * here.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

static const char *const op_names[XCHG_OP_COUNT] = {
    "alltoall",  "bcast", "reduce",  "allgather", "reduce_scatter",
    "allreduce", "scan",  "scatter", "gather",    "shift"};
#define OP_NAME_LIST                                                                               \
    "alltoall, bcast, reduce, allgather, reduce_scatter, allreduce, scan, scatter, "               \
    "gather, shift"

const char *xchg_op_name(xchg_op_kind kind)
{
    return (unsigned)kind < XCHG_OP_COUNT ? op_names[kind] : "?";
}

int xchg_op_parse(const char *name, xchg_op_kind *out, xchg_err *err)
{
    for (int k = 0; name && k < XCHG_OP_COUNT; k++)
        if (strcmp(name, op_names[k]) == 0) {
            *out = (xchg_op_kind)k;
            return XCHG_OK;
        }
    return xchg_fail(err, XCHG_EINVAL, "unknown operation '%s'; accepted: " OP_NAME_LIST,
                     name ? name : "");
}

xchg_op_sizing xchg_op_sizing_of(xchg_op_kind kind)
{
    switch (kind) {
    case XCHG_OP_BCAST:
    case XCHG_OP_ALLGATHER:
        return XCHG_SIZE_ORIGINS;
    case XCHG_OP_REDUCE:
    case XCHG_OP_REDUCE_SCATTER:
        return XCHG_SIZE_DESTS;
    case XCHG_OP_ALLREDUCE:
    case XCHG_OP_SCAN:
        return XCHG_SIZE_SETS;
    default:
        return XCHG_SIZE_TOKENS;
    }
}

int xchg_op_has_token(const xchg_op *op, uint32_t p, uint32_t origin, uint32_t dest)
{
    if (origin >= p || dest >= p)
        return 0;
    switch (op->kind) {
    case XCHG_OP_BCAST:
    case XCHG_OP_SCATTER:
        return origin == op->root;
    case XCHG_OP_REDUCE:
    case XCHG_OP_GATHER:
        return dest == op->root;
    case XCHG_OP_SCAN:
        return origin <= dest;
    case XCHG_OP_SHIFT:
        return dest == (uint32_t)(((uint64_t)origin + op->shift) % p);
    default:
        return 1;
    }
}

int xchg_op_check(const xchg_op *op, uint32_t p, xchg_err *err)
{
    if ((unsigned)op->kind >= XCHG_OP_COUNT)
        return xchg_fail(err, XCHG_EINVAL, "unknown operation %d; accepted: " OP_NAME_LIST,
                         (int)op->kind);
    int rooted = op->kind == XCHG_OP_BCAST || op->kind == XCHG_OP_REDUCE ||
                 op->kind == XCHG_OP_SCATTER || op->kind == XCHG_OP_GATHER;
    if (rooted && op->root >= p)
        return xchg_fail(err, XCHG_EINVAL, "%s: root %u is not a node; accepted: 0 to %u",
                         op_names[op->kind], op->root, p - 1);
    if (op->kind == XCHG_OP_SHIFT && (op->shift == 0 || op->shift >= p))
        return xchg_fail(err, XCHG_EINVAL, "shift: q = %u; accepted: 1 to %u (p - 1)", op->shift,
                         p - 1);
    return XCHG_OK;
}

void xchg_sched_op(const xchg_sched *s, xchg_op *out)
{
    *out = s->op;
}

double xchg_op_block_bytes(const xchg_op *op, double m)
{
    return op->pieces > 1 ? m / op->pieces : m;
}

size_t xchg_sched_nphases(const xchg_sched *s)
{
    return s->nphases ? s->nphases : 1;
}

void xchg_sched_phase(const xchg_sched *s, size_t k, xchg_op *op, size_t *first, size_t *end)
{
    if (k >= xchg_sched_nphases(s))
        return;
    if (s->nphases == 0) {
        *op = s->op;
        *first = 0;
        *end = s->nsteps;
        return;
    }
    *op = s->phases[k].op;
    *first = s->phases[k].first;
    *end = k + 1 < s->nphases ? s->phases[k + 1].first : s->nsteps;
}

int xchg_sched_append(xchg_sched *dst, xchg_sched *src, const xchg_op *phase_op)
{
    size_t need = (dst->nphases ? dst->nphases : 1) + 1;
    int bad = (dst->ctx && src->ctx) || need > XCHG_MAX_PHASES ||
              dst->topo.nodes != src->topo.nodes || dst->topo.kind != src->topo.kind;
    if (!bad && dst->nsteps + src->nsteps > dst->cap) {
        size_t cap = xchg_sched_step_capacity(dst->nsteps + src->nsteps);
        xchg_step *grown = realloc(dst->steps, cap * sizeof *grown);
        if (!grown) {
            xchg_sched_free(src);
            return XCHG_ENOMEM;
        }
        dst->steps = grown;
        dst->cap = cap;
    }
    if (bad) {
        xchg_sched_free(src);
        return XCHG_EINVAL;
    }
    if (dst->nphases == 0) {
        dst->phases[0].op = dst->op;
        dst->phases[0].first = 0;
        dst->nphases = 1;
    }
    dst->phases[dst->nphases].op = *phase_op;
    dst->phases[dst->nphases].first = dst->nsteps;
    dst->nphases++;
    if (src->nsteps) /* a part of no steps (one node) may have no array at all */
        memcpy(dst->steps + dst->nsteps, src->steps, src->nsteps * sizeof *src->steps);
    dst->nsteps += src->nsteps;
    src->nsteps = 0; /* the tables are dst's now */
    if (dst->group_fn != src->group_fn) /* one callback reads every step's group_arg */
        dst->group_fn = NULL;
    if (src->ctx) {
        dst->ctx = src->ctx;
        dst->ctx_free = src->ctx_free;
        dst->ctx_bytes = src->ctx_bytes;
        src->ctx = NULL;
        src->ctx_free = NULL;
    }
    xchg_sched_free(src);
    return XCHG_OK;
}
