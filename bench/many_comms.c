/*
 * many_comms.c - an MPI program that makes many communicators and calls
 * MPI_Alltoall on each with counts it has not used there before, in the
 * manner of the MPI libraries' own collective tests: for each of several
 * communicators (the world, a duplicate, the world reversed, its halves,
 * its odd and even ranks, all but one rank, a 2-D Cartesian grid), counts
 * 1, 2, 4, ... MAX ints, each exchanged once into a separate buffer and
 * once in place, every result checked. It knows nothing of xchg:
 * bench/plan_cost.sh runs it with and without the drop-in.
 *
 *   many_comms [MAX] [ROUNDS] [-v]   (MAX ints, default 32768; ROUNDS
 *                                over every communicator, default 1; -v:
 *                                also each communicator's time)
 * Prints "many_comms: P ranks, C communicators, N calls, T s" (T: the
 * slowest rank's time from the first communicator to the last), or the
 * first wrong value and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_rank, world_size;

/* The communicator number k of a round (MPI_COMM_NULL on ranks outside
 * it), or 0 when there are no more. */
static int make_comm(int k, MPI_Comm *c)
{
    int r = world_rank, p = world_size;
    *c = MPI_COMM_NULL;
    switch (k) {
    case 0:
        MPI_Comm_dup(MPI_COMM_WORLD, c);
        return 1;
    case 1:
        MPI_Comm_split(MPI_COMM_WORLD, 0, p - r, c); /* reversed */
        return 1;
    case 2:
        MPI_Comm_split(MPI_COMM_WORLD, r < p / 2, r, c); /* halves */
        return 1;
    case 3:
        MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, c); /* odd and even */
        return 1;
    case 4:
        MPI_Comm_split(MPI_COMM_WORLD, r == p - 1 ? MPI_UNDEFINED : 0, r, c); /* all but one */
        return 1;
    case 5: {
        int dims[2] = {0, 0}, periods[2] = {1, 1};
        MPI_Dims_create(p, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, c);
        return 1;
    }
    default:
        return 0;
    }
}

/* Exchange count ints on c, then again in place; 0, or 1 on a wrong value. */
static int exchange(MPI_Comm c, int count, int *s, int *r)
{
    int rank, p;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &p);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < count; i++)
            s[(size_t)j * count + i] = j * p + rank + i;
    MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, c);
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < p; j++)
            for (int i = 0; i < count; i++)
                if (r[(size_t)j * count + i] != rank * p + j + i) {
                    fprintf(stderr, "many_comms: rank %d: count %d from %d: %d, want %d%s\n",
                            world_rank, count, j, r[(size_t)j * count + i], rank * p + j + i,
                            pass ? " (in place)" : "");
                    return 1;
                }
        if (pass)
            break;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < count; i++)
                r[(size_t)j * count + i] = j * p + rank + i;
        MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, r, count, MPI_INT, c);
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int max = argc > 1 ? atoi(argv[1]) : 32768, rounds = argc > 2 ? atoi(argv[2]) : 1;
    int each = argc > 3 && !strcmp(argv[3], "-v");
    if (max < 1 || rounds < 1) {
        if (world_rank == 0)
            fprintf(stderr, "usage: many_comms [MAX ints >= 1] [ROUNDS >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    size_t n = (size_t)max * (size_t)world_size;
    int *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);
    long calls = 0, comms = 0;
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int round = 0; round < rounds; round++) {
        MPI_Comm c;
        for (int k = 0;; k++) {
            double t1 = MPI_Wtime();
            if (!make_comm(k, &c))
                break;
            comms++;
            if (c != MPI_COMM_NULL) {
                for (int count = 1; count <= max && !bad; count *= 2) {
                    bad = exchange(c, count, s, r);
                    calls += 2;
                }
                MPI_Comm_free(&c);
            }
            double tk = MPI_Wtime() - t1, slow = 0;
            MPI_Reduce(&tk, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (each && world_rank == 0)
                printf("many_comms: communicator %d: %.3f s\n", k, slow);
        }
    }
    double t = MPI_Wtime() - t0, slowest = 0;
    int any = 0;
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("many_comms: %d ranks, %ld communicators, %ld calls on rank 0, %.3f s%s\n",
               world_size, comms, calls, slowest, any ? ", WRONG RESULTS" : "");
    free(s);
    free(r);
    MPI_Finalize();
    return any ? 1 : 0;
}
