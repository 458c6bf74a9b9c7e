/*
 * choose_v.c - what a plan of MPI_Alltoallv or MPI_Alltoallw runs
 * (xchg_mpi_choose_v; docs/alltoallv.md says it for users).
 *
 * A plan is made once per communicator, options, operation and in place
 * or not: its key holds no counts, since MPI makes the ranks agree on no
 * count but each pair's. So whatever a plan fixes is fixed for every
 * count; what depends on the counts is decided at each call from what
 * every rank can know alike:
 *   - the direct schedule (pairwise, or hc-direct when asked): each rank
 *     posts its own nonzero blocks; nothing needs agreeing (exec_v.c);
 *   - on one node, the shared segment (shm_v.c): its first round also
 *     tells every rank the largest block of the call, and every rank
 *     then takes the same way: on through the segment while the largest
 *     block is below auto's crossover with the direct schedule (the cost
 *     model's, as for MPI_Alltoall at that block size), else the direct
 *     schedule for the rest of the call;
 *   - on several nodes, aggregation (aggregate_v.c: the sizes exchanged
 *     within the node first), forced with "aggregate" or auto's where the
 *     cost model predicts it faster than pairwise at a typical block
 *     (XCHG_MPI_V_TYPICAL: a plan has no counts to price, so it is chosen
 *     once for that size; auto_nodes.c). The node-aware exchanges with
 *     leaders (leader, leaders:L, pairs) are not built for variable
 *     blocks: asked for, they run auto's choice and say so.
 * With two ranks, where it would run the direct exchange (not shm), auto
 * passes the call to the MPI library: one message each way, which the
 * library sends as well (but for a call the library cannot take, which
 * the direct schedule carries: counts past INT_MAX under an MPI before 4,
 * or MPI_BOTTOM both ways, which MPICH 4.0.2 refuses as aliased).
 * Schedules that forward blocks through other ranks (Bruck, the
 * hypercube's standard exchange, the tori's) run when asked for, with the
 * sizes carried in their messages (exec_sf_v.c); the model's auto does not
 * take them, since the ranks could agree on them only from the counts,
 * which no rank holds whole. A tuning file's rows of alltoallv come
 * first (tuned_v.c: by each call's largest block, where the segment lets
 * the ranks agree on it).
 */
#include "mpi/auto.h"
#include "mpi/candidates.h"
#include "mpi/plan.h"

#include <stdio.h>
#include <string.h>

/* Bytes of each slot of the segment a variable-block plan backs at
 * first: one round moves this much of every block (less the 8-byte word
 * that carries the largest block); a call of larger blocks backs more
 * (shm_v.c), up to the slot's size. */
#define XCHG_MPI_SHM_V_SLOT ((size_t)4096)

/* The MPI call a plan of kind stands for. */
static const char *v_name(xchg_op_kind kind)
{
    return kind == XCHG_MPI_OP_ALLTOALLW ? "MPI_Alltoallw" : "MPI_Alltoallv";
}

/* The program spec on t into pl->prog, with its name and topology: 0;
 * -1 after falling back (the program cannot run); an MPI error code > 0. */
static int take_program_v(xchg_mpi_plan *pl, const xchg_topo *t, const char *spec)
{
    int rc = xchg_mpi_take_program(pl, t, spec);
    if (rc)
        return rc;
    const xchg_mpi_program *g = pl->prog;
    if (g->x.independent && g->x.msg_blocks > 1) { /* exec_v.c sends one block a message */
        pl->prog = NULL;
        xchg_mpi_fall_back(pl, "%.64s sends several blocks straight home in one message", spec);
        return -1;
    }
    snprintf(pl->info.alg, sizeof pl->info.alg, "%s", spec);
    xchg_topo_spec(t, pl->info.topology, sizeof pl->info.topology);
    return 0;
}

/* The pairwise schedule's line among l's candidates, or NULL. */
static const xchg_line *pairwise_line(const xchg_mpi_lines *l)
{
    for (size_t i = 0; l->ok && i < l->n; i++)
        if (!strcmp(l->cand[i].spec, "pairwise"))
            return &l->cand[i].line;
    return NULL;
}

/* The block size auto prices a variable-block exchange at on several
 * nodes: a plan serves every count (its key holds none), so it is chosen
 * once, for a typical small block, the size the shared segment's credit
 * is priced at too (shm_crossover). */
#define XCHG_MPI_V_TYPICAL ((size_t)256)

/* The largest block (bytes) below which auto predicts shm faster than
 * the direct pairwise schedule, for blocks of one round (0: never), into
 * *limit; and into pl->shm_v_nnz_min the fewest peers a rank must
 * exchange nonzero blocks with for shm to win at XCHG_MPI_V_TYPICAL-byte
 * blocks: the direct exchange skips empty pairs, so with k of the p - 1
 * pairs nonzero it is priced at k / (p - 1) of the pairwise schedule,
 * while shm's barrier is paid whatever the pattern. */
