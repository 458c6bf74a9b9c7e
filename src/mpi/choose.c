/*
 * choose.c - what a plan runs (xchg_mpi_choose; docs/mpi.md and
 * docs/mpi-ops.md say it for users).
 *
 * The algorithm is the options' for the call's operation (xchg_mpi_alg_for)
 * when it applies to the ranks' topology (else the MPI library's call, and
 * the reason is said), or auto's:
 *   - the tuning file's row for the operation, topology and block size
 *     (a schedule, "shm" for the exchange, or "mpi": the MPI library's own
 *     call), where it can run here;
 *   - else the candidates (candidates.c) priced as the executor runs them
 *     (auto.c), fastest first; for the exchange the shared-memory exchange
 *     too, when every rank is on one node and one round moves whole blocks;
 *   - for the exchange on 2 ranks without a tuning file, where that would
 *     be a schedule (not shm), the MPI library's call: one message each
 *     way is what the library sends too (the plan keeps the program for
 *     the calls the library cannot take, call.c).
 * A reduction whose operator is not commutative takes a candidate only
 * when every rank's combinations keep rank order (program.c agrees it over
 * the ranks); auto goes on to the next, a forced one falls back.
 *
 * Every input is the same on every rank (the key, the settings, the
 * candidates, the programs' agreed fields), so every rank chooses alike
 * without a word; only a program built for the first time is collective.
 */
#include "mpi/auto.h"
#include "mpi/candidates.h"
#include "mpi/plan.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most candidates auto tries for an operation. */
#define XCHG_MPI_OP_CANDIDATES 32

/* Keep a prediction (persistent plans only: xchg_mpi_plan_predictions). */
static void predicted(xchg_mpi_plan *pl, const char *spec, double us)
{
    if (!pl->pred_spec || pl->npred >= XCHG_MPI_MAX_PREDICTIONS)
        return;
    snprintf(pl->pred_spec[pl->npred], XCHG_SPEC_MAX, "%s", spec);
    pl->pred_us[pl->npred++] = us;
}

/* Add what auto could not read (a bad tuning or machine file) to the why. */
static void add_auto_note(xchg_mpi_plan *pl)
{
    const char *note = pl->key.set->in->auto_note;
    if (!note[0])
        return;
    size_t n = strlen(pl->info.why);
    snprintf(pl->info.why + n, sizeof pl->info.why - n, "%s%s", n ? "; " : "", note);
}

int xchg_mpi_take_program(xchg_mpi_plan *pl, const xchg_topo *t, const char *spec)
{
    const xchg_mpi_program *g = NULL;
    int rc = xchg_mpi_program_get(pl->cs, t, xchg_mpi_registry_kind(pl->key.kind), spec,
                                  pl->key.root, pl->key.shift, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!g) {
        xchg_mpi_fall_back(pl, "this communicator already holds %d programs",
                           XCHG_MPI_MAX_PROGRAMS);
        return -1;
    }
    if (!g->ok) {
        xchg_mpi_fall_back(pl, "%s", g->why);
        return -1;
    }
    pl->prog = g;
    return 0;
}

/* ---- the exchange ---------------------------------------------------- */

/* The fastest of l's candidates at block size m on mach: its index, and
 * its time in *best_time; each time kept as a prediction. */
static size_t fastest(xchg_mpi_plan *pl, const xchg_mpi_lines *l, const xchg_machine *mach,
                      double m, double *best_time)
{
    size_t best = 0;
    for (size_t i = 0; i < l->n; i++) {
        double time = xchg_mpi_predict(&l->cand[i].line, mach, m);
        predicted(pl, l->cand[i].spec, time);
        if (i == 0 || time < *best_time) {
            best = i;
            *best_time = time;
        }
    }
    return best;
}

/*
 * The model's choice (auto without a tuning row): the candidate predicted
 * fastest into spec, its topology into t; *shm when the shared-memory
 * exchange is predicted faster still. When every rank shares one node and
 * the ranks' topology is a Cartesian communicator's grid (not one the
 * options name), the node's shared memory is a switch too: complete:p's
 * candidates are weighed beside the grid's. 0, or -1 after falling back.
 */
