/*
 * follow.c - the one block follower: compiling a schedule's steps
 * (xchg_follower_new), freeing them, and the public calls that follow one
 * block or one origin's blocks (xchg_core.h, "Block follower"). The inner loops
 * live in follow.h; the per-node iterator in follow_node.c.
 *
 * Compiling a step goes: check the partner kind, compile the rule (one
 * function per rule kind that needs more than its kind), then compile the
 * partner (inline XOR or tables). The checks come in that order so that a
 * step with several faults is reported the same way every time, with the
 * messages the verifier has always given.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/follow.h"

/* Does step st's XOR partner always name a valid other node, so the inner
 * loop may compute it inline? (mask nonzero and below p, p a power of two) */
static int inline_xor(const xchg_step *st, uint32_t p)
{
    return st->partner == XCHG_PARTNER_XOR && st->xor_mask != 0 && st->xor_mask < p &&
           (p & (p - 1)) == 0;
}

uint64_t xchg_follower_bytes(const xchg_sched *s)
{
    uint64_t p = s->topo.nodes, total = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        const xchg_step *st = &s->steps[k];
        if (!inline_xor(st, (uint32_t)p))
            total += 8 * p; /* partner and target tables */
        if (st->rule.kind == XCHG_RULE_REL_DIGIT)
            total += p;     /* selection per (dest - origin) mod p */
        if (st->rule.kind == XCHG_RULE_CLASS_DIST)
            total += XCHG_RULE_CDIST_CLASSES * sizeof(xchg_cdclass);
    }
    return total + p * 4 * (uint64_t)s->topo.ndims; /* coordinate tables */
}

uint64_t xchg_follower_held(const xchg_follower *f)
{
    if (!f)
        return 0;
    uint64_t p = f->p, b = sizeof *f + ((uint64_t)f->nsteps + 1) * sizeof *f->steps;
    for (size_t k = 0; k < f->nsteps; k++) {
        const xchg_cstep *cs = &f->steps[k];
        b += (cs->part ? p * sizeof *cs->part : 0) + (cs->tgt ? p * sizeof *cs->tgt : 0);
        b += cs->relsel ? p : 0;
        b += cs->cd ? XCHG_RULE_CDIST_CLASSES * sizeof *cs->cd : 0;
    }
    for (int k = 0; k < XCHG_MAX_DIMS; k++)
        b += f->coords[k] ? p * sizeof *f->coords[k] : 0;
    return b + (uint64_t)f->nlct * p * sizeof *f->lct[0].tab;
}

uint64_t xchg_follower_held_max(const xchg_topo *t, uint64_t nsteps)
{
    uint64_t p = t->nodes;
    uint64_t cd = XCHG_RULE_CDIST_CLASSES * sizeof(xchg_cdclass);
    uint64_t per_step = 2 * p * sizeof(uint32_t) + (p > cd ? p : cd);
    /* class-dist rules ask for at most XCHG_RULE_CDIST_CLASSES logical
     * tables a step, and at most XCHG_FOLLOW_MAX_LTABLES distinct ones */
    uint64_t lct = xchg_est_prod(XCHG_RULE_CDIST_CLASSES, nsteps);
    if (lct > XCHG_FOLLOW_MAX_LTABLES)
        lct = XCHG_FOLLOW_MAX_LTABLES;
    uint64_t tables = xchg_est_prod(lct + (uint64_t)t->ndims, p * sizeof(uint32_t));
    uint64_t b = sizeof(xchg_follower);
    b = xchg_est_sum(b, xchg_est_prod(xchg_est_sum(nsteps, 1), sizeof(xchg_cstep)));
    b = xchg_est_sum(b, xchg_est_prod(nsteps, per_step));
    return xchg_est_sum(b, tables);
}

/* ------------------------------------------------------------------ */
/* Coordinate tables                                                   */
/* ------------------------------------------------------------------ */

/* Coordinate of every node along dim (made once, shared by the steps);
 * NULL when out of memory. */
static const uint32_t *coord_table(xchg_follower *f, int dim)
{
    if (!f->coords[dim]) {
        uint32_t *c = malloc((size_t)f->p * sizeof *c);
        if (!c)
            return NULL;
        for (uint32_t i = 0; i < f->p; i++)
            c[i] = xchg_coord(&f->s->topo, i, dim);
        f->coords[dim] = c;
    }
    return f->coords[dim];
}

