/*
 * test_mpi_memo.c - the short way to the MPI library of the exchange and
 * the other operations (src/mpi/memo.c): a call whose very arguments
 * the cached plan passed
 * to the MPI library last time goes there at once, its checks skipped; and
 * nothing it relied on may have changed. Run on 4 ranks (CMake's mpi_memo).
 *
 * The checks' MPI queries are seen by defining MPI_Comm_get_attr here: the
 * executor's cache lookup calls it, and this definition counts the calls
 * and hands them to PMPI_Comm_get_attr. A call that took the short way
 * makes none.
 *
 * On a communicator of ranks 0..2 (3 ranks: no hypercube algorithm applies,
 * so "<op>-hc", and hc-standard for the exchange, fall back to the MPI
 * library) each operation is called twice with the same arguments and new
 * data:
 *  - both results equal the MPI library's (PMPI_) call on the same inputs;
 *  - both are counted as passed (xchg_mpi_call_counts for the exchange,
 *    xchg_mpi_op_call_counts for the others), and xchg_mpi_last_info says
 *    "mpi" (checked for the other operations);
 *  - the second makes no MPI_Comm_get_attr call.
 * Then the cases that must not take it (each makes the lookup again, and
 * its result is checked):
 *  - a derived datatype (its handle may be freed and reused for another);
 *  - a user-defined operator (likewise);
 *  - other arguments (another count, another root, MPI_IN_PLACE);
 *  - after the plan was evicted from the cache by 16 plans of another
 *    operation (under AddressSanitizer a stale plan would be a use after
 *    free);
 *  - after the communicator was freed: a new communicator of all 4 ranks
 *    (perhaps with the freed one's handle: MPICH reuses handles; the
 *    program says which) must run bcast-hc, which applies there, not the
 *    MPI library; then allgather-hc and bcast-hc again there, each call's
 *    last info naming its own plan.
 * MPI_Alltoallv and MPI_Alltoallw on communicators of 2 ranks (auto
 * passes them to the library there): the second call, with other counts,
 * takes the short way too; both as the library's, counted as passed,
 * with last info "mpi"; one buffer both ways still gives MPI_ERR_BUFFER
 * after a remembered call; and a call on 4 ranks (carried) looks up.
 * And the memo's own cases:
 *  - a shift by -1 takes the short way to its own peers, and one by 4
 *    (the same shift on 3 ranks, another q) is looked up again;
 *  - options NULL (the environment's, XCHG_ALG set here) take it too;
 *  - two remembered calls of two operations alternating, each a hit: the
 *    last info follows them.
 * Run with the argument "multiple" (CMake's mpi_memo_multiple) it asks
 * for MPI_THREAD_MULTIPLE. Where the library gives it, the memo is off:
 * every call looks its plan up, and two threads calling at once (a
 * carried broadcast on one communicator, a passed-on shift on another)
 * get right results and each its own last info. Where the library gives
 * less, the memo is on, as without the argument.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"
#include "xchg_mpi.h"

static long attr_calls, failures, checks;
static int wrank;
static int memo_on = 1; /* 0 under MPI_THREAD_MULTIPLE */
static int shift_q = 1; /* the shift's q */

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    attr_calls++;
    return PMPI_Comm_get_attr(comm, keyval, value, flag);
}

/* Every rank agrees on ok (a failure anywhere fails the check everywhere). */
static void check(int ok, const char *what)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    checks++;
    if (!all) {
        failures++;
        if (wrank == 0)
            printf("FAIL %s\n", what);
    }
}

enum { N_MAX = 64 * 4 };

/* One call of operation k: xchg's (mine nonzero) or the MPI library's. The
 * shift is by 1; reductions use op; rooted operations root. */
