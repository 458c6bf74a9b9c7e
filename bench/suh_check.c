/*
 * suh_check.c - message-level check of a schedule too big to follow block
 * by block (seed 000's t1, t2, t1.x on 256x256: 4.3e9 blocks): for every
 * step and node, through the public API only, the message's route must end
 * at its partner, no node may receive two messages, and no directed link
 * may carry two messages in the step (a 2-node ring dimension counts its
 * +1 and -1 link as one). Also recounts start-ups and volume from the
 * declared sizes and compares them with xchg_cost_compute. It does not
 * check delivery or that declared sizes match what is held: that is
 * xchg verify's block-by-block job (run up to 128x128 in suh_verify.sh).
 *
 * Usage: suh_check TOPO ALG
 * Prints one line: "TOPO ALG steps S startups U volume V conflicts C
 * port P routes R max_hops H ok 0|1 seconds T".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xchg.h"

/* Link id: node, dimension, direction (+1 -> 1, -1 -> 0). */
static size_t link_of(const xchg_topo *t, uint32_t node, int dim, int dir)
{
    int up = t->size[dim] == 2 ? 1 : dir > 0;
    return ((size_t)node * (size_t)t->ndims + (size_t)dim) * 2 + (size_t)up;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: suh_check TOPO ALG\n");
        return 2;
    }
    xchg_topo t;
    xchg_err err = {{0}};
    xchg_sched *s = NULL;
    if (xchg_topo_parse(argv[1], &t, &err) || xchg_generate(&t, argv[2], &s, &err)) {
        fprintf(stderr, "suh_check: %s\n", err.msg);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t p = t.nodes;
    size_t nl = (size_t)p * (size_t)t.ndims * 2;
    uint32_t *lstamp = calloc(nl, sizeof *lstamp);
    uint32_t *rstamp = calloc(p, sizeof *rstamp);
    if (!lstamp || !rstamp) {
        fprintf(stderr, "suh_check: out of memory\n");
        return 2;
    }
    uint64_t conflicts = 0, port = 0, routes = 0, startups = 0, volume = 0, max_hops = 0;
    size_t n = xchg_sched_nsteps(s);
    for (size_t i = 0; i < n; i++) {
        uint32_t stamp = (uint32_t)i + 1;
        uint64_t big = 0;
        for (uint32_t v = 0; v < p; v++) {
            xchg_msg m;
            xchg_sched_message(s, i, v, &m);
            if (m.to == XCHG_NONE || m.blocks == 0)
                continue;
            if (m.blocks > big)
                big = m.blocks;
            if (m.to >= p || m.to == v || rstamp[m.to] == stamp)
                port++;
            else
                rstamp[m.to] = stamp;
            xchg_seg seg[XCHG_MAX_DIMS];
            int ns = 0;
            xchg_topo_route(&t, v, m.to, m.route_policy, seg, &ns);
            uint32_t at = v;
            uint64_t hops = 0;
            for (int k = 0; k < ns && at != XCHG_NONE; k++)
                for (uint32_t h = 0; h < seg[k].hops; h++) {
                    size_t id = link_of(&t, at, seg[k].dim, seg[k].dir);
                    if (lstamp[id] == stamp)
                        conflicts++;
                    lstamp[id] = stamp;
                    at = xchg_topo_neighbor(&t, at, seg[k].dim, seg[k].dir);
                    hops++;
                    if (at == XCHG_NONE)
                        break;
                }
            if (at != m.to)
                routes++;
            if (hops > max_hops)
                max_hops = hops;
        }
        startups += big > 0;
        volume += big;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    xchg_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.ts = 1;
    mach.tw = 1;
    snprintf(mach.units, sizeof mach.units, "t_c");
    xchg_cost c;
    int ok = xchg_cost_compute(s, &mach, 1, 0, &c, &err) == 0 && c.startups == startups &&
             c.volume_blocks == volume && conflicts == 0 && port == 0 && routes == 0 &&
             xchg_sched_contention_free(s);
    printf("%s %s steps %zu startups %llu volume %llu conflicts %llu port %llu routes %llu "
           "max_hops %llu ok %d seconds %.3f\n",
           argv[1], argv[2], n, (unsigned long long)startups, (unsigned long long)volume,
           (unsigned long long)conflicts, (unsigned long long)port, (unsigned long long)routes,
           (unsigned long long)max_hops, ok,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    free(lstamp);
    free(rstamp);
    xchg_sched_free(s);
    return ok ? 0 : 1;
}
