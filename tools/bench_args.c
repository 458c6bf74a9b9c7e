/*
 * bench_args.c - xchg-bench's command line: one table of its options (the
 * OSU benchmarks' short ones and xchg's long ones), what each takes, and
 * the value readers behind them; the --help text. What is accepted across
 * options (an operation's root, the job's ranks) is bench_rules.c's.
 */
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tool_size.h"

/* osu_alltoall's defaults (OSU micro-benchmarks 7.x, osu_util.h). */
#define DEF_MIN_SIZE ((size_t)1)
#define DEF_MAX_SIZE ((size_t)1 << 20)
#define DEF_ITERS 1000
#define DEF_WARMUP 100
#define DEF_ITERS_LARGE 100
#define DEF_WARMUP_LARGE 10
#define DEF_MEM_LIMIT ((size_t)512 << 20)
/* --min-time's largest value, in seconds */
#define MAX_MIN_TIME 3600

static void print_help(FILE *f)
{
    fprintf(f,
            BENCH_NAME
            " " XCHG_VERSION " - time MPI_Alltoall or another collective\n"
            "operation through xchg's executor against the MPI library's own, in the layout\n"
            "of the OSU micro-benchmarks (osu_alltoall, osu_bcast, osu_allreduce, ...).\n\n"
            "usage: mpirun -np P " BENCH_NAME " [OPTIONS]\n\n"
            "options (the OSU benchmarks'):\n"
            "  -m, --message-size [MIN:]MAX  sizes in bytes (below), MIN, 2*MIN, 4*MIN ... up\n"
            "                                to MAX (default 1:1048576); also MIN: or :MAX;\n"
            "                                K, M, G suffixes are powers of 1024\n"
            "  -i, --iterations N            timed calls per size (default %d, %d above %zu B)\n"
            "  -x, --warmup N                untimed calls first (default %d, %d above %zu B)\n"
            "  -f, --full                    also Min and Max latency over ranks and Iterations\n"
            "  -c, --validation              check every output against the value computed\n"
            "                                from the inputs (blocks: every byte, a hash of\n"
            "                                origin, destination, offset and call; reductions:\n"
            "                                every sum); a Validation column says Pass or Fail\n"
            "  -l, --in-place                send from the receive buffer (MPI_IN_PLACE;\n"
            "                                --op alltoall only)\n"
            "  -M, --mem-limit BYTES         largest buffer per rank, P*MAX (alltoall,\n"
            "                                reduce_scatter, allgather, gather, scatter) or MAX\n"
            "                                (default 512M); MAX is lowered to fit, with a\n"
            "                                warning\n"
            "  -h, --help                    this help\n"
            "  -v, --version                 the version\n"
            "xchg's:\n"
            "  --op NAME                     the operation timed: alltoall (default), bcast,\n"
            "                                reduce, allreduce, reduce_scatter, scan, allgather,\n"
            "                                gather, scatter, shift, alltoallv, alltoallw\n"
            "  --counts DIST                 alltoallv, alltoallw: the blocks' sizes, the size\n"
            "                                their mean: uniform (default), random:X (each\n"
            "                                +-X%%), hot:R[:F] (rank R's blocks F times, default\n"
            "                                8), sparse:F (a fraction F of the pairs, the rest\n"
            "                                0); the same matrix on every rank\n"
            "  --seed N                      the seed of --counts' random forms (default 1)\n"
            "  --root R                      the root of bcast, reduce, gather, scatter\n"
            "                                (0 to P-1, default 0)\n"
            "  --q Q                         shift: rank r sends to (r+Q) mod P (an integer, not\n"
            "                                a multiple of P; default 1)\n"
            "  --alg SPEC|auto|shm|mpi       a registry spec of the operation (see 'xchg list\n"
            "                                --op NAME'), auto (xchg picks per size), shm (the\n"
            "                                exchange through shared memory, one node) or mpi\n"
            "                                (the MPI library's own call: MPI_Alltoall,\n"
            "                                MPI_Bcast, ...; shift: MPI_Sendrecv); default auto\n"
            "  --topo SPEC|auto              the topology the ranks are laid out on (its node\n"
            "                                count must be P), default auto (complete:P)\n"
            "  --iterations-large N          timed calls above %zu B (-i sets both)\n"
            "  --warmup-large N              warm-up calls above %zu B (-x sets both)\n"
            "  --tuning FILE                 auto runs the tuning file's measured winners\n"
            "                                (xchg tune; default XCHG_TUNING_FILE)\n"
            "  --machine FILE                auto's cost model uses this machine file\n"
            "                                (xchg probe; default XCHG_MACHINE_FILE)\n"
            "  --json                        one JSON object per size instead of the table\n"
            "  --verbose                     the executor says what each plan chose (stderr)\n"
            "  --pair                        also time the MPI library's own call in the same\n"
            "                                run, each iteration one call of each in turn (the\n"
            "                                order alternating); adds its Avg, the ratio\n"
            "                                xchg/MPI of the Avgs, the median ratio: of each\n"
            "                                rank's median call, and the pair ratio: each\n"
            "                                rank's median over the iterations of xchg's call\n"
            "                                / the library's in that iteration; both averaged\n"
            "                                over the ranks (not with -l); with --alg mpi both\n"
            "                                calls are the library's: the ratios' noise floor\n"
            "  --min-time S                  at each size, at least as many timed calls as\n"
            "                                fill S seconds (0 < S <= %d) at the warm-up's\n"
            "                                pace (one warm-up call at least; with --pair a\n"
            "                                pair of calls each), never fewer than -i; -f\n"
            "                                shows the counts run\n\n"
            "Size (bytes, one rank's block, as the OSU benchmark of the operation counts it):\n"
            "  alltoall        the block for each destination (sends and receives P of them)\n"
            "  alltoallv, alltoallw   the mean block (--counts)\n"
            "  bcast, shift    the message\n"
            "  reduce, allreduce, scan   the vector each rank contributes\n"
            "  reduce_scatter  the block each rank receives (it sends P of them; OSU's\n"
            "                  osu_reduce_scatter counts the whole vector, P times this)\n"
            "  allgather, gather, scatter   the block of each rank (the root, or every rank\n"
            "                  of allgather, holds P of them)\n"
            "Reductions sum MPI_INT with MPI_SUM: size/4 elements; sizes below 4 B are skipped\n"
            "and others rounded down to a multiple of 4 (OSU's size / type size). The other\n"
            "operations move MPI_BYTE.\n\n"
            "Latency per size: each rank's mean time per call; Avg is its mean over ranks,\n"
            "Min and Max its extremes over ranks (the OSU benchmarks' definition). xchg runs\n"
            "through a plan made per size before the timed loop.\n"
            "exit status: 0 ok, 1 a validation failed, 2 bad usage, 3 an MPI call failed.\n",
            DEF_ITERS, DEF_ITERS_LARGE, LARGE_MESSAGE_SIZE, DEF_WARMUP, DEF_WARMUP_LARGE,
            LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE, MAX_MIN_TIME);
}

