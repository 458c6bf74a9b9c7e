/*
 * sched.c - the schedule: building it step by step (for generators) and
 * reading it message by message (public API). See sched_internal.h for the
 * representation: per step a partner rule, a block rule and declared sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

xchg_sched *xchg_sched_new(const xchg_topo *t, const char *algorithm, int contention_free)
{
    xchg_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->topo = *t;
    size_t n = strlen(algorithm);
    if (n >= sizeof s->algorithm)
        n = sizeof s->algorithm - 1;
    memcpy(s->algorithm, algorithm, n);
    s->algorithm[n] = '\0';
    s->contention_free = contention_free;
    return s;
}

/* Free the tables a step owns. */
static void step_release(xchg_step *st)
{
    free(st->partner_table);
    free(st->blocks_table);
    free(st->class_table);
    st->partner_table = NULL;
    st->blocks_table = NULL;
    st->class_table = NULL;
}

/* First capacity of the step array; it doubles when full. */
#define STEP_CAP_FIRST 16

uint64_t xchg_sched_step_capacity(uint64_t n)
{
    uint64_t cap = n ? STEP_CAP_FIRST : 0;
    while (cap < n)
        cap *= 2;
    return cap;
}

uint64_t xchg_sched_bytes(const xchg_sched *s)
{
    if (!s)
        return 0;
    uint64_t p = s->topo.nodes;
    uint64_t b = sizeof *s + (uint64_t)s->cap * sizeof *s->steps + s->ctx_bytes;
    for (size_t i = 0; i < s->nsteps; i++) {
        const xchg_step *st = &s->steps[i];
        if (st->partner_table)
            b += p * sizeof *st->partner_table;
        if (st->blocks_table)
            b += p * sizeof *st->blocks_table;
        if (st->class_table)
            b += p * sizeof *st->class_table;
    }
    return b;
}

int xchg_sched_add(xchg_sched *s, const xchg_step *step)
{
    xchg_step st = *step;
    if (s->nsteps == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : STEP_CAP_FIRST;
        xchg_step *grown = realloc(s->steps, cap * sizeof *grown);
        if (!grown) {
            step_release(&st);
            return XCHG_ENOMEM;
        }
        s->steps = grown;
        s->cap = cap;
    }
    st.max_blocks = 0;
    if (st.blocks_table) {
        for (uint32_t i = 0; i < s->topo.nodes; i++) {
            uint32_t to = xchg_step_partner(&s->topo, &st, i);
            if (to != XCHG_NONE && st.blocks_table[i] > st.max_blocks)
                st.max_blocks = st.blocks_table[i];
        }
    } else if (st.partner != XCHG_PARTNER_TABLE) {
        st.max_blocks = st.blocks;
    } else {
        for (uint32_t i = 0; i < s->topo.nodes; i++)
            if (st.partner_table[i] != XCHG_NONE) {
                st.max_blocks = st.blocks;
                break;
            }
    }
    s->steps[s->nsteps++] = st;
    return XCHG_OK;
}

void xchg_sched_free(xchg_sched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nsteps; i++)
        step_release(&s->steps[i]);
    free(s->steps);
    if (s->ctx_free)
        s->ctx_free(s->ctx);
    free(s);
}

xchg_step xchg_step_xor(uint32_t mask, xchg_rule rule, uint64_t blocks)
{
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_XOR;
    st.xor_mask = mask;
    st.rule = rule;
    st.blocks = blocks;
    st.route_policy = XCHG_ROUTE_SHORTEST;
    return st;
}

xchg_step xchg_step_shift(int dim, int64_t shift, xchg_rule rule, uint64_t blocks)
{
    xchg_step st;
    memset(&st, 0, sizeof st);
    st.partner = XCHG_PARTNER_SHIFT;
    st.shift_dim = dim;
    st.shift = shift;
    st.rule = rule;
    st.blocks = blocks;
    st.route_policy = XCHG_ROUTE_SHORTEST;
    return st;
}

xchg_step xchg_step_parity(int dim, int64_t shift_even, int64_t shift_odd, xchg_rule rule,
                           uint64_t blocks)
{
    xchg_step st = xchg_step_shift(dim, shift_even, rule, blocks);
    st.partner = XCHG_PARTNER_PARITY;
    st.shift_odd = shift_odd;
    return st;
}

/* A rule of the given kind with every parameter zero. */
static xchg_rule rule_of(xchg_rule_kind kind)
{
    xchg_rule r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}

