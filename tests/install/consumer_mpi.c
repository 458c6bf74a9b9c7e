/*
 * consumer_mpi.c - an MPI program outside the xchg tree, built against an
 * installed libxchg_mpi (tests/install.sh builds it with pkg-config xchg-mpi
 * and with find_package(xchg), runs it on 2 ranks). Each rank sends a few
 * bytes to every rank with xchg_mpi_alltoall and checks what arrives: byte k
 * of the block from rank r is r*16 + me*4 + k. Prints one line per rank;
 * exits 1 on any difference.
 */
#include <stdio.h>

#include <xchg_mpi.h>

#define BYTES 3

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0, p = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > 8) {
        if (me == 0)
            fprintf(stderr, "consumer_mpi: run on at most 8 ranks\n");
        MPI_Finalize();
        return 1;
    }
    unsigned char send[8 * BYTES], recv[8 * BYTES];
    for (int d = 0; d < p; d++)
        for (int k = 0; k < BYTES; k++) {
            send[d * BYTES + k] = (unsigned char)(me * 16 + d * 4 + k);
            recv[d * BYTES + k] = 0xff;
        }
    xchg_mpi_opts opts;
    xchg_mpi_opts_default(&opts);
    int rc = xchg_mpi_alltoall(send, BYTES, MPI_BYTE, recv, BYTES, MPI_BYTE, MPI_COMM_WORLD,
                               &opts);
    int bad = rc != MPI_SUCCESS;
    for (int r = 0; r < p; r++)
        for (int k = 0; k < BYTES; k++)
            if (recv[r * BYTES + k] != (unsigned char)(r * 16 + me * 4 + k))
                bad = 1;
    uint64_t carried = 0, passed = 0;
    xchg_mpi_call_counts(&carried, &passed);
    printf("rank %d of %d: xchg_mpi_alltoall rc=%d %s (carried %llu, passed %llu)\n", me, p, rc,
           bad ? "WRONG DATA" : "data ok", (unsigned long long)carried,
           (unsigned long long)passed);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
