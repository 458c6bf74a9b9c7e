/*
 * test_mpi_exec.c - the executor against the MPI library's own MPI_Alltoall,
 * byte for byte (run under mpirun by tests/mpi/exec.sh).
 *
 *   test_mpi_exec [--max-bytes N] [--only SPEC] [--rotate-only]
 *       the matrix (below); --rotate-only leaves out the sweep of every
 *       type at 64 bytes: each spec then sees the types and in place only
 *       as they turn round over its sizes (exec.sh, at many ranks)
 *   test_mpi_exec --big BYTES                      one exchange whose
 *       count x extent x p is BYTES (> 2^31), checked against its pattern
 *
 * The matrix, at the communicator's size p: "shm" (shared memory) and
 * every registry algorithm and variant that applies to complete:p, ring:p,
 * or the tori and hypercube
 * with p nodes, directly or on virtual nodes (":virtual": padding) (each once, on the first of those it applies to; laid out
 * with the topology option, and once through a Cartesian communicator),
 * over block sizes 0, 1, 7, 8, 64, 1000, 4096, 65536 and 1 MiB (up to
 * --max-bytes), each with MPI_BYTE, MPI_INT, MPI_DOUBLE, a vector type with
 * holes received as a resized int (different types, one signature), an
 * indexed type or a struct with padding, in place and not. Every receive
 * buffer, holes included, must equal the one MPI_Alltoall fills and the one
 * a plain point-to-point exchange fills (different send and receive types:
 * the point-to-point one alone, as Open MPI 4.1.4 gets those wrong; see
 * run_case). The MPI library's call is reached as PMPI_Alltoall: this
 * program links libxchg_mpi, whose MPI_Alltoall is the drop-in, that is
 * xchg. Also: a persistent plan run three times, 300 shm runs back to back,
 * errors returned through MPI_ERRORS_RETURN, an intercommunicator and the
 * fallbacks (mpi, a topology of the wrong size), and an exchange from and
 * into MPI_BOTTOM.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xchg.h"
#include "xchg_mpi.h"

#include "huge_pages.h"

static int rank, nranks, failures, checks;

static void check(int ok, const char *fmt, const char *a, const char *b, long n, long m)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 20) {
            fprintf(stderr, "FAIL (rank %d): ", rank);
            fprintf(stderr, fmt, a, b, n, m);
            fprintf(stderr, "\n");
        }
    }
}

/* One data type of the matrix. */
typedef struct dtype {
    const char *name;
    MPI_Datatype send, recv;
} dtype;

static unsigned char pattern(long r, long i)
{
    uint64_t x = (uint64_t)r * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull;
    return (unsigned char)(x >> 56);
}

/* The exchange done with point-to-point messages only: the reference. All
 * its messages are posted at once: p rounds of MPI_Sendrecv, each waiting on
 * every oversubscribed rank in turn, took much of the matrix's time at
 * p = 64, far more than the same messages and types posted at once. */
static void reference_p2p(const unsigned char *send, long scount, MPI_Datatype stype,
                          MPI_Aint sext, unsigned char *recv, long rcount, MPI_Datatype rtype,
                          MPI_Aint rext, MPI_Comm comm)
{
    /* statuses, not MPI_STATUSES_IGNORE: GCC 12 sees MPICH's as a zero-size
     * array (src/mpi/mpi_internal.h) */
    MPI_Request *req = malloc(2 * (size_t)nranks * sizeof *req);
    MPI_Status *st = malloc(2 * (size_t)nranks * sizeof *st);
    for (int k = 0; k < nranks; k++) {
        int from = (rank - k + nranks) % nranks;
        MPI_Irecv(recv + (size_t)from * (size_t)rcount * (size_t)rext, (int)rcount, rtype, from,
                  77, comm, &req[k]);
    }
    for (int k = 0; k < nranks; k++) {
        int to = (rank + k) % nranks;
        MPI_Isend(send + (size_t)to * (size_t)scount * (size_t)sext, (int)scount, stype, to, 77,
                  comm, &req[nranks + k]);
    }
    MPI_Waitall(2 * nranks, req, st);
    free(req);
    free(st);
}

/*
 * One case: xchg (spec on topo) against MPI_Alltoall, `bytes` of data per
 * block in type dt, in place or not. Returns 0 when identical on every rank.
 */
