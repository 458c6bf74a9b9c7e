/*
 * op_calls.c - the executor's calls for the other operations
 * (include/xchg_mpi.h: xchg_mpi_bcast, _reduce, _allreduce,
 * _reduce_scatter_block, _scan, _allgather, _gather, _scatter, _shift):
 * MPI's argument checks, what each call's buffers hold (op_internal.h's
 * xchg_mpi_opbufs), the per-communicator plan cache, the MPI library's
 * own call when the plan falls back (at once, checks skipped, for a call
 * whose arguments it passed on last time: op_memo.c), errors through the
 * communicator's error handler, verbose lines, the last plan's info and
 * the counters.
 *
 * The cache is a communicator attribute of its own (not the exchange's),
 * holding up to XCHG_MPI_OP_PLANS plans keyed by operation, root or shift,
 * block size, element size, whether the call reduces and with a
 * commutative operator, and the options' algorithm and topology. The
 * buffers' datatypes are not part of the key: a plan moves bytes, and each
 * call packs its own datatypes.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/op_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checked paths stay out of the entry points (XCHG_MPI_HOT), which
 * would otherwise inline them and grow the short way's pages; the short
 * way goes into each entry point, where the operation is a constant and
 * the library's call is picked without a jump table. */
#if defined(__GNUC__)
#define XCHG_MPI_NOINLINE __attribute__((noinline))
#define XCHG_MPI_INLINE inline __attribute__((always_inline))
#else
#define XCHG_MPI_NOINLINE
#define XCHG_MPI_INLINE inline
#endif

/* Plans kept per communicator; the oldest goes when a new one is needed. */
#define XCHG_MPI_OP_PLANS 16

typedef struct op_entry {
    xchg_mpi_plan *plan;
    xchg_mpi_opcall call;
    char alg[XCHG_SPEC_MAX * 4], topology[64];
} op_entry;

typedef struct op_cache {
    op_entry e[XCHG_MPI_OP_PLANS];
    int n, next;
    char said[XCHG_OP_COUNT][XCHG_SPEC_MAX + 64]; /* verbose: per operation */
} op_cache;

static int cache_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval_rc = MPI_SUCCESS;
static atomic_uint_fast64_t op_carried, op_passed;

/* What the last call ran (xchg_mpi_last_info). from: the plan info was
 * copied from, and epoch the memo's epoch then: a call that finds the same
 * plan again skips the copy (over 1 KB, a tenth of a microsecond of a
 * small call's pass to the library). Every free of a cached plan moves the
 * epoch first, so a new plan at a freed one's address is copied afresh. */
typedef struct last_call {
    int have;
    const xchg_mpi_plan *from;
    unsigned epoch;
    xchg_mpi_plan_info info;
} last_call;

/* Where the memo is on (below MPI_THREAD_MULTIPLE: one MPI call at a
 * time) the process keeps one record, which the short way reads at every
 * call without a thread-local lookup (op_memo.c says why that counts);
 * where it is off (MPI_THREAD_MULTIPLE, SMPI's ranks as threads) each
 * thread keeps its own. */
static last_call last_of_process;
static _Thread_local last_call last_of_thread;

static last_call *last_record(void)
{
    return xchg_mpi_memo_on() ? &last_of_process : &last_of_thread;
}

void xchg_mpi_op_call_counts(uint64_t *carried, uint64_t *passed)
{
    if (carried)
        *carried = (uint64_t)atomic_load(&op_carried);
    if (passed) {
        *passed = (uint64_t)atomic_load(&op_passed);
        for (int k = 0; k < XCHG_OP_COUNT; k++)
            if (k != XCHG_OP_ALLTOALL)
                *passed += xchg_mpi_memo_hits((xchg_op_kind)k);
    }
}

