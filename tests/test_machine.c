/*
 * test_machine.c - machines measured and kept: the machine file
 * (src/model/machine_file.c, docs/machine-file.md) written and read back
 * unchanged, every refusal with its line, damaged files (cut at every byte,
 * bytes flipped) refused or read, never misread into garbage or a crash;
 * and the ping-pong fit (src/model/fit.c) on made-up measurements whose
 * answer is known: one line, two protocols with a switch, noise; and the
 * tuning file (src/model/tuning_file.c, docs/tuning.md): lookups inside,
 * between and beyond its ranges, every refusal, damaged files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char good[] = "xchg-machine/1\n"
                           "# probed on a test machine\n"
                           "name      probe-1\n"
                           "units     us\n"
                           "\n"
                           "ts        1.75   # start-up\n"
                           "tw        0.00031\n"
                           "tr        0.00012\n"
                           "barrier   6.5\n"
                           "eager     4096\n"
                           "ts_eager  0.9\n"
                           "tw_eager  0.00061\n";

/* Parse text, expecting a refusal whose message contains want. */
static void refused(const char *text, const char *want)
{
    xchg_machine m;
    memset(&m, 0x5a, sizeof m);
    xchg_machine before = m;
    xchg_err err = {{0}};
    int rc = xchg_machine_parse(text, strlen(text), &m, &err);
    CHECK(rc == XCHG_EINVAL, "refused [%s]: rc %d", want, rc);
    CHECK(strstr(err.msg, want) != NULL, "message for [%s] was: %s", want, err.msg);
    CHECK(memcmp(&m, &before, sizeof m) == 0, "out untouched on failure [%s]", want);
}

static void test_read(void)
{
    xchg_machine m;
    xchg_err err = {{0}};
    CHECK(xchg_machine_parse(good, strlen(good), &m, &err) == XCHG_OK, "good file: %s", err.msg);
    CHECK(strcmp(m.name, "probe-1") == 0 && strcmp(m.units, "us") == 0, "name and units");
    CHECK(m.ts == 1.75 && m.tw == 0.00031 && m.tr == 0.00012 && m.barrier == 6.5,
          "ts tw tr barrier");
    CHECK(m.eager_bytes == 4096 && m.ts_eager == 0.9 && m.tw_eager == 0.00061, "eager range");

    /* The least a file can say; CRLF line ends are read too. */
    const char *least = "xchg-machine/1\r\nts 2\r\ntw 0.5\r\n";
    CHECK(xchg_machine_parse(least, strlen(least), &m, &err) == XCHG_OK, "least: %s", err.msg);
    CHECK(m.ts == 2 && m.tw == 0.5 && m.tr == 0 && m.barrier == 0 && m.eager_bytes == 0,
          "defaults");
    CHECK(strcmp(m.name, "file") == 0, "default name: %s", m.name);
    /* Not NUL-terminated: only len bytes are read. */
    char buf[64];
    memcpy(buf, "xchg-machine/1\nts 3\ntw 4\nXXXX", 29);
    CHECK(xchg_machine_parse(buf, 25, &m, &err) == XCHG_OK && m.tw == 4, "len bytes only");
}

