/*
 * cmd_verify.c - "xchg verify": generate a schedule (or read one, --schedule)
 * and follow every block through it with xchg_verify; print the summary and
 * each reported failure. With --counts (docs/alltoallv.md) the blocks also
 * weigh their bytes, and the messages' bytes are reported.
 * Exit 0 when every check passed, 1 when one failed.
 */
#include "cli.h"

const char xchg_cli_verify_help[] =
    "usage: xchg verify (--topo T --alg A | --schedule FILE) [--threads N] [--max-work W]\n"
    "                   [--max-memory BYTES] [--messages-only] [--json]\n"
    "                   [--counts FILE|uniform|random:X|hot:R[:F]|sparse:F [--m BYTES]\n"
    "                   [--seed N]]\n\n"
    "Generate algorithm A on topology T and follow every block through the\n"
    "schedule: each block delivered, declared message sizes equal to what a node\n"
    "holds and selects, one-port receive, routes reaching their partner, and no\n"
    "directed link carrying two messages in a step when the algorithm claims to\n"
    "be contention-free (otherwise contention is counted, not failed).\n\n"
    "options:\n"
    "  --topo T        ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                  complete:P tree:D\n"
    "  --alg A         an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --schedule FILE a schedule in the export format (xchg export, or written by\n"
    "                  hand) instead of --alg; it claims nothing, so contention is\n"
    "                  counted; --topo may be left out\n"
    "  --threads N     worker threads, 0 = every online core (default 0)\n"
    "  --max-work W    refuse above W block-steps (p*p*steps), or a schedule that\n"
    "                  takes more than W operations to build (default 2e10)\n"
    "  --max-memory BYTES\n"
    "                  refuse when the schedule and the verifier's counts would\n"
    "                  take more memory (default 4G; suffixes K, M, G, T)\n"
    "  --messages-only check only what the messages say (routes, ports, link\n"
    "                  contention and load; sizes taken as declared), following no\n"
    "                  block: for networks too large to follow every block; W then\n"
    "                  limits the link hops, p*steps*(the longest route)\n"
    "  --counts C      blocks of uneven sizes (docs/alltoallv.md; see 'xchg cost\n"
    "                  --help'): also weigh every block's bytes and report the\n"
    "                  largest message, the volume and the messages in bytes (a\n"
    "                  message of only 0-byte blocks is not sent); every block must\n"
    "                  still arrive once. Not with --messages-only\n"
    "  --m BYTES       with a named --counts: its block size (default 1024)\n"
    "  --seed N        the seed of random:X and sparse:F (default 1)\n"
    "  --json          one JSON object on one line\n\n"
    "exit status: 0 every check passed, 1 a check failed, 2 bad input or a\n"
    "schedule too big to verify.\n";

