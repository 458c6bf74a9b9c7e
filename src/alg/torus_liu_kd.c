/*
 * torus_liu_kd.c - the k-dimensional torus algorithms of Liu, Gu, Ren and
 * Xiong (Liu et al. section 5): `mt3` and `mtk` (section 5.2, 5.3), `pt4`
 * and `ptk` (section 5.1). Both build on AR1 (section 3) run on logical
 * rings, whose steps come from torus_liu.h (shared with ar1/at2).
 *
 * mtk on an N_1 x ... x N_k torus (every N_i a multiple of 2k; mt3 is k = 3):
 *   groups: G_g = {nodes whose coordinate sum is g mod k}. The nodes with one
 *   residue vector (x_1 mod k, ..., x_k mod k) form a logical
 *   N_1/k x ... x N_k/k torus, all of one group.
 *   phase 1, k parts: in part j every node of G_g runs AR1 along dimension
 *   (g + j) mod k on its logical ring (every k-th node of the axis, q =
 *   N_D/k nodes; a "group of blocks" is everything bound for one run of k
 *   consecutive coordinates, p/q blocks). In a part each dimension is used by
 *   exactly one group, and each axis line carries exactly one of that group's
 *   rings, so parts are contention-free like AR1 itself (even ring nodes use
 *   + links, odd ones - links). After phase 1 a block sits in its
 *   destination's k x ... x k submesh, on the node with its origin's residues.
 *   phase 2, per dimension, k-1 steps inside every k-node segment of the
 *   axis, the segment taken as a cycle (the wrap message goes back across
 *   the segment over the links of the other direction, idle in that step):
 *   a = ceil((k-1)/2) steps to the cyclic +1 neighbour, step t carrying the
 *   blocks whose remaining cyclic distance to their destination's residue
 *   is in [1, a-t+1], then b = floor((k-1)/2) steps to the cyclic -1
 *   neighbour, distance [1, b-t+1] (Grama et al.'s two-way ring on k
 *   nodes, section 4.5.1).
 *   For k = 3 these are exactly the paper's six steps (Figure 6: x mod 3 =
 *   0, 1 send +1 and 2 sends -2; then 0 sends +2, 1 and 2 send -1).
 *   It carries a(a+1)/2 + b(b+1)/2 = floor(k^2/4) groups of p/k blocks, the
 *   paper's "(p-1) t_s + floor(p^2/4) m t_w" array exchange with p = k.
 *
 * ptk on an N_1 x ... x N_k torus, k = 2^d (pt4 is k = 4), every N_i a
 * multiple of 2k: the torus is the Cartesian product of two k/2-dimensional
 * ones. Node parity pi = sum of coordinates mod 2. Run A: even nodes run
 * PT_{k/2} on dimensions 1..k/2 of their logical stride-2 torus, odd nodes on
 * dimensions k/2+1..k; run B swaps; then a binary k-cube exchange: k steps,
 * step j with the neighbour across dimension j (coordinate xor 1 at this
 * level), p/2 blocks each. Recursively, PT_{k/2} on a stride-2 logical torus
 * uses the parity of the logical coordinates over its own dimensions, its
 * sub-runs use stride 4, ..., and PT_1 is AR1 on a logical ring of stride k
 * (q = N/k nodes, even). At any moment each axis line carries nodes of one
 * residue class only, so the whole schedule is contention-free.
 *
 * Slots: in an AR1 part every dimension runs a ring, of different lengths
 * when the sizes differ. The rings run their first and ring steps in slots
 * 0, 1, ...; the longest ring's final step ends the part, and every shorter
 * ring puts its final step in the free slot where it raises the sum of slot
 * maxima least (latest on a tie), as torus_liu.h does for two rings -- or,
 * when strictly cheaper, splits it by origin over two free slots (after its
 * last ring step a node holds all its final's groups). Unsplit, a shorter
 * ring with q_i = 0 mod 4 against a longest one with q1 = 2 mod 4 (q_i >
 * q1/2) would cost p/q1 blocks more per part than the paper's formula.
 *
 * Sender groups (xchg_sched_group): the paper's G_i ((sum of coordinates)
 * mod k = i, section 5.2) in mtk's phase 1, its even and odd nodes (sum
 * mod 2, section 5.1) in ptk's top-level runs A and B; the last phases
 * (segments, k-cube) name none.
 *
 * Preconditions: mt3: torus:AxBxC, each a multiple of 6. mtk: torus of k >= 2
 * dimensions (or ring:P/torus:P, k = 1, where it is ar1), each size a
 * multiple of 2k. pt4: torus of 4 dimensions, each a multiple of 8. ptk:
 * torus of k = 2^d dimensions (k = 1: ring), each size a multiple of 2k.
 * With the option `virtual` (mt3:virtual, ...): any sizes; the schedule is
 * built for every size rounded up to a multiple of 2k and hosted on the real
 * nodes by src/alg/virtual.h (a host sends for all its virtual nodes; the
 * real schedule is one-port and contention-free; no closed-form counts).
 * The registry entries declare all this as data (KD_NEEDS).
 *
 * Cost (verified; S1, V1 = start-ups and volume of one AR1 part as placed
 * above; S1 = ceil(N1/4k)+1 and V1 = (floor(q^2/8)+q/2) p/q with q = N1/k,
 * the longest ring's own cost, on every size tests/test_torus_liu_kd.c
 * sweeps -- multiples of 2k up to 160x160, 96^3, 48^4 -- except q = 2):
 *   mtk: start-ups k*S1 + k(k-1), volume k*V1 + floor(k^2/4) p blocks;
 *     Liu et al.'s MT_kD = (k ceil(N1/4k) + k^2) t_s + (k^2 floor(N1^2/8k^2)
 *     + (floor(k^2/4) + k/2) N1) prod_{i>=2} N_i m t_w.
 *   ptk: start-ups k*S1 + k log2 k, volume k*V1 + (k log2 k / 2) p;
 *     Liu et al.'s T_kD has the same start-ups, but its volume term
 *     (floor(k^2/4) + k/2) N1 prod N_i equals ours, (k/2)(log2 k + 1) p,
 *     only for k <= 4 (k = 8: 20 p in the paper, 16 p here).
 *   Exception (docs/mt.md, docs/pt.md): q1 = 2 (N1 = 2k) has S1 = 1, not 2
 *   (AR1's final step is empty): k start-ups fewer than the formulas. With
 *   the split above every other size the paper allows meets them exactly.
 *   No local copies are modelled.
 *
 * Estimate (xchg_estimate, before building): the steps as the builders
 * count them (mt_nsteps, pt_nsteps, from the longest ring's AR1 steps),
 * each with partner, size and class tables (9 bytes a node), mtk's group
 * byte per node while it builds; ":virtual" forms: that on the virtual
 * torus, hosted (xchg_virtual_estimate); rings: ar1's estimate.
 */
