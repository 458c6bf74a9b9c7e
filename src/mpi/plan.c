/*
 * plan.c - make one rank's plan for an exchange (xchg_mpi_plan_make):
 * map the ranks to a topology, pick the algorithm, derive this rank's
 * program from the schedule (xchg_rank_new: its own lists only, never the
 * whole schedule), turn it into runs of bytes, and allocate the buffers.
 *
 * Mapping (docs/mpi.md): opts->topology when it names one; else a Cartesian
 * communicator's grid (all dimensions periodic: torus; else mesh; one
 * dimension: ring or array); else complete:p. Node id = rank in every case
 * (MPI numbers a Cartesian grid row-major, as xchg does).
 *
 * Choice: a forced algorithm when it applies (else the MPI library's own
 * call, and the reason is said); "auto": the candidates that claim to be
 * contention-free on the topology, with the planner's lines
 * (xchg_plan_sweep), timed as the executor runs them (auto.c), and the
 * shared-memory exchange (shm.c) when every rank is on one node and its
 * grids hold every block whole. Algorithms with no declared symmetry (whose rank lists need
 * every block followed, p*p*steps) are candidates only up to
 * XCHG_MPI_FOLLOW_ALL_MAX ranks.
 *
 * Every rank decides from the same inputs, and the ranks then agree with
 * one MPI_Allreduce: if any rank falls back (say it could not allocate),
 * all do, so no rank waits for a message that never comes.
 */
#include "xchg.h"
#include "xchg_mpi.h"
#include "mpi/mpi_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest communicator for which an algorithm without a symmetry may run
 * (its rank lists follow every block: p*p*steps work per rank). */
#define XCHG_MPI_FOLLOW_ALL_MAX 1024

int xchg_mpi_layout_of(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *out,
                       size_t *block_bytes)
{
    MPI_Count size, lb, extent, tlb, textent;
    int rc = MPI_Type_size_x(type, &size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_extent_x(type, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_true_extent_x(type, &tlb, &textent);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0 || extent < 0 || (size > 0 && count > INT64_MAX / size) ||
        (extent > 0 && count > INT64_MAX / extent))
        return MPI_ERR_COUNT;
    out->contiguous = count == 0 || (size == extent && size == textent && lb == 0 && tlb == 0);
    out->count = count;
    out->type = type;
    out->stride = (MPI_Aint)(count * extent);
    *block_bytes = (size_t)(count * size);
    return MPI_SUCCESS;
}

void xchg_mpi_fall_back(xchg_mpi_plan *pl, const char *fmt, const char *arg)
{
    pl->fallback = 1;
    snprintf(pl->info.alg, sizeof pl->info.alg, "mpi");
    snprintf(pl->info.why, sizeof pl->info.why, fmt, arg ? arg : "");
}

int xchg_mpi_map_topology(xchg_mpi_plan *pl, const xchg_mpi_opts *opts, xchg_topo *t)
{
    char spec[64];
    xchg_err err;
    const char *asked = opts->topology;
    if (asked && strcmp(asked, "auto")) {
        pl->bad_value = 1;
        if (xchg_topo_parse(asked, t, &err)) {
            xchg_mpi_fall_back(pl, "topology %.400s", err.msg);
            return -1;
        }
        if (t->nodes != (uint32_t)pl->p) {
            char why[200];
            snprintf(why, sizeof why, "%s has %u nodes but the communicator %d ranks", asked,
                     (unsigned)t->nodes, pl->p);
            xchg_mpi_fall_back(pl, "topology %s: it must have one node per rank", why);
            return -1;
        }
        pl->bad_value = 0;
        return 0;
    }
    int kind = MPI_UNDEFINED, nd = 0;
    MPI_Topo_test(pl->user_comm, &kind);
    if (kind == MPI_CART)
        MPI_Cartdim_get(pl->user_comm, &nd);
    if (kind == MPI_CART && nd > 0 && nd <= XCHG_MAX_DIMS) {
        int dims[XCHG_MAX_DIMS], periods[XCHG_MAX_DIMS], coords[XCHG_MAX_DIMS];
        MPI_Cart_get(pl->user_comm, nd, dims, periods, coords);
        int kept = 0, all_periodic = 1;
        size_t len = 0;
        spec[0] = 0;
        for (int k = 0; k < nd; k++) {
            if (dims[k] < 2)
                continue; /* a dimension of one node has no links */
            all_periodic &= periods[k] != 0;
            len += (size_t)snprintf(spec + len, sizeof spec - len, "%s%d", kept ? "x" : "",
                                    dims[k]);
            kept++;
        }
        char full[80];
        if (kept == 0)
            snprintf(full, sizeof full, "ring:1");
        else if (kept == 1)
            snprintf(full, sizeof full, "%s:%s", all_periodic ? "ring" : "array", spec);
        else
            snprintf(full, sizeof full, "%s:%s", all_periodic ? "torus" : "mesh", spec);
        if (len < sizeof spec && xchg_topo_parse(full, t, &err) == 0 &&
            t->nodes == (uint32_t)pl->p)
            return 0;
    }
    snprintf(spec, sizeof spec, "complete:%d", pl->p);
    if (xchg_topo_parse(spec, t, &err)) {
        xchg_mpi_fall_back(pl, "%s", err.msg);
        return -1;
    }
    return 0;
}

/*
 * Comma-separated names of the algorithms auto may pick on t. A padded spec
 * (at2:virtual where t's sizes do not fit at2) is one of them: the
 * conformance test holds its contention-free claim with the verifier, and
 * the executor's test runs it. Hosting has no symmetry, so the symmetry is
 * that of the spec offered (xchg_alg_variants offers a padded one alone),
 * and a padded one counts against XCHG_MPI_FOLLOW_ALL_MAX.
 */
static void auto_candidates(const xchg_topo *t, char *list, size_t len)
{
    size_t at = 0;
    list[0] = 0;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i), *pa;
        xchg_spec variants[XCHG_MAX_VARIANTS];
        xchg_opts o;
        if (a->op != XCHG_OP_ALLTOALL || !xchg_alg_claims_free(a, t) ||
            xchg_alg_variants(t, a, variants, XCHG_MAX_VARIANTS, NULL) == 0 ||
            xchg_alg_parse(variants[0], &pa, &o, NULL))
            continue;
        xchg_symmetry sym;
        xchg_alg_symmetry(a, t, &o, &sym);
        if (sym.kind == XCHG_SYM_NONE && t->nodes > XCHG_MPI_FOLLOW_ALL_MAX)
            continue;
        int n = snprintf(list + at, len - at, "%s%s", at ? "," : "", a->name);
        if (n < 0 || (size_t)n >= len - at)
            break;
        at += (size_t)n;
    }
}

