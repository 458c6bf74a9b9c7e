/*
 * sched_internal.h - the schedule's inside, for generators and for the
 * modules that read schedules fast (verifier, cost, export).
 *
 * A step holds one partner rule and one block rule for every node:
 *   partner: who node i sends to (XOR a mask, shift along a dimension or
 *            along ids, or a per-node table);
 *   block rule: which of the blocks node i holds go into the message
 *            (a small closed set of kinds evaluated inline, plus a callback
 *            for anything else);
 *   declared size: how many blocks each message carries, uniform or per
 *            node. The verifier checks it against what the rule selects, and
 *            the cost model reads it without following any block.
 * Nothing here grows with p*p.
 */
#ifndef XCHG_SCHED_INTERNAL_H
#define XCHG_SCHED_INTERNAL_H

#include "xchg.h"

/* Hide internal symbols from the shared library. */
#if defined(__GNUC__)
#define XCHG_INTERNAL __attribute__((visibility("hidden")))
#else
#define XCHG_INTERNAL
#endif

typedef enum xchg_partner_kind {
    XCHG_PARTNER_XOR,    /* to = node ^ xor_mask                          */
    XCHG_PARTNER_SHIFT,  /* to = node moved by shift along shift_dim, with
                            wrap-around (shift_dim = -1: along ids mod p) */
    XCHG_PARTNER_TABLE   /* to = partner_table[node] (XCHG_NONE idle)     */
} xchg_partner_kind;

typedef enum xchg_rule_kind {
    XCHG_RULE_DEST_IS_TO,     /* dest == to                                  */
    XCHG_RULE_DEST_MASK_TO,   /* ((dest ^ to) & mask) == 0                   */
    XCHG_RULE_COORD_NE,       /* coord(dest, dim) != coord(node, dim)        */
    XCHG_RULE_COORD_DIST,     /* distance from coord(node,dim) to
                                 coord(dest,dim) going dir, mod size, in
                                 [lo, hi]                                    */
    XCHG_RULE_COORD_SIDE,     /* dir > 0: coord(dest,dim) > coord(node,dim);
                                 dir < 0: coord(dest,dim) < coord(node,dim)  */
    XCHG_RULE_REL_DIGIT,      /* ((dest - origin) mod p / weight) % radix
                                 == digit                                    */
    XCHG_RULE_FN              /* fn(ctx, step, node, origin, dest)           */
} xchg_rule_kind;

typedef int (*xchg_rule_callback)(const void *ctx, size_t step, uint32_t node,
                            uint32_t origin, uint32_t dest);

typedef struct xchg_rule {
    xchg_rule_kind kind;
    uint32_t mask;            /* DEST_MASK_TO */
    int dim;                  /* COORD_* */
    int dir;                  /* COORD_DIST, COORD_SIDE: +1 or -1 */
    uint32_t lo, hi;          /* COORD_DIST */
    uint32_t radix, weight, digit; /* REL_DIGIT */
    xchg_rule_callback fn;    /* FN; ctx is the schedule's ctx */
} xchg_rule;

typedef struct xchg_step {
    xchg_partner_kind partner;
    uint32_t xor_mask;        /* XOR */
    int shift_dim;            /* SHIFT: dimension, or -1 for ids mod p */
    int64_t shift;            /* SHIFT: signed distance */
    uint32_t *partner_table;  /* TABLE: owned, p entries */
    xchg_rule rule;
    uint64_t blocks;          /* declared size of every message when
                                 blocks_table is NULL */
    uint32_t *blocks_table;   /* owned, p entries, or NULL */
    uint64_t max_blocks;      /* largest declared message (derived) */
    int route_policy;         /* XCHG_ROUTE_* */
    uint64_t copy_blocks;     /* local copies per node before the step */
} xchg_step;

struct xchg_sched {
    xchg_topo topo;
    char algorithm[96];
    int contention_free;
    size_t nsteps, cap;
    xchg_step *steps;
    void *ctx;                /* for XCHG_RULE_FN rules; owned when ctx_free */
    void (*ctx_free)(void *);
};

/* --- building (generators) ---------------------------------------- */

/* New empty schedule on t; NULL when out of memory. */
XCHG_INTERNAL xchg_sched *xchg_sched_new(const xchg_topo *t, const char *algorithm,
                                         int contention_free);

/*
 * Append a step (copied; tables are taken over and freed with the
 * schedule, also on failure). Computes max_blocks. Returns 0 or ENOMEM.
 */
