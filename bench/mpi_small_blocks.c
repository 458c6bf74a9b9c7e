/*
 * mpi_small_blocks.c - tiny blocks on oversubscribed ranks, where the time
 * goes: the exchange timed back to back (ITERS calls in a row, no barrier
 * between) as MPI_Alltoall (the MPI library's own, PMPI_Alltoall), as xchg's
 * hc-standard (log p steps of point-to-point messages) and as xchg's shm
 * (one round through shared memory), next to what a bare MPI_Barrier and a
 * hand-written hypercube exchange (MPI_Sendrecv of p/2 blocks across each
 * bit, no packing) cost. Run under mpirun with p = 2^D ranks by
 * bench/mpi_small_blocks.sh.
 *
 *   mpi_small_blocks BYTES ITERS
 *
 * Prints one line per method: the best of three rounds of the slowest
 * rank's mean time per call, in us.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

static int rank, p;

/* Best over three rounds of the slowest rank's mean time per call. */
static double best_of_three(void (*call)(void *), void *ctx, int iters)
{
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            call(ctx);
        t = (MPI_Wtime() - t) / iters;
        double slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best)
            best = slowest;
    }
    return best * 1e6;
}

typedef struct bufs {
    char *send, *recv;
    size_t bytes;
    xchg_mpi_plan *plan, *shm;
} bufs;

static void barrier(void *ctx)
{
    (void)ctx;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void hand_written(void *ctx)
{
    bufs *b = ctx;
    int n = (int)(b->bytes * (size_t)p / 2);
    for (int bit = 1; bit < p; bit <<= 1)
        MPI_Sendrecv(b->send, n, MPI_BYTE, rank ^ bit, 0, b->recv, n, MPI_BYTE, rank ^ bit, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void library(void *ctx)
{
    bufs *b = ctx;
    /* PMPI_: this program links libxchg_mpi, whose MPI_Alltoall is xchg */
    PMPI_Alltoall(b->send, (int)b->bytes, MPI_BYTE, b->recv, (int)b->bytes, MPI_BYTE,
                  MPI_COMM_WORLD);
}

static void xchg_run(void *ctx)
{
    bufs *b = ctx;
    xchg_mpi_plan_run(b->plan, b->send, b->recv);
}

static void xchg_shm(void *ctx)
{
    bufs *b = ctx;
    xchg_mpi_plan_run(b->shm, b->send, b->recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long bytes = argc == 3 ? atol(argv[1]) : 0, iters = argc == 3 ? atol(argv[2]) : 0;
    if (bytes <= 0 || iters <= 0 || (p & (p - 1))) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2^D mpi_small_blocks BYTES ITERS (both > 0)\n");
        MPI_Finalize();
        return 2;
    }
    bufs b = {malloc((size_t)bytes * p), malloc((size_t)bytes * p), (size_t)bytes, NULL, NULL};
    memset(b.send, rank, (size_t)bytes * p);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "hc-standard";
    xchg_mpi_plan_create(bytes, MPI_BYTE, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &b.plan);
    o.alg = "shm";
    xchg_mpi_plan_create(bytes, MPI_BYTE, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &b.shm);
    double t_bar = best_of_three(barrier, NULL, (int)iters);
    double t_hand = best_of_three(hand_written, &b, (int)iters);
    double t_xchg = best_of_three(xchg_run, &b, (int)iters);
    double t_shm = best_of_three(xchg_shm, &b, (int)iters);
    double t_mpi = best_of_three(library, &b, (int)iters);
    if (rank == 0) {
        printf("p %d, %ld-byte blocks, %ld calls back to back, best of 3 (us per call):\n", p,
               bytes, iters);
        printf("  MPI_Barrier alone                      %9.1f\n", t_bar);
        printf("  hand-written hypercube (MPI_Sendrecv)  %9.1f  MPI_Alltoall / it %5.2f\n",
               t_hand, t_mpi / t_hand);
        printf("  xchg hc-standard (persistent plan)     %9.1f  MPI_Alltoall / it %5.2f\n",
               t_xchg, t_mpi / t_xchg);
        printf("  xchg shm (persistent plan)             %9.1f  MPI_Alltoall / it %5.2f\n",
               t_shm, t_mpi / t_shm);
        printf("  MPI_Alltoall (PMPI_Alltoall)           %9.1f\n", t_mpi);
    }
    xchg_mpi_plan_free(b.plan);
    xchg_mpi_plan_free(b.shm);
    free(b.send);
    free(b.recv);
    MPI_Finalize();
    return 0;
}
