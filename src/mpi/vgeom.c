/*
 * vgeom.c - where the blocks of one MPI_Alltoallv or MPI_Alltoallw call
 * lie, as bytes (plan.h's xchg_mpi_vgeom): for every peer j, the block to
 * send to j and the block to receive from j, each a pointer and a length,
 * from the call's counts, displacements and types, in size_t arithmetic.
 *
 * A block whose type is plain bytes (layout.c's "contiguous": size equals
 * extent and true extent, lower bounds 0) is sent from, and received into,
 * the user's buffer where it lies. Any other block is packed (MPI_Pack)
 * into this rank's staging before the run, or received in staging and
 * unpacked (MPI_Unpack) after it. In place, the blocks to send are the
 * receive buffer's (its counts, displacements and types), copied to
 * staging when the run asks (a direct run overwrites a block before the
 * block at the same place has left). Everything here is local: a rank's
 * geometry is its own, and MPI's matching signatures make the byte
 * lengths of the two ends of every pair agree.
 */
#include "mpi/call.h"

/* A type's bytes a element, extent, and whether its data is plain bytes. */
typedef struct vtype {
    size_t size;
    MPI_Aint extent;
    int plain;
} vtype;

static int vtype_of(MPI_Datatype t, vtype *out)
{
    xchg_mpi_layout lay;
    size_t bytes;
    int rc = xchg_mpi_layout_of(1, t, &lay, &bytes);
    MPI_Aint lb = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_extent(t, &lb, &out->extent);
    out->size = bytes;
    out->plain = lay.contiguous;
    return rc;
}

/* One side (send or receive) of block j: its type, start and bytes. An
 * MPI error code (MPI_ERR_COUNT when the bytes overflow). */
static int side_of(const xchg_mpi_opargs *a, int send, int j, const vtype *shared,
                   unsigned char *base, vtype *t, unsigned char **at, size_t *len)
{
    const void *counts = send ? a->scounts : a->rcounts;
    const void *displs = send ? a->sdispls : a->rdispls;
    MPI_Count n = xchg_mpi_vcount(counts, a->wide, j);
    MPI_Aint d = xchg_mpi_vdispl(displs, a->wide, j);
    int w = a->kind == XCHG_MPI_OP_ALLTOALLW;
    if (w) {
        int rc = vtype_of((send ? a->stypes : a->rtypes)[j], t);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        *t = *shared;
    }
    size_t bytes = xchg_mpi_mul((size_t)n, t->size);
    if (bytes == SIZE_MAX)
        return MPI_ERR_COUNT;
    *len = bytes;
    /* by address: the base may be MPI_BOTTOM (NULL) with absolute
     * displacements, or NULL where nothing is sent */
    *at = bytes ? (unsigned char *)((uintptr_t)base + (uintptr_t)(w ? d : d * t->extent)) : base;
    return MPI_SUCCESS;
}

/* Point g's tables into tab: sp, rp, slen, rlen, then rstaged. */
static void tables_at(xchg_mpi_vgeom *g, unsigned char *tab, int P)
{
    g->sp = (unsigned char **)(void *)tab;
    g->rp = g->sp + P;
    g->slen = (size_t *)(void *)(g->rp + P);
    g->rlen = g->slen + P;
    g->rstaged = (unsigned char *)(g->rlen + P);
}

/* Pack (unpack) n elements of type t at user to (from) packed's bytes. */
static int pack_one(MPI_Comm comm, MPI_Datatype type, const vtype *t, unsigned char *user,
                    unsigned char *packed, size_t bytes, int unpack)
{
    xchg_mpi_layout lay = {.contiguous = 0,
                           .count = (MPI_Count)(bytes / (t->size ? t->size : 1)),
                           .type = type,
                           .stride = 0,
                           .elem_bytes = t->size};
    return xchg_mpi_pack_blocks(comm, &lay, user, packed, 0, 1, bytes, unpack);
}

/* The type of block j on one side of a (v: the one type). */
static MPI_Datatype type_at(const xchg_mpi_opargs *a, int send, int j)
{
    if (a->kind == XCHG_MPI_OP_ALLTOALLW)
        return (send ? a->stypes : a->rtypes)[j];
    return send ? a->stype : a->rtype;
}

