/*
 * xchg_bench.c - xchg-bench: time MPI_Alltoall run by xchg's executor
 * against the MPI library's own, with the options and in the output layout
 * of the OSU micro-benchmarks' osu_alltoall, so the tables read the same.
 *
 *   mpirun -np 16 xchg-bench [-m MIN:MAX] [-i N] [-x N] [-f] [-c] [-l]
 *                            [--alg SPEC|auto|shm|mpi] [--topo SPEC] [--json]
 *
 * What is timed, as osu_alltoall does it: for each block size m (bytes per
 * destination; MIN, 2*MIN, 4*MIN ... up to MAX) every rank runs WARMUP
 * untimed and ITERS timed exchanges, each timed call alone between
 * MPI_Wtime calls and followed by an MPI_Barrier outside the timed region.
 * A rank's latency is its mean time per call; the row prints the mean of
 * that over the ranks (Avg), and its minimum and maximum over the ranks.
 * Sizes above 8192 bytes use the large iteration and warm-up counts.
 *
 * xchg algorithms run through a persistent plan made per size before the
 * warm-up (xchg_mpi_plan_create), so deriving the plan's lists is outside
 * the timed loop, as MPI_Alltoall's own setup is outside it when a library
 * caches it per communicator. --alg mpi calls the MPI library's own call by
 * its profiling name, PMPI_Alltoall: this program links libxchg_mpi, whose
 * MPI_Alltoall is the drop-in (xchg itself).
 *
 * Validation (-c) fills every send block before every call with bytes that
 * encode (origin, destination, offset, size, iteration) through a hash and
 * checks every received byte afterwards, so a block from the wrong origin,
 * at the wrong offset or left over from an earlier call is caught.
 *
 * Exit status: 0 ok, 1 a validation failed, 2 bad usage (every rank exits
 * 2 after MPI_Finalize; rank 0 says why on stderr), 3 an MPI call failed.
 */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

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
/* OSU's column widths. */
#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2

enum { EXIT_OK = 0, EXIT_INVALID = 1, EXIT_USAGE = 2, EXIT_MPI = 3 };

/* Everything the command line sets. */
typedef struct bench_args {
    size_t min_size, max_size;
    long iters, warmup, iters_large, warmup_large;
    size_t mem_limit;
    int full, validate, in_place, json, verbose;
    const char *alg;  /* "auto", "mpi" or a registry spec */
    const char *topo; /* NULL or "auto" or a topology spec */
    const char *tuning, *machine; /* auto's files (NULL: XCHG_TUNING_FILE,
                                     XCHG_MACHINE_FILE, or none) */
} bench_args;

/* One row's figures. */
typedef struct bench_row {
    size_t bytes;
    long iters;
    double avg_us, min_us, max_us;
    int checked, valid;
    xchg_mpi_plan_info info; /* alg "mpi" for --alg mpi */
    int have_info;
} bench_row;

static int g_rank;

