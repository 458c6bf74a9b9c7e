/*
 * staging.c - this rank's staging buffer on a communicator, where a run
 * packs a derived datatype's data to plain bytes (exec.c, shm.c,
 * op_exec.c). Only the rank that describes its data with such a type
 * needs it (ranks may use different types of one signature), so it is not
 * part of the shared buffers the ranks agree on (store.c): it grows on
 * demand and is kept until the communicator is freed. Beside it, the
 * tables of a variable-block exchange's call (vgeom.c), likewise local.
 */
#include "mpi/comm.h"

#include <stdlib.h>

void *xchg_mpi_grow(void *buf, size_t *bytes, size_t n)
{
    if (n <= *bytes)
        return buf;
    void *b = n == SIZE_MAX ? NULL : realloc(buf, n);
    if (b)
        *bytes = n;
    return b;
}

unsigned char *xchg_mpi_comm_staging(xchg_mpi_comm *cs, size_t n)
{
    unsigned char *b = xchg_mpi_grow(cs->staging, &cs->staging_bytes, n);
    return b ? cs->staging = b : NULL;
}

void *xchg_mpi_comm_vtables(xchg_mpi_comm *cs, size_t n)
{
    void *b = xchg_mpi_grow(cs->vtables, &cs->vtables_bytes, n);
    return b ? cs->vtables = b : NULL;
}
