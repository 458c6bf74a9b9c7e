/*
 * op_exec.c - run one rank's plan of an operation on a call's buffers
 * (xchg_mpi_op_exec; docs/mpi-ops.md).
 *
 * The input is read as plain bytes: straight from the caller's buffer when
 * its datatype is plain bytes, else packed (MPI_Pack) into staging first.
 * Each phase starts by copying its start pieces into their slots (phase 0
 * from the input, a later phase from the piece the phase before left), then
 * runs its steps: post the receive, send (a message whose pieces lie one
 * after another straight from there, others packed into one buffer), wait,
 * unpack into slots (or receive in place likewise),
 * and apply the step's combinations with MPI_Reduce_local in the order the
 * program gives (so an operator that is not commutative sees rank order
 * where the program keeps it). The last phase's result pieces are copied
 * to the output, through staging and MPI_Unpack for a derived datatype.
 * Start pieces are read from the input and result pieces kept in the
 * output where they lie (place_slots), so a broadcast copies nothing; the
 * input is copied first when it shares bytes with the output
 * (MPI_IN_PLACE).
 *
 * The slots, the packing buffers, the slot table and the requests are the
 * plan's part of the communicator's store (plan.c carves them); staging
 * for a derived datatype is this rank's own (comm.c).
 */
#include "mpi/plan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One run: the plan, its program, and where its buffers are now. */
typedef struct oprun {
    const xchg_mpi_plan *pl;
    const xchg_mpi_oprog *o;
    MPI_Comm comm;
    unsigned char **at; /* where each slot is during this run */
    unsigned char *slots, *send_pack, *recv_pack;
    MPI_Request *reqs;
    MPI_Status *statuses;
} oprun;

/* Slot i, where this run keeps it. */
static unsigned char *slot(const oprun *r, uint32_t i)
{
    return r->at[i];
}

/* Nonzero when [a, a + na) and [b, b + nb) share a byte. */
static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

/* The bytes of pieces first .. first + n - 1. */
static size_t pieces_bytes(const oprun *r, size_t first, size_t n)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += xchg_mpi_seg_len(r->pl, r->o->pieces[first + i].seg);
    return bytes;
}

/*
 * Where this run keeps each slot. A slot holds one piece and is never
 * reused, so a start piece of phase 0 can be read where the input has it
 * (it is only ever read: combinations write new slots) and a result piece
 * of the last phase can live where the output wants it (messages are
 * received and combinations written straight there): for a broadcast the
 * root sends from the caller's buffer and the others receive into theirs,
 * with no copy. The input is not used in place when it shares bytes with
 * the output (MPI_IN_PLACE): a result written early could overwrite a
 * start piece not yet sent. A slot both start and result lives in the
 * output.
 */
static void place_slots(oprun *r, const unsigned char *in, size_t in_bytes, unsigned char *out,
                        size_t out_bytes)
{
    const xchg_mpi_oprog *o = r->o;
    for (size_t i = 0; i < o->nslots; i++)
        r->at[i] = r->slots + i * r->pl->slot_bytes;
    if (in && !(out && overlap(in, in_bytes, out, out_bytes)))
        for (size_t i = 0; i < o->nstart[0]; i++) {
            const xchg_mpi_oppiece *pc = &o->pieces[o->start0[0] + i];
            r->at[pc->slot] = (unsigned char *)(uintptr_t)in + xchg_mpi_seg_off(r->pl, pc->seg);
        }
    size_t last = o->nphases - 1;
    for (size_t i = 0; out && i < o->nres[last]; i++) {
        const xchg_mpi_oppiece *pc = &o->pieces[o->res0[last] + i];
        r->at[pc->slot] = out + xchg_mpi_seg_off(r->pl, pc->seg);
    }
}

/* Copy a message's pieces between their slots and a packed buffer. */
static void copy_pieces(const oprun *r, size_t first, size_t n, unsigned char *packed, int unpack)
{
    xchg_mpi_tally t = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const xchg_mpi_oppiece *pc = &r->o->pieces[first + i];
        size_t len = xchg_mpi_seg_len(r->pl, pc->seg);
        if (len == 0) /* an empty piece (fewer elements than pieces); packed may be NULL */
            continue;
        if (unpack)
            xchg_mpi_copy(slot(r, pc->slot), packed, len, &t);
        else
            xchg_mpi_copy(packed, slot(r, pc->slot), len, &t);
        packed += len;
    }
    xchg_mpi_charge_tally(&t);
}

