/*
 * comm.h - what the executor keeps on a communicator: everything a call's
 * plan needs that does not depend on the call's count, computed once and
 * kept in one attribute of the communicator (freed with it).
 *
 *   comm.c        the state itself: the attribute, the duplicate
 *                 communicator the executor's messages travel on, the
 *                 nodes (nodes.c), and freeing
 *   staging.c     this rank's own staging for derived datatypes
 *   settings.c    one set of options (algorithm, topology, tuning and
 *                 machine files): the ranks' topology (topo_map.c), the
 *                 files (auto_files.c) and auto's machine
 *   store.c       the buffers plans share: one arena of scratch and one
 *                 shared-memory segment, grown when a count needs more
 *   plan_cache.c  the plans of recent keys
 *
 * Every rank must make the same collective calls in the same order, yet a
 * plan for a new count is made with no communication. What keeps the ranks
 * in step: the collective steps here (making the state, loading a set of
 * options with files, growing the arena or the segment, building a program
 * in program.c) happen only at points every rank reaches together, decided
 * from values MPI's rules make equal on every rank (the count's bytes, the
 * root, the options), and from state that changes only at such points. A
 * rank whose cached plan spares it a lookup holds that plan only because
 * every rank made it together, so the lookup it skips would have found
 * what it needs. docs/mpi.md lists what is agreed and why.
 */
#ifndef XCHG_MPI_COMM_H
#define XCHG_MPI_COMM_H

#include "mpi/mpi_internal.h"

typedef struct xchg_mpi_plan xchg_mpi_plan;
typedef struct xchg_mpi_key xchg_mpi_key;
typedef struct xchg_mpi_program xchg_mpi_program;

/* Sets of options one communicator keeps; beyond it the least recently
 * used is dropped (settings.c). */
#define XCHG_MPI_MAX_SETTINGS 32

/* Pairs of tuning and machine files one communicator reads; beyond it a
 * call naming yet another pair goes to the MPI library. */
#define XCHG_MPI_MAX_INPUTS 8

/* Plans of recent keys kept per communicator; the least recently used
 * goes when a new one is made (plan_cache.c). */
#define XCHG_MPI_CACHE_PLANS 16

/* Programs one communicator keeps: one per algorithm, operation, root and
 * shift used on it, never freed before the communicator; beyond it a call
 * whose program is new goes to the MPI library. */
#define XCHG_MPI_MAX_PROGRAMS 256

/* What auto reads from files, for one pair of paths (auto_files.c): the
 * tuning file's rows (NULL: none) and the machine its cost model prices
 * with (the file's, or the default, scaled to the ranks per core);
 * auto_note says why a file given could not be used. */
typedef struct xchg_mpi_inputs {
    char *tuning_path, *machine_path; /* as given ("" for none) */
    xchg_tuning *tuning;
    int have_file_mach;
    xchg_machine mach;
    char auto_note[400];
} xchg_mpi_inputs;

/* One set of options on a communicator, and what they give (settings.c). */
typedef struct xchg_mpi_settings {
    int refs;                      /* the communicator's list's, and each plan's */
    unsigned used;                 /* the list's clock when last found */
    /* the options, as given ("auto" for NULL) */
    char *alg, *topology;
    const xchg_mpi_inputs *in;     /* the files they name */
    /* the topology the ranks are laid out on; mapped 0 when it cannot be
     * (then every plan falls back, saying map_why) */
    int mapped;
    xchg_topo topo;
    char topo_spec[64];
    char map_why[600];
    int map_bad_value;             /* the value given could not be honoured */
} xchg_mpi_settings;

/* The buffers plans share: an arena of scratch, packing and staging carved
 * per plan, and the shared-memory segment of the exchange through one
 * node's memory (shm.c). Both only grow, at points every rank reaches
 * together (store.c). A persistent plan has a store of its own. */
typedef struct xchg_mpi_store {
    unsigned char *arena;
    size_t arena_bytes;            /* what every rank holds (agreed) */
    size_t arena_mapped;           /* what this rank can use: as much or more */
    size_t arena_reserved;         /* the address space it may grow in */
    unsigned char *shm;            /* the mapped segment, or NULL */
    size_t shm_bytes;              /* its size: a header and 2 p^2 slots */
    size_t shm_slot;               /* bytes of one slot of its grids (the stride) */
    size_t shm_filled;             /* bytes of each slot every rank has backed */
    unsigned shm_round;            /* rounds run so far: the next one's grid */
} xchg_mpi_store;

/* The groups of one node-aware exchange with L leaders a node
 * (node_map.c): each node's places cut into groups of G = ceil(most / L)
 * consecutive places, the first place of each its leader. Communicators
 * this rank is not in are MPI_COMM_NULL. */
