/*
 * hypercube.c - the hypercube family of complete exchange: `hc-standard`,
 * `hc-direct` and `multiphase:d1,d2,...`. They all need p = 2^D nodes and
 * pair node i with node i XOR mask; on a hypercube (ids are binary labels,
 * routes e-cube) and on a complete network every XOR step is free of link
 * contention. They run on any topology with a power-of-two node count (as
 * Bokhari runs them on the Paragon mesh and the SP2/CS-2 switches); there
 * the verifier counts the contention instead of forbidding it.
 *
 * hc-standard (Bokhari section 2.1, after Johnsson & Ho; Grama et al.,
 * Introduction to Parallel Computing, section 4.5.3, Figure 4.20, eq. 4.9):
 * for bit j = D-1 down to 0, node i sends to i XOR 2^j the p/2 blocks it
 * holds whose destination differs from i in bit j (equivalently: agrees
 * with the partner there). Every node holds p blocks before each step and
 * regroups them before sending (Grama et al.: "a node rearranges mp words
 * before each of the log p steps").
 *   Cost: start-ups D, volume D*p/2 blocks, copies D*p (p before each step).
 *
 * hc-direct (Bokhari section 2.2, after Take; Grama et al. section 4.5.3,
 * Algorithm 4.10, eq. 4.10): step i = 1..p-1, node n sends its one block
 * for n XOR i straight there. No rearrangement.
 *   Cost: start-ups p-1, volume p-1 blocks, copies 0.
 *
 * multiphase:d1,...,dk (Bokhari section 2.3, after Ho & Raghunath and
 * Bokhari's earlier papers): the parts dj >= 1 sum to D. Phase j takes the
 * next dj bits of the node id, lowest bits first, and runs a direct exchange
 * inside each 2^dj-node subcube spanned by those bits: its steps
 * s = 1..2^dj-1 send to node XOR (s shifted onto the phase's bits) the
 * p/2^dj held blocks whose destination agrees with the partner on the
 * phase's bits. A node regroups its p blocks between phases (Bokhari Figure
 * 5: "a data permutation step is required between (a) and (b)"): copies p
 * before each phase after the first. {D} is hc-direct; {1,...,1} is
 * hc-standard up to the bit order and the copy before the first step, which
 * Grama et al. count and Bokhari does not.
 *   Cost: start-ups sum_j (2^dj - 1), volume sum_j (2^dj - 1) p / 2^dj
 *   blocks, copies (k-1) p.
 *   variants(): Bokhari cites [3, 8]: only equipartitions (largest and
 *   smallest part differ by at most 1) can be optimal; we offer the
 *   equipartitions with 2..D-1 parts, smaller parts first (the one-part and
 *   D-part equipartitions are hc-direct and hc-standard).
 *
 * Preconditions, claims and in-place are declared in the registry entries
 * at the end of the file (HC_NEEDS, HC_FREE_ON); multiphase's parts summing
 * to D is its applies hook.
 */
#include "alg_common.h"

/* What the family needs and claims: p = 2^D nodes; contention-free on a
 * hypercube (e-cube) and a switch; every step a pairing of equal halves, so
 * a node always holds p blocks. */
#define HC_NEEDS {.nodes_pow2 = 1}
#define HC_FREE_ON (XCHG_KIND(XCHG_TOPO_HYPERCUBE) | XCHG_KIND(XCHG_TOPO_COMPLETE))

/* A step's group_arg: its phase j, the phase's first bit and its width. */
#define HC_GROUP_ARG(j, off, width) (((j) << 16) | ((off) << 8) | (width))

/* Sender groups (xchg_sched_group): every sender of a step is in its
 * phase's group, "phase J (bits A-B)" (J from 1), index J-1. */
static int phase_group(const xchg_sched *s, size_t step, uint32_t node, char *name, size_t len)
{
    (void)node;
    int arg = s->steps[step].group_arg;
    int j = arg >> 16, off = (arg >> 8) & 0xff, width = arg & 0xff;
    if (width == 1)
        snprintf(name, len, "phase %d (bit %d)", j + 1, off);
    else
        snprintf(name, len, "phase %d (bits %d-%d)", j + 1, off, off + width - 1);
    return j;
}

