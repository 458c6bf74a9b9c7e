/*
 * dropin_req.c - the drop-in's nonblocking and persistent exchanges
 * (docs/nonblocking.md): MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw,
 * MPI 4's MPI_Alltoall_init, _v, _w (MPICH 4) and Open MPI 4.1's
 * MPIX_Alltoall_init, _v, _w, through the executor's requests (request.c),
 * and the calls that start, complete and free requests: MPI_Start,
 * MPI_Startall, MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome,
 * MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome, MPI_Request_free,
 * MPI_Request_get_status and MPI_Cancel.
 *
 * While no request of xchg's is alive, each of the latter is the library's
 * call at once. Otherwise each first moves xchg's requests on, then
 * completes them where the program asks, and gives the library the rest:
 * an array of requests goes to the library with xchg's persistent ones
 * (inert requests of the library's) replaced by MPI_REQUEST_NULL, and its
 * nonblocking ones (generalized requests) in place once complete. A wait
 * that holds one of xchg's requests first waits for that one (its messages
 * are the library's; a persistent shared-memory one sleeps on the
 * segment's barrier), then for the rest in the library's call; a wait for
 * any one of several polls both until one completes. No other rank needs
 * this rank's help once an exchange has started, so a wait for the
 * library's requests alone is the library's at once.
 *
 * Fortran: MPICH's mpi_wait_ and kin call these C functions; Open MPI's
 * Fortran calls PMPI_ and its MPI_IALLTOALL goes to the library, so a
 * Fortran program never holds a request of xchg's there.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dropin_internal.h"
#include "mpi/request.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

/* ---- the initiations ------------------------------------------------- */

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,
                        PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       comm, request),
                        xchg_mpi_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, o, request));
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,
                        PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                        recvcounts, rdispls, recvtype, comm, request),
                        xchg_mpi_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, comm, o, request));
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,
                        PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm, request),
                        xchg_mpi_ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                            recvcounts, rdispls, recvtypes, comm, o, request));
}

/* The persistent calls under NAME (MPI_ or MPIX_), PNAME the library's. */
#define PERSISTENT_CALLS(NAME, PNAME)                                                              \
    int NAME##Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,           \
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,   \
                            MPI_Info info, MPI_Request *request)                                  \
    {                                                                                              \
        XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,                                                  \
                            PNAME##Alltoall_init(sendbuf, sendcount, sendtype, recvbuf,            \
                                                 recvcount, recvtype, comm, info, request),        \
                            xchg_mpi_alltoall_init(sendbuf, sendcount, sendtype, recvbuf,          \
                                                   recvcount, recvtype, comm, info, o, request)); \
    }                                                                                              \
    int NAME##Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],    \
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],        \
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,           \
                             MPI_Info info, MPI_Request *request)                                 \
    {                                                                                              \
        XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,                                                  \
                            PNAME##Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype,          \
                                                  recvbuf, recvcounts, rdispls, recvtype, comm,    \
                                                  info, request),                                  \
                            xchg_mpi_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype,        \
                                                    recvbuf, recvcounts, rdispls, recvtype, comm,  \
                                                    info, o, request));                            \
    }                                                                                              \
    int NAME##Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],    \
                             const MPI_Datatype sendtypes[], void *recvbuf,                       \
                             const int recvcounts[], const int rdispls[],                         \
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,        \
                             MPI_Request *request)                                                \
    {                                                                                              \
        XCHG_DROPIN_BODY_AS(xchg_dropin_enter_nb,                                                  \
                            PNAME##Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes,         \
                                                  recvbuf, recvcounts, rdispls, recvtypes, comm,   \
                                                  info, request),                                  \
                            xchg_mpi_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes,       \
                                                    recvbuf, recvcounts, rdispls, recvtypes, comm, \
                                                    info, o, request));                            \
    }

#if MPI_VERSION >= 4
PERSISTENT_CALLS(MPI_, PMPI_)
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
PERSISTENT_CALLS(MPIX_, PMPIX_)
#endif

/* ---- completing ------------------------------------------------------ */

/* The status of one of xchg's requests: empty, as MPI gives a
 * collective's. */
