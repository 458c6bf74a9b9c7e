/*
 * xchg_bench.c - xchg-bench: time MPI_Alltoall, or another collective
 * operation (--op), run by xchg's executor against the MPI library's own,
 * with the options and in the output layout of the OSU micro-benchmarks
 * (osu_alltoall, osu_bcast, osu_allreduce, ...), so the tables read the same.
 *
 *   mpirun -np 16 xchg-bench [-m MIN:MAX] [-i N] [-x N] [-f] [-c] [-l]
 *                            [--op NAME] [--root R] [--q Q] [--pair]
 *                            [--alg SPEC|auto|shm|mpi] [--topo SPEC] [--json]
 *
 * What is timed, as the OSU benchmarks do it: for each size m (MIN, 2*MIN,
 * 4*MIN ... up to MAX) every rank runs WARMUP untimed and ITERS timed
 * calls, each timed call alone between MPI_Wtime calls and followed by an
 * MPI_Barrier outside the timed region. A rank's latency is its mean time
 * per call; the row prints the mean of that over the ranks (Avg), and its
 * minimum and maximum over the ranks. Sizes above 8192 bytes use the large
 * iteration and warm-up counts.
 *
 * The size m is one rank's block, as OSU defines it per benchmark: the
 * block per destination (alltoall), the message (bcast, shift), the vector
 * reduced (reduce, allreduce, scan), the block each rank receives
 * (reduce_scatter; OSU's osu_reduce_scatter counts the whole vector, p
 * times this) and the block each rank contributes or receives (allgather,
 * gather, scatter). Reductions sum MPI_INT with MPI_SUM: m / 4 elements,
 * sizes below 4 bytes skipped and others rounded down to a multiple of 4
 * (OSU's num_elements = size / type size); the other operations move
 * MPI_BYTE.
 *
 * xchg's exchange runs through a persistent plan made per size before the
 * warm-up (xchg_mpi_plan_create); the other operations through their call
 * (xchg_mpi_bcast, ...), which caches its plan on the communicator, after
 * one untimed call that makes it. So deriving a plan is outside the timed
 * loop, as an MPI library's own setup is when it caches it per
 * communicator. --alg mpi calls the MPI library's own call by its
 * profiling name (PMPI_Alltoall, PMPI_Bcast, ...; shift: PMPI_Sendrecv to
 * (r+q) mod p from (r-q) mod p on a duplicated communicator): this program
 * links libxchg_mpi, whose MPI_Alltoall is the drop-in (xchg itself).
 * --pair times that call too, in the same loop: each iteration makes one
 * call of xchg's and one of the library's, xchg's first on even iterations
 * and second on odd ones, each timed alone with its barrier after it; the
 * row adds the library's Avg and the ratio of the two, so both sides meet
 * the same state of the machine and of the MPI library, and the median
 * ratio: each rank's median call of each side, averaged over the ranks.
 * On an oversubscribed machine a few calls that lose the core for a
 * scheduler's slice move a mean by 10-20% (64 ranks on 2 cores); the
 * median call is what the two calls themselves cost. The pair ratio
 * compares the two calls of each iteration, which met the same state of
 * the machine, and takes each rank's median of those ratios. Two
 * identical calls stray less by it than by the median ratio
 * (bench/results/pair_ratio_control.txt; in bench/mpi_ops.sh's last run
 * 5 of 320 sizes beyond 1.1x, against 15),
 * so where xchg passes the call to the library it shows what xchg's way
 * there costs. Where the two sides run different algorithms it is no
 * measure of the slowdown: a call that returns at once on some ranks
 * against one that never does makes those ranks' ratios huge
 * (docs/mpi-ops.md). With --alg mpi both calls of a pair are the
 * library's: a control, whose ratios show how far two identical calls
 * stray on this machine (bench/mpi_ops.sh prints it beside each size).
 * --min-time S raises the timed count at each size to fill S seconds at
 * the warm-up's pace: on a shared machine a paired ratio of a few calls
 * strays far from 1 even when both sides make the same call
 * (bench/pair_control.sh), and thousands of calls of a small size cost
 * less than a second.
 *
 * Validation (-c) fills every input before every call and checks every
 * output afterwards against a value computed locally from the inputs (the
 * operation's definition): blocks are bytes that encode (origin,
 * destination, offset, size, iteration) through a hash, so a block from
 * the wrong origin, at the wrong offset or left over from an earlier call
 * is caught; reductions sum small integers derived the same way, and each
 * rank recomputes the sum (of ranks 0..r for scan) it must receive.
 *
 * Exit status: 0 ok, 1 a validation failed, 2 bad usage (every rank exits
 * 2 after MPI_Finalize; rank 0 says why on stderr), 3 an MPI call failed.
 */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tool_json.h"
#include "tool_ops.h"
#include "tool_size.h"
#include "tool_usage.h"
#include "xchg.h"
#include "xchg_mpi.h"

#define BENCH_NAME "xchg-bench"
/* osu_alltoall's defaults (OSU micro-benchmarks 7.x, osu_util.h). */
#define DEF_MIN_SIZE ((size_t)1)
#define DEF_MAX_SIZE ((size_t)1 << 20)
#define DEF_ITERS 1000
#define DEF_WARMUP 100
#define DEF_ITERS_LARGE 100
#define DEF_WARMUP_LARGE 10
#define LARGE_MESSAGE_SIZE ((size_t)8192)
#define DEF_MEM_LIMIT ((size_t)512 << 20)
/* --min-time: its largest value (seconds) and the most timed calls it adds */
#define MAX_MIN_TIME 3600
#define MAX_TIMED_ITERS 1000000L
/* OSU's column widths. */
#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2

enum { EXIT_OK = 0, EXIT_INVALID = 1, EXIT_USAGE = XCHG_TOOL_USAGE, EXIT_MPI = 3 };

/* Everything the command line sets. */
typedef struct bench_args {
    size_t min_size, max_size;
    long iters, warmup, iters_large, warmup_large;
    size_t mem_limit;
    int full, validate, in_place, json, verbose;
    int pair;        /* --pair: the MPI library's call timed too, interleaved */
    double min_time; /* --min-time: seconds of timed calls per size at least (0: off) */
    const char *alg;  /* "auto", "mpi" or a registry spec */
    const char *topo; /* NULL or "auto" or a topology spec */
    const char *tuning, *machine; /* auto's files (NULL: XCHG_TUNING_FILE,
                                     XCHG_MACHINE_FILE, or none) */
    xchg_op_kind op;              /* --op, default the exchange */
    int root, q;                  /* --root (bcast, reduce, gather, scatter), --q (shift) */
} bench_args;