static int exchange_by_model(xchg_mpi_plan *pl, xchg_topo *t, char *spec, int *shm,
                             xchg_line *line)
{
    const xchg_mpi_settings *s = pl->key.set;
    const xchg_machine *mach = &s->in->mach;
    const xchg_mpi_lines *l = NULL, *sw = NULL;
    int rc = xchg_mpi_lines_get(t, XCHG_OP_ALLTOALL, 0, 0, &l);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!l->ok) {
        xchg_mpi_fall_back(pl, "%s", l->why);
        xchg_mpi_lines_put(l);
        return -1;
    }
    double m = (double)pl->block_bytes, best_time = 0, sw_time = 0;
    size_t best = fastest(pl, l, mach, m, &best_time);
    if (pl->cs->one_node && !strcmp(s->topology, "auto") && l->topo.kind != XCHG_TOPO_COMPLETE) {
        xchg_topo complete;
        char c[32];
        snprintf(c, sizeof c, "complete:%d", pl->cs->p);
        if (xchg_topo_parse(c, &complete, NULL) == XCHG_OK &&
            (rc = xchg_mpi_lines_get(&complete, XCHG_OP_ALLTOALL, 0, 0, &sw)) != MPI_SUCCESS) {
            xchg_mpi_lines_put(l);
            return rc;
        }
        size_t i = sw && sw->ok ? fastest(pl, sw, mach, m, &sw_time) : 0;
        if (sw && sw->ok && sw_time < best_time) { /* the switch's wins */
            xchg_mpi_lines_put(l);
            l = sw;
            sw = NULL;
            best = i;
            best_time = sw_time;
        }
        xchg_mpi_lines_put(sw);
    }
    *t = l->topo;
    snprintf(spec, XCHG_SPEC_MAX, "%s", l->cand[best].spec);
    *line = l->cand[best].line;
    /* shm is a candidate when its grids hold every block whole: in several
     * rounds it runs slower than the model says and than the direct
     * schedules (docs/mpi.md) */
    char no[256];
    size_t chunk = xchg_mpi_shm_chunk(pl->cs->p, pl->block_bytes);
    double shm_time =
        xchg_mpi_predict_shm(pl->cs->ranks_per_core, mach, pl->cs->p, m, (double)chunk);
    int shm_candidate = xchg_mpi_shm_usable(pl, no, sizeof no) && chunk == pl->block_bytes;
    *shm = shm_candidate && shm_time < best_time;
    /* what a call saves by shm (a tuned shm saves a tenth at least) */
    pl->shm_saving = shm_candidate && shm_time < best_time ? best_time - shm_time : best_time / 10;
    if (shm_candidate)
        predicted(pl, "shm", shm_time);
    if (*shm)
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: all ranks on one node, and shared memory is predicted faster (%.3g us) "
                 "than the fastest of %.120s (%s, %.3g us) at %zu-byte blocks with %.2g ranks "
                 "per core (%st_s %.3g us; docs/mpi.md)",
                 shm_time, l->names, spec, best_time, pl->block_bytes, pl->cs->ranks_per_core,
                 s->in->have_file_mach ? "machine file: " : "", mach->ts);
    else
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: predicted fastest (%.3g us) of %.150s at %zu-byte blocks with %.2g "
                 "ranks per core (%st_s %.3g us, t_w %.3g us/B, t_r %.3g us/B; docs/mpi.md)",
                 best_time, l->names, pl->block_bytes, pl->cs->ranks_per_core,
                 s->in->have_file_mach ? "machine file: " : "", mach->ts, mach->tw, mach->tr);
    if (l->topo.kind == XCHG_TOPO_COMPLETE && s->topo.kind != XCHG_TOPO_COMPLETE)
        xchg_mpi_why_add(pl, "all ranks on one node: its shared memory is a switch");
    xchg_mpi_lines_put(l);
    return 0;
}

/*
 * The tuning file's row for (t, block size), over the model's choice: a
 * schedule (when it applies here), shm (when usable; spec stays the
 * model's schedule to run if its segment cannot be made) or the MPI
 * library's call. 0, or -1 when it falls back to the MPI library's call.
 */
