/*
 * program_op.c - one rank's program of an operation other than the
 * complete exchange (program.h's xchg_mpi_oprog): xchg_op_program_new's
 * steps for this rank (p*p*steps work, refused above
 * XCHG_OP_PROGRAM_MAX_WORK) turned into pieces (slot, segment), steps and
 * combinations that op_exec.c runs on any count.
 */
#include "mpi/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a piece sits in the data (program.h). */
enum { ROLE_MESSAGE, ROLE_INPUT, ROLE_OUTPUT };

/* The segment a piece of a phase of kind k is. Cut into p segments (the
 * split algorithms): its dest in a per-dest phase (scatter, reduce-scatter),
 * its origin in a per-origin one (gather, allgather). In whole blocks: the
 * input block (the dest's for a scatter or a reduce-scatter, else the one
 * block) or the output block (the origin's for a gather or an allgather,
 * else the one block); a message's pieces are whole blocks, any index. */
static uint32_t seg_of(const xchg_mpi_oprog *o, const xchg_op_piece *pc, xchg_op_kind k,
                       int role)
{
    int per_dest = k == XCHG_OP_SCATTER || k == XCHG_OP_REDUCE_SCATTER;
    int per_origin = k == XCHG_OP_GATHER || k == XCHG_OP_ALLGATHER;
    uint32_t origin = pc->origin != XCHG_NONE ? pc->origin : pc->lo;
    if (o->nsegs_block > 1)
        return per_dest ? pc->dest : per_origin ? origin : 0;
    if (role == ROLE_INPUT && per_dest)
        return pc->dest;
    if (role == ROLE_OUTPUT && per_origin)
        return origin;
    return 0;
}

/* Append pieces ps (n of them, of a phase of kind k) to o->pieces; the
 * index of the first into *first. -1 when a segment or a slot is out of
 * range. */
static int add_pieces(xchg_mpi_oprog *o, const xchg_op_piece *ps, size_t n, xchg_op_kind k,
                      int role, size_t *first)
{
    *first = o->npieces;
    for (size_t i = 0; i < n; i++) {
        uint32_t seg = seg_of(o, &ps[i], k, role);
        if (seg >= o->nsegs || ps[i].slot >= o->nslots)
            return -1;
        o->pieces[o->npieces++] = (xchg_mpi_oppiece){ps[i].slot, seg};
    }
    return 0;
}

/* The arrays' sizes of g, and the phases' kinds into o. */
static void count(xchg_mpi_oprog *o, const xchg_sched *s, const xchg_op_program *g,
                  size_t *npieces, size_t *ncombs)
{
    *npieces = *ncombs = 0;
    for (size_t k = 0; k < o->nphases; k++) {
        const xchg_op_piece *ps;
        size_t n, r, a, b;
        xchg_op ph;
        xchg_sched_phase(s, k, &ph, &a, &b);
        o->phase_kind[k] = ph.kind;
        xchg_op_program_start(g, k, &ps, &n);
        xchg_op_program_result(g, k, &ps, &r);
        *npieces += n + r;
    }
    for (size_t k = 0; k < xchg_op_program_nsteps(g); k++) {
        xchg_op_step st;
        xchg_op_program_step(g, k, &st);
        *npieces += st.nsend + st.nrecv;
        *ncombs += st.ncombine;
    }
}

