/*
 * tuning_file.c - which algorithm to run, measured: the tuning file
 * "xchg-tuning/2" (docs/tuning.md) that `xchg tune` writes and the MPI
 * executor's auto reads (XCHG_TUNING_FILE).
 *
 *     xchg-tuning/2
 *     # operation  ranks  topology    from(B)  to(B)    algorithm
 *     alltoall     16     torus:4x4   1        64       shm
 *     alltoall     16     torus:4x4   128      4096     hc-standard
 *     alltoall     16     torus:4x4   8192     1048576  mpi
 *     bcast        16     torus:4x4   1        1048576  bcast-hc
 *
 * One row a line: for the operation on a communicator of `ranks` ranks
 * laid out on `topology`, blocks of `from` to `to` bytes run `algorithm`:
 * a registry spec of that operation, "mpi" (the MPI library's own call) or,
 * for alltoall, "shm". The operation "alltoallv" (MPI_Alltoallv and _w,
 * XCHG_TUNING_ALLTOALLV) is the executor's, not the core's: its sizes are
 * a call's largest block, its algorithms the complete exchange's, "mpi" or
 * "shm". Rows of one (operation, ranks, topology) do not
 * overlap. A file of the first version, "xchg-tuning/1", has no operation
 * column: its rows are the complete exchange's. The parser is strict: a
 * damaged or foreign file is refused with its line, and the caller falls
 * back to the cost model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "xchg_model.h"

#define TUNING_FORMAT "xchg-tuning/2"
#define TUNING_FORMAT_1 "xchg-tuning/1" /* no operation column: alltoall rows */
#define TUNING_LINE_MAX 256
/* Most rows a file may hold: a few hundred (ranks, topology) pairs times a
 * few ranges each; far more than any tuner writes. */
#define TUNING_MAX_ROWS 65536

typedef struct tuning_row {
    xchg_op_kind op;
    uint32_t ranks;
    char topo[64];      /* as xchg_topo_spec writes it */
    uint64_t from, to;  /* block sizes, bytes, from <= to */
    char alg[XCHG_SPEC_MAX];
} tuning_row;

struct xchg_tuning {
    size_t n, cap;
    tuning_row *rows;
};

void xchg_tuning_free(xchg_tuning *t)
{
    if (!t)
        return;
    free(t->rows);
    free(t);
}

const char *xchg_tuning_op_name(xchg_op_kind op)
{
    return op == XCHG_TUNING_ALLTOALLV ? "alltoallv" : xchg_op_name(op);
}

int xchg_tuning_op_parse(const char *name, xchg_op_kind *out, xchg_err *err)
{
    if (name && !strcmp(name, "alltoallv")) {
        *out = XCHG_TUNING_ALLTOALLV;
        return XCHG_OK;
    }
    xchg_err why = {{0}};
    if (xchg_op_parse(name, out, &why) == XCHG_OK)
        return XCHG_OK;
    return xchg_fail(err, XCHG_EINVAL, "%.300s, alltoallv", why.msg);
}

/* The registry's operation whose algorithms a row of op names: the
 * complete exchange's for alltoallv. */
static xchg_op_kind registry_op(xchg_op_kind op)
{
    return op == XCHG_TUNING_ALLTOALLV ? XCHG_OP_ALLTOALL : op;
}

/* A whole decimal number from 1 to max in word; 0 when it is not one. */
static uint64_t whole(const char *w, uint64_t max)
{
    if (!*w || strspn(w, "0123456789") != strlen(w) || strlen(w) > 19)
        return 0;
    uint64_t v = strtoull(w, NULL, 10);
    return v <= max ? v : 0;
}

/* Check a row's algorithm word for operation op: "mpi", "shm" (alltoall
 * and alltoallv only) or a spec the registry parses that performs op (for
 * alltoallv: alltoall). 0, or XCHG_EINVAL with the reason in err. */
static int check_alg(const char *w, xchg_op_kind op, xchg_err *err)
{
    if (!strcmp(w, "mpi"))
        return XCHG_OK;
    if (!strcmp(w, "shm"))
        return registry_op(op) == XCHG_OP_ALLTOALL
                   ? XCHG_OK
                   : xchg_fail(err, XCHG_EINVAL,
                               "shm runs the complete exchange only, not %s", xchg_op_name(op));
    const xchg_alg *a;
    xchg_opts o;
    if (strlen(w) >= XCHG_SPEC_MAX)
        return xchg_fail(err, XCHG_EINVAL, "algorithm '%.40s...' is too long", w);
    int rc = xchg_alg_parse(w, &a, &o, err);
    if (rc == XCHG_OK && a->op != registry_op(op))
        return xchg_fail(err, XCHG_EINVAL, "%s performs %s, not %s", a->name,
                         xchg_op_name(a->op), xchg_op_name(registry_op(op)));
    return rc;
}

