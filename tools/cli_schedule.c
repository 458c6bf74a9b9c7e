/*
 * cli_schedule.c - the schedule a command works on: --alg A on --topo T
 * (generated, after its estimate is held to the limits), or --schedule FILE,
 * a schedule in the export format written by xchg export, by hand or by
 * another tool (xchg_import; docs/export-format.md, "Import"). verify, cost
 * and sim take either; cost and sim verify a file's schedule before they
 * use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Read, import and (verify_first) verify FILE; *t is its topology. */
static int load(xchg_cli_opt *opts, const char *cmd, int verify_first, xchg_topo *t,
                xchg_sched **out)
{
    const char *path = xchg_cli_val(opts, "schedule");
    xchg_cli_limits lim;
    int rc = xchg_cli_limits_get(opts, &lim);
    if (rc)
        return rc;
    char *text;
    size_t len;
    size_t max = lim.max_bytes < SIZE_MAX ? (size_t)lim.max_bytes : SIZE_MAX - 1;
    if ((rc = xchg_cli_read_file("--schedule", path, max, &text, &len)))
        return rc;
    xchg_import_opts io = {.max_bytes = lim.max_bytes};
    xchg_err err = {{0}};
    xchg_sched *s = NULL;
    int irc = xchg_import(text, len, &io, &s, &err);
    free(text);
    if (irc)
        return irc == XCHG_ENOMEM ? xchg_cli_lib_error(irc, "--schedule", &err)
                                  : xchg_cli_error("bad --schedule '%s': %s", path, err.msg);
    *t = *xchg_sched_topo(s);
    if (xchg_cli_has(opts, "topo")) {
        xchg_topo given;
        char a[128], b[128];
        if ((rc = xchg_cli_topo(opts, cmd, &given))) {
            xchg_sched_free(s);
            return rc;
        }
        xchg_topo_spec(&given, a, sizeof a);
        xchg_topo_spec(t, b, sizeof b);
        if (strcmp(a, b)) {
            xchg_sched_free(s);
            return xchg_cli_error("--topo %s is not the topology of --schedule '%s' (%s); "
                                  "accepted: the file's topology, or no --topo",
                                  a, path, b);
        }
    }
    if (verify_first) {
        xchg_verify_opts vo = {.max_work = lim.max_work};
        xchg_verify_report r;
        int vrc = xchg_verify(s, &vo, &r, &err);
        if (vrc || !r.ok) {
            if (vrc)
                rc = xchg_cli_lib_error(vrc, "verifying --schedule", &err);
            else {
                fprintf(stderr,
                        "xchg: %s: the schedule in '%s' fails verification (%llu "
                        "failure%s; xchg verify --schedule shows them): %s\n",
                        cmd, path, (unsigned long long)r.failures, r.failures == 1 ? "" : "s",
                        r.reported ? r.msgs[0] : "see xchg verify");
                rc = XCHG_CLI_FAILED;
            }
            xchg_sched_free(s);
            return rc;
        }
    }
    *out = s;
    return 0;
}

int xchg_cli_input(xchg_cli_opt *opts, const char *cmd, int verify_first, xchg_topo *t,
                   xchg_sched **file_s)
{
    *file_s = NULL;
    int has_alg = xchg_cli_has(opts, "alg"), has_file = xchg_cli_has(opts, "schedule");
    if (has_alg && has_file)
        return xchg_cli_error("--alg and --schedule are alternatives; accepted: --topo T "
                              "--alg A, or --schedule FILE");
    if (has_file)
        return load(opts, cmd, verify_first, t, file_s);
    int rc = xchg_cli_topo(opts, cmd, t);
    if (rc == 0 && !has_alg)
        rc = xchg_cli_error("'xchg %s' needs --alg; accepted: --alg A (an algorithm from "
                            "'xchg list'), or --schedule FILE",
                            cmd);
    return rc;
}

int xchg_cli_schedule(xchg_cli_opt *opts, const char *cmd, const xchg_topo *t,
                      xchg_sched *file_s, xchg_estimate *est, xchg_sched **out)
{
    if (file_s) {
        memset(est, 0, sizeof *est);
        est->steps = xchg_sched_nsteps(file_s);
        *out = file_s;
        return 0;
    }
    int rc = xchg_cli_check_build(opts, cmd, t, est);
    if (rc == 0)
        rc = xchg_cli_generate(t, xchg_cli_val(opts, "alg"), out);
    return rc;
}
