/*
 * test_import.c - schedules read back from the export format
 * (src/export/import.c, docs/export-format.md "Import"):
 *   - round trip over the registry: every algorithm and variant (padded
 *     ":virtual" forms included) on a dozen small networks, exported as
 *     JSON and as text and imported, gives the same verification report,
 *     the same cost and the same simulations (both step modes, one-port and
 *     all-port, wormhole and virtual cut-through, th > 0), and exports again
 *     byte for byte;
 *   - files written by hand: accepted, and failing verification when they
 *     do not deliver;
 *   - every refusal, with its line, column and field;
 *   - damaged files: a small export cut at every byte and changed at every
 *     byte is refused with a message or read, never crashed on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A growing buffer the exporter writes into. */
typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static int append(void *ctx, const char *data, size_t len)
{
    buf *b = ctx;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->len + len + 1) * 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return 1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

/* s exported in format into a new buffer (data NULL on failure). */
static buf export_of(const xchg_sched *s, const char *format)
{
    buf b = {NULL, 0, 0};
    xchg_err err = {{0}};
    if (xchg_export(s, format, 0, append, &b, &err) != XCHG_OK) {
        CHECK(0, "export %s: %s", format, err.msg);
        free(b.data);
        b.data = NULL;
    }
    return b;
}

static xchg_machine machine(void)
{
    xchg_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "test");
    snprintf(m.units, sizeof m.units, "us");
    m.ts = 75;
    m.tw = 0.011;
    m.tr = 0.014;
    m.barrier = 130;
    return m;
}

/* Same verification, cost and simulations for s and its import t. */
static void same_results(const xchg_sched *s, const xchg_sched *t, const char *what)
{
    xchg_verify_opts vo = {.threads = 1};
    xchg_verify_report a, b;
    xchg_err err = {{0}};
    CHECK(xchg_verify(s, &vo, &a, &err) == 0 && xchg_verify(t, &vo, &b, &err) == 0,
          "%s: verify: %s", what, err.msg);
    CHECK(a.ok == b.ok && a.blocks == b.blocks && a.steps == b.steps &&
              a.failures == b.failures && a.undelivered == b.undelivered &&
              a.size_mismatches == b.size_mismatches &&
              a.port_violations == b.port_violations && a.route_failures == b.route_failures &&
              a.link_conflicts == b.link_conflicts &&
              a.max_link_messages == b.max_link_messages && a.startups == b.startups &&
              a.volume_blocks == b.volume_blocks &&
              a.link_volume_blocks == b.link_volume_blocks && a.max_hops == b.max_hops,
          "%s: verification differs (ok %d/%d, volume %llu/%llu, link volume %llu/%llu)", what,
          a.ok, b.ok, (unsigned long long)a.volume_blocks, (unsigned long long)b.volume_blocks,
          (unsigned long long)a.link_volume_blocks, (unsigned long long)b.link_volume_blocks);
    CHECK(b.ok, "%s: the import does not verify: %s", what, b.reported ? b.msgs[0] : "");
    xchg_machine mach = machine();
    for (int barrier = 0; barrier < 2; barrier++) {
        xchg_cost ca, cb;
        CHECK(xchg_cost_compute(s, &mach, 64, barrier, &ca, &err) == 0 &&
                  xchg_cost_compute(t, &mach, 64, barrier, &cb, &err) == 0,
              "%s: cost: %s", what, err.msg);
        CHECK(ca.time == cb.time && ca.startups == cb.startups &&
                  ca.volume_blocks == cb.volume_blocks && ca.copy_blocks == cb.copy_blocks &&
                  ca.steps == cb.steps,
              "%s: cost differs (%.17g / %.17g, copies %llu / %llu)", what, ca.time, cb.time,
              (unsigned long long)ca.copy_blocks, (unsigned long long)cb.copy_blocks);
    }
    for (int mode = 0; mode < 2; mode++)
        for (int ports = 0; ports < 2; ports++)
            for (int routing = 0; routing < 2; routing++) {
                xchg_sim_opts o = {.mode = mode, .all_port = ports, .routing = routing,
                                   .th = 0.5};
                xchg_sim_report ra, rb;
                CHECK(xchg_sim_run(s, &mach, 64, &o, &ra, &err) == 0 &&
                          xchg_sim_run(t, &mach, 64, &o, &rb, &err) == 0,
                      "%s: sim: %s", what, err.msg);
                CHECK(ra.time == rb.time && ra.predicted == rb.predicted &&
                          ra.messages == rb.messages && ra.link_hops == rb.link_hops &&
                          ra.wait == rb.wait && ra.waited == rb.waited,
                      "%s: sim (mode %d, ports %d, routing %d) differs: %.17g / %.17g", what,
                      mode, ports, routing, ra.time, rb.time);
            }
}

