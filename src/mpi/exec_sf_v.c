/*
 * exec_sf_v.c - the store-and-forward schedules (Bruck, the hypercube's
 * standard exchange, the tori's: any program whose blocks pass through
 * other ranks) on variable blocks (MPI_Alltoallv, _w).
 *
 * A rank that forwards a block cannot know its size from its own
 * arguments: only the block's origin and destination do. So the sizes
 * travel with the data, as the parameterized non-uniform all-to-alls of
 * Fan, Domke et al. carry theirs (docs/alltoallv.md): every message is a
 * header of one 8-byte length a block, in the program's run order, then
 * the blocks' bytes. The receiver learns the message's length by probing
 * it (MPI_Probe on the communicator's duplicate, where one collective at
 * a time runs) and its blocks' lengths from the header. A message above
 * XCHG_MPI_PIECE bytes goes in pieces: the first is probed, its header
 * gives the whole length, and the rest are posted.
 *
 * Blocks are kept where they arrived: each place's slots (send, receive,
 * scratch) are a table of pointers and lengths, pointing into the user's
 * send buffer (or this rank's staging) at first, then into the messages
 * received, which are kept until the call ends. A block is copied when it
 * is packed into a message and once more at the end, home into the
 * receive buffer. Every step sends its message, even of blocks of 0 bytes
 * (the receiver cannot know it is empty). Cost: the program's start-ups,
 * its volume in each call's bytes, and 8 bytes a block forwarded.
 */
#include "mpi/call.h"

#include <stdlib.h>

/* One received message, kept until the call ends. */
typedef struct kept {
    struct kept *next;
    unsigned char data[];
} kept;

/* A run's state: the places' tables, the messages kept, the send buffer. */
typedef struct sf_run {
    unsigned char **ptr[3];
    size_t *len[3];
    kept *msgs;
    unsigned char *out;
    size_t out_bytes;
} sf_run;

static unsigned char *keep(sf_run *r, size_t bytes)
{
    kept *k = malloc(sizeof *k + (bytes ? bytes : 1));
    if (!k)
        return NULL;
    k->next = r->msgs;
    r->msgs = k;
    return k->data;
}

/* The message of step m to send, packed into r->out: its bytes, or
 * SIZE_MAX when memory cannot be had. */
static size_t pack_message(sf_run *r, const xchg_mpi_xprog *x, const xchg_mpi_step *m,
                           xchg_mpi_tally *t)
{
    size_t nb = m->send_blocks, bytes = 8 * nb;
    const xchg_mpi_run *runs = x->runs + m->send_run0;
    for (size_t i = 0; i < m->nsend_runs; i++)
        for (size_t b = 0; b < runs[i].count; b++)
            bytes = xchg_mpi_add(bytes, r->len[runs[i].where][runs[i].slot + b]);
    unsigned char *o = xchg_mpi_grow(r->out, &r->out_bytes, bytes);
    if (!o && bytes)
        return SIZE_MAX;
    r->out = o;
    unsigned char *head = r->out, *data = r->out + 8 * nb;
    for (size_t i = 0; i < m->nsend_runs; i++)
        for (size_t b = 0; b < runs[i].count; b++) {
            int w = runs[i].where;
            size_t s = runs[i].slot + b;
            uint64_t n = r->len[w][s];
            memcpy(head, &n, 8);
            head += 8;
            xchg_mpi_copy(data, r->ptr[w][s], (size_t)n, t);
            data += n;
        }
    return bytes;
}

/* Receive step m's message from m->from: probe its first piece, learn
 * its length from the header, receive the rest, and point the receive
 * runs' slots at its blocks. An MPI error code. */
