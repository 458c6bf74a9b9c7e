/*
 * test_mpi_nb.c - xchg's nonblocking and persistent exchanges
 * (xchg_mpi_ialltoall, _ialltoallv, _ialltoallw, _alltoall_init, _v, _w)
 * completed with the ordinary MPI calls libxchg_mpi defines (MPI_Wait,
 * MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test, MPI_Testall,
 * MPI_Testany, MPI_Testsome, MPI_Start, MPI_Startall, MPI_Request_free),
 * results against the library's blocking calls (PMPI_Alltoall,
 * PMPI_Alltoallv, PMPI_Alltoallw) bit for bit. Run under mpirun (CMake's
 * mpi_nb tests).
 *
 * What runs: blocks of 0, 1, 8, 100 and 5000 ints, in place and not; v
 * with random counts (zeros and a rank that sends nothing among them) and
 * a gapped vector type; w with a type per peer; two exchanges outstanding
 * on two communicators together with a ring of MPI_Isend/MPI_Irecv,
 * completed by one MPI_Waitall, and again by MPI_Waitany, MPI_Waitsome,
 * MPI_Testany and MPI_Testsome loops; persistent requests started ten
 * times with new data each time, waited for and tested while inactive,
 * two started in opposite orders on even and odd ranks (MPICH's p_order)
 * and completed by MPI_Waitall, freed inactive and freed active; the
 * library's own persistent collective after one of xchg's was freed; a
 * nonblocking request freed before it completes; computation between
 * start and wait; the counters (xchg_mpi_nb_call_counts) and, first, a
 * self-check: a result corrupted on purpose must be caught.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg_mpi.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

static int failures, checks;

static int check(MPI_Comm comm, int ok, const char *what)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    checks++;
    if (!all) {
        int r;
        MPI_Comm_rank(comm, &r);
        if (!ok)
            fprintf(stderr, "test_mpi_nb: FAIL (rank %d): %s\n", r, what);
        failures++;
    }
    return all;
}

static void fill(int *b, size_t n, int r, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (int)(r * 1000003 + (int)i * 7 + salt);
}

/* Ialltoall of n ints a block (in place or not) against PMPI_Alltoall. */
static void ialltoall_case(MPI_Comm comm, int n, int in_place, int salt)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * (all + 1)), *a = malloc(sizeof(int) * (all + 1)),
        *b = malloc(sizeof(int) * (all + 1));
    fill(s, all, r, salt);
    memcpy(a, s, sizeof(int) * all);
    MPI_Request q;
    int e = xchg_mpi_ialltoall(in_place ? MPI_IN_PLACE : s, n, MPI_INT, a, n, MPI_INT, comm, NULL,
                               &q);
    if (e == MPI_SUCCESS)
        e = MPI_Wait(&q, MPI_STATUS_IGNORE);
    PMPI_Alltoall(s, n, MPI_INT, b, n, MPI_INT, comm);
    char what[128];
    snprintf(what, sizeof what, "Ialltoall of %d ints%s", n, in_place ? " in place" : "");
    check(comm, e == MPI_SUCCESS && q == MPI_REQUEST_NULL && !memcmp(a, b, sizeof(int) * all),
          what);
    free(s), free(a), free(b);
}

/* The counts of one v case: ints i sends j. */
static int vcount(int i, int j, int salt)
{
    if (i == 1 || j == 1)
        return 0; /* rank 1 sends and receives nothing */
    return (i * 7 + j * 3 + salt) % 5;
}

/* Ialltoallv with a gapped vector type (or MPI_INT) against PMPI_Alltoallv,
 * completed by MPI_Test in a loop. */