/* One row's figures. */
typedef struct bench_row {
    size_t bytes;
    long iters;
    double avg_us, min_us, max_us;
    double mpi_avg_us, ratio; /* --pair: the library's Avg, and avg_us / it */
    double med_us, mpi_med_us, med_ratio; /* --pair: the same of each rank's median call */
    double pair_ratio; /* --pair: each rank's median of its calls' ratios, one per iteration */
    int checked, valid;
    xchg_mpi_plan_info info; /* alg "mpi" for --alg mpi */
    int have_info;
} bench_row;

static int g_rank;

/* ---- the operations ------------------------------------------------------- */

static const char *op_title(xchg_op_kind k)
{
    static const char *const titles[XCHG_OP_COUNT] = {
        [XCHG_OP_ALLTOALL] = "All-to-All Personalized Exchange",
        [XCHG_OP_BCAST] = "Broadcast",
        [XCHG_OP_REDUCE] = "Reduce",
        [XCHG_OP_ALLGATHER] = "Allgather",
        [XCHG_OP_REDUCE_SCATTER] = "Reduce_scatter_block",
        [XCHG_OP_ALLREDUCE] = "Allreduce",
        [XCHG_OP_SCAN] = "Scan",
        [XCHG_OP_SCATTER] = "Scatter",
        [XCHG_OP_GATHER] = "Gather",
        [XCHG_OP_SHIFT] = "Circular Shift (Sendrecv)",
    };
    return (unsigned)k < XCHG_OP_COUNT ? titles[k] : "?";
}

/* Leave MPI and the program with status code on every rank. */
static void finish(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    exit(code);
}

