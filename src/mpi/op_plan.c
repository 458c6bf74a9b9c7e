/*
 * op_plan.c - make one rank's plan for an operation other than the
 * complete exchange (xchg_mpi_op_plan_make; docs/mpi-ops.md).
 *
 * The ranks are mapped to a topology as for the exchange (plan.c). The
 * algorithm is opts->alg's for the operation (xchg_mpi_alg_for), or auto:
 * the tuning file's row for the operation, topology and block size
 * (XCHG_TUNING_FILE, from `xchg tune --op`; "mpi" there is the MPI
 * library's own call), then every algorithm of the operation that applies
 * to the topology, with the planner's lines (xchg_plan_sweep, the
 * operation's root or shift), predicted as the executor runs them
 * (predict, below, with auto.c's machine), fastest first. This rank's
 * program comes from xchg_op_program_new (p*p*steps work, refused above
 * XCHG_OP_PROGRAM_MAX_WORK) and is turned into pieces (slot, segment),
 * steps and combinations; then the buffers are allocated.
 *
 * A reduction with an operator that is not commutative takes a candidate
 * only when every rank's combinations keep rank order
 * (xchg_op_program_order_ok); auto goes on to the next candidate, a forced
 * algorithm falls back. The ranks agree on each candidate with one
 * MPI_Allreduce, so no rank runs a program another rank refused.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/op_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most candidates auto tries for an operation. */
#define XCHG_MPI_OP_CANDIDATES 32

size_t xchg_mpi_seg_off(const xchg_mpi_opx *x, uint32_t j)
{
    if (x->nsegs_block <= 1)
        return (size_t)j * x->block_bytes;
    return (size_t)((uint64_t)j * x->nelems / x->nsegs_block) * x->esize;
}

size_t xchg_mpi_seg_len(const xchg_mpi_opx *x, uint32_t j)
{
    if (x->nsegs_block <= 1)
        return x->block_bytes;
    uint64_t a = (uint64_t)j * x->nelems / x->nsegs_block;
    uint64_t b = (uint64_t)(j + 1) * x->nelems / x->nsegs_block;
    return (size_t)(b - a) * x->esize;
}

void xchg_mpi_opx_free(xchg_mpi_opx *x)
{
    if (!x)
        return;
    free(x->slots);
    free(x->at);
    free(x->pieces);
    free(x->combs);
    free(x->steps);
    free(x->send_pack);
    free(x->recv_pack);
    free(x->stage);
    free(x->reqs);
    free(x->statuses);
    free(x);
}

/* Where a piece sits in the data (see op_internal.h). */
enum { ROLE_MESSAGE, ROLE_INPUT, ROLE_OUTPUT };

/* The segment a piece of a phase of kind k is. Cut into p segments (the
 * split algorithms): its dest in a per-dest phase (scatter, reduce-scatter),
 * its origin in a per-origin one (gather, allgather). In whole blocks: the
 * input block (the dest's for a scatter or a reduce-scatter, else the one
 * block) or the output block (the origin's for a gather or an allgather,
 * else the one block); a message's pieces are whole blocks, any index. */
static uint32_t seg_of(const xchg_mpi_opx *x, const xchg_op_piece *pc, xchg_op_kind k, int role)
{
    int per_dest = k == XCHG_OP_SCATTER || k == XCHG_OP_REDUCE_SCATTER;
    int per_origin = k == XCHG_OP_GATHER || k == XCHG_OP_ALLGATHER;
    uint32_t origin = pc->origin != XCHG_NONE ? pc->origin : pc->lo;
    if (x->nsegs_block > 1)
        return per_dest ? pc->dest : per_origin ? origin : 0;
    if (role == ROLE_INPUT && per_dest)
        return pc->dest;
    if (role == ROLE_OUTPUT && per_origin)
        return origin;
    return 0;
}

