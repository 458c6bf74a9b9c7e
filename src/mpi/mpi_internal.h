/*
 * mpi_internal.h - what the executor's files share: the plan object (one
 * rank's program turned into runs of bytes to send and receive, plus its
 * buffers, or a shared-memory segment), how it is made (plan.c) and run
 * (exec.c, shm.c).
 */
#ifndef XCHG_MPI_INTERNAL_H
#define XCHG_MPI_INTERNAL_H

#include "xchg.h"
#include "xchg_mpi.h"

/* The executor's internal functions are hidden from the shared library, as
 * the core's are (XCHG_INTERNAL, in src/base/util.h, which this layer does
 * not include): calls between its files then go straight to the function,
 * not through the PLT, and a program cannot bind to them by accident. */
#if defined(__GNUC__)
#define XCHG_MPI_INTERNAL __attribute__((visibility("hidden")))
#else
#define XCHG_MPI_INTERNAL
#endif

/* The short way to the MPI library (op_memo.c) and the functions it runs
 * through: placed side by side in the library's code (.text.hot), so a
 * call it takes reads one or two pages of that code. On its own this
 * measured no change at 64 ranks; the lookups and MPI queries a hit skips
 * did (docs/mpi-ops.md). */
#if defined(__GNUC__)
#define XCHG_MPI_HOT __attribute__((hot))
#else
#define XCHG_MPI_HOT
#endif

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
    int one_node;              /* every rank shares this node's memory */
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

    /* alg "shm" (shm.c): the mapped segment, else NULL; the bytes of a
     * block each round moves; rounds so far (which of the two grids the
     * next round uses) */
    unsigned char *shm;
    size_t shm_bytes, shm_chunk;
    unsigned shm_round;

    /* auto's inputs from files (auto_files.c), read while the plan is made:
     * the tuning file's rows (NULL: none), the machine file (have_mach),
     * and why a file given could not be used ("" when all is well) */
    xchg_tuning *tuning;
    char tuning_path[256];
    xchg_machine file_mach;
    int have_mach;
    char auto_note[400];
    /* the cost model's predictions when auto's model weighed candidates
     * (xchg_mpi_plan_predictions) */
    int npred;
    xchg_spec pred_spec[XCHG_MPI_MAX_PREDICTIONS];
    double pred_us[XCHG_MPI_MAX_PREDICTIONS];

    /* A plan of another operation (op_plan.c): what it runs; NULL for
     * the exchange, whose program is the steps and runs above. */
    struct xchg_mpi_opx *opx;
};

/* Steps of an independent program posted together. */
#define XCHG_MPI_WINDOW 64

/* Largest piece of one message (bytes): counts are int in MPI calls. */
#define XCHG_MPI_PIECE ((size_t)1 << 30)

/* Largest pair of grids alg "shm" maps (2 p^2 slots; the segment adds a
 * 128-byte header): larger blocks go in several rounds. 16 ranks move
 * 64 KiB of every block a round, 64 ranks 4 KiB. Each cached plan has its
 * own segment. */
#define XCHG_MPI_SHM_MAX ((size_t)32 << 20)

/*
 * Make a plan (collective over comm). The decision (algorithm, or the
 * fallback) is agreed by all ranks. Returns an MPI error code without
 * raising it; *out is NULL on error.
 */
XCHG_MPI_INTERNAL int xchg_mpi_plan_make(MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                                         MPI_Datatype rtype, int in_place, MPI_Comm comm,
                                         const xchg_mpi_opts *opts, xchg_mpi_plan **out);

/* plan.c's steps that op_plan.c shares:
 * xchg_mpi_fall_back: set the plan's fallback (alg "mpi") with a reason
 *   (fmt with one %s for arg).
 * xchg_mpi_map_topology: the topology the ranks are laid out on (opts'
 *   topology, a Cartesian communicator's grid, else complete:p); 0, or -1
 *   after falling back with the reason.
 * xchg_mpi_ranks_per_core: the most ranks per core on any node of the
 *   communicator into pl->ranks_per_core, and pl->one_node (collective:
 *   every rank gets the same, so every rank's auto chooses the same). */
XCHG_MPI_INTERNAL void xchg_mpi_fall_back(xchg_mpi_plan *pl, const char *fmt, const char *arg);
XCHG_MPI_INTERNAL int xchg_mpi_map_topology(xchg_mpi_plan *pl, const xchg_mpi_opts *opts,
                                            xchg_topo *t);
XCHG_MPI_INTERNAL int xchg_mpi_ranks_per_core(xchg_mpi_plan *pl);