/*
 * Shared generator of entry a: phases run in the given order; phase j spans
 * bits off[j] .. off[j]+width[j]-1 and is a direct exchange over them.
 * copy_first: copy p blocks before the first step of every phase
 * (hc-standard) rather than of every phase but the first (multiphase).
 * Returns 0 and *out, or ENOMEM (nothing allocated is left behind).
 */
static int xor_phases(const xchg_alg *a, const xchg_topo *t, const char *spec, int nphases,
                      const int *off, const int *width, int copy_first, xchg_sched **out,
                      xchg_err *err)
{
    xchg_sched *s = xchg_sched_new(t, spec, xchg_alg_claims_free(a, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    uint64_t p = t->nodes;
    s->group_fn = phase_group;
    for (int j = 0; j < nphases; j++) {
        uint32_t n = 1u << width[j];
        uint32_t mask = (n - 1) << off[j];
        for (uint32_t step = 1; step < n; step++) {
            xchg_step st = xchg_step_xor(step << off[j], xchg_rule_dest_mask_to(mask), p / n);
            st.group_arg = HC_GROUP_ARG(j, off[j], width[j]);
            if (step == 1 && (copy_first || j > 0))
                st.copy_blocks = p;
            int rc = xchg_alg_add(s, &st, err);
            if (rc)
                return rc;
        }
    }
    *out = s;
    return XCHG_OK;
}

/* Steps xor_phases makes for phases of the given widths: 2^w - 1 each. */
static uint64_t xor_phases_nsteps(int nphases, const int *width)
{
    uint64_t n = 0;
    for (int j = 0; j < nphases; j++)
        n += ((uint64_t)1 << width[j]) - 1;
    return n;
}

/* What xor_phases holds: its steps (XOR partners, uniform sizes: no
 * tables, no ctx). */
static void xor_phases_estimate(int nphases, const int *width, xchg_estimate *out)
{
    xchg_est_steps(out, xor_phases_nsteps(nphases, width));
}

/* ---- hc-standard --------------------------------------------------- */

/* hc-standard's phases on p = 2^d nodes: d phases of one bit each, bit
 * D-1 first, down to bit 0. Returns d. */
static int standard_phases(const xchg_topo *t, int *off, int *width)
{
    int d = xchg_alg_log2(t->nodes);
    for (int j = 0; j < d; j++) {
        off[j] = d - 1 - j;
        width[j] = 1;
    }
    return d;
}

static int standard_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                             xchg_err *err)
{
    (void)opts;
    int off[XCHG_MAX_DIMS], width[XCHG_MAX_DIMS];
    int d = standard_phases(t, off, width);
    return xor_phases(&xchg_alg_hc_standard, t, "hc-standard", d, off, width, 1, out, err);
}

/* O(log p). */
static int standard_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    int off[XCHG_MAX_DIMS], width[XCHG_MAX_DIMS];
    xor_phases_estimate(standard_phases(t, off, width), width, out);
    return XCHG_OK;
}

/* Grama et al. eq. 4.9: (t_s + t_w m p/2) log p; copies p log p. */
static int standard_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    if (!xchg_alg_is_pow2(t->nodes))
        return XCHG_ENOTAPPLIC;
    uint64_t d = (uint64_t)xchg_alg_log2(t->nodes);
    out->startups = d;
    out->volume_blocks = d * t->nodes / 2;
    out->copy_blocks = d * t->nodes; /* p before each step */
    return XCHG_OK;
}

/* ---- hc-direct ----------------------------------------------------- */

