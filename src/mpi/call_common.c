/*
 * call_common.c - what every public call of the executor starts and ends
 * with (alltoall.c, op_calls.c): the options in effect (the caller's, or
 * the defaults with the environment over them, read once per process) and
 * raising an error on the communicator's error handler.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <stdio.h>

const xchg_mpi_opts *xchg_mpi_opts_effective(const xchg_mpi_opts *opts, xchg_mpi_opts *buf)
{
    static int env_read;
    static xchg_mpi_opts env;
    if (opts)
        return opts;
    if (!env_read) {
        xchg_err err;
        xchg_mpi_opts_default(&env);
        env_read = 1;
        if (xchg_mpi_opts_from_env(&env, &err)) {
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0)
                fprintf(stderr, "xchg: %s; using the MPI library's own calls\n", err.msg);
            env.alg = "mpi";
        }
    }
    *buf = env;
    return buf;
}

int xchg_mpi_raise(MPI_Comm comm, int rc)
{
    if (rc != MPI_SUCCESS)
        MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, rc);
    return rc;
}
