/*
 * tree_edge.h - how a hop on a tree (tree:D, xchg.h) names the directed
 * edge it crosses, for every module that counts messages per link: the
 * link numbering of sched/links.h, the simulator's resources and the
 * drawing's link loads. An edge is named by the subtree below it: a climb
 * from the subtree named n at level dim crosses (n, dim, up = 1), a
 * descent into the child named c crosses (c, dim, up = 0).
 */
#ifndef XCHG_TREE_EDGE_H
#define XCHG_TREE_EDGE_H

#include <stdint.h>

/* The edge the hop from node along level dim, dir (0 climbs, +1/-1 come
 * down into the child whose bit dim is 1/0) crosses: its node, and *up. */
static inline uint32_t xchg_tree_edge_node(uint32_t node, int dim, int dir, int *up)
{
    *up = dir == 0;
    return dir > 0 ? node | (1u << dim) : node;
}

/* The hop that crosses edge (node, dim, up): its start, and *dir. */
static inline uint32_t xchg_tree_edge_hop(uint32_t node, int dim, int up, int *dir)
{
    uint32_t bit = 1u << dim;
    if (up) {
        *dir = 0;
        return node;
    }
    *dir = (node & bit) ? 1 : -1;
    return node & ~bit;
}

#endif /* XCHG_TREE_EDGE_H */
