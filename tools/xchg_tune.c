/*
 * xchg_tune.c - xchg-tune (run as `mpirun -np P xchg tune`): time every
 * candidate for MPI_Alltoall (or, with --op, another operation) on this
 * machine at this process count, block size by block size, and write the
 * choices as a tuning file (docs/tuning.md) that the executor's auto runs
 * (XCHG_TUNING_FILE).
 *
 * Candidates, on the topology the ranks are laid out on (--topo, default
 * complete:P, as auto maps a communicator without a Cartesian grid): every
 * registry algorithm's variants that apply (xchg_alg_variants: Bruck's
 * radices, multiphase's partitions, a padded ":virtual" form where the
 * sizes do not fit), the ":virtual" form of algorithms that take one even
 * where they fit, the shared-memory exchange ("shm", one node only) and the
 * MPI library's own call ("mpi"). For another operation (--op): each of
 * its registry algorithms that applies (with root 0, and q = 1 for a
 * shift), and the MPI library's own call. For --op alltoallv
 * (MPI_Alltoallv, whose rows serve MPI_Alltoallw too): pairwise, the
 * schedules that forward blocks, shm and MPI_Alltoallv, called through
 * xchg_mpi_alltoallv on the --counts matrix (xchg_vcounts_named at each
 * mean block), each candidate's first call of a size checked byte by
 * byte (one that moves wrong data is left out); a row's size is the
 * call's largest block, what the executor's ranks agree on at run time
 * (src/mpi/tuned_v.c). A candidate the executor cannot
 * run here (its plan falls back) is left out at that size, with the reason.
 *
 * Timing: per block size, ROUNDS rounds taken in turn over the candidates
 * (A, B, ..., A, B, ...), so that a slow spell of the machine hits all of
 * them alike. In a round a candidate gets a persistent plan (made outside
 * the timing, freed after it: one plan's buffers at a time; another
 * operation's plans are cached on a communicator of the size's own, freed
 * after the size), two warm-up calls, then k timed calls, each timed alone
 * with a barrier after it, as xchg-bench (and osu_alltoall) time them; the
 * round's time is a rank's mean per call averaged over the ranks, and the
 * candidate's time the median of its rounds. k (from the first round's
 * warm-up) makes a round last about --round-ms.
 *
 * The choice: the fastest, except that an algorithm must beat the MPI
 * library's call by --margin percent (default 5), else the size goes to
 * the library (row_choice). An algorithm that passes is then confirmed
 * against the library call by call (confirm: about --confirm-ms of
 * interleaved pairs, each rank's median call, as xchg-bench --pair
 * measures), and must beat it by the margin there too, else the size goes
 * to the library. Rounds' means let one slow spell of a loaded machine
 * decide a size: on an oversubscribed machine an algorithm can win its
 * rounds and then run slower than the library in the program. With
 * --agree FILE (an earlier run's tuning file) a size whose row there is
 * mpi is not timed and stays mpi, so a row names an algorithm only when
 * two runs, two mpiruns, both found one faster: which ranks share a core,
 * for seconds at a time, can turn one run's paired win into the next run's
 * loss. docs/mpi-ops.md ("Measured") has the cases and their figures.
 *
 * Rows: consecutive sizes with the same choice make one row; a row reaches
 * to just below the next row's first size, and the last to MAX. With -o
 * FILE an existing file keeps its rows for other process counts or
 * topologies (a damaged file is refused, not overwritten); the new rows
 * replace the old ones for (operation, P, topology). The file is written
 * whole to FILE.tmp and renamed.
 *
 * Exit status: 0 ok, 2 bad usage or a file that cannot be read or written
 * (every rank exits 2 after MPI_Finalize; rank 0 says why), 3 an MPI call
 * failed or out of memory.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tool_ops.h"
#include "tool_size.h"
#include "tool_usage.h"
#include "xchg.h"
#include "xchg_mpi.h"

enum { EXIT_OK = 0, EXIT_USAGE = XCHG_TOOL_USAGE, EXIT_FAIL = 3 };

#define MAX_CANDIDATES 256
#define MAX_SIZES 64
#define ROUNDS 3

typedef struct tune_args {
    xchg_op_kind op; /* --op, default the exchange; alltoallv: XCHG_TUNING_ALLTOALLV */
    int v;           /* --op alltoallv */
    const char *counts; /* --counts: alltoallv's distribution (default uniform) */
    uint64_t seed;      /* --seed */
    size_t min_size, max_size, mem_limit;
    const char *out, *topo, *only, *machine;
    double round_ms;
    double confirm_ms; /* --confirm-ms: the paired check of a row's algorithm; 0 none */
    double margin; /* --margin: percent an algorithm must beat the library by */
    const char *agree; /* --agree FILE: an earlier run's tuning file */
    int json;
    int seed_given, m_given;
    xchg_vcounts *file; /* --counts FILE: its matrix, one size */
} tune_args;

/* The registry's operation whose algorithms are tuned: alltoall's for
 * alltoallv. */
static xchg_op_kind reg_op(const tune_args *a)
{
    return a->v ? XCHG_OP_ALLTOALL : a->op;
}

static int g_rank;

