/*
 * xchg_mpi.h - run xchg's schedules for real: MPI_Alltoall over MPI
 * point-to-point messages (docs/mpi.md).
 *
 * Every rank derives its own part of one schedule from the registry (what it
 * sends and receives at each step, and where each block is kept), packs the
 * blocks a step sends, posts the receive before the send, and unpacks. No
 * rank builds the whole schedule. When every rank is on one node, alg "shm"
 * exchanges through a shared-memory segment instead: one barrier, no
 * message (auto picks it for small blocks). Built into libxchg_mpi when
 * CMake finds an MPI (Open MPI by default, MPICH with -DXCHG_MPI=mpich).
 *
 * Errors: every call returns an MPI error code (MPI_SUCCESS or an error class
 * such as MPI_ERR_ARG). An error inside a call that takes a communicator is
 * first raised on that communicator's error handler (MPI_Comm_call_errhandler),
 * so MPI_ERRORS_ARE_FATAL stops the job as MPI_Alltoall would and
 * MPI_ERRORS_RETURN hands the code back. The library itself never exits,
 * aborts or prints, except on stderr from rank 0: the lines verbose mode
 * asks for, and one line when a value it was given (an algorithm, a
 * topology, an environment variable) cannot be honoured.
 *
 * Anything the executor does not handle (intercommunicators, counts whose
 * block does not fit in memory, a topology that cannot be mapped) goes to
 * the MPI library's own PMPI_Alltoall; the plan says so (xchg_mpi_plan_info).
 */
#ifndef XCHG_MPI_H
#define XCHG_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "xchg.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How to run an exchange. Zero it (or use xchg_mpi_opts_default) and set what
 * matters; NULL strings mean "auto".
 */
typedef struct xchg_mpi_opts {
    /* A registry spec ("hc-standard", "bruck:4", "at2:virtual"), "auto"
     * (pick by the cost model for the block size), "shm" (the direct
     * exchange through one node's shared memory: every rank on one node;
     * docs/mpi.md) or "mpi" (always the MPI library's own call). NULL:
     * "auto". A list, one per operation ("bruck,bcast-hc"), gives each
     * call its operation's (xchg_mpi_alg_for); another operation's alone
     * leaves the exchange to auto. A spec that does not apply to the communicator (its topology,
     * or "shm" across nodes) gets the MPI library's call, and rank 0 says
     * why on stderr. */
    const char *alg;
    /* A topology spec the ranks are laid out on (node id = rank), "auto"
     * (a Cartesian communicator's torus or mesh, else complete:p), NULL:
     * "auto". Its node count must equal the communicator's size. */
    const char *topology;
    /* Nonzero: rank 0 of the communicator writes one line to stderr saying
     * what was chosen and why: once per communicator, and again only when
     * a later block size chooses something else (every persistent plan
     * says it). */
    int verbose;
    /* auto's measured inputs, file paths (NULL or "": none), read by rank 0
     * and shared: a tuning file from `xchg tune` (docs/tuning.md), whose row
     * for the call's operation and the communicator's ranks, topology and
     * block size auto runs (its "mpi": the MPI library's own call); and
     * a machine file from `xchg probe` (docs/machine-file.md), whose figures
     * auto's cost model uses where no row applies. A file that cannot be
     * used is said (rank 0) and auto goes on without it. */
    const char *tuning_file;
    const char *machine_file;
} xchg_mpi_opts;

/* Defaults: alg auto, topology auto, quiet, no tuning or machine file. */
void xchg_mpi_opts_default(xchg_mpi_opts *opts);

/* Whether alg is a value opts.alg (and XCHG_ALG) accepts: auto, mpi, shm,
 * or registry specs separated by commas, at most one per operation
 * ("hc-standard,bcast-hc"), an operation's without root or q (each call
 * gives those). XCHG_OK, or XCHG_EINVAL with a message saying what is
 * wrong and what is accepted. */
int xchg_mpi_alg_check(const char *alg, xchg_err *err);

/* Whether alg is one algorithm a call of operation kind can be asked for:
 * auto, mpi, shm (the exchange only), or one registry spec of kind
 * (another operation's, such as bcast-hc for the exchange, is refused
 * with "bcast-hc performs bcast, not the complete exchange"; so is an
 * operation's spec with a root or q, which each call gives). For tools
 * that time one operation (xchg-bench --op). */