static unsigned long round_trips;

/* Export spec on tspec both ways, import, compare. */
static void round_trip(const char *tspec, const char *spec)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return;
    const char *formats[2] = {"json", "text"};
    for (int f = 0; f < 2; f++) {
        char what[160];
        snprintf(what, sizeof what, "%s on %s (%s)", spec, tspec, formats[f]);
        buf b = export_of(s, formats[f]);
        if (!b.data)
            continue;
        xchg_sched *t = NULL;
        xchg_err err = {{0}};
        if (xchg_import(b.data, b.len, NULL, &t, &err) != XCHG_OK) {
            CHECK(0, "%s: import: %s", what, err.msg);
            free(b.data);
            continue;
        }
        CHECK(!strcmp(xchg_sched_algorithm(t), xchg_sched_algorithm(s)) &&
                  xchg_sched_nsteps(t) == xchg_sched_nsteps(s) &&
                  !xchg_sched_contention_free(t),
              "%s: name, steps and claim", what);
        same_results(s, t, what);
        buf again = export_of(t, formats[f]);
        CHECK(again.data && again.len == b.len && !memcmp(again.data, b.data, b.len),
              "%s: export of the import differs", what);
        round_trips++;
        free(again.data);
        free(b.data);
        xchg_sched_free(t);
    }
    xchg_sched_free(s);
}

static void test_registry(void)
{
    const char *topos[] = {"ring:4",     "ring:5",     "ring:8",      "ring:9",
                           "array:5",    "mesh:3x4",   "torus:4x4",   "torus:4x6",
                           "torus:8x8",  "hypercube:2", "hypercube:3", "hypercube:5",
                           "complete:5", "torus:3x3x3", "tree:3"};
    for (size_t i = 0; i < sizeof topos / sizeof topos[0]; i++) {
        xchg_topo t = check_topo(topos[i]);
        for (size_t a = 0; a < xchg_alg_count(); a++) {
            const xchg_alg *alg = xchg_alg_at(a);
            xchg_spec specs[XCHG_MAX_VARIANTS];
            int n = xchg_alg_variants(&t, alg, specs, XCHG_MAX_VARIANTS, NULL);
            for (int k = 0; k < n; k++)
                round_trip(topos[i], specs[k]);
            /* the hosted form too, where the entry offers one */
            char v[XCHG_SPEC_MAX];
            snprintf(v, sizeof v, "%s:virtual", alg->name);
            xchg_estimate est;
            if (alg->needs.virtual_any_size && n > 0 && strcmp(specs[0], v) &&
                xchg_estimate_spec(&t, v, &est, NULL) == XCHG_OK)
                round_trip(topos[i], v);
        }
    }
    CHECK(round_trips > 250, "only %lu round trips", round_trips);
}

/* Every operation's algorithm (alg->op other than the exchange) on several
 * topologies, with roots and shifts other than the default: the files name
 * the operation (and the phases of the split ones), list its tokens only,
 * and import to the same operation with the same verification, cost and
 * simulations. */