static void usage(FILE *f)
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
            "                                gather, scatter, shift\n"
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
static int parse_bytes(const char *s, size_t *out)
{
    uint64_t v;
    if (xchg_tool_bytes(s, 0, SIZE_MAX, &v))
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Parse a count in [lo, hi]; 0 and *out, or -1. */
static int parse_long(const char *s, long lo, long hi, long *out)
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
    if (parse_long(s, lo, 1000000000L, out) == 0)
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
        if (parse_bytes(s, &hi))
            goto bad;
    } else {
        char minpart[64];
        size_t n = (size_t)(colon - s);
        if (n >= sizeof minpart || strchr(colon + 1, ':'))
            goto bad;
        memcpy(minpart, s, n);
        minpart[n] = '\0';
        if (n > 0 && parse_bytes(minpart, &lo))
            goto bad;
        if (colon[1] != '\0' && parse_bytes(colon + 1, &hi))
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

enum {
    OPT_ALG = 1000,
    OPT_TOPO,
    OPT_JSON,
    OPT_VERBOSE,
    OPT_ITERS_LARGE,
    OPT_WARMUP_LARGE,
    OPT_TUNING,
    OPT_MACHINE,
    OPT_OP,
    OPT_ROOT,
    OPT_Q,
    OPT_PAIR,
    OPT_MIN_TIME
};

/*
 * Parse argv into *a. Returns 0, EXIT_USAGE after rank 0 printed what was
 * wrong, or -1 when --help or --version was answered (exit 0).
 */
static int parse_args(int argc, char **argv, int nprocs, bench_args *a)
{
    static const struct option longopts[] = {
        {"message-size", required_argument, 0, 'm'},
        {"iterations", required_argument, 0, 'i'},
        {"warmup", required_argument, 0, 'x'},
        {"full", no_argument, 0, 'f'},
        {"validation", no_argument, 0, 'c'},
        {"in-place", no_argument, 0, 'l'},
        {"mem-limit", required_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'v'},
        {"alg", required_argument, 0, OPT_ALG},
        {"topo", required_argument, 0, OPT_TOPO},
        {"topology", required_argument, 0, OPT_TOPO},
        {"json", no_argument, 0, OPT_JSON},
        {"verbose", no_argument, 0, OPT_VERBOSE},
        {"iterations-large", required_argument, 0, OPT_ITERS_LARGE},
        {"warmup-large", required_argument, 0, OPT_WARMUP_LARGE},
        {"tuning", required_argument, 0, OPT_TUNING},
        {"machine", required_argument, 0, OPT_MACHINE},
        {"op", required_argument, 0, OPT_OP},
        {"root", required_argument, 0, OPT_ROOT},
        {"q", required_argument, 0, OPT_Q},
        {"pair", no_argument, 0, OPT_PAIR},
        {"min-time", required_argument, 0, OPT_MIN_TIME},
        {0, 0, 0, 0},
    };
    static const char accepted[] = "-m, -i, -x, -f, -c, -l, -M, -h, -v, --alg, --topo, "
                                   "--iterations-large, --warmup-large, --tuning, --machine, "
                                   "--op, --root, --q, --pair, --min-time, --json, --verbose";
    memset(a, 0, sizeof *a);
    a->min_size = DEF_MIN_SIZE;
    a->max_size = DEF_MAX_SIZE;
    a->iters = DEF_ITERS;
    a->warmup = DEF_WARMUP;
    a->iters_large = DEF_ITERS_LARGE;
    a->warmup_large = DEF_WARMUP_LARGE;
    a->mem_limit = DEF_MEM_LIMIT;
    a->alg = "auto";
    a->op = XCHG_OP_ALLTOALL;
    a->q = 1;
    long il = -1, wl = -1;
    const char *op_s = NULL, *root_s = NULL, *q_s = NULL;
    opterr = 0; /* messages are ours, from rank 0 only */
    int c, help = 0, version = 0;
    while ((c = getopt_long(argc, argv, ":m:i:x:fclM:hv", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (parse_sizes(optarg, a))
                return EXIT_USAGE;
            break;
        case 'i':
            if (count_arg("-i", "an iteration count", optarg, 1, &a->iters))
                return EXIT_USAGE;
            a->iters_large = a->iters;
            break;
        case 'x':
            if (count_arg("-x", "a warm-up count", optarg, 0, &a->warmup))
                return EXIT_USAGE;
            a->warmup_large = a->warmup;
            break;
        case OPT_ITERS_LARGE:
            if (count_arg("--iterations-large", "an iteration count", optarg, 1, &il))
                return EXIT_USAGE;
            break;
        case OPT_WARMUP_LARGE:
            if (count_arg("--warmup-large", "a warm-up count", optarg, 0, &wl))
                return EXIT_USAGE;
            break;
        case 'f': a->full = 1; break;
        case 'c': a->validate = 1; break;
        case 'l': a->in_place = 1; break;
        case 'M':
            if (parse_bytes(optarg, &a->mem_limit) || a->mem_limit == 0) {
                xchg_tool_usage_error("-M '%s' is not a memory size; accepted: bytes >= 1 with an "
                            "optional K/M/G/T suffix, e.g. -M 4G",
                            optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': help = 1; break;
        case 'v': version = 1; break;
        case OPT_ALG: a->alg = optarg; break;
        case OPT_TOPO: a->topo = optarg; break;
        case OPT_TUNING: a->tuning = optarg; break;
        case OPT_MACHINE: a->machine = optarg; break;
        case OPT_OP:
            op_s = optarg;
            break;
        case OPT_ROOT:
            root_s = optarg;
            break;
        case OPT_Q:
            q_s = optarg;
            break;
        case OPT_JSON: a->json = 1; break;
        case OPT_PAIR: a->pair = 1; break;
        case OPT_MIN_TIME:
            if (parse_seconds(optarg, &a->min_time)) {
                xchg_tool_usage_error("--min-time '%s' is not a time; accepted: seconds above 0 "
                                      "and up to %d, e.g. 0.25", optarg, MAX_MIN_TIME);
                return EXIT_USAGE;
            }
            break;
        case OPT_VERBOSE: a->verbose = 1; break;
        case ':':
            xchg_tool_usage_error("%s needs a value", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            if (optopt > 0 && optopt < 128)
                xchg_tool_usage_error("unknown option '-%c'; accepted: %s", optopt, accepted);
            else
                xchg_tool_usage_error("unknown option '%s'; accepted: %s",
                                      argv[optind - 1], accepted);
            return EXIT_USAGE;
        }
    }
    if (help || version) {
        if (g_rank == 0) {
            if (help)
                usage(stdout);
            else
                puts(BENCH_NAME " " XCHG_VERSION);
        }
        return -1;
    }
    if (optind < argc) {
        xchg_tool_usage_error("unexpected argument '%s'; options only, accepted: %s", argv[optind],
                    accepted);
        return EXIT_USAGE;
    }
    if (il >= 0)
        a->iters_large = il;
    if (wl >= 0)
        a->warmup_large = wl;

    /* The operation, its root or shift, the algorithm and the topology are
     * checked here (the last two against the registry), so a typo is bad
     * usage with the library's own message, not a failed run. */
    xchg_err err = {{0}};
    if (op_s && xchg_op_parse(op_s, &a->op, &err) != 0) {
        xchg_tool_usage_error("--op '%s': %s", op_s, err.msg);
        return EXIT_USAGE;
    }
    const char *opname = xchg_op_name(a->op);
    if (root_s && !xchg_tool_op_has_root(a->op)) {
        xchg_tool_usage_error("--root applies to bcast, reduce, gather and scatter; --op %s has "
                              "no root", opname);
        return EXIT_USAGE;
    }
    long v;
    if (root_s && parse_long(root_s, 0, (long)nprocs - 1, &v) != 0) {
        xchg_tool_usage_error("--root '%s' is not a rank of this job; accepted: 0 to %d",
                              root_s, nprocs - 1);
        return EXIT_USAGE;
    }
    if (root_s)
        a->root = (int)v;
    if (q_s && a->op != XCHG_OP_SHIFT) {
        xchg_tool_usage_error("--q applies to --op shift only, not --op %s", opname);
        return EXIT_USAGE;
    }
    if (q_s) {
        const char *d = q_s + (*q_s == '-' || *q_s == '+');
        if (parse_long(d, 0, INT_MAX, &v) != 0) {
            xchg_tool_usage_error("--q '%s' is not an integer; accepted: a shift such as 1, 3 or "
                                  "-2, not a multiple of the %d ranks", q_s, nprocs);
            return EXIT_USAGE;
        }
        a->q = *q_s == '-' ? -(int)v : (int)v;
    }
    if (a->op == XCHG_OP_SHIFT && nprocs > 0 && a->q % nprocs == 0) {
        xchg_tool_usage_error("--q %d is a multiple of the %d ranks (a shift that moves nothing); "
                    "accepted: an integer that is not",
                    a->q, nprocs);
        return EXIT_USAGE;
    }
    if (a->pair && a->in_place) {
        xchg_tool_usage_error("--pair times xchg's call against the MPI library's in one run; "
                              "accepted without -l");
        return EXIT_USAGE;
    }
    if (a->in_place && a->op != XCHG_OP_ALLTOALL) {
        xchg_tool_usage_error("-l (in place) is for --op alltoall only, not --op %s", opname);
        return EXIT_USAGE;
    }
    if (a->op != XCHG_OP_ALLTOALL && strcmp(a->alg, "shm") == 0) {
        xchg_tool_usage_error("--alg 'shm' runs the complete exchange only, not --op %s; "
                              "accepted: an algorithm 'xchg list --op %s' lists, auto or mpi",
                              opname, opname);
        return EXIT_USAGE;
    }
    if (xchg_mpi_alg_check_op(a->alg, a->op, &err) != 0) {
        xchg_tool_usage_error("--alg '%s': %s", a->alg, err.msg);
        return EXIT_USAGE;
    }
    if (a->topo && strcmp(a->topo, "auto") != 0) {
        xchg_topo t;
        if (xchg_topo_parse(a->topo, &t, &err) != 0) {
            xchg_tool_usage_error("--topo '%s': %s; also accepted: auto", a->topo, err.msg);
            return EXIT_USAGE;
        }
        if ((long)t.nodes != (long)nprocs) {
            xchg_tool_usage_error("--topo '%s' has %u nodes but the job has %d ranks; accepted: a "
                        "topology of %d nodes, or auto",
                        a->topo, (unsigned)t.nodes, nprocs, nprocs);
            return EXIT_USAGE;
        }
        if (strcmp(a->alg, "mpi") == 0)
            xchg_tool_say("note: --topo is ignored with --alg mpi");
    }
    if (nprocs < 2) {
        xchg_tool_usage_error("%s needs at least 2 ranks, the job has %d; start it with "
                    "mpirun -np P (P >= 2)",
                    a->op == XCHG_OP_ALLTOALL ? "an all-to-all" : opname, nprocs);
        return EXIT_USAGE;
    }
    if (xchg_tool_op_reduces(a->op) && a->max_size < sizeof(int)) {
        xchg_tool_usage_error("-m MAX %zu is below one MPI_INT; accepted for --op %s: MAX >= %zu",
                    a->max_size, opname, sizeof(int));
        return EXIT_USAGE;
    }
    if (a->op != XCHG_OP_ALLTOALL && a->max_size > (size_t)INT_MAX) {
        xchg_tool_usage_error("-m MAX %zu exceeds %d bytes, the largest count of the MPI library's "
                    "--op %s call; accepted: MAX <= %d",
                    a->max_size, INT_MAX, opname, INT_MAX);
        return EXIT_USAGE;
    }
    /* The OSU benchmarks' memory limit: the largest buffer (P*MAX bytes
     * where a rank holds P blocks) must fit. */
    size_t p = xchg_tool_op_max_blocks(a->op, nprocs);
    if (a->max_size > a->mem_limit / p) {
        size_t fit = a->mem_limit / p, m = a->min_size;
        if (fit < a->min_size) {
            xchg_tool_usage_error("%s%zu bytes exceeds the memory limit of %zu bytes per buffer; "
                        "accepted: a smaller -m or a larger -M",
                        p > 1 ? "P*MIN = " : "MIN = ", p * a->min_size, a->mem_limit);
            return EXIT_USAGE;
        }
        while (m <= fit / 2)
            m *= 2;
        xchg_tool_say("warning: limiting the largest block to %zu bytes (%sMAX must fit -M "
                      "%zu); raise -M for larger blocks",
                      m, p > 1 ? "P x " : "", a->mem_limit);
        a->max_size = m;
    }
    return 0;
}

/* ---- the data pattern ----------------------------------------------------- */

/* splitmix64's finaliser: a bijective 64-bit mixer. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The seed of block (origin -> dest) in call `call` of size m. */
static uint64_t block_seed(int origin, int dest, size_t m, long call)
{
    uint64_t s = mix64(((uint64_t)(uint32_t)origin << 32) | (uint32_t)dest);
    s = mix64(s ^ mix64((uint64_t)m * 0x9e3779b97f4a7c15ULL + (uint64_t)call));
    return s;
}

/* Fill a block of m bytes: byte k is byte k%8 of mix64(seed + k/8), so every
 * byte depends on the origin, destination, offset, size and call. */
static void fill_block(unsigned char *b, size_t m, uint64_t seed)
{
    size_t w = 0, k = 0;
    for (; k + 8 <= m; k += 8, w++) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; j < 8; j++)
            b[k + j] = (unsigned char)(v >> (8 * j));
    }
    if (k < m) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; k < m; k++, j++)
            b[k] = (unsigned char)(v >> (8 * j));
    }
}

/* The offset of the first byte of b that differs from the pattern, or m. */
static size_t check_block(const unsigned char *b, size_t m, uint64_t seed)
{
    size_t w = 0, k = 0;
    for (; k + 8 <= m; k += 8, w++) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; j < 8; j++)
            if (b[k + j] != (unsigned char)(v >> (8 * j)))
                return k + (size_t)j;
    }
    if (k < m) {
        uint64_t v = mix64(seed + w);
        for (int j = 0; k < m; k++, j++)
            if (b[k] != (unsigned char)(v >> (8 * j)))
                return k;
    }
    return m;
}