static const char usage_text[] =
    "usage: mpirun -np P xchg tune [-o FILE] [--op NAME] [-m MIN:MAX] [--topo SPEC]\n"
    "                              [--counts DIST] [--seed N]\n"
    "                              [--only LIST] [--round-ms MS] [--margin PCT]\n"
    "                              [--confirm-ms MS] [--agree FILE]\n"
    "                              [-M BYTES] [--json [--machine FILE]]\n\n"
    "Time every candidate for MPI_Alltoall on these P ranks: each algorithm of\n"
    "the registry that applies to the topology (its variants, Bruck's radices,\n"
    "the :virtual forms), the shared-memory exchange (shm) and the MPI library's\n"
    "own call (mpi), at block sizes MIN, 2*MIN, ... MAX; print the fastest of\n"
    "each size and write them as a tuning file that auto reads\n"
    "(XCHG_TUNING_FILE; docs/tuning.md). Run it once per process count and\n"
    "operation.\n\n"
    "options:\n"
    "  --op NAME           the operation tuned: alltoall (default), bcast, reduce,\n"
    "                      allgather, reduce_scatter, allreduce, scan, scatter,\n"
    "                      gather, shift, alltoallv; its algorithms and the MPI\n"
    "                      library's call are timed (root 0; shift q = 1), sizes as\n"
    "                      xchg-bench counts them (one rank's block); alltoallv\n"
    "                      (MPI_Alltoallv, its rows serve MPI_Alltoallw too): pairwise,\n"
    "                      the store-and-forward schedules, shm and mpi on the\n"
    "                      --counts matrix of mean block MIN..MAX, each row sized\n"
    "                      by the call's largest block\n"
    "  --counts DIST       alltoallv: the blocks' sizes, as xchg-bench takes them:\n"
    "                      uniform (default), random:X, hot:R[:F], sparse:F; or a\n"
    "                      counts file (as xchg cost takes it: one size, its blocks\n"
    "                      as they are; no -m)\n"
    "  --seed N            the seed of --counts' random forms (default 1)\n"
    "  -o, --out FILE      write (or update) the tuning file: rows for other\n"
    "                      process counts or topologies are kept\n"
    "  -m, --message-size MIN:MAX  block sizes in bytes (default 8:1M; K, M, G\n"
    "                      suffixes)\n"
    "  --topo SPEC         the topology the ranks are laid out on, as the executor\n"
    "                      maps them (default complete:P; a periodic Cartesian\n"
    "                      communicator of 4x4 is torus:4x4)\n"
    "  --only LIST         only these registry names (and mpi, shm), comma-separated\n"
    "                      (the operation's own algorithms)\n"
    "  --round-ms MS       about how long one timed round lasts (default 5)\n"
    "  --margin PCT        a size's row names an algorithm only when it measured at\n"
    "                      least PCT percent faster than the MPI library's call,\n"
    "                      else mpi (default 5; 0: the fastest)\n"
    "  --confirm-ms MS     then time that algorithm against the library's call in\n"
    "                      alternating pairs for about MS milliseconds; the row\n"
    "                      keeps it only if each rank's median call, averaged over\n"
    "                      the ranks, is PCT percent faster there too (default\n"
    "                      500; 0: no paired check)\n"
    "  --agree FILE        an earlier run's tuning file for the same operation and\n"
    "                      ranks: a size whose row there is mpi is not timed and\n"
    "                      stays mpi; elsewhere this run chooses as usual, so a\n"
    "                      size names an algorithm only when both runs found one\n"
    "                      faster than the library (a second mpirun sees another\n"
    "                      state of a loaded machine)\n"
    "  -M, --mem-limit BYTES  memory a rank may use: the send and receive buffers\n"
    "                      (2*P*MAX for alltoall) and a candidate's scratch; one that\n"
    "                      needs more is left out at that size (default 512M)\n"
    "  --json              one JSON object per size: every candidate's time, and\n"
    "                      what auto's cost model predicts for them\n"
    "  --machine FILE      the machine file the model's predictions use (xchg probe;\n"
    "                      default: auto's default figures)\n"
    "  -h, --help          this text\n";

/* The number s into *out when it is all of s and within [lo, hi]: 0, else
 * -1 (out unchanged). */
