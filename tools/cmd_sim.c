/*
 * cmd_sim.c - "xchg sim": run a schedule on its network with the
 * event-driven simulator (xchg_sim_run, docs/simulator.md) and print when
 * it finishes, the cost model's contention-free prediction, the slowdown,
 * the waiting and the busiest links; --trace writes every message as a
 * JSON line. With --counts (docs/alltoallv.md) a message takes its blocks'
 * bytes and one of 0 bytes is not sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char xchg_cli_sim_help[] =
    "usage: xchg sim (--topo T --alg A | --schedule FILE) [--m BYTES] [--mode barrier|async]\n"
    "                [--ports one|all] [--routing wormhole|vct] [--th T] [--network T2]\n"
    "                [--map row-major|snake|FILE]\n"
    "                [--machine NAME | --ts S --tw W [--tr R] | --a A] [--barrier]\n"
    "                [--trace FILE] [--json]\n"
    "                [--max-memory BYTES] [--max-work W] [--ppn K]\n"
    "                [--counts FILE|uniform|random:X|hot:R[:F]|sparse:F [--seed N]]\n\n"
    "Run algorithm A's schedule on topology T event by event, with contention:\n"
    "a message takes ts at its sender, then holds every link of its route (and,\n"
    "with one-port nodes, its sender's injection and its receiver's ejection\n"
    "port) from head to tail, hops*th + blocks*m*tw; a message that finds one\n"
    "taken waits, first come first served (with --routing vct it takes them one\n"
    "by one and, blocked, frees those behind it). Prints the finish time, the cost\n"
    "model's contention-free prediction, the slowdown, the time messages\n"
    "waited and the busiest links. With th = 0, barrier steps and no contention\n"
    "the simulated time is the cost model's.\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                    complete:P tree:D\n"
    "  --alg A           an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --schedule FILE   a schedule in the export format (xchg export, or written by\n"
    "                    hand), verified first, instead of --alg\n"
    "  --m BYTES         block size (default 1024)\n"
    "  --mode M          barrier (default): a step starts when the last one has\n"
    "                    ended everywhere; async: a node starts its next step when\n"
    "                    its own send and receive are done\n"
    "  --ports P         one (default): one message in and one out per node at a\n"
    "                    time; all: any number\n"
    "  --routing R       wormhole (default): a message needs its whole path at once\n"
    "                    and holds it; vct (virtual cut-through): its head takes the\n"
    "                    links one by one, and a blocked message is buffered where\n"
    "                    it stands while the links behind it are freed\n"
    "  --th T            latency per hop, in the machine's units (default 0)\n"
    "  --network T2      run on another network of as many nodes (a hypercube\n"
    "                    schedule on a mesh: --topo hypercube:8 --network mesh:16x16)\n"
    "  --map M           where the schedule's nodes sit on the network: row-major\n"
    "                    (default: node i on node i), snake (every other line of\n"
    "                    the last dimension backwards), or FILE: p whole numbers,\n"
    "                    the network node of schedule node 0, 1, ... (a permutation)\n"
    "  --machine NAME    preset from Bokhari, Table 1: paragon (default), sp2, cs2;\n"
    "                    or a machine file (xchg probe writes one)\n"
    "  --ts S --tw W     custom machine: start-up S us, W us per byte\n"
    "  --tr R            with --ts/--tw: R us per byte copied locally (default 0)\n"
    "  --a A             Suh et al.'s model: ts = A, tw = 1 per flit, tr = 0\n"
    "  --barrier         barrier mode: add the preset's barrier time per step\n"
    "  --ppn K           K ranks a node, T the network of nodes: A is leader[:X],\n"
    "                    leaders:L[:X] or pairs[:X]; X's steps between nodes are\n"
    "                    simulated with the lanes' messages through each node's\n"
    "                    port, the steps within nodes come from the model\n"
    "                    (docs/hierarchical.md); not with --schedule, --network,\n"
    "                    --map, --trace; aggregate is costed (xchg cost --ppn),\n"
    "                    not simulated\n"
    "  --counts C        blocks of uneven sizes, MPI_Alltoallv's counts\n"
    "                    (docs/alltoallv.md): a FILE of p lines of p byte counts, or\n"
    "                    uniform, random:X, hot:R[:F], sparse:F of mean block --m\n"
    "                    (see 'xchg cost --help'): a message takes its blocks' bytes\n"
    "                    times tw, one of 0 bytes is not sent, and the prediction is\n"
    "                    'xchg cost --counts'. Not with --ppn\n"
    "  --seed N          the seed of random:X and sparse:F (default 1)\n"
    "  --trace FILE      write every message as a JSON line (step, from, to,\n"
    "                    blocks, ready, start, end) to FILE\n"
    "  --json            one JSON object on one line\n"
    "  --max-memory BYTES  refuse a schedule that would take more memory\n"
    "                    (default 4G; suffixes K, M, G, T)\n"
    "  --max-work W      refuse a schedule that takes more than W operations to\n"
    "                    build (default 2e10)\n\n"
    "exit status: 0 ok, 2 bad input, 3 internal error (a bug in xchg).\n";

/* Writes trace lines to a file. */
typedef struct tracer {
    FILE *f;
} tracer;