/* Logical coordinate (coord(id, dim) / div) % mod of every node (made once
 * per (dim, div, mod), shared); NULL when out of memory or out of slots. */
static const uint32_t *logical_table(xchg_follower *f, int dim, uint32_t div, uint32_t mod)
{
    for (int i = 0; i < f->nlct; i++)
        if (f->lct[i].dim == dim && f->lct[i].div == div && f->lct[i].mod == mod)
            return f->lct[i].tab;
    if (f->nlct == XCHG_FOLLOW_MAX_LTABLES)
        return NULL;
    const uint32_t *c = coord_table(f, dim);
    uint32_t *tab = c ? malloc((size_t)f->p * sizeof *tab) : NULL;
    if (!tab)
        return NULL;
    for (uint32_t i = 0; i < f->p; i++)
        tab[i] = c[i] / div % mod;
    f->lct[f->nlct].dim = dim;
    f->lct[f->nlct].div = div;
    f->lct[f->nlct].mod = mod;
    f->lct[f->nlct].tab = tab;
    f->nlct++;
    return tab;
}

/* ------------------------------------------------------------------ */
/* Compiling one step                                                  */
/* ------------------------------------------------------------------ */

/* Is step s's partner well formed? EINVAL for a shift along a missing
 * dimension, a table kind without a table, an unknown kind. */
static int check_partner(const xchg_follower *f, size_t s, xchg_err *err)
{
    const xchg_step *st = &f->s->steps[s];
    const xchg_topo *t = &f->s->topo;
    switch (st->partner) {
    case XCHG_PARTNER_XOR:
        return XCHG_OK;
    case XCHG_PARTNER_SHIFT:
    case XCHG_PARTNER_PARITY:
        if (st->shift_dim < -1 || st->shift_dim >= t->ndims)
            return xchg_fail(err, XCHG_EINVAL,
                             "step %zu shifts along dimension %d; the topology has %d", s,
                             st->shift_dim, t->ndims);
        return XCHG_OK;
    case XCHG_PARTNER_TABLE:
        if (!st->partner_table)
            return xchg_fail(err, XCHG_EINVAL, "step %zu has a partner table kind but no table",
                             s);
        return XCHG_OK;
    }
    return xchg_fail(err, XCHG_EINVAL, "step %zu has unknown partner kind %d", s,
                     (int)st->partner);
}

/* COORD_NE, COORD_DIST, COORD_SIDE: the dimension's coordinate table and
 * the distance range. EINVAL for a missing dimension, ENOMEM. */
static int compile_coord(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_rule *ru = &f->s->steps[s].rule;
    const xchg_topo *t = &f->s->topo;
    if (ru->dim < 0 || ru->dim >= t->ndims)
        return xchg_fail(err, XCHG_EINVAL, "step %zu rule reads dimension %d; the topology has %d",
                         s, ru->dim, t->ndims);
    if (!(cs->cc = coord_table(f, ru->dim)))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
    cs->n = t->size[ru->dim];
    cs->lo = ru->lo;
    cs->hi = ru->hi;
    cs->dir = ru->dir;
    return XCHG_OK;
}

/* REL_DIGIT: whether each relative position (dest - origin) mod p is
 * selected, one byte each. EINVAL for a zero radix or weight, ENOMEM. */
static int compile_rel_digit(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_rule *ru = &f->s->steps[s].rule;
    if (ru->radix == 0 || ru->weight == 0)
        return xchg_fail(err, XCHG_EINVAL, "step %zu rel-digit rule has radix %u weight %u", s,
                         ru->radix, ru->weight);
    if (!(cs->relsel = malloc(f->p)))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
    for (uint32_t rel = 0; rel < f->p; rel++)
        cs->relsel[rel] = (uint8_t)((rel / ru->weight) % ru->radix == ru->digit);
    return XCHG_OK;
}

/* Is every node's class in the step's class table below nclasses? EINVAL
 * naming the first that is not (`what` names the rule kind). */
