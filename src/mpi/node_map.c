/*
 * node_map.c - which node each rank of a communicator is on, for the
 * node-aware exchange (hier.c): a communicator of each node's ranks, one
 * of the nodes' first ranks, and a table of every rank's node and place.
 * Made once per communicator, at the first plan that asks (collective:
 * every rank's plan for one call asks at once), and kept with it.
 *
 * The ranks are grouped by MPI_COMM_TYPE_SHARED (under SimGrid's SMPI, by
 * simulated host: below), or by XCHG_NODE_SIZE=K,
 * which makes ranks K*n to K*n+K-1 node n whatever shares memory: nodes
 * emulated on one machine, for tests (MPICH's MPIR_CVAR_NUM_CLIQUES does
 * the same inside the library, and MPI_COMM_TYPE_SHARED follows it); with
 * XCHG_NODE_PLACEMENT=cyclic, rank r is on node r mod N instead, for N =
 * ceil(p / K) nodes (ranks dealt round-robin, as MPICH's
 * MPIR_CVAR_ODD_EVEN_CLIQUES or `mpirun --map-by node` place them). In a
 * node, places follow the ranks; nodes are numbered by their lowest rank.
 * Nodes may hold unequal numbers of ranks (a last node partly full): the
 * exchange between nodes pads every node to the fullest one's places.
 *
 * For L leaders a node (hier.c) the places of each node are cut into
 * groups of G = ceil(most / L), each led by its first place: three more
 * communicators (the group, the lane of group l's leaders across the
 * nodes, the leaders of one node), made at the first plan that asks for
 * that L and kept, a few sets a communicator.
 */
#include "mpi/comm.h"

#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xchg_mpi_node_size_env(int *cyclic, char *why, size_t len)
{
    const char *v = getenv("XCHG_NODE_SIZE"), *place = getenv("XCHG_NODE_PLACEMENT");
    *cyclic = place && !strcmp(place, "cyclic");
    if (place && *place && !*cyclic && strcmp(place, "block")) {
        snprintf(why, len, "XCHG_NODE_PLACEMENT=%.40s is not a placement; accepted: block, cyclic",
                 place);
        return -1;
    }
    if (!v || !*v)
        return 0;
    char *end = NULL;
    errno = 0;
    long k = strtol(v, &end, 10);
    if (errno || *end || k < 1 || k > INT_MAX) {
        snprintf(why, len, "XCHG_NODE_SIZE=%.40s is not a count of ranks; accepted: 1 or more", v);
        return -1;
    }
    return (int)k;
}

/* Every rank's n bytes at mine, in rank order into all (n * p bytes), on
 * cs->comm: a gather and a broadcast, where one MPI_Allgather would do,
 * because SimGrid's SMPI 3.32 takes seconds of real time to simulate its
 * default MPI_Allgather on a hundred ranks (minutes on 256). An MPI
 * error code. */
static int everyones(xchg_mpi_comm *cs, const void *mine, int n, void *all)
{
    cs->collectives += 2;
    int rc = PMPI_Gather(mine, n, MPI_BYTE, all, n, MPI_BYTE, 0, cs->comm);
    return rc == MPI_SUCCESS ? PMPI_Bcast(all, n * cs->p, MPI_BYTE, 0, cs->comm) : rc;
}

static int mark_own(MPI_Comm c);

#ifdef SMPI_H
/* Under SimGrid's SMPI (smpicc defines SMPI_H) a node is a simulated host,
 * told by its name: SMPI 3.32's MPI_COMM_TYPE_SHARED split may leave a
 * host's ranks in groups that disagree (nodes.c), whose collectives would
 * never end. *color: the lowest rank on this rank's host. An MPI error
 * code. */
static int host_color(xchg_mpi_comm *cs, int *color)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0, rc = MPI_Get_processor_name(mine, &len);
    char *all = malloc((size_t)cs->p * MPI_MAX_PROCESSOR_NAME);
    if (!all)
        return MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = everyones(cs, mine, MPI_MAX_PROCESSOR_NAME, all);
    *color = cs->rank;
    for (int r = 0; rc == MPI_SUCCESS && r < cs->rank; r++)
        if (!strncmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, mine, MPI_MAX_PROCESSOR_NAME)) {
            *color = r;
            break;
        }
    free(all);
    return rc;
}
#endif