int xchg_mpi_last_info(xchg_mpi_plan_info *info)
{
    if (!info)
        return MPI_ERR_ARG;
    const last_call *l = last_record();
    if (!l->have)
        return MPI_ERR_OTHER;
    *info = l->info;
    return MPI_SUCCESS;
}

/* Remember in l what a call ran: a plan's info, or the MPI library's call
 * (why). Returns l. */
static last_call *remember_in(last_call *l, const xchg_mpi_plan *pl, const char *why)
{
    l->have = 1;
    if (pl) {
        unsigned epoch = xchg_mpi_memo_epoch();
        if (pl != l->from || epoch != l->epoch) {
            l->info = pl->info;
            l->from = pl;
            l->epoch = epoch;
        }
        return l;
    }
    l->from = NULL;
    memset(&l->info, 0, sizeof l->info);
    snprintf(l->info.alg, sizeof l->info.alg, "mpi");
    snprintf(l->info.why, sizeof l->info.why, "%s", why ? why : "");
    l->info.fallback = 1;
    return l;
}

static last_call *remember(const xchg_mpi_plan *pl, const char *why)
{
    return remember_in(last_record(), pl, why);
}

/* Remember a call that moved nothing (why), done here. */
static void remember_none(const char *why)
{
    last_call *l = remember(NULL, why);
    l->info.fallback = 0;
    snprintf(l->info.alg, sizeof l->info.alg, "none");
}

/* The MPI call an operation stands for. */
static const char *mpi_name(xchg_op_kind k)
{
    switch (k) {
    case XCHG_OP_BCAST:
        return "MPI_Bcast";
    case XCHG_OP_REDUCE:
        return "MPI_Reduce";
    case XCHG_OP_ALLREDUCE:
        return "MPI_Allreduce";
    case XCHG_OP_REDUCE_SCATTER:
        return "MPI_Reduce_scatter_block";
    case XCHG_OP_SCAN:
        return "MPI_Scan";
    case XCHG_OP_ALLGATHER:
        return "MPI_Allgather";
    case XCHG_OP_GATHER:
        return "MPI_Gather";
    case XCHG_OP_SCATTER:
        return "MPI_Scatter";
    case XCHG_OP_SHIFT:
        return "MPI_Sendrecv";
    default:
        return "MPI_Alltoall";
    }
}

/* The library's call NAME with args: MPI 4's large-count NAME_c when
 * `large` (a count above INT_MAX; then older MPIs never get here). Counts
 * are MPI_Count, converted to int for the classic calls, where they fit. */
#if MPI_VERSION >= 4
#define LIBRARY(name, ...) (large ? PMPI_##name##_c(__VA_ARGS__) : PMPI_##name(__VA_ARGS__))
#else
#define LIBRARY(name, ...) PMPI_##name(__VA_ARGS__)
#endif

/* Where a call passed on by plan pl goes: a shift's peers, from the
 * plan's rank and size, and its duplicate communicator. */
static xchg_mpi_pass pass_of(const xchg_mpi_plan *pl, int q)
{
    int p = pl->p > 0 ? pl->p : 1;
    long long s = ((long long)q % p + p) % p;
    return (xchg_mpi_pass){.shift_comm = pl->comm,
                           .to = (int)((pl->rank + s) % p),
                           .from = (int)((pl->rank - s + p) % p)};
}

/* No plan: an operation other than the shift passed on as it came. */
static const xchg_mpi_pass no_pass = {.shift_comm = MPI_COMM_NULL};

/* The MPI library's own call with a's arguments; a shift is one
 * MPI_Sendrecv on pass's communicator (the plan's duplicate, so it never
 * meets the caller's messages) to and from pass's peers. Counts above
 * INT_MAX: MPI 4's large-count calls (MPI_Bcast_c, ...), or MPI_ERR_COUNT
 * under an older MPI. Inlined where the operation is known (the short
 * way of each entry point), so no jump table is read. Not counted: the
 * memo counts its hits, pass_on the others. */