#include <stdlib.h>

#include "alg/virtual.h"
#include "torus_liu.h"
#include "torus_liu_kd.h"

/* Most dimensions the k-D algorithms take (per-dimension arrays below);
 * the smallest 8-D torus they accept, 16^8 nodes, is already too large. */
#define KD_MAX_DIMS 8

/* ------------------------------------------------------------------ */
/* AR1 parts: rings side by side                                       */
/* ------------------------------------------------------------------ */

/* One AR1 part: a ring per dimension, q[d] logical nodes, g[d] blocks per
 * group; fin[d] is the slot of ring d's final step. */
typedef struct ar1part {
    int n;
    uint32_t q[KD_MAX_DIMS];
    uint64_t g[KD_MAX_DIMS];
    uint32_t fin[KD_MAX_DIMS];   /* slot of the final step (or its first half) */
    uint32_t fin2[KD_MAX_DIMS];  /* slot of the final's second half */
    uint32_t split[KD_MAX_DIMS]; /* groups in the first half; 0: not split */
    uint32_t slots;
    uint64_t startups, volume;
} ar1part;

/* What ring d does in slot z of its part. */
typedef struct ringstep {
    uint32_t k;          /* AR1 step */
    uint64_t groups;     /* groups each node sends */
    uint32_t olo, ohi;   /* origin travel range of the blocks sent */
} ringstep;

/*
 * The step ring d runs in slot z, given its final's placement (fin, fin2,
 * split as in ar1part). The first and ring steps run in slots 0, 1, ...; the
 * final in slot fin, or, split, its groups whose origin travelled 0..split-1
 * ring positions in slot fin and the rest in slot fin2. Returns 0 when the
 * ring is idle in z.
 */
static int ring_at(uint32_t q, uint32_t fin, uint32_t fin2, uint32_t split, uint32_t z,
                   ringstep *rs)
{
    uint32_t n = xchg_liu_ar1_nsteps(q);
    if (n == 0)
        return 0;
    rs->olo = 0;
    rs->ohi = UINT32_MAX;
    if (z + 1 < n) {
        rs->k = z;
        rs->groups = xchg_liu_ar1_groups(q, z);
        return 1;
    }
    uint64_t g = xchg_liu_ar1_groups(q, n - 1);
    rs->k = n - 1;
    if (z == fin) {
        rs->groups = split ? split : g;
        if (split)
            rs->ohi = split - 1;
        return 1;
    }
    if (split && z == fin2) {
        rs->groups = g - split;
        rs->olo = split;
        rs->ohi = (uint32_t)g - 1;
        return 1;
    }
    return 0;
}

/* Blocks ring d sends in slot z with the given final placement. */
static uint64_t part_blocks(const ar1part *a, int d, uint32_t fin, uint32_t fin2, uint32_t split,
                            uint32_t z)
{
    ringstep rs;
    return ring_at(a->q[d], fin, fin2, split, z, &rs) ? a->g[d] * rs.groups : 0;
}

/* How much a message of b blocks raises a slot whose maximum is l. */
static uint64_t over(uint64_t b, uint64_t l)
{
    return b > l ? b - l : 0;
}

/* Slots of a part whose rings are set (n, q): the longest ring's steps. */
static uint32_t part_slots(const ar1part *a)
{
    uint32_t slots = 0;
    for (int d = 0; d < a->n; d++)
        if (xchg_liu_ar1_nsteps(a->q[d]) > slots)
            slots = xchg_liu_ar1_nsteps(a->q[d]);
    return slots;
}

/*
 * Place the rings of a (q, g and n set): slots = the longest ring's steps;
 * rings taken longest first. A shorter ring's final goes in the free slot
 * that raises the sum of slot maxima least (latest on a tie), or, when that
 * is strictly cheaper, is split by origin over two free slots: after its
 * last ring step a node holds every group its final sends (groups from the
 * origins 0..g-1 ring positions behind it), so any two later slots may carry
 * them. Fills fin, fin2, split, slots, startups (non-empty slots), volume.
 * Returns 0 or XCHG_ENOMEM.
 */