/* Parse one row (the line's words: ranks topology from to algorithm, of
 * operation op) into r; 0 or EINVAL naming the field. */
static int parse_row(char **w, xchg_op_kind op, size_t lineno, tuning_row *r, xchg_err *err)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->ranks = (uint32_t)whole(w[0], XCHG_MAX_NODES);
    if (!r->ranks)
        return xchg_fail(err, XCHG_EINVAL,
                         "line %zu: ranks '%.20s' is not a process count; accepted: a whole "
                         "number from 1",
                         lineno, w[0]);
    xchg_topo t;
    xchg_err why = {{0}};
    if (xchg_topo_parse(w[1], &t, &why))
        return xchg_fail(err, XCHG_EINVAL, "line %zu: topology '%.40s': %s", lineno, w[1],
                         why.msg);
    if (t.nodes != r->ranks)
        return xchg_fail(err, XCHG_EINVAL,
                         "line %zu: topology %.40s has %u nodes, not the row's %u ranks",
                         lineno, w[1], t.nodes, r->ranks);
    xchg_topo_spec(&t, r->topo, sizeof r->topo);
    r->from = whole(w[2], UINT64_MAX / 2);
    r->to = whole(w[3], UINT64_MAX / 2);
    if (!r->from || !r->to || r->from > r->to)
        return xchg_fail(err, XCHG_EINVAL,
                         "line %zu: block sizes '%.20s' to '%.20s'; accepted: whole numbers of "
                         "bytes from 1, the first not above the second",
                         lineno, w[2], w[3]);
    if (check_alg(w[4], op, &why))
        return xchg_fail(err, XCHG_EINVAL,
                         "line %zu: algorithm '%.40s': %.300s; accepted: a registry spec of "
                         "%s, mpi%s",
                         lineno, w[4], why.msg, xchg_op_name(registry_op(op)),
                         registry_op(op) == XCHG_OP_ALLTOALL ? " or shm" : "");
    snprintf(r->alg, sizeof r->alg, "%s", w[4]);
    return XCHG_OK;
}

/* Rows of the same (operation, ranks, topology) must not overlap: EINVAL
 * naming the later line when row i overlaps an earlier one. */
static int check_overlap(const xchg_tuning *t, size_t i, size_t lineno, xchg_err *err)
{
    const tuning_row *r = &t->rows[i];
    for (size_t j = 0; j < i; j++) {
        const tuning_row *q = &t->rows[j];
        if (q->op == r->op && q->ranks == r->ranks && !strcmp(q->topo, r->topo) &&
            r->from <= q->to && q->from <= r->to)
            return xchg_fail(err, XCHG_EINVAL,
                             "line %zu: %s, %llu..%llu bytes on %u ranks (%s) overlaps an "
                             "earlier row's %llu..%llu",
                             lineno, xchg_tuning_op_name(r->op), (unsigned long long)r->from,
                             (unsigned long long)r->to, r->ranks, r->topo,
                             (unsigned long long)q->from, (unsigned long long)q->to);
    }
    return XCHG_OK;
}

