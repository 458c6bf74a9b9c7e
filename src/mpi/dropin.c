/*
 * dropin.c - the drop-in MPI_Alltoall: LD_PRELOAD=libxchg_mpi.so under an
 * unmodified MPI program and its MPI_Alltoall runs through xchg (PMPI
 * interposition; docs/mpi.md).
 *
 * This file defines MPI_Alltoall and MPI_Finalize (dropin_ops.c the other
 * operations' calls, through xchg_dropin_enter; dropin_large.c MPI 4's
 * large-count MPI_Alltoall_c, MPI_Bcast_c, ...). It holds no algorithm
 * knowledge: it reads the environment once, then hands each call to
 * xchg_mpi_alltoall, which picks the algorithm and sends whatever it does not
 * handle to PMPI_Alltoall itself. The drop-in calls PMPI_Alltoall only when
 * xchg is off or the environment is invalid, and counts those calls.
 *
 * Environment (read on the first MPI_Alltoall or at MPI_Finalize; set but
 * empty is the same as unset):
 *   XCHG_DISABLE  0 or 1; 1 passes every call to the MPI library
 *   XCHG_ALG, XCHG_TOPOLOGY, XCHG_VERBOSE  as xchg_mpi_opts_from_env reads them
 * A bad value gets one line on stderr (from rank 0 of MPI_COMM_WORLD) naming
 * the variable, its value and what is accepted, and then every call goes to
 * the MPI library: a typo never crashes or aborts the program. Every rank must
 * see the same environment (mpirun gives it to all), or ranks would disagree
 * on which path a collective call takes.
 *
 * XCHG_VERBOSE=1: the executor says once per communicator what it chose and
 * why; at MPI_Finalize rank 0 writes the totals over all ranks:
 *   xchg: at MPI_Finalize: N MPI_Alltoall calls carried by xchg, M passed to the MPI library
 * and, when the program made any, a second line for the other operations
 * (MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block,
 * MPI_Scan, MPI_Allgather, MPI_Gather, MPI_Scatter):
 *   xchg: at MPI_Finalize, the other operations: N calls carried by xchg, M passed to ...
 * and a third for MPI_Alltoallv and MPI_Alltoallw (all their forms):
 *   xchg: at MPI_Finalize, MPI_Alltoallv and MPI_Alltoallw: N calls carried by xchg, M ...
 * and a fourth for the nonblocking and persistent exchanges (each
 * MPI_Ialltoall* and each *_init once: dropin_req.c):
 *   xchg: at MPI_Finalize, nonblocking and persistent exchanges: N made by xchg, M ...
 *
 * Fortran: MPICH's bindings (mpif.h, use mpi, use mpi_f08) call the C
 * MPI_Alltoall and MPI_Finalize, so this file carries them; Open MPI's call
 * PMPI_, so dropin_fortran.c defines Open MPI's Fortran symbols and calls
 * xchg_dropin_alltoall and xchg_dropin_finalize below.
 */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dropin_internal.h"

/* What the environment said, fixed on first use. */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int use_xchg;          /* 0: every call goes to PMPI_Alltoall */
static int report_totals;     /* XCHG_VERBOSE=1: the line at MPI_Finalize */
static xchg_mpi_opts env_opts;
/* Calls this file passed to the MPI library itself (the executor counts its own). */
static atomic_uint_fast64_t passed_here, ops_passed_here, v_passed_here, nb_passed_here;
/* Set while this thread is inside xchg_mpi_alltoall: an MPI_Alltoall made
 * from there (the executor should only call PMPI_Alltoall) goes straight to
 * the MPI library instead of recursing. */
static _Thread_local int inside_xchg;

/* Nonzero on the process that should print: rank 0 of MPI_COMM_WORLD, or
 * every process when the world model is not initialised (MPI sessions). */
static int is_printer(void)
{
    int init = 0, fin = 0, rank = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || PMPI_Finalized(&fin) != MPI_SUCCESS)
        return 1; /* unknown: better said twice than never */
    if (init && !fin && PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
        return 1;
    return rank == 0;
}

/* Read the environment once (pthread_once): XCHG_DISABLE, then the
 * executor's variables. Any bad value: a message and use_xchg = 0. */
static void read_env(void)
{
    const char *dis = getenv("XCHG_DISABLE");
    const char *verb = getenv("XCHG_VERBOSE");
    xchg_err err;

    report_totals = verb != NULL && strcmp(verb, "1") == 0;
    xchg_mpi_opts_default(&env_opts);
    if (dis != NULL && *dis == '\0')
        dis = NULL; /* set but empty: unset, as xchg_mpi_opts_from_env reads its variables */
    if (dis != NULL && strcmp(dis, "0") != 0 && strcmp(dis, "1") != 0) {
        if (is_printer())
            fprintf(stderr,
                    "xchg: XCHG_DISABLE=%.64s: expected 0 (run MPI_Alltoall through xchg) or 1 "
                    "(pass every call to the MPI library); using the MPI library's "
                    "MPI_Alltoall\n",
                    dis);
        return;
    }
    if (dis != NULL && strcmp(dis, "1") == 0)
        return;
    err.msg[0] = '\0';
    if (xchg_mpi_opts_from_env(&env_opts, &err) != 0) {
        if (is_printer())
            fprintf(stderr, "xchg: %s; using the MPI library's MPI_Alltoall\n",
                    err.msg[0] ? err.msg : "invalid XCHG_ALG, XCHG_TOPOLOGY or XCHG_VERBOSE");
        xchg_mpi_opts_default(&env_opts);
        return;
    }
    use_xchg = 1;
}