static int run_case(const char *spec, const char *topo, MPI_Comm comm, long bytes,
                    const dtype *dt, int in_place)
{
    int ssize, rsize;
    MPI_Aint lb, sext, rext;
    MPI_Type_size(dt->send, &ssize);
    MPI_Type_size(dt->recv, &rsize);
    MPI_Type_get_extent(dt->send, &lb, &sext);
    MPI_Type_get_extent(dt->recv, &lb, &rext);
    long scount = bytes / ssize, rcount = scount * ssize / rsize;
    if (in_place && dt->send != dt->recv)
        return 0; /* in place has one type */
    size_t sbuf = (size_t)nranks * (size_t)scount * (size_t)sext + 1;
    size_t rbuf = (size_t)nranks * (size_t)rcount * (size_t)rext + 1;
    unsigned char *send = malloc(sbuf), *mine = malloc(rbuf), *ref = malloc(rbuf);
    for (size_t i = 0; i < sbuf; i++)
        send[i] = pattern(rank, (long)i);
    for (size_t i = 0; i < rbuf; i++)
        mine[i] = ref[i] = in_place ? pattern(rank, (long)i) : 0xee;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = spec;
    o.topology = topo;
    int rc;
    unsigned char *p2p = malloc(rbuf);
    memcpy(p2p, ref, rbuf);
    if (in_place) {
        rc = xchg_mpi_alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, rcount, dt->recv, comm,
                               &o);
        /* the library's reference from a copy of the buffer, not in place:
         * MPICH 4.0.2's in-place MPI_Alltoall stops with "Message
         * truncated" (MPIR_Alltoall_intra_pairwise_sendrecv_replace) for
         * the padded struct type at 64 KiB blocks; the result is the same */
        unsigned char *copy = malloc(rbuf);
        memcpy(copy, ref, rbuf);
        PMPI_Alltoall(copy, (int)rcount, dt->recv, ref, (int)rcount, dt->recv, comm);
        free(copy);
        memcpy(p2p, ref, rbuf); /* in place has one type: no known library bug */
    } else {
        rc = xchg_mpi_alltoall(send, scount, dt->send, mine, rcount, dt->recv, comm, &o);
        reference_p2p(send, scount, dt->send, sext, p2p, rcount, dt->recv, rext, comm);
        /* Different send and receive types go to the point-to-point
         * reference alone: Open MPI 4.1.4's Bruck alltoall (its choice for
         * small blocks from 16 ranks on) applies the send type to the
         * receive side, giving wrong blocks and reading past the end of its
         * own temporary buffer (AddressSanitizer stops the test there;
         * open-mpi/ompi pull request 10488, fixed after 4.1.4). */
        if (dt->send == dt->recv)
            PMPI_Alltoall(send, (int)scount, dt->send, ref, (int)rcount, dt->recv, comm);
        else
            memcpy(ref, p2p, rbuf);
    }
    /* the MPI library's MPI_Alltoall must agree with the point-to-point
     * reference, and xchg's buffer with that reference (so with both): the
     * two checks agreed over the ranks in one reduction, not one each */
    int ok[2] = {memcmp(ref, p2p, rbuf) == 0, rc == MPI_SUCCESS && memcmp(mine, p2p, rbuf) == 0};
    int agreed[2] = {0, 0};
    MPI_Allreduce(ok, agreed, 2, MPI_INT, MPI_MIN, comm);
    int lib_all = agreed[0], all = agreed[1];
    check(lib_all, "MPI_Alltoall and the point-to-point reference disagree (%s, %s) %ld %ld",
          spec, topo, bytes, nranks);
    free(p2p);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s", dt->name, in_place ? "in place" : "", topo);
    check(all, "%s on %s: %ld bytes a block, p %ld: differs from MPI_Alltoall", spec, what,
          bytes, nranks);
    free(send);
    free(mine);
    free(ref);
    return !all;
}

/* Every spec of every algorithm applying to topology spec ts: what the
 * one variant enumeration offers (the padded ar1:virtual, ... where the
 * sizes do not fit included), and the padded form where they do fit too,
 * which it does not offer: hosting each node on itself still goes through
 * the hosted schedule's rules. */