static void test_round_trip(void)
{
    xchg_machine a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "rt.machine_2");
    snprintf(a.units, sizeof a.units, "us");
    a.ts = 1.0 / 3;
    a.tw = 2.5e-4;
    a.tr = 1e-9;
    a.barrier = 123456.789;
    a.eager_bytes = 65536;
    a.ts_eager = 0.123456789;
    a.tw_eager = 7e-5;
    char buf[2048];
    CHECK(xchg_machine_format(&a, "line one\nline two", buf, sizeof buf) == XCHG_OK, "format");
    CHECK(strstr(buf, "# line one\n# line two\n") != NULL, "comment lines: %s", buf);
    xchg_machine b;
    xchg_err err = {{0}};
    CHECK(xchg_machine_parse(buf, strlen(buf), &b, &err) == XCHG_OK, "read back: %s", err.msg);
    CHECK(strcmp(a.name, b.name) == 0, "name back");
    /* %.9g keeps 9 significant digits */
    CHECK(fabs(a.ts - b.ts) <= 1e-9 * a.ts && a.tw == b.tw && a.tr == b.tr &&
              fabs(a.barrier - b.barrier) <= 1e-9 * a.barrier && a.eager_bytes == b.eager_bytes &&
              fabs(a.ts_eager - b.ts_eager) <= 1e-9 && a.tw_eager == b.tw_eager,
          "values back");
    /* without an eager range no eager lines are written */
    a.eager_bytes = a.ts_eager = a.tw_eager = 0;
    CHECK(xchg_machine_format(&a, NULL, buf, sizeof buf) == XCHG_OK && !strstr(buf, "eager"),
          "no eager lines");
    CHECK(xchg_machine_format(&a, NULL, buf, 40) == XCHG_ETOOBIG, "small buffer");
    a.tw = -1;
    CHECK(xchg_machine_format(&a, NULL, buf, sizeof buf) == XCHG_EINVAL, "negative value");
    a.tw = NAN;
    CHECK(xchg_machine_format(&a, NULL, buf, sizeof buf) == XCHG_EINVAL, "NaN value");
    a.tw = 1;
    snprintf(a.units, sizeof a.units, "t_c");
    CHECK(xchg_machine_format(&a, NULL, buf, sizeof buf) == XCHG_EINVAL, "units t_c");
    snprintf(a.units, sizeof a.units, "us");
    snprintf(a.name, sizeof a.name, "has space");
    CHECK(xchg_machine_format(&a, NULL, buf, sizeof buf) == XCHG_EINVAL, "name with a space");
}

static void test_refusals(void)
{
    refused("", "the file is empty");
    refused("{\"format\":\"xchg-schedule/1\"}\n", "line 1: '{\"format\":\"xchg-schedule/1\"}' is not "
                                                 "the header of a machine file");
    refused("xchg-machine/2\nts 1\ntw 1\n", "line 1: 'xchg-machine/2' is a version this xchg "
                                            "does not read");
    refused("# comment first\nxchg-machine/1\n", "is not the header");
    refused("xchg-machine/1\nts 1\n", "no 'tw' line");
    refused("xchg-machine/1\ntw 1\n", "no 'ts' line");
    refused("xchg-machine/1\nts 1\ntw 1\nspeed 3\n", "line 4: unknown key 'speed'; accepted: "
                                                      "name, units");
    refused("xchg-machine/1\nts 1\ntw\n", "line 3: 'tw' needs exactly one value (none given)");
    refused("xchg-machine/1\nts 1 2\ntw 1\n", "line 2: 'ts' needs exactly one value (more than");
    refused("xchg-machine/1\nts 1\nts 2\ntw 1\n", "line 3: 'ts' is given twice");
    refused("xchg-machine/1\nts -1\ntw 1\n", "line 2: 'ts' has the value '-1'; accepted: a number");
    refused("xchg-machine/1\nts 1\ntw nan\n", "'tw' has the value 'nan'");
    refused("xchg-machine/1\nts 1\ntw inf\n", "'tw' has the value 'inf'");
    refused("xchg-machine/1\nts 1\ntw 1e99\n", "'tw' has the value '1e99'");
    refused("xchg-machine/1\nts 1\ntw 0x10\n", "'tw' has the value '0x10'");
    refused("xchg-machine/1\nts 1\ntw 1us\n", "'tw' has the value '1us'");
    refused("xchg-machine/1\nunits ms\nts 1\ntw 1\n", "line 2: units 'ms'; accepted: us");
    refused("xchg-machine/1\nname a/b\nts 1\ntw 1\n", "line 2: bad name 'a/b'");
    refused("xchg-machine/1\nname abcdefghijabcdefghijabcdefghijab\nts 1\ntw 1\n", "bad name");
    refused("xchg-machine/1\nts 1\ntw 1\neager 100\n", "go together; this file has 1 of them");
    refused("xchg-machine/1\nts 1\ntw 1\neager 0\nts_eager 1\ntw_eager 1\n",
            "eager is 0 bytes; accepted: 1 or more");
    char longline[400];
    memset(longline, 'x', sizeof longline);
    memcpy(longline, "xchg-machine/1\nts ", 18);
    longline[sizeof longline - 1] = '\0';
    refused(longline, "line 2: longer than 255 characters");
    const char nul[] = "xchg-machine/1\nts 1\0\ntw 1\n";
    xchg_machine m;
    xchg_err err = {{0}};
    CHECK(xchg_machine_parse(nul, sizeof nul - 1, &m, &err) == XCHG_EINVAL &&
              strstr(err.msg, "line 2: a NUL byte"),
          "NUL byte: %s", err.msg);
    CHECK(xchg_machine_parse(NULL, 0, &m, &err) == XCHG_EINVAL, "NULL text");
}

