/*
 * memo.c - the short way to the MPI library, for every operation. The
 * process remembers, per operation, the last call whose plan passed it to
 * the MPI library (a tuning row "mpi", a fallback), with that call's
 * arguments and where it went. A call with the very same arguments would
 * pass the same checks and find the same plan in the communicator's cache,
 * so entry.c sends it to the library at once, without the checks' MPI
 * queries (the communicator's size and rank, the datatypes' layouts, the
 * operator's commutativity, the state's attribute).
 *
 * Why it matters: each query is cheap, but with many ranks to a core every
 * rank's extra work is paid many times over in a collective's wall time,
 * and between two of a rank's calls the other ranks sharing its core have
 * evicted what it read, so every cache line and page the short way reads
 * is a miss (docs/mpi-ops.md has the measurements). So a hit reads little
 * memory: the slots sit in one process-wide struct (no thread-local
 * lookup), each slot a few cache lines: the key in one, what a hit needs
 * in the next (where the call goes: a shift's peers and communicator, so a
 * hit asks MPI nothing), the options' names after them. A slot is kept
 * only where the memo is on and is cleared when anything it relied on is
 * freed, so a hit reads its slot alone, not the memo's state or epoch.
 *
 * What keeps a hit true:
 * - The arguments are compared in full: communicator, counts, datatypes,
 *   operator, root, shift, which buffers are MPI_IN_PLACE (not the
 *   buffers' addresses, which no check reads), and the options (NULL, the
 *   environment's, read once; or every string they name: the settings a
 *   plan is cached under).
 * - Only predefined datatypes and operators are remembered: a derived
 *   datatype or a user's operator may be freed and its handle reused for
 *   another of a different size or commutativity. MPI_Alltoallv and
 *   MPI_Alltoallw are the exception: their plans read neither types nor
 *   counts (choose_v.c), so a call of theirs is remembered by its
 *   communicator, in place and options alone, whatever its counts,
 *   displacements and types (the library checks those).
 * - A node-aware exchange's own calls (inner) are not remembered: they
 *   are made on the node's communicator, which no program's call names.
 * - Every remembered call is forgotten whenever a cached plan is freed (a
 *   communicator freed, a plan evicted): its slot is cleared and the epoch
 *   moves (a communicator's handle may be reused too, and a hit hands on
 *   the state's duplicate communicator: a shift's MPI_Sendrecv).
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
#include "mpi/call.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* A slot's flags: it holds a call, and that call's form beyond its
 * arguments (which buffers were MPI_IN_PLACE, whether options were given). */
enum {
    SLOT_KEPT = 1,
    SLOT_SEND_IN_PLACE = 2,
    SLOT_RECV_IN_PLACE = 4,
    SLOT_OPTS_GIVEN = 8,
};

/* One operation's remembered call, laid out for a hit to read few cache
 * lines (the header says why): its first 64 bytes hold the key (the
 * arguments a check reads, and the flags), the next what a hit needs, and
 * the last the options' strings, read only when options are given.
 * Strings that do not fit are not remembered. */
typedef struct memo_slot {
    _Alignas(64) MPI_Comm comm;
    MPI_Count scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int root, q;
    unsigned flags;
    _Alignas(64) xchg_mpi_memo_hit hit;
    /* calls the slot passed on; one MPI call at a time where the memo is
     * on, so a plain load and store (atomic only for xchg_mpi_memo_hits) */
    atomic_uint_fast64_t hits;
    _Alignas(64) char alg[40];
    char topology[24];
    char files[192]; /* the tuning file's path, a NUL, the machine file's */
    unsigned machine_at; /* where the machine file's path starts in files */
} memo_slot;

/* Whether the memo is on: not decided yet (no call so far), on, or off. */
enum { MEMO_UNDECIDED, MEMO_ACTIVE, MEMO_OFF };

/* The process's memo: on or off, its epoch, and a slot per operation. A
 * slot is kept only where the memo is on, so a hit reads its slot alone. */
