/*
 * sched_internal.h - the schedule's inside, for generators and for the
 * modules that read schedules fast (the block follower in follow.h, which
 * the verifier, the exporter and virtual-node hosting use; the cost model).
 *
 * A step holds one partner rule and one block rule for every node:
 *   partner: who node i sends to (XOR a mask, shift along a dimension or
 *            along ids, one shift for the even nodes and another for the
 *            odd ones, or a per-node table);
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

#include "base/util.h"

typedef enum xchg_partner_kind {
    XCHG_PARTNER_XOR,    /* to = node ^ xor_mask                          */
    XCHG_PARTNER_SHIFT,  /* to = node moved by shift along shift_dim, with
                            wrap-around (shift_dim = -1: along ids mod p) */
    XCHG_PARTNER_TABLE,  /* to = partner_table[node] (XCHG_NONE idle)     */
    XCHG_PARTNER_PARITY  /* SHIFT by shift when node's coordinate along
                            shift_dim (its id when -1) is even, by
                            shift_odd when odd: two shifts in one step
                            without a table (Liu et al.'s AR1: even nodes
                            pass one way, odd nodes the other) */
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
    XCHG_RULE_FN,             /* fn(ctx, step, node, origin, dest)           */
    XCHG_RULE_REL_LINEAR,     /* w = dest ^ node, c = class_table[node] (0
                                 without a table): parity(w & lpmask[c]) ==
                                 lpval[c] and (w & lemask[c]) == leval[c].
                                 Linear tests on the destination relative to
                                 the holder (node ids as bit vectors), as the
                                 halving/concentration steps of Suh et al. use */
    XCHG_RULE_CLASS_DIST      /* c = class_table[node] (0 without a table),
                                 q = cdist[c]: with L(id) = (coord(id, q.dim)
                                 / q.div) % q.mod, the distance from L(node)
                                 to L(dest) going q.dir, mod q.mod, is in
                                 [q.lo, q.hi], and the distance from
                                 L(origin) to L(node) going q.dir is in
                                 [q.olo, q.ohi]. COORD_DIST on a logical ring
                                 (every div-th node, or coordinates mod a
                                 segment length) that may differ per node, as
                                 the k-D algorithms of Liu et al. need */
} xchg_rule_kind;

/* Number of rule kinds: they run 0..XCHG_RULE_CLASS_DIST (keep it last);
 * the block follower's specialised loops are indexed by kind. */
#define XCHG_RULE_KINDS ((int)XCHG_RULE_CLASS_DIST + 1)

/* Node classes an XCHG_RULE_REL_LINEAR rule distinguishes. */
#define XCHG_RULE_CLASSES 4
/* Node classes an XCHG_RULE_CLASS_DIST rule distinguishes. */
#define XCHG_RULE_CDIST_CLASSES 16

/* One class of an XCHG_RULE_CLASS_DIST rule (see there). */
typedef struct xchg_cdist {
    int dim;                  /* dimension read */
    int dir;                  /* +1 or -1 */
    uint32_t div, mod;        /* logical coordinate (coord / div) % mod */
    uint32_t lo, hi;          /* selected distance range */
    uint32_t olo, ohi;        /* origin distance range ([0, UINT32_MAX]: any) */
} xchg_cdist;

typedef int (*xchg_rule_callback)(const void *ctx, size_t step, uint32_t node,
                            uint32_t origin, uint32_t dest);

/*
 * The sender groups an algorithm's paper names (xchg_sched_group): given a
 * node that sends at step (the caller has checked that), write the group's
 * name into name (len bytes, len >= 1) and return its index (>= 0), or
 * return -1 when the algorithm names none there. It reads the step's
 * group_arg (the generator's own small code: a level, a phase) and the
 * topology, so it needs no memory per node; it lives in the algorithm's
 * file.
 */
typedef int (*xchg_group_fn)(const xchg_sched *s, size_t step, uint32_t node, char *name,
                             size_t len);