static void ialltoallv_case(MPI_Comm comm, MPI_Datatype t, int ints, int salt)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    int *sc = malloc(sizeof(int) * 4 * (size_t)p), *sd = sc + p, *rc = sc + 2 * p, *rd = sc + 3 * p;
    int st = 0, rt = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = vcount(r, j, salt), sd[j] = st, st += sc[j] + 1;
        rc[j] = vcount(j, r, salt), rd[j] = rt, rt += rc[j] + 2;
    }
    size_t sints = (size_t)st * (size_t)ext / sizeof(int) + 1,
           rints = (size_t)rt * (size_t)ext / sizeof(int) + 1;
    int *s = malloc(sizeof(int) * sints), *a = malloc(sizeof(int) * rints),
        *b = malloc(sizeof(int) * rints);
    fill(s, sints, r, salt);
    memset(a, 0, sizeof(int) * rints), memset(b, 0, sizeof(int) * rints);
    MPI_Request q;
    int e = xchg_mpi_ialltoallv(s, sc, sd, t, a, rc, rd, t, comm, NULL, &q), flag = 0;
    while (e == MPI_SUCCESS && !flag)
        e = MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    PMPI_Alltoallv(s, sc, sd, t, b, rc, rd, t, comm);
    char what[128];
    snprintf(what, sizeof what, "Ialltoallv (%d-int type) by MPI_Test", ints);
    check(comm, e == MPI_SUCCESS && !memcmp(a, b, sizeof(int) * rints), what);
    free(sc), free(s), free(a), free(b);
}

/* Ialltoallw with a type per peer: block j of n ints as MPI_INT,
 * contiguous 4-int units or 2-int units, alternating. */
static void ialltoallw_case(MPI_Comm comm, MPI_Datatype t4, MPI_Datatype t2)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *sc = malloc(sizeof(int) * 4 * (size_t)p), *sd = sc + p, *rc = sc + 2 * p, *rd = sc + 3 * p;
    MPI_Datatype *sty = malloc(sizeof(MPI_Datatype) * 2 * (size_t)p), *rty = sty + p;
    MPI_Datatype ts[3] = {MPI_INT, t4, t2};
    int per[3] = {1, 4, 2};
    for (int j = 0; j < p; j++) {
        int ks = (r + j) % 3, kr = (j + r + 1) % 3, n = 4 * (1 + (r + j) % 3);
        sty[j] = ts[ks], sc[j] = n / per[ks], sd[j] = (int)(j * 12 * sizeof(int));
        rty[j] = ts[kr], rc[j] = n / per[kr], rd[j] = (int)(j * 12 * sizeof(int));
    }
    size_t ints = (size_t)p * 12;
    int *s = malloc(sizeof(int) * ints), *a = calloc(ints, sizeof(int)),
        *b = calloc(ints, sizeof(int));
    fill(s, ints, r, 3);
    MPI_Request q;
    int e = xchg_mpi_ialltoallw(s, sc, sd, sty, a, rc, rd, rty, comm, NULL, &q);
    if (e == MPI_SUCCESS)
        e = MPI_Wait(&q, MPI_STATUS_IGNORE);
    PMPI_Alltoallw(s, sc, sd, sty, b, rc, rd, rty, comm);
    check(comm, e == MPI_SUCCESS && !memcmp(a, b, sizeof(int) * ints),
          "Ialltoallw with a type per peer");
    free(sc), free(sty), free(s), free(a), free(b);
}

/* Two exchanges on two communicators and a ring of point-to-point
 * messages, completed together: how = 0 Waitall, 1 Waitany, 2 Waitsome,
 * 3 Testany, 4 Testsome, 5 Testall. */
