/*
 * test_mpi_v.c - xchg_mpi_alltoallv, _alltoallw and their _c forms
 * against the MPI library's own PMPI_Alltoallv and PMPI_Alltoallw on the
 * same inputs, bit for bit, over whole buffers (bytes no block covers must
 * stay as they were). Run under mpirun (CMake's mpi_v tests).
 *
 *   test_mpi_v [--quick]   (--quick: fewer sizes, for MPICH's busy-polling)
 *   test_mpi_v [--quick] --nodes KS|shared
 *                          the node-aware exchange of variable blocks
 *                          (src/mpi/aggregate_v.c) on emulated nodes of
 *                          each size in KS (comma-separated), placed
 *                          block-wise and round-robin, or (shared) on the
 *                          nodes the library finds (MPICH's cliques)
 *
 * What runs, at the communicator's size p:
 *  - algorithms: opts NULL (the environment), auto, shm, pairwise,
 *    hc-direct (p = 2^d), mpi (the library's, as xchg_mpi_last_info must
 *    say), and the store-and-forward schedules bruck, bruck:3 and
 *    hc-standard (p = 2^d), which carry the blocks' sizes in their
 *    messages;
 *  - count patterns, the same matrix on every rank (a seeded generator):
 *    uniform, random +-50%, one hot rank (8x), sparse (a tenth of the pairs
 *    nonzero), all zero, one rank that sends and receives nothing, and
 *    large blocks (past shm's crossover: shm's first round must hand the
 *    call to the direct schedule on every rank alike); mean blocks of a
 *    few elements to 16 Ki elements;
 *  - types: v with MPI_INT, and with a vector with gaps on both sides; w
 *    with a different type per peer (MPI_INT, a contiguous 4-int type, the
 *    gapped vector), sizes matched per pair;
 *  - displacements in reverse order with gaps; in place and not; the _c
 *    forms (MPI_Count, MPI_Aint);
 *  - MPI_COMM_WORLD, its ranks reversed, and its halves (MPI_Comm_split);
 *    an intercommunicator between the halves goes to the MPI library;
 *  - w from and into MPI_BOTTOM with absolute displacements (the _c
 *    form), and NULL buffers where every count is 0;
 *  - bad arguments with MPI_ERRORS_RETURN: a negative count
 *    (MPI_ERR_COUNT), a null type with a nonzero count (MPI_ERR_TYPE), one
 *    buffer to send from and receive into (MPI_ERR_BUFFER);
 *  - xchg_mpi_v_call_counts growing by one a call, carried or passed as
 *    xchg_mpi_last_info says;
 *  - first, a self-check: a result corrupted on purpose must be caught.
 * With --nodes KS, instead of the above: aggregate (src/mpi/aggregate_v.c),
 * auto and leader on each layout of emulated nodes, every pattern and form
 * above at means of 3 and 200 elements; aggregate must say it ran, auto
 * may take aggregate only on several nodes of several ranks (and, from 6
 * ranks with a machine file, must somewhere), leader must run auto's
 * choice and say that leaders are not built for variable blocks.
 * Every check agrees over all ranks; a failure prints the case and the
 * program exits 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

static int failures, checks, quick;
/* nodes mode (main): the machine file auto prices with, whether the
 * communicator's ranks lie on several nodes of several ranks (auto may
 * then take aggregate), and how often auto took it */
static const char *machine_file;
static int nodes_apart;
static long auto_aggregate;

/* Agree a check over the communicator's ranks; say the case where it failed. */
static int check(MPI_Comm comm, int ok, const char *what)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    checks++;
    if (!all) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (!ok)
            fprintf(stderr, "test_mpi_v: FAIL (rank %d): %s\n", rank, what);
        failures++;
    }
    return all;
}

/* A deterministic generator, the same on every rank. */
static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

enum { UNIFORM, RANDOM, HOT, SPARSE, ZERO, IDLE_RANK, LARGE, NPATTERNS };
static const char *pattern_name[] = {"uniform", "random:50", "hot:0", "sparse:0.1",
                                     "all zero", "rank 1 idle", "large"};

