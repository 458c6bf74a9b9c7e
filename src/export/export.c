/*
 * export.c - write a whole schedule, every block of every message, as
 * "xchg-schedule/1" JSON or as readable text (docs/export-format.md).
 *
 * A schedule only stores rules, so listing blocks means following them,
 * with the block follower (src/sched/follow.h): the exporter keeps the
 * holder of each of the p*p blocks (one uint32 each) and, step by step,
 * asks the follower which blocks each holder sends, groups them by sender
 * (a counting sort, so senders come out in id order and each sender's
 * blocks in (origin, destination) order), writes them, and moves them where
 * the follower says. Memory is about 8 bytes per block; work is p*p rule
 * evaluations per step, which is why the caller sets a limit (max_work)
 * and very large networks are refused.
 *
 * A schedule of another operation than the complete exchange (bcast,
 * reduce, ...; docs/operations.md) says so in its header ("operation"),
 * and only the operation's tokens (xchg_op_has_token) are followed and
 * listed: a broadcast from root 5 lists the blocks (5, d), not all p*p. A
 * schedule of several phases (seed 003's improved operations) lists its
 * phases, and each phase's tokens start again at their origins, as the
 * verifier follows them. The complete exchange writes neither field, so
 * its files are those of xchg-schedule/1 before operations existed.
 *
 * Output goes through the caller's write callback in chunks of at most
 * EXPORT_BUF bytes; nothing is built as one string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/follow.h"
#include "xchg_consumers.h"

/* Default limit on p*p*steps block-steps when the caller passes 0. */
#define EXPORT_DEFAULT_WORK UINT64_C(2000000000)
/* Most blocks (p*p) the exporter keeps positions for: 2^27 blocks need
 * about 1 GiB (4-byte position, 4-byte list entry, 1 bit selection). */
#define EXPORT_MAX_BLOCKS (UINT64_C(1) << 27)
#define EXPORT_BUF 65536

/* Buffered sink over the caller's callback; remembers the first failure. */
typedef struct sink {
    xchg_write_fn write;
    void *ctx;
    int rc;           /* first nonzero return of write, else 0 */
    size_t len;
    char buf[EXPORT_BUF];
} sink;

/* Hand the buffered text to the callback. */
static void sink_flush(sink *o)
{
    if (o->len && !o->rc) {
        int rc = o->write(o->ctx, o->buf, o->len);
        if (rc)
            o->rc = rc;
    }
    o->len = 0;
}