typedef struct xchg_rule {
    xchg_rule_kind kind;
    uint32_t mask;            /* DEST_MASK_TO */
    int dim;                  /* COORD_* */
    int dir;                  /* COORD_DIST, COORD_SIDE: +1 or -1 */
    uint32_t lo, hi;          /* COORD_DIST */
    uint32_t radix, weight, digit; /* REL_DIGIT */
    xchg_rule_callback fn;    /* FN; ctx is the schedule's ctx */
    uint32_t lpmask[XCHG_RULE_CLASSES], lpval[XCHG_RULE_CLASSES]; /* REL_LINEAR */
    uint32_t lemask[XCHG_RULE_CLASSES], leval[XCHG_RULE_CLASSES]; /* REL_LINEAR */
    xchg_cdist cdist[XCHG_RULE_CDIST_CLASSES]; /* CLASS_DIST */
} xchg_rule;

/* Most phases a schedule has (xchg_sched_nphases). */
#define XCHG_MAX_PHASES 4

typedef struct xchg_step {
    xchg_partner_kind partner;
    uint32_t xor_mask;        /* XOR */
    int shift_dim;            /* SHIFT, PARITY: dimension, or -1 for ids
                                 mod p */
    int64_t shift;            /* SHIFT: signed distance; PARITY: that of
                                 the even nodes */
    int64_t shift_odd;        /* PARITY: signed distance of the odd nodes */
    uint32_t *partner_table;  /* TABLE: owned, p entries */
    xchg_rule rule;
    uint64_t blocks;          /* declared size of every message when
                                 blocks_table is NULL */
    uint32_t *blocks_table;   /* owned, p entries, or NULL */
    uint64_t max_blocks;      /* largest declared message (derived) */
    int route_policy;         /* XCHG_ROUTE_* */
    int group_arg;            /* what the schedule's group_fn reads for this
                                 step (the generator's code: a level, a
                                 phase); 0 unless the generator sets it.
                                 Here it fills padding: a step does not grow */
    uint64_t copy_blocks;     /* local copies per node before the step */
    uint8_t *class_table;     /* owned, p entries, or NULL: each node's class
                                 for an XCHG_RULE_REL_LINEAR or
                                 XCHG_RULE_CLASS_DIST rule */
} xchg_step;