static int part_place(ar1part *a)
{
    uint32_t slots = part_slots(a);
    a->slots = slots;
    uint64_t *load = calloc(slots + 1, sizeof *load);
    if (!load)
        return XCHG_ENOMEM;
    int done[KD_MAX_DIMS] = {0};
    for (int it = 0; it < a->n; it++) {
        int d = -1;
        for (int e = 0; e < a->n; e++)
            if (!done[e] && (d < 0 || xchg_liu_ar1_nsteps(a->q[e]) > xchg_liu_ar1_nsteps(a->q[d])))
                d = e;
        done[d] = 1;
        /* The first and ring steps sit in slots 0..n-2 whatever we choose;
         * only the final's slots (>= n-1, free of this ring otherwise)
         * differ, by how much they raise their slot's maximum. */
        uint32_t n = xchg_liu_ar1_nsteps(a->q[d]);
        uint64_t g = xchg_liu_ar1_groups(a->q[d], n - 1), G = a->g[d];
        uint32_t best = n - 1, best2 = 0, best_split = 0;
        uint64_t best_extra = UINT64_MAX;
        for (uint32_t f = n - 1; f < slots; f++) {
            uint64_t e = over(g * G, load[f]);
            if (e <= best_extra) {
                best_extra = e;
                best = f;
            }
        }
        /* Splitting needs a final after ring steps (n >= 2), not the
         * longest ring (it = 0), and two free slots. For slots f < f2 the
         * raise over(hG, load[f]) + over((g-h)G, load[f2]) is convex and
         * piecewise linear in h: its minimum is at an end or a kink. */
        for (uint32_t f = n - 1; it > 0 && n >= 2 && g >= 2 && f < slots; f++)
            for (uint32_t f2 = f + 1; f2 < slots; f2++) {
                uint64_t cand[6] = {1, g - 1, load[f] / G, load[f] / G + 1,
                                    g - load[f2] / G, g - load[f2] / G - 1};
                for (int i = 0; i < 6; i++) {
                    uint64_t h = cand[i];
                    if (h < 1 || h >= g) /* also the wrapped g - x < 0 */
                        continue;
                    uint64_t e = over(h * G, load[f]) + over((g - h) * G, load[f2]);
                    if (e < best_extra) {
                        best_extra = e;
                        best = f;
                        best2 = f2;
                        best_split = (uint32_t)h;
                    }
                }
            }
        a->fin[d] = best;
        a->fin2[d] = best2;
        a->split[d] = best_split;
        for (uint32_t z = 0; z < slots; z++) {
            uint64_t b = part_blocks(a, d, best, best2, best_split, z);
            if (b > load[z])
                load[z] = b;
        }
    }
    a->startups = 0;
    a->volume = 0;
    for (uint32_t z = 0; z < slots; z++) {
        a->startups += load[z] > 0;
        a->volume += load[z];
    }
    free(load);
    return XCHG_OK;
}

/* The rings of a part of a torus whose rings have stride `stride` along
 * every dimension (q = N_d/stride, groups of p/q blocks), not yet placed. */
static void part_rings(const xchg_topo *t, uint32_t stride, ar1part *a)
{
    a->n = t->ndims;
    for (int d = 0; d < t->ndims; d++) {
        a->q[d] = t->size[d] / stride;
        a->g[d] = t->nodes / a->q[d];
    }
}

/* That part with its rings placed (part_place). 0 or XCHG_ENOMEM. */
static int part_of(const xchg_topo *t, uint32_t stride, ar1part *a)
{
    part_rings(t, stride, a);
    return part_place(a);
}

/* ------------------------------------------------------------------ */
/* Building steps with per-node partners, sizes and rule classes       */
/* ------------------------------------------------------------------ */

typedef struct kbuild {
    const xchg_topo *t;
    uint32_t *part, *blk;
    uint8_t *cls;
    xchg_rule rule;
    int ncls;
    int any;
    int group_arg; /* the step's group_arg: 1 in the phases with named groups */
} kbuild;

/* Start a step where every node is idle. Returns 0 or XCHG_ENOMEM. */
static int kb_open(kbuild *b, const xchg_topo *t)
{
    memset(b, 0, sizeof *b);
    b->t = t;
    b->part = malloc((size_t)t->nodes * sizeof *b->part);
    b->blk = calloc(t->nodes, sizeof *b->blk);
    b->cls = calloc(t->nodes, 1);
    if (!b->part || !b->blk || !b->cls) {
        free(b->part);
        free(b->blk);
        free(b->cls);
        return XCHG_ENOMEM;
    }
    for (uint32_t i = 0; i < t->nodes; i++)
        b->part[i] = XCHG_NONE;
    b->rule = xchg_rule_class_dist();
    return XCHG_OK;
}

/* Class index for the given selection (shared by nodes that select
 * alike); -1 when the rule has no room left. */
static int kb_class(kbuild *b, int dim, int dir, uint32_t div, uint32_t mod, uint32_t lo,
                    uint32_t hi, uint32_t olo, uint32_t ohi)
{
    for (int c = 0; c < b->ncls; c++) {
        const xchg_cdist *q = &b->rule.cdist[c];
        if (q->dim == dim && q->dir == dir && q->div == div && q->mod == mod && q->lo == lo &&
            q->hi == hi && q->olo == olo && q->ohi == ohi)
            return c;
    }
    if (b->ncls == XCHG_RULE_CDIST_CLASSES)
        return -1;
    xchg_cdist *q = &b->rule.cdist[b->ncls];
    q->dim = dim;
    q->dir = dir;
    q->div = div;
    q->mod = mod;
    q->lo = lo;
    q->hi = hi;
    q->olo = olo;
    q->ohi = ohi;
    return b->ncls++;
}

/* Node `node` sends `blocks` to `to`, selecting with class c. Returns 0, or
 * XCHG_EINTERNAL when c is -1 (too many classes). */
static int kb_set(kbuild *b, uint32_t node, uint32_t to, int c, uint64_t blocks)
{
    if (c < 0 || blocks > UINT32_MAX)
        return XCHG_EINTERNAL;
    if (blocks == 0)
        return XCHG_OK;
    b->part[node] = to;
    b->blk[node] = (uint32_t)blocks;
    b->cls[node] = (uint8_t)c;
    b->any = 1;
    return XCHG_OK;
}

/* Append the step to s (skipped when nobody sends); the tables go to the
 * schedule. On failure frees s and returns the code with a message. */
