/*
 * test_mpi_nodes.c - the exchange through one leader a node ("leader",
 * src/mpi/leader.c) against the MPI library's own MPI_Alltoall, byte for
 * byte, on nodes emulated with XCHG_NODE_SIZE (set here before each
 * communicator is made: the executor maps a communicator's nodes once).
 * Run by CMake's mpi_nodes on 6 and on 8 ranks (6 under MPICH):
 *  - every node size K from 1 to p, ranks placed block-wise and cyclic
 *    (XCHG_NODE_PLACEMENT; cyclic deals the ranks over ceil(p / K) nodes);
 *  - what the leaders run between nodes: auto, bruck and pairwise;
 *  - blocks of 0 to 4,100 bytes, in place and not, and a derived datatype
 *    (ints with gaps);
 *  - where the nodes are unequal the call must be the MPI library's,
 *    saying why, and still right; where they are equal it must run
 *    "leader".
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

static void check(int ok, const char *what, int k, long n)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 20)
            fprintf(stderr, "FAIL (rank %d): %s (K %d, %ld)\n", wrank, what, k, n);
    }
}

/* The byte rank `from` sends rank `to` at index i of a block. */
static unsigned char byte(int from, int to, long i)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13 + 1);
}

/* One exchange of n bytes a block through opts on c, in place or not,
 * against the library's; and whether the plan ran leader (1) or fell
 * back (0) as it should. */
static void bytes_case(MPI_Comm c, long n, int in_place, const xchg_mpi_opts *o, int k,
                       int want_leader)
{
    size_t all = (size_t)wsize * (size_t)n;
    unsigned char *send = malloc(all + 1), *got = malloc(all + 1), *want = malloc(all + 1);
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
        check(want_leader == !strncmp(info.alg, "leader", 6), "ran leader where nodes are equal",
              k, n);
        check(want_leader || strstr(info.why, "different numbers of ranks") != NULL,
              "unequal nodes: the reason", k, n);
        check(!want_nodes[0] || strstr(info.why, want_nodes) != NULL,
              "the library's nodes, as many as its emulated ones", k, n);
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

/* Every case on c, with each of what the leaders may run between nodes;
 * how many of them ran leader. */
static int all_cases(MPI_Comm c, int k, int want_leader)
{
    const char *inners[] = {"leader", "leader:bruck", "leader:pairwise"};
    const long sizes[] = {0, 1, 7, 64, 1000, 4100};
    for (int a = 0; a < 3; a++) {
        xchg_mpi_opts o;
        xchg_mpi_opts_default(&o);
        o.alg = inners[a];
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int in_place = 0; in_place < 2; in_place++)
                bytes_case(c, sizes[s], in_place, &o, k, want_leader);
        vector_case(c, 5, &o, k);
    }
    return want_leader ? 3 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *placements[] = {"block", "cyclic"};
    int leader_calls = 0;
    if (argc > 2 && !strcmp(argv[1], "shared")) {
        snprintf(want_nodes, sizeof want_nodes, "%d nodes of", atoi(argv[2]));
        /* nodes as the library groups shared memory (MPICH's emulated
         * nodes, MPIR_CVAR_NUM_CLIQUES, set by the caller to equal nodes) */
        unsetenv("XCHG_NODE_SIZE");
        leader_calls = all_cases(MPI_COMM_WORLD, 0, 1);
    }
    for (int pl = 0; pl < 2 && !want_nodes[0]; pl++) {
        setenv("XCHG_NODE_PLACEMENT", placements[pl], 1);
        for (int k = 1; k <= wsize; k++) {
            char v[16];
            snprintf(v, sizeof v, "%d", k);
            setenv("XCHG_NODE_SIZE", v, 1);
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c); /* a new communicator maps its nodes anew */
            /* block: nodes of k ranks, the last one short unless k divides
             * p; cyclic: ceil(p / k) nodes, equal when their count divides p */
            int nodes = (wsize - 1) / k + 1;
            leader_calls += all_cases(c, k, pl == 0 ? wsize % k == 0 : wsize % nodes == 0);
            MPI_Comm_free(&c);
        }
    }
    check(leader_calls > 0, "some node sizes divide p", 0, leader_calls);
    long fails = failures, all_fails = 0, all_checks = 0;
    MPI_Allreduce(&fails, &all_fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("test_mpi_nodes: %d ranks: %ld checks, %ld failed\n", wsize, all_checks, all_fails);
    MPI_Finalize();
    return all_fails ? 1 : 0;
}