static int exchange_tuned(xchg_mpi_plan *pl, const xchg_topo *t, char *spec, int *shm)
{
    const xchg_mpi_settings *s = pl->key.set;
    const char *row = xchg_tuning_lookup(s->in->tuning, XCHG_OP_ALLTOALL, t, pl->block_bytes);
    if (!row) {
        if (s->in->tuning) {
            char topo[64];
            xchg_topo_spec(t, topo, sizeof topo);
            xchg_mpi_why_add(pl, "the tuning file has no row for %d ranks on %s", pl->cs->p,
                             topo);
        }
        return 0;
    }
    char why[512], no[256];
    xchg_mpi_tuned_why(pl, row, why, sizeof why);
    if (!strcmp(row, "mpi")) {
        xchg_mpi_fall_back(pl, "%s", why);
        return -1;
    }
    if (!strcmp(row, "shm")) {
        if (xchg_mpi_shm_usable(pl, no, sizeof no)) {
            *shm = 1;
            snprintf(pl->info.why, sizeof pl->info.why, "%s", why);
        } else {
            xchg_mpi_why_add(pl, "the tuning file's shm cannot run here (%.150s)", no);
        }
        return 0;
    }
    xchg_err err = {{0}};
    if (!xchg_mpi_exchange_runs(row, t, &err)) {
        xchg_mpi_why_add(pl, "the tuning file's %.40s does not apply here (%.150s)", row, err.msg);
        return 0;
    }
    snprintf(spec, XCHG_SPEC_MAX, "%s", row);
    *shm = 0;
    snprintf(pl->info.why, sizeof pl->info.why, "%s", why);
    return 0;
}

/* The shared segment for pl's blocks, from its store (collective when it
 * grows): *ok, or the reason in why. An MPI error code. */
static int shm_segment(xchg_mpi_plan *pl, int *ok, char *why, size_t len)
{
    size_t chunk = xchg_mpi_shm_chunk(pl->cs->p, pl->block_bytes);
    int rc = xchg_mpi_store_shm(pl->cs, pl->store, chunk, pl->persistent, ok, why, len);
    if (rc == MPI_SUCCESS && *ok) {
        pl->shm = 1;
        pl->shm_chunk = chunk;
        snprintf(pl->info.alg, sizeof pl->info.alg, "shm");
    }
    return rc;
}

/*
 * Auto's shm for pl, whose schedule spec runs without it: at once where
 * the segment is had already (or pl is persistent: a segment of its own,
 * made for a loop of runs); else pl runs spec and earns credit towards
 * the communicator's segment (rent or buy: auto.c), unless the segment
 * could not be made before. An MPI error code.
 */
double xchg_mpi_shm_price(const xchg_mpi_plan *pl)
{
    const xchg_mpi_comm *cs = pl->cs;
    /* the pages the ranks back: each slot's start, as far as the chunk */
    double pages = ceil((double)pl->shm_chunk / 4096.0);
    double bytes = 2.0 * cs->p * cs->p * pages * 4096.0;
    return xchg_mpi_predict_shm_making(cs->ranks_per_core, &pl->key.set->in->mach, cs->p, bytes,
                                       (double)pl->shm_chunk);
}

static int shm_when_paid(xchg_mpi_plan *pl, const char *spec)
{
    xchg_mpi_comm *cs = pl->cs;
    char no[256] = "";
    int ok = 0, rc = MPI_SUCCESS;
    size_t chunk = xchg_mpi_shm_chunk(cs->p, pl->block_bytes);
    if (pl->persistent || cs->store.shm) { /* made: backing more is cheap, and agreed */
        if ((rc = shm_segment(pl, &ok, no, sizeof no)) == MPI_SUCCESS && !ok)
            xchg_mpi_why_add(pl, "but %s", no);
        return rc;
    }
    if (cs->shm_failed) {
        xchg_mpi_why_add(pl, "but shm's segment could not be made on this communicator");
        return MPI_SUCCESS;
    }
    pl->shm_later = 1;
    pl->shm_chunk = chunk;
    pl->shm_price = xchg_mpi_shm_price(pl);
    xchg_mpi_why_add(pl,
                     "%s runs until shm's segment pays for itself (%.3g us a call saved, "
                     "against %.3g us to make it)",
                     spec, pl->shm_saving, pl->shm_price);
    return MPI_SUCCESS;
}