static int kb_close(kbuild *b, xchg_sched *s, xchg_err *err)
{
    if (!b->any) {
        free(b->part);
        free(b->blk);
        free(b->cls);
        return XCHG_OK;
    }
    xchg_step st = xchg_step_shift(0, 0, b->rule, 0);
    st.partner = XCHG_PARTNER_TABLE;
    st.partner_table = b->part;
    st.blocks_table = b->blk;
    st.class_table = b->cls;
    st.group_arg = b->group_arg;
    return xchg_alg_add(s, &st, err);
}

/* Free a step that will not be added, and s; returns code with a message. */
static int kb_abort(kbuild *b, xchg_sched *s, int code, xchg_err *err)
{
    free(b->part);
    free(b->blk);
    free(b->cls);
    xchg_sched_free(s);
    if (code == XCHG_ENOMEM)
        return xchg_fail(err, code, "out of memory while building the schedule");
    return xchg_fail(err, code, "internal: a step needs more than %d selection classes",
                     XCHG_RULE_CDIST_CLASSES);
}

/* Bytes of per-node tables (partner, size, class) a schedule may hold. */
#define KD_MAX_TABLE_BYTES (1ull << 30)

/* XCHG_ETOOBIG with a message when nsteps steps of per-node tables on t
 * would pass KD_MAX_TABLE_BYTES (a 4096x4092 torus has 1000-step AR1s). */
static int kd_size_check(const xchg_topo *t, const char *name, uint64_t nsteps, xchg_err *err)
{
    uint64_t bytes = (uint64_t)t->nodes * nsteps * 9;
    if (bytes <= KD_MAX_TABLE_BYTES)
        return XCHG_OK;
    char buf[64];
    return xchg_fail(err, XCHG_ETOOBIG,
                     "%s on %s: %llu steps of per-node tables would take %llu MiB, more than "
                     "the %llu MiB allowed",
                     name, xchg_topo_spec(t, buf, sizeof buf), (unsigned long long)nsteps,
                     (unsigned long long)(bytes >> 20),
                     (unsigned long long)(KD_MAX_TABLE_BYTES >> 20));
}

/* Node id with coordinate c along dim instead of its own. */
static uint32_t with_coord(const xchg_topo *t, uint32_t node, int dim, uint32_t c)
{
    uint32_t own = xchg_coord(t, node, dim);
    return node + c * t->stride[dim] - own * t->stride[dim];
}

/*
 * Node `node` does AR1 step rs->k on its logical ring along dim with the
 * given stride (q = N_dim / stride nodes), sending rs->groups groups whose
 * origin travelled rs->olo..rs->ohi positions. The rule ranges are those of
 * xchg_liu_ar1_sends, as distances on the logical ring:
 *   first: even -> i-1 the -distance [1, q/2]; odd -> i+1 +distance [1, q/2];
 *   ring: even -> i+2 +distance [2, q/2-1]; odd -> i-2 -distance [2, q/2-1];
 *   final: even -> i+1 +distance 1; odd -> i-1 -distance 1.
 * The origin's position on the ring is its own coordinate: no earlier step
 * of mtk/ptk moves a block along a dimension before its AR1 there.
 */
static int kb_ar1(kbuild *b, uint32_t node, int dim, uint32_t stride, const ringstep *rs)
{
    const xchg_topo *t = b->t;
    uint32_t n = t->size[dim], q = n / stride;
    uint32_t c = xchg_coord(t, node, dim), i = c / stride;
    uint32_t steps = xchg_liu_ar1_nsteps(q);
    uint32_t k = rs->k;
    int off = xchg_liu_ar1_offset(q, k, i);
    if (k >= steps || off == 0)
        return XCHG_OK;
    int dir = off > 0 ? 1 : -1;
    uint32_t lo, hi;
    if (k == 0) {
        lo = 1;
        hi = q / 2;
    } else if (k + 1 < steps) {
        lo = 2;
        hi = q / 2 - 1;
    } else {
        lo = hi = 1;
    }
    uint32_t j = (uint32_t)(((int64_t)i + off + q) % q);
    uint32_t to = with_coord(t, node, dim, j * stride + c % stride);
    int cl = kb_class(b, dim, dir, stride, q, lo, hi, rs->olo, rs->ohi);
    return kb_set(b, node, to, cl, rs->groups * (t->nodes / q));
}

/* ------------------------------------------------------------------ */
/* mtk                                                                 */
/* ------------------------------------------------------------------ */

/* Number of dimensions as the algorithms see them (a ring is k = 1). */
static int kd_dims(const xchg_topo *t)
{
    return t->ndims;
}

/* Steps of the mtk schedule on a k-D torus whose AR1 parts take `slots`
 * slots: k parts of phase 1 (every slot has the longest ring sending), then
 * k-1 segment steps per dimension. */
static uint64_t mt_nsteps(uint64_t k, uint64_t slots)
{
    return k * slots + k * (k - 1);
}

/* Steps of the ptk schedule on a k-D torus whose AR1 parts take `slots`
 * slots: k AR1 ops (each uses every dimension, so every slot sends) and k
 * log2 k cube steps. */
static uint64_t pt_nsteps(uint64_t k, uint64_t slots)
{
    return k * slots + k * (uint64_t)xchg_alg_log2((uint32_t)k);
}

/* What the family needs: a torus (k = 1: a ring too) of dims dimensions
 * (0: any up to KD_MAX_DIMS), every size a multiple of 2k, lifted by the
 * option "virtual"; pow2: k a power of two. */
#define KD_NEEDS(kinds_mask, k_dims, pow2)                                                 \
    {.kinds = (kinds_mask),                                                                \
     .dims = (k_dims),                                                                     \
     .max_dims = (k_dims) ? 0 : KD_MAX_DIMS,                                               \
     .dims_pow2 = (pow2),                                                                  \
     .size_multiple_2k = 1,                                                                \
     .virtual_any_size = 1,                                                                \
     .why = "Liu et al. section 5"}