/* The p x p matrix of elements (row: origin, column: destination). */
static void counts_matrix(int pattern, int p, int mean, uint64_t seed, int *c)
{
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            int n = mean;
            switch (pattern) {
            case RANDOM: n = mean / 2 + (int)(next(&seed) % (uint64_t)(mean + 1)); break;
            case HOT: n = (i == 0 || j == 0) ? 8 * mean : mean; break;
            case SPARSE: n = next(&seed) % 10 == 0 ? mean : 0; break;
            case ZERO: n = 0; break;
            case IDLE_RANK: n = (i == 1 || j == 1) ? 0 : mean; break;
            case LARGE: n = mean * 64 + (int)(next(&seed) % 7); break;
            default: break;
            }
            c[i * p + j] = n;
        }
}

/* The types a case uses: 0 MPI_INT, 1 a contiguous 4-int type, 2 a vector
 * of 2 ints in 3 (gaps); their element counts in ints. */
static MPI_Datatype types[3];
static const int ints_of[3] = {1, 4, 2};

/* One side's counts and displacements for elements of type t: block j
 * holds n[j] elements; blocks lie in reverse order with a gap of one
 * element after each. Returns the buffer's extent in bytes. */
static int ordered; /* instead: blocks in rank order, no gaps (a case's) */

static size_t layout(int p, const int *n, const int *tk, int w, int *counts, int *displs,
                     MPI_Aint *wdispls)
{
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        int j = ordered ? i : p - 1 - i;
        MPI_Aint lb, ext;
        MPI_Type_get_extent(types[tk[j]], &lb, &ext);
        counts[j] = n[j];
        if (w) {
            wdispls[j] = (MPI_Aint)at;
            displs[j] = (int)at;
        } else {
            /* v: one type; displacements in its extent */
            displs[j] = (int)(at / (size_t)ext);
            wdispls[j] = displs[j];
        }
        at += (size_t)(n[j] + !ordered) * (size_t)ext;
        if (w) /* keep the next block aligned for any type */
            at = (at + 15) / 16 * 16;
    }
    return at + 64;
}

typedef struct vcase {
    const char *alg; /* NULL: the environment */
    int pattern, mean, w, tk, in_place, wide;
    int ordered; /* blocks in rank order without gaps (else reversed, with) */
} vcase;

static void say_case(char *out, size_t len, MPI_Comm comm, const char *cname, const vcase *k)
{
    int p;
    MPI_Comm_size(comm, &p);
    snprintf(out, len, "%s p=%d alg=%s %s mean=%d %s type=%d%s%s%s", cname, p,
             k->alg ? k->alg : "(env)", pattern_name[k->pattern], k->mean, k->w ? "w" : "v", k->tk,
             k->in_place ? " in place" : "", k->wide ? " _c" : "", k->ordered ? " ordered" : "");
    (void)comm;
}