static void mixed_case(MPI_Comm c1, MPI_Comm c2, int how)
{
    int p, r;
    MPI_Comm_size(c1, &p);
    MPI_Comm_rank(c1, &r);
    int n = 3 + how;
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * all), *a1 = malloc(sizeof(int) * all),
        *a2 = malloc(sizeof(int) * all), *b = malloc(sizeof(int) * all);
    fill(s, all, r, how);
    int token = r * 10 + how, got = -1;
    MPI_Request q[4];
    int e = xchg_mpi_ialltoall(s, n, MPI_INT, a1, n, MPI_INT, c1, NULL, &q[0]);
    MPI_Irecv(&got, 1, MPI_INT, (r + p - 1) % p, 77, c1, &q[1]);
    if (e == MPI_SUCCESS)
        e = xchg_mpi_ialltoall(s, n, MPI_INT, a2, n, MPI_INT, c2, NULL, &q[2]);
    MPI_Isend(&token, 1, MPI_INT, (r + 1) % p, 77, c1, &q[3]);
    int left = 4, flag, idx, out, ind[4];
    MPI_Status st[4];
    while (e == MPI_SUCCESS && left > 0) {
        switch (how) {
        case 0: e = MPI_Waitall(4, q, st), left = 0; break;
        case 1: e = MPI_Waitany(4, q, &idx, &st[0]), left -= idx != MPI_UNDEFINED; break;
        case 2: e = MPI_Waitsome(4, q, &out, ind, st), left -= out == MPI_UNDEFINED ? left : out; break;
        case 3:
            e = MPI_Testany(4, q, &idx, &flag, &st[0]);
            left -= flag && idx != MPI_UNDEFINED;
            break;
        case 4:
            e = MPI_Testsome(4, q, &out, ind, st);
            left -= out == MPI_UNDEFINED ? left : out;
            break;
        default: e = MPI_Testall(4, q, &flag, st), left = flag ? 0 : left; break;
        }
    }
    int *b2 = malloc(sizeof(int) * all);
    PMPI_Alltoall(s, n, MPI_INT, b, n, MPI_INT, c1);
    PMPI_Alltoall(s, n, MPI_INT, b2, n, MPI_INT, c2); /* c2's ranks are in another order */
    int ok = e == MPI_SUCCESS && !memcmp(a1, b, sizeof(int) * all) &&
             !memcmp(a2, b2, sizeof(int) * all) && got == ((r + p - 1) % p) * 10 + how;
    free(b2);
    for (int i = 0; i < 4; i++)
        ok &= q[i] == MPI_REQUEST_NULL;
    static const char *names[] = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
                                  "MPI_Testany", "MPI_Testsome", "MPI_Testall"};
    char what[160];
    snprintf(what, sizeof what, "two exchanges and a ring of messages completed by %s",
             names[how]);
    check(c1, ok, what);
    free(s), free(a1), free(a2), free(b);
}

/* Persistent: made once, started ten times with new data, inactive waits
 * and tests return at once, freed. */
