/*
 * dropin_fortran.c - the drop-in for Fortran callers where the MPI library's
 * Fortran binding bypasses the C MPI_Alltoall (docs/mpi.md).
 *
 * How each binding reaches the C layer (checked with nm/objdump on Open MPI
 * 4.1.4 and MPICH 4.0.2, and by running Fortran programs under a C-only
 * interposer):
 *   MPICH, mpif.h / use mpi / use mpi_f08: mpi_alltoall_ and
 *     mpi_alltoall_f08ts_ call the C MPI_Alltoall, so dropin.c carries them.
 *     mpi_finalize_ calls the C MPI_Finalize, but MPICH 4's mpi_finalize_f08_
 *     calls PMPI_Finalize: this file defines mpi_finalize_f08_ (ierror
 *     optional, NULL when absent) so an f08 program gets the totals line.
 *     The f08 large-count routine (mpi_alltoall_f08ts_large_) calls
 *     MPI_Alltoall_c, which xchg does not interpose: those calls go to the
 *     MPI library unseen and uncounted.
 *   Open MPI, mpif.h / use mpi: mpi_alltoall_ (and mpi_alltoall, mpi_alltoall__,
 *     MPI_ALLTOALL) call PMPI_Alltoall, and mpi_finalize_ PMPI_Finalize, so a
 *     C interposer never sees them: this file defines those symbols.
 *   Open MPI 4.x, use mpi_f08: mpi_alltoall_f08_ forwards its arguments
 *     unchanged (buffer addresses, handles as MPI_Fint, ierror NULL when
 *     absent) to the mpif.h routine, which calls PMPI_Alltoall; this file
 *     defines mpi_alltoall_f08_ and mpi_finalize_f08_ with that ABI. Open MPI
 *     5's f08 layer has not been checked, so they are defined for Open MPI 4
 *     only; under Open MPI 5 f08 calls go to the MPI library uncounted.
 * The other operations' Fortran entry points are in dropin_fortran_ops.c,
 * for the same reasons and with the same ABI.
 * Fortran's MPI_IN_PLACE and MPI_BOTTOM are, in Open MPI, the addresses of
 * the common blocks mpi_fortran_in_place / mpi_fortran_bottom (under the
 * compiler's name mangling); they are declared weak so a missing spelling
 * resolves to NULL and is never matched.
 */
#include <stddef.h>

#include "mpi/dropin_internal.h"

#if defined(OPEN_MPI) && OPEN_MPI

/* Open MPI's Fortran sentinels, in every mangling it may use. */
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));

/* The Fortran entry points (no header declares them). */
void mpi_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                   MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoall__(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr);
void MPI_ALLTOALL(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *comm, MPI_Fint *ierr);
void mpi_finalize(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize__(MPI_Fint *ierr);
void MPI_FINALIZE(MPI_Fint *ierr);

/* True when p is the address of one of the given (weak, maybe NULL) symbols. */
static int is_sentinel(const void *p, const void *a, const void *b, const void *c,
                       const void *d)
{
    return p != NULL && (p == a || p == b || p == c || p == d);
}

/* dropin_internal.h: dropin_fortran_ops.c uses it too. */
void *xchg_dropin_c_buffer(void *p, int in_place_allowed)
{
    if (in_place_allowed && is_sentinel(p, &mpi_fortran_in_place, &mpi_fortran_in_place_,
                                        &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE))
        return MPI_IN_PLACE;
    if (is_sentinel(p, &mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__,
                    &MPI_FORTRAN_BOTTOM))
        return MPI_BOTTOM;
    return p;
}

/* MPI_ALLTOALL from Fortran: handles through PMPI_*_f2c, sentinels to their
 * C values, the error code into *ierr (absent, NULL, for an f08 caller that
 * did not pass ierror). */
static void alltoall_f(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                       MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    int code = xchg_dropin_alltoall(xchg_dropin_c_buffer(sb, 1), (MPI_Count)*sc,
                                    PMPI_Type_f2c(*st), xchg_dropin_c_buffer(rb, 0),
                                    (MPI_Count)*rc, PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));
    if (ierr != NULL)
        *ierr = (MPI_Fint)code;
}

static void finalize_f(MPI_Fint *ierr)
{
    int code = xchg_dropin_finalize();
    if (ierr != NULL)
        *ierr = (MPI_Fint)code;
}

void mpi_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *comm, MPI_Fint *ierr)
{
    alltoall_f(sb, sc, st, rb, rc, rt, comm, ierr);
}

void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                   MPI_Fint *comm, MPI_Fint *ierr)
{
    alltoall_f(sb, sc, st, rb, rc, rt, comm, ierr);
}

void mpi_alltoall__(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    alltoall_f(sb, sc, st, rb, rc, rt, comm, ierr);
}

void MPI_ALLTOALL(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *comm, MPI_Fint *ierr)
{
    alltoall_f(sb, sc, st, rb, rc, rt, comm, ierr);
}

void mpi_finalize(MPI_Fint *ierr) { finalize_f(ierr); }
void mpi_finalize_(MPI_Fint *ierr) { finalize_f(ierr); }
void mpi_finalize__(MPI_Fint *ierr) { finalize_f(ierr); }
void MPI_FINALIZE(MPI_Fint *ierr) { finalize_f(ierr); }

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
/* use mpi_f08 (gfortran's mangling): same arguments, ierror optional. */
void mpi_alltoall_f08_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                       MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_finalize_f08_(MPI_Fint *ierr);

void mpi_alltoall_f08_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                       MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    alltoall_f(sb, sc, st, rb, rc, rt, comm, ierr);
}

void mpi_finalize_f08_(MPI_Fint *ierr) { finalize_f(ierr); }
#endif

#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && MPICH_NUMVERSION < 50000000

/* use mpi_f08's MPI_Finalize (gfortran's mangling); ierror optional. */
void mpi_finalize_f08_(MPI_Fint *ierr);

void mpi_finalize_f08_(MPI_Fint *ierr)
{
    int code = xchg_dropin_finalize();
    if (ierr != NULL)
        *ierr = (MPI_Fint)code;
}

#else
/* Other MPIs: their Fortran bindings are assumed to call the C functions of
 * dropin.c (untested). */
typedef int xchg_dropin_fortran_unused;
#endif
