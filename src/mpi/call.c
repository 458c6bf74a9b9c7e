/*
 * call.c - the one call path (call.h) that every entry point takes once
 * the short way has not: checks, key, the communicator's cache, plan, run
 * or the MPI library's call; errors raised on the communicator's error
 * handler; the verbose lines. Also the persistent exchange
 * (xchg_mpi_plan_create, _run), which makes its plan by the same maker.
 *
 * Calls go straight to the MPI library (counted as passed) for an
 * intercommunicator (a plan needs an intracommunicator; a shift has no
 * meaning between two groups and is refused) and when "mpi" is asked for
 * the operation. A call with nothing to move is done here and counted as
 * carried.
 */
#include "mpi/call.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The environment's options, read once in the process (by whichever
 * thread calls first, under MPI_THREAD_MULTIPLE too). */
static xchg_mpi_opts env_opts;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void read_env_opts(void)
{
    xchg_err err;
    xchg_mpi_opts_default(&env_opts);
    if (xchg_mpi_opts_from_env(&env_opts, &err)) {
        int rank = 0;
        if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
            rank = 0; /* say it anyway */
        if (rank == 0)
            fprintf(stderr, "xchg: %s; using the MPI library's own calls\n", err.msg);
        env_opts.alg = "mpi";
    }
}

const xchg_mpi_opts *xchg_mpi_opts_effective(const xchg_mpi_opts *opts, xchg_mpi_opts *buf)
{
    if (opts)
        return opts;
    pthread_once(&env_once, read_env_opts);
    *buf = env_opts;
    return buf;
}

int xchg_mpi_raise(MPI_Comm comm, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    /* the handler's own code is not the call's: rc goes back either way */
    int handled = MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, rc);
    (void)handled;
    return rc;
}

/* Rank 0 says what a new plan chose (verbose, or always when a value it
 * was given could not be honoured), unless it said the same last time for
 * the operation on the communicator (said: NULL for a persistent plan,
 * which always speaks). */
static void say(const xchg_mpi_plan *pl, int verbose, char *said, size_t len)
{
    if (pl->cs->rank != 0 || !(verbose || pl->bad_value ||
                               (pl->key.set && pl->key.set->in->auto_note[0])))
        return;
    const xchg_mpi_plan_info *i = &pl->info;
    if (said) {
        char now[XCHG_SPEC_MAX + 64];
        snprintf(now, sizeof now, "%s %s", i->alg, i->topology);
        if (!strcmp(now, said))
            return;
        snprintf(said, len, "%s", now);
    }
    int p = pl->cs->p;
    size_t B = pl->block_bytes;
    xchg_op_kind k = pl->key.kind;
    const char *mpi_name = xchg_mpi_operations[k].mpi_name;
    if (xchg_mpi_is_v(k) && pl->fallback)
        fprintf(stderr, "xchg: %s, %d ranks: the MPI library's %s (%s)\n", mpi_name + 4, p,
                mpi_name, i->why);
    else if (xchg_mpi_is_v(k))
        fprintf(stderr, "xchg: %s, %d ranks: %s (%s); plan %.3f ms\n", mpi_name + 4, p, i->alg,
                i->why, i->plan_seconds * 1e3);
    else if (k != XCHG_OP_ALLTOALL && pl->fallback)
        fprintf(stderr, "xchg: %s, %d ranks, %zu bytes: the MPI library's %s (%s)\n",
                xchg_op_name(k), p, B, mpi_name, i->why);
    else if (k != XCHG_OP_ALLTOALL)
        fprintf(stderr,
                "xchg: %s, %d ranks, %zu bytes: %s on %s (%s); %zu steps, plan %.3f ms, "
                "scratch %zu B\n",
                xchg_op_name(k), p, B, i->alg, i->topology, i->why, i->steps,
                i->plan_seconds * 1e3, i->scratch_bytes);
    else if (pl->fallback)
        fprintf(stderr, "xchg: %d ranks, %zu-byte blocks: the MPI library's MPI_Alltoall (%s)\n",
                p, B, i->why);
    else if (pl->shm)
        fprintf(stderr,
                "xchg: %d ranks, %zu-byte blocks: shm, %zu round%s through a shared segment "
                "of %zu B (%s); plan %.3f ms\n",
                p, B, i->steps, i->steps == 1 ? "" : "s", i->shared_bytes, i->why,
                i->plan_seconds * 1e3);
    else
        fprintf(stderr,
                "xchg: %d ranks, %zu-byte blocks: %s on %s (%s); %zu steps, plan %.3f ms, "
                "lists %zu B, scratch %zu B\n",
                p, B, i->alg, i->topology, i->why, i->steps, i->plan_seconds * 1e3,
                i->plan_bytes, i->scratch_bytes);
}

