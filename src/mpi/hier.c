/*
 * hier.c - the node-aware complete exchange (docs/clusters.md): forced
 * with the specs below, or auto's choice on several nodes (auto_nodes.c).
 *
 * With N nodes (node_map.c) of at most K ranks, blocks of B bytes, and L
 * leaders a node, each node's places are cut into L groups of G =
 * ceil(K / L) consecutive places, each led by its first place:
 *   1. each group's ranks gather their p blocks at its leader (the MPI
 *      library's MPI_Gather on the group; none when G = 1);
 *   2. the leader lays them out by destination node: to node b go the
 *      blocks of its group's G places for b's K places, G x K x B bytes;
 *   3. the leaders of group l of every node (lane l) exchange those among
 *      themselves with xchg's own exchange INNER on the network of nodes,
 *      through the same call path as a user's call;
 *   4. with L > 1, the leaders of each node exchange what came for each
 *      other's groups (xchg's exchange again, auto's choice: the shared
 *      segment where the node's memory is shared), N x G x G x B bytes
 *      from each leader to each;
 *   5. each leader lays out its group's blocks by rank and scatters them
 *      (MPI_Scatter on the group; none when G = 1).
 * The specs: "leader[:INNER]" is L = 1 (steps 1, 2, 3, 5: N(N-1) messages
 * cross between nodes, each K^2 B); "leaders:L[:INNER]"; "pairs[:INNER]"
 * is L = K, G = 1: every rank pairs with one rank of each remote node,
 * exchanging K B with each, then the node's ranks exchange N B with each
 * other (no gather, no scatter). INNER is auto when not named.
 *
 * The network of nodes: XCHG_TOPOLOGY when it names N nodes; when it (or
 * a Cartesian communicator) names the p ranks and its last dimensions
 * multiply to K, the first ones (torus:4x4x16 on 16 ranks a node is
 * torus:4x4 of nodes); else complete:N.
 *
 * Nodes of unequal rank counts are padded to K places (blocks to and from
 * an empty place are carried, never read); with L > 1 every node must
 * hold L groups, and pairs needs equal nodes. The gather and scatter take
 * a rank's p B bytes as an int count. What cannot run falls back to the
 * MPI library's call, saying why. A leader's two buffers of N x G x LG x
 * B bytes are carved on every rank (the store's size is agreed), backed by
 * memory on the leaders alone (plan.c).
 */
#include "mpi/call.h"
#include "mpi/candidates.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Where pl's lanes cannot run, say why into why and return 0. */
static int lanes_fit(const xchg_mpi_node_map *m, int leaders, char *why, size_t len)
{
    int group = (m->most + leaders - 1) / leaders;
    if (leaders > 1 && m->fewest <= (leaders - 1) * group) {
        snprintf(why, len,
                 "%d leaders a node need %d ranks on every node, in groups of %d; a node "
                 "holds %d",
                 leaders, (leaders - 1) * group + 1, group, m->fewest);
        return 0;
    }
    return 1;
}

int xchg_mpi_hier_topology(const xchg_mpi_settings *s, const xchg_mpi_node_map *m, int p,
                           char *spec, size_t len, char *why, size_t why_len)
{
    snprintf(spec, len, "complete:%d", m->nnodes);
    xchg_topo t;
    xchg_err err = {{0}};
    int named = strcmp(s->topology, "auto") != 0;
    if (named && xchg_topo_parse(s->topology, &t, &err) != XCHG_OK) {
        snprintf(why, why_len, "%.300s", err.msg);
        return 0;
    }
    if (!named) {
        if (!s->mapped || s->topo.kind == XCHG_TOPO_COMPLETE)
            return 1;
        t = s->topo;
    }
    if (t.nodes == (uint32_t)m->nnodes) {
        xchg_topo_spec(&t, spec, len);
        return 1;
    }
    if (t.nodes != (uint32_t)p || m->fewest != m->most) {
        if (named)
            snprintf(why, why_len,
                     "the topology %.64s has %u nodes; the node-aware exchange takes a network "
                     "of the %d nodes, or of the %d ranks whose last dimensions hold one node's "
                     "%d",
                     s->topology, (unsigned)t.nodes, m->nnodes, p, m->most);
        return !named;
    }
    /* the ranks' network: its last dimensions one node's ranks */
    uint32_t inside = 1;
    int d = t.ndims;
    while (d > 0 && inside < (uint32_t)m->most)
        inside *= t.size[--d];
    if (inside != (uint32_t)m->most || d == 0 || t.kind == XCHG_TOPO_TREE) {
        if (named)
            snprintf(why, why_len,
                     "the topology %.64s is of the %d ranks, but its last dimensions do not "
                     "multiply to one node's %d ranks",
                     s->topology, p, m->most);
        return !named;
    }
    xchg_topo n = t;
    n.ndims = d;
    n.nodes = t.nodes / inside;
    for (int i = 0; i < d; i++)
        n.stride[i] = t.stride[i] / inside;
    xchg_topo_spec(&n, spec, len);
    return 1;
}

