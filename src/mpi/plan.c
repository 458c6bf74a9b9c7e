/*
 * plan.c - making a plan (plan.h), the one skeleton for every operation:
 * choose what runs (choose.c), carve its buffers from the store (store.c),
 * fill its info; one cleanup path. Also what a plan says about itself
 * (xchg_mpi_plan_info_get, xchg_mpi_plan_predictions) and freeing it
 * (a persistent plan's reference to its communicator is call.c's).
 *
 * The buffers a plan needs are computed from its program's agreed needs
 * (the largest of any rank) and the key's sizes, which every rank shares,
 * so every rank asks the store for the same bytes and a store too small
 * grows on every rank at once. What only this rank needs (staging for a
 * derived datatype, which ranks may describe their data with or not) is
 * not carved here: each run takes it from the communicator's staging.
 */
#include "mpi/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t xchg_mpi_seg_off(const xchg_mpi_plan *pl, uint32_t j)
{
    uint32_t k = pl->prog->o.nsegs_block;
    if (k <= 1)
        return (size_t)j * pl->block_bytes;
    return (size_t)((uint64_t)j * pl->key.nelems / k) * pl->key.esize;
}

size_t xchg_mpi_seg_len(const xchg_mpi_plan *pl, uint32_t j)
{
    uint32_t k = pl->prog->o.nsegs_block;
    if (k <= 1)
        return pl->block_bytes;
    uint64_t a = (uint64_t)j * pl->key.nelems / k;
    uint64_t b = (uint64_t)(j + 1) * pl->key.nelems / k;
    return (size_t)(b - a) * pl->key.esize;
}

/* Room for bytes more in a carve, at a 64-byte boundary: the offset. */
static size_t take(xchg_mpi_carve *c, size_t bytes)
{
    size_t at = c->bytes == SIZE_MAX ? SIZE_MAX : (c->bytes + 63) / 64 * 64;
    c->bytes = xchg_mpi_add(at, bytes);
    return at;
}

/* The exchange's buffers for pl->prog: scratch, packing, the staging of
 * in place (every rank is in place or none), and the requests of a window
 * of steps. */
static void carve_exchange(xchg_mpi_plan *pl, xchg_mpi_carve *c)
{
    const xchg_mpi_xprog *x = &pl->prog->x;
    size_t B = pl->block_bytes;
    c->scratch = take(c, xchg_mpi_mul(x->scratch_blocks, B));
    c->send_pack = take(c, xchg_mpi_mul(x->send_pack_blocks, B));
    c->recv_pack = take(c, xchg_mpi_mul(x->recv_pack_blocks, B));
    c->stage = take(c, pl->key.in_place ? xchg_mpi_mul((size_t)pl->cs->p, B) : 0);
    c->nreqs = 2 * XCHG_MPI_WINDOW * xchg_mpi_pieces(xchg_mpi_mul(x->msg_blocks, B));
}

/* Another operation's buffers: slots, packing, where each slot is during a
 * run, and the requests of one step. */
static void carve_op(xchg_mpi_plan *pl, xchg_mpi_carve *c)
{
    const xchg_mpi_oprog *o = &pl->prog->o;
    size_t most = xchg_mpi_seg_len(pl, 0);
    for (uint32_t j = 1; j < o->nsegs_block; j++)
        if (xchg_mpi_seg_len(pl, j) > most)
            most = xchg_mpi_seg_len(pl, j);
    pl->slot_bytes = most;
    c->scratch = take(c, xchg_mpi_mul(o->max_slots, most));
    c->send_pack = take(c, xchg_mpi_mul(o->max_send_pieces, most));
    c->recv_pack = take(c, xchg_mpi_mul(o->max_recv_pieces, most));
    c->at = take(c, xchg_mpi_mul(o->max_slots, sizeof(unsigned char *)));
    c->nreqs = 2 * xchg_mpi_pieces(xchg_mpi_mul(o->max_msg_pieces, most));
}

/* Carve pl's buffers and make sure its store holds them (collective when
 * the store grows); a plan whose buffers cannot be had falls back. An MPI
 * error code. */
static int carve(xchg_mpi_plan *pl)
{
    xchg_mpi_carve *c = &pl->carve;
    *c = (xchg_mpi_carve){0};
    if (pl->hier) { /* a leader's two buffers, carved on every rank (hier.c),
                     * backed only on leaders (carve, below) */
        c->scratch = take(c, xchg_mpi_hier_buffer(pl));
        c->send_pack = take(c, xchg_mpi_hier_buffer(pl));
    } else if (pl->aggregate) { /* aggregate.c: two buffers a rank */
        c->scratch = take(c, xchg_mpi_aggregate_buffer(pl));
        c->send_pack = take(c, xchg_mpi_aggregate_buffer(pl));
        c->nreqs = xchg_mpi_aggregate_requests(pl);
    } else if (pl->key.kind == XCHG_OP_ALLTOALL) {
        carve_exchange(pl, c);
    } else {
        carve_op(pl, c);
    }
    c->reqs = take(c, xchg_mpi_mul(c->nreqs, sizeof(MPI_Request)));
    c->statuses = take(c, xchg_mpi_mul(c->nreqs, sizeof(MPI_Status)));
    int ok = 0;
    /* a rank that leads no group of the node-aware exchange never uses
     * its two buffers: it backs them only if another plan uses them */
    size_t touch = SIZE_MAX;
    if (pl->hier && pl->cs->nodes.local % pl->hier->group != 0)
        touch = 0;
    int rc = xchg_mpi_store_arena(pl->cs, pl->store, c->bytes, touch, pl->persistent, &ok);
    if (rc == MPI_SUCCESS && !ok)
        xchg_mpi_fall_back(pl, "could not allocate %zu bytes of scratch for %zu-byte blocks",
                           c->bytes, pl->block_bytes);
    return rc;
}