/* Print "xchg-bench: <message>" on stderr from rank 0 only. */
static void usage_error(const char *fmt, ...)
{
    if (g_rank != 0)
        return;
    va_list ap;
    fputs(BENCH_NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see " BENCH_NAME " --help)\n", stderr);
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
            BENCH_NAME " " XCHG_VERSION " - time MPI_Alltoall through xchg's executor against the\n"
            "MPI library's own, in the layout of the OSU micro-benchmarks' osu_alltoall.\n\n"
            "usage: mpirun -np P " BENCH_NAME " [OPTIONS]\n\n"
            "options (osu_alltoall's):\n"
            "  -m, --message-size [MIN:]MAX  block sizes in bytes per destination, MIN, 2*MIN,\n"
            "                                4*MIN ... up to MAX (default 1:1048576); also\n"
            "                                MIN: or :MAX; K, M, G suffixes are powers of 1024\n"
            "  -i, --iterations N            timed calls per size (default %d, %d above %zu B)\n"
            "  -x, --warmup N                untimed calls before them (default %d, %d above %zu B)\n"
            "  -f, --full                    also Min and Max latency over ranks and Iterations\n"
            "  -c, --validation              check every byte of every received block (a hash\n"
            "                                of origin, destination, offset and call); a\n"
            "                                Validation column says Pass or Fail\n"
            "  -l, --in-place                send from the receive buffer (MPI_IN_PLACE)\n"
            "  -M, --mem-limit BYTES         largest send buffer per rank, P*MAX (default 512M);\n"
            "                                MAX is lowered to fit, with a warning\n"
            "  -h, --help                    this help\n"
            "  -v, --version                 the version\n"
            "xchg's:\n"
            "  --alg SPEC|auto|shm|mpi       a registry spec (see 'xchg list'), auto (xchg picks\n"
            "                                per size), shm (through shared memory, one node)\n"
            "                                or mpi (the MPI library's MPI_Alltoall); default auto\n"
            "  --topo SPEC|auto              the topology the ranks are laid out on (its node\n"
            "                                count must be P), default auto (complete:P)\n"
            "  --iterations-large N          timed calls above %zu B (-i sets both)\n"
            "  --warmup-large N              warm-up calls above %zu B (-x sets both)\n"
            "  --tuning FILE                 auto runs the tuning file's measured winners\n"
            "                                (xchg tune; default XCHG_TUNING_FILE)\n"
            "  --machine FILE                auto's cost model uses this machine file\n"
            "                                (xchg probe; default XCHG_MACHINE_FILE)\n"
            "  --json                        one JSON object per size instead of the table\n"
            "  --verbose                     the executor says what each plan chose (stderr)\n\n"
            "Latency per size: each rank's mean time per call; Avg is its mean over ranks,\n"
            "Min and Max its extremes over ranks (osu_alltoall's definition). xchg runs\n"
            "through a plan made per size before the timed loop.\n"
            "exit status: 0 ok, 1 a validation failed, 2 bad usage, 3 an MPI call failed.\n",
            DEF_ITERS, DEF_ITERS_LARGE, LARGE_MESSAGE_SIZE, DEF_WARMUP, DEF_WARMUP_LARGE,
            LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE);
}

/*
 * Parse a byte count: decimal digits and an optional K, M, G or T (powers of
 * 1024, an optional trailing B or iB). Returns 0 and *out, -1 on anything else
 * (empty, sign, junk, overflow of size_t).
 */
