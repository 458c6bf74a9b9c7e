/*
 * xchg.h - public API of xchg: complete exchange (all-to-all personalized
 * communication) on direct networks. The umbrella header: it includes the
 * four headers of the API, layer by layer, as Lua's lua.h, lauxlib.h and
 * lualib.h split one API (docs/architecture.md, "The public headers"):
 *   xchg_core.h       topologies, link numbering, schedules, operations,
 *                     the block follower, the registry of algorithms;
 *   xchg_model.h      the verifier, the cost model, the planner (on core);
 *   xchg_rank.h       one rank's programs (on core);
 *   xchg_consumers.h  the simulator, export and import, drawings and plots
 *                     (on model and core).
 * A program may include this one header, or only the layers it uses.
 *
 * Data flow (docs/architecture.md): a topology spec is parsed into an
 * xchg_topo; an algorithm from the registry (xchg_alg) turns a topology and
 * options into an xchg_sched; every consumer reads that schedule through
 * these headers: the block follower (where blocks are at each step), the
 * verifier, the time line (xchg_cost_line), the planner (winners and
 * crossovers over block sizes), the simulator and the exporter.
 */
#ifndef XCHG_H
#define XCHG_H

#include "xchg_core.h"
#include "xchg_model.h"
#include "xchg_rank.h"
#include "xchg_consumers.h"

#endif /* XCHG_H */