static void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
}

static MPI_Status *status_at(MPI_Status *sts, int i)
{
    return sts == MPI_STATUSES_IGNORE || sts == MPI_STATUS_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* Whether r still has an exchange to finish. */
static int pending(xchg_mpi_req *r)
{
    int done = 0;
    return xchg_mpi_req_active(r) && (xchg_mpi_req_progress(r, 0, &done), !done);
}

/* One of xchg's requests *h (r), complete: its status, and its handle as
 * MPI leaves it (a nonblocking one freed through the library's call). */
static int finish(xchg_mpi_req *r, MPI_Request *h, MPI_Status *st)
{
    if (xchg_mpi_req_persistent(r)) {
        xchg_mpi_req_retire(r);
        empty_status(st);
        return MPI_SUCCESS;
    }
    return PMPI_Wait(h, st);
}

/* A copy of n requests for the library: xchg's persistent ones (and with
 * all_ours, every one of xchg's) replaced by MPI_REQUEST_NULL. NULL when
 * memory cannot be had. */
static MPI_Request *for_library(int n, const MPI_Request reqs[], int all_ours)
{
    MPI_Request *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    for (int i = 0; c && i < n; i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(reqs[i]);
        c[i] = r && (all_ours || xchg_mpi_req_persistent(r)) ? MPI_REQUEST_NULL : reqs[i];
    }
    return c;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!xchg_mpi_req_live())
        return PMPI_Wait(request, status);
    xchg_mpi_req *r = xchg_mpi_req_find(*request);
    if (!r)
        return PMPI_Wait(request, status);
    if (!xchg_mpi_req_active(r)) { /* an inactive persistent request */
        empty_status(status);
        return MPI_SUCCESS;
    }
    int done = 0, rc = xchg_mpi_req_progress(r, 1, &done);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(MPI_COMM_WORLD, rc);
    return finish(r, request, status);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!xchg_mpi_req_live())
        return PMPI_Test(request, flag, status);
    xchg_mpi_req_progress_all();
    xchg_mpi_req *r = xchg_mpi_req_find(*request);
    if (!r)
        return PMPI_Test(request, flag, status);
    *flag = !pending(r);
    if (!*flag)
        return MPI_SUCCESS;
    if (!xchg_mpi_req_active(r)) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    return finish(r, request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!xchg_mpi_req_live())
        return PMPI_Waitall(count, requests, statuses);
    int rc = MPI_SUCCESS;
    /* xchg's first, each waited for (no other rank needs this one's help) */
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(requests[i]);
        int done = 0;
        if (r && xchg_mpi_req_active(r))
            rc = xchg_mpi_req_progress(r, 1, &done);
    }
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(MPI_COMM_WORLD, rc);
    MPI_Request *c = for_library(count, requests, 0);
    if (!c)
        return xchg_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    rc = PMPI_Waitall(count, c, statuses);
    for (int i = 0; i < count; i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(requests[i]);
        if (r && xchg_mpi_req_persistent(r)) {
            xchg_mpi_req_retire(r);
            empty_status(status_at(statuses, i));
        } else {
            requests[i] = c[i];
        }
    }
    free(c);
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (!xchg_mpi_req_live())
        return PMPI_Testall(count, requests, flag, statuses);
    xchg_mpi_req_progress_all();
    *flag = 0;
    for (int i = 0; i < count; i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(requests[i]);
        if (r && pending(r))
            return MPI_SUCCESS; /* none is completed until all are */
    }
    MPI_Request *c = for_library(count, requests, 0);
    if (!c)
        return xchg_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    int rc = PMPI_Testall(count, c, flag, statuses);
    for (int i = 0; *flag && i < count; i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(requests[i]);
        if (r && xchg_mpi_req_persistent(r)) {
            xchg_mpi_req_retire(r);
            empty_status(status_at(statuses, i));
        } else {
            requests[i] = c[i];
        }
    }
    free(c);
    return rc;
}

/*
 * One pass of MPI_Testsome over requests: xchg's that are complete, then
 * the library's call on the rest; *outcount MPI_UNDEFINED when no request
 * is active. With any (Testany), one at most, into indices[0].
 */