/* inout = in op inout over len bytes of elements of the key's esize bytes,
 * in pieces whose element counts fit int. */
static int reduce_local(const oprun *r, const unsigned char *in, unsigned char *inout, size_t len,
                        MPI_Datatype type, MPI_Op op)
{
    size_t esize = r->pl->key.esize;
    size_t n = esize ? len / esize : 0, most = (size_t)INT_MAX;
    while (n > 0) {
        size_t k = n < most ? n : most;
        int rc = MPI_Reduce_local(in, inout, (int)k, type, op);
        if (rc != MPI_SUCCESS)
            return rc;
        in += k * esize;
        inout += k * esize;
        n -= k;
    }
    return MPI_SUCCESS;
}

/* A step's combinations: out = recv op held (recv_first) or held op recv.
 * MPI_Reduce_local computes inout = in op inout, so the right operand is
 * copied to out first; out is always a slot of its own. */
static int combine(const oprun *r, const xchg_mpi_opstep *m, MPI_Datatype type, MPI_Op op)
{
    const xchg_mpi_oprog *o = r->o;
    for (size_t i = 0; i < m->ncomb; i++) {
        const xchg_op_combine *c = &o->combs[m->comb0 + i];
        uint32_t left = c->recv_first ? c->recv : c->held;
        uint32_t right = c->recv_first ? c->held : c->recv;
        size_t len = r->pl->slot_bytes;
        /* the bytes of the segment the slots hold: the received piece's */
        for (size_t j = 0; j < m->nrecv; j++)
            if (o->pieces[m->recv0 + j].slot == c->recv)
                len = xchg_mpi_seg_len(r->pl, o->pieces[m->recv0 + j].seg);
        memcpy(slot(r, c->out), slot(r, right), len);
        xchg_mpi_charge(1, len);
        int rc = reduce_local(r, slot(r, left), slot(r, c->out), len, type, op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Nonzero when a message's n pieces (from first on) lie one after another
 * in memory as this run places them (a scatter's blocks for a run of dests
 * in the root's buffer, an allgather's for a run of origins in the output,
 * slots filled by one earlier message), so it is sent from or received into
 * place without packing. */
static int in_a_row(const oprun *r, size_t first, size_t n)
{
    if (n == 0)
        return 0;
    const unsigned char *next = slot(r, r->o->pieces[first].slot);
    for (size_t i = 0; i < n; i++) {
        const xchg_mpi_oppiece *pc = &r->o->pieces[first + i];
        if (slot(r, pc->slot) != next)
            return 0;
        next += xchg_mpi_seg_len(r->pl, pc->seg);
    }
    return 1;
}

/* One step: its messages, then its combinations. */
static int run_step(const oprun *r, const xchg_mpi_opstep *m, MPI_Datatype type, MPI_Op op)
{
    int recv = m->from != MPI_PROC_NULL, send = m->to != MPI_PROC_NULL;
    unsigned char *into = NULL, *from = NULL; /* NULL only for a message of 0 bytes */
    size_t recv_bytes = recv ? pieces_bytes(r, m->recv0, m->nrecv) : 0;
    size_t send_bytes = send ? pieces_bytes(r, m->send0, m->nsend) : 0;
    int rc = MPI_SUCCESS;
    int recv_direct = recv && in_a_row(r, m->recv0, m->nrecv);
    if (recv)
        into = recv_direct ? slot(r, r->o->pieces[m->recv0].slot) : r->recv_pack;
    if (send) {
        int direct = in_a_row(r, m->send0, m->nsend);
        from = direct ? slot(r, r->o->pieces[m->send0].slot) : r->send_pack;
        if (!direct)
            copy_pieces(r, m->send0, m->nsend, r->send_pack, 0);
    }
    if (recv && send && recv_bytes <= XCHG_MPI_PIECE && send_bytes <= XCHG_MPI_PIECE) {
        rc = MPI_Sendrecv(from, (int)send_bytes, MPI_BYTE, m->to, 0, into, (int)recv_bytes,
                          MPI_BYTE, m->from, 0, r->comm, MPI_STATUS_IGNORE);
    } else {
        size_t nreq = 0;
        if (recv)
            rc = xchg_mpi_post(r->comm, 1, into, recv_bytes, m->from, r->reqs, &nreq);
        if (rc == MPI_SUCCESS && send)
            rc = xchg_mpi_post(r->comm, 0, from, send_bytes, m->to, r->reqs, &nreq);
        if (nreq) {
            int wrc = MPI_Waitall((int)nreq, r->reqs, r->statuses);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
    }
    if (rc == MPI_SUCCESS && recv && !recv_direct)
        copy_pieces(r, m->recv0, m->nrecv, r->recv_pack, 1);
    if (rc == MPI_SUCCESS && m->ncomb)
        rc = combine(r, m, type, op);
    return rc;
}

/* Fill phase k's start pieces: phase 0 from the input data (none when the
 * rank gives none), a later phase from the one piece phase k-1 left. */
static int start_phase(const oprun *r, size_t k, const unsigned char *data)
{
    const xchg_mpi_oprog *o = r->o;
    if (o->nstart[k] == 0)
        return MPI_SUCCESS;
    const xchg_mpi_oppiece *from = NULL;
    if (k > 0) {
        if (o->nres[k - 1] != 1)
            return MPI_ERR_INTERN; /* the program leaves a phase with one piece */
        from = &o->pieces[o->res0[k - 1]];
    } else if (!data) {
        return MPI_ERR_INTERN;
    }
    for (size_t i = 0; i < o->nstart[k]; i++) {
        const xchg_mpi_oppiece *pc = &o->pieces[o->start0[k] + i];
        const unsigned char *src =
            from ? slot(r, from->slot) : data + xchg_mpi_seg_off(r->pl, pc->seg);
        if (slot(r, pc->slot) != src) /* not read in place (place_slots) */
            memmove(slot(r, pc->slot), src, xchg_mpi_seg_len(r->pl, pc->seg));
    }
    return MPI_SUCCESS;
}

int xchg_mpi_op_exec(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    const xchg_mpi_oprog *o = &pl->prog->o;
    const xchg_mpi_carve *c = &pl->carve;
    size_t B = pl->block_bytes;
    if (B == 0)
        return MPI_SUCCESS;
    oprun r = {.pl = pl,
               .o = o,
               .comm = pl->cs->comm,
               .at = (unsigned char **)(void *)xchg_mpi_at(pl, c->at),
               .slots = xchg_mpi_at(pl, c->scratch),
               .send_pack = xchg_mpi_at(pl, c->send_pack),
               .recv_pack = xchg_mpi_at(pl, c->recv_pack),
               .reqs = (MPI_Request *)(void *)xchg_mpi_at(pl, c->reqs),
               .statuses = (MPI_Status *)(void *)xchg_mpi_at(pl, c->statuses)};
    int pack_in = b->in && !b->in_lay->contiguous, pack_out = b->out && !b->out_lay->contiguous;
    size_t in_bytes = pack_in ? xchg_mpi_mul(b->in_blocks, B) : 0;
    size_t out_bytes = pack_out ? xchg_mpi_mul(b->out_blocks, B) : 0;
    unsigned char *stage = NULL;
    if ((pack_in || pack_out) &&
        !(stage = xchg_mpi_comm_staging(pl->cs, xchg_mpi_add(in_bytes, out_bytes))))
        return MPI_ERR_NO_MEM;
    const unsigned char *in = b->in;
    int rc = MPI_SUCCESS;
    if (pack_in) {
        rc = xchg_mpi_pack_blocks(r.comm, b->in_lay, (unsigned char *)(uintptr_t)b->in, stage, B,
                                  b->in_blocks, B, 0);
        in = stage;
    }
    unsigned char *out = pack_out ? stage + in_bytes : b->out;
    place_slots(&r, in, in ? b->in_blocks * B : 0, out, out ? b->out_blocks * B : 0);
    size_t k = 0;
    for (size_t ph = 0; ph < o->nphases && rc == MPI_SUCCESS; ph++) {
        rc = start_phase(&r, ph, in);
        for (; k < o->nsteps && o->steps[k].phase == ph && rc == MPI_SUCCESS; k++)
            rc = run_step(&r, &o->steps[k], b->type, b->op);
    }
    size_t last = o->nphases - 1;
    xchg_mpi_tally t = {0, 0};
    for (size_t i = 0; out && rc == MPI_SUCCESS && i < o->nres[last]; i++) {
        const xchg_mpi_oppiece *pc = &o->pieces[o->res0[last] + i];
        unsigned char *dst = out + xchg_mpi_seg_off(pl, pc->seg);
        if (dst != slot(&r, pc->slot)) /* a result that did not live in place */
            xchg_mpi_copy(dst, slot(&r, pc->slot), xchg_mpi_seg_len(pl, pc->seg), &t);
    }
    xchg_mpi_charge_tally(&t);
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(r.comm, b->out_lay, b->out, out, B, b->out_blocks, B, 1);
    return rc;
}