#define KD_TORUS XCHG_KIND(XCHG_TOPO_TORUS)
#define KD_TORUS_OR_RING (XCHG_KIND(XCHG_TOPO_TORUS) | XCHG_KIND(XCHG_TOPO_RING))

/* Nonzero when t has the sizes the paper allows for entry a: its declared
 * needs without the option "virtual". */
static int paper_size(const xchg_alg *a, const xchg_topo *t)
{
    return xchg_needs_check(&a->needs, a->name, t, NULL, NULL) == XCHG_OK;
}

/*
 * The virtual torus a ":virtual" schedule on t is built for: every size
 * rounded up to a multiple of 2k, into *v. Returns 0, or XCHG_ETOOBIG (*v
 * unspecified) when it would have more than XCHG_MAX_NODES nodes.
 */
static int kd_virtual_topo(const xchg_topo *t, xchg_topo *v)
{
    uint32_t m = 2u * (uint32_t)kd_dims(t);
    uint64_t nodes = 1;
    *v = *t;
    for (int d = t->ndims - 1; d >= 0; d--) {
        v->size[d] = (t->size[d] + m - 1) / m * m;
        v->stride[d] = (uint32_t)nodes;
        nodes *= v->size[d];
        if (nodes > XCHG_MAX_NODES)
            return XCHG_ETOOBIG;
    }
    v->nodes = (uint32_t)nodes;
    return XCHG_OK;
}

/* A builder of the family: the schedule of entry a on t (preconditions
 * checked), named after a. */
typedef int (*kd_build_fn)(const xchg_alg *a, const xchg_topo *t, xchg_sched **out,
                           xchg_err *err);

/*
 * Generate entry a (preconditions checked by the registry): build on t
 * itself, or (opts->virtual_nodes) on t with every size rounded up to a
 * multiple of 2k and hosted on t's nodes (src/alg/virtual.h), the hosted
 * schedule called "name:virtual".
 */
static int kd_generate(const xchg_alg *a, const xchg_topo *t, const xchg_opts *opts,
                       kd_build_fn build, xchg_sched **out, xchg_err *err)
{
    const char *name = a->name;
    if (kd_dims(t) == 1) {
        /* k = 1: PT_1 and MT_1 are AR1 itself; ar1's generator builds it
         * (with the same options) in a fifth of the time of the k-D path.
         * The ring meets ar1's needs: a's are the same for k = 1. */
        int rc = xchg_alg_ar1.generate(t, opts, out, err);
        if (rc == XCHG_OK) {
            snprintf((*out)->algorithm, sizeof (*out)->algorithm, "%s%s", name,
                     opts->virtual_nodes ? ":virtual" : "");
            (*out)->contention_free = xchg_alg_claims_free(a, t);
        }
        return rc;
    }
    if (!opts->virtual_nodes)
        return build(a, t, out, err);
    xchg_topo v;
    if (kd_virtual_topo(t, &v))
        return xchg_fail(err, XCHG_ETOOBIG,
                         "%s:virtual: the virtual torus (sizes rounded up to multiples of "
                         "%d) would have more than %u nodes",
                         name, 2 * kd_dims(t), (unsigned)XCHG_MAX_NODES);
    xchg_sched *vs = NULL;
    int rc = build(a, &v, &vs, err);
    if (rc)
        return rc;
    char vname[64];
    snprintf(vname, sizeof vname, "%s:virtual", name);
    rc = xchg_virtual_embed(t, vs, NULL, vname, out, err);
    if (rc == XCHG_OK) /* hosting keeps it contention-free, as declared */
        (*out)->contention_free = xchg_alg_claims_free(a, t);
    return rc;
}

/* Sum of node's coordinates. */
static uint32_t coord_sum(const xchg_topo *t, uint32_t node)
{
    uint32_t sum = 0;
    for (int d = 0; d < t->ndims; d++)
        sum += xchg_coord(t, node, d);
    return sum;
}

/* mtk's sender groups (xchg_sched_group) in phase 1 (group_arg 1): Liu et
 * al.'s G_i = {nodes whose coordinate sum mod k is i} (section 5.2), index
 * i; phase 2 names none. */
static int mt_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    if (s->steps[step].group_arg != 1 || s->topo.ndims < 2)
        return -1;
    uint32_t i = coord_sum(&s->topo, node) % (uint32_t)s->topo.ndims;
    snprintf(name, len, "G_%u", i);
    return (int)i;
}

/* ptk's sender groups (xchg_sched_group) in the top-level runs A and B
 * (group_arg 1): Liu et al.'s even and odd nodes, coordinate sum mod 2
 * (section 5.1), index the parity; the k-cube steps name none. */
static int pt_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    if (s->steps[step].group_arg != 1)
        return -1;
    uint32_t odd = coord_sum(&s->topo, node) & 1;
    snprintf(name, len, "%s nodes", odd ? "odd" : "even");
    return (int)odd;
}

