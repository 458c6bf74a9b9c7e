/*
 * fuzz_cli.c - libFuzzer harness for the xchg CLI's arguments: the input is
 * split at blanks into words, the first naming the command, the rest its
 * argv, as main.c hands them over.
 *
 *   list, cost      run for real (tools/cmd_list.c, cmd_cost.c) when their
 *                   --topo, if any, has at most FZ_MAX_NODES nodes: both
 *                   read only declared sizes, so their work is bounded;
 *                   cost with --schedule FILE is only parsed.
 *   verify, export, compare, plan, draw, plot
 *                   only parsed: xchg_cli_parse with a copy of the command's
 *                   option table, then the value parsers the command applies
 *                   (--topo, the machine, --m/--sweep, --threads, --max-work,
 *                   --only). Running them could follow every block of a
 *                   16M-node network; their tables here must be kept in step
 *                   with tools/cmd_*.c.
 *   anything else   the --help check of main.c.
 *
 * It asserts (abort() on violation) that no command returns 3 (the CLI's
 * "internal error: a bug in xchg"), that parsing returns 0 or 2, and that
 * after a successful parse every option given has a value exactly when it
 * takes one. stdout goes to /dev/null; errors print on stderr, as the CLI's
 * do.
 */
#include "cli.h"
#include "fuzz_util.h"

/* Largest --topo the harness lets a command run on. */
#define FZ_MAX_NODES 1024u
/* Most words taken from one input. */
#define FZ_MAX_WORDS 32

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The commands' tables would flood the fuzzer's own output. */
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

/* A command's option table, copied from tools/cmd_*.c (they are local
 * there), with the command name. */
typedef struct table {
    const char *cmd;
    xchg_cli_opt opts[24];
} table;