static XCHG_MPI_INLINE int library_call(xchg_op_kind kind, const xchg_mpi_opargs *a,
                                        const xchg_mpi_pass *pass)
{
    int large = a->scount > INT_MAX || a->rcount > INT_MAX;
    if (large && MPI_VERSION < 4)
        return MPI_ERR_COUNT;
    MPI_Count sc = a->scount, rc = a->rcount;
    switch (kind) {
    case XCHG_OP_BCAST:
        return LIBRARY(Bcast, a->recvbuf, rc, a->rtype, a->root, a->comm);
    case XCHG_OP_REDUCE:
        return LIBRARY(Reduce, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->root, a->comm);
    case XCHG_OP_ALLREDUCE:
        return LIBRARY(Allreduce, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->comm);
    case XCHG_OP_REDUCE_SCATTER:
        return LIBRARY(Reduce_scatter_block, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->comm);
    case XCHG_OP_SCAN:
        return LIBRARY(Scan, a->sendbuf, a->recvbuf, rc, a->rtype, a->op, a->comm);
    case XCHG_OP_ALLGATHER:
        return LIBRARY(Allgather, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype, a->comm);
    case XCHG_OP_GATHER:
        return LIBRARY(Gather, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype, a->root,
                       a->comm);
    case XCHG_OP_SCATTER:
        return LIBRARY(Scatter, a->sendbuf, sc, a->stype, a->recvbuf, rc, a->rtype, a->root,
                       a->comm);
    case XCHG_OP_SHIFT:
        if (a->sendbuf == MPI_IN_PLACE)
            return LIBRARY(Sendrecv_replace, a->recvbuf, rc, a->rtype, pass->to, 0, pass->from, 0,
                           pass->shift_comm, MPI_STATUS_IGNORE);
        return LIBRARY(Sendrecv, a->sendbuf, rc, a->rtype, pass->to, 0, a->recvbuf, rc, a->rtype,
                       pass->from, 0, pass->shift_comm, MPI_STATUS_IGNORE);
    default:
        return MPI_ERR_INTERN;
    }
}

/* library_call, counted as passed when the call can be made. */
static int pass_on(const xchg_mpi_opargs *a, const xchg_mpi_pass *pass)
{
    if ((a->scount > INT_MAX || a->rcount > INT_MAX) && MPI_VERSION < 4)
        return MPI_ERR_COUNT;
    atomic_fetch_add(&op_passed, 1);
    return library_call(a->kind, a, pass);
}

static int cache_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    op_cache *c = value;
    xchg_mpi_memo_forget();
    for (int i = 0; i < c->n; i++)
        xchg_mpi_plan_free(c->e[i].plan);
    free(c);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cache_delete, &cache_keyval, NULL);
}

/* Rank 0 says what a new plan chose (verbose, or always when a value it
 * was given could not be honoured), unless it said the same last time for
 * this operation on this communicator. */
static void say(const xchg_mpi_plan *pl, const xchg_mpi_opcall *call, int verbose, char *said,
                size_t len)
{
    if (pl->rank != 0 || !(verbose || pl->bad_value))
        return;
    char now[XCHG_SPEC_MAX + 64];
    snprintf(now, sizeof now, "%s %s", pl->info.alg, pl->info.topology);
    if (!strcmp(now, said))
        return;
    snprintf(said, len, "%s", now);
    const xchg_mpi_plan_info *i = &pl->info;
    if (pl->fallback)
        fprintf(stderr, "xchg: %s, %d ranks, %zu bytes: the MPI library's %s (%s)\n",
                xchg_op_name(call->kind), pl->p, pl->block_bytes, mpi_name(call->kind), i->why);
    else
        fprintf(stderr,
                "xchg: %s, %d ranks, %zu bytes: %s on %s (%s); %zu steps, plan %.3f ms, "
                "scratch %zu B\n",
                xchg_op_name(call->kind), pl->p, pl->block_bytes, i->alg, i->topology, i->why,
                i->steps, i->plan_seconds * 1e3, i->scratch_bytes);
}

