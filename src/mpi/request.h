/*
 * request.h - xchg's nonblocking and persistent exchanges
 * (MPI_Ialltoall, _Ialltoallv, _Ialltoallw; MPI_Alltoall_init, _v, _w and
 * Open MPI's MPIX_ forms), as requests the program completes with the
 * ordinary MPI_Wait, MPI_Test and their kin (docs/nonblocking.md).
 *
 *   request.c     the process's table of xchg's requests, their making,
 *                 starting, progress and freeing, and the counters
 *   nb_direct.c   the direct exchange with every message posted at start
 *   dropin_req.c  the drop-in's MPI_ calls: the initiations, and MPI_Start,
 *                 the waits, the tests, MPI_Request_free ... over mixed
 *                 arrays of xchg's requests and the library's
 *
 * A nonblocking request's handle is a generalized request
 * (MPI_Grequest_start), completed (MPI_Grequest_complete) when its
 * exchange is; a persistent request's is an inert persistent request of the
 * library's (a send of nothing to this rank on the communicator's private
 * duplicate, never started), so a handle of xchg's is always a valid
 * handle of the library's too. Not a send to MPI_PROC_NULL: under MPICH
 * 4.0.2, once a persistent request to MPI_PROC_NULL has been freed, the
 * wait of the next persistent collective (MPI_Bcast_init's, say) never
 * returns, MPICH alone, no xchg in the program (docs/nonblocking.md).
 */
#ifndef XCHG_MPI_REQUEST_H
#define XCHG_MPI_REQUEST_H

#include "mpi/call.h"

typedef struct xchg_mpi_req xchg_mpi_req;

/* How many of xchg's requests are alive in the process (the wrappers go
 * straight to the library while none is). */
XCHG_MPI_INTERNAL int xchg_mpi_req_live(void);

/* The request of handle h, or NULL when it is not xchg's. */
XCHG_MPI_INTERNAL xchg_mpi_req *xchg_mpi_req_find(MPI_Request h);

/* Make a request for a's exchange (kind: the exchange, v or w; MPI's
 * checks first), persistent (inactive until started) or started now, into
 * *out; or the MPI library's own call (MPI_Ialltoall, MPI_Alltoall_init,
 * ...) when xchg does not carry it. An MPI error code, raised on a's
 * communicator. */
XCHG_MPI_INTERNAL int xchg_mpi_req_make(const xchg_mpi_opargs *a, int persistent, MPI_Info info,
                                        MPI_Request *out);

/* Start a persistent request (MPI_ERR_REQUEST when it is active). */
XCHG_MPI_INTERNAL int xchg_mpi_req_start(xchg_mpi_req *r);

/* Move r on without waiting (wait: until it is done); *done when its
 * exchange is complete (then a nonblocking request's handle is complete
 * for the library, and a persistent one inactive again). An MPI error
 * code. */
XCHG_MPI_INTERNAL int xchg_mpi_req_progress(xchg_mpi_req *r, int wait, int *done);

/* Whether r is persistent, and whether it is active (started, and not yet
 * seen complete by a wait or test). */
XCHG_MPI_INTERNAL int xchg_mpi_req_persistent(const xchg_mpi_req *r);
XCHG_MPI_INTERNAL int xchg_mpi_req_active(const xchg_mpi_req *r);
/* A wait or test saw a persistent r complete: it is inactive again. */
XCHG_MPI_INTERNAL void xchg_mpi_req_retire(xchg_mpi_req *r);

/* MPI_Request_free of r's handle *h: a persistent request is freed now
 * (if active, when it completes); a nonblocking one when it completes.
 * *h becomes MPI_REQUEST_NULL. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_req_free(xchg_mpi_req *r, MPI_Request *h);

/* Move every live request on, without waiting (what every wrapper does
 * first, so a program's waits move xchg's exchanges too). */
XCHG_MPI_INTERNAL void xchg_mpi_req_progress_all(void);

/* nb_direct.c: the direct exchange of a's blocks with every message
 * posted at once (each peer's block in its own type, straight from and
 * into the user's buffers; in place, the blocks to send packed first). */
typedef struct xchg_mpi_nbd xchg_mpi_nbd;
/* Make it for a (collective nothing: local), its messages tagged tag on
 * comm. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_nbd_make(const xchg_mpi_opargs *a, MPI_Comm comm, int tag,
                                        xchg_mpi_nbd **out);
XCHG_MPI_INTERNAL int xchg_mpi_nbd_start(xchg_mpi_nbd *d);
/* *done when every message is complete (wait: wait for them). */
XCHG_MPI_INTERNAL int xchg_mpi_nbd_test(xchg_mpi_nbd *d, int wait, int *done);
XCHG_MPI_INTERNAL void xchg_mpi_nbd_free(xchg_mpi_nbd *d);

#endif /* XCHG_MPI_REQUEST_H */
