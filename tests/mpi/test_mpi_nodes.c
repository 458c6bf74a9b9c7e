/*
 * test_mpi_nodes.c - the node-aware exchange (src/mpi/hier.c: leader,
 * leaders:L, pairs; src/mpi/aggregate.c) against the MPI library's own
 * MPI_Alltoall, byte for byte, on nodes emulated with XCHG_NODE_SIZE (set
 * here before each communicator is made: the executor maps a
 * communicator's nodes once): the emulated-nodes matrix of
 * docs/clusters.md. CMake's mpi_nodes_P run it on P ranks, each with the
 * node sizes and largest block of its row there.
 *
 *   test_mpi_nodes [KS [MAX]]     KS: node sizes, comma-separated (default
 *                                 every K from 1 to p); MAX: the largest
 *                                 block in bytes (default 4100)
 *   test_mpi_nodes shared N       nodes as the library groups shared memory
 *
 * For each node size K, ranks placed block-wise (the last node short
 * unless K divides p) and cyclic (XCHG_NODE_PLACEMENT: ceil(p / K) nodes,
 * dealt round-robin):
 *  - every variant: leader (what runs between nodes auto's, bruck,
 *    pairwise), leaders:2, leaders:3:bruck, pairs, pairs:bruck,
 *    aggregate (src/mpi/aggregate.c: runs on any nodes), and auto,
 *    which may choose aggregate on unequal nodes (and must somewhere from
 *    8 ranks), any node-aware one only on two or more equal nodes of
 *    two or more ranks, and must on some of them at 7-byte blocks when
 *    its figures are a cluster's (XCHG_MACHINE_FILE: CMake gives
 *    tests/mpi/cluster.machine, whose network start-up is 25 times a
 *    node's; on this machine's own figures a message within a node costs
 *    what one between nodes does, and auto rightly stays flat on 4, 6 and
 *    8 ranks);
 *  - blocks of 0 B, 1 B, 7 B, 64 B, 1000 B, 4 KiB, 64 KiB and 1 MiB up to
 *    MAX, in place and not, and a derived datatype (ints with gaps);
 *  - whether the variant must run (leader always; leaders:L when every
 *    node holds L groups; pairs when the nodes are equal) or fall back to
 *    the MPI library's call with its reason, and be right either way;
 *  - on 4 nodes, the network of nodes named by the topology option
 *    (ring:4, or the ranks' mesh:2x2xK) and one that fits neither.
 * With the arguments "shared 3" (CMake's mpi_nodes_cliques, MPICH only) the
 * nodes are the library's own: MPICH's emulated nodes dealt round-robin
 * (MPIR_CVAR_NUM_CLIQUES=3, MPIR_CVAR_ODD_EVEN_CLIQUES=1), which
 * MPI_COMM_TYPE_SHARED follows: every plan must say it found 3 nodes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"

static int wrank, wsize;
static char want_nodes[64]; /* "shared N": the plans must say "N nodes of" */
static long checks, failures;
static const char *variant = "", *placement = "block";
static int auto_may;         /* auto may choose a node-aware exchange here */
static int nodes_equal;      /* ... and any of them (else aggregate alone) */
static long auto_small_aware; /* how often it did at 7-byte blocks */
static long auto_unequal_aware; /* ... and on unequal nodes (aggregate) */

static void check(int ok, const char *what, int k, long n)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 20)
            fprintf(stderr, "FAIL (rank %d): %s (%s, K %d %s, %ld)\n", wrank, what, variant, k,
                    placement, n);
    }
}

/* The byte rank `from` sends rank `to` at index i of a block. */
static unsigned char byte(int from, int to, long i)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13 + 1);
}

/* One exchange of n bytes a block through opts on c, in place or not,
 * against the library's; and whether the plan ran the variant (want_run)
 * or fell back saying want_why, as it should. */
