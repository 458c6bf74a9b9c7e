/*
 * test_mpi_tune_v.c - auto's MPI_Alltoallv and MPI_Alltoallw following a
 * tuning file's rows of alltoallv (src/mpi/tuned_v.c; docs/tuning.md),
 * on 4 ranks, every byte of every call checked.
 *
 * Usage: mpirun -np 4 test_mpi_tune_v FILE MODE, FILE a tuning file for
 * alltoallv on complete:4 and MODE what it should do:
 *   rows    one node: FILE's rows are shm to 256 B, pairwise to 4096 B,
 *           bruck:2 to 32768 B and mpi above. Each call takes the row of
 *           its largest block (xchg_mpi_last_info says which, and calls by
 *           the mpi row count as passed to the library), the calls after
 *           one that went another way than shm that way without asking
 *           (1, 2, 4, ... of them), a call whose one large block is another
 *           rank's takes the large block's row on every rank, and
 *           MPI_Alltoallw and in-place calls follow the same rows.
 *   model   no segment (run with XCHG_NODE_SIZE=2), FILE's rows as in
 *           rows: the ranks cannot agree per call, so the model's auto
 *           (pairwise), the reason said.
 *   all:ALG every row of FILE names ALG, no segment (XCHG_NODE_SIZE=2):
 *           every call runs ALG (mpi: passed to the library).
 * Exit 0 when every check passed, 1 otherwise (each failure said).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

#define P 4

static int rank, failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "test_mpi_tune_v: rank %d: FAIL %s\n", rank, what);
    }
}

/* Byte k of block (o -> d) of call n. */
static unsigned char pat(int o, int d, size_t k, int n)
{
    return (unsigned char)((o * 37 + d * 11 + n * 5 + (int)(k % 253)) ^ 0x3C);
}

/* One call (w: MPI_Alltoallw; w 2: MPI_Alltoallv in place) where block
 * (o -> d) is m bytes, or big bytes for the one block (big_o -> big_d)
 * when big; every byte checked; then xchg_mpi_last_info's alg against
 * want (and fallback for "mpi"). */
static void call(const xchg_mpi_opts *o, int n, int w, size_t m, int big_o, int big_d, size_t big,
                 const char *want)
{
    int in_place = w == 2;
    w = w == 1;
    int sc[P], sd[P], rc[P], rd[P];
    MPI_Datatype ty[P];
    size_t s = 0, r = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = (int)(rank == big_o && j == big_d && big ? big : m);
        rc[j] = (int)(j == big_o && rank == big_d && big ? big : m);
        sd[j] = (int)s, rd[j] = (int)r;
        s += (size_t)sc[j], r += (size_t)rc[j];
        ty[j] = MPI_BYTE;
    }
    unsigned char *sb = malloc(s), *rb = malloc(r);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int d = 0; d < P; d++)
        for (size_t k = 0; k < (size_t)sc[d]; k++)
            sb[(size_t)sd[d] + k] = pat(rank, d, k, n);
    memset(rb, 0xEE, r);
    if (in_place) /* the blocks to send are the receive buffer's (counts symmetric) */
        memcpy(rb, sb, r);
    int err = w ? xchg_mpi_alltoallw(sb, sc, sd, ty, rb, rc, rd, ty, MPI_COMM_WORLD, o)
                : xchg_mpi_alltoallv(in_place ? MPI_IN_PLACE : sb, sc, sd, MPI_BYTE, rb, rc, rd,
                                     MPI_BYTE, MPI_COMM_WORLD, o);
    char what[600];
    snprintf(what, sizeof what, "call %d (%zu B%s): returned %d", n, m, big ? ", one large" : "",
             err);
    check(err == MPI_SUCCESS, what);
    int bad = 0;
    for (int src = 0; src < P; src++)
        for (size_t k = 0; k < (size_t)rc[src]; k++)
            bad += rb[(size_t)rd[src] + k] != pat(src, rank, k, n);
    snprintf(what, sizeof what, "call %d (%zu B): %d bytes wrong", n, m, bad);
    check(bad == 0, what);
    xchg_mpi_plan_info info;
    err = xchg_mpi_last_info(&info);
    snprintf(what, sizeof what, "call %d (%zu B%s): ran %s (fallback %d), not %s: %.300s", n, m,
             big ? ", one large" : "", info.alg, info.fallback, want, info.why);
    check(err == MPI_SUCCESS && !strcmp(info.alg, want) &&
              info.fallback == !strcmp(want, "mpi"),
          what);
    free(sb);
    free(rb);
}