int xchg_mpi_hier_choose(xchg_mpi_plan *pl, int leaders, const char *inner)
{
    xchg_mpi_comm *cs = pl->cs;
    int rc = xchg_mpi_node_map_get(cs);
    if (rc != MPI_SUCCESS)
        return rc;
    const xchg_mpi_node_map *m = &cs->nodes;
    const char *name = leaders == 1 ? "leader" : leaders == 0 ? "pairs" : "leaders";
    char why[400] = "";
    pl->bad_value = 1;
    if (leaders > 1)
        snprintf(pl->info.alg, sizeof pl->info.alg, "leaders:%d:%.40s", leaders, inner);
    else
        snprintf(pl->info.alg, sizeof pl->info.alg, "%s:%.50s", name, inner);
    if (!m->ok) {
        xchg_mpi_fall_back(pl, "%s: %s", name, m->why);
        return MPI_SUCCESS;
    }
    if (leaders == 0 && m->fewest != m->most) {
        xchg_mpi_fall_back(pl, "pairs: the nodes hold from %d to %d ranks; pairs needs equal "
                               "nodes (leader and leaders:L do not)",
                           m->fewest, m->most);
        return MPI_SUCCESS;
    }
    if (leaders == 0 || leaders > m->most)
        leaders = m->most;
    if (!lanes_fit(m, leaders, why, sizeof why)) {
        xchg_mpi_fall_back(pl, "%s: %s", name, why);
        return MPI_SUCCESS;
    }
    size_t row = xchg_mpi_mul((size_t)cs->p, pl->block_bytes);
    if (row > INT_MAX) {
        xchg_mpi_fall_back(pl, "%s: a rank's %zu bytes pass the node gather's int count", name,
                           row);
        return MPI_SUCCESS;
    }
    char nodes[64];
    if (!xchg_mpi_hier_topology(pl->key.set, m, cs->p, nodes, sizeof nodes, why, sizeof why)) {
        xchg_mpi_fall_back(pl, "%s: %s", name, why);
        return MPI_SUCCESS;
    }
    snprintf(pl->info.topology, sizeof pl->info.topology, "%s", nodes);
    xchg_topo t;
    xchg_err err = {{0}};
    if (strcmp(inner, "auto") && (xchg_topo_parse(nodes, &t, &err) != XCHG_OK ||
                                  !xchg_mpi_exchange_runs(inner, &t, &err))) {
        xchg_mpi_fall_back(pl, "%s: between the %d nodes, %.300s", name, m->nnodes, err.msg);
        return MPI_SUCCESS;
    }
    const xchg_mpi_lanes *g = NULL;
    if ((rc = xchg_mpi_lanes_get(cs, leaders, &g)) != MPI_SUCCESS)
        return rc;
    if (!g) {
        xchg_mpi_fall_back(pl, "%s: the communicator keeps %d sets of leaders already", name,
                           XCHG_MPI_MAX_LANES);
        return MPI_SUCCESS;
    }
    pl->bad_value = 0;
    pl->hier = g;
    snprintf(pl->hier_inner, sizeof pl->hier_inner, "%s", inner);
    snprintf(pl->hier_topology, sizeof pl->hier_topology, "%s", nodes);
    size_t G = (size_t)g->group, K = (size_t)m->most;
    snprintf(pl->info.why, sizeof pl->info.why,
             "asked for: %d nodes of %d%s ranks (%s), %d leader%s a node exchanging blocks of "
             "%zu bytes by %s on %s",
             m->nnodes, m->most, m->fewest != m->most ? " or fewer" : "", m->by, leaders,
             leaders > 1 ? "s" : "", xchg_mpi_mul(xchg_mpi_mul(G, K), pl->block_bytes), inner,
             nodes);
    return MPI_SUCCESS;
}