int xchg_mpi_vgeom_begin(xchg_mpi_comm *cs, const xchg_mpi_bufs *b, int stage_sends,
                         xchg_mpi_vgeom *g)
{
    const xchg_mpi_opargs *a = b->v;
    int in_place = a->sendbuf == MPI_IN_PLACE, P = cs->p;
    /* in place: the send side is the receive side's arguments */
    xchg_mpi_opargs s = *a;
    if (in_place) {
        s.scounts = a->rcounts, s.sdispls = a->rdispls, s.stype = a->rtype;
        s.stypes = a->rtypes;
    }
    vtype st = {0, 0, 1}, rt = {0, 0, 1};
    int rc = MPI_SUCCESS;
    if (a->kind == XCHG_MPI_OP_ALLTOALLV) {
        rc = vtype_of(s.stype, &st);
        if (rc == MPI_SUCCESS)
            rc = vtype_of(a->rtype, &rt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    /* pass 1: pointers and lengths, and the staging they need */
    size_t words = 4 * (size_t)P;
    size_t reqs_at = (words * sizeof(size_t) + P + 63) / 64 * 64;
    unsigned char *tab = xchg_mpi_comm_vtables(cs, reqs_at);
    if (!tab)
        return MPI_ERR_NO_MEM;
    tables_at(g, tab, P);
    g->smax = g->nsend = g->nrecv = 0;
    g->max_pieces = 1;
    unsigned char *sbase = (unsigned char *)(uintptr_t)b->in, *rbase = b->out;
    size_t staged = 0;
    for (int j = 0; j < P && rc == MPI_SUCCESS; j++) {
        vtype ts, tr;
        rc = side_of(&s, 1, j, &st, sbase, &ts, &g->sp[j], &g->slen[j]);
        if (rc == MPI_SUCCESS)
            rc = side_of(a, 0, j, &rt, rbase, &tr, &g->rp[j], &g->rlen[j]);
        if (rc != MPI_SUCCESS)
            break;
        int stage_s = g->slen[j] && (stage_sends || !ts.plain);
        g->rstaged[j] = g->rlen[j] && !tr.plain;
        staged = xchg_mpi_add(staged, stage_s ? g->slen[j] : 0);
        staged = xchg_mpi_add(staged, g->rstaged[j] ? g->rlen[j] : 0);
        if (j == cs->rank)
            continue;
        g->nsend += g->slen[j] > 0;
        g->nrecv += g->rlen[j] > 0;
        if (g->slen[j] > g->smax)
            g->smax = g->slen[j];
        size_t most = g->slen[j] > g->rlen[j] ? g->slen[j] : g->rlen[j];
        if (xchg_mpi_pieces(most) > g->max_pieces)
            g->max_pieces = xchg_mpi_pieces(most);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (staged == SIZE_MAX)
        return MPI_ERR_COUNT;
    /* the requests of a window (exec_v.c) and their statuses, after the
     * tables */
    size_t nreqs = 2 * XCHG_MPI_WINDOW + 2 * g->max_pieces;
    size_t stat_at = xchg_mpi_add(reqs_at, xchg_mpi_mul(nreqs, sizeof(MPI_Request)));
    stat_at = (stat_at + 63) / 64 * 64;
    size_t need = xchg_mpi_add(stat_at, xchg_mpi_mul(nreqs, sizeof(MPI_Status)));
    if (need > reqs_at) { /* grown: the tables move with their bytes */
        if (!(tab = xchg_mpi_comm_vtables(cs, need)))
            return MPI_ERR_NO_MEM;
        tables_at(g, tab, P);
    }
    g->reqs = (MPI_Request *)(void *)(tab + reqs_at);
    g->statuses = (MPI_Status *)(void *)(tab + stat_at);
    unsigned char *stage = staged ? xchg_mpi_comm_staging(cs, staged) : NULL;
    if (staged && !stage)
        return MPI_ERR_NO_MEM;
    /* pass 2: the staged blocks' places, and the sends packed there */
    xchg_mpi_tally tally = {0, 0};
    for (int j = 0; j < P && rc == MPI_SUCCESS; j++) {
        if (g->slen[j]) {
            vtype ts = st;
            if (a->kind == XCHG_MPI_OP_ALLTOALLW)
                rc = vtype_of(s.stypes[j], &ts);
            if (rc == MPI_SUCCESS && (stage_sends || !ts.plain)) {
                if (ts.plain)
                    xchg_mpi_copy(stage, g->sp[j], g->slen[j], &tally);
                else
                    rc = pack_one(cs->comm, type_at(&s, 1, j), &ts, g->sp[j], stage, g->slen[j],
                                  0);
                g->sp[j] = stage;
                stage += g->slen[j];
            }
        }
        if (g->rstaged[j]) {
            g->rp[j] = stage;
            stage += g->rlen[j];
        }
    }
    xchg_mpi_charge_tally(&tally);
    return rc;
}

int xchg_mpi_vgeom_end(xchg_mpi_comm *cs, const xchg_mpi_bufs *b, const xchg_mpi_vgeom *g)
{
    const xchg_mpi_opargs *a = b->v;
    int me = cs->rank, rc = MPI_SUCCESS;
    /* this rank's own block: in place it is home already, unless it was
     * received in staging (then its send copy is the data) */
    if (g->slen[me] > g->rlen[me])
        return MPI_ERR_TRUNCATE;
    if (g->slen[me] && (a->sendbuf != MPI_IN_PLACE || g->rstaged[me]) && g->rp[me] != g->sp[me]) {
        memcpy(g->rp[me], g->sp[me], g->slen[me]);
        xchg_mpi_charge(1, g->slen[me]);
    }
    vtype rt = {0, 0, 1};
    for (int j = 0; j < cs->p && rc == MPI_SUCCESS; j++) {
        if (!g->rstaged[j])
            continue;
        if (a->kind == XCHG_MPI_OP_ALLTOALLW || rt.size == 0)
            rc = vtype_of(type_at(a, 0, j), &rt);
        MPI_Aint d = xchg_mpi_vdispl(a->rdispls, a->wide, j);
        if (a->kind != XCHG_MPI_OP_ALLTOALLW)
            d *= rt.extent;
        unsigned char *user = (unsigned char *)((uintptr_t)b->out + (uintptr_t)d);
        if (rc == MPI_SUCCESS)
            rc = pack_one(cs->comm, type_at(a, 0, j), &rt, user, g->rp[j], g->rlen[j], 1);
    }
    return rc;
}
