/*
 * fft2d_mpi.c - an ordinary MPI application: a distributed 2-D complex DFT
 * with FFTW's MPI interface (fftw3-mpi). It knows nothing of xchg; its
 * MPI_Alltoall calls come from FFTW's distributed transposes, so running it
 * with and without LD_PRELOAD=libxchg_mpi.so must print the same bytes
 * (tests/mpi/fft2d.sh, examples/README.md).
 *
 * The N0 x N1 input is a function of the global index only (not of the
 * number of ranks), laid out by fftw_mpi_local_size_2d. Each repetition
 * refills the input (the plans may destroy it) and runs the forward DFT;
 * with --backward the last forward result is also transformed back. Rank 0
 * gathers each result in global row-major order and prints its FNV-1a 64
 * hash over the raw bytes and a few values in %a (exact), so two runs can be
 * compared byte for byte.
 *
 * Which FFTW transpose runs decides whether MPI_Alltoall is called: only
 * FFTW's transpose-alltoall solver calls it, and only when N0 and N1 are
 * both multiples of the number of ranks (equal blocks; otherwise it calls
 * MPI_Alltoallv). The solver needs an out-of-place transform that may
 * destroy its input, which is this program's default; --in-place or
 * --preserve-input rule it out. FFTW_ESTIMATE (the default) plans without
 * timing, so the same plan, and the same bits, come out on every run.
 *
 * Usage: fft2d_mpi [options]   (--help lists them); exit 2 on bad usage.
 */
#include <complex.h>
#include <fftw3-mpi.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the command line asks for. */
typedef struct {
    ptrdiff_t n0, n1;
    long reps;
    unsigned planner; /* FFTW_ESTIMATE, FFTW_MEASURE or FFTW_PATIENT */
    int transposed;   /* FFTW_MPI_TRANSPOSED_OUT / _IN */
    int in_place;
    int preserve;     /* FFTW_PRESERVE_INPUT */
    int backward;
    int print_plan;
} fft_args;

static void usage(FILE *f)
{
    fputs("usage: fft2d_mpi [--size N0xN1] [--reps R] [--plan estimate|measure|patient]\n"
          "                 [--transposed] [--in-place] [--preserve-input] [--backward]\n"
          "                 [--print-plan] [--help]\n"
          "  --size N0xN1      global array, N0 rows distributed over the ranks (default 64x64)\n"
          "  --reps R          forward transforms to run, R >= 1 (default 4)\n"
          "  --plan P          FFTW planner rigour (default estimate: no timing, same plan\n"
          "                    on every run)\n"
          "  --transposed      FFTW_MPI_TRANSPOSED_OUT forward (and _IN backward): one\n"
          "                    global transpose per transform instead of two\n"
          "  --in-place        transform in place (FFTW then uses no MPI_Alltoall)\n"
          "  --preserve-input  FFTW_PRESERVE_INPUT (FFTW then uses no MPI_Alltoall)\n"
          "  --backward        also transform the last forward result back\n"
          "  --print-plan      rank 0 prints the FFTW plans on stderr\n"
          "Rank 0 prints, per result, its FNV-1a 64 hash over the raw bytes in global\n"
          "row-major order and a few values in %a.\n",
          f);
}