/* Fill what this rank sends: block d of buf for destination d. */
static void fill_send(unsigned char *buf, int me, int p, size_t m, long call)
{
    for (int d = 0; d < p; d++)
        fill_block(buf + (size_t)d * m, m, block_seed(me, d, m, call));
}

/*
 * Check what this rank received: block o of buf must be origin o's block for
 * this rank. Returns the number of bad blocks; the first one is described on
 * stderr (each rank speaks at most once per size).
 */
static long check_recv(const unsigned char *buf, int me, int p, size_t m, long call)
{
    long bad = 0;
    for (int o = 0; o < p; o++) {
        size_t at = check_block(buf + (size_t)o * m, m, block_seed(o, me, m, call));
        if (at < m) {
            if (bad == 0) {
                /* Say whose data is there when it is another origin's. */
                int from = -1;
                size_t w0 = at / 8 * 8, len = m - w0 < 8 ? m - w0 : 8;
                for (int q = 0; q < p && from < 0; q++) {
                    unsigned char probe[8];
                    fill_block(probe, len, block_seed(q, me, m, call) + at / 8);
                    if (q != o && memcmp(probe, buf + (size_t)o * m + w0, len) == 0)
                        from = q;
                }
                if (from >= 0)
                    fprintf(stderr,
                            BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d "
                            "holds rank %d's data at byte %zu\n",
                            me, m, call, o, from, at);
                else
                    fprintf(stderr,
                            BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d "
                            "is wrong at byte %zu\n",
                            me, m, call, o, at);
            }
            bad++;
        }
    }
    return bad;
}

/* A block every rank may hold (bcast, allgather, gather, shift): its
 * destination in the seed is "any". */
#define ANY_DEST (-1)

/* Check one received block against origin o's block for dest; 0, or 1
 * after describing the first bad byte on stderr when first is set. */
static long check_one(const unsigned char *b, int o, int dest, size_t m, long call, int first)
{
    size_t at = check_block(b, m, block_seed(o, dest, m, call));
    if (at == m)
        return 0;
    if (first)
        fprintf(stderr,
                BENCH_NAME ": rank %d, size %zu, call %ld: the block from rank %d is wrong at "
                           "byte %zu\n",
                g_rank, m, call, o, at);
    return 1;
}

/* The reductions' inputs: element k of rank o's vector in a call is a
 * small integer from a hash of (o, size, call) and k, so sums over 2^15
 * ranks stay in an int and every element, rank and call differ. */
typedef struct red_coef {
    uint32_t a, b;
} red_coef;

