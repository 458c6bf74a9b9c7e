/*
 * follow.h - the one block follower (inside): compiled steps and the inline
 * loops that move blocks through them. The public face is the "Block
 * follower" section of xchg_core.h (xchg_follower_new, xchg_follow_block,
 * xchg_follow_origin_step, xchg_follow_node_*); the verifier, the exporter
 * and virtual-node hosting use the inline functions below directly.
 *
 * The rule every reader of a schedule must agree on: at step s a block
 * (o, d) held by node n is *sent* when n has a partner (not XCHG_NONE) and
 * n's block rule selects (o, d); a sent block moves to the partner when the
 * partner is a valid other node (< p and != n), else it stays at n (and
 * still counts as sent, which is what the verifier's size check counts).
 * xchg_follow_target is that rule; everything here applies it.
 *
 * Compiling a step (xchg_follower_new) checks it is well formed and turns
 * it into an xchg_cstep, a form made for the inner loop:
 *   - the partner becomes an inline XOR (only when every node's partner is
 *     a valid other node: mask nonzero and below p, p a power of two) or a
 *     partner table and a target table (where a node's sent blocks go);
 *   - the rule keeps its kind and gets its parameters and tables: the
 *     coordinate of every node along the rule's dimension, the logical
 *     coordinate of every node for each class-dist class, and for a
 *     rel-digit rule whether each (dest - origin) mod p is selected.
 * Coordinate tables are shared by all steps (one per dimension, one per
 * (dim, div, mod)). Memory: O(p * steps), never p*p.
 *
 * The inner loop (xchg_follow_origin_run) moves one origin's p blocks
 * through one step. The switch over (partner kind, rule kind) is made once
 * per (origin, step), and each case is the always-inline xchg_follow_run
 * instantiated with constant kinds, so each loop body is specialised; a
 * callback rule falls back to xchg_rule_eval. Keep these functions inline
 * and in this header: the verifier's hot loop is built from them.
 *
 * A compiled follower is read-only: any number of threads may follow blocks
 * through it at once (callback rules must then only read their ctx).
 */
#ifndef XCHG_FOLLOW_H
#define XCHG_FOLLOW_H

#include "sched/sched_internal.h"

#if defined(__GNUC__)
#define XCHG_FOLLOW_INLINE inline __attribute__((always_inline))
#else
#define XCHG_FOLLOW_INLINE inline
#endif

/* How a compiled step finds a holder's partner. */
typedef enum xchg_cpartner {
    XCHG_CPARTNER_XOR,  /* node ^ xmask: always a valid other node */
    XCHG_CPARTNER_TABLE /* part[node] (XCHG_NONE idle); sent blocks go to tgt[node] */
} xchg_cpartner;

/* One class of a class-dist rule, compiled: the logical coordinate of every
 * node (a shared table), the modulus, the ranges and the direction. */
typedef struct xchg_cdclass {
    const uint32_t *lc;
    uint32_t m, lo, hi;
    uint32_t olo, ohi;     /* origin distance range */
    int ochk;              /* the origin range is not "any" */
    int dir;
} xchg_cdclass;

/* One step, compiled for the inner loop (read-only once built). It is kept
 * small (class tables are behind pointers) because the inner loop copies it
 * into a local: then the compiler knows no store of the loop can change it
 * and keeps its fields in registers. */
typedef struct xchg_cstep {
    xchg_cpartner pk;
    xchg_rule_kind rk;
    uint32_t xmask;        /* XOR: partner = node ^ xmask */
    uint32_t *part;        /* TABLE: partner of each node, XCHG_NONE idle (owned) */
    uint32_t *tgt;         /* TABLE: where a node's sent blocks go, by
                              xchg_follow_target (owned) */
    uint32_t rmask;        /* DEST_MASK_TO */
    const uint32_t *cc;    /* COORD_*: coordinate of each node (shared) */
    uint32_t n, lo, hi;    /* COORD_DIST: dimension size and distance range */
    int dir;               /* COORD_DIST, COORD_SIDE */
    uint8_t *relsel;       /* REL_DIGIT: selected, per (dest - origin) mod p (owned) */
    const uint8_t *cls;    /* REL_LINEAR, CLASS_DIST: class of each node, or
                              NULL (class 0); the step's class_table */
    const xchg_rule *lin;  /* REL_LINEAR: the step's rule, for its per-class
                              masks and values (not owned) */
    xchg_cdclass *cd;      /* CLASS_DIST: XCHG_RULE_CDIST_CLASSES classes (owned) */
    int active;            /* some node has a partner */
} xchg_cstep;

/* Most distinct (dim, div, mod) logical coordinate tables of one follower. */
#define XCHG_FOLLOW_MAX_LTABLES 64

