/*
 * plan_cache.c - the plans of recent keys on a communicator: up to
 * XCHG_MPI_CACHE_PLANS, the least recently used going when a new one is
 * made. A plan is cheap to make again (its program and buffers stay with
 * the communicator), so the cache only spares a program that calls with a
 * few counts over and over the arithmetic of making one.
 *
 * Which plans a rank keeps may differ from rank to rank (the short way,
 * memo.c, spares some calls the lookup that marks a plan used), and that
 * is safe: making a plan again asks the other ranks nothing (comm.h).
 * Freeing a plan first makes the memo forget every call it remembers, so
 * no remembered call points at a freed plan.
 */
#include "mpi/call.h"

xchg_mpi_plan *xchg_mpi_cache_find(xchg_mpi_comm *cs, const xchg_mpi_key *key)
{
    for (int i = 0; i < XCHG_MPI_CACHE_PLANS; i++) {
        xchg_mpi_plan *pl = cs->plans[i];
        if (pl && xchg_mpi_key_same(&pl->key, key)) {
            pl->used = ++cs->plans_clock;
            return pl;
        }
    }
    return NULL;
}

void xchg_mpi_cache_put(xchg_mpi_comm *cs, xchg_mpi_plan *pl)
{
    int victim = 0; /* an empty place, else the least recently used */
    for (int i = 1; i < XCHG_MPI_CACHE_PLANS && cs->plans[victim]; i++)
        if (!cs->plans[i] || cs->plans[i]->used < cs->plans[victim]->used)
            victim = i;
    if (cs->plans[victim]) {
        xchg_mpi_memo_forget();
        xchg_mpi_plan_release(cs->plans[victim]);
    }
    pl->used = ++cs->plans_clock;
    cs->plans[victim] = pl;
}

void xchg_mpi_cache_clear(xchg_mpi_comm *cs)
{
    int any = 0;
    for (int i = 0; i < XCHG_MPI_CACHE_PLANS; i++)
        any |= cs->plans[i] != NULL;
    if (any)
        xchg_mpi_memo_forget();
    for (int i = 0; i < XCHG_MPI_CACHE_PLANS; i++) {
        xchg_mpi_plan_release(cs->plans[i]);
        cs->plans[i] = NULL;
    }
}
