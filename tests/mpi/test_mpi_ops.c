/*
 * test_mpi_ops.c - the other operations' calls (xchg_mpi_bcast, _reduce,
 * _allreduce, _reduce_scatter_block, _scan, _allgather, _gather, _scatter,
 * _shift) against the MPI library's own calls on the same inputs, bit for
 * bit (run under mpirun by tests/mpi/ops.sh).
 *
 *   test_mpi_ops [--quick] [--max-print N] [--trace]
 *   (--quick: fewer cases per algorithm, for many oversubscribed ranks;
 *   see op_matrix)
 *   (--trace: rank 0 says each case before it runs, to find one that hangs
 *   or stops the job)
 *
 * The references are reached as PMPI_Bcast, PMPI_Reduce, ...: this program
 * links libxchg_mpi, whose MPI_ names may be xchg's drop-in. Every check
 * agrees over all ranks (PMPI_Allreduce) and is counted once; a failure
 * prints, on each rank where it failed, the operation, the algorithm, the
 * communicator and its topology, p, the root or q, the count, the type,
 * the operator and whether in place, and the program exits 1.
 *
 * What runs, at the communicator's size p:
 *  - every operation with every algorithm of it in the registry
 *    (xchg_alg_at: the names `xchg list --op NAME` prints) passed as
 *    opts.alg, with "auto", with opts NULL (the environment: what XCHG_ALG
 *    says, auto when unset; ops.sh runs it both ways) and with "mpi", on
 *    MPI_COMM_WORLD (complete:p), on its ranks reversed (MPI_Comm_split:
 *    a communicator's ranks are not the world's) and on
 *    Cartesian communicators laid out as ring:p, array:p and, where p has
 *    two factors >= 2, torus:RxC and mesh:RxC; and comma lists of one
 *    algorithm per operation;
 *  - every root (a few of them above p = 5) and shifts q in {1, -1, 0, 2,
 *    p, p + 1, -(p + 1), 3p - 1};
 *  - counts 0, 1, 7 and 2p + 1 (not divisible by p from p = 2 on), and one
 *    of 1 MiB of data once per operation and algorithm;
 *  - data types MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE, a contiguous type
 *    of 4 ints, a vector with gaps (2 ints in 3) and MPI_DOUBLE_INT (size
 *    12, extent 16), and for allgather, gather and scatter send and receive
 *    types that differ with one signature (4 MPI_INT as one contiguous
 *    type of 4 ints, and back; the gapped vector as 2 MPI_INT);
 *  - reductions: MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD on MPI_INT and
 *    MPI_DOUBLE, MPI_BXOR on MPI_BYTE, a user-defined commutative operator
 *    on MPI_INT, a user-defined operator that is NOT commutative (2x2
 *    matrix product mod a prime on the contiguous type of 4 ints), and two
 *    reductions whose type is not dense, which the MPI library must do
 *    (the commutative user operator on the gapped vector; MPI_MAXLOC on
 *    MPI_DOUBLE_INT): xchg_mpi_last_info must say fallback;
 *  - MPI_IN_PLACE wherever MPI allows it, and NULL receive buffers at the
 *    non-roots of reduce and gather (send buffers of scatter) where MPI
 *    says they are not significant;
 *  - for each call, what xchg_mpi_last_info says it ran: the algorithm
 *    forced wherever xchg_alg_applies accepts it on the communicator's
 *    topology (and, for an operator that is not commutative, when every
 *    rank's program keeps rank order: xchg_op_program_order_ok), else the
 *    MPI library's call; under auto an algorithm of the operation that
 *    applies, or the fallback; the topology the communicator maps to;
 *    and xchg_mpi_op_call_counts growing by one call, carried or passed as
 *    the info says;
 *  - a cached plan reused with new data and another operator;
 *  - bad arguments with MPI_ERRORS_RETURN: the error class, and buffers
 *    untouched; an intercommunicator goes to the MPI library.
 *  - first, a self-check: a result corrupted on purpose must be caught.
 *
 * Doubles: the inputs of every reduction on MPI_DOUBLE are small integers
 * stored as doubles (|x| <= 50, products of at most 16 factors |x| <= 3),
 * so every sum, product, maximum and minimum is exact in any order and
 * xchg's result must equal the MPI library's bit for bit although the two
 * combine in different orders.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"
#include "xchg_mpi.h"

static int rank, nranks, quick, trace;
static long checks, failures, cases, printed;
/* what the cases ran (this rank's view; every rank runs the same): an
 * algorithm of xchg, nothing (alg "none"), the MPI library; and reductions
 * with the operator that is not commutative that xchg carried */
static long ran_xchg, ran_none, ran_mpi, ran_noncomm;
static long MAX_PRINTED = 60; /* failure lines a rank prints at most (--max-print N) */
static int selfcheck; /* nonzero: failures are expected, not counted or printed */

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

enum { K_BCAST, K_REDUCE, K_ALLREDUCE, K_RSB, K_SCAN, K_ALLGATHER, K_GATHER, K_SCATTER,
       K_SHIFT, K_N };
static const char *const kname[K_N] = {"bcast",   "reduce",    "allreduce",
                                       "reduce_scatter_block", "scan", "allgather",
                                       "gather",  "scatter",   "shift"};
static const xchg_op_kind kop[K_N] = {XCHG_OP_BCAST,     XCHG_OP_REDUCE, XCHG_OP_ALLREDUCE,
                                      XCHG_OP_REDUCE_SCATTER, XCHG_OP_SCAN,
                                      XCHG_OP_ALLGATHER, XCHG_OP_GATHER, XCHG_OP_SCATTER,
                                      XCHG_OP_SHIFT};

static int is_reduction(int k)
{
    return k == K_REDUCE || k == K_ALLREDUCE || k == K_RSB || k == K_SCAN;
}
static int is_rooted(int k)
{
    return k == K_BCAST || k == K_REDUCE || k == K_GATHER || k == K_SCATTER;
}
static int two_types(int k)
{
    return k == K_ALLGATHER || k == K_GATHER || k == K_SCATTER;
}

/* ------------------------------------------------------------------ */
/* Data types and operators                                            */
/* ------------------------------------------------------------------ */

/* How a buffer of a type is filled: its elements' kind. */
enum { E_BYTES, E_INT, E_DOUBLE, E_DOUBLE_INT, E_FLOAT };
/* Which values reduction inputs take. */
enum { V_BYTES, V_SMALL, V_PROD, V_MOD };

typedef struct ptype {
    const char *name;
    MPI_Datatype t;
    int elem;  /* E_*: how its data is filled */
    int dense; /* size == extent, lower bound 0 */
    int size;
    MPI_Aint ext;
} ptype;

/* A send and a receive type of one signature: sendcount = count * sm,
 * recvcount = count * rm. */
typedef struct tpair {
    const char *name;
    ptype *s;
    int sm;
    ptype *r;
    int rm;
} tpair;

typedef struct rop {
    const char *name;
    MPI_Op op;
    int commute;
} rop;

/* A reduction: type, operator, input values. */
typedef struct rcombo {
    ptype *t;
    rop *op;
    int vals;
} rcombo;

#define PRIME 10007

static MPI_Datatype t_contig4, t_gapvec;

static ptype P_BYTE, P_CHAR, P_INT, P_DOUBLE, P_CONTIG4, P_GAPVEC, P_DOUBLE_INT, P_UNSIGNED,
    P_FLOAT;