static const table tables[] = {
    {"verify",
     {{"topo", "T", NULL, 0}, {"alg", "A", NULL, 0}, {"threads", "N", NULL, 0},
      {"max-work", "W", NULL, 0}, {"json", NULL, NULL, 0}, {"messages-only", NULL, NULL, 0},
      {"max-memory", "BYTES", NULL, 0}, {"schedule", "FILE", NULL, 0}, {NULL, NULL, NULL, 0}}},
    {"export",
     {{"topo", "T", NULL, 0}, {"alg", "A", NULL, 0}, {"format", "F", NULL, 0},
      {"output", "FILE", NULL, 0}, {"max-work", "W", NULL, 0}, {"max-memory", "BYTES", NULL, 0},
      {NULL, NULL, NULL, 0}}},
    {"compare",
     {{"topo", "T", NULL, 0}, {"machine", "NAME", NULL, 0}, {"ts", "S", NULL, 0},
      {"tw", "W", NULL, 0}, {"tr", "R", NULL, 0}, {"a", "A", NULL, 0},
      {"m", "MIN:MAX", NULL, 0}, {"threads", "N", NULL, 0}, {"max-work", "W", NULL, 0},
      {"json", NULL, NULL, 0}, {"only", "NAMES", NULL, 0}, {"wide", NULL, NULL, 0},
      {"max-memory", "BYTES", NULL, 0}, {"sim", NULL, NULL, 0}, {"plot", "FILE", NULL, 0},
      {"format", "F", NULL, 0}, {"op", "NAME", NULL, 0}, {"root", "R", NULL, 0},
      {"q", "Q", NULL, 0}, {NULL, NULL, NULL, 0}}},
    {"plan",
     {{"topo", "T", NULL, 0}, {"machine", "NAME", NULL, 0}, {"ts", "S", NULL, 0},
      {"tw", "W", NULL, 0}, {"tr", "R", NULL, 0}, {"a", "A", NULL, 0}, {"m", "M", NULL, 0},
      {"sweep", "MIN:MAX", NULL, 0}, {"only", "LIST", NULL, 0}, {"threads", "N", NULL, 0},
      {"max-work", "W", NULL, 0}, {"json", NULL, NULL, 0}, {"max-memory", "BYTES", NULL, 0},
      {"op", "NAME", NULL, 0}, {"root", "R", NULL, 0}, {"q", "Q", NULL, 0},
      {NULL, NULL, NULL, 0}}},
    {"sim",
     {{"topo", "T", NULL, 0}, {"alg", "A", NULL, 0}, {"machine", "NAME", NULL, 0},
      {"ts", "S", NULL, 0}, {"tw", "W", NULL, 0}, {"tr", "R", NULL, 0}, {"a", "A", NULL, 0},
      {"m", "BYTES", NULL, 0}, {"mode", "M", NULL, 0}, {"ports", "P", NULL, 0},
      {"th", "T", NULL, 0}, {"barrier", NULL, NULL, 0}, {"trace", "FILE", NULL, 0},
      {"json", NULL, NULL, 0}, {"max-memory", "BYTES", NULL, 0}, {"max-work", "W", NULL, 0},
      {"map", "M", NULL, 0}, {"network", "T2", NULL, 0}, {"routing", "R", NULL, 0},
      {"schedule", "FILE", NULL, 0}, {NULL, NULL, NULL, 0}}},
    {"draw",
     {{"topo", "T", NULL, 0}, {"alg", "A", NULL, 0}, {"schedule", "FILE", NULL, 0},
      {"step", "K", NULL, 0}, {"all-steps", NULL, NULL, 0}, {"output", "FILE", NULL, 0},
      {"format", "F", NULL, 0}, {"max-memory", "BYTES", NULL, 0}, {"max-work", "W", NULL, 0},
      {NULL, NULL, NULL, 0}}},
    /* plot: --bench and --sim may repeat; cmd_plot.c takes them out before
     * parsing the rest with this table, the parser here sees each once. */
    {"plot",
     {{"bench", "FILE", NULL, 0}, {"sim", "FILE", NULL, 0}, {"output", "FILE", NULL, 0},
      {"format", "F", NULL, 0}, {"title", "TEXT", NULL, 0}, {NULL, NULL, NULL, 0}}},
    /* list and cost: parsed first to find --topo before running them. */
    {"list",
     {{"topo", "T", NULL, 0}, {"op", "NAME", NULL, 0}, {"json", NULL, NULL, 0},
      {NULL, NULL, NULL, 0}}},
    {"cost",
     {{"topo", "T", NULL, 0}, {"alg", "A", NULL, 0}, {"machine", "NAME", NULL, 0},
      {"ts", "S", NULL, 0}, {"tw", "W", NULL, 0}, {"tr", "R", NULL, 0}, {"a", "A", NULL, 0},
      {"m", "BYTES", NULL, 0}, {"barrier", NULL, NULL, 0}, {"json", NULL, NULL, 0},
      {"max-memory", "BYTES", NULL, 0}, {"max-work", "W", NULL, 0},
      {"schedule", "FILE", NULL, 0}, {NULL, NULL, NULL, 0}}},
};
#define NTABLES (sizeof tables / sizeof tables[0])

/* Every option seen has a value iff it takes one. */
static void check_parsed(const xchg_cli_opt *opts, const char *in)
{
    for (const xchg_cli_opt *o = opts; o->name; o++)
        if (o->seen)
            FZ_CHECK((o->meta != NULL) == (o->value != NULL) && (!o->value || o->value[0]),
                     in);
}

