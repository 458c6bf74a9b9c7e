/*
 * settings.c - one set of options on a communicator (comm.h's
 * xchg_mpi_settings), so a call with the same options reads its topology,
 * files and machine from here instead of working them out again.
 *
 * A set of options is made locally (the topology is mapped from the
 * communicator alone) and dropped, least recently used first, when the
 * communicator holds XCHG_MPI_MAX_SETTINGS; plans that were made with it
 * keep it until they are freed. The files a set names are read once per
 * pair of paths (xchg_mpi_inputs), by every rank at once: at the first
 * call that names them, which every rank makes (MPI requires the same
 * calls in the same order, and every rank is given the same options).
 * Inputs are kept until the communicator is freed, so a rank whose cached
 * plan spares it the lookup would have found them.
 */
#include "mpi/auto.h"
#include "mpi/comm.h"

#include <stdlib.h>
#include <string.h>

static void inputs_free(xchg_mpi_inputs *in)
{
    if (!in)
        return;
    free(in->tuning_path);
    free(in->machine_path);
    xchg_tuning_free(in->tuning);
    free(in);
}

void xchg_mpi_settings_ref(xchg_mpi_settings *s)
{
    s->refs++;
}

void xchg_mpi_settings_unref(xchg_mpi_settings *s)
{
    if (!s || --s->refs > 0)
        return;
    free(s->alg);
    free(s->topology);
    free(s);
}

void xchg_mpi_settings_free_all(xchg_mpi_comm *cs)
{
    for (int i = 0; i < XCHG_MPI_MAX_SETTINGS; i++) {
        xchg_mpi_settings_unref(cs->settings[i]);
        cs->settings[i] = NULL;
    }
    for (int i = 0; i < cs->ninputs; i++)
        inputs_free(cs->inputs[i]);
    cs->ninputs = 0;
}

/* On a communicator within one node every message is a node's: a machine
 * file's ts_node and tw_node (docs/machine-file.md) price them, where the
 * file names figures of its own for them (not the defaults, ts and tr,
 * which stand for "not measured"); the eager figures, the network's, go. */
static void node_figures(xchg_machine *m)
{
    if (m->ts_node == m->ts && m->tw_node == m->tr)
        return;
    if (m->ts_node == m->ts && m->tw_node == m->tw)
        return; /* xchg probe on one node: the same figures */
    m->ts = m->ts_eager = m->ts_node;
    m->tw = m->tw_eager = m->tw_node;
    m->eager_bytes = 0;
}

/* The inputs of these paths on cs, read when new (collective); *out NULL
 * when cs holds XCHG_MPI_MAX_INPUTS already. An MPI error code. */
static int inputs_get(xchg_mpi_comm *cs, const char *tuning, const char *machine,
                      const xchg_mpi_inputs **out)
{
    *out = NULL;
    for (int i = 0; i < cs->ninputs; i++)
        if (!strcmp(cs->inputs[i]->tuning_path, tuning) &&
            !strcmp(cs->inputs[i]->machine_path, machine)) {
            *out = cs->inputs[i];
            return MPI_SUCCESS;
        }
    if (cs->ninputs == XCHG_MPI_MAX_INPUTS)
        return MPI_SUCCESS;
    xchg_mpi_inputs *in = calloc(1, sizeof *in);
    xchg_mpi_inputs scratch = {.tuning_path = (char *)tuning, .machine_path = (char *)machine};
    int ok = in && (in->tuning_path = strdup(tuning)) && (in->machine_path = strdup(machine));
    /* the broadcasts are collective: a rank that could not allocate takes
     * part too, and then keeps nothing */
    int rc = xchg_mpi_auto_files(cs, ok ? in : &scratch);
    xchg_tuning_free(scratch.tuning);
    if (rc != MPI_SUCCESS || !ok) {
        inputs_free(in);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    }
    if (in->have_file_mach && cs->one_node)
        node_figures(&in->mach);
    if (in->have_file_mach)
        xchg_mpi_machine_scale(cs->ranks_per_core, &in->mach);
    else
        xchg_mpi_machine(cs->ranks_per_core, &in->mach);
    cs->inputs[cs->ninputs++] = in;
    *out = in;
    return MPI_SUCCESS;
}

/* A place for a new set of options in cs's list: an empty one, else the
 * least recently used, dropped. */
static int free_place(xchg_mpi_comm *cs)
{
    int victim = 0;
    for (int i = 1; i < XCHG_MPI_MAX_SETTINGS && cs->settings[victim]; i++)
        if (!cs->settings[i] || cs->settings[i]->used < cs->settings[victim]->used)
            victim = i;
    xchg_mpi_settings_unref(cs->settings[victim]);
    cs->settings[victim] = NULL;
    return victim;
}

int xchg_mpi_settings_get(xchg_mpi_comm *cs, const xchg_mpi_opts *opts, xchg_mpi_settings **out)
{
    const char *alg = opts->alg ? opts->alg : "auto";
    const char *topo = opts->topology ? opts->topology : "auto";
    const char *tuning = opts->tuning_file ? opts->tuning_file : "";
    const char *machine = opts->machine_file ? opts->machine_file : "";
    *out = NULL;
    for (int i = 0; i < XCHG_MPI_MAX_SETTINGS; i++) {
        xchg_mpi_settings *s = cs->settings[i];
        if (s && !strcmp(s->alg, alg) && !strcmp(s->topology, topo) &&
            !strcmp(s->in->tuning_path, tuning) && !strcmp(s->in->machine_path, machine)) {
            s->used = ++cs->settings_clock;
            *out = s;
            return MPI_SUCCESS;
        }
    }
    const xchg_mpi_inputs *in = NULL;
    int rc = inputs_get(cs, tuning, machine, &in);
    if (rc != MPI_SUCCESS || !in)
        return rc;
    xchg_mpi_settings *s = calloc(1, sizeof *s);
    if (!s || !(s->alg = strdup(alg)) || !(s->topology = strdup(topo))) {
        if (s)
            s->refs = 1;
        xchg_mpi_settings_unref(s);
        return MPI_ERR_NO_MEM;
    }
    s->refs = 1;
    s->in = in;
    xchg_mpi_map_topology(cs, s);
    s->used = ++cs->settings_clock;
    cs->settings[free_place(cs)] = s;
    *out = s;
    return MPI_SUCCESS;
}
