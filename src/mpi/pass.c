/*
 * pass.c - calls the executor passes to the MPI library, and the counters
 * of carried and passed calls behind xchg_mpi_call_counts (the exchange)
 * and xchg_mpi_op_call_counts (the other operations). The counters are
 * atomic: threads may call on different communicators at once.
 */
#include "mpi/library.h"

#include <stdatomic.h>

static atomic_uint_fast64_t carried[XCHG_OP_COUNT], passed[XCHG_OP_COUNT];

void xchg_mpi_count(xchg_op_kind kind, int carried_here)
{
    atomic_fetch_add(carried_here ? &carried[kind] : &passed[kind], 1);
}

int xchg_mpi_pass_on(const xchg_mpi_opargs *a, const xchg_mpi_pass *pass)
{
    if ((a->scount > INT_MAX || a->rcount > INT_MAX) && MPI_VERSION < 4)
        return MPI_ERR_COUNT; /* not made, so not counted */
    xchg_mpi_count_call(a, 0);
    return xchg_mpi_library(a->kind, a, pass);
}

xchg_mpi_pass xchg_mpi_pass_of(const xchg_mpi_comm *cs, int q)
{
    int p = cs->p > 0 ? cs->p : 1;
    long long s = ((long long)q % p + p) % p;
    return (xchg_mpi_pass){.shift_comm = cs->comm,
                           .to = (int)((cs->rank + s) % p),
                           .from = (int)((cs->rank - s + p) % p)};
}

void xchg_mpi_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    if (carried_out)
        *carried_out = (uint64_t)atomic_load(&carried[XCHG_OP_ALLTOALL]);
    if (passed_out)
        *passed_out = (uint64_t)atomic_load(&passed[XCHG_OP_ALLTOALL]) +
                      xchg_mpi_memo_hits(XCHG_OP_ALLTOALL);
}

void xchg_mpi_op_call_counts(uint64_t *carried_out, uint64_t *passed_out)
{
    uint64_t c = 0, p = 0;
    for (int k = 0; k < XCHG_OP_COUNT; k++) {
        if (k == XCHG_OP_ALLTOALL)
            continue;
        c += (uint64_t)atomic_load(&carried[k]);
        p += (uint64_t)atomic_load(&passed[k]) + xchg_mpi_memo_hits((xchg_op_kind)k);
    }
    if (carried_out)
        *carried_out = c;
    if (passed_out)
        *passed_out = p;
}