/* Cut the good file at every byte, and flip every byte to a few others:
 * each result is refused with a message, or read with values that are
 * finite and in range; nothing crashes (the sanitizer build runs this). */
static void test_damaged(void)
{
    size_t n = strlen(good);
    int read_whole = 0, refused_n = 0;
    for (size_t cut = 0; cut <= n; cut++) {
        xchg_machine m;
        xchg_err err = {{0}};
        int rc = xchg_machine_parse(good, cut, &m, &err);
        if (rc == XCHG_OK)
            read_whole += m.eager_bytes == 4096 && m.tw_eager == 0.00061;
        else
            refused_n += err.msg[0] != '\0';
        CHECK(rc == XCHG_OK || rc == XCHG_EINVAL, "cut at %zu: rc %d", cut, rc);
    }
    /* before "tw" is whole the file must be refused; the last cut (and
     * the one before the final newline) read it all */
    CHECK(refused_n > 0 && read_whole >= 1, "cuts: %d refused, %d read whole", refused_n,
          read_whole);
    const char flips[] = {'\0', '\n', ' ', '#', '-', 'x', '9', '.', (char)0xff};
    char buf[sizeof good];
    size_t bad_values = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(buf, good, sizeof good);
            buf[i] = flips[f];
            xchg_machine m;
            xchg_err err = {{0}};
            int rc = xchg_machine_parse(buf, n, &m, &err);
            if (rc == XCHG_OK) {
                const double v[] = {m.ts, m.tw, m.tr, m.barrier, m.eager_bytes, m.ts_eager,
                                    m.tw_eager};
                for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
                    bad_values += !(isfinite(v[k]) && v[k] >= 0 && v[k] <= 1e9);
            } else if (err.msg[0] == '\0') {
                bad_values++;
            }
        }
    CHECK(bad_values == 0, "flipped bytes: %zu results out of range or refusals without a "
                           "message",
          bad_values);
}

/* A deterministic noise factor in [1 - amp, 1 + amp]. */
static double noise(uint32_t *state, double amp)
{
    *state = *state * 1664525u + 1013904223u;
    return 1 + amp * ((double)(*state >> 8) / (double)(1u << 24) * 2 - 1);
}

/* Sizes 1 B .. 4 MiB, powers of two and the halfway points between. */
static size_t sizes(double *b)
{
    size_t n = 0;
    for (double x = 1; x <= 4194304; x *= 2) {
        b[n++] = x;
        if (x >= 2 && x < 4194304)
            b[n++] = x * 1.5;
    }
    return n;
}

