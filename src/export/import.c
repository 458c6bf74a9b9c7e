/*
 * import.c - read a schedule written in the export format, xchg-schedule/1
 * JSON or text (docs/export-format.md, "Import"), by xchg export or by hand
 * or another tool, back into a schedule every consumer can run
 * (xchg_import).
 *
 * The file lists every block of every message; a schedule stores rules. So
 * each step becomes a partner table (who sends to whom), the declared size
 * of each message (the blocks listed), and a callback rule that selects
 * exactly the listed blocks: per step, the senders in id order, each with
 * its sorted list of (origin, destination) keys, found by binary search.
 * The step's route policy is the one (shortest, +1 or -1 way round) under
 * which xchg_topo_route gives every listed route of the step.
 *
 * Reading checks what the schedule's consumers rely on and says where it
 * fails, by line and column and, in JSON, by field (steps[2][0].blocks[3]):
 * the syntax; the format, topology and node count; each message's nodes,
 * route and blocks; one message per sender a step; every listed block held
 * by its sender at the start of its step (the blocks are replayed, as the
 * exporter follows them, with one holder per block: 4*p*p bytes, refused
 * above opts->max_bytes) and listed once a step. Whether the blocks arrive
 * is the verifier's to say (xchg_verify): a file may hold a wrong schedule,
 * and that is a finding, not a syntax error. Nothing here recurses, so no
 * input can exhaust the stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

#define IMPORT_FORMAT "xchg-schedule/1"
/* Default memory limit when the caller passes 0. */
#define IMPORT_DEFAULT_BYTES ((uint64_t)4 << 30)
/* High bit of a holder: the block moved in the current step. */
#define MOVED 0x80000000u

/* ------------------------------------------------------------------ */
/* What a file holds, while it is read                                 */
/* ------------------------------------------------------------------ */

/* One message as read. */
typedef struct imsg {
    uint32_t from, to;
    size_t b0, nb;             /* its blocks: keys[b0 .. b0+nb) */
    size_t line, col;          /* where it starts, for messages */
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs;
} imsg;

/* Per step, kept in the schedule's context: senders in id order, each
 * with its blocks' keys sorted. */
typedef struct istep {
    uint32_t n;                /* senders */
    uint32_t *sender;          /* n */
    uint64_t *first;           /* n + 1: the keys of sender k are
                                  keys[first[k] .. first[k+1]) */
    uint64_t *keys;            /* origin * p + dest */
} istep;

typedef struct ictx {
    uint32_t p;
    size_t nsteps;
    istep *steps;
} ictx;

/* The reader's state. */
typedef struct reader {
    const char *s;
    size_t len, pos, line, col;
    char path[160];            /* JSON: the field being read */
    xchg_err *err;
    int rc;                    /* first error */
    uint64_t max_bytes;
    /* the document */
    int have_format, have_topo, have_nodes, have_alg;
    xchg_topo topo;
    uint32_t p;
    char alg[96];
    uint64_t *copies;          /* per step, or NULL */
    size_t ncopies, copies_cap;
    /* the current step */
    imsg *msgs;
    size_t nmsgs, msgs_cap;
    uint64_t *keys;            /* blocks listed in the step */
    size_t nkeys, keys_cap;
    /* replay */
    uint32_t *holder;          /* p*p */
    /* what is built */
    xchg_sched *sched;
    ictx *ctx;
    size_t steps_cap;
} reader;

/* Record the first error, with the position and (JSON) field. */
static int fail_at(reader *r, size_t line, size_t col, const char *fmt, const char *a,
                   const char *b)
{
    if (r->rc)
        return r->rc;
    char what[512];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    if (r->path[0])
        r->rc = xchg_fail(r->err, XCHG_EINVAL, "line %zu, column %zu, %s: %s", line, col,
                          r->path, what);
    else
        r->rc = xchg_fail(r->err, XCHG_EINVAL, "line %zu, column %zu: %s", line, col, what);
    return r->rc;
}

static int fail(reader *r, const char *fmt, const char *a, const char *b)
{
    return fail_at(r, r->line, r->col, fmt, a, b);
}

static int oom(reader *r)
{
    if (!r->rc)
        r->rc = xchg_fail(r->err, XCHG_ENOMEM, "out of memory importing a schedule");
    return r->rc;
}