static int call(xchg_op_kind k, int mine, const int *in, int *out, int n, MPI_Datatype t, MPI_Op op,
                int root, MPI_Comm c, const xchg_mpi_opts *o)
{
    int p, r;
    MPI_Comm_size(c, &p);
    MPI_Comm_rank(c, &r);
    switch (k) {
    case XCHG_OP_ALLTOALL:
        return mine ? xchg_mpi_alltoall(in, n, t, out, n, t, c, o)
                    : PMPI_Alltoall(in, n, t, out, n, t, c);
    case XCHG_OP_BCAST:
        if (r == root)
            memcpy(out, in, (size_t)n * sizeof *out);
        return mine ? xchg_mpi_bcast(out, n, t, root, c, o) : PMPI_Bcast(out, n, t, root, c);
    case XCHG_OP_REDUCE:
        return mine ? xchg_mpi_reduce(in, out, n, t, op, root, c, o)
                    : PMPI_Reduce(in, out, n, t, op, root, c);
    case XCHG_OP_ALLREDUCE:
        return mine ? xchg_mpi_allreduce(in, out, n, t, op, c, o)
                    : PMPI_Allreduce(in, out, n, t, op, c);
    case XCHG_OP_REDUCE_SCATTER:
        return mine ? xchg_mpi_reduce_scatter_block(in, out, n, t, op, c, o)
                    : PMPI_Reduce_scatter_block(in, out, n, t, op, c);
    case XCHG_OP_SCAN:
        return mine ? xchg_mpi_scan(in, out, n, t, op, c, o) : PMPI_Scan(in, out, n, t, op, c);
    case XCHG_OP_ALLGATHER:
        return mine ? xchg_mpi_allgather(in, n, t, out, n, t, c, o)
                    : PMPI_Allgather(in, n, t, out, n, t, c);
    case XCHG_OP_GATHER:
        return mine ? xchg_mpi_gather(in, n, t, out, n, t, root, c, o)
                    : PMPI_Gather(in, n, t, out, n, t, root, c);
    case XCHG_OP_SCATTER:
        return mine ? xchg_mpi_scatter(in, n, t, out, n, t, root, c, o)
                    : PMPI_Scatter(in, n, t, out, n, t, root, c);
    case XCHG_OP_SHIFT: {
        int s = ((shift_q % p) + p) % p;
        return mine ? xchg_mpi_shift(in, out, n, t, shift_q, c, o)
                    : PMPI_Sendrecv(in, n, t, (r + s) % p, 0, out, n, t, (r + p - s) % p, 0, c,
                                    MPI_STATUS_IGNORE);
    }
    default:
        return MPI_ERR_OTHER;
    }
}

typedef struct outcome {
    int same;                /* xchg's result equals the library's */
    long lookups;            /* MPI_Comm_get_attr calls it made */
    long passed;             /* calls counted as passed to the MPI library */
    char alg[XCHG_SPEC_MAX]; /* what xchg_mpi_last_info says it ran */
    char why[sizeof ((xchg_mpi_plan_info *)0)->why]; /* and why */
} outcome;

/* Call operation k through xchg and through the library on the same
 * inputs (salted by salt) and say what happened. alg NULL: options NULL
 * (the environment's). */
static outcome run(xchg_op_kind k, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                   const char *alg, int salt)
{
    static int in[N_MAX], out[N_MAX], ref[N_MAX];
    outcome res = {0};
    int p;
    MPI_Comm_size(c, &p);
    if (root >= p) /* rank 3's communicator of ranks 3..3 */
        root = 0;
    for (int i = 0; i < N_MAX; i++)
        in[i] = (wrank + 1) * 1000 + i * 7 + salt;
    memset(out, 0, sizeof out);
    memset(ref, 0, sizeof ref);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = alg;
    uint64_t passed0, passed1;
    void (*counts)(uint64_t *, uint64_t *) =
        k == XCHG_OP_ALLTOALL ? xchg_mpi_call_counts : xchg_mpi_op_call_counts;
    counts(NULL, &passed0);
    long a0 = attr_calls;
    int rc = call(k, 1, in, out, n, t, op, root, c, alg ? &o : NULL);
    res.lookups = attr_calls - a0;
    counts(NULL, &passed1);
    res.passed = (long)(passed1 - passed0);
    xchg_mpi_plan_info info;
    if (k == XCHG_OP_ALLTOALL)
        snprintf(res.alg, sizeof res.alg, "mpi"); /* the exchange keeps no last info */
    else if (xchg_mpi_last_info(&info) == MPI_SUCCESS) {
        snprintf(res.alg, sizeof res.alg, "%s", info.alg);
        snprintf(res.why, sizeof res.why, "%s", info.why);
    }
    int rc2 = call(k, 0, in, ref, n, t, op, root, c, NULL);
    res.same = rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && !memcmp(out, ref, sizeof out);
    return res;
}

static int sum_fn_calls;
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    sum_fn_calls++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

/* Under MPI_THREAD_MULTIPLE: one thread's calls, on its own communicator,
 * each checked against the MPI library's and by its own last info. */