/* The compiled follower of one schedule (xchg_core.h's opaque xchg_follower). */
struct xchg_follower {
    const xchg_sched *s;   /* not owned; must outlive the follower */
    uint32_t p;
    size_t nsteps;
    xchg_cstep *steps;     /* nsteps compiled steps */
    uint32_t *coords[XCHG_MAX_DIMS]; /* coordinate tables, made on demand */
    struct {               /* logical coordinate tables of class-dist rules */
        int dim;
        uint32_t div, mod;
        uint32_t *tab;
    } lct[XCHG_FOLLOW_MAX_LTABLES];
    int nlct;
};

/* Bytes xchg_follower_new allocates for s, about (the partner, target,
 * rel-digit and class-dist tables it will make, and a coordinate table per
 * dimension), so a caller can refuse before compiling. */
XCHG_INTERNAL uint64_t xchg_follower_bytes(const xchg_sched *s);

/* Bytes follower f holds, exactly: the follower, its compiled steps and
 * every table they own or share (what a schedule keeping f must count in
 * its ctx_bytes). 0 for NULL. */
XCHG_INTERNAL uint64_t xchg_follower_held(const xchg_follower *f);

/* The most xchg_follower_new can allocate for any schedule of nsteps steps
 * on t, whatever its partners and rules (closed form, for estimates; every
 * sum saturates): the compiled steps, per step a partner and a target table
 * and the larger of a rel-digit table and the class-dist classes, a
 * coordinate table per dimension and every logical coordinate table the
 * class-dist rules can ask for. */
XCHG_INTERNAL uint64_t xchg_follower_held_max(const xchg_topo *t, uint64_t nsteps);

/* Where a block node sends to `to` ends up: the partner when it is a valid
 * other node, else node itself (see the file comment). */
static inline uint32_t xchg_follow_target(uint32_t node, uint32_t to, uint32_t p)
{
    return (to < p && to != node) ? to : node;
}

/* Partner of node in a compiled step, XCHG_NONE when idle. */
static inline uint32_t xchg_cstep_partner(const xchg_cstep *cs, uint32_t node)
{
    return cs->pk == XCHG_CPARTNER_XOR ? node ^ cs->xmask : cs->part[node];
}

/* Where node's sent blocks go in a compiled step (xchg_follow_target). */
static inline uint32_t xchg_cstep_target(const xchg_cstep *cs, uint32_t node)
{
    return cs->pk == XCHG_CPARTNER_XOR ? node ^ cs->xmask : cs->tgt[node];
}

/* Does the node at pos, sending to `to` at step s (compiled as cs), select
 * block (o, d)? At the inner loop's call sites rk is a constant and the
 * switch folds away; elsewhere it is an ordinary switch. */
static XCHG_FOLLOW_INLINE int xchg_follow_select(const xchg_follower *f, const xchg_cstep *cs,
                                                 xchg_rule_kind rk, size_t s, uint32_t p,
                                                 uint32_t pos, uint32_t to, uint32_t o,
                                                 uint32_t d)
{
    switch (rk) {
    case XCHG_RULE_DEST_IS_TO:
        return d == to;
    case XCHG_RULE_DEST_MASK_TO:
        return ((d ^ to) & cs->rmask) == 0;
    case XCHG_RULE_COORD_NE:
        return cs->cc[d] != cs->cc[pos];
    case XCHG_RULE_COORD_DIST: {
        uint32_t a = cs->cc[pos], b = cs->cc[d];
        uint32_t x = cs->dir > 0 ? b + cs->n - a : a + cs->n - b;
        if (x >= cs->n)
            x -= cs->n;
        return x >= cs->lo && x <= cs->hi;
    }
    case XCHG_RULE_COORD_SIDE: {
        uint32_t a = cs->cc[pos], b = cs->cc[d];
        return cs->dir > 0 ? b > a : b < a;
    }
    case XCHG_RULE_REL_DIGIT:
        return cs->relsel[d >= o ? d - o : d + p - o];
    case XCHG_RULE_REL_LINEAR: {
        unsigned c = cs->cls ? cs->cls[pos] : 0;
        uint32_t w = d ^ pos;
        const xchg_rule *r = cs->lin;
        return ((unsigned)__builtin_parity(w & r->lpmask[c]) == r->lpval[c]) &
               ((w & r->lemask[c]) == r->leval[c]);
    }
    case XCHG_RULE_CLASS_DIST: {
        const xchg_cdclass *q = &cs->cd[cs->cls ? cs->cls[pos] : 0];
        uint32_t a = q->lc[pos], b = q->lc[d];
        uint32_t x = q->dir > 0 ? b + q->m - a : a + q->m - b;
        if (x >= q->m)
            x -= q->m;
        if (x < q->lo || x > q->hi)
            return 0;
        if (!q->ochk)
            return 1;
        uint32_t c = q->lc[o];
        uint32_t y = q->dir > 0 ? a + q->m - c : c + q->m - a;
        if (y >= q->m)
            y -= q->m;
        return y >= q->olo && y <= q->ohi;
    }
    case XCHG_RULE_FN:
        break;
    }
    return xchg_rule_eval(f->s, &f->s->steps[s].rule, s, pos, to, o, d);
}