static void put(sink *o, const char *s, size_t n)
{
    while (n) {
        if (o->len == EXPORT_BUF)
            sink_flush(o);
        size_t k = EXPORT_BUF - o->len;
        if (k > n)
            k = n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

static void puts_(sink *o, const char *s)
{
    put(o, s, strlen(s));
}

static void putu(sink *o, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(o, tmp + i, sizeof tmp - i);
}

static void puti(sink *o, int64_t v)
{
    if (v < 0) {
        put(o, "-", 1);
        putu(o, (uint64_t)0 - (uint64_t)v);
    } else {
        putu(o, (uint64_t)v);
    }
}

/* A JSON string literal with quotes, backslashes and control bytes escaped. */
static void put_json_string(sink *o, const char *s)
{
    put(o, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(o, e, 2);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            puts_(o, e);
        } else {
            put(o, (const char *)&c, 1);
        }
    }
    put(o, "\"", 1);
}

/* The "topology" object of the JSON header. */
static void put_json_topo(sink *o, const xchg_topo *t)
{
    puts_(o, "{\"kind\":");
    put_json_string(o, xchg_topo_kind_name(t->kind));
    if (t->kind == XCHG_TOPO_HYPERCUBE || t->kind == XCHG_TOPO_TREE) {
        puts_(o, ",\"dim\":");
        putu(o, (uint64_t)t->ndims);
    } else {
        puts_(o, ",\"dims\":[");
        for (int k = 0; k < t->ndims; k++) {
            if (k)
                put(o, ",", 1);
            putu(o, t->size[k]);
        }
        put(o, "]", 1);
    }
    put(o, "}", 1);
}

/* Per-export working memory, freed in one place. */
typedef struct work {
    uint32_t *pos;     /* p*p: holder of block origin*p+dest */
    uint32_t *list;    /* p*p: moving blocks, grouped by sender */
    uint64_t *sel;     /* bitmap over p*p: sent this step */
    size_t *start;     /* p+1: first list index of each sender */
} work;

static void work_free(work *w)
{
    free(w->pos);
    free(w->list);
    free(w->sel);
    free(w->start);
}

/* Write one message: JSON object or text line. blocks are list[lo, hi). */
static void put_message(sink *o, int json, const xchg_topo *t, uint32_t from, uint32_t to,
                        int policy, const uint32_t *list, size_t lo, size_t hi)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(t, from, to, policy, segs, &nsegs);
    uint32_t p = t->nodes;
    if (json) {
        puts_(o, "{\"from\":");
        putu(o, from);
        puts_(o, ",\"to\":");
        putu(o, to);
        puts_(o, ",\"route\":[");
        for (int k = 0; k < nsegs; k++) {
            put(o, k ? ",[" : "[", k ? 2 : 1);
            puti(o, segs[k].dim);
            put(o, ",", 1);
            puti(o, segs[k].dir);
            put(o, ",", 1);
            putu(o, segs[k].hops);
            put(o, "]", 1);
        }
        puts_(o, "],\"blocks\":[");
        for (size_t i = lo; i < hi; i++) {
            put(o, i > lo ? ",[" : "[", i > lo ? 2 : 1);
            putu(o, list[i] / p);
            put(o, ",", 1);
            putu(o, list[i] % p);
            put(o, "]", 1);
        }
        puts_(o, "]}");
    } else {
        puts_(o, "  ");
        putu(o, from);
        puts_(o, " -> ");
        putu(o, to);
        puts_(o, "  route");
        if (nsegs == 0)
            puts_(o, " -");
        for (int k = 0; k < nsegs; k++) {
            puts_(o, " d");
            puti(o, segs[k].dim);
            puts_(o, segs[k].dir > 0 ? "+1x" : segs[k].dir < 0 ? "-1x" : "^1x");
            putu(o, segs[k].hops);
        }
        puts_(o, "  blocks");
        for (size_t i = lo; i < hi; i++) {
            puts_(o, " (");
            putu(o, list[i] / p);
            put(o, ",", 1);
            putu(o, list[i] % p);
            put(o, ")", 1);
        }
        put(o, "\n", 1);
    }
}

/*
 * Follow step `i` from the positions in w->pos: find the tokens of op (the
 * step's phase's operation; every block for the complete exchange) that
 * are sent, write the step's messages (senders in id order), then move the
 * tokens to where the follower f says.
 */
