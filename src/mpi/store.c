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
 * the growths few when counts rise one by one.
 */
#include "mpi/comm.h"

#include <stdlib.h>

/* Smallest arena, and smallest shared segment, made for a communicator. */
#define ARENA_FLOOR ((size_t)64 << 10)
#define SHM_FLOOR ((size_t)256 << 10)

/* Whether every rank of cs has ok (MPI_MIN): *all. An MPI error code. */
static int all_ranks(xchg_mpi_comm *cs, int ok, int *all)
{
    cs->collectives++;
    return PMPI_Allreduce(&ok, all, 1, MPI_INT, MPI_MIN, cs->comm);
}

/* A new arena of want bytes on every rank, or none: *ok. */
static int try_arena(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t want, int *ok)
{
    unsigned char *b = want == SIZE_MAX ? NULL : malloc(want);
    int rc = all_ranks(cs, b != NULL, ok);
    if (rc != MPI_SUCCESS || !*ok) {
        free(b);
        *ok = 0;
        return rc;
    }
    free(st->arena);
    st->arena = b;
    st->arena_bytes = want;
    return MPI_SUCCESS;
}

int xchg_mpi_store_arena(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t bytes, int exact, int *ok)
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
    int rc = try_arena(cs, st, want, ok);
    if (rc == MPI_SUCCESS && !*ok && want > bytes) /* every rank saw it fail: try less */
        rc = try_arena(cs, st, bytes, ok);
    return rc;
}

int xchg_mpi_store_shm(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t slot, int exact, int *ok,
                       char *why, size_t len)
{
    *ok = 1;
    if (st->shm && st->shm_slot >= slot)
        return MPI_SUCCESS;
    size_t slots = 2 * (size_t)cs->p * (size_t)cs->p;
    size_t most = XCHG_MPI_SHM_MAX / slots, want = slot;
    if (!exact) {
        size_t grown = 2 * st->shm_slot, floor = SHM_FLOOR / slots;
        want = grown > want ? grown : want;
        want = floor > want ? floor : want;
        want = want > most && most >= slot ? most : want;
    }
    unsigned char *seg = NULL;
    size_t bytes = XCHG_MPI_SHM_HEADER + slots * want;
    int rc = xchg_mpi_shm_segment_open(cs, bytes, &seg, why, len);
    if (rc != MPI_SUCCESS || !seg) {
        *ok = 0;
        return rc;
    }
    xchg_mpi_shm_segment_close(st->shm, st->shm_bytes);
    st->shm = seg;
    st->shm_bytes = bytes;
    st->shm_slot = want;
    st->shm_round = 0;
    return MPI_SUCCESS;
}

void xchg_mpi_store_release(xchg_mpi_store *st)
{
    free(st->arena);
    xchg_mpi_shm_segment_close(st->shm, st->shm_bytes);
    *st = (xchg_mpi_store){0};
}