#define XCHG_MPI_MAX_LANES 8 /* sets of groups kept a communicator */
typedef struct xchg_mpi_lanes {
    int leaders, group;            /* L, and G places a group */
    int owned;                     /* the communicators are ours to free (not
                                      the node map's own, when L = 1) */
    MPI_Comm group_comm;           /* this rank's group (its leader is rank 0);
                                      NULL when G = 1 */
    MPI_Comm lane_comm;            /* the leaders of group l of every node
                                      (node n is rank n), on a leader */
    MPI_Comm lead_comm;            /* the leaders of this node (group l is rank
                                      l), on a leader; NULL when L = 1 */
} xchg_mpi_lanes;

/* Which node each rank of a communicator is on, as the node-aware exchange
 * needs it (node_map.c): made at the first plan that asks, then kept. */
typedef struct xchg_mpi_node_map {
    int made;                      /* asked for once: ok or why stays */
    int ok;                        /* the nodes are known */
    char why[240];                 /* why not, when !ok */
    const char *by;                /* what grouped the ranks: "XCHG_NODE_SIZE",
                                      "shared memory" or "simulated host" */
    int nnodes;                    /* N */
    int most, fewest;              /* ranks on the fullest and emptiest node */
    int node, local;               /* this rank's node, and its place there */
    int *rank_of;                  /* the rank at place j of node n, or -1 where
                                      node n has fewer places: [n * most + j] */
    int *size_of;                  /* ranks on node n */
    MPI_Comm node_comm;            /* this rank's node: place j is rank j */
    MPI_Comm leader_comm;          /* place 0 of every node (node n is rank n);
                                      MPI_COMM_NULL on the other ranks */
    int nlanes;                    /* sets of groups made so far */
    xchg_mpi_lanes lanes[XCHG_MPI_MAX_LANES];
} xchg_mpi_node_map;

/* What the executor keeps on a communicator. */
typedef struct xchg_mpi_comm {
    int refs;                      /* the attribute's, and each persistent plan's */
    MPI_Comm user;                 /* the caller's communicator: errors go to it */
    MPI_Comm comm;                 /* a duplicate: our messages never meet the
                                      caller's */
    int p, rank;
    unsigned collectives;          /* collective steps taken on comm so far */
    int one_node;                  /* every rank shares this node's memory */
    double ranks_per_core;         /* most ranks per core on any node */
    xchg_mpi_node_map nodes;       /* made when a plan asks (node_map.c) */
    xchg_mpi_store store;
    /* auto's shared segment, bought when it has paid for itself: the
     * predicted time plans saved so far by waiting for it (us), and
     * whether making it failed (then it is not tried again) */
    double shm_credit;
    int shm_failed;
    /* staging for derived datatypes: this rank's need alone, grown on
     * demand (comm.c) */
    unsigned char *staging;
    size_t staging_bytes;
    /* a variable-block exchange's tables of this call (vgeom.c): where
     * each block is and its bytes, grown on demand */
    void *vtables;
    size_t vtables_bytes;
    /* nonblocking and persistent exchanges started so far (request.c):
     * each one's tag, the same on every rank */
    unsigned nb_seq;
    xchg_mpi_settings *settings[XCHG_MPI_MAX_SETTINGS];
    unsigned settings_clock;
    xchg_mpi_inputs *inputs[XCHG_MPI_MAX_INPUTS];
    int ninputs;
    xchg_mpi_program **programs;
    size_t nprograms, programs_cap;
    xchg_mpi_plan *plans[XCHG_MPI_CACHE_PLANS];
    unsigned plans_clock;
    /* what verbose mode last said per operation: it speaks again only when
     * a new plan chooses something else */
    char said[XCHG_MPI_KINDS][XCHG_SPEC_MAX + 64];
} xchg_mpi_comm;

/*
 * The state of comm, made when there is none (collective: every rank of
 * comm calls it at the same call). *out holds a reference the caller does
 * not own (the attribute's) unless it calls xchg_mpi_comm_ref. *collectives
 * (may be NULL): the count of cs->collectives before this call, 0 when it
 * made the state, so the caller can tell how many its call took. An MPI
 * error code; *out NULL on error.
 */
XCHG_MPI_INTERNAL int xchg_mpi_comm_get(MPI_Comm comm, xchg_mpi_comm **out,
                                        unsigned *collectives);
XCHG_MPI_INTERNAL void xchg_mpi_comm_ref(xchg_mpi_comm *cs);
/* Drop a reference; the last one frees the state (NULL is fine). */
XCHG_MPI_INTERNAL void xchg_mpi_comm_unref(xchg_mpi_comm *cs);

