/*
 * dropin_prog.c - an unmodified MPI program for the drop-in test
 * (tests/mpi/dropin.sh): it knows nothing of xchg and calls MPI_Alltoall on
 * MPI_COMM_WORLD and on a sub-communicator (MPI_Comm_split into even and odd
 * ranks), with a few block sizes and types (int, double, a strided derived
 * type against a contiguous one), in place and not, and checks every block
 * against what its origin put there. Rank 0 prints "dropin_prog: OK" and the
 * program exits 0, or it prints the first mismatches and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* The value rank `from` sends rank `to` as element k of its block. */
static double value(int from, int to, int k)
{
    return (double)from * 1000000.0 + (double)to * 1000.0 + (double)k;
}

/* Report a mismatch (the first few per rank); returns 1. */
static int mismatch(const char *what, int rank, int from, int k, double got, double want)
{
    static int shown;
    if (shown++ < 5)
        fprintf(stderr, "dropin_prog: rank %d, %s: block from %d element %d is %g, want %g\n",
                rank, what, from, k, got, want);
    return 1;
}

/* Alltoall of n ints per block, in place or not; returns the errors found. */
static int run_int(MPI_Comm comm, int n, int in_place, const char *what)
{
    int p, r, errs = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *sb = malloc(sizeof(int) * (size_t)p * (size_t)n);
    int *rb = malloc(sizeof(int) * (size_t)p * (size_t)n);
    for (int j = 0; j < p; j++)
        for (int k = 0; k < n; k++) {
            sb[j * n + k] = (int)value(r, j, k);
            rb[j * n + k] = in_place ? sb[j * n + k] : -1;
        }
    if (in_place)
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INT, comm);
    else
        MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, comm);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < n; k++)
            if (rb[i * n + k] != (int)value(i, r, k))
                errs += mismatch(what, r, i, k, rb[i * n + k], (int)value(i, r, k));
    free(sb);
    free(rb);
    return errs;
}

/* Alltoall of n doubles per block; returns the errors found. */
static int run_double(MPI_Comm comm, int n, const char *what)
{
    int p, r, errs = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    double *sb = malloc(sizeof(double) * (size_t)p * (size_t)n);
    double *rb = malloc(sizeof(double) * (size_t)p * (size_t)n);
    for (int j = 0; j < p; j++)
        for (int k = 0; k < n; k++) {
            sb[j * n + k] = value(r, j, k);
            rb[j * n + k] = -1.0;
        }
    MPI_Alltoall(sb, n, MPI_DOUBLE, rb, n, MPI_DOUBLE, comm);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < n; k++)
            if (rb[i * n + k] != value(i, r, k))
                errs += mismatch(what, r, i, k, rb[i * n + k], value(i, r, k));
    free(sb);
    free(rb);
    return errs;
}

/* Send one strided block (every other int of 2n) per peer, receive n
 * contiguous ints: the two type maps differ but their signatures match. */
static int run_strided(MPI_Comm comm, int n, const char *what)
{
    int p, r, errs = 0;
    MPI_Datatype vec, stype;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * (int)sizeof(int)), &stype);
    MPI_Type_commit(&stype);
    int *sb = malloc(sizeof(int) * (size_t)p * (size_t)(2 * n));
    int *rb = malloc(sizeof(int) * (size_t)p * (size_t)n);
    for (int j = 0; j < p; j++)
        for (int k = 0; k < n; k++) {
            sb[j * 2 * n + 2 * k] = (int)value(r, j, k);
            sb[j * 2 * n + 2 * k + 1] = -7; /* the gaps must not travel */
            rb[j * n + k] = -1;
        }
    MPI_Alltoall(sb, 1, stype, rb, n, MPI_INT, comm);
    for (int i = 0; i < p; i++)
        for (int k = 0; k < n; k++)
            if (rb[i * n + k] != (int)value(i, r, k))
                errs += mismatch(what, r, i, k, rb[i * n + k], (int)value(i, r, k));
    free(sb);
    free(rb);
    MPI_Type_free(&stype);
    MPI_Type_free(&vec);
    return errs;
}

/* Every case on one communicator; returns the errors found. */
static int run_all(MPI_Comm comm, const char *name)
{
    static const int sizes[] = {1, 3, 257};
    char what[96];
    int errs = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        snprintf(what, sizeof what, "%s int n=%d", name, n);
        errs += run_int(comm, n, 0, what);
        errs += run_int(comm, n, 0, what); /* again: a reused plan */
        snprintf(what, sizeof what, "%s int n=%d in place", name, n);
        errs += run_int(comm, n, 1, what);
        snprintf(what, sizeof what, "%s double n=%d", name, n);
        errs += run_double(comm, n, what);
        snprintf(what, sizeof what, "%s strided n=%d", name, n);
        errs += run_strided(comm, n, what);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int rank, errs = 0, total = 0;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    errs += run_all(MPI_COMM_WORLD, "world");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    errs += run_all(half, rank % 2 ? "odd ranks" : "even ranks");
    MPI_Comm_free(&half);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("dropin_prog: OK\n");
    else if (rank == 0)
        printf("dropin_prog: FAILED (%d errors)\n", total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