static int number_in(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || end == s || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* --counts names no distribution: a counts file (docs/alltoallv.md)
 * into a->file, read by every rank, its blocks as they are, timed at one
 * size (MIN = MAX = its largest block); named: why the name was refused.
 * 0, or EXIT_USAGE said. */
static int read_counts_file(tune_args *a, int p, const char *named)
{
    FILE *f = fopen(a->counts, "rb");
    if (!f)
        return xchg_tool_usage_error("--counts '%s': %s; nor is it a counts file that can be "
                                     "read (%s)", a->counts, named, strerror(errno));
    size_t cap = (size_t)64 << 20, len;
    char *text = malloc(cap);
    len = text ? fread(text, 1, cap, f) : 0;
    int bad = !text || ferror(f) || len == cap;
    fclose(f);
    xchg_err err = {{0}};
    if (bad) {
        free(text);
        return xchg_tool_usage_error("--counts '%s': cannot read it whole (at most 64 MiB)",
                                     a->counts);
    }
    int rc = xchg_vcounts_parse(text, len, (uint32_t)p, &a->file, &err);
    free(text);
    if (rc)
        return xchg_tool_usage_error("--counts file '%s': %s", a->counts, err.msg);
    if (a->m_given || a->seed_given)
        return xchg_tool_usage_error("%s with a counts file ('%s'): the file gives every block's "
                                     "size; accepted: it with a named --counts (uniform, "
                                     "random:X, hot:R[:F], sparse:F)",
                                     a->m_given ? "-m" : "--seed", a->counts);
    uint64_t big = 0;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (i != j && xchg_vcounts_get(a->file, (uint32_t)i, (uint32_t)j) > big)
                big = xchg_vcounts_get(a->file, (uint32_t)i, (uint32_t)j);
    if (big == 0 || big > (1u << 30))
        return xchg_tool_usage_error("--counts file '%s': its largest block off the diagonal is "
                                     "%llu B; accepted: 1 B to 1 GiB", a->counts,
                                     (unsigned long long)big);
    a->min_size = a->max_size = (size_t)big;
    return 0;
}

static int parse_args(int argc, char **argv, int p, tune_args *a)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"message-size", required_argument, NULL, 'm'},
                                             {"topo", required_argument, NULL, 't'},
                                             {"only", required_argument, NULL, 'n'},
                                             {"round-ms", required_argument, NULL, 'r'},
                                             {"margin", required_argument, NULL, 'g'},
                                             {"confirm-ms", required_argument, NULL, 'C'},
                                             {"agree", required_argument, NULL, 'a'},
                                             {"mem-limit", required_argument, NULL, 'M'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"machine", required_argument, NULL, 'c'},
                                             {"op", required_argument, NULL, 'p'},
                                             {"counts", required_argument, NULL, 'k'},
                                             {"seed", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    static const char accepted[] = "-o, --op, -m, --topo, --counts, --seed, --only, --round-ms, "
                                   "--margin, "
                                   "--confirm-ms, --agree, -M, "
                                   "--machine, --json, --help";
    memset(a, 0, sizeof *a);
    a->min_size = 8;
    a->max_size = (size_t)1 << 20;
    a->mem_limit = (size_t)512 << 20;
    a->round_ms = 5;
    a->margin = 5;
    a->confirm_ms = 500;
    a->seed = 1;
    opterr = 0;
    int c;
    char *colon;
    uint64_t lo, hi;
    while ((c = getopt_long(argc, argv, ":o:m:M:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->out = optarg;
            break;
        case 'm':
            a->m_given = 1;
            colon = strchr(optarg, ':');
            if (!colon)
                return xchg_tool_usage_error("-m '%s' is not a size range; accepted: MIN:MAX in "
                                             "bytes (K, M, G suffixes), 1 <= MIN <= MAX", optarg);
            *colon = '\0';
            if (xchg_tool_bytes(optarg, 1, 1u << 30, &lo) ||
                xchg_tool_bytes(colon + 1, 1, 1u << 30, &hi) || lo > hi) {
                *colon = ':';
                return xchg_tool_usage_error("-m '%s' is not a size range; accepted: MIN:MAX in "
                                             "bytes (K, M, G suffixes), 1 <= MIN <= MAX <= 1G",
                                             optarg);
            }
            *colon = ':';
            a->min_size = (size_t)lo;
            a->max_size = (size_t)hi;
            break;
        case 't':
            a->topo = optarg;
            break;
        case 'n':
            a->only = optarg;
            break;
        case 'r':
            if (number_in(optarg, 0.1, 10000, &a->round_ms))
                return xchg_tool_usage_error("--round-ms '%s' is not a duration; accepted: 0.1 to "
                                             "10000 milliseconds", optarg);
            break;
        case 'g':
            if (number_in(optarg, 0, 100, &a->margin))
                return xchg_tool_usage_error("--margin '%s' is not a percentage; accepted: 0 to "
                                             "100", optarg);
            break;
        case 'C':
            if (number_in(optarg, 0, 100000, &a->confirm_ms))
                return xchg_tool_usage_error("--confirm-ms '%s' is not a duration; accepted: 0 "
                                             "(no paired check) to 100000 milliseconds", optarg);
            break;
        case 'a':
            a->agree = optarg;
            break;
        case 'M':
            if (xchg_tool_bytes(optarg, 1, SIZE_MAX, &hi))
                return xchg_tool_usage_error("-M '%s' is not a memory size; accepted: bytes >= 1 "
                                             "with an optional K, M, G or T suffix", optarg);
            a->mem_limit = (size_t)hi;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'c':
            a->machine = optarg;
            break;
        case 'p': {
            xchg_err err = {{0}};
            if (xchg_tuning_op_parse(optarg, &a->op, &err))
                return xchg_tool_usage_error("--op: %s", err.msg);
            a->v = a->op == XCHG_TUNING_ALLTOALLV;
            break;
        }
        case 'k':
            a->counts = optarg;
            break;
        case 'S': {
            double seed;
            if (number_in(optarg, 0, 9007199254740992.0, &seed) || seed != (double)(uint64_t)seed)
                return xchg_tool_usage_error("--seed '%s' is not a whole number; accepted: 0 or "
                                             "more", optarg);
            a->seed = (uint64_t)seed;
            a->seed_given = 1;
            break;
        }
        default: /* -h, or a refusal */
            return xchg_tool_getopt_rest(c, argv, usage_text, accepted);
        }
    }
    if (xchg_tool_no_operands(argc, argv, optind))
        return XCHG_TOOL_USAGE;
    if ((a->counts || a->seed_given) && !a->v)
        return xchg_tool_usage_error("--counts and --seed apply to --op alltoallv only");
    if (a->v) {
        xchg_err err = {{0}};
        xchg_vcounts *vc = NULL;
        if (!a->counts)
            a->counts = "uniform";
        if (xchg_vcounts_named(a->counts, (uint32_t)p, (double)a->min_size, a->seed, &vc, &err)) {
            int rc = read_counts_file(a, p, err.msg);
            if (rc)
                return rc;
        }
        xchg_vcounts_free(vc);
    }
    xchg_op_kind bop = reg_op(a); /* alltoallv's buffers: as alltoall's for uniform counts */
    size_t blocks = xchg_tool_op_send_blocks(bop, 0, 0, p) + xchg_tool_op_recv_blocks(bop, 0, 0, p);
    if (a->max_size > a->mem_limit / blocks)
        return xchg_tool_usage_error("blocks of MAX bytes do not fit -M: the send and receive "
                                     "buffers (2*P*MAX for alltoall) must be at most the limit; "
                                     "accepted: a smaller MAX or a larger -M");
    if (!a->v && xchg_tool_op_reduces(a->op) && a->min_size < sizeof(int))
        return xchg_tool_usage_error("-m: MIN is below one MPI_INT, which --op %s reduces; "
                                     "accepted: MIN >= 4", xchg_op_name(a->op));
    xchg_err err = {{0}};
    if (a->only && xchg_alg_check_list(a->only, &err))
        return xchg_tool_usage_error("--only: %s", err.msg);
    /* another operation's algorithm named here is refused, not silently
     * left out */
    for (size_t i = 0; a->only && a->only[0] && i < xchg_alg_count(); i++) {
        const xchg_alg *alg = xchg_alg_at(i);
        if (alg->op == bop || !xchg_alg_in_list(a->only, alg->name))
            continue;
        snprintf(err.msg, sizeof err.msg,
                 "%.64s performs %s, not %s; accepted: an algorithm 'xchg list --op %s' lists",
                 alg->name, xchg_op_name(alg->op), xchg_op_name(bop), xchg_op_name(bop));
        return xchg_tool_usage_error("--only: %s", err.msg);
    }
    return 0;
}

/* Another operation's candidates on t: its algorithms that apply (root 0,
 * shift q = 1), then "mpi". */
static int op_candidates(xchg_op_kind op, const xchg_topo *t, const char *only, xchg_spec *out)
{
    int n = 0;
    for (size_t i = 0; i < xchg_alg_count() && n < MAX_CANDIDATES - 1; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        xchg_opts o = {.shift = op == XCHG_OP_SHIFT ? 1 : 0};
        xchg_err err = {{0}};
        if (a->op == op && xchg_alg_in_list(only, a->name) && !xchg_alg_applies(a, t, &o, &err))
            snprintf(out[n++], XCHG_SPEC_MAX, "%s", a->name);
    }
    snprintf(out[n++], XCHG_SPEC_MAX, "mpi");
    return n;
}

/* The candidates on t: specs, then "shm" and "mpi". */
static int candidates(const xchg_topo *t, const char *only, xchg_spec *out)
{
    int n = 0;
    for (size_t i = 0; i < xchg_alg_count() && n < MAX_CANDIDATES - 2; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (a->op != XCHG_OP_ALLTOALL || !xchg_alg_in_list(only, a->name))
            continue;
        xchg_spec v[XCHG_MAX_VARIANTS];
        int k = xchg_alg_variants(t, a, v, XCHG_MAX_VARIANTS, NULL);
        for (int j = 0; j < k && n < MAX_CANDIDATES - 3; j++)
            memcpy(out[n++], v[j], XCHG_SPEC_MAX);
        char hosted[XCHG_SPEC_MAX];
        snprintf(hosted, sizeof hosted, "%s:virtual", a->name);
        xchg_estimate est;
        if (a->needs.virtual_any_size && k > 0 && strcmp(v[0], hosted) &&
            xchg_estimate_spec(t, hosted, &est, NULL) == XCHG_OK)
            snprintf(out[n++], XCHG_SPEC_MAX, "%s", hosted);
    }
    snprintf(out[n++], XCHG_SPEC_MAX, "shm");
    snprintf(out[n++], XCHG_SPEC_MAX, "mpi");
    return n;
}

/* alltoallv's candidates on t: pairwise, the schedules that forward
 * blocks (the registry's variants but the direct hc-direct, the same
 * exchange as pairwise, and the :virtual forms), then "shm" and "mpi".
 * What the variable-block executor cannot run is left out when timed. */
static int candidates_v(const xchg_topo *t, const char *only, xchg_spec *out)
{
    xchg_spec all[MAX_CANDIDATES];
    int n = candidates(t, only, all), k = 0;
    if (xchg_alg_in_list(only, "pairwise"))
        snprintf(out[k++], XCHG_SPEC_MAX, "pairwise");
    for (int i = 0; i < n; i++)
        if (strcmp(all[i], "pairwise") && strcmp(all[i], "hc-direct") &&
            !strstr(all[i], ":virtual"))
            memcpy(out[k++], all[i], XCHG_SPEC_MAX);
    return k;
}

/* One size of alltoallv: the --counts matrix at mean block m, this rank's
 * counts and displacements (bytes), its buffers (every block of the
 * pattern of vbyte), and the largest block of the call (off the diagonal:
 * what the executor's ranks agree on). */
typedef struct vsize {
    int *sc, *sd, *rc, *rd;
    unsigned char *s, *r;
    size_t sbytes, rbytes;
    uint64_t largest;
} vsize;

/* Byte k of the block from rank o to rank d. */
static unsigned char vbyte(int o, int d, size_t k)
{
    return (unsigned char)(((unsigned)o * 131u + (unsigned)d * 31u + (unsigned)(k % 251)) ^ 0xA5u);
}

static void vsize_free(vsize *v)
{
    free(v->sc);
    free(v->s);
    free(v->r);
    memset(v, 0, sizeof *v);
}

/* alltoallv's matrix at mean block m: the counts file's as it is (*own
 * NULL), or the named distribution's (new, into *own: the caller frees
 * it). NULL when memory runs out. */
static const xchg_vcounts *v_matrix(const tune_args *a, int p, size_t m, xchg_vcounts **own)
{
    *own = NULL;
    if (a->file)
        return a->file;
    xchg_err err = {{0}};
    return xchg_vcounts_named(a->counts, (uint32_t)p, (double)m, a->seed, own, &err) ? NULL
                                                                                      : *own;
}

/* Make v for mean block m (every rank computes the same matrix): 0;
 * EXIT_USAGE when a count passes an int (rank 0 says so), EXIT_FAIL when
 * memory runs out (local: the caller agrees). */
static int vsize_make(const tune_args *a, int p, int me, size_t m, vsize *v)
{
    memset(v, 0, sizeof *v);
    xchg_vcounts *own;
    const xchg_vcounts *c = v_matrix(a, p, m, &own);
    if (!c)
        return EXIT_FAIL; /* checked at the start: only memory */
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (i != j && xchg_vcounts_get(c, (uint32_t)i, (uint32_t)j) > v->largest)
                v->largest = xchg_vcounts_get(c, (uint32_t)i, (uint32_t)j);
    v->sc = malloc(4 * (size_t)p * sizeof(int));
    if (!v->sc) {
        xchg_vcounts_free(own);
        return EXIT_FAIL;
    }
    v->sd = v->sc + p, v->rc = v->sc + 2 * p, v->rd = v->sc + 3 * p;
    size_t sb = 0, rb = 0;
    int big = xchg_tool_vcounts_args(c, p, me, v->sc, v->sd, v->rc, v->rd, &sb, &rb);
    xchg_vcounts_free(own);
    if (big)
        return xchg_tool_usage_error("--counts '%s' at %zu bytes: a block or a rank's buffer "
                                     "passes MPI_Alltoallv's int counts", a->counts, m);
    v->sbytes = sb, v->rbytes = rb;
    v->s = malloc(sb ? sb : 1), v->r = malloc(rb ? rb : 1);
    if (!v->s || !v->r)
        return EXIT_FAIL;
    for (int d = 0; d < p; d++)
        for (size_t k = 0; k < (size_t)v->sc[d]; k++)
            v->s[(size_t)v->sd[d] + k] = vbyte(me, d, k);
    memset(v->r, 0, rb);
    return 0;
}

/* One candidate at one size: its plan (the exchange's; NULL for mpi and
 * for another operation, whose plan its first call caches), or skipped. */
typedef struct cand {
    xchg_mpi_plan *plan;
    xchg_mpi_opts opts; /* another operation's call: the algorithm forced */
    int skip;
    char why[160];
    double rounds[ROUNDS];
    double us;
    /* the paired check (confirm): this and the library's median call (us),
     * 0 when not made */
    double pair_us, pair_mpi_us;
} cand;

/* What one size's calls need. */
typedef struct size_ctx {
    const tune_args *a;
    const char *topo;
    int p;
    size_t m, count; /* a block's bytes; elements (ints for a reduction) */
    MPI_Comm comm;   /* another operation's: the size's own duplicate, whose
                        plan cache goes with it */
    MPI_Comm shift_comm;
    void *sbuf, *rbuf;
    const vsize *v; /* alltoallv's counts and buffers */
} size_ctx;

/* One call of candidate c: the MPI library's (is_mpi) or xchg's. */
static int one_call(const size_ctx *x, const cand *c, int is_mpi)
{
    const vsize *v = x->v;
    if (v)
        return is_mpi ? PMPI_Alltoallv(v->s, v->sc, v->sd, MPI_BYTE, v->r, v->rc, v->rd, MPI_BYTE,
                                       x->comm)
                      : xchg_mpi_alltoallv(v->s, v->sc, v->sd, MPI_BYTE, v->r, v->rc, v->rd,
                                           MPI_BYTE, x->comm, &c->opts);
    if (x->a->op == XCHG_OP_ALLTOALL)
        return is_mpi ? PMPI_Alltoall(x->sbuf, (int)x->m, MPI_BYTE, x->rbuf, (int)x->m, MPI_BYTE,
                                      MPI_COMM_WORLD)
                      : xchg_mpi_plan_run(c->plan, x->sbuf, x->rbuf);
    xchg_tool_opcall oc = {.kind = x->a->op,
                           .is_mpi = is_mpi,
                           .opts = &c->opts,
                           .comm = x->comm,
                           .shift_comm = x->shift_comm,
                           .root = 0,
                           .q = 1,
                           .count = x->count,
                           .sbuf = x->sbuf,
                           .rbuf = x->rbuf};
    return xchg_tool_op_call(&oc);
}

/* k calls of candidate c, timed as xchg-bench and osu_alltoall time them:
 * each call alone between two clock readings, a barrier after it outside
 * the timing; a rank's mean per call, averaged over the ranks (us). */
static double timed(const size_ctx *x, const cand *c, int is_mpi, int k)
{
    double total = 0;
    MPI_Barrier(x->comm);
    for (int i = 0; i < k; i++) {
        double t0 = MPI_Wtime();
        one_call(x, c, is_mpi);
        total += MPI_Wtime() - t0;
        MPI_Barrier(x->comm);
    }
    return xchg_tool_rank_mean(x->comm, x->p, total * 1e6 / k);
}

/* Make candidate c's plan for the size (collective): the exchange's
 * persistent plan, or another operation's first call, which makes and
 * caches its plan. 0; or -1 with c marked skipped and why, when the
 * executor cannot run it here, or when its scratch and the send and
 * receive buffers would pass -M a rank (64 ranks sharing one machine's
 * memory: ring at 1 MiB blocks holds 190 MiB a rank besides the buffers). */
static int open_plan(const size_ctx *x, const char *spec, cand *c)
{
    const tune_args *a = x->a;
    xchg_mpi_opts_default(&c->opts);
    c->opts.alg = spec;
    c->opts.topology = x->topo;
    xchg_mpi_plan_info info;
    int rc;
    if (a->op == XCHG_OP_ALLTOALL) {
        rc = xchg_mpi_plan_create((MPI_Count)x->m, MPI_BYTE, (MPI_Count)x->m, MPI_BYTE, 0,
                                  MPI_COMM_WORLD, &c->opts, &c->plan);
        if (rc == MPI_SUCCESS)
            xchg_mpi_plan_info_get(c->plan, &info);
    } else {
        rc = one_call(x, c, 0);
        if (rc == MPI_SUCCESS)
            xchg_mpi_last_info(&info);
    }
    if (rc != MPI_SUCCESS) {
        c->skip = 1;
        snprintf(c->why, sizeof c->why, "no plan");
        return -1;
    }
    size_t blocks = xchg_tool_op_send_blocks(reg_op(a), 0, 0, x->p) +
                    xchg_tool_op_recv_blocks(reg_op(a), 0, 0, x->p);
    size_t need = info.scratch_bytes + info.plan_bytes +
                  (x->v ? x->v->sbytes + x->v->rbytes : blocks * x->m);
    if (info.fallback || need > a->mem_limit) {
        c->skip = 1;
        if (info.fallback)
            snprintf(c->why, sizeof c->why, "%.150s", info.why);
        else
            snprintf(c->why, sizeof c->why,
                     "needs %zu MiB a rank with the buffers, over -M (%zu MiB)", need >> 20,
                     a->mem_limit >> 20);
        xchg_mpi_plan_free(c->plan);
        c->plan = NULL;
        return -1;
    }
    return 0;
}

/* alltoallv: one call of candidate c (its plan open, or the library's)
 * into a receive buffer cleared to a byte no block holds everywhere, then
 * every byte checked (collective): 0 when every rank received every block
 * right, else -1 with c skipped. A candidate that moves wrong data cannot
 * win. */
static int validate(const size_ctx *x, cand *c, int is_mpi)
{
    const vsize *v = x->v;
    int me, ok = 1, all = 0;
    MPI_Comm_rank(x->comm, &me);
    memset(v->r, 0, v->rbytes);
    if (one_call(x, c, is_mpi) != MPI_SUCCESS)
        ok = 0;
    for (int o = 0; ok && o < x->p; o++)
        for (size_t k = 0; ok && k < (size_t)v->rc[o]; k++)
            ok = v->r[(size_t)v->rd[o] + k] == vbyte(o, me, k);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->comm);
    if (all)
        return 0;
    c->skip = 1;
    snprintf(c->why, sizeof c->why, "wrong data: a rank's received blocks did not check");
    return -1;
}

