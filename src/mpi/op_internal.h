/*
 * op_internal.h - what the executor's files for the other operations share
 * (docs/mpi-ops.md): one rank's program of an operation (xchg_op_program)
 * turned into pieces of bytes, combinations and buffers (op_plan.c), run
 * on a call's buffers (op_exec.c), behind the public calls (op_calls.c).
 *
 * The data a call moves is cut into segments: for an operation of whole
 * blocks (pieces = 1) segment j is block j of the data (the block for dest
 * j of a scatter or a reduce-scatter, of origin j of a gather or an
 * allgather, the one block of the rest); for the split algorithms
 * (pieces = p) segment j is the j-th of p nearly equal runs of elements of
 * the one block, as xchg's schedule cuts m into blocks of m/p. Every piece
 * a rank sends, receives, starts or ends with is one segment kept in one
 * slot of the plan's scratch.
 */
#ifndef XCHG_MPI_OP_INTERNAL_H
#define XCHG_MPI_OP_INTERNAL_H

#include "mpi/mpi_internal.h"

/* Most phases a plan runs (xchg's split algorithms have two). */
#define XCHG_MPI_MAX_PHASES 4

/* A piece: the slot that keeps it and the segment of the data it is. */
typedef struct xchg_mpi_oppiece {
    uint32_t slot;
    uint32_t seg;
} xchg_mpi_oppiece;

/* One step of this rank; pieces and combinations index the plan's arrays. */
typedef struct xchg_mpi_opstep {
    size_t phase;
    int to, from; /* MPI_PROC_NULL: nothing that way */
    size_t send0, nsend, recv0, nrecv, comb0, ncomb;
    size_t send_bytes, recv_bytes;
} xchg_mpi_opstep;

typedef struct xchg_mpi_opx {
    xchg_op op;           /* what the schedule performs */
    int reduction;        /* it combines (MPI_Op) */
    size_t nelems;        /* elements of one block */
    size_t esize;         /* bytes of one element (its type signature) */
    size_t block_bytes;   /* nelems * esize */
    uint32_t nsegs_block; /* segments a block is cut into: op.pieces, or 1 */
    size_t slot_bytes;    /* the largest segment */
    size_t nslots;
    unsigned char *slots;
    unsigned char **at;   /* where each slot is during a run: in slots, or
                             in the caller's buffers (op_exec.c) */
    size_t nphases;
    xchg_op_kind phase_kind[XCHG_MPI_MAX_PHASES];
    size_t start0[XCHG_MPI_MAX_PHASES], nstart[XCHG_MPI_MAX_PHASES];
    size_t res0[XCHG_MPI_MAX_PHASES], nres[XCHG_MPI_MAX_PHASES];
    xchg_mpi_oppiece *pieces;
    size_t npieces;
    xchg_op_combine *combs;
    size_t ncombs;
    xchg_mpi_opstep *steps;
    size_t nsteps;
    int order_ok;                         /* every combination in rank order */
    unsigned char *send_pack, *recv_pack; /* messages of several pieces */
    unsigned char *stage;                 /* packed data of derived types (lazily) */
    size_t stage_bytes;
    MPI_Request *reqs;
    MPI_Status *statuses;
} xchg_mpi_opx;

/* What a call of an operation asks for: the plan's key. */
typedef struct xchg_mpi_opcall {
    xchg_op_kind kind;
    uint32_t root;   /* rooted operations */
    uint32_t shift;  /* shift: q mod p, 0 < q < p */
    size_t nelems;   /* elements of one block */
    size_t esize;    /* bytes of an element's type signature */
    int reduction;   /* the call combines with an MPI_Op */
    int commutative; /* ... which is commutative */
    int dense;       /* reductions: the type is plain bytes (size = extent, lb 0) */
} xchg_mpi_opcall;

/* A call's buffers. in: this rank's input (NULL: none, as a bcast's
 * non-root) of in_blocks blocks laid out as in_lay; out likewise (NULL:
 * the rank keeps no result, as a reduce's non-root). type and op:
 * reductions. */
typedef struct xchg_mpi_opbufs {
    const unsigned char *in;
    const xchg_mpi_layout *in_lay;
    size_t in_blocks;
    unsigned char *out;
    const xchg_mpi_layout *out_lay;
    size_t out_blocks;
    MPI_Datatype type;
    MPI_Op op;
} xchg_mpi_opbufs;

/* Make a plan of an operation (collective over comm): the algorithm
 * (opts->alg's for the operation, or auto), this rank's program, its
 * buffers; or the fallback with the reason. An MPI error code, not raised;
 * *out NULL on error. Free with xchg_mpi_plan_free. */
XCHG_MPI_INTERNAL int xchg_mpi_op_plan_make(const xchg_mpi_opcall *call, MPI_Comm comm,
                                            const xchg_mpi_opts *opts, xchg_mpi_plan **out);

/* Run an operation's plan (not a fallback) on a call's buffers. An MPI
 * error code, not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_op_exec(xchg_mpi_plan *pl, const xchg_mpi_opbufs *b);

/* Segment j's offset and length (bytes) in the data. */
XCHG_MPI_INTERNAL size_t xchg_mpi_seg_off(const xchg_mpi_opx *x, uint32_t j);
XCHG_MPI_INTERNAL size_t xchg_mpi_seg_len(const xchg_mpi_opx *x, uint32_t j);

#endif /* XCHG_MPI_OP_INTERNAL_H */
