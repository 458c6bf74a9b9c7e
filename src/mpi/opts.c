/*
 * opts.c - the executor's options (xchg_mpi_opts): defaults and the
 * environment variables XCHG_ALG, XCHG_TOPOLOGY, XCHG_VERBOSE,
 * XCHG_TUNING_FILE and XCHG_MACHINE_FILE.
 *
 * Values are checked here only for form (auto, mpi, shm, or registry
 * algorithms separated by commas, at most one per operation, which each
 * call picks its own from: xchg_mpi_alg_for; a topology spec that parses;
 * 0 or 1); whether they fit the communicator (the
 * algorithm applies, the node count is the number of ranks) is known only
 * when a plan is made (choose.c, topo_map.c), which then says why it
 * falls back; the files are read once per communicator (auto_files.c).
 * This file makes no MPI call (tests/fuzz/fuzz_mpi_env.c builds it with
 * mpi.h alone); call.c holds what the public calls share that does.
 */
#include "mpi/mpi_internal.h"

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

/* The length of the node-aware exchange's name spec starts with
 * (leader, leaders, pairs: hier.c; aggregate: aggregate.c), followed by
 * ':' or the end; else 0. */
static size_t hier_name(const char *spec, size_t len)
{
    static const char *const names[] = {"leaders", "leader", "pairs", "aggregate"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (len >= n && !strncmp(spec, names[i], n) && (len == n || spec[n] == ':'))
            return n;
    }
    return 0;
}

/* Nonzero when text starts with an algorithm's name (a registry name or
 * shm) followed by ':', ',' or the end: where a list's next item begins.
 * A spec's own options may hold commas ("multiphase:1,1,2"), so a list is
 * split only at commas followed by a name. */
static int starts_item(const char *text)
{
    size_t n = strcspn(text, ":,");
    if ((n == 3 && !strncmp(text, "shm", 3)) || hier_name(text, n))
        return 1;
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const char *name = xchg_alg_at(i)->name;
        if (strlen(name) == n && !strncmp(text, name, n))
            return 1;
    }
    return 0;
}

/* The end of the list item that starts at at: the next comma followed by a
 * name, or the end of the string. */
static const char *item_end(const char *at)
{
    for (const char *c = strchr(at, ','); c; c = strchr(c + 1, ','))
        if (starts_item(c + 1))
            return c;
    return NULL;
}

int xchg_mpi_hier_parse(const char *spec, size_t len, int *leaders, char *inner,
                        size_t inner_len)
{
    size_t n = hier_name(spec, len);
    if (!n)
        return 0;
    size_t at = n < len ? n + 1 : len; /* after the name's ':' */
    *leaders = n == 5 ? 0 : n == 9 ? XCHG_MPI_AGGREGATE : 1; /* pairs: every rank */
    if (n == 7) {                      /* leaders:L[:INNER] */
        long l = 0;
        size_t d = at;
        while (d < len && d - at < 6 && spec[d] >= '0' && spec[d] <= '9')
            l = 10 * l + (spec[d++] - '0');
        *leaders = d > at && (d == len || spec[d] == ':') && l >= 1 ? (int)l : -1;
        at = d < len ? d + 1 : len;
    }
    if (at >= len)
        snprintf(inner, inner_len, "auto");
    else
        snprintf(inner, inner_len, "%.*s", (int)(len - at), spec + at);
    return 1;
}

/* Check a node-aware exchange's spec (leader[:INNER], leaders:L[:INNER],
 * pairs[:INNER], aggregate): L a count from 1, INNER auto or an exchange
 * of the registry. XCHG_OK, or XCHG_EINVAL with a message. */
static int check_hier(const char *spec, int leaders, const char *inner, xchg_err *err)
{
    const xchg_alg *a;
    xchg_opts o;
    xchg_err why = {{0}};
    if (leaders == XCHG_MPI_AGGREGATE) {
        if (!strcmp(inner, "auto"))
            return XCHG_OK;
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.64s: aggregate takes nothing after it (its messages between nodes go "
                     "directly); accepted: aggregate",
                     spec);
        return XCHG_EINVAL;
    }
    if (leaders < 0) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.64s: leaders:L needs L, the leaders a node, a count from 1 to 999999 "
                     "(leaders:4, or leaders:4:bruck)",
                     spec);
        return XCHG_EINVAL;
    }
    if (!strcmp(inner, "auto") ||
        (xchg_alg_parse(inner, &a, &o, &why) == XCHG_OK && a->op == XCHG_OP_ALLTOALL))
        return XCHG_OK;
    if (err)
        snprintf(err->msg, sizeof err->msg,
                 "%.64s: what runs between nodes must be auto or an exchange of "
                 "'xchg list --op alltoall'%s%.300s",
                 spec, why.msg[0] ? ": " : "", why.msg);
    return XCHG_EINVAL;
}

/*
 * Check one item of a list: a registry spec without root or q (a call gives
 * those) or shm; its operation into *kind. XCHG_OK, or XCHG_EINVAL with a
 * message.
 */
