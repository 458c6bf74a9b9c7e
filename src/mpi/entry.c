/*
 * entry.c - the executor's public calls (include/xchg_mpi.h:
 * xchg_mpi_alltoall, _bcast, _reduce, _allreduce, _reduce_scatter_block,
 * _scan, _allgather, _gather, _scatter, _shift, and _alltoallv and
 * _alltoallw with their _c forms). Each gathers its
 * arguments and tries the short way (memo.c) before the one checked path
 * (call.c).
 *
 * The entry points are XCHG_MPI_HOT: side by side in the code, apart from
 * the checked path (XCHG_MPI_NOINLINE there), with the short way inlined
 * where the operation is a constant, so the library's call is picked
 * without a jump table.
 */
#include "mpi/library.h"

/* The short way, else the checked path. */
static XCHG_MPI_INLINE int call_op(const xchg_mpi_opargs *a)
{
    xchg_op_kind kind = a->kind; /* read before a escapes: a constant here */
    /* one address both ways (MPI_BOTTOM) is not the short way's: the
     * library may refuse it (pass.c, xchg_mpi_library_takes) */
    if (kind == XCHG_OP_ALLTOALL && a->sendbuf != MPI_IN_PLACE && a->sendbuf == a->recvbuf)
        return xchg_mpi_call_checked(a);
    const xchg_mpi_memo_hit *hit = xchg_mpi_memo_find(a);
    if (!hit)
        return xchg_mpi_call_checked(a);
    xchg_mpi_remember_hit(hit);
    int rc = xchg_mpi_library(kind, a, &hit->pass);
    return rc == MPI_SUCCESS ? rc : xchg_mpi_raise(a->comm, rc);
}

XCHG_MPI_HOT int xchg_mpi_alltoall(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .scount = sendcount,
                         .rcount = recvcount,
                         .stype = sendtype,
                         .rtype = recvtype,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a);
}

XCHG_MPI_HOT int xchg_mpi_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                                MPI_Comm comm, const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_BCAST,
                         .recvbuf = buf,
                         .rcount = count,
                         .rtype = type,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a);
}

/* reduce, allreduce, reduce_scatter_block and scan: their arguments. */
static XCHG_MPI_INLINE int reduction(xchg_op_kind kind, const void *sendbuf, void *recvbuf,
                                     MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                                     MPI_Comm comm, const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = kind,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .rcount = count,
                         .rtype = type,
                         .op = op,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a);
}

XCHG_MPI_HOT int xchg_mpi_reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                 MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                 const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_REDUCE, sendbuf, recvbuf, count, type, op, root, comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0, comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                               MPI_Count recvcount, MPI_Datatype type, MPI_Op op,
                                               MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, type, op, 0, comm,
                     opts);
}

XCHG_MPI_HOT int xchg_mpi_scan(const void *sendbuf, void *recvbuf, MPI_Count count,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                               const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_SCAN, sendbuf, recvbuf, count, type, op, 0, comm, opts);
}

/* allgather, gather and scatter: their arguments. */
static XCHG_MPI_INLINE int blocks(xchg_op_kind kind, const void *sendbuf, MPI_Count scount,
                                  MPI_Datatype stype, void *recvbuf, MPI_Count rcount,
                                  MPI_Datatype rtype, int root, MPI_Comm comm,
                                  const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = kind,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .scount = scount,
                         .rcount = rcount,
                         .stype = stype,
                         .rtype = rtype,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a);
}

XCHG_MPI_HOT int xchg_mpi_allgather(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_shift(const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype type, int q, MPI_Comm comm,
                                const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_SHIFT,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .rcount = count,
                         .rtype = type,
                         .q = q,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a);
}

/* MPI_Alltoallv and MPI_Alltoallw, in both forms: their arguments. */
static int vcall(xchg_op_kind kind, const void *sendbuf, const void *scounts, const void *sdispls,
                 MPI_Datatype stype, const MPI_Datatype *stypes, void *recvbuf,
                 const void *rcounts, const void *rdispls, MPI_Datatype rtype,
                 const MPI_Datatype *rtypes, MPI_Comm comm, const xchg_mpi_opts *opts, int wide)
{
    xchg_mpi_opargs a = {.kind = kind,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .stype = stype,
                         .rtype = rtype,
                         .comm = comm,
                         .opts = opts,
                         .scounts = scounts,
                         .sdispls = sdispls,
                         .rcounts = rcounts,
                         .rdispls = rdispls,
                         .stypes = stypes,
                         .rtypes = rtypes,
                         .wide = wide};
    /* the short way: the plan passed this communicator's last such call
     * to the library, whatever its counts (memo.c; the library checks
     * them); not for wide arrays under an MPI before 4, which the library
     * may not take, nor for one address both ways: one buffer, which MPI
     * forbids but not every library checks (describe_v.c does), or
     * MPI_BOTTOM, which MPICH 4.0.2 refuses (xchg carries it) */
    int aliased = sendbuf != MPI_IN_PLACE && sendbuf == recvbuf;
    const xchg_mpi_memo_hit *hit =
        aliased || (wide && MPI_VERSION < 4) ? NULL : xchg_mpi_memo_find(&a);
    if (!hit)
        return xchg_mpi_call_checked(&a);
    xchg_mpi_remember_hit(hit);
    int rc = xchg_mpi_library_v(&a);
    return rc == MPI_SUCCESS ? rc : xchg_mpi_raise(comm, rc);
}

int xchg_mpi_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       const xchg_mpi_opts *opts)
{
    return vcall(XCHG_MPI_OP_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                 recvcounts, rdispls, recvtype, NULL, comm, opts, 0);
}

int xchg_mpi_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return vcall(XCHG_MPI_OP_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                 recvcounts, rdispls, recvtype, NULL, comm, opts, 1);
}

int xchg_mpi_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       const xchg_mpi_opts *opts)
{
    return vcall(XCHG_MPI_OP_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                 sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm,
                 opts, 0);
}

int xchg_mpi_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return vcall(XCHG_MPI_OP_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                 sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm,
                 opts, 1);
}