/* Prints a usage error on rank 0 and leaves with status 2. */
static void bad_usage(int rank, const char *what, const char *value)
{
    if (rank == 0) {
        fprintf(stderr, "fft2d_mpi: %s '%s'\n", what, value);
        usage(stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* Parses a whole decimal number in [lo, hi]; returns 0 or -1. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parses "N0xN1", each 2..65536 (FFTW 3.3.10's MPI planner divides by zero
 * on 1x1); returns 0 or -1. */
static int parse_size(const char *s, ptrdiff_t *n0, ptrdiff_t *n1)
{
    char buf[64], *x;
    long a, b;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    x = strchr(buf, 'x');
    if (!x)
        return -1;
    *x = '\0';
    if (parse_long(buf, 2, 65536, &a) || parse_long(x + 1, 2, 65536, &b))
        return -1;
    *n0 = a;
    *n1 = b;
    return 0;
}

/* Reads argv into a; bad usage leaves the program with status 2. */
static void parse_args(int argc, char **argv, int rank, fft_args *a)
{
    memset(a, 0, sizeof *a);
    a->n0 = a->n1 = 64;
    a->reps = 4;
    a->planner = FFTW_ESTIMATE;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help")) {
            if (rank == 0)
                usage(stdout);
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(o, "--size") || !strcmp(o, "--reps") || !strcmp(o, "--plan")) {
            if (!v)
                bad_usage(rank, "missing value after", o);
            i++;
            if (!strcmp(o, "--size")) {
                if (parse_size(v, &a->n0, &a->n1))
                    bad_usage(rank, "--size wants N0xN1 with 2 <= N0, N1 <= 65536, not", v);
                /* Rank 0 gathers the whole result with int byte counts. */
                if (a->n0 * a->n1 > INT_MAX / (ptrdiff_t)sizeof(fftw_complex))
                    bad_usage(rank, "--size: rank 0 gathers the result, at most 2^31 bytes:", v);
            } else if (!strcmp(o, "--reps")) {
                if (parse_long(v, 1, 1000000, &a->reps))
                    bad_usage(rank, "--reps wants a whole number 1..1000000, not", v);
            } else if (!strcmp(v, "estimate")) {
                a->planner = FFTW_ESTIMATE;
            } else if (!strcmp(v, "measure")) {
                a->planner = FFTW_MEASURE;
            } else if (!strcmp(v, "patient")) {
                a->planner = FFTW_PATIENT;
            } else {
                bad_usage(rank, "--plan wants estimate, measure or patient, not", v);
            }
        } else if (!strcmp(o, "--transposed")) {
            a->transposed = 1;
        } else if (!strcmp(o, "--in-place")) {
            a->in_place = 1;
        } else if (!strcmp(o, "--preserve-input")) {
            a->preserve = 1;
        } else if (!strcmp(o, "--backward")) {
            a->backward = 1;
        } else if (!strcmp(o, "--print-plan")) {
            a->print_plan = 1;
        } else {
            bad_usage(rank, "unknown argument", o);
        }
    }
}

/* The input at global (i, j): a mix of the index mapped to [-0.5, 0.5). */
static fftw_complex input_value(ptrdiff_t i, ptrdiff_t j)
{
    uint64_t h = ((uint64_t)i << 32) ^ (uint64_t)j ^ 0x9e3779b97f4a7c15u;
    double re, im;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    re = (double)(h >> 11) * 0x1p-53 - 0.5;
    im = (double)(h & 0xfffff) * 0x1p-20 - 0.5;
    return re + I * im;
}

/* Fills this rank's rows [start, start + rows) of the N0 x N1 input. */
static void fill_input(fftw_complex *in, ptrdiff_t start, ptrdiff_t rows, ptrdiff_t n1)
{
    for (ptrdiff_t i = 0; i < rows; i++)
        for (ptrdiff_t j = 0; j < n1; j++)
            in[i * n1 + j] = input_value(start + i, j);
}

/* FNV-1a 64 over n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++) {
        h ^= b[k];
        h *= 0x100000001b3u;
    }
    return h;
}

/*
 * Gathers a distributed result onto rank 0 and prints its hash and a few
 * values. Each rank holds rows [start, start + rows) of a rows_all x cols
 * array; when transposed is set that array is the transpose of the N0 x N1
 * result (cols = N0), and rank 0 transposes it back so the hash is always
 * over N0 x N1 row-major. Collective; returns 0 or -1 (out of memory).
 */
static int print_result(const char *name, const fftw_complex *mine, ptrdiff_t start,
                        ptrdiff_t rows, ptrdiff_t rows_all, ptrdiff_t cols, int transposed,
                        MPI_Comm comm)
{
    int rank, np, ok = 1;
    int *counts = NULL, *displs = NULL;
    fftw_complex *all = NULL, *row_major = NULL;
    int mine_bytes = (int)(rows * cols * (ptrdiff_t)sizeof(fftw_complex));
    int start_bytes = (int)(start * cols * (ptrdiff_t)sizeof(fftw_complex));

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    if (rank == 0) {
        counts = malloc((size_t)np * sizeof *counts);
        displs = malloc((size_t)np * sizeof *displs);
        all = fftw_alloc_complex((size_t)(rows_all * cols));
        ok = counts && displs && all;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok)
        goto done;
    MPI_Gather(&mine_bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    MPI_Gather(&start_bytes, 1, MPI_INT, displs, 1, MPI_INT, 0, comm);
    MPI_Gatherv(mine, mine_bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    if (rank == 0) {
        ptrdiff_t n0 = transposed ? cols : rows_all, n1 = transposed ? rows_all : cols;
        row_major = all;
        if (transposed) {
            row_major = fftw_alloc_complex((size_t)(n0 * n1));
            if (!row_major) {
                ok = 0;
                goto done;
            }
            for (ptrdiff_t i = 0; i < n0; i++)
                for (ptrdiff_t j = 0; j < n1; j++)
                    row_major[i * n1 + j] = all[j * n0 + i];
        }
        size_t n = (size_t)(n0 * n1);
        uint64_t h = fnv1a(0xcbf29ce484222325u, row_major, n * sizeof(fftw_complex));
        printf("%s: %tdx%td fnv1a64 %016llx\n", name, n0, n1, (unsigned long long)h);
        size_t pick[4] = {0, 1, n / 2, n - 1};
        for (int k = 0; k < 4; k++)
            printf("%s[%zu] = %a %+a i\n", name, pick[k], creal(row_major[pick[k]]),
                   cimag(row_major[pick[k]]));
    }
done:
    if (row_major != all)
        fftw_free(row_major);
    fftw_free(all);
    free(displs);
    free(counts);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    fft_args a;
    int rank, np, status = 0;
    ptrdiff_t alloc, n0_local, n0_start, n1_local, n1_start;
    fftw_complex *in = NULL, *out = NULL, *back = NULL;
    fftw_plan fwd = NULL, bwd = NULL;
    unsigned fwd_flags, bwd_flags;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    parse_args(argc, argv, rank, &a);
    fftw_mpi_init();

    /* The transposed local size also covers the transposed layout. */
    alloc = fftw_mpi_local_size_2d_transposed(a.n0, a.n1, MPI_COMM_WORLD, &n0_local, &n0_start,
                                              &n1_local, &n1_start);
    in = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    out = a.in_place ? in : fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    back = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    if (!in || !out || !back) {
        fprintf(stderr, "fft2d_mpi: rank %d: out of memory for %td elements\n", rank, alloc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    fwd_flags = a.planner | (a.preserve ? FFTW_PRESERVE_INPUT : FFTW_DESTROY_INPUT) |
                (a.transposed ? FFTW_MPI_TRANSPOSED_OUT : 0);
    bwd_flags = a.planner | FFTW_DESTROY_INPUT | (a.transposed ? FFTW_MPI_TRANSPOSED_IN : 0);
    /* MEASURE and PATIENT overwrite the arrays while planning: plan first. */
    fwd = fftw_mpi_plan_dft_2d(a.n0, a.n1, in, out, MPI_COMM_WORLD, FFTW_FORWARD, fwd_flags);
    if (a.backward)
        bwd = fftw_mpi_plan_dft_2d(a.n0, a.n1, out, back, MPI_COMM_WORLD, FFTW_BACKWARD,
                                   bwd_flags);
    if (!fwd || (a.backward && !bwd)) {
        if (rank == 0)
            fprintf(stderr, "fft2d_mpi: FFTW made no plan for %tdx%td on %d ranks\n", a.n0,
                    a.n1, np);
        status = 1;
        goto done;
    }
    if (a.print_plan && rank == 0) {
        fputs("fft2d_mpi: forward plan: ", stderr);
        fftw_fprint_plan(fwd, stderr);
        fputc('\n', stderr);
        if (bwd) {
            fputs("fft2d_mpi: backward plan: ", stderr);
            fftw_fprint_plan(bwd, stderr);
            fputc('\n', stderr);
        }
    }

    for (long r = 0; r < a.reps; r++) {
        fill_input(in, n0_start, n0_local, a.n1);
        fftw_execute(fwd);
    }
    if (a.transposed)
        status = print_result("forward", out, n1_start, n1_local, a.n1, a.n0, 1, MPI_COMM_WORLD);
    else
        status = print_result("forward", out, n0_start, n0_local, a.n0, a.n1, 0, MPI_COMM_WORLD);
    if (status == 0 && bwd) {
        fftw_execute(bwd);
        status = print_result("backward", back, n0_start, n0_local, a.n0, a.n1, 0,
                              MPI_COMM_WORLD);
    }
    if (status != 0 && rank == 0)
        fprintf(stderr, "fft2d_mpi: out of memory gathering the result\n");
    status = status ? 1 : 0;

done:
    fftw_destroy_plan(bwd);
    fftw_destroy_plan(fwd);
    fftw_free(back);
    if (out != in)
        fftw_free(out);
    fftw_free(in);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return status;
}
