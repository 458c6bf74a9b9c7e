/*
 * store.c - the buffers plans share (comm.h's xchg_mpi_store): an arena of
 * scratch, packing and staging, which each plan carves at offsets its key
 * fixes, and the shared segment of the exchange through one node's memory.
 *
 * A plan for a new count needs no communication, except when it needs
 * more than the store holds: then every rank grows the store at once and
 * the ranks agree (one MPI_Allreduce) that every one of them has it, so a
 * rank that could not allocate makes every rank's plan fall back instead
 * of leaving the others waiting. The need is computed from values every
 * rank shares (the count's bytes, the program's largest needs over all
 * ranks: program.c), and the store only grows, so every rank reaches each
 * growth together. Growing to at least twice the size (and a floor) keeps
 * the growths few when counts rise one by one; an arena grows in place in
 * address space it reserved, so the pages it has keep their addresses. A
 * communicator's segment is made once, with the largest slots
 * XCHG_MPI_SHM_MAX allows its grids, but no memory; its ranks back each
 * slot's start as far as the blocks need, a page and then doubling (one
 * MPI_Allreduce each time), so the pages it has stay where they are.
 */
#define _GNU_SOURCE /* MAP_NORESERVE */
#include "mpi/comm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Smallest arena made for a communicator. */
#define ARENA_FLOOR ((size_t)64 << 10)

/* Address space one arena reserves: it grows in place within it, so its
 * pages keep their addresses (see prefault, below). Only what it uses is
 * backed by memory. */
#define ARENA_RESERVE ((size_t)16 << 30)

/*
 * The process's spare arena: the largest freed with a communicator's
 * state, kept for the next store that grows. Its pages are mapped already,
 * which a new mapping's are not (below: prefault), so a program that makes
 * communicator after communicator pays for them once.
 */
static struct {
    pthread_mutex_t lock;
    unsigned char *at;
    size_t reserved, mapped;
} spare = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* An arena's address space of reserved bytes, none of it usable yet; NULL
 * when it cannot be had. */
static unsigned char *reserve_bytes(size_t reserved)
{
    void *at = mmap(NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return at == MAP_FAILED ? NULL : at;
}

static void unmap_bytes(unsigned char *at, size_t n)
{
    if (at)
        munmap(at, n);
}

/* Whether every rank of cs has ok (MPI_MIN): *all. An MPI error code. */
static int all_ranks(xchg_mpi_comm *cs, int ok, int *all)
{
    cs->collectives++;
    return PMPI_Allreduce(&ok, all, 1, MPI_INT, MPI_MIN, cs->comm);
}

/* This rank's usable arena of at least want bytes for st: the spare when
 * it is larger than st's, else st's own grown in place (its pages keep
 * their addresses), else a new one as large. 0, or -1 (st unchanged). */
static int map_arena(xchg_mpi_store *st, size_t want, size_t touch)
{
    if (want <= st->arena_mapped)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    size_t unit = page > 0 ? (size_t)page : 4096;
    if (want > SIZE_MAX - unit)
        return -1;
    want = (want + unit - 1) / unit * unit; /* mprotect takes whole pages */
    pthread_mutex_lock(&spare.lock);
    if (spare.at && spare.mapped > st->arena_mapped) { /* swap: st's own goes */
        unsigned char *old = st->arena;
        size_t old_reserved = st->arena_reserved;
        st->arena = spare.at;
        st->arena_reserved = spare.reserved;
        st->arena_mapped = spare.mapped;
        spare.at = NULL;
        spare.reserved = spare.mapped = 0;
        pthread_mutex_unlock(&spare.lock);
        unmap_bytes(old, old_reserved);
        if (want <= st->arena_mapped)
            return 0;
    } else {
        pthread_mutex_unlock(&spare.lock);
    }
    if (!st->arena || want > st->arena_reserved) { /* a new space, as large as it must be */
        size_t reserved = want > ARENA_RESERVE ? want : ARENA_RESERVE;
        unsigned char *at = reserve_bytes(reserved);
        if (!at)
            return -1;
        unmap_bytes(st->arena, st->arena_reserved);
        st->arena = at;
        st->arena_reserved = reserved;
        st->arena_mapped = 0;
    }
    size_t grow = want - st->arena_mapped;
    if (mprotect(st->arena + st->arena_mapped, grow, PROT_READ | PROT_WRITE))
        return -1;
    if (touch > st->arena_mapped)
        xchg_mpi_prefault(st->arena + st->arena_mapped,
                          touch - st->arena_mapped < grow ? touch - st->arena_mapped : grow);
    st->arena_mapped = want;
    return 0;
}

/* Grow st's arena to want bytes on every rank, or on none: *ok. The size
 * every rank agrees on (arena_bytes) moves only when every rank has it;
 * a rank's mapping may be larger. */
static int try_arena(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t want, size_t touch, int *ok)
{
    int mine = want != SIZE_MAX && map_arena(st, want, touch) == 0;
    int rc = all_ranks(cs, mine, ok);
    if (rc != MPI_SUCCESS || !*ok) {
        *ok = 0;
        return rc;
    }
    st->arena_bytes = want;
    return MPI_SUCCESS;
}

int xchg_mpi_store_arena(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t bytes, size_t touch,
                         int exact, int *ok)
{
    *ok = 1;
    if (bytes <= st->arena_bytes)
        return MPI_SUCCESS;
    size_t want = bytes;
    if (!exact) {
        size_t twice = xchg_mpi_mul(st->arena_bytes, 2);
        want = twice > want ? twice : want;
        want = ARENA_FLOOR > want ? ARENA_FLOOR : want;
    }
    if (touch == SIZE_MAX)
        touch = want;
    int rc = try_arena(cs, st, want, touch, ok);
    if (rc == MPI_SUCCESS && !*ok && want > bytes) /* every rank saw it fail: try less */
        rc = try_arena(cs, st, bytes, touch, ok);
    return rc;
}

size_t xchg_mpi_store_shm_slot(const xchg_mpi_comm *cs, size_t slot, int exact)
{
    size_t most = XCHG_MPI_SHM_MAX / (2 * (size_t)cs->p * (size_t)cs->p);
    return exact || most < slot ? slot : most;
}

/* The bytes of each slot st's ranks back for blocks of slot bytes: at least
 * a page and twice what they have, at most the slot. */
static size_t fill_for(const xchg_mpi_store *st, size_t slot)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t unit = page > 0 ? (size_t)page : 4096;
    size_t want = 2 * st->shm_filled > unit ? 2 * st->shm_filled : unit;
    want = want > slot ? want : slot;
    want = (want + unit - 1) / unit * unit;
    return want < st->shm_slot ? want : st->shm_slot;
}

