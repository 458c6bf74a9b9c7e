/*
 * alltoall.c - the executor's public calls (include/xchg_mpi.h): argument
 * checks, the per-communicator plan cache, the fallback to the MPI library's
 * own PMPI_Alltoall, error reporting through the communicator's error
 * handler, verbose lines and the call counters. A call whose very
 * arguments the cached plan passed to the library last time goes there at
 * once, its checks skipped (op_memo.c).
 *
 * The cache is a communicator attribute holding a few plans, each for one
 * (block bytes, in place, layouts, algorithm, topology). Its delete
 * callback frees them when the communicator is freed. The user's types are
 * not part of the key: a plan depends only on the block's size and on
 * whether the blocks are plain bytes, and each call passes its own types to
 * the run.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans kept per communicator; the oldest goes when a new one is needed. */
#define XCHG_MPI_CACHE_PLANS 8

typedef struct cache_entry {
    xchg_mpi_plan *plan;
    size_t block_bytes;
    int in_place, send_contig, recv_contig;
    char alg[XCHG_SPEC_MAX], topology[64];
} cache_entry;

typedef struct plan_cache {
    cache_entry e[XCHG_MPI_CACHE_PLANS];
    int n, next;
    /* what verbose mode last said on this communicator: it speaks again
     * only when a new plan chooses something else */
    char said[XCHG_SPEC_MAX + 64];
} plan_cache;

/* Process-wide state: the cache's attribute key (made once) and the call
 * counters (atomic: threads may call on different communicators). */
static int cache_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval_rc = MPI_SUCCESS;
static atomic_uint_fast64_t calls_carried, calls_passed;

void xchg_mpi_count_call(int carried)
{
    atomic_fetch_add(carried ? &calls_carried : &calls_passed, 1);
}

void xchg_mpi_call_counts(uint64_t *carried, uint64_t *passed)
{
    if (carried)
        *carried = (uint64_t)atomic_load(&calls_carried);
    if (passed)
        *passed = (uint64_t)atomic_load(&calls_passed) + xchg_mpi_memo_hits(XCHG_OP_ALLTOALL);
}

static int cache_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    plan_cache *c = value;
    xchg_mpi_memo_forget();
    for (int i = 0; i < c->n; i++)
        xchg_mpi_plan_free(c->e[i].plan);
    free(c);
    return MPI_SUCCESS;
}

/* Rank 0 says what a new plan chose (verbose), or why a value it was given
 * could not be honoured (always); on a cached communicator only when the
 * choice differs from what it said last (said: NULL for a persistent plan,
 * which always speaks). */
static void say(const xchg_mpi_plan *pl, int verbose, char *said, size_t said_len)
{
    if (pl->rank != 0 || !(verbose || pl->bad_value))
        return;
    if (said) {
        char now[XCHG_SPEC_MAX + 64];
        snprintf(now, sizeof now, "%s %s", pl->info.alg, pl->info.topology);
        if (!strcmp(now, said))
            return;
        snprintf(said, said_len, "%s", now);
    }
    const xchg_mpi_plan_info *i = &pl->info;
    if (pl->fallback)
        fprintf(stderr, "xchg: %d ranks, %zu-byte blocks: the MPI library's MPI_Alltoall (%s)\n",
                pl->p, pl->block_bytes, i->why);
    else if (i->shared_bytes)
        fprintf(stderr,
                "xchg: %d ranks, %zu-byte blocks: shm, %zu round%s through a shared segment "
                "of %zu B (%s); plan %.3f ms\n",
                pl->p, pl->block_bytes, i->steps, i->steps == 1 ? "" : "s", i->shared_bytes,
                i->why, i->plan_seconds * 1e3);
    else
        fprintf(stderr,
                "xchg: %d ranks, %zu-byte blocks: %s on %s (%s); %zu steps, plan %.3f ms, "
                "lists %zu B, scratch %zu B\n",
                pl->p, pl->block_bytes, i->alg, i->topology, i->why, i->steps,
                i->plan_seconds * 1e3, i->plan_bytes, i->scratch_bytes);
}

