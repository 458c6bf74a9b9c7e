/*
 * shm.c - the exchange through one node's shared memory (alg "shm").
 *
 * When every rank of the communicator runs on one node, the ranks map one
 * segment of shared memory that holds a p x p grid of slots (slot (d, o):
 * from rank o to rank d) of c bytes each, c = the block size m, or less
 * when the two grids' 2 p^2 m bytes would pass XCHG_MPI_SHM_MAX. A round
 * moves c bytes of every block: each rank copies its p pieces into column
 * `rank` of the grid, all
 * ranks meet at one barrier, and each rank copies its row home. A run is
 * ceil(m / c) rounds (one for small blocks). Every byte is copied twice and
 * no message is sent: this is the direct exchange (every block goes
 * straight from its origin to its destination, as in pairwise) with all
 * p - 1 steps in one. Derived datatypes are packed to (and unpacked from)
 * plain bytes in the plan's staging buffers first (last); in place needs
 * no staging, since a round overwrites only the pieces it has sent.
 *
 * Why: with more ranks than cores (64 ranks on 2 cores), an exchange's time
 * is mostly ranks waiting for partners that are not running, and every step
 * of a schedule is another wait. Here a rank waits once, asleep in the
 * kernel (a futex), so the cores go to the ranks that still have copying to
 * do. auto.c prices it as 2 t_s a round + 2 p m t_c on the schedules'
 * machine model, and auto picks it when that is the cheapest and one round
 * moves whole blocks (small blocks).
 *
 * Two grids alternate between rounds, so one barrier a round is enough: a
 * rank that writes grid g in round k has passed round k-1's barrier, which
 * every other rank reached only after it finished reading grid g in round
 * k-2.
 *
 * The segment is a POSIX shared-memory object that rank 0 creates under a
 * fresh name and unlinks as soon as every rank has mapped it, so nothing is
 * left in /dev/shm even if the job dies; freeing a plan unmaps it (local, no
 * communication). Its size is 2 p^2 c bytes plus a header. Off Linux (the
 * barrier sleeps on a futex), when the ranks span several nodes, or when
 * not even one byte a slot fits (p > 4,096), "shm" is not offered.
 */
#define _GNU_SOURCE /* syscall(), for the futex */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __linux__
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* The segment's header: the barrier, each counter on its own cache line. */
typedef struct shm_header {
    _Atomic uint32_t arrived;    /* ranks at the barrier of the current run */
    unsigned char pad1[60];
    _Atomic uint32_t generation; /* runs completed; sleepers wait on it */
    unsigned char pad2[60];
} shm_header;

size_t xchg_mpi_shm_chunk(int p, size_t block_bytes)
{
    size_t slots = 2 * (size_t)p * (size_t)p;
    size_t most = XCHG_MPI_SHM_MAX / slots;
    if (block_bytes <= most)
        return block_bytes;
    return most >= 64 ? most / 64 * 64 : most; /* whole cache lines when it can */
}

/* The segment's size for chunk c. */
static size_t segment_bytes(int p, size_t c)
{
    return sizeof(shm_header) + 2 * (size_t)p * (size_t)p * c;
}

int xchg_mpi_shm_usable(const xchg_mpi_plan *pl, char *why, size_t len)
{
#ifndef __linux__
    snprintf(why, len, "shm: the shared-memory exchange needs Linux (its barrier is a futex)");
    return 0;
#else
    if (!pl->one_node) {
        snprintf(why, len, "shm: the %d ranks do not all share one node's memory", pl->p);
        return 0;
    }
    if (xchg_mpi_shm_chunk(pl->p, pl->block_bytes) == 0) {
        snprintf(why, len,
                 "shm: %d ranks need 2 p^2 slots, more bytes than the %zu its grids may take",
                 pl->p, (size_t)XCHG_MPI_SHM_MAX);
        return 0;
    }
    return 1;
#endif
}

#ifdef __linux__
/* Rank 0: make the object under a fresh name, sized and backed (so a full
 * /dev/shm is an error here, not a SIGBUS later). Returns its fd or -1. */
static int create_object(char *name, size_t namelen, size_t bytes, char *why, size_t len)
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
        int e = ftruncate(fd, (off_t)bytes) ? errno : posix_fallocate(fd, 0, (off_t)bytes);
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

