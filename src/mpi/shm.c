/*
 * shm.c - the exchange through one node's shared memory (alg "shm").
 *
 * When every rank of the communicator runs on one node, the ranks share a
 * segment (shm_segment.c, kept and grown by store.c) that holds two p x p
 * grids of slots (slot (d, o): from rank o to rank d). A round moves c
 * bytes of every block, c = the block size m, or less when the two grids'
 * 2 p^2 m bytes would pass XCHG_MPI_SHM_MAX: each rank copies its p pieces
 * into column `rank` of the grid, all ranks meet at one barrier, and each
 * rank copies its row home. A run is ceil(m / c) rounds (one for small
 * blocks). Every byte is copied twice and no message is sent: this is the
 * direct exchange (every block goes straight from its origin to its
 * destination, as in pairwise) with all p - 1 steps in one. Derived
 * datatypes are packed to (and unpacked from) plain bytes in staging first
 * (last); in place needs no staging, since a round overwrites only the
 * pieces it has sent.
 *
 * Why: with more ranks than cores, an exchange's time is mostly ranks
 * waiting for partners that are not running, and every step of a schedule
 * is another wait. Here a rank waits once, asleep in the kernel (a futex),
 * so the cores go to the ranks that still have copying to do. auto.c
 * prices it, and auto picks it when that is the cheapest and one round
 * moves whole blocks (small blocks).
 *
 * Two grids alternate between rounds, so one barrier a round is enough: a
 * rank that writes grid g in round k has passed round k-1's barrier, which
 * every other rank reached only after it finished reading grid g in round
 * k-2. The slots have the segment's size, whatever the block size of a
 * round (its c bytes fill the start of each slot), so the grids never move
 * and a rank touches the same pages of its column and its row at every
 * size: store.c backs and maps each slot's start as far as the blocks so
 * far need (xchg_mpi_shm_fill), once.
 */
#define _GNU_SOURCE /* syscall(), for the futex */
#include "mpi/plan.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#ifdef __linux__
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* The segment's header: the barrier, each counter on its own cache line. */
typedef struct shm_header {
    _Atomic uint32_t arrived;    /* ranks at the barrier of the current round */
    unsigned char pad1[60];
    _Atomic uint32_t generation; /* rounds completed; sleepers wait on it */
    unsigned char pad2[60];
} shm_header;

_Static_assert(sizeof(shm_header) <= XCHG_MPI_SHM_HEADER, "the header fits its bytes");

size_t xchg_mpi_shm_chunk(int p, size_t block_bytes)
{
    size_t slots = 2 * (size_t)p * (size_t)p;
    size_t most = XCHG_MPI_SHM_MAX / slots;
    if (block_bytes <= most)
        return block_bytes;
    return most >= 64 ? most / 64 * 64 : most; /* whole cache lines when it can */
}

int xchg_mpi_shm_usable(const xchg_mpi_plan *pl, char *why, size_t len)
{
#ifndef __linux__
    (void)pl;
    snprintf(why, len, "shm: the shared-memory exchange needs Linux (its barrier is a futex)");
    return 0;
#elif defined(SMPI_H)
    /* SimGrid's SMPI: a simulated rank's memory is its own, and a futex
     * wait would stop the one process every rank runs in */
    (void)pl;
    snprintf(why, len, "shm: under SimGrid's SMPI ranks share no memory");
    return 0;
#else
    if (!pl->cs->one_node) {
        snprintf(why, len, "shm: the %d ranks do not all share one node's memory", pl->cs->p);
        return 0;
    }
    /* variable blocks need slots of 64 bytes at least (shm_v.c) */
    int v = xchg_mpi_is_v(pl->key.kind);
    size_t chunk = xchg_mpi_shm_chunk(pl->cs->p, v ? 64 : pl->block_bytes);
    if (v ? chunk < 64 : chunk == 0) {
        snprintf(why, len,
                 "shm: %d ranks need 2 p^2 slots, more bytes than the %zu its grids may take",
                 pl->cs->p, (size_t)XCHG_MPI_SHM_MAX);
        return 0;
    }
    return 1;
#endif
}

int xchg_mpi_shm_fill(const xchg_mpi_store *st, int p, int rank, size_t from, size_t to)
{
    size_t P = (size_t)p, me = (size_t)rank, c = st->shm_slot;
    int bad = from == 0 && xchg_mpi_prefault(st->shm, XCHG_MPI_SHM_HEADER) < 0;
    for (size_t g = 0; g < 2 && to > from; g++) {
        unsigned char *grid = st->shm + XCHG_MPI_SHM_HEADER + g * P * P * c;
        for (size_t k = 0; k < P; k++) {
            bad |= xchg_mpi_prefault(grid + (me * P + k) * c + from, to - from) < 0; /* row */
            bad |= xchg_mpi_prefault(grid + (k * P + me) * c + from, to - from) < 0; /* column */
        }
    }
    return bad ? -1 : 0;
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
        /* nobody arrives for the next round before the generation moves */
        atomic_store_explicit(&h->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&h->generation, gen + 1, memory_order_release);
        syscall(SYS_futex, &h->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        return;
    }
    while (atomic_load_explicit(&h->generation, memory_order_acquire) == gen)
        syscall(SYS_futex, &h->generation, FUTEX_WAIT, gen, NULL, NULL, 0);
}

