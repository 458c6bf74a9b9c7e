/*
 * xchg_probe.c - xchg-probe (run as `mpirun -np P xchg probe`): measure this
 * machine's figures in the form of Bokhari's Table 1 (seed 002) and write
 * them as a machine file (docs/machine-file.md) that xchg cost, compare,
 * plan and sim read with --machine FILE.
 *
 * What is measured:
 *   - t_s and t_w: ranks 0 and 1 ping-pong messages of 1 B to MAX (powers
 *     of two and the points halfway between); a size's one-way time is the
 *     median over its round trips, halved. xchg_fit_pingpong fits
 *     ts + bytes*tw on relative error and finds where the MPI library
 *     switches protocol (eager to rendezvous): below the switch the eager
 *     range, above it the machine's ts and tw.
 *   - barrier: MPI_Barrier on all P ranks, the mean over many.
 *   - t_r: memcpy of whole 64 KiB blocks between two 16 MiB buffers (out of
 *     the caches), per byte; the executor's packing copies blocks so.
 *   - ts_node and tw_node: when ranks 0 and 1 share a node (MPI_COMM_TYPE_SHARED)
 *     their ping-pong is a node's messages too (docs/hierarchical.md); else
 *     the defaults (ts, tr) are written.
 * While ranks 0 and 1 measure, the other ranks wait in a barrier they poll
 * with sleeps, so oversubscribed ranks do not steal their cores.
 *
 * Exit status: 0 ok, 2 bad usage, fewer than 2 ranks or a machine file that
 * cannot be written (every rank exits 2 after MPI_Finalize; rank 0 says
 * why), 3 out of memory.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "tool_size.h"
#include "tool_usage.h"
#include "xchg.h"

enum { EXIT_OK = 0, EXIT_USAGE = XCHG_TOOL_USAGE, EXIT_FAIL = 3 };

#define PROBE_MAX_SIZES 64
#define COPY_BYTES ((size_t)16 << 20)
#define COPY_BLOCK ((size_t)64 << 10)

typedef struct probe_args {
    const char *out;     /* machine file to write, or NULL */
    const char *name;    /* the machine's name */
    size_t max_size;     /* largest ping-pong message */
    int json, verbose;
} probe_args;

static const char usage_text[] =
    "usage: mpirun -np P xchg probe [-o FILE] [--name NAME] [--max-size BYTES]\n"
    "                               [--json] [--verbose]\n\n"
    "Measure this machine's start-up t_s and per-byte t_w (ping-pong between\n"
    "ranks 0 and 1 over many sizes, fitted per protocol range, the eager /\n"
    "rendezvous switch found from the data), the barrier on all P ranks and\n"
    "the local copy time t_r; print them in Bokhari's Table 1 form and write\n"
    "a machine file for --machine FILE (docs/machine-file.md).\n\n"
    "options:\n"
    "  -o, --out FILE        write the machine file there\n"
    "  --name NAME           the machine's name in the file (default probed)\n"
    "  --max-size BYTES      largest ping-pong message, 4K to 1G with an optional\n"
    "                        K/M/G suffix (default 4M)\n"
    "  --json                one JSON object on one line\n"
    "  --verbose             every size's time beside the fit\n"
    "  -h, --help            this text\n"
    "Run it with at least 2 ranks; put ranks 0 and 1 on two nodes to measure the\n"
    "network rather than shared memory (Open MPI: --map-by node).\n";

