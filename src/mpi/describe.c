/*
 * describe.c - the operations' table (call.h): for each operation, MPI's
 * checks of its arguments and what the call means: the key its plan is
 * cached under and the buffers a run reads and writes.
 *
 * Keys hold what every rank shares under MPI's rules. Data is keyed by its
 * bytes where ranks may describe one signature with different types (the
 * exchange, broadcast, allgather, gather, scatter, shift), so every rank
 * cuts it alike; a reduction's by its elements and their size, since it
 * combines element by element (MPI requires one datatype on every rank).
 * The buffers' datatypes are not part of the key: a plan moves bytes, and
 * each call packs its own datatypes.
 */
#include "mpi/call.h"

#include <stdlib.h>
#include <string.h>

/* A data type's checks and layout for count elements: its block's bytes. */
static int data_layout(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *lay, size_t *bytes)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    return xchg_mpi_layout_of(count, type, lay, bytes);
}

/* The exchange: p blocks each way; in place, the receive buffer's. */
static int describe_alltoall(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    int in_place = a->sendbuf == MPI_IN_PLACE;
    size_t sbytes = 0, rbytes = 0;
    int rc = data_layout(a->rcount, a->rtype, &c->out_lay, &rbytes);
    if (rc == MPI_SUCCESS && !in_place)
        rc = data_layout(a->scount, a->stype, &c->in_lay, &sbytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (in_place) {
        c->in_lay = c->out_lay;
        sbytes = rbytes;
    }
    if (sbytes != rbytes)
        return sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    c->key = (xchg_mpi_key){.kind = XCHG_OP_ALLTOALL, .nelems = rbytes, .esize = 1,
                            .in_place = in_place};
    c->b = (xchg_mpi_bufs){.in = in_place ? a->recvbuf : a->sendbuf,
                           .in_lay = &c->in_lay,
                           .in_blocks = (size_t)c->p,
                           .out = a->recvbuf,
                           .out_lay = &c->out_lay,
                           .out_blocks = (size_t)c->p};
    c->what = rbytes == 0 ? XCHG_MPI_NONE : XCHG_MPI_RUN;
    return MPI_SUCCESS;
}

static int describe_bcast(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    size_t bytes;
    int rc = data_layout(a->rcount, a->rtype, &c->in_lay, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (a->root < 0 || a->root >= c->p)
        return MPI_ERR_ROOT;
    int at_root = c->rank == a->root;
    c->out_lay = c->in_lay;
    c->key = (xchg_mpi_key){
        .kind = XCHG_OP_BCAST, .root = (uint32_t)a->root, .nelems = bytes, .esize = 1};
    c->b = (xchg_mpi_bufs){.in = at_root ? a->recvbuf : NULL,
                           .in_lay = &c->in_lay,
                           .in_blocks = 1,
                           .out = at_root ? NULL : a->recvbuf,
                           .out_lay = &c->out_lay,
                           .out_blocks = 1};
    c->what = bytes == 0 ? XCHG_MPI_NONE : XCHG_MPI_RUN;
    return MPI_SUCCESS;
}

/* reduce, allreduce, scan and reduce_scatter_block. */
static int describe_reduction(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    xchg_op_kind kind = a->kind;
    size_t bytes;
    int commutative = 0;
    int rc = data_layout(a->rcount, a->rtype, &c->in_lay, &bytes);
    if (rc == MPI_SUCCESS && a->op == MPI_OP_NULL)
        rc = MPI_ERR_OP;
    if (rc == MPI_SUCCESS)
        rc = MPI_Op_commutative(a->op, &commutative);
    if (rc == MPI_SUCCESS && kind == XCHG_OP_REDUCE && (a->root < 0 || a->root >= c->p))
        rc = MPI_ERR_ROOT;
    int in_place = a->sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && in_place && kind == XCHG_OP_REDUCE && c->rank != a->root)
        rc = MPI_ERR_BUFFER; /* only the root may reduce in place */
    if (rc != MPI_SUCCESS)
        return rc;
    c->out_lay = c->in_lay;
    c->key = (xchg_mpi_key){.kind = kind,
                            .root = kind == XCHG_OP_REDUCE ? (uint32_t)a->root : 0,
                            .nelems = (size_t)a->rcount,
                            .esize = c->in_lay.elem_bytes,
                            .reduction = 1,
                            .commutative = commutative,
                            .dense = c->in_lay.contiguous};
    c->b = (xchg_mpi_bufs){.in = in_place ? a->recvbuf : a->sendbuf,
                           .in_lay = &c->in_lay,
                           .in_blocks = kind == XCHG_OP_REDUCE_SCATTER ? (size_t)c->p : 1,
                           .out = kind == XCHG_OP_REDUCE && c->rank != a->root ? NULL : a->recvbuf,
                           .out_lay = &c->out_lay,
                           .out_blocks = 1,
                           .type = a->rtype,
                           .op = a->op};
    c->what = bytes == 0 ? XCHG_MPI_NONE : XCHG_MPI_RUN;
    return MPI_SUCCESS;
}

/* allgather, gather and scatter. The side with p blocks (the receive side
 * of a gather, the send side of a scatter) counts only where MPI says it
 * does: every rank of an allgather, the root of the others. */
static int describe_blocks(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    xchg_op_kind kind = a->kind;
    if (kind != XCHG_OP_ALLGATHER && (a->root < 0 || a->root >= c->p))
        return MPI_ERR_ROOT;
    int at_root = kind == XCHG_OP_ALLGATHER || c->rank == a->root;
    /* which sides this rank uses, and which is in place */
    int send_in_place = a->sendbuf == MPI_IN_PLACE, recv_in_place = a->recvbuf == MPI_IN_PLACE;
    int uses_send = kind == XCHG_OP_SCATTER ? at_root : !send_in_place;
    int uses_recv = kind == XCHG_OP_GATHER ? at_root : !recv_in_place;
    if ((send_in_place && (kind == XCHG_OP_SCATTER || !at_root)) ||
        (recv_in_place && (kind != XCHG_OP_SCATTER || !at_root)))
        return MPI_ERR_BUFFER;
    size_t sbytes = 0, rbytes = 0;
    int rc;
    c->in_lay = c->out_lay = (xchg_mpi_layout){0};
    if (uses_send && (rc = data_layout(a->scount, a->stype, &c->in_lay, &sbytes)) != MPI_SUCCESS)
        return rc;
    if (uses_recv && (rc = data_layout(a->rcount, a->rtype, &c->out_lay, &rbytes)) != MPI_SUCCESS)
        return rc;
    if (uses_send && uses_recv && sbytes != rbytes)
        return sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    size_t B = uses_send ? sbytes : rbytes;
    c->key = (xchg_mpi_key){.kind = kind,
                            .root = kind == XCHG_OP_ALLGATHER ? 0 : (uint32_t)a->root,
                            .nelems = B,
                            .esize = 1};
    xchg_mpi_bufs *b = &c->b;
    *b = (xchg_mpi_bufs){
        .in_lay = &c->in_lay, .in_blocks = 1, .out_lay = &c->out_lay, .out_blocks = 1};
    if (kind == XCHG_OP_SCATTER) {
        if (at_root)
            b->in = a->sendbuf, b->in_blocks = (size_t)c->p;
        b->out = recv_in_place ? NULL : a->recvbuf;
    } else {
        if (send_in_place) { /* this rank's block is already in place */
            b->in = (unsigned char *)a->recvbuf + (size_t)c->rank * (size_t)c->out_lay.stride;
            b->in_lay = &c->out_lay;
        } else {
            b->in = a->sendbuf;
        }
        if (at_root)
            b->out = a->recvbuf, b->out_blocks = (size_t)c->p;
    }
    c->what = B == 0 ? XCHG_MPI_NONE : XCHG_MPI_RUN;
    return MPI_SUCCESS;
}

static int describe_shift(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    size_t bytes;
    int rc = data_layout(a->rcount, a->rtype, &c->in_lay, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    uint32_t q_mod_p = (uint32_t)(((long long)a->q % c->p + c->p) % c->p);
    c->out_lay = c->in_lay;
    c->key = (xchg_mpi_key){.kind = XCHG_OP_SHIFT, .shift = q_mod_p, .nelems = bytes, .esize = 1};
    c->b = (xchg_mpi_bufs){.in = a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf,
                           .in_lay = &c->in_lay,
                           .in_blocks = 1,
                           .out = a->recvbuf,
                           .out_lay = &c->out_lay,
                           .out_blocks = 1};
    c->what = q_mod_p == 0 ? XCHG_MPI_LOCAL : bytes == 0 ? XCHG_MPI_NONE : XCHG_MPI_RUN;
    return MPI_SUCCESS;
}

int xchg_mpi_shift_home(const xchg_mpi_opargs *a, const xchg_mpi_call *c)
{
    const xchg_mpi_layout *lay = &c->in_lay;
    size_t bytes = c->key.nelems;
    if (a->sendbuf == MPI_IN_PLACE || bytes == 0)
        return MPI_SUCCESS;
    if (lay->contiguous) {
        memmove(a->recvbuf, a->sendbuf, bytes);
        return MPI_SUCCESS;
    }
    unsigned char *tmp = malloc(bytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int rc = xchg_mpi_pack_blocks(MPI_COMM_SELF, lay, (unsigned char *)(uintptr_t)a->sendbuf, tmp,
                                  bytes, 1, bytes, 0);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_pack_blocks(MPI_COMM_SELF, lay, a->recvbuf, tmp, bytes, 1, bytes, 1);
    free(tmp);
    return rc;
}

const xchg_mpi_operation xchg_mpi_operations[XCHG_MPI_KINDS] = {
    [XCHG_OP_ALLTOALL] = {"MPI_Alltoall", describe_alltoall},
    [XCHG_OP_BCAST] = {"MPI_Bcast", describe_bcast},
    [XCHG_OP_REDUCE] = {"MPI_Reduce", describe_reduction},
    [XCHG_OP_ALLGATHER] = {"MPI_Allgather", describe_blocks},
    [XCHG_OP_REDUCE_SCATTER] = {"MPI_Reduce_scatter_block", describe_reduction},
    [XCHG_OP_ALLREDUCE] = {"MPI_Allreduce", describe_reduction},
    [XCHG_OP_SCAN] = {"MPI_Scan", describe_reduction},
    [XCHG_OP_SCATTER] = {"MPI_Scatter", describe_blocks},
    [XCHG_OP_GATHER] = {"MPI_Gather", describe_blocks},
    [XCHG_OP_SHIFT] = {"MPI_Sendrecv", describe_shift},
    [XCHG_MPI_OP_ALLTOALLV] = {"MPI_Alltoallv", xchg_mpi_describe_v},
    [XCHG_MPI_OP_ALLTOALLW] = {"MPI_Alltoallw", xchg_mpi_describe_v},
};