static rop R_SUM = {"MPI_SUM", MPI_OP_NULL, 1}, R_MAX = {"MPI_MAX", MPI_OP_NULL, 1},
           R_MIN = {"MPI_MIN", MPI_OP_NULL, 1}, R_PROD = {"MPI_PROD", MPI_OP_NULL, 1},
           R_BXOR = {"MPI_BXOR", MPI_OP_NULL, 1}, R_MAXLOC = {"MPI_MAXLOC", MPI_OP_NULL, 1},
           R_UCOMM = {"user commutative (1+x)(1+y)-1 mod 10007", MPI_OP_NULL, 1},
           R_MAT = {"user NON-commutative 2x2 matrix product mod 10007", MPI_OP_NULL, 0};

static tpair single_types[7], pair_types[10];
static int nsingle, npairs;
static rcombo combos[16];
static int ncombos;

/* x (+) y = (1 + x)(1 + y) - 1 mod PRIME: commutative and associative,
 * and an input counted twice or left out changes the result. */
static int ucomm1(int x, int y)
{
    return (int)(((int64_t)(1 + x) * (1 + y) - 1) % PRIME);
}

static void ucomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    if (*dt == t_gapvec) { /* ints 0 and 2 of every 3 */
        for (int i = 0; i < *len; i++) {
            b[3 * i] = ucomm1(a[3 * i], b[3 * i]);
            b[3 * i + 2] = ucomm1(a[3 * i + 2], b[3 * i + 2]);
        }
    } else {
        for (int i = 0; i < *len; i++)
            b[i] = ucomm1(a[i], b[i]);
    }
}

/* inout = in x inout, 2x2 matrices (row-major, 4 ints) mod PRIME: MPI
 * passes the lower ranks' operand as in. */
static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int64_t c0 = ((int64_t)a[0] * b[0] + (int64_t)a[1] * b[2]) % PRIME;
        int64_t c1 = ((int64_t)a[0] * b[1] + (int64_t)a[1] * b[3]) % PRIME;
        int64_t c2 = ((int64_t)a[2] * b[0] + (int64_t)a[3] * b[2]) % PRIME;
        int64_t c3 = ((int64_t)a[2] * b[1] + (int64_t)a[3] * b[3]) % PRIME;
        b[0] = (int)c0;
        b[1] = (int)c1;
        b[2] = (int)c2;
        b[3] = (int)c3;
    }
}

static void ptype_init(ptype *p, const char *name, MPI_Datatype t, int elem)
{
    MPI_Aint lb;
    p->name = name;
    p->t = t;
    p->elem = elem;
    MPI_Type_size(t, &p->size);
    MPI_Type_get_extent(t, &lb, &p->ext);
    p->dense = lb == 0 && p->ext == p->size;
}

static void types_init(void)
{
    MPI_Type_contiguous(4, MPI_INT, &t_contig4);
    MPI_Type_commit(&t_contig4);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t_gapvec); /* ints 0 and 2 of 3: size 8, extent 12 */
    MPI_Type_commit(&t_gapvec);
    ptype_init(&P_BYTE, "MPI_BYTE", MPI_BYTE, E_BYTES);
    ptype_init(&P_CHAR, "MPI_CHAR", MPI_CHAR, E_BYTES);
    ptype_init(&P_INT, "MPI_INT", MPI_INT, E_INT);
    ptype_init(&P_DOUBLE, "MPI_DOUBLE", MPI_DOUBLE, E_DOUBLE);
    ptype_init(&P_CONTIG4, "contiguous(4, MPI_INT)", t_contig4, E_INT);
    ptype_init(&P_GAPVEC, "vector(2, 1, 2, MPI_INT) (gaps)", t_gapvec, E_INT);
    ptype_init(&P_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, E_DOUBLE_INT);
    ptype_init(&P_UNSIGNED, "MPI_UNSIGNED", MPI_UNSIGNED, E_INT);
    ptype_init(&P_FLOAT, "MPI_FLOAT", MPI_FLOAT, E_FLOAT);
    ptype *singles[] = {&P_BYTE, &P_CHAR, &P_INT, &P_DOUBLE, &P_CONTIG4, &P_GAPVEC,
                        &P_DOUBLE_INT};
    nsingle = 0;
    for (size_t i = 0; i < sizeof singles / sizeof *singles; i++)
        single_types[nsingle++] = (tpair){singles[i]->name, singles[i], 1, singles[i], 1};
    npairs = 0;
    for (int i = 0; i < nsingle; i++)
        pair_types[npairs++] = single_types[i];
    pair_types[npairs++] = (tpair){"4 MPI_INT -> contiguous(4, MPI_INT)", &P_INT, 4, &P_CONTIG4, 1};
    pair_types[npairs++] = (tpair){"contiguous(4, MPI_INT) -> 4 MPI_INT", &P_CONTIG4, 1, &P_INT, 4};
    pair_types[npairs++] = (tpair){"gapped vector -> 2 MPI_INT", &P_GAPVEC, 1, &P_INT, 2};

    R_SUM.op = MPI_SUM;
    R_MAX.op = MPI_MAX;
    R_MIN.op = MPI_MIN;
    R_PROD.op = MPI_PROD;
    R_BXOR.op = MPI_BXOR;
    R_MAXLOC.op = MPI_MAXLOC;
    MPI_Op_create(ucomm_fn, 1, &R_UCOMM.op);
    MPI_Op_create(mat_fn, 0, &R_MAT.op);
    int c = 0;
    combos[c++] = (rcombo){&P_INT, &R_SUM, V_SMALL};
    /* the same block and element size as MPI_INT right after it: a plan
     * reused must combine as this call's type says */
    combos[c++] = (rcombo){&P_FLOAT, &R_SUM, V_SMALL};
    combos[c++] = (rcombo){&P_DOUBLE, &R_SUM, V_SMALL};
    combos[c++] = (rcombo){&P_CONTIG4, &R_MAT, V_MOD};
    combos[c++] = (rcombo){&P_INT, &R_MAX, V_SMALL};
    /* the same bits as unsigned: the negative ones are now the largest */
    combos[c++] = (rcombo){&P_UNSIGNED, &R_MAX, V_SMALL};
    combos[c++] = (rcombo){&P_DOUBLE, &R_MAX, V_SMALL};
    combos[c++] = (rcombo){&P_INT, &R_UCOMM, V_MOD};
    combos[c++] = (rcombo){&P_INT, &R_MIN, V_SMALL};
    combos[c++] = (rcombo){&P_DOUBLE, &R_MIN, V_SMALL};
    combos[c++] = (rcombo){&P_INT, &R_PROD, V_PROD};
    combos[c++] = (rcombo){&P_DOUBLE, &R_PROD, V_PROD};
    combos[c++] = (rcombo){&P_BYTE, &R_BXOR, V_BYTES};
    combos[c++] = (rcombo){&P_GAPVEC, &R_UCOMM, V_MOD};        /* not dense: fallback */
    combos[c++] = (rcombo){&P_DOUBLE_INT, &R_MAXLOC, V_SMALL}; /* not dense: fallback */
    ncombos = c;
}

