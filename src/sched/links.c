/*
 * links.c - the public calls of the one directed-link numbering
 * (xchg_topo_link_count, xchg_topo_link_id, xchg_topo_link_ends; the rule
 * is in xchg_core.h, its inline core in links.h) and the route walker.
 */
#include <string.h>

#include "sched/links.h"

size_t xchg_topo_link_count(const xchg_topo *t)
{
    return xchg_topo_has_links(t) ? (size_t)t->nodes * (size_t)t->ndims * 2 : 0;
}

size_t xchg_topo_link_id(const xchg_topo *t, uint32_t node, int dim, int dir)
{
    return xchg_link_id(t, node, dim, dir);
}

/* The hop on a tree that crosses edge (node, dim, up), the inverse of
 * xchg_tree_edge_node: its start, and *dir. */
static uint32_t tree_edge_hop(uint32_t node, int dim, int up, int *dir)
{
    uint32_t bit = 1u << dim;
    if (up) {
        *dir = 0;
        return node;
    }
    *dir = (node & bit) ? 1 : -1;
    return node & ~bit;
}

void xchg_topo_link_ends(const xchg_topo *t, size_t id, uint32_t *from, int *dim, int *dir,
                         uint32_t *to)
{
    size_t per = (size_t)t->ndims * 2;
    uint32_t n = (uint32_t)(id / per);
    int k = (int)(id / 2 % (size_t)t->ndims);
    int d = (id & 1) ? 1 : -1;
    if (t->kind == XCHG_TOPO_TREE) {
        *from = tree_edge_hop(n, k, (int)(id & 1), dir);
        *dim = k;
        /* an id whose node has a set bit below the level names no edge */
        *to = (n & ((1u << k) - 1)) ? XCHG_NONE : xchg_topo_neighbor(t, *from, k, *dir);
        return;
    }
    if (t->kind == XCHG_TOPO_HYPERCUBE) /* one id for the link, named by its bit's way */
        d = (n >> k) & 1 ? -1 : 1;
    *from = n;
    *dim = k;
    *dir = d;
    *to = xchg_topo_neighbor(t, n, k, d);
}

void xchg_link_walk_start(xchg_link_walk *w, const xchg_topo *t, uint32_t from, uint32_t to,
                          int policy)
{
    memset(w, 0, sizeof *w);
    w->t = t;
    w->at = from;
    xchg_topo_route(t, from, to, policy, w->segs, &w->nsegs);
}

int xchg_link_walk_next(xchg_link_walk *w, size_t *id)
{
    if (w->left)
        return 0;
    while (w->seg < w->nsegs && w->hop >= w->segs[w->seg].hops) {
        w->seg++;
        w->hop = 0;
    }
    if (w->seg >= w->nsegs)
        return 0;
    const xchg_seg *g = &w->segs[w->seg];
    uint32_t nx = xchg_link_hop(w->t, w->at, g->dim, g->dir, id);
    if (nx == XCHG_NONE) {
        w->left = 1;
        w->dim = g->dim;
        w->dir = g->dir;
        return 0;
    }
    w->at = nx;
    w->hop++;
    w->hops++;
    return 1;
}
