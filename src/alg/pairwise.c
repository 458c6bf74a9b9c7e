/*
 * pairwise.c - pairwise exchange: `pairwise`.
 *
 * The large-block algorithm of the MPI libraries (MPICH's and Open MPI's
 * pairwise alltoall): p-1 steps, each node sends exactly one block, straight
 * to its destination. At step s = 1..p-1 node i sends its block for
 *   i XOR s        when p is a power of two (then the step is a pairing:
 *                  i and i XOR s exchange; this is Algorithm 4.10 of
 *                  Grama et al., Introduction to Parallel Computing,
 *                  section 4.5.3),
 *   (i + s) mod p  otherwise (a shift along node ids; node i receives from
 *                  (i - s) mod p).
 *   Preconditions: any p >= 1, any topology.
 *   Cost: start-ups p-1, volume p-1 blocks, no local copies (the optimum
 *   for volume under one port: each node must inject p-1 blocks).
 *   Contention: free on complete:P, and in the XOR form on a hypercube
 *   (e-cube routes); elsewhere the verifier counts it.
 */
#include "alg_common.h"

static int pairwise_generate(const xchg_topo *t, const xchg_opts *opts, xchg_sched **out,
                             xchg_err *err)
{
    (void)opts;
    uint32_t p = t->nodes;
    int pow2 = xchg_alg_is_pow2(p);
    xchg_sched *s = xchg_sched_new(t, "pairwise", xchg_alg_claims_free(&xchg_alg_pairwise, t));
    if (!s)
        return xchg_fail(err, XCHG_ENOMEM, "out of memory while building the schedule");
    for (uint32_t k = 1; k < p; k++) {
        xchg_step st = pow2 ? xchg_step_xor(k, xchg_rule_dest_is_to(), 1)
                            : xchg_step_shift(-1, (int64_t)k, xchg_rule_dest_is_to(), 1);
        int rc = xchg_alg_add(s, &st, err);
        if (rc)
            return rc;
    }
    *out = s;
    return XCHG_OK;
}

/* p-1 steps, XOR or shift: no tables, no ctx. O(1). */
static int pairwise_estimate(const xchg_topo *t, const xchg_opts *opts, xchg_estimate *out)
{
    (void)opts;
    xchg_est_steps(out, t->nodes ? t->nodes - 1 : 0);
    return XCHG_OK;
}

static int pairwise_formula(const xchg_topo *t, const xchg_opts *opts, xchg_counts *out)
{
    (void)opts;
    out->startups = t->nodes ? t->nodes - 1 : 0;
    out->volume_blocks = out->startups;
    out->copy_blocks = 0;
    return XCHG_OK;
}

const xchg_alg xchg_alg_pairwise = {
    .name = "pairwise",
    .summary = "p-1 steps of one block each, to i XOR s (p = 2^D) or (i + s) mod p",
    .source = "MPI libraries' pairwise alltoall; Grama et al., Introduction to Parallel "
              "Computing, section 4.5.3, Algorithm 4.10 for p = 2^D",
    .topologies = "any (contention-free on complete:P, and on hypercube:D)",
    .options = "",
    .needs = {0},
    /* a hypercube has 2^D nodes, so the XOR form: e-cube routes are free */
    .free_on = XCHG_KIND(XCHG_TOPO_COMPLETE) | XCHG_KIND(XCHG_TOPO_HYPERCUBE),
    .in_place = 1,
    .symmetry = XCHG_SYM_XOR_POW2,
    .parse = NULL,
    .applies = NULL,
    .generate = pairwise_generate,
    .formula = pairwise_formula,
    .variants = NULL,
    .estimate = pairwise_estimate,
};