/* Nonzero when the executor can run registry spec on t: it parses, applies,
 * and either has a symmetry or t is small enough to follow every block;
 * else 0 with the reason in err. The one check for a forced spec and a
 * tuned one. */
static int spec_runs_here(const char *spec, const xchg_topo *t, xchg_err *err)
{
    const xchg_alg *alg;
    xchg_opts o;
    if (xchg_alg_parse(spec, &alg, &o, err) || xchg_alg_applies(alg, t, &o, err))
        return 0;
    if (alg->op != XCHG_OP_ALLTOALL) {
        snprintf(err->msg, sizeof err->msg,
                 "%.64s performs %s, not the complete exchange; accepted: an algorithm "
                 "'xchg list --op alltoall' lists",
                 alg->name, xchg_op_name(alg->op));
        return 0;
    }
    xchg_symmetry sym;
    xchg_alg_symmetry(alg, t, &o, &sym);
    if (sym.kind != XCHG_SYM_NONE || t->nodes <= XCHG_MPI_FOLLOW_ALL_MAX)
        return 1;
    snprintf(err->msg, sizeof err->msg,
             "%.64s has no symmetry to derive one rank's lists from, and following every "
             "block costs too much above %d ranks",
             spec, XCHG_MPI_FOLLOW_ALL_MAX);
    return 0;
}

/*
 * The tuning file's row for (t, block size), over the model's choice: a
 * schedule (when it applies here), shm (when usable; spec stays the model's
 * schedule to run if its segment cannot be made) or the MPI library's call.
 * 0, or -1 when it falls back to the MPI library's call.
 */
