/*
 * test_export.c - the schedule exporter: exact xchg-schedule/1 JSON of small
 * hand-built schedules (worked out by hand in the comments), parse-free
 * checks on a larger one, a replay of the listed blocks that must deliver
 * every block, the text format, streaming in chunks, and the errors (work
 * limit, unknown format, failing sink). Algorithms from the registry are
 * exported and replayed too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sched/sched_internal.h"

/* Growing in-memory sink; counts the callback's calls. */
typedef struct buf {
    char *data;
    size_t len, cap;
    size_t calls, max_chunk;
    size_t fail_at; /* return an error on this call (1-based); 0: never */
} buf;

static int buf_write(void *ctx, const char *data, size_t len)
{
    buf *b = ctx;
    b->calls++;
    if (len > b->max_chunk)
        b->max_chunk = len;
    if (b->fail_at && b->calls == b->fail_at)
        return -7;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->len + len + 1) * 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

static void buf_reset(buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}


/* Standard exchange on hypercube:D (seed 002): step b swaps with the
 * neighbour across bit b the blocks whose destination has that bit of the
 * partner, p/2 of them. */
static xchg_sched *hc_standard(int d)
{
    char spec[32];
    snprintf(spec, sizeof spec, "hypercube:%d", d);
    xchg_topo t = check_topo(spec);
    xchg_sched *s = xchg_sched_new(&t, "test", 1);
    CHECK(s != NULL, "sched_new");
    for (int b = 0; s && b < d; b++) {
        xchg_step st = xchg_step_xor(1u << b, xchg_rule_dest_mask_to(1u << b), t.nodes / 2);
        CHECK(xchg_sched_add(s, &st) == 0, "add");
    }
    return s;
}

static int never(const void *ctx, size_t step, uint32_t node, uint32_t origin, uint32_t dest)
{
    (void)ctx, (void)step, (void)node, (void)origin, (void)dest;
    return 0;
}

/* A torus:2x3 probe: a two-segment route, an idle step, MINUS routes, and a
 * step whose messages select nothing. */
static xchg_sched *torus_probe(void)
{
    xchg_topo t = check_topo("torus:2x3");
    xchg_sched *s = xchg_sched_new(&t, "probe \"q\"", 0);
    if (!s)
        return NULL;
    int rc = 0;
    xchg_step a = xchg_step_xor(0, xchg_rule_dest_is_to(), 1);
    a.partner = XCHG_PARTNER_TABLE;
    a.partner_table = malloc(6 * sizeof *a.partner_table);
    if (a.partner_table) {
        for (int i = 0; i < 6; i++)
            a.partner_table[i] = XCHG_NONE;
        a.partner_table[0] = 4;
    }
    rc |= xchg_sched_add(s, &a);
    xchg_step b = xchg_step_xor(0, xchg_rule_dest_is_to(), 0);
    b.partner = XCHG_PARTNER_TABLE;
    b.partner_table = malloc(6 * sizeof *b.partner_table);
    if (b.partner_table)
        for (int i = 0; i < 6; i++)
            b.partner_table[i] = XCHG_NONE;
    rc |= xchg_sched_add(s, &b);
    xchg_step c = xchg_step_shift(1, 1, xchg_rule_dest_is_to(), 1);
    c.route_policy = XCHG_ROUTE_MINUS;
    rc |= xchg_sched_add(s, &c);
    xchg_step d = xchg_step_shift(0, 1, xchg_rule_fn(never), 1);
    rc |= xchg_sched_add(s, &d);
    CHECK(rc == 0 && a.partner_table && b.partner_table, "building probe");
    return s;
}

static int export_to(const xchg_sched *s, const char *fmt, uint64_t max_work, buf *b,
                     xchg_err *e)
{
    buf_reset(b);
    int rc = xchg_export(s, fmt, max_work, buf_write, b, e);
    if (!b->data) { /* keep strstr safe */
        b->data = calloc(1, 1);
        b->cap = 1;
    }
    return rc;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *q = strstr(hay, needle); q; q = strstr(q + k, needle))
        n++;
    return n;
}

/*
 * Replay an xchg-schedule/1 document on p nodes: every listed block must be
 * held by the sender at the start of its step and appear once per step;
 * moves apply at the end of the step. Returns the number of steps, or -1
 * on a format or holding error (with a CHECK failure saying which), and
 * sets *delivered when every block ends at its destination. Records the
 * largest message of each step in replay_max.
 */
#define MAX_STEPS 4096
static uint64_t replay_max[MAX_STEPS]; /* largest listed message per step */

