/*
 * memcpy_bw.c - the memory copy bandwidth of the whole machine: T threads
 * (default: every online core) each memcpy their own large buffer (default
 * 256 MiB) at the same time, R times; prints the best and the median of the
 * aggregate rate, bytes copied per second over all threads (a byte copied is
 * counted once, though it is read once and written once).
 *
 * bench/mpi_alltoall.sh divides the bytes an all-to-all must copy by this
 * rate to get the copy limit: on one node every block that leaves a rank is
 * copied at least once by some core, so no exchange is faster than that.
 *
 *   memcpy_bw [--threads T] [--mib N] [--reps R] [--json]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define MAX_REPS 1000

typedef struct worker {
    pthread_t tid;
    int id;
    size_t bytes;
    unsigned char *src, *dst;
} worker;

static pthread_barrier_t g_start, g_stop;
static int g_reps;
static double g_secs[MAX_REPS];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One thread: touch its buffers, then for every repetition wait for the
 * others, copy, wait again; thread 0 times the repetition between the two
 * barriers, so a rate is the slowest thread's. */
static void *work(void *arg)
{
    worker *w = arg;
    memset(w->src, w->id + 1, w->bytes);
    memset(w->dst, 0, w->bytes);
    for (int r = -1; r < g_reps; r++) { /* r = -1: one untimed warm-up copy */
        pthread_barrier_wait(&g_start);
        double t0 = now();
        memcpy(w->dst, w->src, w->bytes);
        pthread_barrier_wait(&g_stop);
        if (w->id == 0 && r >= 0)
            g_secs[r] = now() - t0;
        /* Keep the copy from being optimised away or skipped. */
        if (w->dst[w->bytes / 2] != (unsigned char)(w->id + 1))
            abort();
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
    fputs("memcpy_bw - aggregate memcpy bandwidth of T threads copying at once\n\n"
          "usage: memcpy_bw [--threads T] [--mib N] [--reps R] [--json]\n"
          "  --threads T   threads copying at once (default: online cores), 1..256\n"
          "  --mib N       MiB each thread copies per repetition (default 256), 1..65536\n"
          "  --reps R      timed repetitions (default 10), 1..1000\n"
          "  --json        one JSON object instead of the text line\n"
          "Rate: bytes copied by all threads / time of the slowest, in GB/s (1e9 B/s).\n",
          f);
}

/* Parse an integer in [lo, hi]; 0 or -1. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long threads = sysconf(_SC_NPROCESSORS_ONLN), mib = 256, reps = 10;
    int json = 0;
    if (threads < 1)
        threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        long *dst = NULL, lo = 1, hi = 0;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(o, "--json") == 0) {
            json = 1;
            continue;
        } else if (strcmp(o, "--threads") == 0) {
            dst = &threads, hi = MAX_THREADS;
        } else if (strcmp(o, "--mib") == 0) {
            dst = &mib, hi = 65536;
        } else if (strcmp(o, "--reps") == 0) {
            dst = &reps, hi = MAX_REPS;
        } else {
            fprintf(stderr,
                    "memcpy_bw: unknown option '%s'; accepted: --threads T, --mib N, --reps R, "
                    "--json, --help\n",
                    o);
            return 2;
        }
        if (i + 1 >= argc || parse_int(argv[i + 1], lo, hi, dst)) {
            fprintf(stderr, "memcpy_bw: %s needs an integer from %ld to %ld, got '%s'\n", o, lo,
                    hi, i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
        i++;
    }
    g_reps = (int)reps;
    size_t bytes = (size_t)mib << 20;
    worker *w = calloc((size_t)threads, sizeof *w);
    if (!w)
        return 3;
    for (long t = 0; t < threads; t++) {
        w[t].id = (int)t;
        w[t].bytes = bytes;
        w[t].src = malloc(bytes);
        w[t].dst = malloc(bytes);
        if (!w[t].src || !w[t].dst) {
            fprintf(stderr, "memcpy_bw: cannot allocate 2 x %ld MiB for each of %ld threads; "
                            "accepted: a smaller --mib or --threads\n",
                    mib, threads);
            return 2;
        }
    }
    pthread_barrier_init(&g_start, NULL, (unsigned)threads);
    pthread_barrier_init(&g_stop, NULL, (unsigned)threads);
    for (long t = 1; t < threads; t++)
        pthread_create(&w[t].tid, NULL, work, &w[t]);
    work(&w[0]);
    for (long t = 1; t < threads; t++)
        pthread_join(w[t].tid, NULL);

    qsort(g_secs, (size_t)reps, sizeof g_secs[0], cmp_double);
    double total = (double)bytes * (double)threads;
    double best = total / g_secs[0] / 1e9;
    double median = total / (reps % 2 ? g_secs[reps / 2]
                                      : 0.5 * (g_secs[reps / 2 - 1] + g_secs[reps / 2])) / 1e9;
    if (json)
        printf("{\"threads\":%ld,\"mib_per_thread\":%ld,\"reps\":%ld,\"best_GBps\":%.3f,"
               "\"median_GBps\":%.3f}\n",
               threads, mib, reps, best, median);
    else
        printf("memcpy: %ld threads x %ld MiB, %ld reps: best %.2f GB/s, median %.2f GB/s\n",
               threads, mib, reps, best, median);
    for (long t = 0; t < threads; t++) {
        free(w[t].src);
        free(w[t].dst);
    }
    free(w);
    return 0;
}
