/*
 * op_memo.c - the short way to the MPI library, for the exchange and the
 * other operations. The process remembers, per operation, the last call
 * whose plan passed it to the MPI library (a tuning row "mpi", a
 * fallback), with that call's arguments and where it went. A call with the
 * very same arguments would pass the same checks and find the same plan in
 * the communicator's cache, so alltoall.c and op_calls.c send it to the
 * library at once, without the checks' MPI queries (the communicator's
 * size and rank, the datatypes' layouts, the operator's commutativity, the
 * cache attribute).
 *
 * Why it matters: each query is cheap, but at 64 ranks on 2 cores every
 * rank's extra CPU is paid about 32 times in a collective's wall time, and
 * the whole path measured 10-20% of a small call's time (docs/mpi-ops.md).
 * For the same reason a hit reads little memory: between two of a rank's
 * calls 31 other ranks have run on its core, and every cache line and page
 * the short way reads is a miss. Its on/off state, epoch and slots sit in
 * one process-wide struct (no thread-local lookup), and a slot holds where
 * the call goes (a shift's peers and communicator), so a hit asks MPI
 * nothing. With caches flushed before each call, the way of before (a
 * thread-local memo, the shift's peers asked of MPI at every call) added
 * 0.17-0.21 us to a call on 2 ranks, this one 0.09-0.15 us
 * (bench/results/pass_cold.txt), and at 64 ranks a shift of 2-8 KiB ran
 * 1.05x the library's time against 1.03x now (docs/mpi-ops.md).
 *
 * What keeps a hit true:
 * - The arguments are compared in full: communicator, counts, datatypes,
 *   operator, root, shift, which buffers are MPI_IN_PLACE (not the
 *   buffers' addresses, which no check reads), and the options (NULL, the
 *   environment's, read once; or the algorithm and topology they name: the
 *   cache's key).
 * - Only predefined datatypes and operators are remembered: a derived
 *   datatype or a user's operator may be freed and its handle reused for
 *   another of a different size or commutativity.
 * - Every remembered call is forgotten whenever a plan of the operations'
 *   cache is freed (a communicator freed, a plan evicted), by an epoch: a
 *   communicator's handle may be reused too, and a hit hands on the plan's
 *   duplicate communicator (a shift's MPI_Sendrecv).
 * A rank that hits and a rank that misses still agree: the miss finds the
 * same cached plan, which every rank made alike, and passes the call on.
 *
 * Threads: below MPI_THREAD_MULTIPLE the program makes one MPI call at a
 * time, so one memo serves every thread. Under MPI_THREAD_MULTIPLE (asked
 * once, at the first call remembered) the memo stays off and every call
 * takes the checks' way: two threads' calls would write one slot at once.
 * Not under SimGrid's SMPI either (smpicc defines SMPI_H): its ranks run
 * as contexts of one process, which would share the memo, one rank's plan
 * found by another.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

typedef struct memo_slot {
    int valid;
    xchg_mpi_opargs args; /* buffers: only whether MPI_IN_PLACE; opts: only whether NULL */
    xchg_mpi_memo_hit hit;
} memo_slot;

/* The options' algorithm and topology of a slot's call (when not NULL). */
typedef struct memo_names {
    char alg[XCHG_SPEC_MAX * 4], topology[64];
} memo_names;

/* Whether the memo is on: not decided yet (no call so far), on, or off. */
enum { MEMO_UNDECIDED, MEMO_ACTIVE, MEMO_OFF };

/* The process's memo: on or off, its epoch, a slot per operation, and the
 * slots' names apart (320 bytes each, read only when options are given). */
static struct {
    atomic_int on;
    atomic_uint epoch;
    memo_slot slot[XCHG_OP_COUNT];
    memo_names names[XCHG_OP_COUNT];
} memo;

/* Predefined handles, filled once (MPICH's are constants, Open MPI's and
 * SMPI's addresses of the library's objects: not all usable in a static
 * initialiser). */
#define MEMO_TYPES 40
#define MEMO_OPS 12
static MPI_Datatype known_types[MEMO_TYPES];
static MPI_Op known_ops[MEMO_OPS];
static int n_types, n_ops;
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static void add_type(MPI_Datatype t)
{
    if (t != MPI_DATATYPE_NULL && n_types < MEMO_TYPES)
        known_types[n_types++] = t;
}

