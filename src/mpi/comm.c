/*
 * comm.c - the state the executor keeps on a communicator (comm.h): made
 * at the first call that needs a plan on it, kept in one attribute, freed
 * by the attribute's delete callback when the communicator is freed (or
 * later, when the last persistent plan made on it is freed).
 *
 * Making it is the one collective step every communicator pays once: a
 * duplicate communicator (the executor's messages never match the
 * caller's receives, wildcard ones included) and the nodes (nodes.c).
 * What the options bring (settings.c), the programs (program.c), the
 * buffers (store.c) and the plans (plan_cache.c) are added as calls need
 * them.
 */
#include "mpi/comm.h"
#include "mpi/plan.h"
#include "mpi/program.h"

#include <pthread.h>
#include <stdlib.h>

/* The attribute's key, made once per process. */
static int comm_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval_rc = MPI_SUCCESS;

static int delete_state(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    xchg_mpi_comm_unref(value);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &comm_keyval, NULL);
}

/* Free everything cs holds. MPI calls only while MPI is running (a
 * persistent plan may be freed after MPI_Finalize). */
static void free_state(xchg_mpi_comm *cs)
{
    xchg_mpi_cache_clear(cs);
    xchg_mpi_programs_free(cs);
    xchg_mpi_settings_free_all(cs);
    xchg_mpi_store_release(&cs->store);
    xchg_mpi_node_map_free(&cs->nodes);
    free(cs->staging);
    free(cs->vtables);
    /* a free has no caller to tell of a failure: the duplicate is given
     * back when MPI can take it, and forgotten otherwise */
    int fin = 1;
    if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin && cs->comm != MPI_COMM_NULL &&
        MPI_Comm_free(&cs->comm) != MPI_SUCCESS)
        cs->comm = MPI_COMM_NULL;
    free(cs);
}

void xchg_mpi_comm_ref(xchg_mpi_comm *cs)
{
    cs->refs++;
}

void xchg_mpi_comm_unref(xchg_mpi_comm *cs)
{
    if (cs && --cs->refs == 0)
        free_state(cs);
}

/* A new state for user (collective). An MPI error code; *out NULL then. */
static int make_state(MPI_Comm user, xchg_mpi_comm **out)
{
    *out = NULL;
    xchg_mpi_comm *cs = calloc(1, sizeof *cs);
    if (!cs)
        return MPI_ERR_NO_MEM;
    cs->refs = 1;
    cs->user = user;
    cs->comm = MPI_COMM_NULL;
    cs->nodes.node_comm = cs->nodes.leader_comm = MPI_COMM_NULL;
    int rc = MPI_Comm_size(user, &cs->p);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(user, &cs->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_dup(user, &cs->comm);
    cs->collectives = 1;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(cs->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_nodes(cs);
    if (rc != MPI_SUCCESS) {
        free_state(cs);
        return rc;
    }
    *out = cs;
    return MPI_SUCCESS;
}

int xchg_mpi_comm_get(MPI_Comm comm, xchg_mpi_comm **out, unsigned *collectives)
{
    *out = NULL;
    if (collectives)
        *collectives = 0;
    pthread_once(&keyval_once, make_keyval);
    if (keyval_rc != MPI_SUCCESS)
        return keyval_rc;
    xchg_mpi_comm *cs = NULL;
    int found = 0;
    int rc = MPI_Comm_get_attr(comm, comm_keyval, &cs, &found);
    if (rc != MPI_SUCCESS)
        return rc;
    if (found && cs) {
        if (collectives)
            *collectives = cs->collectives;
        *out = cs;
        return MPI_SUCCESS;
    }
    if ((rc = make_state(comm, &cs)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_set_attr(comm, comm_keyval, cs)) != MPI_SUCCESS) {
        xchg_mpi_comm_unref(cs);
        return rc;
    }
    *out = cs;
    return MPI_SUCCESS;
}