xchg_rule xchg_rule_dest_is_to(void)
{
    return rule_of(XCHG_RULE_DEST_IS_TO);
}

xchg_rule xchg_rule_dest_mask_to(uint32_t mask)
{
    xchg_rule r = rule_of(XCHG_RULE_DEST_MASK_TO);
    r.mask = mask;
    return r;
}

xchg_rule xchg_rule_coord_ne(int dim)
{
    xchg_rule r = rule_of(XCHG_RULE_COORD_NE);
    r.dim = dim;
    return r;
}

xchg_rule xchg_rule_coord_dist(int dim, int dir, uint32_t lo, uint32_t hi)
{
    xchg_rule r = rule_of(XCHG_RULE_COORD_DIST);
    r.dim = dim;
    r.dir = dir;
    r.lo = lo;
    r.hi = hi;
    return r;
}

xchg_rule xchg_rule_coord_side(int dim, int dir)
{
    xchg_rule r = rule_of(XCHG_RULE_COORD_SIDE);
    r.dim = dim;
    r.dir = dir;
    return r;
}

xchg_rule xchg_rule_rel_digit(uint32_t radix, uint32_t weight, uint32_t digit)
{
    xchg_rule r = rule_of(XCHG_RULE_REL_DIGIT);
    r.radix = radix;
    r.weight = weight;
    r.digit = digit;
    return r;
}

xchg_rule xchg_rule_fn(xchg_rule_callback fn)
{
    xchg_rule r = rule_of(XCHG_RULE_FN);
    r.fn = fn;
    return r;
}

xchg_rule xchg_rule_rel_linear(void)
{
    return rule_of(XCHG_RULE_REL_LINEAR);
}

xchg_rule xchg_rule_class_dist(void)
{
    xchg_rule r = rule_of(XCHG_RULE_CLASS_DIST);
    for (int c = 0; c < XCHG_RULE_CDIST_CLASSES; c++) {
        r.cdist[c].div = 1;
        r.cdist[c].mod = 1;
        r.cdist[c].dir = 1;
        r.cdist[c].lo = 1;
        r.cdist[c].hi = 0;
        r.cdist[c].olo = 0;
        r.cdist[c].ohi = UINT32_MAX;
    }
    return r;
}

/* --- reading -------------------------------------------------------- */

const xchg_topo *xchg_sched_topo(const xchg_sched *s)
{
    return &s->topo;
}

size_t xchg_sched_nsteps(const xchg_sched *s)
{
    return s->nsteps;
}

const char *xchg_sched_algorithm(const xchg_sched *s)
{
    return s->algorithm;
}

int xchg_sched_contention_free(const xchg_sched *s)
{
    return s->contention_free;
}

void xchg_sched_message(const xchg_sched *s, size_t step, uint32_t node, xchg_msg *out)
{
    memset(out, 0, sizeof *out);
    out->from = node;
    out->to = XCHG_NONE;
    if (step >= s->nsteps || node >= s->topo.nodes)
        return;
    const xchg_step *st = &s->steps[step];
    out->to = xchg_step_partner(&s->topo, st, node);
    out->blocks = out->to == XCHG_NONE ? 0 : xchg_step_blocks(st, node);
    out->route_policy = st->route_policy;
}

int xchg_sched_selects(const xchg_sched *s, size_t step, uint32_t node, uint32_t origin,
                       uint32_t dest)
{
    if (step >= s->nsteps || node >= s->topo.nodes)
        return 0;
    const xchg_step *st = &s->steps[step];
    uint32_t to = xchg_step_partner(&s->topo, st, node);
    if (to == XCHG_NONE)
        return 0;
    return xchg_rule_eval(s, &st->rule, step, node, to, origin, dest);
}

uint64_t xchg_sched_copy_blocks(const xchg_sched *s, size_t step)
{
    return step < s->nsteps ? s->steps[step].copy_blocks : 0;
}

uint64_t xchg_sched_step_max_blocks(const xchg_sched *s, size_t step)
{
    return step < s->nsteps ? s->steps[step].max_blocks : 0;
}

int xchg_sched_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    if (name && len)
        name[0] = '\0';
    if (!s || !s->group_fn || step >= s->nsteps || node >= s->topo.nodes || !name || len < 2)
        return -1;
    uint32_t to = xchg_step_partner(&s->topo, &s->steps[step], node);
    if (to == XCHG_NONE || to == node)
        return -1;
    int k = s->group_fn(s, step, node, name, len);
    if (k < 0)
        name[0] = '\0';
    return k;
}
