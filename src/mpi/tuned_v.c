/*
 * tuned_v.c - auto's MPI_Alltoallv and MPI_Alltoallw following a tuning
 * file's rows of the operation "alltoallv" (docs/tuning.md): a row's size
 * is a call's largest block in bytes, its algorithm shm, pairwise (or
 * another schedule of the complete exchange), or mpi.
 *
 * The largest block is the one statistic of a call every rank can know
 * alike, and only through the shared segment's round 0 (shm_v.c): so
 *   - on one node, where the segment can be had and the rows name more
 *     than one way, the plan makes the segment at once and every call
 *     takes the way of the row of its largest block, after round 0: on
 *     through the segment (shm), the direct exchange (pairwise), a
 *     store-and-forward schedule (its program, held by the communicator,
 *     the plan pointing at it), or the MPI library's call (every rank
 *     calls PMPI_Alltoallv or _w; the call is counted as passed);
 *   - without the segment (several nodes, shm unusable, or the segment
 *     could not be had) there is no agreement per call, and the rule is
 *     decided when the plan is made: when every row names the same way,
 *     that way for every call; else the cost model's auto, said;
 *   - rows that all name one way need no agreement either: that way.
 * A row whose schedule cannot run here, or no row for these ranks and
 * topology, leaves the plan to the cost model, said in its reason.
 *
 * choose_v.c calls xchg_mpi_tuned_v when it makes an auto plan; shm_v.c
 * calls xchg_mpi_tuned_v_row and xchg_mpi_tuned_v_run for each call.
 */
#include "mpi/call.h"
#include "mpi/candidates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows sorted by their first size. */
static int by_from(const void *a, const void *b)
{
    const xchg_mpi_vrow *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* What row r's algorithm runs on t: its way, and for a schedule its
 * program (pairwise: the plan's own, on complete:P). 0, or -1 with the
 * reason in why when it cannot run here; an MPI error code > 0. */
static int resolve(xchg_mpi_plan *pl, const xchg_topo *t, xchg_mpi_vrow *r, char *why,
                   size_t len)
{
    if (!strcmp(r->alg, "shm")) {
        r->way = XCHG_MPI_VWAY_SHM;
        return 0;
    }
    if (!strcmp(r->alg, "mpi")) {
        r->way = XCHG_MPI_VWAY_MPI;
        return 0;
    }
    r->way = XCHG_MPI_VWAY_PROG;
    if (!strcmp(r->alg, "pairwise")) {
        r->prog = pl->prog;
        return 0;
    }
    xchg_err err = {{0}};
    if (!xchg_mpi_exchange_runs(r->alg, t, &err)) {
        snprintf(why, len, "%.150s", err.msg);
        return -1;
    }
    const xchg_mpi_program *g = NULL;
    int rc = xchg_mpi_program_get(pl->cs, t, XCHG_OP_ALLTOALL, r->alg, 0, 0, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!g || !g->ok || (g->x.independent && g->x.msg_blocks > 1)) {
        snprintf(why, len, "%.150s",
                 !g      ? "the communicator holds as many programs as it may"
                 : !g->ok ? g->why
                          : "it sends several blocks straight home in one message");
        return -1;
    }
    r->prog = g;
    return 0;
}

/* "shm to 4095 B, pairwise to 65535 B, mpi above" into out. */
static void describe_rows(const xchg_mpi_vrow *r, size_t n, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        int w = i + 1 < n ? snprintf(out + at, len - at, "%s%s to %llu B", i ? ", " : "",
                                     r[i].alg, (unsigned long long)r[i].to)
                          : snprintf(out + at, len - at, "%s%s above", i ? ", " : "", r[i].alg);
        at += w > 0 ? (size_t)w : 0;
    }
}

/* The largest block a rank's own may reach and the call still take shm:
 * below the first row that starts above every shm row (the nearest row of
 * any larger size is then not shm); SIZE_MAX when the last row is shm. */
static size_t shm_reach(const xchg_mpi_vrow *r, size_t n)
{
    size_t last = n;
    for (size_t i = 0; i < n; i++)
        if (r[i].way == XCHG_MPI_VWAY_SHM)
            last = i;
    if (last == n)
        return 0;
    return last + 1 < n ? (size_t)r[last + 1].from - 1 : SIZE_MAX;
}

int xchg_mpi_tuned_v(xchg_mpi_plan *pl, const xchg_topo *t, size_t slot, int *taken, char *note,
                     size_t len)
{
    const xchg_mpi_settings *s = pl->key.set;
    const xchg_tuning *f = s->in->tuning;
    *taken = 0;
    note[0] = '\0';
    if (!f)
        return MPI_SUCCESS;
    char topo[64];
    xchg_topo_spec(t, topo, sizeof topo);
    size_t n = 0, total = xchg_tuning_rows(f);
    for (size_t i = 0; i < total; i++) {
        xchg_tuning_entry e;
        xchg_tuning_row(f, i, &e);
        n += e.op == XCHG_TUNING_ALLTOALLV && e.ranks == (uint32_t)pl->cs->p &&
             !strcmp(e.topology, topo);
    }
    if (n == 0) {
        snprintf(note, len, "the tuning file has no row of alltoallv for %d ranks on %s",
                 pl->cs->p, topo);
        return MPI_SUCCESS;
    }
    xchg_mpi_vrow *rows = calloc(n, sizeof *rows);
    if (!rows)
        return MPI_ERR_NO_MEM;
    n = 0;
    for (size_t i = 0; i < total; i++) {
        xchg_tuning_entry e;
        xchg_tuning_row(f, i, &e);
        if (e.op != XCHG_TUNING_ALLTOALLV || e.ranks != (uint32_t)pl->cs->p ||
            strcmp(e.topology, topo))
            continue;
        rows[n].from = e.from, rows[n].to = e.to;
        snprintf(rows[n].alg, sizeof rows[n].alg, "%s", e.alg);
        n++;
    }
    qsort(rows, n, sizeof *rows, by_from);
    int rc = MPI_SUCCESS, same = 1;
    char why[200] = "", no[256] = "", list[400];
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        same &= !strcmp(rows[i].alg, rows[0].alg);
        int r = resolve(pl, t, &rows[i], why, sizeof why);
        if (r > 0)
            rc = r;
        else if (r < 0) {
            snprintf(note, len, "the tuning file's %.40s does not apply here (%.150s)",
                     rows[i].alg, why);
            free(rows);
            return MPI_SUCCESS;
        }
    }
    if (rc != MPI_SUCCESS) {
        free(rows);
        return rc;
    }
    describe_rows(rows, n, list, sizeof list);
    int usable = xchg_mpi_shm_usable(pl, no, sizeof no);
    if (usable && (!same || rows[0].way == XCHG_MPI_VWAY_SHM)) {
        /* the segment now: its round 0 is where the ranks agree */
        int ok = 0;
        rc = xchg_mpi_store_shm(pl->cs, pl->store, slot, pl->persistent, &ok, no, sizeof no);
        if (rc != MPI_SUCCESS) {
            free(rows);
            return rc;
        }
        if (ok) {
            pl->shm = 1;
            pl->shm_chunk = slot;
            pl->shm_v_limit = same ? SIZE_MAX : shm_reach(rows, n);
            if (!same) {
                pl->v_rows = rows, pl->v_nrows = n;
                rows = NULL;
            }
            snprintf(pl->info.alg, sizeof pl->info.alg, "shm");
            snprintf(pl->info.why, sizeof pl->info.why,
                     "auto: tuned (%.100s): %s, by each call's largest block (%d ranks on %s)%s",
                     s->in->tuning_path, list, pl->cs->p, topo,
                     same ? "" : "; the segment's first round tells every rank the largest");
            free(rows);
            *taken = 1;
            return MPI_SUCCESS;
        }
    }
    if (same && rows[0].way != XCHG_MPI_VWAY_SHM) {
        char tuned[600];
        snprintf(tuned, sizeof tuned, "auto: tuned (%.100s): %s measured fastest at every size "
                                      "for %d ranks on %s",
                 s->in->tuning_path, rows[0].alg, pl->cs->p, topo);
        if (rows[0].way == XCHG_MPI_VWAY_MPI) {
            xchg_mpi_fall_back(pl, "%s", tuned);
        } else {
            if (strcmp(rows[0].alg, "pairwise")) /* pairwise: the plan's, on complete:P */
                xchg_topo_spec(t, pl->info.topology, sizeof pl->info.topology);
            pl->prog = rows[0].prog;
            snprintf(pl->info.alg, sizeof pl->info.alg, "%s", rows[0].alg);
            snprintf(pl->info.why, sizeof pl->info.why, "%s", tuned);
        }
        free(rows);
        *taken = 1;
        return MPI_SUCCESS;
    }
    if (same)
        snprintf(note, len, "the tuning file's shm cannot run here (%.150s)", no);
    else
        snprintf(note, len,
                 "the tuning file's rows for %d ranks on %s differ by size (%.200s), and "
                 "without the shared segment (%.150s) the ranks cannot agree on a call's "
                 "largest block",
                 pl->cs->p, topo, list, usable ? no : no[0] ? no : "not made");
    free(rows);
    return MPI_SUCCESS;
}

