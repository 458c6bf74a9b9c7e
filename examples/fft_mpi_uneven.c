/*
 * fft_mpi_uneven.c - an ordinary MPI application whose FFTW transposes call
 * MPI_Alltoallv: distributed 2-D and 3-D complex DFTs (fftw3-mpi) on sizes
 * that the number of ranks does not divide, checked against serial FFTW.
 * It knows nothing of xchg; run with and without LD_PRELOAD=libxchg_mpi.so
 * it must print the same bytes (tests/mpi/fft_uneven.sh, examples/README.md).
 *
 * Each size on the command line (N0xN1 or N0xN1xN2) is one forward and one
 * backward transform: fftw_mpi_plan_dft_2d/3d with FFTW_ESTIMATE (no timing:
 * the same plan and bits on every run), out of place, FFTW_DESTROY_INPUT,
 * FFTW_MPI_TRANSPOSED_OUT forward and _IN backward. That is the plan in
 * which FFTW's transpose-alltoall solver runs, one global transpose per
 * transform; when the blocks are unequal (N0 or N1 not a multiple of p) it
 * calls MPI_Alltoallv instead of MPI_Alltoall (examples/README.md, "Which
 * FFTW plans call MPI_Alltoall"). --normal asks for the ordinary layout
 * instead, where FFTW_ESTIMATE picks other transposes.
 *
 * The input is a function of the global index only (not of p). Rank 0
 * gathers the forward result in global row-major order and compares it with
 * serial FFTW on the whole input, then gathers the backward result and
 * compares it, divided by N0*N1(*N2) (FFTW does not normalise), with the
 * input. The error is normwise: max |x - ref| / max |ref|, which must stay
 * below 1e-12. Per transform rank 0 prints one line on stdout:
 *
 *   2-D 37x45 p=3 forward max-rel-error 2.3e-16 fnv1a64 0123456789abcdef OK
 *
 * where fnv1a64 hashes the raw bytes of the gathered result, so two runs can
 * be compared bit for bit. Exit 0 when every line says OK, 1 when one says
 * FAIL, 2 on bad usage (with a message on stderr).
 *
 * Usage: fft_mpi_uneven [--normal] [--print-plan] SIZE...   e.g. 37x45 13x10x11
 */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16
#define MAX_ELEMS (1L << 22) /* rank 0 holds four whole arrays */
#define TOLERANCE 1e-12

typedef struct {
    int rank;       /* 2 or 3 dimensions */
    ptrdiff_t n[3]; /* n[2] = 1 for 2-D */
} fft_size;

typedef struct {
    fft_size sizes[MAX_SIZES];
    int nsizes;
    int normal;     /* 1: no FFTW_MPI_TRANSPOSED_OUT / _IN */
    int print_plan;
} fft_args;

static void usage(FILE *f)
{
    fputs("usage: fft_mpi_uneven [--normal] [--print-plan] [--help] SIZE...\n"
          "  SIZE          N0xN1 (2-D) or N0xN1xN2 (3-D), each 2..4096, at most 2^22\n"
          "                elements; one forward and one backward transform each\n"
          "  --normal      ordinary output layout (default: FFTW_MPI_TRANSPOSED_OUT\n"
          "                forward and _IN backward, the plan whose transposes call\n"
          "                MPI_Alltoall or, on unequal blocks, MPI_Alltoallv)\n"
          "  --print-plan  rank 0 prints FFTW's plans on stderr\n"
          "Rank 0 prints per transform: sizes, p, the max relative error against serial\n"
          "FFTW (forward) or the input (backward), the FNV-1a 64 hash of the result and\n"
          "OK or FAIL (error below 1e-12). Exit 1 on FAIL, 2 on bad usage.\n",
          f);
}