static int parse_args(int argc, char **argv, probe_args *a)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"name", required_argument, NULL, 'n'},
                                             {"max-size", required_argument, NULL, 's'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"verbose", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    static const char accepted[] = "-o/--out, --name, --max-size, --json, --verbose, --help";
    memset(a, 0, sizeof *a);
    a->name = "probed";
    a->max_size = (size_t)4 << 20;
    opterr = 0;
    int c;
    uint64_t bytes;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->out = optarg;
            break;
        case 'n':
            a->name = optarg;
            break;
        case 's':
            if (xchg_tool_bytes(optarg, 4096, 1u << 30, &bytes))
                return xchg_tool_usage_error("--max-size '%s' is not a size; accepted: 4K to 1G "
                                         "bytes, with an optional K/M/G suffix",
                                   optarg);
            a->max_size = (size_t)bytes;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'v':
            a->verbose = 1;
            break;
        default: /* -h, or a refusal */
            return xchg_tool_getopt_rest(c, argv, usage_text, accepted);
        }
    }
    if (xchg_tool_no_operands(argc, argv, optind))
        return XCHG_TOOL_USAGE;
    xchg_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.units, sizeof m.units, "us");
    snprintf(m.name, sizeof m.name, "%s", a->name);
    char buf[2048];
    if (strlen(a->name) >= sizeof m.name ||
        xchg_machine_format(&m, NULL, buf, sizeof buf) != XCHG_OK)
        return xchg_tool_usage_error("--name '%s' is not a machine name; accepted: 1 to 31 "
                                 "letters, digits and . _ - +",
                           a->name);
    return 0;
}

/* Wait in a barrier without spinning: poll it, sleeping between polls, so
 * that ranks with nothing to do leave the cores to those measuring. */
static void idle_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(comm, &rq);
    const struct timespec nap = {0, 200000};
    while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&nap, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Round trips for a message of n bytes: many for small ones, at least 10. */
static int reps_for(size_t n)
{
    size_t r = ((size_t)32 << 20) / (n + 1024);
    return r < 10 ? 10 : r > 1000 ? 1000 : (int)r;
}

/* Sizes 1 B .. max: powers of two and the halfway points; returns count. */
static size_t probe_sizes(size_t max, double *sizes)
{
    size_t n = 0;
    for (size_t x = 1; x <= max && n + 2 <= PROBE_MAX_SIZES; x *= 2) {
        sizes[n++] = (double)x;
        if (x >= 2 && x + x / 2 <= max)
            sizes[n++] = (double)(x + x / 2);
    }
    return n;
}

/* Ping-pong between ranks 0 and 1 (rank 0 records the one-way times). */
static int pingpong(int rank, const double *sizes, size_t n, double *us, char *buf)
{
    int peer = 1 - rank;
    for (size_t i = 0; i < n; i++) {
        int cnt = (int)sizes[i], reps = reps_for((size_t)sizes[i]);
        double *t = malloc((size_t)reps * sizeof *t);
        if (!t)
            return EXIT_FAIL;
        for (int r = -2; r < reps; r++) { /* two round trips to warm up */
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, cnt, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, cnt, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, cnt, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, cnt, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
            if (r >= 0)
                t[r] = (MPI_Wtime() - t0) * 1e6 / 2;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        us[i] = t[reps / 2];
        free(t);
    }
    return EXIT_OK;
}

/* Per-byte time of copying whole blocks between two large buffers. */
static double copy_time(void)
{
    char *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    double best[5];
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    memset(a, 1, COPY_BYTES);
    memset(b, 2, COPY_BYTES);
    for (int r = 0; r < 5; r++) {
        double t0 = MPI_Wtime();
        /* blocks in a scattered order, as packing gathers them */
        size_t nb = COPY_BYTES / COPY_BLOCK;
        for (size_t k = 0; k < nb; k++) {
            size_t src = (k * 7919) % nb;
            memcpy(b + k * COPY_BLOCK, a + src * COPY_BLOCK, COPY_BLOCK);
        }
        best[r] = (MPI_Wtime() - t0) * 1e6 / (double)COPY_BYTES;
        char *tmp = a;
        a = b;
        b = tmp;
    }
    qsort(best, 5, sizeof best[0], cmp_double);
    free(a);
    free(b);
    return best[2];
}

/* Mean time of one MPI_Barrier on every rank, seen from rank 0. */
static double barrier_time(void)
{
    const int reps = 200;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) * 1e6 / reps;
}

static void print_range(const xchg_fit_range *r)
{
    printf("  %9.0f B .. %9.0f B   ts %9.4g us   tw %9.4g us/B   rms %5.1f%%   worst "
           "%5.1f%%   (%zu sizes)\n",
           r->lo, r->hi, r->ts, r->tw, 100 * r->rms_rel, 100 * r->max_rel, r->points);
}

