/*
 * virtual.h - hosting a schedule made for a larger "virtual" network on the
 * real one (Liu et al., conclusion: "by adding virtual nodes the algorithms
 * work for any number of nodes per dimension").
 *
 * Mapping, per dimension: a real dimension of n nodes stands for a virtual
 * one of n' >= n; virtual coordinate c' is hosted by real coordinate
 * floor(c' * n / n') (a contraction: virtual neighbours land on the same or
 * neighbouring real nodes, in the same direction), and real coordinate c is
 * virtual coordinate ceil(c * n' / n), its "primary" virtual node. Real
 * block (o, d) is virtual block (primary(o), primary(d)); the other virtual
 * nodes own no blocks and only relay.
 *
 * Hosting: before virtual step t a real block sits on the host of the
 * virtual node holding it. A real node sends the messages of every virtual
 * node it hosts (honest: a host does its guests' sends too). Messages
 * between virtual nodes of one host are local moves (free, no message);
 * messages from one host to one other host in the same virtual step are
 * merged into one. The remaining messages are packed, largest first, into
 * as many real sub-steps as needed so that in each sub-step every real node
 * sends at most one message and receives at most one (one-port) and no
 * directed link carries two (routes: shortest, dimension-ordered). The real
 * schedule is therefore contention-free; its declared sizes count real
 * blocks only, so the cost model charges exactly what the real network
 * carries: start-ups = real sub-steps, volume = sum of their largest messages.
 *
 * Use (a generator for sizes its algorithm does not accept):
 *     xchg_topo v = the real topology with every size rounded up;
 *     build the virtual schedule vs on v (any registry-style schedule);
 *     return xchg_virtual_embed(real, vs, my_locate_or_NULL, "name:virtual",
 *                               out, err);
 * vs is taken over (freed with the result, or on failure). The locate
 * callback says where a virtual block is before a virtual step; NULL asks
 * the block follower (src/sched/follow.h) compiled from vs, which the
 * hosted schedule keeps: correct for every schedule, O(step) per call, so
 * slow on large networks, where a generator's closed form is better.
 *
 * Cost of building: the real sizes come from following every block that
 * has a real origin and destination (or every block with a virtual-only end
 * and subtracting, whichever is fewer) through the virtual schedule:
 * O(min(p^2, p'^2 - p^2) * steps) rule evaluations; memory O(p' * steps)
 * (the compiled follower, the sizes) and a partner and a blocks table of p
 * entries per real step, none per block. The hosted schedule's ctx_bytes
 * counts the guest schedule, its follower and the maps it keeps. How many
 * real sub-steps a virtual step packs into is known only once packed;
 * virtual.c (substeps_max) bounds it from the guests one real node hosts,
 * and xchg_virtual_estimate counts every virtual step at that bound.
 */
#ifndef XCHG_VIRTUAL_H
#define XCHG_VIRTUAL_H

#include "sched/sched_internal.h"

/* Where virtual block (vo, vd) is, as a virtual node, just before virtual
 * step vstep (vstep = number of steps: at the end). Must only read vs. */
typedef uint32_t (*xchg_virtual_locate_fn)(const xchg_sched *vs, size_t vstep, uint32_t vo,
                                           uint32_t vd);

/*
 * 0 when the real topology can host the virtual one: same kind and number of dimensions (ring, torus, array or mesh), and
 * every virtual size >= the real one. Else XCHG_ENOTAPPLIC with a message.
 */
XCHG_INTERNAL int xchg_virtual_check(const xchg_topo *real, const xchg_topo *virt,
                                     xchg_err *err);

/* Real node hosting virtual node v (see the mapping above). */
XCHG_INTERNAL uint32_t xchg_virtual_host(const xchg_topo *real, const xchg_topo *virt,
                                         uint32_t v);

/* Primary virtual node of real node n (the one whose blocks are n's). */
XCHG_INTERNAL uint32_t xchg_virtual_primary(const xchg_topo *real, const xchg_topo *virt,
                                            uint32_t n);

/*
 * Host schedule vs (made on a virtual topology that `real` can host) on
 * `real`. Takes vs over in every case. locate may be NULL (see above).
 * The result is named `name`, claims contention-free, and is freed with
 * xchg_sched_free. Returns 0, XCHG_ENOTAPPLIC (topologies do not match),
 * XCHG_ENOMEM, XCHG_ETOOBIG (a real message of 2^32 blocks or more, or more
 * than 65535 sub-steps in one step), or XCHG_EINTERNAL when vs is malformed
 * or its declared sizes disagree with what its rules select (vs is broken).
 */
XCHG_INTERNAL int xchg_virtual_embed(const xchg_topo *real, xchg_sched *vs,
                                     xchg_virtual_locate_fn locate, const char *name,
                                     xchg_sched **out, xchg_err *err);

/*
 * What xchg_virtual_embed takes (xchg_estimate) to host, on real, a
 * schedule built for virt whose own estimate is *guest: the guest schedule
 * (kept in the hosted schedule's context) and everything the hosting
 * allocates and keeps or uses while it builds, the real steps (at most; the
 * packing into sub-steps is known only once built) with their tables, and
 * the work of following the blocks that fix the real sizes. Closed form, no
 * allocation.
 */
XCHG_INTERNAL void xchg_virtual_estimate(const xchg_topo *real, const xchg_topo *virt,
                                         const xchg_estimate *guest, xchg_estimate *out);

#endif /* XCHG_VIRTUAL_H */