/* Prints a usage error on rank 0 and leaves with status 2. */
static void bad_usage(int rank, const char *what, const char *value)
{
    if (rank == 0) {
        fprintf(stderr, "fft_mpi_uneven: %s '%s'\n", what, value);
        usage(stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* Parses "N0xN1" or "N0xN1xN2", each 2..4096; returns 0 or -1. */
static int parse_size(const char *s, fft_size *z)
{
    const char *p = s;
    long total = 1;
    z->rank = 0;
    z->n[2] = 1;
    for (;;) {
        char *end;
        long v;
        if (*p < '0' || *p > '9' || z->rank == 3)
            return -1;
        v = strtol(p, &end, 10);
        if (v < 2 || v > 4096)
            return -1;
        z->n[z->rank++] = v;
        total *= v;
        if (*end == '\0')
            break;
        if (*end != 'x')
            return -1;
        p = end + 1;
    }
    return z->rank >= 2 && total <= MAX_ELEMS ? 0 : -1;
}

/* Reads argv into a; bad usage leaves the program with status 2. */
static void parse_args(int argc, char **argv, int rank, fft_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help")) {
            if (rank == 0)
                usage(stdout);
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(o, "--normal")) {
            a->normal = 1;
        } else if (!strcmp(o, "--print-plan")) {
            a->print_plan = 1;
        } else if (o[0] == '-') {
            bad_usage(rank, "unknown option", o);
        } else if (a->nsizes == MAX_SIZES) {
            bad_usage(rank, "too many sizes (at most 16), at", o);
        } else if (parse_size(o, &a->sizes[a->nsizes++])) {
            bad_usage(rank, "a size is N0xN1 or N0xN1xN2, each 2..4096, at most 2^22 "
                            "elements, not", o);
        }
    }
    if (a->nsizes == 0)
        bad_usage(rank, "no size given; for example", "37x45 13x10x11");
}

/* The input at a global linear index: a mix of it mapped to [-0.5, 0.5). */
static fftw_complex input_value(uint64_t k)
{
    uint64_t h = k ^ 0x9e3779b97f4a7c15u;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return ((double)(h >> 11) * 0x1p-53 - 0.5) + I * ((double)(h & 0xfffff) * 0x1p-20 - 0.5);
}

/* FNV-1a 64 over n bytes. */
static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t k = 0; k < n; k++) {
        h ^= b[k];
        h *= 0x100000001b3u;
    }
    return h;
}

/* max |x[k] * scale - ref[k]| / max |ref[k]| over n elements. */
static double rel_error(const fftw_complex *x, double scale, const fftw_complex *ref, size_t n)
{
    double diff = 0, norm = 0;
    for (size_t k = 0; k < n; k++) {
        double d = cabs(x[k] * scale - ref[k]), r = cabs(ref[k]);
        diff = d > diff ? d : diff;
        norm = r > norm ? r : norm;
    }
    return norm > 0 ? diff / norm : diff;
}

/*
 * Gathers rows [start, start + rows) of a rows_all x row_len array, one
 * block per rank, into all on rank 0 (ignored elsewhere). Collective.
 * Every count fits an int: the array has at most 2^22 elements.
 */
static void gather_rows(const fftw_complex *mine, ptrdiff_t start, ptrdiff_t rows,
                        ptrdiff_t row_len, fftw_complex *all, int np, MPI_Comm comm)
{
    int rank, bytes = (int)(rows * row_len * (ptrdiff_t)sizeof(fftw_complex));
    int at = (int)(start * row_len * (ptrdiff_t)sizeof(fftw_complex));
    int *counts = malloc(2 * (size_t)np * sizeof *counts);
    if (!counts) {
        fprintf(stderr, "fft_mpi_uneven: out of memory\n");
        MPI_Abort(comm, 1);
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    MPI_Gather(&at, 1, MPI_INT, counts + np, 1, MPI_INT, 0, comm);
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, counts + np, MPI_BYTE, 0, comm);
    free(counts);
}

