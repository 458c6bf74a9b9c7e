/*
 * fuzz_alg.c - libFuzzer harness for the algorithm spec and its options:
 * xchg_alg_parse on the input as a NUL-terminated string, then, for a spec
 * that parses, xchg_alg_applies on four small fixed topologies (ring:8,
 * torus:4x4, hypercube:3, complete:5) and, where it applies, the schedule.
 *
 * It asserts (abort() on violation):
 *   - a parsed spec names a registry entry (xchg_alg_find finds it by name);
 *   - round trip: "name" or "name:args" rebuilt from the parse result parses
 *     to the same algorithm with the same options;
 *   - a refusal always carries a message;
 *   - where xchg_alg_applies accepts, the estimate answers, with at least
 *     the steps the schedule then has;
 *   - where xchg_alg_applies accepts, xchg_alg_generate succeeds (or says
 *     ETOOBIG/ENOMEM) and the verifier passes the schedule: the options the
 *     parser lets through must not reach a generator that cannot honour them.
 */
#include "fuzz_util.h"
#include "xchg.h"

static const char *const topos[] = {"ring:8", "torus:4x4", "hypercube:3", "complete:5"};
#define NTOPOS (sizeof topos / sizeof topos[0])

/* Generate alg on t with opts and hold the schedule to the verifier. */
static void check_schedule(const xchg_alg *alg, const xchg_topo *t, const xchg_opts *o,
                           const char *in)
{
    xchg_sched *s = NULL;
    xchg_err err;
    xchg_estimate est;
    FZ_CHECK(xchg_alg_estimate(alg, t, o, &est, &err) == XCHG_OK, in);
    int rc = xchg_alg_generate(alg, t, o, &s, &err);
    FZ_CHECK(rc == XCHG_OK || rc == XCHG_ETOOBIG || rc == XCHG_ENOMEM, in);
    if (rc != XCHG_OK)
        return;
    FZ_CHECK(est.steps >= xchg_sched_nsteps(s), in);
    xchg_verify_opts vo = {.threads = 1};
    xchg_verify_report rep;
    FZ_CHECK(xchg_verify(s, &vo, &rep, &err) == XCHG_OK, in);
    if (!rep.ok)
        fprintf(stderr, "verify failed: %s\n", rep.reported ? rep.msgs[0] : "");
    FZ_CHECK(rep.ok, in);
    xchg_sched_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fz_cstr(data, size);
    if (!in)
        return 0;
    const xchg_alg *alg = NULL;
    xchg_opts o;
    xchg_err err;
    err.msg[0] = '\0';
    if (xchg_alg_parse(in, &alg, &o, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', in);
        free(in);
        return 0;
    }
    FZ_CHECK(alg && alg->name && xchg_alg_find(alg->name) == alg, in);
    FZ_CHECK(memchr(o.args, '\0', sizeof o.args) != NULL, in);

    char again[256];
    snprintf(again, sizeof again, "%s%s%s", alg->name, o.args[0] ? ":" : "", o.args);
    const xchg_alg *alg2 = NULL;
    xchg_opts o2;
    FZ_CHECK(xchg_alg_parse(again, &alg2, &o2, &err) == XCHG_OK, in);
    FZ_CHECK(alg2 == alg && memcmp(&o, &o2, sizeof o) == 0, in);

    for (size_t i = 0; i < NTOPOS; i++) {
        xchg_topo t;
        FZ_CHECK(xchg_topo_parse(topos[i], &t, &err) == XCHG_OK, topos[i]);
        err.msg[0] = '\0';
        int rc = xchg_alg_applies(alg, &t, &o, &err);
        FZ_CHECK(rc == XCHG_OK || rc == XCHG_ENOTAPPLIC || rc == XCHG_EINVAL, in);
        if (rc != XCHG_OK)
            FZ_CHECK(err.msg[0] != '\0', in);
        else
            check_schedule(alg, &t, &o, in);
    }
    free(in);
    return 0;
}