static int specs_on(const char *ts, xchg_spec *out, int max)
{
    xchg_topo t;
    if (xchg_topo_parse(ts, &t, NULL) || t.nodes != (uint32_t)nranks)
        return 0;
    int n = 0;
    for (size_t i = 0; i < xchg_alg_count() && n < max; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a->op != XCHG_OP_ALLTOALL)
            continue; /* the executor runs the complete exchange only */
        int k = xchg_alg_variants(&t, a, out + n, max - n, NULL);
        const xchg_alg *va;
        xchg_opts vo;
        char vspec[XCHG_SPEC_MAX];
        snprintf(vspec, sizeof vspec, "%s:virtual", a->name);
        int offered = k == 1 && strcmp(out[n], vspec) == 0;
        n += k;
        if (n < max && !offered && a->needs.virtual_any_size &&
            xchg_alg_parse(vspec, &va, &vo, NULL) == 0 && xchg_alg_applies(va, &t, &vo, NULL) == 0)
            memcpy(out[n++], vspec, sizeof vspec);
    }
    return n;
}

static void matrix(long max_bytes, const char *only, int rotate_only, dtype *types, int ntypes)
{
    static const long sizes[] = {0, 1, 7, 8, 64, 1000, 4096, 65536, 1 << 20};
    char topos[8][64];
    int nt = 0;
    snprintf(topos[nt++], 64, "complete:%d", nranks);
    snprintf(topos[nt++], 64, "ring:%d", nranks);
    for (int a = 2; a * a <= nranks; a++)
        if (nranks % a == 0 && nranks / a >= 2) {
            snprintf(topos[nt++], 64, "torus:%dx%d", a, nranks / a);
            break;
        }
    if (nranks == 27)
        snprintf(topos[nt++], 64, "torus:3x3x3");
    if (nranks == 64)
        snprintf(topos[nt++], 64, "torus:4x4x4");
    if ((nranks & (nranks - 1)) == 0)
        snprintf(topos[nt++], 64, "hypercube:%d", __builtin_ctz((unsigned)nranks));
    int cases = 0, rot = 0;
    /* a spec runs on the first topology it applies to: the block paths of
     * the algorithms that apply to several (pairwise, bruck, hc-*) depend
     * on node ids only, so another layout would repeat the same exchange */
    static xchg_spec done[XCHG_MAX_VARIANTS * 16];
    int ndone = 0;
    for (int ti = 0; ti < nt; ti++) {
        xchg_spec specs[XCHG_MAX_VARIANTS * 4];
        int ns = specs_on(topos[ti], specs, XCHG_MAX_VARIANTS * 4);
        if (ti == 0 && ns < XCHG_MAX_VARIANTS * 4) /* and the shared-memory exchange */
            snprintf(specs[ns++], sizeof specs[0], "shm");
        for (int si = 0; si < ns; si++) {
            if (only && strcmp(only, specs[si]))
                continue;
            int seen = 0;
            for (int i = 0; i < ndone && !seen; i++)
                seen = !strcmp(done[i], specs[si]);
            if (seen || ndone == (int)(sizeof done / sizeof *done))
                continue;
            memcpy(done[ndone++], specs[si], sizeof(xchg_spec));
            /* every size, the type and in-place turning round */
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                if (sizes[k] > max_bytes)
                    continue;
                const dtype *dt = &types[rot % ntypes];
                long bytes = sizes[k] / 8 * 8 + (dt->send == MPI_BYTE ? sizes[k] % 8 : 0);
                run_case(specs[si], topos[ti], MPI_COMM_WORLD, bytes, dt, (rot / ntypes) % 2);
                rot++;
                cases++;
            }
            /* every type, in place and not, at one size */
            for (int d = 0; d < ntypes && !rotate_only; d++)
                for (int ip = 0; ip < 2; ip++, cases++)
                    run_case(specs[si], topos[ti], MPI_COMM_WORLD, 64, &types[d], ip);
        }
    }
    if (rank == 0)
        printf("p %d: %d cases over %d topologies\n", nranks, cases, nt);
}