/* Run one case on comm: xchg's call and the library's, compared. */
static void run_case(MPI_Comm comm, const char *cname, const vcase *k, uint64_t seed)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    char what[256];
    say_case(what, sizeof what, comm, cname, k);
    int *c = malloc(sizeof(int) * (size_t)p * (size_t)p);
    int *sn = malloc(sizeof(int) * 8 * (size_t)p);
    int *rn = sn + p, *sc = sn + 2 * p, *sd = sn + 3 * p, *rc = sn + 4 * p, *rd = sn + 5 * p;
    int *stk = sn + 6 * p, *rtk = sn + 7 * p;
    MPI_Aint *swd = malloc(sizeof(MPI_Aint) * 2 * (size_t)p), *rwd = swd + p;
    MPI_Count *scc = malloc(sizeof(MPI_Count) * 2 * (size_t)p), *rcc = scc + p;
    MPI_Datatype *sty = malloc(sizeof(MPI_Datatype) * 2 * (size_t)p), *rty = sty + p;
    counts_matrix(k->pattern, p, k->mean, seed, c);
    if (k->in_place) /* in place sends what it receives: a symmetric matrix */
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++)
                c[i * p + j] = c[j * p + i];
    /* per pair, a type on each side (w: by the pair; v: the case's) and
     * element counts that match in ints */
    for (int j = 0; j < p; j++) {
        stk[j] = k->w ? (r + j) % 3 : k->tk;
        rtk[j] = k->w ? (j + r + 1) % 3 : k->tk;
        int sints = c[r * p + j] * 4, rints = c[j * p + r] * 4; /* multiples of 4 ints */
        sn[j] = sints / ints_of[stk[j]];
        rn[j] = rints / ints_of[rtk[j]];
        /* w: the receiver's type of pair (j -> r) is (r + j + 1) % 3 on r's
         * side, the sender's (j + r) % 3 on j's: both cover the same ints */
        sty[j] = types[stk[j]];
        rty[j] = types[rtk[j]];
    }
    if (k->in_place) /* the send side is the receive side's */
        for (int j = 0; j < p; j++)
            rtk[j] = stk[j], rty[j] = sty[j], rn[j] = c[j * p + r] * 4 / ints_of[rtk[j]];
    ordered = k->ordered;
    size_t sbytes = layout(p, sn, stk, k->w, sc, sd, swd);
    size_t rbytes = layout(p, rn, rtk, k->w, rc, rd, rwd);
    for (int j = 0; j < p; j++)
        scc[j] = sc[j], rcc[j] = rc[j];
    unsigned char *sbuf = malloc(sbytes), *mine = malloc(rbytes), *ref = malloc(rbytes);
    for (size_t i = 0; i < sbytes; i++)
        sbuf[i] = (unsigned char)(r * 31 + i * 7 + 1);
    for (size_t i = 0; i < rbytes; i++)
        mine[i] = ref[i] = (unsigned char)(0xA5 ^ (i * 13 + r));
    if (k->in_place) /* the data to send is in the receive buffer */
        for (size_t i = 0; i < rbytes; i++)
            mine[i] = ref[i] = (unsigned char)(r * 17 + i * 5 + 3);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = k->alg;
    o.machine_file = machine_file;
    const xchg_mpi_opts *opts = k->alg ? &o : NULL;
    const void *sendbuf = k->in_place ? MPI_IN_PLACE : sbuf;
    uint64_t c0, p0, c1, p1;
    xchg_mpi_v_call_counts(&c0, &p0);
    int e1, e2;
    if (k->w && k->wide)
        e1 = xchg_mpi_alltoallw_c(sendbuf, scc, swd, sty, mine, rcc, rwd, rty, comm, opts);
    else if (k->w)
        e1 = xchg_mpi_alltoallw(sendbuf, sc, sd, sty, mine, rc, rd, rty, comm, opts);
    else if (k->wide)
        e1 = xchg_mpi_alltoallv_c(sendbuf, scc, swd, types[k->tk], mine, rcc, rwd,
                                  types[k->tk], comm, opts);
    else
        e1 = xchg_mpi_alltoallv(sendbuf, sc, sd, types[k->tk], mine, rc, rd, types[k->tk], comm,
                                opts);
    xchg_mpi_v_call_counts(&c1, &p1);
    if (k->w) {
        int *wsd = sd, *wrd = rd; /* bytes */
        e2 = PMPI_Alltoallw(sendbuf, sc, wsd, sty, ref, rc, wrd, rty, comm);
    } else {
        e2 = PMPI_Alltoallv(sendbuf, sc, sd, types[k->tk], ref, rc, rd, types[k->tk], comm);
    }
    char line[1600];
    snprintf(line, sizeof line, "%s: both succeed (xchg %d, library %d)", what, e1, e2);
    check(comm, e1 == MPI_SUCCESS && e2 == MPI_SUCCESS, line);
    size_t bad = rbytes;
    for (size_t i = 0; i < rbytes && bad == rbytes; i++)
        if (mine[i] != ref[i])
            bad = i;
    snprintf(line, sizeof line, "%s: the receive buffer equals the library's (first byte "
                                "that differs: %zu of %zu)",
             what, bad, rbytes);
    check(comm, bad == rbytes, line);
    xchg_mpi_plan_info info;
    int ok = xchg_mpi_last_info(&info) == MPI_SUCCESS;
    int carried = ok && !info.fallback;
    snprintf(line, sizeof line, "%s: counted once, %s (alg %s)", what,
             carried ? "carried" : "passed", ok ? info.alg : "?");
    check(comm, c1 - c0 == (uint64_t)carried && p1 - p0 == (uint64_t)!carried, line);
    /* what ran: a forced direct schedule, shm or aggregate runs; mpi goes
     * to the library; auto runs pairwise or shm, or aggregate on several
     * nodes of several ranks, or with 2 ranks, where it would run the
     * direct exchange, passes the call to the library (one message each
     * way: the library's own); a node-aware exchange with leaders (not
     * built for variable blocks) runs auto's choice and says so */
    if (k->alg) {
        const char *a = k->alg;
        int leaders = !strncmp(a, "leader", 6) || !strncmp(a, "pairs", 5);
        int as_auto = !strcmp(a, "auto") || leaders;
        int two = 0;
        MPI_Comm_size(comm, &two);
        two = two == 2 && as_auto && !(ok && !info.fallback && !strcmp(info.alg, "shm"));
        int want_fallback = !strcmp(a, "mpi") || two;
        int aggregated = ok && !strcmp(info.alg, "aggregate");
        int auto_ok = ok && (!strcmp(info.alg, "pairwise") || !strcmp(info.alg, "shm") ||
                             (nodes_apart && aggregated));
        int alg_ok = ok && (want_fallback ? info.fallback
                                          : !info.fallback && (as_auto ? auto_ok
                                                                       : !strcmp(info.alg, a)));
        if (leaders)
            alg_ok = alg_ok && strstr(info.why, "not built for variable blocks") != NULL;
        if (two)
            alg_ok = alg_ok && strstr(info.why, "2 ranks exchange one message each way") != NULL;
        auto_aggregate += as_auto && aggregated;
        snprintf(line, sizeof line, "%s: ran %s (fallback %d; %s)", what, ok ? info.alg : "?",
                 ok ? info.fallback : -1, ok ? info.why : "");
        check(comm, alg_ok, line);
    }
    free(sbuf), free(mine), free(ref), free(c), free(sn), free(swd), free(scc), free(sty);
}