static int apply_tuning(xchg_mpi_plan *pl, const xchg_topo *t, char *spec, int *shm)
{
    const char *row = xchg_tuning_lookup(pl->tuning, XCHG_OP_ALLTOALL, t, pl->block_bytes);
    char topo[64];
    xchg_topo_spec(t, topo, sizeof topo);
    if (!row) {
        if (pl->tuning) {
            size_t n = strlen(pl->info.why);
            snprintf(pl->info.why + n, sizeof pl->info.why - n,
                     "; the tuning file has no row for %d ranks on %s", pl->p, topo);
        }
        return 0;
    }
    char why[512];
    xchg_mpi_tuned_why(pl, row, topo, why, sizeof why);
    if (!strcmp(row, "mpi")) {
        xchg_mpi_fall_back(pl, "%s", why);
        return -1;
    }
    char no[256];
    if (!strcmp(row, "shm")) {
        if (xchg_mpi_shm_usable(pl, no, sizeof no)) {
            *shm = 1;
            snprintf(pl->info.why, sizeof pl->info.why, "%s", why);
        } else {
            size_t n = strlen(pl->info.why);
            snprintf(pl->info.why + n, sizeof pl->info.why - n,
                     "; the tuning file's shm cannot run here (%.150s)", no);
        }
        return 0;
    }
    xchg_err err = {{0}};
    if (!spec_runs_here(row, t, &err)) {
        size_t n = strlen(pl->info.why);
        snprintf(pl->info.why + n, sizeof pl->info.why - n,
                 "; the tuning file's %.40s does not apply here (%.150s)", row, err.msg);
        return 0;
    }
    snprintf(spec, XCHG_SPEC_MAX, "%s", row);
    *shm = 0;
    snprintf(pl->info.why, sizeof pl->info.why, "%s", why);
    return 0;
}

static int choose_by_model(xchg_mpi_plan *pl, xchg_topo *t, char *spec, int *shm);

/* The candidate auto.c predicts fastest at the block size (auto): a
 * schedule in spec, and *shm set when the shared-memory exchange is
 * predicted faster still (spec is then what runs if its segment cannot be
 * made). */
static int choose_auto(xchg_mpi_plan *pl, xchg_topo *t, char *spec, int *shm)
{
    int rc = choose_by_model(pl, t, spec, shm);
    if (rc == 0)
        rc = apply_tuning(pl, t, spec, shm);
    if (pl->auto_note[0]) {
        size_t n = strlen(pl->info.why);
        snprintf(pl->info.why + n, sizeof pl->info.why - n, "%s%s", n ? "; " : "",
                 pl->auto_note);
    }
    return rc;
}