/* staging.c: buf (of *bytes bytes, malloc'd or NULL) when it holds n
 * bytes, else buf grown to n by realloc and *bytes set; NULL when the
 * memory cannot be had (buf then unchanged, still the caller's). */
XCHG_MPI_INTERNAL void *xchg_mpi_grow(void *buf, size_t *bytes, size_t n);
/* staging.c: this rank's staging of at least n bytes (kept and grown,
 * never used by two calls at once: one collective at a time on a
 * communicator), or NULL when it cannot be had. */
XCHG_MPI_INTERNAL unsigned char *xchg_mpi_comm_staging(xchg_mpi_comm *cs, size_t n);
/* staging.c: this rank's tables of at least n bytes for a variable-block
 * exchange's call (kept and grown, apart from the staging), or NULL. */
XCHG_MPI_INTERNAL void *xchg_mpi_comm_vtables(xchg_mpi_comm *cs, size_t n);

/* nodes.c: the communicator's nodes: cs->one_node and cs->ranks_per_core,
 * the same on every rank (collective on cs->comm). An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_nodes(xchg_mpi_comm *cs);

/* node_map.c: cs->nodes, made at the first call (collective on cs->comm;
 * every rank's plan asks at the same call): the ranks grouped by node
 * (XCHG_NODE_SIZE=K: ranks K*n to K*n+K-1 are node n, emulating nodes on
 * one machine; else MPI_COMM_TYPE_SHARED), nodes numbered by their lowest
 * rank (XCHG_NODE_PLACEMENT=cyclic: rank r on node r mod N). Nodes may
 * hold unequal numbers of ranks. cs->nodes.ok unless the environment
 * variables are not as accepted (why says so). An MPI error code (a map
 * that is not ok is no error). */
XCHG_MPI_INTERNAL int xchg_mpi_node_map_get(xchg_mpi_comm *cs);
/* node_map.c: XCHG_NODE_SIZE's ranks a node: K, 0 when it is not set, or
 * -1 when it (or XCHG_NODE_PLACEMENT) is not as accepted (why says so);
 * *cyclic: XCHG_NODE_PLACEMENT=cyclic. */
XCHG_MPI_INTERNAL int xchg_mpi_node_size_env(int *cyclic, char *why, size_t len);
/* node_map.c: the groups for L leaders a node (collective on cs->comm,
 * made at the first plan that asks, kept; every node must hold L groups:
 * the caller checks), into *out; NULL when the communicator keeps
 * XCHG_MPI_MAX_LANES sets already (not an error: the plan falls back). An
 * MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_lanes_get(xchg_mpi_comm *cs, int leaders,
                                         const xchg_mpi_lanes **out);
/* node_map.c: 1 when comm is one the node-aware exchange made for its own
 * exchanges (a lane, a node's leaders: marked with an attribute), else 0. */
XCHG_MPI_INTERNAL int xchg_mpi_lanes_own(MPI_Comm comm);
/* Free what cs->nodes holds (MPI calls only while MPI runs). */
XCHG_MPI_INTERNAL void xchg_mpi_node_map_free(xchg_mpi_node_map *m);

/* settings.c: the settings of opts on cs, made when new: locally, except
 * that the first call naming a pair of files reads them (collective:
 * rank 0 reads and broadcasts; auto_files.c). *out holds a reference the
 * caller takes with xchg_mpi_settings_ref to keep. *out NULL (and
 * MPI_SUCCESS) when cs reads XCHG_MPI_MAX_INPUTS pairs of files already. */
XCHG_MPI_INTERNAL int xchg_mpi_settings_get(xchg_mpi_comm *cs, const xchg_mpi_opts *opts,
                                            xchg_mpi_settings **out);
XCHG_MPI_INTERNAL void xchg_mpi_settings_ref(xchg_mpi_settings *s);
/* Drop a reference; the last frees the settings (NULL is fine). */
XCHG_MPI_INTERNAL void xchg_mpi_settings_unref(xchg_mpi_settings *s);
/* Free cs's settings and inputs (local). */
XCHG_MPI_INTERNAL void xchg_mpi_settings_free_all(xchg_mpi_comm *cs);

/* topo_map.c: the topology for s's topology value on cs into s (mapped,
 * topo, topo_spec; or map_why). Local. */
XCHG_MPI_INTERNAL void xchg_mpi_map_topology(const xchg_mpi_comm *cs, xchg_mpi_settings *s);

