/*
 * smpi_alltoall.c - one MPI_Alltoall, timed on SimGrid's simulated clock,
 * for bench/sim_simgrid.sh (docs/simulator.md, "Cross-check against
 * SimGrid"). Built with SimGrid's smpicc and run under smpirun, which picks
 * the algorithm (--cfg=smpi/alltoall:pair, bruck, ...).
 *
 * Usage: smpirun ... ./smpi_alltoall BYTES
 * Prints one line from rank 0: "ranks P block BYTES time_us T bad N", T
 * the simulated time from the start to the last rank's return, N the
 * blocks that arrived wrong (every block is checked; N must be 0).
 *
 * There is no barrier before the call: under smpirun every rank starts at
 * simulated time 0, as every node of `xchg sim` does, and a barrier would
 * let the ranks leave it at different times. (On a real machine this
 * would time the ranks' skew too; the program is for SMPI only.)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The byte at offset i of the block rank `from` sends to rank `to`. */
static unsigned char pattern(int from, int to, size_t i)
{
    return (unsigned char)(from * 131u + to * 7u + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *end = NULL;
    unsigned long long m = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
    if (argc != 2 || !end || *end || m == 0 || m > INT32_MAX) {
        if (rank == 0)
            fprintf(stderr, "usage: smpi_alltoall BYTES (a block size from 1 to %d)\n",
                    INT32_MAX);
        MPI_Finalize();
        return 2;
    }
    size_t total = (size_t)m * (size_t)p;
    unsigned char *send = malloc(total), *recv = malloc(total);
    if (!send || !recv) {
        fprintf(stderr, "smpi_alltoall: rank %d: out of memory for 2 x %zu bytes\n", rank,
                total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int to = 0; to < p; to++)
        for (size_t i = 0; i < m; i++)
            send[(size_t)to * m + i] = pattern(rank, to, i);
    memset(recv, 0, total);

    double t0 = MPI_Wtime();
    MPI_Alltoall(send, (int)m, MPI_BYTE, recv, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();

    long bad = 0;
    for (int from = 0; from < p; from++)
        for (size_t i = 0; i < m; i++)
            if (recv[(size_t)from * m + i] != pattern(from, rank, i)) {
                bad++;
                break;
            }
    double span[2] = {-t0, t1}, all[2];
    long bad_all = 0;
    MPI_Reduce(span, all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d block %llu time_us %.6f bad %ld\n", p, m, (all[1] + all[0]) * 1e6,
               bad_all);
    free(send);
    free(recv);
    MPI_Finalize();
    return bad_all ? 1 : 0;
}
