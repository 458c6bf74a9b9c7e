/*
 * ops.c - helpers of the operations' algorithms (ops.h): options, the
 * parameter check, a schedule that records its operation, and the recursive
 * halving of a line of any length that the rooted operations of the ring,
 * linear array and mesh share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg/ops.h"

int xchg_ops_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    opts->shift = 1;
    if (args[0] == '\0')
        return XCHG_OK;
    uint64_t v;
    if (strncmp(args, "root=", 5) == 0 && xchg_parse_u64(args + 5, 0, UINT32_MAX - 1, &v) == 0) {
        opts->root = (uint32_t)v;
        return XCHG_OK;
    }
    if (strncmp(args, "q=", 2) == 0 && xchg_parse_u64(args + 2, 1, UINT32_MAX - 1, &v) == 0) {
        opts->shift = (uint32_t)v;
        return XCHG_OK;
    }
    return xchg_fail(err, XCHG_EINVAL,
                     "unknown option '%s'; accepted: root=R (a node, for bcast, reduce, "
                     "scatter and gather) or q=Q (the shift, 1 <= Q < p)",
                     args);
}

xchg_op xchg_ops_op(const xchg_alg *a, const xchg_opts *opts)
{
    xchg_op op = {a->op, 0, 0, 0};
    int rooted = a->op == XCHG_OP_BCAST || a->op == XCHG_OP_REDUCE || a->op == XCHG_OP_SCATTER ||
                 a->op == XCHG_OP_GATHER;
    if (rooted)
        op.root = opts->root;
    if (a->op == XCHG_OP_SHIFT)
        op.shift = opts->shift ? opts->shift : 1;
    return op;
}

int xchg_ops_check(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts, xchg_err *err)
{
    xchg_op op = xchg_ops_op(a, opts);
    xchg_err why = {{0}};
    if (xchg_op_check(&op, t->nodes, &why) == XCHG_OK)
        return XCHG_OK;
    return xchg_fail(err, XCHG_EINVAL, "%s: %s", a->name, why.msg);
}

xchg_sched *xchg_ops_new(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts)
{
    char spec[96];
    xchg_op op = xchg_ops_op(a, opts);
    if (opts->args[0])
        snprintf(spec, sizeof spec, "%.40s:%.50s", a->name, opts->args);
    else
        snprintf(spec, sizeof spec, "%s", a->name);
    xchg_sched *s = xchg_sched_new(t, spec, xchg_alg_claims_free(a, t));
    if (s)
        s->op = op;
    return s;
}

xchg_step xchg_ops_table_step(uint32_t *part, xchg_rule rule, uint64_t blocks)
{
    xchg_step st = xchg_step_xor(1, rule, blocks);
    st.partner = XCHG_PARTNER_TABLE;
    st.xor_mask = 0;
    st.partner_table = part;
    return st;
}

/* ---- recursive halving (ops.h) ------------------------------------- */

void xchg_ops_halve(const xchg_ops_seg *seg, xchg_ops_seg *kept, xchg_ops_seg *sent)
{
    uint32_t len = seg->hi - seg->lo, c = (len + 1) / 2, f = len / 2;
    uint32_t o = seg->holder - seg->lo;
    if (o < c) {
        *kept = (xchg_ops_seg){seg->lo, seg->lo + c, seg->holder};
        *sent = (xchg_ops_seg){seg->lo + c, seg->hi, seg->lo + c + (o < f ? o : f - 1)};
    } else {
        /* the holder sits in the last c positions: it keeps those */
        *kept = (xchg_ops_seg){seg->lo + f, seg->hi, seg->holder};
        *sent = (xchg_ops_seg){seg->lo, seg->lo + f, seg->lo + (o - f < f ? o - f : f - 1)};
    }
}

int xchg_ops_halving_sends(uint32_t n, uint32_t h0, int k, uint32_t x, xchg_ops_seg *sent)
{
    xchg_ops_seg seg = {0, n, h0}, kept, half;
    for (int j = 0; j <= k; j++) {
        if (seg.hi - seg.lo < 2)
            return 0;
        xchg_ops_halve(&seg, &kept, &half);
        if (j == k) {
            if (x != seg.holder)
                return 0;
            *sent = half;
            return 1;
        }
        seg = x >= half.lo && x < half.hi ? half : kept;
    }
    return 0;
}

/* One message of a halving level: positions from -> to, count positions
 * sent. */
typedef struct halving_send {
    uint32_t from, to, count;
} halving_send;