/* Print the report as one JSON object. */
static void print_json(const xchg_topo *t, const xchg_sched *s,
                       const xchg_verify_report *r, double secs, int threads)
{
    char spec[128];
    fputs("{\"topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(t, spec, sizeof spec));
    fputs(",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, xchg_sched_algorithm(s));
    printf(",\"messages_only\":%s", r->messages_only ? "true" : "false");
    printf(",\"ok\":%s,\"contention_free_claim\":%s", r->ok ? "true" : "false",
           xchg_sched_contention_free(s) ? "true" : "false");
    fputs(",\"blocks\":", stdout);
    xchg_cli_json_u64(stdout, r->blocks);
    printf(",\"steps\":%zu", r->steps);
    fputs(",\"startups\":", stdout);
    xchg_cli_json_u64(stdout, r->startups);
    fputs(",\"volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, r->volume_blocks);
    fputs(",\"link_volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, r->link_volume_blocks);
    fputs(",\"link_conflicts\":", stdout);
    xchg_cli_json_u64(stdout, r->link_conflicts);
    if (r->counted_bytes) {
        fputs(",\"startups_bytes\":", stdout);
        xchg_cli_json_u64(stdout, r->startups_bytes);
        fputs(",\"volume_bytes\":", stdout);
        xchg_cli_json_u64(stdout, r->volume_bytes);
        fputs(",\"max_message_bytes\":", stdout);
        xchg_cli_json_u64(stdout, r->max_message_bytes);
        fputs(",\"messages_bytes\":", stdout);
        xchg_cli_json_u64(stdout, r->messages_bytes);
    }
    printf(",\"max_link_messages\":%u", (unsigned)r->max_link_messages);
    fputs(",\"max_hops\":", stdout);
    xchg_cli_json_u64(stdout, r->max_hops);
    fputs(",\"failures\":", stdout);
    xchg_cli_json_u64(stdout, r->failures);
    fputs(",\"undelivered\":", stdout);
    xchg_cli_json_u64(stdout, r->undelivered);
    fputs(",\"size_mismatches\":", stdout);
    xchg_cli_json_u64(stdout, r->size_mismatches);
    fputs(",\"port_violations\":", stdout);
    xchg_cli_json_u64(stdout, r->port_violations);
    fputs(",\"route_failures\":", stdout);
    xchg_cli_json_u64(stdout, r->route_failures);
    fputs(",\"seconds\":", stdout);
    xchg_cli_json_num(stdout, secs);
    printf(",\"threads\":%d,\"messages\":[", threads);
    int n = r->reported < 0 ? 0
            : r->reported > XCHG_VERIFY_MAX_REPORTED ? XCHG_VERIFY_MAX_REPORTED
                                                     : r->reported;
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', stdout);
        xchg_tool_json_str(stdout, r->msgs[i]);
    }
    fputs("]}\n", stdout);
}

/* Print the report as aligned text. */
static void print_text(const xchg_topo *t, const xchg_sched *s, const xchg_verify_report *r,
                       double secs, int threads)
{
    char spec[128];
    printf("topology        %s (%u node%s)\n", xchg_topo_spec(t, spec, sizeof spec),
           (unsigned)t->nodes, t->nodes == 1 ? "" : "s");
    printf("algorithm       %s\n", xchg_sched_algorithm(s));
    xchg_op op;
    xchg_sched_op(s, &op);
    if (op.kind != XCHG_OP_ALLTOALL)
        printf("operation       %s (its tokens followed: docs/operations.md)\n",
               xchg_op_name(op.kind));
    if (r->ok)
        printf("result          ok\n");
    else
        printf("result          FAILED (%llu failed checks)\n",
               (unsigned long long)r->failures);
    if (r->messages_only)
        printf("blocks          none followed (--messages-only: delivery and sizes not "
               "checked)\n");
    else
        printf("blocks          %llu followed\n", (unsigned long long)r->blocks);
    printf("steps           %zu\n", r->steps);
    printf("start-ups       %llu\n", (unsigned long long)r->startups);
    printf("volume          %llu blocks\n", (unsigned long long)r->volume_blocks);
    printf("link volume     %llu blocks (sum over steps of the busiest link's load)\n",
           (unsigned long long)r->link_volume_blocks);
    printf("contention      %llu (step, link) pairs with 2+ messages, at most %u on one "
           "link (%s)\n",
           (unsigned long long)r->link_conflicts, (unsigned)r->max_link_messages,
           xchg_sched_contention_free(s) ? "claimed contention-free"
                                         : "contention allowed");
    printf("max hops        %llu\n", (unsigned long long)r->max_hops);
    if (r->counted_bytes)
        printf("bytes           %llu messages of > 0 B in %llu steps; volume %llu B; the "
               "largest message %llu B\n",
               (unsigned long long)r->messages_bytes, (unsigned long long)r->startups_bytes,
               (unsigned long long)r->volume_bytes, (unsigned long long)r->max_message_bytes);
    if (threads > 0)
        printf("time taken      %.3f s (%d threads)\n", secs, threads);
    else
        printf("time taken      %.3f s (threads: every online core)\n", secs);
    if (!r->ok) {
        printf("failed checks   undelivered %llu, size mismatches %llu, port violations "
               "%llu, route failures %llu, link conflicts %llu\n",
               (unsigned long long)r->undelivered, (unsigned long long)r->size_mismatches,
               (unsigned long long)r->port_violations, (unsigned long long)r->route_failures,
               (unsigned long long)r->link_conflicts);
        int n = r->reported < 0                          ? 0
                : r->reported > XCHG_VERIFY_MAX_REPORTED ? XCHG_VERIFY_MAX_REPORTED
                                                         : r->reported;
        for (int i = 0; i < n; i++)
            printf("  failure: %s\n", r->msgs[i]);
        if (r->failures > (uint64_t)n)
            printf("  (%d failures shown of %llu)\n", n, (unsigned long long)r->failures);
    }
}

static int run(xchg_cli_opt *opts, const xchg_topo *tp, xchg_sched *file_s);
static int run_checked(xchg_cli_opt *opts, const xchg_topo *tp, xchg_sched *file_s,
                       xchg_verify_opts *vop, const xchg_cli_limits *limp);

int xchg_cli_verify(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},     {"alg", "A", NULL, 0},
                           {"threads", "N", NULL, 0},  {"max-work", "W", NULL, 0},
                           {"json", NULL, NULL, 0},    {"messages-only", NULL, NULL, 0},
                           {"max-memory", "BYTES", NULL, 0}, {"schedule", "FILE", NULL, 0},
                           {"counts", "C", NULL, 0},   {"seed", "N", NULL, 0},
                           {"m", "BYTES", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("verify", argc, argv, opts);
    if (rc)
        return rc;
    xchg_topo t;
    xchg_sched *s = NULL;
    if ((rc = xchg_cli_input(opts, "verify", 0, &t, &s)))
        return rc;
    rc = run(opts, &t, s);
    xchg_sched_free(s);
    return rc;
}

/* xchg verify on t: the schedule of --schedule (file_s), else --alg's. */
static int run(xchg_cli_opt *opts, const xchg_topo *tp, xchg_sched *file_s)
{
    int rc;
    xchg_topo t = *tp;
    xchg_verify_opts vo = {.threads = 0, .max_work = 0};
    uint64_t v;
    if (xchg_cli_has(opts, "threads")) {
        if ((rc = xchg_cli_uint("threads", xchg_cli_val(opts, "threads"), 0, 1024, &v)))
            return rc;
        vo.threads = (int)v;
    }
    xchg_cli_limits lim;
    if ((rc = xchg_cli_limits_get(opts, &lim)))
        return rc;
    vo.max_work = lim.max_work;
    vo.messages_only = xchg_cli_has(opts, "messages-only");
    if (xchg_cli_has(opts, "m") && !xchg_cli_has(opts, "counts"))
        return xchg_cli_error("--m is the block size of a named --counts; verify follows "
                              "blocks whatever their size; accepted: --m with --counts NAME");
    if (vo.messages_only && xchg_cli_has(opts, "counts"))
        return xchg_cli_error("--counts does not go with --messages-only: bytes are weighed "
                              "on the blocks followed; accepted: --counts C alone");
    double m;
    xchg_vcounts *counts = NULL;
    char cdesc[160];
    if ((rc = xchg_cli_block_size(opts, &m)) ||
        (rc = xchg_cli_counts(opts, &t, m, &counts, cdesc, sizeof cdesc)))
        return rc;
    vo.counts = counts;
    rc = run_checked(opts, &t, file_s, &vo, &lim);
    xchg_vcounts_free(counts);
    return rc;
}

/* The rest of verify's run with vo and lim read: limits, build, verify,
 * print. An exit status. */
static int run_checked(xchg_cli_opt *opts, const xchg_topo *tp, xchg_sched *file_s,
                       xchg_verify_opts *vop, const xchg_cli_limits *limp)
{
    int rc;
    xchg_topo t = *tp;
    xchg_verify_opts vo = *vop;
    xchg_cli_limits lim = *limp;
    /* everything checked before anything is built */
    const char *alg = xchg_cli_val(opts, "alg");
    xchg_estimate est = {.steps = file_s ? xchg_sched_nsteps(file_s) : 0};
    xchg_err err = {{0}};
    if (!file_s && (rc = xchg_cli_estimate(&t, alg, &est)))
        return rc;
    if ((rc = xchg_verify_check_work(&t, est.steps, &vo, &err)))
        return xchg_cli_error("verify: %s; accepted: --max-work W to raise it%s", err.msg,
                              vo.messages_only ? "" : ", or --messages-only");
    vo.max_bytes = est.bytes < lim.max_bytes ? lim.max_bytes - est.bytes : 1;
    if (!file_s && (rc = xchg_cli_within("verify", &t, alg, &est, &lim,
                                         xchg_verify_bytes(&t, est.steps, &vo),
                                         "the verifier's counts")))
        return rc;
    xchg_cli_progress bar;
    if ((rc = xchg_cli_progress_start(&bar, "verifying")))
        return rc;
    vo.progress = xchg_cli_progress_hook;
    vo.progress_ctx = &bar;
    xchg_sched *s = file_s;
    if (!s && (rc = xchg_cli_generate(&t, alg, &s)))
        return rc;
    xchg_verify_report r;
    double t0 = xchg_cli_now();
    int vrc = xchg_verify(s, &vo, &r, &err);
    double secs = xchg_cli_now() - t0;
    xchg_cli_progress_end(&bar);
    if (vrc) {
        rc = xchg_cli_lib_error(vrc, "verify", &err);
    } else {
        int threads = vo.threads;
        if (xchg_cli_has(opts, "json"))
            print_json(&t, s, &r, secs, threads);
        else
            print_text(&t, s, &r, secs, threads);
        rc = r.ok ? XCHG_CLI_OK : XCHG_CLI_FAILED;
    }
    if (s != file_s)
        xchg_sched_free(s);
    return rc;
}