/* Grow *arr (elements of size sz) to hold n+1. */
static int grow(reader *r, void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 64;
    if (nc > SIZE_MAX / sz)
        return oom(r);
    void *a = realloc(*arr, nc * sz);
    if (!a)
        return oom(r);
    *arr = a;
    *cap = nc;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The built schedule: its rule and context                            */
/* ------------------------------------------------------------------ */

static void ctx_free(void *v)
{
    ictx *c = v;
    if (!c)
        return;
    for (size_t i = 0; i < c->nsteps; i++) {
        free(c->steps[i].sender);
        free(c->steps[i].first);
        free(c->steps[i].keys);
    }
    free(c->steps);
    free(c);
}

/* The rule: node sends (origin, dest) at step when the file lists it so. */
static int listed(const void *v, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    const ictx *c = v;
    if (step >= c->nsteps)
        return 0;
    const istep *st = &c->steps[step];
    uint32_t lo = 0, hi = st->n;
    while (lo < hi) { /* the sender */
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->sender[mid] < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == st->n || st->sender[lo] != node)
        return 0;
    uint64_t key = (uint64_t)origin * c->p + dest;
    uint64_t a = st->first[lo], b = st->first[lo + 1];
    while (a < b) { /* its block */
        uint64_t mid = a + (b - a) / 2;
        if (st->keys[mid] < key)
            a = mid + 1;
        else
            b = mid;
    }
    return a < st->first[lo + 1] && st->keys[a] == key;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_msg(const void *a, const void *b)
{
    const imsg *x = a, *y = b;
    return (x->from > y->from) - (x->from < y->from);
}

/* Nonzero when msg's listed route is xchg_topo_route's under policy. */
static int route_is(const reader *r, const imsg *m, int policy)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int n = 0;
    xchg_topo_route(&r->topo, m->from, m->to, policy, segs, &n);
    if (n != m->nsegs)
        return 0;
    for (int k = 0; k < n; k++) {
        int dir = segs[k].dir, want = m->segs[k].dir;
        /* on a hypercube both directions name the one neighbour */
        if (r->topo.kind == XCHG_TOPO_HYPERCUBE)
            dir = want;
        if (segs[k].dim != m->segs[k].dim || dir != want || segs[k].hops != m->segs[k].hops)
            return 0;
    }
    return 1;
}

/*
 * The step just read is complete: check and replay it, and add it to the
 * schedule. Returns 0 or the error.
 */
static int finish_step(reader *r)
{
    uint32_t p = r->p;
    /* one message per sender, in id order */
    if (r->nmsgs > 1)
        qsort(r->msgs, r->nmsgs, sizeof *r->msgs, cmp_msg);
    for (size_t i = 1; i < r->nmsgs; i++)
        if (r->msgs[i].from == r->msgs[i - 1].from) {
            char a[32];
            snprintf(a, sizeof a, "%u", r->msgs[i].from);
            return fail_at(r, r->msgs[i].line, r->msgs[i].col,
                           "node %s sends a second message in this step; accepted: at most "
                           "one message per sender a step%s",
                           a, "");
        }
    /* one route policy for the whole step */
    const int policies[3] = {XCHG_ROUTE_SHORTEST, XCHG_ROUTE_PLUS, XCHG_ROUTE_MINUS};
    int ok[3] = {1, 1, 1};
    for (size_t i = 0; i < r->nmsgs; i++) {
        int any = 0;
        for (int q = 0; q < 3; q++) {
            int fits = route_is(r, &r->msgs[i], policies[q]);
            any |= fits;
            ok[q] &= fits;
        }
        if (!any || !(ok[0] || ok[1] || ok[2]))
            return fail_at(r, r->msgs[i].line, r->msgs[i].col,
                           any ? "this route goes the other way round from the step's other "
                                 "messages; accepted: one route policy a step (shortest, "
                                 "always +1 or always -1 on wrapped dimensions)%s%s"
                               : "the route is not a dimension-ordered route from 'from' to "
                                 "'to' (fastest-varying dimension first, as xchg_topo_route "
                                 "gives it)%s%s",
                           NULL, NULL);
    }
    int policy = ok[0] ? policies[0] : ok[1] ? policies[1] : policies[2];
    /* replay: each block held by its sender, listed once */
    for (size_t i = 0; i < r->nmsgs; i++) {
        const imsg *m = &r->msgs[i];
        for (size_t j = m->b0; j < m->b0 + m->nb; j++) {
            uint64_t key = r->keys[j];
            uint32_t h = r->holder[key];
            char a[64], b[32];
            snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)(key / p),
                     (unsigned long long)(key % p));
            if (h & MOVED)
                return fail_at(r, m->line, m->col, "block %s is listed twice in this step%s",
                               a, "");
            if (h != m->from) {
                snprintf(b, sizeof b, "%u", h);
                return fail_at(r, m->line, m->col,
                               "block %s is sent by a node that does not hold it: it is at "
                               "node %s at the start of this step",
                               a, b);
            }
            r->holder[key] = m->to | MOVED;
        }
    }
    for (size_t j = 0; j < r->nkeys; j++)
        r->holder[r->keys[j]] &= ~MOVED;

    /* the step, as the schedule stores it */
    uint32_t *partner = malloc((size_t)p * sizeof *partner);
    uint32_t *blocks = calloc(p, sizeof *blocks);
    istep is = {0};
    is.n = (uint32_t)r->nmsgs;
    is.sender = malloc((r->nmsgs + 1) * sizeof *is.sender);
    is.first = malloc((r->nmsgs + 1) * sizeof *is.first);
    is.keys = malloc((r->nkeys + 1) * sizeof *is.keys);
    if (!partner || !blocks || !is.sender || !is.first || !is.keys) {
        free(partner);
        free(blocks);
        free(is.sender);
        free(is.first);
        free(is.keys);
        return oom(r);
    }
    for (uint32_t n = 0; n < p; n++)
        partner[n] = XCHG_NONE;
    size_t at = 0;
    for (size_t i = 0; i < r->nmsgs; i++) {
        const imsg *m = &r->msgs[i];
        partner[m->from] = m->to;
        blocks[m->from] = (uint32_t)m->nb;
        is.sender[i] = m->from;
        is.first[i] = at;
        memcpy(is.keys + at, r->keys + m->b0, m->nb * sizeof *is.keys);
        qsort(is.keys + at, m->nb, sizeof *is.keys, cmp_u64);
        at += m->nb;
    }
    is.first[r->nmsgs] = at;
    if (grow(r, (void **)&r->ctx->steps, &r->steps_cap, r->ctx->nsteps, sizeof(istep))) {
        free(partner);
        free(blocks);
        free(is.sender);
        free(is.first);
        free(is.keys);
        return r->rc;
    }
    r->ctx->steps[r->ctx->nsteps++] = is;
    r->sched->ctx_bytes += (uint64_t)(r->nmsgs + 1) * 12 + (uint64_t)r->nkeys * 8;
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = partner;
    st.rule = xchg_rule_fn(listed);
    st.blocks_table = blocks;
    st.route_policy = policy;
    if (xchg_sched_add(r->sched, &st))
        return oom(r);
    r->nmsgs = 0;
    r->nkeys = 0;
    return 0;
}

