/*
 * torus_liu.c - the ring and 2-D torus algorithms of Liu, Gu, Ren and Xiong
 * (Liu et al.): `ar1` and `at2`, and the AR1 building blocks of torus_liu.h.
 *
 * ar1 (Liu et al. section 3, Figure 2): on a ring of p nodes (p even) the odd
 * nodes with the channels of one direction form the "odd ring", the even
 * nodes with the other direction the "even ring". Step 0: each odd node
 * 2i-1 and its right neighbour 2i swap halves (the even node keeps what goes
 * right, the odd node what goes left); ring steps: even nodes pass +2, odd
 * nodes -2, each dropping what has arrived, for half a circle; final: each
 * even node 2i and its right neighbour 2i+1 swap what is for each other.
 * One-port: every node sends one message and receives one per step; "the
 * two rings run in opposite directions" is distinct nodes (even and odd)
 * sending in different directions in the same step, so even nodes use only
 * the + links and odd nodes only the - links: contention-free.
 *   Preconditions: ring:P or torus:P with P even (P >= 2); with the option
 *   `virtual`, any P >= 1 (the schedule for the next even size, hosted by
 *   the real nodes: src/alg/virtual.h).
 *   Cost (verified): start-ups ceil(p/4)+1 (1 for p = 2), volume
 *   floor(p^2/8) + p/2 blocks -- Liu et al.'s T_ring; no local copies.
 *   Memory: a node's partner depends only on its parity, so every step is
 *   one parity shift (XCHG_PARTNER_PARITY) and a callback rule: the
 *   schedule holds its steps and a 4-byte ctx, nothing per node (ring:10^6
 *   is built and costed in a fraction of a second).
 *
 * at2 (Liu et al. section 4): on an r x s torus (r, s multiples of 4) node
 * (x, y) is even when x+y is even. Gu's partition into 2x2 submeshes gives
 * each row s/2 even and s/2 odd nodes and each column r/2 of each, one per
 * submesh. Phase 1, part A: the even nodes of every row run AR1 on their
 * logical ring of s/2 nodes (a group = the 2r blocks bound for one 2x2
 * column pair), while the odd nodes of every column run AR1 on theirs
 * (r/2 nodes, groups of 2s blocks). Part B swaps the roles: even nodes along
 * columns, odd nodes along rows. After phase 1 every block is in its
 * destination's 2x2 submesh; phase 2 finishes there in two steps (swap with
 * the row neighbour x^1, then with the column neighbour y^1, rs/2 blocks each).
 * Rows use horizontal links only, columns vertical ones, and each logical
 * ring is contention-free as ar1 is: the whole schedule is contention-free.
 * The two rings of a part differ in length when ceil(r/8) != ceil(s/8); the
 * shorter one's final step goes to the free slot where it raises the step's
 * largest message least, or, when strictly cheaper, is split by origin over
 * two free slots (torus_liu.h, xchg_liu_ar1_lay_out). Without the split the
 * paper's T_2D does not hold (8x12: 352 blocks instead of 320).
 *   Preconditions: torus:RxS with R, S multiples of 4; with `virtual`, any
 *   2-D torus (hosted on the next multiples of 4).
 *   Cost (verified): with a = min(r,s), b = max(r,s), Liu et al.'s T_2D,
 *   (2*ceil(b/8)+4) t_s + (4a*floor(b^2/32) + 2ab) m t_w, except on 4x4:
 *   4 start-ups, not 6 (AR1 on 2 logical nodes is 1 step). docs/at2.md
 *   works out both that and why the split final is needed.
 *   Memory: 2*slots+2 steps, each with a partner and a blocks table of p
 *   entries (a node's partner depends on its class, its ring's dimension
 *   and its logical parity, and some nodes idle in a slot), and a ctx of
 *   one at2_step a step.
 * The preconditions are declared in the registry entries (needs), with
 * virtual_any_size for the option `virtual`. The estimate hooks count the
 * same steps, tables and ctx in O(1), and at2's the work of laying its two
 * rings out; the hosted forms add what hosting takes (src/alg/virtual.h,
 * xchg_virtual_estimate).
 */
#include <stdlib.h>

#include "alg/virtual.h"
#include "torus_liu.h"

/* ------------------------------------------------------------------ */
/* AR1 on a logical ring                                               */
/* ------------------------------------------------------------------ */

uint32_t xchg_liu_ar1_nsteps(uint32_t q)
{
    if (q < 2 || q % 2)
        return 0;
    return q == 2 ? 1 : (q - 2) / 4 + 2;
}

/* Kind of AR1 step k on q nodes: 0 first, 1 ring, 2 final, -1 none. */
static int ar1_kind(uint32_t q, uint32_t k)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    if (k >= n)
        return -1;
    if (k == 0)
        return 0;
    return k + 1 == n ? 2 : 1;
}

