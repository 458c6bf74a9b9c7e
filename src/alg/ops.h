/*
 * ops.h - what the algorithms of the operations other than the complete
 * exchange share (ops_*.c; docs/operations.md): their options (root=R,
 * q=Q), their applies check, a new schedule that records its operation, and
 * a step whose partners are a table.
 */
#ifndef XCHG_OPS_H
#define XCHG_OPS_H

#include "alg/alg_common.h"

/* The options text every operation's algorithm takes. */
#define XCHG_OPS_OPTIONS_ROOTED "root=R: the root node (default 0)"
#define XCHG_OPS_OPTIONS_SHIFT "q=Q: the shift, 1 <= Q < p (default 1)"

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

/* A zeroed step whose partners are part (p entries, XCHG_NONE idle; taken
 * over), with rule and uniform size blocks. */
XCHG_INTERNAL xchg_step xchg_ops_table_step(uint32_t *part, xchg_rule rule, uint64_t blocks);

#endif /* XCHG_OPS_H */