static int parse_bytes(const char *s, size_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    size_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t d = (size_t)(*s - '0');
        if (v > (SIZE_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    int shift = 0;
    switch (*s) {
    case 'k': case 'K': shift = 10; s++; break;
    case 'm': case 'M': shift = 20; s++; break;
    case 'g': case 'G': shift = 30; s++; break;
    case 't': case 'T': shift = 40; s++; break;
    default: break;
    }
    if (shift && (s[0] == 'i' && s[1] == 'B'))
        s += 2;
    else if (shift && s[0] == 'B')
        s++;
    if (*s != '\0')
        return -1;
    if (shift && v > (SIZE_MAX >> shift))
        return -1;
    *out = v << shift;
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

/* Option opt's value s as a count from lo to 1e9 (what: "an iteration
 * count"); 0 and *out, or -1 after saying what is accepted. */
static int count_arg(const char *opt, const char *what, const char *s, long lo, long *out)
{
    if (parse_long(s, lo, 1000000000L, out) == 0)
        return 0;
    usage_error("%s '%s' is not %s; accepted: %ld to 1000000000", opt, s, what, lo);
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
        usage_error("-m '%s': the smallest block size must be at least 1 byte", s);
        return -1;
    }
    if (hi < lo) {
        usage_error("-m '%s': MAX (%zu) is below MIN (%zu); accepted: [MIN:]MAX with "
                    "1 <= MIN <= MAX",
                    s, hi, lo);
        return -1;
    }
    a->min_size = lo;
    a->max_size = hi;
    return 0;
bad:
    usage_error("-m '%s' is not a size range; accepted: MAX, MIN:MAX, MIN: or :MAX in bytes "
                "(digits, optional K/M/G/T suffix), e.g. -m 8:1M",
                s);
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
    OPT_MACHINE
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
        {0, 0, 0, 0},
    };
    static const char accepted[] = "-m, -i, -x, -f, -c, -l, -M, -h, -v, --alg, --topo, "
                                   "--iterations-large, --warmup-large, --tuning, --machine, "
                                   "--json, --verbose";
    memset(a, 0, sizeof *a);
    a->min_size = DEF_MIN_SIZE;
    a->max_size = DEF_MAX_SIZE;
    a->iters = DEF_ITERS;
    a->warmup = DEF_WARMUP;
    a->iters_large = DEF_ITERS_LARGE;
    a->warmup_large = DEF_WARMUP_LARGE;
    a->mem_limit = DEF_MEM_LIMIT;
    a->alg = "auto";
    long il = -1, wl = -1;
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
                usage_error("-M '%s' is not a memory size; accepted: bytes >= 1 with an "
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
        case OPT_JSON: a->json = 1; break;
        case OPT_VERBOSE: a->verbose = 1; break;
        case ':':
            usage_error("%s needs a value", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            if (optopt > 0 && optopt < 128)
                usage_error("unknown option '-%c'; accepted: %s", optopt, accepted);
            else
                usage_error("unknown option '%s'; accepted: %s", argv[optind - 1], accepted);
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
        usage_error("unexpected argument '%s'; options only, accepted: %s", argv[optind],
                    accepted);
        return EXIT_USAGE;
    }
    if (il >= 0)
        a->iters_large = il;
    if (wl >= 0)
        a->warmup_large = wl;

    /* The algorithm and topology are checked against the registry here, so
     * a typo is bad usage with the library's own message, not a failed run. */
    xchg_err err = {{0}};
    if (xchg_mpi_alg_check(a->alg, &err) != 0) {
        usage_error("--alg '%s': %s", a->alg, err.msg);
        return EXIT_USAGE;
    }
    if (a->topo && strcmp(a->topo, "auto") != 0) {
        xchg_topo t;
        if (xchg_topo_parse(a->topo, &t, &err) != 0) {
            usage_error("--topo '%s': %s; also accepted: auto", a->topo, err.msg);
            return EXIT_USAGE;
        }
        if ((long)t.nodes != (long)nprocs) {
            usage_error("--topo '%s' has %u nodes but the job has %d ranks; accepted: a "
                        "topology of %d nodes, or auto",
                        a->topo, (unsigned)t.nodes, nprocs, nprocs);
            return EXIT_USAGE;
        }
        if (strcmp(a->alg, "mpi") == 0 && g_rank == 0)
            fprintf(stderr, BENCH_NAME ": note: --topo is ignored with --alg mpi\n");
    }
    if (nprocs < 2) {
        usage_error("an all-to-all needs at least 2 ranks, the job has %d; start it with "
                    "mpirun -np P (P >= 2)",
                    nprocs);
        return EXIT_USAGE;
    }
    /* osu_alltoall's memory limit: one buffer of P*MAX bytes must fit. */
    size_t p = (size_t)nprocs;
    if (a->max_size > a->mem_limit / p) {
        size_t fit = a->mem_limit / p, m = a->min_size;
        if (fit < a->min_size) {
            usage_error("P*MIN = %d*%zu bytes exceeds the memory limit of %zu bytes per "
                        "buffer; accepted: a smaller -m or a larger -M",
                        nprocs, a->min_size, a->mem_limit);
            return EXIT_USAGE;
        }
        while (m <= fit / 2)
            m *= 2;
        if (g_rank == 0)
            fprintf(stderr,
                    BENCH_NAME ": warning: limiting the largest block to %zu bytes (%d ranks "
                    "x MAX must fit -M %zu); raise -M for larger blocks\n",
                    m, nprocs, a->mem_limit);
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

/*
 * Time one block size m: warm-up and timed calls as osu_alltoall does them
 * (each timed call alone, a barrier after it outside the timed region), with
 * a refill before and a check after every call when validating. Fills *row
 * on every rank.
 */
static void run_size(const bench_args *a, MPI_Comm comm, int p, size_t m, unsigned char *sbuf,
                     unsigned char *rbuf, bench_row *row)
{
    int is_mpi = strcmp(a->alg, "mpi") == 0;
    long iters = m > LARGE_MESSAGE_SIZE ? a->iters_large : a->iters;
    long warmup = m > LARGE_MESSAGE_SIZE ? a->warmup_large : a->warmup;
    xchg_mpi_plan *plan = NULL;
    mpi_call mc = {0, MPI_BYTE, 0};
    int rc;
    memset(row, 0, sizeof *row);
    row->bytes = m;
    row->iters = iters;

    if (is_mpi) {
        if ((rc = mpi_call_make(m, &mc)) != MPI_SUCCESS)
            mpi_fail(comm, rc, "making the datatype", m);
        snprintf(row->info.alg, sizeof row->info.alg, "mpi");
        snprintf(row->info.topology, sizeof row->info.topology, "-");
        snprintf(row->info.why, sizeof row->info.why, "--alg mpi: MPI_Alltoall");
    } else {
        /* The plan is made here, outside the timed loop: a persistent plan
         * derives this rank's lists once and every timed call reuses them. */
        xchg_mpi_opts o;
        xchg_mpi_opts_default(&o);
        o.alg = a->alg;
        o.topology = a->topo;
        o.verbose = a->verbose;
        o.tuning_file = a->tuning ? a->tuning : getenv("XCHG_TUNING_FILE");
        o.machine_file = a->machine ? a->machine : getenv("XCHG_MACHINE_FILE");
        rc = xchg_mpi_plan_create((MPI_Count)m, MPI_BYTE, (MPI_Count)m, MPI_BYTE, a->in_place,
                                  comm, &o, &plan);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, msg, &len);
            usage_error("--alg '%s'%s%s: no plan for block size %zu on %d ranks: %s", a->alg,
                        a->topo ? " --topo " : "", a->topo ? a->topo : "", m, p, msg);
            finish(EXIT_USAGE);
        }
        xchg_mpi_plan_info_get(plan, &row->info);
    }
    row->have_info = 1;

    const void *send = a->in_place ? MPI_IN_PLACE : (const void *)sbuf;
    unsigned char *fillbuf = a->in_place ? rbuf : sbuf;
    double timer = 0.0;
    long bad = 0;
    MPI_Barrier(comm);
    for (long i = 0; i < warmup + iters; i++) {
        if (a->validate) {
            fill_send(fillbuf, g_rank, p, m, i);
            MPI_Barrier(comm);
        }
        double t0 = MPI_Wtime();
        if (is_mpi)
            rc = PMPI_Alltoall(send, mc.count, mc.type, rbuf, mc.count, mc.type, comm);
        else
            rc = xchg_mpi_plan_run(plan, send, rbuf);
        double t1 = MPI_Wtime();
        if (rc != MPI_SUCCESS)
            mpi_fail(comm, rc, is_mpi ? "MPI_Alltoall" : "xchg_mpi_plan_run", m);
        MPI_Barrier(comm);
        if (a->validate && bad == 0)
            bad += check_recv(rbuf, g_rank, p, m, i);
        if (i >= warmup)
            timer += t1 - t0;
    }
    double lat = timer * 1e6 / (double)iters, sum = 0.0;
    MPI_Allreduce(&lat, &row->min_us, 1, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(&lat, &row->max_us, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    row->avg_us = sum / p;
    if (a->validate) {
        long total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, comm);
        row->checked = 1;
        row->valid = total == 0;
    }
    xchg_mpi_plan_free(plan);
    mpi_call_free(&mc);
}

/* ---- output --------------------------------------------------------------- */

/* Write s as a JSON string. */
static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void print_json(const bench_args *a, int p, const bench_row *r)
{
    fputs("{\"alg\":", stdout);
    json_str(r->info.alg);
    fputs(",\"requested\":", stdout);
    json_str(a->alg);
    fputs(",\"topology\":", stdout);
    if (strcmp(a->alg, "mpi") == 0)
        fputs("null", stdout);
    else
        json_str(r->info.topology);
    printf(",\"fallback\":%s,\"p\":%d,\"bytes\":%zu,\"avg_us\":%.3f,\"min_us\":%.3f,"
           "\"max_us\":%.3f,\"iterations\":%ld,\"in_place\":%s,\"valid\":%s}\n",
           r->info.fallback ? "true" : "false", p, r->bytes, r->avg_us, r->min_us, r->max_us,
           r->iters, a->in_place ? "true" : "false",
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
    printf("\n# " BENCH_NAME " MPI All-to-All Personalized Exchange Latency Test v" XCHG_VERSION
           "\n");
    printf("# MPI library: %s\n", lib);
    printf("# Ranks: %d, algorithm: %s, topology: %s, in place: %s, datatype: MPI_BYTE\n", p,
           a->alg, a->topo ? a->topo : "auto", a->in_place ? "yes" : "no");
    printf("%-*s%*s", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
    if (a->full)
        printf("%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12,
               "Iterations");
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
            printf("# plan: MPI_Alltoall of the MPI library (--alg mpi)\n");
        return;
    }
    if (prev && strcmp(prev->info.alg, r->info.alg) == 0 &&
        strcmp(prev->info.topology, r->info.topology) == 0 &&
        prev->info.fallback == r->info.fallback)
        return;
    if (r->info.fallback)
        printf("# plan from %zu B: MPI_Alltoall (xchg falls back to the MPI library); %s\n",
               r->bytes, r->info.why);
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

    bench_args a;
    int prc = parse_args(argc, argv, p, &a);
    if (prc != 0) {
        MPI_Comm_free(&comm);
        finish(prc < 0 ? EXIT_OK : prc);
    }

    /* In place needs one buffer; otherwise a send and a receive buffer, each
     * P*MAX bytes (64 ranks of 1 MiB blocks: 2 x 64 MiB per rank). */
    size_t bytes = (size_t)p * a.max_size;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    int okmem = posix_memalign((void **)&rbuf, 4096, bytes) == 0;
    if (okmem && !a.in_place)
        okmem = posix_memalign((void **)&sbuf, 4096, bytes) == 0;
    int allmem = 0;
    MPI_Allreduce(&okmem, &allmem, 1, MPI_INT, MPI_MIN, comm);
    if (!allmem) {
        usage_error("cannot allocate %s%zu bytes per rank for %d ranks x %zu-byte blocks; "
                    "accepted: a smaller -m MAX",
                    a.in_place ? "" : "2 x ", bytes, p, a.max_size);
        free(sbuf);
        free(rbuf);
        MPI_Comm_free(&comm);
        finish(EXIT_USAGE);
    }
    /* Touch every page before timing (osu_alltoall sets its buffers too). */
    memset(rbuf, 0, bytes);
    if (sbuf)
        fill_send(sbuf, g_rank, p, a.max_size, -1);

    if (g_rank == 0 && !a.json)
        print_header(&a, p);
    int status = EXIT_OK;
    bench_row row, prev;
    int have_prev = 0;
    for (size_t m = a.min_size; m <= a.max_size; m *= 2) {
        run_size(&a, comm, p, m, sbuf, rbuf, &row);
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
            /* osu_alltoall stops at the first size that fails. */
            if (g_rank == 0)
                fprintf(stderr,
                        BENCH_NAME ": DATA VALIDATION ERROR at block size %zu with --alg %s\n",
                        m, a.alg);
            status = EXIT_INVALID;
            break;
        }
        if (m > SIZE_MAX / 2)
            break;
    }
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&comm);
    finish(status);
    return status;
}