int xchg_liu_ar1_offset(uint32_t q, uint32_t k, uint32_t i)
{
    int odd = (int)(i & 1);
    switch (ar1_kind(q, k)) {
    case 0:
        return odd ? 1 : -1;
    case 1:
        return odd ? -2 : 2;
    case 2:
        return odd ? -1 : 1;
    }
    return 0;
}

int xchg_liu_ar1_sends(uint32_t q, uint32_t k, uint32_t i, uint32_t j)
{
    uint32_t plus = (j + q - i) % q;  /* +distance from i to j */
    uint32_t minus = (i + q - j) % q; /* -distance */
    int odd = (int)(i & 1);
    switch (ar1_kind(q, k)) {
    case 0:
        return odd ? plus >= 1 && plus <= q / 2 : plus >= q / 2;
    case 1:
        return odd ? minus >= 2 && minus + 1 <= q / 2 : plus >= 2 && plus + 1 <= q / 2;
    case 2:
        return odd ? minus == 1 : plus == 1;
    }
    return 0;
}

uint64_t xchg_liu_ar1_groups(uint32_t q, uint32_t k)
{
    switch (ar1_kind(q, k)) {
    case 0:
        return q / 2;
    case 1:
        return (uint64_t)q - 4u * k;
    case 2:
        return (q / 2) % 2 == 0 ? q / 2 : q / 2 - 1;
    }
    return 0;
}

void xchg_liu_ar1_counts(uint32_t q, uint64_t *startups, uint64_t *groups)
{
    uint64_t st = 0, g = 0;
    for (uint32_t k = 0; k < xchg_liu_ar1_nsteps(q); k++) {
        uint64_t n = xchg_liu_ar1_groups(q, k);
        st += n > 0;
        g += n;
    }
    *startups = st;
    *groups = g;
}

/*
 * Where the group from i0 bound for j is before step k. Its way: at step 0
 * it stays (even origin going right, odd origin going left) or moves to the
 * pair partner; then it rides the even ring (+2 a step) or the odd ring (-2)
 * while 2 or more remain; at the final it makes the last hop if one remains.
 */
uint32_t xchg_liu_ar1_locate(uint32_t q, uint32_t k, uint32_t i0, uint32_t j)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    uint32_t plus = (j + q - i0) % q;
    if (plus == 0 || k == 0)
        return i0;
    if (k >= n)
        return j;
    int right = (i0 & 1) ? plus <= q / 2 : plus < q / 2;
    uint32_t at = i0;
    if ((i0 & 1) == (right ? 1u : 0u)) /* moves at step 0 to its pair partner */
        at = right ? (i0 + 1) % q : (i0 + q - 1) % q;
    uint32_t rem = right ? (j + q - at) % q : (at + q - j) % q;
    uint32_t rings = k - 1; /* ring steps done before step k (k < n) */
    if (rings > n - 2)
        rings = n - 2;
    uint32_t hops = rem / 2 < rings ? rem / 2 : rings;
    return right ? (at + 2 * hops) % q : (at + q - (2 * hops) % q) % q;
}

/* Slots of two AR1 rings of qa and qb logical nodes side by side: the
 * longer ring's steps (xchg_liu_ar1_pair; the at2 estimate counts them
 * without laying the rings out). */
static uint32_t ar1_pair_slots(uint32_t qa, uint32_t qb)
{
    uint32_t na = xchg_liu_ar1_nsteps(qa), nb = xchg_liu_ar1_nsteps(qb);
    return na >= nb ? na : nb;
}

void xchg_liu_ar1_pair(uint32_t qa, uint64_t ga, uint32_t qb, uint64_t gb, uint32_t *slots,
                       uint32_t *final_a, uint32_t *final_b)
{
    uint32_t na = xchg_liu_ar1_nsteps(qa), nb = xchg_liu_ar1_nsteps(qb);
    int a_long = na >= nb;
    uint32_t nl = a_long ? na : nb, ns = a_long ? nb : na;
    uint32_t ql = a_long ? qa : qb;
    uint64_t gl = a_long ? ga : gb;
    /* the shorter ring's final: the free slot (>= ns-1) with the largest
     * message of the longer ring, the latest on a tie */
    uint32_t best = ns ? ns - 1 : 0;
    for (uint32_t z = best; z < nl; z++)
        if (gl * xchg_liu_ar1_groups(ql, z) >= gl * xchg_liu_ar1_groups(ql, best))
            best = z;
    *slots = ar1_pair_slots(qa, qb);
    *final_a = a_long ? (na ? na - 1 : 0) : best;
    *final_b = a_long ? best : (nb ? nb - 1 : 0);
}

