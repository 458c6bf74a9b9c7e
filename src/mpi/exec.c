/*
 * exec.c - run one rank's plan on real buffers (xchg_mpi_exec).
 *
 * Per step: post the receive, pack the blocks the step sends (a message of
 * one run of consecutive slots is sent straight from where it lies, and one
 * received into one run lands straight in place: direct algorithms copy
 * nothing), send, wait, unpack; a step with one message each way is one
 * MPI_Sendrecv. Messages above 1 GiB go as several pieces
 * (MPI counts are int); both sides cut them the same way.
 *
 * Data that is not plain consecutive bytes (a derived datatype with holes,
 * or different send and receive types) is packed block by block with
 * MPI_Pack into a staging buffer first and unpacked with MPI_Unpack at the
 * end; MPI_IN_PLACE copies the buffer to staging first, since its slots are
 * overwritten while blocks still wait to leave.
 *
 * A plan for alg "shm" has no steps: its run is shm.c's one round through
 * shared memory.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <string.h>

/* Where slot `slot` of place `where` starts. */
static unsigned char *slot_at(unsigned char *send, unsigned char *recv, unsigned char *scratch,
                              int where, size_t slot, size_t B)
{
    unsigned char *base = where == XCHG_LOC_SEND ? send : where == XCHG_LOC_RECV ? recv : scratch;
    return base + slot * B;
}

int xchg_mpi_post(MPI_Comm comm, int recv, unsigned char *buf, size_t bytes, int peer,
                  MPI_Request *reqs, size_t *nreq)
{
    int tag = 0;
    do {
        size_t n = bytes < XCHG_MPI_PIECE ? bytes : XCHG_MPI_PIECE;
        int rc = recv ? MPI_Irecv(buf, (int)n, MPI_BYTE, peer, tag, comm, &reqs[*nreq])
                      : MPI_Isend(buf, (int)n, MPI_BYTE, peer, tag, comm, &reqs[*nreq]);
        if (rc != MPI_SUCCESS)
            return rc;
        (*nreq)++;
        buf += n;
        bytes -= n;
        tag++;
    } while (bytes > 0);
    return MPI_SUCCESS;
}

/* A message of the plan's, posted with xchg_mpi_post. */
static int post(xchg_mpi_plan *pl, int recv, unsigned char *buf, size_t bytes, int peer,
                size_t *nreq)
{
    return xchg_mpi_post(pl->comm, recv, buf, bytes, peer, pl->reqs, nreq);
}

/* Copy the runs of a message between their places and a packed buffer. */
static void copy_runs(const xchg_mpi_plan *pl, const xchg_mpi_run *runs, size_t nruns,
                      unsigned char *S, unsigned char *R, unsigned char *packed, int unpack)
{
    size_t B = pl->block_bytes;
    for (size_t i = 0; i < nruns; i++) {
        unsigned char *at = slot_at(S, R, pl->scratch, runs[i].where, runs[i].slot, B);
        size_t n = runs[i].count * B;
        if (unpack)
            memcpy(at, packed, n);
        else
            memcpy(packed, at, n);
        packed += n;
    }
}

int xchg_mpi_pack_blocks(MPI_Comm comm, const xchg_mpi_layout *lay, unsigned char *user,
                         unsigned char *staging, size_t stride, size_t nblocks, size_t B,
                         int unpack)
{
    for (size_t j = 0; j < nblocks; j++) {
        int pos = 0, rc;
        unsigned char *blk = user + j * (size_t)lay->stride;
        unsigned char *packed = staging + j * stride;
        if (unpack)
            rc = MPI_Unpack(packed, (int)B, &pos, blk, (int)lay->count, lay->type, comm);
        else
            rc = MPI_Pack(blk, (int)lay->count, lay->type, packed, (int)B, &pos, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if ((size_t)pos != B)
            return MPI_ERR_INTERN; /* packed form is not the type signature's bytes */
    }
    return MPI_SUCCESS;
}

int xchg_mpi_stage(xchg_mpi_plan *pl, const xchg_mpi_layout *lay, unsigned char *user,
                   unsigned char *staging, size_t stride, int unpack)
{
    return xchg_mpi_pack_blocks(pl->comm, lay, user, staging, stride, (size_t)pl->p,
                                pl->block_bytes, unpack);
}

/*
 * An independent program (every message one run from the send buffer to
 * the receive buffer): post the receives, then the sends, of
 * XCHG_MPI_WINDOW steps at a time, and wait for them together, so the MPI
 * library moves whichever message is ready instead of holding every rank to
 * the step order (with more ranks than cores a partner is often not
 * running). Messages between one pair keep their step order: both sides
 * post them in it, and MPI does not let them overtake. Staging and
 * unstaging are done by the caller.
 */
static int run_windows(xchg_mpi_plan *pl, unsigned char *S, unsigned char *R)
{
    size_t B = pl->block_bytes;
    int rc = MPI_SUCCESS;
    for (size_t k0 = 0; k0 < pl->nsteps && rc == MPI_SUCCESS; k0 += XCHG_MPI_WINDOW) {
        size_t k1 = k0 + XCHG_MPI_WINDOW < pl->nsteps ? k0 + XCHG_MPI_WINDOW : pl->nsteps;
        size_t nreq = 0;
        for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
            const xchg_mpi_step *m = &pl->steps[k];
            const xchg_mpi_run *rr = pl->runs + m->recv_run0;
            if (m->recv_blocks)
                rc = post(pl, 1, R + rr->slot * B, m->recv_blocks * B, m->from, &nreq);
        }
        for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
            const xchg_mpi_step *m = &pl->steps[k];
            const xchg_mpi_run *sr = pl->runs + m->send_run0;
            if (m->send_blocks)
                rc = post(pl, 0, S + sr->slot * B, m->send_blocks * B, m->to, &nreq);
        }
        if (nreq) {
            int wrc = MPI_Waitall((int)nreq, pl->reqs, pl->statuses);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
    }
    return rc;
}

