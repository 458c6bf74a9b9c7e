/*
 * cli_limits.c - what a command may spend, and the check made before it
 * spends it: --max-memory and --max-work, read the same way by every
 * command that builds schedules, and the refusal, made from the library's
 * estimate (xchg_estimate) before anything is built, that names the
 * estimate, the limit and the flag that raises it (docs/limits.md).
 */
#include "cli.h"
#include "tool_size.h"

/* Largest --max-memory: 1 PiB (no machine here has more). */
#define MAX_MEMORY_CAP (1ull << 50)

/* Parse --max-memory's value (tool_size.h's syntax): from 1 MiB to 1 PiB. */
static int parse_bytes(const char *s, uint64_t *out)
{
    if (xchg_tool_bytes(s, 1ull << 20, MAX_MEMORY_CAP, out))
        return xchg_cli_error("bad size '%s' for --max-memory; accepted: a whole number of "
                              "bytes, or with a suffix K, M, G or T (KiB, MiB, GiB, TiB), "
                              "from 1M to 1024T",
                              s ? s : "");
    return 0;
}

int xchg_cli_limits_get(xchg_cli_opt *opts, xchg_cli_limits *out)
{
    out->max_bytes = XCHG_DEFAULT_MAX_BYTES;
    out->max_work = XCHG_VERIFY_DEFAULT_MAX_WORK;
    int rc;
    if (xchg_cli_has(opts, "max-memory") &&
        (rc = parse_bytes(xchg_cli_val(opts, "max-memory"), &out->max_bytes)))
        return rc;
    if (xchg_cli_has(opts, "max-work") &&
        (rc = xchg_cli_uint("max-work", xchg_cli_val(opts, "max-work"), 1, UINT64_MAX,
                            &out->max_work)))
        return rc;
    return 0;
}

int xchg_cli_estimate(const xchg_topo *t, const char *alg_spec, xchg_estimate *est)
{
    xchg_err err = {{0}};
    int rc = xchg_estimate_spec(t, alg_spec, est, &err);
    return rc ? xchg_cli_alg_error(rc, alg_spec, &err) : 0;
}

int xchg_cli_within(const char *cmd, const xchg_topo *t, const char *alg_spec,
                    const xchg_estimate *est, const xchg_cli_limits *lim,
                    uint64_t check_bytes, const char *check_what)
{
    char spec[64], a[32], b[32];
    xchg_topo_spec(t, spec, sizeof spec);
    uint64_t bytes = est->bytes > UINT64_MAX - check_bytes ? UINT64_MAX
                                                           : est->bytes + check_bytes;
    if (bytes > lim->max_bytes)
        return xchg_cli_error(
            "%s: %.60s on %s would take about %s of memory (%s%llu steps%s%s), more than the "
            "limit of %s; accepted: --max-memory BYTES to raise it (suffixes K, M, G, T), "
            "or a smaller topology",
            cmd, alg_spec, spec, xchg_bytes_text(bytes, a, sizeof a),
            "its schedule: ", (unsigned long long)est->steps,
            check_bytes ? ", and " : "", check_bytes ? check_what : "",
            xchg_bytes_text(lim->max_bytes, b, sizeof b));
    if (est->work > lim->max_work)
        return xchg_cli_error("%s: building %.60s on %s would take about %.3g operations "
                              "(%llu steps), more than the limit of %.3g; accepted: "
                              "--max-work W to raise it, or a smaller topology",
                              cmd, alg_spec, spec, (double)est->work,
                              (unsigned long long)est->steps, (double)lim->max_work);
    return 0;
}

int xchg_cli_check_build(xchg_cli_opt *opts, const char *cmd, const xchg_topo *t,
                         xchg_estimate *est)
{
    xchg_cli_limits lim;
    const char *alg = xchg_cli_val(opts, "alg");
    int rc;
    if ((rc = xchg_cli_limits_get(opts, &lim)) || (rc = xchg_cli_estimate(t, alg, est)))
        return rc;
    return xchg_cli_within(cmd, t, alg, est, &lim, 0, NULL);
}