typedef struct thread_job {
    xchg_op_kind kind;
    const char *alg, *expect; /* asked for, and what the last info must say */
    MPI_Comm comm;
    int wrong, calls;
} thread_job;

static void *thread_calls(void *arg)
{
    thread_job *j = arg;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = j->alg;
    int p, r;
    MPI_Comm_size(j->comm, &p);
    MPI_Comm_rank(j->comm, &r);
    for (int it = 0; it < 50; it++) {
        int in[8], out[8], ref[8];
        for (int i = 0; i < 8; i++)
            in[i] = out[i] = ref[i] = (r + 1) * 100 + i + it;
        int rc, rc2;
        if (j->kind == XCHG_OP_BCAST) {
            rc = xchg_mpi_bcast(out, 8, MPI_INT, 0, j->comm, &o);
            rc2 = PMPI_Bcast(ref, 8, MPI_INT, 0, j->comm);
        } else {
            rc = xchg_mpi_shift(in, out, 8, MPI_INT, 1, j->comm, &o);
            rc2 = PMPI_Sendrecv(in, 8, MPI_INT, (r + 1) % p, 0, ref, 8, MPI_INT, (r + p - 1) % p,
                                0, j->comm, MPI_STATUS_IGNORE);
        }
        xchg_mpi_plan_info info;
        j->calls++;
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS || memcmp(out, ref, sizeof out) ||
            xchg_mpi_last_info(&info) != MPI_SUCCESS || strcmp(info.alg, j->expect))
            j->wrong++;
    }
    return NULL;
}

/* MPI_Alltoallv or MPI_Alltoallw (w nonzero: each block a vector type of
 * its own) on c, counts new with salt, through xchg (alg, given as
 * options) and through the library on the same inputs: what happened. */
static outcome vrun(MPI_Comm c, int w, const char *alg, int salt)
{
    enum { P_MAX = 4, PER = 16 };
    int p, r, sc[P_MAX], sd[P_MAX], rc[P_MAX], rd[P_MAX], sdb[P_MAX], rdb[P_MAX];
    int in[P_MAX * PER], out[P_MAX * PER], ref[P_MAX * PER];
    MPI_Datatype st[P_MAX], rt[P_MAX];
    MPI_Comm_size(c, &p);
    MPI_Comm_rank(c, &r);
    for (int j = 0; j < p; j++) { /* r sends j (r + j + salt) % 5 ints; j sends r as many */
        sc[j] = (r + j + salt) % 5, sd[j] = j * PER, sdb[j] = sd[j] * (int)sizeof(int);
        rc[j] = (j + r + salt) % 5, rd[j] = j * PER, rdb[j] = rd[j] * (int)sizeof(int);
        st[j] = rt[j] = MPI_INT;
    }
    for (int i = 0; i < P_MAX * PER; i++)
        in[i] = (wrank + 1) * 1000 + i + salt, out[i] = ref[i] = -1;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = alg;
    outcome res = {0};
    uint64_t passed0, passed1;
    xchg_mpi_v_call_counts(NULL, &passed0);
    long a0 = attr_calls;
    int e1 = w ? xchg_mpi_alltoallw(in, sc, sdb, st, out, rc, rdb, rt, c, &o)
               : xchg_mpi_alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, c, &o);
    res.lookups = attr_calls - a0;
    xchg_mpi_v_call_counts(NULL, &passed1);
    res.passed = (long)(passed1 - passed0);
    xchg_mpi_plan_info info;
    if (xchg_mpi_last_info(&info) == MPI_SUCCESS) {
        snprintf(res.alg, sizeof res.alg, "%s", info.alg);
        snprintf(res.why, sizeof res.why, "%s", info.why);
    }
    int e2 = w ? PMPI_Alltoallw(in, sc, sdb, st, ref, rc, rdb, rt, c)
               : PMPI_Alltoallv(in, sc, sd, MPI_INT, ref, rc, rd, MPI_INT, c);
    res.same = e1 == MPI_SUCCESS && e2 == MPI_SUCCESS && !memcmp(out, ref, sizeof out);
    return res;
}

/* The short way of MPI_Alltoallv and MPI_Alltoallw: auto passes a call
 * of 2 ranks to the library, and the plan reads no count or type, so the
 * next call takes the short way whatever its counts. */
