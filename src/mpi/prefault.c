/*
 * prefault.c - mapping the pages of a buffer before a run touches them
 * (xchg_mpi_prefault, comm.h): the arenas store.c grows and the rows and
 * columns of the shared segment shm.c reads and writes.
 */
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#include "mpi/comm.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Why prefault: a page this process touches for the first time traps into
 * the kernel (on a virtual machine, further still), one page at a time in
 * the run that first uses it; asking the kernel to map a range in advance
 * (MADV_POPULATE_WRITE, Linux 5.14) takes less (docs/mpi.md, "What a plan
 * costs", has the measurements).
 */
int xchg_mpi_prefault(void *at, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || bytes == 0)
        return 0;
    uintptr_t lo = (uintptr_t)at / (uintptr_t)page * (uintptr_t)page;
    uintptr_t hi = ((uintptr_t)at + bytes + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
        return 0;
    return errno == EINVAL ? 1 : -1; /* EINVAL: a kernel without the advice */
#else
    (void)at, (void)bytes;
    return 1;
#endif
}

int xchg_mpi_prefault_works(void)
{
    static atomic_int known; /* 0 not yet known, 1 works, 2 does not */
    int k = atomic_load(&known);
    if (k == 0) {
        long page = sysconf(_SC_PAGESIZE);
        size_t n = page > 0 ? (size_t)page : 4096;
        void *at = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        k = at != MAP_FAILED && xchg_mpi_prefault(at, n) == 0 ? 1 : 2;
        if (at != MAP_FAILED)
            munmap(at, n);
        atomic_store(&known, k);
    }
    return k == 1;
}

