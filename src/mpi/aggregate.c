/*
 * aggregate.c - the node-aware complete exchange by locality-aware
 * aggregation (docs/clusters.md; the scheme of Bienz et al.'s
 * mpi-advance/locality_aware, SC'25 workshops), forced with the spec
 * "aggregate" or auto's choice on several nodes (auto_nodes.c).
 *
 * Every rank of a node takes a share of the node's links to the other
 * nodes: with N nodes, node a holding K_a ranks (K at most, places padded
 * to K) and blocks of B bytes, place l of node n owns the nodes b with
 * b mod K_n = l, in slot t = b / K_n of O = ceil(N / K_n) slots.
 *   1. The node's ranks exchange (xchg's exchange on the node, through the
 *      one call path: the shared segment where memory is shared): from
 *      place s to place l go s's blocks for every rank of each node l
 *      owns, O x K blocks, and s's one block for l itself, which is final.
 *   2. Each rank sends each node b it owns (but its own) one message of
 *      K_n x K blocks, from every place here to every place there, to
 *      the rank of b that owns n, and receives as much from it: N - 1
 *      messages of K^2 B leave a node, as with one leader, but from all of
 *      its ranks at once and with no gather or scatter.
 *   3. The node's ranks exchange again: to place j go the blocks bound to
 *      j from every node this rank owns, O x K blocks.
 * Copies: four passes over a rank's p blocks (packing 1, laying 2's
 * messages out, packing 3, unpacking 3). Any node sizes and placement;
 * the messages of step 2 go directly, whatever the network of nodes.
 */
#include "mpi/call.h"

#include <stdio.h>
#include <string.h>

/* The largest slot count of any node: ceil(N / fewest). */
static size_t most_slots(const xchg_mpi_node_map *m)
{
    return ((size_t)m->nnodes + (size_t)m->fewest - 1) / (size_t)m->fewest;
}

/* Each of the two buffers: step 1's K messages of O K + 1 blocks, step
 * 2's O messages of K x K, step 3's K of O K (the largest O, so that every
 * rank carves alike). */
size_t xchg_mpi_aggregate_buffer(const xchg_mpi_plan *pl)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    size_t K = (size_t)m->most, O = most_slots(m);
    return xchg_mpi_mul(xchg_mpi_add(xchg_mpi_mul(O, K * K), K), pl->block_bytes);
}

size_t xchg_mpi_aggregate_requests(const xchg_mpi_plan *pl)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    size_t K = (size_t)m->most;
    return 2 * most_slots(m) * xchg_mpi_pieces(xchg_mpi_mul(K * K, pl->block_bytes));
}

int xchg_mpi_aggregate_begin(xchg_mpi_plan *pl, const xchg_mpi_node_map **out)
{
    *out = NULL;
    int rc = xchg_mpi_node_map_get(pl->cs);
    if (rc != MPI_SUCCESS)
        return rc;
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    if (!m->ok) {
        pl->bad_value = 1; /* asked for where it cannot run */
        xchg_mpi_fall_back(pl, "aggregate: %s", m->why);
        return MPI_SUCCESS;
    }
    pl->bad_value = 0;
    pl->aggregate = 1;
    snprintf(pl->info.alg, sizeof pl->info.alg, "aggregate");
    snprintf(pl->info.topology, sizeof pl->info.topology, "complete:%d", m->nnodes);
    *out = m;
    return MPI_SUCCESS;
}

int xchg_mpi_aggregate_choose(xchg_mpi_plan *pl)
{
    const xchg_mpi_node_map *m;
    int rc = xchg_mpi_aggregate_begin(pl, &m);
    if (rc != MPI_SUCCESS || !m)
        return rc;
    snprintf(pl->info.why, sizeof pl->info.why,
             "asked for: %d nodes of %d%s ranks (%s), every rank sending up to %zu of its node's "
             "messages of %zu bytes to other nodes directly",
             m->nnodes, m->most, m->fewest != m->most ? " or fewer" : "", m->by, most_slots(m),
             xchg_mpi_mul((size_t)m->most * (size_t)m->most, pl->block_bytes));
    return MPI_SUCCESS;
}