static int shm_crossover(xchg_mpi_plan *pl, const xchg_topo *t, size_t cap, size_t *limit,
                         double *saving)
{
    const xchg_mpi_lines *l = NULL;
    *limit = 0;
    *saving = 0;
    int rc = xchg_mpi_lines_get(t, XCHG_OP_ALLTOALL, 0, 0, &l);
    if (rc != MPI_SUCCESS)
        return rc;
    const xchg_line *pw = pairwise_line(l);
    const xchg_machine *mach = &pl->key.set->in->mach;
    double f = pl->cs->ranks_per_core;
    int p = pl->cs->p;
    for (size_t m = 8; pw && m <= cap; m *= 2) {
        double direct = xchg_mpi_predict(pw, mach, (double)m);
        double shm = xchg_mpi_predict_shm(f, mach, p, (double)m, (double)m);
        if (shm >= direct)
            break;
        *limit = m;
        if (m == XCHG_MPI_V_TYPICAL) /* what a typical small call saves: the credit */
            *saving = direct - shm;
    }
    pl->shm_v_nnz_min = 1;
    if (pw && p > 2) {
        double m = (double)XCHG_MPI_V_TYPICAL, direct = xchg_mpi_predict(pw, mach, m);
        double shm = xchg_mpi_predict_shm(f, mach, p, m, m);
        while (pl->shm_v_nnz_min < (size_t)p - 1 &&
               shm >= direct * (double)pl->shm_v_nnz_min / (double)(p - 1))
            pl->shm_v_nnz_min++;
    }
    xchg_mpi_lines_put(l);
    return MPI_SUCCESS;
}

/* On ranks of several nodes: aggregation (aggregate_v.c) where the model
 * predicts it faster than pairwise flat at XCHG_MPI_V_TYPICAL-byte
 * blocks (auto_nodes.c); *taken then. An MPI error code. */
static int nodes_v(xchg_mpi_plan *pl, const xchg_topo *complete, int *taken)
{
    const xchg_mpi_lines *l = NULL;
    *taken = 0;
    int rc = xchg_mpi_lines_get(complete, XCHG_OP_ALLTOALL, 0, 0, &l);
    if (rc != MPI_SUCCESS)
        return rc;
    const xchg_line *pw = pairwise_line(l);
    if (pw)
        rc = xchg_mpi_nodes_choose_v(pl, pw, XCHG_MPI_V_TYPICAL, taken);
    xchg_mpi_lines_put(l);
    return rc;
}

/* Shm for pl: forced (limit SIZE_MAX, the segment made now) or auto's
 * (made when its credit pays, as MPI_Alltoall's: call.c). *ok whether
 * pl is shm now or later. An MPI error code. */
static int take_shm(xchg_mpi_plan *pl, int forced, size_t limit, double saving, int *ok)
{
    xchg_mpi_comm *cs = pl->cs;
    char no[256] = "";
    *ok = 0;
    if (!xchg_mpi_shm_usable(pl, no, sizeof no)) {
        if (forced)
            xchg_mpi_fall_back(pl, "%s", no);
        return MPI_SUCCESS;
    }
    pl->shm_chunk = XCHG_MPI_SHM_V_SLOT;
    pl->shm_v_limit = limit;
    if (forced || pl->persistent || cs->store.shm) {
        int rc = xchg_mpi_store_shm(cs, pl->store, XCHG_MPI_SHM_V_SLOT, pl->persistent, ok, no,
                                    sizeof no);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!*ok && forced)
            xchg_mpi_fall_back(pl, "%s", no);
        else if (!*ok)
            xchg_mpi_why_add(pl, "but %s", no);
        pl->shm = *ok;
        return MPI_SUCCESS;
    }
    if (cs->shm_failed)
        return MPI_SUCCESS;
    pl->shm_later = 1;
    pl->shm_saving = saving;
    pl->shm_price = xchg_mpi_shm_price(pl);
    *ok = 1;
    return MPI_SUCCESS;
}

/* Add to pl's reason the tuning file's note (if any) and, when a
 * node-aware exchange with leaders was asked for (asked, else NULL), that
 * auto's choice ran instead. */
static void add_notes(xchg_mpi_plan *pl, const char *note, const char *asked)
{
    if (note[0])
        xchg_mpi_why_add(pl, "%s", note);
    if (asked)
        xchg_mpi_why_add(pl, "%s: the node-aware exchanges with leaders are not built for "
                             "variable blocks; auto's choice runs",
                         asked);
}