static void test_ops_round_trip(void)
{
    const char *topos[] = {"hypercube:1", "hypercube:2", "hypercube:3", "hypercube:4",
                           "ring:8",      "torus:4x4",   "mesh:2x4",    "ring:5",
                           "array:6",     "mesh:3x3",    "complete:4",  "tree:2",
                           "tree:4"};
    unsigned long before = round_trips;
    for (size_t a = 0; a < xchg_alg_count(); a++) {
        const xchg_alg *alg = xchg_alg_at(a);
        if (alg->op == XCHG_OP_ALLTOALL)
            continue;
        int rooted = alg->op == XCHG_OP_BCAST || alg->op == XCHG_OP_REDUCE ||
                     alg->op == XCHG_OP_SCATTER || alg->op == XCHG_OP_GATHER;
        unsigned long mine = round_trips;
        for (size_t i = 0; i < sizeof topos / sizeof topos[0]; i++) {
            xchg_topo t = check_topo(topos[i]);
            uint32_t p = t.nodes;
            uint32_t params[3] = {p - 1, p / 2 + 1 < p ? p / 2 + 1 : 1, 1};
            for (int k = 0; k < 3; k++) {
                char spec[XCHG_SPEC_MAX];
                if (rooted)
                    snprintf(spec, sizeof spec, "%s:root=%u", alg->name, params[k]);
                else if (alg->op == XCHG_OP_SHIFT)
                    snprintf(spec, sizeof spec, "%s:q=%u", alg->name, params[k] ? params[k] : 1);
                else if (k == 0)
                    snprintf(spec, sizeof spec, "%s", alg->name);
                else
                    break;
                xchg_estimate est;
                if (xchg_estimate_spec(&t, spec, &est, NULL) != XCHG_OK)
                    continue; /* does not apply here */
                xchg_sched *s = check_generate(topos[i], spec);
                if (!s)
                    continue;
                xchg_op op, back;
                xchg_sched_op(s, &op);
                CHECK(op.kind == alg->op, "%s: the schedule's operation", spec);
                for (int f = 0; f < 2; f++) {
                    buf b = export_of(s, f ? "text" : "json");
                    xchg_sched *u = NULL;
                    xchg_err err = {{0}};
                    if (!b.data || xchg_import(b.data, b.len, NULL, &u, &err) != XCHG_OK) {
                        CHECK(0, "%s on %s: import: %s", spec, topos[i], err.msg);
                        free(b.data);
                        continue;
                    }
                    xchg_sched_op(u, &back);
                    CHECK(back.kind == op.kind && back.root == op.root &&
                              back.shift == op.shift && back.pieces == op.pieces &&
                              xchg_sched_nphases(u) == xchg_sched_nphases(s),
                          "%s on %s: the import performs %s root %u q %u pieces %u", spec,
                          topos[i], xchg_op_name(back.kind), back.root, back.shift,
                          back.pieces);
                    for (size_t ph = 0; ph < xchg_sched_nphases(s); ph++) {
                        xchg_op x = {0}, y = {0};
                        size_t xa = 0, xb = 0, ya = 1, yb = 1;
                        xchg_sched_phase(s, ph, &x, &xa, &xb);
                        xchg_sched_phase(u, ph, &y, &ya, &yb);
                        CHECK(x.kind == y.kind && x.root == y.root && x.shift == y.shift &&
                                  xa == ya && xb == yb,
                              "%s on %s: phase %zu", spec, topos[i], ph);
                    }
                    /* the operation's tokens only are listed */
                    const char *name = f ? " operation " : "\"operation\":{\"name\":";
                    CHECK(strstr(b.data, name) != NULL, "%s: the file names the operation",
                          spec);
                    char what[160];
                    snprintf(what, sizeof what, "%s on %s (%s)", spec, topos[i],
                             f ? "text" : "json");
                    same_results(s, u, what);
                    buf again = export_of(u, f ? "text" : "json");
                    CHECK(again.data && again.len == b.len && !memcmp(again.data, b.data, b.len),
                          "%s: export of the import differs", what);
                    round_trips++;
                    free(again.data);
                    free(b.data);
                    xchg_sched_free(u);
                }
                xchg_sched_free(s);
            }
        }
        CHECK(round_trips - mine >= 6, "%s: only %lu round trips", alg->name,
              round_trips - mine);
    }
    CHECK(round_trips - before >= 100, "only %lu round trips of the operations",
          round_trips - before);
}

/* A bcast from root 5 on hypercube:3 lists the root's tokens only, and
 * its messages are one block each (the root's data). */
