/*
 * pass.c - calls the executor passes to the MPI library, and the counters
 * of carried and passed calls behind xchg_mpi_call_counts (the exchange)
 * and xchg_mpi_op_call_counts (the other operations). The counters are
 * atomic: threads may call on different communicators at once. Also
 * xchg_mpi_v_call_counts (MPI_Alltoallv and MPI_Alltoallw), whose calls
 * the library gets with their arrays as given (or, for wide arrays under
 * an MPI before 4, converted to int).
 */
#include "mpi/library.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_uint_fast64_t carried[XCHG_MPI_KINDS], passed[XCHG_MPI_KINDS];

void xchg_mpi_count(xchg_op_kind kind, int carried_here)
{
    atomic_fetch_add(carried_here ? &carried[kind] : &passed[kind], 1);
}

#if MPI_VERSION < 4
/* n entries of a wide count (MPI_Count) or displacement (MPI_Aint)
 * array as int into out (NULL stays NULL): 0, or -1 when one does not
 * fit an int. */
static int narrow(const void *arr, int count, int n, int *out, const int **res)
{
    *res = NULL;
    if (!arr)
        return 0;
    for (int j = 0; j < n; j++) {
        long long v = count ? (long long)((const MPI_Count *)arr)[j]
                            : (long long)((const MPI_Aint *)arr)[j];
        if (v > INT_MAX || v < INT_MIN)
            return -1;
        out[j] = (int)v;
    }
    *res = out;
    return 0;
}
#endif

int xchg_mpi_library_v(const xchg_mpi_opargs *a)
{
    int w = a->kind == XCHG_MPI_OP_ALLTOALLW;
    if (!a->wide)
        return w ? PMPI_Alltoallw(a->sendbuf, a->scounts, a->sdispls, a->stypes, a->recvbuf,
                                  a->rcounts, a->rdispls, a->rtypes, a->comm)
                 : PMPI_Alltoallv(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                                  a->rcounts, a->rdispls, a->rtype, a->comm);
#if MPI_VERSION >= 4
    return w ? PMPI_Alltoallw_c(a->sendbuf, a->scounts, a->sdispls, a->stypes, a->recvbuf,
                                a->rcounts, a->rdispls, a->rtypes, a->comm)
             : PMPI_Alltoallv_c(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                                a->rcounts, a->rdispls, a->rtype, a->comm);
#else
    int inter = 0, n = 0;
    int rc = MPI_Comm_test_inter(a->comm, &inter);
    if (rc == MPI_SUCCESS)
        rc = inter ? MPI_Comm_remote_size(a->comm, &n) : MPI_Comm_size(a->comm, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    int *buf = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *buf);
    if (!buf)
        return MPI_ERR_NO_MEM;
    const int *sc, *sd, *rc_, *rd;
    if (narrow(a->scounts, 1, n, buf, &sc) || narrow(a->sdispls, 0, n, buf + n, &sd) ||
        narrow(a->rcounts, 1, n, buf + 2 * n, &rc_) || narrow(a->rdispls, 0, n, buf + 3 * n, &rd))
        rc = MPI_ERR_COUNT;
    else
        rc = w ? PMPI_Alltoallw(a->sendbuf, sc, sd, a->stypes, a->recvbuf, rc_, rd, a->rtypes,
                                a->comm)
               : PMPI_Alltoallv(a->sendbuf, sc, sd, a->stype, a->recvbuf, rc_, rd, a->rtype,
                                a->comm);
    free(buf);
    return rc;
#endif
}

int xchg_mpi_library_takes(const xchg_mpi_opargs *a, int n)
{
    /* one address both ways, not in place: MPI_BOTTOM with absolute
     * displacements, which MPICH 4.0.2 refuses as aliased buffers */
    if (a->sendbuf != MPI_IN_PLACE && a->sendbuf == a->recvbuf)
        return 0;
#if MPI_VERSION >= 4
    (void)n;
    return 1;
#else
    if (!xchg_mpi_is_v(a->kind))
        return a->scount <= INT_MAX && a->rcount <= INT_MAX;
    if (!a->wide)
        return 1;
    int *buf = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *buf);
    if (!buf)
        return 0;
    const int *sc, *sd, *rc, *rd;
    int fits = !narrow(a->scounts, 1, n, buf, &sc) && !narrow(a->sdispls, 0, n, buf + n, &sd) &&
               !narrow(a->rcounts, 1, n, buf + 2 * n, &rc) &&
               !narrow(a->rdispls, 0, n, buf + 3 * n, &rd);
    free(buf);
    return fits;
#endif
}

int xchg_mpi_pass_on(const xchg_mpi_opargs *a, const xchg_mpi_pass *pass)
{
    if (xchg_mpi_is_v(a->kind)) {
        xchg_mpi_count_call(a, 0);
        return xchg_mpi_library_v(a);
    }
    if ((a->scount > INT_MAX || a->rcount > INT_MAX) && MPI_VERSION < 4)
        return MPI_ERR_COUNT; /* not made, so not counted */
    xchg_mpi_count_call(a, 0);
    return xchg_mpi_library(a->kind, a, pass);
}

int xchg_mpi_pass_on_instead(const xchg_mpi_opargs *a)
{
    if (!a->inner)
        atomic_fetch_sub(&carried[a->kind], 1);
    xchg_mpi_count_call(a, 0);
    return xchg_mpi_library_v(a);
}

xchg_mpi_pass xchg_mpi_pass_of(const xchg_mpi_comm *cs, int q)
{
    int p = cs->p > 0 ? cs->p : 1;
    long long s = ((long long)q % p + p) % p;
    return (xchg_mpi_pass){.shift_comm = cs->comm,
                           .to = (int)((cs->rank + s) % p),
                           .from = (int)((cs->rank - s + p) % p)};
}

void xchg_mpi_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    if (carried_out)
        *carried_out = (uint64_t)atomic_load(&carried[XCHG_OP_ALLTOALL]);
    if (passed_out)
        *passed_out = (uint64_t)atomic_load(&passed[XCHG_OP_ALLTOALL]) +
                      xchg_mpi_memo_hits(XCHG_OP_ALLTOALL);
}

void xchg_mpi_v_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    if (carried_out)
        *carried_out = (uint64_t)atomic_load(&carried[XCHG_MPI_OP_ALLTOALLV]) +
                       (uint64_t)atomic_load(&carried[XCHG_MPI_OP_ALLTOALLW]);
    if (passed_out)
        *passed_out = (uint64_t)atomic_load(&passed[XCHG_MPI_OP_ALLTOALLV]) +
                      (uint64_t)atomic_load(&passed[XCHG_MPI_OP_ALLTOALLW]) +
                      xchg_mpi_memo_hits(XCHG_MPI_OP_ALLTOALLV) +
                      xchg_mpi_memo_hits(XCHG_MPI_OP_ALLTOALLW);
}

void xchg_mpi_op_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    uint64_t c = 0, p = 0;
    for (int k = 0; k < XCHG_OP_COUNT; k++) {
        if (k == XCHG_OP_ALLTOALL)
            continue;
        c += (uint64_t)atomic_load(&carried[k]);
        p += (uint64_t)atomic_load(&passed[k]) + xchg_mpi_memo_hits((xchg_op_kind)k);
    }
    if (carried_out)
        *carried_out = c;
    if (passed_out)
        *passed_out = p;
}
