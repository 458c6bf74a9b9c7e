/*
 * shm_segment.c - a segment of shared memory every rank of one node's
 * communicator maps (store.c grows the exchange's segment with it; shm.c
 * runs rounds through it).
 *
 * The segment is a POSIX shared-memory object that rank 0 creates under a
 * fresh name and unlinks as soon as every rank has mapped it, so nothing
 * is left in /dev/shm even if the job dies. Its bytes start zeroed. A
 * full /dev/shm must be an error, not a SIGBUS at a later touch: either
 * the whole object is backed at once (posix_fallocate), or, sparse, each
 * rank backs the pages it will use before it uses them
 * (xchg_mpi_shm_fill), which fails instead where the kernel can say so.
 * Off Linux (the barrier of shm.c sleeps on a futex) there is none.
 */
#define _GNU_SOURCE /* shm_open, ftruncate, posix_fallocate */
#include "mpi/comm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __linux__
/* Rank 0: make the object under a fresh name. Returns its fd or -1. */
static int create_object(char *name, size_t namelen, size_t bytes, int sparse, char *why,
                         size_t len)
{
    static _Atomic unsigned serial;
    for (int attempt = 0; attempt < 16; attempt++) {
        snprintf(name, namelen, "/xchg-%ld-%u", (long)getpid(), atomic_fetch_add(&serial, 1));
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            snprintf(why, len, "shm: shm_open: %s", strerror(errno));
            return -1;
        }
        int e = ftruncate(fd, (off_t)bytes) ? errno : 0;
        if (!e && !sparse)
            e = posix_fallocate(fd, 0, (off_t)bytes);
        if (e) {
            snprintf(why, len, "shm: cannot reserve %zu bytes in /dev/shm: %s", bytes,
                     strerror(e));
            close(fd);
            shm_unlink(name);
            return -1;
        }
        return fd;
    }
    snprintf(why, len, "shm: no free name for the segment");
    return -1;
}

/* Map the object behind fd (closing fd); NULL on failure, with why. */
static unsigned char *map_object(int fd, size_t bytes, char *why, size_t len)
{
    void *at = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (at == MAP_FAILED) {
        snprintf(why, len, "shm: mmap of %zu bytes: %s", bytes, strerror(e));
        return NULL;
    }
    return at;
}
#endif

int xchg_mpi_shm_segment_open(xchg_mpi_comm *cs, size_t bytes, int sparse, unsigned char **seg,
                              char *why, size_t len)
{
    *seg = NULL;
#ifndef __linux__
    (void)cs, (void)bytes, (void)sparse;
    snprintf(why, len, "shm: the shared-memory exchange needs Linux (its barrier is a futex)");
    return MPI_SUCCESS;
#else
    char name[64] = "";
    int fd = -1;
    if (cs->rank == 0)
        fd = create_object(name, sizeof name, bytes, sparse && xchg_mpi_prefault_works(), why,
                           len);
    /* everyone learns the name, or that there is none ("") */
    cs->collectives += 2; /* the name's broadcast and the agreement */
    int rc = PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, cs->comm);
    if (rc != MPI_SUCCESS) {
        if (fd >= 0) {
            close(fd);
            shm_unlink(name);
        }
        return rc;
    }
    if (cs->rank != 0 && name[0]) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0)
            snprintf(why, len, "shm: shm_open %s: %s", name, strerror(errno));
    } else if (cs->rank != 0) {
        snprintf(why, len, "shm: rank 0 could not make the segment");
    }
    unsigned char *at = fd >= 0 ? map_object(fd, bytes, why, len) : NULL;
    int ok = at != NULL, all = 0;
    rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, cs->comm);
    if (cs->rank == 0 && name[0])
        shm_unlink(name); /* mapped everywhere or given up: the name can go */
    if (rc != MPI_SUCCESS || !all) {
        if (at)
            munmap(at, bytes);
        if (rc == MPI_SUCCESS && ok)
            snprintf(why, len, "shm: another rank could not map the segment");
        return rc;
    }
    *seg = at;
    return MPI_SUCCESS;
#endif
}

void xchg_mpi_shm_segment_close(unsigned char *seg, size_t bytes)
{
    if (seg)
        munmap(seg, bytes);
}
