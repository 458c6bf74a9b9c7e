/*
 * request.c - xchg's nonblocking and persistent exchanges (request.h;
 * docs/nonblocking.md): the process's table of live requests, making one
 * (or passing the call to the MPI library), starting it, moving it on,
 * retiring and freeing it, and the counters behind
 * xchg_mpi_nb_call_counts.
 *
 * What runs:
 *   - a persistent MPI_Alltoall on one node whose plan is the one-round
 *     shared-memory exchange (auto's choice for small blocks, made once at
 *     init on the request's own segment): start writes this rank's column
 *     and arrives at the segment's barrier without waiting; the request is
 *     complete once the barrier has opened and this rank has copied its
 *     row home. Two grids alternate, so a rank may start again as soon as
 *     its last run is complete (shm.c says why that is enough).
 *   - anything else: the direct exchange with every message posted at
 *     start (nb_direct.c), on the communicator's private duplicate, tagged
 *     with the request's own tag (a count of the communicator's
 *     initiations, which MPI makes every rank issue in the same order).
 * Once started, no rank needs another's help from xchg: the shared
 * segment's arrivals are made at start and the messages are the library's.
 * So a program's waits on other requests can go to the library directly;
 * only the completion of xchg's requests is xchg's to see.
 *
 * To the MPI library's own call go: intercommunicators, XCHG_ALG=mpi,
 * programs under MPI_THREAD_MULTIPLE and SimGrid's SMPI (as the memo:
 * memo.c), counts above INT_MAX, and a persistent call where the library
 * has none to give (then MPI_ERR_UNSUPPORTED_OPERATION).
 */
#include "mpi/request.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

/* The tags of requests' messages: above the blocking executor's (pieces
 * 0, 1, ...), XCHG_MPI_NB_TAGS of them in turn. */
#define XCHG_MPI_NB_TAG0 1024
#define XCHG_MPI_NB_TAGS 16384

struct xchg_mpi_req {
    MPI_Request handle;
    int persistent, active, done, orphan, completed;
    xchg_mpi_comm *cs;
    xchg_mpi_nbd *d;
    /* the shared segment's way (persistent MPI_Alltoall, one node) */
    xchg_mpi_plan *plan;
    const unsigned char *S;
    unsigned char *R, *grid;
    uint32_t gen;
};

static xchg_mpi_req **table;
static int nlive, cap;
static atomic_int live;
static atomic_uint_fast64_t carried, passed;

int xchg_mpi_req_live(void)
{
    return atomic_load_explicit(&live, memory_order_relaxed);
}

void xchg_mpi_nb_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    if (carried_out)
        *carried_out = (uint64_t)atomic_load(&carried);
    if (passed_out)
        *passed_out = (uint64_t)atomic_load(&passed);
}

xchg_mpi_req *xchg_mpi_req_find(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    for (int i = 0; i < nlive; i++)
        if (table[i]->handle == h)
            return table[i];
    return NULL;
}

/* Keep r in the table: 0, or -1 without memory. */
static int table_add(xchg_mpi_req *r)
{
    if (nlive == cap) {
        int n = cap ? 2 * cap : 16;
        xchg_mpi_req **t = realloc(table, (size_t)n * sizeof *t);
        if (!t)
            return -1;
        table = t, cap = n;
    }
    table[nlive++] = r;
    atomic_store_explicit(&live, nlive, memory_order_relaxed);
    return 0;
}

/* Drop r from the table and free it. */
static void req_destroy(xchg_mpi_req *r)
{
    for (int i = 0; i < nlive; i++)
        if (table[i] == r) {
            table[i] = table[--nlive];
            break;
        }
    atomic_store_explicit(&live, nlive, memory_order_relaxed);
    xchg_mpi_nbd_free(r->d);
    xchg_mpi_plan_free(r->plan);
    xchg_mpi_comm_unref(r->cs);
    free(r);
}

/* The generalized request's functions: an empty status; the request
 * freed by the library (after a wait or test saw it complete); a cancel,
 * which a collective does not honour. */
static int gr_query(void *extra, MPI_Status *st)
{
    (void)extra;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    return MPI_SUCCESS;
}

static int gr_free(void *extra)
{
    req_destroy(extra); /* complete by now: xchg frees no request before */
    return MPI_SUCCESS;
}

