/*
 * copy_cost.c - what one rank's block copies cost on this machine: the time
 * of a pass that copies p blocks of m bytes each to a transposed place (as
 * the executor's packing and the node-aware exchange's rearrangements do:
 * block i*K+j of the source goes to slot j*K+i of the destination), for
 * several block sizes, and the line c + m*t through the smallest and the
 * largest: c, a copy's own cost, is the time of an 8-byte copy; t, a
 * byte's, the slope up to 64 KiB blocks, whose pass (64 MiB at 1,024
 * blocks) is far larger than the caches, as a node's exchange is.
 *
 * bench/copy_cost.sh records it; under SimGrid's SMPI the executor charges
 * its copies at these figures (XCHG_SMPI_COPY_COST, docs/clusters.md), so
 * that the simulated clusters price the copies a node-aware design adds.
 *
 *   copy_cost [--ranks P] [--reps R]      (defaults: P 1024, R 50)
 * Prints one line a block size: "m ns_per_copy", the median of R passes,
 * then "figures C T": ns a copy and ns a byte (XCHG_SMPI_COPY_COST's C,T).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const size_t sizes[] = {8, 16, 64, 256, 1024, 4096, 16384, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One pass: p blocks of m bytes from src into their transposed slots of
 * dst (K x K blocks where p = K*K; else rotated by one). */
static void pass(unsigned char *dst, const unsigned char *src, size_t p, size_t k, size_t m)
{
    for (size_t b = 0; b < p; b++) {
        size_t to = k * k == p ? (b % k) * k + b / k : (b + 1) % p;
        memcpy(dst + to * m, src + b * m, m);
    }
}

int main(int argc, char **argv)
{
    long p = 1024, reps = 50;
    for (int i = 1; i < argc; i++) {
        long *into = !strcmp(argv[i], "--ranks") ? &p : !strcmp(argv[i], "--reps") ? &reps : NULL;
        char *end = NULL;
        if (!into || i + 1 >= argc || (*into = strtol(argv[i + 1], &end, 10), *end) || *into < 1 ||
            *into > 1 << 20) {
            fprintf(stderr, "copy_cost: bad argument '%s'; accepted: --ranks P, --reps R "
                            "(each 1 to 1048576)\n", argv[i]);
            return 2;
        }
        i++;
    }
    size_t k = 1;
    while ((k + 1) * (k + 1) <= (size_t)p)
        k++;
    size_t most = sizes[NSIZES - 1] * (size_t)p;
    unsigned char *src = malloc(most), *dst = malloc(most);
    double *t = malloc(sizeof *t * (size_t)reps), per[NSIZES];
    if (!src || !dst || !t) {
        fprintf(stderr, "copy_cost: out of memory\n");
        return 1;
    }
    memset(src, 1, most);
    memset(dst, 2, most);
    for (size_t s = 0; s < NSIZES; s++) {
        pass(dst, src, (size_t)p, k, sizes[s]); /* warm */
        for (long r = 0; r < reps; r++) {
            double t0 = now();
            pass(dst, src, (size_t)p, k, sizes[s]);
            t[r] = now() - t0;
        }
        qsort(t, (size_t)reps, sizeof *t, by_value);
        per[s] = t[reps / 2] / (double)p * 1e9;
        printf("%zu %.3f\n", sizes[s], per[s]);
    }
    double last = (double)sizes[NSIZES - 1];
    double t_byte = (per[NSIZES - 1] - per[0]) / (last - (double)sizes[0]);
    printf("figures %.3f %.5f\n", per[0], t_byte);
    printf("check %u\n", (unsigned)dst[most / 2]); /* keep the copies */
    free(src), free(dst), free(t);
    return 0;
}
