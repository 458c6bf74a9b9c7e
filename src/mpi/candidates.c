/*
 * candidates.c - the process's cache of auto's candidates (candidates.h).
 *
 * For the exchange the candidates are the registry's exchange algorithms
 * that claim to be contention-free on the topology (a padded spec such as
 * at2:virtual among them: the conformance test holds its claim with the
 * verifier), without those that have no symmetry to derive one rank's
 * lists from above XCHG_MPI_FOLLOW_ALL_MAX ranks; when none applies to
 * the topology the ranks are laid out on a switch (complete:p) instead.
 * For another operation they are every algorithm of it that applies. The
 * planner (xchg_plan_sweep) gives each its line once; a line's start-ups
 * and volume do not depend on the block size, so every later plan prices
 * them with arithmetic (choose.c, auto.c).
 *
 * The cache is shared by every communicator of the process (a new
 * communicator of a size seen before costs no sweep), guarded by a mutex
 * for MPI_THREAD_MULTIPLE, and holds XCHG_MPI_LINE_SETS sets, the least
 * recently used going first; a set in use is freed by its last holder.
 */
#include "mpi/candidates.h"
#include "mpi/auto.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets of candidates the process keeps. */
#define XCHG_MPI_LINE_SETS 32

/* Largest communicator for which an algorithm without a symmetry may run
 * (its rank lists follow every block: p*p*steps work per rank). */
#define XCHG_MPI_FOLLOW_ALL_MAX 1024

static struct {
    pthread_mutex_t lock;
    xchg_mpi_lines *set[XCHG_MPI_LINE_SETS];
    unsigned used[XCHG_MPI_LINE_SETS];
    unsigned clock;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

int xchg_mpi_exchange_runs(const char *spec, const xchg_topo *t, xchg_err *err)
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

/* Comma-separated names of the exchange algorithms auto may pick on t. */
static void exchange_names(const xchg_topo *t, char *list, size_t len)
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
        /* hosting has no symmetry: a padded spec (offered alone) counts
         * against the limit as its own spec's does */
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

/* Sweep l's topology for l's operation into l's candidates. */
static void sweep(xchg_mpi_lines *l)
{
    xchg_plan_opts po = {.threads = 1, .op = l->kind, .root = l->root, .shift = l->shift};
    if (l->kind == XCHG_OP_ALLTOALL) {
        exchange_names(&l->topo, l->names, sizeof l->names);
        if (!l->names[0]) { /* nothing fits: lay the ranks out on a switch */
            char c[32];
            snprintf(c, sizeof c, "complete:%u", (unsigned)l->topo.nodes);
            xchg_topo_parse(c, &l->topo, NULL);
            exchange_names(&l->topo, l->names, sizeof l->names);
        }
        if (!l->names[0]) {
            snprintf(l->why, sizeof l->why, "no xchg algorithm applies: no candidate");
            return;
        }
        po.only = l->names;
    }
    xchg_machine mach;
    xchg_mpi_machine(1, &mach); /* a line's counts do not depend on it */
    xchg_sweep *sw = NULL;
    xchg_err err = {{0}};
    if (xchg_plan_sweep(&l->topo, &mach, 1, 1, &po, &sw, &err)) {
        if (l->kind == XCHG_OP_ALLTOALL)
            snprintf(l->why, sizeof l->why, "no xchg algorithm applies: %.400s", err.msg);
        else
            snprintf(l->why, sizeof l->why, "no algorithm of %s applies to %u ranks (%.300s)",
                     xchg_op_name(l->kind), (unsigned)l->topo.nodes, err.msg);
        return;
    }
    size_t n = xchg_sweep_ncandidates(sw);
    l->cand = calloc(n ? n : 1, sizeof *l->cand);
    for (size_t i = 0; l->cand && i < n; i++) {
        const xchg_plan_entry *e = xchg_sweep_candidate(sw, i);
        if (!e->eligible)
            continue;
        snprintf(l->cand[l->n].spec, XCHG_SPEC_MAX, "%s", e->alg);
        l->cand[l->n++].line = e->line;
    }
    xchg_sweep_free(sw);
    if (!l->cand)
        snprintf(l->why, sizeof l->why, "out of memory for auto's candidates");
    else if (l->n == 0 && l->kind == XCHG_OP_ALLTOALL)
        snprintf(l->why, sizeof l->why, "no xchg algorithm applies: no candidate may win");
    else if (l->n == 0)
        snprintf(l->why, sizeof l->why, "no algorithm of %s may run on %u ranks",
                 xchg_op_name(l->kind), (unsigned)l->topo.nodes);
    l->ok = l->n > 0;
}

/* Drop a reference to l, freeing it with the last (under the lock). */
static void drop(xchg_mpi_lines *l)
{
    if (l && --l->refs == 0) {
        free(l->cand);
        free(l);
    }
}

int xchg_mpi_lines_get(const xchg_topo *t, xchg_op_kind kind, uint32_t root, uint32_t shift,
                       const xchg_mpi_lines **out)
{
    char topo[64];
    xchg_topo_spec(t, topo, sizeof topo);
    *out = NULL;
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < XCHG_MPI_LINE_SETS; i++) {
        xchg_mpi_lines *l = cache.set[i];
        if (l && l->kind == kind && l->root == root && l->shift == shift &&
            !strcmp(l->topo_spec, topo)) {
            l->refs++;
            cache.used[i] = ++cache.clock;
            pthread_mutex_unlock(&cache.lock);
            *out = l;
            return MPI_SUCCESS;
        }
    }
    pthread_mutex_unlock(&cache.lock);
    /* made outside the lock: another thread's calls go on meanwhile */
    xchg_mpi_lines *l = calloc(1, sizeof *l);
    if (!l)
        return MPI_ERR_NO_MEM;
    snprintf(l->topo_spec, sizeof l->topo_spec, "%s", topo);
    l->kind = kind;
    l->root = root;
    l->shift = shift;
    l->topo = *t;
    sweep(l);
    l->refs = 2; /* the cache's and the caller's */
    pthread_mutex_lock(&cache.lock);
    int oldest = 0; /* an empty place, else the least recently used */
    for (int i = 1; i < XCHG_MPI_LINE_SETS && cache.set[oldest]; i++)
        if (!cache.set[i] || cache.used[i] < cache.used[oldest])
            oldest = i;
    drop(cache.set[oldest]);
    cache.set[oldest] = l;
    cache.used[oldest] = ++cache.clock;
    pthread_mutex_unlock(&cache.lock);
    *out = l;
    return MPI_SUCCESS;
}

void xchg_mpi_lines_put(const xchg_mpi_lines *lines)
{
    if (!lines)
        return;
    pthread_mutex_lock(&cache.lock);
    drop((xchg_mpi_lines *)(uintptr_t)lines);
    pthread_mutex_unlock(&cache.lock);
}