static void export_step(const xchg_follower *f, size_t i, const xchg_op *op, work *w,
                        sink *o, int json)
{
    const xchg_sched *s = f->s;
    const xchg_topo *t = &s->topo;
    const xchg_step *st = &s->steps[i];
    const xchg_cstep *cs = &f->steps[i];
    uint32_t p = t->nodes;
    uint64_t nb = (uint64_t)p * p;

    memset(w->start, 0, ((size_t)p + 1) * sizeof *w->start);
    memset(w->sel, 0, (size_t)((nb + 63) / 64) * sizeof *w->sel);

    /* Pass 1: which blocks are sent, and how many per sender. */
    int all = op->kind == XCHG_OP_ALLTOALL;
    uint64_t b = 0;
    for (uint32_t origin = 0; origin < p; origin++) {
        for (uint32_t dest = 0; dest < p; dest++, b++) {
            uint32_t h = w->pos[b];
            if (!all && !xchg_op_has_token(op, p, origin, dest))
                continue;
            if (!xchg_follow_sends(f, i, h, origin, dest))
                continue;
            w->sel[b >> 6] |= UINT64_C(1) << (b & 63);
            w->start[h + 1]++;
        }
    }
    for (uint32_t h = 0; h < p; h++)
        w->start[h + 1] += w->start[h];

    /* Pass 2: place the moving blocks by sender, in block-id order (stable).
     * start[h] is used as the fill cursor and ends as the next sender's
     * first index, so afterwards sender h owns [h ? start[h-1] : 0, start[h]). */
    for (uint64_t word = 0; word < (nb + 63) / 64; word++) {
        uint64_t bits = w->sel[word];
        while (bits) {
            int k = __builtin_ctzll(bits);
            bits &= bits - 1;
            uint64_t blk = word * 64 + (uint64_t)k;
            uint32_t h = w->pos[blk];
            w->list[w->start[h]++] = (uint32_t)blk;
        }
    }

    /* Write, then move. */
    if (!json) {
        puts_(o, "step ");
        putu(o, (uint64_t)i + 1);
        if (st->copy_blocks) {
            puts_(o, "  copies ");
            putu(o, st->copy_blocks);
        }
        put(o, "\n", 1);
    }
    size_t lo = 0;
    int first = 1;
    for (uint32_t h = 0; h < p; h++) {
        size_t hi = w->start[h];
        if (hi > lo) {
            if (json && !first)
                put(o, ",", 1);
            first = 0;
            put_message(o, json, t, h, xchg_cstep_partner(cs, h), st->route_policy, w->list,
                        lo, hi);
            uint32_t to = xchg_cstep_target(cs, h);
            for (size_t k = lo; k < hi; k++)
                w->pos[w->list[k]] = to;
        }
        lo = hi;
        if (o->rc)
            return;
    }
    if (!json && first)
        puts_(o, "  (no messages)\n");
}

/* Refuse an export that would follow more than `limit` block-steps or keep
 * more block positions than EXPORT_MAX_BLOCKS: XCHG_ETOOBIG, else 0. */
static int check_limits(uint32_t p, size_t nsteps, uint64_t limit, xchg_err *err)
{
    uint64_t nb = (uint64_t)p * p;
    if (nsteps && nb > limit / nsteps)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "export follows every block: p*p*steps = %llu*%zu block-steps is "
                         "above the limit of %llu; use a smaller network or raise the limit",
                         (unsigned long long)nb, nsteps, (unsigned long long)limit);
    if (nb > EXPORT_MAX_BLOCKS)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "export keeps the position of every block: %llu blocks (p = %u) "
                         "would need about %llu MiB; at most %llu blocks are accepted",
                         (unsigned long long)nb, p,
                         (unsigned long long)((nb * 8 + nb / 8 + (1u << 20) - 1) >> 20),
                         (unsigned long long)EXPORT_MAX_BLOCKS);
    return XCHG_OK;
}

int xchg_export_check(const xchg_topo *t, uint64_t steps, uint64_t max_work, uint64_t *bytes,
                      xchg_err *err)
{
    if (!t)
        return xchg_fail(err, XCHG_EINVAL, "xchg_export_check needs a topology");
    if (steps > SIZE_MAX)
        steps = SIZE_MAX;
    int rc = check_limits(t->nodes, (size_t)steps,
                          max_work ? max_work : EXPORT_DEFAULT_WORK, err);
    if (rc == XCHG_OK && bytes) {
        uint64_t nb = (uint64_t)t->nodes * t->nodes;
        *bytes = steps ? nb * 8 + nb / 8 : 0; /* work_alloc's positions and marks */
    }
    return rc;
}

/* Every block back at its origin: the start of the schedule, and of each
 * of its phases (nothing to do when there are no steps). */
static void work_reset(work *w, uint32_t p)
{
    if (!w->pos)
        return;
    uint64_t b = 0;
    for (uint32_t origin = 0; origin < p; origin++)
        for (uint32_t dest = 0; dest < p; dest++)
            w->pos[b++] = origin;
}