/* The document's head is known (topology, nodes): check them and set up
 * the replay and the schedule. */
static int begin_steps(reader *r, size_t line, size_t col)
{
    if (!r->have_format)
        return fail_at(r, line, col, "the format is not given before the steps; accepted: "
                                     "\"format\":\"" IMPORT_FORMAT "\" first%s%s",
                       NULL, NULL);
    if (!r->have_topo)
        return fail_at(r, line, col, "the topology is not given before the steps%s%s", NULL,
                       NULL);
    if (r->have_nodes && r->p != r->topo.nodes) {
        char a[32], b[64];
        snprintf(a, sizeof a, "%u", r->p);
        snprintf(b, sizeof b, "%u", r->topo.nodes);
        return fail_at(r, line, col, "nodes is %s but the topology has %s", a, b);
    }
    r->p = r->topo.nodes;
    uint64_t nb = (uint64_t)r->p * r->p;
    if (nb > r->max_bytes / 4) {
        char a[48], b[48];
        return fail_at(r, line, col,
                       "replaying its blocks takes %s (4 bytes for each of p*p blocks), over "
                       "the memory limit of %s",
                       xchg_bytes_text(nb * 4, a, sizeof a),
                       xchg_bytes_text(r->max_bytes, b, sizeof b));
    }
    r->holder = malloc((size_t)nb * sizeof *r->holder);
    r->ctx = calloc(1, sizeof *r->ctx);
    r->sched = xchg_sched_new(&r->topo, r->have_alg ? r->alg : "imported", 0);
    if (!r->holder || !r->ctx || !r->sched)
        return oom(r);
    r->ctx->p = r->p;
    r->sched->ctx = r->ctx;
    r->sched->ctx_free = ctx_free;
    r->sched->ctx_bytes = sizeof *r->ctx;
    /* from here the schedule owns ctx; r->ctx stays as a shortcut */
    for (uint64_t b = 0; b < nb; b++)
        r->holder[b] = (uint32_t)(b / r->p);
    return 0;
}

/* Add a listed block (origin, dest) to the current message. */
static int add_block(reader *r, imsg *m, uint64_t o, uint64_t d, size_t line, size_t col)
{
    if (o >= r->p || d >= r->p) {
        char a[64], b[32];
        snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)o, (unsigned long long)d);
        snprintf(b, sizeof b, "%u", r->p - 1);
        return fail_at(r, line, col, "block %s names a node past the last one; accepted: "
                                     "nodes 0 to %s",
                       a, b);
    }
    if (grow(r, (void **)&r->keys, &r->keys_cap, r->nkeys, sizeof *r->keys))
        return r->rc;
    r->keys[r->nkeys++] = o * r->p + d;
    m->nb++;
    return 0;
}

/* Nonzero when name can name an algorithm in both formats: printable
 * ASCII, no spaces (the text header is split at them). */
