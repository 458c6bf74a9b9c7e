/*
 * torus_suh.h - what the files of Suh et al.'s family share (torus_suh.c:
 * t1, t2, t1.x; torus_suh_paper.c: t1:paper; torus_suh_groups.c: the
 * senders' groups of both): the geometry of a 2^d x 2^d torus as bit masks
 * on node ids (id = y*2^d + x), the diagonal groups G_L(1), G_L(2) and
 * level-L groups, step building, the group functions, and t1:paper's
 * builder and estimate. See the header of torus_suh.c for the definitions.
 * Calls point one way: torus_suh.c calls torus_suh_paper.c (t1:paper) and
 * torus_suh_groups.c; torus_suh_paper.c calls torus_suh_groups.c.
 */
#ifndef XCHG_TORUS_SUH_H
#define XCHG_TORUS_SUH_H

#include <stdlib.h>

#include "alg_common.h"

/* Shape of one 2^d x 2^d torus. */
typedef struct suh_geo {
    int d;
    uint32_t n;     /* 2^d */
    uint32_t p;     /* 4^d */
} suh_geo;

/* The shape of t, a torus:NxN with N = 2^d. */
static inline suh_geo suh_geo_of(const xchg_topo *t)
{
    suh_geo g = {xchg_alg_log2(t->size[0]), t->size[0], t->nodes};
    return g;
}

/* x mask of a level-L mirror (low L bits of x). */
static inline uint32_t xm(int level)
{
    return (1u << level) - 1;
}

/* y mask of a level-L mirror. */
static inline uint32_t ym(const suh_geo *g, int level)
{
    return xm(level) << g->d;
}

/* z = x XOR y of a node, low d bits. */
static inline uint32_t suh_z(const suh_geo *g, uint32_t id)
{
    return (id ^ (id >> g->d)) & (g->n - 1);
}

/* Nonzero when node is in G_L(1) (L >= 1). */
static inline int in_g1(const suh_geo *g, uint32_t id, int level)
{
    uint32_t z = suh_z(g, id) & xm(level);
    return z == 0 || z == xm(level);
}

/* Nonzero when node is in G_L(2) (L >= 2). */
static inline int in_g2(const suh_geo *g, uint32_t id, int level)
{
    uint32_t z = suh_z(g, id) & xm(level);
    return z == xm(level - 1) || z == (1u << (level - 1));
}

/* Level-L group index k_L of a node, in [0, 2^(L-1)). */
static inline uint32_t group_of(const suh_geo *g, uint32_t id, int level)
{
    uint32_t z = suh_z(g, id) & xm(level);
    if (z >> (level - 1))
        z ^= xm(level);
    return z;
}

/* Is level-L group k inside G_(c+1)(1)? */
static inline int group_active(int level, int c, uint32_t k)
{
    if (level <= c + 1)
        return k == 0;
    uint32_t low = k & xm(c + 1);
    return low == 0 || low == xm(c + 1);
}

/* A step with a fresh partner table (every node idle) and class table. */
static inline int new_step(const suh_geo *g, xchg_step *st, uint64_t blocks)
{
    memset(st, 0, sizeof *st);
    st->partner = XCHG_PARTNER_TABLE;
    st->route_policy = XCHG_ROUTE_SHORTEST;
    st->rule = xchg_rule_rel_linear();
    st->blocks = blocks;
    st->partner_table = malloc((size_t)g->p * sizeof *st->partner_table);
    st->class_table = calloc(g->p, 1);
    if (!st->partner_table || !st->class_table) {
        free(st->partner_table);
        free(st->class_table);
        return XCHG_ENOMEM;
    }
    for (uint32_t i = 0; i < g->p; i++)
        st->partner_table[i] = XCHG_NONE;
    return XCHG_OK;
}

/* Halving-rule parity mask of the level-p mirror in x (shifted by `shift`
 * to read y): bits p-1 and p, or bit d-1 alone at p = d. */
static inline uint32_t halving_mask(const suh_geo *g, int level, int shift)
{
    uint32_t m = level < g->d ? (3u << (level - 1)) : (1u << (g->d - 1));
    return m << shift;
}

/* Sender groups (xchg_sched_group): a step's group_arg is one of these
 * kinds times SUH_GROUP_KIND plus the level of its groups (torus_suh.c). */
enum { SUH_GROUP_CONC = 1, SUH_GROUP_HALVE = 2, SUH_GROUP_SEND = 3 };
#define SUH_GROUP_KIND 64

/* The group_fn of t1 and t1:paper (torus_suh_groups.c): SG_L(1), SG_L(2)
 * (and G_L(k) of a halving level, which t1 does not reach), from the
 * step's group_arg. */
XCHG_INTERNAL int xchg_suh_t1_group(const xchg_sched *s, size_t step, uint32_t node, char *name,
                                    size_t len);

/* The group_fn of t2 and t1.x (torus_suh_groups.c): T2's G_L(k) in the
 * halving phases, SG in t1.x's concentration and send phases. */
XCHG_INTERNAL int xchg_suh_t2_group(const xchg_sched *s, size_t step, uint32_t node, char *name,
                                    size_t len);

/*
 * Build Suh et al.'s T1 with the paper's own phase pattern (t1:paper, see
 * torus_suh_paper.c) on the 2^d x 2^d torus t, d >= 4, claiming
 * contention-freedom when claims_free (t1's registry claim: the caller's).
 * 0, ENOMEM.
 */
XCHG_INTERNAL int xchg_suh_paper_build(const xchg_topo *t, int claims_free, xchg_sched **out,
                                       xchg_err *err);

/*
 * What xchg_suh_paper_build takes on the 2^d x 2^d torus t, d >= 4
 * (xchg_estimate): its 3d-3 steps with their tables, its context, and the
 * builder's working memory at its peak. Closed form; also for d > 9, where
 * t1:paper is refused (ETOOBIG) and the work says why.
 */
XCHG_INTERNAL void xchg_suh_paper_estimate(const xchg_topo *t, xchg_estimate *out);

#endif /* XCHG_TORUS_SUH_H */