static int same_call(const xchg_mpi_opcall *a, const xchg_mpi_opcall *b)
{
    return a->kind == b->kind && a->root == b->root && a->shift == b->shift &&
           a->nelems == b->nelems && a->esize == b->esize && a->reduction == b->reduction &&
           a->commutative == b->commutative && a->dense == b->dense;
}

/* The cached plan for the call on comm, made and cached when there is none. */
static int cached_plan(const xchg_mpi_opcall *call, MPI_Comm comm, const xchg_mpi_opts *opts,
                       xchg_mpi_plan **out)
{
    pthread_once(&keyval_once, make_keyval);
    int rc = keyval_rc, found = 0;
    op_cache *c = NULL;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_get_attr(comm, cache_keyval, &c, &found);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *alg = opts->alg ? opts->alg : "auto";
    const char *topo = opts->topology ? opts->topology : "auto";
    if (found && c) {
        for (int i = 0; i < c->n; i++)
            if (same_call(&c->e[i].call, call) && !strcmp(c->e[i].alg, alg) &&
                !strcmp(c->e[i].topology, topo)) {
                *out = c->e[i].plan;
                return MPI_SUCCESS;
            }
    } else {
        if (!(c = calloc(1, sizeof *c)))
            return MPI_ERR_NO_MEM;
        if ((rc = MPI_Comm_set_attr(comm, cache_keyval, c)) != MPI_SUCCESS) {
            free(c);
            return rc;
        }
    }
    xchg_mpi_plan *pl = NULL;
    if ((rc = xchg_mpi_op_plan_make(call, comm, opts, &pl)) != MPI_SUCCESS)
        return rc;
    say(pl, call, opts->verbose, c->said[call->kind], sizeof c->said[call->kind]);
    op_entry *e;
    if (c->n < XCHG_MPI_OP_PLANS) {
        e = &c->e[c->n++];
    } else {
        e = &c->e[c->next];
        xchg_mpi_memo_forget();
        xchg_mpi_plan_free(e->plan);
        c->next = (c->next + 1) % XCHG_MPI_OP_PLANS;
    }
    *e = (op_entry){.plan = pl, .call = *call};
    snprintf(e->alg, sizeof e->alg, "%s", alg);
    snprintf(e->topology, sizeof e->topology, "%s", topo);
    *out = pl;
    return MPI_SUCCESS;
}

/* Run a call: its plan (cached), or the MPI library's call when the plan
 * falls back. a: the arguments as given; call and b: what they mean. */
static int run_call(const xchg_mpi_opargs *a, const xchg_mpi_opcall *call, const xchg_mpi_opbufs *b,
                    const xchg_mpi_opts *opts)
{
    xchg_mpi_plan *pl = NULL;
    int rc = cached_plan(call, a->comm, opts, &pl);
    if (rc != MPI_SUCCESS)
        return rc;
    remember(pl, NULL);
    if (pl->fallback) {
        xchg_mpi_pass pass = pass_of(pl, a->q);
        xchg_mpi_memo_keep(a, pl, pass);
        return pass_on(a, &pass);
    }
    atomic_fetch_add(&op_carried, 1);
    return xchg_mpi_op_exec(pl, b);
}

/* The short way (op_memo.c): a call whose very arguments the cached plan
 * passed to the MPI library last time goes there at once, its checks
 * skipped. Nonzero when it went; *rc: its code, raised. */