static void test_fit(void)
{
    double b[64], t[64];
    size_t n = sizes(b);
    xchg_fit f;
    xchg_err err = {{0}};
    /* an exact line */
    for (size_t i = 0; i < n; i++)
        t[i] = 2 + b[i] * 0.001;
    CHECK(xchg_fit_pingpong(b, t, n, &f, &err) == XCHG_OK, "line: %s", err.msg);
    CHECK(f.nranges == 1, "line: one range, got %d", f.nranges);
    CHECK(fabs(f.range[0].ts - 2) < 1e-9 && fabs(f.range[0].tw - 0.001) < 1e-15,
          "line: ts %g tw %g", f.range[0].ts, f.range[0].tw);
    CHECK(f.range[0].max_rel < 1e-12 && f.range[0].points == n, "line: exact, all points");

    /* a line with 5% noise stays one line */
    uint32_t st = 12345;
    for (size_t i = 0; i < n; i++)
        t[i] = (2 + b[i] * 0.001) * noise(&st, 0.05);
    CHECK(xchg_fit_pingpong(b, t, n, &f, &err) == XCHG_OK && f.nranges == 1,
          "noisy line: one range, got %d", f.nranges);
    CHECK(fabs(f.range[0].tw - 0.001) < 0.0001, "noisy line: tw %g", f.range[0].tw);

    /* eager below 8 KiB (ts 1, tw 0.0008), rendezvous above (ts 10, tw
     * 0.0003: a handshake's latency more, fewer copies), 3% noise: the
     * switch is found at 8192 */
    st = 777;
    for (size_t i = 0; i < n; i++)
        t[i] = (b[i] < 8192 ? 1 + b[i] * 0.0008 : 10 + b[i] * 0.0003) * noise(&st, 0.03);
    CHECK(xchg_fit_pingpong(b, t, n, &f, &err) == XCHG_OK && f.nranges == 2,
          "two protocols: two ranges, got %d", f.nranges);
    CHECK(f.switch_bytes == 8192, "switch at %g, want 8192", f.switch_bytes);
    CHECK(fabs(f.range[0].ts - 1) < 0.1 && fabs(f.range[0].tw / 0.0008 - 1) < 0.2,
          "eager range: ts %g tw %g", f.range[0].ts, f.range[0].tw);
    CHECK(fabs(f.range[1].ts - 10) < 1.5 && fabs(f.range[1].tw / 0.0003 - 1) < 0.05,
          "rendezvous range: ts %g tw %g", f.range[1].ts, f.range[1].tw);
    CHECK(f.range[0].hi < 8192 && f.range[1].lo == 8192, "ranges meet at the switch");
    xchg_machine m;
    memset(&m, 0, sizeof m);
    xchg_fit_machine(&f, &m);
    CHECK(m.ts == f.range[1].ts && m.tw == f.range[1].tw && m.eager_bytes == 8192 &&
              m.ts_eager == f.range[0].ts && m.tw_eager == f.range[0].tw,
          "machine from two ranges");

    /* a jump among the last three sizes (noise on a loaded machine) is no
     * switch: the large-message side would be flat, tw 0; the line stays
     * one, with its per-byte time */
    st = 4242;
    for (size_t i = 0; i < n; i++)
        t[i] = (2 + b[i] * 0.001) * (i + 3 == n ? 1.6 : 1) * noise(&st, 0.01);
    t[n - 1] = t[n - 2] = t[n - 3];
    CHECK(xchg_fit_pingpong(b, t, n, &f, &err) == XCHG_OK && f.nranges == 1 &&
              f.range[0].tw > 0,
          "late jump: %d ranges, large tw %g", f.nranges, f.range[f.nranges - 1].tw);

    /* a negative intercept is clamped: ts 0, the line through the origin */
    for (size_t i = 0; i < n; i++)
        t[i] = b[i] * 0.002;
    CHECK(xchg_fit_pingpong(b, t, n, &f, &err) == XCHG_OK && f.range[0].ts == 0 &&
              fabs(f.range[0].tw - 0.002) < 1e-15,
          "through the origin: ts %g tw %g", f.range[0].ts, f.range[0].tw);

    /* refusals */
    CHECK(xchg_fit_pingpong(b, t, 5, &f, &err) == XCHG_EINVAL && strstr(err.msg, "at least 6"),
          "too few points: %s", err.msg);
    double bb[6] = {1, 2, 2, 4, 8, 16}, tt[6] = {1, 1, 1, 1, 1, 1};
    CHECK(xchg_fit_pingpong(bb, tt, 6, &f, &err) == XCHG_EINVAL && strstr(err.msg, "increasing"),
          "sizes not increasing: %s", err.msg);
    bb[2] = 3;
    tt[4] = 0;
    CHECK(xchg_fit_pingpong(bb, tt, 6, &f, &err) == XCHG_EINVAL && strstr(err.msg, "positive"),
          "zero time: %s", err.msg);
    tt[4] = NAN;
    CHECK(xchg_fit_pingpong(bb, tt, 6, &f, &err) == XCHG_EINVAL, "NaN time");
}