static void fill_known(void)
{
    /* the most used first: the scan stops at the first match */
    /* clang-format off */
    MPI_Datatype types[] = {
        MPI_DOUBLE, MPI_INT, MPI_BYTE, MPI_FLOAT, MPI_CHAR, MPI_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT,
        MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_LONG_DOUBLE, MPI_INT8_T, MPI_INT16_T,
        MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
        MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_WCHAR, MPI_FLOAT_INT,
        MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_2INT, MPI_INTEGER, MPI_REAL,
        MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER,
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        add_type(types[i]);
    MPI_Op ops[MEMO_OPS] = {MPI_SUM,  MPI_MAX,  MPI_MIN, MPI_PROD, MPI_LAND,   MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    for (int i = 0; i < MEMO_OPS; i++)
        if (ops[i] != MPI_OP_NULL)
            known_ops[n_ops++] = ops[i];
}

static int known_type(MPI_Datatype t)
{
    for (int i = 0; i < n_types; i++)
        if (known_types[i] == t)
            return 1;
    return 0;
}

static int known_op(MPI_Op op)
{
    for (int i = 0; i < n_ops; i++)
        if (known_ops[i] == op)
            return 1;
    return 0;
}

static int reduces(xchg_op_kind k)
{
    return k == XCHG_OP_REDUCE || k == XCHG_OP_ALLREDUCE || k == XCHG_OP_REDUCE_SCATTER ||
           k == XCHG_OP_SCAN;
}

/* Whether the call reads its send datatype (every call reads rtype). */
static int uses_stype(const xchg_mpi_opargs *a)
{
    xchg_op_kind k = a->kind;
    return (k == XCHG_OP_ALLTOALL && a->sendbuf != MPI_IN_PLACE) || k == XCHG_OP_ALLGATHER ||
           k == XCHG_OP_GATHER || k == XCHG_OP_SCATTER;
}

/* a with its buffers reduced to whether each is MPI_IN_PLACE, and its
 * options to whether they are NULL (the slot holds their strings). */
static xchg_mpi_opargs key_of(const xchg_mpi_opargs *a)
{
    static const xchg_mpi_opts given;
    xchg_mpi_opargs k = *a;
    k.sendbuf = a->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : NULL;
    k.recvbuf = a->recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : NULL;
    k.opts = a->opts ? &given : NULL;
    return k;
}

static int same_args(const xchg_mpi_opargs *x, const xchg_mpi_opargs *y)
{
    return x->kind == y->kind && x->comm == y->comm && x->scount == y->scount &&
           x->rcount == y->rcount && x->stype == y->stype && x->rtype == y->rtype &&
           x->op == y->op && x->root == y->root && x->q == y->q && x->sendbuf == y->sendbuf &&
           x->recvbuf == y->recvbuf && x->opts == y->opts;
}

#ifdef SMPI_H
#define MEMO_ON 0
#else
#define MEMO_ON 1
#endif

/* Whether strings a and b are equal: strcmp without a call into the C
 * library's pages (the header above says why pages count). */
static int same_str(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

int xchg_mpi_memo_on(void)
{
    if (!MEMO_ON)
        return 0;
    int on = atomic_load_explicit(&memo.on, memory_order_relaxed);
    if (on == MEMO_UNDECIDED) {
        /* the thread level is fixed from MPI_Init to MPI_Finalize, and
         * every thread that asks finds the same */
        int init = 0, fin = 0, level = MPI_THREAD_MULTIPLE;
        MPI_Initialized(&init);
        MPI_Finalized(&fin);
        if (!init || fin)
            return 0;
        MPI_Query_thread(&level);
        on = level == MPI_THREAD_MULTIPLE ? MEMO_OFF : MEMO_ACTIVE;
        atomic_store_explicit(&memo.on, on, memory_order_relaxed);
    }
    return on == MEMO_ACTIVE;
}

XCHG_MPI_HOT const xchg_mpi_memo_hit *xchg_mpi_memo_find(const xchg_mpi_opargs *a)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_OP_COUNT ||
        atomic_load_explicit(&memo.on, memory_order_relaxed) != MEMO_ACTIVE)
        return NULL;
    const memo_slot *s = &memo.slot[a->kind];
    if (!s->valid || s->hit.epoch != atomic_load_explicit(&memo.epoch, memory_order_acquire))
        return NULL;
    xchg_mpi_opargs k = key_of(a);
    if (!same_args(&k, &s->args))
        return NULL;
    if (a->opts) {
        const char *alg = a->opts->alg ? a->opts->alg : "auto";
        const char *topo = a->opts->topology ? a->opts->topology : "auto";
        const memo_names *n = &memo.names[a->kind];
        if (!same_str(alg, n->alg) || !same_str(topo, n->topology))
            return NULL;
    }
    return &s->hit;
}

void xchg_mpi_memo_keep(const xchg_mpi_opargs *a, const xchg_mpi_plan *pl, xchg_mpi_pass pass)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_OP_COUNT || !xchg_mpi_memo_on())
        return;
    pthread_once(&known_once, fill_known);
    memo_slot *s = &memo.slot[a->kind];
    s->valid = 0;
    if (!known_type(a->rtype) || (uses_stype(a) && !known_type(a->stype)) ||
        (reduces(a->kind) && !known_op(a->op)))
        return;
    const char *alg = "", *topo = "";
    if (a->opts) {
        alg = a->opts->alg ? a->opts->alg : "auto";
        topo = a->opts->topology ? a->opts->topology : "auto";
    }
    memo_names *n = &memo.names[a->kind];
    if (strlen(alg) >= sizeof n->alg || strlen(topo) >= sizeof n->topology)
        return;
    strcpy(n->alg, alg);
    strcpy(n->topology, topo);
    s->args = key_of(a);
    s->hit = (xchg_mpi_memo_hit){
        .plan = pl, .epoch = atomic_load_explicit(&memo.epoch, memory_order_acquire), .pass = pass};
    s->valid = 1;
}

void xchg_mpi_memo_forget(void)
{
    atomic_fetch_add_explicit(&memo.epoch, 1, memory_order_acq_rel);
}

unsigned xchg_mpi_memo_epoch(void)
{
    return atomic_load_explicit(&memo.epoch, memory_order_acquire);
}
