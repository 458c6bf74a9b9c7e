/*
 * import_text.c - the text form of xchg-schedule/1 read back
 * (import_internal.h): a header line (with "operation NAME ..." for
 * another operation than the complete exchange), "phase NAME ..." lines
 * where a schedule's phases start, "step N [copies C]" lines, and one
 * line per message, "F -> T  route SEGS  blocks (o,d) ...". Every message
 * says its line and column.
 * Calls the builder (import_build.c) as it reads; import.c calls it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/import_internal.h"

/* The next line into r->lbuf-less view: [*b, *e) without the newline;
 * 0 at the end of the text. */
static int next_line(xchg_imp_reader *r, const char **b, const char **e)
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

static int text_fail(xchg_imp_reader *r, const cursor *c, const char *fmt, const char *a,
                     const char *b)
{
    return xchg_imp_fail_at(r, r->line, col_of(c), fmt, a, b);
}

/*
 * An operation's words into o: "NAME [root R] [q Q] [pieces K]" from the
 * header's "operation" on (header: its other words are the header's keys,
 * skipped here) or from a "phase" line. name is the word read; the
 * parameters are checked against the topology by xchg_imp_check_op.
 * Returns 1 when key/val is one of the operation's parameters (taken), 0
 * when not, -1 on an error (recorded).
 */
static int text_op_word(xchg_imp_reader *r, const cursor *c, xchg_imp_op *o, const char *key,
                        const char *val)
{
    unsigned bit = !strcmp(key, "root")     ? XCHG_IMP_ROOT
                   : !strcmp(key, "q")      ? XCHG_IMP_Q
                   : !strcmp(key, "pieces") ? XCHG_IMP_PIECES
                                            : 0;
    if (!bit)
        return 0;
    uint64_t v;
    if (o->given & bit)
        return text_fail(r, c, "'%s' is given twice%s", key, ""), -1;
    if (!text_uint(val, UINT32_MAX, &v))
        return text_fail(r, c, "'%s %s': accepted: a whole number", key, val), -1;
    o->given |= bit;
    if (bit == XCHG_IMP_ROOT)
        o->op.root = (uint32_t)v;
    else if (bit == XCHG_IMP_Q)
        o->op.shift = (uint32_t)v;
    else
        o->op.pieces = (uint32_t)v;
    return 1;
}

/* The operation's name into o; 0 or the error (recorded). */
static int text_op_name(xchg_imp_reader *r, const cursor *c, xchg_imp_op *o, const char *name)
{
    xchg_err why = {{0}};
    if (xchg_op_parse(name, &o->op.kind, &why) != XCHG_OK)
        return xchg_imp_fail_at(r, r->line, col_of(c) - strlen(name), "%s%s", why.msg, NULL);
    return 0;
}

/* "# xchg-schedule/1 topology T algorithm A nodes P steps S", then
 * "operation NAME [root R] [q Q] [pieces K]" for another operation than
 * the complete exchange. */
static int text_header(xchg_imp_reader *r, cursor *c, uint64_t *nsteps)
{
    char w[128];
    if (word(c, w, sizeof w) != 1 || strcmp(w, "#") || word(c, w, sizeof w) != 1 ||
        strcmp(w, IMPORT_FORMAT))
        return xchg_imp_fail_at(r, 1, 1,
                                "the first line is not '# " IMPORT_FORMAT " topology T "
                                "algorithm A nodes P steps S'%s%s",
                                NULL, NULL);
    int have = 0;
    for (;;) {
        char key[32];
        int k = word(c, key, sizeof key);
        if (k == 0)
            break;
        if (k < 0 || word(c, w, sizeof w) != 1)
            return text_fail(r, c, "the header's '%s' has no value (or a long one)%s", key, "");
        uint64_t v;
        if (!strcmp(key, "topology")) {
            xchg_err why = {{0}};
            if (xchg_topo_parse(w, &r->topo, &why))
                return text_fail(r, c, "topology '%s': %.200s", w, why.msg);
            r->have_topo = 1;
            have |= 1;
        } else if (!strcmp(key, "algorithm")) {
            if (!xchg_imp_good_name(w) || strlen(w) >= sizeof r->alg)
                return text_fail(r, c,
                                 "the algorithm name is longer than 95 characters or "
                                 "has one that is not printable ASCII%s%s",
                                 NULL, NULL);
            memcpy(r->alg, w, strlen(w) + 1);
            r->have_alg = 1;
            have |= 2;
        } else if (!strcmp(key, "nodes") && text_uint(w, XCHG_MAX_NODES, &v)) {
            r->p = (uint32_t)v;
            r->have_nodes = 1;
            have |= 4;
        } else if (!strcmp(key, "steps") && text_uint(w, UINT32_MAX, &v)) {
            *nsteps = v;
            have |= 8;
        } else if (!strcmp(key, "operation")) {
            if (r->have_op++)
                return text_fail(r, c, "the header's 'operation' is given twice%s%s", NULL,
                                 NULL);
            r->op.line = 1;
            r->op.col = col_of(c) - strlen(w);
            if (text_op_name(r, c, &r->op, w))
                return r->rc;
        } else if ((k = text_op_word(r, c, &r->op, key, w)) != 0) {
            if (k < 0)
                return r->rc;
            if (!r->have_op)
                return text_fail(r, c,
                                 "the header's '%s' comes before 'operation'; accepted: "
                                 "operation NAME, then its root, q or pieces%s",
                                 key, "");
        } else {
            return text_fail(r, c,
                             "the header's '%s %s' is not understood; accepted: "
                             "topology, algorithm, nodes and steps with their values, "
                             "then operation NAME [root R] [q Q] [pieces K]",
                             key, w);
        }
    }
    if (have != 15)
        return xchg_imp_fail_at(
            r, 1, 1, "the header needs topology, algorithm, nodes and steps%s%s", NULL, NULL);
    r->have_format = 1;
    return 0;
}