struct xchg_sched {
    xchg_topo topo;
    char algorithm[96];
    int contention_free;
    xchg_group_fn group_fn;   /* the paper's sender groups, or NULL: none
                                 (set by the generator) */
    size_t nsteps, cap;
    xchg_step *steps;
    void *ctx;                /* for XCHG_RULE_FN rules; owned when ctx_free */
    void (*ctx_free)(void *);
    uint64_t ctx_bytes;       /* memory ctx holds (for xchg_sched_bytes; set
                                 by the generator that allocates it) */
    xchg_op op;               /* the operation (zeroed: alltoall); set by
                                 the generator */
    size_t nphases;           /* 0: one phase, op over every step */
    struct {
        xchg_op op;           /* what the phase's steps perform */
        size_t first;         /* its first step */
    } phases[XCHG_MAX_PHASES];
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

/*
 * Append src's steps to dst as a new phase performing phase_op, and free
 * src (its steps' tables move to dst; dst takes src's ctx when dst has
 * none; dst keeps its group_fn only when src has the same one, since one
 * callback reads every step's group_arg). A dst without phases first
 * becomes one phase of its own op over its steps. Returns 0; EINVAL (src
 * freed, dst unchanged) when both have a ctx, the phases are full, or the
 * topologies differ; ENOMEM likewise.
 */
XCHG_INTERNAL int xchg_sched_append(xchg_sched *dst, xchg_sched *src, const xchg_op *phase_op);

/* Memory s holds: the schedule, its step array, every per-node table and
 * ctx_bytes. The estimate hooks (xchg_alg.estimate) are held to it. */
XCHG_INTERNAL uint64_t xchg_sched_bytes(const xchg_sched *s);

/* The capacity xchg_sched_add grows the step array to for n steps. */
XCHG_INTERNAL uint64_t xchg_sched_step_capacity(uint64_t n);

/* A zeroed step with partner XOR / SHIFT and the given rule, uniform size. */
XCHG_INTERNAL xchg_step xchg_step_xor(uint32_t mask, xchg_rule rule, uint64_t blocks);
XCHG_INTERNAL xchg_step xchg_step_shift(int dim, int64_t shift, xchg_rule rule,
                                        uint64_t blocks);
/* A zeroed step with partner PARITY: nodes whose coordinate along dim (id
 * when dim is -1) is even move by shift_even, odd ones by shift_odd. */
XCHG_INTERNAL xchg_step xchg_step_parity(int dim, int64_t shift_even, int64_t shift_odd,
                                         xchg_rule rule, uint64_t blocks);

/* Rule constructors. */
XCHG_INTERNAL xchg_rule xchg_rule_dest_is_to(void);
XCHG_INTERNAL xchg_rule xchg_rule_dest_mask_to(uint32_t mask);
XCHG_INTERNAL xchg_rule xchg_rule_coord_ne(int dim);
XCHG_INTERNAL xchg_rule xchg_rule_coord_dist(int dim, int dir, uint32_t lo, uint32_t hi);
XCHG_INTERNAL xchg_rule xchg_rule_coord_side(int dim, int dir);
XCHG_INTERNAL xchg_rule xchg_rule_rel_digit(uint32_t radix, uint32_t weight, uint32_t digit);
XCHG_INTERNAL xchg_rule xchg_rule_fn(xchg_rule_callback fn);
/* REL_LINEAR with every class selecting nothing-tested (all blocks); set
 * lpmask/lpval/lemask/leval[c] per class, and the step's class_table. */
XCHG_INTERNAL xchg_rule xchg_rule_rel_linear(void);
/* CLASS_DIST with every class zero (dim 0, div 1, mod 1, range [1, 0]:
 * selects nothing; any origin); set cdist[c] per class, and the step's
 * class_table. */
XCHG_INTERNAL xchg_rule xchg_rule_class_dist(void);

/* Does class q of a CLASS_DIST rule select block (origin, dest) for node
 * (coordinates read with the topology's strides)? A zero div or mod selects
 * nothing. */
static inline int xchg_cdist_sel(const xchg_topo *t, const xchg_cdist *q, uint32_t node,
                                 uint32_t origin, uint32_t dest)
{
    if (q->div == 0 || q->mod == 0 || q->dim < 0 || q->dim >= t->ndims)
        return 0;
    uint32_t n = t->size[q->dim], st = t->stride[q->dim];
    uint32_t a = ((node / st) % n / q->div) % q->mod;
    uint32_t b = ((dest / st) % n / q->div) % q->mod;
    uint32_t x = q->dir > 0 ? (b + q->mod - a) % q->mod : (a + q->mod - b) % q->mod;
    if (x < q->lo || x > q->hi)
        return 0;
    if (q->olo == 0 && q->ohi == UINT32_MAX)
        return 1;
    uint32_t c = ((origin / st) % n / q->div) % q->mod;
    uint32_t y = q->dir > 0 ? (a + q->mod - c) % q->mod : (c + q->mod - a) % q->mod;
    return y >= q->olo && y <= q->ohi;
}

/* Does a REL_LINEAR rule select w = dest ^ node for a node of class c? */
static inline int xchg_rule_linear_sel(const xchg_rule *r, unsigned c, uint32_t w)
{
    return ((unsigned)__builtin_parity(w & r->lpmask[c]) == r->lpval[c]) &&
           ((w & r->lemask[c]) == r->leval[c]);
}

/* Message-level helpers for the readers; also behind the public calls. */

/* Node moved by shift along dim with wrap-around (dim -1: along ids mod
 * p), the partner of XCHG_PARTNER_SHIFT and XCHG_PARTNER_PARITY. */
static inline uint32_t xchg_shift_node(const xchg_topo *t, int dim, int64_t shift,
                                       uint32_t node)
{
    if (dim < 0) {
        int64_t p = t->nodes;
        int64_t v = ((int64_t)node + shift) % p;
        return (uint32_t)(v < 0 ? v + p : v);
    }
    int64_t n = t->size[dim];
    uint32_t stride = t->stride[dim];
    int64_t c = (node / stride) % n;
    int64_t nc = (c + shift) % n;
    if (nc < 0) nc += n;
    return (uint32_t)(node + (nc - c) * (int64_t)stride);
}

/* Partner of node at a step, XCHG_NONE when idle. */
static inline uint32_t xchg_step_partner(const xchg_topo *t, const xchg_step *st,
                                         uint32_t node)
{
    switch (st->partner) {
    case XCHG_PARTNER_XOR:
        return node ^ st->xor_mask;
    case XCHG_PARTNER_SHIFT:
        return xchg_shift_node(t, st->shift_dim, st->shift, node);
    case XCHG_PARTNER_TABLE:
        return st->partner_table[node];
    case XCHG_PARTNER_PARITY: {
        uint32_t c = st->shift_dim < 0 ? node
                                       : (node / t->stride[st->shift_dim]) %
                                             t->size[st->shift_dim];
        return xchg_shift_node(t, st->shift_dim, (c & 1) ? st->shift_odd : st->shift, node);
    }
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
    case XCHG_RULE_REL_LINEAR: {
        const uint8_t *ct = stepno < s->nsteps ? s->steps[stepno].class_table : NULL;
        unsigned c = ct ? ct[node] : 0;
        return c < XCHG_RULE_CLASSES && xchg_rule_linear_sel(r, c, dest ^ node);
    }
    case XCHG_RULE_CLASS_DIST: {
        const uint8_t *ct = stepno < s->nsteps ? s->steps[stepno].class_table : NULL;
        unsigned c = ct ? ct[node] : 0;
        return c < XCHG_RULE_CDIST_CLASSES &&
               xchg_cdist_sel(t, &r->cdist[c], node, origin, dest);
    }
    }
    return 0;
}

/* --- estimates (xchg_alg.estimate hooks) ------------------------- */

/* a + b and a * b, saturating at UINT64_MAX. */
static inline uint64_t xchg_est_sum(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static inline uint64_t xchg_est_prod(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* An estimate of a schedule of nsteps steps with no tables yet: the
 * schedule, its step array as xchg_sched_add grows it, and one unit of work
 * per step. */
static inline void xchg_est_steps(xchg_estimate *e, uint64_t nsteps)
{
    e->steps = nsteps;
    e->bytes = xchg_est_sum(sizeof(xchg_sched),
                            xchg_est_prod(xchg_sched_step_capacity(nsteps), sizeof(xchg_step)));
    e->work = nsteps;
}

/* Add `count` per-node tables of p entries of elem bytes each (partner,
 * blocks or class tables, or a context's per-node arrays): their memory,
 * and one unit of work per entry. */
static inline void xchg_est_tables(xchg_estimate *e, uint64_t count, uint64_t p, uint64_t elem)
{
    uint64_t entries = xchg_est_prod(count, p);
    e->bytes = xchg_est_sum(e->bytes, xchg_est_prod(entries, elem));
    e->work = xchg_est_sum(e->work, entries);
}

/* Add bytes of memory and work units. */
static inline void xchg_est_add(xchg_estimate *e, uint64_t bytes, uint64_t work)
{
    e->bytes = xchg_est_sum(e->bytes, bytes);
    e->work = xchg_est_sum(e->work, work);
}

#endif /* XCHG_SCHED_INTERNAL_H */
