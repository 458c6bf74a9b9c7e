/*
 * auto.h - auto's model of the executor's time on this machine (auto.c):
 * the machine figures for f ranks per core, and a candidate's predicted
 * time at block size m as the executor runs it (a schedule's line; the
 * shared-memory exchange).
 */
#ifndef XCHG_MPI_AUTO_H
#define XCHG_MPI_AUTO_H

#include "mpi/mpi_internal.h"

/* The default machine for f ranks per core. */
XCHG_MPI_INTERNAL void xchg_mpi_machine(double f, xchg_machine *out);
/* Scale a machine measured with one rank per core to f ranks per core, as
 * the default grows with f: start-ups by f^1.44, per-byte figures by f. */
XCHG_MPI_INTERNAL void xchg_mpi_machine_scale(double f, xchg_machine *m);
/* The exchange's time of a schedule's line at block size m. */
XCHG_MPI_INTERNAL double xchg_mpi_predict(const xchg_line *line, const xchg_machine *mach,
                                          double m);
/* The shared-memory exchange's time: p ranks, blocks of m bytes moved
 * chunk bytes a round. */
XCHG_MPI_INTERNAL double xchg_mpi_predict_shm(double f, const xchg_machine *mach, int p, double m,
                                              double chunk);
/* The making of a communicator's shared segment of bytes, whose first
 * round of chunk-byte blocks touches the pages of p ranks' columns and
 * rows, f ranks per core: what auto's shm must save before it is made. */
XCHG_MPI_INTERNAL double xchg_mpi_predict_shm_making(double f, const xchg_machine *mach, int p,
                                                     double bytes, double chunk);
/* Another operation's time of a candidate's line for m bytes of data
 * (reduction: it combines). */
XCHG_MPI_INTERNAL double xchg_mpi_predict_op(const xchg_line *line, const xchg_machine *mach,
                                             double m, int reduction);

#endif /* XCHG_MPI_AUTO_H */