/* The info a plan gives once made. */
static void finish_info(xchg_mpi_plan *pl, double t0)
{
    xchg_mpi_plan_info *i = &pl->info;
    i->fallback = pl->fallback;
    if (pl->fallback) {
        i->steps = 0;
        i->scratch_bytes = i->plan_bytes = i->shared_bytes = 0;
    } else if (pl->hier) { /* gather, the leaders' exchanges, scatter */
        i->steps = pl->hier->group > 1 ? 2 : 0;
        i->steps += pl->hier->leaders > 1 ? 2 : 1;
        i->plan_bytes = i->shared_bytes = 0;
        i->scratch_bytes = pl->carve.bytes;
    } else if (pl->aggregate) { /* (the counts,) within, between, within the node */
        i->steps = xchg_mpi_is_v(pl->key.kind) ? 4 : 3;
        i->plan_bytes = i->shared_bytes = 0;
        i->scratch_bytes = pl->carve.bytes;
    } else if (pl->shm && xchg_mpi_is_v(pl->key.kind)) { /* rounds: a call's */
        i->steps = 1;
        i->shared_bytes = pl->store->shm_bytes;
        i->scratch_bytes = i->plan_bytes = 0;
    } else if (pl->shm) {
        i->steps = (pl->block_bytes + pl->shm_chunk - 1) / pl->shm_chunk;
        i->shared_bytes = pl->store->shm_bytes;
        i->scratch_bytes = i->plan_bytes = 0;
    } else {
        const xchg_mpi_program *g = pl->prog;
        i->steps = g->kind == XCHG_OP_ALLTOALL ? g->x.nsteps : g->o.nsteps;
        i->plan_bytes = g->list_bytes;
        i->scratch_bytes = pl->carve.bytes;
    }
    i->plan_seconds = MPI_Wtime() - t0;
}

/* Free pl's own parts (not its communicator's). */
static void release(xchg_mpi_plan *pl)
{
    xchg_mpi_settings_unref(pl->key.set);
    xchg_mpi_store_release(&pl->own);
    free(pl->pred_spec);
    free(pl->pred_us);
    free(pl->v_rows);
    free(pl->vbuf);
    free(pl);
}

int xchg_mpi_plan_make(xchg_mpi_comm *cs, const xchg_mpi_key *key, int persistent,
                       xchg_mpi_plan **out)
{
    *out = NULL;
    double t0 = MPI_Wtime();
    xchg_mpi_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return MPI_ERR_NO_MEM;
    pl->cs = cs;
    pl->key = *key;
    pl->block_bytes = key->nelems * key->esize;
    pl->persistent = persistent;
    pl->store = persistent ? &pl->own : &cs->store;
    if (key->set)
        xchg_mpi_settings_ref(key->set);
    int rc = MPI_SUCCESS;
    if (persistent) {
        pl->pred_spec = malloc(XCHG_MPI_MAX_PREDICTIONS * sizeof *pl->pred_spec);
        pl->pred_us = malloc(XCHG_MPI_MAX_PREDICTIONS * sizeof *pl->pred_us);
        if (!pl->pred_spec || !pl->pred_us)
            rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS && !key->set)
        xchg_mpi_fall_back(pl, "this communicator already reads %d pairs of tuning and "
                               "machine files",
                           XCHG_MPI_MAX_INPUTS);
    else if (rc == MPI_SUCCESS)
        rc = xchg_mpi_choose(pl);
    /* a variable-block plan's buffers are each call's (vgeom.c) */
    if (rc == MPI_SUCCESS && (pl->prog || pl->hier || pl->aggregate) && !xchg_mpi_is_v(key->kind))
        rc = carve(pl);
    if (rc != MPI_SUCCESS) {
        release(pl);
        return rc;
    }
    finish_info(pl, t0);
    *out = pl;
    return MPI_SUCCESS;
}

void xchg_mpi_plan_release(xchg_mpi_plan *pl)
{
    if (pl)
        release(pl);
}

int xchg_mpi_plan_info_get(const xchg_mpi_plan *plan, xchg_mpi_plan_info *info)
{
    if (!plan || !info)
        return MPI_ERR_ARG;
    *info = plan->info;
    return MPI_SUCCESS;
}

int xchg_mpi_plan_predictions(const xchg_mpi_plan *plan, xchg_spec *specs, double *us, int max)
{
    if (!plan || max < 0)
        return 0;
    int n = plan->npred < max ? plan->npred : max;
    for (int i = 0; i < n; i++) {
        if (specs)
            memcpy(specs[i], plan->pred_spec[i], XCHG_SPEC_MAX);
        if (us)
            us[i] = plan->pred_us[i];
    }
    return n;
}
