/*
 * call.h - the one call path of every entry point of the executor:
 *
 *   arguments --> the short way (memo.c): the very call passed to the MPI
 *                 library last time goes there again at once
 *             --> MPI's checks and what the call means (describe.c, one
 *                 row of the operations' table per operation)
 *             --> the key --> the communicator's plan cache --> a plan
 *                 (plan.c) --> its run, or the MPI library's call (pass.c)
 *
 *   call.c       the path itself, the verbose lines, persistent plans
 *   describe.c   the table: each operation's checks, key and buffers
 *   pass.c       the MPI library's own calls, and the counters
 *   memo.c       the short way
 *   last_info.c  what the last call ran (xchg_mpi_last_info)
 *   entry.c      the public entry points, side by side with the short way
 */
#ifndef XCHG_MPI_CALL_H
#define XCHG_MPI_CALL_H

#include "mpi/plan.h"

/* A call's arguments as given, for the MPI library's own call. q: a
 * shift's q as given (any integer); opts: the options as given (NULL: the
 * environment's). */
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
    int inner; /* a node-aware exchange's own call (hier.c): not counted
                  in XCHG_VERBOSE's totals, which count the program's */
    /* MPI_Alltoallv and MPI_Alltoallw: counts and displacements, read
     * where they lie (never copied): int arrays from the MPI calls, or
     * (wide) MPI_Count counts and MPI_Aint displacements from the public
     * API and the large-count calls; displacements count the type's
     * extent (v) or bytes (w); w's types one a peer */
    const void *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
    int wide;
} xchg_mpi_opargs;

/* Entry j of a call's count or displacement array (int, or wide: MPI_Count
 * for counts, MPI_Aint for displacements). */
static inline MPI_Count xchg_mpi_vcount(const void *arr, int wide, int j)
{
    return wide ? ((const MPI_Count *)arr)[j] : (MPI_Count)((const int *)arr)[j];
}
static inline MPI_Aint xchg_mpi_vdispl(const void *arr, int wide, int j)
{
    return wide ? ((const MPI_Aint *)arr)[j] : (MPI_Aint)((const int *)arr)[j];
}

/* Where a call passed to the MPI library goes beyond its arguments: a
 * shift's MPI_Sendrecv runs on the communicator's duplicate, to and from
 * its peers ((r + q) mod p and (r - q) mod p); unused otherwise. */
typedef struct xchg_mpi_pass {
    MPI_Comm shift_comm;
    int to, from;
} xchg_mpi_pass;

/* What a call is once checked (describe.c). */
typedef enum xchg_mpi_what {
    XCHG_MPI_RUN,    /* through a plan */
    XCHG_MPI_NONE,   /* nothing to move: done, carried */
    XCHG_MPI_LOCAL   /* a shift by a multiple of p: this rank's data home */
} xchg_mpi_what;

typedef struct xchg_mpi_call {
    int p, rank;
    xchg_mpi_what what;
    xchg_mpi_key key;          /* without its settings */
    xchg_mpi_bufs b;
    xchg_mpi_layout in_lay, out_lay; /* what b points to */
} xchg_mpi_call;

/* One operation's row of the table. */
typedef struct xchg_mpi_operation {
    const char *mpi_name; /* the MPI call it stands for */
    /* MPI's argument checks of a (whose comm is an intracommunicator of p
     * ranks, this one rank), and what the call means, into c: an MPI
     * error code */
    int (*describe)(const xchg_mpi_opargs *a, xchg_mpi_call *c);
} xchg_mpi_operation;

XCHG_MPI_INTERNAL extern const xchg_mpi_operation xchg_mpi_operations[XCHG_MPI_KINDS];

/* describe_v.c: the rows of MPI_Alltoallv and MPI_Alltoallw. */
XCHG_MPI_INTERNAL int xchg_mpi_describe_v(const xchg_mpi_opargs *a, xchg_mpi_call *c);

/* describe.c: a shift by a multiple of p: this rank's data to itself,
 * with its type. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_shift_home(const xchg_mpi_opargs *a, const xchg_mpi_call *c);

/* call.c: the checked path of every call (the short way did not take it):
 * an MPI error code, raised on the communicator's error handler. */
XCHG_MPI_INTERNAL int xchg_mpi_call_checked(const xchg_mpi_opargs *a);

