/*
 * dropin_v_prog.c - an MPI program that knows nothing of xchg, for the
 * drop-in's MPI_Alltoallv and MPI_Alltoallw (tests/mpi/dropin.sh). Rank i
 * sends rank j n(i, j) = (i + 2j + k) mod 5 ints (0 for some pairs) in
 * round k, with displacements in reverse order; each rank checks every
 * received int against its definition. Per round: one MPI_Alltoallv, one
 * in place (counts made symmetric, as in place needs), one MPI_Alltoallw
 * of MPI_INT, and one of all counts 0; 3 rounds, so 12 calls a rank.
 * Prints "dropin_v_prog: OK" on rank 0 when every rank's results are right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_check.h"

/* Ints rank i sends rank j in round k (sym: the same both ways). */
static int n_of(int i, int j, int k, int sym)
{
    if (sym)
        return (i + j + k) % 4;
    return (i + 2 * j + k) % 5;
}

/* Element e of the block i sends j in round k. */
static int elem(int i, int j, int k, int e)
{
    return in(i, j * 1000 + e) + k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *sc = malloc(sizeof(int) * 6 * (size_t)p), *sd = sc + p, *rc = sc + 2 * p,
        *rd = sc + 3 * p, *bsd = sc + 4 * p, *brd = sc + 5 * p;
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)p);
    int *s = malloc(sizeof(int) * 8 * (size_t)p), *r = malloc(sizeof(int) * 8 * (size_t)p);
    int *want = malloc(sizeof(int) * 8 * (size_t)p);
    for (int j = 0; j < p; j++)
        types[j] = MPI_INT;
    for (int k = 0; k < 3; k++)
        for (int sym = 0; sym < 2; sym++) {
            int at = 0, rat = 0;
            for (int j = p - 1; j >= 0; j--) { /* blocks in reverse order */
                sc[j] = n_of(me, j, k, sym), sd[j] = at, at += sc[j] + 1;
                rc[j] = n_of(j, me, k, sym), rd[j] = rat, rat += rc[j] + 1;
                bsd[j] = sd[j] * (int)sizeof(int), brd[j] = rd[j] * (int)sizeof(int);
            }
            for (int j = 0; j < p; j++)
                for (int e = 0; e < sc[j]; e++)
                    s[sd[j] + e] = elem(me, j, k, e);
            memset(want, 0, sizeof(int) * 8 * (size_t)p);
            for (int j = 0; j < p; j++)
                for (int e = 0; e < rc[j]; e++)
                    want[rd[j] + e] = elem(j, me, k, e);
            if (sym) { /* in place: rd = sd, rc = sc */
                memcpy(r, s, sizeof(int) * 8 * (size_t)p);
                MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT,
                              MPI_COMM_WORLD);
                for (int j = 0; j < p; j++) /* the gaps keep the send data */
                    want[rd[j] + rc[j]] = r[rd[j] + rc[j]];
                expect(r, want, rat, "MPI_Alltoallv in place", me);
                continue;
            }
            memset(r, 0, sizeof(int) * 8 * (size_t)p);
            MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
            expect(r, want, rat, "MPI_Alltoallv", me);
            memset(r, 0, sizeof(int) * 8 * (size_t)p);
            MPI_Alltoallw(s, sc, bsd, types, r, rc, brd, types, MPI_COMM_WORLD);
            expect(r, want, rat, "MPI_Alltoallw", me);
            int *zero = calloc((size_t)p, sizeof(int));
            r[0] = 12345;
            MPI_Alltoallv(s, zero, zero, MPI_INT, r, zero, zero, MPI_INT, MPI_COMM_WORLD);
            int keep = 12345;
            expect(r, &keep, 1, "MPI_Alltoallv of nothing", me);
            free(zero);
        }
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(total ? "dropin_v_prog: FAILED\n" : "dropin_v_prog: OK\n");
    free(sc), free(types), free(s), free(r), free(want);
    MPI_Finalize();
    return total ? 1 : 0;
}
