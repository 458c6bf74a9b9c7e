/*
 * auto_nodes.c - auto's choice on ranks of several nodes: the node-aware
 * exchanges (hier.c) priced beside the flat schedule the model chose
 * (choose.c), the faster taken (docs/clusters.md, "What auto chooses").
 *
 * Priced as the executor runs them, with auto's machine (auto.c; a machine
 * file may give the network's ts and tw and a node's ts_node and tw_node):
 *   flat          every rank's messages leave its node through the node's
 *                 one port: the flat line's time once (start-ups, bytes,
 *                 copies: the K ranks' start-ups and copies run side by
 *                 side, as a NIC overlaps the latencies of the messages in
 *                 flight), and K - 1 more times its bytes alone;
 *   L leaders     (L = 1, each divisor of K, K for pairs; G = K / L) the
 *                 L lanes through the port: the inner schedule's time at
 *                 blocks of G K m once and its bytes L - 1 more times, as
 *                 flat's, every candidate of the network of
 *                 nodes; gather and scatter in groups of G (2 (G - 1)
 *                 messages of p m at the node's figures), the leaders'
 *                 exchange (L - 1 messages of N G G m), and three copies
 *                 of G p m at a leader;
 *   aggregate     (aggregate.c) the node's N - 1 messages of K K m through
 *                 the port, each rank starting its ceil((N - 1) / K) one
 *                 after another, the ranks side by side; two exchanges in
 *                 the node (K - 1 messages of O K m each, O = ceil(N / K));
 *                 four copies of p m.
 * Variable blocks (xchg_mpi_nodes_choose_v, for choose_v.c): aggregation
 * (aggregate_v.c) priced as aggregate plus its counts' exchange in the
 * node (K - 1 messages of 2 O K 8-byte words), against pairwise flat,
 * both at the one block size the caller names.
 * Not on the node-aware exchange's own communicators (its lanes: with
 * nodes emulated by XCHG_NODE_SIZE they would be cut into nodes again).
 * On unequal nodes (a last node partly full) aggregate alone is weighed,
 * priced as if every node were full; the node map, made
 * once per communicator, is collective: every rank's plan reaches here
 * alike, the ranks' one_node being agreed (nodes.c).
 */
#include "mpi/auto.h"
#include "mpi/candidates.h"
#include "mpi/plan.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* A message of b bytes within a node on mach. */
static double node_message(const xchg_machine *mach, double b)
{
    int named = mach->ts_node > 0 || mach->tw_node > 0;
    double ts = named ? mach->ts_node : mach->ts_eager > 0 ? mach->ts_eager : mach->ts;
    double tw = named ? mach->tw_node : mach->tw;
    return ts + b * tw;
}

/* The time line's bytes take at blocks of m, its start-ups and copies
 * free: what one more rank's (or lane's) share of the schedule adds
 * through its node's one port. Its start-ups overlap the first rank's:
 * pricing them K times made the flat exchange look K times dearer than
 * it runs (docs/clusters.md, "Where auto was wrong"). */
static double port_bytes(const xchg_line *line, const xchg_machine *mach, double m)
{
    xchg_machine bytes_only = *mach;
    bytes_only.ts = bytes_only.ts_eager = bytes_only.tr = 0;
    return xchg_mpi_predict(line, &bytes_only, m);
}

/* The time of L leaders a node running the inner line between the N
 * nodes of K ranks, blocks of m bytes: the lanes' bytes one after
 * another through the port, their start-ups and copies side by side. */
static double hier_time(const xchg_line *inner, const xchg_machine *mach, double m, int N, int K,
                        int L)
{
    double G = (double)(K / L), p = (double)N * K;
    double lane = G * K * m; /* a lane's node-to-node block */
    double t = xchg_mpi_predict(inner, mach, lane) + (L - 1) * port_bytes(inner, mach, lane);
    if (G > 1)
        t += 2 * (G - 1) * node_message(mach, p * m);
    if (L > 1)
        t += (L - 1) * node_message(mach, N * G * G * m);
    return t + 3 * G * p * m * mach->tr;
}

/* The time of aggregate.c's exchange between the N nodes of K ranks,
 * blocks of m bytes. */
static double aggregate_time(const xchg_machine *mach, double m, int N, int K)
{
    double O = (double)((N + K - 1) / K), p = (double)N * K;
    double starts = (double)((N - 1 + K - 1) / K);
    double between = starts * mach->ts + (N - 1) * (double)K * K * m * mach->tw;
    return between + 2 * (K - 1) * node_message(mach, O * K * m) + 4 * p * m * mach->tr;
}

/* Whether auto may weigh a node-aware exchange on cs, and the node map
 * then (made here, collective at the first plan that asks): several
 * nodes, not one a rank, and not one of the node-aware exchange's own
 * communicators. *ok 0 when it may not. An MPI error code. */
static int nodes_apply(xchg_mpi_comm *cs, int *ok)
{
    *ok = 0;
    if (cs->one_node || cs->p < 4 || xchg_mpi_lanes_own(cs->user))
        return MPI_SUCCESS;
    int rc = xchg_mpi_node_map_get(cs);
    const xchg_mpi_node_map *nm = &cs->nodes;
    *ok = rc == MPI_SUCCESS && nm->ok && nm->nnodes >= 2 && nm->nnodes != cs->p;
    return rc;
}

