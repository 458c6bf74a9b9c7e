/*
 * mpi_persistent.c - persistent and nonblocking all-to-all, timed
 * (bench/mpi_persistent.sh runs it; docs/nonblocking.md reads it).
 *
 *   mpi_persistent [--iters N] [--sizes LIST] [--compute US]
 *
 * For each block size (bytes; LIST comma-separated, default
 * 8,64,512,4096,32768), N rounds, each timing one call of every way in
 * turn (the order rotating every round), every rank's time per call
 * averaged, the rounds' median kept:
 *   xchg-blocking    xchg_mpi_alltoall
 *   xchg-persistent  MPI_Start + MPI_Wait on xchg_mpi_alltoall_init's
 *   lib-blocking     PMPI_Alltoall
 *   lib-persistent   the library's own persistent call (MPI 4's
 *                    PMPI_Alltoall_init, or Open MPI's PMPIX_Alltoall_init)
 * and, with --compute US (a busy loop of about US microseconds), the
 * overlap of a nonblocking exchange with computation, xchg's
 * (xchg_mpi_ialltoall) and the library's (PMPI_Ialltoall) alike: the
 * exchange alone (start + wait: c), the computation alone (w), and start +
 * computation + wait (t); hidden = (c + w - t) / min(c, w), the share of
 * the shorter one that the overlap hid (1: all of it, 0: none).
 * Results are checked once per size against PMPI_Alltoall. Prints one
 * line per size and way on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#define WAYS 4
static const char *way_name[WAYS] = {"xchg-blocking", "xchg-persistent", "lib-blocking",
                                     "lib-persistent"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The library's persistent alltoall, where it has one. */
static int lib_init(const void *s, int n, void *r, MPI_Request *q)
{
#if MPI_VERSION >= 4
    return PMPI_Alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL, q);
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
    return PMPIX_Alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL, q);
#else
    (void)s, (void)n, (void)r, (void)q;
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

/* About us microseconds of arithmetic. */
static volatile double sink;
static void compute(double us)
{
    double t0 = MPI_Wtime(), x = 0;
    while ((MPI_Wtime() - t0) * 1e6 < us)
        for (int i = 0; i < 100; i++)
            x += i * 0.5;
    sink = x;
}

/* The slowest rank's time of one timed section, as every rank sees it. */
static double slowest(double t)
{
    double m = t;
    PMPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me, iters = 50;
    double work = 0;
    char sizes[256] = "8,64,512,4096,32768";
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iters"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes"))
            snprintf(sizes, sizeof sizes, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--compute"))
            work = atof(argv[i + 1]);
    }
    if (iters < 1) {
        if (me == 0)
            fprintf(stderr, "mpi_persistent: --iters needs a count >= 1\n");
        MPI_Finalize();
        return 2;
    }
    if (me == 0)
        printf("# p = %d, %d rounds; time (us) = median over rounds of the slowest rank's call\n",
               p, iters);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int n = atoi(tok);
        size_t all = (size_t)n * (size_t)p;
        unsigned char *s = malloc(all), *r = malloc(all), *ref = malloc(all);
        for (size_t i = 0; i < all; i++)
            s[i] = (unsigned char)(me * 31 + i * 7);
        MPI_Request mine, lib = MPI_REQUEST_NULL;
        xchg_mpi_alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                               NULL, &mine);
        int have_lib = lib_init(s, n, r, &lib) == MPI_SUCCESS;
        /* checked once: xchg's persistent against the library's blocking */
        PMPI_Alltoall(s, n, MPI_BYTE, ref, n, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Start(&mine);
        MPI_Wait(&mine, MPI_STATUS_IGNORE);
        int ok = !memcmp(r, ref, all), allok = 0;
        PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        double *t = malloc(sizeof(double) * WAYS * (size_t)iters);
        for (int k = 0; k < iters; k++)
            for (int w0 = 0; w0 < WAYS; w0++) {
                int w = (w0 + k) % WAYS;
                if (w == 3 && !have_lib) {
                    t[w * iters + k] = 0;
                    continue;
                }
                PMPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (w == 0)
                    xchg_mpi_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, NULL);
                else if (w == 1 || w == 3) {
                    MPI_Request *q = w == 1 ? &mine : &lib;
                    MPI_Start(q);
                    MPI_Wait(q, MPI_STATUS_IGNORE);
                } else
                    PMPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
                t[w * iters + k] = slowest(MPI_Wtime() - t0) * 1e6;
            }
        for (int w = 0; w < WAYS; w++)
            if (me == 0 && (w != 3 || have_lib))
                printf("size %d %-16s %10.2f us%s\n", n, way_name[w], median(t + w * iters, iters),
                       w == 1 ? (allok ? "  (checked: Pass)" : "  (checked: FAIL)") : "");
        /* overlap of a nonblocking exchange with computation */
        for (int side = 0; work > 0 && side < 2; side++) {
            double *c = malloc(sizeof(double) * 3 * (size_t)iters), *wk = c + iters,
                   *tt = c + 2 * iters;
            for (int k = 0; k < iters; k++) {
                MPI_Request q;
                for (int phase = 0; phase < 3; phase++) {
                    PMPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    if (phase != 1) {
                        if (side == 0)
                            xchg_mpi_ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, NULL,
                                               &q);
                        else
                            PMPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, &q);
                    }
                    if (phase != 0)
                        compute(work);
                    if (phase != 1)
                        MPI_Wait(&q, MPI_STATUS_IGNORE);
                    double dt = slowest(MPI_Wtime() - t0) * 1e6;
                    (phase == 0 ? c : phase == 1 ? wk : tt)[k] = dt;
                }
            }
            double mc = median(c, iters), mw = median(wk, iters), mt = median(tt, iters);
            double hid = (mc + mw - mt) / (mc < mw ? mc : mw);
            if (me == 0)
                printf("size %d overlap-%s exchange %.2f us, compute %.2f us, both %.2f us: "
                       "hidden %.2f\n",
                       n, side == 0 ? "xchg" : "lib", mc, mw, mt, hid);
            free(c);
        }
        MPI_Request_free(&mine);
        if (have_lib)
            MPI_Request_free(&lib);
        free(s), free(r), free(ref), free(t);
    }
    MPI_Finalize();
    return 0;
}
