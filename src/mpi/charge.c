/*
 * charge.c - the simulated time of the executor's own copies under
 * SimGrid's SMPI (smpicc defines SMPI_H).
 *
 * SMPI times messages, not the work between them: with
 * smpi/simulate-computation:no a copy is free, and with :yes SimGrid
 * charges the real CPU time of its one process, which on a loaded machine
 * varies tenfold from run to run (docs/clusters.md). A design that copies
 * more must pay for it in the evidence, and deterministically: so each
 * copying pass of the executor says how many copies it made and how many
 * bytes they moved (xchg_mpi_charge), and, where XCHG_SMPI_COPY_COST gives
 * a figure for each, the rank is charged that simulated time at once
 * (smpi_execute_flops). Outside SMPI the call is empty and inlined away
 * (mpi_internal.h), and the variable is only checked (opts.c), so that a
 * bad value is refused alike everywhere.
 *
 *   XCHG_SMPI_COPY_COST=C,T   C ns a copy, T ns a byte (bench/copy_cost.sh
 *                             measures both on this machine)
 */
#include "mpi/mpi_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#ifdef SMPI_H
#include <simgrid/host.h>
#endif
#include <stdio.h>
#include <stdlib.h>

/* One figure of XCHG_SMPI_COPY_COST at *s, up to stop: *s past it, or NULL
 * when it is not a finite number from 0 to 1e6 (ns). */
static const char *figure(const char *s, char stop, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || *end != stop || !isfinite(v) || v < 0 || v > 1e6)
        return NULL;
    *out = v;
    return end;
}

int xchg_mpi_copy_cost_parse(const char *v, double *per_copy_s, double *per_byte_s,
                             xchg_err *err)
{
    double c = 0, t = 0;
    const char *at = figure(v, ',', &c);
    if (!at || !figure(at + 1, '\0', &t)) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "XCHG_SMPI_COPY_COST=%.64s: expected C,T: the simulated ns of one copy and "
                     "of one byte copied, each a number from 0 to 1e6 (for example 3,0.0735)",
                     v);
        return XCHG_EINVAL;
    }
    *per_copy_s = c * 1e-9;
    *per_byte_s = t * 1e-9;
    return XCHG_OK;
}

#ifdef SMPI_H
/* The figures in seconds, read from the environment once in SMPI's one
 * process (the same for every rank); a bad value is said once and
 * charges nothing (xchg-bench and the drop-in refuse it before this). */
static double copy_s, byte_s;
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

static void read_cost(void)
{
    const char *v = getenv("XCHG_SMPI_COPY_COST");
    xchg_err err;
    if (v && *v && xchg_mpi_copy_cost_parse(v, &copy_s, &byte_s, &err))
        fprintf(stderr, "xchg: %s; copies not charged\n", err.msg);
}

void xchg_mpi_charge(size_t copies, size_t bytes)
{
    pthread_once(&read_once, read_cost);
    double s = (double)copies * copy_s + (double)bytes * byte_s;
    /* as flops at the simulated host's own speed, so that s is charged as
     * it is whatever smpi/host-speed says (smpi_execute scales by it) */
    if (s > 0)
        smpi_execute_flops(s * sg_host_get_speed(sg_host_self()));
}
#endif
