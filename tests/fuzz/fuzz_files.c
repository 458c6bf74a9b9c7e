/*
 * fuzz_files.c - libFuzzer harness for the files xchg reads: schedules in
 * the export format (xchg_import), machine files (xchg_machine_parse),
 * tuning files (xchg_tuning_parse) and counts files (xchg_vcounts_parse).
 * The first byte picks the reader (250 and above: counts; the others by
 * their value mod 3), the rest is the file's bytes (any bytes, NULs
 * included: files are not C strings). It asserts (abort() on violation):
 *   - a refusal always carries a message;
 *   - an imported schedule has the file's node count, at most 2^10 nodes
 *     here (the replay is limited to 4 MiB), and the verifier runs on it
 *     to the end; exporting it again and importing that gives the same
 *     export (the format is a fixed point);
 *   - a machine read has finite values from 0 to 1e9, and writing it and
 *     reading that back gives the same figures;
 *   - a tuning file read answers lookups with one of its rows' algorithms;
 *   - a counts file read has nodes, blocks of at most 1e15 bytes, and a
 *     summary whose figures agree with its blocks.
 */
#include "fuzz_util.h"
#include "xchg.h"

#include <math.h>

/* A growing buffer for an export. */
typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static int append(void *ctx, const char *data, size_t len)
{
    buf *b = ctx;
    if (b->len + len > b->cap) {
        size_t cap = (b->len + len) * 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return 1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static void fuzz_schedule(const char *data, size_t size)
{
    xchg_import_opts o = {.max_bytes = 4u << 20};
    xchg_sched *s = NULL;
    xchg_err err = {{0}};
    if (xchg_import(data, size, &o, &s, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', "import refused without a message");
        return;
    }
    FZ_CHECK(xchg_sched_topo(s)->nodes <= 1024, "import: more nodes than 4 MiB allows");
    xchg_verify_opts vo = {.threads = 1};
    xchg_verify_report r;
    FZ_CHECK(xchg_verify(s, &vo, &r, &err) == XCHG_OK, err.msg);
    buf a = {0}, b = {0};
    if (xchg_export(s, "json", 0, append, &a, &err) == XCHG_OK) {
        xchg_sched *t = NULL;
        FZ_CHECK(xchg_import(a.data, a.len, &o, &t, &err) == XCHG_OK, err.msg);
        FZ_CHECK(xchg_export(t, "json", 0, append, &b, &err) == XCHG_OK, err.msg);
        FZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len), "export not a fixed point");
        xchg_sched_free(t);
    }
    free(a.data);
    free(b.data);
    xchg_sched_free(s);
}

static int in_range(double v)
{
    return isfinite(v) && v >= 0 && v <= 1e9;
}

static void fuzz_machine_file(const char *data, size_t size)
{
    xchg_machine m;
    xchg_err err = {{0}};
    if (xchg_machine_parse(data, size, &m, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', "machine refused without a message");
        return;
    }
    FZ_CHECK(in_range(m.ts) && in_range(m.tw) && in_range(m.tr) && in_range(m.barrier) &&
                 in_range(m.eager_bytes) && in_range(m.ts_eager) && in_range(m.tw_eager),
             "machine value out of range");
    char text[2048];
    FZ_CHECK(xchg_machine_format(&m, "again", text, sizeof text) == XCHG_OK, "format");
    xchg_machine n;
    FZ_CHECK(xchg_machine_parse(text, strlen(text), &n, &err) == XCHG_OK, err.msg);
    FZ_CHECK(!strcmp(m.name, n.name) && fabs(m.ts - n.ts) <= 1e-8 * (m.ts + 1) &&
                 fabs(m.tw - n.tw) <= 1e-8 * (m.tw + 1) &&
                 fabs(m.eager_bytes - n.eager_bytes) <= 1e-8 * (m.eager_bytes + 1),
             "machine file not read back");
}

static void fuzz_tuning(const char *data, size_t size)
{
    xchg_tuning *t = NULL;
    xchg_err err = {{0}};
    if (xchg_tuning_parse(data, size, &t, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', "tuning refused without a message");
        return;
    }
    for (size_t i = 0; i < xchg_tuning_rows(t); i++) {
        xchg_tuning_entry e;
        FZ_CHECK(xchg_tuning_row(t, i, &e) == XCHG_OK, "row");
        xchg_topo topo;
        FZ_CHECK(xchg_topo_parse(e.topology, &topo, &err) == XCHG_OK, err.msg);
        const char *a = xchg_tuning_lookup(t, e.op, &topo, e.from);
        FZ_CHECK(a != NULL && strlen(a) < XCHG_SPEC_MAX, "lookup of a row's own size");
    }
    xchg_tuning_free(t);
}

static void fuzz_counts(const char *data, size_t size)
{
    xchg_vcounts *c = NULL;
    xchg_err err = {{0}};
    if (xchg_vcounts_parse(data, size, 0, &c, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', "counts refused without a message");
        return;
    }
    uint32_t p = xchg_vcounts_nodes(c);
    FZ_CHECK(p >= 1, "counts without nodes");
    uint64_t big = 0;
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++) {
            uint64_t x = xchg_vcounts_get(c, i, j);
            FZ_CHECK(x <= XCHG_VCOUNTS_MAX_BLOCK, "block over 1e15 bytes");
            if (x > big)
                big = x;
        }
    xchg_vcounts_summary sm;
    FZ_CHECK(xchg_vcounts_summarize(c, &sm) == XCHG_OK && sm.nodes == p && sm.max_block == big &&
                 sm.nonzero <= (uint64_t)p * (p - 1),
             "counts summary");
    xchg_vcounts_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    if (data[0] >= 250) {
        fuzz_counts(text, size - 1);
        return 0;
    }
    switch (data[0] % 3) {
    case 0:
        fuzz_schedule(text, size - 1);
        break;
    case 1:
        fuzz_machine_file(text, size - 1);
        break;
    default:
        fuzz_tuning(text, size - 1);
        break;
    }
    return 0;
}
