/*
 * dropin_large.c - the drop-in's MPI 4 large-count entry points:
 * MPI_Alltoall_c, MPI_Bcast_c, MPI_Reduce_c, MPI_Allreduce_c,
 * MPI_Reduce_scatter_block_c, MPI_Scan_c, MPI_Allgather_c, MPI_Gather_c,
 * MPI_Scatter_c, MPI_Alltoallv_c and MPI_Alltoallw_c, whose counts are
 * MPI_Count (and the last two's displacements MPI_Aint). Built where the MPI has
 * them (MPI_VERSION >= 4: MPICH 4; Open MPI 4.1 and SimGrid's SMPI are
 * MPI 3 and the file is empty there).
 *
 * Each goes where its int-count sibling goes (dropin.c, dropin_ops.c): the
 * executor's call, which takes MPI_Count counts as they are and passes
 * what it does not carry to the library's _c call when a count is above
 * INT_MAX (pass.c, library.h); or, with xchg off or from inside
 * xchg, the library's _c call directly.
 */
#include "mpi/dropin_internal.h"

#if MPI_VERSION >= 4

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_dropin_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Bcast_c(buf, count, type, root, comm),
                     xchg_mpi_bcast(buf, count, type, root, comm, o));
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                 int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm),
                     xchg_mpi_reduce(sendbuf, recvbuf, count, type, op, root, comm, o));
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm),
                     xchg_mpi_allreduce(sendbuf, recvbuf, count, type, op, comm, o));
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm),
                     xchg_mpi_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, o));
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Scan_c(sendbuf, recvbuf, count, type, op, comm),
                     xchg_mpi_scan(sendbuf, recvbuf, count, type, op, comm, o));
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        xchg_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, o));
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        xchg_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, o));
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        xchg_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         o));
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    XCHG_DROPIN_BODY_V(PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                      rdispls, recvtype, comm),
                     xchg_mpi_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, o));
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    XCHG_DROPIN_BODY_V(PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                      recvcounts, rdispls, recvtypes, comm),
                     xchg_mpi_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                          recvcounts, rdispls, recvtypes, comm, o));
}

#else
/* An MPI before version 4: no large-count calls to stand in for. */
typedef int xchg_dropin_large_none;
#endif
