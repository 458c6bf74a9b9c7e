/*
 * count_alltoall.c - a tiny PMPI interposer that counts an application's
 * all-to-all traffic, to show which MPI calls a program really makes
 * (examples/README.md, tests/mpi/fft2d.sh). It has nothing to do with xchg:
 * every call goes straight to the MPI library's PMPI_ entry point.
 *
 *   mpicc -shared -fPIC -o libcount_alltoall.so count_alltoall.c
 *   LD_PRELOAD=./libcount_alltoall.so mpirun -np 4 ./fft2d_mpi
 *
 * At MPI_Finalize rank 0 of MPI_COMM_WORLD writes one line to stderr:
 *   count_alltoall: rank 0: A MPI_Alltoall, V MPI_Alltoallv, S MPI_Sendrecv
 * (the calls rank 0 made; a collective is called once by every rank).
 */
#include <mpi.h>
#include <stdio.h>

static unsigned long n_alltoall, n_alltoallv, n_sendrecv;

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    n_alltoall++;
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    n_alltoallv++;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    n_sendrecv++;
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                         recvtype, source, recvtag, comm, status);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "count_alltoall: rank 0: %lu MPI_Alltoall, %lu MPI_Alltoallv, %lu MPI_Sendrecv\n",
                n_alltoall, n_alltoallv, n_sendrecv);
    return PMPI_Finalize();
}