static red_coef red_coef_of(int o, size_t m, long call)
{
    uint64_t z = block_seed(o, -2, m, call);
    return (red_coef){(uint32_t)z, (uint32_t)(z >> 32) | 1u};
}

static int red_value(red_coef c, size_t k)
{
    uint32_t x = c.a + (uint32_t)k * c.b;
    return (int)((x ^ (x >> 15)) & 0x7fffu) - 0x4000;
}

/*
 * Fill this rank's inputs for call `call` of kind at m bytes (count
 * elements of a reduction) and spoil its outputs, so a result left over
 * from an earlier call or never written is caught.
 */
static void fill_op(const bench_args *a, int p, size_t m, size_t count, long call,
                    unsigned char *sbuf, unsigned char *rbuf, size_t rbytes)
{
    int me = g_rank;
    if (rbuf && a->op != XCHG_OP_ALLTOALL)
        memset(rbuf, 0xa5, rbytes);
    switch (a->op) {
    case XCHG_OP_ALLTOALL:
        fill_send(a->in_place ? rbuf : sbuf, me, p, m, call);
        break;
    case XCHG_OP_BCAST:
        if (me == a->root)
            fill_block(rbuf, m, block_seed(me, ANY_DEST, m, call));
        break;
    case XCHG_OP_REDUCE:
    case XCHG_OP_ALLREDUCE:
    case XCHG_OP_SCAN:
    case XCHG_OP_REDUCE_SCATTER: {
        size_t n = a->op == XCHG_OP_REDUCE_SCATTER ? count * (size_t)p : count;
        red_coef c = red_coef_of(me, m, call);
        int *v = (int *)(void *)sbuf;
        for (size_t k = 0; k < n; k++)
            v[k] = red_value(c, k);
        break;
    }
    case XCHG_OP_SCATTER:
        if (me == a->root)
            for (int d = 0; d < p; d++)
                fill_block(sbuf + (size_t)d * m, m, block_seed(me, d, m, call));
        break;
    default: /* allgather, gather, shift: this rank's one block */
        fill_block(sbuf, m, block_seed(me, ANY_DEST, m, call));
        break;
    }
}

/*
 * Check this rank's outputs of call `call`: the value the operation's
 * definition gives from every rank's inputs, recomputed here. Returns the
 * number of wrong blocks or elements; the first is described on stderr.
 */
static long check_op(const bench_args *a, int p, size_t m, size_t count, long call,
                     const unsigned char *rbuf, red_coef *coefs)
{
    int me = g_rank;
    long bad = 0;
    switch (a->op) {
    case XCHG_OP_ALLTOALL:
        return check_recv(rbuf, me, p, m, call);
    case XCHG_OP_BCAST:
        return check_one(rbuf, a->root, ANY_DEST, m, call, 1);
    case XCHG_OP_SCATTER:
        return check_one(rbuf, a->root, me, m, call, 1);
    case XCHG_OP_SHIFT: {
        int from = (int)((((long long)me - a->q) % p + p) % p);
        return check_one(rbuf, from, ANY_DEST, m, call, 1);
    }
    case XCHG_OP_GATHER:
        if (me != a->root)
            return 0;
        /* fall through */
    case XCHG_OP_ALLGATHER:
        for (int o = 0; o < p; o++)
            bad += check_one(rbuf + (size_t)o * m, o, ANY_DEST, m, call, bad == 0);
        return bad;
    default:
        break;
    }
    /* Reductions: the sum over ranks 0..last of their elements k0 + j. */
    if (a->op == XCHG_OP_REDUCE && me != a->root)
        return 0;
    int last = a->op == XCHG_OP_SCAN ? me : p - 1;
    size_t k0 = a->op == XCHG_OP_REDUCE_SCATTER ? (size_t)me * count : 0;
    for (int o = 0; o <= last; o++)
        coefs[o] = red_coef_of(o, m, call);
    const int *got = (const int *)(const void *)rbuf;
    for (size_t j = 0; j < count; j++) {
        int want = 0;
        for (int o = 0; o <= last; o++)
            want += red_value(coefs[o], k0 + j);
        if (got[j] != want) {
            if (bad == 0)
                fprintf(stderr,
                        BENCH_NAME ": rank %d, size %zu, call %ld: element %zu is %d, the sum "
                                   "over ranks 0 to %d is %d\n",
                        me, m, call, j, got[j], last, want);
            bad++;
        }
    }
    return bad;
}

/* ---- running one size ----------------------------------------------------- */

/* How MPI_Alltoall is called for m bytes: an int count of a type. Above
 * INT_MAX bytes the block goes as a count of contiguous chunks (Open MPI 4
 * has no MPI_Alltoall_c). */
typedef struct mpi_call {
    int count;
    MPI_Datatype type;
    int owned;
} mpi_call;

static int mpi_call_make(size_t m, mpi_call *c)
{
    c->owned = 0;
    if (m <= (size_t)INT_MAX) {
        c->count = (int)m;
        c->type = MPI_BYTE;
        return MPI_SUCCESS;
    }
    size_t unit = 1;
    while (unit < ((size_t)1 << 30) && m % (unit * 2) == 0)
        unit *= 2;
    if (m / unit > (size_t)INT_MAX)
        return MPI_ERR_COUNT;
    int rc = MPI_Type_contiguous((int)unit, MPI_BYTE, &c->type);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&c->type);
    c->count = (int)(m / unit);
    c->owned = rc == MPI_SUCCESS;
    return rc;
}

static void mpi_call_free(mpi_call *c)
{
    if (c->owned)
        MPI_Type_free(&c->type);
    c->owned = 0;
}

/* Report a failed MPI call and stop the job (the other ranks may be inside
 * a collective). */
static void mpi_fail(MPI_Comm comm, int rc, const char *what, size_t m)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, BENCH_NAME ": rank %d: %s failed at block size %zu: %s\n", g_rank, what, m,
            msg);
    fflush(stderr);
    MPI_Abort(comm, EXIT_MPI);
    exit(EXIT_MPI);
}

/* What a run of one size calls: the operation, its buffers and the plan or
 * the MPI library's call. */
typedef struct bench_call {
    const bench_args *a;
    const xchg_mpi_opts *opts; /* xchg's side (the other operations) */
    xchg_mpi_plan *plan;       /* xchg's side of the exchange */
    int is_mpi;
    mpi_call mc; /* the exchange's MPI_Alltoall count and type */
    MPI_Comm comm, shift_comm;
    int p;
    size_t m, count; /* bytes, and elements (m / 4 for a reduction) */
    unsigned char *sbuf, *rbuf;
} bench_call;