int xchg_mpi_alg_check_op(const char *alg, xchg_op_kind kind, xchg_err *err);

/* What opts.alg asks of a call of operation kind, into out: "auto" when
 * it names nothing of kind (another operation's algorithm included),
 * "mpi", or the value or list item of kind. */
void xchg_mpi_alg_for(const char *alg, xchg_op_kind kind, char *out, size_t len);

/*
 * Fill opts from the environment: XCHG_ALG (xchg_mpi_alg_check's values),
 * XCHG_TOPOLOGY (a topology spec or auto), XCHG_VERBOSE (0 or 1),
 * XCHG_TUNING_FILE and XCHG_MACHINE_FILE (paths; read and checked when a
 * plan is made); XCHG_SMPI_COPY_COST ("C,T": under SimGrid's SMPI, charge
 * each of the executor's copies C ns and each byte copied T ns of simulated
 * time; checked everywhere, of effect only there). Unset or empty variables
 * leave the field alone. Returns 0, or XCHG_EINVAL with a message naming
 * the variable, its value and what is accepted (opts then unchanged).
 * The strings point into the environment.
 */
int xchg_mpi_opts_from_env(xchg_mpi_opts *opts, xchg_err *err);

/*
 * MPI_Alltoall through xchg, with its arguments (counts as MPI_Count, so
 * count x extent x p may exceed 2^31 bytes) and an options argument (NULL:
 * xchg_mpi_opts_from_env over the defaults). sendbuf may be MPI_IN_PLACE
 * (then sendcount and sendtype are ignored, as in MPI_Alltoall). Collective
 * over comm. The first call for a (communicator, block size) makes a plan and
 * caches it on the communicator (an attribute, freed with the communicator);
 * later calls reuse it.
 */
int xchg_mpi_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const xchg_mpi_opts *opts);

/*
 * MPI_Alltoallv and MPI_Alltoallw through xchg (docs/alltoallv.md), with
 * their arguments: counts, displacements (v: in elements of the type's
 * extent; w: in bytes) and, for w, a type per peer; the _c forms take
 * MPI_Count counts and MPI_Aint displacements as MPI 4's large-count calls
 * do (under an MPI before 4 a call passed to the library needs them to
 * fit an int). sendbuf may be MPI_IN_PLACE (the send arguments are then
 * ignored). Blocks of 0 bytes move nothing. Collective over comm.
 *
 * One plan a communicator serves every count: on one node the blocks go
 * through a shared segment while the call's largest block is below auto's
 * crossover, else (and across nodes) each rank posts its nonzero blocks
 * in the pairwise order, a window at a time. With a tuning file's rows of
 * alltoallv (opts.tuning_file; docs/tuning.md) auto follows the row of
 * each call's largest block on one node (shm, pairwise, a schedule that
 * forwards blocks, or the MPI library's call), and the rows' one way
 * elsewhere when they name one. opts.alg may name a direct schedule
 * (pairwise, hc-direct), a schedule that forwards blocks (Bruck, the
 * tori's: the sizes travel in its messages), shm or mpi; an
 * intercommunicator gets the MPI library's call. Errors as
 * xchg_mpi_alltoall's.
 */
int xchg_mpi_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       const xchg_mpi_opts *opts);
int xchg_mpi_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, const xchg_mpi_opts *opts);
int xchg_mpi_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       const xchg_mpi_opts *opts);
int xchg_mpi_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm,
                         const xchg_mpi_opts *opts);

/* Calls of xchg_mpi_alltoallv and _alltoallw (all four forms) in this
 * process so far, as xchg_mpi_call_counts. */
void xchg_mpi_v_call_counts(uint64_t *carried, uint64_t *passed);

/* A persistent exchange: made once for (comm, counts, types, in place or
 * not), run many times, freed. */
typedef struct xchg_mpi_plan xchg_mpi_plan;

/*
 * Make a plan (collective over comm). in_place nonzero: runs take MPI_IN_PLACE
 * as sendbuf. The plan keeps comm and the types (it duplicates neither; they
 * must outlive it). Returns MPI_SUCCESS and *out, or an MPI error code (raised
 * on comm's error handler) with *out NULL.
 */
int xchg_mpi_plan_create(MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
                         MPI_Datatype recvtype, int in_place, MPI_Comm comm,
                         const xchg_mpi_opts *opts, xchg_mpi_plan **out);