static void persistent_case(MPI_Comm comm, int n, int in_place, int v)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * (all + 1)), *a = malloc(sizeof(int) * (all + 1)),
        *b = malloc(sizeof(int) * (all + 1));
    int *cnt = malloc(sizeof(int) * 2 * (size_t)p), *dsp = cnt + p;
    for (int j = 0; j < p; j++)
        cnt[j] = n, dsp[j] = j * n;
    MPI_Request q;
    const void *send = in_place ? MPI_IN_PLACE : s;
    int e = v ? xchg_mpi_alltoallv_init(send, cnt, dsp, MPI_INT, a, cnt, dsp, MPI_INT, comm,
                                        MPI_INFO_NULL, NULL, &q)
              : xchg_mpi_alltoall_init(send, n, MPI_INT, a, n, MPI_INT, comm, MPI_INFO_NULL,
                                       NULL, &q);
    int ok = e == MPI_SUCCESS, flag = 0;
    /* inactive: at once, and the handle stays */
    ok &= MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS && q != MPI_REQUEST_NULL;
    ok &= MPI_Test(&q, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
    for (int k = 0; k < 10 && ok; k++) {
        fill(s, all, r, k * 31);
        if (in_place)
            memcpy(a, s, sizeof(int) * all);
        ok &= MPI_Start(&q) == MPI_SUCCESS;
        if (k % 2)
            ok &= MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        else
            for (flag = 0; ok && !flag;)
                ok &= MPI_Test(&q, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        PMPI_Alltoall(s, n, MPI_INT, b, n, MPI_INT, comm);
        ok &= q != MPI_REQUEST_NULL && !memcmp(a, b, sizeof(int) * all);
    }
    ok &= MPI_Request_free(&q) == MPI_SUCCESS && q == MPI_REQUEST_NULL;
    char what[128];
    snprintf(what, sizeof what, "persistent %s of %d ints%s, started 10 times",
             v ? "alltoallv" : "alltoall", n, in_place ? " in place" : "");
    check(comm, ok, what);
    free(s), free(a), free(b), free(cnt);
}

/* The library's own persistent collective after one of xchg's persistent
 * requests was freed, twice: it must complete (MPICH 4.0.2 never completes
 * it when the freed request was a persistent send to MPI_PROC_NULL, which
 * xchg's handles once were; request.h). Tested by MPI_Test for at most
 * 20 s, so a hang fails the case instead of the test's time limit. */
static void library_persistent_after(MPI_Comm comm)
{
#if MPI_VERSION >= 4 || (defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ)
    int p, ok = 1;
    MPI_Comm_size(comm, &p);
    int *s = calloc((size_t)p, sizeof(int)), *a = calloc((size_t)p, sizeof(int)), v = 0;
    for (int round = 0; round < 2 && ok; round++) {
        MPI_Request mine, lib;
        ok &= xchg_mpi_alltoall_init(s, 1, MPI_INT, a, 1, MPI_INT, comm, MPI_INFO_NULL, NULL,
                                     &mine) == MPI_SUCCESS;
#if MPI_VERSION >= 4
        ok &= PMPI_Bcast_init(&v, 1, MPI_INT, 0, comm, MPI_INFO_NULL, &lib) == MPI_SUCCESS;
#else
        ok &= MPIX_Bcast_init(&v, 1, MPI_INT, 0, comm, MPI_INFO_NULL, &lib) == MPI_SUCCESS;
#endif
        ok &= MPI_Request_free(&mine) == MPI_SUCCESS;
        ok &= MPI_Start(&lib) == MPI_SUCCESS;
        int flag = 0;
        for (double t0 = MPI_Wtime(); ok && !flag && MPI_Wtime() - t0 < 20;)
            ok &= MPI_Test(&lib, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok &= flag;
        if (flag)
            MPI_Request_free(&lib);
    }
    check(comm, ok, "the library's persistent MPI_Bcast_init completes after xchg's persistent "
                    "request was freed");
    free(s), free(a);
#else
    (void)comm;
#endif
}

/* Two persistent requests started in opposite orders on even and odd
 * ranks, completed by one MPI_Waitall, three times; then one freed while
 * active. */
static void order_case(MPI_Comm comm)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int n = 5;
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * all), *a = malloc(sizeof(int) * all),
        *c = malloc(sizeof(int) * all), *b = malloc(sizeof(int) * all);
    MPI_Request q[2];
    int ok = xchg_mpi_alltoall_init(s, n, MPI_INT, a, n, MPI_INT, comm, MPI_INFO_NULL, NULL,
                                    &q[0]) == MPI_SUCCESS &&
             xchg_mpi_alltoall_init(s, 2, MPI_INT, c, 2, MPI_INT, comm, MPI_INFO_NULL, NULL,
                                    &q[1]) == MPI_SUCCESS;
    for (int k = 0; k < 3 && ok; k++) {
        fill(s, all, r, k);
        if (r % 2) {
            MPI_Start(&q[1]);
            MPI_Start(&q[0]);
        } else {
            MPI_Startall(2, q);
        }
        MPI_Status st[2];
        ok &= MPI_Waitall(2, q, st) == MPI_SUCCESS;
        PMPI_Alltoall(s, n, MPI_INT, b, n, MPI_INT, comm);
        ok &= !memcmp(a, b, sizeof(int) * all);
        PMPI_Alltoall(s, 2, MPI_INT, b, 2, MPI_INT, comm);
        ok &= !memcmp(c, b, sizeof(int) * 2 * (size_t)p);
    }
    /* freed while active: it completes on its own; the other waited */
    MPI_Startall(2, q);
    ok &= MPI_Request_free(&q[0]) == MPI_SUCCESS && q[0] == MPI_REQUEST_NULL;
    ok &= MPI_Wait(&q[1], MPI_STATUS_IGNORE) == MPI_SUCCESS;
    MPI_Request_free(&q[1]);
    PMPI_Barrier(comm);
    check(comm, ok, "two persistent requests started in opposite orders (p_order)");
    free(s), free(a), free(c), free(b);
}

/* A nonblocking request freed before it completes, and computation while
 * another is pending. */
