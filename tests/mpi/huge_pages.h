/*
 * huge_pages.h - fresh memory for the MPI tests' largest buffers, in
 * transparent huge pages where the kernel gives them (madvise mode, as on
 * the test machine). Fresh 4 KiB pages are slow to touch first in its
 * virtual machine: mpi_big's 9.6 GB took 32 s in them and 10 s in 2 MiB
 * pages. The code under test runs the same on either. Include after
 * defining _DEFAULT_SOURCE or _GNU_SOURCE (MAP_ANONYMOUS, MADV_HUGEPAGE).
 */
#ifndef XCHG_TESTS_HUGE_PAGES_H
#define XCHG_TESTS_HUGE_PAGES_H

#include <stddef.h>
#include <sys/mman.h>

/* n bytes of zeroed memory, or NULL when it cannot be mapped; free with
 * munmap(b, n). */
static inline void *huge_pages_alloc(size_t n)
{
    void *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(b, n, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
    return b;
}

#endif