/* The groups and this rank's place (k ranks a node, cyclic or block, or
 * k = 0: by shared memory): node_comm, leader_comm, local, node, nnodes;
 * *here, the ranks of this rank's node. An MPI error code. */
static int split(xchg_mpi_comm *cs, int k, int cyclic, int *here)
{
    xchg_mpi_node_map *m = &cs->nodes;
    int color = k > 0 && cyclic ? cs->rank % ((cs->p - 1) / k + 1) : k > 0 ? cs->rank / k : 0;
    m->by = k > 0 ? "XCHG_NODE_SIZE" : "shared memory";
#ifdef SMPI_H
    if (k == 0) {
        m->by = "simulated host";
        int hrc = host_color(cs, &color);
        if (hrc != MPI_SUCCESS)
            return hrc;
        k = -1; /* split by that color */
    }
#endif
    int rc = k != 0 ? MPI_Comm_split(cs->comm, color, cs->rank, &m->node_comm)
                    : MPI_Comm_split_type(cs->comm, MPI_COMM_TYPE_SHARED, cs->rank,
                                          MPI_INFO_NULL, &m->node_comm);
    cs->collectives++;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(m->node_comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) /* aggregate.c's exchanges within the node run there */
        rc = mark_own(m->node_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(m->node_comm, &m->local);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(m->node_comm, here);
    if (rc != MPI_SUCCESS)
        return rc;
    cs->collectives++;
    rc = MPI_Comm_split(cs->comm, m->local == 0 ? 0 : MPI_UNDEFINED, cs->rank, &m->leader_comm);
    int first[2] = {0, 0}; /* this node's number, and the nodes */
    if (rc == MPI_SUCCESS && m->leader_comm != MPI_COMM_NULL) {
        rc = MPI_Comm_set_errhandler(m->leader_comm, MPI_ERRORS_RETURN);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_rank(m->leader_comm, &first[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_size(m->leader_comm, &first[1]);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(first, 2, MPI_INT, 0, m->node_comm);
    m->node = first[0];
    m->nnodes = first[1];
    return rc;
}

int xchg_mpi_node_map_get(xchg_mpi_comm *cs)
{
    xchg_mpi_node_map *m = &cs->nodes;
    if (m->made)
        return MPI_SUCCESS;
    m->made = 1;
    int cyclic = 0, k = xchg_mpi_node_size_env(&cyclic, m->why, sizeof m->why);
    if (k < 0)
        return MPI_SUCCESS;
    int p = cs->p, here = 0;
    int *all = malloc(3 * (size_t)p * sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;
    int rc = split(cs, k, cyclic, &here);
    int mine[3] = {m->node, m->local, here};
    if (rc == MPI_SUCCESS)
        rc = everyones(cs, mine, (int)sizeof mine, all);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    m->most = 0;
    m->fewest = p;
    for (int r = 0; r < p; r++) {
        m->most = all[3 * r + 2] > m->most ? all[3 * r + 2] : m->most;
        m->fewest = all[3 * r + 2] < m->fewest ? all[3 * r + 2] : m->fewest;
    }
    size_t places = (size_t)m->nnodes * (size_t)m->most;
    m->rank_of = malloc(places * sizeof *m->rank_of);
    m->size_of = malloc((size_t)m->nnodes * sizeof *m->size_of);
    if (!m->rank_of || !m->size_of) {
        free(all);
        return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; i < places; i++)
        m->rank_of[i] = -1;
    for (int r = 0; r < p; r++) {
        m->rank_of[(size_t)all[3 * r] * (size_t)m->most + (size_t)all[3 * r + 1]] = r;
        m->size_of[all[3 * r]] = all[3 * r + 2];
    }
    free(all);
    m->ok = 1;
    return MPI_SUCCESS;
}

/* The attribute that marks the node-aware exchange's own communicators:
 * made once per process, at the first set of groups. */
static pthread_once_t own_once = PTHREAD_ONCE_INIT;
static int own_keyval = MPI_KEYVAL_INVALID;

static void own_keyval_make(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &own_keyval, NULL) !=
        MPI_SUCCESS)
        own_keyval = MPI_KEYVAL_INVALID;
}

int xchg_mpi_lanes_own(MPI_Comm comm)
{
    void *v = NULL;
    int found = 0;
    return own_keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL &&
           MPI_Comm_get_attr(comm, own_keyval, &v, &found) == MPI_SUCCESS && found;
}

/* Mark c (when not MPI_COMM_NULL) as the node-aware exchange's own. An
 * MPI error code. */
static int mark_own(MPI_Comm c)
{
    pthread_once(&own_once, own_keyval_make);
    if (c == MPI_COMM_NULL || own_keyval == MPI_KEYVAL_INVALID)
        return MPI_SUCCESS;
    return MPI_Comm_set_attr(c, own_keyval, (void *)1);
}

/* Make the groups for L leaders a node into *g (collective on cs->comm):
 * three splits, or one when L = 1 (the node map's own communicators). An
 * MPI error code. */
static int lanes_make(xchg_mpi_comm *cs, int leaders, xchg_mpi_lanes *g)
{
    xchg_mpi_node_map *m = &cs->nodes;
    *g = (xchg_mpi_lanes){.leaders = leaders,
                          .group = (m->most + leaders - 1) / leaders,
                          .group_comm = MPI_COMM_NULL,
                          .lane_comm = MPI_COMM_NULL,
                          .lead_comm = MPI_COMM_NULL};
    if (leaders == 1) { /* the node, and the nodes' first ranks */
        g->group_comm = m->node_comm;
        g->lane_comm = m->leader_comm;
        return mark_own(g->lane_comm);
    }
    g->owned = 1;
    int lead = m->local % g->group == 0, l = m->local / g->group, rc = MPI_SUCCESS;
    cs->collectives += 2;
    if (g->group > 1)
        rc = MPI_Comm_split(m->node_comm, l, m->local, &g->group_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(cs->comm, lead ? l : MPI_UNDEFINED, m->node, &g->lane_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(m->node_comm, lead ? 0 : MPI_UNDEFINED, m->local, &g->lead_comm);
    MPI_Comm *c[3] = {&g->group_comm, &g->lane_comm, &g->lead_comm};
    for (int i = 0; rc == MPI_SUCCESS && i < 3; i++)
        if (*c[i] != MPI_COMM_NULL) {
            rc = MPI_Comm_set_errhandler(*c[i], MPI_ERRORS_RETURN);
            if (rc == MPI_SUCCESS)
                rc = mark_own(*c[i]);
        }
    return rc;
}

int xchg_mpi_lanes_get(xchg_mpi_comm *cs, int leaders, const xchg_mpi_lanes **out)
{
    xchg_mpi_node_map *m = &cs->nodes;
    *out = NULL;
    for (int i = 0; i < m->nlanes; i++)
        if (m->lanes[i].leaders == leaders) {
            *out = &m->lanes[i];
            return MPI_SUCCESS;
        }
    if (m->nlanes == XCHG_MPI_MAX_LANES)
        return MPI_SUCCESS;
    xchg_mpi_lanes *g = &m->lanes[m->nlanes++];
    int rc = lanes_make(cs, leaders, g);
    *out = g;
    return rc;
}

/* Free what one set of groups holds (its own communicators). */
static void lanes_free(xchg_mpi_lanes *g)
{
    MPI_Comm *c[3] = {&g->group_comm, &g->lane_comm, &g->lead_comm};
    for (int i = 0; g->owned && i < 3; i++)
        if (*c[i] != MPI_COMM_NULL)
            MPI_Comm_free(c[i]);
}

void xchg_mpi_node_map_free(xchg_mpi_node_map *m)
{
    int fin = 1;
    if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) {
        for (int i = 0; i < m->nlanes; i++)
            lanes_free(&m->lanes[i]);
        if (m->node_comm != MPI_COMM_NULL)
            MPI_Comm_free(&m->node_comm);
        if (m->leader_comm != MPI_COMM_NULL)
            MPI_Comm_free(&m->leader_comm);
    }
    m->nlanes = 0;
    free(m->rank_of);
    free(m->size_of);
    m->rank_of = m->size_of = NULL;
}
