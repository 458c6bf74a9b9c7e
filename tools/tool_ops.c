/*
 * tool_ops.c - the operations as the MPI tools time them (tool_ops.h): one
 * call by xchg's executor (xchg_mpi_bcast, ...) or by the MPI library
 * (PMPI_Bcast, ...; a shift is PMPI_Sendrecv on a duplicate communicator),
 * the buffers each rank needs, and the median and the mean over the ranks
 * the tools take of calls timed one by one.
 */
#include "tool_ops.h"

#include <limits.h>
#include <stdlib.h>

int xchg_tool_op_reduces(xchg_op_kind k)
{
    return k == XCHG_OP_REDUCE || k == XCHG_OP_ALLREDUCE || k == XCHG_OP_REDUCE_SCATTER ||
           k == XCHG_OP_SCAN;
}

int xchg_tool_op_has_root(xchg_op_kind k)
{
    return k == XCHG_OP_BCAST || k == XCHG_OP_REDUCE || k == XCHG_OP_GATHER || k == XCHG_OP_SCATTER;
}

/* Each operation's MPI call, and the title its OSU benchmark prints. */
static const struct {
    const char *mpi, *title;
} op_names[XCHG_OP_COUNT] = {
    [XCHG_OP_ALLTOALL] = {"MPI_Alltoall", "All-to-All Personalized Exchange"},
    [XCHG_OP_BCAST] = {"MPI_Bcast", "Broadcast"},
    [XCHG_OP_REDUCE] = {"MPI_Reduce", "Reduce"},
    [XCHG_OP_ALLGATHER] = {"MPI_Allgather", "Allgather"},
    [XCHG_OP_REDUCE_SCATTER] = {"MPI_Reduce_scatter_block", "Reduce_scatter_block"},
    [XCHG_OP_ALLREDUCE] = {"MPI_Allreduce", "Allreduce"},
    [XCHG_OP_SCAN] = {"MPI_Scan", "Scan"},
    [XCHG_OP_SCATTER] = {"MPI_Scatter", "Scatter"},
    [XCHG_OP_GATHER] = {"MPI_Gather", "Gather"},
    [XCHG_OP_SHIFT] = {"MPI_Sendrecv", "Circular Shift (Sendrecv)"},
};

const char *xchg_tool_op_mpi_name(xchg_op_kind k)
{
    return (unsigned)k < XCHG_OP_COUNT ? op_names[k].mpi : "?";
}

const char *xchg_tool_op_title(xchg_op_kind k)
{
    return (unsigned)k < XCHG_OP_COUNT ? op_names[k].title : "?";
}

size_t xchg_tool_op_send_blocks(xchg_op_kind k, int rank, int root, int p)
{
    switch (k) {
    case XCHG_OP_ALLTOALL:
    case XCHG_OP_REDUCE_SCATTER:
        return (size_t)p;
    case XCHG_OP_BCAST:
        return 0;
    case XCHG_OP_SCATTER:
        return rank == root ? (size_t)p : 0;
    default:
        return 1;
    }
}

size_t xchg_tool_op_recv_blocks(xchg_op_kind k, int rank, int root, int p)
{
    switch (k) {
    case XCHG_OP_ALLTOALL:
    case XCHG_OP_ALLGATHER:
        return (size_t)p;
    case XCHG_OP_GATHER:
        return rank == root ? (size_t)p : 0;
    default:
        return 1;
    }
}

size_t xchg_tool_op_max_blocks(xchg_op_kind k, int p)
{
    size_t s = xchg_tool_op_send_blocks(k, 0, 0, p), r = xchg_tool_op_recv_blocks(k, 0, 0, p);
    return s > r ? s : r;
}

int xchg_tool_op_call(const xchg_tool_opcall *c)
{
    const xchg_mpi_opts *o = c->opts;
    const void *s = c->sbuf;
    void *r = c->rbuf;
    int root = c->root, n = (int)c->count, mpi = c->is_mpi;
    MPI_Count cnt = (MPI_Count)c->count;
    MPI_Comm comm = c->comm;
    switch (c->kind) {
    case XCHG_OP_BCAST:
        return mpi ? PMPI_Bcast(r, n, MPI_BYTE, root, comm)
                   : xchg_mpi_bcast(r, cnt, MPI_BYTE, root, comm, o);
    case XCHG_OP_REDUCE:
        return mpi ? PMPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, comm)
                   : xchg_mpi_reduce(s, r, cnt, MPI_INT, MPI_SUM, root, comm, o);
    case XCHG_OP_ALLREDUCE:
        return mpi ? PMPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm)
                   : xchg_mpi_allreduce(s, r, cnt, MPI_INT, MPI_SUM, comm, o);
    case XCHG_OP_REDUCE_SCATTER:
        return mpi ? PMPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, comm)
                   : xchg_mpi_reduce_scatter_block(s, r, cnt, MPI_INT, MPI_SUM, comm, o);
    case XCHG_OP_SCAN:
        return mpi ? PMPI_Scan(s, r, n, MPI_INT, MPI_SUM, comm)
                   : xchg_mpi_scan(s, r, cnt, MPI_INT, MPI_SUM, comm, o);
    case XCHG_OP_ALLGATHER:
        return mpi ? PMPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm)
                   : xchg_mpi_allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, comm, o);
    case XCHG_OP_GATHER:
        return mpi ? PMPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, root, comm)
                   : xchg_mpi_gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm, o);
    case XCHG_OP_SCATTER:
        return mpi ? PMPI_Scatter(s, n, MPI_BYTE, r, n, MPI_BYTE, root, comm)
                   : xchg_mpi_scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm, o);
    case XCHG_OP_SHIFT: {
        if (!mpi)
            return xchg_mpi_shift(s, r, cnt, MPI_BYTE, c->q, comm, o);
        int p, me, rc = MPI_Comm_size(comm, &p);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_rank(comm, &me);
        if (rc != MPI_SUCCESS)
            return rc;
        int q = (int)(((long long)c->q % p + p) % p);
        return PMPI_Sendrecv(s, n, MPI_BYTE, (me + q) % p, 0, r, n, MPI_BYTE, (me - q + p) % p, 0,
                             c->shift_comm, MPI_STATUS_IGNORE);
    }
    default:
        return MPI_ERR_INTERN;
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double xchg_tool_median(double *v, long n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double xchg_tool_rank_mean(MPI_Comm comm, int p, double x)
{
    double sum = 0.0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    return sum / p;
}

int xchg_tool_vcounts_args(const xchg_vcounts *c, int p, int me, int *sc, int *sd, int *rc,
                           int *rd, size_t *sbytes, size_t *rbytes)
{
    size_t sb = 0, rb = 0;
    int big = 0;
    for (int j = 0; j < p; j++) {
        uint64_t out = xchg_vcounts_get(c, (uint32_t)me, (uint32_t)j),
                 in = xchg_vcounts_get(c, (uint32_t)j, (uint32_t)me);
        big |= out > INT_MAX || in > INT_MAX || sb > INT_MAX || rb > INT_MAX;
        sc[j] = (int)out, sd[j] = (int)sb, sb += (size_t)out;
        rc[j] = (int)in, rd[j] = (int)rb, rb += (size_t)in;
    }
    *sbytes = sb, *rbytes = rb;
    return big || sb > INT_MAX || rb > INT_MAX;
}
