/*
 * tool_ops.h - what the MPI tools (xchg-bench, xchg-tune) share about the
 * operations they time: which reduce and which have a root, the MPI call
 * each is measured against and its title, the buffers a rank needs, and
 * one call of an operation other than the exchange, by xchg's executor or
 * by the MPI library. Reductions are of MPI_INT with MPI_SUM; the others move
 * MPI_BYTE. And the median and the mean over the ranks both take of calls
 * timed one by one.
 */
#ifndef XCHG_TOOL_OPS_H
#define XCHG_TOOL_OPS_H

#include <stddef.h>

#include <mpi.h>

#include "xchg.h"
#include "xchg_mpi.h"

/* Rank me's MPI_Alltoallv arguments in bytes from the count matrix c of
 * p ranks: sc, rc its row and column, sd, rd packed displacements (each
 * array p ints); *sbytes, *rbytes its buffers' sizes. Returns nonzero
 * when a count or a displacement passes INT_MAX (the arrays are then not
 * all meaningful). */
int xchg_tool_vcounts_args(const xchg_vcounts *c, int p, int me, int *sc, int *sd, int *rc,
                           int *rd, size_t *sbytes, size_t *rbytes);

/* Nonzero when kind combines (reduce, allreduce, reduce_scatter, scan). */
int xchg_tool_op_reduces(xchg_op_kind kind);
/* Nonzero when kind has a root (bcast, reduce, gather, scatter). */
int xchg_tool_op_has_root(xchg_op_kind kind);
/* The MPI library's call for kind ("MPI_Bcast", ...; a shift is
 * "MPI_Sendrecv"). */
const char *xchg_tool_op_mpi_name(xchg_op_kind kind);
/* kind's name in a title line, as its OSU benchmark prints it
 * ("Broadcast", "All-to-All Personalized Exchange", ...). */
const char *xchg_tool_op_title(xchg_op_kind kind);

/* How many blocks rank `rank` sends from and receives into for kind on p
 * ranks with root (the root's buffers are the larger ones), and the most
 * any rank's one buffer holds. */
size_t xchg_tool_op_send_blocks(xchg_op_kind kind, int rank, int root, int p);
size_t xchg_tool_op_recv_blocks(xchg_op_kind kind, int rank, int root, int p);
size_t xchg_tool_op_max_blocks(xchg_op_kind kind, int p);

/* One call of an operation other than the exchange. */
typedef struct xchg_tool_opcall {
    xchg_op_kind kind;
    int is_mpi;                /* the MPI library's call, else xchg's */
    const xchg_mpi_opts *opts; /* xchg's options */
    MPI_Comm comm;
    MPI_Comm shift_comm; /* the MPI library's shift: a duplicate of comm */
    int root, q;         /* root; shift distance (any sign) */
    size_t count;        /* elements: bytes, or ints for a reduction */
    const void *sbuf;
    void *rbuf;
} xchg_tool_opcall;

/* Make the call; the MPI error code (MPI_ERR_INTERN for the exchange,
 * which the tools call through a plan of their own). */
int xchg_tool_op_call(const xchg_tool_opcall *c);

/* The median of the n values at v (sorted in place); 0 when n <= 0. */
double xchg_tool_median(double *v, long n);
/* The mean of x over the p ranks of comm (collective). */
double xchg_tool_rank_mean(MPI_Comm comm, int p, double x);

#endif