static int good_name(const char *name)
{
    if (!*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (*c < 33 || *c > 126)
            return 0;
    return 1;
}

/* Check a message's two nodes. */
static int check_nodes(reader *r, const imsg *m)
{
    char a[32], b[32];
    snprintf(b, sizeof b, "%u", r->p - 1);
    if (m->from >= r->p || m->to >= r->p) {
        snprintf(a, sizeof a, "%u", m->from >= r->p ? m->from : m->to);
        return fail_at(r, m->line, m->col, "node %s is not in the topology; accepted: 0 to %s",
                       a, b);
    }
    if (m->from == m->to) {
        snprintf(a, sizeof a, "%u", m->from);
        return fail_at(r, m->line, m->col, "node %s sends to itself; accepted: a message to "
                                           "another node%s",
                       a, "");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static int peek(reader *r)
{
    return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static void advance(reader *r)
{
    if (r->pos < r->len) {
        if (r->s[r->pos] == '\n') {
            r->line++;
            r->col = 1;
        } else {
            r->col++;
        }
        r->pos++;
    }
}

static void skip_ws(reader *r)
{
    int c;
    while ((c = peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        advance(r);
}

/* What is at the position, for messages. */
static const char *seen_at(reader *r, char *buf, size_t len)
{
    int c = peek(r);
    if (c < 0)
        return "the end of the file";
    if (c >= 32 && c < 127)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

/* Expect character ch (after white space). */
static int expect(reader *r, int ch, const char *what)
{
    skip_ws(r);
    if (peek(r) == ch) {
        advance(r);
        return 0;
    }
    char buf[32];
    return fail(r, "expected %s, found %s", what, seen_at(r, buf, sizeof buf));
}

/* A whole number in JSON (no sign, fraction or exponent), at most max. */
static int json_uint(reader *r, uint64_t max, uint64_t *out, const char *what)
{
    skip_ws(r);
    int c = peek(r);
    if (c < '0' || c > '9') {
        char buf[32];
        return fail(r, "expected %s (a whole number), found %s", what,
                    seen_at(r, buf, sizeof buf));
    }
    uint64_t v = 0;
    size_t line = r->line, col = r->col;
    while ((c = peek(r)) >= '0' && c <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            return fail_at(r, line, col, "%s is too large%s", what, "");
        v = v * 10 + (uint64_t)(c - '0');
        advance(r);
    }
    if (c == '.' || c == 'e' || c == 'E')
        return fail_at(r, line, col, "%s must be a whole number%s", what, "");
    if (v > max) {
        char a[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)max);
        return fail_at(r, line, col, "%s is above %s", what, a);
    }
    *out = v;
    return 0;
}

/* A signed direction: 1 or -1. */
static int json_dir(reader *r, int *out)
{
    skip_ws(r);
    int neg = 0;
    if (peek(r) == '-') {
        neg = 1;
        advance(r);
    }
    uint64_t v;
    size_t line = r->line, col = r->col;
    if (json_uint(r, UINT32_MAX, &v, "a direction"))
        return r->rc;
    if (v != 1)
        return fail_at(r, line, col, "a direction is +1 or -1%s%s", NULL, NULL);
    *out = neg ? -1 : 1;
    return 0;
}

/* A JSON string into buf (len bytes); only printable ASCII without
 * escapes other than \" and \\ is accepted (names and kinds are such). */
static int json_string(reader *r, char *buf, size_t len, const char *what)
{
    if (expect(r, '"', what))
        return r->rc;
    size_t n = 0;
    for (;;) {
        int c = peek(r);
        if (c < 0)
            return fail(r, "the file ends inside a string%s%s", NULL, NULL);
        advance(r);
        if (c == '"')
            break;
        if (c == '\\') {
            c = peek(r);
            if (c != '"' && c != '\\')
                return fail(r, "unsupported escape in %s; accepted: \\\" and \\\\%s", what, "");
            advance(r);
        } else if (c < 32 || c >= 127) {
            return fail(r, "%s has a character outside printable ASCII%s", what, "");
        }
        if (n + 1 >= len)
            return fail(r, "%s is too long%s", what, "");
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return 0;
}

/* Set the field path, for messages. */
static void set_path(reader *r, const char *fmt, size_t a, size_t b, size_t c)
{
    snprintf(r->path, sizeof r->path, fmt, a, b, c);
}

/* "topology": {"kind": K, "dims": [..]} or {"kind": "hypercube", "dim": D}. */
static int json_topology(reader *r)
{
    snprintf(r->path, sizeof r->path, "topology");
    size_t line = r->line, col = r->col;
    if (expect(r, '{', "'{' (the topology object)"))
        return r->rc;
    char kind[32] = "";
    uint64_t dims[XCHG_MAX_DIMS + 1];
    size_t ndims = 0;
    int have_dims = 0, have_dim = 0;
    uint64_t dim = 0;
    for (int first = 1;; first = 0) {
        skip_ws(r);
        if (peek(r) == '}') {
            advance(r);
            break;
        }
        if (!first && expect(r, ',', "',' or '}'"))
            return r->rc;
        char key[32];
        if (json_string(r, key, sizeof key, "a key") || expect(r, ':', "':'"))
            return r->rc;
        if (!strcmp(key, "kind")) {
            if (json_string(r, kind, sizeof kind, "the kind"))
                return r->rc;
        } else if (!strcmp(key, "dims")) {
            have_dims = 1;
            if (expect(r, '[', "'[' (the sizes)"))
                return r->rc;
            for (;;) {
                skip_ws(r);
                if (peek(r) == ']') {
                    advance(r);
                    break;
                }
                if (ndims && expect(r, ',', "',' or ']'"))
                    return r->rc;
                if (ndims == XCHG_MAX_DIMS)
                    return fail(r, "more sizes than the %s dimensions xchg accepts%s", "8",
                                "");
                if (json_uint(r, XCHG_MAX_NODES, &dims[ndims++], "a size"))
                    return r->rc;
            }
        } else if (!strcmp(key, "dim")) {
            have_dim = 1;
            if (json_uint(r, 24, &dim, "the hypercube's dimension"))
                return r->rc;
        } else {
            return fail(r, "unknown key '%s'; accepted: kind, dims (dim for a hypercube)", key,
                        NULL);
        }
    }
    char spec[160];
    if (!strcmp(kind, "hypercube") && have_dim && !have_dims) {
        snprintf(spec, sizeof spec, "hypercube:%llu", (unsigned long long)dim);
    } else if (kind[0] && strcmp(kind, "hypercube") && have_dims && !have_dim && ndims) {
        size_t at = (size_t)snprintf(spec, sizeof spec, "%s:", kind);
        for (size_t i = 0; i < ndims; i++)
            at += (size_t)snprintf(spec + at, sizeof spec - at, "%s%llu", i ? "x" : "",
                                   (unsigned long long)dims[i]);
    } else {
        return fail_at(r, line, col,
                       "a topology is {\"kind\":K,\"dims\":[N,...]} or "
                       "{\"kind\":\"hypercube\",\"dim\":D}%s%s",
                       NULL, NULL);
    }
    xchg_err why = {{0}};
    if (xchg_topo_parse(spec, &r->topo, &why))
        return fail_at(r, line, col, "%s: %.200s", spec, why.msg);
    r->have_topo = 1;
    r->path[0] = '\0';
    return 0;
}

/* A route: [[dim,dir,hops],...] into m. */
static int json_route(reader *r, imsg *m)
{
    if (expect(r, '[', "'[' (the route)"))
        return r->rc;
    for (m->nsegs = 0;;) {
        skip_ws(r);
        if (peek(r) == ']') {
            advance(r);
            return 0;
        }
        if (m->nsegs && expect(r, ',', "',' or ']'"))
            return r->rc;
        if (m->nsegs == XCHG_MAX_DIMS)
            return fail(r, "a route has at most one segment per dimension%s%s", NULL, NULL);
        uint64_t dim, hops;
        int dir = 0;
        xchg_seg *sg = &m->segs[m->nsegs++];
        if (expect(r, '[', "'[' (a segment [dim,dir,hops])") ||
            json_uint(r, XCHG_MAX_DIMS - 1, &dim, "a dimension") || expect(r, ',', "','") ||
            json_dir(r, &dir) || expect(r, ',', "','") ||
            json_uint(r, XCHG_MAX_NODES, &hops, "a hop count") || expect(r, ']', "']'"))
            return r->rc;
        sg->dim = (int)dim;
        sg->dir = dir;
        sg->hops = (uint32_t)hops;
    }
}

/* One message object of step k (index i in it). */
static int json_message(reader *r, size_t k, size_t i)
{
    if (grow(r, (void **)&r->msgs, &r->msgs_cap, r->nmsgs, sizeof *r->msgs))
        return r->rc;
    imsg *m = &r->msgs[r->nmsgs];
    memset(m, 0, sizeof *m);
    m->b0 = r->nkeys;
    set_path(r, "steps[%zu][%zu]", k, i, 0);
    skip_ws(r);
    m->line = r->line;
    m->col = r->col;
    if (expect(r, '{', "'{' (a message)"))
        return r->rc;
    int have[4] = {0, 0, 0, 0}; /* from, to, route, blocks */
    for (int first = 1;; first = 0) {
        skip_ws(r);
        if (peek(r) == '}') {
            advance(r);
            break;
        }
        if (!first && expect(r, ',', "',' or '}'"))
            return r->rc;
        char key[16];
        if (json_string(r, key, sizeof key, "a key") || expect(r, ':', "':'"))
            return r->rc;
        uint64_t v;
        if (!strcmp(key, "from") || !strcmp(key, "to")) {
            int is_from = key[0] == 'f';
            set_path(r, is_from ? "steps[%zu][%zu].from" : "steps[%zu][%zu].to", k, i, 0);
            if (have[!is_from]++)
                return fail(r, "'%s' is given twice%s", key, "");
            if (json_uint(r, UINT32_MAX, &v, "a node"))
                return r->rc;
            if (is_from)
                m->from = (uint32_t)v;
            else
                m->to = (uint32_t)v;
        } else if (!strcmp(key, "route")) {
            set_path(r, "steps[%zu][%zu].route", k, i, 0);
            if (have[2]++)
                return fail(r, "'route' is given twice%s%s", NULL, NULL);
            if (json_route(r, m))
                return r->rc;
        } else if (!strcmp(key, "blocks")) {
            if (have[3]++)
                return fail(r, "'blocks' is given twice%s%s", NULL, NULL);
            set_path(r, "steps[%zu][%zu].blocks", k, i, 0);
            if (expect(r, '[', "'[' (the blocks)"))
                return r->rc;
            for (size_t j = 0;; j++) {
                skip_ws(r);
                if (peek(r) == ']') {
                    advance(r);
                    break;
                }
                set_path(r, "steps[%zu][%zu].blocks[%zu]", k, i, j);
                if (j && expect(r, ',', "',' or ']'"))
                    return r->rc;
                uint64_t o, d;
                skip_ws(r);
                size_t line = r->line, col = r->col;
                if (expect(r, '[', "'[' (a block [origin,destination])") ||
                    json_uint(r, UINT32_MAX, &o, "an origin") || expect(r, ',', "','") ||
                    json_uint(r, UINT32_MAX, &d, "a destination") || expect(r, ']', "']'"))
                    return r->rc;
                if (add_block(r, m, o, d, line, col))
                    return r->rc;
            }
        } else {
            set_path(r, "steps[%zu][%zu]", k, i, 0);
            return fail(r, "unknown key '%s'; accepted: from, to, route, blocks", key, NULL);
        }
    }
    set_path(r, "steps[%zu][%zu]", k, i, 0);
    if (!have[0] || !have[1] || !have[2] || !have[3])
        return fail_at(r, m->line, m->col, "a message needs from, to, route and blocks; '%s' "
                                           "is missing%s",
                       !have[0] ? "from" : !have[1] ? "to" : !have[2] ? "route" : "blocks",
                       "");
    if (m->nb == 0)
        return fail_at(r, m->line, m->col, "a message with no blocks; accepted: one or more "
                                           "(a node that sends nothing is left out)%s%s",
                       NULL, NULL);
    if (check_nodes(r, m))
        return r->rc;
    r->nmsgs++;
    return 0;
}

/* "steps": [[msg,...],...] */
static int json_steps(reader *r)
{
    size_t line = r->line, col = r->col;
    if (begin_steps(r, line, col))
        return r->rc;
    snprintf(r->path, sizeof r->path, "steps");
    if (expect(r, '[', "'[' (the steps)"))
        return r->rc;
    for (size_t k = 0;; k++) {
        skip_ws(r);
        if (peek(r) == ']') {
            advance(r);
            break;
        }
        set_path(r, "steps[%zu]", k, 0, 0);
        if (k && expect(r, ',', "',' or ']'"))
            return r->rc;
        if (expect(r, '[', "'[' (a step: a list of messages)"))
            return r->rc;
        for (size_t i = 0;; i++) {
            skip_ws(r);
            if (peek(r) == ']') {
                advance(r);
                break;
            }
            if (i && expect(r, ',', "',' or ']'"))
                return r->rc;
            if (json_message(r, k, i))
                return r->rc;
        }
        set_path(r, "steps[%zu]", k, 0, 0);
        if (finish_step(r))
            return r->rc;
    }
    r->path[0] = '\0';
    return 0;
}

/* "copies": [c0, c1, ...] */
static int json_copies(reader *r)
{
    snprintf(r->path, sizeof r->path, "copies");
    if (expect(r, '[', "'[' (the copies per step)"))
        return r->rc;
    for (size_t k = 0;; k++) {
        skip_ws(r);
        if (peek(r) == ']') {
            advance(r);
            break;
        }
        if (k && expect(r, ',', "',' or ']'"))
            return r->rc;
        set_path(r, "copies[%zu]", k, 0, 0);
        if (grow(r, (void **)&r->copies, &r->copies_cap, r->ncopies, sizeof *r->copies) ||
            json_uint(r, UINT64_MAX / 2, &r->copies[r->ncopies++], "a block count"))
            return r->rc;
    }
    r->path[0] = '\0';
    return 0;
}

static int read_json(reader *r)
{
    if (expect(r, '{', "'{'"))
        return r->rc;
    int have_steps = 0, have_copies = 0;
    for (int first = 1;; first = 0) {
        skip_ws(r);
        if (peek(r) == '}') {
            advance(r);
            break;
        }
        if (!first && expect(r, ',', "',' or '}'"))
            return r->rc;
        char key[32];
        size_t line = r->line, col = r->col;
        if (json_string(r, key, sizeof key, "a key") || expect(r, ':', "':'"))
            return r->rc;
        int dup = 0;
        if (!strcmp(key, "format")) {
            char f[32];
            dup = r->have_format++;
            snprintf(r->path, sizeof r->path, "format");
            if (!dup && json_string(r, f, sizeof f, "the format"))
                return r->rc;
            if (!dup && strcmp(f, IMPORT_FORMAT))
                return fail_at(r, line, col, "the format is '%s'; accepted: '" IMPORT_FORMAT
                                             "'%s",
                               f, "");
            r->path[0] = '\0';
        } else if (!strcmp(key, "topology")) {
            dup = r->have_topo;
            if (!dup && json_topology(r))
                return r->rc;
        } else if (!strcmp(key, "algorithm")) {
            dup = r->have_alg++;
            snprintf(r->path, sizeof r->path, "algorithm");
            if (!dup && json_string(r, r->alg, sizeof r->alg, "the algorithm"))
                return r->rc;
            if (!dup && !good_name(r->alg))
                return fail_at(r, line, col, "the algorithm name is empty or has a space%s%s",
                               NULL, NULL);
            r->path[0] = '\0';
        } else if (!strcmp(key, "nodes")) {
            uint64_t v = 0;
            dup = r->have_nodes++;
            snprintf(r->path, sizeof r->path, "nodes");
            if (!dup && json_uint(r, XCHG_MAX_NODES, &v, "the node count"))
                return r->rc;
            if (!dup && r->sched && v != r->topo.nodes)
                return fail_at(r, line, col, "nodes is %s but the topology has %s nodes",
                               "not the topology's count", "another");
            if (!dup && !r->sched)
                r->p = (uint32_t)v;
            r->path[0] = '\0';
        } else if (!strcmp(key, "steps")) {
            dup = have_steps++;
            if (!dup && json_steps(r))
                return r->rc;
        } else if (!strcmp(key, "copies")) {
            dup = have_copies++;
            if (!dup && json_copies(r))
                return r->rc;
        } else {
            return fail_at(r, line, col, "unknown key '%s'; accepted: format, topology, "
                                         "algorithm, nodes, steps, copies",
                           key, NULL);
        }
        if (dup)
            return fail_at(r, line, col, "'%s' is given twice%s", key, "");
    }
    skip_ws(r);
    if (r->pos < r->len) {
        char buf[32];
        return fail(r, "unexpected %s after the schedule's closing '}'%s",
                    seen_at(r, buf, sizeof buf), "");
    }
    if (!have_steps)
        return fail(r, "the file has no steps; accepted: a \"steps\" list (empty for a "
                       "schedule of no steps)%s%s",
                    NULL, NULL);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

/* The next line into r->lbuf-less view: [*b, *e) without the newline;
 * 0 at the end of the text. */
static int next_line(reader *r, const char **b, const char **e)
{
    if (r->pos >= r->len)
        return 0;
    if (r->line == 0)
        r->line = 1;
    else
        r->line++;
    *b = r->s + r->pos;
    const char *nl = memchr(*b, '\n', r->len - r->pos);
    *e = nl ? nl : r->s + r->len;
    r->pos = (size_t)(*e - r->s) + (nl ? 1 : 0);
    if (*e > *b && (*e)[-1] == '\r')
        (*e)--;
    return 1;
}

/* Words of a line: a tiny cursor. */
typedef struct cursor {
    const char *b, *p, *e;
} cursor;

/* The next word (up to white space) into w (len bytes); 0 when none. */
static int word(cursor *c, char *w, size_t len)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
    if (c->p >= c->e)
        return 0;
    size_t n = 0;
    while (c->p < c->e && *c->p != ' ' && *c->p != '\t') {
        if (n + 1 < len)
            w[n] = *c->p;
        n++;
        c->p++;
    }
    w[n < len ? n : len - 1] = '\0';
    return n < len ? 1 : -1; /* -1: longer than len */
}

static size_t col_of(const cursor *c)
{
    return (size_t)(c->p - c->b) + 1;
}

/* A whole number word, at most max. */
static int text_uint(const char *w, uint64_t max, uint64_t *out)
{
    if (!*w || strspn(w, "0123456789") != strlen(w) || strlen(w) > 19)
        return 0;
    uint64_t v = strtoull(w, NULL, 10);
    if (v > max)
        return 0;
    *out = v;
    return 1;
}

static int text_fail(reader *r, const cursor *c, const char *fmt, const char *a,
                     const char *b)
{
    return fail_at(r, r->line, col_of(c), fmt, a, b);
}

/* "# xchg-schedule/1 topology T algorithm A nodes P steps S" */
static int text_header(reader *r, cursor *c, uint64_t *nsteps)
{
    char w[128];
    if (word(c, w, sizeof w) != 1 || strcmp(w, "#") || word(c, w, sizeof w) != 1 ||
        strcmp(w, IMPORT_FORMAT))
        return fail_at(r, 1, 1, "the first line is not '# " IMPORT_FORMAT " topology T "
                                "algorithm A nodes P steps S'%s%s",
                       NULL, NULL);
    int have = 0;
    for (;;) {
        char key[32];
        int k = word(c, key, sizeof key);
        if (k == 0)
            break;
        if (k < 0 || word(c, w, sizeof w) != 1)
            return text_fail(r, c, "the header's '%s' has no value (or a long one)%s", key,
                             "");
        uint64_t v;
        if (!strcmp(key, "topology")) {
            xchg_err why = {{0}};
            if (xchg_topo_parse(w, &r->topo, &why))
                return text_fail(r, c, "topology '%s': %.200s", w, why.msg);
            r->have_topo = 1;
            have |= 1;
        } else if (!strcmp(key, "algorithm")) {
            if (!good_name(w) || strlen(w) >= sizeof r->alg)
                return text_fail(r, c, "the algorithm name is longer than 95 characters or "
                                       "has one that is not printable ASCII%s%s",
                                 NULL, NULL);
            snprintf(r->alg, sizeof r->alg, "%s", w);
            r->have_alg = 1;
            have |= 2;
        } else if (!strcmp(key, "nodes") && text_uint(w, XCHG_MAX_NODES, &v)) {
            r->p = (uint32_t)v;
            r->have_nodes = 1;
            have |= 4;
        } else if (!strcmp(key, "steps") && text_uint(w, UINT32_MAX, &v)) {
            *nsteps = v;
            have |= 8;
        } else {
            return text_fail(r, c, "the header's '%s %s' is not understood; accepted: "
                                   "topology, algorithm, nodes and steps with their values",
                             key, w);
        }
    }
    if (have != 15)
        return fail_at(r, 1, 1, "the header needs topology, algorithm, nodes and steps%s%s",
                       NULL, NULL);
    r->have_format = 1;
    return 0;
}

/* A message line "F -> T  route SEGS  blocks (o,d) ...". */
static int text_message(reader *r, cursor *c)
{
    if (grow(r, (void **)&r->msgs, &r->msgs_cap, r->nmsgs, sizeof *r->msgs))
        return r->rc;
    imsg *m = &r->msgs[r->nmsgs];
    memset(m, 0, sizeof *m);
    m->b0 = r->nkeys;
    m->line = r->line;
    m->col = col_of(c);
    char w[64];
    uint64_t v;
    if (word(c, w, sizeof w) != 1 || !text_uint(w, UINT32_MAX, &v))
        return text_fail(r, c, "expected the sender, a node number, found '%s'%s", w, "");
    m->from = (uint32_t)v;
    if (word(c, w, sizeof w) != 1 || strcmp(w, "->"))
        return text_fail(r, c, "expected '->' after the sender%s%s", NULL, NULL);
    if (word(c, w, sizeof w) != 1 || !text_uint(w, UINT32_MAX, &v))
        return text_fail(r, c, "expected the receiver, a node number, found '%s'%s", w, "");
    m->to = (uint32_t)v;
    if (word(c, w, sizeof w) != 1 || strcmp(w, "route"))
        return text_fail(r, c, "expected 'route' after the receiver%s%s", NULL, NULL);
    int k;
    while ((k = word(c, w, sizeof w)) == 1 && strcmp(w, "blocks")) {
        if (!strcmp(w, "-") && m->nsegs == 0)
            continue;
        unsigned dim, hops;
        char sign;
        int used = 0;
        if (m->nsegs == XCHG_MAX_DIMS ||
            sscanf(w, "d%u%c1x%u%n", &dim, &sign, &hops, &used) != 3 ||
            (size_t)used != strlen(w) || (sign != '+' && sign != '-') ||
            dim >= XCHG_MAX_DIMS || hops > XCHG_MAX_NODES)
            return text_fail(r, c, "route segment '%s'; accepted: d<dim>+1x<hops> or "
                                   "d<dim>-1x<hops>, or '-' for none%s",
                             w, "");
        m->segs[m->nsegs].dim = (int)dim;
        m->segs[m->nsegs].dir = sign == '+' ? 1 : -1;
        m->segs[m->nsegs].hops = hops;
        m->nsegs++;
    }
    if (k != 1)
        return text_fail(r, c, "expected 'blocks' after the route%s%s", NULL, NULL);
    if (check_nodes(r, m))
        return r->rc;
    while ((k = word(c, w, sizeof w)) == 1) {
        unsigned long long o, d;
        int used = 0;
        if (sscanf(w, "(%llu,%llu)%n", &o, &d, &used) != 2 || (size_t)used != strlen(w) ||
            w[1] < '0' || w[1] > '9')
            return text_fail(r, c, "block '%s'; accepted: (origin,destination)%s", w, "");
        if (add_block(r, m, o, d, r->line, col_of(c)))
            return r->rc;
    }
    if (k < 0)
        return text_fail(r, c, "a word longer than 63 characters%s%s", NULL, NULL);
    if (m->nb == 0)
        return fail_at(r, m->line, m->col, "a message with no blocks; accepted: one or more "
                                           "(a node that sends nothing is left out)%s%s",
                       NULL, NULL);
    r->nmsgs++;
    return 0;
}

static int read_text(reader *r)
{
    const char *b, *e;
    uint64_t nsteps = 0, step = 0;
    if (!next_line(r, &b, &e))
        return fail_at(r, 1, 1, "the file is empty%s%s", NULL, NULL);
    cursor c = {b, b, e};
    if (text_header(r, &c, &nsteps) || begin_steps(r, 1, 1))
        return r->rc;
    int in_step = 0, empty = 0; /* empty: the step said "(no messages)" */
    while (next_line(r, &b, &e)) {
        if (e > b && memchr(b, '\0', (size_t)(e - b)))
            return fail_at(r, r->line, 1, "a NUL byte; this is not a text schedule%s%s", NULL,
                           NULL);
        c = (cursor){b, b, e};
        char w[64];
        int k = word(&c, w, sizeof w);
        if (k == 0)
            continue; /* a blank line */
        if (!strcmp(w, "step")) {
            if (in_step && finish_step(r))
                return r->rc;
            uint64_t v, copies = 0;
            char num[32];
            if (word(&c, num, sizeof num) != 1 || !text_uint(num, UINT32_MAX, &v) ||
                v != step + 1) {
                char want[32];
                snprintf(want, sizeof want, "%llu", (unsigned long long)step + 1);
                return text_fail(r, &c, "expected 'step %s' (steps are numbered from 1, in "
                                        "order)%s",
                                 want, "");
            }
            int kc = word(&c, w, sizeof w);
            if (kc == 1 && !strcmp(w, "copies") && word(&c, num, sizeof num) == 1 &&
                text_uint(num, UINT64_MAX / 2, &copies) && word(&c, w, sizeof w) == 0) {
                /* step N  copies C */
            } else if (kc != 0) {
                return text_fail(r, &c, "after 'step N' only 'copies C' is accepted%s%s",
                                 NULL, NULL);
            }
            if (grow(r, (void **)&r->copies, &r->copies_cap, r->ncopies, sizeof *r->copies))
                return r->rc;
            r->copies[r->ncopies++] = copies;
            step++;
            in_step = 1;
            empty = 0;
            continue;
        }
        if (!in_step)
            return text_fail(r, &c, "a message before the first 'step' line%s%s", NULL, NULL);
        if (!strcmp(w, "(no") && word(&c, w, sizeof w) == 1 && !strcmp(w, "messages)") &&
            word(&c, w, sizeof w) == 0) {
            if (r->nmsgs)
                return fail_at(r, r->line, 1, "'(no messages)' in a step with messages%s%s",
                               NULL, NULL);
            empty = 1;
            continue;
        }
        if (empty)
            return fail_at(r, r->line, 1, "a message after '(no messages)'%s%s", NULL, NULL);
        c.p = c.b; /* read the message from its start */
        if (text_message(r, &c))
            return r->rc;
    }
    if (in_step && finish_step(r))
        return r->rc;
    if (step != nsteps) {
        char a[32], b2[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)nsteps);
        snprintf(b2, sizeof b2, "%llu", (unsigned long long)step);
        return fail_at(r, r->line, 1, "the header says %s steps but the file has %s (is it cut "
                                      "short?)",
                       a, b2);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

static void reader_free(reader *r)
{
    free(r->copies);
    free(r->msgs);
    free(r->keys);
    free(r->holder);
    if (r->sched)
        xchg_sched_free(r->sched); /* frees ctx with it */
    else
        ctx_free(r->ctx);
}

int xchg_import(const char *text, size_t len, const xchg_import_opts *opts, xchg_sched **out,
                xchg_err *err)
{
    if (!text || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_import: text and out must not be NULL");
    reader r;
    memset(&r, 0, sizeof r);
    r.s = text;
    r.len = len;
    r.line = 1;
    r.col = 1;
    r.err = err;
    r.max_bytes = opts && opts->max_bytes ? opts->max_bytes : IMPORT_DEFAULT_BYTES;
    skip_ws(&r);
    int c = peek(&r);
    if (c == '{') {
        read_json(&r);
    } else if (c == '#') {
        r.pos = 0;
        r.line = 0;
        read_text(&r);
    } else {
        char buf[32];
        fail(&r, "this is not a schedule: it starts with %s; accepted: xchg-schedule/1 JSON "
                 "('{') or text ('# " IMPORT_FORMAT " ...'), as xchg export writes",
             seen_at(&r, buf, sizeof buf), NULL);
    }
    if (!r.rc && r.sched && r.ncopies) {
        if (r.ncopies != r.sched->nsteps) {
            char a[32], b[32];
            snprintf(a, sizeof a, "%zu", r.ncopies);
            snprintf(b, sizeof b, "%zu", r.sched->nsteps);
            snprintf(r.path, sizeof r.path, "copies");
            fail_at(&r, r.line, r.col, "%s copies for %s steps; accepted: one per step", a, b);
        } else {
            for (size_t k = 0; k < r.ncopies; k++)
                r.sched->steps[k].copy_blocks = r.copies[k];
        }
    }
    if (r.rc) {
        int rc = r.rc;
        reader_free(&r);
        return rc;
    }
    xchg_sched *s = r.sched;
    r.sched = NULL;
    r.ctx = NULL;
    reader_free(&r);
    *out = s;
    return XCHG_OK;
}
