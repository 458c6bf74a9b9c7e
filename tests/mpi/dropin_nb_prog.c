/*
 * dropin_nb_prog.c - an MPI program that knows nothing of xchg, for the
 * drop-in's nonblocking and persistent exchanges (tests/mpi/dropin.sh):
 * each rank calls MPI_Ialltoall (completed by MPI_Wait), MPI_Ialltoallv
 * (completed by MPI_Test in a loop, beside an MPI_Irecv of its own in one
 * MPI_Waitall) and, where the MPI has one, a persistent MPI_Alltoall_init
 * (MPI 4) or MPIX_Alltoall_init (Open MPI's extension) started three times,
 * checking every result against its definition. Prints
 * "dropin_nb_prog: OK, N initiations" on rank 0 (N a rank's Ialltoall*
 * and *_init calls) when every rank's results are right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "dropin_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me, n = 3, inits = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *s = malloc(sizeof(int) * (size_t)(n * p)), *r = malloc(sizeof(int) * (size_t)(n * p));
    int *w = malloc(sizeof(int) * (size_t)(n * p));
    int *cnt = malloc(sizeof(int) * 2 * (size_t)p), *dsp = cnt + p;
    for (int i = 0; i < n * p; i++)
        s[i] = in(me, i);
    for (int o = 0; o < p; o++) /* block o: origin o's block for this rank */
        for (int k = 0; k < n; k++)
            w[o * n + k] = in(o, me * n + k);
    MPI_Request q, two[2];
    MPI_Ialltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD, &q);
    inits++;
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect(r, w, n * p, "MPI_Ialltoall", me);
    for (int j = 0; j < p; j++)
        cnt[j] = n, dsp[j] = j * n;
    int token = me, got = -1, flag = 0;
    MPI_Status sts[2];
    MPI_Ialltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &two[0]);
    inits++;
    MPI_Irecv(&got, 1, MPI_INT, (me + p - 1) % p, 5, MPI_COMM_WORLD, &two[1]);
    MPI_Send(&token, 1, MPI_INT, (me + 1) % p, 5, MPI_COMM_WORLD);
    while (!flag)
        MPI_Testall(2, two, &flag, sts);
    expect(r, w, n * p, "MPI_Ialltoallv", me);
    int want_token = (me + p - 1) % p;
    expect(&got, &want_token, 1, "MPI_Irecv beside MPI_Ialltoallv", me);
#if MPI_VERSION >= 4 || (defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ)
#if MPI_VERSION >= 4
    MPI_Alltoall_init(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
#else
    MPIX_Alltoall_init(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
#endif
    inits++;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n * p; i++)
            r[i] = -1;
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        expect(r, w, n * p, "persistent alltoall", me);
    }
    MPI_Request_free(&q);
#endif
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        if (total)
            printf("dropin_nb_prog: FAILED\n");
        else
            printf("dropin_nb_prog: OK, %d initiations\n", inits);
    }
    free(s), free(r), free(w), free(cnt);
    MPI_Finalize();
    return total ? 1 : 0;
}
