/*
 * pair_control.c - the noise floor of a paired timing (xchg-bench --pair).
 *
 * Two calls alternate in each iteration, as xchg-bench --pair makes them:
 * the first slot first on even iterations, the second first on odd ones,
 * a barrier after each call. Each slot's time is the mean over ranks of the
 * mean over the timed iterations (iteration 0 is the warm-up).
 *
 *   mode xchg:    xchg_mpi_scatter (auto, with the tuning file in $TUN if
 *                 set) against PMPI_Scatter
 *   mode control: PMPI_Scatter against PMPI_Scatter, the same call twice
 *
 * The control's ratio is what a paired measurement reads when the two sides
 * do the very same thing: how far from 1 a ratio can be by noise alone
 * (bench/pair_control.sh, docs/mpi-ops.md).
 *
 * Usage: mpirun -np P pair_control BYTES ITERATIONS xchg|control
 * Prints one line on rank 0: mode, bytes, timed iterations, both slots'
 * times (us) and their ratio.
 */
#include "xchg.h"
#include "xchg_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long bytes = argc > 1 ? atol(argv[1]) : 0;
    long iters = argc > 2 ? atol(argv[2]) : 0;
    const char *mode = argc > 3 ? argv[3] : "";
    int control = !strcmp(mode, "control");
    if (argc != 4 || bytes < 1 || bytes > (1L << 24) || iters < 2 ||
        (!control && strcmp(mode, "xchg"))) {
        if (rank == 0)
            fprintf(stderr, "usage: pair_control BYTES (1..16777216) ITERATIONS (2 or more) "
                            "xchg|control\n");
        MPI_Finalize();
        return 2;
    }
    size_t m = (size_t)bytes;
    char *sbuf = malloc(m * (size_t)p), *rbuf = malloc(m);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "pair_control: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 1, m * (size_t)p);
    memset(rbuf, 0, m);
    xchg_mpi_opts opts;
    xchg_mpi_opts_default(&opts);
    opts.alg = "auto";
    opts.tuning_file = getenv("TUN");

    double slot[2] = {0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < iters; i++) {
        for (int turn = 0; turn < 2; turn++) {
            int s = (int)((turn + i) % 2); /* slot 0: xchg's (or the control's first) */
            double t0 = MPI_Wtime();
            if (s == 1 || control)
                PMPI_Scatter(sbuf, (int)m, MPI_BYTE, rbuf, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
            else
                xchg_mpi_scatter(sbuf, (MPI_Count)m, MPI_BYTE, rbuf, (MPI_Count)m, MPI_BYTE, 0,
                                 MPI_COMM_WORLD, &opts);
            double t1 = MPI_Wtime();
            MPI_Barrier(MPI_COMM_WORLD);
            if (i > 0)
                slot[s] += t1 - t0;
        }
    }
    double sum[2];
    MPI_Reduce(slot, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double a = sum[0] * 1e6 / (double)p / (double)(iters - 1);
        double b = sum[1] * 1e6 / (double)p / (double)(iters - 1);
        printf("%-8s %8ld %6ld %12.1f %12.1f %8.2f\n", mode, bytes, iters - 1, a, b, a / b);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