XCHG_INTERNAL int xchg_sched_add(xchg_sched *s, const xchg_step *step);

/* A zeroed step with partner XOR / SHIFT and the given rule, uniform size. */
XCHG_INTERNAL xchg_step xchg_step_xor(uint32_t mask, xchg_rule rule, uint64_t blocks);
XCHG_INTERNAL xchg_step xchg_step_shift(int dim, int64_t shift, xchg_rule rule,
                                        uint64_t blocks);

/* Rule constructors. */
XCHG_INTERNAL xchg_rule xchg_rule_dest_is_to(void);
XCHG_INTERNAL xchg_rule xchg_rule_dest_mask_to(uint32_t mask);
XCHG_INTERNAL xchg_rule xchg_rule_coord_ne(int dim);
XCHG_INTERNAL xchg_rule xchg_rule_coord_dist(int dim, int dir, uint32_t lo, uint32_t hi);
XCHG_INTERNAL xchg_rule xchg_rule_coord_side(int dim, int dir);
XCHG_INTERNAL xchg_rule xchg_rule_rel_digit(uint32_t radix, uint32_t weight, uint32_t digit);
XCHG_INTERNAL xchg_rule xchg_rule_fn(xchg_rule_callback fn);

/* Message-level helpers for the readers; also behind the public calls. */

/* Partner of node at a step, XCHG_NONE when idle. */
static inline uint32_t xchg_step_partner(const xchg_topo *t, const xchg_step *st,
                                         uint32_t node)
{
    switch (st->partner) {
    case XCHG_PARTNER_XOR:
        return node ^ st->xor_mask;
    case XCHG_PARTNER_SHIFT: {
        if (st->shift_dim < 0) {
            int64_t p = t->nodes;
            int64_t v = ((int64_t)node + st->shift) % p;
            return (uint32_t)(v < 0 ? v + p : v);
        }
        int64_t n = t->size[st->shift_dim];
        uint32_t stride = t->stride[st->shift_dim];
        int64_t c = (node / stride) % n;
        int64_t nc = (c + st->shift) % n;
        if (nc < 0) nc += n;
        return (uint32_t)(node + (nc - c) * (int64_t)stride);
    }
    case XCHG_PARTNER_TABLE:
        return st->partner_table[node];
    }
    return XCHG_NONE;
}

/* Declared size of node's message at a step. */
static inline uint64_t xchg_step_blocks(const xchg_step *st, uint32_t node)
{
    return st->blocks_table ? st->blocks_table[node] : st->blocks;
}

/* Coordinate along dim (same as xchg_topo_coord, inline for the hot loop). */
static inline uint32_t xchg_coord(const xchg_topo *t, uint32_t id, int dim)
{
    return (id / t->stride[dim]) % t->size[dim];
}

/* Nonzero when node, sending to `to` at step index stepno, sends block
 * (origin, dest) it holds. */
static inline int xchg_rule_eval(const xchg_sched *s, const xchg_rule *r, size_t stepno,
                                 uint32_t node, uint32_t to, uint32_t origin,
                                 uint32_t dest)
{
    const xchg_topo *t = &s->topo;
    switch (r->kind) {
    case XCHG_RULE_DEST_IS_TO:
        return dest == to;
    case XCHG_RULE_DEST_MASK_TO:
        return ((dest ^ to) & r->mask) == 0;
    case XCHG_RULE_COORD_NE:
        return xchg_coord(t, dest, r->dim) != xchg_coord(t, node, r->dim);
    case XCHG_RULE_COORD_DIST: {
        uint32_t n = t->size[r->dim];
        uint32_t a = xchg_coord(t, node, r->dim), b = xchg_coord(t, dest, r->dim);
        uint32_t d = r->dir > 0 ? (b + n - a) % n : (a + n - b) % n;
        return d >= r->lo && d <= r->hi;
    }
    case XCHG_RULE_COORD_SIDE: {
        uint32_t a = xchg_coord(t, node, r->dim), b = xchg_coord(t, dest, r->dim);
        return r->dir > 0 ? b > a : b < a;
    }
    case XCHG_RULE_REL_DIGIT: {
        uint32_t rel = (dest + t->nodes - origin) % t->nodes;
        return (rel / r->weight) % r->radix == r->digit;
    }
    case XCHG_RULE_FN:
        return r->fn(s->ctx, stepno, node, origin, dest);
    }
    return 0;
}

#endif /* XCHG_SCHED_INTERNAL_H */