int xchg_liu_ar1_step_at(uint32_t q, uint32_t final_slot, uint32_t slot)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    if (n == 0)
        return -1;
    if (slot + 1 < n)
        return (int)slot;
    return slot == final_slot ? (int)(n - 1) : -1;
}

/* Blocks a ring sends in a slot (0 when idle there). */
static uint64_t slot_blocks(uint32_t q, uint64_t g, uint32_t final_slot, uint32_t slot)
{
    int k = xchg_liu_ar1_step_at(q, final_slot, slot);
    return k < 0 ? 0 : g * xchg_liu_ar1_groups(q, (uint32_t)k);
}

uint64_t xchg_liu_ar1_pair_volume(uint32_t qa, uint64_t ga, uint32_t qb, uint64_t gb)
{
    uint32_t slots, fa, fb;
    xchg_liu_ar1_pair(qa, ga, qb, gb, &slots, &fa, &fb);
    uint64_t v = 0;
    for (uint32_t z = 0; z < slots; z++) {
        uint64_t a = slot_blocks(qa, ga, fa, z), b = slot_blocks(qb, gb, fb, z);
        v += a > b ? a : b;
    }
    return v;
}

uint32_t xchg_liu_ar1_behind(uint32_t q, uint32_t i, uint32_t i0)
{
    return (i & 1) ? (i0 + q - i) % q : (i + q - i0) % q;
}

/* Sum over slots of the larger message, with ring L (the longer) in slot
 * order, ring S's steps 0..ns-2 in slots 0..ns-2 and its final's parts of
 * f1 and f2 blocks in slots z1 and z2 (f2 = 0: unsplit). */
static uint64_t layout_sum(uint32_t ql, uint64_t gl, uint32_t qs, uint64_t gs, uint32_t z1,
                           uint64_t f1, uint32_t z2, uint64_t f2)
{
    uint32_t nl = xchg_liu_ar1_nsteps(ql), ns = xchg_liu_ar1_nsteps(qs);
    uint64_t v = 0;
    for (uint32_t z = 0; z < nl; z++) {
        uint64_t a = gl * xchg_liu_ar1_groups(ql, z), b = 0;
        if (z + 1 < ns)
            b = gs * xchg_liu_ar1_groups(qs, z);
        if (z == z1)
            b = f1;
        if (f2 && z == z2)
            b = f2;
        v += a > b ? a : b;
    }
    return v;
}

/* Work of xchg_liu_ar1_lay_out on rings of qa and qb logical nodes, in
 * slot visits: the pair's placement and one layout_sum over the longer
 * ring's nl slots, then, when the shorter ring's final can be split, one
 * layout_sum for every ordered pair of distinct free slots and every split
 * point. Saturating; O(1). */
static uint64_t lay_out_work(uint32_t qa, uint32_t qb)
{
    uint32_t na = xchg_liu_ar1_nsteps(qa), nb = xchg_liu_ar1_nsteps(qb);
    uint64_t nl = na >= nb ? na : nb, ns = na >= nb ? nb : na;
    uint64_t G = ns ? xchg_liu_ar1_groups(na >= nb ? qb : qa, (uint32_t)(ns - 1)) : 0;
    uint64_t w = 2 * nl;
    if (ns >= 2 && G >= 2) {
        uint64_t free_slots = nl - ns + 1;
        uint64_t tries = xchg_est_prod(free_slots * (free_slots - 1), G - 1);
        w = xchg_est_sum(w, xchg_est_prod(tries, nl));
    }
    return w;
}

void xchg_liu_ar1_lay_out(uint32_t qa, uint64_t ga, uint32_t qb, uint64_t gb,
                          xchg_liu_ar1_layout *out)
{
    memset(out, 0, sizeof *out);
    xchg_liu_ar1_pair(qa, ga, qb, gb, &out->slots, &out->final_a, &out->final_b);
    uint32_t na = xchg_liu_ar1_nsteps(qa), nb = xchg_liu_ar1_nsteps(qb);
    int a_long = na >= nb;
    uint32_t ql = a_long ? qa : qb, qs = a_long ? qb : qa;
    uint64_t gl = a_long ? ga : gb, gs = a_long ? gb : ga;
    uint32_t nl = a_long ? na : nb, ns = a_long ? nb : na;
    uint32_t fin = a_long ? out->final_b : out->final_a;
    uint64_t G = ns ? xchg_liu_ar1_groups(qs, ns - 1) : 0;
    uint64_t best = layout_sum(ql, gl, qs, gs, fin, gs * G, 0, 0);
    if (ns >= 2 && G >= 2)
        for (uint32_t z1 = ns - 1; z1 < nl; z1++)
            for (uint32_t z2 = ns - 1; z2 < nl; z2++)
                for (uint64_t h = 1; z2 != z1 && h < G; h++) {
                    uint64_t v = layout_sum(ql, gl, qs, gs, z1, gs * h, z2, gs * (G - h));
                    if (v < best) {
                        best = v;
                        out->split = a_long ? 2 : 1;
                        out->split_slot = z2;
                        out->split_h = (uint32_t)h;
                        if (a_long)
                            out->final_b = z1;
                        else
                            out->final_a = z1;
                    }
                }
    out->volume = best;
}