/* The algorithm a size's row names: the fastest, unless the MPI library's
 * call (the last candidate) was within the margin of it; -1 when none ran.
 * Timings on a shared machine move by several percent between runs, and a
 * row that replaces the library on a near tie may lose to it in the
 * program: the margin keeps those sizes with the library. */
static int row_choice(const cand *cs, int n, int fastest, double margin)
{
    const cand *mpi = &cs[n - 1];
    if (fastest < 0 || fastest == n - 1 || mpi->skip)
        return fastest;
    return mpi->us <= cs[fastest].us * (1 + margin / 100) ? n - 1 : fastest;
}

/* Time candidate c against the MPI library's call mpi (collective), call
 * by call: pairs of calls, c first in even pairs and the library first in
 * odd ones so that neither always follows the other, each call timed alone
 * with a barrier after it (xchg-bench --pair's loop), after 4 pairs to warm
 * up, for about --confirm-ms by the rounds' times (10 to 10000 pairs).
 * Into c->pair_us and c->pair_mpi_us: each rank's median call averaged over
 * the ranks. 0, or -1 when a call failed or memory ran out (nothing set). */
static int confirm(const size_ctx *x, const char *spec, cand *c, const cand *mpi)
{
    double per = (c->us + mpi->us) * 1e-3, want = x->a->confirm_ms / (per > 1e-6 ? per : 1e-6);
    long pairs = want < 10 ? 10 : want > 10000 ? 10000 : (long)want;
    /* every rank the same count (the times are sums over the ranks) */
    MPI_Bcast(&pairs, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double *mine = malloc((size_t)pairs * sizeof *mine);
    double *lib = malloc((size_t)pairs * sizeof *lib);
    /* every rank runs the loop or none does, and a failed call does not
     * stop one rank's loop early: the others would wait for it */
    int ok = mine && lib, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all && open_plan(x, spec, c)) /* collective, alike on every rank */
        all = ok = 0;
    for (long i = -4; all && i < pairs; i++)
        for (int turn = 0; turn < 2; turn++) {
            int is_mpi = (turn + (int)(i & 1)) % 2 == 1;
            double t0 = MPI_Wtime();
            if (one_call(x, c, is_mpi) != MPI_SUCCESS)
                ok = 0;
            double t = MPI_Wtime() - t0;
            MPI_Barrier(x->comm);
            if (i >= 0)
                (is_mpi ? lib : mine)[i] = t * 1e6;
        }
    xchg_mpi_plan_free(c->plan);
    c->plan = NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        c->pair_us = xchg_tool_rank_mean(MPI_COMM_WORLD, x->p, xchg_tool_median(mine, pairs));
        c->pair_mpi_us = xchg_tool_rank_mean(MPI_COMM_WORLD, x->p, xchg_tool_median(lib, pairs));
    }
    free(mine);
    free(lib);
    return all ? 0 : -1;
}