/* A byte count (tool_size.h's syntax) that fits a size_t; 0 and *out, or -1. */
static int parse_bytes(const char *s, size_t lo, size_t *out)
{
    uint64_t v;
    if (xchg_tool_bytes(s, lo, SIZE_MAX, &v))
        return -1;
    *out = (size_t)v;
    return 0;
}

int bench_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (LONG_MAX - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    if (*s != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --min-time's value: seconds in (0, MAX_MIN_TIME], digits with at most
 * one decimal point (no sign, exponent or "inf"); 0 and *out, or -1. */
static int parse_seconds(const char *s, double *out)
{
    int digits = 0, points = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '.')
            points++;
        else if (*c >= '0' && *c <= '9')
            digits++;
        else
            return -1;
    }
    if (digits == 0 || points > 1 || digits > 12)
        return -1;
    double v = strtod(s, NULL);
    if (!(v > 0) || v > MAX_MIN_TIME)
        return -1;
    *out = v;
    return 0;
}

/* Option opt's value s as a count from lo to 1e9 (what: "an iteration
 * count"); 0 and *out, or -1 after saying what is accepted. */
static int count_arg(const char *opt, const char *what, const char *s, long lo, long *out)
{
    if (bench_parse_long(s, lo, 1000000000L, out) == 0)
        return 0;
    xchg_tool_usage_error("%s '%s' is not %s; accepted: %ld to 1000000000", opt, s, what, lo);
    return -1;
}