/* xchg's exchange of n bytes a rank from s into r among this node's ranks
 * (node_comm, marked as the node-aware exchange's own: auto stays flat
 * there). An MPI error code. */
static int node_exchange(const xchg_mpi_plan *pl, const unsigned char *s, unsigned char *r,
                         size_t n)
{
    return xchg_mpi_hier_exchange(pl, pl->cs->nodes.node_comm, "auto", "auto", s, r, n);
}

/* Copy node b's blocks, one a place, from `from` to `to`: gather, from
 * their ranks' places in from into a row at to (place order); else from a
 * row at from to their ranks' places in to. One copy where b's ranks are
 * consecutive (ranks placed block-wise). */
static void node_row(const xchg_mpi_node_map *m, size_t b, const unsigned char *from,
                     unsigned char *to, size_t B, int gather, xchg_mpi_tally *t)
{
    size_t K = (size_t)m->most, Kb = (size_t)m->size_of[b];
    const int *r = m->rank_of + b * K;
    size_t j = 1;
    while (j < Kb && r[j] == r[0] + (int)j)
        j++;
    if (j == Kb) {
        size_t at = (size_t)r[0] * B;
        xchg_mpi_copy(gather ? to : to + at, gather ? from + at : from, Kb * B, t);
        return;
    }
    for (j = 0; j < Kb; j++) {
        size_t at = (size_t)r[j] * B;
        xchg_mpi_copy(gather ? to + j * B : to + at, gather ? from + at : from + j * B, B, t);
    }
}

/* Step 1's packing, into y: to place d, for each slot t the blocks for
 * the K places of node t K_n + d (when it is another node), then the one
 * block for d itself. */
static void pack_owned(const xchg_mpi_node_map *m, const unsigned char *in, unsigned char *y,
                       size_t B, size_t O)
{
    size_t K = (size_t)m->most, N = (size_t)m->nnodes, n = (size_t)m->node;
    size_t Kn = (size_t)m->size_of[n], msg = (O * K + 1) * B;
    xchg_mpi_tally tally = {0, 0};
    for (size_t d = 0; d < Kn; d++) {
        unsigned char *to = y + d * msg;
        for (size_t t = 0; t < O; t++) {
            size_t b = t * Kn + d;
            if (b < N && b != n)
                node_row(m, b, in, to + t * K * B, B, 1, &tally);
        }
        xchg_mpi_copy(to + O * K * B, in + (size_t)m->rank_of[n * K + d] * B, B, &tally);
    }
    xchg_mpi_charge_tally(&tally);
}

/* Step 2: the messages to and from the nodes this rank owns. x holds
 * step 1's result ([s][t][j], K_n messages of O K + 1 blocks); it is laid
 * out by node into y ([t][s][j]) and sent from there, and what comes is
 * received into x ([t][s][j], slots of K x K). An MPI error code. */
static int between_nodes(xchg_mpi_plan *pl, unsigned char *x, unsigned char *y, size_t O)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    size_t B = pl->block_bytes, K = (size_t)m->most, N = (size_t)m->nnodes;
    size_t n = (size_t)m->node, l = (size_t)m->local, Kn = (size_t)m->size_of[n];
    size_t msg = (O * K + 1) * B, row = K * B;
    xchg_mpi_tally tally = {0, 0};
    for (size_t t = 0; t < O; t++)
        for (size_t s = 0; s < Kn; s++)
            xchg_mpi_copy(y + (t * Kn + s) * row, x + s * msg + t * row, row, &tally);
    xchg_mpi_charge_tally(&tally);
    MPI_Request *reqs = (MPI_Request *)(void *)xchg_mpi_at(pl, pl->carve.reqs);
    size_t nreq = 0;
    int rc = MPI_SUCCESS;
    for (int send = 0; send < 2 && rc == MPI_SUCCESS; send++)
        for (size_t t = 0; t < O && rc == MPI_SUCCESS; t++) {
            size_t b = t * Kn + l;
            if (b >= N || b == n)
                continue;
            size_t Kb = (size_t)m->size_of[b];
            int peer = m->rank_of[b * K + n % Kb];
            rc = send ? xchg_mpi_post(pl->cs->comm, 0, y + t * Kn * row, Kn * row, peer, reqs,
                                      &nreq)
                      : xchg_mpi_post(pl->cs->comm, 1, x + t * K * row, Kb * row, peer, reqs,
                                      &nreq);
        }
    MPI_Status *statuses = (MPI_Status *)(void *)xchg_mpi_at(pl, pl->carve.statuses);
    int wrc = nreq ? MPI_Waitall((int)nreq, reqs, statuses) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? wrc : rc;
}