/* N x G x LG blocks: a group's rows (G x p), the blocks between nodes (G
 * x K for each node) and those between a node's leaders (G x G for each
 * of L leaders and N nodes) all fit, LG being K or more. */
size_t xchg_mpi_hier_buffer(const xchg_mpi_plan *pl)
{
    const xchg_mpi_lanes *g = pl->hier;
    size_t G = (size_t)g->group;
    return xchg_mpi_mul(xchg_mpi_mul((size_t)pl->cs->nodes.nnodes * G, (size_t)g->leaders * G),
                        pl->block_bytes);
}

int xchg_mpi_hier_exchange(const xchg_mpi_plan *pl, MPI_Comm comm, const char *alg,
                           const char *topology, const unsigned char *s, unsigned char *r,
                           size_t n)
{
    const xchg_mpi_inputs *in = pl->key.set->in;
    xchg_mpi_opts o = {.alg = alg,
                       .topology = topology,
                       .tuning_file = in->tuning_path,
                       .machine_file = in->machine_path};
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                         .sendbuf = s,
                         .recvbuf = r,
                         .scount = (MPI_Count)n,
                         .rcount = (MPI_Count)n,
                         .stype = MPI_BYTE,
                         .rtype = MPI_BYTE,
                         .comm = comm,
                         .opts = &o,
                         .inner = 1};
    int rc = xchg_mpi_call_checked(&a);
    xchg_mpi_remember(pl);
    return rc;
}

/* A leader's steps 2-4 (the top of the file): its group's rows (G rows
 * of p blocks, by rank) become, at x, what came for its group from every
 * leader of its node: [l][a][i][j], from place lG + i of node a to
 * place (this group) G + j here; y is the other buffer. An MPI error
 * code. */
static int lead(xchg_mpi_plan *pl, const unsigned char *rows, unsigned char *x,
                unsigned char *y)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    const xchg_mpi_lanes *g = pl->hier;
    size_t B = pl->block_bytes, K = (size_t)m->most, N = (size_t)m->nnodes;
    size_t G = (size_t)g->group, L = (size_t)g->leaders, row = (size_t)pl->cs->p * B;
    size_t first = (size_t)m->local; /* this group's first place */
    size_t members = (size_t)m->size_of[m->node] - first;
    members = members < G ? members : G;
    /* to node b: from member i here to place j there */
    xchg_mpi_tally t = {0, 0};
    for (size_t b = 0; b < N; b++)
        for (size_t i = 0; i < members; i++)
            for (size_t j = 0; j < K; j++) {
                int to = m->rank_of[b * K + j];
                if (to >= 0)
                    xchg_mpi_copy(y + ((b * G + i) * K + j) * B, rows + i * row + (size_t)to * B,
                                  B, &t);
            }
    xchg_mpi_charge_tally(&t);
    int rc = xchg_mpi_hier_exchange(pl, g->lane_comm, pl->hier_inner, pl->hier_topology, y, x,
                                    G * K * B);
    if (rc != MPI_SUCCESS || L == 1)
        return rc;
    /* to this node's leader l2: what came for its group's places */
    t = (xchg_mpi_tally){0, 0};
    for (size_t l2 = 0; l2 < L; l2++)
        for (size_t a = 0; a < N; a++)
            for (size_t i = 0; i < G; i++)
                for (size_t j = 0; j < G && l2 * G + j < K; j++)
                    xchg_mpi_copy(y + (((l2 * N + a) * G + i) * G + j) * B,
                                  x + ((a * G + i) * K + l2 * G + j) * B, B, &t);
    xchg_mpi_charge_tally(&t);
    return xchg_mpi_hier_exchange(pl, g->lead_comm, "auto", "auto", y, x, N * G * G * B);
}