/* The model's choice (choose_auto without a tuning file). */
static int choose_by_model(xchg_mpi_plan *pl, xchg_topo *t, char *spec, int *shm)
{
    char list[1024];
    auto_candidates(t, list, sizeof list);
    if (!list[0]) {
        /* nothing fits the topology: lay the ranks out on a switch instead */
        char c[64];
        snprintf(c, sizeof c, "complete:%d", pl->p);
        xchg_topo_parse(c, t, NULL);
        auto_candidates(t, list, sizeof list);
    }
    xchg_machine mach;
    if (pl->have_mach) {
        mach = pl->file_mach;
        xchg_mpi_machine_scale(pl->ranks_per_core, &mach);
    } else {
        xchg_mpi_machine(pl->ranks_per_core, &mach);
    }
    double m = (double)pl->block_bytes;
    xchg_plan_opts po = {.only = list, .threads = 1};
    xchg_sweep *sw = NULL;
    xchg_err err;
    if (!list[0] || xchg_plan_sweep(t, &mach, m, m, &po, &sw, &err)) {
        xchg_mpi_fall_back(pl, "no xchg algorithm applies: %.400s",
                           list[0] ? err.msg : "no candidate");
        return -1;
    }
    size_t best = XCHG_NO_WINNER;
    double best_time = 0;
    for (size_t i = 0; i < xchg_sweep_ncandidates(sw); i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        double time = e->eligible ? xchg_mpi_predict(&e->line, &mach, m) : 0;
        if (e->eligible && pl->npred < XCHG_MPI_MAX_PREDICTIONS) {
            snprintf(pl->pred_spec[pl->npred], XCHG_SPEC_MAX, "%s", e->alg);
            pl->pred_us[pl->npred++] = time;
        }
        if (e->eligible && (best == XCHG_NO_WINNER || time < best_time)) {
            best = i;
            best_time = time;
        }
    }
    if (best == XCHG_NO_WINNER) {
        xchg_sweep_free(sw);
        xchg_mpi_fall_back(pl, "no xchg algorithm applies: %s", "no candidate may win");
        return -1;
    }
    snprintf(spec, XCHG_SPEC_MAX, "%s", xchg_sweep_candidate(sw, best)->alg);
    xchg_sweep_free(sw);
    char no[256];
    /* shm is a candidate when its grids hold every block whole: in several
     * rounds (above 64 KiB at 16 ranks, 4 KiB at 64) it measured slower
     * than the model says and than the direct schedules */
    size_t chunk = xchg_mpi_shm_chunk(pl->p, pl->block_bytes);
    double shm_time = xchg_mpi_predict_shm(pl->ranks_per_core, &mach, pl->p, m, (double)chunk);
    int shm_candidate = xchg_mpi_shm_usable(pl, no, sizeof no) && chunk == pl->block_bytes;
    *shm = shm_candidate && shm_time < best_time;
    if (shm_candidate && pl->npred < XCHG_MPI_MAX_PREDICTIONS) {
        snprintf(pl->pred_spec[pl->npred], XCHG_SPEC_MAX, "shm");
        pl->pred_us[pl->npred++] = shm_time;
    }
    if (*shm)
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: all ranks on one node, and shared memory is predicted faster (%.3g us) "
                 "than the fastest of %.120s (%s, %.3g us) at %zu-byte blocks with %.2g ranks "
                 "per core (%st_s %.3g us; docs/mpi.md)",
                 shm_time, list, spec, best_time, pl->block_bytes, pl->ranks_per_core,
                 pl->have_mach ? "machine file: " : "", mach.ts);
    else
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: predicted fastest (%.3g us) of %.150s at %zu-byte blocks with %.2g "
                 "ranks per core (%st_s %.3g us, t_w %.3g us/B, t_r %.3g us/B; docs/mpi.md)",
                 best_time, list, pl->block_bytes, pl->ranks_per_core,
                 pl->have_mach ? "machine file: " : "", mach.ts, mach.tw, mach.tr);
    return 0;
}

/* The algorithm: forced (the MPI library's call, with the reason, when it
 * does not apply), or auto. *shm: run the shared-memory exchange (spec,
 * when auto chose it, is the schedule to run if it cannot be set up). */