static int check_item(const char *item, size_t len, xchg_op_kind *kind, xchg_err *err)
{
    char spec[XCHG_SPEC_MAX];
    if (len == 0 || len >= sizeof spec) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "an empty or overlong algorithm in a list; accepted: auto, mpi, shm, or "
                     "registry algorithms separated by commas, one per operation");
        return XCHG_EINVAL;
    }
    memcpy(spec, item, len);
    spec[len] = '\0';
    *kind = XCHG_OP_ALLTOALL;
    if (!strcmp(spec, "shm"))
        return XCHG_OK;
    char inner[XCHG_SPEC_MAX];
    int leaders;
    if (xchg_mpi_hier_parse(spec, len, &leaders, inner, sizeof inner))
        return check_hier(spec, leaders, inner, err);
    const xchg_alg *a;
    xchg_opts o;
    xchg_err why;
    if (xchg_alg_parse(spec, &a, &o, &why) != XCHG_OK) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.300s; also accepted: auto (pick by block size), shm (through shared "
                     "memory, one node), leader[:ALG], leaders:L[:ALG], pairs[:ALG] (node-aware), "
                     "mpi (the "
                     "MPI library's own call)",
                     why.msg);
        return XCHG_EINVAL;
    }
    if (a->op != XCHG_OP_ALLTOALL && strchr(spec, ':')) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.64s: the call gives the root and the shift; name the algorithm "
                     "alone (%.64s)",
                     spec, a->name);
        return XCHG_EINVAL;
    }
    *kind = a->op;
    return XCHG_OK;
}

int xchg_mpi_alg_check(const char *alg, xchg_err *err)
{
    if (!alg) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "no algorithm given; accepted: auto, mpi, shm "
                                                "or registry algorithms ('xchg list')");
        return XCHG_EINVAL;
    }
    if (!strcmp(alg, "auto") || !strcmp(alg, "mpi"))
        return XCHG_OK;
    int seen[XCHG_OP_COUNT] = {0};
    for (const char *at = alg;;) {
        const char *end = item_end(at);
        size_t len = end ? (size_t)(end - at) : strlen(at);
        xchg_op_kind kind;
        if (check_item(at, len, &kind, err))
            return XCHG_EINVAL;
        if (seen[kind]++) {
            if (err)
                snprintf(err->msg, sizeof err->msg,
                         "two algorithms of %s in one list; accepted: one per operation",
                         xchg_op_name(kind));
            return XCHG_EINVAL;
        }
        if (!end)
            return XCHG_OK;
        at = end + 1;
    }
}

int xchg_mpi_alg_check_op(const char *alg, xchg_op_kind kind, xchg_err *err)
{
    if (alg && (!strcmp(alg, "auto") || !strcmp(alg, "mpi") ||
                (kind == XCHG_OP_ALLTOALL && !strcmp(alg, "shm"))))
        return XCHG_OK;
    char inner[XCHG_SPEC_MAX];
    int leaders;
    if (alg && kind == XCHG_OP_ALLTOALL && !item_end(alg) &&
        xchg_mpi_hier_parse(alg, strlen(alg), &leaders, inner, sizeof inner))
        return check_hier(alg, leaders, inner, err);
    const xchg_alg *a;
    xchg_opts o;
    xchg_err why;
    if (alg && !item_end(alg) && xchg_alg_parse(alg, &a, &o, &why) == XCHG_OK) {
        if (a->op == kind && kind != XCHG_OP_ALLTOALL && strchr(alg, ':')) {
            if (err) /* the spec's root or q would be dropped for the call's */
                snprintf(err->msg, sizeof err->msg,
                         "%.64s: the call gives the root and the shift; name the algorithm "
                         "alone (%.64s)",
                         alg, a->name);
            return XCHG_EINVAL;
        }
        if (a->op == kind)
            return XCHG_OK;
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%.64s performs %s, not %s; accepted: an algorithm "
                     "'xchg list --op %s' lists, auto%s or mpi",
                     a->name, xchg_op_name(a->op),
                     kind == XCHG_OP_ALLTOALL ? "the complete exchange" : xchg_op_name(kind),
                     xchg_op_name(kind), kind == XCHG_OP_ALLTOALL ? ", shm" : "");
        return XCHG_EINVAL;
    }
    if (err)
        snprintf(err->msg, sizeof err->msg,
                 "%.300s; also accepted: auto (pick by block size),%s mpi (the MPI library's "
                 "own call)",
                 !alg ? "no algorithm given" : item_end(alg) ? "one algorithm, not a list"
                                                                 : why.msg,
                 kind == XCHG_OP_ALLTOALL ? " shm (through shared memory, one node), "
                                            "leader[:ALG], leaders:L[:ALG], pairs[:ALG] "
                                            "(node-aware),"
                                          : "");
    return XCHG_EINVAL;
}

void xchg_mpi_alg_for(const char *alg, xchg_op_kind kind, char *out, size_t len)
{
    if (len < sizeof "auto")
        return;
    memcpy(out, "auto", sizeof "auto"); /* at every call: no snprintf */
    if (!alg || !strcmp(alg, "auto"))
        return;
    if (!item_end(alg)) {
        /* one value: another operation's algorithm leaves this one to auto;
         * anything else is this operation's to run or refuse */
        xchg_op_kind k;
        if (check_item(alg, strlen(alg), &k, NULL) != XCHG_OK || k == kind)
            snprintf(out, len, "%s", alg);
        return;
    }
    for (const char *at = alg;;) {
        const char *end = item_end(at);
        size_t n = end ? (size_t)(end - at) : strlen(at);
        xchg_op_kind k;
        if (check_item(at, n, &k, NULL) == XCHG_OK && k == kind && n < len) {
            memcpy(out, at, n);
            out[n] = '\0';
            return;
        }
        if (!end)
            return;
        at = end + 1;
    }
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
    /* checked everywhere, so that a bad value is said the same way; read
     * and used only under SimGrid's SMPI (charge.c) */
    const char *copy_cost = getenv("XCHG_SMPI_COPY_COST");
    double per_copy = 0, per_byte = 0;
    if (copy_cost && *copy_cost &&
        xchg_mpi_copy_cost_parse(copy_cost, &per_copy, &per_byte, err))
        return XCHG_EINVAL;
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