static size_t mul_or_max(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* Append pieces ps (n of them, of a phase of kind k) to x->pieces; the
 * index of the first into *first. -1 when a segment is out of range. */
static int add_pieces(xchg_mpi_opx *x, const xchg_op_piece *ps, size_t n, xchg_op_kind k, int role,
                      uint32_t nsegs, size_t *first, size_t *bytes)
{
    *first = x->npieces;
    *bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t seg = seg_of(x, &ps[i], k, role);
        if (seg >= nsegs || ps[i].slot >= x->nslots)
            return -1;
        x->pieces[x->npieces++] = (xchg_mpi_oppiece){ps[i].slot, seg};
        *bytes += xchg_mpi_seg_len(x, seg);
    }
    return 0;
}

/* Turn program g (of schedule s) into x's arrays. 0, or -1 with why. */
static int convert(xchg_mpi_opx *x, const xchg_sched *s, const xchg_op_program *g, int p, char *why,
                   size_t whylen)
{
    x->nphases = xchg_op_program_nphases(g);
    if (x->nphases == 0 || x->nphases > XCHG_MPI_MAX_PHASES) {
        snprintf(why, whylen, "a schedule of %zu phases (the executor runs 1 to %d)", x->nphases,
                 XCHG_MPI_MAX_PHASES);
        return -1;
    }
    size_t ns = xchg_op_program_nsteps(g), npieces = 0, ncombs = 0;
    for (size_t k = 0; k < x->nphases; k++) {
        const xchg_op_piece *ps;
        size_t n, r;
        xchg_op ph;
        size_t a, b;
        xchg_sched_phase(s, k, &ph, &a, &b);
        x->phase_kind[k] = ph.kind;
        xchg_op_program_start(g, k, &ps, &n);
        xchg_op_program_result(g, k, &ps, &r);
        npieces += n + r;
    }
    for (size_t k = 0; k < ns; k++) {
        xchg_op_step st;
        xchg_op_program_step(g, k, &st);
        npieces += st.nsend + st.nrecv;
        ncombs += st.ncombine;
    }
    x->nslots = xchg_op_program_nslots(g);
    x->pieces = malloc((npieces ? npieces : 1) * sizeof *x->pieces);
    x->combs = malloc((ncombs ? ncombs : 1) * sizeof *x->combs);
    x->steps = malloc((ns ? ns : 1) * sizeof *x->steps);
    if (!x->pieces || !x->combs || !x->steps) {
        snprintf(why, whylen, "out of memory for this rank's lists");
        return -1;
    }
    uint32_t nsegs = x->nsegs_block > 1 ? x->nsegs_block : (uint32_t)p;
    size_t junk;
    for (size_t k = 0; k < x->nphases; k++) {
        const xchg_op_piece *ps;
        size_t n;
        xchg_op_program_start(g, k, &ps, &n);
        x->nstart[k] = n;
        if (add_pieces(x, ps, n, x->phase_kind[k], k == 0 ? ROLE_INPUT : ROLE_MESSAGE, nsegs,
                       &x->start0[k], &junk))
            goto bad;
        xchg_op_program_result(g, k, &ps, &n);
        x->nres[k] = n;
        if (add_pieces(x, ps, n, x->phase_kind[k], k + 1 == x->nphases ? ROLE_OUTPUT : ROLE_MESSAGE,
                       nsegs, &x->res0[k], &junk))
            goto bad;
    }
    for (size_t k = 0; k < ns; k++) {
        xchg_op_step st;
        xchg_op_program_step(g, k, &st);
        xchg_mpi_opstep *m = &x->steps[x->nsteps];
        xchg_op_kind kind = x->phase_kind[st.phase < x->nphases ? st.phase : 0];
        m->phase = st.phase;
        m->to = st.send_to == XCHG_NONE ? MPI_PROC_NULL : (int)st.send_to;
        m->from = st.recv_from == XCHG_NONE ? MPI_PROC_NULL : (int)st.recv_from;
        m->nsend = st.nsend;
        m->nrecv = st.nrecv;
        if (add_pieces(x, st.send, st.nsend, kind, ROLE_MESSAGE, nsegs, &m->send0,
                       &m->send_bytes) ||
            add_pieces(x, st.recv, st.nrecv, kind, ROLE_MESSAGE, nsegs, &m->recv0, &m->recv_bytes))
            goto bad;
        m->comb0 = x->ncombs;
        m->ncomb = st.ncombine;
        for (size_t i = 0; i < st.ncombine; i++)
            x->combs[x->ncombs++] = st.combine[i];
        if (m->to != MPI_PROC_NULL || m->from != MPI_PROC_NULL)
            x->nsteps++;
    }
    x->order_ok = xchg_op_program_order_ok(g) != 0;
    return 0;
bad:
    snprintf(why, whylen, "a piece of this rank's program names a slot or a segment out of range");
    return -1;
}