/* The algorithms to run at p. */
static int algs_at(int p, const char **out)
{
    int n = 0;
    out[n++] = NULL;
    out[n++] = "auto";
    out[n++] = "pairwise";
    if ((p & (p - 1)) == 0)
        out[n++] = "hc-direct";
    out[n++] = "mpi";
    out[n++] = "bruck";
    out[n++] = "bruck:3";
    if ((p & (p - 1)) == 0)
        out[n++] = "hc-standard";
    return n;
}

static void run_comm(MPI_Comm comm, const char *cname, int shm_ok)
{
    const char *algs[12];
    int p;
    MPI_Comm_size(comm, &p);
    int nalg = algs_at(p, algs);
    if (shm_ok)
        algs[nalg++] = "shm";
    static const int means_full[] = {1, 3, 64, 1024}, means_quick[] = {2, 200};
    const int *means = quick ? means_quick : means_full;
    int nmeans = quick ? 2 : 4;
    uint64_t seed = 12345;
    for (int a = 0; a < nalg; a++)
        for (int pat = 0; pat < NPATTERNS; pat++)
            for (int mi = 0; mi < nmeans; mi++) {
                if (pat == LARGE && mi != 0)
                    continue; /* large: mean 64 x 64 ints, one size */
                int mean = pat == LARGE ? 16 : means[mi];
                for (int form = 0; form < 6; form++) {
                    vcase k = {algs[a], pat, mean, form >= 4, form == 1 ? 2 : 0, form == 2,
                               form == 3 || form == 5, 0};
                    if (quick && form != 0 && form != 4 && mi != 0)
                        continue;
                    run_case(comm, cname, &k, seed++);
                }
            }
}

/* Nodes mode: the aggregation of variable blocks (aggregate_v.c) on
 * comm, whose nodes hold most ranks at most: forced, auto and leader
 * (which runs auto's choice), every count pattern and form at two
 * means. */
static void run_nodes_comm(MPI_Comm comm, const char *cname)
{
    static const char *algs[] = {"aggregate", "auto", "leader"};
    static const int means[] = {3, 200};
    uint64_t seed = 777;
    for (int a = 0; a < 3; a++)
        for (int pat = 0; pat < NPATTERNS; pat++)
            for (int mi = 0; mi < 2; mi++) {
                if ((pat == LARGE && mi != 0) || (a == 2 && pat != SPARSE))
                    continue;
                int mean = pat == LARGE ? 16 : means[mi];
                /* forms 6 and 7: blocks in rank order without gaps (not
                 * in place, in place), which aggregation moves in one
                 * copy a run of ranks */
                for (int form = 0; form < 8; form++) {
                    vcase k = {algs[a], pat, mean, form == 4 || form == 5, form == 1 ? 2 : 0,
                               form == 2 || form == 7, form == 3 || form == 5, form >= 6};
                    if (quick && form != 0 && form != 2 && form != 4 && form != 6)
                        continue;
                    if (form >= 6 && pat != RANDOM && pat != SPARSE && pat != IDLE_RANK)
                        continue; /* a few patterns are enough for the joins */
                    run_case(comm, cname, &k, seed++);
                }
            }
}