static void types_free(void)
{
    MPI_Op_free(&R_UCOMM.op);
    MPI_Op_free(&R_MAT.op);
    MPI_Type_free(&t_contig4);
    MPI_Type_free(&t_gapvec);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

#define GUARD 16 /* bytes after every buffer, compared too: writes past the end */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h(int who, int salt, size_t i)
{
    return mix((uint64_t)who * 0x100000001b3ull ^ ((uint64_t)(unsigned)salt << 40) ^ i);
}

static int value(int vals, uint64_t x)
{
    static const int prod[6] = {-3, -2, -1, 1, 2, 3};
    switch (vals) {
    case V_PROD:
        return prod[x % 6];
    case V_MOD:
        return (int)(x % PRIME);
    default:
        return (int)(x % 101) - 50;
    }
}

/* Fill bytes of b: reduction inputs of kind elem with values vals, or
 * (vals V_BYTES) any bytes. */
static void fill(unsigned char *b, size_t bytes, int elem, int vals, int who, int salt)
{
    size_t i = 0;
    if (vals != V_BYTES && elem == E_INT) {
        for (; i + 4 <= bytes; i += 4) {
            int v = value(vals, h(who, salt, i));
            memcpy(b + i, &v, 4);
        }
    } else if (vals != V_BYTES && elem == E_FLOAT) {
        for (; i + 4 <= bytes; i += 4) {
            float v = (float)value(vals, h(who, salt, i));
            memcpy(b + i, &v, 4);
        }
    } else if (vals != V_BYTES && elem == E_DOUBLE) {
        for (; i + 8 <= bytes; i += 8) {
            double v = value(vals, h(who, salt, i));
            memcpy(b + i, &v, 8);
        }
    } else if (vals != V_BYTES && elem == E_DOUBLE_INT) {
        for (; i + 16 <= bytes; i += 16) {
            double v = (int)(h(who, salt, i) % 11) - 5; /* ties: MAXLOC takes the lower index */
            int loc = who * 1000 + (int)(i / 16);
            memcpy(b + i, &v, 8);
            memcpy(b + i + 8, &loc, 4);
            for (int k = 12; k < 16; k++)
                b[i + k] = (unsigned char)h(who, salt + 7, i + k);
        }
    }
    for (; i < bytes; i++)
        b[i] = (unsigned char)(h(who, salt, i) >> 24);
}

static unsigned char *dup_buf(const unsigned char *b, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    if (!c) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memcpy(c, b, n);
    return c;
}

static size_t span(long n, const ptype *t)
{
    return (size_t)n * (size_t)t->ext + GUARD;
}

static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long)i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Communicators and what the registry says of them                    */
/* ------------------------------------------------------------------ */

typedef struct cinfo {
    MPI_Comm comm;
    const char *name;
    char spec[64]; /* the topology it must map to, canonical */
    xchg_topo topo;
} cinfo;

static cinfo comms[6];
static int ncomms;

static void cinfo_set(cinfo *c, MPI_Comm comm, const char *name, const char *spec)
{
    xchg_err err;
    c->comm = comm;
    c->name = name;
    if (xchg_topo_parse(spec, &c->topo, &err)) {
        fprintf(stderr, "rank %d: topology %s: %s\n", rank, spec, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    xchg_topo_spec(&c->topo, c->spec, sizeof c->spec);
}

/* MPI_COMM_WORLD (complete:p) and Cartesian communicators (ranks kept) laid
 * out as ring:p, array:p and, where p = R x C with R, C >= 2, torus:RxC
 * and mesh:RxC (a dimension of one node is dropped, as the executor
 * does). */
static void comms_init(void)
{
    char spec[64];
    ncomms = 0;
    snprintf(spec, sizeof spec, "complete:%d", nranks);
    cinfo_set(&comms[ncomms++], MPI_COMM_WORLD, "MPI_COMM_WORLD", spec);
    /* the world's ranks in reverse: a rank of the communicator is not its
     * rank in MPI_COMM_WORLD */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - 1 - rank, &rev);
    cinfo_set(&comms[ncomms++], rev, "MPI_COMM_WORLD reversed (MPI_Comm_split)", spec);
    int dims1[1] = {nranks}, per1[1] = {1}, per0[1] = {0};
    MPI_Comm ring, array;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &ring);
    snprintf(spec, sizeof spec, nranks == 1 ? "ring:1" : "ring:%d", nranks);
    cinfo_set(&comms[ncomms++], ring, "Cartesian 1-D periodic", spec);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per0, 0, &array);
    snprintf(spec, sizeof spec, nranks == 1 ? "ring:1" : "array:%d", nranks);
    cinfo_set(&comms[ncomms++], array, "Cartesian 1-D non-periodic", spec);
    int a = 0;
    for (int f = 2; f * f <= nranks; f++)
        if (nranks % f == 0)
            a = f; /* the squarest R x C */
    if (a) {
        int dims[2] = {a, nranks / a}, pt[2] = {1, 1}, pm[2] = {0, 0};
        MPI_Comm torus, mesh;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, pt, 0, &torus);
        snprintf(spec, sizeof spec, "torus:%dx%d", dims[0], dims[1]);
        cinfo_set(&comms[ncomms++], torus, "Cartesian 2-D periodic", spec);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, pm, 0, &mesh);
        snprintf(spec, sizeof spec, "mesh:%dx%d", dims[0], dims[1]);
        cinfo_set(&comms[ncomms++], mesh, "Cartesian 2-D non-periodic", spec);
    }
}

static void comms_free(void)
{
    for (int i = 1; i < ncomms; i++)
        MPI_Comm_free(&comms[i].comm);
}

static int mod_p(long q)
{
    long m = q % nranks;
    return (int)(m < 0 ? m + nranks : m);
}

/* Whether registry algorithm `name` applies to t with this root or q
 * (q already reduced mod p). */
static int alg_applies(const char *name, const xchg_topo *t, int root, int q)
{
    const xchg_alg *a;
    xchg_opts o;
    if (xchg_alg_parse(name, &a, &o, NULL))
        return 0;
    o.root = (uint32_t)root;
    o.shift = (uint32_t)q;
    return xchg_alg_applies(a, t, &o, NULL) == 0;
}

/* Whether every rank's program of algorithm `name` on t keeps rank order
 * (xchg_op_program_order_ok on every rank), so that an operator that is
 * not commutative may run on it. -1 when it cannot be told. */
static int order_kept(const char *name, const xchg_topo *t, int root)
{
    const xchg_alg *a;
    xchg_opts o;
    xchg_sched *s = NULL;
    if (xchg_alg_parse(name, &a, &o, NULL))
        return -1;
    o.root = (uint32_t)root;
    if (xchg_alg_generate(a, t, &o, &s, NULL))
        return -1;
    int ok = 1;
    for (uint32_t r = 0; r < t->nodes && ok == 1; r++) {
        xchg_op_program *prog = NULL;
        if (xchg_op_program_new(s, r, &prog, NULL)) {
            ok = -1;
            break;
        }
        ok = xchg_op_program_order_ok(prog) ? 1 : 0;
        xchg_op_program_free(prog);
    }
    xchg_sched_free(s);
    return ok;
}

/* The registry's algorithms of operation k. */
static int algs_of(int k, const char **names, int max)
{
    int n = 0;
    for (size_t i = 0; i < xchg_alg_count() && n < max; i++)
        if (xchg_alg_at(i)->op == kop[k])
            names[n++] = xchg_alg_at(i)->name;
    return n;
}

/* What opts.alg asks of operation k: 0 auto, 1 the algorithm in *forced,
 * 2 the MPI library. */
enum { WANT_AUTO, WANT_FORCED, WANT_MPI };
static int wanted(int k, const char *alg, char *forced, size_t len)
{
    forced[0] = 0;
    if (!alg) /* opts NULL: the environment's */
        alg = getenv("XCHG_ALG");
    if (!alg || !alg[0] || !strcmp(alg, "auto"))
        return WANT_AUTO;
    if (!strcmp(alg, "mpi"))
        return WANT_MPI;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", alg);
    for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
        char *colon = strchr(w, ':');
        if (colon)
            *colon = 0;
        const xchg_alg *a = xchg_alg_find(w);
        if (a && a->op == kop[k]) {
            snprintf(forced, len, "%s", w);
            return WANT_FORCED;
        }
    }
    return WANT_AUTO;
}