/* A Cartesian communicator is laid out as its torus. */
static void cartesian(dtype *types)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    if (nranks < 4)
        return;
    MPI_Dims_create(nranks, 2, dims);
    if (dims[1] < 2)
        return;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    run_case("auto", "auto", cart, 64, &types[0], 0);
    /* the ranks are laid out on the grid: an algorithm asked for runs on
     * it (auto may lay them on complete:p instead when they share one
     * node, whose memory is a switch; the run above checks its result) */
    xchg_mpi_plan *pl = NULL;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "pairwise";
    xchg_mpi_plan_create(8, MPI_BYTE, 8, MPI_BYTE, 0, cart, &o, &pl);
    xchg_mpi_plan_info info;
    xchg_mpi_plan_info_get(pl, &info);
    char want[64];
    snprintf(want, sizeof want, "torus:%dx%d", dims[0], dims[1]);
    check(!strcmp(info.topology, want), "a Cartesian communicator maps to %s (got %s)%ld%ld",
          want, info.topology, 0, 0);
    xchg_mpi_plan_free(pl);
    MPI_Comm_free(&cart);
}

/* A persistent plan run three times; fallbacks say why. */
static void persistent(void)
{
    long n = 100;
    unsigned char *s = malloc((size_t)n * nranks), *a = malloc((size_t)n * nranks),
                  *b = malloc((size_t)n * nranks);
    for (long i = 0; i < n * nranks; i++)
        s[i] = pattern(rank, i);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    xchg_mpi_plan *pl = NULL;
    int rc = xchg_mpi_plan_create(n, MPI_BYTE, n, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &pl);
    PMPI_Alltoall(s, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, MPI_COMM_WORLD);
    for (int it = 0; it < 3 && rc == MPI_SUCCESS; it++) {
        memset(a, 0, (size_t)n * nranks);
        rc = xchg_mpi_plan_run(pl, s, a);
        check(rc == MPI_SUCCESS && !memcmp(a, b, (size_t)n * nranks),
              "persistent plan run %s%s %ld of p %ld", "", "", it, nranks);
    }
    xchg_mpi_plan_info info;
    xchg_mpi_plan_info_get(pl, &info);
    /* on 2 ranks auto passes the exchange to the library (one message
     * each way, the library's own), unless it takes shm */
    int two = nranks == 2 && !(!info.fallback && !strcmp(info.alg, "shm"));
    check(two ? info.fallback && strstr(info.why, "2 ranks exchange one message") != NULL
              : !info.fallback && info.alg[0],
          "auto plans an xchg algorithm, or on 2 ranks the library's (%s; %s)%ld%ld", info.alg,
          info.why, 0, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = xchg_mpi_plan_run(pl, MPI_IN_PLACE, a);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    check(rc == MPI_ERR_ARG,
          "an in-place run of a plan made not in place is refused%s%s%ld%ld", "", "", 0, 0);
    xchg_mpi_plan_free(pl);

    /* a shm plan: its segment (2 p^2 m bytes and a 128-byte header), and
     * many runs back to back with new data each time: a rank that ran ahead
     * into the next run must not overwrite blocks a slower rank has still
     * to read (the two grids alternate) */
    o.alg = "shm";
    xchg_mpi_plan_create(n, MPI_BYTE, n, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &pl);
    xchg_mpi_plan_info_get(pl, &info);
    MPI_Comm node;
    int node_ranks = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    if (node_ranks == nranks) /* one node: shm runs */
        check(!strcmp(info.alg, "shm") && info.steps == 1 &&
                  info.shared_bytes == 128 + 2 * (size_t)nranks * (size_t)nranks * (size_t)n,
              "a shm plan maps 128 + 2 p^2 m bytes in one round (%s: %s)%ld%ld", info.alg,
              info.why, (long)info.shared_bytes, 0);
    else /* several (MPICH's MPIR_CVAR_NUM_CLIQUES emulates them): it cannot */
        check(info.fallback && strstr(info.why, "do not all share one node"),
              "shm across nodes falls back and says why (%s: %s)%ld%ld", info.alg, info.why, 0, 0);
    long wrong = 0;
    rc = MPI_SUCCESS;
    for (int it = 0; it < 300 && rc == MPI_SUCCESS; it++) {
        for (long i = 0; i < n * nranks; i++)
            s[i] = pattern(rank * 1000 + it, i);
        rc = xchg_mpi_plan_run(pl, s, a);
        for (long o_ = 0; o_ < nranks; o_++)
            for (long i = 0; i < n; i++)
                wrong += a[o_ * n + i] != pattern(o_ * 1000 + it, rank * n + i);
    }
    check(rc == MPI_SUCCESS && wrong == 0, "300 shm runs back to back%s%s: %ld bytes wrong, p %ld",
          "", "", wrong, nranks);
    xchg_mpi_plan_free(pl);
    o.alg = "auto";
    for (long i = 0; i < n * nranks; i++) /* b is this data's exchange */
        s[i] = pattern(rank, i);

    /* the wrong number of nodes and "mpi" fall back, and still exchange */
    const char *topo_bad = nranks == 9 ? "torus:2x2" : "torus:3x3";
    o.topology = topo_bad;
    xchg_mpi_plan_create(n, MPI_BYTE, n, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &pl);
    xchg_mpi_plan_info_get(pl, &info);
    check(info.fallback && strstr(info.why, "ranks"), "%s falls back and says why: %s%ld%ld",
          topo_bad, info.why, 0, 0);
    memset(a, 0, (size_t)n * nranks);
    rc = xchg_mpi_plan_run(pl, s, a);
    check(rc == MPI_SUCCESS && !memcmp(a, b, (size_t)n * nranks),
          "a fallback plan still exchanges%s%s%ld%ld", "", "", 0, 0);
    xchg_mpi_plan_free(pl);

    /* another operation's algorithm is never run as an exchange: named
     * alone it is that operation's choice and leaves the exchange to auto
     * (which exchanges); with a root, XCHG_ALG refuses it (the call gives
     * the root); for the exchange alone (xchg_mpi_alg_check_op) it is
     * refused by its operation */
    xchg_err aerr = {{0}};
    check(xchg_mpi_alg_check("bcast-hc:root=1", &aerr) == XCHG_EINVAL &&
              strstr(aerr.msg, "the call gives the root"),
          "XCHG_ALG=bcast-hc:root=1 is refused: %s%s%ld%ld", aerr.msg, "", 0, 0);
    check(xchg_mpi_alg_check("hc-standard,bcast-hc", &aerr) == XCHG_OK &&
              xchg_mpi_alg_check("bruck,hc-standard", &aerr) == XCHG_EINVAL &&
              strstr(aerr.msg, "two algorithms of alltoall"),
          "XCHG_ALG lists one algorithm per operation: %s%s%ld%ld", aerr.msg, "", 0, 0);
    /* a spec's options may hold commas: the list splits before names only */
    char for_op[XCHG_SPEC_MAX];
    xchg_mpi_alg_for("multiphase:1,1,2,bcast-hc", XCHG_OP_ALLTOALL, for_op, sizeof for_op);
    check(xchg_mpi_alg_check("multiphase:1,1,2,bcast-hc", &aerr) == XCHG_OK &&
              !strcmp(for_op, "multiphase:1,1,2"),
          "a list holding multiphase:1,1,2: %s, alltoall's is %s%ld%ld", aerr.msg, for_op, 0, 0);
    xchg_mpi_alg_for("multiphase:1,1,2", XCHG_OP_ALLTOALL, for_op, sizeof for_op);
    check(!strcmp(for_op, "multiphase:1,1,2"), "multiphase:1,1,2 alone is one spec: %s%s%ld%ld",
          for_op, "", 0, 0);
    check(xchg_mpi_alg_check_op("bcast-hc", XCHG_OP_ALLTOALL, &aerr) == XCHG_EINVAL &&
              strstr(aerr.msg, "bcast-hc performs bcast, not the complete exchange"),
          "bcast-hc is not an exchange: %s%s%ld%ld", aerr.msg, "", 0, 0);
    check(xchg_mpi_alg_check_op("bcast-hc:root=3", XCHG_OP_BCAST, &aerr) == XCHG_EINVAL &&
              strstr(aerr.msg, "the call gives the root") &&
              xchg_mpi_alg_check_op("bcast-hc", XCHG_OP_BCAST, &aerr) == XCHG_OK,
          "one operation's algorithm with a root is refused: %s%s%ld%ld", aerr.msg, "", 0, 0);
    o.topology = "auto";
    o.alg = "bcast-hc";
    xchg_mpi_plan_create(n, MPI_BYTE, n, MPI_BYTE, 0, MPI_COMM_WORLD, &o, &pl);
    xchg_mpi_plan_info_get(pl, &info);
    check(strcmp(info.alg, "bcast-hc") != 0 && strstr(info.why, "asked for") == NULL,
          "bcast-hc leaves the exchange to auto: %s (%s)%ld%ld", info.alg, info.why, 0, 0);
    memset(a, 0, (size_t)n * nranks);
    rc = xchg_mpi_plan_run(pl, s, a);
    check(rc == MPI_SUCCESS && !memcmp(a, b, (size_t)n * nranks),
          "with bcast-hc named, the exchange still exchanges%s%s%ld%ld", "", "", 0, 0);
    xchg_mpi_plan_free(pl);
    o.alg = "auto";
    free(s);
    free(a);
    free(b);
}

/* Errors come back through the error handler (MPI_ERRORS_RETURN). */
static void errors(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    char s[64] = {0}, r[64];
    int cls;
    int rc = xchg_mpi_alltoall(s, -1, MPI_BYTE, r, 1, MPI_BYTE, c, NULL);
    MPI_Error_class(rc, &cls);
    check(cls == MPI_ERR_COUNT, "count -1 returns MPI_ERR_COUNT%s%s (got %ld)%ld", "", "", cls, 0);
    rc = xchg_mpi_alltoall(s, 1, MPI_DATATYPE_NULL, r, 1, MPI_BYTE, c, NULL);
    MPI_Error_class(rc, &cls);
    check(cls == MPI_ERR_TYPE, "a null type returns MPI_ERR_TYPE%s%s (got %ld)%ld", "", "", cls,
          0);
    if (nranks * 2 <= 64) {
        rc = xchg_mpi_alltoall(s, 2, MPI_BYTE, r, 1, MPI_BYTE, c, NULL);
        MPI_Error_class(rc, &cls);
        check(cls == MPI_ERR_TRUNCATE, "more sent than received returns MPI_ERR_TRUNCATE%s%s "
              "(got %ld)%ld", "", "", cls, 0);
    }
    MPI_Comm_free(&c);
}

/* An intercommunicator goes to the MPI library's own call, and is counted
 * as passed. */
static void intercommunicator(void)
{
    if (nranks < 2)
        return;
    MPI_Comm half, inter;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int *s = malloc(sizeof(int) * (size_t)remote), *r = malloc(sizeof(int) * (size_t)remote);
    for (int i = 0; i < remote; i++)
        s[i] = rank * 1000 + i;
    uint64_t c0, p0, c1, p1;
    xchg_mpi_call_counts(&c0, &p0);
    int rc = xchg_mpi_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, inter, NULL);
    xchg_mpi_call_counts(&c1, &p1);
    int local_rank, ok = rc == MPI_SUCCESS && p1 == p0 + 1 && c1 == c0;
    MPI_Comm_rank(half, &local_rank);
    for (int i = 0; i < remote; i++) /* remote rank i is world rank 2i + 1 - color */
        ok &= r[i] == (2 * i + 1 - color) * 1000 + local_rank;
    check(ok, "an intercommunicator goes to the MPI library %s%s(rc %ld, passed +%ld)", "", "",
          rc, (long)(p1 - p0));
    free(s);
    free(r);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* One exchange of `total` bytes (count x extent x p) through xchg. */
static int big(long long total)
{
    size_t block = (size_t)(total / nranks) / 4 * 4;
    size_t n = block * (size_t)nranks;
    uint32_t *s = huge_pages_alloc(n), *r = huge_pages_alloc(n);
    if (!s || !r) {
        fprintf(stderr, "rank %d: cannot allocate 2 x %zu bytes\n", rank, n);
        if (s)
            munmap(s, n);
        if (r)
            munmap(r, n);
        return 1;
    }
    size_t per = block / 4;
    for (size_t d = 0; d < (size_t)nranks; d++)
        for (size_t i = 0; i < per; i++)
            s[d * per + i] = (uint32_t)(rank * 1000003u + d * 7919u + i);
    memset(r, 0, n);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    int rc = xchg_mpi_alltoall(s, (MPI_Count)per, MPI_INT, r, (MPI_Count)per, MPI_INT,
                               MPI_COMM_WORLD, &o);
    size_t bad = 0;
    for (size_t src = 0; src < (size_t)nranks; src++)
        for (size_t i = 0; i < per; i++)
            bad += r[src * per + i] != (uint32_t)(src * 1000003u + (size_t)rank * 7919u + i);
    check(rc == MPI_SUCCESS && bad == 0, "exchange of %s%s%ld bytes in all: %ld words wrong", "",
          "", (long)n, (long)bad);
    if (rank == 0)
        printf("big: %zu bytes a rank (count %zu ints a block, p %d): %s\n", n, per, nranks,
               bad ? "WRONG" : "identical to the pattern");
    munmap(s, n);
    munmap(r, n);
    return 0;
}

/* MPI_Alltoall from and into MPI_BOTTOM (absolute addresses in the types),
 * through xchg and through the drop-in, twice each (the second could take
 * the short way): on 2 ranks auto passes the exchange to the library, which
 * (MPICH 4.0.2) refuses one address both ways as aliased, so xchg must
 * carry it. */
static void bottom_both_ways(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *s = malloc(sizeof(int) * (size_t)nranks), *r = malloc(sizeof(int) * (size_t)nranks);
    MPI_Datatype ts, tr, t1, t2;
    int one = 1;
    MPI_Aint as, ar;
    MPI_Get_address(s, &as);
    MPI_Get_address(r, &ar);
    MPI_Type_create_hindexed(1, &one, &as, MPI_INT, &t1); /* the int at s */
    MPI_Type_create_resized(t1, 0, sizeof(int), &ts);     /* block j: s[j] */
    MPI_Type_create_hindexed(1, &one, &ar, MPI_INT, &t2);
    MPI_Type_create_resized(t2, 0, sizeof(int), &tr);
    MPI_Type_commit(&ts);
    MPI_Type_commit(&tr);
    for (int it = 0; it < 4; it++) {
        for (int j = 0; j < nranks; j++)
            s[j] = rank * 1000 + j + it, r[j] = -1;
        int rc = it < 2 ? xchg_mpi_alltoall(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, comm, NULL)
                        : MPI_Alltoall(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, comm);
        int ok = rc == MPI_SUCCESS, bad = -1;
        for (int j = 0; j < nranks && ok; j++)
            if (!(ok = r[j] == j * 1000 + rank + it))
                bad = j;
        char got[MPI_MAX_ERROR_STRING + 64], msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, msg, &len);
        snprintf(got, sizeof got, "%s, first wrong block %d: %d", rc ? msg : "succeeded", bad,
                 bad < 0 ? 0 : r[bad]);
        check(ok, "MPI_BOTTOM both ways with absolute addresses, %s: right (%s), call %ld of p %ld",
              it < 2 ? "xchg_mpi_alltoall" : "MPI_Alltoall (the drop-in)", got, it % 2 + 1,
              nranks);
    }
    MPI_Type_free(&ts), MPI_Type_free(&tr), MPI_Type_free(&t1), MPI_Type_free(&t2);
    free(s), free(r);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long max_bytes = 1 << 20;
    long long big_bytes = 0;
    const char *only = NULL;
    int rotate_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rotate-only"))
            rotate_only = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--max-bytes"))
            max_bytes = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--only"))
            only = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--big"))
            big_bytes = atoll(argv[++i]);
    }
    if (big_bytes) {
        big(big_bytes);
    } else {
        MPI_Datatype vec, vec_r;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* 2 ints with a hole: size 8, extent 12 */
        MPI_Type_commit(&vec);
        MPI_Type_create_resized(MPI_INT, 0, 8, &vec_r); /* an int in 8 bytes */
        MPI_Type_commit(&vec_r);
        MPI_Datatype idx, st;
        int lens[2] = {1, 2}, disps[2] = {0, 3};
        MPI_Type_indexed(2, lens, disps, MPI_INT, &idx); /* 3 ints in 5: holes */
        MPI_Type_commit(&idx);
        int blens[2] = {1, 1};
        MPI_Aint sdisp[2] = {0, 8};
        MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, blens, sdisp, stypes, &st); /* int, pad, double */
        MPI_Type_commit(&st);
        dtype types[] = {{"MPI_BYTE", MPI_BYTE, MPI_BYTE},
                         {"MPI_INT", MPI_INT, MPI_INT},
                         {"MPI_DOUBLE", MPI_DOUBLE, MPI_DOUBLE},
                         {"vector->resized", vec, vec_r},
                         {"indexed", idx, idx},
                         {"struct", st, st}};
        matrix(max_bytes, only, rotate_only, types, 6);
        intercommunicator();
        cartesian(types);
        persistent();
        bottom_both_ways();
        errors();
        MPI_Type_free(&vec);
        MPI_Type_free(&vec_r);
        MPI_Type_free(&idx);
        MPI_Type_free(&st);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mpi_exec p %d: %d checks on rank 0, %d failures on all ranks\n", nranks,
               checks, all);
    MPI_Finalize();
    return all ? 1 : 0;
}