/* Parse a tuning file, expecting a refusal whose message contains want. */
static void tuning_refused(const char *text, const char *want)
{
    xchg_tuning *t = (xchg_tuning *)&t; /* must stay as it is */
    xchg_tuning *before = t;
    xchg_err err = {{0}};
    int rc = xchg_tuning_parse(text, strlen(text), &t, &err);
    CHECK(rc == XCHG_EINVAL, "tuning refused [%s]: rc %d", want, rc);
    CHECK(strstr(err.msg, want) != NULL, "tuning message for [%s] was: %s", want, err.msg);
    CHECK(t == before, "tuning: out untouched on failure [%s]", want);
}

static const char tuned[] = "xchg-tuning/1\n"
                            "# ranks topology from to algorithm\n"
                            "16 torus:4x4 1 64 shm\n"
                            "16 torus:4x4 128 4096 hc-standard   # a comment\n"
                            "16 torus:4x4 8192 1048576 mpi\n"
                            "\n"
                            "16 complete:16 1 1048576 pairwise\n"
                            "8 ring:8 1 1024 bruck:3\n";

/* Version 2: an operation column; rows of different operations may share
 * sizes, and each operation looks up its own. */
static const char tuned2[] = "xchg-tuning/2\n"
                             "alltoall 16 complete:16 1 4095 shm\n"
                             "alltoall 16 complete:16 4096 1048576 pairwise\n"
                             "bcast 16 complete:16 1 1023 mpi\n"
                             "bcast 16 complete:16 1024 1048576 bcast-split\n"
                             "scatter 16 complete:16 1 1048576 scatter-hc\n";

static void test_tuning_ops(void)
{
    xchg_tuning *t = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_tuning_parse(tuned2, strlen(tuned2), &t, &err) == XCHG_OK, "tuning/2: %s",
          err.msg);
    CHECK(xchg_tuning_rows(t) == 5, "5 rows, got %zu", xchg_tuning_rows(t));
    xchg_topo c16 = check_topo("complete:16");
    const struct {
        xchg_op_kind op;
        uint64_t m;
        const char *want;
    } cases[] = {
        {XCHG_OP_ALLTOALL, 8, "shm"},    {XCHG_OP_ALLTOALL, 8192, "pairwise"},
        {XCHG_OP_BCAST, 8, "mpi"},       {XCHG_OP_BCAST, 1024, "bcast-split"},
        {XCHG_OP_BCAST, 1 << 24, "bcast-split"}, {XCHG_OP_SCATTER, 8, "scatter-hc"},
        {XCHG_OP_GATHER, 8, NULL},       {XCHG_OP_REDUCE, 1024, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = xchg_tuning_lookup(t, cases[i].op, &c16, cases[i].m);
        CHECK(got == cases[i].want || (got && cases[i].want && !strcmp(got, cases[i].want)),
              "tuning/2 lookup %zu (%s, m %llu): got %s, want %s", i,
              xchg_op_name(cases[i].op), (unsigned long long)cases[i].m, got ? got : "none",
              cases[i].want ? cases[i].want : "none");
    }
    xchg_tuning_entry e;
    CHECK(xchg_tuning_row(t, 3, &e) == XCHG_OK && e.op == XCHG_OP_BCAST && e.from == 1024 &&
              !strcmp(e.alg, "bcast-split"),
          "tuning/2 row 3");
    xchg_tuning_free(t);

    tuning_refused("xchg-tuning/2\n16 complete:16 1 64 shm\n",
                   "line 2: 5 fields; accepted: 6, operation ranks");
    tuning_refused("xchg-tuning/2\nalltoal 16 complete:16 1 64 shm\n",
                   "line 2: operation 'alltoal'");
    tuning_refused("xchg-tuning/2\nbcast 16 complete:16 1 64 shm\n",
                   "shm runs the complete exchange only, not bcast");
    tuning_refused("xchg-tuning/2\nbcast 16 complete:16 1 64 pairwise\n",
                   "pairwise performs alltoall, not bcast");
    tuning_refused("xchg-tuning/2\ngather 16 complete:16 1 64 scatter-hc\n",
                   "scatter-hc performs scatter, not gather");
    tuning_refused("xchg-tuning/2\nbcast 16 complete:16 1 64 mpi\n"
                   "bcast 16 complete:16 64 128 bcast-hc\n",
                   "line 3: bcast, 64..128 bytes on 16 ranks (complete:16) overlaps");
    tuning_refused("xchg-tuning/3\n", "line 1: 'xchg-tuning/3' is not the header");
}