/* Time every candidate at the size; returns the fastest's index, or -1
 * when none ran, and the row's choice into *row (row_choice, then the
 * paired check of an algorithm it chose). One exchange plan at a time: at
 * 64 ranks and 1 MiB blocks a plan's scratch can be a p*m buffer a rank. */
static int tune_size(size_ctx *x, xchg_spec *spec, int n, cand *cs, int *row)
{
    int ks[MAX_CANDIDATES], other = x->a->op != XCHG_OP_ALLTOALL;
    x->comm = x->shift_comm = MPI_COMM_WORLD;
    if (other) {
        MPI_Comm_dup(MPI_COMM_WORLD, &x->comm);
        MPI_Comm_dup(MPI_COMM_WORLD, &x->shift_comm);
    }
    for (int i = 0; i < n; i++)
        memset(&cs[i], 0, sizeof cs[i]);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < n; i++) {
            cand *c = &cs[i];
            int is_mpi = !strcmp(spec[i], "mpi");
            if (c->skip || (!is_mpi && open_plan(x, spec[i], c)))
                continue;
            if (r == 0 && x->v && validate(x, c, is_mpi))
                continue; /* every byte, once a size */
            /* two calls to warm up (a new plan's buffers are touched for
             * the first time); the first round's set k */
            double us = timed(x, c, is_mpi, 2);
            if (r == 0) {
                double k = x->a->round_ms * 1e3 / (us > 0.01 ? us : 0.01);
                ks[i] = k < 1 ? 1 : k > 200 ? 200 : (int)k;
            }
            c->rounds[r] = timed(x, c, is_mpi, ks[i]);
            xchg_mpi_plan_free(c->plan);
            c->plan = NULL;
        }
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (cs[i].skip)
            continue;
        cs[i].us = xchg_tool_median(cs[i].rounds, ROUNDS);
        if (best < 0 || cs[i].us < cs[best].us)
            best = i;
    }
    *row = row_choice(cs, n, best, x->a->margin);
    if (*row >= 0 && *row != n - 1 && x->a->confirm_ms > 0) {
        cand *c = &cs[*row];
        if (confirm(x, spec[*row], c, &cs[n - 1]) ||
            c->pair_mpi_us <= c->pair_us * (1 + x->a->margin / 100))
            *row = n - 1;
    }
    if (other) {
        MPI_Comm_free(&x->comm);
        MPI_Comm_free(&x->shift_comm);
    }
    return best;
}

