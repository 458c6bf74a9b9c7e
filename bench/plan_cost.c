/*
 * plan_cost.c - what a plan costs a program that calls MPI_Alltoall with
 * counts it never used before (bench/plan_cost.sh runs it).
 *
 * Run under the drop-in (LD_PRELOAD=libxchg_mpi.so), its MPI_Alltoall is
 * xchg's and PMPI_Alltoall the MPI library's own; run without, both are
 * the library's (the control). Each timing is the slowest rank's time of
 * one call (or of a row of calls), every rank starting after a barrier.
 *
 *   plan_cost first N
 *       After 100 other new counts through both sides (a program that has
 *       run a while), N counts none of them has seen: at each, one
 *       MPI_Alltoall (its first call at that count: a new plan) and one
 *       PMPI_Alltoall at the same count, in an order that alternates.
 *       Prints one line per count: "first COUNT BYTES T_MPI T_PMPI".
 *   plan_cost row N ROUNDS
 *       ROUNDS times, in two halves: N distinct counts in a row through
 *       MPI_Alltoall, then the same N through PMPI_Alltoall; then N new
 *       counts through PMPI_Alltoall first and MPI_Alltoall after (every
 *       count new to both sides, each side first in one half). A first
 *       round warms the process and is not printed. Prints one line per
 *       round: "row N T_MPI T_PMPI", each the sum of its 2N calls.
 *
 * Counts are ints; the i-th new count of a run is spread over 1 to 4096
 * ints (4 B to 16 KiB blocks) so that every block size auto weighs is met.
 * Every receive buffer is checked against the pattern the exchange must
 * give; a wrong byte stops the run with exit 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks;

/* The value rank `from` sends to rank `to` at index i of a block. */
static int value(int from, int to, int i)
{
    return from * 1000003 + to * 7919 + i;
}

/* One exchange of count ints through the drop-in's name (lib 0) or the
 * library's (lib 1), checked; the slowest rank's seconds. */
static double one_call(int lib, int count, int *s, int *r)
{
    for (int d = 0; d < nranks; d++)
        for (int i = 0; i < count; i++)
            s[(size_t)d * count + i] = value(rank, d, i);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = lib ? PMPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD)
                 : MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, most = 0;
    for (int o = 0; o < nranks && rc == MPI_SUCCESS; o++)
        for (int i = 0; i < count; i++)
            if (r[(size_t)o * count + i] != value(o, rank, i)) {
                fprintf(stderr, "plan_cost: rank %d: wrong data from %d at count %d\n", rank, o,
                        count);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

/* The i-th count of a run: spread from 1 to 4096 ints, all distinct for
 * i < 4096 (a permutation of the steps, so sizes are met out of order). */
static int count_of(int i)
{
    return 1 + (int)(((long)i * 2654435761u) % 4096);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 3 || (strcmp(argv[1], "first") && strcmp(argv[1], "row"))) {
        if (rank == 0)
            fprintf(stderr, "usage: plan_cost first N | plan_cost row N ROUNDS\n");
        MPI_Finalize();
        return 2;
    }
    int n = atoi(argv[2]), rounds = argc > 3 ? atoi(argv[3]) : 1;
    if (n < 1 || n > 2048 || rounds < 1 || (!strcmp(argv[1], "first") && n > 3996) || (long)(rounds + 1) * 2 * n > 4096) {
        if (rank == 0)
            fprintf(stderr, "plan_cost: N from 1 to 2048, ROUNDS at least 1, and "
                            "2 x (ROUNDS + 1) x N at most 4096 (distinct counts)\n");
        MPI_Finalize();
        return 2;
    }
    size_t most = (size_t)4097 * (size_t)nranks;
    int *s = malloc(most * sizeof *s), *r = malloc(most * sizeof *r);
    /* touched once here, so neither side pays the first touch of a page */
    memset(s, 0, most * sizeof *s);
    memset(r, 0, most * sizeof *r);
    /* warm both sides up on a count the runs never use (0 ints is done
     * without a plan): the communicator's state, the library's buffers */
    one_call(0, 4097, s, r);
    one_call(1, 4097, s, r);
    if (!strcmp(argv[1], "first")) {
        /* 100 other new counts first, through both sides: what a program
         * that has run a while has made once per communicator (programs
         * of the algorithms its sizes choose, the buffers they share) is
         * made, and what is left at a new count is its plan */
        for (int i = n; i < n + 100 && i < 4096; i++) {
            one_call(0, count_of(i), s, r);
            one_call(1, count_of(i), s, r);
        }
        for (int i = 0; i < n; i++) {
            int c = count_of(i);
            double t_mpi, t_lib;
            if (i % 2) {
                t_lib = one_call(1, c, s, r);
                t_mpi = one_call(0, c, s, r);
            } else {
                t_mpi = one_call(0, c, s, r);
                t_lib = one_call(1, c, s, r);
            }
            if (rank == 0)
                printf("first %d %zu %.9f %.9f\n", c, (size_t)c * sizeof(int), t_mpi, t_lib);
        }
    } else {
        for (int k = 0; k <= rounds; k++) {
            /* two halves, each side first in one of them: whichever side
             * goes first at a count meets what is new to the library too;
             * round 0 warms the process (as the first calls of a program
             * that runs for a while) and is not printed */
            double t[2] = {0, 0};
            for (int half = 0; half < 2; half++)
                for (int side = 0; side < 2; side++) {
                    int lib = (half + side) % 2;
                    for (int i = 0; i < n; i++)
                        t[lib] += one_call(lib, count_of((2 * k + half) * n + i), s, r);
                }
            if (rank == 0 && k > 0)
                printf("row %d %.9f %.9f\n", n, t[0], t[1]);
        }
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
