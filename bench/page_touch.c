/*
 * page_touch.c - what the first touch of a page costs this process: the
 * figure behind auto's price of shm's segment (XCHG_MPI_PAGE_US in
 * src/mpi/auto.c) and the executor's care not to map its buffers anew
 * (docs/mpi.md, "What a plan costs"). bench/page_touch.sh runs it.
 *
 *   page_touch [PAGES] [ROUNDS]   (default 4096 pages, 5 rounds)
 *
 * Each round maps PAGES fresh pages of a POSIX shared-memory object and
 * times one write to each: once as mapped (each page faults), once after
 * MADV_POPULATE_WRITE (the kernel maps them in advance; the advice itself
 * is timed too), and a second touch of pages already touched. Prints one
 * line a round, microseconds per page:
 *   round K fault F populate A after-populate B again C
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A fresh mapping of n bytes of a new shared object, backed. */
static volatile char *fresh(size_t n)
{
    char name[64];
    snprintf(name, sizeof name, "/xchg-page-touch-%ld", (long)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)n) || posix_fallocate(fd, 0, (off_t)n)) {
        perror("page_touch: shm_open/ftruncate/posix_fallocate");
        exit(1);
    }
    void *at = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shm_unlink(name);
    if (at == MAP_FAILED) {
        perror("page_touch: mmap");
        exit(1);
    }
    return at;
}

/* Seconds to write one byte of each page. */
static double touch(volatile char *a, size_t pages, size_t page)
{
    double t0 = now();
    for (size_t i = 0; i < pages; i++)
        a[i * page] = 1;
    return now() - t0;
}

int main(int argc, char **argv)
{
    size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = pages * page;
    if (pages == 0 || rounds < 1) {
        fprintf(stderr, "usage: page_touch [PAGES >= 1] [ROUNDS >= 1]\n");
        return 2;
    }
    for (int k = 1; k <= rounds; k++) {
        volatile char *a = fresh(n), *b = fresh(n);
        double fault = touch(a, pages, page);
        double again = touch(a, pages, page);
        double t0 = now();
        int rc = madvise((void *)b, n, MADV_POPULATE_WRITE);
        double populate = now() - t0;
        double after = touch(b, pages, page);
        if (rc) {
            perror("page_touch: MADV_POPULATE_WRITE");
            return 1;
        }
        printf("round %d fault %.3f populate %.3f after-populate %.3f again %.3f\n", k,
               fault / pages * 1e6, populate / pages * 1e6, after / pages * 1e6,
               again / pages * 1e6);
        munmap((void *)a, n);
        munmap((void *)b, n);
    }
    return 0;
}