static void test_ops_tokens(void)
{
    xchg_sched *s = check_generate("hypercube:3", "bcast-hc:root=5");
    if (!s)
        return;
    buf b = export_of(s, "text");
    if (b.data) {
        CHECK(strstr(b.data, "# xchg-schedule/1 topology hypercube:3 algorithm "
                             "bcast-hc:root=5 nodes 8 steps 3 operation bcast root 5\n") ==
                  b.data,
              "bcast header: %.120s", b.data);
        CHECK(strstr(b.data, "  5 -> 1  route d2-1x1  blocks (5,0) (5,1) (5,2) (5,3)\n") &&
                  !strstr(b.data, "(1,"),
              "bcast lists the root's tokens only:\n%s", b.data);
        xchg_sched *t = NULL;
        xchg_err err = {{0}};
        CHECK(xchg_import(b.data, b.len, NULL, &t, &err) == XCHG_OK, "bcast: %s", err.msg);
        if (t) {
            xchg_msg m;
            xchg_sched_message(t, 0, 5, &m);
            CHECK(m.to == 1 && m.blocks == 1, "bcast: 4 tokens, 1 block (%llu)",
                  (unsigned long long)m.blocks);
            xchg_sched_free(t);
        }
        free(b.data);
    }
    xchg_sched_free(s);
    /* the complete exchange's files carry no operation */
    s = check_generate("hypercube:2", "hc-standard");
    if (s) {
        for (int f = 0; f < 2; f++) {
            b = export_of(s, f ? "text" : "json");
            CHECK(b.data && !strstr(b.data, "operation") && !strstr(b.data, "phase"),
                  "alltoall file without operation");
            free(b.data);
        }
        xchg_sched_free(s);
    }
}

/* Import text, expecting a refusal whose message contains want. */
static void refused(const char *text, const char *want)
{
    xchg_sched *s = (xchg_sched *)&s;
    xchg_sched *before = s;
    xchg_err err = {{0}};
    int rc = xchg_import(text, strlen(text), NULL, &s, &err);
    CHECK(rc == XCHG_EINVAL, "refused [%s]: rc %d", want, rc);
    CHECK(strstr(err.msg, want) != NULL, "message for [%s] was: %s", want, err.msg);
    CHECK(s == before, "out untouched [%s]", want);
}

#define HEAD "{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"ring\",\"dims\":[4]},"
#define TXT "# xchg-schedule/1 topology ring:4 algorithm hand nodes 4 steps 1\n"