static void bytes_case(MPI_Comm c, long n, int in_place, const xchg_mpi_opts *o, int k,
                       int want_run, const char *want_why)
{
    size_t all = (size_t)wsize * (size_t)n;
    unsigned char *send = malloc(all + 1), *got = malloc(all + 1), *want = malloc(all + 1);
    if (!send || !got || !want) {
        check(0, "memory for the buffers", k, n);
        free(send);
        free(got);
        free(want);
        return;
    }
    for (int to = 0; to < wsize; to++)
        for (long i = 0; i < n; i++)
            send[(size_t)to * n + i] = byte(wrank, to, i);
    PMPI_Alltoall(send, (int)n, MPI_BYTE, want, (int)n, MPI_BYTE, c);
    int rc;
    if (in_place) {
        memcpy(got, send, all);
        rc = xchg_mpi_alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, n, MPI_BYTE, c, o);
    } else {
        memset(got, 0xee, all);
        rc = xchg_mpi_alltoall(send, n, MPI_BYTE, got, n, MPI_BYTE, c, o);
    }
    check(rc == MPI_SUCCESS, in_place ? "in place: the call succeeds" : "the call succeeds", k, n);
    check(!memcmp(got, want, all), in_place ? "in place: as the library's" : "as the library's", k,
          n);
    xchg_mpi_plan_info info;
    if (n > 0 && xchg_mpi_last_info(&info) == MPI_SUCCESS) {
        int ran = strcmp(info.alg, "mpi") != 0;
        check(want_run == ran, want_run ? "the variant runs" : "the variant falls back", k, n);
        /* auto: node-aware only on several nodes of several ranks (where
         * its model says so), aggregate alone on unequal ones, and at small
         * blocks on some of them (main) */
        int aware = !strncmp(info.alg, "leader", 6) || !strncmp(info.alg, "pairs", 5) ||
                    !strcmp(info.alg, "aggregate");
        check(strcmp(variant, "auto") || !aware || auto_may,
              "auto: flat on one node and on nodes of one rank", k, n);
        check(strcmp(variant, "auto") || !aware || nodes_equal ||
                  !strcmp(info.alg, "aggregate"),
              "auto: on unequal nodes, aggregate or flat", k, n);
        auto_small_aware += !strcmp(variant, "auto") && n == 7 && aware;
        auto_unequal_aware += !strcmp(variant, "auto") && !nodes_equal && aware;
        check(!want_nodes[0] || (!aware && !strcmp(variant, "auto")) ||
                  strstr(info.why, want_nodes) != NULL,
              "the library's nodes, as many as its emulated ones", k, n);
        check(want_run || strstr(info.why, want_why) != NULL, "the fallback's reason", k, n);

        if (failures && want_run != ran && failures < 5)
            fprintf(stderr, "  %s: %s\n", info.alg, info.why);
    }
    free(send);
    free(got);
    free(want);
}

/* A derived datatype: count ints a block, every other int of the buffer. */
static void vector_case(MPI_Comm c, int count, const xchg_mpi_opts *o, int k)
{
    MPI_Datatype vec;
    MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    size_t ints = (size_t)wsize * 2 * (size_t)count;
    int *send = malloc(ints * sizeof *send), *got = malloc(ints * sizeof *got),
        *want = malloc(ints * sizeof *want);
    for (size_t i = 0; i < ints; i++) {
        send[i] = wrank * 100000 + (int)i;
        got[i] = want[i] = -1;
    }
    /* the vector's extent is 2 count - 1 ints: blocks of one vector each
     * sit that far apart, the last int of each stride a gap */
    PMPI_Alltoall(send, 1, vec, want, 1, vec, c);
    int rc = xchg_mpi_alltoall(send, 1, vec, got, 1, vec, c, o);
    check(rc == MPI_SUCCESS, "derived datatype: the call succeeds", k, count);
    check(!memcmp(got, want, ints * sizeof *got), "derived datatype: as the library's", k, count);
    MPI_Type_free(&vec);
    free(send);
    free(got);
    free(want);
}

/* The variants, and how many leaders a node each has (0: every rank;
 * -2: aggregate, every rank, on any nodes). */
static const struct {
    const char *spec;
    int leaders;
} variants[] = {{"leader", 1},    {"leader:bruck", 1},    {"leader:pairwise", 1},
                {"leaders:2", 2}, {"leaders:3:bruck", 3}, {"pairs", 0},
                {"pairs:bruck", 0}, {"aggregate", -2}, {"auto", -1}};

/* Every case on c, whose nodes hold from fewest to most ranks (most the
 * node size K asked for); how many variants ran. */
static int all_cases(MPI_Comm c, int k, int fewest, int most, long max)
{
    int ran = 0;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        xchg_mpi_opts o;
        xchg_mpi_opts_default(&o);
        o.alg = variant = variants[v].spec;
        /* auto's figures: a cluster's (CMake gives tests/mpi/cluster.machine
         * in the drop-in's variable, which the library's call does not read) */
        o.machine_file = getenv("XCHG_MACHINE_FILE");
        int l = variants[v].leaders, run = 1;
        const char *why = "";
        int nodes = (wsize - 1) / most + 1;
        /* on unequal nodes auto may take aggregate alone */
        auto_may = nodes > 1 && most > 1;
        nodes_equal = fewest == most;
        if (l == 0 && fewest != most)
            run = 0, why = "pairs needs equal nodes";
        int group = l > 0 ? (most + l - 1) / l : 1;
        if (l > 1 && l <= most && fewest <= (l - 1) * group)
            run = 0, why = "on every node";
        for (long n = 0; n <= max; n = n == 0 ? 1 : n == 1 ? 7 : n == 7 ? 64 : n == 64 ? 1000
                                                           : n == 1000 ? 4096 : 16 * n)
            for (int in_place = 0; in_place < 2; in_place++)
                bytes_case(c, n, in_place, &o, k, run, why);
        vector_case(c, 5, &o, k);
        ran += run;
    }
    return ran;
}