/* Lay what lead() left at x out by rank for this group's members: member
 * j's p blocks at out + j * p B. */
static void by_rank(const xchg_mpi_plan *pl, const unsigned char *x, unsigned char *out)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    const xchg_mpi_lanes *g = pl->hier;
    size_t B = pl->block_bytes, K = (size_t)m->most, N = (size_t)m->nnodes;
    size_t G = (size_t)g->group, L = (size_t)g->leaders, row = (size_t)pl->cs->p * B;
    size_t members = (size_t)m->size_of[m->node] - (size_t)m->local;
    members = members < G ? members : G;
    xchg_mpi_tally t = {0, 0};
    for (size_t l = 0; l < L; l++)
        for (size_t a = 0; a < N; a++)
            for (size_t i = 0; i < G && l * G + i < K; i++) {
                int from = m->rank_of[a * K + l * G + i];
                for (size_t j = 0; from >= 0 && j < members; j++)
                    xchg_mpi_copy(out + j * row + (size_t)from * B,
                                  x + (((l * N + a) * G + i) * G + j) * B, B, &t);
            }
    xchg_mpi_charge_tally(&t);
}

/* Steps 1-5 (the top of the file) on a rank's p contiguous blocks. An MPI
 * error code. */
static int leaders_run(xchg_mpi_plan *pl, const unsigned char *in, unsigned char *out)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    const xchg_mpi_lanes *g = pl->hier;
    size_t row = (size_t)pl->cs->p * pl->block_bytes;
    unsigned char *x = xchg_mpi_at(pl, pl->carve.scratch);
    unsigned char *y = xchg_mpi_at(pl, pl->carve.send_pack);
    int leader = m->local % g->group == 0, grouped = g->group > 1, rc = MPI_SUCCESS;
    if (grouped)
        rc = PMPI_Gather(in, (int)row, MPI_BYTE, x, (int)row, MPI_BYTE, 0, g->group_comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int between = MPI_SUCCESS;
    if (leader) {
        between = lead(pl, grouped ? x : in, x, y);
        if (between == MPI_SUCCESS)
            by_rank(pl, x, grouped ? y : out);
    }
    /* the leader scatters whatever came of the exchanges, so that its
     * group's ranks do not wait; its error is its own to return */
    if (grouped)
        rc = PMPI_Scatter(y, (int)row, MPI_BYTE, out, (int)row, MPI_BYTE, 0, g->group_comm);
    return between != MPI_SUCCESS ? between : rc;
}

/* Both node-aware exchanges (this file's and aggregate.c's) start here: a
 * derived datatype's blocks are packed to this rank's staging first. */
int xchg_mpi_hier_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    xchg_mpi_comm *cs = pl->cs;
    size_t B = pl->block_bytes, row = (size_t)cs->p * B;
    if (B == 0)
        return MPI_SUCCESS;
    int pack_in = !b->in_lay->contiguous, pack_out = !b->out_lay->contiguous;
    const unsigned char *in = b->in;
    unsigned char *out = b->out, *local = NULL;
    int rc = MPI_SUCCESS;
    if (pack_in || pack_out) {
        local = xchg_mpi_comm_staging(cs, xchg_mpi_mul(row, (size_t)(pack_in + pack_out)));
        if (!local)
            return MPI_ERR_NO_MEM;
    }
    if (pack_in) {
        rc = xchg_mpi_pack_blocks(cs->comm, b->in_lay, (unsigned char *)(uintptr_t)b->in, local,
                                  B, (size_t)cs->p, B, 0);
        in = local;
    }
    if (pack_out)
        out = local + (pack_in ? row : 0);
    if (rc == MPI_SUCCESS)
        rc = pl->aggregate ? xchg_mpi_aggregate_run(pl, in, out) : leaders_run(pl, in, out);
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(cs->comm, b->out_lay, b->out, out, B, (size_t)cs->p, B, 1);
    return rc;
}
