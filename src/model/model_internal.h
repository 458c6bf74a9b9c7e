/*
 * model_internal.h - what the model's files share beyond xchg_model.h:
 * the planner's candidates for clusters (nodes of ppn ranks), made in
 * hier.c and ranked by planner.c, and cost.c's check of a machine.
 */
#ifndef XCHG_MODEL_INTERNAL_H
#define XCHG_MODEL_INTERNAL_H

#include "base/util.h"
#include "xchg_model.h"

/*
 * The candidates with o->ppn > 1 ranks a node on the network `nodes`:
 * the flat algorithms on complete:p (p = nodes*ppn), costed hosted ppn a
 * node (xchg_flat_line), then leader:X, leaders:L:X (every L dividing ppn)
 * and pairs:X for every candidate X of inner (the planner's candidates on
 * nodes, ninner of them), costed by xchg_hier_line, then aggregate
 * (xchg_aggregate_line); with o->verify, each composition is verified
 * block by block within o->max_work. *out is a new
 * array of *nout entries (the caller frees it). Returns 0; EINVAL when p
 * is over XCHG_MAX_NODES; ENOMEM.
 */
XCHG_INTERNAL int xchg_ppn_candidates(const xchg_topo *nodes, const xchg_machine *mach,
                                      const xchg_plan_opts *o, const xchg_plan_entry *inner,
                                      size_t ninner, xchg_plan_entry **out, size_t *nout,
                                      xchg_err *err);

/* cost.c: 0 when every figure of mach (ts, tw, tr, barrier, ts_node,
 * tw_node) is a finite number >= 0, else EINVAL naming them. */
XCHG_INTERNAL int xchg_model_check_machine(const xchg_machine *mach, xchg_err *err);

#endif /* XCHG_MODEL_INTERNAL_H */