/*
 * A plan of auto's that waits for the communicator's shared segment: this
 * call adds what it would save to the communicator's credit, and when the
 * credit pays the segment's making the segment is made (collective: every
 * rank's plan for this call has the same saving and price, and every rank
 * runs the same calls, so every rank's credit crosses at the same call).
 * From then on the plan runs shm. An MPI error code.
 */
static int buy_shm(xchg_mpi_plan *pl, int verbose)
{
    xchg_mpi_comm *cs = pl->cs;
    if (!cs->store.shm) {
        if (cs->shm_failed)
            return MPI_SUCCESS;
        cs->shm_credit += pl->shm_saving;
        pl->shm_price = xchg_mpi_shm_price(pl);
        if (cs->shm_credit < pl->shm_price)
            return MPI_SUCCESS;
        cs->shm_credit = 0;
    }
    /* made now, or made since this plan was: back what its blocks need
     * (every rank's plan of this call reaches here or makes it at once) */
    char why[256] = "";
    int ok = 0, rc = xchg_mpi_store_shm(cs, &cs->store, pl->shm_chunk, 0, &ok, why, sizeof why);
    if (rc != MPI_SUCCESS)
        return rc;
    pl->shm_later = 0;
    pl->info_version++;
    if (!ok) {
        cs->shm_failed |= !cs->store.shm;
        xchg_mpi_why_add(pl, "shm's segment could not be had: %s", why);
        return MPI_SUCCESS;
    }
    pl->shm = 1;
    pl->info.shared_bytes = cs->store.shm_bytes;
    pl->info.steps = xchg_mpi_is_v(pl->key.kind)
                         ? 1 /* a call's first round: the rest depend on its blocks */
                         : (pl->block_bytes + pl->shm_chunk - 1) / pl->shm_chunk;
    pl->info.scratch_bytes = pl->info.plan_bytes = 0;
    snprintf(pl->info.alg, sizeof pl->info.alg, "shm");
    xchg_mpi_why_add(pl, "shm's segment is made");
    say(pl, verbose, cs->said[pl->key.kind], sizeof cs->said[pl->key.kind]);
    return MPI_SUCCESS;
}

/* Run pl (not a fallback, or a 2-rank one that kept its program) on b:
 * the shared segment's way, the exchange's or another operation's. Not
 * raised. */
static int exec_plan(xchg_mpi_plan *pl, const xchg_mpi_bufs *b)
{
    if (xchg_mpi_is_v(pl->key.kind))
        return pl->aggregate              ? xchg_mpi_aggregate_v_run(pl, b)
               : pl->shm                  ? xchg_mpi_shm_v_run(pl, b)
               : pl->prog->x.independent ? xchg_mpi_exec_v(pl, b)
                                          : xchg_mpi_exec_sf_v(pl, b);
    if (pl->shm)
        return xchg_mpi_shm_run(pl, b);
    if (pl->hier || pl->aggregate)
        return xchg_mpi_hier_run(pl, b);
    if (pl->key.kind == XCHG_OP_ALLTOALL)
        return xchg_mpi_exec(pl, b);
    return xchg_mpi_op_exec(pl, b);
}

/* The plan for key on cs: cached, or made and cached (its collective
 * steps: those on cs since there were `before`). An MPI error code. */