/* One call of the operation: xchg's or the MPI library's. */
static int op_call(const bench_call *c)
{
    const bench_args *a = c->a;
    if (a->op == XCHG_OP_ALLTOALL) {
        const void *send = a->in_place ? MPI_IN_PLACE : (const void *)c->sbuf;
        if (c->is_mpi)
            return PMPI_Alltoall(send, c->mc.count, c->mc.type, c->rbuf, c->mc.count, c->mc.type,
                                 c->comm);
        return xchg_mpi_plan_run(c->plan, send, c->rbuf);
    }
    xchg_tool_opcall oc = {.kind = a->op,
                           .is_mpi = c->is_mpi,
                           .opts = c->opts,
                           .comm = c->comm,
                           .shift_comm = c->shift_comm,
                           .root = a->root,
                           .q = a->q,
                           .count = c->count,
                           .sbuf = c->sbuf,
                           .rbuf = c->rbuf};
    return xchg_tool_op_call(&oc);
}

/*
 * --min-time: the timed iterations that fill min_time seconds, at the pace
 * of the warm-up (warmup iterations in `took` seconds on this rank, the
 * barriers and, with --pair, both calls included), and never fewer than
 * iters. The slowest rank's pace decides, so every rank runs the same
 * count. At most MAX_TIMED_ITERS, or iters when that is more.
 */
static long iters_for_time(MPI_Comm comm, double min_time, long iters, long warmup, double took)
{
    double slowest = took;
    MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    double per = slowest / (double)warmup;
    double need = per > 0 ? min_time / per + 1 : (double)MAX_TIMED_ITERS;
    long n = need < (double)MAX_TIMED_ITERS ? (long)need : MAX_TIMED_ITERS;
    return n > iters ? n : iters;
}

/*
 * Time one size m (count elements): warm-up and timed calls as the OSU
 * benchmarks do them (each timed call alone, a barrier after it outside
 * the timed region), with a refill before and a check after every call
 * when validating. rbytes: the size of rbuf; coefs: p entries of scratch
 * for checking reductions. Fills *row on every rank.
 */
static void run_size(const bench_args *a, MPI_Comm comm, MPI_Comm shift_comm, int p, size_t m,
                     size_t count, unsigned char *sbuf, unsigned char *rbuf, size_t rbytes,
                     red_coef *coefs, bench_row *row)
{
    long iters = m > LARGE_MESSAGE_SIZE ? a->iters_large : a->iters;
    long warmup = m > LARGE_MESSAGE_SIZE ? a->warmup_large : a->warmup;
    if (a->min_time > 0 && warmup < 1)
        warmup = 1; /* --min-time counts from the warm-up's time */
    xchg_mpi_opts o;
    bench_call c = {.a = a,
                    .opts = &o,
                    .is_mpi = strcmp(a->alg, "mpi") == 0,
                    .mc = {0, MPI_BYTE, 0},
                    .comm = comm,
                    .shift_comm = shift_comm,
                    .p = p,
                    .m = m,
                    .count = count,
                    .sbuf = sbuf,
                    .rbuf = rbuf};
    const char *what = c.is_mpi                    ? xchg_tool_op_mpi_name(a->op)
                       : a->op == XCHG_OP_ALLTOALL ? "xchg_mpi_plan_run"
                                                   : "xchg's call";
    int rc;
    memset(row, 0, sizeof *row);
    row->bytes = m;
    xchg_mpi_opts_default(&o);
    o.alg = a->alg;
    o.topology = a->topo;
    o.verbose = a->verbose;
    o.tuning_file = a->tuning ? a->tuning : getenv("XCHG_TUNING_FILE");
    o.machine_file = a->machine ? a->machine : getenv("XCHG_MACHINE_FILE");

    if (c.is_mpi) {
        if (a->op == XCHG_OP_ALLTOALL && (rc = mpi_call_make(m, &c.mc)) != MPI_SUCCESS)
            mpi_fail(comm, rc, "making the datatype", m);
        snprintf(row->info.alg, sizeof row->info.alg, "mpi");
        snprintf(row->info.topology, sizeof row->info.topology, "-");
        snprintf(row->info.why, sizeof row->info.why, "--alg mpi: %s",
                 xchg_tool_op_mpi_name(a->op));
    } else {
        /* The plan is made here, outside the timed loop: the exchange's
         * persistent plan derives this rank's lists once and every timed
         * call reuses them; the other operations' first call makes the
         * plan their later calls find cached on the communicator. */
        if (a->op == XCHG_OP_ALLTOALL)
            rc = xchg_mpi_plan_create((MPI_Count)m, MPI_BYTE, (MPI_Count)m, MPI_BYTE, a->in_place,
                                      comm, &o, &c.plan);
        else
            rc = op_call(&c);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, msg, &len);
            xchg_tool_usage_error("--op %s --alg '%s'%s%s: no plan for size %zu on %d ranks: %s",
                        xchg_op_name(a->op), a->alg, a->topo ? " --topo " : "",
                        a->topo ? a->topo : "", m, p, msg);
            finish(EXIT_USAGE);
        }
        if (a->op == XCHG_OP_ALLTOALL)
            xchg_mpi_plan_info_get(c.plan, &row->info);
        else
            xchg_mpi_last_info(&row->info);
    }
    row->have_info = 1;

    /* --pair: the MPI library's call, timed in the same loop */
    bench_call lib = c;
    lib.is_mpi = 1;
    lib.plan = NULL;
    if (a->pair && a->op == XCHG_OP_ALLTOALL && (rc = mpi_call_make(m, &lib.mc)) != MPI_SUCCESS)
        mpi_fail(comm, rc, "making the datatype", m);

    double timer = 0.0, timer_lib = 0.0;
    double *each = NULL, *each_lib = NULL; /* --pair: every timed call's time */
    double *pair_ratios = NULL;            /* --pair: each iteration's xchg / library */
    long bad = 0;
    MPI_Barrier(comm);
    double warm_start = MPI_Wtime();
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup && a->min_time > 0)
            iters = iters_for_time(comm, a->min_time, iters, warmup, MPI_Wtime() - warm_start);
        if (i == warmup && a->pair) {
            each = malloc((size_t)iters * sizeof *each);
            each_lib = malloc((size_t)iters * sizeof *each_lib);
            pair_ratios = malloc((size_t)iters * sizeof *pair_ratios);
            if (!each || !each_lib || !pair_ratios)
                mpi_fail(comm, MPI_ERR_NO_MEM, "keeping each call's time (--pair)", m);
        }
        /* with --pair, two turns: xchg first on even iterations, the
         * library first on odd ones, so neither always follows the other */
        for (int turn = 0; turn < (a->pair ? 2 : 1); turn++) {
            int is_lib = a->pair && (turn + i) % 2 == 1;
            if (a->validate && !is_lib) {
                fill_op(a, p, m, count, i, sbuf, rbuf, rbytes);
                MPI_Barrier(comm);
            }
            double t0 = MPI_Wtime();
            rc = op_call(is_lib ? &lib : &c);
            double t1 = MPI_Wtime();
            if (rc != MPI_SUCCESS)
                mpi_fail(comm, rc, is_lib ? xchg_tool_op_mpi_name(a->op) : what, m);
            MPI_Barrier(comm);
            if (a->validate && !is_lib && bad == 0)
                bad += check_op(a, p, m, count, i, rbuf, coefs);
            if (i >= warmup) {
                *(is_lib ? &timer_lib : &timer) += t1 - t0;
                if (a->pair)
                    (is_lib ? each_lib : each)[i - warmup] = t1 - t0;
            }
        }
    }
    row->iters = iters;
    double lat = timer * 1e6 / (double)iters;
    MPI_Allreduce(&lat, &row->min_us, 1, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(&lat, &row->max_us, 1, MPI_DOUBLE, MPI_MAX, comm);
    row->avg_us = xchg_tool_rank_mean(comm, p, lat);
    if (a->pair) {
        /* first the pairs, before the medians below sort each side */
        long n_pairs = 0;
        for (long k = 0; k < iters; k++)
            if (each_lib[k] > 0)
                pair_ratios[n_pairs++] = each[k] / each_lib[k];
        row->pair_ratio = xchg_tool_rank_mean(comm, p, xchg_tool_median(pair_ratios, n_pairs));
        row->mpi_avg_us = xchg_tool_rank_mean(comm, p, timer_lib * 1e6 / (double)iters);
        row->ratio = row->mpi_avg_us > 0 ? row->avg_us / row->mpi_avg_us : 0;
        /* each rank's median call, then the mean over the ranks: a call
         * that a busy machine stretched moves a mean, not a median */
        row->med_us = xchg_tool_rank_mean(comm, p, xchg_tool_median(each, iters) * 1e6);
        row->mpi_med_us = xchg_tool_rank_mean(comm, p, xchg_tool_median(each_lib, iters) * 1e6);
        row->med_ratio = row->mpi_med_us > 0 ? row->med_us / row->mpi_med_us : 0;
    }
    free(each);
    free(each_lib);
    free(pair_ratios);
    if (a->validate) {
        long total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, comm);
        row->checked = 1;
        row->valid = total == 0;
    }
    xchg_mpi_plan_free(c.plan);
    mpi_call_free(&c.mc);
    mpi_call_free(&lib.mc);
}

