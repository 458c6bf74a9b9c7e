/*
 * links.h - the one numbering of directed links, and a walker over the
 * links of a route. Every module that counts messages per link (the
 * verifier's contention check, the packing of hosted virtual nodes, and the
 * coming simulator and drawings) numbers links here, so their ids agree.
 *
 * A directed link is (node, dim, up): the link leaving `node` along `dim`,
 * up = 1 for the +1 direction and 0 for -1. Its id is
 *     node * ndims * 2 + dim * 2 + up,
 * so there are p * ndims * 2 ids (some unused at mesh and array edges).
 * Two physical facts fold ids together:
 *   - on a hypercube the link across bit b leaving n is one, whichever
 *     direction the route names it by: it is keyed (n, b) with up = 0;
 *   - on a wrapped dimension (ring, torus) of size 2 the +1 and -1
 *     neighbours of a node are the same node over the same physical link:
 *     it is keyed with up = 1.
 * On a tree dim is the edge's level, and the edge above the subtree of
 * 2^dim leaves named n (n's bits below dim are 0) is (n, dim, 1) climbing
 * and (n, dim, 0) coming down; ids whose node has such a bit set are unused.
 * A complete topology (a switch) has no links.
 */
#ifndef XCHG_LINKS_H
#define XCHG_LINKS_H

#include "base/tree_edge.h"
#include "base/util.h"

/* Id of the directed link leaving node along dim in direction dir (+1 or
 * -1), by the rule above. Inline: the verifier calls it once per hop. */
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

/* Number of link ids of t: p * ndims * 2, or 0 when t has no links
 * (complete). Arrays indexed by link id have this many entries. */
XCHG_INTERNAL size_t xchg_link_count(const xchg_topo *t);

/* The link an id names: the node it leaves, its dimension and direction
 * (+1 for up = 1, else -1; on a tree 0 climbing, +1/-1 coming down into
 * the child whose bit dim is 1/0), and the node at its far end (XCHG_NONE
 * when the id names a missing link at a mesh or array edge or an unused
 * tree id). */
XCHG_INTERNAL void xchg_link_ends(const xchg_topo *t, size_t id, uint32_t *from, int *dim,
                                  int *dir, uint32_t *to);

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
