/*
 * dropin_ops.c - the drop-in for the other operations: with
 * LD_PRELOAD=libxchg_mpi.so an unmodified program's MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Scan, MPI_Allgather,
 * MPI_Gather, MPI_Scatter, MPI_Alltoallv and MPI_Alltoallw run through xchg's executor (docs/mpi-ops.md),
 * with the same environment as MPI_Alltoall (dropin.c: XCHG_DISABLE,
 * XCHG_ALG, which may name one algorithm per operation, XCHG_TOPOLOGY,
 * XCHG_VERBOSE, XCHG_TUNING_FILE, XCHG_MACHINE_FILE).
 *
 * Each function hands its arguments to the executor's call, which picks
 * the algorithm and passes anything it does not handle to the MPI
 * library's own (PMPI_) call; when xchg is off, or for a call made from
 * inside xchg, the function calls PMPI_ itself. No algorithm knowledge
 * lives here. A shift has no MPI collective to stand in for (MPI_Sendrecv
 * is point-to-point), so it is the library's xchg_mpi_shift only. Fortran
 * callers under Open MPI reach PMPI_ directly: dropin_fortran_ops.c defines
 * their routines, which call the functions here.
 */
#include "mpi/dropin_internal.h"

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Bcast(buf, count, type, root, comm),
                     xchg_mpi_bcast(buf, count, type, root, comm, o));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
                     xchg_mpi_reduce(sendbuf, recvbuf, count, type, op, root, comm, o));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
                     xchg_mpi_allreduce(sendbuf, recvbuf, count, type, op, comm, o));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
                     xchg_mpi_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, o));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    XCHG_DROPIN_BODY(PMPI_Scan(sendbuf, recvbuf, count, type, op, comm),
                     xchg_mpi_scan(sendbuf, recvbuf, count, type, op, comm, o));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        xchg_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, o));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        xchg_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, o));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    XCHG_DROPIN_BODY(
        PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        xchg_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         o));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    XCHG_DROPIN_BODY_V(PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm),
                     xchg_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                        recvcounts, rdispls, recvtype, comm, o));
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    XCHG_DROPIN_BODY_V(PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                    rdispls, recvtypes, comm),
                     xchg_mpi_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm, o));
}