/* Run the exchange (collective over the plan's comm). sendbuf is MPI_IN_PLACE
 * for an in-place plan. Returns an MPI error code. */
int xchg_mpi_plan_run(xchg_mpi_plan *plan, const void *sendbuf, void *recvbuf);

/* Free a plan (not collective); NULL is fine. */
void xchg_mpi_plan_free(xchg_mpi_plan *plan);

/* Most candidates xchg_mpi_plan_predictions reports. */
#define XCHG_MPI_MAX_PREDICTIONS 128

/*
 * The times (us) auto's cost model predicted for the candidates it weighed
 * when it made plan (alg auto, and no tuning file row decided first): up to
 * max pairs into specs[i] (a registry spec, or "shm") and us[i]; returns how
 * many (0 for a plan auto's model did not choose). The model's own choice is
 * the fastest of them. For comparing the model with measurements
 * (`xchg tune --json`, bench/model_vs_measured.sh).
 */
int xchg_mpi_plan_predictions(const xchg_mpi_plan *plan, xchg_spec *specs, double *us, int max);

/* What a plan does, for verbose output and tests. */
typedef struct xchg_mpi_plan_info {
    char alg[XCHG_SPEC_MAX];   /* the algorithm run, or "mpi" for the fallback */
    char topology[64];         /* the topology the ranks were mapped to */
    char why[1024];            /* why this algorithm (and why any fallback) */
    int fallback;              /* nonzero: runs call PMPI_Alltoall */
    size_t steps;              /* steps with a message (alg "shm": rounds) */
    size_t scratch_bytes;      /* scratch this rank holds for runs */
    size_t shared_bytes;       /* alg "shm": the segment every rank maps */
    size_t plan_bytes;         /* memory of this rank's lists */
    double plan_seconds;       /* time this rank spent making the plan */
    unsigned collectives;      /* collective steps this rank took while the plan
                                  was made: the communicator's state at its
                                  first call, files read, a program built, the
                                  shared buffers grown; 0 when the plan was
                                  made by local arithmetic alone (docs/mpi.md) */
} xchg_mpi_plan_info;

/* Fill *info; MPI_ERR_ARG on NULL. */
int xchg_mpi_plan_info_get(const xchg_mpi_plan *plan, xchg_mpi_plan_info *info);

/* Calls of xchg_mpi_alltoall in this process so far: how many xchg carried
 * and how many it passed to the MPI library. Either pointer may be NULL. */
void xchg_mpi_call_counts(uint64_t *carried, uint64_t *passed);

/* ------------------------------------------------------------------ */
/* The other operations (docs/mpi-ops.md)                              */
/* ------------------------------------------------------------------ */

/*
 * Seed 003's operations over MPI, with the arguments and results of the
 * MPI library's calls: each runs one rank's program (xchg_op_program_new)
 * of the algorithm chosen for the operation, its root or shift, and the
 * block size (opts.alg; auto follows the tuning file's row for the
 * operation, else ranks the operation's algorithms that apply to the
 * ranks' topology with the same cost model as the exchange).
 *
 * opts.alg may name one algorithm per operation, comma-separated
 * ("bcast-hc,allreduce-split,bruck"): each call runs the one of its own
 * operation and auto where the list has none; "mpi" sends every call to
 * the MPI library, "auto" ranks every one. Calls go to the MPI library's
 * own (PMPI_Bcast, ...) and the plan says why (xchg_mpi_last_info) when
 * no algorithm of the operation applies (allreduce and scan need p = 2^d),
 * for an intercommunicator, and for a reduction whose datatype is not
 * dense (its size differs from its extent, or its lower bound is not 0:
 * MPI_DOUBLE_INT, a vector with gaps) or whose operator is not
 * commutative when no algorithm that keeps rank order applies (reduce-hc,
 * reduce-ring, allreduce-hc and scan-hc keep it; MPI_Op_commutative
 * says which operators need it). Data of other operations may have any
 * datatype: it is packed (MPI_Pack) when it is not plain bytes.
 *
 * Counts are MPI_Count; every rank must pass the same counts and type
 * signatures, as MPI requires. MPI_IN_PLACE where MPI allows it: the
 * root's sendbuf of xchg_mpi_reduce and xchg_mpi_gather, the root's
 * recvbuf of xchg_mpi_scatter, and every rank's sendbuf of allreduce,
 * allgather, reduce_scatter_block, scan and shift (shift: the data is
 * in recvbuf and replaced). Errors as xchg_mpi_alltoall's: an MPI error
 * code, raised on comm's error handler. Plans are cached on the
 * communicator per (operation, root or shift, block size, element size,
 * commutativity, options).
 */