/* A message line "F -> T  route SEGS  blocks (o,d) ...". */
static int text_message(xchg_imp_reader *r, cursor *c)
{
    if (xchg_imp_grow(r, (void **)&r->msgs, &r->msgs_cap, r->nmsgs, sizeof *r->msgs))
        return r->rc;
    xchg_imp_msg *m = &r->msgs[r->nmsgs];
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
        if (m->nsegs == XCHG_MAX_DIMS || sscanf(w, "d%u%c1x%u%n", &dim, &sign, &hops, &used) != 3 ||
            (size_t)used != strlen(w) || (sign != '+' && sign != '-' && sign != '^') ||
            dim >= XCHG_MAX_DIMS || hops > XCHG_MAX_NODES)
            return text_fail(r, c,
                             "route segment '%s'; accepted: d<dim>+1x<hops> or "
                             "d<dim>-1x<hops> (d<dim>^1x<hops> climbs a tree), or '-' for none%s",
                             w, "");
        m->segs[m->nsegs].dim = (int)dim;
        m->segs[m->nsegs].dir = sign == '+' ? 1 : sign == '-' ? -1 : 0;
        m->segs[m->nsegs].hops = hops;
        m->nsegs++;
    }
    if (k != 1)
        return text_fail(r, c, "expected 'blocks' after the route%s%s", NULL, NULL);
    if (xchg_imp_check_nodes(r, m))
        return r->rc;
    while ((k = word(c, w, sizeof w)) == 1) {
        unsigned long long o, d;
        int used = 0;
        if (sscanf(w, "(%llu,%llu)%n", &o, &d, &used) != 2 || (size_t)used != strlen(w) ||
            w[1] < '0' || w[1] > '9')
            return text_fail(r, c, "block '%s'; accepted: (origin,destination)%s", w, "");
        if (xchg_imp_add_block(r, m, o, d, r->line, col_of(c)))
            return r->rc;
    }
    if (k < 0)
        return text_fail(r, c, "a word longer than 63 characters%s%s", NULL, NULL);
    if (m->nb == 0)
        return xchg_imp_fail_at(r, m->line, m->col,
                                "a message with no blocks; accepted: one or more "
                                "(a node that sends nothing is left out)%s%s",
                                NULL, NULL);
    r->nmsgs++;
    return 0;
}

/* A "phase NAME [root R] [q Q] [pieces K]" line (the word "phase" read
 * through c): the phase starts at the next step, after `steps` steps. */
