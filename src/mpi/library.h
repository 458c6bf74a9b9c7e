/*
 * library.h - the MPI library's own call for a call's arguments, one
 * function for every operation. Inline: the short way of each entry point
 * (entry.c) inlines it with the operation known, so no jump table is read;
 * pass.c's xchg_mpi_pass_on is the counted way for the rest.
 */
#ifndef XCHG_MPI_LIBRARY_H
#define XCHG_MPI_LIBRARY_H

#include "mpi/call.h"

#include <limits.h>

/* The library's call NAME with args: MPI 4's large-count NAME_c when
 * `large` (a count above INT_MAX; then older MPIs never get here). Counts
 * are MPI_Count, converted to int for the classic calls, where they fit. */
#if MPI_VERSION >= 4
#define XCHG_MPI_LIBRARY(name, ...)                                                                \
    (large ? PMPI_##name##_c(__VA_ARGS__) : PMPI_##name(__VA_ARGS__))
#else
#define XCHG_MPI_LIBRARY(name, ...) PMPI_##name(__VA_ARGS__)
#endif

/*
 * The MPI library's own call of operation kind with a's arguments; a shift
 * is one MPI_Sendrecv on pass's communicator (the duplicate, so it never
 * meets the caller's messages) to and from pass's peers. Counts above
 * INT_MAX: MPI 4's large-count calls (MPI_Alltoall_c, ...), or
 * MPI_ERR_COUNT under an older MPI. Not counted.
 */
static XCHG_MPI_INLINE int xchg_mpi_library(xchg_op_kind kind, const xchg_mpi_opargs *a,
                                            const xchg_mpi_pass *pass)
{
    int large = a->scount > INT_MAX || a->rcount > INT_MAX;
    if (large && MPI_VERSION < 4)
        return MPI_ERR_COUNT;
    MPI_Count sc = a->scount, rc = a->rcount;
    switch (kind) {
    case XCHG_OP_ALLTOALL:
        return XCHG_MPI_LIBRARY(Alltoall, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype,
                                a->comm);
    case XCHG_OP_BCAST:
        return XCHG_MPI_LIBRARY(Bcast, a->recvbuf, rc, a->rtype, a->root, a->comm);
    case XCHG_OP_REDUCE:
        return XCHG_MPI_LIBRARY(Reduce, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->root,
                                a->comm);
    case XCHG_OP_ALLREDUCE:
        return XCHG_MPI_LIBRARY(Allreduce, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->comm);
    case XCHG_OP_REDUCE_SCATTER:
        return XCHG_MPI_LIBRARY(Reduce_scatter_block, a->sendbuf, a->recvbuf, rc, a->rtype, a->op,
                                a->comm);
    case XCHG_OP_SCAN:
        return XCHG_MPI_LIBRARY(Scan, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->comm);
    case XCHG_OP_ALLGATHER:
        return XCHG_MPI_LIBRARY(Allgather, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype,
                                a->comm);
    case XCHG_OP_GATHER:
        return XCHG_MPI_LIBRARY(Gather, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype,
                                a->root, a->comm);
    case XCHG_OP_SCATTER:
        return XCHG_MPI_LIBRARY(Scatter, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype,
                                a->root, a->comm);
    case XCHG_OP_SHIFT:
        if (a->sendbuf == MPI_IN_PLACE)
            return XCHG_MPI_LIBRARY(Sendrecv_replace, a->recvbuf, rc, a->rtype, pass->to, 0,
                                    pass->from, 0, pass->shift_comm, MPI_STATUS_IGNORE);
        return XCHG_MPI_LIBRARY(Sendrecv, a->sendbuf, rc, a->rtype, pass->to, 0, a->recvbuf, rc,
                                a->rtype, pass->from, 0, pass->shift_comm, MPI_STATUS_IGNORE);
    default:
        return MPI_ERR_INTERN;
    }
}

#endif /* XCHG_MPI_LIBRARY_H */