/* ------------------------------------------------------------------ */
/* Options shared by ar1 and at2                                       */
/* ------------------------------------------------------------------ */

/* Nonzero when t has the sizes the paper allows for entry a: its declared
 * needs without the option "virtual". */
static int paper_size(const xchg_alg *a, const xchg_topo *t)
{
    return xchg_needs_check(&a->needs, a->name, t, NULL, NULL) == XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* ar1                                                                 */
/* ------------------------------------------------------------------ */

/* Context of an ar1 schedule: the ring size (read-only in callbacks). */
typedef struct ar1_ctx {
    uint32_t q;
} ar1_ctx;

static int ar1_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)origin;
    const ar1_ctx *c = ctx;
    return xchg_liu_ar1_sends(c->q, (uint32_t)step, node, dest);
}

/* Virtual node holding (vo, vd) before step vstep of an ar1 schedule. */
static uint32_t ar1_locate(const xchg_sched *vs, size_t vstep, uint32_t vo, uint32_t vd)
{
    const ar1_ctx *c = vs->ctx;
    return xchg_liu_ar1_locate(c->q, (uint32_t)vstep, vo, vd);
}

/* Name the group of parity `odd` (Liu et al.'s even and odd nodes) into
 * name; its index is the parity. */
static int liu_parity_group(uint32_t odd, char *name, size_t len)
{
    snprintf(name, len, "%s nodes", odd ? "odd" : "even");
    return (int)odd;
}

/* ar1's sender groups (xchg_sched_group): the even nodes (the even ring)
 * and the odd nodes (the odd ring), by id. */
static int ar1_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    (void)s;
    (void)step;
    return liu_parity_group(node & 1, name, len);
}