/* The exchange: forced, or auto. An MPI error code. */
static int choose_exchange(xchg_mpi_plan *pl)
{
    const xchg_mpi_settings *s = pl->key.set;
    char asked[XCHG_SPEC_MAX], spec[XCHG_SPEC_MAX] = "", no[256] = "";
    xchg_mpi_alg_for(s->alg, XCHG_OP_ALLTOALL, asked, sizeof asked);
    /* node-aware: the topology names the network of nodes (hier.c) */
    char inner[XCHG_SPEC_MAX];
    int leaders = 1;
    if (xchg_mpi_hier_parse(asked, strlen(asked), &leaders, inner, sizeof inner))
        return leaders == XCHG_MPI_AGGREGATE ? xchg_mpi_aggregate_choose(pl)
                                             : xchg_mpi_hier_choose(pl, leaders, inner);
    if (!s->mapped) {
        pl->bad_value = s->map_bad_value;
        xchg_mpi_fall_back(pl, "%s", s->map_why);
        return MPI_SUCCESS;
    }
    xchg_topo t = s->topo;
    int shm = 0, ok = 0, rc = 0;
    snprintf(pl->info.topology, sizeof pl->info.topology, "%s", s->topo_spec);
    if (!strcmp(asked, "mpi")) {
        xchg_mpi_fall_back(pl, "the MPI library's own MPI_Alltoall was asked for (mpi)");
        return MPI_SUCCESS;
    }
    if (!strcmp(asked, "shm")) {
        pl->bad_value = 1;
        if (!xchg_mpi_shm_usable(pl, no, sizeof no)) {
            xchg_mpi_fall_back(pl, "%s", no);
            return MPI_SUCCESS;
        }
        if ((rc = shm_segment(pl, &ok, no, sizeof no)) != MPI_SUCCESS)
            return rc;
        if (!ok) {
            xchg_mpi_fall_back(pl, "%s", no);
            return MPI_SUCCESS;
        }
        pl->bad_value = 0;
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
        return MPI_SUCCESS;
    }
    if (!strcmp(asked, "auto")) {
        xchg_line flat;
        int taken = 0;
        rc = exchange_by_model(pl, &t, spec, &shm, &flat);
        /* several nodes: the node-aware exchanges too (a tuning file's
         * rows decide instead) */
        if (rc == 0 && !shm && !s->in->tuning &&
            (rc = xchg_mpi_nodes_choose(pl, &flat, spec, &taken)) == MPI_SUCCESS && taken) {
            add_auto_note(pl);
            return MPI_SUCCESS;
        }
        if (rc == 0)
            rc = exchange_tuned(pl, &t, spec, &shm);
        add_auto_note(pl);
        if (rc)
            return rc > 0 ? rc : MPI_SUCCESS;
        if (!shm && pl->cs->p == 2 && !s->in->tuning &&
            (MPI_VERSION >= 4 || pl->key.nelems <= INT_MAX)) {
            /* a schedule of 2 ranks is one message each way, which the
             * library's own call sends too: xchg would add only its own
             * work (its short way then passes the call at once, memo.c).
             * Not shm, which moves the blocks without messages. The
             * program stays, for the calls the library cannot take
             * (call.c) */
            xchg_topo_spec(&t, pl->info.topology, sizeof pl->info.topology);
            if ((rc = xchg_mpi_take_program(pl, &t, spec)) != 0)
                return rc > 0 ? rc : MPI_SUCCESS;
            const xchg_mpi_program *direct = pl->prog;
            xchg_mpi_fall_back(pl, "auto: 2 ranks exchange one message each way, as the MPI "
                                   "library's own MPI_Alltoall does (%s would send just that)",
                               spec);
            pl->prog = direct;
            return MPI_SUCCESS;
        }
    } else {
        xchg_err err = {{0}};
        if (!xchg_mpi_exchange_runs(asked, &t, &err)) {
            pl->bad_value = 1;
            xchg_mpi_fall_back(pl, "algorithm %.400s", err.msg);
            return MPI_SUCCESS;
        }
        snprintf(spec, sizeof spec, "%s", asked);
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
    }
    if (shm) /* auto's: the schedule runs until the segment is had, or if it cannot be */
        rc = shm_when_paid(pl, spec);
    if (rc != MPI_SUCCESS || pl->shm) /* shm: the ranks' topology stays the one named */
        return rc;
    xchg_topo_spec(&t, pl->info.topology, sizeof pl->info.topology);
    snprintf(pl->info.alg, sizeof pl->info.alg, "%s", spec);
    rc = xchg_mpi_take_program(pl, &t, spec);
    return rc > 0 ? rc : MPI_SUCCESS;
}

