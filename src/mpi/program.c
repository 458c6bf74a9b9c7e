/*
 * program.c - a communicator's programs (program.h): found by what they
 * are of, or built on every rank at once.
 *
 * Building is the one step of a new plan that needs the ranks to agree on
 * something only each rank knows: whether it could build its part (it may
 * run out of memory), and, for the buffers every plan of the program will
 * carve from the shared store (store.c), the largest need of any rank.
 * One MPI_Allreduce (MPI_MAX) gives both. A program is built at a point
 * every rank reaches together: the first call that chooses it, which is
 * the same call on every rank because every rank chooses from the same
 * inputs. Programs are kept until the communicator is freed, so a rank
 * whose cached plan spares it the lookup would have found the program.
 */
#include "mpi/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nonzero when g is the program of these. */
static int same(const xchg_mpi_program *g, xchg_op_kind kind, const char *spec, uint32_t root,
                uint32_t shift, const char *topo)
{
    return g->kind == kind && g->root == root && g->shift == shift && !strcmp(g->spec, spec) &&
           !strcmp(g->topo_spec, topo);
}

static void program_free(xchg_mpi_program *g)
{
    if (!g)
        return;
    xchg_mpi_xprog_free(&g->x);
    xchg_mpi_oprog_free(&g->o);
    free(g);
}

void xchg_mpi_programs_free(xchg_mpi_comm *cs)
{
    for (size_t i = 0; i < cs->nprograms; i++)
        program_free(cs->programs[i]);
    free(cs->programs);
    cs->programs = NULL;
    cs->nprograms = cs->programs_cap = 0;
}

/* What program.c agrees over the ranks: whether any failed, and needs. */
#define NEEDS 6

/* This rank's part of g (g->ok and g->why): need[0] whether it failed,
 * need[1..] its needs (agree() reads them back in the same order). */
static void build_here(const xchg_mpi_comm *cs, const xchg_topo *t, xchg_mpi_program *g,
                       uint64_t need[NEEDS])
{
    int rc;
    if (g->kind == XCHG_OP_ALLTOALL) {
        rc = xchg_mpi_xprog_build(t, g->spec, cs->rank, &g->x, &g->list_bytes, g->why,
                                  sizeof g->why);
        need[1] = g->x.scratch_blocks;
        need[2] = g->x.send_pack_blocks;
        need[3] = g->x.recv_pack_blocks;
        need[4] = g->x.msg_blocks;
    } else {
        rc = xchg_mpi_oprog_build(t, g->spec, g->kind, g->root, g->shift, cs->p, cs->rank, &g->o,
                                  &g->list_bytes, g->why, sizeof g->why);
        need[1] = g->o.max_slots;
        need[2] = g->o.max_send_pieces;
        need[3] = g->o.max_recv_pieces;
        need[4] = g->o.max_msg_pieces;
        need[5] = rc == 0 && !g->o.order_ok; /* rank order broken here */
    }
    g->ok = rc == 0;
    need[0] = !g->ok;
}

/* Take the agreed needs into g: every rank's largest. */
static void agree(xchg_mpi_program *g, const uint64_t all[NEEDS])
{
    if (g->kind == XCHG_OP_ALLTOALL) {
        g->x.scratch_blocks = (size_t)all[1];
        g->x.send_pack_blocks = (size_t)all[2];
        g->x.recv_pack_blocks = (size_t)all[3];
        g->x.msg_blocks = (size_t)all[4];
    } else {
        g->o.max_slots = (size_t)all[1];
        g->o.max_send_pieces = (size_t)all[2];
        g->o.max_recv_pieces = (size_t)all[3];
        g->o.max_msg_pieces = (size_t)all[4];
        g->o.order_ok = all[5] == 0;
    }
}

/* Room for one more program in cs; 0, or -1 when none can be had. */
static int make_room(xchg_mpi_comm *cs)
{
    if (cs->nprograms < cs->programs_cap)
        return 0;
    size_t cap = cs->programs_cap ? 2 * cs->programs_cap : 8;
    xchg_mpi_program **a = realloc(cs->programs, cap * sizeof *a);
    if (!a)
        return -1;
    cs->programs = a;
    cs->programs_cap = cap;
    return 0;
}

int xchg_mpi_program_get(xchg_mpi_comm *cs, const xchg_topo *t, xchg_op_kind kind,
                         const char *spec, uint32_t root, uint32_t shift,
                         const xchg_mpi_program **out)
{
    char topo[64];
    xchg_topo_spec(t, topo, sizeof topo);
    *out = NULL;
    for (size_t i = 0; i < cs->nprograms; i++)
        if (same(cs->programs[i], kind, spec, root, shift, topo)) {
            *out = cs->programs[i];
            return MPI_SUCCESS;
        }
    if (cs->nprograms >= XCHG_MPI_MAX_PROGRAMS)
        return MPI_SUCCESS;
    /* every rank builds, and every rank takes part in the agreement, even
     * one that could not allocate the program's record */
    xchg_mpi_program *g = make_room(cs) == 0 ? calloc(1, sizeof *g) : NULL;
    uint64_t need[NEEDS] = {1, 0, 0, 0, 0, 0}, all[NEEDS];
    if (g) {
        g->kind = kind;
        snprintf(g->spec, sizeof g->spec, "%s", spec);
        g->root = root;
        g->shift = shift;
        snprintf(g->topo_spec, sizeof g->topo_spec, "%s", topo);
        build_here(cs, t, g, need);
    }
    cs->collectives++;
    int rc = PMPI_Allreduce(need, all, NEEDS, MPI_UINT64_T, MPI_MAX, cs->comm);
    if (rc != MPI_SUCCESS || !g) {
        program_free(g);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    }
    if (all[0] && g->ok) {
        g->ok = 0;
        snprintf(g->why, sizeof g->why, "another rank could not make its part of the plan");
    }
    if (g->ok)
        agree(g, all);
    else {
        xchg_mpi_xprog_free(&g->x);
        xchg_mpi_oprog_free(&g->o);
    }
    cs->programs[cs->nprograms++] = g;
    *out = g;
    return MPI_SUCCESS;
}