/* pass.c: the MPI library's own call with a's arguments, counted as
 * passed when it can be made (counts above INT_MAX: MPI 4's large-count
 * calls, or MPI_ERR_COUNT under an older MPI); not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_pass_on(const xchg_mpi_opargs *a, const xchg_mpi_pass *pass);
/* pass.c: a variable-block call counted as carried that its plan hands
 * to the MPI library after all (a tuning file's row, tuned_v.c):
 * recounted as passed, then the library's call. Not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_pass_on_instead(const xchg_mpi_opargs *a);
/* pass.c: MPI_Alltoallv or MPI_Alltoallw by the MPI library, with a's
 * arrays: int arrays as they are; wide ones to MPI 4's large-count calls,
 * or under an older MPI converted to int (MPI_ERR_COUNT when one does not
 * fit). Not counted, not raised. */
XCHG_MPI_INTERNAL int xchg_mpi_library_v(const xchg_mpi_opargs *a);
/* pass.c: whether the MPI library's call can take the call a of n ranks
 * (the exchange, MPI_Alltoallv or MPI_Alltoallw): not with one address
 * both ways (MPI_BOTTOM, which MPICH 4.0.2 refuses as aliased); under an
 * MPI before 4, not with counts, or wide arrays that hold a count or
 * displacement, past an int; else yes. */
XCHG_MPI_INTERNAL int xchg_mpi_library_takes(const xchg_mpi_opargs *a, int n);
/* Where a call of cs passed on goes: a shift by q's peers on cs's
 * duplicate communicator. */
XCHG_MPI_INTERNAL xchg_mpi_pass xchg_mpi_pass_of(const xchg_mpi_comm *cs, int q);
/* Count a call of operation kind carried (1) or passed (0). */
XCHG_MPI_INTERNAL void xchg_mpi_count(xchg_op_kind kind, int carried);
/* Count a's call (carried or passed), unless it is a node-aware
 * exchange's own. */
static inline void xchg_mpi_count_call(const xchg_mpi_opargs *a, int carried)
{
    if (!a->inner)
        xchg_mpi_count(a->kind, carried);
}

/* memo.c: what the memo found for a call, which goes to the MPI library
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
 * predefined (but for MPI_Alltoallv and MPI_Alltoallw, whose plans read
 * no type), a node-aware exchange's own calls, or options too long to
 * keep, are not remembered. */
XCHG_MPI_INTERNAL void xchg_mpi_memo_keep(const xchg_mpi_opargs *a, const xchg_mpi_plan *pl,
                                          xchg_mpi_pass pass);
/* Whether the memo is on: below MPI_THREAD_MULTIPLE, not under SMPI, and
 * between MPI_Init and MPI_Finalize (decided at the first call that asks
 * then). */
XCHG_MPI_INTERNAL int xchg_mpi_memo_on(void);
/* Forget every remembered call: call it before a cached plan is freed. */
XCHG_MPI_INTERNAL void xchg_mpi_memo_forget(void);
/* How many calls of operation kind took the short way so far (each one
 * passed to the MPI library: the counts include them). */
XCHG_MPI_INTERNAL uint64_t xchg_mpi_memo_hits(xchg_op_kind kind);
/* The count of xchg_mpi_memo_forget calls so far. */
XCHG_MPI_INTERNAL unsigned xchg_mpi_memo_epoch(void);

/* last_info.c: remember what a call ran: a plan's info (copied only when
 * it is not the one remembered already), nothing (why: there was nothing
 * to move), or the MPI library's call without a plan (why). The process
 * keeps one record where the memo is on, each thread its own elsewhere. */
XCHG_MPI_INTERNAL void xchg_mpi_remember(const xchg_mpi_plan *pl);
XCHG_MPI_INTERNAL void xchg_mpi_remember_none(const char *why);
XCHG_MPI_INTERNAL void xchg_mpi_remember_passed(const char *why);
/* ... or pl's info with the way this call took instead (a variable-block
 * call decided per call: shm_v.c, tuned_v.c, call.c): alg, fallback (the
 * MPI library's call) and why, formatted from fmt. key (NULL: none) and
 * n name the reason: when both are the ones kept for pl, the reason kept
 * is this call's and nothing is formatted (so they must tell apart every
 * reason fmt can give). */
XCHG_MPI_INTERNAL void xchg_mpi_remember_way(const xchg_mpi_plan *pl, const void *key, uint64_t n,
                                             const char *alg, int fallback, const char *fmt, ...)
    XCHG_MPI_PRINTF(6, 7);
/* The short way's: the process's record (the memo is on), from a hit. */
XCHG_MPI_INTERNAL void xchg_mpi_remember_hit(const xchg_mpi_memo_hit *hit);

#endif /* XCHG_MPI_CALL_H */
