/*
 * op_memo.c - the short way to the MPI library, for the exchange and the
 * other operations. Each thread remembers, per operation, the last call
 * whose plan passed it to the MPI library (a tuning row "mpi", a
 * fallback), with that call's arguments. A call with the very same
 * arguments would pass the same checks and find the same plan in the
 * communicator's cache, so alltoall.c and op_calls.c send it to the
 * library at once, without the checks' MPI queries (the communicator's
 * size and rank, the datatypes' layouts, the operator's commutativity, the
 * cache attribute).
 *
 * Why it matters: each query is cheap, but at 64 ranks on 2 cores every
 * rank's extra CPU is paid about 32 times in a collective's wall time, and
 * the whole path measured 10-20% of a small call's time (docs/mpi-ops.md).
 *
 * What keeps a hit true:
 * - The arguments are compared in full: communicator, counts, datatypes,
 *   operator, root, shift, which buffers are MPI_IN_PLACE (not the
 *   buffers' addresses, which no check reads), and the options' algorithm
 *   and topology (the cache's key).
 * - Only predefined datatypes and operators are remembered: a derived
 *   datatype or a user's operator may be freed and its handle reused for
 *   another of a different size or commutativity.
 * - Every remembered call is forgotten whenever a plan of the operations'
 *   cache is freed (a communicator freed, a plan evicted), by a process-wide
 *   epoch: a communicator's handle may be reused too, and a hit hands on
 *   the plan's duplicate communicator (a shift's MPI_Sendrecv).
 * A rank that hits and a rank that misses still agree: the miss finds the
 * same cached plan, which every rank made alike, and passes the call on.
 *
 * Not under SimGrid's SMPI (smpicc defines SMPI_H): its ranks run as
 * contexts of one thread of one process, which would share the
 * thread-local memos, one rank's plan found by another. There every call
 * takes the checks' way.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

typedef struct memo_slot {
    int valid;
    unsigned epoch;
    xchg_mpi_opargs args; /* sendbuf/recvbuf: only whether MPI_IN_PLACE */
    char alg[XCHG_SPEC_MAX * 4], topology[64];
    const xchg_mpi_plan *plan;
} memo_slot;

static atomic_uint memo_epoch;
static _Thread_local memo_slot memo[XCHG_OP_COUNT];

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

/* a with its buffers reduced to whether each is MPI_IN_PLACE. */
static xchg_mpi_opargs key_of(const xchg_mpi_opargs *a)
{
    xchg_mpi_opargs k = *a;
    k.sendbuf = a->sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : NULL;
    k.recvbuf = a->recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : NULL;
    return k;
}

static int same_args(const xchg_mpi_opargs *x, const xchg_mpi_opargs *y)
{
    return x->kind == y->kind && x->comm == y->comm && x->scount == y->scount &&
           x->rcount == y->rcount && x->stype == y->stype && x->rtype == y->rtype &&
           x->op == y->op && x->root == y->root && x->q == y->q && x->sendbuf == y->sendbuf &&
           x->recvbuf == y->recvbuf;
}

#ifdef SMPI_H
#define MEMO_ON 0
#else
#define MEMO_ON 1
#endif

const xchg_mpi_plan *xchg_mpi_memo_find(const xchg_mpi_opargs *a, const xchg_mpi_opts *opts)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_OP_COUNT)
        return NULL;
    const memo_slot *s = &memo[a->kind];
    if (!s->valid || s->epoch != atomic_load_explicit(&memo_epoch, memory_order_acquire))
        return NULL;
    xchg_mpi_opargs k = key_of(a);
    if (!same_args(&k, &s->args))
        return NULL;
    const char *alg = opts->alg ? opts->alg : "auto";
    const char *topo = opts->topology ? opts->topology : "auto";
    if (strcmp(alg, s->alg) || strcmp(topo, s->topology))
        return NULL;
    return s->plan;
}

void xchg_mpi_memo_keep(const xchg_mpi_opargs *a, const xchg_mpi_opts *opts,
                        const xchg_mpi_plan *pl)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_OP_COUNT)
        return;
    memo_slot *s = &memo[a->kind];
    s->valid = 0;
    pthread_once(&known_once, fill_known);
    if (!known_type(a->rtype) || (uses_stype(a) && !known_type(a->stype)) ||
        (reduces(a->kind) && !known_op(a->op)))
        return;
    const char *alg = opts->alg ? opts->alg : "auto";
    const char *topo = opts->topology ? opts->topology : "auto";
    if (strlen(alg) >= sizeof s->alg || strlen(topo) >= sizeof s->topology)
        return;
    strcpy(s->alg, alg);
    strcpy(s->topology, topo);
    s->args = key_of(a);
    s->plan = pl;
    s->epoch = atomic_load_explicit(&memo_epoch, memory_order_acquire);
    s->valid = 1;
}

void xchg_mpi_memo_forget(void)
{
    atomic_fetch_add_explicit(&memo_epoch, 1, memory_order_acq_rel);
}

unsigned xchg_mpi_memo_epoch(void)
{
    return atomic_load_explicit(&memo_epoch, memory_order_acquire);
}