static void trace_line(void *ctx, size_t step, uint32_t from, uint32_t to, uint64_t blocks,
                       double ready, double start, double end)
{
    tracer *tr = ctx;
    fprintf(tr->f, "{\"step\":%zu,\"from\":%u,\"to\":%u,\"blocks\":%llu,\"ready\":", step,
            from, to, (unsigned long long)blocks);
    xchg_cli_json_num(tr->f, ready);
    fputs(",\"start\":", tr->f);
    xchg_cli_json_num(tr->f, start);
    fputs(",\"end\":", tr->f);
    xchg_cli_json_num(tr->f, end);
    fputs("}\n", tr->f);
}

/* The far end of a busiest link, for printing. */
static uint32_t far_end(const xchg_topo *t, const xchg_sim_link *l)
{
    return xchg_topo_neighbor(t, l->node, l->dim, l->dir);
}

static void print_json(const xchg_topo *t, const xchg_sched *s, const xchg_machine *mach,
                       double m, const char *counts, const xchg_sim_opts *o,
                       const xchg_sim_report *r)
{
    char spec[128];
    fputs("{\"topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(t, spec, sizeof spec));
    printf(",\"nodes\":%u", (unsigned)t->nodes);
    fputs(",\"algorithm\":", stdout);
    xchg_tool_json_str(stdout, xchg_sched_algorithm(s));
    fputs(",\"schedule_topology\":", stdout);
    xchg_tool_json_str(stdout, xchg_topo_spec(xchg_sched_topo(s), spec, sizeof spec));
    fputs(",\"machine\":", stdout);
    xchg_tool_json_str(stdout, mach->name);
    fputs(",\"units\":", stdout);
    xchg_tool_json_str(stdout, mach->units);
    fputs(",\"m\":", stdout);
    xchg_cli_json_num(stdout, m);
    if (o->counts) {
        fputs(",\"counts\":", stdout);
        xchg_tool_json_str(stdout, counts);
    }
    printf(",\"mode\":\"%s\",\"ports\":\"%s\"", o->mode == XCHG_SIM_ASYNC ? "async" : "barrier",
           o->all_port ? "all" : "one");
    printf(",\"routing\":\"%s\"", o->routing == XCHG_SIM_VCT ? "vct" : "wormhole");
    fputs(",\"th\":", stdout);
    xchg_cli_json_num(stdout, o->th);
    fputs(",\"time\":", stdout);
    xchg_cli_json_num(stdout, r->time);
    fputs(",\"predicted\":", stdout);
    xchg_cli_json_num(stdout, r->predicted);
    fputs(",\"slowdown\":", stdout);
    xchg_cli_json_num(stdout, r->predicted > 0 ? r->time / r->predicted : 1);
    fputs(",\"messages\":", stdout);
    xchg_cli_json_u64(stdout, r->messages);
    fputs(",\"link_hops\":", stdout);
    xchg_cli_json_u64(stdout, r->link_hops);
    fputs(",\"waited\":", stdout);
    xchg_cli_json_u64(stdout, r->waited);
    fputs(",\"wait\":", stdout);
    xchg_cli_json_num(stdout, r->wait);
    fputs(",\"max_wait\":", stdout);
    xchg_cli_json_num(stdout, r->max_wait);
    fputs(",\"events\":", stdout);
    xchg_cli_json_u64(stdout, r->events);
    fputs(",\"busiest_links\":[", stdout);
    for (size_t i = 0; i < r->nlinks; i++) {
        const xchg_sim_link *l = &r->busiest[i];
        printf("%s{\"from\":%u,\"to\":%u,\"dim\":%d,\"dir\":%d,\"busy\":", i ? "," : "",
               l->node, far_end(t, l), l->dim, l->dir);
        xchg_cli_json_num(stdout, l->busy);
        fputs(",\"messages\":", stdout);
        xchg_cli_json_u64(stdout, l->messages);
        fputc('}', stdout);
    }
    fputs("]}\n", stdout);
}

static void print_text(const xchg_topo *t, const xchg_sched *s, const xchg_machine *mach,
                       double m, const char *counts, const xchg_sim_opts *o,
                       const xchg_sim_report *r)
{
    char spec[128];
    const char *tu = mach->units;
    printf("topology      %s (%u node%s)\n", xchg_topo_spec(t, spec, sizeof spec),
           (unsigned)t->nodes, t->nodes == 1 ? "" : "s");
    printf("algorithm     %s", xchg_sched_algorithm(s));
    if (o->network)
        printf(" (made for %s)", xchg_topo_spec(xchg_sched_topo(s), spec, sizeof spec));
    putchar('\n');
    printf("machine       %s: ts = %g, tw = %g, tr = %g, th = %g (%s)\n", mach->name, mach->ts,
           mach->tw, mach->tr, o->th, tu);
    if (o->counts)
        xchg_cli_counts_describe("counts        ", counts, o->counts,
                                 strcmp(tu, "t_c") == 0 ? "flits" : "B");
    else
        printf("block size    m = %g %s\n", m, strcmp(tu, "t_c") == 0 ? "flits" : "B");
    printf("mode          %s steps, %s-port nodes, %s%s\n",
           o->mode == XCHG_SIM_ASYNC ? "async" : "barrier", o->all_port ? "all" : "one",
           o->routing == XCHG_SIM_VCT ? "virtual cut-through (links taken one by one)"
                                      : "wormhole routing (the whole path held)",
           o->map ? ", nodes placed by --map" : "");
    printf("simulated     %.6g %s\n", r->time, tu);
    printf("predicted     %.6g %s (cost model%s, no contention)\n", r->predicted, tu,
           o->counts ? " on the counts" : "");
    printf("slowdown      %.4g\n", r->predicted > 0 ? r->time / r->predicted : 1.0);
    printf("messages      %llu (%llu link hops)\n", (unsigned long long)r->messages,
           (unsigned long long)r->link_hops);
    printf("waiting       %llu messages waited, %.6g %s in all, %.6g at most\n",
           (unsigned long long)r->waited, r->wait, tu, r->max_wait);
    if (r->nlinks)
        printf("busiest links (from -> to, dimension and direction: busy time, messages%s):\n",
               t->kind == XCHG_TOPO_TREE
                   ? "; on a tree the dimension is the level, ^ climbs, a switch is named by its "
                     "first leaf"
                   : "");
    for (size_t i = 0; i < r->nlinks; i++) {
        const xchg_sim_link *l = &r->busiest[i];
        printf("  %u -> %u  dim %d %c: %.6g %s, %llu\n", l->node, far_end(t, l), l->dim,
               l->dir > 0 ? '+' : l->dir < 0 ? '-' : '^', l->busy, tu,
               (unsigned long long)l->messages);
    }
}

/* Read a node map from path: p whole numbers separated by white space,
 * entry i the network node of schedule node i. 0, or an exit status after
 * printing what is wrong and where (xchg_sim_run checks it is a
 * permutation). */
static int load_map(const char *path, uint32_t p, uint32_t *map)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return xchg_cli_error("cannot read --map '%s': %s; accepted: row-major, snake, or a "
                              "file of node ids",
                              path, strerror(errno));
    uint32_t n = 0;
    unsigned line = 1;
    int c, rc = 0;
    char word[32];
    size_t len = 0;
    for (;;) {
        c = fgetc(f);
        if (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            if (len + 1 < sizeof word)
                word[len] = (char)c;
            len++;
            continue;
        }
        if (len) {
            word[len < sizeof word ? len : sizeof word - 1] = '\0';
            char *end = NULL;
            errno = 0;
            unsigned long v = word[0] >= '0' && word[0] <= '9' ? strtoul(word, &end, 10) : 0;
            if (len >= sizeof word || !end || *end || errno || v >= p) {
                rc = xchg_cli_error("bad --map '%s', line %u: '%s' is not a node of the "
                                    "network; accepted: whole numbers from 0 to %u",
                                    path, line, word, p - 1);
                break;
            }
            if (n == p) {
                rc = xchg_cli_error("bad --map '%s', line %u: more than the %u nodes of the "
                                    "network; accepted: exactly %u numbers",
                                    path, line, p, p);
                break;
            }
            map[n++] = (uint32_t)v;
            len = 0;
        }
        if (c == '\n')
            line++;
        if (c == EOF)
            break;
    }
    fclose(f);
    if (rc == 0 && n < p)
        rc = xchg_cli_error("bad --map '%s': %u numbers for a network of %u nodes; accepted: "
                            "exactly %u numbers",
                            path, n, p, p);
    return rc;
}