/* ---- the other operations -------------------------------------------- */

/* Auto's candidates for pl on t, fastest first, into specs (at most max);
 * how many, or -1 with why (when none applies); an MPI error code > 0. */
static int rank_candidates(xchg_mpi_plan *pl, const xchg_topo *t, xchg_spec *specs, int max,
                           char *why, size_t whylen)
{
    const xchg_mpi_key *k = &pl->key;
    const xchg_machine *mach = &k->set->in->mach;
    const xchg_mpi_lines *l = NULL;
    int rc = xchg_mpi_lines_get(t, k->kind, k->root, k->shift, &l);
    if (rc != MPI_SUCCESS)
        return rc > 0 ? rc : MPI_ERR_INTERN;
    if (!l->ok) {
        snprintf(why, whylen, "%s", l->why);
        xchg_mpi_lines_put(l);
        return -1;
    }
    int n = 0;
    double time[XCHG_MPI_OP_CANDIDATES];
    double m = (double)pl->block_bytes;
    for (size_t i = 0; i < l->n && n < max; i++) {
        double us = xchg_mpi_predict_op(&l->cand[i].line, mach, m, k->reduction);
        int at = n++;
        while (at > 0 && time[at - 1] > us) { /* insertion: stable, registry order on ties */
            time[at] = time[at - 1];
            memcpy(specs[at], specs[at - 1], XCHG_SPEC_MAX);
            at--;
        }
        time[at] = us;
        snprintf(specs[at], XCHG_SPEC_MAX, "%s", l->cand[i].spec);
        predicted(pl, l->cand[i].spec, us);
    }
    xchg_mpi_lines_put(l);
    snprintf(pl->info.why, sizeof pl->info.why,
             "auto: predicted fastest (%.3g us) of %d algorithm%s of %s at %zu bytes with "
             "%.2g ranks per core (%st_s %.3g us, t_w %.3g us/B; docs/mpi-ops.md)",
             time[0], n, n == 1 ? "" : "s", xchg_op_name(k->kind), pl->block_bytes,
             pl->cs->ranks_per_core, k->set->in->have_file_mach ? "machine file: " : "", mach->ts,
             mach->tw);
    return n;
}

/* The first of specs whose program every rank has, and which keeps rank
 * order where the operator needs it, into pl->prog: 0; -1 when none (why
 * says why the last was refused); an MPI error code > 0. */
static int take_first(xchg_mpi_plan *pl, const xchg_topo *t, xchg_spec *specs, int n, char *why,
                      size_t whylen)
{
    const xchg_mpi_key *k = &pl->key;
    for (int i = 0; i < n; i++) {
        const xchg_mpi_program *g = NULL;
        int rc = xchg_mpi_program_get(pl->cs, t, k->kind, specs[i], k->root, k->shift, &g);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!g)
            snprintf(why, whylen, "this communicator already holds %d programs",
                     XCHG_MPI_MAX_PROGRAMS);
        else if (!g->ok)
            snprintf(why, whylen, "%s", g->why);
        else if (k->reduction && !k->commutative && !g->o.order_ok)
            snprintf(why, whylen,
                     "%.64s combines out of rank order, and the operator is not commutative",
                     specs[i]);
        else {
            pl->prog = g;
            snprintf(pl->info.alg, sizeof pl->info.alg, "%.63s", specs[i]);
            return 0;
        }
    }
    return -1;
}

/* Why auto's plan runs what it runs, where a tuning file was read: its row
 * (row, NULL for none) was taken, could not run here, or there was none
 * for the operation on this topology (then the model decided). */