/* -m [MIN:]MAX, MIN:, :MAX (osu_alltoall's forms). 0 or -1 with a message. */
static int parse_sizes(const char *s, bench_args *a)
{
    const char *colon = strchr(s, ':');
    size_t lo = a->min_size, hi = a->max_size;
    if (!colon) {
        if (parse_bytes(s, 0, &hi))
            goto bad;
    } else {
        char minpart[64];
        size_t n = (size_t)(colon - s);
        if (n >= sizeof minpart || strchr(colon + 1, ':'))
            goto bad;
        memcpy(minpart, s, n);
        minpart[n] = '\0';
        if (n > 0 && parse_bytes(minpart, 0, &lo))
            goto bad;
        if (colon[1] != '\0' && parse_bytes(colon + 1, 0, &hi))
            goto bad;
        if (n == 0 && colon[1] == '\0')
            goto bad;
    }
    if (lo == 0) {
        xchg_tool_usage_error("-m '%s': the smallest block size must be at least 1 byte", s);
        return -1;
    }
    if (hi < lo) {
        xchg_tool_usage_error("-m '%s': MAX (%zu) is below MIN (%zu); accepted: [MIN:]MAX with "
                              "1 <= MIN <= MAX",
                              s, hi, lo);
        return -1;
    }
    a->min_size = lo;
    a->max_size = hi;
    return 0;
bad:
    xchg_tool_usage_error("-m '%s' is not a size range; accepted: MAX, MIN:MAX, MIN: or :MAX in "
                          "bytes (digits, optional K/M/G/T suffix), e.g. -m 8:1M", s);
    return -1;
}

/* What the parse keeps besides bench_args: the large counts given on
 * their own (-1: not given), which win over -i and -x whatever the order,
 * and whether --help or --version was asked for. */
typedef struct parse_state {
    bench_args *a;
    long iters_large, warmup_large;
    int help, version;
} parse_state;

static int take_sizes(parse_state *st, const char *v)
{
    return parse_sizes(v, st->a);
}

/* -i sets both counts, -x both warm-ups; the -large options one each. */
static int take_iters(parse_state *st, const char *v)
{
    if (count_arg("-i", "an iteration count", v, 1, &st->a->iters))
        return -1;
    st->a->iters_large = st->a->iters;
    return 0;
}

static int take_warmup(parse_state *st, const char *v)
{
    if (count_arg("-x", "a warm-up count", v, 0, &st->a->warmup))
        return -1;
    st->a->warmup_large = st->a->warmup;
    return 0;
}

static int take_iters_large(parse_state *st, const char *v)
{
    return count_arg("--iterations-large", "an iteration count", v, 1, &st->iters_large);
}

static int take_warmup_large(parse_state *st, const char *v)
{
    return count_arg("--warmup-large", "a warm-up count", v, 0, &st->warmup_large);
}

static int take_mem_limit(parse_state *st, const char *v)
{
    if (parse_bytes(v, 1, &st->a->mem_limit) == 0)
        return 0;
    xchg_tool_usage_error("-M '%s' is not a memory size; accepted: bytes >= 1 with an optional "
                          "K/M/G/T suffix, e.g. -M 4G",
                          v);
    return -1;
}

static int take_min_time(parse_state *st, const char *v)
{
    if (parse_seconds(v, &st->a->min_time) == 0)
        return 0;
    xchg_tool_usage_error("--min-time '%s' is not a time; accepted: seconds above 0 and up to "
                          "%d, e.g. 0.25",
                          v, MAX_MIN_TIME);
    return -1;
}

static int take_help(parse_state *st, const char *v)
{
    (void)v;
    st->help = 1;
    return 0;
}

static int take_version(parse_state *st, const char *v)
{
    (void)v;
    st->version = 1;
    return 0;
}

/* One option: its long name, its short letter (0: none), whether it takes
 * a value, and where the value goes: a flag (an int of bench_args set to
 * 1), a text (a const char * of bench_args pointed at the value) or a
 * reader (0, or -1 after saying what is accepted). An alias is left out
 * of the list of accepted options in messages. */
typedef struct bench_opt {
    const char *name;
    int letter;
    int has_value;
    enum { TAKE_FLAG, TAKE_TEXT, TAKE_READ } take;
    size_t field; /* TAKE_FLAG, TAKE_TEXT: its offset in bench_args */
    int (*read)(parse_state *st, const char *v);
    int alias;
} bench_opt;

#define FLAG(f) 0, TAKE_FLAG, offsetof(bench_args, f), NULL
#define TEXT(f) 1, TAKE_TEXT, offsetof(bench_args, f), NULL
#define READ(fn) 1, TAKE_READ, 0, fn
#define ASK(fn) 0, TAKE_READ, 0, fn

