/*
 * dropin_large_prog.c - an MPI program that knows nothing of xchg, for the
 * drop-in's MPI 4 large-count entry points (tests/mpi/dropin.sh): each rank
 * calls MPI_Alltoall_c, MPI_Bcast_c, MPI_Reduce_c, MPI_Allreduce_c,
 * MPI_Reduce_scatter_block_c, MPI_Scan_c, MPI_Allgather_c, MPI_Gather_c
 * and MPI_Scatter_c once each on 33 ints (root 1 where rooted) and checks
 * every result against the call's definition. Prints
 * "dropin_large_prog: OK" on rank 0 when every rank's results are right.
 *
 *   [DROPIN_LARGE_BIG=1] dropin_large_prog
 *   DROPIN_LARGE_BIG=1: then one MPI_Bcast_c of 2^31 + 8 bytes from rank 0, a count no
 *   int holds, checked at every 4099th byte and through the last 4 KiB.
 *   The root's buffer is one period of the pattern (251 pages) mapped over
 *   and over (big_source): the MPI library reads 2^31 + 8 bytes from it,
 *   the same bytes as a filled buffer, but the kernel supplies 1 MB of
 *   pages instead of 2 GiB (a first touch is slow on the test machine, a
 *   virtual machine: bench/results/page_touch.txt). The receivers'
 *   buffers are fresh memory (in huge pages where the kernel gives them,
 *   huge_pages.h), every byte of it written by the call.
 *
 * Under an MPI before version 4 there are no such calls: it prints
 * "dropin_large_prog: no MPI 4 large-count calls" and exits 0.
 */
#define _GNU_SOURCE /* memfd_create */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if MPI_VERSION >= 4
#include "dropin_check.h"
#include "huge_pages.h"

/* want[i] = the sum over ranks lo..hi of in(rank, off + i). */
static void sums(int *want, int n, int lo, int hi, int off)
{
    for (int i = 0; i < n; i++) {
        want[i] = 0;
        for (int o = lo; o <= hi; o++)
            want[i] += in(o, off + i);
    }
}

static unsigned char big_byte(size_t i)
{
    return (unsigned char)(i * 131 % 251);
}

/* The root's n bytes of big_byte(i), as one period of the pattern (251
 * pages: big_byte's period, 251, divides it) in a memory file mapped
 * back to back over a reserved range: *len is what to munmap. NULL, *len
 * untouched, when the system cannot (the caller then fills ordinary
 * memory). */
static unsigned char *big_source(size_t n, size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), period = 251 * page;
    size_t copies = (n + period - 1) / period;
    int fd = memfd_create("dropin_large_prog", 0);
    if (fd < 0)
        return NULL;
    unsigned char *one = NULL, *range = MAP_FAILED;
    if (ftruncate(fd, (off_t)period) == 0)
        one = mmap(NULL, period, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (one && one != MAP_FAILED) {
        for (size_t i = 0; i < period; i++)
            one[i] = big_byte(i);
        munmap(one, period);
        range = mmap(NULL, copies * period, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    const int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_FIXED;
    for (size_t k = 0; range != MAP_FAILED && k < copies; k++)
        if (mmap(range + k * period, period, prot, flags, fd, 0) == MAP_FAILED) {
            munmap(range, copies * period);
            range = MAP_FAILED;
        }
    close(fd);
    if (range == MAP_FAILED)
        return NULL;
    *len = copies * period;
    return range;
}

/* One MPI_Bcast_c of 2^31 + 8 bytes from rank 0. */
static void big_bcast(int rank)
{
    MPI_Count n = ((MPI_Count)1 << 31) + 8;
    size_t mapped = 0;
    unsigned char *b = rank == 0 ? big_source((size_t)n, &mapped) : NULL;
    int source = b != NULL; /* the root's pattern, mapped period by period */
    if (!b && (b = huge_pages_alloc((size_t)n)) != NULL)
        mapped = (size_t)n;
    if (!b) {
        fprintf(stderr, "rank %d: cannot allocate %lld bytes\n", rank, (long long)n);
        errs++;
        return;
    }
    if (rank == 0 && !source)
        for (size_t i = 0; i < (size_t)n; i++)
            b[i] = big_byte(i);
    else if (rank != 0)
        memset(b, 0, (size_t)n);
    MPI_Bcast_c(b, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (size_t i = 0; i < (size_t)n; i = i + 4099 < (size_t)n - 8 ? i + 4099 : i + 1)
        if (b[i] != big_byte(i)) {
            fprintf(stderr, "rank %d: MPI_Bcast_c of %lld bytes: byte %zu is %d, want %d\n", rank,
                    (long long)n, i, b[i], big_byte(i));
            errs++;
            break;
        }
    munmap(b, mapped);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 33, root = p > 1 ? 1 : 0;
    int *s = malloc(sizeof(int) * (size_t)n * p), *r = malloc(sizeof(int) * (size_t)n * p);
    int *w = malloc(sizeof(int) * (size_t)n * p);
    for (int i = 0; i < n * p; i++)
        s[i] = in(rank, i);

    MPI_Alltoall_c(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    for (int o = 0; o < p; o++)
        for (int i = 0; i < n; i++)
            w[o * n + i] = in(o, rank * n + i);
    expect(r, w, n * p, "MPI_Alltoall_c", rank);

    memcpy(r, s, sizeof(int) * n);
    MPI_Bcast_c(r, n, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        w[i] = in(root, i);
    expect(r, w, n, "MPI_Bcast_c", rank);

    MPI_Reduce_c(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    sums(w, n, 0, p - 1, 0);
    if (rank == root)
        expect(r, w, n, "MPI_Reduce_c", rank);

    MPI_Allreduce_c(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(r, w, n, "MPI_Allreduce_c", rank);

    MPI_Scan_c(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sums(w, n, 0, rank, 0);
    expect(r, w, n, "MPI_Scan_c", rank);

    MPI_Reduce_scatter_block_c(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sums(w, n, 0, p - 1, rank * n);
    expect(r, w, n, "MPI_Reduce_scatter_block_c", rank);

    MPI_Allgather_c(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    for (int o = 0; o < p; o++)
        for (int i = 0; i < n; i++)
            w[o * n + i] = in(o, i);
    expect(r, w, n * p, "MPI_Allgather_c", rank);

    memset(r, 0, sizeof(int) * n * p);
    MPI_Gather_c(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        expect(r, w, n * p, "MPI_Gather_c", rank);

    MPI_Scatter_c(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        w[i] = in(root, rank * n + i);
    expect(r, w, n, "MPI_Scatter_c", rank);
    free(s);
    free(r);
    free(w);

    const char *big = getenv("DROPIN_LARGE_BIG");
    if (big && !strcmp(big, "1"))
        big_bcast(rank);
    int total = 0;
    PMPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("dropin_large_prog: OK\n");
    MPI_Finalize();
    return total != 0;
}
#else
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("dropin_large_prog: no MPI 4 large-count calls\n");
    MPI_Finalize();
    return 0;
}
#endif