static int cached_plan(xchg_mpi_comm *cs, const xchg_mpi_key *key, int verbose, unsigned before,
                       xchg_mpi_plan **out)
{
    *out = xchg_mpi_cache_find(cs, key);
    if (*out)
        return MPI_SUCCESS;
    int rc = xchg_mpi_plan_make(cs, key, 0, out);
    if (rc != MPI_SUCCESS)
        return rc;
    (*out)->info.collectives = cs->collectives - before;
    say(*out, verbose, cs->said[key->kind], sizeof cs->said[key->kind]);
    xchg_mpi_cache_put(cs, *out);
    return MPI_SUCCESS;
}

/* A checked call c of a that needs the communicator's state: its plan's
 * run, or the MPI library's call. Not raised. */
static int run_call(const xchg_mpi_opargs *a, xchg_mpi_call *c, const xchg_mpi_opts *opts)
{
    xchg_mpi_comm *cs = NULL;
    xchg_mpi_settings *set = NULL;
    unsigned before = 0;
    int rc = xchg_mpi_comm_get(a->comm, &cs, &before);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_settings_get(cs, opts, &set);
    if (rc != MPI_SUCCESS)
        return rc;
    xchg_mpi_plan *pl = NULL;
    c->key.set = set; /* NULL when cs reads too many files: the plan falls back */
    if ((rc = cached_plan(cs, &c->key, opts->verbose, before, &pl)) != MPI_SUCCESS)
        return rc;
    if (pl->shm_later && (rc = buy_shm(pl, opts->verbose)) != MPI_SUCCESS)
        return rc;
    xchg_mpi_remember(pl);
    if (pl->fallback && pl->prog && !xchg_mpi_library_takes(a, c->p)) {
        /* auto's pass on 2 ranks of a call the library cannot take
         * (choose.c and choose_v.c kept the program for it) */
        xchg_mpi_remember_way(pl, pl->prog, 0, pl->prog->spec, 0, "%s",
                              "auto: a call this MPI library cannot take (counts past INT_MAX "
                              "before MPI 4, or MPI_BOTTOM both ways): xchg's schedule");
        xchg_mpi_count_call(a, 1);
        return exec_plan(pl, &c->b);
    }
    if (pl->fallback) {
        xchg_mpi_pass pass = xchg_mpi_pass_of(cs, a->q);
        xchg_mpi_memo_keep(a, pl, pass);
        return xchg_mpi_pass_on(a, &pass);
    }
    xchg_mpi_count_call(a, 1);
    return exec_plan(pl, &c->b);
}

int xchg_mpi_call_checked(const xchg_mpi_opargs *a)
{
    MPI_Comm comm = a->comm;
    if (comm == MPI_COMM_NULL)
        return xchg_mpi_raise(comm, MPI_ERR_COMM);
    int inter = 0, rc = MPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS && inter && a->kind == XCHG_OP_SHIFT)
        rc = MPI_ERR_COMM; /* a shift has no meaning between two groups */
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_opts buf;
    const xchg_mpi_opts *opts = xchg_mpi_opts_effective(a->opts, &buf);
    char asked[XCHG_SPEC_MAX];
    xchg_mpi_alg_for(opts->alg, xchg_mpi_registry_kind(a->kind), asked, sizeof asked);
    int mpi = !strcmp(asked, "mpi");
    if (inter || (mpi && a->kind != XCHG_OP_SHIFT)) {
        xchg_mpi_remember_passed(inter ? "an intercommunicator" : "mpi was asked for");
        return xchg_mpi_raise(comm, xchg_mpi_pass_on(a, &(xchg_mpi_pass){MPI_COMM_NULL, 0, 0}));
    }
    xchg_mpi_call c = {0};
    rc = MPI_Comm_size(comm, &c.p);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, &c.rank);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_operations[a->kind].describe(a, &c);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    if (mpi) /* a shift asked of the MPI library goes there, whatever it moves */
        c.what = XCHG_MPI_RUN;
    if (c.what == XCHG_MPI_LOCAL) {
        xchg_mpi_count_call(a, 1);
        xchg_mpi_remember_none("a shift by a multiple of p moves nothing");
        return xchg_mpi_raise(comm, xchg_mpi_shift_home(a, &c));
    }
    if (c.what == XCHG_MPI_NONE) {
        xchg_mpi_count_call(a, 1);
        xchg_mpi_remember_none("nothing to move");
        return MPI_SUCCESS;
    }
    return xchg_mpi_raise(comm, run_call(a, &c, opts));
}

