/*
 * fuzz_machine.c - libFuzzer harness for the machine parameters and the
 * CLI's number parsers: xchg_machine_preset (name and node count),
 * xchg_machine_ratio, and xchg_cli_number, xchg_cli_range, xchg_cli_uint
 * of tools/cli_common.c (compiled into this harness).
 *
 * The first byte picks the parser, the rest is its text (NUL-terminated);
 * for a preset the first byte also picks the node count. It asserts (abort()
 * on violation):
 *   - a preset that is found carries the name asked for, unit "us", and
 *     finite, non-negative ts, tw, tr and barrier;
 *   - an accepted number is finite, in the range asked for, has no hex,
 *     nan, inf or space in its text, and gives a machine_ratio that works;
 *   - an accepted range has 0 < lo <= hi <= XCHG_CLI_MAX_M, and the block
 *     size printed by xchg_cli_size reads back as the same number;
 *   - an accepted whole number is in range and equals strtoull of the text.
 * Refusals print on stderr, as the CLI does: that is expected.
 */
#include "cli.h"
#include "fuzz_util.h"

#include <math.h>

/* Node counts the presets' barrier is asked for. */
static const uint32_t node_counts[] = {0, 1, 2, 3, 1024, XCHG_MAX_NODES, UINT32_MAX};
#define NCOUNTS (sizeof node_counts / sizeof node_counts[0])

static int finite_nonneg(double v)
{
    return isfinite(v) && v >= 0.0;
}

static void fuzz_preset(const char *s, uint32_t nodes)
{
    xchg_machine m;
    xchg_err err;
    err.msg[0] = '\0';
    if (xchg_machine_preset(s, nodes, &m, &err) != XCHG_OK) {
        FZ_CHECK(err.msg[0] != '\0', s);
        return;
    }
    FZ_CHECK(strcmp(m.name, s) == 0 && strcmp(m.units, "us") == 0, s);
    FZ_CHECK(finite_nonneg(m.ts) && finite_nonneg(m.tw) && finite_nonneg(m.tr), s);
    FZ_CHECK(finite_nonneg(m.barrier), s);
}

static void fuzz_number(const char *s, int lo_open)
{
    double v;
    if (xchg_cli_number("x", s, 0, XCHG_CLI_MAX_PARAM, lo_open, &v) != 0)
        return;
    FZ_CHECK(isfinite(v) && (lo_open ? v > 0 : v >= 0) && v <= XCHG_CLI_MAX_PARAM, s);
    FZ_CHECK(!strpbrk(s, "xXnNiI \t\n"), s);
    xchg_machine m;
    xchg_err err;
    FZ_CHECK(xchg_machine_ratio(v, &m, &err) == XCHG_OK, s);
    FZ_CHECK(m.ts == v && strcmp(m.units, "t_c") == 0, s);
}

static void fuzz_range(const char *s)
{
    double lo, hi;
    if (xchg_cli_range("m", s, &lo, &hi) != 0)
        return;
    FZ_CHECK(lo > 0 && lo <= hi && hi <= XCHG_CLI_MAX_M, s);
    char buf[64];
    FZ_CHECK(strtod(xchg_cli_size(lo, buf, sizeof buf), NULL) == lo, s);
    FZ_CHECK(strtod(xchg_cli_size(hi, buf, sizeof buf), NULL) == hi, s);
}

static void fuzz_uint(const char *s, uint64_t lo, uint64_t hi)
{
    uint64_t v;
    if (xchg_cli_uint("n", s, lo, hi, &v) != 0)
        return;
    FZ_CHECK(v >= lo && v <= hi, s);
    FZ_CHECK(v == strtoull(s, NULL, 10), s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned sel = data[0];
    char *s = fz_cstr(data + 1, size - 1);
    if (!s)
        return 0;
    switch (sel % 6) {
    case 0:
        fuzz_preset(s, node_counts[(sel / 6) % NCOUNTS]);
        break;
    case 1:
        fuzz_number(s, 0);
        break;
    case 2:
        fuzz_number(s, 1);
        break;
    case 3:
        fuzz_range(s);
        break;
    case 4:
        fuzz_uint(s, 1, 1u << 20);
        break;
    default:
        fuzz_uint(s, 0, UINT64_MAX);
        break;
    }
    free(s);
    return 0;
}
