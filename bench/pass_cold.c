/*
 * pass_cold.c - what xchg's way to the MPI library costs a call when the
 * caches are cold (bench/pass_cold.sh). At 64 ranks on 2 cores, 31 other
 * ranks run on a core between two of a rank's calls, so every cache line
 * and page a call reads is a miss; this program makes that happen on 2
 * ranks by writing FLUSH MiB of its own before every call.
 *
 * Each iteration makes one call of xchg's (auto, with a tuning file whose
 * row sends this size to the library: xchg_mpi_shift, _scatter or _bcast,
 * which pass it on) and one of the library's (PMPI_Sendrecv, PMPI_Scatter,
 * PMPI_Bcast), in alternating order, each after the flush and a barrier,
 * each timed alone. Prints one line: the operation, the flush, each side's
 * median call (mean over the ranks, microseconds) and their difference.
 *
 * Usage: mpirun -np 2 pass_cold OP TUNING_FILE ITERATIONS FLUSH_MIB
 *   OP: shift, scatter or bcast; 8 bytes a rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

enum { BYTES = 8 };

static volatile unsigned sink;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* One call of op: xchg's (lib 0) or the MPI library's (lib 1). */
static int one_call(const char *op, int lib, unsigned char *s, unsigned char *r, MPI_Comm dup,
                    const xchg_mpi_opts *o)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!strcmp(op, "shift"))
        return lib ? PMPI_Sendrecv(s, BYTES, MPI_BYTE, (me + 1) % p, 0, r, BYTES, MPI_BYTE,
                                   (me + p - 1) % p, 0, dup, MPI_STATUS_IGNORE)
                   : xchg_mpi_shift(s, r, BYTES, MPI_BYTE, 1, MPI_COMM_WORLD, o);
    if (!strcmp(op, "scatter"))
        return lib ? PMPI_Scatter(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD)
                   : xchg_mpi_scatter(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD,
                                      o);
    return lib ? PMPI_Bcast(s, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD)
               : xchg_mpi_bcast(s, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD, o);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *op = argc > 1 ? argv[1] : "";
    long n = argc > 3 ? atol(argv[3]) : 0;
    long flush_mib = argc > 4 ? atol(argv[4]) : -1;
    if (argc != 5 || n < 1 || flush_mib < 0 ||
        (strcmp(op, "shift") && strcmp(op, "scatter") && strcmp(op, "bcast"))) {
        if (me == 0)
            fprintf(stderr, "usage: pass_cold shift|scatter|bcast TUNING_FILE ITERATIONS "
                            "FLUSH_MIB\n");
        MPI_Finalize();
        return 2;
    }
    size_t flush = (size_t)flush_mib << 20;
    unsigned char *big = flush ? malloc(flush) : NULL;
    unsigned char *s = calloc((size_t)p, BYTES), *r = calloc((size_t)p, BYTES);
    double *t_xchg = malloc((size_t)n * sizeof *t_xchg), *t_lib = malloc((size_t)n * sizeof *t_lib);
    if ((flush && !big) || !s || !r || !t_xchg || !t_lib) {
        fprintf(stderr, "pass_cold: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.alg = "auto";
    o.tuning_file = argv[2];
    one_call(op, 0, s, r, dup, &o); /* makes the plan, which passes the call on */
    xchg_mpi_plan_info info;
    if (xchg_mpi_last_info(&info) != MPI_SUCCESS || strcmp(info.alg, "mpi")) {
        if (me == 0)
            fprintf(stderr, "pass_cold: xchg's %s ran %s, not the library's call: %s\n", op,
                    info.alg, info.why);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < n; i++) {
        for (int turn = 0; turn < 2; turn++) {
            int lib = (int)((i + turn) % 2);
            if (flush) { /* read back, or the compiler drops the writes */
                memset(big, (int)(i + turn), flush);
                sink += big[(size_t)(i * 4099) % flush];
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int rc = one_call(op, lib, s, r, dup, &o);
            double t1 = MPI_Wtime();
            if (rc != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            (lib ? t_lib : t_xchg)[i] = t1 - t0;
        }
    }
    qsort(t_xchg, (size_t)n, sizeof *t_xchg, cmp_double);
    qsort(t_lib, (size_t)n, sizeof *t_lib, cmp_double);
    double med[2] = {t_xchg[n / 2] * 1e6, t_lib[n / 2] * 1e6}, sum[2];
    MPI_Reduce(med, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%-8s %5ld %10.3f %10.3f %10.3f\n", op, flush_mib, sum[0] / p, sum[1] / p,
               (sum[0] - sum[1]) / p);
    MPI_Comm_free(&dup);
    free(big);
    free(s);
    free(r);
    free(t_xchg);
    free(t_lib);
    MPI_Finalize();
    return 0;
}
