/*
 * alg_common.h - what the algorithm families share: the registry entries
 * each family file defines (listed once, in src/alg/registry.c), and small
 * helpers for preconditions, option parsing and step building.
 */
#ifndef XCHG_ALG_COMMON_H
#define XCHG_ALG_COMMON_H

#include <stdio.h>
#include <string.h>

#include "sched/sched_internal.h"

/* The registry entries, one per algorithm; src/alg/registry.c lists them. */
XCHG_INTERNAL extern const xchg_alg xchg_alg_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_ring_bidir;
XCHG_INTERNAL extern const xchg_alg xchg_alg_mesh2;
XCHG_INTERNAL extern const xchg_alg xchg_alg_hc_standard;
XCHG_INTERNAL extern const xchg_alg xchg_alg_hc_direct;
XCHG_INTERNAL extern const xchg_alg xchg_alg_multiphase;
XCHG_INTERNAL extern const xchg_alg xchg_alg_bruck;
XCHG_INTERNAL extern const xchg_alg xchg_alg_pairwise;
XCHG_INTERNAL extern const xchg_alg xchg_alg_t1;
XCHG_INTERNAL extern const xchg_alg xchg_alg_t2;
XCHG_INTERNAL extern const xchg_alg xchg_alg_t1x;
XCHG_INTERNAL extern const xchg_alg xchg_alg_ar1;
XCHG_INTERNAL extern const xchg_alg xchg_alg_at2;
XCHG_INTERNAL extern const xchg_alg xchg_alg_pt4;
XCHG_INTERNAL extern const xchg_alg xchg_alg_ptk;
XCHG_INTERNAL extern const xchg_alg xchg_alg_mt3;
XCHG_INTERNAL extern const xchg_alg xchg_alg_mtk;
/* The other operations (docs/operations.md) */
XCHG_INTERNAL extern const xchg_alg xchg_alg_bcast_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_bcast_tree;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_tree;
XCHG_INTERNAL extern const xchg_alg xchg_alg_scatter_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_gather_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_allgather_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_scatter_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_allreduce_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_scan_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_shift_hc;
XCHG_INTERNAL extern const xchg_alg xchg_alg_shift_hc_ecube;
XCHG_INTERNAL extern const xchg_alg xchg_alg_bcast_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_scatter_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_gather_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_allgather_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_scatter_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_shift_ring;
XCHG_INTERNAL extern const xchg_alg xchg_alg_bcast_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_scatter_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_gather_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_allgather_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_scatter_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_shift_mesh;
XCHG_INTERNAL extern const xchg_alg xchg_alg_bcast_split;
XCHG_INTERNAL extern const xchg_alg xchg_alg_reduce_split;
XCHG_INTERNAL extern const xchg_alg xchg_alg_allreduce_split;

/* Nonzero when p is a power of two (1 counts: 2^0). */
static inline int xchg_alg_is_pow2(uint32_t p)
{
    return p != 0 && (p & (p - 1)) == 0;
}

/* log2 of a power of two. */
static inline int xchg_alg_log2(uint32_t p)
{
    int d = 0;
    while ((1u << d) < p)
        d++;
    return d;
}

/*
 * Append st to s. On failure frees s (and the step's tables, which
 * xchg_sched_add takes over) and returns ENOMEM with a message.
 */
static inline int xchg_alg_add(xchg_sched *s, const xchg_step *st, xchg_err *err)
{
    if (xchg_sched_add(s, st) != XCHG_OK) {
        xchg_sched_free(s);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    return XCHG_OK;
}

/*
 * Options of the families that run on any size through virtual nodes:
 * "" (the paper's sizes) or "virtual" (sets opts->virtual_nodes).
 */
static inline int xchg_alg_parse_virtual(const char *args, xchg_opts *opts, xchg_err *err)
{
    if (strcmp(args, "virtual") == 0) {
        opts->virtual_nodes = 1;
        return XCHG_OK;
    }
    if (args[0] == '\0')
        return XCHG_OK;
    return xchg_fail(err, XCHG_EINVAL,
                     "unknown option '%s'; accepted: none (paper sizes) or 'virtual' (any "
                     "size, hosted on virtual nodes)",
                     args);
}

#endif /* XCHG_ALG_COMMON_H */