/* The counters against the calls carried and passed since (c0, p0). */
static void counted(uint64_t c0, uint64_t p0, uint64_t carried, uint64_t passed)
{
    uint64_t c, p;
    xchg_mpi_v_call_counts(&c, &p);
    char what[160];
    snprintf(what, sizeof what, "counted %llu carried and %llu passed, not %llu and %llu",
             (unsigned long long)(c - c0), (unsigned long long)(p - p0),
             (unsigned long long)carried, (unsigned long long)passed);
    check(c - c0 == carried && p - p0 == passed, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p != P || argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np %d test_mpi_tune_v FILE rows|model|all:ALG\n", P);
        MPI_Finalize();
        return 2;
    }
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.tuning_file = argv[1];
    const char *mode = argv[2];
    uint64_t c0, p0;
    xchg_mpi_v_call_counts(&c0, &p0);
    int n = 0;
    if (!strcmp(mode, "rows")) {
        call(&o, n++, 0, 64, 0, 0, 0, "shm");
        call(&o, n++, 0, 1024, 0, 0, 0, "pairwise");
        call(&o, n++, 0, 64, 0, 0, 0, "pairwise"); /* the next call: as the last, unasked */
        call(&o, n++, 0, 8192, 0, 0, 0, "bruck:2");
        call(&o, n++, 0, 8192, 0, 0, 0, "bruck:2");
        call(&o, n++, 0, 64, 0, 0, 0, "bruck:2"); /* two calls unasked */
        call(&o, n++, 0, 65536, 0, 0, 0, "mpi");
        for (int i = 0; i < 4; i++) /* four calls unasked */
            call(&o, n++, 0, 65536, 0, 0, 0, "mpi");
        call(&o, n++, 0, 200, 0, 0, 0, "shm");
        /* one rank's one block decides for every rank */
        call(&o, n++, 0, 8, 2, 1, 40000, "mpi");
        call(&o, n++, 0, 16, 0, 0, 0, "mpi"); /* unasked */
        call(&o, n++, 0, 16, 3, 0, 2000, "pairwise");
        /* MPI_Alltoallw: its own plan, the same rows */
        call(&o, n++, 1, 128, 0, 0, 0, "shm");
        call(&o, n++, 1, 100000, 0, 0, 0, "mpi");
        /* in place: its own plan, the same rows */
        call(&o, n++, 2, 65536, 0, 0, 0, "mpi");
        call(&o, n++, 2, 300, 0, 0, 0, "mpi"); /* unasked */
        call(&o, n++, 2, 8192, 0, 0, 0, "bruck:2");
        call(&o, n++, 2, 8, 0, 0, 0, "bruck:2"); /* unasked */
        call(&o, n++, 2, 8, 0, 0, 0, "bruck:2"); /* unasked */
        call(&o, n++, 2, 100, 0, 0, 0, "shm");
        counted(c0, p0, 13, 10);
    } else if (!strcmp(mode, "model")) {
        call(&o, n++, 0, 64, 0, 0, 0, "pairwise");
        call(&o, n++, 0, 65536, 0, 0, 0, "pairwise");
        xchg_mpi_plan_info info;
        xchg_mpi_last_info(&info);
        check(strstr(info.why, "differ by size") != NULL, info.why);
        counted(c0, p0, 2, 0);
    } else if (!strncmp(mode, "all:", 4)) {
        const char *alg = mode + 4;
        call(&o, n++, 0, 64, 0, 0, 0, alg);
        call(&o, n++, 0, 65536, 0, 0, 0, alg);
        call(&o, n++, 1, 300, 0, 0, 0, alg);
        xchg_mpi_plan_info info;
        xchg_mpi_last_info(&info);
        check(strstr(info.why, "measured fastest at every size") != NULL, info.why);
        int mpi = !strcmp(alg, "mpi");
        counted(c0, p0, mpi ? 0 : 3, mpi ? 3 : 0);
    } else {
        check(0, "unknown mode");
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mpi_tune_v %s: %s\n", mode, all ? "FAIL" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