static int direct_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                           xchg_err *err)
{
    (void)opts;
    int rc;
    xchg_sched *s = xchg_sched_new(t, "hc-direct", xchg_alg_claims_free(&xchg_alg_hc_direct, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    for (uint32_t i = 1; i < t->nodes; i++) {
        xchg_step st = xchg_step_xor(i, xchg_rule_dest_is_to(), 1);
        if ((rc = xchg_alg_add(s, &st, err)))
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* p-1 XOR steps: no tables, no ctx. O(1). */
static int direct_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    xchg_est_steps(out, t->nodes ? t->nodes - 1 : 0);
    return XCHG_OK;
}

/* Grama et al. eq. 4.10: (t_s + t_w m)(p - 1); no copies. */
static int direct_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    if (!xchg_alg_is_pow2(t->nodes))
        return XCHG_ENOTAPPLIC;
    out->startups = t->nodes - 1;
    out->volume_blocks = t->nodes - 1;
    out->copy_blocks = 0;
    return XCHG_OK;
}

/* ---- multiphase ---------------------------------------------------- */

/* Parse "d1,d2,..." (each 1..24, at most XCHG_MAX_DIMS parts). */
static int multiphase_parse(const char *args, xchg_opts *opts, xchg_err *err)
{
    if (!args || !*args)
        return xchg_fail(err, XCHG_EINVAL,
                         "multiphase needs the partition of d = log2 p as options, e.g. "
                         "multiphase:2,3 (parts >= 1, comma-separated, summing to d)");
    int n = 0;
    const char *s = args;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char part[16];
        uint64_t v;
        if (len == 0 || len >= sizeof part)
            return xchg_fail(err, XCHG_EINVAL,
                             "multiphase: bad partition '%s': expected positive integers "
                             "separated by commas, e.g. multiphase:2,3",
                             args);
        memcpy(part, s, len);
        part[len] = '\0';
        if (xchg_parse_u64(part, 1, 24, &v) != 0)
            return xchg_fail(err, XCHG_EINVAL,
                             "multiphase: bad part '%s' in '%s': each part is an integer "
                             "from 1 to 24",
                             part, args);
        if (n == XCHG_MAX_DIMS)
            return xchg_fail(err, XCHG_EINVAL,
                             "multiphase: more than %d parts in '%s'", XCHG_MAX_DIMS, args);
        opts->parts[n++] = (int)v;
        if (!comma)
            break;
        s = comma + 1;
    }
    opts->nparts = n;
    return XCHG_OK;
}

/* Sum of the parts, or -1 when there are none. */
static int parts_sum(const xchg_opts *opts)
{
    if (opts->nparts <= 0)
        return -1;
    int sum = 0;
    for (int j = 0; j < opts->nparts; j++)
        sum += opts->parts[j];
    return sum;
}

/* Write "multiphase:2,3" for the parts into buf. */
static void multiphase_spec(const xchg_opts *opts, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "multiphase:");
    for (int j = 0; j < opts->nparts && at < len; j++)
        at += (size_t)snprintf(buf + at, len - at, j ? ",%d" : "%d", opts->parts[j]);
}

/* What needs cannot say: the parts sum to d (p = 2^d is declared). */
static int multiphase_applies(const xchg_topo *t, const xchg_opts *opts, xchg_err *err)
{
    int d = xchg_alg_log2(t->nodes), sum = parts_sum(opts);
    if (sum < 0)
        return xchg_fail(err, XCHG_EINVAL,
                         "multiphase needs the partition of d = log2 p as options, e.g. "
                         "multiphase:2,3");
    for (int j = 0; j < opts->nparts; j++)
        if (opts->parts[j] < 1)
            return xchg_fail(err, XCHG_EINVAL, "multiphase: every part must be >= 1");
    if (sum != d) {
        char buf[64], spec[96];
        multiphase_spec(opts, spec, sizeof spec);
        return xchg_fail(err, XCHG_ENOTAPPLIC,
                         "%s needs parts summing to d = log2 p = %d on %s; they sum to %d",
                         spec, d, xchg_topo_spec(t, buf, sizeof buf), sum);
    }
    return XCHG_OK;
}

/* multiphase's phases: one per part, lowest bits first. Returns their
 * number. */
static int multiphase_phases(const xchg_opts *opts, int *off, int *width)
{
    int at = 0;
    for (int j = 0; j < opts->nparts; j++) {
        off[j] = at;
        width[j] = opts->parts[j];
        at += opts->parts[j];
    }
    return opts->nparts;
}

static int multiphase_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                               xchg_err *err)
{
    int off[XCHG_MAX_DIMS], width[XCHG_MAX_DIMS];
    int n = multiphase_phases(opts, off, width);
    char spec[96];
    multiphase_spec(opts, spec, sizeof spec);
    return xor_phases(&xchg_alg_multiphase, t, spec, n, off, width, 0, out, err);
}