int xchg_mpi_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                   const xchg_mpi_opts *opts);
int xchg_mpi_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, int root, MPI_Comm comm, const xchg_mpi_opts *opts);
int xchg_mpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, const xchg_mpi_opts *opts);
/* recvcount elements per rank: sendbuf holds p * recvcount. */
int xchg_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                  const xchg_mpi_opts *opts);
int xchg_mpi_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm, const xchg_mpi_opts *opts);
int xchg_mpi_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const xchg_mpi_opts *opts);
int xchg_mpi_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, const xchg_mpi_opts *opts);
int xchg_mpi_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, const xchg_mpi_opts *opts);
/* The circular q-shift: rank r's count elements go to rank (r + q) mod p
 * (q may be negative), as MPI_Sendrecv to (r + q) mod p from (r - q) mod p
 * would do on every rank. */
int xchg_mpi_shift(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                   int q, MPI_Comm comm, const xchg_mpi_opts *opts);

/* ------------------------------------------------------------------ */
/* Nonblocking and persistent exchanges (docs/nonblocking.md)          */
/* ------------------------------------------------------------------ */

/*
 * MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw and MPI 4's persistent
 * MPI_Alltoall_init, _v, _w (Open MPI 4.1: MPIX_Alltoall_init, ...)
 * through xchg, with their arguments. The request they give back is
 * completed by the ordinary MPI_Wait, MPI_Test and their kin, alone or
 * mixed with the library's requests, and a persistent one is started by
 * MPI_Start or MPI_Startall and freed by MPI_Request_free: libxchg_mpi
 * defines those calls (the drop-in's), so a program linked with it, or run
 * under LD_PRELOAD=libxchg_mpi.so, uses them as it would the library's.
 *
 * Every message is posted at start (the direct exchange), so the exchange
 * moves as the library moves point-to-point messages, and computation
 * between start and wait overlaps it as far as the library progresses
 * messages in the background; a persistent MPI_Alltoall of small blocks
 * on one node instead goes through a shared segment of its own: its start
 * writes this rank's blocks and arrives at the segment's barrier, its wait
 * copies this rank's blocks home once every rank has arrived. To the
 * library go: intercommunicators, opts.alg "mpi", MPI_THREAD_MULTIPLE,
 * SimGrid's SMPI, and counts above INT_MAX (a persistent call where the
 * library has none: MPI_ERR_UNSUPPORTED_OPERATION). Errors as
 * xchg_mpi_alltoall's.
 */
int xchg_mpi_ialltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const xchg_mpi_opts *opts, MPI_Request *request);
int xchg_mpi_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        const xchg_mpi_opts *opts, MPI_Request *request);
int xchg_mpi_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        const xchg_mpi_opts *opts, MPI_Request *request);
int xchg_mpi_alltoall_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, const xchg_mpi_opts *opts,
                           MPI_Request *request);
int xchg_mpi_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Info info, const xchg_mpi_opts *opts, MPI_Request *request);
int xchg_mpi_alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Info info, const xchg_mpi_opts *opts, MPI_Request *request);

/* Nonblocking and persistent initiations in this process so far (each
 * MPI_Ialltoall*, and each *_init, once), carried and passed, as
 * xchg_mpi_call_counts. */
void xchg_mpi_nb_call_counts(uint64_t *carried, uint64_t *passed);

/* What the last call of the other operations ran (info->alg "mpi" and
 * fallback set when the MPI library's call did, with the reason in why;
 * "none" when there was nothing to move: no bytes, or a shift by a
 * multiple of p, done locally); MPI_ERR_ARG on NULL, MPI_ERR_OTHER before
 * any call. The last call of the process, which below
 * MPI_THREAD_MULTIPLE makes one MPI call at a time; under
 * MPI_THREAD_MULTIPLE (and SimGrid's SMPI, whose ranks are threads), the
 * last call of this thread. */
int xchg_mpi_last_info(xchg_mpi_plan_info *info);

/* Calls of the other operations in this process so far, as
 * xchg_mpi_call_counts. */
void xchg_mpi_op_call_counts(uint64_t *carried, uint64_t *passed);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_MPI_H */