/* Nodes mode: for each node size of ks (text: comma-separated), placed
 * block-wise and round-robin (XCHG_NODE_SIZE, XCHG_NODE_PLACEMENT; set
 * before the communicator is made, which maps its nodes once), or
 * (ks "shared") the nodes the library groups shared memory into. */
static void run_nodes(const char *ks)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    machine_file = getenv("XCHG_MACHINE_FILE");
    if (!strcmp(ks, "shared")) {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int np, most = 0, fewest = 0;
        MPI_Comm_size(node, &np);
        PMPI_Allreduce(&np, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(&np, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Comm_free(&node);
        nodes_apart = most < p && most > 1;
        check(MPI_COMM_WORLD, fewest < p, "shared: the library groups the ranks in several nodes");
        run_nodes_comm(MPI_COMM_WORLD, "shared");
        return;
    }
    static const char *placements[] = {"block", "cyclic"};
    for (int pl = 0; pl < 2; pl++)
        for (const char *at = ks; *at;) {
            char *end;
            long k = strtol(at, &end, 10);
            if (end == at || k < 1) {
                check(MPI_COMM_WORLD, 0, "nodes: a list of node sizes");
                return;
            }
            at = *end == ',' ? end + 1 : end;
            char v[24], cname[64];
            snprintf(v, sizeof v, "%ld", k);
            setenv("XCHG_NODE_SIZE", v, 1);
            setenv("XCHG_NODE_PLACEMENT", placements[pl], 1);
            int nodes = (int)((p - 1) / k + 1);
            int most = pl == 0 ? (int)(k < p ? k : p) : (p - 1) / nodes + 1;
            nodes_apart = nodes > 1 && most > 1;
            snprintf(cname, sizeof cname, "nodes of %ld %s", k, placements[pl]);
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            run_nodes_comm(c, cname);
            MPI_Comm_free(&c);
        }
    unsetenv("XCHG_NODE_SIZE");
    unsetenv("XCHG_NODE_PLACEMENT");
}

/* Buffers given as MPI_BOTTOM with absolute displacements (w), and NULL
 * buffers where every count is 0: the library's results. */
static void odd_buffers(MPI_Comm comm)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *cnt = malloc(sizeof(int) * 3 * (size_t)p), *sd = cnt + p, *rd = cnt + 2 * p;
    /* int displacements for the NULL case: any, unused */
    int *s = malloc(sizeof(int) * (size_t)p), *a = malloc(sizeof(int) * (size_t)p),
        *b = malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int j = 0; j < p; j++) {
        cnt[j] = 1, sd[j] = 1000 * j, rd[j] = 7 * j, ty[j] = MPI_INT, s[j] = r * 100 + j;
        a[j] = b[j] = -1;
    }
    MPI_Aint *wsd = malloc(sizeof(MPI_Aint) * 2 * (size_t)p), *wrd = wsd + p;
    MPI_Count *cc = malloc(sizeof(MPI_Count) * (size_t)p);
    for (int j = 0; j < p; j++) {
        MPI_Get_address(&s[j], &wsd[j]);
        MPI_Get_address(&a[j], &wrd[j]);
        cc[j] = 1;
    }
    int e = xchg_mpi_alltoallw_c(MPI_BOTTOM, cc, wsd, ty, MPI_BOTTOM, cc, wrd, ty, comm, NULL);
    int ok = e == MPI_SUCCESS;
    for (int j = 0; j < p && ok; j++)
        ok = a[j] == j * 100 + r;
    check(comm, ok, "alltoallw_c from and into MPI_BOTTOM with absolute displacements");
    int *zero = calloc((size_t)p, sizeof(int));
    e = xchg_mpi_alltoallv(NULL, zero, sd, MPI_INT, NULL, zero, rd, MPI_INT, comm, NULL);
    check(comm, e == MPI_SUCCESS, "NULL buffers with every count 0 (displacements not 0)");
    free(cnt), free(s), free(a), free(b), free(ty), free(wsd), free(cc), free(zero);
}