/* The plain AR1 schedule on an even ring t (name: the spec to record). */
static int ar1_build(const xchg_topo *t, const char *name, xchg_sched **out, xchg_err *err)
{
    uint32_t q = t->nodes;
    xchg_sched *s = xchg_sched_new(t, name, xchg_alg_claims_free(&xchg_alg_ar1, t));
    ar1_ctx *c = malloc(sizeof *c);
    if (!s || !c) {
        xchg_sched_free(s);
        free(c);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    c->q = q;
    s->ctx = c;
    s->ctx_free = free;
    s->ctx_bytes = sizeof *c;
    s->group_fn = ar1_group;
    for (uint32_t k = 0; k < xchg_liu_ar1_nsteps(q); k++) {
        /* a node's offset depends only on its parity: no table */
        xchg_step st = xchg_step_parity(0, xchg_liu_ar1_offset(q, k, 0),
                                        xchg_liu_ar1_offset(q, k, 1), xchg_rule_fn(ar1_rule),
                                        xchg_liu_ar1_groups(q, k));
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* Smallest multiple of m that is >= n and >= m. */
static uint32_t round_up(uint32_t n, uint32_t m)
{
    uint32_t r = (n + m - 1) / m * m;
    return r < m ? m : r;
}

/* The virtual ring ar1:virtual builds AR1 on: the next even size. */
static xchg_topo ar1_virtual_topo(const xchg_topo *t)
{
    xchg_topo v = *t;
    v.size[0] = round_up(t->size[0], 2);
    v.nodes = v.size[0];
    return v;
}

static int ar1_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    int rc;
    if (!opts->virtual_nodes)
        return ar1_build(t, "ar1", out, err);
    /* ar1:virtual: AR1 on the next even ring, hosted by the real nodes */
    xchg_topo v = ar1_virtual_topo(t);
    xchg_sched *vs = NULL;
    if ((rc = ar1_build(&v, "ar1", &vs, err)))
        return rc;
    rc = xchg_virtual_embed(t, vs, ar1_locate, "ar1:virtual", out, err);
    if (rc == XCHG_OK) /* hosting keeps it contention-free, as declared */
        (*out)->contention_free = xchg_alg_claims_free(&xchg_alg_ar1, t);
    return rc;
}

/* What ar1_build holds on an even ring of q nodes: its steps (parity
 * shifts, no tables) and its ctx; one unit of work a step. */
static void ar1_estimate_plain(uint32_t q, xchg_estimate *out)
{
    xchg_est_steps(out, xchg_liu_ar1_nsteps(q));
    xchg_est_add(out, sizeof(ar1_ctx), 0);
}

/* ar1, or the next even ring hosted on t (ar1:virtual). O(1). */
static int ar1_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    if (!opts->virtual_nodes) {
        ar1_estimate_plain(t->nodes, out);
        return XCHG_OK;
    }
    xchg_topo v = ar1_virtual_topo(t);
    xchg_estimate guest;
    ar1_estimate_plain(v.nodes, &guest);
    xchg_virtual_estimate(t, &v, &guest, out);
    return XCHG_OK;
}

/* Liu et al. section 3: T_ring = (ceil(p/4)+1) t_s + (floor(p^2/8)+p/2) m t_w,
 * and 1 start-up for p = 2 (the final step is empty there). */
static int ar1_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    uint64_t p = t->nodes;
    if (opts->virtual_nodes || p % 2)
        return XCHG_ENOTAPPLIC; /* hosted sizes: no closed form */
    out->startups = p == 2 ? 1 : (p + 3) / 4 + 1;
    out->volume_blocks = p * p / 8 + p / 2;
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* Offered where the paper's algorithm applies as it is. */
static int ar1_variants(const xchg_topo *t, xchg_spec *specs, int max)
{
    if (!paper_size(&xchg_alg_ar1, t) || max < 1)
        return 0;
    snprintf(specs[0], XCHG_SPEC_MAX, "ar1");
    return 1;
}

const xchg_alg xchg_alg_ar1 = {
    .name = "ar1",
    .summary = "Liu-Gu AR1: even nodes pass right, odd nodes left, half a circle",
    .source = "Liu et al. section 3, Figure 2, T_ring",
    .topologies = "ring:P or torus:P, P even; any P with ar1:virtual",
    .options = "virtual: any ring size, the next even ring hosted on the real nodes",
    .needs = {.kinds = XCHG_KIND(XCHG_TOPO_RING) | XCHG_KIND(XCHG_TOPO_TORUS),
              .dims = 1,
              .size_multiple = 2,
              .virtual_any_size = 1,
              .why = "Liu et al. section 3"},
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* every step pairs nodes or shifts a whole ring: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = ar1_generate,
    .formula = ar1_formula,
    .variants = ar1_variants,
    .estimate = ar1_estimate,
};

/* ------------------------------------------------------------------ */
/* at2                                                                 */
/* ------------------------------------------------------------------ */

/* What one step of an at2 schedule does. */
enum { AT2_A, AT2_B, AT2_X, AT2_Y };

typedef struct at2_step {
    int kind;       /* AT2_* */
    int row_k;      /* AR1 step of the row rings in this slot, -1 idle */
    int col_k;      /* AR1 step of the column rings */
    int row_part;   /* a split final: 1 origins 0..h-1 behind, 2 the rest;
                       0 the whole step */
    int col_part;
} at2_step;

/* Context of an at2 schedule (read-only in callbacks). */
typedef struct at2_ctx {
    uint32_t r, s;          /* rows (dimension 0), columns (dimension 1) */
    xchg_liu_ar1_layout lay; /* ring A = the rows, ring B = the columns */
    size_t nsteps;
    at2_step steps[];       /* nsteps entries */
} at2_ctx;

/* Nonzero when a ring's final part `part` (0 whole) carries the group from
 * logical origin i0 held by logical node i. */
static int at2_part_has(const at2_ctx *c, uint32_t q, int part, uint32_t i, uint32_t i0)
{
    if (part == 0)
        return 1;
    int first = xchg_liu_ar1_behind(q, i, i0) < c->lay.split_h;
    return part == 1 ? first : !first;
}

/* Nonzero when node (x,y) is on a row ring in this step (else a column). */
static int at2_on_row(int kind, uint32_t x, uint32_t y)
{
    int even = ((x + y) & 1) == 0;
    return kind == AT2_A ? even : !even;
}

/* A block's logical origin on a ring is its origin's coordinate along the
 * ring's dimension, halved: a row ring keeps the row, a column ring the
 * column, so the block enters its second ring where its origin's row (or
 * column) meets it. */
static int at2_rule(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    const at2_ctx *c = ctx;
    const at2_step *st = &c->steps[step];
    uint32_t x = node / c->s, y = node % c->s, x1 = dest / c->s, y1 = dest % c->s;
    uint32_t x0 = origin / c->s, y0 = origin % c->s;
    switch (st->kind) {
    case AT2_X:
        return x1 != x;
    case AT2_Y:
        return y1 != y;
    default:
        if (at2_on_row(st->kind, x, y))
            return st->row_k >= 0 &&
                   xchg_liu_ar1_sends(c->s / 2, (uint32_t)st->row_k, y / 2, y1 / 2) &&
                   at2_part_has(c, c->s / 2, st->row_part, y / 2, y0 / 2);
        return st->col_k >= 0 &&
               xchg_liu_ar1_sends(c->r / 2, (uint32_t)st->col_k, x / 2, x1 / 2) &&
               at2_part_has(c, c->r / 2, st->col_part, x / 2, x0 / 2);
    }
}

/*
 * AR1 steps the group from i0 for j has been through before slot z, on a
 * ring whose final is in slot fin, or (split != 0) whose final's first part
 * (origins 0..h-1 behind) is in fin and the rest in fin2.
 */
static uint32_t ar1_done(uint32_t q, uint32_t fin, int split, uint32_t fin2, uint32_t h,
                         uint32_t i0, uint32_t j, uint32_t z)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    if (split) {
        uint32_t at = xchg_liu_ar1_locate(q, n - 1, i0, j);
        if (xchg_liu_ar1_behind(q, at, i0) >= h)
            fin = fin2;
    }
    return (z < n - 1 ? z : n - 1) + (fin < z);
}