/* What auto's cost model predicts at the size (collective): the
 * candidates' times into spec/us, its choice into best; returns how many.
 * For another operation, only its choice (the plan of one call with alg
 * auto; its predictions stay inside the executor) and 0. */
static int predictions(size_ctx *x, xchg_spec *spec, double *us, char *best)
{
    const tune_args *a = x->a;
    size_t m = x->m;
    xchg_mpi_opts o;
    xchg_mpi_opts_default(&o);
    o.topology = x->topo;
    o.machine_file = a->machine;
    if (a->op != XCHG_OP_ALLTOALL) { /* alltoallv too: its plan's choice (shm, on one node) */
        cand c = {.opts = o};
        xchg_mpi_plan_info info;
        MPI_Comm_dup(MPI_COMM_WORLD, &x->comm);
        x->shift_comm = x->comm;
        if (one_call(x, &c, 0) == MPI_SUCCESS && xchg_mpi_last_info(&info) == MPI_SUCCESS)
            snprintf(best, XCHG_SPEC_MAX, "%s", info.alg);
        MPI_Comm_free(&x->comm);
        return 0;
    }
    xchg_mpi_plan *plan = NULL;
    if (xchg_mpi_plan_create((MPI_Count)m, MPI_BYTE, (MPI_Count)m, MPI_BYTE, 0, MPI_COMM_WORLD,
                             &o, &plan) != MPI_SUCCESS)
        return 0;
    xchg_mpi_plan_info info;
    xchg_mpi_plan_info_get(plan, &info);
    snprintf(best, XCHG_SPEC_MAX, "%s", info.shared_bytes ? "shm" : info.alg);
    int n = xchg_mpi_plan_predictions(plan, spec, us, XCHG_MPI_MAX_PREDICTIONS);
    xchg_mpi_plan_free(plan);
    return n;
}

/* Rank 0: read the tuning file at path into *t (free it with
 * xchg_tuning_free). 0; 1 when there is no such file (*t NULL);
 * EXIT_USAGE, said on stderr, when it cannot be read or is not a tuning
 * file (advice ends that message). */
static int read_tuning(const char *path, const char *advice, xchg_tuning **t)
{
    *t = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 1
                               : xchg_tool_usage_error("cannot read the tuning file '%s'", path);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *more = cap < ((size_t)64 << 20) ? realloc(text, cap * 2) : NULL;
            if (!more) {
                free(text);
                text = NULL;
                break;
            }
            text = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text)
        return xchg_tool_usage_error("the tuning file '%s' is too large to read", path);
    xchg_err err = {{0}};
    int rc = xchg_tuning_parse(text, len, t, &err);
    free(text);
    if (rc)
        return xchg_tool_usage_error("the tuning file '%s' is not one xchg can read (%s); %s",
                                     path, err.msg, advice);
    return 0;
}

/* --agree (collective): the row a->agree's file gives each size for
 * (op, these ranks, topology t), as auto reads it, into agreed[k] on every
 * rank. 0, or EXIT_USAGE (rank 0 says why) when the file cannot be read or
 * has no row for them. */