/*
 * The drop-in's one path for C and Fortran callers: MPI_Alltoall's arguments
 * (counts widened to MPI_Count), an MPI error code back. Through xchg when
 * the environment allows, else PMPI_Alltoall (counted as passed).
 */
int xchg_dropin_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    int rc;

    pthread_once(&env_once, read_env);
    if (!use_xchg || inside_xchg) {
        atomic_fetch_add(&passed_here, 1);
#if MPI_VERSION >= 4
        if (sendcount > INT_MAX || recvcount > INT_MAX) /* from MPI_Alltoall_c */
            return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
#endif
        /* Counts came from an int (C), an MPI_Fint (Fortran) or a count
         * of MPI_Alltoall_c that fits. */
        return PMPI_Alltoall(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount,
                             recvtype, comm);
    }
    inside_xchg = 1;
    rc = xchg_mpi_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           &env_opts);
    inside_xchg = 0;
    return rc;
}

/*
 * For dropin_ops.c's calls (MPI_Bcast and the other operations): the
 * environment's options when this call goes through xchg (then the caller
 * calls xchg_dropin_leave after it), or NULL when it goes to the MPI
 * library (xchg off, a bad environment, or a call made from inside xchg),
 * counted as passed.
 */
/* The environment's options, or NULL (counted in *passed). */
static const xchg_mpi_opts *enter(atomic_uint_fast64_t *passed)
{
    pthread_once(&env_once, read_env);
    if (!use_xchg || inside_xchg) {
        atomic_fetch_add(passed, 1);
        return NULL;
    }
    inside_xchg = 1;
    return &env_opts;
}

const xchg_mpi_opts *xchg_dropin_enter(void)
{
    return enter(&ops_passed_here);
}

const xchg_mpi_opts *xchg_dropin_enter_v(void)
{
    return enter(&v_passed_here);
}

const xchg_mpi_opts *xchg_dropin_enter_nb(void)
{
    return enter(&nb_passed_here);
}

void xchg_dropin_leave(void)
{
    inside_xchg = 0;
}

/*
 * MPI_Finalize's work before PMPI_Finalize: with XCHG_VERBOSE=1, sum the
 * carried and passed counts of all ranks on rank 0 of MPI_COMM_WORLD and
 * print them. Returns PMPI_Finalize's code.
 */
int xchg_dropin_finalize(void)
{
    uint64_t mine[8] = {0}, sum[8] = {0};
    int init = 0, fin = 0, rank = 0;

    pthread_once(&env_once, read_env);
    if (PMPI_Initialized(&init) != MPI_SUCCESS || PMPI_Finalized(&fin) != MPI_SUCCESS)
        init = 0; /* no totals when MPI cannot say it runs */
    if (report_totals && init && !fin) {
        xchg_mpi_call_counts(&mine[0], &mine[1]);
        mine[1] += (uint64_t)atomic_load(&passed_here);
        xchg_mpi_op_call_counts(&mine[2], &mine[3]);
        mine[3] += (uint64_t)atomic_load(&ops_passed_here);
        xchg_mpi_v_call_counts(&mine[4], &mine[5]);
        mine[5] += (uint64_t)atomic_load(&v_passed_here);
        xchg_mpi_nb_call_counts(&mine[6], &mine[7]);
        mine[7] += (uint64_t)atomic_load(&nb_passed_here);
        if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS &&
            PMPI_Reduce(mine, sum, 8, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS &&
            rank == 0) {
            fprintf(stderr,
                    "xchg: at MPI_Finalize: %" PRIu64 " MPI_Alltoall calls carried by xchg, "
                    "%" PRIu64 " passed to the MPI library\n",
                    sum[0], sum[1]);
            if (sum[2] + sum[3] > 0)
                fprintf(stderr,
                        "xchg: at MPI_Finalize, the other operations: %" PRIu64
                        " calls carried by xchg, %" PRIu64 " passed to the MPI library\n",
                        sum[2], sum[3]);
            if (sum[4] + sum[5] > 0)
                fprintf(stderr,
                        "xchg: at MPI_Finalize, MPI_Alltoallv and MPI_Alltoallw: %" PRIu64
                        " calls carried by xchg, %" PRIu64 " passed to the MPI library\n",
                        sum[4], sum[5]);
            if (sum[6] + sum[7] > 0)
                fprintf(stderr,
                        "xchg: at MPI_Finalize, nonblocking and persistent exchanges: %" PRIu64
                        " made by xchg, %" PRIu64 " passed to the MPI library\n",
                        sum[6], sum[7]);
            fflush(stderr);
        }
    }
    return PMPI_Finalize();
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_dropin_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm);
}

int MPI_Finalize(void)
{
    return xchg_dropin_finalize();
}
