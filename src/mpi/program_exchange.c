/*
 * program_exchange.c - one rank's program of an exchange algorithm
 * (program.h's xchg_mpi_xprog): the schedule's lists for this rank
 * (xchg_rank_new derives them from the algorithm's symmetry, never the
 * whole schedule) turned into steps with runs of consecutive slots, which
 * exec.c sends straight from where they lie or packs.
 */
#include "mpi/program.h"

#include <stdio.h>
#include <stdlib.h>

/* This rank's lists of spec on t; NULL with why on failure. */
static xchg_rank *rank_lists(const xchg_topo *t, const char *spec, int rank, char *why,
                             size_t whylen)
{
    xchg_sched *s = NULL;
    xchg_rank *r = NULL;
    const xchg_alg *alg;
    xchg_opts o;
    xchg_err err = {{0}};
    xchg_symmetry sym;
    int rc = xchg_alg_parse(spec, &alg, &o, &err);
    if (!rc)
        rc = xchg_alg_generate(alg, t, &o, &s, &err);
    if (!rc) {
        xchg_alg_symmetry(alg, t, &o, &sym);
        rc = xchg_rank_new(s, &sym, (uint32_t)rank, &r, &err);
    }
    xchg_sched_free(s);
    if (rc)
        snprintf(why, whylen, "%.250s", err.msg);
    return rc ? NULL : r;
}

/* Append step st's places of one direction to x's runs, merging slots that
 * follow one another in one place; the first run and the count into
 * *run0 and *nruns. */
static void add_runs(xchg_mpi_xprog *x, const xchg_loc *loc, size_t n, size_t *run0,
                     size_t *nruns)
{
    size_t first = x->nruns;
    for (size_t i = 0; i < n; i++) {
        int where = XCHG_LOC_WHERE(loc[i]);
        size_t slot = XCHG_LOC_SLOT(loc[i]);
        xchg_mpi_run *last = x->nruns > first ? &x->runs[x->nruns - 1] : NULL;
        if (last && last->where == where && last->slot + last->count == slot)
            last->count++;
        else
            x->runs[x->nruns++] = (xchg_mpi_run){where, slot, 1};
    }
    *run0 = first;
    *nruns = x->nruns - first;
}

/* x's needs as this rank sees them, and whether its steps are independent. */
static void measure(xchg_mpi_xprog *x)
{
    x->independent = 1;
    for (size_t k = 0; k < x->nsteps; k++) {
        const xchg_mpi_step *m = &x->steps[k];
        if (m->nsend_runs > 1 && m->send_blocks > x->send_pack_blocks)
            x->send_pack_blocks = m->send_blocks;
        if (m->nrecv_runs > 1 && m->recv_blocks > x->recv_pack_blocks)
            x->recv_pack_blocks = m->recv_blocks;
        size_t most = m->send_blocks > m->recv_blocks ? m->send_blocks : m->recv_blocks;
        x->msg_blocks = most > x->msg_blocks ? most : x->msg_blocks;
        for (size_t i = 0; i < m->nsend_runs; i++)
            x->independent &= x->runs[m->send_run0 + i].where == XCHG_LOC_SEND;
        for (size_t i = 0; i < m->nrecv_runs; i++)
            x->independent &= x->runs[m->recv_run0 + i].where == XCHG_LOC_RECV;
        x->independent &= m->nsend_runs <= 1 && m->nrecv_runs <= 1;
    }
}

int xchg_mpi_xprog_build(const xchg_topo *t, const char *spec, int rank, xchg_mpi_xprog *x,
                         size_t *list_bytes, char *why, size_t whylen)
{
    *x = (xchg_mpi_xprog){0};
    xchg_rank *r = rank_lists(t, spec, rank, why, whylen);
    if (!r)
        return -1;
    size_t ns = xchg_rank_nsteps(r), nruns = 0;
    for (size_t k = 0; k < ns; k++) {
        xchg_rank_step st;
        xchg_rank_step_get(r, k, &st);
        nruns += st.nsend + st.nrecv;
    }
    x->steps = calloc(ns ? ns : 1, sizeof *x->steps);
    x->runs = calloc(nruns ? nruns : 1, sizeof *x->runs);
    if (!x->steps || !x->runs) {
        xchg_rank_free(r);
        xchg_mpi_xprog_free(x);
        snprintf(why, whylen, "out of memory for this rank's lists");
        return -1;
    }
    for (size_t k = 0; k < ns; k++) {
        xchg_rank_step st;
        xchg_rank_step_get(r, k, &st);
        if (!st.nsend && !st.nrecv)
            continue; /* an idle step is no step for this rank */
        xchg_mpi_step *m = &x->steps[x->nsteps++];
        m->to = st.nsend ? (int)st.send_to : MPI_PROC_NULL;
        m->from = st.nrecv ? (int)st.recv_from : MPI_PROC_NULL;
        m->send_blocks = st.nsend;
        m->recv_blocks = st.nrecv;
        add_runs(x, st.send_loc, st.nsend, &m->send_run0, &m->nsend_runs);
        add_runs(x, st.recv_loc, st.nrecv, &m->recv_run0, &m->nrecv_runs);
    }
    measure(x);
    x->scratch_blocks = xchg_rank_scratch_blocks(r);
    *list_bytes = xchg_rank_bytes(r) + x->nsteps * sizeof *x->steps + x->nruns * sizeof *x->runs;
    xchg_rank_free(r);
    return 0;
}

void xchg_mpi_xprog_free(xchg_mpi_xprog *x)
{
    free(x->steps);
    free(x->runs);
    *x = (xchg_mpi_xprog){0};
}
