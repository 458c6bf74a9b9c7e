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
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/op_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Slot i of the plan, where this run keeps it. */
static unsigned char *slot(const xchg_mpi_opx *x, uint32_t i)
{
    return x->at[i];
}

/* Nonzero when [a, a + na) and [b, b + nb) share a byte. */
static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
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
static void place_slots(xchg_mpi_opx *x, const unsigned char *in, size_t in_bytes,
                        unsigned char *out, size_t out_bytes)
{
    for (size_t i = 0; i < x->nslots; i++)
        x->at[i] = x->slots + i * x->slot_bytes;
    if (in && !(out && overlap(in, in_bytes, out, out_bytes)))
        for (size_t i = 0; i < x->nstart[0]; i++) {
            const xchg_mpi_oppiece *pc = &x->pieces[x->start0[0] + i];
            x->at[pc->slot] = (unsigned char *)(uintptr_t)in + xchg_mpi_seg_off(x, pc->seg);
        }
    size_t last = x->nphases - 1;
    for (size_t i = 0; out && i < x->nres[last]; i++) {
        const xchg_mpi_oppiece *pc = &x->pieces[x->res0[last] + i];
        x->at[pc->slot] = out + xchg_mpi_seg_off(x, pc->seg);
    }
}

/* Copy a message's pieces between their slots and a packed buffer. */
static void copy_pieces(const xchg_mpi_opx *x, size_t first, size_t n, unsigned char *packed,
                        int unpack)
{
    for (size_t i = 0; i < n; i++) {
        const xchg_mpi_oppiece *pc = &x->pieces[first + i];
        size_t len = xchg_mpi_seg_len(x, pc->seg);
        if (len == 0) /* an empty piece (fewer elements than pieces); packed may be NULL */
            continue;
        if (unpack)
            memcpy(slot(x, pc->slot), packed, len);
        else
            memcpy(packed, slot(x, pc->slot), len);
        packed += len;
    }
}

/* inout = in op inout over len bytes of elements of x->esize bytes, in
 * pieces whose element counts fit int. */
static int reduce_local(const xchg_mpi_opx *x, const unsigned char *in, unsigned char *inout,
                        size_t len, MPI_Datatype type, MPI_Op op)
{
    size_t n = x->esize ? len / x->esize : 0, most = (size_t)INT_MAX;
    while (n > 0) {
        size_t k = n < most ? n : most;
        int rc = MPI_Reduce_local(in, inout, (int)k, type, op);
        if (rc != MPI_SUCCESS)
            return rc;
        in += k * x->esize;
        inout += k * x->esize;
        n -= k;
    }
    return MPI_SUCCESS;
}

/* A step's combinations: out = recv op held (recv_first) or held op recv.
 * MPI_Reduce_local computes inout = in op inout, so the right operand is
 * copied to out first; out is always a slot of its own. */