/* In the order messages list them. */
static const bench_opt options[] = {
    {"message-size", 'm', READ(take_sizes), 0},
    {"iterations", 'i', READ(take_iters), 0},
    {"warmup", 'x', READ(take_warmup), 0},
    {"full", 'f', FLAG(full), 0},
    {"validation", 'c', FLAG(validate), 0},
    {"in-place", 'l', FLAG(in_place), 0},
    {"mem-limit", 'M', READ(take_mem_limit), 0},
    {"help", 'h', ASK(take_help), 0},
    {"version", 'v', ASK(take_version), 0},
    {"alg", 0, TEXT(alg), 0},
    {"topo", 0, TEXT(topo), 0},
    {"topology", 0, TEXT(topo), 1},
    {"iterations-large", 0, READ(take_iters_large), 0},
    {"warmup-large", 0, READ(take_warmup_large), 0},
    {"tuning", 0, TEXT(tuning), 0},
    {"machine", 0, TEXT(machine), 0},
    {"op", 0, TEXT(op_text), 0},
    {"counts", 0, TEXT(counts), 0},
    {"seed", 0, TEXT(seed_text), 0},
    {"root", 0, TEXT(root_text), 0},
    {"q", 0, TEXT(q_text), 0},
    {"pair", 0, FLAG(pair), 0},
    {"min-time", 0, READ(take_min_time), 0},
    {"json", 0, FLAG(json), 0},
    {"verbose", 0, FLAG(verbose), 0},
};
#define NOPTIONS (sizeof options / sizeof options[0])
/* getopt_long's value for an option without a letter: this plus its index */
#define LONG_ONLY 256

/* The option getopt_long returned c for, or NULL. */
static const bench_opt *option_of(int c)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].letter ? c == options[i].letter : c == LONG_ONLY + (int)i)
            return &options[i];
    return NULL;
}

/* Store the value v of option o (its reader may refuse it: -1). */
static int take(const bench_opt *o, parse_state *st, const char *v)
{
    char *field = (char *)st->a + o->field;
    switch (o->take) {
    case TAKE_FLAG:
        *(int *)(void *)field = 1;
        return 0;
    case TAKE_TEXT:
        *(const char **)(void *)field = v;
        return 0;
    default:
        return o->read(st, v);
    }
}

/* The defaults, as osu_alltoall has them, and xchg's. */
static void set_defaults(bench_args *a)
{
    *a = (bench_args){.min_size = DEF_MIN_SIZE,
                      .max_size = DEF_MAX_SIZE,
                      .iters = DEF_ITERS,
                      .warmup = DEF_WARMUP,
                      .iters_large = DEF_ITERS_LARGE,
                      .warmup_large = DEF_WARMUP_LARGE,
                      .mem_limit = DEF_MEM_LIMIT,
                      .alg = "auto",
                      .op = XCHG_OP_ALLTOALL,
                      .q = 1};
}

int bench_parse_args(int argc, char **argv, int rank, bench_args *a)
{
    /* getopt_long's tables and the list of accepted options, from the table */
    struct option longopts[NOPTIONS + 1];
    char shortopts[2 * NOPTIONS + 2] = ":", accepted[512] = "";
    size_t ns = 1;
    for (size_t i = 0; i < NOPTIONS; i++) {
        const bench_opt *o = &options[i];
        int has = o->has_value ? required_argument : no_argument;
        int val = o->letter ? o->letter : LONG_ONLY + (int)i;
        longopts[i] = (struct option){o->name, has, NULL, val};
        if (o->letter) {
            shortopts[ns++] = (char)o->letter;
            if (o->has_value)
                shortopts[ns++] = ':';
        }
        size_t n = strlen(accepted);
        if (o->alias)
            continue;
        if (o->letter)
            snprintf(accepted + n, sizeof accepted - n, "%s-%c", n ? ", " : "", o->letter);
        else
            snprintf(accepted + n, sizeof accepted - n, "%s--%s", n ? ", " : "", o->name);
    }
    longopts[NOPTIONS] = (struct option){0, 0, 0, 0};
    shortopts[ns] = '\0';

    set_defaults(a);
    parse_state st = {a, -1, -1, 0, 0};
    opterr = 0; /* messages are ours, from rank 0 only */
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const bench_opt *o = c == ':' || c == '?' ? NULL : option_of(c);
        if (o && take(o, &st, optarg) == 0)
            continue;
        return o ? BENCH_EXIT_USAGE : xchg_tool_getopt_error(c, argv, accepted);
    }
    if (st.help || st.version) {
        if (rank == 0) {
            if (st.help)
                print_help(stdout);
            else
                puts(BENCH_NAME " " XCHG_VERSION);
        }
        return -1;
    }
    if (optind < argc)
        return xchg_tool_usage_error("unexpected argument '%s'; options only, accepted: %s",
                                     argv[optind], accepted);
    if (st.iters_large >= 0)
        a->iters_large = st.iters_large;
    if (st.warmup_large >= 0)
        a->warmup_large = st.warmup_large;
    return 0;
}
