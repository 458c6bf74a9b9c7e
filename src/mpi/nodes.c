/*
 * nodes.c - which ranks of a communicator share a node, as the executor's
 * choices need it: whether every rank shares this node's memory (the
 * exchange through a shared segment needs that), and the most ranks per
 * core on any node (auto's machine grows with it: ranks waiting for a
 * partner that is not running).
 *
 * MPI says which ranks share memory (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED), unless XCHG_NODE_SIZE=K emulates nodes of K ranks
 * (node_map.c); the cores are this node's online processors (under
 * SimGrid's SMPI, the simulated host's cores).
 * Both answers are made the same on every rank by one MPI_Allreduce, so
 * every rank's auto chooses alike: MPI says the node's part is the whole
 * communicator on every rank or on none, but SimGrid's SMPI 3.32 may
 * give one rank of a host a smaller part than the others (seen with
 * ranks placed several to a host), so this rank's answer alone is not
 * trusted.
 */
#include "mpi/comm.h"

#include <unistd.h>

#ifdef SMPI_H
#include <simgrid/host.h>

/* Under SimGrid's SMPI (smpicc defines SMPI_H) every rank runs in this one
 * process: the cores are those of the simulated host the rank is on. */
static long cores_of_node(void)
{
    return sg_host_core_count(sg_host_self());
}
#else
static long cores_of_node(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN);
}
#endif

int xchg_mpi_nodes(xchg_mpi_comm *cs)
{
    MPI_Comm node;
    int local = 1;
    cs->collectives += 2; /* the split and the reduction */
    int rc = MPI_Comm_split_type(cs->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_size(node, &local);
    int frc = MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS)
        rc = frc;
    if (rc != MPI_SUCCESS)
        return rc;
    /* one reduction (MPI_MAX) of this rank's ranks per core, and of 1
     * when its node lacks a rank of the communicator: one_node only when
     * every rank saw the whole communicator on its node */
    long cores = cores_of_node();
    /* nodes emulated with XCHG_NODE_SIZE=K (node_map.c) are nodes to auto
     * too: the ranks share one only when K holds them all */
    char why[8];
    int cyclic, k = xchg_mpi_node_size_env(&cyclic, why, sizeof why);
    int apart = local < cs->p || (k > 0 && k < cs->p);
    double mine[2] = {(double)local / (double)(cores > 0 ? cores : 1), apart ? 1.0 : 0.0};
    double most[2];
    rc = PMPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, cs->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    cs->ranks_per_core = most[0];
    cs->one_node = most[1] == 0.0;
    return MPI_SUCCESS;
}