static void test_refusals(void)
{
    refused("", "this is not a schedule: it starts with the end of the file");
    refused("xchg-machine/1\n", "it starts with 'x'; accepted: xchg-schedule/1 JSON");
    refused("{\"format\":\"xchg-schedule/2\"}", "line 1, column 2, format: the format is "
                                                "'xchg-schedule/2'; accepted: 'xchg-schedule/1'");
    refused(HEAD "\"steps\":[]", "expected ',' or '}', found the end of the file");
    refused(HEAD "\"steps\":[]} x", "unexpected 'x' after the schedule's closing '}'");
    refused(HEAD "\"nodes\":5,\"steps\":[]}", "nodes is 5 but the topology has 4");
    refused("{\"format\":\"xchg-schedule/1\",\"steps\":[]}", "the topology is not given before "
                                                           "the steps");
    refused("{\"topology\":{\"kind\":\"ring\",\"dims\":[4]},\"steps\":[]}",
            "the format is not given before the steps");
    refused("{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"ring\",\"dims\":[4]}}",
            "the file has no steps");
    refused("{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"donut\",\"dims\":[4]},"
            "\"steps\":[]}",
            "column 40, topology: donut:4: unknown topology kind");
    refused("{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"ring\"},\"steps\":[]}",
            "a topology is {\"kind\":K,\"dims\":[N,...]}");
    refused(HEAD "\"colour\":1}", "unknown key 'colour'; accepted: format, topology");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,1]]}]],"
                 "\"steps\":[]}",
            "'steps' is given twice");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":5,\"route\":[],\"blocks\":[[0,1]]}]]}",
            "steps[0][0]: node 5 is not in the topology; accepted: 0 to 3");
    refused(HEAD "\"steps\":[[{\"from\":1,\"to\":1,\"route\":[],\"blocks\":[[1,2]]}]]}",
            "steps[0][0]: node 1 sends to itself");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,1]]},"
                 "{\"from\":0,\"to\":3,\"route\":[[0,-1,1]],\"blocks\":[[0,3]]}]]}",
            "node 0 sends a second message in this step");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,2]],\"blocks\":[[0,1]]}]]}",
            "steps[0]: the route is not a dimension-ordered route from 'from' to 'to'");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":2,\"route\":[[0,1,2]],\"blocks\":[[0,2]]},"
                 "{\"from\":1,\"to\":3,\"route\":[[0,-1,2]],\"blocks\":[[1,3]]}]]}",
            "this route goes the other way round from the step's other messages");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[1,2]]}]]}",
            "block (1,2) is sent by a node that does not hold it: it is at node 1");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,1],"
                 "[0,1]]}]]}",
            "block (0,1) is listed twice in this step");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,9]]}]]}",
            "steps[0][0].blocks[0]: block (0,9) names a node past the last one");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[]}]]}",
            "steps[0][0]: a message with no blocks");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"blocks\":[[0,1]]}]]}",
            "'route' is missing");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1.5,\"route\":[],\"blocks\":[]}]]}",
            "steps[0][0].to: a node must be a whole number");
    refused(HEAD "\"steps\":[[{\"from\":-1,\"to\":1,\"route\":[],\"blocks\":[]}]]}",
            "steps[0][0].from: expected a node (a whole number), found '-'");
    refused(HEAD "\"steps\":[[{\"from\":99999999999999999999999,\"to\":1}]]}",
            "a node is too large");
    refused(HEAD "\"steps\":[[{\"from\":0,\"to\":1,\"route\":[[0,2,1]],\"blocks\":[[0,1]]}]]}",
            "a direction is +1 or -1");
    refused(HEAD "\"steps\":[[]],\"copies\":[1,2]}", "copies: 2 copies for 1 steps");
    refused(HEAD "\"algorithm\":\"a b\",\"steps\":[]}", "the algorithm name is empty or has a "
                                                       "space");
    refused(HEAD "\"algorithm\":\"\\u0041\",\"steps\":[]}", "unsupported escape");
    refused(HEAD "\n\"steps\":[\n[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[2,3]]}]]}",
            "line 3, column 2, steps[0]: block (2,3) is sent by a node");
    /* text */
    refused("# xchg-schedule/1 topology ring:4 nodes 4 steps 1\n", "the header needs topology, "
                                                                  "algorithm, nodes and steps");
    refused("# xchg-schedule/1 topology ring:4 algorithm a nodes 4 steps 2\nstep 1\n  0 -> 1  "
            "route d0+1x1  blocks (0,1)\n",
            "the header says 2 steps but the file has 1 (is it cut short?)");
    refused(TXT "step 2\n", "line 2, column 7: expected 'step 1'");
    refused(TXT "  0 -> 1  route d0+1x1  blocks (0,1)\n", "a message before the first 'step' "
                                                         "line");
    refused(TXT "step 1\n  0 => 1  route d0+1x1  blocks (0,1)\n", "line 3, column 7: expected "
                                                                  "'->' after the sender");
    refused(TXT "step 1\n  0 -> 1  route d0*1x1  blocks (0,1)\n", "route segment 'd0*1x1'");
    refused(TXT "step 1\n  0 -> 1  route d0+1x1  blocks (0,1\n", "block '(0,1'; accepted: "
                                                                 "(origin,destination)");
    refused(TXT "step 1\n  0 -> 1  route d0+1x1  blocks (3,1)\n", "block (3,1) is sent by a "
                                                                  "node that does not hold it");
    refused(TXT "step 1 copies x\n", "after 'step N' only 'copies C' is accepted");
    refused(TXT "step 1\n  (no messages)\n  0 -> 1  route d0+1x1  blocks (0,1)\n",
            "line 4, column 1: a message after '(no messages)'");
    const char nul[] = TXT "step 1\n  0 -> 1\0 route\n";
    xchg_sched *s;
    xchg_err err = {{0}};
    CHECK(xchg_import(nul, sizeof nul - 1, NULL, &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "a NUL byte"),
          "NUL: %s", err.msg);
    /* the memory limit: ring:4096 would replay 16.8 million blocks */
    const char *big = "{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"ring\","
                      "\"dims\":[4096]},\"steps\":[]}";
    xchg_import_opts lim = {.max_bytes = 1 << 20};
    CHECK(xchg_import(big, strlen(big), &lim, &s, &err) == XCHG_EINVAL &&
              strstr(err.msg, "replaying its blocks takes 64.0 MiB") &&
              strstr(err.msg, "over the memory limit of 1.0 MiB"),
          "memory limit: %s", err.msg);
    CHECK(xchg_import(NULL, 0, NULL, &s, &err) == XCHG_EINVAL, "NULL text");
}