static struct {
    atomic_int on;
    atomic_uint epoch;
    memo_slot slot[XCHG_MPI_KINDS];
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

/* A kept slot's flags for call a. */
static unsigned flags_of(const xchg_mpi_opargs *a)
{
    return SLOT_KEPT | (a->sendbuf == MPI_IN_PLACE ? SLOT_SEND_IN_PLACE : 0) |
           (a->recvbuf == MPI_IN_PLACE ? SLOT_RECV_IN_PLACE : 0) |
           (a->opts ? SLOT_OPTS_GIVEN : 0);
}

/* Whether slot s holds call a's arguments (a's kind is s's). */
static int same_args(const memo_slot *s, const xchg_mpi_opargs *a)
{
    return s->flags == flags_of(a) && s->comm == a->comm && s->scount == a->scount &&
           s->rcount == a->rcount && s->stype == a->stype && s->rtype == a->rtype &&
           s->op == a->op && s->root == a->root && s->q == a->q;
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
        if (MPI_Initialized(&init) != MPI_SUCCESS || MPI_Finalized(&fin) != MPI_SUCCESS ||
            !init || fin)
            return 0;
        if (MPI_Query_thread(&level) != MPI_SUCCESS)
            level = MPI_THREAD_MULTIPLE; /* unknown: the memo stays off */
        on = level == MPI_THREAD_MULTIPLE ? MEMO_OFF : MEMO_ACTIVE;
        atomic_store_explicit(&memo.on, on, memory_order_relaxed);
    }
    return on == MEMO_ACTIVE;
}

XCHG_MPI_HOT const xchg_mpi_memo_hit *xchg_mpi_memo_find(const xchg_mpi_opargs *a)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_MPI_KINDS)
        return NULL;
    memo_slot *s = &memo.slot[a->kind];
    if (!same_args(s, a)) /* a slot not kept has no SLOT_KEPT */
        return NULL;
    if (a->opts) {
        const xchg_mpi_opts *o = a->opts;
        if (!same_str(o->alg ? o->alg : "auto", s->alg) ||
            !same_str(o->topology ? o->topology : "auto", s->topology) ||
            !same_str(o->tuning_file ? o->tuning_file : "", s->files) ||
            !same_str(o->machine_file ? o->machine_file : "", s->files + s->machine_at))
            return NULL;
    }
    atomic_store_explicit(&s->hits, atomic_load_explicit(&s->hits, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return &s->hit;
}

void xchg_mpi_memo_keep(const xchg_mpi_opargs *a, const xchg_mpi_plan *pl, xchg_mpi_pass pass)
{
    if (!MEMO_ON || (unsigned)a->kind >= XCHG_MPI_KINDS || a->inner || !xchg_mpi_memo_on())
        return;
    pthread_once(&known_once, fill_known);
    memo_slot *s = &memo.slot[a->kind];
    s->flags = 0;
    if (!xchg_mpi_is_v(a->kind) &&
        (!known_type(a->rtype) || (uses_stype(a) && !known_type(a->stype)) ||
         (reduces(a->kind) && !known_op(a->op))))
        return;
    const char *alg = "", *topo = "", *tuning = "", *machine = "";
    if (a->opts) {
        alg = a->opts->alg ? a->opts->alg : "auto";
        topo = a->opts->topology ? a->opts->topology : "auto";
        tuning = a->opts->tuning_file ? a->opts->tuning_file : "";
        machine = a->opts->machine_file ? a->opts->machine_file : "";
    }
    size_t nt = strlen(tuning), nm = strlen(machine);
    if (strlen(alg) >= sizeof s->alg || strlen(topo) >= sizeof s->topology ||
        nt + nm + 2 > sizeof s->files)
        return;
    strcpy(s->alg, alg);
    strcpy(s->topology, topo);
    memcpy(s->files, tuning, nt + 1);
    memcpy(s->files + nt + 1, machine, nm + 1);
    s->machine_at = (unsigned)(nt + 1);
    s->comm = a->comm;
    s->scount = a->scount;
    s->rcount = a->rcount;
    s->stype = a->stype;
    s->rtype = a->rtype;
    s->op = a->op;
    s->root = a->root;
    s->q = a->q;
    s->hit = (xchg_mpi_memo_hit){
        .plan = pl, .epoch = atomic_load_explicit(&memo.epoch, memory_order_acquire), .pass = pass};
    s->flags = flags_of(a);
}

/* Where the memo is on one MPI call runs at a time, so no call reads a
 * slot while this clears it. */
void xchg_mpi_memo_forget(void)
{
    atomic_fetch_add_explicit(&memo.epoch, 1, memory_order_acq_rel);
    if (atomic_load_explicit(&memo.on, memory_order_relaxed) == MEMO_ACTIVE)
        for (int k = 0; k < XCHG_MPI_KINDS; k++)
            memo.slot[k].flags = 0;
}

uint64_t xchg_mpi_memo_hits(xchg_op_kind kind)
{
    if ((unsigned)kind >= XCHG_MPI_KINDS)
        return 0;
    return (uint64_t)atomic_load_explicit(&memo.slot[kind].hits, memory_order_relaxed);
}

unsigned xchg_mpi_memo_epoch(void)
{
    return atomic_load_explicit(&memo.epoch, memory_order_acquire);
}