/* Build the mtk schedule of entry alg (mt3 or mtk) on t, named after it. */
static int mt_build(const xchg_alg *alg, const xchg_topo *t, xchg_sched **out, xchg_err *err)
{
    const char *name = alg->name;
    int k = kd_dims(t);
    uint32_t p = t->nodes;
    ar1part part;
    /* size check first: placing long rings (part_place) takes slots^2 */
    part_rings(t, (uint32_t)k, &part);
    int rc = kd_size_check(t, name, mt_nsteps((uint64_t)k, part_slots(&part)), err);
    if (rc)
        return rc;
    if (part_place(&part))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    xchg_sched *s = xchg_sched_new(t, name, xchg_alg_claims_free(alg, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    s->group_fn = mt_group;
    /* group of every node: coordinate sum mod k */
    uint8_t *grp = malloc(p);
    if (!grp) {
        xchg_sched_free(s);
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    }
    for (uint32_t v = 0; v < p; v++) {
        uint32_t sum = 0;
        for (int d = 0; d < k; d++)
            sum += xchg_coord(t, v, d);
        grp[v] = (uint8_t)(sum % (uint32_t)k);
    }
    kbuild b;
    /* phase 1: k parts, group g along dimension (g + j) mod k */
    for (int j = 0; j < k; j++) {
        for (uint32_t z = 0; z < part.slots; z++) {
            if (kb_open(&b, t)) {
                free(grp);
                xchg_sched_free(s);
                return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
            }
            b.group_arg = 1;
            for (uint32_t v = 0; v < p; v++) {
                int dim = (grp[v] + j) % k;
                ringstep rs;
                if (!ring_at(part.q[dim], part.fin[dim], part.fin2[dim], part.split[dim], z,
                             &rs))
                    continue;
                if ((rc = kb_ar1(&b, v, dim, (uint32_t)k, &rs))) {
                    free(grp);
                    return kb_abort(&b, s, rc, err);
                }
            }
            if ((rc = kb_close(&b, s, err))) {
                free(grp);
                return rc;
            }
        }
    }
    free(grp);
    /* phase 2: per dimension, the k-node segments as cycles */
    uint32_t a = (uint32_t)k / 2, bb = (uint32_t)(k - 1) / 2; /* ceil((k-1)/2), floor */
    for (int dim = 0; dim < k; dim++) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            uint32_t len = sign > 0 ? a : bb;
            for (uint32_t step = 1; step <= len; step++) {
                if (kb_open(&b, t)) {
                    xchg_sched_free(s);
                    return xchg_fail(err, XCHG_ENOMEM,
                                     "out of memory while building the schedule");
                }
                int cl = kb_class(&b, dim, sign, 1, (uint32_t)k, 1, len - step + 1, 0,
                                  UINT32_MAX);
                uint64_t blocks = (uint64_t)(len - step + 1) * (p / (uint32_t)k);
                for (uint32_t v = 0; v < p; v++) {
                    uint32_t c = xchg_coord(t, v, dim), r = c % (uint32_t)k;
                    uint32_t nc = sign > 0 ? (r + 1 < (uint32_t)k ? c + 1 : c - r)
                                           : (r > 0 ? c - 1 : c + (uint32_t)k - 1);
                    if ((rc = kb_set(&b, v, with_coord(t, v, dim, nc), cl, blocks)))
                        return kb_abort(&b, s, rc, err);
                }
                if ((rc = kb_close(&b, s, err)))
                    return rc;
            }
        }
    }
    *out = s;
    return XCHG_OK;
}

static int mt3_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    return kd_generate(&xchg_alg_mt3, t, opts, mt_build, out, err);
}

static int mtk_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    return kd_generate(&xchg_alg_mtk, t, opts, mt_build, out, err);
}

/* Counts of the mtk schedule: k*S1 + k(k-1) start-ups, k*V1 + floor(k^2/4) p
 * blocks (see the header). */
static int mt_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    if (opts->virtual_nodes || !paper_size(&xchg_alg_mtk, t)) /* hosted: no closed form */
        return XCHG_ENOTAPPLIC;
    uint64_t k = (uint64_t)kd_dims(t), p = t->nodes;
    ar1part part;
    if (part_of(t, (uint32_t)k, &part))
        return XCHG_ENOMEM;
    out->startups = k * part.startups + k * (k - 1);
    out->volume_blocks = k * part.volume + (k * k / 4) * p;
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* ptk                                                                 */
/* ------------------------------------------------------------------ */

/* An operation of the flattened PT_k recursion: ch[l] at each level l is
 * 0 (run A), 1 (run B) or 2+j (cube step j at this level, the last level
 * of the op). All levels A/B: an AR1 part. */
typedef struct ptop {
    int nlev;
    int ch[6];
} ptop;

/* What node v does in op o: AR1 along *dim with stride *stride (returns 0),
 * or the cube step along *dim at stride *stride (returns 1). */
static int pt_action(const xchg_topo *t, const ptop *o, uint32_t v, int *dim, uint32_t *stride)
{
    int dl[KD_MAX_DIMS];
    int m = t->ndims;
    for (int d = 0; d < m; d++)
        dl[d] = d;
    uint32_t sg = 1;
    for (int l = 0; l < o->nlev; l++) {
        if (o->ch[l] >= 2) {
            *dim = dl[o->ch[l] - 2];
            *stride = sg;
            return 1;
        }
        uint32_t pi = 0;
        for (int d = 0; d < m; d++)
            pi += xchg_coord(t, v, dl[d]) / sg;
        int first = o->ch[l] == 0 ? (pi % 2 == 0) : (pi % 2 == 1);
        if (!first)
            for (int d = 0; d < m / 2; d++)
                dl[d] = dl[d + m / 2];
        m /= 2;
        sg *= 2;
    }
    *dim = dl[0];
    *stride = sg;
    return 0;
}

/* Enumerate the ops of PT_m at level l below prefix into ops (count *n). */
static void pt_ops(int m, int l, ptop prefix, ptop *ops, int *n)
{
    if (m == 1) {
        prefix.nlev = l;
        ops[(*n)++] = prefix;
        return;
    }
    for (int r = 0; r < 2; r++) {
        ptop q = prefix;
        q.ch[l] = r;
        pt_ops(m / 2, l + 1, q, ops, n);
    }
    for (int j = 0; j < m; j++) {
        ptop q = prefix;
        q.ch[l] = 2 + j;
        q.nlev = l + 1;
        ops[(*n)++] = q;
    }
}