/* Slots, message packing and the request array. 0, or -1 with why. */
static int allocate(xchg_mpi_plan *pl, xchg_mpi_opx *x, char *why, size_t whylen)
{
    size_t most = 0, pack_send = 0, pack_recv = 0;
    for (size_t k = 0; k < x->nsteps; k++) {
        const xchg_mpi_opstep *m = &x->steps[k];
        most = m->send_bytes > most ? m->send_bytes : most;
        most = m->recv_bytes > most ? m->recv_bytes : most;
        if (m->nsend > 1 && m->send_bytes > pack_send)
            pack_send = m->send_bytes;
        if (m->nrecv > 1 && m->recv_bytes > pack_recv)
            pack_recv = m->recv_bytes;
    }
    size_t nreq = 2 * (most / XCHG_MPI_PIECE + 1);
    size_t slots = mul_or_max(x->nslots, x->slot_bytes);
    if (slots == SIZE_MAX) {
        snprintf(why, whylen, "%zu slots of %zu bytes overflow memory", x->nslots, x->slot_bytes);
        return -1;
    }
    x->slots = malloc(slots ? slots : 1);
    x->at = malloc((x->nslots ? x->nslots : 1) * sizeof *x->at);
    x->send_pack = pack_send ? malloc(pack_send) : NULL;
    x->recv_pack = pack_recv ? malloc(pack_recv) : NULL;
    x->reqs = malloc(nreq * sizeof *x->reqs);
    x->statuses = malloc(nreq * sizeof *x->statuses);
    if (!x->slots || !x->at || (pack_send && !x->send_pack) || (pack_recv && !x->recv_pack) ||
        !x->reqs || !x->statuses) {
        snprintf(why, whylen, "could not allocate %zu bytes of scratch",
                 slots + pack_send + pack_recv);
        return -1;
    }
    pl->info.scratch_bytes = slots + pack_send + pack_recv;
    pl->info.steps = x->nsteps;
    pl->info.plan_bytes = sizeof *x + x->npieces * sizeof *x->pieces +
                          x->ncombs * sizeof *x->combs + x->nsteps * sizeof *x->steps;
    return 0;
}

/* This rank's part of spec on t for the call, into a new pl->opx. 0, or -1
 * with the reason in why (pl->opx then NULL). */
