/*
 * dropin_fortran_ops.c - the drop-in's other operations for Fortran callers
 * under Open MPI, whose `mpif.h` / `use mpi` routines (mpi_bcast_, ...)
 * call PMPI_Bcast, ... directly, so a C interposer never sees them
 * (dropin_fortran.c says how each binding reaches the C layer; MPICH's
 * Fortran routines call the C functions, which dropin_ops.c carries).
 *
 * Each routine below converts its handles (PMPI_*_f2c) and Open MPI's
 * MPI_IN_PLACE and MPI_BOTTOM sentinels (xchg_dropin_c_buffer), calls the
 * drop-in's C function (dropin_ops.c: xchg's executor, or the MPI
 * library's call when xchg is off), and writes the error code into ierr.
 * MPI_Alltoallv and MPI_Alltoallw too (their count arrays are the C
 * calls', Fortran integers being C ints there; w's type handles are
 * converted one a peer). Every spelling gfortran and other compilers may
 * use is defined: name,
 * name_, name__ and NAME. Open MPI 4's `use mpi_f08` routines
 * (mpi_bcast_f08_, ...) take the same arguments, a handle type being one
 * integer passed by reference, with ierror optional (NULL when absent), as
 * mpi_alltoall_f08_ does (dropin_fortran.c): they are defined too. Open MPI
 * 5's f08 layer has not been checked: there they go to the library unseen.
 */
#include <stddef.h>
#include <stdlib.h>

#include "mpi/dropin_internal.h"

#if defined(OPEN_MPI) && OPEN_MPI

#define BUF(p) xchg_dropin_c_buffer((p), 0)
#define BUF_OR_IN_PLACE(p) xchg_dropin_c_buffer((p), 1)

static void set_ierr(MPI_Fint *ierr, int code)
{
    if (ierr != NULL)
        *ierr = (MPI_Fint)code;
}

static void bcast_f(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm,
                    MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Bcast(BUF(b), (int)*n, PMPI_Type_f2c(*t), (int)*root, PMPI_Comm_f2c(*comm)));
}

static void reduce_f(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Reduce(BUF_OR_IN_PLACE(sb), BUF(rb), (int)*n, PMPI_Type_f2c(*t),
                              PMPI_Op_f2c(*op), (int)*root, PMPI_Comm_f2c(*comm)));
}

static void allreduce_f(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                        MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Allreduce(BUF_OR_IN_PLACE(sb), BUF(rb), (int)*n, PMPI_Type_f2c(*t),
                                 PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

static void reduce_scatter_block_f(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
                                   MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr,
             MPI_Reduce_scatter_block(BUF_OR_IN_PLACE(sb), BUF(rb), (int)*n, PMPI_Type_f2c(*t),
                                      PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

static void scan_f(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                   MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Scan(BUF_OR_IN_PLACE(sb), BUF(rb), (int)*n, PMPI_Type_f2c(*t),
                            PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

static void allgather_f(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Allgather(BUF_OR_IN_PLACE(sb), (int)*sc, PMPI_Type_f2c(*st), BUF(rb),
                                 (int)*rc, PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm)));
}

static void gather_f(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Gather(BUF_OR_IN_PLACE(sb), (int)*sc, PMPI_Type_f2c(*st), BUF(rb), (int)*rc,
                              PMPI_Type_f2c(*rt), (int)*root, PMPI_Comm_f2c(*comm)));
}

static void scatter_f(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Scatter(BUF(sb), (int)*sc, PMPI_Type_f2c(*st), BUF_OR_IN_PLACE(rb), (int)*rc,
                               PMPI_Type_f2c(*rt), (int)*root, PMPI_Comm_f2c(*comm)));
}

/* MPI_Fint arrays are the C calls' int arrays where the two are one type
 * (Open MPI's); elsewhere these routines are not defined. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran integers are C ints");

static void alltoallv_f(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
                        MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Alltoallv(BUF_OR_IN_PLACE(sb), (const int *)sc, (const int *)sd,
                                 PMPI_Type_f2c(*st), BUF(rb), (const int *)rc, (const int *)rd,
                                 PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm)));
}

/* w: each peer's type handle converted (the peers: the remote group's of
 * an intercommunicator). */
static void alltoallw_f(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
                        MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    int inter = 0, n = 0;
    int code = PMPI_Comm_test_inter(c, &inter);
    if (code == MPI_SUCCESS)
        code = inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n);
    MPI_Datatype *types = code == MPI_SUCCESS ? malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *types)
                                              : NULL;
    void *send = BUF_OR_IN_PLACE(sb);
    if (code == MPI_SUCCESS && !types)
        code = MPI_ERR_NO_MEM;
    if (code == MPI_SUCCESS) {
        for (int j = 0; j < n; j++) {
            types[j] = send == MPI_IN_PLACE ? MPI_DATATYPE_NULL : PMPI_Type_f2c(st[j]);
            types[n + j] = PMPI_Type_f2c(rt[j]);
        }
        code = MPI_Alltoallw(send, (const int *)sc, (const int *)sd, types, BUF(rb),
                             (const int *)rc, (const int *)rd, types + n, c);
    }
    free(types);
    set_ierr(ierr, code);
}