/* Step 3's packing, into y: to place j, for each slot t the blocks from
 * the K places of node t K_n + l (x: [t][s][j]). */
static void pack_arrived(const xchg_mpi_node_map *m, const unsigned char *x, unsigned char *y,
                         size_t B, size_t O)
{
    size_t K = (size_t)m->most, N = (size_t)m->nnodes, n = (size_t)m->node;
    size_t l = (size_t)m->local, Kn = (size_t)m->size_of[n];
    xchg_mpi_tally tally = {0, 0};
    for (size_t j = 0; j < Kn; j++)
        for (size_t t = 0; t < O; t++) {
            size_t b = t * Kn + l;
            if (b >= N || b == n)
                continue;
            for (size_t s = 0; s < (size_t)m->size_of[b]; s++)
                xchg_mpi_copy(y + ((j * O + t) * K + s) * B, x + ((t * K + s) * K + j) * B, B,
                              &tally);
        }
    xchg_mpi_charge_tally(&tally);
}

/* Step 3's result in x ([d][t][s]: from place s of node t K_n + d) laid
 * out by rank into out. */
static void unpack_arrived(const xchg_mpi_node_map *m, const unsigned char *x, unsigned char *out,
                           size_t B, size_t O)
{
    size_t K = (size_t)m->most, N = (size_t)m->nnodes, n = (size_t)m->node;
    size_t Kn = (size_t)m->size_of[n];
    xchg_mpi_tally tally = {0, 0};
    for (size_t d = 0; d < Kn; d++)
        for (size_t t = 0; t < O; t++) {
            size_t b = t * Kn + d;
            if (b < N && b != n)
                node_row(m, b, x + (d * O + t) * K * B, out, B, 0, &tally);
        }
    xchg_mpi_charge_tally(&tally);
}

int xchg_mpi_aggregate_run(xchg_mpi_plan *pl, const unsigned char *in, unsigned char *out)
{
    const xchg_mpi_node_map *m = &pl->cs->nodes;
    size_t B = pl->block_bytes, K = (size_t)m->most, n = (size_t)m->node;
    size_t Kn = (size_t)m->size_of[n];
    size_t O = ((size_t)m->nnodes + Kn - 1) / Kn, msg = (O * K + 1) * B;
    unsigned char *x = xchg_mpi_at(pl, pl->carve.scratch);
    unsigned char *y = xchg_mpi_at(pl, pl->carve.send_pack);
    pack_owned(m, in, y, B, O);
    int rc = node_exchange(pl, y, x, msg);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the blocks from this node's places, final now (before x is reused) */
    xchg_mpi_tally tally = {0, 0};
    for (size_t s = 0; s < Kn; s++)
        xchg_mpi_copy(out + (size_t)m->rank_of[n * K + s] * B, x + s * msg + O * K * B, B,
                      &tally);
    xchg_mpi_charge_tally(&tally);
    if ((rc = between_nodes(pl, x, y, O)) != MPI_SUCCESS)
        return rc;
    pack_arrived(m, x, y, B, O);
    if ((rc = node_exchange(pl, y, x, O * K * B)) != MPI_SUCCESS)
        return rc;
    unpack_arrived(m, x, out, B, O);
    return MPI_SUCCESS;
}