static int combine(const xchg_mpi_opx *x, const xchg_mpi_opstep *m, MPI_Datatype type, MPI_Op op)
{
    for (size_t i = 0; i < m->ncomb; i++) {
        const xchg_op_combine *c = &x->combs[m->comb0 + i];
        uint32_t left = c->recv_first ? c->recv : c->held;
        uint32_t right = c->recv_first ? c->held : c->recv;
        size_t len = x->slot_bytes;
        /* the bytes of the segment the slots hold: the received piece's */
        for (size_t j = 0; j < m->nrecv; j++)
            if (x->pieces[m->recv0 + j].slot == c->recv)
                len = xchg_mpi_seg_len(x, x->pieces[m->recv0 + j].seg);
        memcpy(slot(x, c->out), slot(x, right), len);
        int rc = reduce_local(x, slot(x, left), slot(x, c->out), len, type, op);
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
static int in_a_row(const xchg_mpi_opx *x, size_t first, size_t n)
{
    if (n == 0)
        return 0;
    const unsigned char *next = slot(x, x->pieces[first].slot);
    for (size_t i = 0; i < n; i++) {
        const xchg_mpi_oppiece *pc = &x->pieces[first + i];
        if (slot(x, pc->slot) != next)
            return 0;
        next += xchg_mpi_seg_len(x, pc->seg);
    }
    return 1;
}

/* One step: its messages, then its combinations. */
static int run_step(xchg_mpi_plan *pl, const xchg_mpi_opstep *m, MPI_Datatype type, MPI_Op op)
{
    xchg_mpi_opx *x = pl->opx;
    int recv = m->from != MPI_PROC_NULL, send = m->to != MPI_PROC_NULL;
    unsigned char *into = NULL, *from = NULL; /* NULL only for a message of 0 bytes */
    int rc = MPI_SUCCESS;
    int recv_direct = recv && in_a_row(x, m->recv0, m->nrecv);
    if (recv)
        into = recv_direct ? slot(x, x->pieces[m->recv0].slot) : x->recv_pack;
    if (send) {
        int direct = in_a_row(x, m->send0, m->nsend);
        from = direct ? slot(x, x->pieces[m->send0].slot) : x->send_pack;
        if (!direct)
            copy_pieces(x, m->send0, m->nsend, x->send_pack, 0);
    }
    if (recv && send && m->recv_bytes <= XCHG_MPI_PIECE && m->send_bytes <= XCHG_MPI_PIECE) {
        rc = MPI_Sendrecv(from, (int)m->send_bytes, MPI_BYTE, m->to, 0, into, (int)m->recv_bytes,
                          MPI_BYTE, m->from, 0, pl->comm, MPI_STATUS_IGNORE);
    } else {
        size_t nreq = 0;
        if (recv)
            rc = xchg_mpi_post(pl->comm, 1, into, m->recv_bytes, m->from, x->reqs, &nreq);
        if (rc == MPI_SUCCESS && send)
            rc = xchg_mpi_post(pl->comm, 0, from, m->send_bytes, m->to, x->reqs, &nreq);
        if (nreq) {
            int wrc = MPI_Waitall((int)nreq, x->reqs, x->statuses);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
    }
    if (rc == MPI_SUCCESS && recv && !recv_direct)
        copy_pieces(x, m->recv0, m->nrecv, x->recv_pack, 1);
    if (rc == MPI_SUCCESS && m->ncomb)
        rc = combine(x, m, type, op);
    return rc;
}

/* Fill phase k's start pieces: phase 0 from the input data (none when the
 * rank gives none), a later phase from the one piece phase k-1 left. */
static int start_phase(const xchg_mpi_opx *x, size_t k, const unsigned char *data)
{
    if (x->nstart[k] == 0)
        return MPI_SUCCESS;
    const xchg_mpi_oppiece *from = NULL;
    if (k > 0) {
        if (x->nres[k - 1] != 1)
            return MPI_ERR_INTERN; /* the program leaves a phase with one piece */
        from = &x->pieces[x->res0[k - 1]];
    } else if (!data) {
        return MPI_ERR_INTERN;
    }
    for (size_t i = 0; i < x->nstart[k]; i++) {
        const xchg_mpi_oppiece *pc = &x->pieces[x->start0[k] + i];
        const unsigned char *src = from ? slot(x, from->slot) : data + xchg_mpi_seg_off(x, pc->seg);
        if (slot(x, pc->slot) != src) /* not read in place (place_slots) */
            memmove(slot(x, pc->slot), src, xchg_mpi_seg_len(x, pc->seg));
    }
    return MPI_SUCCESS;
}

/* Staging of at least n bytes (grown on demand, kept with the plan). */
static unsigned char *staging(xchg_mpi_opx *x, size_t n)
{
    if (n > x->stage_bytes) {
        unsigned char *b = realloc(x->stage, n);
        if (!b)
            return NULL;
        x->stage = b;
        x->stage_bytes = n;
    }
    return x->stage;
}

int xchg_mpi_op_exec(xchg_mpi_plan *pl, const xchg_mpi_opbufs *b)
{
    xchg_mpi_opx *x = pl->opx;
    size_t B = x->block_bytes;
    if (B == 0)
        return MPI_SUCCESS;
    int pack_in = b->in && !b->in_lay->contiguous, pack_out = b->out && !b->out_lay->contiguous;
    size_t in_bytes = pack_in ? b->in_blocks * B : 0, out_bytes = pack_out ? b->out_blocks * B : 0;
    unsigned char *stage = NULL;
    if (pack_in || pack_out) {
        if (B > INT_MAX)
            return MPI_ERR_COUNT; /* MPI_Pack counts are int (the plan falls back first) */
        if (!(stage = staging(x, in_bytes + out_bytes)))
            return MPI_ERR_NO_MEM;
    }
    const unsigned char *in = b->in;
    int rc = MPI_SUCCESS;
    if (pack_in) {
        rc = xchg_mpi_pack_blocks(pl->comm, b->in_lay, (unsigned char *)(uintptr_t)b->in, stage, B,
                                  b->in_blocks, B, 0);
        in = stage;
    }
    unsigned char *out = pack_out ? stage + in_bytes : b->out;
    place_slots(x, in, in ? b->in_blocks * B : 0, out, out ? b->out_blocks * B : 0);
    size_t k = 0;
    for (size_t ph = 0; ph < x->nphases && rc == MPI_SUCCESS; ph++) {
        rc = start_phase(x, ph, in);
        for (; k < x->nsteps && x->steps[k].phase == ph && rc == MPI_SUCCESS; k++)
            rc = run_step(pl, &x->steps[k], b->type, b->op);
    }
    size_t last = x->nphases - 1;
    for (size_t i = 0; out && rc == MPI_SUCCESS && i < x->nres[last]; i++) {
        const xchg_mpi_oppiece *pc = &x->pieces[x->res0[last] + i];
        unsigned char *dst = out + xchg_mpi_seg_off(x, pc->seg);
        if (dst != slot(x, pc->slot)) /* a result that did not live in place */
            memcpy(dst, slot(x, pc->slot), xchg_mpi_seg_len(x, pc->seg));
    }
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(pl->comm, b->out_lay, b->out, out, B, b->out_blocks, B, 1);
    return rc;
}