static void print_json_range(const xchg_fit_range *r)
{
    printf("{\"lo\":%.0f,\"hi\":%.0f,\"ts\":%.9g,\"tw\":%.9g,\"rms_rel\":%.6g,\"max_rel\":%.6g,"
           "\"points\":%zu}",
           r->lo, r->hi, r->ts, r->tw, r->rms_rel, r->max_rel, r->points);
}

/* Rank 0's report, and the machine file. */
static int report(const probe_args *a, int p, const double *sizes, const double *us, size_t n,
                  const xchg_fit *fit, const xchg_machine *m, double secs)
{
    char file[4096];
    char comment[256];
    snprintf(comment, sizeof comment,
             "measured by xchg probe (xchg %s) on %d ranks: ping-pong 1 B to %zu B between "
             "ranks 0 and 1, barrier on %d ranks%s",
             XCHG_VERSION, p, a->max_size, p,
             m->tw_node == m->tw && m->ts_node == m->ts
                 ? "; ranks 0 and 1 share a node: ts_node, tw_node are theirs"
                 : "");
    int rc = xchg_machine_format(m, comment, file, sizeof file);
    if (rc == XCHG_OK && a->out) {
        FILE *f = fopen(a->out, "w");
        int bad = !f || fputs(file, f) < 0;
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad) {
            return xchg_tool_usage_error("cannot write the machine file '%s': %s; accepted: a "
                                         "path in a folder that exists and can be written",
                                         a->out, strerror(errno));
        }
    }
    if (rc != XCHG_OK) {
        xchg_tool_say("the measured figures do not make a machine file (ts %g, tw %g, tr %g, "
                      "barrier %g)",
                      m->ts, m->tw, m->tr, m->barrier);
        return EXIT_FAIL;
    }
    if (a->json) {
        printf("{\"ranks\":%d,\"seconds\":%.3f,\"sizes\":[", p, secs);
        for (size_t i = 0; i < n; i++)
            printf("%s[%.0f,%.6g]", i ? "," : "", sizes[i], us[i]);
        printf("],\"ranges\":[");
        for (int r = 0; r < fit->nranges; r++) {
            if (r)
                putchar(',');
            print_json_range(&fit->range[r]);
        }
        printf("],\"switch_bytes\":%.0f,\"machine\":{\"name\":\"%s\",\"ts\":%.9g,\"tw\":%.9g,"
               "\"tr\":%.9g,\"barrier\":%.9g,\"eager\":%.9g,\"ts_eager\":%.9g,"
               "\"tw_eager\":%.9g},\"file\":",
               fit->nranges == 2 ? fit->switch_bytes : 0, m->name, m->ts, m->tw, m->tr,
               m->barrier, m->eager_bytes, m->ts_eager, m->tw_eager);
        if (!a->out) {
            fputs("null", stdout);
        } else { /* the path as a JSON string */
            putchar('"');
            for (const char *c = a->out; *c; c++)
                if (*c == '"' || *c == '\\')
                    printf("\\%c", *c);
                else if ((unsigned char)*c < 32)
                    printf("\\u%04x", (unsigned char)*c);
                else
                    putchar(*c);
            putchar('"');
        }
        puts("}");
        return EXIT_OK;
    }
    printf("xchg probe: %d ranks, %zu message sizes from 1 B to %zu B, %.1f s\n", p, n,
           a->max_size, secs);
    if (a->verbose) {
        printf("# Size        One-way(us)    Fit(us)    Miss\n");
        for (size_t i = 0; i < n; i++) {
            const xchg_fit_range *r =
                &fit->range[fit->nranges == 2 && sizes[i] >= fit->switch_bytes];
            double f = r->ts + sizes[i] * r->tw;
            printf("%-12.0f %12.4g %10.4g %6.1f%%\n", sizes[i], us[i], f,
                   100 * (f - us[i]) / us[i]);
        }
    }
    printf("one-way time, least squares on relative error, per protocol range:\n");
    for (int r = 0; r < fit->nranges; r++)
        print_range(&fit->range[r]);
    size_t k = 1;
    while (fit->nranges == 2 && k < n && sizes[k] < fit->switch_bytes)
        k++;
    if (fit->nranges == 2 && k < n)
        printf("  the protocol switches at %.0f B: from %.0f B the time grows %.2fx for %.2fx "
               "the bytes, which no one line can do\n",
               fit->switch_bytes, sizes[k - 1], us[k] / us[k - 1], sizes[k] / sizes[k - 1]);
    else
        printf("  no protocol switch: time never grows much faster than size\n");
    printf("machine (Bokhari, Table 1 form):\n");
    printf("  %-10s %12s %14s %14s %16s\n", "machine", "t_s (us)", "t_w (us/B)", "t_r (us/B)",
           "barrier (us)");
    printf("  %-10s %12.4g %14.4g %14.4g %16.4g   (barrier on %d ranks)\n", m->name, m->ts,
           m->tw, m->tr, m->barrier, p);
    if (a->out)
        printf("wrote %s\n", a->out);
    return EXIT_OK;
}

