/*
 * exec.c - run one rank's exchange program on real buffers (xchg_mpi_exec).
 *
 * Per step: post the receive, pack the blocks the step sends (a message of
 * one run of consecutive slots is sent straight from where it lies, and one
 * received into one run lands straight in place: direct algorithms copy
 * nothing), send, wait, unpack; a step with one message each way is one
 * MPI_Sendrecv. Messages above 1 GiB go as several pieces (MPI counts are
 * int); both sides cut them the same way.
 *
 * Data that is not plain consecutive bytes (a derived datatype with holes,
 * or different send and receive types) is packed block by block with
 * MPI_Pack into staging first and unpacked with MPI_Unpack at the end;
 * MPI_IN_PLACE copies the buffer to staging first, since its slots are
 * overwritten while blocks still wait to leave.
 */
#include "mpi/plan.h"

#include <string.h>

/* A run's buffers: where each place's slot 0 is, and the block size. */
typedef struct places {
    unsigned char *send, *recv, *scratch, *send_pack, *recv_pack;
    MPI_Request *reqs;
    MPI_Status *statuses;
    size_t B;
} places;

/* Where slot `slot` of place `where` starts. */
static unsigned char *slot_at(const places *w, int where, size_t slot)
{
    unsigned char *base = where == XCHG_LOC_SEND   ? w->send
                          : where == XCHG_LOC_RECV ? w->recv
                                                   : w->scratch;
    return base + slot * w->B;
}

/* Copy the runs of a message between their places and a packed buffer. */
static void copy_runs(const places *w, const xchg_mpi_run *runs, size_t nruns,
                      unsigned char *packed, int unpack)
{
    xchg_mpi_tally t = {0, 0};
    for (size_t i = 0; i < nruns; i++) {
        unsigned char *at = slot_at(w, runs[i].where, runs[i].slot);
        size_t n = runs[i].count * w->B;
        if (unpack)
            xchg_mpi_copy(at, packed, n, &t);
        else
            xchg_mpi_copy(packed, at, n, &t);
        packed += n;
    }
    xchg_mpi_charge_tally(&t);
}

/* Wait for nreq requests; rc, or the wait's error when rc is success. */
static int wait_all(const places *w, size_t nreq, int rc)
{
    if (!nreq)
        return rc;
    int wrc = MPI_Waitall((int)nreq, w->reqs, w->statuses);
    return rc == MPI_SUCCESS ? wrc : rc;
}

/*
 * An independent program (every message one run from the send buffer to
 * the receive buffer): post the receives, then the sends, of
 * XCHG_MPI_WINDOW steps at a time, and wait for them together, so the MPI
 * library moves whichever message is ready instead of holding every rank to
 * the step order (with more ranks than cores a partner is often not
 * running). Messages between one pair keep their step order: both sides
 * post them in it, and MPI does not let them overtake.
 */
static int run_windows(const xchg_mpi_xprog *x, MPI_Comm comm, const places *w)
{
    size_t B = w->B;
    int rc = MPI_SUCCESS;
    for (size_t k0 = 0; k0 < x->nsteps && rc == MPI_SUCCESS; k0 += XCHG_MPI_WINDOW) {
        size_t k1 = k0 + XCHG_MPI_WINDOW < x->nsteps ? k0 + XCHG_MPI_WINDOW : x->nsteps;
        size_t nreq = 0;
        for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
            const xchg_mpi_step *m = &x->steps[k];
            const xchg_mpi_run *rr = x->runs + m->recv_run0;
            if (m->recv_blocks)
                rc = xchg_mpi_post(comm, 1, w->recv + rr->slot * B, m->recv_blocks * B, m->from,
                                   w->reqs, &nreq);
        }
        for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
            const xchg_mpi_step *m = &x->steps[k];
            const xchg_mpi_run *sr = x->runs + m->send_run0;
            if (m->send_blocks)
                rc = xchg_mpi_post(comm, 0, w->send + sr->slot * B, m->send_blocks * B, m->to,
                                   w->reqs, &nreq);
        }
        rc = wait_all(w, nreq, rc);
    }
    return rc;
}

