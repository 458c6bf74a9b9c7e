/*
 * mpi_internal.h - what the executor's files share: the plan object (one
 * rank's program turned into runs of bytes to send and receive, plus its
 * buffers), how it is made (plan.c) and run (exec.c).
 */
#ifndef XCHG_MPI_INTERNAL_H
#define XCHG_MPI_INTERNAL_H

#include "xchg.h"
#include "xchg_mpi.h"

/* Consecutive slots of one place (XCHG_LOC_SEND, RECV or SCRATCH). */
typedef struct xchg_mpi_run {
    int where;
    size_t slot;
    size_t count;
} xchg_mpi_run;

/* One step of this rank: runs index into the plan's run array. */
typedef struct xchg_mpi_step {
    int to, from;              /* MPI_PROC_NULL when idle */
    size_t send_blocks, recv_blocks;
    size_t send_run0, nsend_runs;
    size_t recv_run0, nrecv_runs;
} xchg_mpi_step;

/* How a buffer's blocks sit in memory for the datatype of a call. */
typedef struct xchg_mpi_layout {
    int contiguous;            /* block j is block_bytes of plain bytes at j*stride */
    MPI_Count count;           /* elements of the datatype per block */
    MPI_Datatype type;
    MPI_Aint stride;           /* bytes from one block to the next (count*extent) */
} xchg_mpi_layout;

struct xchg_mpi_plan {
    MPI_Comm user_comm;        /* errors are raised on it */
    MPI_Comm comm;             /* a duplicate: our messages never meet the user's */
    int p, rank;
    double ranks_per_core;     /* most ranks per core on any node */
    int in_place;
    int fallback;              /* runs call PMPI_Alltoall */
    int bad_value;             /* an option could not be honoured: say so */
    size_t block_bytes;        /* bytes of one block's data (its type signature) */
    xchg_mpi_layout send_layout, recv_layout;
    xchg_mpi_plan_info info;

    size_t nsteps;
    xchg_mpi_step *steps;
    /* Nonzero when no step depends on another: every block goes straight
     * from the send buffer to its home in the receive buffer (pairwise,
     * hc-direct). Then the steps are posted XCHG_MPI_WINDOW at a time and
     * the MPI library completes them in any order. */
    int independent;
    xchg_mpi_run *runs;
    size_t nruns;
    /* buffers: scratch (blocks passing through), packing for messages of
     * several runs, and staging for in-place and non-contiguous data */
    unsigned char *scratch, *send_pack, *recv_pack, *stage_send, *stage_recv;
    MPI_Request *reqs;
    MPI_Status *statuses;      /* one per request (MPI_STATUSES_IGNORE would do,
                                  but some compilers see it as a zero-size array) */
};

/* Steps of an independent program posted together. */
#define XCHG_MPI_WINDOW 64

/* Largest piece of one message (bytes): counts are int in MPI calls. */
#define XCHG_MPI_PIECE ((size_t)1 << 30)

/*
 * Make a plan (collective over comm). The decision (algorithm, or the
 * fallback) is agreed by all ranks. Returns an MPI error code without
 * raising it; *out is NULL on error.
 */
int xchg_mpi_plan_make(MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                       MPI_Datatype rtype, int in_place, MPI_Comm comm,
                       const xchg_mpi_opts *opts, xchg_mpi_plan **out);

/* Where the blocks of a buffer sit for a type and count (sets *out); an MPI
 * error code. */
int xchg_mpi_layout_of(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *out,
                       size_t *block_bytes);

/* Run a plan on buffers with the layouts given (the plan's own for
 * persistent plans, a call's for cached ones). Returns an MPI error code,
 * not raised. */
int xchg_mpi_exec(xchg_mpi_plan *plan, const void *sendbuf, void *recvbuf,
                  const xchg_mpi_layout *send_layout, const xchg_mpi_layout *recv_layout);

/* auto.c: the machine model for f ranks per core, and a candidate's
 * predicted time at block size m under the executor's execution. */
void xchg_mpi_machine(double f, xchg_machine *out);
double xchg_mpi_predict(const xchg_line *line, const xchg_machine *mach, double m);

/* The counters behind xchg_mpi_call_counts. */
void xchg_mpi_count_call(int carried);

#endif /* XCHG_MPI_INTERNAL_H */