/* MPI_Alltoallv's rows (the operation alltoallv, the executor's): sizes
 * are a call's largest block; algorithms the complete exchange's, shm or
 * mpi; the rows of alltoall on the same ranks stay apart. */
static const char tuned_v[] = "xchg-tuning/2\n"
                              "alltoall 4 complete:4 1 1048576 hc-direct\n"
                              "alltoallv 4 complete:4 1 256 shm\n"
                              "alltoallv 4 complete:4 257 4096 pairwise\n"
                              "alltoallv 4 complete:4 4097 32768 bruck:2\n"
                              "alltoallv 4 complete:4 32769 1048576 mpi\n";

static void test_tuning_v(void)
{
    xchg_tuning *t = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_tuning_parse(tuned_v, strlen(tuned_v), &t, &err) == XCHG_OK, "alltoallv rows: %s",
          err.msg);
    CHECK(xchg_tuning_rows(t) == 5, "5 rows, got %zu", xchg_tuning_rows(t));
    xchg_topo c4 = check_topo("complete:4");
    const struct {
        xchg_op_kind op;
        uint64_t m;
        const char *want;
    } cases[] = {
        {XCHG_TUNING_ALLTOALLV, 8, "shm"},       {XCHG_TUNING_ALLTOALLV, 256, "shm"},
        {XCHG_TUNING_ALLTOALLV, 257, "pairwise"}, {XCHG_TUNING_ALLTOALLV, 8192, "bruck:2"},
        {XCHG_TUNING_ALLTOALLV, 32769, "mpi"},   {XCHG_TUNING_ALLTOALLV, 1 << 24, "mpi"},
        {XCHG_OP_ALLTOALL, 8, "hc-direct"},      {XCHG_OP_BCAST, 8, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = xchg_tuning_lookup(t, cases[i].op, &c4, cases[i].m);
        CHECK(got == cases[i].want || (got && cases[i].want && !strcmp(got, cases[i].want)),
              "alltoallv lookup %zu (%s, m %llu): got %s, want %s", i,
              xchg_tuning_op_name(cases[i].op), (unsigned long long)cases[i].m,
              got ? got : "none", cases[i].want ? cases[i].want : "none");
    }
    xchg_tuning_entry e;
    CHECK(xchg_tuning_row(t, 3, &e) == XCHG_OK && e.op == XCHG_TUNING_ALLTOALLV &&
              e.from == 4097 && !strcmp(e.alg, "bruck:2") &&
              !strcmp(xchg_tuning_op_name(e.op), "alltoallv"),
          "alltoallv row 3");
    xchg_tuning_free(t);
    xchg_op_kind k = XCHG_OP_BCAST;
    CHECK(xchg_tuning_op_parse("alltoallv", &k, &err) == XCHG_OK && k == XCHG_TUNING_ALLTOALLV,
          "alltoallv parses");
    CHECK(xchg_tuning_op_parse("scan", &k, &err) == XCHG_OK && k == XCHG_OP_SCAN, "scan parses");
    CHECK(xchg_tuning_op_parse("alltoallw", &k, &err) == XCHG_EINVAL &&
              strstr(err.msg, "accepted: alltoall, ") && strstr(err.msg, ", alltoallv") &&
              k == XCHG_OP_SCAN,
          "alltoallw refused, the names listed: %s", err.msg);
    CHECK(!strcmp(xchg_tuning_op_name(XCHG_OP_BCAST), "bcast"), "bcast's name");

    tuning_refused("xchg-tuning/2\nalltoallv 4 complete:4 1 64 bcast-hc\n",
                   "bcast-hc performs bcast, not alltoall; accepted: a registry spec of "
                   "alltoall, mpi or shm");
    tuning_refused("xchg-tuning/2\nalltoallv 4 complete:4 1 64 shm\n"
                   "alltoallv 4 complete:4 64 128 mpi\n",
                   "line 3: alltoallv, 64..128 bytes on 4 ranks (complete:4) overlaps");
    tuning_refused("xchg-tuning/1\nalltoallv 4 complete:4 1 64 shm\n",
                   "line 2: 6 or more fields; accepted in xchg-tuning/1: 5");
    tuning_refused("xchg-tuning/2\nalltoallw 4 complete:4 1 64 shm\n",
                   "line 2: operation 'alltoallw'");
}

