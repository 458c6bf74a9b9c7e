/*
 * links.h - the inline core of the one numbering of directed links, and a
 * walker over the links of a route. The numbering's rule is public
 * (xchg_topo_link_id and its neighbours in xchg_core.h, implemented in links.c
 * on the inline rule below): the verifier's contention check and the
 * packing of hosted virtual nodes use it here, inline, because they call
 * it once per hop; the simulator and the drawings, which see the library
 * only through the public header, call the public functions.
 */
#ifndef XCHG_LINKS_H
#define XCHG_LINKS_H

#include "base/util.h"

/* The edge a hop on a tree from node along level dim, dir (0 climbs, +1/-1
 * come down into the child whose bit dim is 1/0) crosses is named by the
 * subtree below it: a climb crosses (node, dim, up = 1), a descent into the
 * child c crosses (c, dim, up = 0). Returns the edge's node, and *up. */
static inline uint32_t xchg_tree_edge_node(uint32_t node, int dim, int dir, int *up)
{
    *up = dir == 0;
    return dir > 0 ? node | (1u << dim) : node;
}

/* Id of the directed link leaving node along dim in direction dir (+1 or
 * -1), by the rule of xchg_topo_link_id (xchg_core.h). Inline: the verifier
 * calls it once per hop. */
static inline size_t xchg_link_id(const xchg_topo *t, uint32_t node, int dim, int dir)
{
    int up;
    if (t->kind == XCHG_TOPO_TREE)
        node = xchg_tree_edge_node(node, dim, dir, &up);
    else if (t->kind == XCHG_TOPO_HYPERCUBE)
        up = 0;
    else if (t->size[dim] == 2 && (t->kind == XCHG_TOPO_RING || t->kind == XCHG_TOPO_TORUS))
        up = 1;
    else
        up = dir > 0;
    return ((size_t)node * (size_t)t->ndims + (size_t)dim) * 2 + (size_t)up;
}

/*
 * One hop: the link leaving `at` along dim in direction dir (a segment of
 * xchg_topo_route). Returns the node at its far end and the link's id in
 * *id, or XCHG_NONE when the hop leaves the network (a mesh or array edge,
 * or a route that is wrong for the topology). The walker below is built on
 * it; the verifier's message check, which crosses up to 1e9 links, loops
 * over a route's segments and calls this directly so that its own counters
 * stay in registers.
 */
static inline uint32_t xchg_link_hop(const xchg_topo *t, uint32_t at, int dim, int dir,
                                     size_t *id)
{
    uint32_t nx = xchg_topo_neighbor(t, at, dim, dir);
    if (nx == XCHG_NONE || nx >= t->nodes)
        return XCHG_NONE;
    *id = xchg_link_id(t, at, dim, dir);
    return nx;
}

/*
 * A walk along the links of a route, hop by hop (no allocation):
 *     xchg_link_walk w;
 *     size_t id;
 *     xchg_link_walk_start(&w, t, from, to, policy);
 *     while (xchg_link_walk_next(&w, &id))
 *         ... use link id ...
 *     if (w.left) ... the next hop left the network at w.at along w.dim, w.dir
 *     else if (w.at != to) ... the route ended elsewhere
 * After the walk, w.at is where it stopped and w.hops how many links it
 * crossed. The route is xchg_topo_route's; a hop "leaves the network" when
 * xchg_topo_neighbor has no node there (a mesh or array edge, or a route
 * that is wrong for the topology).
 */
typedef struct xchg_link_walk {
    const xchg_topo *t;
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs;
    int seg;          /* segment being walked */
    uint32_t hop;     /* hops done in that segment */
    uint32_t at;      /* node the walk is at */
    uint64_t hops;    /* links crossed so far */
    int left;         /* the next hop left the network (walk stopped) */
    int dim, dir;     /* that hop, when left is set */
} xchg_link_walk;

/* Start a walk along the route from -> to under policy (XCHG_ROUTE_*). */
XCHG_INTERNAL void xchg_link_walk_start(xchg_link_walk *w, const xchg_topo *t, uint32_t from,
                                        uint32_t to, int policy);

/* Cross the next link: 1 with its id in *id (w->at moves to its far end),
 * or 0 when the route is done or its next hop leaves the network (then
 * w->left is set and w->at, w->dim, w->dir say where). */
XCHG_INTERNAL int xchg_link_walk_next(xchg_link_walk *w, size_t *id);

#endif /* XCHG_LINKS_H */
