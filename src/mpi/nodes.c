/*
 * nodes.c - which ranks of a communicator share a node, as the executor's
 * choices need it: whether every rank shares this node's memory (the
 * exchange through a shared segment needs that), and the most ranks per
 * core on any node (auto's machine grows with it: ranks waiting for a
 * partner that is not running).
 *
 * MPI says which ranks share memory (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED); the cores are this node's online processors.
 * Both answers are made the same on every rank (the node's part is the
 * whole communicator on every rank or on none; the ranks per core are
 * reduced with MPI_MAX), so every rank's auto chooses alike.
 */
#include "mpi/comm.h"

#include <unistd.h>

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
    cs->one_node = local == cs->p;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double mine = (double)local / (double)(cores > 0 ? cores : 1);
    return PMPI_Allreduce(&mine, &cs->ranks_per_core, 1, MPI_DOUBLE, MPI_MAX, cs->comm);
}