/*
 * Node holding block (o, d) before step `step` of an at2 schedule: the
 * first ring of the origin's class (rows for even origins, columns for
 * odd), then the other, then the two phase-2 swaps.
 */
static uint32_t at2_locate_ctx(const at2_ctx *c, size_t step, uint32_t o, uint32_t d)
{
    uint32_t x = o / c->s, y = o % c->s, x1 = d / c->s, y1 = d % c->s;
    uint32_t S = c->lay.slots;
    const xchg_liu_ar1_layout *L = &c->lay;
    int even = ((x + y) & 1) == 0;
    for (int part = 0; part < 2; part++) {
        if (step <= (size_t)part * S)
            return x * c->s + y;
        uint32_t z = step >= (size_t)(part + 1) * S ? S : (uint32_t)(step - (size_t)part * S);
        int row = (part == 0) == even; /* even: rows first */
        if (row) {
            uint32_t k = ar1_done(c->s / 2, L->final_a, L->split == 1, L->split_slot,
                                  L->split_h, y / 2, y1 / 2, z);
            uint32_t at = xchg_liu_ar1_locate(c->s / 2, k, y / 2, y1 / 2);
            y = 2 * at + ((x + (even ? 0 : 1)) & 1);
        } else {
            uint32_t k = ar1_done(c->r / 2, L->final_b, L->split == 2, L->split_slot,
                                  L->split_h, x / 2, x1 / 2, z);
            uint32_t at = xchg_liu_ar1_locate(c->r / 2, k, x / 2, x1 / 2);
            x = 2 * at + ((y + (even ? 0 : 1)) & 1);
        }
    }
    if (step > 2 * (size_t)S)
        x = x1;
    if (step > 2 * (size_t)S + 1)
        y = y1;
    return x * c->s + y;
}

static uint32_t at2_locate(const xchg_sched *vs, size_t vstep, uint32_t vo, uint32_t vd)
{
    return at2_locate_ctx(vs->ctx, vstep, vo, vd);
}

/* Partner of node (x, y) in step st of the at2 schedule, XCHG_NONE idle. */
static uint32_t at2_partner(const at2_ctx *c, const at2_step *st, uint32_t x, uint32_t y)
{
    switch (st->kind) {
    case AT2_X:
        return (x ^ 1) * c->s + y;
    case AT2_Y:
        return x * c->s + (y ^ 1);
    default:
        if (at2_on_row(st->kind, x, y)) {
            if (st->row_k < 0)
                return XCHG_NONE;
            int off = xchg_liu_ar1_offset(c->s / 2, (uint32_t)st->row_k, y / 2);
            return x * c->s + (uint32_t)(((int64_t)y + 2 * off + c->s) % c->s);
        }
        if (st->col_k < 0)
            return XCHG_NONE;
        int off = xchg_liu_ar1_offset(c->r / 2, (uint32_t)st->col_k, x / 2);
        return (uint32_t)(((int64_t)x + 2 * off + c->r) % c->r) * c->s + y;
    }
}

/* Groups of AR1 step k on q nodes in part `part` of a split final. */
static uint64_t part_groups(const at2_ctx *c, uint32_t q, int k, int part)
{
    if (k < 0)
        return 0;
    uint64_t g = xchg_liu_ar1_groups(q, (uint32_t)k);
    return part == 0 ? g : part == 1 ? c->lay.split_h : g - c->lay.split_h;
}