/* Every level of the halving of [0, n) from h0: the messages of level k are
 * sends[first[k] .. first[k+1]). Level by level over the segment list, O(n)
 * a level. Returns 0 or ENOMEM; free sends and first. */
typedef struct halving_plan {
    int levels;
    size_t *first;
    halving_send *sends;
} halving_plan;

static int halving_plan_make(uint32_t n, uint32_t h0, halving_plan *h)
{
    h->levels = xchg_alg_log2(n);
    h->first = malloc(((size_t)h->levels + 1) * sizeof *h->first);
    h->sends = malloc((size_t)n * sizeof *h->sends);
    xchg_ops_seg *segs = malloc((size_t)n * sizeof *segs);
    xchg_ops_seg *next = malloc((size_t)n * sizeof *next);
    if (!h->first || !h->sends || !segs || !next) {
        free(h->first), free(h->sends), free(segs), free(next);
        h->first = NULL;
        h->sends = NULL;
        return XCHG_ENOMEM;
    }
    size_t nsegs = 1, ns = 0;
    segs[0] = (xchg_ops_seg){0, n, h0};
    for (int k = 0; k < h->levels; k++) {
        size_t nn = 0;
        h->first[k] = ns;
        for (size_t i = 0; i < nsegs; i++) {
            if (segs[i].hi - segs[i].lo < 2) {
                next[nn++] = segs[i];
                continue;
            }
            xchg_ops_seg kept, sent;
            xchg_ops_halve(&segs[i], &kept, &sent);
            h->sends[ns++] = (halving_send){segs[i].holder, sent.holder, sent.hi - sent.lo};
            next[nn++] = kept;
            next[nn++] = sent;
        }
        xchg_ops_seg *tmp = segs;
        segs = next;
        next = tmp;
        nsegs = nn;
    }
    h->first[h->levels] = ns;
    free(segs);
    free(next);
    return XCHG_OK;
}

/* The context of the down schedules' rule: the grid and the root. */
typedef struct halving_ctx {
    uint32_t rows, cols, root;
    uint32_t row_levels; /* steps along the root's row, ceil(log2 cols) */
} halving_ctx;

/* Does node, sending at step, send token (origin, dest)? Along the root's
 * row the tokens whose dest column is in the half sent; then, along every
 * column, those whose dest row is. */
static int halving_select(const void *ctx, size_t step, uint32_t node, uint32_t origin,
                          uint32_t dest)
{
    const halving_ctx *c = ctx;
    uint32_t rr = c->root / c->cols, rc = c->root % c->cols;
    xchg_ops_seg sent;
    (void)origin;
    if (step < c->row_levels) {
        if (node / c->cols != rr ||
            !xchg_ops_halving_sends(c->cols, rc, (int)step, node % c->cols, &sent))
            return 0;
        return dest % c->cols >= sent.lo && dest % c->cols < sent.hi;
    }
    if (!xchg_ops_halving_sends(c->rows, rr, (int)(step - c->row_levels), node / c->cols, &sent))
        return 0;
    return dest / c->cols >= sent.lo && dest / c->cols < sent.hi;
}

/* Append the step of level k of plan h, down or up, along one line or
 * every line at once: along the root's row or every row (positions are
 * columns; along_row 1), or along the root's column or every column
 * (positions are rows). A message per token carries its half's tokens of
 * every line it stands for (the whole columns or rows when one line does
 * the work of all). */