static int test_some(int count, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[], int any)
{
    xchg_mpi_req_progress_all();
    int n = 0, ours_active = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < count && !(any && n); i++) {
        xchg_mpi_req *r = xchg_mpi_req_find(requests[i]);
        if (!r || !xchg_mpi_req_active(r))
            continue;
        ours_active = 1;
        if (pending(r))
            continue;
        rc = finish(r, &requests[i], status_at(statuses, n));
        indices[n++] = i;
    }
    if (n || rc != MPI_SUCCESS) {
        *outcount = n;
        return rc;
    }
    MPI_Request *c = for_library(count, requests, 1);
    if (!c)
        return MPI_ERR_NO_MEM;
    int got = 0;
    if (any) {
        int idx = MPI_UNDEFINED, flag = 0;
        rc = PMPI_Testany(count, c, &idx, &flag, status_at(statuses, 0));
        got = flag ? (idx == MPI_UNDEFINED ? MPI_UNDEFINED : 1) : 0;
        if (got == 1)
            indices[0] = idx;
    } else {
        rc = PMPI_Testsome(count, c, &got, indices, statuses);
    }
    for (int k = 0; got != MPI_UNDEFINED && k < got; k++)
        requests[indices[k]] = c[indices[k]];
    free(c);
    *outcount = got == MPI_UNDEFINED && ours_active ? 0 : got;
    return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (!xchg_mpi_req_live())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return test_some(incount, requests, outcount, indices, statuses, 0);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (!xchg_mpi_req_live())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    int rc;
    while ((rc = test_some(incount, requests, outcount, indices, statuses, 0)) == MPI_SUCCESS &&
           *outcount == 0)
        sched_yield();
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (!xchg_mpi_req_live())
        return PMPI_Testany(count, requests, index, flag, status);
    int n = 0, idx = MPI_UNDEFINED;
    int rc = test_some(count, requests, &n, &idx, status, 1);
    *flag = n != 0;
    *index = n == 1 ? idx : MPI_UNDEFINED;
    if (n == MPI_UNDEFINED)
        empty_status(status);
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!xchg_mpi_req_live())
        return PMPI_Waitany(count, requests, index, status);
    int n = 0, idx = MPI_UNDEFINED, rc;
    while ((rc = test_some(count, requests, &n, &idx, status, 1)) == MPI_SUCCESS && n == 0)
        sched_yield();
    *index = n == 1 ? idx : MPI_UNDEFINED;
    if (n == MPI_UNDEFINED)
        empty_status(status);
    return rc;
}

/* ---- starting and freeing -------------------------------------------- */

int MPI_Start(MPI_Request *request)
{
    xchg_mpi_req *r = xchg_mpi_req_live() ? xchg_mpi_req_find(*request) : NULL;
    if (!r)
        return PMPI_Start(request);
    int rc = xchg_mpi_req_start(r);
    return rc == MPI_SUCCESS ? rc : xchg_mpi_raise(MPI_COMM_WORLD, rc);
}

int MPI_Startall(int count, MPI_Request requests[])
{
    if (!xchg_mpi_req_live())
        return PMPI_Startall(count, requests);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = MPI_Start(&requests[i]);
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    xchg_mpi_req *r = xchg_mpi_req_live() ? xchg_mpi_req_find(*request) : NULL;
    if (!r)
        return PMPI_Request_free(request);
    return xchg_mpi_req_free(r, request);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    xchg_mpi_req *r = xchg_mpi_req_live() ? xchg_mpi_req_find(request) : NULL;
    if (!r)
        return PMPI_Request_get_status(request, flag, status);
    *flag = !pending(r);
    if (*flag && xchg_mpi_req_persistent(r))
        empty_status(status);
    else if (*flag)
        return PMPI_Request_get_status(request, flag, status);
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    xchg_mpi_req *r = xchg_mpi_req_live() ? xchg_mpi_req_find(*request) : NULL;
    if (!r)
        return PMPI_Cancel(request);
    /* a collective's request cannot be cancelled (MPI 4.0, 6.12) */
    return xchg_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST);
}