static int agreed_rows(const tune_args *a, const xchg_topo *t, const size_t *sizes, int nsizes,
                       xchg_spec *agreed)
{
    int rc = 0;
    if (g_rank == 0) {
        xchg_tuning *f = NULL;
        rc = read_tuning(a->agree, "accepted: a file that xchg tune -o wrote", &f);
        if (rc == 1)
            rc = xchg_tool_usage_error("--agree: there is no tuning file '%s'; accepted: a file "
                                       "that xchg tune -o wrote", a->agree);
        for (int k = 0; rc == 0 && k < nsizes; k++) {
            const char *alg = xchg_tuning_lookup(f, a->op, t, sizes[k]);
            if (alg) {
                snprintf(agreed[k], XCHG_SPEC_MAX, "%s", alg);
                continue;
            }
            char topo[64], msg[256];
            xchg_topo_spec(t, topo, sizeof topo);
            snprintf(msg, sizeof msg, "%s on %u ranks laid out as %s", xchg_tuning_op_name(a->op),
                     (unsigned)t->nodes, topo);
            xchg_tool_usage_error("--agree: the tuning file has no row for %s; accepted: a file "
                                  "that xchg tune -o wrote for the same operation, ranks and "
                                  "--topo", msg);
            rc = EXIT_USAGE;
        }
        xchg_tuning_free(f);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == 0)
        MPI_Bcast(agreed, nsizes * XCHG_SPEC_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    return rc;
}

/* The existing tuning file's rows other than (op, p, topo), as text lines
 * (rank 0). 0, or EXIT_USAGE when the file exists but cannot be read. */
static int kept_rows(const char *path, xchg_op_kind op, int p, const char *topo, char **kept)
{
    *kept = NULL;
    xchg_tuning *t;
    int rc = read_tuning(path, "it is left as it is: name another file with -o", &t);
    if (rc)
        return rc == 1 ? 0 : rc;
    size_t n = xchg_tuning_rows(t), at = 0, total = n * 256 + 1;
    char *out = malloc(total);
    if (!out) {
        xchg_tuning_free(t);
        return EXIT_FAIL;
    }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        xchg_tuning_entry e;
        xchg_tuning_row(t, i, &e);
        if (e.op == op && e.ranks == (uint32_t)p && !strcmp(e.topology, topo))
            continue;
        int w = snprintf(out + at, total - at, "%-14s %-6u %-18s %-10llu %-10llu %s\n",
                         xchg_tuning_op_name(e.op), e.ranks, e.topology, (unsigned long long)e.from,
                         (unsigned long long)e.to, e.alg);
        if (w > 0 && (size_t)w < total - at)
            at += (size_t)w; /* a row is at most 15 + 63 + 63 + 60 bytes */
    }
    xchg_tuning_free(t);
    *kept = out;
    return 0;
}