int xchg_mpi_choose_v(xchg_mpi_plan *pl)
{
    const xchg_mpi_settings *s = pl->key.set;
    const char *name = v_name(pl->key.kind);
    char asked[XCHG_SPEC_MAX], inner[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(s->alg, XCHG_OP_ALLTOALL, asked, sizeof asked);
    if (!strcmp(asked, "mpi")) {
        xchg_mpi_fall_back(pl, "the MPI library's own %s was asked for (mpi)", name);
        return MPI_SUCCESS;
    }
    if (!s->mapped) {
        pl->bad_value = s->map_bad_value;
        xchg_mpi_fall_back(pl, "%s", s->map_why);
        return MPI_SUCCESS;
    }
    int leaders = 0, node_aware = xchg_mpi_hier_parse(asked, strlen(asked), &leaders, inner,
                                                      sizeof inner);
    if (node_aware && leaders == XCHG_MPI_AGGREGATE)
        return xchg_mpi_aggregate_v_choose(pl);
    xchg_topo complete;
    char c[32];
    snprintf(c, sizeof c, "complete:%d", pl->cs->p);
    if (xchg_topo_parse(c, &complete, NULL) != XCHG_OK)
        return MPI_ERR_INTERN;
    int forced_shm = !strcmp(asked, "shm");
    if (strcmp(asked, "auto") && !forced_shm && !node_aware) { /* a schedule asked for */
        xchg_err err = {{0}};
        if (!xchg_mpi_exchange_runs(asked, &s->topo, &err)) {
            pl->bad_value = 1;
            xchg_mpi_fall_back(pl, "algorithm %.400s", err.msg);
            return MPI_SUCCESS;
        }
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
        int rc = take_program_v(pl, &s->topo, asked);
        return rc > 0 ? rc : MPI_SUCCESS;
    }
    /* auto, shm or a node-aware exchange with leaders (not built for
     * variable blocks: auto's way, said): pairwise, aggregation on
     * several nodes where the model says so, and shm on one node */
    int rc = take_program_v(pl, &complete, "pairwise");
    if (rc)
        return rc > 0 ? rc : MPI_SUCCESS;
    /* auto: a tuning file's rows of alltoallv first (tuned_v.c) */
    char note[600] = "";
    int taken = 0;
    if (!forced_shm && !node_aware &&
        ((rc = xchg_mpi_tuned_v(pl, &s->topo, XCHG_MPI_SHM_V_SLOT, &taken, note, sizeof note)) !=
             MPI_SUCCESS ||
         taken))
        return rc;
    /* then, on several nodes, aggregation where the model says so */
    if (!forced_shm && !pl->cs->one_node) {
        if ((rc = nodes_v(pl, &complete, &taken)) != MPI_SUCCESS)
            return rc;
        if (taken) {
            add_notes(pl, note, node_aware ? asked : NULL);
            return MPI_SUCCESS;
        }
    }
    size_t limit = SIZE_MAX;
    double saving = 0;
    size_t slot = xchg_mpi_store_shm_slot(pl->cs, XCHG_MPI_SHM_V_SLOT, pl->persistent);
    if (!forced_shm && (rc = shm_crossover(pl, &complete, slot - 8, &limit, &saving)) != MPI_SUCCESS)
        return rc;
    int shm = 0;
    if ((forced_shm || limit > 0) &&
        (rc = take_shm(pl, forced_shm, limit, saving, &shm)) != MPI_SUCCESS)
        return rc;
    if (pl->fallback)
        return MPI_SUCCESS;
    if (!forced_shm && !shm && pl->cs->p == 2) {
        /* the direct exchange of two ranks is one message each way, which
         * the library's own call sends too: xchg would add only its own
         * work. Its program stays, for the calls the library cannot take
         * (call.c) */
        const xchg_mpi_program *direct = pl->prog;
        xchg_mpi_fall_back(pl, "auto: 2 ranks exchange one message each way, as the MPI "
                               "library's own %s does",
                           name);
        pl->prog = direct;
        add_notes(pl, note, node_aware ? asked : NULL);
        return MPI_SUCCESS;
    }
    if (forced_shm)
        snprintf(pl->info.why, sizeof pl->info.why, "asked for");
    else if (shm)
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: all ranks on one node: shm while a call's largest block is at most "
                 "%zu bytes (the model's crossover with pairwise) and some rank exchanges "
                 "nonzero blocks with at least %zu peers (fewer: the direct exchange's "
                 "messages are predicted cheaper), else pairwise; %s",
                 limit, pl->shm_v_nnz_min,
                 pl->shm ? "the segment is made" : "pairwise until the segment pays");
    else
        snprintf(pl->info.why, sizeof pl->info.why,
                 "auto: the direct exchange, each rank posting its nonzero blocks");
    if (pl->shm)
        snprintf(pl->info.alg, sizeof pl->info.alg, "shm");
    add_notes(pl, note, node_aware ? asked : NULL);
    return MPI_SUCCESS;
}
