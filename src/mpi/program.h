/*
 * program.h - one rank's program of an algorithm, as the executor runs it:
 * who it sends to and receives from at each step and which slots each
 * message carries, in blocks (the exchange) or in pieces of the data (the
 * other operations). A program does not depend on the call's count, so a
 * communicator builds it once per algorithm, operation, root and shift
 * (program.c) and every plan of any count runs it (plan.h).
 *
 *   program.c           the communicator's programs: find one, or build it
 *                       on every rank at once and agree that every rank has
 *                       it, with the largest needs of any rank
 *   program_exchange.c  the exchange's: from xchg_rank_new
 *   program_op.c        another operation's: from xchg_op_program_new
 */
#ifndef XCHG_MPI_PROGRAM_H
#define XCHG_MPI_PROGRAM_H

#include "mpi/comm.h"

/* Consecutive slots of one place (XCHG_LOC_SEND, RECV or SCRATCH). */
typedef struct xchg_mpi_run {
    int where;
    size_t slot;
    size_t count;
} xchg_mpi_run;

/* One step of this rank's exchange: runs index into the run array. */
typedef struct xchg_mpi_step {
    int to, from; /* MPI_PROC_NULL when idle */
    size_t send_blocks, recv_blocks;
    size_t send_run0, nsend_runs;
    size_t recv_run0, nrecv_runs;
} xchg_mpi_step;

/* The exchange's program (program_exchange.c). */
typedef struct xchg_mpi_xprog {
    xchg_mpi_step *steps;
    size_t nsteps;
    xchg_mpi_run *runs;
    size_t nruns;
    /* Nonzero when no step depends on another: every block goes straight
     * from the send buffer to its home in the receive buffer (pairwise,
     * hc-direct). Then the steps are posted XCHG_MPI_WINDOW at a time and
     * the MPI library completes them in any order (exec.c). */
    int independent;
    /* the largest of any rank, in blocks: scratch slots, a message packed
     * from several runs (sent; received), and any message */
    size_t scratch_blocks, send_pack_blocks, recv_pack_blocks, msg_blocks;
} xchg_mpi_xprog;

/* Most phases an operation's program runs (xchg's split algorithms have
 * two). */
#define XCHG_MPI_MAX_PHASES 4

/* A piece of an operation's data: the slot that keeps it and the segment
 * of the data it is (plan.h's xchg_mpi_seg_off says where a segment is). */
typedef struct xchg_mpi_oppiece {
    uint32_t slot;
    uint32_t seg;
} xchg_mpi_oppiece;

/* One step of an operation's program; pieces and combinations index the
 * program's arrays. */
typedef struct xchg_mpi_opstep {
    size_t phase;
    int to, from; /* MPI_PROC_NULL: nothing that way */
    size_t send0, nsend, recv0, nrecv, comb0, ncomb;
} xchg_mpi_opstep;

/*
 * Another operation's program (program_op.c). The data a call moves is cut
 * into segments: for an operation of whole blocks (op.pieces = 1) segment j
 * is block j of the data (the block for dest j of a scatter or a
 * reduce-scatter, of origin j of a gather or an allgather, the one block
 * of the rest); for the split algorithms (op.pieces = p) segment j is the
 * j-th of p nearly equal runs of elements of the one block, as xchg's
 * schedule cuts m into blocks of m/p. Every piece a rank sends, receives,
 * starts or ends with is one segment kept in one slot.
 */
typedef struct xchg_mpi_oprog {
    xchg_op op;           /* what the schedule performs */
    uint32_t nsegs_block; /* segments a block is cut into: op.pieces, or 1 */
    uint32_t nsegs;       /* segments of the data: nsegs_block, or p */
    size_t nslots;
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
    /* every rank's combinations keep rank order (agreed over the ranks) */
    int order_ok;
    /* the largest of any rank: slots; pieces of a message of several
     * pieces sent, and received (they may need packing); pieces of any
     * message */
    size_t max_slots, max_send_pieces, max_recv_pieces, max_msg_pieces;
} xchg_mpi_oprog;

/* A program of one algorithm on a communicator. */
struct xchg_mpi_program {
    /* what it is of */
    xchg_op_kind kind;
    xchg_spec spec;
    uint32_t root, shift;
    char topo_spec[64];
    /* whether every rank built it (the same on every rank), else why not */
    int ok;
    char why[320];
    size_t list_bytes;    /* memory of this rank's lists */
    xchg_mpi_xprog x;     /* kind XCHG_OP_ALLTOALL */
    xchg_mpi_oprog o;     /* the other kinds */
};

/*
 * The program of spec (a registry spec of operation kind, with root and
 * shift for the operations that take them) on t, from cs's programs, or
 * built when there is none: collective, every rank at once (the same
 * calls reach it on every rank), ending with one MPI_Allreduce that says
 * whether every rank built it and the largest needs of any. A program that
 * could not be built is kept too (ok 0, why), so the next call that asks
 * knows without asking again. *out NULL (and MPI_SUCCESS) when cs holds
 * XCHG_MPI_MAX_PROGRAMS programs already. An MPI error code.
 */
XCHG_MPI_INTERNAL int xchg_mpi_program_get(xchg_mpi_comm *cs, const xchg_topo *t,
                                           xchg_op_kind kind, const char *spec, uint32_t root,
                                           uint32_t shift, const xchg_mpi_program **out);

/* Free every program of cs (local). */
XCHG_MPI_INTERNAL void xchg_mpi_programs_free(xchg_mpi_comm *cs);

/* program_exchange.c: this rank's exchange program of spec on t into x
 * (local); 0, or -1 with why. Its needs are this rank's until program.c
 * agrees them. xchg_mpi_xprog_free frees its arrays. */
XCHG_MPI_INTERNAL int xchg_mpi_xprog_build(const xchg_topo *t, const char *spec, int rank,
                                           xchg_mpi_xprog *x, size_t *list_bytes, char *why,
                                           size_t whylen);
XCHG_MPI_INTERNAL void xchg_mpi_xprog_free(xchg_mpi_xprog *x);

/* program_op.c: this rank's program of operation kind (root, shift) of
 * spec on t of p ranks into o (local); 0, or -1 with why.
 * xchg_mpi_oprog_free frees its arrays. */
XCHG_MPI_INTERNAL int xchg_mpi_oprog_build(const xchg_topo *t, const char *spec,
                                           xchg_op_kind kind, uint32_t root, uint32_t shift,
                                           int p, int rank, xchg_mpi_oprog *o,
                                           size_t *list_bytes, char *why, size_t whylen);
XCHG_MPI_INTERNAL void xchg_mpi_oprog_free(xchg_mpi_oprog *o);

#endif /* XCHG_MPI_PROGRAM_H */