static int build(xchg_mpi_plan *pl, const xchg_topo *t, const char *spec,
                 const xchg_mpi_opcall *call, char *why, size_t whylen)
{
    const xchg_alg *alg;
    xchg_opts o;
    xchg_err err = {{0}};
    xchg_sched *s = NULL;
    xchg_op_program *g = NULL;
    if (xchg_alg_parse(spec, &alg, &o, &err)) {
        snprintf(why, whylen, "%.300s", err.msg);
        return -1;
    }
    if (alg->op != call->kind) {
        snprintf(why, whylen, "%.64s performs %s, not %s", alg->name, xchg_op_name(alg->op),
                 xchg_op_name(call->kind));
        return -1;
    }
    o.root = call->root;
    o.shift = call->shift;
    int rc = xchg_alg_applies(alg, t, &o, &err);
    if (!rc)
        rc = xchg_alg_generate(alg, t, &o, &s, &err);
    if (!rc)
        rc = xchg_op_program_new(s, (uint32_t)pl->rank, &g, &err);
    if (rc) {
        xchg_sched_free(s);
        snprintf(why, whylen, "%.300s", err.msg);
        return -1;
    }
    xchg_mpi_opx *x = calloc(1, sizeof *x);
    if (!x) {
        xchg_op_program_free(g);
        xchg_sched_free(s);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    xchg_sched_op(s, &x->op);
    x->reduction = call->reduction;
    x->nelems = call->nelems;
    x->esize = call->esize;
    x->block_bytes = call->nelems * call->esize;
    x->nsegs_block = x->op.pieces > 1 ? x->op.pieces : 1;
    x->slot_bytes = xchg_mpi_seg_len(x, 0);
    for (uint32_t j = 1; j < x->nsegs_block; j++)
        if (xchg_mpi_seg_len(x, j) > x->slot_bytes)
            x->slot_bytes = xchg_mpi_seg_len(x, j);
    rc = convert(x, s, g, pl->p, why, whylen);
    xchg_op_program_free(g);
    xchg_sched_free(s);
    if (!rc)
        rc = allocate(pl, x, why, whylen);
    if (rc) {
        xchg_mpi_opx_free(x);
        return -1;
    }
    pl->opx = x;
    return 0;
}

/*
 * The executor's predicted time of a candidate's line for the call, on
 * blocks of b = m/pieces: S start-ups and V*b bytes at the machine's
 * start-up and per-byte time for the typical message (V/S blocks; the
 * eager figures below the machine's eager size), plus local copies at t_r:
 * none for messages of one piece (sent from and received into their slots,
 * which lie in the caller's buffers where they can), a pack and an unpack
 * of every block when messages carry several pieces (V > S), and one pass
 * over every block received for a reduction's combinations. Unlike the
 * exchange's (auto.c), no step is taken as independent of the others: an
 * operation's steps wait for the data the step before brought.
 */
static double predict(const xchg_plan_entry *e, const xchg_machine *mach,
                      const xchg_mpi_opcall *call)
{
    double m = (double)(call->nelems * call->esize);
    double b = m / (e->line.pieces > 1 ? e->line.pieces : 1);
    double S = (double)e->line.startups, V = (double)e->line.volume_blocks;
    double msg = S > 0 ? V / S * b : 0;
    int eager = msg < mach->eager_bytes;
    double ts = eager ? mach->ts_eager : mach->ts, tw = eager ? mach->tw_eager : mach->tw;
    double copies = (V > S ? 2 * V : 0) + (call->reduction ? V : 0);
    return S * ts + V * b * tw + copies * b * mach->tr;
}

/* Auto's candidates on t for the call, fastest first, into specs (at most
 * max); how many. 0 with why when none applies. */
static int rank_candidates(xchg_mpi_plan *pl, xchg_topo *t, const xchg_mpi_opcall *call,
                           xchg_spec *specs, int max, char *why, size_t whylen)
{
    xchg_machine mach;
    if (pl->have_mach) {
        mach = pl->file_mach;
        xchg_mpi_machine_scale(pl->ranks_per_core, &mach);
    } else {
        xchg_mpi_machine(pl->ranks_per_core, &mach);
    }
    double m = (double)(call->nelems * call->esize);
    xchg_plan_opts po = {.threads = 1, .op = call->kind, .root = call->root, .shift = call->shift};
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    if (xchg_plan_sweep(t, &mach, m, m, &po, &sw, &err)) {
        snprintf(why, whylen, "no algorithm of %s applies to %d ranks (%.300s)",
                 xchg_op_name(call->kind), pl->p, err.msg);
        return 0;
    }
    int n = 0;
    double time[XCHG_MPI_OP_CANDIDATES];
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw) && n < max; i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        if (!e->eligible)
            continue;
        double us = predict(e, &mach, call);
        int at = n++;
        while (at > 0 && time[at - 1] > us) { /* insertion: stable, registry order on ties */
            time[at] = time[at - 1];
            memcpy(specs[at], specs[at - 1], XCHG_SPEC_MAX);
            at--;
        }
        time[at] = us;
        snprintf(specs[at], XCHG_SPEC_MAX, "%s", e->alg);
        if (pl->npred < XCHG_MPI_MAX_PREDICTIONS) {
            snprintf(pl->pred_spec[pl->npred], XCHG_SPEC_MAX, "%s", e->alg);
            pl->pred_us[pl->npred++] = us;
        }
    }
    xchg_sweep_free(sw);
    if (n == 0)
        snprintf(why, whylen, "no algorithm of %s may run on %d ranks", xchg_op_name(call->kind),
                 pl->p);
    else
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: predicted fastest (%.3g us) of %d algorithm%s of %s at %zu bytes with "
                 "%.2g ranks per core (%st_s %.3g us, t_w %.3g us/B; docs/mpi-ops.md)",
                 time[0], n, n == 1 ? "" : "s", xchg_op_name(call->kind),
                 call->nelems * call->esize, pl->ranks_per_core,
                 pl->have_mach ? "machine file: " : "", mach.ts, mach.tw);
    return n;
}