/* Build the ptk schedule of entry alg (pt4 or ptk) on t, named after it. */
static int pt_build(const xchg_alg *alg, const xchg_topo *t, xchg_sched **out, xchg_err *err)
{
    const char *name = alg->name;
    int k = kd_dims(t);
    uint32_t p = t->nodes;
    ar1part part;
    /* size check first: placing long rings (part_place) takes slots^2 */
    part_rings(t, (uint32_t)k, &part);
    int rc = kd_size_check(t, name, pt_nsteps((uint64_t)k, part_slots(&part)), err);
    if (rc)
        return rc;
    if (part_place(&part))
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    /* k AR1 ops and k log2 k cube steps: at most 8 + 24 for k = 8 */
    ptop ops[64];
    int nops = 0;
    ptop root;
    memset(&root, 0, sizeof root);
    pt_ops(k, 0, root, ops, &nops);
    xchg_sched *s = xchg_sched_new(t, name, xchg_alg_claims_free(alg, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    s->group_fn = pt_group;
    kbuild b;
    for (int oi = 0; oi < nops; oi++) {
        const ptop *o = &ops[oi];
        int cube = o->nlev > 0 && o->ch[o->nlev - 1] >= 2;
        uint32_t nslots = cube ? 1 : part.slots;
        for (uint32_t z = 0; z < nslots; z++) {
            if (kb_open(&b, t)) {
                xchg_sched_free(s);
                return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
            }
            b.group_arg = o->nlev == 0 || o->ch[0] < 2; /* top-level run A or B */
            for (uint32_t v = 0; v < p; v++) {
                int dim;
                uint32_t sg;
                if (pt_action(t, o, v, &dim, &sg)) {
                    uint32_t c = xchg_coord(t, v, dim), l = c / sg;
                    int up = l % 2 == 0;
                    uint32_t nc = up ? c + sg : c - sg;
                    int cl = kb_class(&b, dim, up ? 1 : -1, sg, t->size[dim] / sg, 1, 1, 0,
                                      UINT32_MAX);
                    rc = kb_set(&b, v, with_coord(t, v, dim, nc), cl, p / 2);
                } else {
                    ringstep rs;
                    rc = ring_at(part.q[dim], part.fin[dim], part.fin2[dim], part.split[dim], z,
                                 &rs)
                             ? kb_ar1(&b, v, dim, sg, &rs)
                             : XCHG_OK;
                }
                if (rc)
                    return kb_abort(&b, s, rc, err);
            }
            if ((rc = kb_close(&b, s, err)))
                return rc;
        }
    }
    *out = s;
    return XCHG_OK;
}

static int pt4_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    return kd_generate(&xchg_alg_pt4, t, opts, pt_build, out, err);
}

static int ptk_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                        xchg_err *err)
{
    return kd_generate(&xchg_alg_ptk, t, opts, pt_build, out, err);
}

/* Counts of the ptk schedule: k*S1 + k log2 k start-ups, k*V1 + (k log2 k)
 * p/2 blocks (see the header). */
static int pt_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    if (opts->virtual_nodes || !paper_size(&xchg_alg_ptk, t)) /* hosted: no closed form */
        return XCHG_ENOTAPPLIC;
    uint64_t k = (uint64_t)kd_dims(t), p = t->nodes;
    uint64_t lg = (uint64_t)xchg_alg_log2((uint32_t)k);
    ar1part part;
    if (part_of(t, (uint32_t)k, &part))
        return XCHG_ENOMEM;
    out->startups = k * part.startups + k * lg;
    out->volume_blocks = k * part.volume + k * lg * (p / 2);
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* Estimates (xchg_estimate)                                           */
/* ------------------------------------------------------------------ */

/*
 * What mt_build (mt nonzero) or pt_build takes on t, a torus of k >= 2
 * dimensions with sizes multiples of 2k: the steps (mt_nsteps, pt_nsteps:
 * the builders' own counts), each owning a partner, a size and a class
 * table (4 + 4 + 1 bytes a node, as kd_size_check counts); no context.
 * mt_build's group of every node (1 byte a node) lives while phase 1 is
 * built: counted on top of the whole schedule, a peak at most p bytes high.
 * part_place's slot loads are freed before the schedule is allocated and
 * are not counted. Work: the table entries, and part_place's search for
 * where each ring's final goes (about k slots^2). O(k), no allocation.
 */
static void kd_build_estimate(const xchg_topo *t, int mt, xchg_estimate *out)
{
    uint64_t k = (uint64_t)kd_dims(t), p = t->nodes;
    ar1part a;
    part_rings(t, (uint32_t)k, &a);
    uint64_t slots = part_slots(&a);
    uint64_t n = mt ? mt_nsteps(k, slots) : pt_nsteps(k, slots);
    xchg_est_steps(out, n);
    xchg_est_tables(out, n, p, sizeof(uint32_t)); /* partner_table */
    xchg_est_tables(out, n, p, sizeof(uint32_t)); /* blocks_table */
    xchg_est_tables(out, n, p, sizeof(uint8_t));  /* class_table */
    if (mt)
        xchg_est_tables(out, 1, p, sizeof(uint8_t)); /* grp, while phase 1 is built */
    xchg_est_add(out, 0, xchg_est_prod(k, xchg_est_prod(slots, slots)));
}

/*
 * The family's estimate hook, mirroring kd_generate: a ring (k = 1) is
 * ar1's schedule, so ar1's estimate; a torus is kd_build_estimate on t, or,
 * hosted (":virtual"), on the virtual torus kd_virtual_topo gives, with the
 * hosting's cost added by xchg_virtual_estimate. A virtual torus beyond
 * XCHG_MAX_NODES, which kd_generate refuses, estimates as UINT64_MAX in
 * every field. Returns 0 (XCHG_ENOTAPPLIC only if ar1 had no estimate).
 */