static long replay(const char *json, uint32_t p, int *delivered)
{
    memset(replay_max, 0, sizeof replay_max);
    *delivered = 0;
    const char *q = strstr(json, "\"steps\":[");
    if (!q)
        return -1;
    q += strlen("\"steps\":[");
    uint64_t nb = (uint64_t)p * p;
    uint32_t *pos = malloc(nb * sizeof *pos);
    uint64_t *mb = malloc(nb * sizeof *mb);
    uint32_t *mto = malloc(nb * sizeof *mto);
    uint32_t *seen = calloc(nb, sizeof *seen); /* step+1 when listed */
    long steps = 0, bad = 0;
    if (!pos || !mb || !mto || !seen)
        goto done;
    for (uint64_t i = 0; i < nb; i++)
        pos[i] = (uint32_t)(i / p);
    while (*q == '[' && !bad) {
        q++;
        size_t nm = 0;
        while (*q == '{' && !bad) {
            unsigned long from, to;
            int used = 0;
            if (sscanf(q, "{\"from\":%lu,\"to\":%lu,\"route\":[%n", &from, &to, &used) != 2 ||
                !used || from >= p || to >= p) {
                bad = 1;
                break;
            }
            q = strstr(q, "],\"blocks\":[");
            if (!q) {
                bad = 1;
                break;
            }
            q += strlen("],\"blocks\":[");
            size_t first = nm;
            while (*q == '[') {
                unsigned long o, d;
                if (sscanf(q, "[%lu,%lu]%n", &o, &d, &used) != 2 || o >= p || d >= p) {
                    bad = 1;
                    break;
                }
                q += used;
                uint64_t blk = (uint64_t)o * p + d;
                if (pos[blk] != from || seen[blk] == (uint32_t)steps + 1) {
                    CHECK(0, "replay step %ld: block (%lu,%lu) listed from %lu, held by %u",
                          steps + 1, o, d, from, pos[blk]);
                    bad = 1;
                    break;
                }
                seen[blk] = (uint32_t)steps + 1;
                mb[nm] = blk;
                mto[nm++] = (uint32_t)to;
                if (*q == ',')
                    q++;
            }
            if (bad || strncmp(q, "]}", 2) != 0) {
                bad = 1;
                break;
            }
            if (steps < MAX_STEPS && nm - first > replay_max[steps])
                replay_max[steps] = nm - first;
            q += 2;
            if (*q == ',')
                q++;
        }
        if (bad || *q != ']') {
            bad = 1;
            break;
        }
        q++;
        for (size_t i = 0; i < nm; i++)
            pos[mb[i]] = mto[i];
        steps++;
        if (*q == ',')
            q++;
    }
    /* the copies before each step, when any step copies */
    if (!bad && strncmp(q, "],\"copies\":[", 12) == 0) {
        q += 11;
        for (long k = 0; k < steps && !bad; k++) {
            unsigned long c;
            int used = 0;
            if (sscanf(q + 1, "%lu%n", &c, &used) != 1 || q[0] != (k ? ',' : '['))
                bad = 1;
            q += 1 + used;
        }
        if (!bad && *q == ']')
            q++;
        else
            bad = 1;
        if (!bad && strcmp(q, "}\n") == 0)
            q = "]}\n";
    }
    if (!bad && strcmp(q, "]}\n") == 0) {
        int ok = 1;
        for (uint64_t i = 0; i < nb; i++)
            ok &= pos[i] == i % p;
        *delivered = ok;
    } else {
        bad = 1;
    }
done:
    free(pos);
    free(mb);
    free(mto);
    free(seen);
    return bad ? -1 : steps;
}