/* Program g (of schedule s) into o's arrays. 0, or -1 with why. */
static int convert(xchg_mpi_oprog *o, const xchg_sched *s, const xchg_op_program *g, char *why,
                   size_t whylen)
{
    o->nphases = xchg_op_program_nphases(g);
    if (o->nphases == 0 || o->nphases > XCHG_MPI_MAX_PHASES) {
        snprintf(why, whylen, "a schedule of %zu phases (the executor runs 1 to %d)", o->nphases,
                 XCHG_MPI_MAX_PHASES);
        return -1;
    }
    size_t ns = xchg_op_program_nsteps(g), npieces, ncombs;
    count(o, s, g, &npieces, &ncombs);
    o->nslots = xchg_op_program_nslots(g);
    o->pieces = malloc((npieces ? npieces : 1) * sizeof *o->pieces);
    o->combs = malloc((ncombs ? ncombs : 1) * sizeof *o->combs);
    o->steps = malloc((ns ? ns : 1) * sizeof *o->steps);
    if (!o->pieces || !o->combs || !o->steps) {
        snprintf(why, whylen, "out of memory for this rank's lists");
        return -1;
    }
    for (size_t k = 0; k < o->nphases; k++) {
        const xchg_op_piece *ps;
        size_t n;
        xchg_op_program_start(g, k, &ps, &n);
        o->nstart[k] = n;
        if (add_pieces(o, ps, n, o->phase_kind[k], k == 0 ? ROLE_INPUT : ROLE_MESSAGE,
                       &o->start0[k]))
            goto bad;
        xchg_op_program_result(g, k, &ps, &n);
        o->nres[k] = n;
        if (add_pieces(o, ps, n, o->phase_kind[k],
                       k + 1 == o->nphases ? ROLE_OUTPUT : ROLE_MESSAGE, &o->res0[k]))
            goto bad;
    }
    for (size_t k = 0; k < ns; k++) {
        xchg_op_step st;
        xchg_op_program_step(g, k, &st);
        xchg_mpi_opstep *m = &o->steps[o->nsteps];
        xchg_op_kind kind = o->phase_kind[st.phase < o->nphases ? st.phase : 0];
        m->phase = st.phase;
        m->to = st.send_to == XCHG_NONE ? MPI_PROC_NULL : (int)st.send_to;
        m->from = st.recv_from == XCHG_NONE ? MPI_PROC_NULL : (int)st.recv_from;
        m->nsend = st.nsend;
        m->nrecv = st.nrecv;
        if (add_pieces(o, st.send, st.nsend, kind, ROLE_MESSAGE, &m->send0) ||
            add_pieces(o, st.recv, st.nrecv, kind, ROLE_MESSAGE, &m->recv0))
            goto bad;
        m->comb0 = o->ncombs;
        m->ncomb = st.ncombine;
        for (size_t i = 0; i < st.ncombine; i++)
            o->combs[o->ncombs++] = st.combine[i];
        if (m->to == MPI_PROC_NULL && m->from == MPI_PROC_NULL)
            continue; /* nothing this rank does at this step */
        o->nsteps++;
        if (m->nsend > 1 && m->nsend > o->max_send_pieces)
            o->max_send_pieces = m->nsend;
        if (m->nrecv > 1 && m->nrecv > o->max_recv_pieces)
            o->max_recv_pieces = m->nrecv;
        size_t most = m->nsend > m->nrecv ? m->nsend : m->nrecv;
        o->max_msg_pieces = most > o->max_msg_pieces ? most : o->max_msg_pieces;
    }
    o->order_ok = xchg_op_program_order_ok(g) != 0;
    o->max_slots = o->nslots;
    return 0;
bad:
    snprintf(why, whylen, "a piece of this rank's program names a slot or a segment out of range");
    return -1;
}

int xchg_mpi_oprog_build(const xchg_topo *t, const char *spec, xchg_op_kind kind, uint32_t root,
                         uint32_t shift, int p, int rank, xchg_mpi_oprog *o, size_t *list_bytes,
                         char *why, size_t whylen)
{
    const xchg_alg *alg;
    xchg_opts opt;
    xchg_err err = {{0}};
    xchg_sched *s = NULL;
    xchg_op_program *g = NULL;
    *o = (xchg_mpi_oprog){0};
    if (xchg_alg_parse(spec, &alg, &opt, &err)) {
        snprintf(why, whylen, "%.300s", err.msg);
        return -1;
    }
    if (alg->op != kind) {
        snprintf(why, whylen, "%.64s performs %s, not %s", alg->name, xchg_op_name(alg->op),
                 xchg_op_name(kind));
        return -1;
    }
    opt.root = root;
    opt.shift = shift;
    int rc = xchg_alg_applies(alg, t, &opt, &err);
    if (!rc)
        rc = xchg_alg_generate(alg, t, &opt, &s, &err);
    if (!rc)
        rc = xchg_op_program_new(s, (uint32_t)rank, &g, &err);
    if (rc) {
        xchg_sched_free(s);
        snprintf(why, whylen, "%.300s", err.msg);
        return -1;
    }
    xchg_sched_op(s, &o->op);
    o->nsegs_block = o->op.pieces > 1 ? o->op.pieces : 1;
    o->nsegs = o->nsegs_block > 1 ? o->nsegs_block : (uint32_t)p;
    rc = convert(o, s, g, why, whylen);
    xchg_op_program_free(g);
    xchg_sched_free(s);
    if (rc) {
        xchg_mpi_oprog_free(o);
        return -1;
    }
    *list_bytes = sizeof *o + o->npieces * sizeof *o->pieces + o->ncombs * sizeof *o->combs +
                  o->nsteps * sizeof *o->steps;
    return 0;
}

void xchg_mpi_oprog_free(xchg_mpi_oprog *o)
{
    free(o->pieces);
    free(o->combs);
    free(o->steps);
    *o = (xchg_mpi_oprog){0};
}
