/*
 * topo_map.c - the topology a communicator's ranks are laid out on
 * (docs/mpi.md): the options' topology when it names one (it must have
 * one node per rank); else a Cartesian communicator's grid (all dimensions
 * periodic: torus; else mesh; one dimension: ring or array); else
 * complete:p. Node id = rank in every case (MPI numbers a Cartesian grid
 * row-major, as xchg does). Local: it asks MPI only about the caller's
 * communicator. Under SimGrid's SMPI a Cartesian grid is not read (below).
 */
#include "mpi/comm.h"

#include <stdio.h>
#include <string.h>

/* A Cartesian communicator's grid as a topology spec into full; 0, or -1
 * when comm is not Cartesian or its grid is not a topology of p nodes.
 * Under SimGrid's SMPI (smpicc defines SMPI_H) always -1: SMPI aborts the
 * simulation in MPI_Topo_test, and its MPI_Cartdim_get on a communicator
 * without a grid raises the error handler (fatal by default), so there is
 * no safe question to ask; XCHG_TOPOLOGY names the grid instead. */
static int cartesian(MPI_Comm comm, int p, char *full, size_t len)
{
#ifdef SMPI_H
    (void)comm, (void)p, (void)full, (void)len;
    return -1;
#endif
    int kind = MPI_UNDEFINED, nd = 0;
    if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind != MPI_CART)
        return -1;
    if (MPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd <= 0 || nd > XCHG_MAX_DIMS)
        return -1;
    int dims[XCHG_MAX_DIMS], periods[XCHG_MAX_DIMS], coords[XCHG_MAX_DIMS];
    if (MPI_Cart_get(comm, nd, dims, periods, coords) != MPI_SUCCESS)
        return -1;
    char sizes[64] = "";
    int kept = 0, all_periodic = 1;
    size_t at = 0;
    for (int k = 0; k < nd; k++) {
        if (dims[k] < 2)
            continue; /* a dimension of one node has no links */
        all_periodic &= periods[k] != 0;
        int n = snprintf(sizes + at, sizeof sizes - at, "%s%d", kept ? "x" : "", dims[k]);
        if (n < 0 || (size_t)n >= sizeof sizes - at)
            return -1;
        at += (size_t)n;
        kept++;
    }
    if (kept == 0)
        snprintf(full, len, "ring:1");
    else if (kept == 1)
        snprintf(full, len, "%s:%s", all_periodic ? "ring" : "array", sizes);
    else
        snprintf(full, len, "%s:%s", all_periodic ? "torus" : "mesh", sizes);
    xchg_topo t;
    return xchg_topo_parse(full, &t, NULL) == XCHG_OK && t.nodes == (uint32_t)p ? 0 : -1;
}

void xchg_mpi_map_topology(const xchg_mpi_comm *cs, xchg_mpi_settings *s)
{
    char spec[80];
    xchg_err err = {{0}};
    s->mapped = 0;
    if (strcmp(s->topology, "auto")) {
        s->map_bad_value = 1;
        if (xchg_topo_parse(s->topology, &s->topo, &err)) {
            snprintf(s->map_why, sizeof s->map_why, "topology %.400s", err.msg);
            return;
        }
        if (s->topo.nodes != (uint32_t)cs->p) {
            snprintf(s->map_why, sizeof s->map_why,
                     "topology %.64s has %u nodes but the communicator %d ranks: it must have "
                     "one node per rank",
                     s->topology, (unsigned)s->topo.nodes, cs->p);
            return;
        }
        s->map_bad_value = 0;
    } else {
        if (cartesian(cs->user, cs->p, spec, sizeof spec))
            snprintf(spec, sizeof spec, "complete:%d", cs->p);
        if (xchg_topo_parse(spec, &s->topo, &err)) {
            snprintf(s->map_why, sizeof s->map_why, "%.500s", err.msg);
            return;
        }
    }
    s->mapped = 1;
    xchg_topo_spec(&s->topo, s->topo_spec, sizeof s->topo_spec);
}