static int receive_message(sf_run *r, const xchg_mpi_xprog *x, const xchg_mpi_step *m,
                           MPI_Comm comm, MPI_Request *reqs, size_t *nreq)
{
    MPI_Status st;
    int n0 = 0;
    int rc = MPI_Probe(m->from, 0, comm, &st);
    if (rc == MPI_SUCCESS)
        rc = MPI_Get_count(&st, MPI_BYTE, &n0);
    size_t nb = m->recv_blocks;
    if (rc != MPI_SUCCESS)
        return rc;
    if ((size_t)n0 < 8 * nb)
        return MPI_ERR_TRUNCATE; /* not this program's message */
    unsigned char *msg = keep(r, (size_t)n0);
    if (!msg)
        return MPI_ERR_NO_MEM;
    rc = MPI_Recv(msg, n0, MPI_BYTE, m->from, 0, comm, MPI_STATUS_IGNORE);
    size_t total = 8 * nb;
    for (size_t b = 0; rc == MPI_SUCCESS && b < nb; b++) {
        uint64_t n;
        memcpy(&n, msg + 8 * b, 8);
        total = xchg_mpi_add(total, (size_t)n);
    }
    if (rc == MPI_SUCCESS && total > (size_t)n0) { /* pieces: the whole in one place */
        unsigned char *all = total == SIZE_MAX ? NULL : keep(r, total);
        if (!all)
            return MPI_ERR_NO_MEM;
        memcpy(all, msg, (size_t)n0);
        msg = all;
        /* the sender's pieces after its first: tags 1, 2, ... */
        unsigned char *at = all + n0;
        size_t left = total - (size_t)n0;
        for (int tag = 1; rc == MPI_SUCCESS && left > 0; tag++) {
            size_t n = left < XCHG_MPI_PIECE ? left : XCHG_MPI_PIECE;
            rc = MPI_Irecv(at, (int)n, MPI_BYTE, m->from, tag, comm, &reqs[(*nreq)++]);
            at += n;
            left -= n;
        }
    }
    const xchg_mpi_run *runs = x->runs + m->recv_run0;
    unsigned char *data = msg + 8 * nb;
    size_t b = 0;
    for (size_t i = 0; rc == MPI_SUCCESS && i < m->nrecv_runs; i++)
        for (size_t k = 0; k < runs[i].count; k++, b++) {
            uint64_t n;
            memcpy(&n, msg + 8 * b, 8);
            r->ptr[runs[i].where][runs[i].slot + k] = data;
            r->len[runs[i].where][runs[i].slot + k] = (size_t)n;
            data += n;
        }
    return rc;
}

/* Free what a run kept. */
static void run_free(sf_run *r)
{
    while (r->msgs) {
        kept *k = r->msgs;
        r->msgs = k->next;
        free(k);
    }
    free(r->out);
    free(r->ptr[0]);
}

int xchg_mpi_exec_sf_v(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    const xchg_mpi_xprog *x = &pl->prog->x;
    xchg_mpi_comm *cs = pl->cs;
    MPI_Comm comm = cs->comm;
    size_t P = (size_t)cs->p, S = x->scratch_blocks;
    xchg_mpi_vgeom g;
    int rc = xchg_mpi_vgeom_begin(cs, b, b->v->sendbuf == MPI_IN_PLACE, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the places' tables: send (the blocks to send), receive (empty until
     * blocks arrive), scratch (empty) */
    sf_run r = {0};
    size_t slots = 2 * P + S;
    r.ptr[0] = calloc(slots, sizeof(unsigned char *) + sizeof(size_t));
    if (!r.ptr[0])
        return MPI_ERR_NO_MEM;
    r.ptr[XCHG_LOC_SEND] = r.ptr[0]; /* the places' order in the one allocation */
    r.ptr[XCHG_LOC_RECV] = r.ptr[XCHG_LOC_SEND] + P;
    r.ptr[XCHG_LOC_SCRATCH] = r.ptr[XCHG_LOC_RECV] + P;
    size_t *lens = (size_t *)(void *)(r.ptr[0] + slots);
    r.len[XCHG_LOC_SEND] = lens, r.len[XCHG_LOC_RECV] = lens + P;
    r.len[XCHG_LOC_SCRATCH] = lens + 2 * P;
    for (size_t j = 0; j < P; j++)
        r.ptr[XCHG_LOC_SEND][j] = g.sp[j], r.len[XCHG_LOC_SEND][j] = g.slen[j];
    xchg_mpi_tally t = {0, 0};
    for (size_t k = 0; k < x->nsteps && rc == MPI_SUCCESS; k++) {
        const xchg_mpi_step *m = &x->steps[k];
        size_t nreq = 0;
        if (m->send_blocks) {
            size_t bytes = pack_message(&r, x, m, &t);
            if (bytes == SIZE_MAX)
                rc = MPI_ERR_NO_MEM;
            else if (xchg_mpi_pieces(bytes) > XCHG_MPI_WINDOW) /* past 64 GiB: no room */
                rc = MPI_ERR_COUNT;
            else
                rc = xchg_mpi_post(comm, 0, r.out, bytes, m->to, g.reqs, &nreq);
        }
        if (rc == MPI_SUCCESS && m->recv_blocks)
            rc = receive_message(&r, x, m, comm, g.reqs, &nreq);
        if (nreq) {
            int wrc = MPI_Waitall((int)nreq, g.reqs, g.statuses);
            rc = rc == MPI_SUCCESS ? wrc : rc;
        }
    }
    /* home: every block from another rank into the receive buffer */
    for (size_t o = 0; o < P && rc == MPI_SUCCESS; o++) {
        if (o == (size_t)cs->rank)
            continue;
        if (r.len[XCHG_LOC_RECV][o] != g.rlen[o])
            rc = g.rlen[o] < r.len[XCHG_LOC_RECV][o] ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER;
        else if (g.rlen[o])
            xchg_mpi_copy(g.rp[o], r.ptr[XCHG_LOC_RECV][o], g.rlen[o], &t);
    }
    xchg_mpi_charge_tally(&t);
    run_free(&r);
    return rc == MPI_SUCCESS ? xchg_mpi_vgeom_end(cs, b, &g) : rc;
}