static int choose(xchg_mpi_plan *pl, const xchg_mpi_opts *opts, xchg_topo *t, char *spec,
                  int *shm)
{
    char asked_buf[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(opts->alg, XCHG_OP_ALLTOALL, asked_buf, sizeof asked_buf);
    const char *asked = asked_buf;
    *shm = 0;
    if (!asked || !strcmp(asked, "auto"))
        return choose_auto(pl, t, spec, shm);
    if (!strcmp(asked, "mpi")) {
        xchg_mpi_fall_back(pl, "the MPI library's own MPI_Alltoall was asked for (mpi)%s", NULL);
        return -1;
    }
    if (!strcmp(asked, "shm")) {
        char no[256];
        pl->bad_value = 1;
        if (!xchg_mpi_shm_usable(pl, no, sizeof no)) {
            xchg_mpi_fall_back(pl, "%s", no);
            return -1;
        }
        pl->bad_value = 0;
        *shm = 1;
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
        return 0;
    }
    xchg_err err = {{0}};
    if (!spec_runs_here(asked, t, &err)) {
        pl->bad_value = 1;
        xchg_mpi_fall_back(pl, "algorithm %.400s", err.msg);
        return -1;
    }
    snprintf(spec, XCHG_SPEC_MAX, "%s", asked);
    snprintf(pl->info.why, sizeof pl->info.why, "asked for");
    return 0;
}

/* This rank's program for spec on t, as steps and runs. */
static int build_program(xchg_mpi_plan *pl, const xchg_topo *t, const char *spec, char *why,
                         size_t whylen)
{
    xchg_sched *s = NULL;
    xchg_rank *r = NULL;
    const xchg_alg *alg;
    xchg_opts o;
    xchg_err err;
    xchg_symmetry sym;
    int rc = xchg_alg_parse(spec, &alg, &o, &err);
    if (!rc)
        rc = xchg_alg_generate(alg, t, &o, &s, &err);
    if (!rc) {
        xchg_alg_symmetry(alg, t, &o, &sym);
        rc = xchg_rank_new(s, &sym, (uint32_t)pl->rank, &r, &err);
    }
    xchg_sched_free(s);
    if (rc) {
        snprintf(why, whylen, "%.250s", err.msg);
        return -1;
    }
    size_t ns = xchg_rank_nsteps(r), nruns = 0;
    for (size_t k = 0; k < ns; k++) {
        xchg_rank_step st;
        xchg_rank_step_get(r, k, &st);
        nruns += st.nsend + st.nrecv;
    }
    pl->steps = calloc(ns ? ns : 1, sizeof *pl->steps);
    pl->runs = calloc(nruns ? nruns : 1, sizeof *pl->runs);
    if (!pl->steps || !pl->runs) {
        xchg_rank_free(r);
        snprintf(why, whylen, "out of memory for this rank's lists");
        return -1;
    }
    size_t used = 0, active = 0;
    for (size_t k = 0; k < ns; k++) {
        xchg_rank_step st;
        xchg_rank_step_get(r, k, &st);
        xchg_mpi_step *m = &pl->steps[active];
        m->to = st.nsend ? (int)st.send_to : MPI_PROC_NULL;
        m->from = st.nrecv ? (int)st.recv_from : MPI_PROC_NULL;
        m->send_blocks = st.nsend;
        m->recv_blocks = st.nrecv;
        for (int dir = 0; dir < 2; dir++) {
            const xchg_loc *loc = dir ? st.recv_loc : st.send_loc;
            size_t n = dir ? st.nrecv : st.nsend, first = used;
            for (size_t i = 0; i < n; i++) {
                int where = XCHG_LOC_WHERE(loc[i]);
                size_t slot = XCHG_LOC_SLOT(loc[i]);
                xchg_mpi_run *last = used > first ? &pl->runs[used - 1] : NULL;
                if (last && last->where == where && last->slot + last->count == slot)
                    last->count++;
                else
                    pl->runs[used++] = (xchg_mpi_run){where, slot, 1};
            }
            if (dir)
                m->recv_run0 = first, m->nrecv_runs = used - first;
            else
                m->send_run0 = first, m->nsend_runs = used - first;
        }
        if (st.nsend || st.nrecv)
            active++;
    }
    pl->nsteps = active;
    pl->nruns = used;
    pl->independent = 1;
    for (size_t k = 0; k < active; k++) {
        const xchg_mpi_step *m = &pl->steps[k];
        for (size_t i = 0; i < m->nsend_runs; i++)
            pl->independent &= pl->runs[m->send_run0 + i].where == XCHG_LOC_SEND;
        for (size_t i = 0; i < m->nrecv_runs; i++)
            pl->independent &= pl->runs[m->recv_run0 + i].where == XCHG_LOC_RECV;
        pl->independent &= m->nsend_runs <= 1 && m->nrecv_runs <= 1;
    }
    pl->info.steps = active;
    pl->info.plan_bytes = xchg_rank_bytes(r) + active * sizeof *pl->steps + used * sizeof *pl->runs;
    pl->info.scratch_bytes = xchg_rank_scratch_blocks(r); /* blocks, until sized */
    xchg_rank_free(r);
    return 0;
}

/* p * bytes without overflow, or SIZE_MAX. */
static size_t times(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

static unsigned char *alloc_or_null(size_t n, int *failed)
{
    if (n == 0)
        return NULL;
    unsigned char *b = n == SIZE_MAX ? NULL : malloc(n);
    if (!b)
        *failed = 1;
    return b;
}

/* Scratch, packing and staging buffers, and the request array. */
static int allocate(xchg_mpi_plan *pl, char *why, size_t whylen)
{
    size_t B = pl->block_bytes, max_send = 0, max_recv = 0, pieces = 2;
    for (size_t k = 0; k < pl->nsteps; k++) {
        const xchg_mpi_step *m = &pl->steps[k];
        if (m->nsend_runs > 1 && m->send_blocks > max_send)
            max_send = m->send_blocks;
        if (m->nrecv_runs > 1 && m->recv_blocks > max_recv)
            max_recv = m->recv_blocks;
        size_t most = m->send_blocks > m->recv_blocks ? m->send_blocks : m->recv_blocks;
        size_t n = times(most, B) / XCHG_MPI_PIECE + 1;
        if (2 * n > pieces)
            pieces = 2 * n;
    }
    if (pl->independent) /* a window of steps is in flight at once */
        pieces = times(pieces, XCHG_MPI_WINDOW);
    int failed = 0;
    size_t scratch_blocks = pl->info.scratch_bytes;
    size_t total = 0, sz;
    pl->scratch = alloc_or_null(sz = times(scratch_blocks, B), &failed);
    total += sz == SIZE_MAX ? 0 : sz;
    pl->send_pack = alloc_or_null(sz = times(max_send, B), &failed);
    total += sz == SIZE_MAX ? 0 : sz;
    pl->recv_pack = alloc_or_null(sz = times(max_recv, B), &failed);
    total += sz == SIZE_MAX ? 0 : sz;
    if (pl->in_place || !pl->send_layout.contiguous) {
        pl->stage_send = alloc_or_null(sz = times((size_t)pl->p, B), &failed);
        total += sz == SIZE_MAX ? 0 : sz;
    }
    if (!pl->recv_layout.contiguous) {
        pl->stage_recv = alloc_or_null(sz = times((size_t)pl->p, B), &failed);
        total += sz == SIZE_MAX ? 0 : sz;
    }
    pl->reqs = malloc(pieces * sizeof *pl->reqs);
    pl->statuses = malloc(pieces * sizeof *pl->statuses);
    if (!pl->reqs || !pl->statuses)
        failed = 1;
    pl->info.scratch_bytes = total;
    if (failed) {
        snprintf(why, whylen, "could not allocate %zu bytes of scratch for %zu-byte blocks",
                 total, B);
        return -1;
    }
    return 0;
}

static void release(xchg_mpi_plan *pl)
{
    xchg_mpi_shm_close(pl);
    free(pl->steps);
    free(pl->runs);
    free(pl->scratch);
    free(pl->send_pack);
    free(pl->recv_pack);
    free(pl->stage_send);
    free(pl->stage_recv);
    free(pl->reqs);
    free(pl->statuses);
    pl->statuses = NULL;
    pl->steps = NULL;
    pl->runs = NULL;
    pl->scratch = pl->send_pack = pl->recv_pack = pl->stage_send = pl->stage_recv = NULL;
    pl->reqs = NULL;
    pl->nsteps = pl->nruns = 0;
}

int xchg_mpi_ranks_per_core(xchg_mpi_plan *pl)
{
    MPI_Comm node;
    int local = 1, rc = MPI_Comm_split_type(pl->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                            &node);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    /* the node's part is the whole communicator on every rank or on none */
    pl->one_node = local == pl->p;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double mine = (double)local / (double)(cores > 0 ? cores : 1);
    return PMPI_Allreduce(&mine, &pl->ranks_per_core, 1, MPI_DOUBLE, MPI_MAX, pl->comm);
}

/*
 * Set up the shared-memory exchange when this rank wants it (wish) and
 * every rank does (collective: every rank calls it, wishing or not). When
 * it cannot be set up, a forced "shm" falls back to the MPI library's call
 * and auto's choice to its best schedule (already in info.alg), saying why.
 * Returns an MPI error code.
 */
static int try_shm(xchg_mpi_plan *pl, int wish, int forced)
{
    int all = 0;
    int rc = PMPI_Allreduce(&wish, &all, 1, MPI_INT, MPI_MIN, pl->comm);
    if (rc != MPI_SUCCESS || !wish)
        return rc;
    char why[256] = "shm: another rank cannot take part";
    if (all && (rc = xchg_mpi_shm_open(pl, why, sizeof why)) != MPI_SUCCESS)
        return rc;
    if (pl->shm) {
        /* derived datatypes go through plain bytes in staging */
        int failed = 0;
        size_t staging = times((size_t)pl->p, pl->block_bytes);
        if (pl->in_place ? !pl->recv_layout.contiguous : !pl->send_layout.contiguous)
            pl->stage_send = alloc_or_null(staging, &failed);
        if (!pl->recv_layout.contiguous)
            pl->stage_recv = alloc_or_null(staging, &failed);
        if (failed) {
            release(pl);
            xchg_mpi_fall_back(pl, "shm: could not allocate staging for a derived datatype%s",
                               NULL);
            return MPI_SUCCESS;
        }
        snprintf(pl->info.alg, sizeof pl->info.alg, "shm");
        pl->info.steps = (pl->block_bytes + pl->shm_chunk - 1) / pl->shm_chunk;
        pl->info.shared_bytes = pl->shm_bytes;
        pl->info.scratch_bytes = (pl->stage_send ? staging : 0) + (pl->stage_recv ? staging : 0);
    } else if (forced) {
        pl->bad_value = 1;
        xchg_mpi_fall_back(pl, "%s", why);
    } else {
        size_t n = strlen(pl->info.why);
        snprintf(pl->info.why + n, sizeof pl->info.why - n, "; but %s", why);
    }
    return MPI_SUCCESS;
}

int xchg_mpi_plan_make(MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                       MPI_Datatype rtype, int in_place, MPI_Comm comm,
                       const xchg_mpi_opts *opts, xchg_mpi_plan **out)
{
    *out = NULL;
    xchg_mpi_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return MPI_ERR_NO_MEM;
    pl->user_comm = comm;
    pl->comm = MPI_COMM_NULL;
    pl->in_place = in_place;
    size_t sbytes = 0, rbytes = 0;
    int rc = MPI_Comm_size(comm, &pl->p);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, &pl->rank);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_layout_of(in_place ? rcount : scount, in_place ? rtype : stype,
                                &pl->send_layout, &sbytes);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_layout_of(rcount, rtype, &pl->recv_layout, &rbytes);
    if (rc == MPI_SUCCESS && sbytes != rbytes)
        rc = sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_dup(comm, &pl->comm);
    if (rc == MPI_SUCCESS)
        MPI_Comm_set_errhandler(pl->comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    pl->block_bytes = sbytes;

    double t0 = MPI_Wtime();
    rc = xchg_mpi_ranks_per_core(pl);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_auto_files(pl, opts);
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    xchg_topo t;
    char spec[XCHG_SPEC_MAX] = "", why[256] = "";
    int shm = 0; /* this rank chose the shared-memory exchange */
    /* a block too large to pack with int counts (non-contiguous types) */
    if ((!pl->send_layout.contiguous && pl->send_layout.count > INT32_MAX) ||
        (!pl->recv_layout.contiguous && rcount > INT32_MAX) ||
        ((!pl->send_layout.contiguous || !pl->recv_layout.contiguous) &&
         pl->block_bytes > INT32_MAX))
        xchg_mpi_fall_back(pl, "%s",
                           "a non-contiguous block of 2^31 bytes or more (MPI_Pack takes int)");
    else if (xchg_mpi_map_topology(pl, opts, &t) == 0 && choose(pl, opts, &t, spec, &shm) == 0) {
        xchg_topo_spec(&t, pl->info.topology, sizeof pl->info.topology);
        snprintf(pl->info.alg, sizeof pl->info.alg, "%s", spec);
    }
    xchg_mpi_auto_files_free(pl);
    rc = try_shm(pl, shm, opts->alg && !strcmp(opts->alg, "shm"));
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    if (!pl->fallback && !pl->shm &&
        (build_program(pl, &t, spec, why, sizeof why) || allocate(pl, why, sizeof why))) {
        release(pl);
        xchg_mpi_fall_back(pl, "%s", why);
    }
    pl->info.plan_seconds = MPI_Wtime() - t0;

    /* agree: one rank's fallback is everyone's */
    int mine = pl->fallback, any = 0;
    rc = PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, pl->comm);
    if (rc != MPI_SUCCESS) {
        xchg_mpi_plan_free(pl);
        return rc;
    }
    if (any && !pl->fallback) {
        release(pl);
        xchg_mpi_fall_back(pl, "%s", "another rank could not make its part of the plan");
    }
    pl->info.fallback = pl->fallback;
    if (pl->fallback)
        pl->info.steps = 0;
    *out = pl;
    return MPI_SUCCESS;
}

void xchg_mpi_plan_free(xchg_mpi_plan *pl)
{
    if (!pl)
        return;
    release(pl);
    xchg_mpi_opx_free(pl->opx);
    xchg_mpi_auto_files_free(pl);
    if (pl->comm != MPI_COMM_NULL)
        MPI_Comm_free(&pl->comm);
    free(pl);
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