/* Try the candidates in order until every rank can run one (collective:
 * each try ends with one MPI_Allreduce). 0 when one was taken (pl->opx
 * set); -1 when none was (why says why the last failed); or an MPI error
 * code > 0. */
static int take_first(xchg_mpi_plan *pl, const xchg_topo *t, xchg_spec *specs, int n,
                      const xchg_mpi_opcall *call, char *why, size_t whylen)
{
    for (int i = 0; i < n; i++) {
        int ok = build(pl, t, specs[i], call, why, whylen) == 0;
        if (ok && call->reduction && !call->commutative && !pl->opx->order_ok) {
            ok = 0;
            snprintf(why, whylen,
                     "%.64s combines out of rank order, and the operator is not commutative",
                     specs[i]);
        }
        int all = 0;
        int rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, pl->comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if (all) {
            snprintf(pl->info.alg, sizeof pl->info.alg, "%.63s", specs[i]);
            return 0;
        }
        if (ok)
            snprintf(why, whylen, "%.64s: another rank could not make its part", specs[i]);
        xchg_mpi_opx_free(pl->opx);
        pl->opx = NULL;
    }
    return -1;
}

/* Why auto's plan runs what it runs, where a tuning file was read: its row
 * (row, NULL for none) was taken, could not run here, or there was none
 * for the operation on this topology (then the model decided). */
static void tuned_why(xchg_mpi_plan *pl, const char *row, const xchg_mpi_opcall *call)
{
    if (!pl->tuning)
        return;
    size_t at = strlen(pl->info.why);
    if (row && !strcmp(pl->info.alg, row))
        xchg_mpi_tuned_why(pl, row, pl->info.topology, pl->info.why, sizeof pl->info.why);
    else if (row)
        snprintf(pl->info.why + at, sizeof pl->info.why - at,
                 "; the tuning file's %.40s cannot run here", row);
    else
        snprintf(pl->info.why + at, sizeof pl->info.why - at,
                 "; the tuning file has no row of %s for %d ranks on %s", xchg_op_name(call->kind),
                 pl->p, pl->info.topology);
}

/* Add what auto could not read (a bad tuning or machine file) to the why. */
static void add_auto_note(xchg_mpi_plan *pl)
{
    if (!pl->auto_note[0])
        return;
    size_t n = strlen(pl->info.why);
    snprintf(pl->info.why + n, sizeof pl->info.why - n, "%s%s", n ? "; " : "", pl->auto_note);
}

/* Choose and build (see the top of the file). An MPI error code; a plan
 * that cannot run xchg falls back with the reason. */