/* ---- output --------------------------------------------------------------- */

static void print_json(const bench_args *a, int p, const bench_row *r)
{
    printf("{\"op\":\"%s\",", xchg_op_name(a->op));
    if (xchg_tool_op_has_root(a->op))
        printf("\"root\":%d,", a->root);
    if (a->op == XCHG_OP_SHIFT)
        printf("\"q\":%d,", a->q);
    fputs("\"alg\":", stdout);
    xchg_tool_json_str(stdout, r->info.alg);
    fputs(",\"requested\":", stdout);
    xchg_tool_json_str(stdout, a->alg);
    fputs(",\"topology\":", stdout);
    if (strcmp(a->alg, "mpi") == 0)
        fputs("null", stdout);
    else
        xchg_tool_json_str(stdout, r->info.topology);
    if (a->pair)
        printf(",\"mpi_avg_us\":%.3f,\"ratio\":%.4f,\"median_us\":%.3f,\"mpi_median_us\":%.3f,"
               "\"median_ratio\":%.4f,\"pair_ratio\":%.4f",
               r->mpi_avg_us, r->ratio, r->med_us, r->mpi_med_us, r->med_ratio, r->pair_ratio);
    printf(",\"fallback\":%s,\"steps\":%zu,\"p\":%d,\"bytes\":%zu,\"avg_us\":%.3f,\"min_us\":%.3f,"
           "\"max_us\":%.3f,\"iterations\":%ld,\"in_place\":%s,\"valid\":%s}\n",
           r->info.fallback ? "true" : "false", r->info.steps, p, r->bytes, r->avg_us, r->min_us,
           r->max_us, r->iters, a->in_place ? "true" : "false",
           r->checked ? (r->valid ? "true" : "false") : "null");
}

/* The header: the benchmark, the MPI library, the run, then OSU's column
 * titles. */
static void print_header(const bench_args *a, int p)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = '\0';
    char *nl = strpbrk(lib, "\r\n");
    if (nl)
        *nl = '\0';
    printf("\n# " BENCH_NAME " MPI %s Latency Test v" XCHG_VERSION "\n", op_title(a->op));
    printf("# MPI library: %s\n", lib);
    printf("# Ranks: %d, algorithm: %s, topology: %s, in place: %s, datatype: %s", p, a->alg,
           a->topo ? a->topo : "auto", a->in_place ? "yes" : "no",
           xchg_tool_op_reduces(a->op) ? "MPI_INT, op: MPI_SUM" : "MPI_BYTE");
    if (xchg_tool_op_has_root(a->op))
        printf(", root: %d", a->root);
    if (a->op == XCHG_OP_SHIFT)
        printf(", q: %d", a->q);
    putchar('\n');
    printf("%-*s%*s", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
    if (a->full)
        printf("%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12,
               "Iterations");
    if (a->pair)
        printf("%*s%*s%*s%*s", FIELD_WIDTH, "MPI Avg(us)", 12, "xchg/MPI", 14, "median ratio", 12,
               "pair ratio");
    if (a->validate)
        printf("%*s", FIELD_WIDTH, "Validation");
    putchar('\n');
}