static int kd_estimate(const xchg_topo *t, const xchg_opts *opts, int mt, xchg_estimate *out)
{
    if (kd_dims(t) == 1)
        return xchg_alg_ar1.estimate ? xchg_alg_ar1.estimate(t, opts, out) : XCHG_ENOTAPPLIC;
    if (!opts->virtual_nodes) {
        kd_build_estimate(t, mt, out);
        return XCHG_OK;
    }
    xchg_topo v;
    if (kd_virtual_topo(t, &v)) {
        out->steps = out->bytes = out->work = UINT64_MAX;
        return XCHG_OK;
    }
    xchg_estimate guest;
    kd_build_estimate(&v, mt, &guest);
    xchg_virtual_estimate(t, &v, &guest, out);
    return XCHG_OK;
}

static int mt_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    return kd_estimate(t, opts, 1, out);
}

static int pt_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    return kd_estimate(t, opts, 0, out);
}

/* ------------------------------------------------------------------ */
/* The paper's closed forms, for the tests and docs                    */
/* ------------------------------------------------------------------ */

/* Liu et al.'s closed forms (torus_liu_kd.h); P' = p / N1 is prod_{i>=2} N_i.
 * The derived T_kD volume term (k/2)(log2 k + 1) p equals the printed
 * (floor(k^2/4) + k/2) p for k <= 4 only. */
int xchg_liu_kd_paper(const xchg_topo *t, int which, xchg_counts *out)
{
    if (!paper_size(which == XCHG_LIU_KD_MT ? &xchg_alg_mtk : &xchg_alg_ptk, t))
        return XCHG_ENOTAPPLIC;
    uint64_t k = (uint64_t)kd_dims(t), p = t->nodes, n1 = 0;
    for (int d = 0; d < t->ndims; d++)
        if (t->size[d] > n1)
            n1 = t->size[d];
    uint64_t c = (n1 + 4 * k - 1) / (4 * k);
    uint64_t main_term = k * k * (n1 * n1 / (8 * k * k)) * (p / n1);
    uint64_t lg = (uint64_t)xchg_alg_log2((uint32_t)k);
    out->copy_blocks = 0; /* the paper models no local copies */
    if (which == XCHG_LIU_KD_MT) {
        out->startups = k * c + k * k;
        out->volume_blocks = main_term + (k * k / 4) * p + k * p / 2;
    } else {
        out->startups = k * (c + lg + 1);
        out->volume_blocks =
            main_term + (which == XCHG_LIU_KD_PT_PRINTED ? (k * k / 4) * p + k * p / 2 : k * (lg + 1) * p / 2);
    }
    return XCHG_OK;
}

const xchg_alg xchg_alg_mt3 = {
    .name = "mt3",
    .summary = "Liu-Gu MT3: (x+y+z) mod 3 groups run AR1 along x,y,z in turn, then 3x3x3",
    .source = "Liu et al. section 5.2, Figures 5-6, MT_3D",
    .topologies = "torus:AxBxC, every size a multiple of 6; any with mt3:virtual",
    .options = "virtual: any sizes, hosted on the real nodes (docs/virtual-nodes.md)",
    .needs = KD_NEEDS(KD_TORUS, 3, 0),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* AR1 parts, segment rings and cube swaps: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = mt3_generate,
    .formula = mt_formula,
    .variants = NULL,
    .estimate = mt_estimate,
};

const xchg_alg xchg_alg_mtk = {
    .name = "mtk",
    .summary = "Liu-Gu MTk: coordinate-sum mod k groups run AR1 per axis, then k x..x k",
    .source = "Liu et al. section 5.3, MT_kD",
    .topologies = "k-D torus (k = 1: ring), sizes multiples of 2k; any with mtk:virtual",
    .options = "virtual: any sizes, hosted on the real nodes (docs/virtual-nodes.md)",
    .needs = KD_NEEDS(KD_TORUS_OR_RING, 0, 0),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* AR1 parts, segment rings and cube swaps: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = mtk_generate,
    .formula = mt_formula,
    .variants = NULL,
    .estimate = mt_estimate,
};

const xchg_alg xchg_alg_pt4 = {
    .name = "pt4",
    .summary = "Liu-Gu PT4: even nodes AT2 on XY, odd on ST, swap, then a binary 4-cube",
    .source = "Liu et al. section 5.1, Figure 4, T_4D",
    .topologies = "torus:AxBxCxD, every size a multiple of 8; any with pt4:virtual",
    .options = "virtual: any sizes, hosted on the real nodes (docs/virtual-nodes.md)",
    .needs = KD_NEEDS(KD_TORUS, 4, 1),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* AR1 parts, segment rings and cube swaps: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = pt4_generate,
    .formula = pt_formula,
    .variants = NULL,
    .estimate = pt_estimate,
};

const xchg_alg xchg_alg_ptk = {
    .name = "ptk",
    .summary = "Liu-Gu PTk: k = 2^d torus as a product of two k/2 tori, recursively",
    .source = "Liu et al. section 5.1, T_kD",
    .topologies = "k-D torus, k = 2^d (1: ring), sizes multiples of 2k; any with ptk:virtual",
    .options = "virtual: any sizes, hosted on the real nodes (docs/virtual-nodes.md)",
    .needs = KD_NEEDS(KD_TORUS_OR_RING, 0, 1),
    .free_on = XCHG_KINDS_ALL,
    .in_place = 1, /* AR1 parts, segment rings and cube swaps: equal sizes */
    .symmetry = XCHG_SYM_TRANSLATE_2K,
    .parse = xchg_alg_parse_virtual,
    .applies = NULL,
    .generate = ptk_generate,
    .formula = pt_formula,
    .variants = NULL,
    .estimate = pt_estimate,
};
