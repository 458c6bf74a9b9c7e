/*
 * leader.c - the complete exchange through one leader a node, the first
 * node-aware variant (docs/mpi.md, "Through one leader a node"): forced
 * with the spec "leader" or "leader:INNER"; auto does not choose it yet.
 *
 * With N nodes of K ranks each (node_map.c) and blocks of B bytes:
 *   1. each node's ranks gather their p blocks at the node's first rank,
 *      its leader (the MPI library's MPI_Gather on the node);
 *   2. the leader lays them out by destination node: to node b goes one
 *      block of K x K x B bytes, every (rank of its own node, rank of b)
 *      pair;
 *   3. the leaders exchange those blocks among themselves with xchg's own
 *      exchange on their communicator (INNER: any exchange that runs on
 *      complete:N, or auto), through the same call path as a user's call;
 *   4. each leader lays what it received out by rank of its node and
 *      scatters it (MPI_Scatter on the node).
 * So N(N-1) messages cross between nodes instead of p(p-1), each K^2
 * times as large, at the price of two copies of every block at the
 * leader and the gather and scatter within the node.
 *
 * What it needs: nodes of equal size, and a rank's p blocks within an int
 * count of bytes (the gather's); otherwise the plan falls back to the MPI
 * library's call, saying why. The leader's two buffers of K x p x B bytes
 * are carved on every rank (the store's size is agreed).
 */
#include "mpi/call.h"
#include "mpi/candidates.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int xchg_mpi_leader_choose(xchg_mpi_plan *pl, const char *inner)
{
    xchg_mpi_comm *cs = pl->cs;
    int rc = xchg_mpi_node_map_get(cs);
    if (rc != MPI_SUCCESS)
        return rc;
    const xchg_mpi_node_map *m = &cs->nodes;
    pl->bad_value = 1;
    snprintf(pl->info.alg, sizeof pl->info.alg, "leader:%.50s", inner);
    if (!m->ok) {
        xchg_mpi_fall_back(pl, "leader: %s", m->why);
        return MPI_SUCCESS;
    }
    size_t row = xchg_mpi_mul((size_t)cs->p, pl->block_bytes);
    if (row > INT_MAX) {
        xchg_mpi_fall_back(pl, "leader: a rank's %zu bytes pass the node gather's int count",
                           row);
        return MPI_SUCCESS;
    }
    char nodes[32];
    snprintf(nodes, sizeof nodes, "complete:%d", m->nnodes);
    snprintf(pl->info.topology, sizeof pl->info.topology, "%s", nodes);
    xchg_topo t;
    xchg_err err = {{0}};
    if (strcmp(inner, "auto") && (xchg_topo_parse(nodes, &t, &err) != XCHG_OK ||
                                  !xchg_mpi_exchange_runs(inner, &t, &err))) {
        xchg_mpi_fall_back(pl, "leader: between the %d nodes, %.300s", m->nnodes, err.msg);
        return MPI_SUCCESS;
    }
    pl->bad_value = 0;
    pl->leader = 1;
    snprintf(pl->leader_inner, sizeof pl->leader_inner, "%s", inner);
    snprintf(pl->info.why, sizeof pl->info.why,
             "asked for: %d nodes of %d ranks (%s), their leaders exchanging blocks of %zu bytes "
             "by %s",
             m->nnodes, m->size, m->by,
             xchg_mpi_mul(xchg_mpi_mul((size_t)m->size, (size_t)m->size), pl->block_bytes),
             inner);
    return MPI_SUCCESS;
}

/* The leaders' exchange of the node-to-node blocks at s into r (K^2 B
 * bytes each) on the leaders' communicator, through the one call path;
 * the last call's info stays pl's. An MPI error code. */
static int between_nodes(xchg_mpi_plan *pl, const unsigned char *s, unsigned char *r)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    MPI_Count n = (MPI_Count)m->size * m->size * (MPI_Count)pl->block_bytes;
    xchg_mpi_opts inner = {.alg = pl->leader_inner, .topology = "auto"};
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                         .sendbuf = s,
                         .recvbuf = r,
                         .scount = n,
                         .rcount = n,
                         .stype = MPI_BYTE,
                         .rtype = MPI_BYTE,
                         .comm = m->leader_comm,
                         .opts = &inner};
    int rc = xchg_mpi_call_checked(&a);
    xchg_mpi_remember(pl);
    return rc;
}

int xchg_mpi_leader_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    xchg_mpi_comm *cs = pl->cs;
    const xchg_mpi_node_map *m = &cs->nodes;
    size_t B = pl->block_bytes, K = (size_t)m->size, N = (size_t)m->nnodes;
    size_t row = (size_t)cs->p * B; /* one rank's blocks */
    if (B == 0)
        return MPI_SUCCESS;
    /* a derived datatype's blocks: packed to this rank's staging first */
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
    unsigned char *g = xchg_mpi_at(pl, pl->carve.scratch);   /* K rows, by rank of the node */
    unsigned char *s = xchg_mpi_at(pl, pl->carve.send_pack); /* K^2 B a node, by node */
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Gather(in, (int)row, MPI_BYTE, g, (int)row, MPI_BYTE, 0, m->node_comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int between = MPI_SUCCESS;
    if (m->local == 0) {
        /* to node d: from place i here to place j there */
        for (size_t d = 0; d < N; d++)
            for (size_t i = 0; i < K; i++)
                for (size_t j = 0; j < K; j++)
                    memcpy(s + ((d * K + i) * K + j) * B,
                           g + i * row + (size_t)m->rank_of[d * K + j] * B, B);
        between = between_nodes(pl, s, g);
        /* from place i of node a to place j here: row j, at the sender's rank */
        for (size_t a = 0; between == MPI_SUCCESS && a < N; a++)
            for (size_t i = 0; i < K; i++)
                for (size_t j = 0; j < K; j++)
                    memcpy(s + j * row + (size_t)m->rank_of[a * K + i] * B,
                           g + ((a * K + i) * K + j) * B, B);
    }
    /* the leader scatters whatever came of the exchange between nodes, so
     * that its node's ranks do not wait; its error is its own to return */
    rc = PMPI_Scatter(s, (int)row, MPI_BYTE, out, (int)row, MPI_BYTE, 0, m->node_comm);
    if (between != MPI_SUCCESS)
        return between;
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(cs->comm, b->out_lay, b->out, out, B, (size_t)cs->p, B, 1);
    return rc;
}