static int text_phase(xchg_imp_reader *r, cursor *c, uint64_t steps)
{
    xchg_imp_op o;
    memset(&o, 0, sizeof o);
    o.line = r->line;
    o.col = 1;
    o.first = (size_t)steps;
    char w[64], val[64];
    if (!r->have_op)
        return xchg_imp_fail_at(r, r->line, 1,
                                "a 'phase' line in a file whose header names no operation; "
                                "accepted: 'operation NAME' in the header first%s%s",
                                NULL, NULL);
    if (r->nphases == 0 && steps > 0)
        return xchg_imp_fail_at(r, r->line, 1,
                                "the first 'phase' line comes after step 1; accepted: "
                                "before 'step 1'%s%s",
                                NULL, NULL);
    if (word(c, w, sizeof w) != 1)
        return text_fail(r, c, "'phase' without an operation; accepted: phase NAME [root R] "
                               "[q Q] [pieces K]%s%s",
                         NULL, NULL);
    if (text_op_name(r, c, &o, w))
        return r->rc;
    int k;
    while ((k = word(c, w, sizeof w)) == 1) {
        if (word(c, val, sizeof val) != 1)
            return text_fail(r, c, "the phase's '%s' has no value (or a long one)%s", w, "");
        int t = text_op_word(r, c, &o, w, val);
        if (t < 0)
            return r->rc;
        if (t == 0)
            return text_fail(r, c, "the phase's '%s %s' is not understood; accepted: root R, "
                                   "q Q, pieces K",
                             w, val);
    }
    if (k < 0)
        return text_fail(r, c, "a word longer than 63 characters%s%s", NULL, NULL);
    if (xchg_imp_check_op(r, &o, NULL) || xchg_imp_add_phase(r, &o))
        return r->rc;
    return 0;
}

int xchg_imp_read_text(xchg_imp_reader *r)
{
    const char *b, *e;
    uint64_t nsteps = 0, step = 0;
    if (!next_line(r, &b, &e))
        return xchg_imp_fail_at(r, 1, 1, "the file is empty%s%s", NULL, NULL);
    cursor c = {b, b, e};
    if (text_header(r, &c, &nsteps) || xchg_imp_begin_steps(r, 1, 1))
        return r->rc;
    int in_step = 0, empty = 0; /* empty: the step said "(no messages)" */
    while (next_line(r, &b, &e)) {
        if (e > b && memchr(b, '\0', (size_t)(e - b)))
            return xchg_imp_fail_at(r, r->line, 1, "a NUL byte; this is not a text schedule%s%s",
                                    NULL, NULL);
        c = (cursor){b, b, e};
        char w[64];
        int k = word(&c, w, sizeof w);
        if (k == 0)
            continue; /* a blank line */
        if (!strcmp(w, "step")) {
            if (in_step && xchg_imp_finish_step(r))
                return r->rc;
            uint64_t v, copies = 0;
            char num[32];
            if (word(&c, num, sizeof num) != 1 || !text_uint(num, UINT32_MAX, &v) ||
                v != step + 1) {
                char want[32];
                snprintf(want, sizeof want, "%llu", (unsigned long long)step + 1);
                return text_fail(r, &c,
                                 "expected 'step %s' (steps are numbered from 1, in "
                                 "order)%s",
                                 want, "");
            }
            int kc = word(&c, w, sizeof w);
            if (kc == 1 && !strcmp(w, "copies") && word(&c, num, sizeof num) == 1 &&
                text_uint(num, UINT64_MAX / 2, &copies) && word(&c, w, sizeof w) == 0) {
                /* step N  copies C */
            } else if (kc != 0) {
                return text_fail(r, &c, "after 'step N' only 'copies C' is accepted%s%s", NULL,
                                 NULL);
            }
            if (xchg_imp_grow(r, (void **)&r->copies, &r->copies_cap, r->ncopies,
                              sizeof *r->copies))
                return r->rc;
            r->copies[r->ncopies++] = copies;
            step++;
            in_step = 1;
            empty = 0;
            continue;
        }
        if (!strcmp(w, "phase")) {
            if (in_step && xchg_imp_finish_step(r))
                return r->rc;
            in_step = 0;
            if (text_phase(r, &c, step))
                return r->rc;
            continue;
        }
        if (!in_step)
            return text_fail(r, &c,
                             step || r->nphases ? "a message before its 'step' line%s%s"
                                                : "a message before the first 'step' line%s%s",
                             NULL, NULL);
        if (!strcmp(w, "(no") && word(&c, w, sizeof w) == 1 && !strcmp(w, "messages)") &&
            word(&c, w, sizeof w) == 0) {
            if (r->nmsgs)
                return xchg_imp_fail_at(r, r->line, 1,
                                        "'(no messages)' in a step with messages%s%s", NULL, NULL);
            empty = 1;
            continue;
        }
        if (empty)
            return xchg_imp_fail_at(r, r->line, 1, "a message after '(no messages)'%s%s", NULL,
                                    NULL);
        c.p = c.b; /* read the message from its start */
        if (text_message(r, &c))
            return r->rc;
    }
    if (in_step && xchg_imp_finish_step(r))
        return r->rc;
    if (step != nsteps) {
        char a[32], b2[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)nsteps);
        snprintf(b2, sizeof b2, "%llu", (unsigned long long)step);
        return xchg_imp_fail_at(r, r->line, 1,
                                "the header says %s steps but the file has %s (is it cut "
                                "short?)",
                                a, b2);
    }
    return 0;
}