int xchg_tuning_parse(const char *text, size_t len, xchg_tuning **out, xchg_err *err)
{
    if (!text || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_tuning_parse: NULL argument");
    xchg_tuning *t = calloc(1, sizeof *t);
    if (!t)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory reading a tuning file");
    int rc = XCHG_OK, header = 0, version = 0;
    size_t pos = 0, lineno = 0;
    while (pos < len && rc == XCHG_OK) {
        size_t start = pos;
        while (pos < len && text[pos] != '\n' && text[pos] != '\0')
            pos++;
        if (pos < len && text[pos] == '\0') {
            rc = xchg_fail(err, XCHG_EINVAL,
                           "line %zu: a NUL byte: this is not a tuning file (text, first line "
                           "'" TUNING_FORMAT "')",
                           lineno + 1);
            break;
        }
        size_t n = pos - start;
        pos++;
        lineno++;
        if (n > 0 && text[start + n - 1] == '\r')
            n--;
        if (n >= TUNING_LINE_MAX) {
            rc = xchg_fail(err, XCHG_EINVAL, "line %zu: longer than %d characters", lineno,
                           TUNING_LINE_MAX - 1);
            break;
        }
        char line[TUNING_LINE_MAX];
        memcpy(line, text + start, n);
        line[n] = '\0';
        if (!header) {
            header = 1;
            version = !strcmp(line, TUNING_FORMAT) ? 2 : !strcmp(line, TUNING_FORMAT_1) ? 1 : 0;
            if (!version)
                rc = xchg_fail(err, XCHG_EINVAL,
                               "line 1: '%.40s' is not the header of a tuning file; accepted: "
                               "a first line '" TUNING_FORMAT "' (as xchg tune writes) or "
                               "'" TUNING_FORMAT_1 "'",
                               line);
            continue;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *w[7];
        int nw = 0, want = version == 1 ? 5 : 6;
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
            if (nw < want + 1)
                w[nw++] = tok;
        if (nw == 0)
            continue;
        if (nw != want) {
            rc = xchg_fail(err, XCHG_EINVAL,
                           version == 1 ? "line %zu: %d%s fields; accepted in " TUNING_FORMAT_1
                                          ": 5, ranks topology from to algorithm (such as 16 "
                                          "torus:4x4 1 64 shm)"
                                        : "line %zu: %d%s fields; accepted: 6, operation ranks "
                                          "topology from to algorithm (such as alltoall 16 "
                                          "torus:4x4 1 64 shm)",
                           lineno, nw, nw > want ? " or more" : "");
            break;
        }
        xchg_op_kind op = XCHG_OP_ALLTOALL;
        if (version == 2) {
            xchg_err why = {{0}};
            if (xchg_tuning_op_parse(w[0], &op, &why)) {
                rc = xchg_fail(err, XCHG_EINVAL, "line %zu: operation '%.40s': %.300s", lineno,
                               w[0], why.msg);
                break;
            }
        }
        if (t->n == TUNING_MAX_ROWS) {
            rc = xchg_fail(err, XCHG_EINVAL, "line %zu: more than %d rows", lineno,
                           TUNING_MAX_ROWS);
            break;
        }
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            tuning_row *r = realloc(t->rows, cap * sizeof *r);
            if (!r) {
                rc = xchg_fail(err, XCHG_ENOMEM, "out of memory reading a tuning file");
                break;
            }
            t->rows = r;
            t->cap = cap;
        }
        if ((rc = parse_row(w + (want - 5), op, lineno, &t->rows[t->n], err)) == XCHG_OK &&
            (rc = check_overlap(t, t->n, lineno, err)) == XCHG_OK)
            t->n++;
    }
    if (rc == XCHG_OK && !header)
        rc = xchg_fail(err, XCHG_EINVAL,
                       "the file is empty; a tuning file starts with '" TUNING_FORMAT "'");
    if (rc) {
        xchg_tuning_free(t);
        return rc;
    }
    *out = t;
    return XCHG_OK;
}

/* How far block size m is from row r's range, as a ratio (1 inside). */
static double distance(const tuning_row *r, uint64_t m)
{
    if (m < r->from)
        return (double)r->from / (double)(m ? m : 1);
    if (m > r->to)
        return (double)m / (double)r->to;
    return 1;
}

const char *xchg_tuning_lookup(const xchg_tuning *t, xchg_op_kind op, const xchg_topo *topo,
                               uint64_t m)
{
    if (!t || !topo)
        return NULL;
    char spec[64];
    xchg_topo_spec(topo, spec, sizeof spec);
    const tuning_row *best = NULL;
    double best_d = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tuning_row *r = &t->rows[i];
        if (r->op != op || r->ranks != topo->nodes || strcmp(r->topo, spec) != 0)
            continue;
        double d = distance(r, m);
        if (!best || d < best_d) {
            best = r;
            best_d = d;
        }
    }
    return best ? best->alg : NULL;
}

size_t xchg_tuning_rows(const xchg_tuning *t)
{
    return t ? t->n : 0;
}

int xchg_tuning_row(const xchg_tuning *t, size_t i, xchg_tuning_entry *out)
{
    if (!t || !out || i >= t->n)
        return XCHG_EINVAL;
    const tuning_row *r = &t->rows[i];
    out->op = r->op;
    out->ranks = r->ranks;
    snprintf(out->topology, sizeof out->topology, "%s", r->topo);
    out->from = r->from;
    out->to = r->to;
    snprintf(out->alg, sizeof out->alg, "%s", r->alg);
    return XCHG_OK;
}