/* One step of a program whose steps depend on each other. */
static int run_step(const xchg_mpi_xprog *x, const xchg_mpi_step *m, MPI_Comm comm,
                    const places *w)
{
    size_t B = w->B, nreq = 0;
    const xchg_mpi_run *sr = x->runs + m->send_run0, *rr = x->runs + m->recv_run0;
    unsigned char *into = NULL, *from = NULL;
    int rc = MPI_SUCCESS;
    if (m->recv_blocks)
        into = m->nrecv_runs == 1 ? slot_at(w, rr->where, rr->slot) : w->recv_pack;
    if (m->send_blocks) {
        from = m->nsend_runs == 1 ? slot_at(w, sr->where, sr->slot) : w->send_pack;
        if (m->nsend_runs != 1)
            copy_runs(w, sr, m->nsend_runs, w->send_pack, 0);
    }
    if (m->recv_blocks && m->send_blocks && m->recv_blocks * B <= XCHG_MPI_PIECE &&
        m->send_blocks * B <= XCHG_MPI_PIECE) {
        /* the common step, one message each way: one call, which costs a
         * rank less than three when ranks share a core */
        rc = MPI_Sendrecv(from, (int)(m->send_blocks * B), MPI_BYTE, m->to, 0, into,
                          (int)(m->recv_blocks * B), MPI_BYTE, m->from, 0, comm,
                          MPI_STATUS_IGNORE);
    } else {
        if (m->recv_blocks)
            rc = xchg_mpi_post(comm, 1, into, m->recv_blocks * B, m->from, w->reqs, &nreq);
        if (rc == MPI_SUCCESS && m->send_blocks)
            rc = xchg_mpi_post(comm, 0, from, m->send_blocks * B, m->to, w->reqs, &nreq);
        rc = wait_all(w, nreq, rc);
    }
    if (rc == MPI_SUCCESS && m->recv_blocks && m->nrecv_runs > 1)
        copy_runs(w, rr, m->nrecv_runs, w->recv_pack, 1);
    return rc;
}

int xchg_mpi_exec(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    const xchg_mpi_xprog *x = &pl->prog->x;
    xchg_mpi_comm *cs = pl->cs;
    size_t B = pl->block_bytes, all = xchg_mpi_mul((size_t)cs->p, B);
    if (B == 0)
        return MPI_SUCCESS;
    const xchg_mpi_carve *c = &pl->carve;
    places w = {.send = (unsigned char *)(uintptr_t)b->in,
                .recv = b->out,
                .scratch = xchg_mpi_at(pl, c->scratch),
                .send_pack = xchg_mpi_at(pl, c->send_pack),
                .recv_pack = xchg_mpi_at(pl, c->recv_pack),
                .reqs = (MPI_Request *)(void *)xchg_mpi_at(pl, c->reqs),
                .statuses = (MPI_Status *)(void *)xchg_mpi_at(pl, c->statuses),
                .B = B};
    /* staging for a derived datatype: this rank's own (comm.c) */
    int pack_in = !pl->key.in_place && !b->in_lay->contiguous, pack_out = !b->out_lay->contiguous;
    unsigned char *local = NULL;
    if (pack_in || pack_out) {
        local = xchg_mpi_comm_staging(cs, xchg_mpi_mul(all, (size_t)(pack_in + pack_out)));
        if (!local)
            return MPI_ERR_NO_MEM;
    }
    if (pack_out)
        w.recv = local + (pack_in ? all : 0);
    int rc = MPI_SUCCESS;
    if (pl->key.in_place) {
        /* the receive buffer's blocks are the ones to send */
        w.send = xchg_mpi_at(pl, c->stage);
        if (b->in_lay->contiguous) {
            memcpy(w.send, b->in, all);
            xchg_mpi_charge(1, all);
        } else
            rc = xchg_mpi_pack_blocks(cs->comm, b->in_lay, (unsigned char *)(uintptr_t)b->in,
                                      w.send, B, (size_t)cs->p, B, 0);
    } else if (pack_in) {
        w.send = local;
        rc = xchg_mpi_pack_blocks(cs->comm, b->in_lay, (unsigned char *)(uintptr_t)b->in, w.send,
                                  B, (size_t)cs->p, B, 0);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    memcpy(w.recv + (size_t)cs->rank * B, w.send + (size_t)cs->rank * B, B);
    xchg_mpi_charge(1, B);
    if (x->independent)
        rc = run_windows(x, cs->comm, &w);
    for (size_t k = 0; !x->independent && k < x->nsteps && rc == MPI_SUCCESS; k++)
        rc = run_step(x, &x->steps[k], cs->comm, &w);
    if (rc == MPI_SUCCESS && pack_out)
        rc = xchg_mpi_pack_blocks(cs->comm, b->out_lay, b->out, w.recv, B, (size_t)cs->p, B, 1);
    return rc;
}