static void test_exact_json(void)
{
    buf b = {0};
    xchg_err e;
    /* Standard exchange on hypercube:2, worked by hand:
     * step 1 (bit 0): i sends to i^1 the blocks whose destination has i^1's
     *   bit 0: 0 -> 1 (0,1) (0,3); 1 -> 0 (1,0) (1,2); 2 -> 3 (2,1) (2,3);
     *   3 -> 2 (3,0) (3,2). Now 0 holds (0,0) (0,2) (1,0) (1,2), etc.
     * step 2 (bit 1): 0 -> 2 (0,2) (1,2); 1 -> 3 (0,3) (1,3);
     *   2 -> 0 (2,0) (3,0); 3 -> 1 (2,1) (3,1).
     * Routes: one hop across the bit, +1 when the bit goes 0 -> 1. */
    xchg_sched *s = hc_standard(2);
    int rc = export_to(s, "json", 0, &b, &e);
    CHECK(rc == 0, "export hc2: %s", rc ? e.msg : "");
    const char *want =
        "{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
        "\"algorithm\":\"test\",\"nodes\":4,\"steps\":["
        "[{\"from\":0,\"to\":1,\"route\":[[0,1,1]],\"blocks\":[[0,1],[0,3]]},"
        "{\"from\":1,\"to\":0,\"route\":[[0,-1,1]],\"blocks\":[[1,0],[1,2]]},"
        "{\"from\":2,\"to\":3,\"route\":[[0,1,1]],\"blocks\":[[2,1],[2,3]]},"
        "{\"from\":3,\"to\":2,\"route\":[[0,-1,1]],\"blocks\":[[3,0],[3,2]]}],"
        "[{\"from\":0,\"to\":2,\"route\":[[1,1,1]],\"blocks\":[[0,2],[1,2]]},"
        "{\"from\":1,\"to\":3,\"route\":[[1,1,1]],\"blocks\":[[0,3],[1,3]]},"
        "{\"from\":2,\"to\":0,\"route\":[[1,-1,1]],\"blocks\":[[2,0],[3,0]]},"
        "{\"from\":3,\"to\":1,\"route\":[[1,-1,1]],\"blocks\":[[2,1],[3,1]]}]]}\n";
    CHECK(strcmp(b.data, want) == 0, "hc2 json:\n got %s\nwant %s", b.data, want);
    int delivered;
    CHECK(replay(b.data, 4, &delivered) == 2 && delivered, "hc2 replay delivers");

    rc = export_to(s, "text", 0, &b, &e);
    CHECK(rc == 0, "text hc2");
    const char *want_text = "# xchg-schedule/1 topology hypercube:2 algorithm test "
                            "nodes 4 steps 2\n"
                            "step 1\n"
                            "  0 -> 1  route d0+1x1  blocks (0,1) (0,3)\n"
                            "  1 -> 0  route d0-1x1  blocks (1,0) (1,2)\n"
                            "  2 -> 3  route d0+1x1  blocks (2,1) (2,3)\n"
                            "  3 -> 2  route d0-1x1  blocks (3,0) (3,2)\n"
                            "step 2\n"
                            "  0 -> 2  route d1+1x1  blocks (0,2) (1,2)\n"
                            "  1 -> 3  route d1+1x1  blocks (0,3) (1,3)\n"
                            "  2 -> 0  route d1-1x1  blocks (2,0) (3,0)\n"
                            "  3 -> 1  route d1-1x1  blocks (2,1) (3,1)\n";
    CHECK(strcmp(b.data, want_text) == 0, "hc2 text:\n got %s\nwant %s", b.data, want_text);
    xchg_sched_free(s);

    /* torus:2x3, ids x0*3+x1. Step 1: only 0=(0,0) sends, to 4=(1,1), the
     * block (0,4); the route goes along the last dimension first: [1,+1,1]
     * then [0,+1,1]. Step 2: everybody idle. Step 3: shift +1 along dim 1
     * with MINUS routes: 2 hops the other way round; i sends (i, its
     * partner), node 4 also holds (0,4) but it is not bound for 5. Step 4:
     * declared 1 block each but the rule selects nothing: no message. */
    s = torus_probe();
    if (s) {
        rc = export_to(s, "json", 0, &b, &e);
        CHECK(rc == 0, "export probe: %s", rc ? e.msg : "");
        const char *want2 =
            "{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"torus\",\"dims\":[2,3]},"
            "\"algorithm\":\"probe \\\"q\\\"\",\"nodes\":6,\"steps\":["
            "[{\"from\":0,\"to\":4,\"route\":[[1,1,1],[0,1,1]],\"blocks\":[[0,4]]}],"
            "[],"
            "[{\"from\":0,\"to\":1,\"route\":[[1,-1,2]],\"blocks\":[[0,1]]},"
            "{\"from\":1,\"to\":2,\"route\":[[1,-1,2]],\"blocks\":[[1,2]]},"
            "{\"from\":2,\"to\":0,\"route\":[[1,-1,2]],\"blocks\":[[2,0]]},"
            "{\"from\":3,\"to\":4,\"route\":[[1,-1,2]],\"blocks\":[[3,4]]},"
            "{\"from\":4,\"to\":5,\"route\":[[1,-1,2]],\"blocks\":[[4,5]]},"
            "{\"from\":5,\"to\":3,\"route\":[[1,-1,2]],\"blocks\":[[5,3]]}],"
            "[]]}\n";
        CHECK(strcmp(b.data, want2) == 0, "probe json:\n got %s\nwant %s", b.data, want2);
        CHECK(replay(b.data, 6, &delivered) == 4 && !delivered,
              "probe replays 4 steps and does not deliver everything");
        rc = export_to(s, "text", 0, &b, &e);
        CHECK(rc == 0 && strstr(b.data, "step 2\n  (no messages)\nstep 3\n") &&
                  strstr(b.data, "  0 -> 4  route d1+1x1 d0+1x1  blocks (0,4)\n") &&
                  strstr(b.data, "  2 -> 0  route d1-1x2  blocks (2,0)\n") &&
                  strstr(b.data, "step 4\n  (no messages)\n"),
              "probe text:\n%s", b.data);
        xchg_sched_free(s);
    }

    /* complete:3: routes are empty lists. */
    xchg_topo t = check_topo("complete:3");
    s = xchg_sched_new(&t, "c3", 1);
    if (s) {
        xchg_step st = xchg_step_shift(-1, 1, xchg_rule_dest_is_to(), 1);
        CHECK(xchg_sched_add(s, &st) == 0, "add");
        rc = export_to(s, "json", 0, &b, &e);
        const char *want3 =
            "{\"format\":\"xchg-schedule/1\",\"topology\":{\"kind\":\"complete\",\"dims\":[3]},"
            "\"algorithm\":\"c3\",\"nodes\":3,\"steps\":["
            "[{\"from\":0,\"to\":1,\"route\":[],\"blocks\":[[0,1]]},"
            "{\"from\":1,\"to\":2,\"route\":[],\"blocks\":[[1,2]]},"
            "{\"from\":2,\"to\":0,\"route\":[],\"blocks\":[[2,0]]}]]}\n";
        CHECK(rc == 0 && strcmp(b.data, want3) == 0, "complete json:\n got %s\nwant %s",
              b.data, want3);
        rc = export_to(s, "text", 0, &b, &e);
        CHECK(rc == 0 && strstr(b.data, "  0 -> 1  route -  blocks (0,1)\n"), "complete text");
        xchg_sched_free(s);
    }
    buf_reset(&b);
}

