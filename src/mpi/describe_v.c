/*
 * describe_v.c - the operations' table rows (call.h) of MPI_Alltoallv and
 * MPI_Alltoallw: MPI's checks of their arguments, and what a call means.
 *
 * Their key holds only the operation and whether the call is in place:
 * MPI makes every rank agree on those, and on no count but each pair's
 * (the bytes i sends j are the bytes j expects from i). So one plan serves
 * every count (choose_v.c), and each call's counts, displacements and
 * types reach its run as they were given (xchg_mpi_bufs.v; vgeom.c reads
 * them). The checks are MPI's: a negative count (MPI_ERR_COUNT), a null
 * type where a count is not 0 (MPI_ERR_TYPE), null count or displacement
 * arrays where they are read (MPI_ERR_ARG), and the same buffer to send
 * from and receive into without MPI_IN_PLACE (MPI_ERR_BUFFER, as MPICH
 * checks it).
 */
#include "mpi/call.h"

/* One side's checks: counts, displacements and types of p peers. */
static int check_side(const void *counts, const void *displs, MPI_Datatype type,
                      const MPI_Datatype *types, int wide, int p)
{
    if (!counts || !displs)
        return MPI_ERR_ARG;
    int used = 0;
    for (int j = 0; j < p; j++) {
        MPI_Count n = xchg_mpi_vcount(counts, wide, j);
        if (n < 0)
            return MPI_ERR_COUNT;
        if (n > 0 && types && types[j] == MPI_DATATYPE_NULL)
            return MPI_ERR_TYPE;
        used |= n > 0;
    }
    if (used && !types && type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

int xchg_mpi_describe_v(const xchg_mpi_opargs *a, xchg_mpi_call *c)
{
    int w = a->kind == XCHG_MPI_OP_ALLTOALLW;
    int in_place = a->sendbuf == MPI_IN_PLACE;
    if (w && (!a->rtypes || (!in_place && !a->stypes)))
        return MPI_ERR_ARG;
    int rc = check_side(a->rcounts, a->rdispls, a->rtype, w ? a->rtypes : NULL, a->wide, c->p);
    if (rc == MPI_SUCCESS && !in_place)
        rc = check_side(a->scounts, a->sdispls, a->stype, w ? a->stypes : NULL, a->wide, c->p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!in_place && a->sendbuf && a->sendbuf == a->recvbuf)
        return MPI_ERR_BUFFER;
    c->key = (xchg_mpi_key){.kind = a->kind, .in_place = in_place};
    c->b = (xchg_mpi_bufs){.in = in_place ? a->recvbuf : a->sendbuf, .out = a->recvbuf, .v = a};
    c->what = XCHG_MPI_RUN;
    return MPI_SUCCESS;
}