/* Rank 0: write the file, its kept rows and the new ones. */
static int write_file(const tune_args *a, int p, const char *topo, const size_t *sizes,
                      const int *row, xchg_spec *spec, int nsizes)
{
    char *kept = NULL;
    int rc = kept_rows(a->out, a->op, p, topo, &kept);
    if (rc)
        return rc;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", a->out);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(kept);
        return xchg_tool_usage_error("cannot write the tuning file '%s'", a->out);
    }
    fprintf(f, "xchg-tuning/2\n# measured by xchg tune (xchg %s); rows: operation ranks "
               "topology from(B) to(B) algorithm\n%s",
            XCHG_VERSION, kept ? kept : "");
    free(kept);
    for (int i = 0; i < nsizes;) {
        int j = i;
        while (j + 1 < nsizes && row[j + 1] == row[i])
            j++;
        size_t from = i == 0 ? 1 : sizes[i];
        size_t to = j + 1 < nsizes ? sizes[j + 1] - 1 : sizes[j];
        if (row[i] >= 0)
            fprintf(f, "%-14s %-6d %-18s %-10zu %-10zu %s\n", xchg_tuning_op_name(a->op), p, topo, from,
                    to, spec[row[i]]);
        i = j + 1;
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, a->out) != 0) {
        remove(tmp);
        return xchg_tool_usage_error("cannot write the tuning file '%s'", a->out);
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    xchg_tool_usage_setup("xchg tune", "", g_rank == 0);
    tune_args a;
    int rc = parse_args(argc, argv, p, &a);
    xchg_topo t;
    char topo[64];
    if (rc == 0) {
        char spec[64];
        snprintf(spec, sizeof spec, "complete:%d", p);
        xchg_err err = {{0}};
        if (xchg_topo_parse(a.topo ? a.topo : spec, &t, &err))
            rc = xchg_tool_usage_error("--topo: %s", err.msg);
        else if (t.nodes != (uint32_t)p)
            rc = xchg_tool_usage_error("--topo %s does not have one node per rank; accepted: a "
                                       "topology of P nodes", a.topo);
        xchg_topo_spec(&t, topo, sizeof topo);
    }
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? EXIT_OK : rc;
    }
    static xchg_spec spec[MAX_CANDIDATES];
    int n = a.v                       ? candidates_v(&t, a.only, spec)
            : a.op == XCHG_OP_ALLTOALL ? candidates(&t, a.only, spec)
                                       : op_candidates(a.op, &t, a.only, spec);
    static cand cs[MAX_CANDIDATES];
    size_t sizes[MAX_SIZES];
    int row[MAX_SIZES], nsizes = 0;
    for (size_t m = a.min_size; m <= a.max_size && nsizes < MAX_SIZES; m *= 2)
        sizes[nsizes++] = m;
    /* a row's size: the block; for alltoallv the call's largest block (the
     * statistic its ranks agree on at run time), increasing with m */
    size_t rowsize[MAX_SIZES];
    for (int k = 0; k < nsizes; k++) {
        rowsize[k] = sizes[k];
        if (!a.v)
            continue;
        xchg_vcounts *own;
        const xchg_vcounts *c = v_matrix(&a, p, sizes[k], &own);
        uint64_t big = 0;
        for (int i = 0; c && i < p; i++)
            for (int j = 0; j < p; j++)
                if (i != j && xchg_vcounts_get(c, (uint32_t)i, (uint32_t)j) > big)
                    big = xchg_vcounts_get(c, (uint32_t)i, (uint32_t)j);
        xchg_vcounts_free(own);
        rowsize[k] = (size_t)big;
        if (big == 0 || (k > 0 && rowsize[k] <= rowsize[k - 1])) {
            rc = xchg_tool_usage_error("--counts '%s' at a mean block of %zu B: %s; accepted: "
                                       "counts whose largest block grows with the size",
                                       a.counts, sizes[k],
                                       big ? "the largest block does not grow from the size "
                                             "before"
                                           : "every block off the diagonal is 0 bytes");
            MPI_Finalize();
            return rc;
        }
    }
    static xchg_spec agreed[MAX_SIZES]; /* --agree: the other file's row per size */
    if (a.agree && (rc = agreed_rows(&a, &t, rowsize, nsizes, agreed)) != 0) {
        MPI_Finalize();
        return rc;
    }
    /* every rank's buffers as large as the root's (rank 0); alltoallv's
     * are each size's own */
    size_t sbytes = a.v ? 1 : xchg_tool_op_max_blocks(a.op, p) * a.max_size;
    char *sbuf = malloc(sbytes), *rbuf = malloc(sbytes);
    int ok = sbuf && rbuf, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        xchg_tool_say("a rank could not allocate 2 x %zu bytes", sbytes);
        MPI_Finalize();
        return EXIT_FAIL;
    }
    /* ones: sums of ints stay far from overflow */
    memset(sbuf, 1, sbytes);
    memset(rbuf, 1, sbytes);
    double t0 = MPI_Wtime();
    if (g_rank == 0 && !a.json && a.v)
        printf("# xchg tune: alltoallv, counts %s (seed %llu), %d ranks on %s, %d candidates, "
               "mean blocks %zu B to %zu B; Size: the call's largest block\n"
               "# Size        fastest                    time(us)     mpi(us) mpi/fast   row\n",
               a.counts, (unsigned long long)a.seed, p, topo, n, a.min_size, a.max_size);
    else if (g_rank == 0 && !a.json)
        printf("# xchg tune: %s, %d ranks on %s, %d candidates, blocks %zu B to %zu B\n"
               "# Size        fastest                    time(us)     mpi(us) mpi/fast   row\n",
               xchg_op_name(a.op), p, topo, n, a.min_size, a.max_size);
    size_t esize = !a.v && xchg_tool_op_reduces(a.op) ? sizeof(int) : 1;
    vsize vs = {0}; /* this size's, freed at the next */
    for (int k = 0; k < nsizes; k++) {
        vsize_free(&vs);
        if (a.v) {
            int vrc = vsize_make(&a, p, g_rank, sizes[k], &vs), worst = 0;
            MPI_Allreduce(&vrc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (worst) {
                vsize_free(&vs);
                if (worst == EXIT_FAIL)
                    xchg_tool_say("a rank could not allocate the buffers of %zu-byte blocks",
                                  sizes[k]);
                free(sbuf);
                free(rbuf);
                MPI_Finalize();
                return worst;
            }
        }
        size_ctx x = {.a = &a,
                      .v = a.v ? &vs : NULL,
                      .topo = topo,
                      .p = p,
                      .m = sizes[k],
                      .count = sizes[k] / esize,
                      .sbuf = sbuf,
                      .rbuf = rbuf};
        if (a.agree && !strcmp(agreed[k], "mpi")) { /* not timed: the library's */
            row[k] = n - 1;
            if (g_rank == 0 && a.json)
                printf("{\"size\":%zu,\"operation\":\"%s\",\"ranks\":%d,\"topology\":\"%s\","
                       "\"m\":%zu,\"best\":\"\",\"row\":\"mpi\",\"margin\":%g,\"times\":{},"
                       "\"skipped\":{},\"predicted\":{},\"model_best\":\"\",\"paired\":null,"
                       "\"agree\":\"mpi\"}\n",
                       rowsize[k], xchg_tuning_op_name(a.op), p, topo, sizes[k], a.margin);
            else if (g_rank == 0)
                printf("%-12zu  %-24s %10s %12s %9s   mpi (--agree file: mpi)\n", rowsize[k],
                       "(not timed)", "-", "-", "-");
            fflush(stdout);
            continue;
        }
        int fastest = tune_size(&x, spec, n, cs, &row[k]);
        static xchg_spec pspec[XCHG_MPI_MAX_PREDICTIONS];
        double pus[XCHG_MPI_MAX_PREDICTIONS];
        char model_best[XCHG_SPEC_MAX] = "";
        int npred = a.json ? predictions(&x, pspec, pus, model_best) : 0;
        if (g_rank != 0)
            continue;
        const cand *mpi = &cs[n - 1];
        if (a.json) {
            printf("{\"size\":%zu,\"operation\":\"%s\",\"ranks\":%d,\"topology\":\"%s\","
                   "\"m\":%zu,\"best\":\"%s\",\"row\":\"%s\",\"margin\":%g,\"times\":{",
                   rowsize[k], xchg_tuning_op_name(a.op), p, topo, sizes[k],
                   fastest >= 0 ? spec[fastest] : "", row[k] >= 0 ? spec[row[k]] : "", a.margin);
            int first = 1;
            for (int i = 0; i < n; i++)
                if (!cs[i].skip) {
                    printf("%s\"%s\":%.6g", first ? "" : ",", spec[i], cs[i].us);
                    first = 0;
                }
            printf("},\"skipped\":{");
            first = 1;
            for (int i = 0; i < n; i++)
                if (cs[i].skip) {
                    printf("%s\"%s\":\"", first ? "" : ",", spec[i]);
                    for (const char *c = cs[i].why; *c; c++)
                        if (*c == '"' || *c == '\\')
                            printf("\\%c", *c);
                        else if ((unsigned char)*c >= 32)
                            putchar(*c);
                    putchar('"');
                    first = 0;
                }
            printf("},\"predicted\":{");
            for (int i = 0; i < npred; i++)
                printf("%s\"%s\":%.6g", i ? "," : "", pspec[i], pus[i]);
            printf("},\"model_best\":\"%s\",\"paired\":", model_best);
            const cand *f = fastest >= 0 ? &cs[fastest] : NULL;
            if (f && f->pair_us > 0)
                printf("{\"alg\":\"%s\",\"us\":%.6g,\"mpi_us\":%.6g}", spec[fastest], f->pair_us,
                       f->pair_mpi_us);
            else
                printf("null");
            if (a.agree)
                printf(",\"agree\":\"%s\"}\n", agreed[k]);
            else
                printf(",\"agree\":null}\n");
        } else if (row[k] >= 0) {
            printf("%-12zu  %-24s %10.2f %12.2f %9.2f", rowsize[k], spec[fastest], cs[fastest].us,
                   mpi->us, mpi->us / cs[fastest].us);
            const cand *f = &cs[fastest];
            if (f->pair_us > 0) /* the paired check's ratio, whichever it chose */
                printf("   %s (paired mpi/fast %.2f)", spec[row[k]], f->pair_mpi_us / f->pair_us);
            else if (row[k] != fastest)
                printf("   mpi (within %g%%)", a.margin);
            else
                printf("   %s", spec[row[k]]);
            if (a.agree)
                printf(" (--agree file: %s)", agreed[k]);
            putchar('\n');
        }
        fflush(stdout);
    }
    vsize_free(&vs);
    free(sbuf);
    free(rbuf);
    rc = EXIT_OK;
    if (g_rank == 0 && a.out)
        rc = write_file(&a, p, topo, rowsize, row, spec, nsizes);
    if (g_rank == 0 && !a.json) {
        printf("# %.1f s", MPI_Wtime() - t0);
        if (a.out && rc == EXIT_OK)
            printf("; wrote %s", a.out);
        printf("\n");
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