/* Allocate the working memory for p nodes (none when there are no steps)
 * with every block at its origin; 0 or XCHG_ENOMEM (w then holds nothing). */
static int work_alloc(work *w, uint32_t p, size_t nsteps)
{
    uint64_t nb = (uint64_t)p * p;
    memset(w, 0, sizeof *w);
    if (!nsteps)
        return XCHG_OK;
    w->pos = malloc((size_t)nb * sizeof *w->pos);
    w->list = malloc((size_t)nb * sizeof *w->list);
    w->sel = malloc((size_t)((nb + 63) / 64) * sizeof *w->sel);
    w->start = malloc(((size_t)p + 1) * sizeof *w->start);
    if (!w->pos || !w->list || !w->sel || !w->start) {
        work_free(w);
        memset(w, 0, sizeof *w);
        return XCHG_ENOMEM;
    }
    work_reset(w, p);
    return XCHG_OK;
}

/* ,"copies":[c0,c1,...], blocks each node copies locally before each step,
 * when any step copies (the cost model and the simulator charge t_r for
 * them); nothing otherwise. */
static void put_json_copies(sink *o, const xchg_sched *s)
{
    size_t i = 0;
    while (i < s->nsteps && s->steps[i].copy_blocks == 0)
        i++;
    if (i == s->nsteps)
        return;
    puts_(o, ",\"copies\":[");
    for (i = 0; i < s->nsteps; i++) {
        if (i)
            put(o, ",", 1);
        putu(o, s->steps[i].copy_blocks);
    }
    put(o, "]", 1);
}

/* An operation's name and parameters: JSON members "name":"bcast","root":5
 * (q for a shift, pieces when its data is cut), or text words
 * " bcast root 5" (" shift q 3", " pieces 4"). */
static void put_op(sink *o, const xchg_op *op, int json)
{
    int rooted = op->kind == XCHG_OP_BCAST || op->kind == XCHG_OP_REDUCE ||
                 op->kind == XCHG_OP_SCATTER || op->kind == XCHG_OP_GATHER;
    puts_(o, json ? "\"name\":\"" : " ");
    puts_(o, xchg_op_name(op->kind));
    puts_(o, json ? "\"" : "");
    if (rooted) {
        puts_(o, json ? ",\"root\":" : " root ");
        putu(o, op->root);
    }
    if (op->kind == XCHG_OP_SHIFT) {
        puts_(o, json ? ",\"q\":" : " q ");
        putu(o, op->shift);
    }
    if (op->pieces > 1) {
        puts_(o, json ? ",\"pieces\":" : " pieces ");
        putu(o, op->pieces);
    }
}

/* Nonzero when the header names s's operation: any but the plain complete
 * exchange, whose files stay as they were before operations. */
static int op_written(const xchg_sched *s)
{
    return s->op.kind != XCHG_OP_ALLTOALL || s->op.pieces > 1 || s->nphases > 0;
}

/* The schedule's header: the JSON object's opening fields up to the steps
 * array, or the text format's comment line. */
static void put_header(sink *o, const xchg_sched *s, int json)
{
    const xchg_topo *t = &s->topo;
    if (json) {
        puts_(o, "{\"format\":\"xchg-schedule/1\",\"topology\":");
        put_json_topo(o, t);
        puts_(o, ",\"algorithm\":");
        put_json_string(o, s->algorithm);
        puts_(o, ",\"nodes\":");
        putu(o, t->nodes);
        if (op_written(s)) {
            puts_(o, ",\"operation\":{");
            put_op(o, &s->op, 1);
            put(o, "}", 1);
        }
        if (s->nphases) {
            puts_(o, ",\"phases\":[");
            for (size_t k = 0; k < s->nphases; k++) {
                puts_(o, k ? ",{" : "{");
                put_op(o, &s->phases[k].op, 1);
                puts_(o, ",\"first\":");
                putu(o, s->phases[k].first);
                put(o, "}", 1);
            }
            put(o, "]", 1);
        }
        puts_(o, ",\"steps\":[");
        return;
    }
    char spec[128];
    puts_(o, "# xchg-schedule/1 topology ");
    puts_(o, xchg_topo_spec(t, spec, sizeof spec));
    puts_(o, " algorithm ");
    puts_(o, s->algorithm);
    puts_(o, " nodes ");
    putu(o, t->nodes);
    puts_(o, " steps ");
    putu(o, s->nsteps);
    if (op_written(s)) {
        puts_(o, " operation");
        put_op(o, &s->op, 0);
    }
    put(o, "\n", 1);
}