/* Parse --mode, --ports, --routing and --th into o; 0 or an exit status. */
static int parse_sim_options(xchg_cli_opt *opts, xchg_sim_opts *o)
{
    const char *mode = xchg_cli_val(opts, "mode"), *ports = xchg_cli_val(opts, "ports");
    const char *routing = xchg_cli_val(opts, "routing");
    if (routing && strcmp(routing, "wormhole") != 0 && strcmp(routing, "vct") != 0)
        return xchg_cli_error("unknown --routing '%s'; accepted: wormhole, vct", routing);
    o->routing = routing && strcmp(routing, "vct") == 0 ? XCHG_SIM_VCT : XCHG_SIM_WORMHOLE;
    if (mode && strcmp(mode, "barrier") != 0 && strcmp(mode, "async") != 0)
        return xchg_cli_error("unknown --mode '%s'; accepted: barrier, async", mode);
    if (ports && strcmp(ports, "one") != 0 && strcmp(ports, "all") != 0)
        return xchg_cli_error("unknown --ports '%s'; accepted: one, all", ports);
    o->mode = mode && strcmp(mode, "async") == 0 ? XCHG_SIM_ASYNC : XCHG_SIM_BARRIER;
    o->all_port = ports && strcmp(ports, "all") == 0;
    if (xchg_cli_has(opts, "th"))
        return xchg_cli_number("th", xchg_cli_val(opts, "th"), 0, 1e12, 0, &o->th);
    return 0;
}