int xchg_mpi_exec(xchg_mpi_plan *pl, const void *sendbuf, void *recvbuf,
                  const xchg_mpi_layout *slay, const xchg_mpi_layout *rlay)
{
    size_t B = pl->block_bytes;
    if (B == 0)
        return MPI_SUCCESS;
    if (pl->shm)
        return xchg_mpi_shm_run(pl, sendbuf, recvbuf, slay, rlay);
    int rc = MPI_SUCCESS;
    unsigned char *S = (unsigned char *)(uintptr_t)sendbuf;
    unsigned char *R = rlay->contiguous ? recvbuf : pl->stage_recv;
    if (pl->in_place) {
        /* the receive buffer's blocks are the ones to send */
        if (rlay->contiguous)
            memcpy(pl->stage_send, recvbuf, (size_t)pl->p * B);
        else
            rc = xchg_mpi_stage(pl, rlay, recvbuf, pl->stage_send, B, 0);
        S = pl->stage_send;
    } else if (!slay->contiguous) {
        rc = xchg_mpi_stage(pl, slay, S, pl->stage_send, B, 0);
        S = pl->stage_send;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    memcpy(R + (size_t)pl->rank * B, S + (size_t)pl->rank * B, B);

    if (pl->independent)
        rc = run_windows(pl, S, R);
    for (size_t k = 0; !pl->independent && k < pl->nsteps && rc == MPI_SUCCESS; k++) {
        const xchg_mpi_step *m = &pl->steps[k];
        const xchg_mpi_run *sr = pl->runs + m->send_run0, *rr = pl->runs + m->recv_run0;
        size_t nreq = 0;
        unsigned char *into = NULL;
        if (m->recv_blocks && m->send_blocks && m->recv_blocks * B <= XCHG_MPI_PIECE &&
            m->send_blocks * B <= XCHG_MPI_PIECE) {
            /* the common step, one message each way: one call, which costs
             * a rank less than three when ranks share a core */
            into = m->nrecv_runs == 1 ? slot_at(S, R, pl->scratch, rr->where, rr->slot, B)
                                      : pl->recv_pack;
            unsigned char *from = pl->send_pack;
            if (m->nsend_runs == 1)
                from = slot_at(S, R, pl->scratch, sr->where, sr->slot, B);
            else
                copy_runs(pl, sr, m->nsend_runs, S, R, pl->send_pack, 0);
            rc = MPI_Sendrecv(from, (int)(m->send_blocks * B), MPI_BYTE, m->to, 0, into,
                              (int)(m->recv_blocks * B), MPI_BYTE, m->from, 0, pl->comm,
                              MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && m->nrecv_runs > 1)
                copy_runs(pl, rr, m->nrecv_runs, S, R, pl->recv_pack, 1);
            continue;
        }
        if (m->recv_blocks) {
            into = m->nrecv_runs == 1 ? slot_at(S, R, pl->scratch, rr->where, rr->slot, B)
                                      : pl->recv_pack;
            rc = post(pl, 1, into, m->recv_blocks * B, m->from, &nreq);
        }
        if (rc == MPI_SUCCESS && m->send_blocks) {
            unsigned char *from = pl->send_pack;
            if (m->nsend_runs == 1)
                from = slot_at(S, R, pl->scratch, sr->where, sr->slot, B);
            else
                copy_runs(pl, sr, m->nsend_runs, S, R, pl->send_pack, 0);
            rc = post(pl, 0, from, m->send_blocks * B, m->to, &nreq);
        }
        if (nreq) {
            int wrc = MPI_Waitall((int)nreq, pl->reqs, pl->statuses);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        if (rc == MPI_SUCCESS && m->recv_blocks && m->nrecv_runs > 1)
            copy_runs(pl, rr, m->nrecv_runs, S, R, pl->recv_pack, 1);
    }
    if (rc == MPI_SUCCESS && !rlay->contiguous)
        rc = xchg_mpi_stage(pl, rlay, recvbuf, pl->stage_recv, B, 1);
    return rc;
}