void xchg_mpi_shm_barrier(unsigned char *segment, int p)
{
    barrier((shm_header *)(void *)segment, p);
}

/* ---- the same round in two halves, for persistent requests ------------
 * (request.c): post writes this rank's column and arrives at the barrier
 * without waiting; the round is over for this rank once the generation
 * has moved past the one it arrived in; then collect copies its row. */

unsigned char *xchg_mpi_shm_post(xchg_mpi_plan *pl, const unsigned char *S, uint32_t *gen)
{
    xchg_mpi_store *st = pl->store;
    size_t B = pl->block_bytes, P = (size_t)pl->cs->p, me = (size_t)pl->cs->rank;
    size_t c = st->shm_slot;
    shm_header *h = (shm_header *)(void *)st->shm;
    unsigned char *grid = st->shm + XCHG_MPI_SHM_HEADER + (st->shm_round++ & 1) * P * P * c;
    for (size_t d = 0; d < P; d++)
        memcpy(grid + (d * P + me) * c, S + d * B, B);
    *gen = atomic_load_explicit(&h->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&h->arrived, 1, memory_order_acq_rel) + 1 == (uint32_t)P) {
        atomic_store_explicit(&h->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&h->generation, *gen + 1, memory_order_release);
        syscall(SYS_futex, &h->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
    return grid;
}

int xchg_mpi_shm_ready(const xchg_mpi_plan *pl, uint32_t gen, int wait)
{
    shm_header *h = (shm_header *)(void *)pl->store->shm;
    while (wait && atomic_load_explicit(&h->generation, memory_order_acquire) == gen)
        syscall(SYS_futex, &h->generation, FUTEX_WAIT, gen, NULL, NULL, 0);
    return atomic_load_explicit(&h->generation, memory_order_acquire) != gen;
}

void xchg_mpi_shm_collect(const xchg_mpi_plan *pl, const unsigned char *grid, unsigned char *R)
{
    size_t B = pl->block_bytes, P = (size_t)pl->cs->p, me = (size_t)pl->cs->rank;
    size_t c = pl->store->shm_slot;
    for (size_t o = 0; o < P; o++)
        memcpy(R + o * B, grid + (me * P + o) * c, B);
}

/* One round: piece [off, off + n) of every block, through the next grid;
 * with S NULL (this rank failed before the rounds) only its barrier, so
 * the other ranks do not wait forever. */
static void round_trip(xchg_mpi_plan *pl, const unsigned char *S, unsigned char *R, size_t off,
                       size_t n)
{
    xchg_mpi_store *st = pl->store;
    size_t B = pl->block_bytes, P = (size_t)pl->cs->p, me = (size_t)pl->cs->rank;
    size_t c = st->shm_slot; /* a slot's bytes: the stride of the grid */
    shm_header *h = (shm_header *)(void *)st->shm;
    unsigned char *grid =
        st->shm + XCHG_MPI_SHM_HEADER + (st->shm_round++ & 1) * P * P * st->shm_slot;
    if (!S) {
        barrier(h, pl->cs->p);
        return;
    }
    for (size_t d = 0; d < P; d++)
        memcpy(grid + (d * P + me) * c, S + d * B + off, n);
    barrier(h, pl->cs->p);
    if (n == B && c == B) /* slots of a block each: the row is laid out as the receive buffer */
        memcpy(R, grid + me * P * c, P * B);
    else
        for (size_t o = 0; o < P; o++)
            memcpy(R + o * B + off, grid + (me * P + o) * c, n);
}
#endif

int xchg_mpi_shm_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
#ifndef __linux__
    (void)pl, (void)b;
    return MPI_ERR_INTERN;
#else
    xchg_mpi_comm *cs = pl->cs;
    size_t B = pl->block_bytes, all = xchg_mpi_mul((size_t)cs->p, B);
    /* in place: the blocks to send are the receive buffer's (b->in); a
     * round reads its pieces before the barrier and overwrites them after */
    const unsigned char *S = b->in;
    unsigned char *R = b->out;
    int pack_in = !b->in_lay->contiguous, pack_out = !b->out_lay->contiguous;
    unsigned char *local = NULL;
    int rc = MPI_SUCCESS;
    if (pack_in || pack_out) {
        local = xchg_mpi_comm_staging(cs, xchg_mpi_mul(all, (size_t)(pack_in + pack_out)));
        rc = local ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS && pack_in) {
        rc = xchg_mpi_pack_blocks(cs->comm, b->in_lay, (unsigned char *)(uintptr_t)b->in, local,
                                  B, (size_t)cs->p, B, 0);
        S = local;
    }
    if (rc == MPI_SUCCESS && pack_out)
        R = local + (pack_in ? all : 0);
    if (rc != MPI_SUCCESS) /* every round still: the other ranks must not wait forever */
        S = NULL;
    for (size_t off = 0; off < B; off += pl->shm_chunk)
        round_trip(pl, S, R, off, B - off < pl->shm_chunk ? B - off : pl->shm_chunk);
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(cs->comm, b->out_lay, b->out, R, B, (size_t)cs->p, B, 1);
    return rc;
#endif
}
