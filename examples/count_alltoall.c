/*
 * count_alltoall.c - a tiny PMPI interposer that counts an application's
 * all-to-all traffic, to show which MPI calls a program really makes
 * (examples/README.md, tests/mpi/fft2d.sh). It has nothing to do with xchg:
 * every call goes straight to the MPI library's PMPI_ entry point.
 *
 *   mpicc -shared -fPIC -o libcount_alltoall.so count_alltoall.c
 *   LD_PRELOAD=./libcount_alltoall.so mpirun -np 4 ./fft2d_mpi
 *
 * At MPI_Finalize rank 0 of MPI_COMM_WORLD writes two lines to stderr:
 *   count_alltoall: rank 0: A MPI_Alltoall, V MPI_Alltoallv, S MPI_Sendrecv
 *   count_alltoall (more): rank 0: W MPI_Alltoallw, I MPI_Ialltoall, IV MPI_Ialltoallv,
 *       IW MPI_Ialltoallw, P MPI_Alltoall*_init   (one line)
 * (the calls rank 0 made; a collective is called once by every rank). The
 * first line keeps the format tests/mpi/fft2d.sh compares against; the
 * second starts differently so that grep '^count_alltoall:' still finds one
 * line. P counts MPI_Alltoall_init, MPI_Alltoallv_init and MPI_Alltoallw_init
 * (MPI 4; Open MPI 4.1 has none of them, and its MPIX_ forms are not counted).
 */
#include <mpi.h>
#include <stdio.h>

static unsigned long n_alltoall, n_alltoallv, n_sendrecv;
static unsigned long n_alltoallw, n_ialltoall, n_ialltoallv, n_ialltoallw, n_init;

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

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    n_alltoallw++;
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    n_ialltoall++;
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    n_ialltoallv++;
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, req);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *req)
{
    n_ialltoallw++;
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                           rdispls, recvtypes, comm, req);
}

#if MPI_VERSION >= 4
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *req)
{
    n_init++;
    return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, req);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{
    n_init++;
    return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm, info, req);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{
    n_init++;
    return PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm, info, req);
}
#endif

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "count_alltoall: rank 0: %lu MPI_Alltoall, %lu MPI_Alltoallv, %lu MPI_Sendrecv\n",
                n_alltoall, n_alltoallv, n_sendrecv);
        fprintf(stderr,
                "count_alltoall (more): rank 0: %lu MPI_Alltoallw, %lu MPI_Ialltoall, "
                "%lu MPI_Ialltoallv, %lu MPI_Ialltoallw, %lu MPI_Alltoall*_init\n",
                n_alltoallw, n_ialltoall, n_ialltoallv, n_ialltoallw, n_init);
    }
    return PMPI_Finalize();
}