/* ---- the persistent exchange ---------------------------------------- */

int xchg_mpi_plan_create(MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
                         MPI_Datatype recvtype, int in_place, MPI_Comm comm,
                         const xchg_mpi_opts *opts, xchg_mpi_plan **out)
{
    if (!out)
        return xchg_mpi_raise(comm, MPI_ERR_ARG);
    *out = NULL;
    if (comm == MPI_COMM_NULL)
        return xchg_mpi_raise(comm, MPI_ERR_COMM);
    xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                         .sendbuf = in_place ? MPI_IN_PLACE : NULL,
                         .scount = sendcount,
                         .rcount = recvcount,
                         .stype = sendtype,
                         .rtype = recvtype,
                         .comm = comm};
    xchg_mpi_call c = {0};
    int inter = 0, rc = MPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS && inter)
        rc = MPI_ERR_COMM; /* a plan needs an intracommunicator */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &c.p);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, &c.rank);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_operations[XCHG_OP_ALLTOALL].describe(&a, &c);
    xchg_mpi_opts buf;
    opts = xchg_mpi_opts_effective(opts, &buf);
    xchg_mpi_comm *cs = NULL;
    unsigned before = 0;
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_comm_get(comm, &cs, &before);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_settings_get(cs, opts, &c.key.set);
    if (rc == MPI_SUCCESS)
        rc = xchg_mpi_plan_make(cs, &c.key, 1, out);
    if (rc != MPI_SUCCESS)
        return xchg_mpi_raise(comm, rc);
    xchg_mpi_comm_ref(cs); /* the plan may outlive the communicator's attribute */
    (*out)->info.collectives = cs->collectives - before;
    (*out)->send_layout = c.in_lay;
    (*out)->recv_layout = c.out_lay;
    say(*out, opts->verbose, NULL, 0);
    return MPI_SUCCESS;
}

void xchg_mpi_plan_free(xchg_mpi_plan *plan)
{
    if (!plan)
        return;
    xchg_mpi_comm *cs = plan->cs;
    xchg_mpi_plan_release(plan);
    xchg_mpi_comm_unref(cs);
}

int xchg_mpi_plan_run(xchg_mpi_plan *plan, const void *sendbuf, void *recvbuf)
{
    if (!plan)
        return xchg_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
    MPI_Comm comm = plan->cs->user;
    if ((sendbuf == MPI_IN_PLACE) != (plan->key.in_place != 0))
        return xchg_mpi_raise(comm, MPI_ERR_ARG);
    const xchg_mpi_layout *slay = &plan->send_layout, *rlay = &plan->recv_layout;
    if (plan->fallback) {
        xchg_mpi_opargs a = {.kind = XCHG_OP_ALLTOALL,
                             .sendbuf = sendbuf,
                             .recvbuf = recvbuf,
                             .scount = plan->key.in_place ? 0 : slay->count,
                             .rcount = rlay->count,
                             .stype = slay->type,
                             .rtype = rlay->type,
                             .comm = comm};
        return xchg_mpi_raise(comm, xchg_mpi_pass_on(&a, NULL));
    }
    xchg_mpi_bufs b = {.in = plan->key.in_place ? recvbuf : sendbuf,
                       .in_lay = slay,
                       .in_blocks = (size_t)plan->cs->p,
                       .out = recvbuf,
                       .out_lay = rlay,
                       .out_blocks = (size_t)plan->cs->p};
    xchg_mpi_count(XCHG_OP_ALLTOALL, 1);
    return xchg_mpi_raise(comm, exec_plan(plan, &b));
}