static int run(xchg_cli_opt *opts, const xchg_topo *tp, double m, xchg_sched *file_s);
static int run_on(xchg_cli_opt *opts, const xchg_topo *tp, double m, xchg_sched *file_s,
                  const xchg_machine *mp, xchg_sim_opts *op, const char *cdesc);

/* Print sim --ppn's answer: the inner part simulated (r), the parts within
 * the node from the model (fixed + per_unit*m), the model's whole line hl. */
static void print_ppn(const xchg_topo *t, uint32_t ppn, const char *spec, const char *inner,
                      const xchg_hier *h, double m, const xchg_sim_report *r, double intra,
                      const xchg_line *hl, int json)
{
    char tspec[64];
    xchg_topo_spec(t, tspec, sizeof tspec);
    double model = xchg_line_time(hl, m), total = r->time + intra;
    if (json) {
        fputs("{\"topology\":", stdout);
        xchg_tool_json_str(stdout, tspec);
        printf(",\"ppn\":%u,\"algorithm\":", (unsigned)ppn);
        xchg_tool_json_str(stdout, spec);
        fputs(",\"inner\":", stdout);
        xchg_tool_json_str(stdout, inner);
        printf(",\"leaders\":%u,\"m\":", (unsigned)h->leaders);
        xchg_cli_json_size(stdout, m);
        fputs(",\"between_nodes\":", stdout);
        xchg_cli_json_num(stdout, r->time);
        fputs(",\"between_nodes_predicted\":", stdout);
        xchg_cli_json_num(stdout, r->predicted);
        fputs(",\"within_nodes\":", stdout);
        xchg_cli_json_num(stdout, intra);
        fputs(",\"time\":", stdout);
        xchg_cli_json_num(stdout, total);
        fputs(",\"predicted\":", stdout);
        xchg_cli_json_num(stdout, model);
        fputs(",\"wait\":", stdout);
        xchg_cli_json_num(stdout, r->wait);
        fputs("}\n", stdout);
        return;
    }
    char sz[40];
    uint64_t G = ppn / h->leaders;
    printf("topology        %s nodes of %u ranks (%llu ranks)\n", tspec, (unsigned)ppn,
           (unsigned long long)t->nodes * ppn);
    printf("algorithm       %s: %u lane%s of %s between nodes, blocks of %llu*m\n", spec,
           (unsigned)h->leaders, h->leaders == 1 ? "" : "s", inner,
           (unsigned long long)G * ppn);
    printf("block size      m = %s\n", xchg_cli_size(m, sz, sizeof sz));
    printf("between nodes   %.6g simulated (the lanes' messages through each node's port, "
           "with contention); %.6g predicted\n",
           r->time, r->predicted);
    printf("within nodes    %.6g (model: gather, leaders' exchange, scatter, copies)\n", intra);
    printf("time            %.6g simulated + within nodes; the model says %.6g (%.4g times)\n",
           total, model, model > 0 ? total / model : 0.0);
    printf("messages        %llu, waited %llu for %.6g in all\n",
           (unsigned long long)r->messages, (unsigned long long)r->waited, r->wait);
}