/* Nonzero (on rank 0) when world ranks 0 and 1 share a node's memory
 * (MPI_COMM_TYPE_SHARED): the ping-pong then measured the intra-node
 * figures ts_node and tw_node too. Collective over MPI_COMM_WORLD. */
static int ranks_share_node(int rank, int p)
{
    MPI_Comm node;
    if (p < 2 || MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                     &node) != MPI_SUCCESS)
        return 0;
    int first = rank; /* the world rank of the node's first rank */
    MPI_Bcast(&first, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    int firsts[2] = {0, 0};
    if (rank < 2)
        firsts[rank] = first;
    int both[2] = {0, 0};
    MPI_Reduce(firsts, both, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return rank == 0 && both[0] == both[1];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    xchg_tool_usage_setup("xchg probe", "", rank == 0);
    probe_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc == 0 && p < 2)
        rc = xchg_tool_usage_error("needs 2 or more ranks, and has 1; run it as mpirun -np 2 "
                                   "xchg probe");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? EXIT_OK : rc;
    }
    double sizes[PROBE_MAX_SIZES], us[PROBE_MAX_SIZES];
    size_t n = probe_sizes(a.max_size, sizes);
    char *buf = malloc(a.max_size);
    int ok = buf != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        xchg_tool_say("a rank could not allocate %zu bytes", a.max_size);
        free(buf);
        MPI_Finalize();
        return EXIT_FAIL;
    }
    memset(buf, 0, a.max_size);
    int same_node = ranks_share_node(rank, p);
    double t0 = MPI_Wtime();
    rc = EXIT_OK;
    double tr = 0;
    if (rank < 2) {
        rc = pingpong(rank, sizes, n, us, buf);
        if (rank == 0)
            tr = copy_time();
    }
    idle_barrier(MPI_COMM_WORLD);
    double bar = barrier_time();
    double secs = MPI_Wtime() - t0;
    free(buf);
    if (rank == 0) {
        xchg_fit fit;
        xchg_err err = {{0}};
        xchg_machine m;
        memset(&m, 0, sizeof m);
        snprintf(m.name, sizeof m.name, "%s", a.name);
        snprintf(m.units, sizeof m.units, "us");
        if (rc == EXIT_OK && tr < 0) {
            xchg_tool_say("out of memory timing local copies");
            rc = EXIT_FAIL;
        } else if (rc == EXIT_OK && xchg_fit_pingpong(sizes, us, n, &fit, &err) != XCHG_OK) {
            xchg_tool_say("%s", err.msg);
            rc = EXIT_FAIL;
        } else if (rc == EXIT_OK && !(fit.range[fit.nranges - 1].tw > 0)) {
            xchg_tool_say("the time did not grow with the message size up to %zu B (per-byte "
                          "time fitted to 0), so the timings are noise; run it again with a "
                          "larger --max-size or on a quieter machine",
                          a.max_size);
            rc = EXIT_FAIL;
        } else if (rc == EXIT_OK) {
            xchg_fit_machine(&fit, &m);
            m.tr = tr;
            m.barrier = bar;
            /* ranks 0 and 1 on one node measured a node's messages
             * (docs/hierarchical.md); else the defaults stand */
            xchg_machine_node_defaults(&m);
            if (same_node) {
                m.ts_node = m.ts;
                m.tw_node = m.tw;
            }
            rc = report(&a, p, sizes, us, n, &fit, &m, secs);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