static void test_tuning(void)
{
    xchg_tuning *t = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_tuning_parse(tuned, strlen(tuned), &t, &err) == XCHG_OK, "tuning: %s", err.msg);
    CHECK(xchg_tuning_rows(t) == 5, "5 rows, got %zu", xchg_tuning_rows(t));
    xchg_topo t44 = check_topo("torus:4x4"), c16 = check_topo("complete:16");
    xchg_topo r8 = check_topo("ring:8"), r16 = check_topo("ring:16");
    const struct {
        const xchg_topo *topo;
        uint64_t m;
        const char *want;
    } cases[] = {
        {&t44, 1, "shm"},          {&t44, 64, "shm"},          {&t44, 65, "shm"},
        {&t44, 100, "hc-standard"}, {&t44, 4096, "hc-standard"}, {&t44, 5000, "hc-standard"},
        {&t44, 6200, "mpi"},       {&t44, 1 << 20, "mpi"},     {&t44, 1 << 30, "mpi"},
        {&c16, 8, "pairwise"},     {&r8, 1 << 20, "bruck:3"},  {&r16, 8, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = xchg_tuning_lookup(t, XCHG_OP_ALLTOALL, cases[i].topo, cases[i].m);
        CHECK(got == cases[i].want || (got && cases[i].want && !strcmp(got, cases[i].want)),
              "lookup %zu (m %llu): got %s, want %s", i, (unsigned long long)cases[i].m,
              got ? got : "none", cases[i].want ? cases[i].want : "none");
    }
    xchg_tuning_entry e;
    CHECK(xchg_tuning_row(t, 1, &e) == XCHG_OK && e.ranks == 16 && e.from == 128 &&
              e.to == 4096 && !strcmp(e.alg, "hc-standard") && !strcmp(e.topology, "torus:4x4"),
          "row 1");
    CHECK(xchg_tuning_row(t, 5, &e) == XCHG_EINVAL, "row out of range");
    CHECK(e.op == XCHG_OP_ALLTOALL, "a version 1 row is the complete exchange's");
    CHECK(xchg_tuning_lookup(t, XCHG_OP_BCAST, &t44, 64) == NULL,
          "version 1 rows answer for alltoall only");
    xchg_tuning_free(t);
    xchg_tuning_free(NULL);

    tuning_refused("", "the file is empty");
    tuning_refused("xchg-machine/1\nts 1\ntw 1\n", "line 1: 'xchg-machine/1' is not the header "
                                                    "of a tuning file");
    tuning_refused("xchg-tuning/1\n16 torus:4x4 1 64\n",
                   "line 2: 4 fields; accepted in xchg-tuning/1: 5");
    tuning_refused("xchg-tuning/1\n16 torus:4x4 1 64 shm extra\n", "line 2: 6 or more fields");
    tuning_refused("xchg-tuning/1\n0 torus:4x4 1 64 shm\n", "line 2: ranks '0' is not");
    tuning_refused("xchg-tuning/1\n16 torus:4x5 1 64 shm\n", "has 20 nodes, not the row's 16");
    tuning_refused("xchg-tuning/1\n16 donut:16 1 64 shm\n", "line 2: topology 'donut:16'");
    tuning_refused("xchg-tuning/1\n16 ring:16 64 1 shm\n", "block sizes '64' to '1'");
    tuning_refused("xchg-tuning/1\n16 ring:16 0 1 shm\n", "block sizes '0' to '1'");
    tuning_refused("xchg-tuning/1\n16 ring:16 1 -5 shm\n", "block sizes '1' to '-5'");
    tuning_refused("xchg-tuning/1\n16 ring:16 1 8 fastest\n", "line 2: algorithm 'fastest'");
    tuning_refused("xchg-tuning/1\n16 ring:16 1 8 bruck:1\n", "algorithm 'bruck:1'");
    tuning_refused("xchg-tuning/1\n16 hypercube:4 1 8 bcast-hc:root=3\n",
                   "line 2: algorithm 'bcast-hc:root=3': bcast-hc performs bcast, not alltoall");
    tuning_refused("xchg-tuning/1\n16 ring:16 1 64 mpi\n16 ring:16 64 128 ring\n",
                   "line 3: alltoall, 64..128 bytes on 16 ranks (ring:16) overlaps an earlier "
                   "row's 1..64");
    const char nul[] = "xchg-tuning/1\n16 ring:16\0 1 64 mpi\n";
    CHECK(xchg_tuning_parse(nul, sizeof nul - 1, &t, &err) == XCHG_EINVAL &&
              strstr(err.msg, "line 2: a NUL byte"),
          "tuning NUL: %s", err.msg);

    /* cut at every byte, and bytes changed: refused with a message, or read
     * with every lookup answering a row's algorithm */
    size_t n = strlen(tuned), silent = 0, read = 0;
    for (size_t cut = 0; cut <= n; cut++) {
        err.msg[0] = '\0';
        int rc = xchg_tuning_parse(tuned, cut, &t, &err);
        if (rc == XCHG_OK) {
            read++;
            xchg_tuning_free(t);
        } else if (!err.msg[0]) {
            silent++;
        }
    }
    const char flips[] = {'\0', '\n', ' ', '#', '-', 'x', '9', ':', (char)0xff};
    char buf[sizeof tuned];
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(buf, tuned, sizeof tuned);
            buf[i] = flips[f];
            err.msg[0] = '\0';
            if (xchg_tuning_parse(buf, n, &t, &err) == XCHG_OK) {
                const char *a = xchg_tuning_lookup(t, XCHG_OP_ALLTOALL, &t44, 100);
                silent += a && !(!strcmp(a, "shm") || !strcmp(a, "mpi") ||
                                 !strncmp(a, "hc-", 3) || !strncmp(a, "pair", 4));
                xchg_tuning_free(t);
            } else if (!err.msg[0]) {
                silent++;
            }
        }
    CHECK(silent == 0 && read > 0, "damaged tuning files: %zu silent or odd, %zu cuts read",
          silent, read);
}

int main(void)
{
    test_read();
    test_round_trip();
    test_refusals();
    test_damaged();
    test_fit();
    test_tuning();
    test_tuning_ops();
    test_tuning_v();
    return check_finish("test_machine");
}
