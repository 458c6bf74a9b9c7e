/*
 * nb_direct.c - the direct exchange of a nonblocking or persistent
 * all-to-all (request.h): at start, one receive and one send a peer with
 * bytes to move, all posted at once, each block in its own datatype
 * straight from and into the user's buffers (MPI moves derived types
 * itself; nothing is packed), on the communicator's private duplicate with
 * the request's own tag. In place, the blocks to send are packed from the
 * receive buffer into the request's staging first (sent as MPI_PACKED,
 * which matches any type signature); this rank's own block is then home
 * already. Blocks of 0 bytes post nothing on either side: MPI's matching
 * signatures make both ends see 0.
 *
 * Because every message is posted at start, the MPI library moves them
 * with no more help from xchg: the exchange progresses as the library's
 * own point-to-point messages do, and the program's computation overlaps
 * it as far as the library progresses messages in the background.
 */
#include "mpi/request.h"

#include <limits.h>
#include <stdlib.h>

struct xchg_mpi_nbd {
    int p, me, tag, in_place, nreq;
    MPI_Comm comm;
    /* block j: to send (sp, sc of st) and to receive (rp, rc of rt) */
    void **sp, **rp;
    int *sc, *rc;
    MPI_Datatype *st, *rt;
    int *pack_at, *pack_len; /* in place: block j's place in stage, and its bytes */
    unsigned char *stage;
    MPI_Request *reqs;
    MPI_Status *stats;
};

/* One side of block j: where it starts, its count (int) and type. */
static int side(const xchg_mpi_opargs *a, int send, int j, void **at, int *count,
                MPI_Datatype *type)
{
    const void *buf = send ? a->sendbuf : a->recvbuf;
    MPI_Count n;
    MPI_Aint displ;
    MPI_Datatype t;
    if (a->kind == XCHG_OP_ALLTOALL) {
        n = send ? a->scount : a->rcount;
        t = send ? a->stype : a->rtype;
        displ = (MPI_Aint)j * (MPI_Aint)n;
    } else {
        n = xchg_mpi_vcount(send ? a->scounts : a->rcounts, a->wide, j);
        displ = xchg_mpi_vdispl(send ? a->sdispls : a->rdispls, a->wide, j);
        t = a->kind == XCHG_MPI_OP_ALLTOALLW ? (send ? a->stypes : a->rtypes)[j]
                                             : (send ? a->stype : a->rtype);
    }
    if (n > INT_MAX)
        return MPI_ERR_COUNT;
    MPI_Aint lb = 0, extent = 1;
    int rc = MPI_SUCCESS;
    if (a->kind != XCHG_MPI_OP_ALLTOALLW && n > 0)
        rc = PMPI_Type_get_extent(t, &lb, &extent); /* displacements count extents */
    *at = (void *)((uintptr_t)buf + (uintptr_t)(displ * extent));
    *count = (int)n;
    *type = t;
    return rc;
}

/* The bytes of count elements of type (0 when either is). */
static MPI_Count bytes_of(int count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count == 0 || PMPI_Type_size_x(type, &size) != MPI_SUCCESS)
        return 0;
    return size * count;
}

void xchg_mpi_nbd_free(xchg_mpi_nbd *d)
{
    if (!d)
        return;
    free(d->sp);
    free(d->stage);
    free(d);
}