int xchg_mpi_shm_open(xchg_mpi_plan *pl, char *why, size_t len)
{
#ifndef __linux__
    (void)pl;
    snprintf(why, len, "shm: the shared-memory exchange needs Linux (its barrier is a futex)");
    return MPI_SUCCESS;
#else
    size_t chunk = xchg_mpi_shm_chunk(pl->p, pl->block_bytes);
    size_t bytes = segment_bytes(pl->p, chunk);
    char name[64] = "";
    int fd = -1, ok;
    if (pl->rank == 0)
        fd = create_object(name, sizeof name, bytes, why, len);
    /* everyone learns the name, or that there is none ("") */
    int rc = PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, pl->comm);
    if (rc != MPI_SUCCESS) {
        if (fd >= 0) {
            close(fd);
            shm_unlink(name);
        }
        return rc;
    }
    if (pl->rank != 0 && name[0]) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0)
            snprintf(why, len, "shm: shm_open %s: %s", name, strerror(errno));
    }
    unsigned char *seg = fd >= 0 ? map_object(fd, bytes, why, len) : NULL;
    ok = seg != NULL;
    int all = 0;
    rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, pl->comm);
    if (pl->rank == 0 && name[0])
        shm_unlink(name); /* mapped everywhere or given up: the name can go */
    if (rc != MPI_SUCCESS || !all) {
        if (seg)
            munmap(seg, bytes);
        if (rc == MPI_SUCCESS && ok)
            snprintf(why, len, "shm: another rank could not map the segment");
        return rc;
    }
    /* ftruncate zeroed the header: no rank has arrived, generation 0 */
    pl->shm = seg;
    pl->shm_bytes = bytes;
    pl->shm_chunk = chunk;
    pl->shm_round = 0;
    return MPI_SUCCESS;
#endif
}

void xchg_mpi_shm_close(xchg_mpi_plan *pl)
{
    if (pl->shm)
        munmap(pl->shm, pl->shm_bytes);
    pl->shm = NULL;
    pl->shm_bytes = 0;
}

#ifdef __linux__
/* Wait until all p ranks have arrived. The last one to arrive opens the
 * next generation and wakes the sleepers; the others sleep on the
 * generation word (not a private futex: the word is in another process's
 * mapping too). */
static void barrier(shm_header *h, int p)
{
    uint32_t gen = atomic_load_explicit(&h->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&h->arrived, 1, memory_order_acq_rel) + 1 == (uint32_t)p) {
        /* nobody arrives for the next run before the generation moves */
        atomic_store_explicit(&h->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&h->generation, gen + 1, memory_order_release);
        syscall(SYS_futex, &h->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        return;
    }
    while (atomic_load_explicit(&h->generation, memory_order_acquire) == gen)
        syscall(SYS_futex, &h->generation, FUTEX_WAIT, gen, NULL, NULL, 0);
}
#endif

#ifdef __linux__
/* One round: piece [off, off + n) of every block, through grid. */
static void round_trip(xchg_mpi_plan *pl, const unsigned char *S, unsigned char *R, size_t off,
                       size_t n)
{
    size_t B = pl->block_bytes, P = (size_t)pl->p, me = (size_t)pl->rank, c = pl->shm_chunk;
    shm_header *h = (shm_header *)(void *)pl->shm;
    unsigned char *grid = pl->shm + sizeof *h + (pl->shm_round++ & 1) * P * P * c;
    for (size_t d = 0; d < P; d++)
        memcpy(grid + (d * P + me) * c, S + d * B + off, n);
    barrier(h, pl->p);
    if (n == B) /* one round: the row is laid out as the receive buffer */
        memcpy(R, grid + me * P * c, P * B);
    else
        for (size_t o = 0; o < P; o++)
            memcpy(R + o * B + off, grid + (me * P + o) * c, n);
}
#endif

int xchg_mpi_shm_run(xchg_mpi_plan *pl, const void *sendbuf, void *recvbuf,
                     const xchg_mpi_layout *slay, const xchg_mpi_layout *rlay)
{
#ifndef __linux__
    (void)pl, (void)sendbuf, (void)recvbuf, (void)slay, (void)rlay;
    return MPI_ERR_INTERN;
#else
    size_t B = pl->block_bytes;
    /* in place: the blocks to send are the receive buffer's; a round reads
     * its pieces before the barrier and overwrites them after it */
    unsigned char *S = pl->in_place ? recvbuf : (unsigned char *)(uintptr_t)sendbuf;
    const xchg_mpi_layout *from = pl->in_place ? rlay : slay;
    unsigned char *R = rlay->contiguous ? recvbuf : pl->stage_recv;
    int rc = MPI_SUCCESS;
    if (!from->contiguous) {
        rc = xchg_mpi_stage(pl, from, S, pl->stage_send, B, 0);
        S = pl->stage_send;
    }
    /* every round even after an error: the other ranks must not wait forever */
    for (size_t off = 0; off < B; off += pl->shm_chunk)
        round_trip(pl, S, R, off, B - off < pl->shm_chunk ? B - off : pl->shm_chunk);
    if (rc == MPI_SUCCESS && !rlay->contiguous)
        rc = xchg_mpi_stage(pl, rlay, recvbuf, pl->stage_recv, B, 1);
    return rc;
#endif
}