/* The network of nodes on 4 equal nodes of k ranks, block-wise: named
 * with the nodes' count (ring:4), or with the ranks' whose last
 * dimension is a node (mesh:2x2xK: mesh:2x2 of nodes), a schedule of that
 * network between them; a topology of neither count falls back, saying
 * why. */
static void topology_cases(MPI_Comm c, int k)
{
    const struct {
        const char *alg, *topology, *want; /* want: the plan's topology, or NULL */
    } cases[] = {{"leader:ring", "ring:4", "ring:4"},
                 {"pairs:mesh2", "mesh:2x2x%d", "mesh:2x2"},
                 {"leaders:2:bruck", "ring:5", NULL}};
    variant = "the network of nodes";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char topology[64];
        snprintf(topology, sizeof topology, cases[i].topology, k);
        xchg_mpi_opts o;
        xchg_mpi_opts_default(&o);
        o.alg = cases[i].alg;
        o.topology = topology;
        bytes_case(c, 64, 0, &o, k, cases[i].want != NULL, "has 5 nodes");
        xchg_mpi_plan_info info;
        if (cases[i].want && xchg_mpi_last_info(&info) == MPI_SUCCESS)
            check(!strcmp(info.topology, cases[i].want), cases[i].alg, k, 64);
    }
}

/* Node sizes from a comma-separated list into ks (at most 64); how many. */
static int parse_ks(const char *text, int *ks)
{
    int n = 0;
    for (const char *at = text; *at && n < 64;) {
        char *end;
        long k = strtol(at, &end, 10);
        if (end == at || k < 1)
            return 0;
        ks[n++] = (int)k;
        at = *end == ',' ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *placements[] = {"block", "cyclic"};
    int ran = 0, ks[64], nks = 0;
    long max = 4100;
    if (argc > 2 && !strcmp(argv[1], "shared")) {
        snprintf(want_nodes, sizeof want_nodes, "%d nodes of", atoi(argv[2]));
        /* nodes as the library groups shared memory (MPICH's emulated
         * nodes, MPIR_CVAR_NUM_CLIQUES, set by the caller to equal nodes) */
        unsetenv("XCHG_NODE_SIZE");
        int k = wsize / atoi(argv[2]);
        ran = all_cases(MPI_COMM_WORLD, k, k, k, max);
    } else {
        nks = argc > 1 ? parse_ks(argv[1], ks) : 0;
        if (argc > 1 && nks == 0) {
            if (wrank == 0)
                fprintf(stderr, "test_mpi_nodes: '%s' is not a list of node sizes\n", argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (argc > 2)
            max = atol(argv[2]);
        for (int k = 1; argc <= 1 && k <= wsize && nks < 64; k++)
            ks[nks++] = k;
    }
    for (int pl = 0; pl < 2 && !want_nodes[0]; pl++) {
        setenv("XCHG_NODE_PLACEMENT", placement = placements[pl], 1);
        for (int i = 0; i < nks; i++) {
            int k = ks[i] < wsize ? ks[i] : wsize;
            char v[16];
            snprintf(v, sizeof v, "%d", k);
            setenv("XCHG_NODE_SIZE", v, 1);
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c); /* a new communicator maps its nodes anew */
            /* block: nodes of k ranks, the last one holding the rest;
             * cyclic: ceil(p / k) nodes, the first p mod N holding one more */
            int nodes = (wsize - 1) / k + 1, most, fewest;
            if (pl == 0) {
                most = k;
                fewest = wsize - (nodes - 1) * k;
            } else {
                most = (wsize - 1) / nodes + 1;
                fewest = wsize / nodes;
            }
            ran += all_cases(c, k, fewest, most, max);
            if (pl == 0 && wsize == 4 * k)
                topology_cases(c, k);
            MPI_Comm_free(&c);
        }
    }
    check(ran > 0, "some variant ran", 0, ran);
    int eligible = 0; /* a layout of several equal nodes of several ranks */
    for (int i = 0; i < nks; i++)
        eligible |= ks[i] > 1 && ks[i] < wsize && wsize % ks[i] == 0;
    check(!eligible || want_nodes[0] || !getenv("XCHG_MACHINE_FILE") || auto_small_aware > 0,
          "auto: node-aware at 7-byte blocks somewhere", 0, auto_small_aware);
    int unequal = 0; /* a layout of several unequal nodes of several ranks,
                      * on enough ranks for aggregate to pay */
    for (int i = 0; wsize >= 8 && i < nks; i++)
        unequal |= ks[i] > 1 && ks[i] < wsize && wsize % ks[i] != 0;
    check(!unequal || want_nodes[0] || auto_unequal_aware > 0,
          "auto: aggregate on unequal nodes somewhere", 0, auto_unequal_aware);
    long fails = failures, all_fails = 0, all_checks = 0;
    MPI_Allreduce(&fails, &all_fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("test_mpi_nodes: %d ranks: %ld checks, %ld failed\n", wsize, all_checks,
               all_fails);
    MPI_Finalize();
    return all_fails ? 1 : 0;
}