const xchg_mpi_vrow *xchg_mpi_tuned_v_row(const xchg_mpi_plan *pl, uint64_t largest)
{
    const xchg_mpi_vrow *best = NULL;
    double best_d = 0;
    for (size_t i = 0; i < pl->v_nrows; i++) { /* xchg_tuning_lookup's nearest row */
        const xchg_mpi_vrow *r = &pl->v_rows[i];
        uint64_t m = largest ? largest : 1;
        double d = m < r->from ? (double)r->from / (double)m
                   : m > r->to ? (double)m / (double)r->to
                               : 1;
        if (!best || d < best_d)
            best = r, best_d = d;
    }
    return best;
}

void xchg_mpi_tuned_v_note(const xchg_mpi_plan *pl, const xchg_mpi_vrow *row, uint64_t largest)
{
    /* the reason named by the row and the largest block */
    const char *alg = row->way == XCHG_MPI_VWAY_MPI ? "mpi" : row->alg;
    int fallback = row->way == XCHG_MPI_VWAY_MPI;
    if (largest != UINT64_MAX)
        xchg_mpi_remember_way(pl, row, largest, alg, fallback,
                              "auto: tuned: the call's largest block, %llu B, is in the row of %s",
                              (unsigned long long)largest, row->alg);
    else
        xchg_mpi_remember_way(pl, row, largest, alg, fallback,
                              "auto: tuned: as the last call (%s), without asking", row->alg);
}

int xchg_mpi_tuned_v_run(xchg_mpi_plan *pl, const xchg_mpi_bufs *b, const xchg_mpi_vrow *row,
                         uint64_t largest)
{
    xchg_mpi_tuned_v_note(pl, row, largest);
    if (row->way == XCHG_MPI_VWAY_MPI)
        return xchg_mpi_pass_on_instead(b->v);
    const xchg_mpi_program *keep = pl->prog;
    pl->prog = row->prog; /* the run reads the plan's program */
    int rc = row->prog->x.independent ? xchg_mpi_exec_v(pl, b) : xchg_mpi_exec_sf_v(pl, b);
    pl->prog = keep;
    return rc;
}