#define TXT0 "# xchg-schedule/1 topology ring:4 algorithm hand nodes 4 steps 0"

/* Damaged operation fields, in both formats: each refused with its line,
 * column (JSON: field) and what is accepted. */
static void test_op_refusals(void)
{
    refused(HEAD "\"operation\":{\"name\":\"bcats\",\"root\":0},\"steps\":[]}",
            "column 80, operation.name: unknown operation 'bcats'; accepted: alltoall, bcast, "
            "reduce, allgather, reduce_scatter, allreduce, scan, scatter, gather, shift");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":4},\"steps\":[]}",
            "column 79, operation: bcast: root 4 is not a node; accepted: 0 to 3");
    refused(HEAD "\"operation\":{\"name\":\"shift\",\"q\":0},\"steps\":[]}",
            "operation: shift: q = 0; accepted: 1 to 3 (p - 1)");
    refused(HEAD "\"operation\":{\"name\":\"shift\",\"q\":4},\"steps\":[]}",
            "operation: shift: q = 4; accepted: 1 to 3 (p - 1)");
    refused(HEAD "\"operation\":{\"name\":\"shift\"},\"steps\":[]}",
            "operation: shift needs its q; accepted: q from 1 to 3");
    refused(HEAD "\"operation\":{\"name\":\"bcast\"},\"steps\":[]}",
            "operation: bcast needs its root; accepted: root R, a node 0 to 3");
    refused(HEAD "\"operation\":{\"name\":\"allgather\",\"root\":1},\"steps\":[]}",
            "operation: allgather has no root; accepted: root with bcast, reduce, scatter");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":1,\"q\":1},\"steps\":[]}",
            "operation: bcast has no q; accepted: q with shift only");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":1,\"pieces\":0},"
                 "\"steps\":[]}",
            "pieces is 0; accepted: 1 or more");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":1},\"operation\":{\"name\":"
                 "\"bcast\",\"root\":1},\"steps\":[]}",
            "'operation' is given twice");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":1,\"root\":2},\"steps\":[]}",
            "operation.root: 'root' is given twice");
    refused(HEAD "\"operation\":{\"root\":1},\"steps\":[]}",
            "operation: 'name' is missing");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"rot\":1},\"steps\":[]}",
            "operation: unknown key 'rot'; accepted: name, root, q, pieces");
    refused(HEAD "\"steps\":[],\"operation\":{\"name\":\"bcast\",\"root\":1}}",
            "'operation' comes after the steps; accepted: before \"steps\"");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":1},\"steps\":[[{\"from\":0,"
                 "\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,1]]}]]}",
            "steps[0][0].blocks[0]: block (0,1) is not a token of the step's operation; "
            "accepted: bcast root 1: (1,d) only");
    refused(HEAD "\"phases\":[{\"name\":\"scatter\",\"root\":0,\"first\":0}],"
                 "\"steps\":[]}",
            "phases in a file that names no operation");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":0},\"phases\":[{\"name\":"
                 "\"scatter\",\"root\":0,\"first\":1}],\"steps\":[]}",
            "phases[0]: the first phase starts at step 1; accepted: 0");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":0},\"phases\":[{\"name\":"
                 "\"scatter\",\"root\":0,\"first\":0},{\"name\":\"allgather\"}],"
                 "\"steps\":[]}",
            "phases[1]: 'first' is missing");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":0},\"phases\":[{\"name\":"
                 "\"scatter\",\"root\":9,\"first\":0}],\"steps\":[]}",
            "phases[0]: scatter: root 9 is not a node; accepted: 0 to 3");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":0},\"phases\":[{\"name\":"
                 "\"scatter\",\"root\":0,\"first\":0},{\"name\":\"allgather\",\"first\":2}],"
                 "\"steps\":[[]]}",
            "phases[1].first: this phase starts at step 2 but the file has 1 steps");
    refused(HEAD "\"operation\":{\"name\":\"bcast\",\"root\":0},\"phases\":[{\"name\":"
                 "\"scatter\",\"root\":0,\"first\":0},{\"name\":\"allgather\",\"first\":2},"
                 "{\"name\":\"allgather\",\"first\":1}],\"steps\":[[],[]]}",
            "phases[2]: this phase starts at step 1, before the phase ahead of it (step 2)");
    /* text */
    refused(TXT0 " operation bcats\n", "line 1, column 76: unknown operation 'bcats'; "
                                      "accepted: alltoall, bcast, reduce");
    refused(TXT0 " operation bcast root 4\n",
            "line 1, column 76: the header's operation: bcast: root 4 is not a node; "
            "accepted: 0 to 3");
    refused(TXT0 " operation shift q 0\n", "the header's operation: shift: q = 0; accepted: "
                                          "1 to 3 (p - 1)");
    refused(TXT0 " operation shift q 4\n", "shift: q = 4; accepted: 1 to 3 (p - 1)");
    refused(TXT0 " operation shift\n", "shift needs its q");
    refused(TXT0 " operation bcast root 1 operation bcast root 1\n",
            "the header's 'operation' is given twice");
    refused(TXT0 " operation bcast root 1 root 2\n", "'root' is given twice");
    refused(TXT0 " root 1 operation bcast\n", "the header's 'root' comes before 'operation'");
    refused(TXT0 " operation bcast root x\n", "'root x': accepted: a whole number");
    refused(TXT0 "\nphase scatter root 0\n",
            "line 2, column 1: a 'phase' line in a file whose header names no operation");
    refused(TXT0 " operation bcast root 0\nphase scatter root 7\n",
            "line 2, column 1: the 'phase' line: scatter: root 7 is not a node");
    refused(TXT0 " operation bcast root 0\nphase scatter root 0 colour 1\n",
            "the phase's 'colour 1' is not understood");
    refused("# xchg-schedule/1 topology ring:4 algorithm hand nodes 4 steps 1 operation "
            "bcast root 0\nstep 1\nphase scatter root 0\n",
            "line 3, column 1: the first 'phase' line comes after step 1");
    refused("# xchg-schedule/1 topology ring:4 algorithm hand nodes 4 steps 1 operation "
            "reduce root 2\nstep 1\n  0 -> 1  route d0+1x1  blocks (0,1)\n",
            "line 3, column 37: block (0,1) is not a token of the step's operation; accepted: "
            "reduce root 2: (o,2) only");
    refused("# xchg-schedule/1 topology ring:4 algorithm hand nodes 4 steps 1 operation "
            "bcast root 0\nphase scatter root 0\nphase allgather\n  0 -> 1  route d0+1x1  "
            "blocks (0,1)\n",
            "line 4, column 4: a message before its 'step' line");
}

