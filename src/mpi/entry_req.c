/*
 * entry_req.c - the executor's public nonblocking and persistent calls
 * (include/xchg_mpi.h: xchg_mpi_ialltoall, _ialltoallv, _ialltoallw,
 * _alltoall_init, _alltoallv_init, _alltoallw_init): each gathers its
 * arguments as the blocking calls do (entry.c) and makes its request
 * (request.c).
 */
#include "mpi/request.h"

int xchg_mpi_ialltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const xchg_mpi_opts *opts, MPI_Request *request)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf,
                         .scount = sendcount, .rcount = recvcount, .stype = sendtype,
                         .rtype = recvtype, .comm = comm, .opts = opts};
    return xchg_mpi_req_make(&a, 0, MPI_INFO_NULL, request);
}

int xchg_mpi_alltoall_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, const xchg_mpi_opts *opts,
                           MPI_Request *request)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf,
                         .scount = sendcount, .rcount = recvcount, .stype = sendtype,
                         .rtype = recvtype, .comm = comm, .opts = opts};
    return xchg_mpi_req_make(&a, 1, info, request);
}

/* v and w: their arguments (int arrays, as MPI_Ialltoallv's). */
static int vreq(xchg_op_kind kind, const void *sendbuf, const int *sc, const int *sd,
                MPI_Datatype st, const MPI_Datatype *sts, void *recvbuf, const int *rc,
                const int *rd, MPI_Datatype rt, const MPI_Datatype *rts, MPI_Comm comm,
                MPI_Info info, const xchg_mpi_opts *opts, int persistent, MPI_Request *request)
{
    xchg_mpi_opargs a = {.kind = kind, .sendbuf = sendbuf, .recvbuf = recvbuf, .stype = st,
                         .rtype = rt, .comm = comm, .opts = opts, .scounts = sc, .sdispls = sd,
                         .rcounts = rc, .rdispls = rd, .stypes = sts, .rtypes = rts};
    return xchg_mpi_req_make(&a, persistent, info, request);
}

int xchg_mpi_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        const xchg_mpi_opts *opts, MPI_Request *request)
{
    return vreq(XCHG_MPI_OP_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                recvcounts, rdispls, recvtype, NULL, comm, MPI_INFO_NULL, opts, 0, request);
}

int xchg_mpi_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Info info, const xchg_mpi_opts *opts, MPI_Request *request)
{
    return vreq(XCHG_MPI_OP_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                recvcounts, rdispls, recvtype, NULL, comm, info, opts, 1, request);
}

int xchg_mpi_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        const xchg_mpi_opts *opts, MPI_Request *request)
{
    return vreq(XCHG_MPI_OP_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes,
                recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, MPI_INFO_NULL,
                opts, 0, request);
}

int xchg_mpi_alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Info info, const xchg_mpi_opts *opts, MPI_Request *request)
{
    return vreq(XCHG_MPI_OP_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes,
                recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, info, opts, 1,
                request);
}