static void free_and_overlap(MPI_Comm comm)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int n = 1000;
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * all), *a = malloc(sizeof(int) * all),
        *b = malloc(sizeof(int) * all);
    fill(s, all, r, 9);
    MPI_Request q;
    int ok = xchg_mpi_ialltoall(s, n, MPI_INT, a, n, MPI_INT, comm, NULL, &q) == MPI_SUCCESS;
    ok &= MPI_Request_free(&q) == MPI_SUCCESS && q == MPI_REQUEST_NULL;
    /* a later call on the communicator, and waits, move it to its end */
    ok &= xchg_mpi_ialltoall(s, n, MPI_INT, b, n, MPI_INT, comm, NULL, &q) == MPI_SUCCESS;
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++) /* computation while it is pending */
        x += i * 0.5;
    ok &= MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    int *c = malloc(sizeof(int) * all);
    PMPI_Alltoall(s, n, MPI_INT, c, n, MPI_INT, comm);
    ok &= !memcmp(b, c, sizeof(int) * all);
    /* the freed one's data: MPI gives no way to know when it is home */
    check(comm, ok, "a request freed before completion; computation while one is pending");
    free(s), free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    /* self-check: a result corrupted on purpose fails the comparison the
     * cases use */
    {
        int n = 2, all = 0;
        int *s = malloc(sizeof(int) * 2 * (size_t)p), *a = malloc(sizeof(int) * 2 * (size_t)p),
            *b = malloc(sizeof(int) * 2 * (size_t)p);
        fill(s, 2 * (size_t)p, r, 1);
        MPI_Request q;
        xchg_mpi_ialltoall(s, n, MPI_INT, a, n, MPI_INT, MPI_COMM_WORLD, NULL, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        PMPI_Alltoall(s, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
        a[0] ^= 1; /* on purpose */
        int same = !memcmp(a, b, sizeof(int) * 2 * (size_t)p);
        PMPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        checks++;
        if (all) {
            fprintf(stderr, "test_mpi_nb: the self-check's corrupted result was not caught\n");
            failures++;
        }
        free(s), free(a), free(b);
    }
    uint64_t c0 = 0, p0 = 0, c1 = 0, p1 = 0;
    xchg_mpi_nb_call_counts(&c0, &p0);
    int sizes[] = {0, 1, 8, 100, 5000};
    for (int i = 0; i < 5; i++)
        for (int ip = 0; ip < 2; ip++)
            ialltoall_case(MPI_COMM_WORLD, sizes[i], ip, i);
    xchg_mpi_nb_call_counts(&c1, &p1);
    check(MPI_COMM_WORLD, c1 - c0 == 10 && p1 == p0, "10 Ialltoall counted as carried");
    MPI_Datatype v, gap, t4, t2;
    MPI_Type_vector(1, 2, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 3 * (MPI_Aint)sizeof(int), &gap);
    MPI_Type_commit(&gap);
    MPI_Type_free(&v);
    MPI_Type_contiguous(4, MPI_INT, &t4);
    MPI_Type_commit(&t4);
    MPI_Type_contiguous(2, MPI_INT, &t2);
    MPI_Type_commit(&t2);
    for (int salt = 0; salt < 3; salt++) {
        ialltoallv_case(MPI_COMM_WORLD, MPI_INT, 1, salt);
        ialltoallv_case(MPI_COMM_WORLD, gap, 2, salt);
    }
    ialltoallw_case(MPI_COMM_WORLD, t4, t2);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - r, &rev);
    for (int how = 0; how < 6; how++)
        mixed_case(MPI_COMM_WORLD, rev, how);
    for (int ip = 0; ip < 2; ip++) {
        persistent_case(MPI_COMM_WORLD, 4, ip, 0);
        persistent_case(MPI_COMM_WORLD, 3000, ip, 0);
        persistent_case(rev, 7, ip, 1);
    }
    order_case(MPI_COMM_WORLD);
    library_persistent_after(MPI_COMM_WORLD);
    free_and_overlap(MPI_COMM_WORLD);
    MPI_Comm_free(&rev);
    MPI_Type_free(&gap), MPI_Type_free(&t4), MPI_Type_free(&t2);
    if (r == 0)
        printf("test_mpi_nb: p=%d: %d checks, %d failed\n", p, checks, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