/* The MPI library's own call, not counted (the memo counts its hits);
 * counts above INT_MAX: MPI 4's MPI_Alltoall_c, or MPI_ERR_COUNT under
 * an older MPI. */
static int library_alltoall(const void *sendbuf, MPI_Count scount, MPI_Datatype stype,
                            void *recvbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (scount > INT_MAX || rcount > INT_MAX) {
#if MPI_VERSION >= 4
        return PMPI_Alltoall_c(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
#else
        return MPI_ERR_COUNT;
#endif
    }
    return PMPI_Alltoall(sendbuf, (int)scount, stype, recvbuf, (int)rcount, rtype, comm);
}

/* library_alltoall, counted as passed when the call can be made. */
static int pass_on(const void *sendbuf, MPI_Count scount, MPI_Datatype stype, void *recvbuf,
                   MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if ((scount > INT_MAX || rcount > INT_MAX) && MPI_VERSION < 4)
        return MPI_ERR_COUNT;
    xchg_mpi_count_call(0);
    return library_alltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
}

/* Arguments any MPI_Alltoall refuses. */
static int check_args(const void *sendbuf, MPI_Count scount, MPI_Datatype stype,
                      MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    if (rcount < 0 || (sendbuf != MPI_IN_PLACE && scount < 0))
        return MPI_ERR_COUNT;
    if (rtype == MPI_DATATYPE_NULL || (sendbuf != MPI_IN_PLACE && stype == MPI_DATATYPE_NULL))
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

int xchg_mpi_plan_create(MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
                         MPI_Datatype recvtype, int in_place, MPI_Comm comm,
                         const xchg_mpi_opts *opts, xchg_mpi_plan **out)
{
    if (!out)
        return xchg_mpi_raise(comm, MPI_ERR_ARG);
    *out = NULL;
    int rc = check_args(in_place ? MPI_IN_PLACE : NULL, sendcount, sendtype, recvcount,
                        recvtype, comm);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_opts buf;
    opts = xchg_mpi_opts_effective(opts, &buf);
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return xchg_mpi_raise(comm, MPI_ERR_COMM); /* a plan needs an intracommunicator */
    rc = xchg_mpi_plan_make(sendcount, sendtype, recvcount, recvtype, in_place, comm, opts, out);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    say(*out, opts->verbose, NULL, 0);
    return MPI_SUCCESS;
}

/* Run plan pl on buffers with a call's layouts. */
static int run(xchg_mpi_plan *pl, const void *sendbuf, void *recvbuf,
               const xchg_mpi_layout *slay, const xchg_mpi_layout *rlay)
{
    if (pl->fallback)
        return pass_on(pl->in_place ? MPI_IN_PLACE : sendbuf, pl->in_place ? 0 : slay->count,
                       slay->type, recvbuf, rlay->count, rlay->type, pl->user_comm);
    xchg_mpi_count_call(1);
    return xchg_mpi_exec(pl, sendbuf, recvbuf, slay, rlay);
}

int xchg_mpi_plan_run(xchg_mpi_plan *plan, const void *sendbuf, void *recvbuf)
{
    if (!plan)
        return xchg_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
    if ((sendbuf == MPI_IN_PLACE) != (plan->in_place != 0))
        return xchg_mpi_raise(plan->user_comm, MPI_ERR_ARG);
    return xchg_mpi_raise(plan->user_comm,
                    run(plan, sendbuf, recvbuf, &plan->send_layout, &plan->recv_layout));
}

static void make_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cache_delete, &cache_keyval, NULL);
}