/* hypercube:4 standard: 4 steps of 16 messages; block (o,d) moves exactly
 * in the steps b where bit b of o^d is set. */
static void test_parse_free(void)
{
    buf b = {0};
    xchg_err e;
    xchg_sched *s = hc_standard(4);
    int rc = export_to(s, "json", 0, &b, &e);
    CHECK(rc == 0, "export hc4");
    CHECK_EQ_U64(count(b.data, "\"from\":"), 64, "messages in hc4");
    CHECK_EQ_U64(count(b.data, "\"to\":"), 64, "to fields in hc4");
    CHECK(strstr(b.data, "\"topology\":{\"kind\":\"hypercube\",\"dim\":4}") != NULL,
          "hypercube topology object");
    /* Split into steps at "}],[" (between steps only: no whitespace, and a
     * message object closes with '}' only at its end). */
    char *segs[4] = {0};
    char *q = b.data;
    int nseg = 0;
    while (q && nseg < 4) {
        segs[nseg++] = q;
        char *next = strstr(q, "}],[");
        if (next) {
            next[1] = '\0'; /* cut after the '}' */
            q = next + 3;
        } else {
            q = NULL;
        }
    }
    CHECK(nseg == 4 && q == NULL, "4 step segments (%d)", nseg);
    uint64_t listed = 0, misplaced = 0;
    for (uint32_t o = 0; o < 16 && nseg == 4; o++)
        for (uint32_t d = 0; d < 16; d++) {
            char pat[32];
            snprintf(pat, sizeof pat, "[%u,%u]", o, d);
            for (int st = 0; st < 4; st++) {
                int moves = ((o ^ d) >> st) & 1;
                int there = strstr(segs[st], pat) != NULL;
                listed += there;
                misplaced += moves != there;
            }
        }
    CHECK_EQ_U64(misplaced, 0, "blocks listed exactly in the steps where they move");
    CHECK_EQ_U64(listed, 16 * 16 * 4 / 2, "block listings = p*p*d/2");
    xchg_sched_free(s);

    /* hypercube:6: about 100 KiB of JSON, streamed in several chunks of at
     * most 64 KiB, and the replay delivers every block. */
    s = hc_standard(6);
    rc = export_to(s, "json", 0, &b, &e);
    CHECK(rc == 0, "export hc6");
    CHECK(b.calls >= 2 && b.max_chunk <= 65536, "streamed: %zu calls, largest %zu", b.calls,
          b.max_chunk);
    int delivered;
    CHECK(replay(b.data, 64, &delivered) == 6 && delivered, "hc6 replay delivers");
    CHECK_EQ_U64(count(b.data, "\"from\":"), 6 * 64, "hc6 messages");

    /* Errors. Work = p*p*steps = 4096*6 = 24576. */
    size_t before_len = b.len;
    buf_reset(&b);
    e.msg[0] = '\0';
    rc = export_to(s, "json", 24575, &b, &e);
    CHECK(rc == XCHG_ETOOBIG, "just over the limit -> ETOOBIG (%d)", rc);
    CHECK(b.calls == 0, "nothing written when refused");
    CHECK(strstr(e.msg, "24575") != NULL, "message gives the limit: %s", e.msg);
    rc = export_to(s, "json", 24576, &b, &e);
    CHECK(rc == 0 && b.len == before_len, "exactly at the limit is accepted");
    rc = export_to(s, "json", 10, &b, &e);
    CHECK(rc == XCHG_ETOOBIG, "tiny max_work -> ETOOBIG");
    e.msg[0] = '\0';
    rc = export_to(s, "xml", 0, &b, &e);
    CHECK(rc == XCHG_EINVAL && strstr(e.msg, "xml") && strstr(e.msg, "json|text"),
          "unknown format: %d %s", rc, e.msg);
    CHECK(b.calls == 0, "nothing written for an unknown format");
    CHECK(xchg_export(s, NULL, 0, buf_write, &b, NULL) == XCHG_EINVAL, "NULL format");
    CHECK(xchg_export(s, "json", 0, NULL, &b, NULL) == XCHG_EINVAL, "NULL writer");
    buf_reset(&b);
    b.fail_at = 2;
    rc = xchg_export(s, "json", 0, buf_write, &b, &e);
    CHECK(rc == XCHG_EINVAL && strstr(e.msg, "-7"), "failing sink: %d %s", rc, e.msg);
    CHECK(b.calls == 2, "export stops at the failing write (%zu calls)", b.calls);
    xchg_sched_free(s);

    /* Too many blocks to keep positions for, even with the work limit
     * raised: torus:128x128 has 2^28 blocks. One cheap step. */
    xchg_topo t = check_topo("torus:128x128");
    s = xchg_sched_new(&t, "big", 0);
    if (s) {
        xchg_step st = xchg_step_shift(0, 1, xchg_rule_dest_is_to(), 1);
        CHECK(xchg_sched_add(s, &st) == 0, "add");
        buf_reset(&b);
        rc = xchg_export(s, "json", UINT64_MAX, buf_write, &b, &e);
        CHECK(rc == XCHG_ETOOBIG && b.calls == 0, "2^28 blocks refused: %d %s", rc, e.msg);
        xchg_sched_free(s);
    }
    buf_reset(&b);
}