int xchg_mpi_store_shm(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t slot, int exact, int *ok,
                       char *why, size_t len)
{
    *ok = 1;
    if (st->shm && st->shm_filled >= slot)
        return MPI_SUCCESS;
    int made = 0, rc = MPI_SUCCESS;
    if (!st->shm) {
        size_t slots = 2 * (size_t)cs->p * (size_t)cs->p;
        size_t stride = xchg_mpi_store_shm_slot(cs, slot, exact);
        size_t bytes = XCHG_MPI_SHM_HEADER + slots * stride;
        unsigned char *seg = NULL;
        rc = xchg_mpi_shm_segment_open(cs, bytes, !exact, &seg, why, len);
        if (rc != MPI_SUCCESS || !seg) {
            *ok = 0;
            return rc;
        }
        *st = (xchg_mpi_store){.arena = st->arena,
                               .arena_bytes = st->arena_bytes,
                               .arena_mapped = st->arena_mapped,
                               .arena_reserved = st->arena_reserved,
                               .shm = seg,
                               .shm_bytes = bytes,
                               .shm_slot = stride};
        made = 1;
    }
    /* back and map the slots' start this far on every rank, or on none */
    size_t fill = fill_for(st, slot);
    int mine = xchg_mpi_shm_fill(st, cs->p, cs->rank, st->shm_filled, fill) == 0;
    cs->collectives++;
    rc = PMPI_Allreduce(&mine, ok, 1, MPI_INT, MPI_MIN, cs->comm);
    if (rc == MPI_SUCCESS && *ok) {
        st->shm_filled = fill;
        return MPI_SUCCESS;
    }
    *ok = 0;
    snprintf(why, len, "shm: /dev/shm cannot back %zu bytes of each slot", fill);
    if (made) { /* a segment no rank may use goes */
        xchg_mpi_shm_segment_close(st->shm, st->shm_bytes);
        st->shm = NULL;
        st->shm_bytes = st->shm_slot = 0;
    }
    return rc;
}

void xchg_mpi_store_release(xchg_mpi_store *st)
{
    unsigned char *drop = st->arena;
    size_t drop_reserved = st->arena_reserved;
    pthread_mutex_lock(&spare.lock);
    if (drop && st->arena_mapped > spare.mapped) { /* keep the larger */
        unsigned char *old = spare.at;
        size_t old_reserved = spare.reserved;
        spare.at = drop;
        spare.reserved = drop_reserved;
        spare.mapped = st->arena_mapped;
        drop = old;
        drop_reserved = old_reserved;
    }
    pthread_mutex_unlock(&spare.lock);
    unmap_bytes(drop, drop_reserved);
    xchg_mpi_shm_segment_close(st->shm, st->shm_bytes);
    *st = (xchg_mpi_store){0};
}
