/*
 * exec_v.c - the direct exchange of variable blocks (MPI_Alltoallv,
 * MPI_Alltoallw): one rank's run of an independent program (pairwise,
 * hc-direct: every message one block, straight from its origin to its
 * destination) with each call's block sizes (vgeom.c).
 *
 * The steps are taken in the program's order, and a pair whose block is
 * 0 bytes posts nothing on either side: MPI's matching signatures make
 * the sender's and the receiver's lengths agree, so both skip it. The
 * receives, then the sends, of steps holding XCHG_MPI_WINDOW messages
 * each way (at most) are posted together and waited for together, as
 * MPICH's scattered algorithm throttles its posts; a sparse pattern thus
 * costs posts and waits in proportion to its nonzero blocks, not to p.
 * No rank can wait forever: every rank posts its windows in the same step
 * order, so the earliest unfinished step of all is posted at both ends.
 * Messages above XCHG_MPI_PIECE go in pieces both ends cut alike.
 */
#include "mpi/call.h"

/* Whether a step's message with peer (this rank: me) is posted: a peer,
 * not this rank (its own block is copied), and bytes to move. */
static int posts(int peer, int me, const size_t *len)
{
    return peer != MPI_PROC_NULL && peer != me && len[peer] > 0;
}

/* Post steps [k0, k1)'s receives, then their sends, and wait (the
 * requests: fewer than 2 XCHG_MPI_WINDOW + 2 g->max_pieces). */
static int window(const xchg_mpi_xprog *x, MPI_Comm comm, int comm_rank, const xchg_mpi_vgeom *g,
                  size_t k0, size_t k1)
{
    size_t nreq = 0;
    int rc = MPI_SUCCESS;
    for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
        int from = x->steps[k].from;
        if (posts(from, comm_rank, g->rlen))
            rc = xchg_mpi_post(comm, 1, g->rp[from], g->rlen[from], from, g->reqs, &nreq);
    }
    for (size_t k = k0; k < k1 && rc == MPI_SUCCESS; k++) {
        int to = x->steps[k].to;
        if (posts(to, comm_rank, g->slen))
            rc = xchg_mpi_post(comm, 0, g->sp[to], g->slen[to], to, g->reqs, &nreq);
    }
    if (nreq == 0)
        return rc;
    int wrc = MPI_Waitall((int)nreq, g->reqs, g->statuses);
    return rc == MPI_SUCCESS ? wrc : rc;
}

int xchg_mpi_exec_v_geom(xchg_mpi_plan *pl, const xchg_mpi_bufs *b, const xchg_mpi_vgeom *g)
{
    (void)b;
    const xchg_mpi_xprog *x = &pl->prog->x;
    MPI_Comm comm = pl->cs->comm;
    int rc = MPI_SUCCESS;
    size_t k0 = 0, msgs = 0; /* requests the steps from k0 post */
    int me = pl->cs->rank;
    for (size_t k = 0; k < x->nsteps && rc == MPI_SUCCESS; k++) {
        const xchg_mpi_step *m = &x->steps[k];
        if (posts(m->to, me, g->slen))
            msgs += xchg_mpi_pieces(g->slen[m->to]);
        if (posts(m->from, me, g->rlen))
            msgs += xchg_mpi_pieces(g->rlen[m->from]);
        if (msgs >= 2 * XCHG_MPI_WINDOW) {
            rc = window(x, comm, me, g, k0, k + 1);
            k0 = k + 1;
            msgs = 0;
        }
    }
    if (rc == MPI_SUCCESS && k0 < x->nsteps)
        rc = window(x, comm, me, g, k0, x->nsteps);
    return rc;
}

int xchg_mpi_exec_v(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    xchg_mpi_vgeom g;
    int in_place = b->v->sendbuf == MPI_IN_PLACE;
    int rc = xchg_mpi_vgeom_begin(pl->cs, b, in_place, &g);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_exec_v_geom(pl, b, &g);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_vgeom_end(pl->cs, b, &g);
    return rc;
}