/*
 * Write schedule s in `format` ("json": xchg-schedule/1, "text": one line
 * per message) through write(ctx, data, len), every block of every message
 * (every token of its operation, phase by phase, for the other operations).
 * max_work bounds p*p*steps (0: 2e9). Returns 0; XCHG_EINVAL for a NULL
 * argument, an unknown format (message lists json|text), a malformed step
 * (the block follower's message), or when write returns nonzero (the
 * export stops there; output is then incomplete);
 * XCHG_ETOOBIG when p*p*steps exceeds the limit or p*p exceeds 2^27 blocks
 * (positions would not fit memory sensibly); XCHG_ENOMEM. Nothing is written
 * before the limits are checked and the memory is allocated.
 */
int xchg_export(const xchg_sched *s, const char *format, uint64_t max_work,
                xchg_write_fn write, void *ctx, xchg_err *err)
{
    if (!s || !format || !write)
        return xchg_fail(err, XCHG_EINVAL,
                         "xchg_export: schedule, format and write callback must not be NULL");
    int json;
    if (strcmp(format, "json") == 0)
        json = 1;
    else if (strcmp(format, "text") == 0)
        json = 0;
    else
        return xchg_fail(err, XCHG_EINVAL, "unknown export format '%s'; accepted: json|text",
                         format);
    uint32_t p = s->topo.nodes;
    size_t nsteps = s->nsteps;
    int rc = check_limits(p, nsteps, max_work ? max_work : EXPORT_DEFAULT_WORK, err);
    if (rc)
        return rc;

    xchg_follower *f = NULL;
    if ((rc = xchg_follower_new(s, &f, err)))
        return rc;
    work w;
    sink *o = malloc(sizeof *o);
    if (!o || work_alloc(&w, p, nsteps) != XCHG_OK) {
        free(o);
        xchg_follower_free(f);
        return xchg_fail(err, XCHG_ENOMEM, "export: out of memory for %llu blocks",
                         (unsigned long long)p * p);
    }
    o->write = write;
    o->ctx = ctx;
    o->rc = 0;
    o->len = 0;

    put_header(o, s, json);
    for (size_t k = 0; k < xchg_sched_nphases(s) && !o->rc; k++) {
        xchg_op op = s->op;
        size_t first = 0, end = nsteps;
        xchg_sched_phase(s, k, &op, &first, &end);
        if (s->nphases) { /* each phase's tokens start at their origins */
            if (k)
                work_reset(&w, p);
            if (!json) {
                puts_(o, "phase");
                put_op(o, &op, 0);
                put(o, "\n", 1);
            }
        }
        for (size_t i = first; i < end && !o->rc; i++) {
            if (json)
                puts_(o, i ? ",[" : "[");
            export_step(f, i, &op, &w, o, json);
            if (json)
                put(o, "]", 1);
        }
    }
    if (json) {
        put(o, "]", 1);
        put_json_copies(o, s);
        puts_(o, "}\n");
    }
    sink_flush(o);
    rc = o->rc;
    work_free(&w);
    free(o);
    xchg_follower_free(f);
    if (rc)
        return xchg_fail(err, XCHG_EINVAL,
                         "export: the write callback failed (returned %d); output is "
                         "incomplete",
                         rc);
    return XCHG_OK;
}
