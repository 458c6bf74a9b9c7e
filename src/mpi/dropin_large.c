/*
 * dropin_large.c - the drop-in's MPI 4 large-count entry points:
 * MPI_Alltoall_c, MPI_Bcast_c, MPI_Reduce_c, MPI_Allreduce_c,
 * MPI_Reduce_scatter_block_c, MPI_Scan_c, MPI_Allgather_c, MPI_Gather_c
 * and MPI_Scatter_c, whose counts are MPI_Count. Built where the MPI has
 * them (MPI_VERSION >= 4: MPICH 4; Open MPI 4.1 and SimGrid's SMPI are
 * MPI 3 and the file is empty there).
 *
 * Each goes where its int-count sibling goes (dropin.c, dropin_ops.c): the
 * executor's call, which takes MPI_Count counts as they are and passes
 * what it does not carry to the library's _c call when a count is above
 * INT_MAX (op_calls.c, alltoall.c); or, with xchg off or from inside
 * xchg, the library's _c call directly.
 */
#include <mpi.h>

#include "xchg_mpi.h"

#if MPI_VERSION >= 4

#define XCHG_DROPIN_API __attribute__((visibility("hidden")))

/* In dropin.c. */
XCHG_DROPIN_API int xchg_dropin_alltoall(const void *sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm);
XCHG_DROPIN_API const xchg_mpi_opts *xchg_dropin_enter(void);
XCHG_DROPIN_API void xchg_dropin_leave(void);

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_dropin_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Bcast_c(buf, count, type, root, comm);
    int rc = xchg_mpi_bcast(buf, count, type, root, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                 int root, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm);
    int rc = xchg_mpi_reduce(sendbuf, recvbuf, count, type, op, root, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm);
    int rc = xchg_mpi_allreduce(sendbuf, recvbuf, count, type, op, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm);
    int rc = xchg_mpi_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Scan_c(sendbuf, recvbuf, count, type, op, comm);
    int rc = xchg_mpi_scan(sendbuf, recvbuf, count, type, op, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    int rc =
        xchg_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm);
    int rc =
        xchg_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, o);
    xchg_dropin_leave();
    return rc;
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const xchg_mpi_opts *o = xchg_dropin_enter();
    if (!o)
        return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm);
    int rc =
        xchg_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, o);
    xchg_dropin_leave();
    return rc;
}

#else
/* An MPI before version 4: no large-count calls to stand in for. */
typedef int xchg_dropin_large_none;
#endif