/* Files written by hand: a ring:4 exchange in three steps, and one that
 * forgets a block (imported, but fails verification). */
static void test_by_hand(void)
{
    const char *good = "# xchg-schedule/1 topology ring:4 algorithm by-hand nodes 4 steps 3\n"
                       "step 1\n"
                       "  0 -> 1  route d0+1x1  blocks (0,1) (0,2) (0,3)\n"
                       "  1 -> 2  route d0+1x1  blocks (1,2) (1,3) (1,0)\n"
                       "  2 -> 3  route d0+1x1  blocks (2,3) (2,0) (2,1)\n"
                       "  3 -> 0  route d0+1x1  blocks (3,0) (3,1) (3,2)\n"
                       "\n"
                       "step 2\n"
                       "  0 -> 1  route d0+1x1  blocks (3,1) (3,2)\n"
                       "  1 -> 2  route d0+1x1  blocks (0,2) (0,3)\n"
                       "  2 -> 3  route d0+1x1  blocks (1,3) (1,0)\n"
                       "  3 -> 0  route d0+1x1  blocks (2,0) (2,1)\n"
                       "step 3\n"
                       "  0 -> 1  route d0+1x1  blocks (2,1)\n"
                       "  1 -> 2  route d0+1x1  blocks (3,2)\n"
                       "  2 -> 3  route d0+1x1  blocks (0,3)\n"
                       "  3 -> 0  route d0+1x1  blocks (1,0)\n";
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_import(good, strlen(good), NULL, &s, &err) == XCHG_OK, "by hand: %s", err.msg);
    xchg_verify_opts vo = {.threads = 1};
    xchg_verify_report r;
    if (s) {
        CHECK(xchg_verify(s, &vo, &r, &err) == 0 && r.ok && r.volume_blocks == 6,
              "by hand: verifies, volume %llu", (unsigned long long)r.volume_blocks);
        xchg_sched *ring = check_generate("ring:4", "ring");
        if (ring) {
            xchg_machine mach = machine();
            xchg_cost a, b;
            xchg_cost_compute(s, &mach, 100, 0, &a, &err);
            xchg_cost_compute(ring, &mach, 100, 0, &b, &err);
            CHECK(a.time == b.time, "by hand costs as the registry's ring: %.17g %.17g", a.time,
                  b.time);
            xchg_sched_free(ring);
        }
        xchg_sched_free(s);
    }
    /* the last step forgets (1,0): imported, but not delivered */
    char *bad = strdup(good);
    char *cut = strstr(bad, "  3 -> 0  route d0+1x1  blocks (1,0)\n");
    if (cut)
        *cut = '\0';
    s = NULL;
    CHECK(cut && xchg_import(bad, strlen(bad), NULL, &s, &err) == XCHG_OK, "forgetful: %s",
          err.msg);
    if (s) {
        CHECK(xchg_verify(s, &vo, &r, &err) == 0 && !r.ok && r.undelivered == 1,
              "forgetful: fails verification, %llu undelivered",
              (unsigned long long)r.undelivered);
        xchg_sched_free(s);
    }
    free(bad);
}