static XCHG_MPI_INLINE int passed_at_once(const xchg_mpi_opargs *a, int *rc)
{
    xchg_op_kind kind = a->kind; /* read before a escapes: a constant in each entry point */
    const xchg_mpi_memo_hit *hit = xchg_mpi_memo_find(a);
    if (!hit)
        return 0;
    /* a hit means the memo is on: the process's record */
    if (hit->plan != last_of_process.from || hit->epoch != last_of_process.epoch)
        remember_in(&last_of_process, hit->plan, NULL);
    *rc = library_call(kind, a, &hit->pass);
    if (*rc != MPI_SUCCESS)
        *rc = xchg_mpi_raise(a->comm, *rc);
    return 1;
}

/* Checks every call makes, and the cases that go straight to the MPI
 * library: an intercommunicator, alg "mpi". *done: the call was passed on
 * (its code in the return value). */
static int common_checks(const xchg_mpi_opargs *a, const xchg_mpi_opts **opts, xchg_mpi_opts *buf,
                         int *p, int *rank, int *done)
{
    *done = 0;
    if (a->comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    int inter = 0, rc = MPI_Comm_test_inter(a->comm, &inter);
    if (rc == MPI_SUCCESS && inter && a->kind == XCHG_OP_SHIFT)
        return MPI_ERR_COMM; /* a shift has no meaning between two groups */
    if (rc == MPI_SUCCESS && !inter)
        rc = MPI_Comm_size(a->comm, p);
    if (rc == MPI_SUCCESS && !inter)
        rc = MPI_Comm_rank(a->comm, rank);
    if (rc != MPI_SUCCESS)
        return rc;
    *opts = xchg_mpi_opts_effective(*opts, buf);
    char asked[XCHG_SPEC_MAX];
    xchg_mpi_alg_for((*opts)->alg, a->kind, asked, sizeof asked);
    if (inter || (!strcmp(asked, "mpi") && a->kind != XCHG_OP_SHIFT)) {
        *done = 1;
        remember(NULL, inter ? "an intercommunicator" : "mpi was asked for");
        return pass_on(a, &no_pass);
    }
    return MPI_SUCCESS;
}

/* The call's description of a reduction of count elements of esize bytes
 * each, laid out as lay (data_layout's), with operator op. */
static int reduction_call(xchg_mpi_opcall *call, MPI_Count count, size_t esize, MPI_Op op,
                          const xchg_mpi_layout *lay)
{
    if (op == MPI_OP_NULL)
        return MPI_ERR_OP;
    int rc = MPI_Op_commutative(op, &call->commutative);
    if (rc != MPI_SUCCESS)
        return rc;
    call->reduction = 1;
    call->nelems = (size_t)count;
    call->esize = esize;
    call->dense = lay->contiguous;
    return MPI_SUCCESS;
}

/* A data type's checks and layout for count elements: bytes of its
 * signature and size of an element. */
static int data_layout(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *lay, size_t *bytes,
                       size_t *esize)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    int rc = xchg_mpi_layout_of(count, type, lay, bytes);
    if (rc == MPI_SUCCESS && (!lay->contiguous && (count > INT_MAX || *bytes > INT_MAX)))
        rc = MPI_ERR_COUNT; /* MPI_Pack takes int */
    *esize = count ? *bytes / (size_t)count : 0;
    return rc;
}

/* Finish a call: nothing to move (zero bytes) is carried; else run it. */
static int finish(const xchg_mpi_opargs *a, xchg_mpi_opcall *call, const xchg_mpi_opbufs *b,
                  const xchg_mpi_opts *opts)
{
    if (call->nelems * call->esize == 0) {
        atomic_fetch_add(&op_carried, 1);
        remember_none("nothing to move");
        return MPI_SUCCESS;
    }
    return run_call(a, call, b, opts);
}

