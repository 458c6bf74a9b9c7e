/*
 * dropin_internal.h - what the drop-in's files share (dropin.c,
 * dropin_ops.c, dropin_large.c, dropin_fortran.c, dropin_fortran_ops.c):
 * the hidden entry points dropin.c and dropin_fortran.c define, and the
 * body of every stand-in for another operation's call.
 */
#ifndef XCHG_DROPIN_INTERNAL_H
#define XCHG_DROPIN_INTERNAL_H

#include <mpi.h>

#include "xchg_mpi.h"

#define XCHG_DROPIN_API __attribute__((visibility("hidden")))

/* dropin.c: MPI_Alltoall's one path (counts widened to MPI_Count), and
 * MPI_Finalize's work. */
XCHG_DROPIN_API int xchg_dropin_alltoall(const void *sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm);
XCHG_DROPIN_API int xchg_dropin_finalize(void);

/* dropin.c: the environment's options when a call of another operation
 * goes through xchg (call xchg_dropin_leave after it), or NULL when it
 * goes to the MPI library (counted as passed). */
XCHG_DROPIN_API const xchg_mpi_opts *xchg_dropin_enter(void);
XCHG_DROPIN_API void xchg_dropin_leave(void);
/* dropin.c: the same for MPI_Alltoallv and MPI_Alltoallw, counted apart. */
XCHG_DROPIN_API const xchg_mpi_opts *xchg_dropin_enter_v(void);
/* dropin.c: the same for the nonblocking and persistent initiations. */
XCHG_DROPIN_API const xchg_mpi_opts *xchg_dropin_enter_nb(void);

/* dropin_fortran.c (Open MPI): a Fortran buffer argument as the C binding
 * wants it, Fortran's MPI_IN_PLACE (where allowed) and MPI_BOTTOM mapped. */
XCHG_DROPIN_API void *xchg_dropin_c_buffer(void *p, int in_place_allowed);

/* The body of a stand-in: xchg's call (an expression that may use the
 * options `o`) when the environment sends the call through xchg, else the
 * MPI library's. */
#define XCHG_DROPIN_BODY(library_call, xchg_call)                                                  \
    XCHG_DROPIN_BODY_AS(xchg_dropin_enter, library_call, xchg_call)
#define XCHG_DROPIN_BODY_V(library_call, xchg_call)                                                \
    XCHG_DROPIN_BODY_AS(xchg_dropin_enter_v, library_call, xchg_call)
#define XCHG_DROPIN_BODY_AS(enter, library_call, xchg_call)                                        \
    do {                                                                                           \
        const xchg_mpi_opts *o = enter();                                                          \
        if (!o)                                                                                    \
            return library_call;                                                                   \
        int rc_ = xchg_call;                                                                       \
        xchg_dropin_leave();                                                                       \
        return rc_;                                                                                \
    } while (0)

#endif /* XCHG_DROPIN_INTERNAL_H */
