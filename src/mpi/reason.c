/*
 * reason.c - what a plan says about why it runs what it runs (its info's
 * alg and why): falling back to the MPI library with a reason, adding to
 * the reason, and the words for a tuning file's row. Shared by plan.c and
 * choose.c; calls nothing else of the executor.
 */
#include "mpi/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void xchg_mpi_fall_back(xchg_mpi_plan *pl, const char *fmt, ...)
{
    va_list ap;
    pl->fallback = 1;
    pl->prog = NULL;
    pl->shm = 0;
    pl->hier = NULL;
    pl->aggregate = 0;
    snprintf(pl->info.alg, sizeof pl->info.alg, "mpi");
    va_start(ap, fmt);
    vsnprintf(pl->info.why, sizeof pl->info.why, fmt, ap);
    va_end(ap);
}

void xchg_mpi_why_add(xchg_mpi_plan *pl, const char *fmt, ...)
{
    va_list ap;
    size_t n = strlen(pl->info.why);
    if (n + 2 >= sizeof pl->info.why)
        return;
    if (n)
        memcpy(pl->info.why + n, "; ", 3), n += 2;
    va_start(ap, fmt);
    vsnprintf(pl->info.why + n, sizeof pl->info.why - n, fmt, ap);
    va_end(ap);
}

void xchg_mpi_tuned_why(const xchg_mpi_plan *pl, const char *what, char *out, size_t len)
{
    const xchg_mpi_settings *s = pl->key.set;
    snprintf(out, len, "auto: tuned (%.100s): %s measured fastest for %d ranks on %s near %zu-byte "
                       "blocks",
             s->in->tuning_path, what, pl->cs->p, s->topo_spec, pl->block_bytes);
}