/* Every registry algorithm (and its variants) on small networks: the
 * listed blocks, replayed, deliver every block; the largest message listed
 * in each step is the step's declared size (what the cost model reads). */
/* Counts what test_registry saw. */
typedef struct {
    int ring4;
} registry_seen;

/* One schedule: export it, replay the listing, compare with the schedule. */
static void registry_case(const char *spec, const char *tspec, const xchg_topo *t, xchg_sched *s,
                          void *ctx)
{
    registry_seen *seen = ctx;
    xchg_err e;
    seen->ring4 += strcmp(spec, "ring") == 0 && strcmp(tspec, "ring:4") == 0;
    buf b = {0};
    int rc = export_to(s, "json", 0, &b, &e);
    CHECK(rc == 0, "export %s on %s: %s", spec, tspec, rc ? e.msg : "");
    int delivered = 0;
    long steps = replay(b.data, t->nodes, &delivered);
    CHECK(steps == (long)xchg_sched_nsteps(s) && delivered,
          "%s on %s: replay %ld steps, delivered %d", spec, tspec, steps, delivered);
    for (size_t st = 0; st < xchg_sched_nsteps(s) && st < MAX_STEPS; st++)
        CHECK_EQ_U64(replay_max[st], xchg_sched_step_max_blocks(s, st),
                     "largest listed message vs declared size");
    buf_reset(&b);
}

static void test_registry(void)
{
    const char *specs[] = {"ring:4",     "ring:5",      "ring:8",      "array:5",
                           "mesh:4x4",   "mesh:3x5",    "torus:4x4",   "torus:3x5",
                           "hypercube:3", "hypercube:4", "complete:6",  "complete:7"};
    registry_seen seen = {0};
    int ran = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        ran += check_each_schedule(specs[i], registry_case, &seen);
    CHECK(ran > 0 && seen.ring4 == 1,
          "registry algorithms exported (%d), ring on ring:4 among them", ran);
}

int main(void)
{
    test_exact_json();
    test_parse_free();
    test_registry();
    return check_finish("test_export");
}