/* auto_files.c: read in's tuning and machine files into in: rank 0 reads
 * each file and broadcasts its bytes, so every rank decides from the same
 * text; a file that cannot be used is said in in->auto_note. Collective
 * on cs->comm. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_auto_files(xchg_mpi_comm *cs, xchg_mpi_inputs *in);

/* store.c: make sure st's arena holds at least bytes, and say in *ok
 * whether every rank has it. When it must grow, every rank grows it at
 * once (collective), to bytes when exact, else to at least twice its size,
 * backing with memory ahead of use only its first touch bytes (SIZE_MAX:
 * all; the rest is backed when first used: a rank that uses less of a
 * plan's buffers than others, such as a rank that is not a leader of the
 * node-aware exchange, then holds less). Every rank must call it with the
 * same bytes. An MPI error code. */
XCHG_MPI_INTERNAL int xchg_mpi_store_arena(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t bytes,
                                           size_t touch, int exact, int *ok);
/* store.c: make sure st has a segment whose slots hold slot bytes backed
 * by memory on every rank: made (collective) with slots of
 * xchg_mpi_store_shm_slot's bytes when there is none, and each slot's
 * start backed further when the blocks need more (one MPI_Allreduce); *ok
 * whether every rank has it, with the reason in why when not. An MPI
 * error code. */
/* store.c: the slot bytes of a segment made for blocks of slot bytes:
 * the largest XCHG_MPI_SHM_MAX allows p ranks (exact: slot, for a
 * persistent plan's own). Local. */
XCHG_MPI_INTERNAL size_t xchg_mpi_store_shm_slot(const xchg_mpi_comm *cs, size_t slot,
                                                 int exact);
XCHG_MPI_INTERNAL int xchg_mpi_store_shm(xchg_mpi_comm *cs, xchg_mpi_store *st, size_t slot,
                                         int exact, int *ok, char *why, size_t len);
/* Release a store's memory (local). */
XCHG_MPI_INTERNAL void xchg_mpi_store_release(xchg_mpi_store *st);

/* Bytes before the grids of a shared segment: the barrier's counters. */
#define XCHG_MPI_SHM_HEADER ((size_t)128)

/* shm_segment.c: a new shared segment of bytes mapped by every rank of cs
 * (collective; cs->one_node must hold): *seg the mapping, zeroed, or NULL
 * on every rank when any rank could not map it, with the reason in why.
 * sparse: no memory reserved for it yet (each rank backs what it uses:
 * xchg_mpi_shm_fill), where this kernel can say when it cannot; otherwise
 * all of it is reserved at once. An MPI error code.
 * xchg_mpi_shm_segment_close unmaps one (local). */
XCHG_MPI_INTERNAL int xchg_mpi_shm_segment_open(xchg_mpi_comm *cs, size_t bytes, int sparse,
                                                unsigned char **seg, char *why, size_t len);
XCHG_MPI_INTERNAL void xchg_mpi_shm_segment_close(unsigned char *seg, size_t bytes);

/* shm.c: map in advance, and back with memory, bytes [from, to) of each
 * slot of st's segment this rank writes and reads (its column and its row
 * of both grids), so its rounds neither fault on them one page at a time
 * nor meet a full /dev/shm. 0, or -1 when memory could not back them.
 * Local. */
XCHG_MPI_INTERNAL int xchg_mpi_shm_fill(const xchg_mpi_store *st, int p, int rank, size_t from,
                                        size_t to);

/* prefault.c: map in advance the pages of [at, at + bytes) (private or
 * shared memory this process will write), backing them with memory: 0; 1
 * when the kernel cannot (it lacks the advice: the pages fault as used);
 * -1 when there is no memory to back them (a full /dev/shm). Local. */
XCHG_MPI_INTERNAL int xchg_mpi_prefault(void *at, size_t bytes);
/* prefault.c: whether this kernel maps pages in advance (asked once). */
XCHG_MPI_INTERNAL int xchg_mpi_prefault_works(void);

/* plan_cache.c: the cached plan of a key equal to key (plan.h), marked
 * used, or NULL; keep a new plan (the least recently used goes when the
 * cache is full: the memo forgets every call and the plan is freed); free
 * every cached plan. */
XCHG_MPI_INTERNAL xchg_mpi_plan *xchg_mpi_cache_find(xchg_mpi_comm *cs, const xchg_mpi_key *key);
XCHG_MPI_INTERNAL void xchg_mpi_cache_put(xchg_mpi_comm *cs, xchg_mpi_plan *pl);
XCHG_MPI_INTERNAL void xchg_mpi_cache_clear(xchg_mpi_comm *cs);

#endif /* XCHG_MPI_COMM_H */
