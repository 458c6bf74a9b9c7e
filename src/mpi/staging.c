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

unsigned char *xchg_mpi_comm_staging(xchg_mpi_comm *cs, size_t n)
{
    if (n > cs->staging_bytes) {
        unsigned char *b = n == SIZE_MAX ? NULL : realloc(cs->staging, n);
        if (!b)
            return NULL;
        cs->staging = b;
        cs->staging_bytes = n;
    }
    return cs->staging;
}

void *xchg_mpi_comm_vtables(xchg_mpi_comm *cs, size_t n)
{
    if (n > cs->vtables_bytes) {
        void *b = n == SIZE_MAX ? NULL : realloc(cs->vtables, n);
        if (!b)
            return NULL;
        cs->vtables = b;
        cs->vtables_bytes = n;
    }
    return cs->vtables;
}