/* ------------------------------------------------------------------ */
/* One case                                                            */
/* ------------------------------------------------------------------ */

typedef struct tcase {
    int kind;
    const char *alg;       /* opts.alg; NULL: opts NULL */
    const cinfo *c;
    int root;              /* rooted operations */
    long q;                /* shift (any integer) */
    long count;            /* elements (of the receive type, times its rm) */
    const tpair *ty;       /* data operations */
    const rcombo *rc;      /* reductions */
    int in_place;          /* MPI_IN_PLACE where the operation allows it */
    int null_nonroot;      /* NULL where the non-roots' buffer is not significant */
    int salt;              /* varies the data */
    int corrupt;           /* self-check: spoil xchg's result on one rank */
} tcase;

static void describe(const tcase *t, char *buf, size_t len)
{
    const ptype *ty = t->rc ? t->rc->t : t->ty->r;
    char where[64] = "";
    if (is_rooted(t->kind))
        snprintf(where, sizeof where, " root %d", t->root);
    else if (t->kind == K_SHIFT)
        snprintf(where, sizeof where, " q %ld", t->q);
    char counts[64];
    if (!t->rc && two_types(t->kind) && (t->ty->sm != 1 || t->ty->rm != 1))
        snprintf(counts, sizeof counts, "sendcount %ld recvcount %ld", t->count * t->ty->sm,
                 t->count * t->ty->rm);
    else if (!t->rc && t->ty->rm != 1)
        snprintf(counts, sizeof counts, "count %ld", t->count * t->ty->rm);
    else
        snprintf(counts, sizeof counts, "count %ld", t->count);
    snprintf(buf, len, "%s alg %s on %s (%s) p %d%s %s type %s%s%s%s%s%s", kname[t->kind],
             t->alg ? t->alg : "(opts NULL)", t->c->name, t->c->spec, nranks, where, counts,
             t->rc ? ty->name : t->ty->name, t->rc ? " op " : "", t->rc ? t->rc->op->name : "",
             t->in_place ? " MPI_IN_PLACE" : "", t->null_nonroot ? " NULL at non-roots" : "",
             t->salt ? " (again, new data)" : "");
}

/* Checks of one case: a bit each, agreed over all ranks. */
enum { C_RC, C_RESULT, C_SEND, C_COUNTS, C_ALG, C_TOPO, C_LIB, C_NBITS };
static const char *const cname_[C_NBITS] = {
    "returns MPI_SUCCESS", "result equals the MPI library's", "send buffer untouched",
    "xchg_mpi_op_call_counts grows by one call, as the info says",
    "xchg_mpi_last_info names the algorithm expected",
    "xchg_mpi_last_info names the communicator's topology",
    "the MPI library agrees with the point-to-point reference"};

/* Record the case's checks: bits set in fail (this rank) are agreed with
 * the other ranks; each check counts once. Returns the agreed failures. */