static int choose(xchg_mpi_plan *pl, const xchg_mpi_opcall *call, const xchg_mpi_opts *opts)
{
    char asked[XCHG_SPEC_MAX], why[512] = "";
    xchg_mpi_alg_for(opts->alg, call->kind, asked, sizeof asked);
    const char *name = xchg_op_name(call->kind);
    if (!strcmp(asked, "mpi")) {
        xchg_mpi_fall_back(pl, "the MPI library's own %s was asked for (mpi)", name);
        return MPI_SUCCESS;
    }
    if (call->reduction && !call->dense) {
        xchg_mpi_fall_back(pl,
                           "the datatype is not plain bytes (its size differs from its extent, "
                           "or its lower bound is not 0), which %s does not combine",
                           "xchg");
        return MPI_SUCCESS;
    }
    xchg_topo t;
    if (xchg_mpi_map_topology(pl, opts, &t))
        return MPI_SUCCESS;
    xchg_topo_spec(&t, pl->info.topology, sizeof pl->info.topology);
    xchg_spec specs[XCHG_MPI_OP_CANDIDATES];
    int n, forced = strcmp(asked, "auto") != 0;
    if (forced) {
        snprintf(specs[0], XCHG_SPEC_MAX, "%s", asked);
        n = 1;
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
    } else {
        const char *row = xchg_tuning_lookup(pl->tuning, call->kind, &t, pl->block_bytes);
        if (row && !strcmp(row, "mpi")) {
            char lib[64];
            snprintf(lib, sizeof lib, "the MPI library's own %s", name);
            xchg_mpi_tuned_why(pl, lib, pl->info.topology, why, sizeof why);
            xchg_mpi_fall_back(pl, "%s", why);
            add_auto_note(pl);
            return MPI_SUCCESS;
        }
        n = 0;
        if (row)
            snprintf(specs[n++], XCHG_SPEC_MAX, "%s", row);
        n += rank_candidates(pl, &t, call, specs + n, XCHG_MPI_OP_CANDIDATES - n, why,
                             sizeof why);
        int rc = n > 0 ? take_first(pl, &t, specs, n, call, why, sizeof why) : -1;
        if (rc > 0)
            return rc;
        if (rc == 0)
            tuned_why(pl, row, call);
        else
            xchg_mpi_fall_back(pl, "%s", why);
        add_auto_note(pl);
        return MPI_SUCCESS;
    }
    int rc = take_first(pl, &t, specs, n, call, why, sizeof why);
    if (rc > 0)
        return rc;
    if (rc < 0) {
        pl->bad_value = 1;
        xchg_mpi_fall_back(pl, "%s", why);
    }
    return MPI_SUCCESS;
}

int xchg_mpi_op_plan_make(const xchg_mpi_opcall *call, MPI_Comm comm, const xchg_mpi_opts *opts,
                          xchg_mpi_plan **out)
{
    *out = NULL;
    xchg_mpi_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return MPI_ERR_NO_MEM;
    pl->user_comm = comm;
    pl->comm = MPI_COMM_NULL;
    pl->block_bytes = call->nelems * call->esize;
    int rc = MPI_Comm_size(comm, &pl->p);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, &pl->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_dup(comm, &pl->comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(pl->comm, MPI_ERRORS_RETURN);
    double t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_ranks_per_core(pl);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_auto_files(pl, opts);
    if (rc == MPI_SUCCESS)
        rc = choose(pl, call, opts);
    xchg_mpi_auto_files_free(pl);
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    pl->info.plan_seconds = MPI_Wtime() - t0;
    /* agree: one rank's fallback (a topology it could not map) is everyone's */
    int mine = pl->fallback, any = 0;
    rc = PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, pl->comm);
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    if (any && !pl->fallback) {
        xchg_mpi_opx_free(pl->opx);
        pl->opx = NULL;
        xchg_mpi_fall_back(pl, "%s", "another rank could not make its part of the plan");
    }
    pl->info.fallback = pl->fallback;
    if (pl->fallback) {
        pl->info.steps = 0;
        pl->info.scratch_bytes = pl->info.plan_bytes = 0;
    }
    *out = pl;
    return MPI_SUCCESS;
}
