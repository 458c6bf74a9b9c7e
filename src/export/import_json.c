/*
 * import_json.c - the JSON form of xchg-schedule/1 read back
 * (import_internal.h): a small xchg_imp_reader for exactly this schema, no tree
 * built, no recursion. Every message says where it is: line, column and
 * the field's path (steps[2][0].blocks[3], operation.root, phases[1]).
 * Calls the builder (import_build.c) as it reads; import.c calls it.
 */
#include <stdio.h>
#include <string.h>

#include "export/import_internal.h"

static int peek(xchg_imp_reader *r)
{
    return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static void advance(xchg_imp_reader *r)
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

static void skip_ws(xchg_imp_reader *r)
{
    int c;
    while ((c = peek(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        advance(r);
}

/* What is at the position, for messages. */
static const char *seen_at(xchg_imp_reader *r, char *buf, size_t len)
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
static int expect(xchg_imp_reader *r, int ch, const char *what)
{
    skip_ws(r);
    if (peek(r) == ch) {
        advance(r);
        return 0;
    }
    char buf[32];
    return xchg_imp_fail(r, "expected %s, found %s", what, seen_at(r, buf, sizeof buf));
}

/* A whole number in JSON (no sign, fraction or exponent), at most max. */
static int json_uint(xchg_imp_reader *r, uint64_t max, uint64_t *out, const char *what)
{
    skip_ws(r);
    int c = peek(r);
    if (c < '0' || c > '9') {
        char buf[32];
        return xchg_imp_fail(r, "expected %s (a whole number), found %s", what,
                             seen_at(r, buf, sizeof buf));
    }
    uint64_t v = 0;
    size_t line = r->line, col = r->col;
    while ((c = peek(r)) >= '0' && c <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            return xchg_imp_fail_at(r, line, col, "%s is too large%s", what, "");
        v = v * 10 + (uint64_t)(c - '0');
        advance(r);
    }
    if (c == '.' || c == 'e' || c == 'E')
        return xchg_imp_fail_at(r, line, col, "%s must be a whole number%s", what, "");
    if (v > max) {
        char a[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)max);
        return xchg_imp_fail_at(r, line, col, "%s is above %s", what, a);
    }
    *out = v;
    return 0;
}

/* A signed direction: 1 or -1. */
static int json_dir(xchg_imp_reader *r, int *out)
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
    if (v > 1 || (v == 0 && neg))
        return xchg_imp_fail_at(r, line, col, "a direction is +1 or -1 (0 climbs a tree)%s%s",
                                NULL, NULL);
    *out = v == 0 ? 0 : neg ? -1 : 1;
    return 0;
}

/* A JSON string into buf (len bytes); only printable ASCII without
 * escapes other than \" and \\ is accepted (names and kinds are such). */
static int json_string(xchg_imp_reader *r, char *buf, size_t len, const char *what)
{
    if (expect(r, '"', what))
        return r->rc;
    size_t n = 0;
    for (;;) {
        int c = peek(r);
        if (c < 0)
            return xchg_imp_fail(r, "the file ends inside a string%s%s", NULL, NULL);
        advance(r);
        if (c == '"')
            break;
        if (c == '\\') {
            c = peek(r);
            if (c != '"' && c != '\\')
                return xchg_imp_fail(r, "unsupported escape in %s; accepted: \\\" and \\\\%s", what,
                                     "");
            advance(r);
        } else if (c < 32 || c >= 127) {
            return xchg_imp_fail(r, "%s has a character outside printable ASCII%s", what, "");
        }
        if (n + 1 >= len)
            return xchg_imp_fail(r, "%s is too long%s", what, "");
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return 0;
}

/* Set the field path, for messages. */
static void set_path(xchg_imp_reader *r, const char *fmt, size_t a, size_t b, size_t c)
{
    snprintf(r->path, sizeof r->path, fmt, a, b, c);
}

/* In an object: the next member's key into key (len bytes), after its
 * '{' or the ',' before it, and where the key starts into *line, *col (when
 * not NULL). 1 when a key was read (the ':' too), 0 at the object's '}',
 * -1 on an error (recorded). *first is 1 before the first member. */
static int next_key(xchg_imp_reader *r, int *first, char *key, size_t len, size_t *line,
                    size_t *col)
{
    skip_ws(r);
    if (peek(r) == '}') {
        advance(r);
        return 0;
    }
    if (!*first && expect(r, ',', "',' or '}'"))
        return -1;
    *first = 0;
    skip_ws(r);
    if (line)
        *line = r->line;
    if (col)
        *col = r->col;
    if (json_string(r, key, len, "a key") || expect(r, ':', "':'"))
        return -1;
    return 1;
}

/* In a list: 1 when item i follows (the ',' before it read), 0 at the
 * list's ']', -1 on an error (recorded). */
static int next_item(xchg_imp_reader *r, size_t i)
{
    skip_ws(r);
    if (peek(r) == ']') {
        advance(r);
        return 0;
    }
    if (i && expect(r, ',', "',' or ']'"))
        return -1;
    return 1;
}

/* "topology": {"kind": K, "dims": [..]}, or {"kind": "hypercube", "dim": D}
 * and the same for a tree. */
static int json_topology(xchg_imp_reader *r)
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
    char key[32];
    for (int first = 1, more;;) {
        if ((more = next_key(r, &first, key, sizeof key, NULL, NULL)) <= 0) {
            if (more < 0)
                return r->rc;
            break;
        }
        if (!strcmp(key, "kind")) {
            if (json_string(r, kind, sizeof kind, "the kind"))
                return r->rc;
        } else if (!strcmp(key, "dims")) {
            have_dims = 1;
            if (expect(r, '[', "'[' (the sizes)"))
                return r->rc;
            for (;;) {
                int item = next_item(r, ndims);
                if (item <= 0) {
                    if (item < 0)
                        return r->rc;
                    break;
                }
                if (ndims == XCHG_MAX_DIMS)
                    return xchg_imp_fail(r, "more sizes than the %s dimensions xchg accepts%s", "32",
                                         "");
                if (json_uint(r, XCHG_MAX_NODES, &dims[ndims++], "a size"))
                    return r->rc;
            }
        } else if (!strcmp(key, "dim")) {
            have_dim = 1;
            if (json_uint(r, 24, &dim, "the hypercube's dimension or the tree's depth"))
                return r->rc;
        } else {
            return xchg_imp_fail(r,
                                 "unknown key '%s'; accepted: kind, dims (dim for a hypercube "
                                 "or a tree)",
                                 key, NULL);
        }
    }
    char spec[160];
    int by_dim = !strcmp(kind, "hypercube") || !strcmp(kind, "tree");
    if (by_dim && have_dim && !have_dims) {
        snprintf(spec, sizeof spec, "%s:%llu", kind, (unsigned long long)dim);
    } else if (kind[0] && !by_dim && have_dims && !have_dim && ndims) {
        size_t at = (size_t)snprintf(spec, sizeof spec, "%s:", kind);
        for (size_t i = 0; i < ndims; i++)
            at += (size_t)snprintf(spec + at, sizeof spec - at, "%s%llu", i ? "x" : "",
                                   (unsigned long long)dims[i]);
    } else {
        return xchg_imp_fail_at(r, line, col,
                                "a topology is {\"kind\":K,\"dims\":[N,...]} or "
                                "{\"kind\":\"hypercube\",\"dim\":D} (\"tree\" the same)%s%s",
                                NULL, NULL);
    }
    xchg_err why = {{0}};
    if (xchg_topo_parse(spec, &r->topo, &why))
        return xchg_imp_fail_at(r, line, col, "%s: %.200s", spec, why.msg);
    r->have_topo = 1;
    r->path[0] = '\0';
    return 0;
}

/*
 * An operation object {"name":N,"root":R,"q":Q,"pieces":K} into o, with
 * "first":F when phase (a phase's first step); field is its path
 * ("operation", "phases[1]"). The parameters are checked against the
 * topology later (xchg_imp_check_op), when the topology is known.
 */
static int json_op(xchg_imp_reader *r, xchg_imp_op *o, int phase, const char *field)
{
    snprintf(r->path, sizeof r->path, "%s", field);
    memset(o, 0, sizeof *o);
    skip_ws(r);
    o->line = r->line;
    o->col = r->col;
    if (expect(r, '{', phase ? "'{' (a phase object)" : "'{' (the operation object)"))
        return r->rc;
    int have_name = 0, have_first = 0;
    char key[32];
    size_t line, col;
    for (int first = 1, more;;) {
        if ((more = next_key(r, &first, key, sizeof key, &line, &col)) <= 0) {
            if (more < 0)
                return r->rc;
            break;
        }
        snprintf(r->path, sizeof r->path, "%s.%s", field, key);
        uint64_t v = 0;
        unsigned bit = !strcmp(key, "root") ? XCHG_IMP_ROOT
                       : !strcmp(key, "q")  ? XCHG_IMP_Q
                       : !strcmp(key, "pieces") ? XCHG_IMP_PIECES
                                                : 0;
        int dup;
        if (!strcmp(key, "name")) {
            dup = have_name++;
            char name[32];
            if (!dup && json_string(r, name, sizeof name, "the operation's name"))
                return r->rc;
            xchg_err why = {{0}};
            if (!dup && xchg_op_parse(name, &o->op.kind, &why) != XCHG_OK)
                return xchg_imp_fail_at(r, line, col, "%s%s", why.msg, NULL);
        } else if (bit) {
            dup = (o->given & bit) != 0;
            o->given |= bit;
            if (!dup && json_uint(r, UINT32_MAX, &v, key))
                return r->rc;
            if (bit == XCHG_IMP_ROOT)
                o->op.root = (uint32_t)v;
            else if (bit == XCHG_IMP_Q)
                o->op.shift = (uint32_t)v;
            else
                o->op.pieces = (uint32_t)v;
        } else if (phase && !strcmp(key, "first")) {
            dup = have_first++;
            if (!dup && json_uint(r, UINT32_MAX, &v, "the phase's first step"))
                return r->rc;
            o->first = (size_t)v;
        } else {
            snprintf(r->path, sizeof r->path, "%s", field);
            return xchg_imp_fail_at(r, line, col, "unknown key '%s'; accepted: %s", key,
                                    phase ? "name, root, q, pieces, first"
                                          : "name, root, q, pieces");
        }
        if (dup)
            return xchg_imp_fail_at(r, line, col, "'%s' is given twice%s", key, "");
    }
    snprintf(r->path, sizeof r->path, "%s", field);
    if (!have_name)
        return xchg_imp_fail_at(r, o->line, o->col,
                                "'name' is missing; accepted: {\"name\":N, with \"root\" for "
                                "bcast, reduce, scatter and gather, \"q\" for shift%s}%s",
                                phase ? ", \"first\"" : "", NULL);
    if (phase && !have_first)
        return xchg_imp_fail_at(r, o->line, o->col,
                                "'first' is missing; accepted: the phase's first step, "
                                "0-based%s%s",
                                NULL, NULL);
    r->path[0] = '\0';
    return 0;
}

/* "phases": [{"name":N,...,"first":F},...] */
static int json_phases(xchg_imp_reader *r)
{
    snprintf(r->path, sizeof r->path, "phases");
    if (expect(r, '[', "'[' (the phases)"))
        return r->rc;
    for (size_t k = 0;; k++) {
        int item = next_item(r, k);
        if (item <= 0)
            return item < 0 ? r->rc : 0;
        char field[32];
        snprintf(field, sizeof field, "phases[%zu]", k);
        xchg_imp_op o;
        if (json_op(r, &o, 1, field) || xchg_imp_add_phase(r, &o))
            return r->rc;
        snprintf(r->path, sizeof r->path, "phases");
    }
}

/* A route: [[dim,dir,hops],...] into m. */
static int json_route(xchg_imp_reader *r, xchg_imp_msg *m)
{
    if (expect(r, '[', "'[' (the route)"))
        return r->rc;
    for (m->nsegs = 0;;) {
        int item = next_item(r, (size_t)m->nsegs);
        if (item <= 0)
            return item < 0 ? r->rc : 0;
        if (m->nsegs == XCHG_MAX_DIMS)
            return xchg_imp_fail(r, "a route has at most one segment per dimension%s%s", NULL,
                                 NULL);
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
static int json_message(xchg_imp_reader *r, size_t k, size_t i)
{
    if (xchg_imp_grow(r, (void **)&r->msgs, &r->msgs_cap, r->nmsgs, sizeof *r->msgs))
        return r->rc;
    xchg_imp_msg *m = &r->msgs[r->nmsgs];
    memset(m, 0, sizeof *m);
    m->b0 = r->nkeys;
    set_path(r, "steps[%zu][%zu]", k, i, 0);
    skip_ws(r);
    m->line = r->line;
    m->col = r->col;
    if (expect(r, '{', "'{' (a message)"))
        return r->rc;
    int have[4] = {0, 0, 0, 0}; /* from, to, route, blocks */
    char key[16];
    for (int first = 1, more;;) {
        if ((more = next_key(r, &first, key, sizeof key, NULL, NULL)) <= 0) {
            if (more < 0)
                return r->rc;
            break;
        }
        uint64_t v;
        if (!strcmp(key, "from") || !strcmp(key, "to")) {
            int is_from = key[0] == 'f';
            set_path(r, is_from ? "steps[%zu][%zu].from" : "steps[%zu][%zu].to", k, i, 0);
            if (have[!is_from]++)
                return xchg_imp_fail(r, "'%s' is given twice%s", key, "");
            if (json_uint(r, UINT32_MAX, &v, "a node"))
                return r->rc;
            if (is_from)
                m->from = (uint32_t)v;
            else
                m->to = (uint32_t)v;
        } else if (!strcmp(key, "route")) {
            set_path(r, "steps[%zu][%zu].route", k, i, 0);
            if (have[2]++)
                return xchg_imp_fail(r, "'route' is given twice%s%s", NULL, NULL);
            if (json_route(r, m))
                return r->rc;
        } else if (!strcmp(key, "blocks")) {
            if (have[3]++)
                return xchg_imp_fail(r, "'blocks' is given twice%s%s", NULL, NULL);
            set_path(r, "steps[%zu][%zu].blocks", k, i, 0);
            if (expect(r, '[', "'[' (the blocks)"))
                return r->rc;
            for (size_t j = 0;; j++) {
                int item = next_item(r, j);
                if (item <= 0) {
                    if (item < 0)
                        return r->rc;
                    break;
                }
                set_path(r, "steps[%zu][%zu].blocks[%zu]", k, i, j);
                uint64_t o, d;
                skip_ws(r);
                size_t line = r->line, col = r->col;
                if (expect(r, '[', "'[' (a block [origin,destination])") ||
                    json_uint(r, UINT32_MAX, &o, "an origin") || expect(r, ',', "','") ||
                    json_uint(r, UINT32_MAX, &d, "a destination") || expect(r, ']', "']'"))
                    return r->rc;
                if (xchg_imp_add_block(r, m, o, d, line, col))
                    return r->rc;
            }
        } else {
            set_path(r, "steps[%zu][%zu]", k, i, 0);
            return xchg_imp_fail(r, "unknown key '%s'; accepted: from, to, route, blocks", key,
                                 NULL);
        }
    }
    set_path(r, "steps[%zu][%zu]", k, i, 0);
    if (!have[0] || !have[1] || !have[2] || !have[3])
        return xchg_imp_fail_at(r, m->line, m->col,
                                "a message needs from, to, route and blocks; '%s' "
                                "is missing%s",
                                !have[0]   ? "from"
                                : !have[1] ? "to"
                                : !have[2] ? "route"
                                           : "blocks",
                                "");
    if (m->nb == 0)
        return xchg_imp_fail_at(r, m->line, m->col,
                                "a message with no blocks; accepted: one or more "
                                "(a node that sends nothing is left out)%s%s",
                                NULL, NULL);
    if (xchg_imp_check_nodes(r, m))
        return r->rc;
    r->nmsgs++;
    return 0;
}

/* "steps": [[msg,...],...] */
static int json_steps(xchg_imp_reader *r)
{
    size_t line = r->line, col = r->col;
    if (xchg_imp_begin_steps(r, line, col))
        return r->rc;
    snprintf(r->path, sizeof r->path, "steps");
    if (expect(r, '[', "'[' (the steps)"))
        return r->rc;
    for (size_t k = 0;; k++) {
        int item = next_item(r, k);
        if (item <= 0) {
            if (item < 0)
                return r->rc;
            break;
        }
        set_path(r, "steps[%zu]", k, 0, 0);
        if (expect(r, '[', "'[' (a step: a list of messages)"))
            return r->rc;
        for (size_t i = 0;; i++) {
            int msg = next_item(r, i);
            if (msg <= 0) {
                if (msg < 0)
                    return r->rc;
                break;
            }
            if (json_message(r, k, i))
                return r->rc;
        }
        set_path(r, "steps[%zu]", k, 0, 0);
        if (xchg_imp_finish_step(r))
            return r->rc;
    }
    r->path[0] = '\0';
    return 0;
}

/* "copies": [c0, c1, ...] */
static int json_copies(xchg_imp_reader *r)
{
    snprintf(r->path, sizeof r->path, "copies");
    if (expect(r, '[', "'[' (the copies per step)"))
        return r->rc;
    for (size_t k = 0;; k++) {
        int item = next_item(r, k);
        if (item <= 0) {
            if (item < 0)
                return r->rc;
            break;
        }
        set_path(r, "copies[%zu]", k, 0, 0);
        if (xchg_imp_grow(r, (void **)&r->copies, &r->copies_cap, r->ncopies, sizeof *r->copies) ||
            json_uint(r, UINT64_MAX / 2, &r->copies[r->ncopies++], "a block count"))
            return r->rc;
    }
    r->path[0] = '\0';
    return 0;
}

int xchg_imp_read_json(xchg_imp_reader *r)
{
    if (expect(r, '{', "'{'"))
        return r->rc;
    int have_steps = 0, have_copies = 0, have_phases = 0;
    char key[32];
    size_t line, col;
    for (int first = 1, more;;) {
        if ((more = next_key(r, &first, key, sizeof key, &line, &col)) <= 0) {
            if (more < 0)
                return r->rc;
            break;
        }
        int dup = 0;
        if (!strcmp(key, "format")) {
            char f[32];
            dup = r->have_format++;
            snprintf(r->path, sizeof r->path, "format");
            if (!dup && json_string(r, f, sizeof f, "the format"))
                return r->rc;
            if (!dup && strcmp(f, IMPORT_FORMAT))
                return xchg_imp_fail_at(
                    r, line, col, "the format is '%s'; accepted: '" IMPORT_FORMAT "'%s", f, "");
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
            if (!dup && !xchg_imp_good_name(r->alg))
                return xchg_imp_fail_at(
                    r, line, col, "the algorithm name is empty or has a space%s%s", NULL, NULL);
            r->path[0] = '\0';
        } else if (!strcmp(key, "nodes")) {
            uint64_t v = 0;
            dup = r->have_nodes++;
            snprintf(r->path, sizeof r->path, "nodes");
            if (!dup && json_uint(r, XCHG_MAX_NODES, &v, "the node count"))
                return r->rc;
            if (!dup && r->sched && v != r->topo.nodes)
                return xchg_imp_fail_at(r, line, col, "nodes is %s but the topology has %s nodes",
                                        "not the topology's count", "another");
            if (!dup && !r->sched)
                r->p = (uint32_t)v;
            r->path[0] = '\0';
        } else if (!strcmp(key, "operation") || !strcmp(key, "phases")) {
            int is_op = key[0] == 'o';
            dup = is_op ? r->have_op++ : have_phases++;
            if (!dup && have_steps) {
                snprintf(r->path, sizeof r->path, "%s", key);
                return xchg_imp_fail_at(r, line, col,
                                        "'%s' comes after the steps; accepted: before "
                                        "\"steps\", as xchg export writes it%s",
                                        key, "");
            }
            if (!dup && (is_op ? json_op(r, &r->op, 0, "operation") : json_phases(r)))
                return r->rc;
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
            return xchg_imp_fail_at(r, line, col,
                                    "unknown key '%s'; accepted: format, topology, "
                                    "algorithm, nodes, operation, phases, steps, copies",
                                    key, NULL);
        }
        if (dup)
            return xchg_imp_fail_at(r, line, col, "'%s' is given twice%s", key, "");
    }
    skip_ws(r);
    if (r->pos < r->len) {
        char buf[32];
        return xchg_imp_fail(r, "unexpected %s after the schedule's closing '}'%s",
                             seen_at(r, buf, sizeof buf), "");
    }
    if (!have_steps)
        return xchg_imp_fail(r,
                             "the file has no steps; accepted: a \"steps\" list (empty for a "
                             "schedule of no steps)%s%s",
                             NULL, NULL);
    return 0;
}