static int check_classes(const xchg_follower *f, size_t s, int nclasses, const char *what,
                         xchg_err *err)
{
    const uint8_t *cls = f->s->steps[s].class_table;
    if (cls)
        for (uint32_t n = 0; n < f->p; n++)
            if (cls[n] >= nclasses)
                return xchg_fail(err, XCHG_EINVAL, "step %zu gives node %u class %u; a %s has %d",
                                 s, n, (unsigned)cls[n], what, nclasses);
    return XCHG_OK;
}

/* REL_LINEAR: the class table, and the rule for its masks and values per
 * class. EINVAL for a class out of range. */
static int compile_linear(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_step *st = &f->s->steps[s];
    cs->cls = st->class_table;
    cs->lin = &st->rule;
    return check_classes(f, s, XCHG_RULE_CLASSES, "linear rule", err);
}

/* CLASS_DIST: per class, its logical coordinate table and ranges. EINVAL
 * for a class out of range or a class reading a missing dimension or with
 * a zero div or mod; ENOMEM (also when the tables run out of slots). */
static int compile_class_dist(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_step *st = &f->s->steps[s];
    const xchg_topo *t = &f->s->topo;
    cs->cls = st->class_table;
    int rc = check_classes(f, s, XCHG_RULE_CDIST_CLASSES, "class-dist rule", err);
    if (rc)
        return rc;
    if (!(cs->cd = calloc(XCHG_RULE_CDIST_CLASSES, sizeof *cs->cd)))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
    for (int c = 0; c < XCHG_RULE_CDIST_CLASSES; c++) {
        const xchg_cdist *q = &st->rule.cdist[c];
        xchg_cdclass *k = &cs->cd[c];
        if (q->dim < 0 || q->dim >= t->ndims || q->div == 0 || q->mod == 0)
            return xchg_fail(err, XCHG_EINVAL,
                             "step %zu class-dist class %d reads dimension %d with div %u "
                             "mod %u; the topology has %d dimensions",
                             s, c, q->dim, q->div, q->mod, t->ndims);
        if (!(k->lc = logical_table(f, q->dim, q->div, q->mod)))
            return xchg_fail(err, XCHG_ENOMEM,
                             "out of memory preparing step %zu (or more than %d distinct "
                             "class-dist coordinate tables)",
                             s, XCHG_FOLLOW_MAX_LTABLES);
        k->m = q->mod;
        k->lo = q->lo;
        k->hi = q->hi;
        k->dir = q->dir;
        k->olo = q->olo;
        k->ohi = q->ohi;
        k->ochk = !(q->olo == 0 && q->ohi == UINT32_MAX);
    }
    return XCHG_OK;
}

/* Compile step s's rule into cs by kind. EINVAL on a malformed rule or an
 * unknown kind, ENOMEM. */
static int compile_rule(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_rule *ru = &f->s->steps[s].rule;
    cs->rk = ru->kind;
    switch (ru->kind) {
    case XCHG_RULE_DEST_IS_TO:
        return XCHG_OK;
    case XCHG_RULE_DEST_MASK_TO:
        cs->rmask = ru->mask;
        return XCHG_OK;
    case XCHG_RULE_COORD_NE:
    case XCHG_RULE_COORD_DIST:
    case XCHG_RULE_COORD_SIDE:
        return compile_coord(f, s, cs, err);
    case XCHG_RULE_REL_DIGIT:
        return compile_rel_digit(f, s, cs, err);
    case XCHG_RULE_FN:
        if (!ru->fn)
            return xchg_fail(err, XCHG_EINVAL, "step %zu has a callback rule without a callback",
                             s);
        return XCHG_OK;
    case XCHG_RULE_REL_LINEAR:
        return compile_linear(f, s, cs, err);
    case XCHG_RULE_CLASS_DIST:
        return compile_class_dist(f, s, cs, err);
    }
    return xchg_fail(err, XCHG_EINVAL, "step %zu has unknown rule kind %d", s, (int)ru->kind);
}

/* Compile step s's partner into cs: inline XOR when it always names a valid
 * other node, else partner and target tables. Sets cs->active. ENOMEM. */