/* Bad arguments: MPI's error classes, with MPI_ERRORS_RETURN. */
static void bad_arguments(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *cnt = calloc((size_t)p, sizeof(int)), *dsp = calloc((size_t)p, sizeof(int));
    int *neg = calloc((size_t)p, sizeof(int));
    int buf[4] = {0}, buf2[4] = {0};
    neg[0] = -1;
    cnt[0] = 1;
    int e = xchg_mpi_alltoallv(buf, neg, dsp, MPI_INT, buf2, cnt, dsp, MPI_INT, comm, NULL), cls;
    MPI_Error_class(e, &cls);
    check(comm, cls == MPI_ERR_COUNT, "a negative count gives MPI_ERR_COUNT");
    e = xchg_mpi_alltoallv(buf, cnt, dsp, MPI_DATATYPE_NULL, buf2, cnt, dsp, MPI_INT, comm, NULL);
    MPI_Error_class(e, &cls);
    check(comm, cls == MPI_ERR_TYPE, "a null type with a nonzero count gives MPI_ERR_TYPE");
    e = xchg_mpi_alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, comm, NULL);
    MPI_Error_class(e, &cls);
    check(comm, cls == MPI_ERR_BUFFER, "one buffer both ways gives MPI_ERR_BUFFER");
    free(cnt), free(dsp), free(neg);
}

/* An intercommunicator between comm's halves: the library's call. */
static void intercommunicator(MPI_Comm world)
{
    int p, r;
    MPI_Comm_size(world, &p);
    MPI_Comm_rank(world, &r);
    if (p < 2)
        return;
    MPI_Comm half, inter;
    int color = r < p / 2;
    MPI_Comm_split(world, color, r, &half);
    MPI_Intercomm_create(half, 0, world, color ? p / 2 : 0, 7, &inter);
    int rp;
    MPI_Comm_remote_size(inter, &rp);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)rp), *dsp = cnt + rp;
    int *s = malloc(sizeof(int) * (size_t)rp * 2), *got = malloc(sizeof(int) * (size_t)rp * 2);
    for (int j = 0; j < rp; j++)
        cnt[j] = 2, dsp[j] = 2 * j, s[2 * j] = r, s[2 * j + 1] = j;
    uint64_t p0, p1;
    xchg_mpi_v_call_counts(NULL, &p0);
    int e = xchg_mpi_alltoallv(s, cnt, dsp, MPI_INT, got, cnt, dsp, MPI_INT, inter, NULL);
    xchg_mpi_v_call_counts(NULL, &p1);
    int ok = e == MPI_SUCCESS && p1 == p0 + 1;
    int lr;
    MPI_Comm_rank(inter, &lr);
    for (int j = 0; j < rp && ok; j++) /* remote j's block for me: (its world rank, lr) */
        ok = got[2 * j + 1] == lr && got[2 * j] == (color ? p / 2 + j : j);
    check(world, ok, "an intercommunicator's alltoallv goes to the library, right");
    free(cnt), free(s), free(got);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* The comparison must catch a wrong result. */
static void self_check(MPI_Comm comm)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)p), *dsp = cnt + p;
    int *s = malloc(sizeof(int) * (size_t)p), *a = malloc(sizeof(int) * (size_t)p),
        *b = malloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < p; j++)
        cnt[j] = 1, dsp[j] = j, s[j] = r * p + j;
    xchg_mpi_alltoallv(s, cnt, dsp, MPI_INT, a, cnt, dsp, MPI_INT, comm, NULL);
    PMPI_Alltoallv(s, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm);
    a[0] ^= 1; /* on purpose */
    int same = !memcmp(a, b, sizeof(int) * (size_t)p), all = 0;
    PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MAX, comm);
    if (all) {
        fprintf(stderr, "test_mpi_v: the self-check's corrupted result was not caught\n");
        failures++;
    }
    checks++;
    free(cnt), free(s), free(a), free(b);
}

/* Auto on one node with the segment made: a call where every rank sends
 * to one neighbour only goes direct (its busiest rank has 1 nonzero
 * peer, fewer than shm needs: 7 at 16 ranks by the model's figures;
 * choose_v.c), a call of small blocks to everyone through the segment
 * (the second such: the first goes direct unasked, as the call before it
 * did); every result right. The segment is made at once on a communicator that already
 * has one (an MPI_Alltoall through shm first). */