/* A comment line before the first row and whenever the plan's choice
 * changes: which algorithm on which topology the executor runs. */
static void print_plan_line(const bench_args *a, const bench_row *r, const bench_row *prev)
{
    if (strcmp(a->alg, "mpi") == 0) {
        if (!prev)
            printf("# plan: %s of the MPI library (--alg mpi)\n", xchg_tool_op_mpi_name(a->op));
        return;
    }
    if (prev && strcmp(prev->info.alg, r->info.alg) == 0 &&
        strcmp(prev->info.topology, r->info.topology) == 0 &&
        prev->info.fallback == r->info.fallback)
        return;
    if (r->info.fallback)
        printf("# plan from %zu B: %s (xchg falls back to the MPI library); %s\n", r->bytes,
               xchg_tool_op_mpi_name(a->op), r->info.why);
    else if (r->info.shared_bytes)
        printf("# plan from %zu B: %s, %zu round%s through a shared segment of %zu B; %s\n",
               r->bytes, r->info.alg, r->info.steps, r->info.steps == 1 ? "" : "s",
               r->info.shared_bytes, r->info.why);
    else
        printf("# plan from %zu B: %s on %s, %zu steps, scratch %zu B; %s\n", r->bytes,
               r->info.alg, r->info.topology, r->info.steps, r->info.scratch_bytes, r->info.why);
}

static void print_row(const bench_args *a, const bench_row *r)
{
    printf("%-*zu%*.*f", 10, r->bytes, FIELD_WIDTH, FLOAT_PRECISION, r->avg_us);
    if (a->full)
        printf("%*.*f%*.*f%*ld", FIELD_WIDTH, FLOAT_PRECISION, r->min_us, FIELD_WIDTH,
               FLOAT_PRECISION, r->max_us, 12, r->iters);
    if (a->pair)
        printf("%*.*f%*.*f%*.*f%*.*f", FIELD_WIDTH, FLOAT_PRECISION, r->mpi_avg_us, 12, 3, r->ratio,
               14, 3, r->med_ratio, 12, 3, r->pair_ratio);
    if (a->validate)
        printf("%*s", FIELD_WIDTH, r->valid ? "Pass" : "Fail");
    putchar('\n');
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    int p;
    /* A private communicator whose errors come back as codes, so a failure
     * is reported with the size it happened at. */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &g_rank);
    MPI_Comm_size(comm, &p);
    xchg_tool_usage_setup(BENCH_NAME, " (see " BENCH_NAME " --help)", g_rank == 0);

    bench_args a;
    int prc = parse_args(argc, argv, p, &a);
    if (prc != 0) {
        MPI_Comm_free(&comm);
        finish(prc < 0 ? EXIT_OK : prc);
    }

    /* A shift through the MPI library goes on a communicator of its own, as
     * xchg's plan does, so it never meets the benchmark's other messages. */
    MPI_Comm shift_comm = MPI_COMM_NULL;
    if (a.op == XCHG_OP_SHIFT)
        MPI_Comm_dup(comm, &shift_comm);

    /* The buffers this rank uses at MAX: the exchange's in place needs one;
     * otherwise a send and a receive buffer of as many blocks as the rank
     * sends and receives (64 ranks of 1 MiB blocks: 2 x 64 MiB per rank). */
    size_t sbytes = a.in_place ? 0 : xchg_tool_op_send_blocks(a.op, g_rank, a.root, p) * a.max_size;
    size_t rbytes = xchg_tool_op_recv_blocks(a.op, g_rank, a.root, p) * a.max_size;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    red_coef *coefs = malloc((size_t)p * sizeof *coefs);
    int okmem = coefs != NULL;
    if (okmem && rbytes)
        okmem = posix_memalign((void **)&rbuf, 4096, rbytes) == 0;
    if (okmem && sbytes)
        okmem = posix_memalign((void **)&sbuf, 4096, sbytes) == 0;
    int allmem = 0;
    MPI_Allreduce(&okmem, &allmem, 1, MPI_INT, MPI_MIN, comm);
    if (!allmem) {
        size_t most = xchg_tool_op_max_blocks(a.op, p) * a.max_size;
        xchg_tool_usage_error("cannot allocate %s%zu bytes per rank for %d ranks x %zu-byte "
                              "blocks; accepted: a smaller -m MAX",
                              a.in_place ? "" : "2 x ", most, p, a.max_size);
        free(sbuf);
        free(rbuf);
        free(coefs);
        MPI_Comm_free(&comm);
        finish(EXIT_USAGE);
    }
    /* Touch every page before timing (the OSU benchmarks set their buffers
     * too). */
    if (rbuf)
        memset(rbuf, 0, rbytes);
    if (sbuf && a.op == XCHG_OP_ALLTOALL)
        fill_send(sbuf, g_rank, p, a.max_size, -1);
    else if (sbuf)
        memset(sbuf, 1, sbytes);

    if (g_rank == 0 && !a.json)
        print_header(&a, p);
    int status = EXIT_OK;
    bench_row row, prev;
    int have_prev = 0;
    size_t esize = xchg_tool_op_reduces(a.op) ? sizeof(int) : 1;
    for (size_t size = a.min_size; size <= a.max_size; size *= 2) {
        /* A reduction's size in whole elements (OSU: size / type size). */
        size_t count = size / esize, m = count * esize;
        if (count > 0) {
            run_size(&a, comm, shift_comm, p, m, count, sbuf, rbuf, rbytes, coefs, &row);
            if (g_rank == 0) {
                if (a.json) {
                    print_json(&a, p, &row);
                } else {
                    print_plan_line(&a, &row, have_prev ? &prev : NULL);
                    print_row(&a, &row);
                }
                fflush(stdout);
            }
            prev = row;
            have_prev = 1;
            if (row.checked && !row.valid) {
                /* The OSU benchmarks stop at the first size that fails. */
                xchg_tool_say("DATA VALIDATION ERROR at size %zu with --op %s --alg %s", m,
                              xchg_op_name(a.op), a.alg);
                status = EXIT_INVALID;
                break;
            }
        }
        if (size > SIZE_MAX / 2)
            break;
    }
    if (shift_comm != MPI_COMM_NULL)
        MPI_Comm_free(&shift_comm);
    free(coefs);
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&comm);
    finish(status);
    return status;
}