/* Open MPI 4's `use mpi_f08` spelling of a routine (see the top). */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define F08_NAME(lower, params, call)                                                              \
    void lower##_f08_ params;                                                                      \
    void lower##_f08_ params                                                                       \
    {                                                                                              \
        call;                                                                                      \
    }
#else
#define F08_NAME(lower, params, call)
#endif

/* The four spellings of one Fortran routine, each a declaration (no header
 * has them) and a definition that calls `call`, and its f08 one. */
#define FORTRAN_NAMES(lower, upper, params, call)                                                  \
    F08_NAME(lower, params, call)                                                                  \
    void lower params;                                                                             \
    void lower##_ params;                                                                          \
    void lower##__ params;                                                                         \
    void upper params;                                                                             \
    void lower params                                                                              \
    {                                                                                              \
        call;                                                                                      \
    }                                                                                              \
    void lower##_ params                                                                           \
    {                                                                                              \
        call;                                                                                      \
    }                                                                                              \
    void lower##__ params                                                                          \
    {                                                                                              \
        call;                                                                                      \
    }                                                                                              \
    void upper params                                                                              \
    {                                                                                              \
        call;                                                                                      \
    }

FORTRAN_NAMES(mpi_bcast, MPI_BCAST,
              (void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              bcast_f(b, n, t, root, comm, ierr))
FORTRAN_NAMES(mpi_reduce, MPI_REDUCE,
              (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *root,
               MPI_Fint *comm, MPI_Fint *ierr),
              reduce_f(sb, rb, n, t, op, root, comm, ierr))
FORTRAN_NAMES(mpi_allreduce, MPI_ALLREDUCE,
              (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              allreduce_f(sb, rb, n, t, op, comm, ierr))
FORTRAN_NAMES(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
              (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              reduce_scatter_block_f(sb, rb, n, t, op, comm, ierr))
FORTRAN_NAMES(mpi_scan, MPI_SCAN,
              (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr),
              scan_f(sb, rb, n, t, op, comm, ierr))
FORTRAN_NAMES(mpi_allgather, MPI_ALLGATHER,
              (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
               MPI_Fint *comm, MPI_Fint *ierr),
              allgather_f(sb, sc, st, rb, rc, rt, comm, ierr))
FORTRAN_NAMES(mpi_gather, MPI_GATHER,
              (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
               MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              gather_f(sb, sc, st, rb, rc, rt, root, comm, ierr))
FORTRAN_NAMES(mpi_scatter, MPI_SCATTER,
              (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
               MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
              scatter_f(sb, sc, st, rb, rc, rt, root, comm, ierr))
FORTRAN_NAMES(mpi_alltoallv, MPI_ALLTOALLV,
              (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc,
               MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr),
              alltoallv_f(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr))
FORTRAN_NAMES(mpi_alltoallw, MPI_ALLTOALLW,
              (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc,
               MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr),
              alltoallw_f(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr))

#else
/* Other MPIs: their Fortran bindings are assumed to call the C functions of
 * dropin_ops.c (MPICH's do). */
typedef int xchg_dropin_fortran_ops_unused;
#endif
