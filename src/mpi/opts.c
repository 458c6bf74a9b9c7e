/*
 * opts.c - the executor's options (xchg_mpi_opts): defaults and the
 * environment variables XCHG_ALG, XCHG_TOPOLOGY, XCHG_VERBOSE,
 * XCHG_TUNING_FILE and XCHG_MACHINE_FILE.
 *
 * Values are checked here only for form (a known algorithm name of the
 * complete exchange, not of another operation, a topology
 * spec that parses, 0 or 1); whether they fit the communicator (the
 * algorithm applies, the node count is the number of ranks) is known only
 * when a plan is made (plan.c), which then says why it falls back. The
 * files are read then too (auto_files.c).
 */
#include "xchg.h"
#include "xchg_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xchg_mpi_opts_default(xchg_mpi_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->alg = "auto";
    opts->topology = "auto";
}

int xchg_mpi_alg_check(const char *alg, xchg_err *err)
{
    if (alg && (!strcmp(alg, "auto") || !strcmp(alg, "mpi") || !strcmp(alg, "shm")))
        return XCHG_OK;
    const xchg_alg *a;
    xchg_opts o;
    xchg_err why;
    if (alg && xchg_alg_parse(alg, &a, &o, &why) == XCHG_OK) {
        if (a->op == XCHG_OP_ALLTOALL)
            return XCHG_OK;
        /* the executor runs the complete exchange only: never another
         * operation's schedule as an exchange */
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.64s performs %s, not the complete exchange; accepted: an algorithm "
                     "'xchg list --op alltoall' lists, auto, shm or mpi",
                     a->name, xchg_op_name(a->op));
        return XCHG_EINVAL;
    }
    if (err)
        snprintf(err->msg, sizeof err->msg,
                 "%.300s; also accepted: auto (pick by block size), shm (through shared memory, "
                 "one node), mpi (the MPI library's own MPI_Alltoall)",
                 alg ? why.msg : "no algorithm given");
    return XCHG_EINVAL;
}

static int check_topology(const char *v, xchg_err *err)
{
    if (!strcmp(v, "auto"))
        return XCHG_OK;
    xchg_topo t;
    xchg_err why;
    if (xchg_topo_parse(v, &t, &why) == XCHG_OK)
        return XCHG_OK;
    if (err)
        snprintf(err->msg, sizeof err->msg,
                 "XCHG_TOPOLOGY=%.64s: %.300s; also accepted: auto (a Cartesian communicator's "
                 "torus or mesh, else complete:p)",
                 v, why.msg);
    return XCHG_EINVAL;
}

int xchg_mpi_opts_from_env(xchg_mpi_opts *opts, xchg_err *err)
{
    if (!opts) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "xchg_mpi_opts_from_env: NULL opts");
        return XCHG_EINVAL;
    }
    const char *alg = getenv("XCHG_ALG");
    const char *topo = getenv("XCHG_TOPOLOGY");
    const char *verbose = getenv("XCHG_VERBOSE");
    if (alg && *alg && xchg_mpi_alg_check(alg, err)) {
        if (err) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "XCHG_ALG=%.64s: %.400s", alg, err->msg);
            snprintf(err->msg, sizeof err->msg, "%s", msg);
        }
        return XCHG_EINVAL;
    }
    if (topo && *topo && check_topology(topo, err))
        return XCHG_EINVAL;
    if (verbose && *verbose && strcmp(verbose, "0") && strcmp(verbose, "1")) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "XCHG_VERBOSE=%.64s: expected 0 (quiet) or 1 (say what each plan chose)",
                     verbose);
        return XCHG_EINVAL;
    }
    if (alg && *alg)
        opts->alg = alg;
    if (topo && *topo)
        opts->topology = topo;
    if (verbose && *verbose)
        opts->verbose = !strcmp(verbose, "1");
    const char *tuning = getenv("XCHG_TUNING_FILE"), *machine = getenv("XCHG_MACHINE_FILE");
    if (tuning && *tuning)
        opts->tuning_file = tuning;
    if (machine && *machine)
        opts->machine_file = machine;
    return XCHG_OK;
}