/* A broadcast, checked (the short way did not take it). */
static XCHG_MPI_NOINLINE int bcast_checked(const xchg_mpi_opargs *a)
{
    void *buf = a->recvbuf;
    MPI_Count count = a->rcount;
    MPI_Datatype type = a->rtype;
    int root = a->root;
    MPI_Comm comm = a->comm;
    const xchg_mpi_opts *opts = a->opts;
    xchg_mpi_opts ob;
    int p = 0, rank = 0, done, rc;
    rc = common_checks(a, &opts, &ob, &p, &rank, &done);
    if (done || rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_layout lay;
    size_t bytes, esize;
    if ((rc = data_layout(count, type, &lay, &bytes, &esize)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (root < 0 || root >= p)
        return xchg_mpi_raise(comm, MPI_ERR_ROOT);
    /* bytes, not elements: ranks may describe the data with different
     * types of one signature, and every rank must cut it alike */
    (void)esize;
    xchg_mpi_opcall call = {
        .kind = XCHG_OP_BCAST, .root = (uint32_t)root, .nelems = bytes, .esize = 1};
    xchg_mpi_opbufs b = {.in = rank == root ? buf : NULL,
                         .in_lay = &lay,
                         .in_blocks = 1,
                         .out = rank == root ? NULL : buf,
                         .out_lay = &lay,
                         .out_blocks = 1};
    return xchg_mpi_raise(comm, finish(a, &call, &b, opts));
}

/* reduce, allreduce, scan and reduce_scatter_block, checked: one path. */
static XCHG_MPI_NOINLINE int reduction_checked(const xchg_mpi_opargs *a)
{
    xchg_op_kind kind = a->kind;
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    MPI_Count count = a->rcount;
    MPI_Datatype type = a->rtype;
    MPI_Op op = a->op;
    int root = a->root;
    MPI_Comm comm = a->comm;
    const xchg_mpi_opts *opts = a->opts;
    xchg_mpi_opts ob;
    int p = 0, rank = 0, done, rc;
    rc = common_checks(a, &opts, &ob, &p, &rank, &done);
    if (done || rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_layout lay;
    size_t bytes, esize;
    xchg_mpi_opcall call = {.kind = kind};
    if ((rc = data_layout(count, type, &lay, &bytes, &esize)) == MPI_SUCCESS)
        rc = reduction_call(&call, count, esize, op, &lay);
    if (rc == MPI_SUCCESS && kind == XCHG_OP_REDUCE && (root < 0 || root >= p))
        rc = MPI_ERR_ROOT;
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && in_place && kind == XCHG_OP_REDUCE && rank != root)
        rc = MPI_ERR_BUFFER; /* only the root may reduce in place */
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    call.root = kind == XCHG_OP_REDUCE ? (uint32_t)root : 0;
    xchg_mpi_opbufs b = {.in = in_place ? recvbuf : sendbuf,
                         .in_lay = &lay,
                         .in_blocks = 1,
                         .out = recvbuf,
                         .out_lay = &lay,
                         .out_blocks = 1,
                         .type = type,
                         .op = op};
    if (kind == XCHG_OP_REDUCE && rank != root)
        b.out = NULL;
    if (kind == XCHG_OP_REDUCE_SCATTER)
        b.in_blocks = (size_t)p;
    return xchg_mpi_raise(comm, finish(a, &call, &b, opts));
}


/* allgather, gather and scatter, checked: one path. The side with p
 * blocks (the receive side of a gather, the send side of a scatter) counts
 * only where MPI says it does: every rank of an allgather, the root of the
 * others. */
static XCHG_MPI_NOINLINE int blocks_checked(const xchg_mpi_opargs *a)
{
    xchg_op_kind kind = a->kind;
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    MPI_Count scount = a->scount, rcount = a->rcount;
    MPI_Datatype stype = a->stype, rtype = a->rtype;
    int root = a->root;
    MPI_Comm comm = a->comm;
    const xchg_mpi_opts *opts = a->opts;
    xchg_mpi_opts ob;
    int p = 0, rank = 0, done, rc;
    rc = common_checks(a, &opts, &ob, &p, &rank, &done);
    if (done || rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (kind != XCHG_OP_ALLGATHER && (root < 0 || root >= p))
        return xchg_mpi_raise(comm, MPI_ERR_ROOT);
    int at_root = kind == XCHG_OP_ALLGATHER || rank == root;
    /* which sides this rank uses, and which is in place */
    int send_in_place = sendbuf == MPI_IN_PLACE, recv_in_place = recvbuf == MPI_IN_PLACE;
    int uses_send = kind == XCHG_OP_SCATTER ? at_root : !send_in_place;
    int uses_recv = kind == XCHG_OP_GATHER ? at_root : !recv_in_place;
    if ((send_in_place && (kind == XCHG_OP_SCATTER || !at_root)) ||
        (recv_in_place && (kind != XCHG_OP_SCATTER || !at_root)))
        return xchg_mpi_raise(comm, MPI_ERR_BUFFER);
    xchg_mpi_layout slay = {0}, rlay = {0};
    size_t sbytes = 0, rbytes = 0, es = 0, er = 0;
    if (uses_send && (rc = data_layout(scount, stype, &slay, &sbytes, &es)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (uses_recv && (rc = data_layout(rcount, rtype, &rlay, &rbytes, &er)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (uses_send && uses_recv && sbytes != rbytes)
        return xchg_mpi_raise(comm, sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_ARG);
    size_t B = uses_send ? sbytes : rbytes;
    xchg_mpi_opcall call = {.kind = kind,
                            .root = kind == XCHG_OP_ALLGATHER ? 0 : (uint32_t)root,
                            .nelems = B,
                            .esize = 1};
    xchg_mpi_opbufs b = {.in_lay = &slay, .in_blocks = 1, .out_lay = &rlay, .out_blocks = 1};
    if (kind == XCHG_OP_SCATTER) {
        if (at_root)
            b.in = sendbuf, b.in_blocks = (size_t)p;
        b.out = recv_in_place ? NULL : recvbuf;
    } else {
        if (send_in_place) /* this rank's block is already in place */
            b.in = (unsigned char *)recvbuf + (size_t)rank * (size_t)rlay.stride, b.in_lay = &rlay;
        else
            b.in = sendbuf;
        if (at_root)
            b.out = recvbuf, b.out_blocks = (size_t)p;
    }
    return xchg_mpi_raise(comm, finish(a, &call, &b, opts));
}


/* A shift by a multiple of p: this rank's data to itself, with its type. */
static int shift_home(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      const xchg_mpi_layout *lay, size_t bytes)
{
    atomic_fetch_add(&op_carried, 1);
    remember_none("a shift by a multiple of p moves nothing");
    if (sendbuf == MPI_IN_PLACE || bytes == 0)
        return MPI_SUCCESS;
    if (lay->contiguous) {
        memmove(recvbuf, sendbuf, bytes);
        return MPI_SUCCESS;
    }
    unsigned char *tmp = malloc(bytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int pos = 0, rc = MPI_Pack(sendbuf, (int)count, type, tmp, (int)bytes, &pos, MPI_COMM_SELF);
    if (rc == MPI_SUCCESS) {
        pos = 0;
        rc = MPI_Unpack(tmp, (int)bytes, &pos, recvbuf, (int)count, type, MPI_COMM_SELF);
    }
    free(tmp);
    return rc;
}

/* A shift, checked. */
static XCHG_MPI_NOINLINE int shift_checked(const xchg_mpi_opargs *a)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    MPI_Count count = a->rcount;
    MPI_Datatype type = a->rtype;
    int q = a->q;
    MPI_Comm comm = a->comm;
    const xchg_mpi_opts *opts = a->opts;
    xchg_mpi_opts ob;
    int p = 0, rank = 0, done, rc;
    rc = common_checks(a, &opts, &ob, &p, &rank, &done);
    if (done || rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_layout lay;
    size_t bytes, esize;
    if ((rc = data_layout(count, type, &lay, &bytes, &esize)) != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    uint32_t q_mod_p = (uint32_t)(((long long)q % p + p) % p);
    xchg_mpi_opcall call = {.kind = XCHG_OP_SHIFT,
                            .shift = q_mod_p,
                            .nelems = bytes,
                            .esize = 1}; /* bytes: as for a broadcast */
    (void)esize;
    xchg_mpi_opbufs b = {.in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                         .in_lay = &lay,
                         .in_blocks = 1,
                         .out = recvbuf,
                         .out_lay = &lay,
                         .out_blocks = 1};
    char asked[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(opts->alg, XCHG_OP_SHIFT, asked, sizeof asked);
    if (!strcmp(asked, "mpi")) /* every shift to the MPI library, through the
                                  plan's duplicate communicator */
        return xchg_mpi_raise(comm, run_call(a, &call, &b, opts));
    if (q_mod_p == 0)
        return xchg_mpi_raise(comm, shift_home(sendbuf, recvbuf, count, type, &lay, bytes));
    return xchg_mpi_raise(comm, finish(a, &call, &b, opts));
}

/* ---- the entry points ------------------------------------------------------
 * Each gathers its arguments and tries the short way (op_memo.c) before
 * the checked path. They are XCHG_MPI_HOT (mpi_internal.h): side by side
 * in the code, apart from the checked paths, with the short way inlined
 * (XCHG_MPI_INLINE). */

/* The short way, else checked(a). */
static XCHG_MPI_INLINE int call_op(const xchg_mpi_opargs *a, int (*checked)(const xchg_mpi_opargs *))
{
    int rc;
    if (passed_at_once(a, &rc))
        return rc;
    return checked(a);
}

XCHG_MPI_HOT int xchg_mpi_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                                MPI_Comm comm, const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_BCAST,
                         .recvbuf = buf,
                         .rcount = count,
                         .rtype = type,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a, bcast_checked);
}

/* reduce, allreduce, reduce_scatter_block and scan: their arguments. */
static XCHG_MPI_INLINE int reduction(xchg_op_kind kind, const void *sendbuf, void *recvbuf,
                                     MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                                     MPI_Comm comm, const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = kind,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .rcount = count,
                         .rtype = type,
                         .op = op,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a, reduction_checked);
}

XCHG_MPI_HOT int xchg_mpi_reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                 MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                 const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_REDUCE, sendbuf, recvbuf, count, type, op, root, comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0, comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                               MPI_Count recvcount, MPI_Datatype type, MPI_Op op,
                                               MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, type, op, 0, comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_scan(const void *sendbuf, void *recvbuf, MPI_Count count,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                               const xchg_mpi_opts *opts)
{
    return reduction(XCHG_OP_SCAN, sendbuf, recvbuf, count, type, op, 0, comm, opts);
}

/* allgather, gather and scatter: their arguments. */
static XCHG_MPI_INLINE int blocks(xchg_op_kind kind, const void *sendbuf, MPI_Count scount,
                                  MPI_Datatype stype, void *recvbuf, MPI_Count rcount,
                                  MPI_Datatype rtype, int root, MPI_Comm comm,
                                  const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = kind,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .scount = scount,
                         .rcount = rcount,
                         .stype = stype,
                         .rtype = rtype,
                         .root = root,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a, blocks_checked);
}

XCHG_MPI_HOT int xchg_mpi_allgather(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, const xchg_mpi_opts *opts)
{
    return blocks(XCHG_OP_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, opts);
}

XCHG_MPI_HOT int xchg_mpi_shift(const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype type, int q, MPI_Comm comm,
                                const xchg_mpi_opts *opts)
{
    xchg_mpi_opargs a = {.kind = XCHG_OP_SHIFT,
                         .sendbuf = sendbuf,
                         .recvbuf = recvbuf,
                         .rcount = count,
                         .rtype = type,
                         .q = q,
                         .comm = comm,
                         .opts = opts};
    return call_op(&a, shift_checked);
}
