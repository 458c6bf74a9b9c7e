/*
 * cmd_cost.c - "xchg cost": start-ups, volume, copies and predicted time of
 * one schedule on one machine, with the lower bounds and which one binds.
 * Reads only the declared message sizes (xchg_cost_compute), so it answers
 * fast on any network size; it does not verify, and it does not measure the
 * link volume the planner charges a schedule that is not contention-free
 * (xchg_cost_line; `xchg plan` and `xchg compare` show it). With --counts
 * the blocks differ in size (docs/alltoallv.md): xchg_cost_vcounts, in
 * bytes.
 */
#include "cli.h"

#include <math.h>
#include <string.h>

const char xchg_cli_cost_help[] =
    "usage: xchg cost (--topo T --alg A | --schedule FILE)\n"
    "                 [--machine NAME|FILE | --ts S --tw W [--tr R] | --a A]\n"
    "                 [--m BYTES] [--barrier] [--json] [--max-memory BYTES] [--max-work W]\n"
    "                 [--ppn K] [--counts FILE|uniform|random:X|hot:R[:F]|sparse:F\n"
    "                 [--seed N]]\n\n"
    "Predict the cost of algorithm A on topology T from its declared message\n"
    "sizes (no block is followed; see 'xchg verify' for the proof):\n"
    "  time = start-ups*ts + volume*m*tw + copies*m*tr (+ one barrier per start-up)\n"
    "where volume is the sum over steps of the largest message in blocks. Also\n"
    "prints the lower bounds (start-ups >= ceil(log2 p) one-port; injection p-1\n"
    "blocks; torus bisection, Liu et al., Lemma 1), which one binds, and the ratio\n"
    "of the schedule's volume to the binding volume bound. For a schedule that\n"
    "is not contention-free the volume undercounts its link contention: 'xchg\n"
    "plan' and 'xchg compare' charge the measured link volume instead.\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                    complete:P tree:D\n"
    "  --alg A           an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --schedule FILE   a schedule in the export format (xchg export, or written by\n"
    "                    hand), verified first, instead of --alg; --topo may then be\n"
    "                    left out\n"
    "  --machine NAME    preset from Bokhari, Table 1: paragon (default), sp2, cs2;\n"
    "                    or a machine file (xchg probe writes one)\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             Suh et al.'s model: ts = A, tw = 1 per flit, tr = 0, times\n"
    "                    in t_c units and --m in flits\n"
    "  --m BYTES         block size (default 1024); for the other operations the\n"
    "                    operation's m (docs/operations.md): the message of a\n"
    "                    broadcast, a reduction's vector, one node's block of an\n"
    "                    allgather; the -split algorithms cut it into p blocks\n"
    "  --barrier         add the preset's barrier time once per start-up\n"
    "  --json            one JSON object on one line (startups, volume_blocks,\n"
    "                    copy_blocks, time, lower_bound, estimate_bytes, ...)\n"
    "  --max-memory BYTES  refuse a schedule that would take more memory\n"
    "                    (default 4G; suffixes K, M, G, T)\n"
    "  --max-work W      refuse a schedule that takes more than W operations to\n"
    "                    build (default 2e10)\n"
    "  --ppn K           K ranks a node: T is the network of nodes (K*nodes ranks);\n"
    "                    A is a flat algorithm on complete:K*nodes hosted K a node,\n"
    "                    or leader[:X], leaders:L[:X], pairs[:X] with X on T (default\n"
    "                    auto: the planner's), or aggregate; intra-node figures\n"
    "                    ts_node, tw_node from the machine (docs/hierarchical.md)\n"
    "  --counts C        blocks of uneven sizes, MPI_Alltoallv's counts\n"
    "                    (docs/alltoallv.md): a FILE of p lines of p byte counts\n"
    "                    (line i: what node i sends to 0 .. p-1), or a distribution\n"
    "                    of mean block --m: uniform, random:X (each block m*(1+u*X/100),\n"
    "                    u in [-1,1]), hot:R[:F] (rank R's row and column F*m, F\n"
    "                    default 8), sparse:F (each block off the diagonal m with\n"
    "                    probability F, else 0). A message weighs its blocks' bytes;\n"
    "                    one of 0 bytes is not sent and pays no start-up. Not with\n"
    "                    --ppn; the complete exchange only\n"
    "  --seed N          the seed of random:X and sparse:F (default 1)\n\n"
    "exit status: 0 ok, 2 bad input, 3 internal error (a bug in xchg).\n";