/*
 * xchg sim --ppn K: a node-aware variant's steps between nodes on the node
 * network, simulated with contention: X's schedule with messages of
 * K*K*m bytes (the L lanes' G*K*m each, all through one port), a start-up
 * of ts (the lanes start theirs side by side, a core each) and copies of
 * G*K*m at tr (each leader copies its lane's, side by side: K*K*m at
 * tr/L); the steps within the node from the model (docs/hierarchical.md).
 * An exit status.
 */
static int sim_ppn(xchg_cli_opt *opts)
{
    static const char *const refused[] = {"schedule", "network", "map", "trace"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (xchg_cli_has(opts, refused[i]))
            return xchg_cli_error("--%s does not go with --ppn; accepted: --topo T (the nodes) "
                                  "--alg leader[:X]|leaders:L[:X]|pairs[:X] --ppn K",
                                  refused[i]);
    int rc;
    xchg_topo t;
    double m;
    uint32_t ppn;
    xchg_machine mach;
    xchg_sim_opts o;
    memset(&o, 0, sizeof o);
    if ((rc = xchg_cli_block_size(opts, &m)) || (rc = xchg_cli_require(opts, "alg", "sim")) ||
        (rc = xchg_cli_topo(opts, "sim", &t)) ||
        (rc = xchg_cli_ppn(opts, &t, XCHG_OP_ALLTOALL, &ppn)) ||
        (rc = xchg_cli_machine(opts, t.nodes, &mach)) || (rc = parse_sim_options(opts, &o)))
        return rc;
    o.with_barrier = xchg_cli_has(opts, "barrier");
    xchg_hier h;
    char inner[XCHG_SPEC_MAX];
    const char *spec = xchg_cli_val(opts, "alg");
    rc = xchg_cli_ppn_variant(&t, ppn, &mach, m, o.with_barrier, spec, &h, inner, sizeof inner);
    if (rc == 1)
        return xchg_cli_error("sim --ppn simulates the node-aware variants; '%s' is flat "
                              "(its cost with K ranks a node: 'xchg cost --ppn K --alg %s'); "
                              "accepted: leader[:X], leaders:L[:X], pairs[:X]",
                              spec, spec);
    if (rc)
        return rc;
    if (h.aggregate)
        return xchg_cli_error("sim --ppn does not simulate aggregate: a node's K ranks send "
                              "at once, several messages through its port in a step, which a "
                              "schedule on the network of nodes (one message a node a step) "
                              "cannot hold; its cost: 'xchg cost --ppn %u --alg aggregate'; "
                              "accepted: leader[:X], leaders:L[:X], pairs[:X]",
                              (unsigned)ppn);
    xchg_sched *s = NULL;
    if ((rc = xchg_cli_generate(&t, inner, &s)))
        return rc;
    uint64_t L = h.leaders, G = ppn / L, K = ppn, N = t.nodes, p = N * K;
    /* the lanes' start-ups overlap (one lane's ts), their bytes share the
     * port (K*K*m a message), their copies run side by side: the model's
     * xchg_hier_line, term by term */
    xchg_machine lane = mach;
    lane.tr = mach.tr / (double)L;
    xchg_sim_report r;
    xchg_err err = {{0}};
    int src = xchg_sim_run(s, &lane, m * (double)(K * K), &o, &r, &err);
    xchg_line il, hl;
    xchg_line_opts lo = {.with_barrier = o.with_barrier};
    if (!src)
        src = xchg_cost_line(s, &mach, &lo, &il, &err);
    if (!src)
        src = xchg_hier_line(&il, &t, ppn, h.leaders, &mach, o.with_barrier, &hl, &err);
    xchg_sched_free(s);
    if (src)
        return xchg_cli_lib_error(src, "sim", &err);
    /* within the node: the model's gather, leaders' exchange, scatter and
     * the leaders' copies around them */
    uint64_t around = (G > 1 ? 2 * G * p : 0) + (L > 1 ? G * p : 0);
    double intra = (double)hl.node_startups * mach.ts_node +
                   ((double)hl.node_volume_blocks * mach.tw_node + (double)around * mach.tr) * m;
    print_ppn(&t, ppn, spec, inner, &h, m, &r, intra, &hl, xchg_cli_has(opts, "json"));
    return XCHG_CLI_OK;
}

int xchg_cli_sim(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},       {"alg", "A", NULL, 0},
                           {"machine", "NAME", NULL, 0},  {"ts", "S", NULL, 0},
                           {"tw", "W", NULL, 0},          {"tr", "R", NULL, 0},
                           {"a", "A", NULL, 0},           {"m", "BYTES", NULL, 0},
                           {"mode", "M", NULL, 0},        {"ports", "P", NULL, 0},
                           {"th", "T", NULL, 0},          {"barrier", NULL, NULL, 0},
                           {"trace", "FILE", NULL, 0},    {"json", NULL, NULL, 0},
                           {"max-memory", "BYTES", NULL, 0}, {"max-work", "W", NULL, 0},
                           {"map", "M", NULL, 0},         {"network", "T2", NULL, 0},
                           {"routing", "R", NULL, 0},     {"schedule", "FILE", NULL, 0},
                           {"ppn", "K", NULL, 0},         {"counts", "C", NULL, 0},
                           {"seed", "N", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("sim", argc, argv, opts);
    if (rc)
        return rc;
    if (xchg_cli_has(opts, "ppn") && (xchg_cli_has(opts, "counts") || xchg_cli_has(opts, "seed")))
        return xchg_cli_error("--counts does not go with --ppn (the node-aware model prices "
                              "equal blocks); accepted: --counts C without --ppn");
    if (xchg_cli_has(opts, "ppn"))
        return sim_ppn(opts);
    xchg_topo t;
    double m;
    xchg_sched *s = NULL;
    if ((rc = xchg_cli_block_size(opts, &m)) || (rc = xchg_cli_input(opts, "sim", 1, &t, &s)))
        return rc;
    rc = run(opts, &t, m, s);
    xchg_sched_free(s);
    return rc;
}

/* xchg sim on topology t at block size m: with the schedule of --schedule
 * (file_s), else that of --alg. 0 or an exit status after printing. */
static int run(xchg_cli_opt *opts, const xchg_topo *tp, double m, xchg_sched *file_s)
{
    int rc;
    xchg_topo t = *tp;
    xchg_machine mach;
    xchg_sim_opts o;
    memset(&o, 0, sizeof o);
    if ((rc = xchg_cli_machine(opts, t.nodes, &mach)) || (rc = parse_sim_options(opts, &o)))
        return rc;
    o.with_barrier = xchg_cli_has(opts, "barrier");
    int custom = !xchg_cli_has(opts, "machine") &&
                 (xchg_cli_has(opts, "ts") || xchg_cli_has(opts, "a"));
    if (o.with_barrier && (o.mode != XCHG_SIM_BARRIER || custom))
        return xchg_cli_error("--barrier needs barrier mode and a machine with a barrier time; "
                              "accepted: --barrier with --mode barrier and --machine NAME");
    xchg_estimate est;
    if (!file_s && (rc = xchg_cli_check_build(opts, "sim", &t, &est)))
        return rc;
    xchg_vcounts *counts = NULL;
    char cdesc[160];
    uint64_t steps = file_s ? xchg_sched_nsteps(file_s) : est.steps;
    if (xchg_cli_has(opts, "counts") && (rc = xchg_cli_counts_work(opts, &t, steps)))
        return rc;
    if ((rc = xchg_cli_counts(opts, &t, m, &counts, cdesc, sizeof cdesc)))
        return rc;
    o.counts = counts;
    rc = run_on(opts, &t, m, file_s, &mach, &o, cdesc);
    xchg_vcounts_free(counts);
    return rc;
}

/* The rest of run: the network, the map, the trace, the run and what it
 * prints, with o filled so far (counts named cdesc). */
static int run_on(xchg_cli_opt *opts, const xchg_topo *tp, double m, xchg_sched *file_s,
                  const xchg_machine *mp, xchg_sim_opts *op, const char *cdesc)
{
    int rc = 0;
    xchg_topo t = *tp;
    xchg_machine mach = *mp;
    xchg_sim_opts o = *op;
    xchg_topo net = t;
    if (xchg_cli_has(opts, "network")) {
        xchg_err nerr = {{0}};
        if (xchg_topo_parse(xchg_cli_val(opts, "network"), &net, &nerr) != XCHG_OK)
            return xchg_cli_error("bad --network: %s", nerr.msg);
        if (net.nodes != t.nodes)
            return xchg_cli_error("--network %s has %u nodes but --topo has %u; accepted: a "
                                  "network of as many nodes",
                                  xchg_cli_val(opts, "network"), net.nodes, t.nodes);
        o.network = &net;
    }
    uint32_t *map = NULL;
    const char *mname = xchg_cli_val(opts, "map");
    if (mname) {
        xchg_err merr = {{0}};
        if (!(map = malloc((size_t)t.nodes * sizeof *map)))
            return xchg_cli_error("out of memory for --map");
        if (strcmp(mname, "row-major") == 0 || strcmp(mname, "snake") == 0) {
            int mrc = xchg_sim_map(&net, mname, map, &merr);
            rc = mrc ? xchg_cli_lib_error(mrc, "--map", &merr) : 0;
        } else
            rc = load_map(mname, net.nodes, map);
        if (rc) {
            free(map);
            return rc;
        }
        o.map = map;
    }
    tracer tr = {NULL};
    const char *path = xchg_cli_val(opts, "trace");
    if (path && !(tr.f = fopen(path, "w"))) {
        free(map);
        return xchg_cli_error("cannot write --trace '%s': %s", path, strerror(errno));
    }
    if (tr.f) {
        o.trace = trace_line;
        o.trace_ctx = &tr;
    }
    xchg_sched *s = file_s;
    xchg_sim_report r;
    xchg_err err = {{0}};
    if (s || (rc = xchg_cli_generate(&t, xchg_cli_val(opts, "alg"), &s)) == 0) {
        int src = xchg_sim_run(s, &mach, m, &o, &r, &err);
        if (src) {
            rc = xchg_cli_lib_error(src, "sim", &err);
        } else if (xchg_cli_has(opts, "json")) {
            print_json(&net, s, &mach, m, cdesc, &o, &r);
        } else {
            print_text(&net, s, &mach, m, cdesc, &o, &r);
        }
    }
    if (tr.f && fclose(tr.f) != 0 && rc == 0)
        rc = xchg_cli_error("cannot write --trace '%s': %s", path, strerror(errno));
    if (s != file_s)
        xchg_sched_free(s);
    free(map);
    return rc;
}