int xchg_mpi_nbd_make(const xchg_mpi_opargs *a, MPI_Comm comm, int tag, xchg_mpi_nbd **out)
{
    *out = NULL;
    xchg_mpi_nbd *d = calloc(1, sizeof *d);
    if (!d)
        return MPI_ERR_NO_MEM;
    int rc = PMPI_Comm_size(a->comm, &d->p);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_rank(a->comm, &d->me);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    size_t P = (size_t)d->p;
    d->comm = comm, d->tag = tag, d->in_place = a->sendbuf == MPI_IN_PLACE;
    /* one allocation for the tables */
    size_t bytes = P * (2 * sizeof(void *) + 4 * sizeof(int) + 2 * sizeof(MPI_Datatype) +
                        2 * sizeof(MPI_Request) + 2 * sizeof(MPI_Status));
    unsigned char *t = calloc(1, bytes);
    if (!t) {
        free(d);
        return MPI_ERR_NO_MEM;
    }
    d->sp = (void **)(void *)t;
    d->rp = d->sp + P;
    d->reqs = (MPI_Request *)(void *)(d->rp + P);
    d->stats = (MPI_Status *)(void *)(d->reqs + 2 * P);
    d->st = (MPI_Datatype *)(void *)(d->stats + 2 * P);
    d->rt = d->st + P;
    d->sc = (int *)(void *)(d->rt + P);
    d->rc = d->sc + P;
    d->pack_at = d->rc + P;
    d->pack_len = d->pack_at + P;
    /* in place: the send side is the receive side's */
    xchg_mpi_opargs s = *a;
    if (d->in_place) {
        s.sendbuf = a->recvbuf, s.scount = a->rcount, s.stype = a->rtype;
        s.scounts = a->rcounts, s.sdispls = a->rdispls, s.stypes = a->rtypes;
    }
    int packed = 0;
    for (int j = 0; j < d->p && rc == MPI_SUCCESS; j++) {
        rc = side(&s, 1, j, &d->sp[j], &d->sc[j], &d->st[j]);
        if (rc == MPI_SUCCESS)
            rc = side(a, 0, j, &d->rp[j], &d->rc[j], &d->rt[j]);
        if (rc == MPI_SUCCESS && d->in_place && j != d->me && d->sc[j] > 0) {
            int size = 0;
            rc = PMPI_Pack_size(d->sc[j], d->st[j], comm, &size);
            d->pack_at[j] = packed;
            if (rc == MPI_SUCCESS && size > INT_MAX - packed)
                rc = MPI_ERR_COUNT;
            packed += size;
        }
    }
    if (rc == MPI_SUCCESS && packed && !(d->stage = malloc((size_t)packed)))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        xchg_mpi_nbd_free(d);
        return rc;
    }
    *out = d;
    return MPI_SUCCESS;
}

int xchg_mpi_nbd_start(xchg_mpi_nbd *d)
{
    int rc = MPI_SUCCESS;
    d->nreq = 0;
    /* in place: this start's data packed before anything can arrive over it */
    for (int j = 0; d->in_place && j < d->p && rc == MPI_SUCCESS; j++) {
        int pos = 0, size = 0;
        if (j == d->me || bytes_of(d->sc[j], d->st[j]) == 0)
            continue;
        rc = PMPI_Pack_size(d->sc[j], d->st[j], d->comm, &size);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Pack(d->sp[j], d->sc[j], d->st[j], d->stage + d->pack_at[j], size, &pos,
                           d->comm);
        d->pack_len[j] = pos;
    }
    for (int j = 0; j < d->p && rc == MPI_SUCCESS; j++) {
        if (d->in_place && j == d->me)
            continue; /* home already */
        if (bytes_of(d->rc[j], d->rt[j]) > 0)
            rc = PMPI_Irecv(d->rp[j], d->rc[j], d->rt[j], j, d->tag, d->comm, &d->reqs[d->nreq++]);
    }
    for (int j = 0; j < d->p && rc == MPI_SUCCESS; j++) {
        if ((d->in_place && j == d->me) || bytes_of(d->sc[j], d->st[j]) == 0)
            continue;
        if (d->in_place) {
            rc = PMPI_Isend(d->stage + d->pack_at[j], d->pack_len[j], MPI_PACKED, j, d->tag,
                            d->comm, &d->reqs[d->nreq++]);
        } else {
            rc = PMPI_Isend(d->sp[j], d->sc[j], d->st[j], j, d->tag, d->comm,
                            &d->reqs[d->nreq++]);
        }
    }
    return rc;
}

int xchg_mpi_nbd_test(xchg_mpi_nbd *d, int wait, int *done)
{
    *done = 0;
    if (d->nreq == 0) {
        *done = 1;
        return MPI_SUCCESS;
    }
    int flag = 0, rc;
    if (wait) {
        rc = PMPI_Waitall(d->nreq, d->reqs, d->stats);
        flag = 1;
    } else {
        rc = PMPI_Testall(d->nreq, d->reqs, &flag, d->stats);
    }
    if (rc == MPI_SUCCESS && flag) {
        *done = 1;
        d->nreq = 0;
    }
    return rc;
}
