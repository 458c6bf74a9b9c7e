/*
 * candidates.h - the algorithms auto weighs for an operation on a
 * topology, with the line of each (its start-ups and volume in blocks),
 * which do not depend on the block size: made once per process for a
 * (topology, operation, root, shift) and kept, so a plan for a new count
 * prices every candidate with arithmetic alone (choose.c).
 */
#ifndef XCHG_MPI_CANDIDATES_H
#define XCHG_MPI_CANDIDATES_H

#include "mpi/mpi_internal.h"

/* One candidate that may win, and its line. */
typedef struct xchg_mpi_cand {
    xchg_spec spec;
    xchg_line line;
} xchg_mpi_cand;

/* The candidates of one (topology, operation, root, shift). */
typedef struct xchg_mpi_lines {
    /* what they are of */
    char topo_spec[64];
    xchg_op_kind kind;
    uint32_t root, shift;
    /* ok 0: none applies, and why */
    int ok;
    char why[480];
    /* the topology the candidates run on: the one asked, or complete:p for
     * an exchange when no algorithm applies to the one asked */
    xchg_topo topo;
    /* the exchange's candidates' names, comma-separated (for the reason a
     * plan gives) */
    char names[1024];
    /* the candidates that may win, in registry order */
    size_t n;
    xchg_mpi_cand *cand;
    int refs; /* the cache's, and each holder's (under the cache's lock) */
} xchg_mpi_lines;

/*
 * The candidates of operation kind (root, shift) on t, from the process's
 * cache or made (xchg_plan_sweep: each candidate's schedule is generated
 * once). *out holds a reference: release it with xchg_mpi_lines_put. An
 * MPI error code (MPI_ERR_NO_MEM); a set where none applies is ok 0.
 */
XCHG_MPI_INTERNAL int xchg_mpi_lines_get(const xchg_topo *t, xchg_op_kind kind, uint32_t root,
                                         uint32_t shift, const xchg_mpi_lines **out);
XCHG_MPI_INTERNAL void xchg_mpi_lines_put(const xchg_mpi_lines *lines);

/* Nonzero when the executor can run registry spec of the exchange on t:
 * it parses, applies, and either has a symmetry or t is small enough to
 * follow every block; else 0 with the reason in err. The one check for a
 * forced spec and a tuned one. */
XCHG_MPI_INTERNAL int xchg_mpi_exchange_runs(const char *spec, const xchg_topo *t, xchg_err *err);

#endif /* XCHG_MPI_CANDIDATES_H */