static int compile_partner(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    const xchg_step *st = &f->s->steps[s];
    uint32_t p = f->p;
    if (inline_xor(st, p)) {
        cs->pk = XCHG_CPARTNER_XOR;
        cs->xmask = st->xor_mask;
        cs->active = 1;
        return XCHG_OK;
    }
    cs->pk = XCHG_CPARTNER_TABLE;
    cs->part = malloc((size_t)p * sizeof *cs->part);
    cs->tgt = malloc((size_t)p * sizeof *cs->tgt);
    if (!cs->part || !cs->tgt)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory preparing step %zu", s);
    for (uint32_t n = 0; n < p; n++) {
        uint32_t to = xchg_step_partner(&f->s->topo, st, n);
        cs->part[n] = to;
        cs->tgt[n] = xchg_follow_target(n, to, p);
        if (to != XCHG_NONE)
            cs->active = 1;
    }
    return XCHG_OK;
}

/* Compile step s into cs (zeroed first; on failure what it holds is still
 * freed by cstep_free). EINVAL on a malformed step, ENOMEM. */
static int compile_step(xchg_follower *f, size_t s, xchg_cstep *cs, xchg_err *err)
{
    memset(cs, 0, sizeof *cs);
    int rc = check_partner(f, s, err);
    if (rc == XCHG_OK)
        rc = compile_rule(f, s, cs, err);
    if (rc == XCHG_OK)
        rc = compile_partner(f, s, cs, err);
    return rc;
}

/* Free the tables a compiled step owns. */
static void cstep_free(xchg_cstep *cs)
{
    free(cs->part);
    free(cs->tgt);
    free(cs->relsel);
    free(cs->cd);
}

/* ------------------------------------------------------------------ */
/* The follower                                                        */
/* ------------------------------------------------------------------ */

void xchg_follower_free(xchg_follower *f)
{
    if (!f)
        return;
    if (f->steps)
        for (size_t k = 0; k < f->nsteps; k++)
            cstep_free(&f->steps[k]);
    free(f->steps);
    for (int k = 0; k < XCHG_MAX_DIMS; k++)
        free(f->coords[k]);
    for (int k = 0; k < f->nlct; k++)
        free(f->lct[k].tab);
    free(f);
}

int xchg_follower_new(const xchg_sched *s, xchg_follower **out, xchg_err *err)
{
    if (!s || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_follower_new needs a schedule and an out pointer");
    if (s->topo.nodes == 0)
        return xchg_fail(err, XCHG_EINVAL, "schedule's topology has no nodes");
    xchg_follower *f = calloc(1, sizeof *f);
    if (!f)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory compiling the schedule");
    f->s = s;
    f->p = s->topo.nodes;
    f->nsteps = s->nsteps;
    /* calloc: every step's table pointers start NULL, so a failure part way
     * frees exactly what was made */
    f->steps = calloc(s->nsteps + 1, sizeof *f->steps);
    if (!f->steps) {
        xchg_follower_free(f);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory compiling %zu steps", s->nsteps);
    }
    for (size_t k = 0; k < s->nsteps; k++) {
        int rc = compile_step(f, k, &f->steps[k], err);
        if (rc) {
            xchg_follower_free(f);
            return rc;
        }
    }
    *out = f;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* Following                                                           */
/* ------------------------------------------------------------------ */

int xchg_follow_block(const xchg_follower *f, uint32_t origin, uint32_t dest, uint32_t *path)
{
    if (!f || !path || origin >= f->p || dest >= f->p)
        return XCHG_EINVAL;
    uint32_t pos = origin;
    for (size_t k = 0; k < f->nsteps; k++) {
        path[k] = pos;
        xchg_follow_block_step(f, k, origin, dest, &pos);
    }
    path[f->nsteps] = pos;
    return XCHG_OK;
}

int xchg_follow_origin_step(const xchg_follower *f, size_t step, uint32_t origin,
                            uint32_t *pos, uint32_t *sent_per_node)
{
    if (!f || !pos || !sent_per_node || step >= f->nsteps || origin >= f->p)
        return XCHG_EINVAL;
    for (uint32_t d = 0; d < f->p; d++)
        if (pos[d] >= f->p)
            return XCHG_EINVAL;
    xchg_follow_origin_run(f, step, origin, pos, sent_per_node);
    return XCHG_OK;
}