static int halving_step(xchg_sched *s, const halving_plan *h, int k, int along_row, int every,
                        uint32_t rows, uint32_t cols, int down, int per_token, xchg_err *err)
{
    uint32_t p = s->topo.nodes, root = s->op.root;
    uint32_t line0 = along_row ? root / cols : root % cols;
    uint32_t lines = every ? (along_row ? rows : cols) : 1;
    uint32_t width = every ? 1 : along_row ? rows : cols;
    uint32_t *part = malloc((size_t)p * sizeof *part);
    uint32_t *size = per_token ? calloc(p, sizeof *size) : NULL;
    if (!part || (per_token && !size)) {
        free(part);
        free(size);
        xchg_sched_free(s);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    for (uint32_t n = 0; n < p; n++)
        part[n] = XCHG_NONE;
    for (size_t i = h->first[k]; i < h->first[k + 1]; i++) {
        const halving_send *m = &h->sends[i];
        for (uint32_t l = 0; l < lines; l++) {
            uint32_t line = every ? l : line0;
            uint32_t from = along_row ? line * cols + m->from : m->from * cols + line;
            uint32_t to = along_row ? line * cols + m->to : m->to * cols + line;
            if (!down) {
                uint32_t x = from;
                from = to;
                to = x;
            }
            part[from] = to;
            if (size)
                size[from] = m->count * width;
        }
    }
    xchg_rule rule = down ? xchg_rule_fn(halving_select) : xchg_rule_dest_mask_to(0);
    xchg_step st = xchg_ops_table_step(part, rule, 1);
    st.blocks_table = size;
    st.group_arg = along_row ? XCHG_OPS_GROUP_ROW : XCHG_OPS_GROUP_COLUMN;
    return xchg_alg_add(s, &st, err);
}

int xchg_ops_halving_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                              uint32_t rows, uint32_t cols, int down, int per_token,
                              xchg_sched **out, xchg_err *err)
{
    xchg_sched *s = xchg_ops_new(a, t, opts);
    halving_ctx *c = down ? malloc(sizeof *c) : NULL;
    halving_plan hr = {0, NULL, NULL}, hc = {0, NULL, NULL};
    int rc = s && (!down || c) ? XCHG_OK : XCHG_ENOMEM;
    if (rc == XCHG_OK && c) {
        *c = (halving_ctx){rows, cols, s->op.root, (uint32_t)xchg_alg_log2(cols)};
        s->ctx = c;
        s->ctx_free = free;
        s->ctx_bytes = sizeof *c;
        c = NULL;
    }
    if (rc == XCHG_OK)
        rc = halving_plan_make(cols, s->op.root % cols, &hr);
    if (rc == XCHG_OK)
        rc = halving_plan_make(rows, s->op.root / cols, &hc);
    if (rc != XCHG_OK) {
        free(c);
        xchg_sched_free(s);
        free(hr.first), free(hr.sends);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    /* down: the root's row's levels, then every column's; gather: those
     * steps reversed; reduce: every row's levels reversed, then the root's
     * column's, so that each partial is an interval of ids (rank order) */
    int nr = hr.levels, nc = hc.levels, reduce = !down && !per_token;
    for (int i = 0; i < nr + nc && rc == XCHG_OK; i++) {
        int row = down || reduce ? i < nr : i >= nc, k;
        if (down)
            k = row ? i : i - nr;
        else if (reduce)
            k = row ? nr - 1 - i : nc - 1 - (i - nr);
        else
            k = row ? nr - 1 - (i - nc) : nc - 1 - i;
        rc = halving_step(s, row ? &hr : &hc, k, row, reduce ? row : !row, rows, cols, down,
                          per_token, err);
    }
    free(hr.first), free(hr.sends);
    free(hc.first), free(hc.sends);
    if (rc != XCHG_OK)
        return rc; /* halving_step freed s */
    *out = s;
    return XCHG_OK;
}

void xchg_ops_halving_counts(uint32_t rows, uint32_t cols, int per_token, xchg_counts *out)
{
    out->startups = (uint64_t)xchg_alg_log2(rows) + (uint64_t)xchg_alg_log2(cols);
    out->volume_blocks = per_token ? (uint64_t)rows * cols - 1 : out->startups;
    out->copy_blocks = 0;
}

void xchg_ops_halving_estimate(uint32_t rows, uint32_t cols, int down, int per_token,
                               xchg_estimate *out)
{
    uint64_t steps = (uint64_t)xchg_alg_log2(rows) + (uint64_t)xchg_alg_log2(cols);
    uint64_t p = (uint64_t)rows * cols;
    xchg_est_steps(out, steps);
    xchg_est_tables(out, steps * (per_token ? 2 : 1), p, sizeof(uint32_t));
    if (down)
        xchg_est_add(out, sizeof(halving_ctx), 1);
}

int xchg_ops_shift_steps(xchg_sched *s, int dim, uint32_t by, xchg_err *err)
{
    uint32_t n = dim < 0 ? s->topo.nodes : s->topo.size[dim];
    uint32_t k = by <= n - by ? by : n - by;
    for (uint32_t i = 0; i < k; i++) {
        xchg_step st = xchg_step_shift(dim, by <= n - by ? 1 : -1, xchg_rule_dest_mask_to(0), 1);
        st.group_arg = dim == 0 ? XCHG_OPS_GROUP_COLUMN : XCHG_OPS_GROUP_ROW;
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    return XCHG_OK;
}