/* Where the blocks of a buffer sit for a type and count (sets *out); an MPI
 * error code. */
XCHG_MPI_INTERNAL int xchg_mpi_layout_of(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *out,
                                         size_t *block_bytes);

/* Run a plan on buffers with the layouts given (the plan's own for
 * persistent plans, a call's for cached ones). Returns an MPI error code,
 * not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_exec(xchg_mpi_plan *plan, const void *sendbuf, void *recvbuf,
                                    const xchg_mpi_layout *send_layout,
                                    const xchg_mpi_layout *recv_layout);

/* Post a message of bytes at buf to (recv 0) or from (recv 1) peer on comm
 * as pieces of at most XCHG_MPI_PIECE bytes (tags 0, 1, ...; both sides cut
 * it the same way) into reqs[*nreq...], advancing *nreq. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_post(MPI_Comm comm, int recv, unsigned char *buf, size_t bytes,
                                    int peer, MPI_Request *reqs, size_t *nreq);

/* Pack (unpack) blocks 0..nblocks-1 (B bytes of type signature each; B and
 * the layout's count must fit int) of a user buffer of layout lay to (from)
 * staging + j * stride, with MPI_Pack (MPI_Unpack) on comm. An MPI error
 * code. xchg_mpi_stage: the plan's p blocks. */
XCHG_MPI_INTERNAL int xchg_mpi_pack_blocks(MPI_Comm comm, const xchg_mpi_layout *lay,
                                           unsigned char *user, unsigned char *staging,
                                           size_t stride, size_t nblocks, size_t B, int unpack);
XCHG_MPI_INTERNAL int xchg_mpi_stage(xchg_mpi_plan *pl, const xchg_mpi_layout *lay,
                                     unsigned char *user, unsigned char *staging, size_t stride,
                                     int unpack);

/* shm.c: the exchange through one node's shared memory (alg "shm").
 * xchg_mpi_shm_chunk: the bytes of every block one round moves (the block
 *   size, or less when the grids would pass XCHG_MPI_SHM_MAX; 0 when p
 *   is too large for even one byte a slot).
 * xchg_mpi_shm_usable: 1 when the plan's ranks and block size allow it,
 *   else 0 with the reason in why.
 * xchg_mpi_shm_open: make and map the segment (collective); an MPI error
 *   code. On MPI_SUCCESS pl->shm is set, or NULL with the reason in why
 *   (the same outcome on every rank).
 * xchg_mpi_shm_close: unmap it (local). xchg_mpi_shm_run: one run. */
XCHG_MPI_INTERNAL size_t xchg_mpi_shm_chunk(int p, size_t block_bytes);
XCHG_MPI_INTERNAL int xchg_mpi_shm_usable(const xchg_mpi_plan *pl, char *why, size_t len);
XCHG_MPI_INTERNAL int xchg_mpi_shm_open(xchg_mpi_plan *pl, char *why, size_t len);
XCHG_MPI_INTERNAL void xchg_mpi_shm_close(xchg_mpi_plan *pl);
XCHG_MPI_INTERNAL int xchg_mpi_shm_run(xchg_mpi_plan *pl, const void *sendbuf, void *recvbuf,
                                       const xchg_mpi_layout *send_layout,
                                       const xchg_mpi_layout *recv_layout);

/* auto.c: the machine model for f ranks per core, and a candidate's
 * predicted time at block size m under the executor's execution (a
 * schedule's line; the shared-memory exchange, whose blocks move chunk
 * bytes a round). */
XCHG_MPI_INTERNAL void xchg_mpi_machine(double f, xchg_machine *out);
/* Scale a machine measured with one rank per core to f ranks per core, as
 * the default grows with f: start-ups by f^1.44, per-byte figures by f. */
XCHG_MPI_INTERNAL void xchg_mpi_machine_scale(double f, xchg_machine *m);
XCHG_MPI_INTERNAL double xchg_mpi_predict(const xchg_line *line, const xchg_machine *mach,
                                          double m);
XCHG_MPI_INTERNAL double xchg_mpi_predict_shm(double f, const xchg_machine *mach, int p, double m,
                                              double chunk);

/* auto_files.c: read the tuning and machine files auto uses (opts'
 * tuning_file and machine_file, as rank 0 sees them) into the plan:
 * rank 0 reads each file and broadcasts its bytes, so every rank decides
 * from the same text. A file that cannot be read or parsed leaves its
 * field empty and says why in pl->auto_note (and sets bad_value, so rank 0
 * says it). Collective; an MPI error code. xchg_mpi_auto_files_free
 * releases what it read (local). */