/* The cached plan for this call, made (and cached) when there is none. */
static int cached_plan(MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                       MPI_Datatype rtype, int in_place, MPI_Comm comm,
                       const xchg_mpi_opts *opts, size_t block_bytes, int scontig, int rcontig,
                       xchg_mpi_plan **out)
{
    pthread_once(&keyval_once, make_keyval);
    int rc = keyval_rc;
    plan_cache *c = NULL;
    int found = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_get_attr(comm, cache_keyval, &c, &found);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *alg = opts->alg ? opts->alg : "auto";
    const char *topo = opts->topology ? opts->topology : "auto";
    if (found && c) {
        for (int i = 0; i < c->n; i++) {
            cache_entry *e = &c->e[i];
            if (e->block_bytes == block_bytes && e->in_place == in_place &&
                e->send_contig == scontig && e->recv_contig == rcontig &&
                !strcmp(e->alg, alg) && !strcmp(e->topology, topo)) {
                *out = e->plan;
                return MPI_SUCCESS;
            }
        }
    } else {
        c = calloc(1, sizeof *c);
        if (!c)
            return MPI_ERR_NO_MEM;
        rc = MPI_Comm_set_attr(comm, cache_keyval, c);
        if (rc != MPI_SUCCESS) {
            free(c);
            return rc;
        }
    }
    xchg_mpi_plan *pl = NULL;
    rc = xchg_mpi_plan_make(scount, stype, rcount, rtype, in_place, comm, opts, &pl);
    if (rc != MPI_SUCCESS)
        return rc;
    say(pl, opts->verbose, c->said, sizeof c->said);
    cache_entry *e;
    if (c->n < XCHG_MPI_CACHE_PLANS) {
        e = &c->e[c->n++];
    } else { /* full: the oldest goes */
        e = &c->e[c->next];
        xchg_mpi_memo_forget();
        xchg_mpi_plan_free(e->plan);
        c->next = (c->next + 1) % XCHG_MPI_CACHE_PLANS;
    }
    *e = (cache_entry){.plan = pl, .block_bytes = block_bytes, .in_place = in_place,
                       .send_contig = scontig, .recv_contig = rcontig};
    snprintf(e->alg, sizeof e->alg, "%s", alg);
    snprintf(e->topology, sizeof e->topology, "%s", topo);
    *out = pl;
    return MPI_SUCCESS;
}

int xchg_mpi_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .scount = sendcount,
                         .rcount = recvcount,
                         .stype = sendtype,
                         .rtype = recvtype,
                         .comm = comm,
                         .opts = opts};
    if (xchg_mpi_memo_find(&a)) {
        int rc = library_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        return rc == MPI_SUCCESS ? rc : xchg_mpi_raise(comm, rc);
    }
    xchg_mpi_opts buf;
    opts = xchg_mpi_opts_effective(opts, &buf);
    int rc = check_args(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    int in_place = sendbuf == MPI_IN_PLACE;
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter || (opts->alg && !strcmp(opts->alg, "mpi")))
        return xchg_mpi_raise(comm, pass_on(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype, comm));
    xchg_mpi_layout slay, rlay;
    size_t sbytes = 0, rbytes = 0;
    rc = xchg_mpi_layout_of(in_place ? recvcount : sendcount, in_place ? recvtype : sendtype,
                            &slay, &sbytes);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_layout_of(recvcount, recvtype, &rlay, &rbytes);
    if (rc == MPI_SUCCESS && sbytes != rbytes)
        rc = sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (rbytes == 0) {
        xchg_mpi_count_call(1); /* nothing to move */
        return MPI_SUCCESS;
    }
    xchg_mpi_plan *pl = NULL;
    rc = cached_plan(sendcount, sendtype, recvcount, recvtype, in_place, comm, opts, rbytes,
                     slay.contiguous, rlay.contiguous, &pl);
    if (rc == MPI_SUCCESS && pl->fallback)
        xchg_mpi_memo_keep(&a, pl, (xchg_mpi_pass){.shift_comm = MPI_COMM_NULL});
    if (rc == MPI_SUCCESS)
        rc = run(pl, in_place ? MPI_IN_PLACE : sendbuf, recvbuf, &slay, &rlay);
    return xchg_mpi_raise(comm, rc);
}