/* O(number of parts). */
static int multiphase_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)t;
    int off[XCHG_MAX_DIMS], width[XCHG_MAX_DIMS];
    xor_phases_estimate(multiphase_phases(opts, off, width), width, out);
    return XCHG_OK;
}

/* Start-ups sum(2^dj - 1), volume sum((2^dj - 1) p / 2^dj). */
static int multiphase_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    if (!xchg_alg_is_pow2(t->nodes) || parts_sum(opts) != xchg_alg_log2(t->nodes))
        return XCHG_ENOTAPPLIC;
    uint64_t p = t->nodes, su = 0, vol = 0;
    for (int j = 0; j < opts->nparts; j++) {
        uint64_t n = (uint64_t)1 << opts->parts[j];
        su += n - 1;
        vol += (n - 1) * (p / n);
    }
    out->startups = su;
    out->volume_blocks = vol;
    out->copy_blocks = (uint64_t)(opts->nparts - 1) * p; /* p before each phase but the first */
    return XCHG_OK;
}

/* Equipartitions of D into 2..D-1 parts, smaller parts first. */
static int multiphase_variants(const xchg_topo *t, xchg_spec *specs, int max)
{
    if (!xchg_alg_is_pow2(t->nodes))
        return 0;
    int d = xchg_alg_log2(t->nodes), count = 0;
    for (int n = 2; n <= d - 1; n++, count++) {
        if (count >= max)
            continue;
        xchg_opts o;
        memset(&o, 0, sizeof o);
        o.nparts = n;
        for (int j = 0; j < n; j++)
            o.parts[j] = d / n + (j >= n - d % n ? 1 : 0);
        multiphase_spec(&o, specs[count], XCHG_SPEC_MAX);
    }
    return count;
}

const xchg_alg xchg_alg_hc_standard = {
    .name = "hc-standard",
    .summary = "log2 p exchanges of p/2 blocks across one bit each, regrouping between",
    .source = "Bokhari section 2.1 (Johnsson & Ho); Grama et al., Introduction to Parallel "
              "Computing, section 4.5.3, eq. 4.9",
    .topologies = "any topology with p = 2^D nodes (contention-free on hypercube, complete)",
    .options = "",
    .needs = HC_NEEDS,
    .free_on = HC_FREE_ON,
    .in_place = 1,
    .symmetry = XCHG_SYM_XOR,
    .parse = NULL,
    .applies = NULL,
    .generate = standard_generate,
    .formula = standard_formula,
    .variants = NULL,
    .estimate = standard_estimate,
};

const xchg_alg xchg_alg_hc_direct = {
    .name = "hc-direct",
    .summary = "p-1 steps, step i sends one block straight to node XOR i",
    .source = "Bokhari section 2.2 (Take); Grama et al., Introduction to Parallel Computing, "
              "section 4.5.3, Algorithm 4.10, eq. 4.10",
    .topologies = "any topology with p = 2^D nodes (contention-free on hypercube, complete)",
    .options = "",
    .needs = HC_NEEDS,
    .free_on = HC_FREE_ON,
    .in_place = 1,
    .symmetry = XCHG_SYM_XOR,
    .parse = NULL,
    .applies = NULL,
    .generate = direct_generate,
    .formula = direct_formula,
    .variants = NULL,
    .estimate = direct_estimate,
};

const xchg_alg xchg_alg_multiphase = {
    .name = "multiphase",
    .summary = "direct exchanges in subcubes of 2^d1, 2^d2, ... nodes, one phase each",
    .source = "Bokhari section 2.3 (Ho & Raghunath; Bokhari)",
    .topologies = "any topology with p = 2^D nodes (contention-free on hypercube, complete)",
    .options = "d1,d2,...: parts >= 1 summing to D = log2 p, lowest bits first "
               "(e.g. multiphase:2,3 on 32 nodes)",
    .needs = HC_NEEDS,
    .free_on = HC_FREE_ON,
    .in_place = 1,
    .symmetry = XCHG_SYM_XOR,
    .parse = multiphase_parse,
    .applies = multiphase_applies,
    .generate = multiphase_generate,
    .formula = multiphase_formula,
    .variants = multiphase_variants,
    .estimate = multiphase_estimate,
};