XCHG_MPI_INTERNAL int xchg_mpi_auto_files(xchg_mpi_plan *pl, const xchg_mpi_opts *opts);
XCHG_MPI_INTERNAL void xchg_mpi_auto_files_free(xchg_mpi_plan *pl);
/* Why a tuning file's row decided, into out: "auto: tuned (FILE): WHAT
 * measured fastest for P ranks on TOPO near M-byte blocks". */
XCHG_MPI_INTERNAL void xchg_mpi_tuned_why(const xchg_mpi_plan *pl, const char *what,
                                          const char *topo, char *out, size_t len);

/* call_common.c: the options a call runs with: opts, or (NULL) the defaults with
 * the environment over them, read once per process; a bad variable is said
 * once by rank 0 and sends every call to the MPI library (alg "mpi").
 * xchg_mpi_raise: raise rc on comm's error handler (MPI_COMM_WORLD's for
 * MPI_COMM_NULL) unless it is MPI_SUCCESS, and return it. */
XCHG_MPI_INTERNAL const xchg_mpi_opts *xchg_mpi_opts_effective(const xchg_mpi_opts *opts,
                                                               xchg_mpi_opts *buf);
XCHG_MPI_INTERNAL int xchg_mpi_raise(MPI_Comm comm, int rc);

/* op_plan.c: free an operation's part of a plan (NULL is fine). */
XCHG_MPI_INTERNAL void xchg_mpi_opx_free(struct xchg_mpi_opx *x);

/* The counters behind xchg_mpi_call_counts. */
XCHG_MPI_INTERNAL void xchg_mpi_count_call(int carried);

/* A call's arguments as given (alltoall.c, op_calls.c), for the MPI
 * library's own call. q: a shift's q as given (any integer); opts: the
 * options as given (NULL: the environment's). */
typedef struct xchg_mpi_opargs {
    xchg_op_kind kind;
    const void *sendbuf;
    void *recvbuf;
    MPI_Count scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int root, q;
    MPI_Comm comm;
    const xchg_mpi_opts *opts;
} xchg_mpi_opargs;

/* Where a call passed to the MPI library goes beyond its arguments: a
 * shift's MPI_Sendrecv runs on the plan's duplicate communicator, to and
 * from its peers ((r + q) mod p and (r - q) mod p); unused otherwise. */
typedef struct xchg_mpi_pass {
    MPI_Comm shift_comm;
    int to, from;
} xchg_mpi_pass;

/* op_memo.c: what the memo found for a call, which goes to the MPI library
 * at once: the plan (a fallback) that passed the same call on last time,
 * the memo's epoch then, and where the call goes. */
typedef struct xchg_mpi_memo_hit {
    const xchg_mpi_plan *plan;
    unsigned epoch;
    xchg_mpi_pass pass;
} xchg_mpi_memo_hit;

/* The hit for a call of a's operation when a (its options included) is
 * the very call last passed on and nothing it relied on was freed since,
 * counted (xchg_mpi_memo_hits); else NULL (always NULL under
 * MPI_THREAD_MULTIPLE and SMPI). */
XCHG_MPI_INTERNAL const xchg_mpi_memo_hit *xchg_mpi_memo_find(const xchg_mpi_opargs *a);

/* Remember that the call a was passed on by pl (a cached fallback), to
 * pass (where it went); calls with datatypes or an operator that are not
 * predefined are not remembered. */
XCHG_MPI_INTERNAL void xchg_mpi_memo_keep(const xchg_mpi_opargs *a, const xchg_mpi_plan *pl,
                                          xchg_mpi_pass pass);

/* Whether the memo is on: below MPI_THREAD_MULTIPLE, not under SMPI, and
 * between MPI_Init and MPI_Finalize (decided at the first call that asks
 * then). */
XCHG_MPI_INTERNAL int xchg_mpi_memo_on(void);

/* Forget every remembered call: call it when a cached plan is freed. */
XCHG_MPI_INTERNAL void xchg_mpi_memo_forget(void);

/* How many calls of operation kind took the short way so far (each one
 * passed to the MPI library: the counts of xchg_mpi_call_counts and
 * xchg_mpi_op_call_counts include them). */
XCHG_MPI_INTERNAL uint64_t xchg_mpi_memo_hits(xchg_op_kind kind);

/* The count of xchg_mpi_memo_forget calls so far (it moves before every
 * free of a cached plan). */
XCHG_MPI_INTERNAL unsigned xchg_mpi_memo_epoch(void);

#endif /* XCHG_MPI_INTERNAL_H */