/* Larger of the volume bounds, and its name. */
static uint64_t volume_bound(const xchg_cost *c, const char **name)
{
    if (c->lb_bisection_blocks > c->lb_injection_blocks) {
        *name = c->lb_bisection_name[0] ? c->lb_bisection_name : "bisection";
        return c->lb_bisection_blocks;
    }
    *name = c->lb_injection_blocks > 1 ? "injection (p-1 blocks through one port)"
                                       : "injection (one block through one port)";
    return c->lb_injection_blocks;
}

/* Print the cost as one JSON object. */
static void print_json(const xchg_topo *t, const xchg_sched *s, const xchg_machine *mach,
                       double m, int barrier, const xchg_cost *c, const xchg_estimate *est)
{
    char spec[128];
    const char *vb_name;
    uint64_t vb = volume_bound(c, &vb_name);
    fputs("{\"topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(t, spec, sizeof spec));
    fputs(",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, xchg_sched_algorithm(s));
    xchg_op op;
    xchg_sched_op(s, &op);
    fputs(",\"operation\":", stdout);
    xchg_tool_json_str(stdout, xchg_op_name(op.kind));
    printf(",\"root\":%u,\"q\":%u,\"pieces\":%u", op.root, op.shift,
           op.pieces > 1 ? op.pieces : 1);
    xchg_cli_json_machine(stdout, mach);
    fputs(",\"m\":", stdout);
    xchg_cli_json_num(stdout, m);
    printf(",\"barrier\":%s", barrier ? "true" : "false");
    printf(",\"contention_free\":%s", xchg_sched_contention_free(s) ? "true" : "false");
    fputs(",\"steps\":", stdout);
    xchg_cli_json_u64(stdout, c->steps);
    fputs(",\"estimate_bytes\":", stdout);
    xchg_cli_json_u64(stdout, est->bytes);
    fputs(",\"estimate_work\":", stdout);
    xchg_cli_json_u64(stdout, est->work);
    fputs(",\"startups\":", stdout);
    xchg_cli_json_u64(stdout, c->startups);
    fputs(",\"volume_blocks\":", stdout);
    xchg_cli_json_u64(stdout, c->volume_blocks);
    fputs(",\"copy_blocks\":", stdout);
    xchg_cli_json_u64(stdout, c->copy_blocks);
    fputs(",\"time\":", stdout);
    xchg_cli_json_num(stdout, c->time);
    fputs(",\"lower_bound\":{\"startups\":", stdout);
    xchg_cli_json_u64(stdout, c->lb_startups);
    fputs(",\"injection_blocks\":", stdout);
    xchg_cli_json_u64(stdout, c->lb_injection_blocks);
    fputs(",\"bisection_blocks\":", stdout);
    xchg_cli_json_u64(stdout, c->lb_bisection_blocks);
    fputs(",\"bisection_name\":", stdout);
    xchg_tool_json_str(stdout, c->lb_bisection_name);
    fputs(",\"time\":", stdout);
    xchg_cli_json_num(stdout, c->lb_time);
    fputs(",\"binding\":", stdout);
    xchg_tool_json_str(stdout, c->lb_binding);
    fputs("},\"volume_ratio\":", stdout);
    xchg_cli_json_num(stdout, vb ? (double)c->volume_blocks / (op.pieces > 1 ? op.pieces : 1) /
                                       (double)vb
                                 : NAN);
    fputs(",\"time_ratio\":", stdout);
    xchg_cli_json_num(stdout, c->lb_time > 0 ? c->time / c->lb_time : NAN);
    fputs("}\n", stdout);
}

/* Print the cost as aligned text. */
static void print_text(const xchg_topo *t, const xchg_sched *s, const xchg_machine *mach,
                       double m, int barrier, const xchg_cost *c)
{
    char spec[128];
    int flits = strcmp(mach->units, "t_c") == 0;
    const char *mu = flits ? "flits" : "B";
    const char *tu = mach->units;
    printf("topology      %s (%u node%s)\n", xchg_topo_spec(t, spec, sizeof spec),
           (unsigned)t->nodes, t->nodes == 1 ? "" : "s");
    printf("algorithm     %s\n", xchg_sched_algorithm(s));
    xchg_op op;
    xchg_sched_op(s, &op);
    if (op.kind != XCHG_OP_ALLTOALL) {
        printf("operation     %s", xchg_op_name(op.kind));
        if (op.kind == XCHG_OP_BCAST || op.kind == XCHG_OP_REDUCE ||
            op.kind == XCHG_OP_SCATTER || op.kind == XCHG_OP_GATHER)
            printf(", root %u", op.root);
        if (op.kind == XCHG_OP_SHIFT)
            printf(", q = %u", op.shift);
        if (op.pieces > 1)
            printf(", its data cut into %u blocks", op.pieces);
        putchar('\n');
    }
    if (flits)
        printf("machine       %s: ts = %g t_c, tw = 1 t_c per flit, no copy cost\n",
               mach->name, mach->ts);
    else
        printf("machine       %s: ts = %g us, tw = %g us/B, tr = %g us/B, barrier %g us%s\n",
               mach->name, mach->ts, mach->tw, mach->tr, mach->barrier,
               barrier ? "" : " (not used; --barrier adds it)");
    if (op.pieces > 1)
        printf("block size    m/%u = %g %s (m = %g %s)\n", op.pieces,
               xchg_op_block_bytes(&op, m), mu, m, mu);
    else
        printf("block size    m = %g %s\n", m, mu);
    double bm = xchg_op_block_bytes(&op, m); /* bytes of one block */
    printf("steps         %llu\n", (unsigned long long)c->steps);
    printf("start-ups     %llu\n", (unsigned long long)c->startups);
    printf("volume        %llu blocks (%g %s through the busiest port)\n",
           (unsigned long long)c->volume_blocks, (double)c->volume_blocks * bm, mu);
    printf("copies        %llu blocks per node (local rearrangement)\n",
           (unsigned long long)c->copy_blocks);
    const char *mb = op.pieces > 1 ? "(m/p)" : "m"; /* a block */
    printf("time          %.6g %s = %llu*ts + %llu*%s*tw + %llu*%s*tr%s\n", c->time, tu,
           (unsigned long long)c->startups, (unsigned long long)c->volume_blocks, mb,
           (unsigned long long)c->copy_blocks, mb, barrier ? " + start-ups*barrier" : "");
    if (!xchg_sched_contention_free(s) && xchg_topo_has_links(t))
        printf("contention    not claimed contention-free on this topology: the model above\n"
               "              assumes none, so its volume can fall below the bisection bound;\n"
               "              'xchg verify' measures the congestion-scaled link volume,\n"
               "              and 'xchg plan' and 'xchg compare' charge it\n");
    printf("lower bounds (one-port, full-duplex links):\n");
    printf("  start-ups   %llu (%s); schedule has %llu\n", (unsigned long long)c->lb_startups,
           op.kind == XCHG_OP_SHIFT ? "one message each" : "ceil(log2 p)",
           (unsigned long long)c->startups);
    printf("  injection   %llu blocks (%s)\n", (unsigned long long)c->lb_injection_blocks,
           op.kind == XCHG_OP_ALLTOALL ? "p-1 through one port"
                                       : "what one port must carry: docs/operations.md");
    if (c->lb_bisection_blocks)
        printf("  bisection   %llu blocks (%s)\n", (unsigned long long)c->lb_bisection_blocks,
               c->lb_bisection_name[0] ? c->lb_bisection_name : "bisection");
    const char *vb_name;
    uint64_t vb = volume_bound(c, &vb_name);
    if (vb && op.pieces > 1)
        printf("  volume      %llu/%u / %llu = %.4g times the binding volume bound, %s\n",
               (unsigned long long)c->volume_blocks, op.pieces, (unsigned long long)vb,
               (double)c->volume_blocks / op.pieces / (double)vb, vb_name);
    else if (vb)
        printf("  volume      %llu / %llu = %.4g times the binding volume bound, %s\n",
               (unsigned long long)c->volume_blocks, (unsigned long long)vb,
               (double)c->volume_blocks / (double)vb, vb_name);
    else
        printf("  volume      no volume bound (a single node sends nothing)\n");
    printf("  time        %.6g %s (binding: %s)", c->lb_time, tu,
           c->lb_binding[0] ? c->lb_binding : "none");
    if (c->lb_time > 0)
        printf("; schedule / bound = %.4g", c->time / c->lb_time);
    putchar('\n');
}

/* Print the cost on counts as one JSON object. */
static void print_counts_json(const xchg_topo *t, const xchg_sched *s,
                              const xchg_machine *mach, int barrier, const char *desc,
                              const xchg_vcounts *c, const xchg_vcost *v)
{
    char spec[128];
    xchg_vcounts_summary sm;
    memset(&sm, 0, sizeof sm);
    xchg_vcounts_summarize(c, &sm);
    fputs("{\"topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(t, spec, sizeof spec));
    fputs(",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, xchg_sched_algorithm(s));
    xchg_cli_json_machine(stdout, mach);
    printf(",\"barrier\":%s", barrier ? "true" : "false");
    printf(",\"contention_free\":%s", xchg_sched_contention_free(s) ? "true" : "false");
    fputs(",\"counts\":", stdout);
    xchg_tool_json_str(stdout, desc);
    fputs(",\"total_bytes\":", stdout);
    xchg_cli_json_u64(stdout, sm.total);
    fputs(",\"nonzero\":", stdout);
    xchg_cli_json_u64(stdout, sm.nonzero);
    fputs(",\"mean\":", stdout);
    xchg_cli_json_num(stdout, sm.mean);
    fputs(",\"max_block\":", stdout);
    xchg_cli_json_u64(stdout, sm.max_block);
    fputs(",\"steps\":", stdout);
    xchg_cli_json_u64(stdout, v->steps);
    xchg_cli_json_vcost(stdout, v, 1);
    fputs(",\"lower_bound\":{\"startups\":", stdout);
    xchg_cli_json_u64(stdout, v->lb_startups);
    fputs(",\"direct_startups\":", stdout);
    xchg_cli_json_u64(stdout, v->lb_direct_startups);
    fputs(",\"injection_bytes\":", stdout);
    xchg_cli_json_u64(stdout, v->lb_injection_bytes);
    fputs(",\"time\":", stdout);
    xchg_cli_json_num(stdout, v->lb_time);
    fputs("}}\n", stdout);
}

/* Print the cost on counts as aligned text. */
static void print_counts_text(const xchg_topo *t, const xchg_sched *s,
                              const xchg_machine *mach, int barrier, const char *desc,
                              const xchg_vcounts *c, const xchg_vcost *v)
{
    char spec[128];
    int flits = strcmp(mach->units, "t_c") == 0;
    const char *mu = flits ? "flits" : "B";
    const char *tu = mach->units;
    printf("topology      %s (%u node%s)\n", xchg_topo_spec(t, spec, sizeof spec),
           (unsigned)t->nodes, t->nodes == 1 ? "" : "s");
    printf("algorithm     %s\n", xchg_sched_algorithm(s));
    if (flits)
        printf("machine       %s: ts = %g t_c, tw = 1 t_c per flit, no copy cost\n",
               mach->name, mach->ts);
    else
        printf("machine       %s: ts = %g us, tw = %g us/B, tr = %g us/B, barrier %g us%s\n",
               mach->name, mach->ts, mach->tw, mach->tr, mach->barrier,
               barrier ? "" : " (not used; --barrier adds it)");
    xchg_cli_counts_describe("counts        ", desc, c, mu);
    printf("steps         %llu\n", (unsigned long long)v->steps);
    printf("start-ups     %llu (steps with a message of > 0 %s)\n",
           (unsigned long long)v->startups, mu);
    printf("messages      %llu of > 0 %s, at most %llu from one node; the largest %llu %s\n",
           (unsigned long long)v->messages, mu, (unsigned long long)v->max_node_messages,
           (unsigned long long)v->max_message_bytes, mu);
    printf("volume        %llu %s (sum over steps of the largest message)\n",
           (unsigned long long)v->volume_bytes, mu);
    xchg_vcounts_summary sm;
    memset(&sm, 0, sizeof sm);
    xchg_vcounts_summarize(c, &sm);
    printf("copies        %llu blocks per node at %.6g %s each (the heaviest node's mean "
           "block)\n",
           (unsigned long long)v->copy_blocks, sm.copy_block, mu);
    printf("time          %.6g %s = %llu*ts + %llu %s*tw + %.6g %s*tr%s\n", v->time, tu,
           (unsigned long long)v->startups, (unsigned long long)v->volume_bytes, mu,
           v->copy_bytes, mu, barrier ? " + start-ups*barrier" : "");
    if (v->link_source == XCHG_LINK_MEASURED)
        printf("link volume   %llu %s (the busiest link each step, from the routes): time on "
               "the links %.6g %s\n",
               (unsigned long long)v->link_volume_bytes, mu, v->link_time, tu);
    printf("lower bounds (one-port, full-duplex links; these counts):\n");
    printf("  start-ups   %llu (ceil(log2(k+1)), k = %llu: the most nonzero blocks one node\n"
           "              sends or receives); a direct schedule needs k; schedule has %llu\n",
           (unsigned long long)v->lb_startups, (unsigned long long)v->lb_direct_startups,
           (unsigned long long)v->startups);
    printf("  injection   %llu %s (the most one node sends or receives)\n",
           (unsigned long long)v->lb_injection_bytes, mu);
    printf("  time        %.6g %s (start-ups and injection)", v->lb_time, tu);
    if (v->lb_time > 0)
        printf("; schedule / bound = %.4g", v->time / v->lb_time);
    putchar('\n');
}

/* cost --counts: the counts for t (named ones at block size m), then the
 * cost of s on them, printed; an exit status. */
static int cost_counts(xchg_cli_opt *opts, const xchg_topo *t, const xchg_sched *s,
                       const xchg_machine *mach, double m, int barrier)
{
    xchg_vcounts *c = NULL;
    char desc[160];
    int rc = xchg_cli_counts_work(opts, t, xchg_sched_nsteps(s));
    if (rc || (rc = xchg_cli_counts(opts, t, m, &c, desc, sizeof desc)))
        return rc;
    xchg_vcost v;
    xchg_err err = {{0}};
    int crc = xchg_cost_vcounts(s, mach, c, barrier, &v, &err);
    if (crc)
        rc = xchg_cli_lib_error(crc, "cost --counts", &err);
    else if (xchg_cli_has(opts, "json"))
        print_counts_json(t, s, mach, barrier, desc, c, &v);
    else
        print_counts_text(t, s, mach, barrier, desc, c, &v);
    xchg_vcounts_free(c);
    return rc;
}

/* cost --ppn K: the node-aware model (cli_ppn.c); an exit status. */
static int cost_ppn(xchg_cli_opt *opts)
{
    if (xchg_cli_has(opts, "schedule"))
        return xchg_cli_error("--ppn does not go with --schedule (a file is a schedule of one "
                              "network); accepted: --topo T --alg A --ppn K");
    int rc;
    xchg_topo t;
    double m;
    uint32_t ppn;
    xchg_machine mach;
    if ((rc = xchg_cli_block_size(opts, &m)) || (rc = xchg_cli_require(opts, "alg", "cost")) ||
        (rc = xchg_cli_topo(opts, "cost", &t)) ||
        (rc = xchg_cli_ppn(opts, &t, XCHG_OP_ALLTOALL, &ppn)) ||
        (rc = xchg_cli_machine(opts, t.nodes, &mach)))
        return rc;
    int barrier = xchg_cli_has(opts, "barrier");
    if (barrier && !xchg_cli_has(opts, "machine") && xchg_cli_has(opts, "ts"))
        return xchg_cli_error("--barrier needs a machine with a barrier time; accepted: "
                              "--barrier with --machine NAME (or the default paragon)");
    return xchg_cli_cost_ppn(opts, &t, ppn, &mach, m, barrier);
}

int xchg_cli_cost(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},      {"alg", "A", NULL, 0},
                           {"machine", "NAME", NULL, 0}, {"ts", "S", NULL, 0},
                           {"tw", "W", NULL, 0},         {"tr", "R", NULL, 0},
                           {"a", "A", NULL, 0},          {"m", "BYTES", NULL, 0},
                           {"barrier", NULL, NULL, 0},   {"json", NULL, NULL, 0},
                           {"max-memory", "BYTES", NULL, 0}, {"max-work", "W", NULL, 0},
                           {"schedule", "FILE", NULL, 0}, {"ppn", "K", NULL, 0},
                           {"counts", "C", NULL, 0},     {"seed", "N", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("cost", argc, argv, opts);
    if (rc)
        return rc;
    if (xchg_cli_has(opts, "ppn") && (xchg_cli_has(opts, "counts") || xchg_cli_has(opts, "seed")))
        return xchg_cli_error("--counts does not go with --ppn (the node-aware model prices "
                              "equal blocks); accepted: --counts C without --ppn");
    if (xchg_cli_has(opts, "ppn"))
        return cost_ppn(opts);
    xchg_topo t;
    double m;
    xchg_sched *file_s = NULL;
    if ((rc = xchg_cli_block_size(opts, &m)) ||
        (rc = xchg_cli_input(opts, "cost", 1, &t, &file_s)))
        return rc;
    xchg_machine mach;
    if ((rc = xchg_cli_machine(opts, t.nodes, &mach))) {
        xchg_sched_free(file_s);
        return rc;
    }
    int barrier = xchg_cli_has(opts, "barrier");
    if (barrier && !xchg_cli_has(opts, "machine") && xchg_cli_has(opts, "ts"))
        rc = xchg_cli_error("--barrier needs a machine with a barrier time; accepted: "
                            "--barrier with --machine NAME (or the default paragon)");
    else if (barrier && xchg_cli_has(opts, "a"))
        rc = xchg_cli_error("--barrier does not go with --a (Suh et al.'s model has no "
                            "barrier); accepted: --barrier with --machine NAME");
    xchg_estimate est;
    xchg_sched *s = NULL;
    if (rc || (rc = xchg_cli_schedule(opts, "cost", &t, file_s, &est, &s))) {
        xchg_sched_free(file_s);
        return rc;
    }
    if (xchg_cli_has(opts, "counts") || xchg_cli_has(opts, "seed")) {
        rc = cost_counts(opts, &t, s, &mach, m, barrier);
        xchg_sched_free(s);
        return rc;
    }
    xchg_cost c;
    xchg_err err = {{0}};
    int crc = xchg_cost_compute(s, &mach, m, barrier, &c, &err);
    if (crc) {
        rc = xchg_cli_lib_error(crc, "cost", &err);
    } else {
        if (xchg_cli_has(opts, "json"))
            print_json(&t, s, &mach, m, barrier, &c, &est);
        else
            print_text(&t, s, &mach, m, barrier, &c);
        rc = XCHG_CLI_OK;
    }
    xchg_sched_free(s);
    return rc;
}