static void variable_blocks(void)
{
    MPI_Comm c2;
    MPI_Comm_split(MPI_COMM_WORLD, wrank / 2, wrank, &c2);
    char what[2 * sizeof ((xchg_mpi_plan_info *)0)->why + 160];
    for (int w = 0; w < 2; w++) {
        const char *name = w ? "alltoallw" : "alltoallv";
        outcome a = vrun(c2, w, "auto", 0), b = vrun(c2, w, "auto", 1);
        snprintf(what, sizeof what, "%s on 2 ranks, counts new: both as the library's", name);
        check(a.same && b.same, what);
        snprintf(what, sizeof what, "%s on 2 ranks: both passed on, info \"mpi\" (%s)", name,
                 b.why);
        check(a.passed == 1 && b.passed == 1 && !strcmp(a.alg, "mpi") && !strcmp(b.alg, "mpi") &&
                  strstr(b.why, "2 ranks") != NULL,
              what);
        snprintf(what, sizeof what,
                 "%s on 2 ranks: the first looks its plan up, the second (other counts) %s", name,
                 memo_on ? "not" : "too (MPI_THREAD_MULTIPLE)");
        check(a.lookups > 0 && (memo_on ? b.lookups == 0 : b.lookups > 0), what);
    }
    /* one buffer both ways after a remembered call: still MPI's error */
    vrun(c2, 0, "auto", 2);
    MPI_Comm_set_errhandler(c2, MPI_ERRORS_RETURN);
    int cnt[2] = {1, 1}, dsp[2] = {0, 1}, buf[2] = {0, 0}, cls = MPI_SUCCESS;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "auto";
    int e = xchg_mpi_alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, c2, &o);
    MPI_Error_class(e, &cls);
    check(cls == MPI_ERR_BUFFER, "alltoallv, one buffer both ways after a remembered call: "
                                 "MPI_ERR_BUFFER");
    /* another communicator of 4 ranks (auto carries there): looked up */
    outcome f = vrun(MPI_COMM_WORLD, 0, "auto", 3);
    snprintf(what, sizeof what, "alltoallv on 4 ranks after 2: carried (%s), looked up", f.alg);
    check(f.same && f.lookups > 0 && f.passed == 0, what);
    MPI_Comm_free(&c2);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, multiple = argc > 1 && !strcmp(argv[1], "multiple");
    if (multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    memo_on = provided != MPI_THREAD_MULTIPLE;
    /* read at the first call with options NULL */
    setenv("XCHG_ALG", "gather-hc", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize != 4) {
        if (wrank == 0)
            fprintf(stderr, "test_mpi_memo: run it on 4 ranks (it has %d)\n", wsize);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm c3;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < 3 ? 0 : 1, wrank, &c3);
    char what[2 * sizeof ((xchg_mpi_plan_info *)0)->why + 160], alg[XCHG_SPEC_MAX];
    int in3 = wrank < 3; /* rank 3 makes the same calls on its own (1 rank) */

    /* Each operation twice: the second takes the short way. The "-hc"
     * algorithm asked for needs 2^d ranks, so on 3 it passes the call on;
     * scan-hc takes any p (docs/op-scan.md) and runs, so scan has no case
     * here (the memo's code is the same for every operation). */
    for (int k = 0; k < XCHG_OP_COUNT; k++) {
        if (k == XCHG_OP_SCAN)
            continue;
        snprintf(alg, sizeof alg, "%s-hc", xchg_op_name((xchg_op_kind)k));
        if (k == XCHG_OP_ALLTOALL)
            snprintf(alg, sizeof alg, "hc-standard");
        for (char *u = alg; *u; u++)
            if (*u == '_')
                *u = '-';
        outcome a = run((xchg_op_kind)k, 5, MPI_INT, MPI_SUM, 1, c3, alg, 0);
        outcome b = run((xchg_op_kind)k, 5, MPI_INT, MPI_SUM, 1, c3, alg, 1);
        snprintf(what, sizeof what, "%s on 3 ranks: first call as the library's", alg);
        check(a.same, what);
        snprintf(what, sizeof what, "%s on 3 ranks: second call as the library's", alg);
        check(b.same, what);
        snprintf(what, sizeof what, "%s on 3 ranks: both passed on, info \"mpi\"", alg);
        check(!in3 || (a.passed == 1 && b.passed == 1 && !strcmp(a.alg, "mpi") &&
                       !strcmp(b.alg, "mpi")),
              what);
        snprintf(what, sizeof what, "%s on 3 ranks: the first looks its plan up, the second %s",
                 alg, memo_on ? "not" : "too (MPI_THREAD_MULTIPLE)");
        check(!in3 || (a.lookups > 0 && (memo_on ? b.lookups == 0 : b.lookups > 0)), what);
    }

    /* A shift by -1: the short way's peers are its own; q = 4 is the same
     * shift on 3 ranks but another call. */
    shift_q = -1;
    outcome s1 = run(XCHG_OP_SHIFT, 5, MPI_INT, MPI_OP_NULL, 0, c3, "shift-hc", 10);
    outcome s2 = run(XCHG_OP_SHIFT, 5, MPI_INT, MPI_OP_NULL, 0, c3, "shift-hc", 11);
    check(s1.same && s2.same && (!in3 || memo_on == (s2.lookups == 0)),
          "a shift by -1: both as the library's, the second the short way (memo on)");
    shift_q = 4;
    outcome s3 = run(XCHG_OP_SHIFT, 5, MPI_INT, MPI_OP_NULL, 0, c3, "shift-hc", 12);
    check(s3.same && (!in3 || s3.lookups > 0), "a shift by 4 after -1: looked up again");
    shift_q = 1;

    /* Options NULL: the environment's (XCHG_ALG gather-hc, which needs 2^d
     * ranks and so passes the call on). */
    outcome n1 = run(XCHG_OP_GATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, NULL, 20);
    outcome n2 = run(XCHG_OP_GATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, NULL, 21);
    check(n1.same && n2.same && (!in3 || (n1.lookups > 0 && memo_on == (n2.lookups == 0))),
          "options NULL (XCHG_ALG): as the library's, the second the short way (memo on)");
    outcome n3 = run(XCHG_OP_GATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, "gather-hc", 22);
    check(n3.same && (!in3 || n3.lookups > 0),
          "options given after options NULL: looked up again");
    outcome n4 = run(XCHG_OP_GATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, NULL, 23);
    check(n4.same && (!in3 || n4.lookups > 0),
          "options NULL after options given: looked up again");

    /* Two remembered calls alternating, each a hit: the last info follows. */
    outcome h[4];
    for (int i = 0; i < 4; i++)
        h[i] = run(i % 2 ? XCHG_OP_SHIFT : XCHG_OP_BCAST, 5, MPI_INT, MPI_OP_NULL, 0, c3,
                   i % 2 ? "shift-hc" : "bcast-hc", 30 + i);
    snprintf(what, sizeof what, "bcast and shift alternating: why \"%s\" then \"%s\"", h[2].why,
             h[3].why);
    check(h[2].same && h[3].same &&
              (!in3 || (memo_on == (h[2].lookups == 0 && h[3].lookups == 0) &&
                        !strcmp(h[0].why, h[2].why) && !strcmp(h[1].why, h[3].why) &&
                        strcmp(h[2].why, h[3].why) != 0)),
          what);

    /* Calls that must make the lookup again. */
    MPI_Datatype t_int;
    MPI_Type_contiguous(1, MPI_INT, &t_int);
    MPI_Type_commit(&t_int);
    run(XCHG_OP_BCAST, 5, t_int, MPI_OP_NULL, 0, c3, "bcast-hc", 0);
    outcome d = run(XCHG_OP_BCAST, 5, t_int, MPI_OP_NULL, 0, c3, "bcast-hc", 1);
    check(d.same && d.lookups > 0, "a derived datatype: looked up again, as the library's");
    MPI_Type_free(&t_int);

    MPI_Op user_sum;
    MPI_Op_create(sum_fn, 1, &user_sum);
    run(XCHG_OP_ALLREDUCE, 5, MPI_INT, user_sum, 0, c3, "allreduce-hc", 0);
    outcome u = run(XCHG_OP_ALLREDUCE, 5, MPI_INT, user_sum, 0, c3, "allreduce-hc", 1);
    check(u.same && u.lookups > 0, "a user-defined operator: looked up again, as the library's");
    MPI_Op_free(&user_sum);

    run(XCHG_OP_REDUCE, 5, MPI_INT, MPI_SUM, 1, c3, "reduce-hc", 0);
    outcome o1 = run(XCHG_OP_REDUCE, 6, MPI_INT, MPI_SUM, 1, c3, "reduce-hc", 1);
    outcome o2 = run(XCHG_OP_REDUCE, 6, MPI_INT, MPI_SUM, 2, c3, "reduce-hc", 2);
    check(o1.same && o1.lookups > 0, "another count: looked up again, as the library's");
    check(o2.same && o2.lookups > 0, "another root: looked up again, as the library's");

    /* Evicted: 16 plans of other operations on the communicator (which
     * leave each operation's memo of its own alone) push the first out. */
    run(XCHG_OP_ALLGATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, "allgather-hc", 0);
    run(XCHG_OP_SHIFT, 5, MPI_INT, MPI_OP_NULL, 0, c3, "shift-hc", 0);
    for (int n = 6; n < 6 + 16; n++)
        run(XCHG_OP_BCAST, n, MPI_INT, MPI_OP_NULL, 0, c3, "bcast-hc", n);
    outcome e = run(XCHG_OP_ALLGATHER, 5, MPI_INT, MPI_OP_NULL, 0, c3, "allgather-hc", 99);
    check(e.same && (!in3 || e.lookups > 0), "a plan evicted: looked up again, as the library's");
    e = run(XCHG_OP_SHIFT, 5, MPI_INT, MPI_OP_NULL, 0, c3, "shift-hc", 99);
    check(e.same && (!in3 || e.lookups > 0),
          "a shift's plan evicted: looked up again, its own communicator alive");

    /* The exchange's cache (8 plans) of its own: 8 carried plans push the
     * remembered fallback out. */
    run(XCHG_OP_ALLTOALL, 5, MPI_INT, MPI_OP_NULL, 0, c3, "hc-standard", 0);
    for (int n = 6; n < 6 + 8; n++)
        run(XCHG_OP_ALLTOALL, n, MPI_INT, MPI_OP_NULL, 0, c3, "pairwise", n);
    e = run(XCHG_OP_ALLTOALL, 5, MPI_INT, MPI_OP_NULL, 0, c3, "hc-standard", 99);
    check(e.same && (!in3 || e.lookups > 0),
          "the exchange's plan evicted: looked up again, as the library's");

    /* Freed: a new communicator of 4 ranks must not inherit the memo. */
    run(XCHG_OP_BCAST, 5, MPI_INT, MPI_OP_NULL, 0, c3, "bcast-hc", 0);
    MPI_Comm old = c3, c4;
    MPI_Comm_free(&c3);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, &c4);
    outcome f = run(XCHG_OP_BCAST, 5, MPI_INT, MPI_OP_NULL, 0, c4, "bcast-hc", 1);
    snprintf(what, sizeof what, "a communicator freed: the next (%s handle) runs bcast-hc, got %s",
             c4 == old ? "the same" : "another", f.alg);
    check(f.same && !strcmp(f.alg, "bcast-hc"), what);
    if (wrank == 0)
        printf("the new communicator has %s handle\n", c4 == old ? "the freed one's" : "another");
    /* The last info follows the plan each call ran, when two cached plans
     * alternate (op_calls.c copies it only when the plan changes). */
    outcome g1 = run(XCHG_OP_ALLGATHER, 5, MPI_INT, MPI_OP_NULL, 0, c4, "allgather-hc", 2);
    outcome g2 = run(XCHG_OP_BCAST, 5, MPI_INT, MPI_OP_NULL, 0, c4, "bcast-hc", 3);
    snprintf(what, sizeof what, "alternating plans: info %s then %s", g1.alg, g2.alg);
    check(g1.same && g2.same && !strcmp(g1.alg, "allgather-hc") && !strcmp(g2.alg, "bcast-hc"),
          what);
    MPI_Comm_free(&c4);
    variable_blocks();

    if (!memo_on) {
        /* two threads at once, each on a communicator of its own */
        thread_job jobs[2] = {{XCHG_OP_BCAST, "bcast-ring", "bcast-ring", MPI_COMM_NULL, 0, 0},
                              {XCHG_OP_SHIFT, "mpi", "mpi", MPI_COMM_NULL, 0, 0}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &jobs[i].comm);
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, thread_calls, &jobs[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < 2; i++) {
            snprintf(what, sizeof what,
                     "MPI_THREAD_MULTIPLE, two threads at once: %s, %d of %d calls wrong",
                     jobs[i].alg, jobs[i].wrong, jobs[i].calls);
            check(jobs[i].calls == 50 && jobs[i].wrong == 0, what);
            MPI_Comm_free(&jobs[i].comm);
        }
    }
    if (wrank == 0)
        printf("test_mpi_memo: MPI_THREAD_MULTIPLE %s\n",
               multiple ? (memo_on ? "asked for, not given" : "given") : "not asked for");
    if (wrank == 0)
        printf("test_mpi_memo: %ld checks, %ld failed\n", checks, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