/* Declared blocks of node (x, y) in step st (0 when idle). */
static uint64_t at2_blocks(const at2_ctx *c, const at2_step *st, uint32_t x, uint32_t y)
{
    if (st->kind == AT2_X || st->kind == AT2_Y)
        return (uint64_t)c->r * c->s / 2;
    if (at2_on_row(st->kind, x, y))
        return 2ull * c->r * part_groups(c, c->s / 2, st->row_k, st->row_part);
    return 2ull * c->s * part_groups(c, c->r / 2, st->col_k, st->col_part);
}

/* AR1 step and final part a ring runs in slot z (ring 1 = A, 2 = B). */
static void at2_slot(const xchg_liu_ar1_layout *L, int ring, uint32_t q, uint32_t z, int *k,
                     int *part)
{
    uint32_t fin = ring == 1 ? L->final_a : L->final_b;
    *k = xchg_liu_ar1_step_at(q, fin, z);
    *part = 0;
    if (L->split != ring)
        return;
    if (z == fin)
        *part = 1;
    if (z == L->split_slot) {
        *k = (int)xchg_liu_ar1_nsteps(q) - 1;
        *part = 2;
    }
}

/* at2's sender groups (xchg_sched_group): Liu et al.'s even nodes ((x+y)
 * even) and odd nodes, in every step (phase 2's swaps too). */
static int at2_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    (void)step;
    const xchg_topo *t = &s->topo;
    return liu_parity_group((xchg_coord(t, node, 0) + xchg_coord(t, node, 1)) & 1, name, len);
}

/* The plain AT2 schedule on t (both sizes multiples of 4). */
static int at2_build(const xchg_topo *t, const char *name, xchg_sched **out, xchg_err *err)
{
    uint32_t r = t->size[0], s = t->size[1], p = t->nodes;
    xchg_liu_ar1_layout lay;
    /* ring A: the rows (s/2 nodes, groups of 2r); ring B: the columns */
    xchg_liu_ar1_lay_out(s / 2, 2ull * r, r / 2, 2ull * s, &lay);
    uint32_t slots = lay.slots;
    size_t n = 2 * (size_t)slots + 2;
    xchg_sched *sc = xchg_sched_new(t, name, xchg_alg_claims_free(&xchg_alg_at2, t));
    at2_ctx *c = malloc(sizeof *c + n * sizeof c->steps[0]);
    if (!sc || !c) {
        xchg_sched_free(sc);
        free(c);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    c->r = r;
    c->s = s;
    c->lay = lay;
    c->nsteps = n;
    for (size_t k = 0; k < n; k++) {
        at2_step *st = &c->steps[k];
        if (k < 2 * (size_t)slots) {
            uint32_t z = (uint32_t)(k % slots);
            st->kind = k < slots ? AT2_A : AT2_B;
            at2_slot(&lay, 1, s / 2, z, &st->row_k, &st->row_part);
            at2_slot(&lay, 2, r / 2, z, &st->col_k, &st->col_part);
        } else {
            st->kind = k == 2 * (size_t)slots ? AT2_X : AT2_Y;
            st->row_k = st->col_k = -1;
            st->row_part = st->col_part = 0;
        }
    }
    sc->ctx = c;
    sc->ctx_free = free;
    sc->ctx_bytes = sizeof *c + n * sizeof c->steps[0];
    sc->group_fn = at2_group;
    for (size_t k = 0; k < n; k++) {
        xchg_step st = xchg_step_shift(0, 0, xchg_rule_fn(at2_rule), 0);
        st.partner = XCHG_PARTNER_TABLE;
        st.partner_table = malloc((size_t)p * sizeof *st.partner_table);
        st.blocks_table = malloc((size_t)p * sizeof *st.blocks_table);
        if (!st.partner_table || !st.blocks_table) {
            free(st.partner_table);
            free(st.blocks_table);
            xchg_sched_free(sc);
            return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
        }
        for (uint32_t x = 0; x < r; x++)
            for (uint32_t y = 0; y < s; y++) {
                uint32_t to = at2_partner(c, &c->steps[k], x, y);
                uint64_t b = at2_blocks(c, &c->steps[k], x, y);
                st.partner_table[x * s + y] = b ? to : XCHG_NONE;
                st.blocks_table[x * s + y] = (uint32_t)b;
            }
        int rc = xchg_alg_add(sc, &st, err);
        if (rc)
            return rc;
    }
    *out = sc;
    return XCHG_OK;
}

/* The virtual torus at2:virtual builds AT2 on: both sizes rounded up to
 * multiples of 4. XCHG_ETOOBIG when it would exceed XCHG_MAX_NODES. */
static int at2_virtual_topo(const xchg_topo *t, xchg_topo *v)
{
    *v = *t;
    v->size[0] = round_up(t->size[0], 4);
    v->size[1] = round_up(t->size[1], 4);
    v->stride[1] = 1;
    v->stride[0] = v->size[1];
    if ((uint64_t)v->size[0] * v->size[1] > XCHG_MAX_NODES)
        return XCHG_ETOOBIG;
    v->nodes = v->size[0] * v->size[1];
    return XCHG_OK;
}

static int at2_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    int rc;
    if (!opts->virtual_nodes)
        return at2_build(t, "at2", out, err);
    xchg_topo v;
    if (at2_virtual_topo(t, &v))
        return xchg_fail(err, XCHG_ETOOBIG, "at2:virtual: the virtual torus would be too large");
    xchg_sched *vs = NULL;
    if ((rc = at2_build(&v, "at2", &vs, err)))
        return rc;
    rc = xchg_virtual_embed(t, vs, at2_locate, "at2:virtual", out, err);
    if (rc == XCHG_OK) /* hosting keeps it contention-free, as declared */
        (*out)->contention_free = xchg_alg_claims_free(&xchg_alg_at2, t);
    return rc;
}