/* Move origin o's blocks through step s (compiled as cs): cur[d] is where
 * block (o, d) is; each block its holder sends goes to the holder's target,
 * and cnt[holder] grows by one. pk and rk are constants at every call site.
 * The step is read from a local copy, whose fields the compiler can keep in
 * registers across the stores to cur and cnt (restrict alone does not get
 * GCC there). */
static XCHG_FOLLOW_INLINE void xchg_follow_run(const xchg_follower *f, const xchg_cstep *cs,
                                               xchg_cpartner pk, xchg_rule_kind rk, size_t s,
                                               uint32_t p, uint32_t o,
                                               uint32_t *restrict cur, uint32_t *restrict cnt)
{
    const xchg_cstep c = *cs;
    for (uint32_t d = 0; d < p; d++) {
        uint32_t pos = cur[d], to;
        if (pk == XCHG_CPARTNER_XOR) {
            to = pos ^ c.xmask;
        } else {
            to = c.part[pos];
            if (to == XCHG_NONE)
                continue;
        }
        if (xchg_follow_select(f, &c, rk, s, p, pos, to, o, d)) {
            cnt[pos]++;
            cur[d] = pk == XCHG_CPARTNER_XOR ? to : c.tgt[pos];
        }
    }
}

#define XCHG_FOLLOW_CASE(PK, RK)                                                     \
    case (int)(PK) * XCHG_RULE_KINDS + (int)(RK):                                    \
        xchg_follow_run(f, cs, PK, RK, s, p, o, cur, cnt);                           \
        break

/*
 * Move origin o's blocks through step s: cur[d] (p entries, each < p) is
 * where block (o, d) is before the step and becomes where it is after;
 * cnt[n] (p entries) grows by the number of o's blocks node n sends. The
 * one switch picks a specialised loop; an idle step does nothing.
 */
static inline void xchg_follow_origin_run(const xchg_follower *f, size_t s, uint32_t o,
                                          uint32_t *restrict cur, uint32_t *restrict cnt)
{
    const xchg_cstep *cs = &f->steps[s];
    uint32_t p = f->p;
    if (!cs->active)
        return;
    switch ((int)cs->pk * XCHG_RULE_KINDS + (int)cs->rk) {
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_DEST_IS_TO);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_DEST_MASK_TO);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_COORD_NE);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_COORD_DIST);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_COORD_SIDE);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_REL_DIGIT);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_FN);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_REL_LINEAR);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_XOR, XCHG_RULE_CLASS_DIST);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_DEST_IS_TO);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_DEST_MASK_TO);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_COORD_NE);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_COORD_DIST);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_COORD_SIDE);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_REL_DIGIT);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_FN);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_REL_LINEAR);
        XCHG_FOLLOW_CASE(XCHG_CPARTNER_TABLE, XCHG_RULE_CLASS_DIST);
    default:
        break;
    }
}

#undef XCHG_FOLLOW_CASE

/* Nonzero when node, holding block (o, d) before step s, sends it (node
 * has a partner and its rule selects the block). node must be < p. */
static inline int xchg_follow_sends(const xchg_follower *f, size_t s, uint32_t node,
                                    uint32_t o, uint32_t d)
{
    const xchg_cstep *cs = &f->steps[s];
    uint32_t to = xchg_cstep_partner(cs, node);
    if (to == XCHG_NONE)
        return 0;
    return xchg_follow_select(f, cs, cs->rk, s, f->p, node, to, o, d);
}

/* Move block (o, d), held at *pos before step s, through the step: returns
 * nonzero when its holder sends it, and *pos becomes where it is after. */
static inline int xchg_follow_block_step(const xchg_follower *f, size_t s, uint32_t o,
                                         uint32_t d, uint32_t *pos)
{
    if (!xchg_follow_sends(f, s, *pos, o, d))
        return 0;
    *pos = xchg_cstep_target(&f->steps[s], *pos);
    return 1;
}

/* Where block (o, d) is before step upto (upto = nsteps: where it ends). */
static inline uint32_t xchg_follow_block_at(const xchg_follower *f, size_t upto, uint32_t o,
                                            uint32_t d)
{
    uint32_t pos = o;
    if (upto > f->nsteps)
        upto = f->nsteps;
    for (size_t s = 0; s < upto; s++)
        xchg_follow_block_step(f, s, o, d, &pos);
    return pos;
}

#endif /* XCHG_FOLLOW_H */
