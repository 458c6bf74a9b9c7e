/*
 * dropin_ops_prog.c - an MPI program that knows nothing of xchg, for the
 * drop-in's other operations (tests/mpi/dropin.sh): each rank calls
 * MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block,
 * MPI_Scan, MPI_Allgather, MPI_Gather and MPI_Scatter on ints (every root
 * for the rooted ones, three sizes, one call in place each where MPI allows
 * it) and checks every result against the operation's definition computed
 * locally from the inputs. 8 calls a size and root: with p ranks and sizes
 * 1, 33 and 1000 that is 3 * (4 + 4p) calls per rank. Prints
 * "dropin_ops_prog: OK" on rank 0 when every rank's results are right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int sizes[] = {1, 33, 1000};
    for (int si = 0; si < 3; si++) {
        int n = sizes[si];
        int *s = malloc(sizeof(int) * (size_t)n * p), *r = malloc(sizeof(int) * (size_t)n * p);
        int *w = malloc(sizeof(int) * (size_t)n * p);
        for (int i = 0; i < n * p; i++)
            s[i] = in(rank, i);
        for (int root = 0; root < p; root++) {
            memcpy(r, s, sizeof(int) * n);
            MPI_Bcast(r, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                w[i] = in(root, i);
            expect(r, w, n, "MPI_Bcast", rank);

            memset(r, 0, sizeof(int) * n);
            MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                w[i] = 0;
                for (int o = 0; o < p; o++)
                    w[i] += in(o, i);
            }
            if (rank == root)
                expect(r, w, n, "MPI_Reduce", rank);

            memset(r, 0, sizeof(int) * n * p);
            MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int o = 0; o < p; o++)
                for (int i = 0; i < n; i++)
                    w[o * n + i] = in(o, i);
            if (rank == root)
                expect(r, w, n * p, "MPI_Gather", rank);

            memset(r, 0, sizeof(int) * n);
            MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                w[i] = in(root, rank * n + i);
            expect(r, w, n, "MPI_Scatter", rank);
        }
        memcpy(r, s, sizeof(int) * n);
        MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            w[i] = in(0, i);
            for (int o = 1; o < p; o++)
                w[i] = in(o, i) > w[i] ? in(o, i) : w[i];
        }
        expect(r, w, n, "MPI_Allreduce in place", rank);

        MPI_Scan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            w[i] = 0;
            for (int o = 0; o <= rank; o++)
                w[i] += in(o, i);
        }
        expect(r, w, n, "MPI_Scan", rank);

        memset(r, 0, sizeof(int) * n * p);
        memcpy(r + (size_t)rank * n, s, sizeof(int) * n);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
        for (int o = 0; o < p; o++)
            for (int i = 0; i < n; i++)
                w[o * n + i] = in(o, i);
        expect(r, w, n * p, "MPI_Allgather in place", rank);

        MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            w[i] = 0;
            for (int o = 0; o < p; o++)
                w[i] += in(o, rank * n + i);
        }
        expect(r, w, n, "MPI_Reduce_scatter_block", rank);
        free(s);
        free(r);
        free(w);
    }
    int total = 0;
    PMPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("dropin_ops_prog: OK\n");
    MPI_Finalize();
    return total != 0;
}