/* What at2_build holds on an r x s torus (multiples of 4): 2*slots+2 steps
 * (the two AR1 parts, then the two swaps), each with a partner and a
 * blocks table of p entries, and the ctx with its step array; the work of
 * laying the two rings out besides. */
static void at2_estimate_plain(uint32_t r, uint32_t s, xchg_estimate *out)
{
    uint64_t n = 2 * (uint64_t)ar1_pair_slots(s / 2, r / 2) + 2, p = (uint64_t)r * s;
    xchg_est_steps(out, n);
    xchg_est_tables(out, n, p, sizeof(uint32_t)); /* partner_table */
    xchg_est_tables(out, n, p, sizeof(uint32_t)); /* blocks_table */
    xchg_est_add(out, sizeof(at2_ctx) + n * sizeof(at2_step), lay_out_work(s / 2, r / 2));
}

/* at2, or the next multiples of 4 hosted on t (at2:virtual). O(1).
 * XCHG_ETOOBIG where at2_generate refuses the virtual torus. */
static int at2_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    if (!opts->virtual_nodes) {
        at2_estimate_plain(t->size[0], t->size[1], out);
        return XCHG_OK;
    }
    xchg_topo v;
    if (at2_virtual_topo(t, &v))
        return XCHG_ETOOBIG;
    xchg_estimate guest;
    at2_estimate_plain(v.size[0], v.size[1], &guest);
    xchg_virtual_estimate(t, &v, &guest, out);
    return XCHG_OK;
}

/*
 * Counts of the at2 schedule, with a = min(r,s), b = max(r,s): Liu et al.'s
 * T_2D, start-ups 2*ceil(b/8)+4 and volume 4a*floor(b^2/32) + 2ab, except
 * on 4x4, where the logical rings have 2 nodes and AR1 there is 1 step: 4
 * start-ups (docs/at2.md).
 */
static int at2_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    if (opts->virtual_nodes || !paper_size(&xchg_alg_at2, t))
        return XCHG_ENOTAPPLIC;
    uint64_t a = t->size[0], b = t->size[1];
    if (a > b) {
        uint64_t x = a;
        a = b;
        b = x;
    }
    out->startups = b == 4 ? 4 : 2 * ((b + 7) / 8) + 4;
    out->volume_blocks = 4 * a * (b * b / 32) + 2 * a * b;
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* Offered where the paper's algorithm applies as it is. */
static int at2_variants(const xchg_topo *t, xchg_spec *specs, int max)
{
    if (!paper_size(&xchg_alg_at2, t) || max < 1)
        return 0;
    snprintf(specs[0], XCHG_SPEC_MAX, "at2");
    return 1;
}

const xchg_alg xchg_alg_at2 = {
    .name = "at2",
    .summary = "Liu-Gu AT2: AR1 on the rows and columns of Gu's 2x2 partition, then 2x2",
    .source = "Liu et al. section 4, T_2D",
    .topologies = "torus:RxS with R, S multiples of 4; any 2-D torus with at2:virtual",
    .options = "virtual: any size, the next multiples of 4 hosted on the real nodes",
    .needs = {.kinds = XCHG_KIND(XCHG_TOPO_TORUS),
              .dims = 2,
              .size_multiple = 4,
              .virtual_any_size = 1,
              .why = "2x2 submeshes whose even and odd nodes form even logical rings, "
                     "Liu et al. section 4"},
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* AR1 steps on every ring, then pairwise swaps: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = at2_generate,
    .formula = at2_formula,
    .variants = at2_variants,
    .estimate = at2_estimate,
};