static int conclude(const tcase *t, unsigned checked, unsigned fail, char detail[C_NBITS][700])
{
    /* per check: the lowest rank where it failed (p: none) */
    int mine[C_NBITS], agreed[C_NBITS];
    for (int b = 0; b < C_NBITS; b++)
        mine[b] = (fail & (1u << b)) ? rank : nranks;
    PMPI_Allreduce(mine, agreed, C_NBITS, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    unsigned all = 0;
    for (int b = 0; b < C_NBITS; b++)
        if (agreed[b] < nranks)
            all |= 1u << b;
    if (selfcheck)
        return (int)all;
    for (int b = 0; b < C_NBITS; b++) {
        if (!(checked & (1u << b)))
            continue;
        checks++;
        if (!(all & (1u << b)))
            continue;
        failures++;
        /* the lowest failing rank says it; a failed result, every rank */
        if ((fail & (1u << b)) && (agreed[b] == rank || b == C_RESULT)) {
            if (printed++ < MAX_PRINTED) {
                char d[700];
                describe(t, d, sizeof d);
                fprintf(stderr, "FAIL (world rank %d%s): %s: %s: %s\n", rank,
                        b == C_RESULT ? "" : ", the lowest where it failed", d, cname_[b],
                        detail[b]);
            }
        }
    }
    cases++;
    return (int)all;
}

/* The reference for allgather, gather and scatter with point-to-point
 * messages, for send and receive types that differ (the MPI library's own
 * collectives are held to it too). */
static void p2p_ref(const tcase *t, const void *sb, long sc, void *rb, long rcnt, MPI_Comm comm)
{
    const ptype *S = t->ty->s, *R = t->ty->r;
    int r, p = nranks, root = t->root;
    MPI_Comm_rank(comm, &r);
    size_t rblk = (size_t)rcnt * (size_t)R->ext, sblk = (size_t)sc * (size_t)S->ext;
    unsigned char *recv = rb;
    const unsigned char *send = sb;
    if (t->kind == K_ALLGATHER) {
        for (int k = 0; k < p; k++) {
            int to = (r + k) % p, from = (r - k + p) % p;
            if (sb == MPI_IN_PLACE) { /* my block sits in the receive buffer */
                if (k)
                    PMPI_Sendrecv(recv + (size_t)r * rblk, (int)rcnt, R->t, to, 91,
                                  recv + (size_t)from * rblk, (int)rcnt, R->t, from, 91, comm,
                                  MPI_STATUS_IGNORE);
            } else
                PMPI_Sendrecv(send, (int)sc, S->t, to, 91, recv + (size_t)from * rblk,
                              (int)rcnt, R->t, from, 91, comm, MPI_STATUS_IGNORE);
        }
    } else if (t->kind == K_GATHER) {
        if (r == root) {
            for (int src = 0; src < p; src++) {
                if (src == r) {
                    if (sb != MPI_IN_PLACE)
                        PMPI_Sendrecv(send, (int)sc, S->t, r, 92, recv + (size_t)r * rblk,
                                      (int)rcnt, R->t, r, 92, comm, MPI_STATUS_IGNORE);
                } else {
                    PMPI_Recv(recv + (size_t)src * rblk, (int)rcnt, R->t, src, 92, comm,
                              MPI_STATUS_IGNORE);
                }
            }
        } else {
            PMPI_Send(send, (int)sc, S->t, root, 92, comm);
        }
    } else { /* scatter */
        if (r == root) {
            for (int dst = 0; dst < p; dst++) {
                if (dst == r) {
                    if (rb != MPI_IN_PLACE)
                        PMPI_Sendrecv(send + (size_t)r * sblk, (int)sc, S->t, r, 93, recv,
                                      (int)rcnt, R->t, r, 93, comm, MPI_STATUS_IGNORE);
                } else {
                    PMPI_Send(send + (size_t)dst * sblk, (int)sc, S->t, dst, 93, comm);
                }
            }
        } else {
            PMPI_Recv(recv, (int)rcnt, R->t, root, 93, comm, MPI_STATUS_IGNORE);
        }
    }
}

/* The expected algorithm of a case whose call moved data (count > 0):
 * sets *want_fb (1: the MPI library; 0: xchg; -1: either) and name (the
 * forced algorithm when xchg must run it, else ""). For auto, *auto_ok
 * tells whether the algorithm it reports is fine. */
static void expectation(const tcase *t, int *want_fb, char *name, size_t len)
{
    char forced[64];
    int w = wanted(t->kind, t->alg, forced, sizeof forced);
    int qm = t->kind == K_SHIFT ? mod_p(t->q) : 0;
    name[0] = 0;
    *want_fb = -1;
    if (w == WANT_MPI) {
        *want_fb = 1;
        return;
    }
    if (t->rc && !t->rc->t->dense) { /* documented: not dense goes to the MPI library */
        *want_fb = 1;
        return;
    }
    if (w == WANT_AUTO)
        return;
    if (t->kind == K_SHIFT && qm == 0)
        return; /* a shift by a multiple of p moves nothing: either is fine */
    if (!alg_applies(forced, &t->c->topo, t->root, qm)) {
        *want_fb = 1;
        return;
    }
    if (t->rc && !t->rc->op->commute && order_kept(forced, &t->c->topo, t->root) != 1) {
        *want_fb = 1;
        return;
    }
    *want_fb = 0;
    snprintf(name, len, "%s", forced);
}

/* Whether auto's choice `got` (not a fallback) is an algorithm of the
 * case's operation that applies to its topology (and keeps rank order for
 * an operator that is not commutative). */
static int auto_choice_ok(const tcase *t, const char *got)
{
    char nm[XCHG_SPEC_MAX];
    snprintf(nm, sizeof nm, "%s", got);
    char *colon = strchr(nm, ':');
    if (colon)
        *colon = 0;
    const xchg_alg *a = xchg_alg_find(nm);
    if (!a || a->op != kop[t->kind])
        return 0;
    int qm = t->kind == K_SHIFT ? mod_p(t->q) : 0;
    if (!(t->kind == K_SHIFT && qm == 0) && !alg_applies(nm, &t->c->topo, t->root, qm))
        return 0;
    if (t->rc && !t->rc->op->commute && order_kept(nm, &t->c->topo, t->root) != 1)
        return 0;
    return 1;
}

/* Same name before any ':' options. */
static int same_alg(const char *got, const char *want)
{
    size_t n = strlen(want);
    return !strncmp(got, want, n) && (got[n] == 0 || got[n] == ':');
}

/*
 * Run one case through xchg and through the MPI library on the same inputs
 * and check everything. Returns the agreed failure bits (0: all well).
 */
static int run_case(const tcase *t)
{
    const int k = t->kind, p = nranks;
    int r; /* the rank in the case's communicator (not always the world's) */
    MPI_Comm_rank(t->c->comm, &r);
    if (trace && rank == 0) {
        char d[700];
        describe(t, d, sizeof d);
        fprintf(stderr, "case: %s\n", d);
    }
    const int red = t->rc != NULL;
    const ptype *S = red ? t->rc->t : t->ty->s, *R = red ? t->rc->t : t->ty->r;
    const int vals = red ? t->rc->vals : V_BYTES;
    long n = t->count;              /* elements of a single-type call */
    long sc = n, rcnt = n;          /* two-type calls: send and receive counts */
    if (!red) {
        sc = n * t->ty->sm;
        rcnt = n * t->ty->rm;
        if (!two_types(k)) {
            S = R;
            n = sc = rcnt;
        }
    }
    const int root = t->root, is_root = r == root;
    const int qm = mod_p(t->q);
    /* in place here, NULL here */
    int ip = 0, nul = 0;
    switch (k) {
    case K_REDUCE:
    case K_GATHER:
    case K_SCATTER:
        ip = t->in_place && is_root;
        nul = t->null_nonroot && !is_root;
        break;
    case K_ALLREDUCE:
    case K_RSB:
    case K_SCAN:
    case K_ALLGATHER:
    case K_SHIFT:
        ip = t->in_place;
        break;
    default:
        break;
    }
    size_t sbytes = 0, rbytes = 0;
    switch (k) {
    case K_BCAST:
        rbytes = span(n, R);
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_SHIFT:
        sbytes = span(n, S);
        rbytes = span(n, R);
        break;
    case K_RSB:
        sbytes = span((long)p * n, S);
        rbytes = span(ip ? (long)p * n : n, R);
        break;
    case K_ALLGATHER:
    case K_GATHER:
        sbytes = span(sc, S);
        rbytes = span((long)p * rcnt, R);
        break;
    case K_SCATTER:
        sbytes = span((long)p * sc, S);
        rbytes = span(rcnt, R);
        break;
    }
    /* inputs: the receive buffer holds input too (in place, bcast's root) */
    unsigned char *s0 = malloc(sbytes ? sbytes : 1), *r0 = malloc(rbytes);
    fill(s0, sbytes, S->elem, vals, r, 1000 * t->salt + 1);
    fill(r0, rbytes, R->elem, vals, r, 1000 * t->salt + 2);
    unsigned char *s1 = dup_buf(s0, sbytes), *r1 = dup_buf(r0, rbytes);
    unsigned char *s2 = dup_buf(s0, sbytes), *r2 = dup_buf(r0, rbytes);

    /* the pointers each side passes */
    const void *xs = s1, *ms = s2;
    void *xr = r1, *mr = r2;
    if (ip && k == K_SCATTER)
        xr = mr = MPI_IN_PLACE;
    else if (ip)
        xs = ms = MPI_IN_PLACE;
    if (nul && k == K_SCATTER)
        xs = ms = NULL;
    else if (nul)
        xr = mr = NULL;

    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = t->alg;
    const xchg_mpi_opts *op = t->alg ? &o : NULL;
    MPI_Comm comm = t->c->comm;
    MPI_Op mop = red ? t->rc->op->op : MPI_OP_NULL;
    uint64_t c0, p0, c1, p1;
    xchg_mpi_op_call_counts(&c0, &p0);
    int rc = MPI_ERR_OTHER;
    switch (k) {
    case K_BCAST:
        rc = xchg_mpi_bcast(r1, n, R->t, root, comm, op);
        break;
    case K_REDUCE:
        rc = xchg_mpi_reduce(xs, xr, n, R->t, mop, root, comm, op);
        break;
    case K_ALLREDUCE:
        rc = xchg_mpi_allreduce(xs, xr, n, R->t, mop, comm, op);
        break;
    case K_RSB:
        rc = xchg_mpi_reduce_scatter_block(xs, xr, n, R->t, mop, comm, op);
        break;
    case K_SCAN:
        rc = xchg_mpi_scan(xs, xr, n, R->t, mop, comm, op);
        break;
    case K_ALLGATHER:
        rc = xchg_mpi_allgather(xs, sc, S->t, xr, rcnt, R->t, comm, op);
        break;
    case K_GATHER:
        rc = xchg_mpi_gather(xs, sc, S->t, xr, rcnt, R->t, root, comm, op);
        break;
    case K_SCATTER:
        rc = xchg_mpi_scatter(xs, sc, S->t, xr, rcnt, R->t, root, comm, op);
        break;
    case K_SHIFT:
        rc = xchg_mpi_shift(xs, xr, n, R->t, (int)t->q, comm, op);
        break;
    }
    xchg_mpi_op_call_counts(&c1, &p1);
    xchg_mpi_plan_info info;
    memset(&info, 0, sizeof info);
    int irc = xchg_mpi_last_info(&info);

    /* the MPI library's own call */
    unsigned char *p2p = NULL;
    switch (k) {
    case K_BCAST:
        PMPI_Bcast(r2, (int)n, R->t, root, comm);
        break;
    case K_REDUCE:
        PMPI_Reduce(ms, mr, (int)n, R->t, mop, root, comm);
        break;
    case K_ALLREDUCE:
        PMPI_Allreduce(ms, mr, (int)n, R->t, mop, comm);
        break;
    case K_RSB:
        PMPI_Reduce_scatter_block(ms, mr, (int)n, R->t, mop, comm);
        break;
    case K_SCAN:
        PMPI_Scan(ms, mr, (int)n, R->t, mop, comm);
        break;
    case K_ALLGATHER:
    case K_GATHER:
    case K_SCATTER: {
        if (S != R) { /* and the point-to-point reference */
            unsigned char *s3 = dup_buf(s0, sbytes);
            p2p = dup_buf(r0, rbytes);
            const void *ps = ms == MPI_IN_PLACE ? MPI_IN_PLACE : ms ? (const void *)s3 : NULL;
            void *pr = mr == MPI_IN_PLACE ? MPI_IN_PLACE : mr ? (void *)p2p : NULL;
            p2p_ref(t, ps, sc, pr, rcnt, comm);
            free(s3);
        }
        if (k == K_ALLGATHER)
            PMPI_Allgather(ms, (int)sc, S->t, mr, (int)rcnt, R->t, comm);
        else if (k == K_GATHER)
            PMPI_Gather(ms, (int)sc, S->t, mr, (int)rcnt, R->t, root, comm);
        else
            PMPI_Scatter(ms, (int)sc, S->t, mr, (int)rcnt, R->t, root, comm);
        break;
    }
    case K_SHIFT: {
        int to = (r + qm) % p, from = (r - qm + p) % p;
        if (ip)
            PMPI_Sendrecv_replace(r2, (int)n, R->t, to, 94, from, 94, comm, MPI_STATUS_IGNORE);
        else
            PMPI_Sendrecv(s2, (int)n, R->t, to, 94, r2, (int)n, R->t, from, 94, comm,
                          MPI_STATUS_IGNORE);
        break;
    }
    }

    /* what is compared here: the receive buffer where it is significant */
    size_t cmp = rbytes;
    if ((k == K_REDUCE || k == K_GATHER) && !is_root)
        cmp = 0;
    if (k == K_RSB && ip) /* in place: the first block is the result */
        cmp = (size_t)n * (size_t)R->ext;
    if (k == K_SCATTER && ip)
        cmp = 0;
    if (t->corrupt && cmp && r == (is_rooted(k) && k != K_BCAST && k != K_SCATTER ? root : p - 1))
        r1[0] ^= 0x40;

    unsigned checked = 0, fail = 0;
    char detail[C_NBITS][700];
    memset(detail, 0, sizeof detail);
#define CHECK(bit, ok, ...)                                                    \
    do {                                                                       \
        checked |= 1u << (bit);                                                \
        if (!(ok)) {                                                           \
            fail |= 1u << (bit);                                               \
            snprintf(detail[bit], sizeof detail[bit], __VA_ARGS__);            \
        }                                                                      \
    } while (0)

    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(C_RC, rc == MPI_SUCCESS, "got error class %d", cls);
    if (p2p) {
        long d = first_diff(p2p, r2, cmp);
        CHECK(C_LIB, d < 0, "byte %ld of %zu: point-to-point %02x, MPI %02x", d, cmp,
              d >= 0 ? p2p[d] : 0, d >= 0 ? r2[d] : 0);
        memcpy(r2, p2p, rbytes); /* the point-to-point result is the reference */
    }
    long d = first_diff(r1, r2, cmp);
    CHECK(C_RESULT, d < 0, "byte %ld of %zu (GUARD %d after the data): xchg %02x, MPI %02x", d,
          cmp, GUARD, d >= 0 ? r1[d] : 0, d >= 0 ? r2[d] : 0);
    if (k == K_SCATTER && ip) { /* the root's send buffer holds its block */
        d = first_diff(s1, s0, sbytes);
        CHECK(C_SEND, d < 0, "in-place root's send buffer changed at byte %ld", d);
    } else if (k != K_BCAST && xs != MPI_IN_PLACE && xs != NULL) {
        d = first_diff(s1, s0, sbytes);
        CHECK(C_SEND, d < 0, "changed at byte %ld of %zu", d, sbytes);
    }
    uint64_t dc = c1 - c0, dp = p1 - p0;
    if (irc != MPI_SUCCESS) {
        CHECK(C_ALG, 0, "xchg_mpi_last_info returned %d", irc);
    } else {
        if (info.fallback)
            ran_mpi++;
        else if (!strcmp(info.alg, "none"))
            ran_none++;
        else
            ran_xchg++;
        if (!info.fallback && t->rc && !t->rc->op->commute && strcmp(info.alg, "none"))
            ran_noncomm++;
        /* a call that moves nothing (count 0, a shift by a multiple of p)
         * may be done on the spot (the executor says alg "none") or by the
         * MPI library; asked for "mpi", every call goes to the MPI library */
        int moved = n > 0 && !(k == K_SHIFT && qm == 0);
        char forced[64];
        int w = wanted(k, t->alg, forced, sizeof forced);
        CHECK(C_COUNTS, dc + dp == 1 && (info.fallback ? dp == 1 : dc == 1),
              "carried +%llu, passed +%llu, info fallback %d (%s)", (unsigned long long)dc,
              (unsigned long long)dp, info.fallback, info.alg);
        if (!moved && w == WANT_MPI)
            CHECK(C_ALG, info.fallback && !strcmp(info.alg, "mpi"),
                  "alg \"mpi\" sends every call to the MPI library, but this one ran %s "
                  "(fallback %d): %.200s", info.alg, info.fallback, info.why);
        if (moved) {
            int want_fb;
            char want[64];
            expectation(t, &want_fb, want, sizeof want);
            if (want_fb == 1)
                CHECK(C_ALG, info.fallback && !strcmp(info.alg, "mpi"),
                      "expected the MPI library's call, ran %s (fallback %d): %.200s", info.alg,
                      info.fallback, info.why);
            else if (want_fb == 0)
                CHECK(C_ALG, !info.fallback && same_alg(info.alg, want),
                      "expected %s (it applies to %s), ran %s (fallback %d): %.200s", want,
                      t->c->spec, info.alg, info.fallback, info.why);
            else if (!info.fallback)
                CHECK(C_ALG, auto_choice_ok(t, info.alg),
                      "ran %s, not an algorithm of %s that applies to %s%s", info.alg,
                      kname[k], t->c->spec,
                      t->rc && !t->rc->op->commute ? " keeping rank order" : "");
            else
                CHECK(C_ALG, !strcmp(info.alg, "mpi") && info.why[0],
                      "a fallback names alg mpi and says why: %s / %.200s", info.alg, info.why);
            if (!info.fallback)
                CHECK(C_TOPO, !strcmp(info.topology, t->c->spec), "mapped to %s, expected %s",
                      info.topology, t->c->spec);
        }
    }
#undef CHECK
    int all = conclude(t, checked, fail, detail);
    free(s0);
    free(r0);
    free(s1);
    free(r1);
    free(s2);
    free(r2);
    free(p2p);
    return all;
}

/* ------------------------------------------------------------------ */
/* The matrix                                                          */
/* ------------------------------------------------------------------ */

static int in_place_allowed(int k)
{
    return k != K_BCAST;
}

/* The roots (or shifts) an operation runs with. */
static int params_of(int k, long *out)
{
    int n = 0;
    if (is_rooted(k)) {
        if (nranks <= 5) {
            for (int r = 0; r < nranks; r++)
                out[n++] = r;
        } else {
            long c[4] = {0, 1, nranks / 2, nranks - 1};
            for (int i = 0; i < 4; i++)
                out[n++] = c[i];
        }
    } else if (k == K_SHIFT) {
        long c[8] = {1, -1, 0, 2, nranks, nranks + 1, -(nranks + 1), 3L * nranks - 1};
        for (int i = 0; i < 8; i++)
            out[n++] = c[i];
    } else {
        out[n++] = 0;
    }
    return n;
}

static void set_param(tcase *t, long v)
{
    if (is_rooted(t->kind))
        t->root = (int)v;
    else if (t->kind == K_SHIFT)
        t->q = v;
}

static int rot; /* turns the types, operators and in-place round */

static void set_variant(tcase *t, int v)
{
    if (is_reduction(t->kind)) {
        t->rc = &combos[v % ncombos];
        t->ty = NULL;
    } else {
        t->rc = NULL;
        t->ty = two_types(t->kind) ? &pair_types[v % npairs] : &single_types[v % nsingle];
    }
    int nv = is_reduction(t->kind) ? ncombos : two_types(t->kind) ? npairs : nsingle;
    t->in_place = in_place_allowed(t->kind) && (v / nv) % 2;
    t->null_nonroot = (t->kind == K_REDUCE || t->kind == K_GATHER || t->kind == K_SCATTER) &&
                      (v / nv) % 3 == 2;
}

/*
 * Operation k with opts.alg alg on communicator c. level 0: one case;
 * 1: three roots or shifts (every one at level 2), counts 0, 1, 7 and
 * 2p + 1, types, operators and in place turning round; 2: also every
 * type (operator) in place and not at counts 7 and 2p + 1 (at every root
 * up to p = 4, else the first two), once more with new data (the cached
 * plan), and 1 MiB once. --quick (ops.sh from p = 8): level 2 at one
 * root or shift with every type once (in place or not by turns); and
 * all_operations runs one case where it would run level 1 off
 * MPI_COMM_WORLD.
 */
static void op_matrix(int k, const char *alg, const cinfo *c, int level)
{
    tcase t;
    memset(&t, 0, sizeof t);
    t.kind = k;
    t.alg = alg;
    t.c = c;
    long params[16];
    int np = params_of(k, params);
    if (level == 0) {
        set_param(&t, params[np - 1]);
        t.count = 7;
        set_variant(&t, rot++);
        run_case(&t);
        return;
    }
    long counts[4] = {0, 1, 7, 2L * nranks + 1};
    for (int pi = 0; pi < np; pi++) {
        /* level 1: the first, one in the middle and the last */
        if (level == 1 && pi != 0 && pi != np / 2 && pi != np - 1)
            continue;
        set_param(&t, params[pi]);
        for (int ci = 0; ci < 4; ci++) {
            t.count = counts[ci];
            set_variant(&t, rot++);
            run_case(&t);
        }
        if (level < 2 || (nranks > 4 && pi >= 2) || (quick && pi >= 1))
            continue;
        int nv = is_reduction(k) ? ncombos : two_types(k) ? npairs : nsingle;
        for (int v = 0; v < 2 * nv; v++) {
            if ((!in_place_allowed(k) || quick) && v >= nv)
                break;
            /* two at 7 (below p from p = 8), two at 2p + 1, ...: neighbours
             * in the list (MPI_INT and MPI_FLOAT, MPI_INT and
             * MPI_UNSIGNED) share a block size, so a plan is reused */
            t.count = (v / 2) % 2 ? 2L * nranks + 1 : 7;
            set_variant(&t, v);
            if (quick) /* every type once, in place or not */
                t.in_place = in_place_allowed(k) && v % 2;
            t.null_nonroot = 0;
            run_case(&t);
            if (v == 0) { /* the cached plan again, new data */
                t.salt = 1;
                run_case(&t);
                t.salt = 0;
            }
        }
    }
    if (level == 2) { /* 1 MiB of data (a whole gathered buffer: 1 MiB) */
        set_param(&t, params[np - 1]);
        long total = 1L << 20;
        long per = (k == K_ALLGATHER || k == K_GATHER || k == K_SCATTER || k == K_RSB)
                       ? total / nranks
                       : total;
        if (is_reduction(k))
            t.rc = &combos[1]; /* MPI_DOUBLE, MPI_SUM */
        else
            t.ty = &single_types[2]; /* MPI_INT */
        t.count = per / (is_reduction(k) ? 8 : 4);
        t.in_place = 0;
        t.null_nonroot = 0;
        run_case(&t);
    }
}

static double now(void)
{
    return MPI_Wtime();
}

static void all_operations(void)
{
    for (int k = 0; k < K_N; k++) {
        double t0 = now();
        long c0 = cases, x0 = ran_xchg, n0 = ran_none, m0 = ran_mpi;
        const char *names[32];
        int na = algs_of(k, names, 32);
        /* opts NULL (the environment: nothing set) and explicit auto */
        op_matrix(k, NULL, &comms[0], 2);
        for (int ci = 0; ci < ncomms; ci++)
            op_matrix(k, "auto", &comms[ci], ci == 0 || !quick ? 1 : 0);
        /* every algorithm of the operation: the whole matrix on the first
         * communicator it applies to, the rotation on the others where it
         * applies, one case where it does not (it falls back) */
        for (int a = 0; a < na; a++) {
            int done = 0;
            for (int ci = 0; ci < ncomms; ci++) {
                int app = alg_applies(names[a], &comms[ci].topo, 0, 1 % nranks) ||
                          (k == K_SHIFT && nranks == 1);
                int level = !app ? 0 : !done ? 2 : quick ? 0 : 1;
                op_matrix(k, names[a], &comms[ci], level);
                done |= app;
            }
        }
        /* the MPI library, asked for */
        op_matrix(k, "mpi", &comms[0], 1);
        for (int ci = 1; ci < ncomms; ci++)
            op_matrix(k, "mpi", &comms[ci], 0);
        /* comma lists: one algorithm per operation, auto for the rest */
        static const char *const lists[] = {
            "bcast-hc,allreduce-split",
            "scatter-ring,gather-mesh,shift-ring,reduce-scatter-ring,scan-hc,allgather-ring,"
            "reduce-ring,bcast-split",
            "reduce-split,allgather-hc,gather-hc,scatter-mesh,shift-hc-ecube,allreduce-hc,"
            "reduce-scatter-hc,bcast-mesh"};
        for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
            for (int ci = 0; ci < ncomms; ci++)
                op_matrix(k, lists[l], &comms[ci], ci == 0 && !quick ? 1 : 0);
        if (rank == 0)
            printf("%-20s %5ld cases (%d algorithms): xchg ran %ld, nothing to move %ld, "
                   "the MPI library %ld; %.1f s\n", kname[k], cases - c0, na, ran_xchg - x0,
                   ran_none - n0, ran_mpi - m0, now() - t0);
        fflush(stdout);
    }
}

/* ------------------------------------------------------------------ */
/* Self-check, errors, intercommunicator                               */
/* ------------------------------------------------------------------ */

/* A result spoiled on one rank must be caught, by a check that is then
 * agreed over every rank; and a clean run of the same case passes. */
static void self_check(void)
{
    tcase t;
    memset(&t, 0, sizeof t);
    t.c = &comms[0];
    t.count = 7;
    t.alg = "auto";
    int kinds[3] = {K_BCAST, K_REDUCE, K_ALLGATHER};
    for (int i = 0; i < 3; i++) {
        t.kind = kinds[i];
        t.root = nranks - 1;
        set_variant(&t, 0);
        t.in_place = 0;
        t.null_nonroot = 0;
        selfcheck = 1;
        t.corrupt = 1;
        int spoiled = run_case(&t);
        selfcheck = 0;
        t.corrupt = 0;
        checks++;
        if (!(spoiled & (1u << C_RESULT))) {
            failures++;
            fprintf(stderr, "FAIL (rank %d): self-check: a spoiled %s result went unnoticed\n",
                    rank, kname[t.kind]);
        }
    }
}

/* One erroneous call: its error class must be want, and the buffers must
 * be untouched. */
static void error_case(const char *what, int k, int want, MPI_Comm comm, long count,
                       MPI_Datatype type, MPI_Op op, int root)
{
    enum { NB = 256 };
    unsigned char s0[NB], r0[NB], s[NB], rb[NB];
    fill(s0, NB, E_BYTES, V_BYTES, rank, 31);
    fill(r0, NB, E_BYTES, V_BYTES, rank, 32);
    memcpy(s, s0, NB);
    memcpy(rb, r0, NB);
    int rc = MPI_SUCCESS;
    switch (k) {
    case K_BCAST:
        rc = xchg_mpi_bcast(rb, count, type, root, comm, NULL);
        break;
    case K_REDUCE:
        rc = xchg_mpi_reduce(s, rb, count, type, op, root, comm, NULL);
        break;
    case K_ALLREDUCE:
        rc = xchg_mpi_allreduce(s, rb, count, type, op, comm, NULL);
        break;
    case K_RSB:
        rc = xchg_mpi_reduce_scatter_block(s, rb, count, type, op, comm, NULL);
        break;
    case K_SCAN:
        rc = xchg_mpi_scan(s, rb, count, type, op, comm, NULL);
        break;
    case K_ALLGATHER:
        rc = xchg_mpi_allgather(s, count, type, rb, count, type, comm, NULL);
        break;
    case K_GATHER: /* the send side is significant on every rank */
        rc = xchg_mpi_gather(s, count, type, rb, 1, MPI_BYTE, root, comm, NULL);
        break;
    case K_SCATTER: /* the receive side is significant on every rank */
        rc = xchg_mpi_scatter(s, 1, MPI_BYTE, rb, count, type, root, comm, NULL);
        break;
    case K_SHIFT:
        rc = xchg_mpi_shift(s, rb, count, type, 1, comm, NULL);
        break;
    }
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    int ok = rc != MPI_SUCCESS && cls == want, same = !memcmp(s, s0, NB) && !memcmp(rb, r0, NB);
    int fail = (!ok) | (!same) << 1, all = 0;
    PMPI_Allreduce(&fail, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    checks += 2;
    failures += (all & 1) + ((all >> 1) & 1);
    char ename[MPI_MAX_ERROR_STRING] = "", gname[MPI_MAX_ERROR_STRING] = "";
    int len;
    if ((fail & 1) && printed < MAX_PRINTED) {
        MPI_Error_string(want, ename, &len);
        if (rc != MPI_SUCCESS)
            MPI_Error_string(cls, gname, &len);
        fprintf(stderr, "FAIL (rank %d): xchg_mpi_%s, %s, p %d: expected error class %d (%s), "
                "got %s (class %d: %s)\n", rank, kname[k], what, nranks, want, ename,
                rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error", cls, gname);
        printed++;
    }
    if ((fail & 2) && printed < MAX_PRINTED) {
        fprintf(stderr, "FAIL (rank %d): xchg_mpi_%s, %s, p %d: a buffer changed\n", rank,
                kname[k], what, nranks);
        printed++;
    }
}

static void errors(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    /* a null communicator's error goes to MPI_COMM_WORLD's handler (MPI
     * 3.1 section 8.3; MPI 4's to MPI_COMM_SELF's): both return */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int k = 0; k < K_N; k++) {
        MPI_Op op = is_reduction(k) ? MPI_SUM : MPI_OP_NULL;
        error_case("count -1", k, MPI_ERR_COUNT, c, -1, MPI_INT, op, 0);
        error_case("MPI_DATATYPE_NULL", k, MPI_ERR_TYPE, c, 1, MPI_DATATYPE_NULL, op, 0);
        error_case("MPI_COMM_NULL", k, MPI_ERR_COMM, MPI_COMM_NULL, 1, MPI_INT, op, 0);
        if (is_rooted(k)) {
            error_case("root p", k, MPI_ERR_ROOT, c, 1, MPI_INT, op, nranks);
            error_case("root -7", k, MPI_ERR_ROOT, c, 1, MPI_INT, op, -7);
        }
        if (is_reduction(k))
            error_case("MPI_OP_NULL", k, MPI_ERR_OP, c, 1, MPI_INT, MPI_OP_NULL, 0);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&c);
}

/* An intercommunicator goes to the MPI library's own call, counted as
 * passed, with the MPI library's result. */
static void intercommunicator(void)
{
    if (nranks < 2)
        return;
    MPI_Comm half, inter;
    int color = rank % 2;
    PMPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    PMPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int s[3] = {rank, rank * 7, -rank}, a[3] = {0}, b[3] = {0};
    int *ga = calloc((size_t)remote * 3, sizeof(int));
    int *gb = calloc((size_t)remote * 3, sizeof(int));
    uint64_t c0, p0, c1, p1;
    xchg_mpi_op_call_counts(&c0, &p0);
    int rc1 = xchg_mpi_allreduce(s, a, 3, MPI_INT, MPI_SUM, inter, NULL);
    int rc2 = xchg_mpi_allgather(s, 3, MPI_INT, ga, 3, MPI_INT, inter, NULL);
    xchg_mpi_op_call_counts(&c1, &p1);
    PMPI_Allreduce(s, b, 3, MPI_INT, MPI_SUM, inter);
    PMPI_Allgather(s, 3, MPI_INT, gb, 3, MPI_INT, inter);
    int ok = rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && !memcmp(a, b, sizeof a) &&
             !memcmp(ga, gb, sizeof(int) * 3 * (size_t)remote) && p1 == p0 + 2 && c1 == c0;
    int all = 0, bad = !ok;
    PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    checks++;
    failures += all;
    if (bad && printed++ < MAX_PRINTED)
        fprintf(stderr, "FAIL (rank %d): allreduce and allgather over an intercommunicator, "
                "p %d: rc %d %d, passed +%llu carried +%llu, results %s\n", rank, nranks, rc1,
                rc2, (unsigned long long)(p1 - p0), (unsigned long long)(c1 - c0),
                memcmp(a, b, sizeof a) ? "differ" : "same");
    free(ga);
    free(gb);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--trace"))
            trace = 1;
        else if (!strcmp(argv[i], "--max-print") && i + 1 < argc)
            MAX_PRINTED = atol(argv[++i]);
    double t0 = now();
    if (rank == 0 && getenv("XCHG_ALG"))
        fprintf(stderr, "note: XCHG_ALG=%s is set: the opts-NULL cases run it\n",
                getenv("XCHG_ALG"));
    types_init();
    comms_init();
    self_check();
    all_operations();
    errors();
    intercommunicator();
    comms_free();
    types_free();
    long all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (printed > MAX_PRINTED)
        fprintf(stderr, "rank %d: %ld more failure lines not shown\n", rank, printed - MAX_PRINTED);
    if (rank == 0)
        printf("reductions with the operator that is not commutative carried by xchg: %ld\n",
               ran_noncomm);
    if (rank == 0)
        printf("test_mpi_ops p %d: %ld checks in %ld cases, %ld failed (%.1f s)\n", nranks,
               checks, cases, all, now() - t0);
    MPI_Finalize();
    return all ? 1 : 0;
}