int xchg_mpi_nodes_choose(xchg_mpi_plan *pl, const xchg_line *flat_line, const char *flat_spec,
                          int *taken)
{
    xchg_mpi_comm *cs = pl->cs;
    const xchg_mpi_settings *s = pl->key.set;
    const xchg_machine *mach = &s->in->mach;
    *taken = 0;
    int ok = 0, rc = nodes_apply(cs, &ok);
    const xchg_mpi_node_map *nm = &cs->nodes;
    if (rc != MPI_SUCCESS || !ok)
        return rc;
    int equal = nm->fewest == nm->most;
    char nodes[64], why[400];
    xchg_topo t;
    if (!xchg_mpi_hier_topology(s, nm, cs->p, nodes, sizeof nodes, why, sizeof why) ||
        xchg_topo_parse(nodes, &t, NULL) != XCHG_OK)
        return MPI_SUCCESS;
    const xchg_mpi_lines *l = NULL;
    if ((rc = xchg_mpi_lines_get(&t, XCHG_OP_ALLTOALL, 0, 0, &l)) != MPI_SUCCESS)
        return rc;
    double m = (double)pl->block_bytes;
    int N = nm->nnodes, K = nm->most, best_l = 0;
    double flat = xchg_mpi_predict(flat_line, mach, m) + (K - 1) * port_bytes(flat_line, mach, m);
    double best = flat;
    size_t best_x = 0;
    double aggregated = aggregate_time(mach, m, N, K);
    if (aggregated < best) {
        best = aggregated;
        best_l = XCHG_MPI_AGGREGATE;
    }
    for (int L = 1; equal && l->ok && L <= K; L++) {
        if (K % L)
            continue;
        for (size_t i = 0; i < l->n; i++) {
            double time = hier_time(&l->cand[i].line, mach, m, N, K, L);
            if (time < best) {
                best = time;
                best_l = L;
                best_x = i;
            }
        }
    }
    char inner[XCHG_SPEC_MAX];
    if (best_l > 0)
        snprintf(inner, sizeof inner, "%s", l->cand[best_x].spec);
    xchg_mpi_lines_put(l);
    if (!best_l)
        return MPI_SUCCESS;
    if (best_l > 0 && xchg_mpi_mul((size_t)cs->p, pl->block_bytes) > INT_MAX)
        return MPI_SUCCESS; /* the gather's int count: flat it stays */
    xchg_mpi_plan_info flat_info = pl->info;
    rc = best_l == XCHG_MPI_AGGREGATE ? xchg_mpi_aggregate_choose(pl)
                                      : xchg_mpi_hier_choose(pl, best_l, inner);
    if (rc != MPI_SUCCESS)
        return rc;
    if (pl->fallback) { /* no room for another set of leaders: flat it stays */
        pl->info = flat_info;
        pl->fallback = pl->bad_value = 0;
        return MPI_SUCCESS;
    }
    *taken = 1;
    snprintf(pl->info.why, sizeof pl->info.why,
             "auto: %d nodes of %s%d ranks (%s): %s predicted faster (%.3g us) than %s flat "
             "(%.3g us, the node's port carrying its %d ranks' bytes) at %zu-byte blocks "
             "with %.2g ranks per core (%st_s %.3g us, t_w %.3g us/B; docs/clusters.md)",
             N, equal ? "" : "at most ", K, nm->by, pl->info.alg, best, flat_spec, flat, K,
             pl->block_bytes, cs->ranks_per_core,
             s->in->have_file_mach ? "machine file: " : "", mach->ts, mach->tw);
    return MPI_SUCCESS;
}

int xchg_mpi_nodes_choose_v(xchg_mpi_plan *pl, const xchg_line *pw, size_t m, int *taken)
{
    xchg_mpi_comm *cs = pl->cs;
    const xchg_mpi_settings *s = pl->key.set;
    const xchg_machine *mach = &s->in->mach;
    int ok = 0, rc = nodes_apply(cs, &ok);
    *taken = 0;
    if (rc != MPI_SUCCESS || !ok)
        return rc;
    const xchg_mpi_node_map *nm = &cs->nodes;
    int N = nm->nnodes, K = nm->most;
    double b = (double)m, O = (double)((N + K - 1) / K);
    /* flat pairwise as for MPI_Alltoall; aggregation as aggregate.c's, and
     * its counts (step 0 of aggregate_v.c): K - 1 messages of 2 O K
     * words within the node */
    double flat = xchg_mpi_predict(pw, mach, b) + (K - 1) * port_bytes(pw, mach, b);
    double aggregated =
        aggregate_time(mach, b, N, K) + (K - 1) * node_message(mach, 2 * O * K * 8);
    if (aggregated >= flat)
        return MPI_SUCCESS;
    if ((rc = xchg_mpi_aggregate_v_choose(pl)) != MPI_SUCCESS || pl->fallback)
        return rc;
    *taken = 1;
    snprintf(pl->info.why, sizeof pl->info.why,
             "auto: %d nodes of %s%d ranks (%s): aggregate predicted faster (%.3g us) than "
             "pairwise flat (%.3g us, the node's port carrying its %d ranks' bytes) at "
             "%zu-byte blocks, the size auto prices variable blocks at, with %.2g ranks per "
             "core (%st_s %.3g us, t_w %.3g us/B; docs/alltoallv.md)",
             N, nm->fewest == nm->most ? "" : "at most ", K, nm->by, aggregated, flat, K, m,
             cs->ranks_per_core, s->in->have_file_mach ? "machine file: " : "", mach->ts,
             mach->tw);
    return MPI_SUCCESS;
}