/* The value parsers a parse-only command applies after parsing. */
static void check_values(xchg_cli_opt *opts, const char *cmd, const char *in)
{
    xchg_topo t;
    uint32_t nodes = 16;
    int rc;
    if (xchg_cli_has(opts, "topo")) {
        rc = xchg_cli_topo(opts, cmd, &t);
        FZ_CHECK(rc == 0 || rc == XCHG_CLI_USAGE, in);
        if (rc == 0)
            nodes = t.nodes;
    }
    if (xchg_cli_get(opts, "machine")) {
        xchg_machine m;
        rc = xchg_cli_machine(opts, nodes, &m);
        FZ_CHECK(rc == 0 || rc == XCHG_CLI_USAGE, in);
    }
    double lo, hi;
    uint64_t u;
    if (!strcmp(cmd, "compare") && xchg_cli_has(opts, "m"))
        xchg_cli_range("m", xchg_cli_val(opts, "m"), &lo, &hi);
    if (!strcmp(cmd, "plan") && xchg_cli_has(opts, "sweep"))
        xchg_cli_range("sweep", xchg_cli_val(opts, "sweep"), &lo, &hi);
    if (!strcmp(cmd, "plan") && xchg_cli_has(opts, "m"))
        xchg_cli_number("m", xchg_cli_val(opts, "m"), 0, XCHG_CLI_MAX_M, 1, &lo);
    if (xchg_cli_has(opts, "threads"))
        xchg_cli_uint("threads", xchg_cli_val(opts, "threads"), 1, 1024, &u);
    if (xchg_cli_get(opts, "max-memory")) {
        xchg_cli_limits lim;
        rc = xchg_cli_limits_get(opts, &lim);
        FZ_CHECK(rc == 0 || rc == XCHG_CLI_USAGE, in);
        FZ_CHECK(rc || (lim.max_bytes >= (1ull << 20) && lim.max_work >= 1), in);
    }
    if (xchg_cli_has(opts, "only")) {
        xchg_err err;
        xchg_alg_check_list(xchg_cli_val(opts, "only"), &err);
    }
    if (strcmp(cmd, "export") != 0 && xchg_cli_has(opts, "format")) {
        int png;
        rc = xchg_cli_picture_format(xchg_cli_val(opts, "format"), NULL, &png);
        FZ_CHECK(rc == 0 || rc == XCHG_CLI_USAGE, in);
    }
    if (xchg_cli_get(opts, "alg") && !xchg_cli_has(opts, "alg"))
        FZ_CHECK(xchg_cli_require(opts, "alg", cmd) == XCHG_CLI_USAGE, in);
}

/* Parse (and for list and cost, run) argv against the table of cmd. */
static void run(const char *cmd, int argc, char **argv, const char *in)
{
    if (xchg_cli_wants_help(argc, argv))
        return; /* main.c prints the help text and stops */
    for (size_t i = 0; i < NTABLES; i++) {
        if (strcmp(tables[i].cmd, cmd) != 0)
            continue;
        table tb = tables[i];
        int rc = xchg_cli_parse(cmd, argc, argv, tb.opts);
        FZ_CHECK(rc == 0 || rc == XCHG_CLI_USAGE, in);
        if (rc)
            return;
        check_parsed(tb.opts, in);
        int runs = !strcmp(cmd, "list") || !strcmp(cmd, "cost");
        if (!runs) {
            check_values(tb.opts, cmd, in);
            return;
        }
        if (xchg_cli_has(tb.opts, "schedule"))
            return; /* it would read whatever file the input names (fuzz_files
                       fuzzes the reader itself) */
        const char *spec = xchg_cli_val(tb.opts, "topo");
        xchg_topo t;
        if (spec && xchg_topo_parse(spec, &t, NULL) == XCHG_OK && t.nodes > FZ_MAX_NODES)
            return;
        rc = !strcmp(cmd, "list") ? xchg_cli_list(argc, argv) : xchg_cli_cost(argc, argv);
        FZ_CHECK(rc == XCHG_CLI_OK || rc == XCHG_CLI_USAGE, in);
        return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fz_cstr(data, size);
    if (!in)
        return 0;
    char *buf = strdup(in);
    char *words[FZ_MAX_WORDS];
    int n = 0;
    for (char *w = strtok(buf, " \t\n"); w && n < FZ_MAX_WORDS; w = strtok(NULL, " \t\n"))
        words[n++] = w;
    if (n > 0)
        run(words[0], n - 1, words + 1, in);
    free(buf);
    free(in);
    return 0;
}