/* Cut a small export at every byte and change every byte: refused with a
 * message or read, and a schedule read is one the verifier can run. The
 * exchange's file, and one naming an operation and its phases. */
static void test_damaged(const char *tspec, const char *spec)
{
    xchg_sched *s = check_generate(tspec, spec);
    if (!s)
        return;
    for (int f = 0; f < 2; f++) {
        buf b = export_of(s, f ? "text" : "json");
        if (!b.data)
            continue;
        size_t silent = 0, read = 0;
        for (size_t cut = 0; cut <= b.len; cut++) {
            xchg_sched *t = NULL;
            xchg_err err = {{0}};
            if (xchg_import(b.data, cut, NULL, &t, &err) == XCHG_OK) {
                read++;
                xchg_sched_free(t);
            } else if (!err.msg[0]) {
                silent++;
            }
        }
        const char flips[] = {'\0', '\n', ' ', '[', ']', '{', '"', ',', '-', '9', '0', 'x'};
        for (size_t i = 0; i < b.len; i++)
            for (size_t k = 0; k < sizeof flips; k++) {
                char keep = b.data[i];
                b.data[i] = flips[k];
                xchg_sched *t = NULL;
                xchg_err err = {{0}};
                if (xchg_import(b.data, b.len, NULL, &t, &err) == XCHG_OK) {
                    xchg_verify_opts vo = {.threads = 1};
                    xchg_verify_report r;
                    silent += xchg_verify(t, &vo, &r, &err) != 0;
                    xchg_sched_free(t);
                } else if (!err.msg[0]) {
                    silent++;
                }
                b.data[i] = keep;
            }
        CHECK(silent == 0, "%s: %zu damaged files refused without a message or unusable",
              f ? "text" : "json", silent);
        CHECK(read >= 1, "%s: the whole file reads (%zu cuts read)", f ? "text" : "json", read);
        free(b.data);
    }
    xchg_sched_free(s);
}

int main(void)
{
    test_registry();
    test_ops_round_trip();
    test_ops_tokens();
    test_refusals();
    test_op_refusals();
    test_by_hand();
    test_damaged("torus:2x3", "bruck");
    test_damaged("hypercube:2", "bcast-split:root=1");
    test_damaged("ring:4", "shift-hc:q=3");
    return check_finish("test_import");
}