/* fftw_alloc_complex of at least one element, or the program ends. */
static fftw_complex *alloc_or_die(ptrdiff_t n)
{
    fftw_complex *p = fftw_alloc_complex((size_t)(n > 0 ? n : 1));
    if (!p) {
        fprintf(stderr, "fft_mpi_uneven: out of memory for %td elements\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Prints rank 0's line for one transform; returns 1 when it passed. */
static int report(const fft_size *z, int np, const char *dir, double err,
                  const fftw_complex *res, size_t n)
{
    int ok = err < TOLERANCE; /* false for NaN too */
    char dims[64];
    if (z->rank == 2)
        snprintf(dims, sizeof dims, "%tdx%td", z->n[0], z->n[1]);
    else
        snprintf(dims, sizeof dims, "%tdx%tdx%td", z->n[0], z->n[1], z->n[2]);
    printf("%d-D %s p=%d %s max-rel-error %.2e fnv1a64 %016llx %s\n", z->rank, dims, np, dir,
           err, (unsigned long long)fnv1a(res, n * sizeof *res), ok ? "OK" : "FAIL");
    fflush(stdout);
    return ok;
}

/*
 * One size: distributed forward and backward transforms, checked on rank
 * 0. Collective; returns 1 when both passed (on rank 0; 1 elsewhere).
 */
static int run_size(const fft_size *z, const fft_args *a, MPI_Comm comm)
{
    int rank, np, ok = 1;
    ptrdiff_t l0, s0, l1, s1, alloc;
    ptrdiff_t n0 = z->n[0], n1 = z->n[1], rest = z->n[2];
    size_t total = (size_t)(n0 * n1 * rest);
    unsigned fwd_flags = FFTW_ESTIMATE | FFTW_DESTROY_INPUT | (a->normal ? 0 : FFTW_MPI_TRANSPOSED_OUT);
    unsigned bwd_flags = FFTW_ESTIMATE | FFTW_DESTROY_INPUT | (a->normal ? 0 : FFTW_MPI_TRANSPOSED_IN);
    fftw_complex *in, *out, *back, *x = NULL, *ref = NULL, *got = NULL, *tmp = NULL;
    fftw_plan fwd, bwd;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    /* The transposed local size covers both layouts. */
    if (z->rank == 2)
        alloc = fftw_mpi_local_size_2d_transposed(n0, n1, comm, &l0, &s0, &l1, &s1);
    else
        alloc = fftw_mpi_local_size_3d_transposed(n0, n1, rest, comm, &l0, &s0, &l1, &s1);
    in = alloc_or_die(alloc);
    out = alloc_or_die(alloc);
    back = alloc_or_die(alloc);
    if (z->rank == 2) {
        fwd = fftw_mpi_plan_dft_2d(n0, n1, in, out, comm, FFTW_FORWARD, fwd_flags);
        bwd = fftw_mpi_plan_dft_2d(n0, n1, out, back, comm, FFTW_BACKWARD, bwd_flags);
    } else {
        fwd = fftw_mpi_plan_dft_3d(n0, n1, rest, in, out, comm, FFTW_FORWARD, fwd_flags);
        bwd = fftw_mpi_plan_dft_3d(n0, n1, rest, out, back, comm, FFTW_BACKWARD, bwd_flags);
    }
    if (!fwd || !bwd) {
        if (rank == 0)
            fprintf(stderr, "fft_mpi_uneven: FFTW made no plan for %tdx%tdx%td on %d ranks\n",
                    n0, n1, rest, np);
        MPI_Abort(comm, 1);
    }
    if (a->print_plan && rank == 0) {
        fputs("fft_mpi_uneven: forward plan: ", stderr);
        fftw_fprint_plan(fwd, stderr);
        fputs("\nfft_mpi_uneven: backward plan: ", stderr);
        fftw_fprint_plan(bwd, stderr);
        fputc('\n', stderr);
    }

    for (ptrdiff_t k = 0; k < l0 * n1 * rest; k++)
        in[k] = input_value((uint64_t)(s0 * n1 * rest + k));
    if (rank == 0) {
        x = alloc_or_die((ptrdiff_t)total);
        ref = alloc_or_die((ptrdiff_t)total);
        got = alloc_or_die((ptrdiff_t)total);
        tmp = alloc_or_die((ptrdiff_t)total);
    }

    fftw_execute(fwd);
    /* Transposed out: this rank holds rows [s1, s1 + l1) of n1 x n0 x rest. */
    if (a->normal) {
        gather_rows(out, s0, l0, n1 * rest, got, np, comm);
    } else {
        gather_rows(out, s1, l1, n0 * rest, tmp, np, comm);
        if (rank == 0)
            for (ptrdiff_t i = 0; i < n0; i++)
                for (ptrdiff_t j = 0; j < n1; j++)
                    memcpy(got + (i * n1 + j) * rest, tmp + (j * n0 + i) * rest,
                           (size_t)rest * sizeof *got);
    }
    fftw_execute(bwd); /* destroys out, gathered above */
    gather_rows(back, s0, l0, n1 * rest, tmp, np, comm);

    if (rank == 0) {
        /* Serial FFTW on the whole input; ESTIMATE leaves the arrays alone. */
        fftw_plan serial = z->rank == 2
                               ? fftw_plan_dft_2d((int)n0, (int)n1, x, ref, FFTW_FORWARD,
                                                  FFTW_ESTIMATE)
                               : fftw_plan_dft_3d((int)n0, (int)n1, (int)rest, x, ref,
                                                  FFTW_FORWARD, FFTW_ESTIMATE);
        for (size_t k = 0; k < total; k++)
            x[k] = input_value(k);
        fftw_execute(serial);
        fftw_destroy_plan(serial);
        ok &= report(z, np, "forward", rel_error(got, 1.0, ref, total), got, total);
        for (size_t k = 0; k < total; k++)
            x[k] = input_value(k);
        ok &= report(z, np, "backward", rel_error(tmp, 1.0 / (double)total, x, total), tmp,
                     total);
    }

    fftw_free(tmp);
    fftw_free(got);
    fftw_free(ref);
    fftw_free(x);
    fftw_destroy_plan(bwd);
    fftw_destroy_plan(fwd);
    fftw_free(back);
    fftw_free(out);
    fftw_free(in);
    return ok;
}

int main(int argc, char **argv)
{
    fft_args a;
    int rank, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    parse_args(argc, argv, rank, &a);
    fftw_mpi_init();
    for (int i = 0; i < a.nsizes; i++)
        ok &= run_size(&a.sizes[i], &a, MPI_COMM_WORLD);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return ok ? 0 : 1;
}