static void sparse_goes_direct(MPI_Comm world)
{
    int p, r;
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *sc = malloc(sizeof(int) * 4 * (size_t)p), *sd = sc + p, *rc = sc + 2 * p,
        *rd = sc + 3 * p;
    int *s = malloc(sizeof(int) * (size_t)p), *a = malloc(sizeof(int) * (size_t)p),
        *b = malloc(sizeof(int) * (size_t)p);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "shm";
    for (int j = 0; j < p; j++)
        s[j] = r * p + j;
    xchg_mpi_alltoall(s, 1, MPI_INT, a, 1, MPI_INT, comm, &o);
    /* a sparse call; then two dense ones: the first goes direct unasked,
     * as the call before it did (shm_v.c's backoff), the second asks */
    for (int call = 0; call < 3; call++) {
        int dense = call > 0;
        for (int j = 0; j < p; j++) {
            sc[j] = dense || j == (r + 1) % p ? 1 : 0;
            rc[j] = dense || j == (r + p - 1) % p ? 1 : 0;
            sd[j] = rd[j] = j;
        }
        memset(a, 0xff, sizeof(int) * (size_t)p);
        memset(b, 0xff, sizeof(int) * (size_t)p);
        int err = xchg_mpi_alltoallv(s, sc, sd, MPI_INT, a, rc, rd, MPI_INT, comm, NULL);
        xchg_mpi_plan_info info;
        int ierr = xchg_mpi_last_info(&info);
        PMPI_Alltoallv(s, sc, sd, MPI_INT, b, rc, rd, MPI_INT, comm);
        const char *want = call == 2 ? "shm" : "pairwise";
        char what[1500];
        snprintf(what, sizeof what, "auto on one node, call %d (%s): ran %s (%.1200s), want %s",
                 call, dense ? "dense" : "sparse", info.alg, info.why, want);
        check(comm, err == MPI_SUCCESS && ierr == MPI_SUCCESS && !strcmp(info.alg, want) &&
                        !memcmp(a, b, sizeof(int) * (size_t)p),
              what);
    }
    free(sc), free(s), free(a), free(b);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        quick |= !strcmp(argv[i], "--quick");
    types[0] = MPI_INT;
    MPI_Type_contiguous(4, MPI_INT, &types[1]);
    MPI_Type_commit(&types[1]);
    MPI_Datatype v;
    MPI_Type_vector(1, 2, 3, MPI_INT, &v); /* 2 ints, then a gap of one */
    MPI_Type_create_resized(v, 0, 3 * (MPI_Aint)sizeof(int), &types[2]);
    MPI_Type_commit(&types[2]);
    MPI_Type_free(&v);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int np, one = 0;
    MPI_Comm_size(node, &np);
    PMPI_Allreduce(&(int){np == p}, &one, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    self_check(MPI_COMM_WORLD);
    const char *nodes = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--nodes"))
            nodes = argv[i + 1];
    if (nodes) {
        run_nodes(nodes);
        /* with a cluster's figures auto must take aggregate somewhere
         * from 6 ranks (the caller gives layouts of several nodes of
         * several ranks; on fewer the model rightly stays flat) */
        if (machine_file && p >= 6)
            check(MPI_COMM_WORLD, auto_aggregate > 0, "nodes: auto takes aggregate somewhere");
        if (r == 0)
            printf("test_mpi_v: p=%d, nodes %s: %d checks, %d failed (auto took aggregate "
                   "%ld times)\n",
                   p, nodes, checks, failures, auto_aggregate);
        MPI_Type_free(&types[1]);
        MPI_Type_free(&types[2]);
        MPI_Finalize();
        return failures ? 1 : 0;
    }
    run_comm(MPI_COMM_WORLD, "world", one);
    MPI_Comm rev, half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - r, &rev);
    run_comm(rev, "reversed", one);
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    run_comm(half, "half", one);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    if (one && p >= 16) /* below, the model's figures keep variable blocks direct */
        sparse_goes_direct(MPI_COMM_WORLD);
    intercommunicator(MPI_COMM_WORLD);
    odd_buffers(MPI_COMM_WORLD);
    bad_arguments(MPI_COMM_WORLD);
    MPI_Type_free(&types[1]);
    MPI_Type_free(&types[2]);
    if (r == 0)
        printf("test_mpi_v: p=%d: %d checks, %d failed\n", p, checks, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