static void tuned_why(xchg_mpi_plan *pl, const char *row)
{
    if (!pl->key.set->in->tuning)
        return;
    if (row && !strcmp(pl->info.alg, row))
        xchg_mpi_tuned_why(pl, row, pl->info.why, sizeof pl->info.why);
    else if (row)
        xchg_mpi_why_add(pl, "the tuning file's %.40s cannot run here", row);
    else
        xchg_mpi_why_add(pl, "the tuning file has no row of %s for %d ranks on %s",
                         xchg_op_name(pl->key.kind), pl->cs->p, pl->info.topology);
}

/* Auto for another operation: the tuning row, then the model's ranking.
 * An MPI error code. */
static int op_auto(xchg_mpi_plan *pl, const xchg_topo *t, const char *name)
{
    const xchg_mpi_key *k = &pl->key;
    char why[512] = "";
    xchg_spec specs[XCHG_MPI_OP_CANDIDATES];
    const char *row = xchg_tuning_lookup(k->set->in->tuning, k->kind, t, pl->block_bytes);
    if (row && !strcmp(row, "mpi")) {
        char lib[64];
        snprintf(lib, sizeof lib, "the MPI library's own %s", name);
        xchg_mpi_tuned_why(pl, lib, why, sizeof why);
        xchg_mpi_fall_back(pl, "%s", why);
        add_auto_note(pl);
        return MPI_SUCCESS;
    }
    int n = 0;
    if (row)
        snprintf(specs[n++], XCHG_SPEC_MAX, "%s", row);
    int ranked = rank_candidates(pl, t, specs + n, XCHG_MPI_OP_CANDIDATES - n, why, sizeof why);
    if (ranked > XCHG_MPI_OP_CANDIDATES)
        return ranked; /* an MPI error code */
    n += ranked > 0 ? ranked : 0;
    int rc = n > 0 ? take_first(pl, t, specs, n, why, sizeof why) : -1;
    if (rc > 0)
        return rc;
    if (rc == 0)
        tuned_why(pl, row);
    else
        xchg_mpi_fall_back(pl, "%s", why);
    add_auto_note(pl);
    return MPI_SUCCESS;
}

/* Another operation: forced, or auto. An MPI error code. */
static int choose_op(xchg_mpi_plan *pl)
{
    const xchg_mpi_key *k = &pl->key;
    const xchg_mpi_settings *s = k->set;
    char asked[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(s->alg, k->kind, asked, sizeof asked);
    const char *name = xchg_op_name(k->kind);
    if (!strcmp(asked, "mpi")) {
        xchg_mpi_fall_back(pl, "the MPI library's own %s was asked for (mpi)", name);
        return MPI_SUCCESS;
    }
    if (k->reduction && !k->dense) {
        xchg_mpi_fall_back(pl, "the datatype is not plain bytes (its size differs from its "
                               "extent, or its lower bound is not 0), which xchg does not "
                               "combine");
        return MPI_SUCCESS;
    }
    if (!s->mapped) {
        pl->bad_value = s->map_bad_value;
        xchg_mpi_fall_back(pl, "%s", s->map_why);
        return MPI_SUCCESS;
    }
    snprintf(pl->info.topology, sizeof pl->info.topology, "%s", s->topo_spec);
    if (!strcmp(asked, "auto"))
        return op_auto(pl, &s->topo, name);
    xchg_spec spec;
    char why[512] = "";
    snprintf(spec, sizeof spec, "%s", asked);
    snprintf(pl->info.why, sizeof pl->info.why, "asked for");
    int rc = take_first(pl, &s->topo, &spec, 1, why, sizeof why);
    if (rc > 0)
        return rc;
    if (rc < 0) {
        pl->bad_value = 1;
        xchg_mpi_fall_back(pl, "%s", why);
    }
    return MPI_SUCCESS;
}

int xchg_mpi_choose(xchg_mpi_plan *pl)
{
    if (xchg_mpi_is_v(pl->key.kind))
        return xchg_mpi_choose_v(pl);
    return pl->key.kind == XCHG_OP_ALLTOALL ? choose_exchange(pl) : choose_op(pl);
}