static int gr_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* The MPI library's own call for a. */
static int library_call(const xchg_mpi_opargs *a, int persistent, MPI_Info info, MPI_Request *out)
{
    atomic_fetch_add(&passed, 1);
    int w = a->kind == XCHG_MPI_OP_ALLTOALLW, v = a->kind == XCHG_MPI_OP_ALLTOALLV;
    if (a->kind == XCHG_OP_ALLTOALL && (a->scount > INT_MAX || a->rcount > INT_MAX))
        return MPI_ERR_COUNT;
    int sc = (int)a->scount, rc = (int)a->rcount;
    if (!persistent)
        return w ? PMPI_Ialltoallw(a->sendbuf, a->scounts, a->sdispls, a->stypes, a->recvbuf,
                                   a->rcounts, a->rdispls, a->rtypes, a->comm, out)
               : v ? PMPI_Ialltoallv(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                                     a->rcounts, a->rdispls, a->rtype, a->comm, out)
                   : PMPI_Ialltoall(a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype, a->comm,
                                    out);
#if MPI_VERSION >= 4
    return w ? PMPI_Alltoallw_init(a->sendbuf, a->scounts, a->sdispls, a->stypes, a->recvbuf,
                                   a->rcounts, a->rdispls, a->rtypes, a->comm, info, out)
           : v ? PMPI_Alltoallv_init(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                                     a->rcounts, a->rdispls, a->rtype, a->comm, info, out)
               : PMPI_Alltoall_init(a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype, a->comm,
                                    info, out);
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
    return w ? PMPIX_Alltoallw_init(a->sendbuf, a->scounts, a->sdispls, a->stypes, a->recvbuf,
                                    a->rcounts, a->rdispls, a->rtypes, a->comm, info, out)
           : v ? PMPIX_Alltoallv_init(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                                      a->rcounts, a->rdispls, a->rtype, a->comm, info, out)
               : PMPIX_Alltoall_init(a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype,
                                     a->comm, info, out);
#else
    (void)info, (void)sc, (void)rc;
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

/* A persistent MPI_Alltoall's one-round shared-memory plan, when auto
 * gives one (collective: every rank makes the same plan at init). */
static int shm_plan(const xchg_mpi_opargs *a, const xchg_mpi_call *c, const xchg_mpi_opts *o,
                    xchg_mpi_plan **out)
{
    *out = NULL;
    if (a->kind != XCHG_OP_ALLTOALL)
        return MPI_SUCCESS;
    xchg_mpi_plan *pl = NULL;
    int rc = xchg_mpi_plan_create(a->scount, a->stype, a->rcount, a->rtype,
                                  a->sendbuf == MPI_IN_PLACE, a->comm, o, &pl);
    if (rc != MPI_SUCCESS)
        return rc;
    if (pl->shm && pl->shm_chunk == pl->block_bytes && c->in_lay.contiguous &&
        c->out_lay.contiguous)
        *out = pl;
    else
        xchg_mpi_plan_free(pl);
    return MPI_SUCCESS;
}

int xchg_mpi_req_make(const xchg_mpi_opargs *a, int persistent, MPI_Info info, MPI_Request *out)
{
    MPI_Comm comm = a->comm;
    if (!out)
        return xchg_mpi_raise(comm, MPI_ERR_ARG);
    if (comm == MPI_COMM_NULL)
        return xchg_mpi_raise(comm, MPI_ERR_COMM);
    int inter = 0, rc = PMPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_opts buf;
    const xchg_mpi_opts *o = xchg_mpi_opts_effective(a->opts, &buf);
    char asked[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(o->alg, XCHG_OP_ALLTOALL, asked, sizeof asked);
    if (inter || !strcmp(asked, "mpi") || !xchg_mpi_memo_on())
        return xchg_mpi_raise(comm, library_call(a, persistent, info, out));
    xchg_mpi_call c = {0};
    rc = PMPI_Comm_size(comm, &c.p);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_rank(comm, &c.rank);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_operations[a->kind].describe(a, &c);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_comm *cs = NULL;
    unsigned before = 0;
    if ((rc = xchg_mpi_comm_get(comm, &cs, &before)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_req *r = calloc(1, sizeof *r);
    if (!r)
        return xchg_mpi_raise(comm, MPI_ERR_NO_MEM);
    int tag = XCHG_MPI_NB_TAG0 + (int)(cs->nb_seq++ % XCHG_MPI_NB_TAGS);
    r->persistent = persistent;
    r->cs = cs;
    xchg_mpi_comm_ref(cs);
    if (persistent)
        rc = shm_plan(a, &c, o, &r->plan);
    if (rc == MPI_SUCCESS && r->plan) {
        r->S = c.b.in;
        r->R = c.b.out;
    } else if (rc == MPI_SUCCESS) {
        rc = xchg_mpi_nbd_make(a, cs->comm, tag, &r->d);
        if (rc == MPI_ERR_COUNT) { /* counts past int: the library's call */
            req_destroy(r);
            return xchg_mpi_raise(comm, library_call(a, persistent, info, out));
        }
    }
    if (rc == MPI_SUCCESS && table_add(r) != 0)
        rc = MPI_ERR_NO_MEM;
    else if (rc == MPI_SUCCESS)
        rc = persistent ? PMPI_Send_init(NULL, 0, MPI_BYTE, cs->rank, tag, cs->comm, &r->handle)
                        : PMPI_Grequest_start(gr_query, gr_free, gr_cancel, r, &r->handle);
    if (rc != MPI_SUCCESS) {
        req_destroy(r); /* not in the table, or in it: either way */
        return xchg_mpi_raise(comm, rc);
    }
    atomic_fetch_add(&carried, 1);
    *out = r->handle;
    if (!persistent && (rc = xchg_mpi_req_start(r)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    return MPI_SUCCESS;
}

int xchg_mpi_req_start(xchg_mpi_req *r)
{
    if (r->active)
        return MPI_ERR_REQUEST;
    r->active = 1;
    r->done = 0;
    if (r->plan) {
#ifdef __linux__
        r->grid = xchg_mpi_shm_post(r->plan, r->S, &r->gen);
        return MPI_SUCCESS;
#else
        return MPI_ERR_INTERN;
#endif
    }
    return xchg_mpi_nbd_start(r->d);
}

int xchg_mpi_req_progress(xchg_mpi_req *r, int wait, int *done)
{
    int rc = MPI_SUCCESS;
    *done = r->done || !r->active;
    if (*done)
        return MPI_SUCCESS;
    if (r->plan) {
#ifdef __linux__
        if (xchg_mpi_shm_ready(r->plan, r->gen, wait)) {
            xchg_mpi_shm_collect(r->plan, r->grid, r->R);
            *done = 1;
        }
#endif
    } else {
        rc = xchg_mpi_nbd_test(r->d, wait, done);
    }
    if (*done) {
        r->done = 1;
        if (!r->persistent && !r->completed) {
            r->completed = 1;
            PMPI_Grequest_complete(r->handle);
            if (r->orphan) /* the program freed it before: free it now (gr_free) */
                PMPI_Request_free(&r->handle);
        } else if (r->persistent && r->orphan) {
            PMPI_Request_free(&r->handle);
            req_destroy(r);
        }
    }
    return rc;
}

int xchg_mpi_req_persistent(const xchg_mpi_req *r)
{
    return r->persistent;
}

int xchg_mpi_req_active(const xchg_mpi_req *r)
{
    return r->active;
}

void xchg_mpi_req_retire(xchg_mpi_req *r)
{
    r->active = 0;
}

int xchg_mpi_req_free(xchg_mpi_req *r, MPI_Request *h)
{
    *h = MPI_REQUEST_NULL;
    if (!r->persistent && !r->completed) {
        r->orphan = 1; /* freed when it completes (xchg_mpi_req_progress) */
        return MPI_SUCCESS;
    }
    if (!r->persistent) /* complete: the library frees it, and gr_free ours */
        return PMPI_Request_free(&r->handle);
    if (r->active && !r->done) {
        r->orphan = 1; /* freed when it completes (xchg_mpi_req_progress) */
        return MPI_SUCCESS;
    }
    int rc = PMPI_Request_free(&r->handle);
    req_destroy(r);
    return rc;
}

void xchg_mpi_req_progress_all(void)
{
    for (int i = 0; i < nlive;) {
        xchg_mpi_req *r = table[i];
        int done = 0, n = nlive;
        if (r->active && !r->done)
            xchg_mpi_req_progress(r, 0, &done);
        if (nlive == n) /* r is still in the table */
            i++;
    }
}
