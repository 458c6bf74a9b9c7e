/*
 * machine_file.c - machine parameters as a text file, "xchg-machine/1"
 * (docs/machine-file.md): what `xchg probe` writes and what --machine FILE,
 * the planner and the MPI executor's auto read.
 *
 *     xchg-machine/1
 *     # any comment
 *     name      probed
 *     units     us
 *     ts        1.8        # start-up per message
 *     tw        0.00031    # per byte
 *     tr        0.00012    # per byte copied locally (optional, 0)
 *     barrier   6.2        # one barrier (optional, 0)
 *     eager     4096       # the three eager lines go together (optional):
 *     ts_eager  0.9        #   messages under `eager` bytes cost
 *     tw_eager  0.00061    #   ts_eager + bytes * tw_eager
 *     ts_node   0.3        # a message within a node: start-up (optional, ts)
 *     tw_node   0.0001     #   and per byte (optional, tr); docs/hierarchical.md
 *
 * One key and one value a line, blank lines and '#' comments anywhere after
 * the first line, each key at most once. The parser is strict, because a
 * damaged or foreign file must be refused with the line that is wrong, not
 * read as some other machine.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "xchg_model.h"

#define MACHINE_FORMAT "xchg-machine/1"
/* Longest line read; a machine file's lines are short. */
#define MACHINE_LINE_MAX 256
/* Largest value any time or per-byte field may take, and the largest eager
 * switch: far above any machine, low enough to stay exact in a double. */
#define MACHINE_VALUE_MAX 1e9

enum {
    K_NAME, K_UNITS, K_TS, K_TW, K_TR, K_BARRIER, K_EAGER, K_TS_EAGER, K_TW_EAGER, K_TS_NODE,
    K_TW_NODE, K_COUNT
};
static const char *const keys[K_COUNT] = {"name",     "units",    "ts",      "tw",
                                          "tr",       "barrier",  "eager",   "ts_eager",
                                          "tw_eager", "ts_node",  "tw_node"};
#define KEY_LIST "name, units, ts, tw, tr, barrier, eager, ts_eager, tw_eager, ts_node, tw_node"

/* The number in word (the whole word) into *v: finite, 0..MACHINE_VALUE_MAX. */
static int parse_value(const char *word, double *v)
{
    char *end = NULL;
    if (!*word || !(isdigit((unsigned char)word[0]) || word[0] == '.') ||
        word[strspn(word, "0123456789.eE+-")] != '\0') /* no hex, inf or nan */
        return 0;
    double x = strtod(word, &end);
    if (*end || !isfinite(x) || x < 0 || x > MACHINE_VALUE_MAX)
        return 0;
    *v = x;
    return 1;
}

/* Nonzero when s (NUL-terminated) is a usable machine name. */
static int good_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof(((xchg_machine *)0)->name))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-+", s[i]))
            return 0;
    return 1;
}

/*
 * Split line (NUL-terminated, comment removed) into key and value words;
 * returns the number of words found, up to 3 (3: too many).
 */
static int split(char *line, char **key, char **val)
{
    int n = 0;
    char *p = line;
    *key = *val = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return n;
        if (n == 2)
            return 3;
        if (n == 0)
            *key = p;
        else
            *val = p;
        n++;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

int xchg_machine_parse(const char *text, size_t len, xchg_machine *out, xchg_err *err)
{
    if (!text || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_machine_parse: NULL argument");
    xchg_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.units, sizeof m.units, "us");
    snprintf(m.name, sizeof m.name, "file");
    int seen[K_COUNT] = {0};
    size_t lineno = 0, pos = 0;
    int header = 0;
    while (pos < len) {
        size_t start = pos;
        while (pos < len && text[pos] != '\n') {
            if (text[pos] == '\0')
                return xchg_fail(err, XCHG_EINVAL,
                                 "line %zu: a NUL byte: this is not a machine file (text, "
                                 "first line '" MACHINE_FORMAT "')",
                                 lineno + 1);
            pos++;
        }
        size_t n = pos - start;
        pos++; /* past the newline (or the end) */
        lineno++;
        if (n > 0 && text[start + n - 1] == '\r')
            n--;
        if (n >= MACHINE_LINE_MAX)
            return xchg_fail(err, XCHG_EINVAL,
                             "line %zu: longer than %d characters; a machine file has short "
                             "lines, one key and one value each",
                             lineno, MACHINE_LINE_MAX - 1);
        char line[MACHINE_LINE_MAX];
        memcpy(line, text + start, n);
        line[n] = '\0';
        if (!header) {
            header = 1;
            if (strcmp(line, MACHINE_FORMAT) == 0)
                continue;
            if (strncmp(line, "xchg-machine/", 13) == 0)
                return xchg_fail(err, XCHG_EINVAL,
                                 "line 1: '%.40s' is a version this xchg does not read; "
                                 "accepted: '" MACHINE_FORMAT "'",
                                 line);
            return xchg_fail(err, XCHG_EINVAL,
                             "line 1: '%.40s' is not the header of a machine file; accepted: "
                             "a first line '" MACHINE_FORMAT "' (as xchg probe writes)",
                             line);
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *key, *val;
        int words = split(line, &key, &val);
        if (words == 0)
            continue;
        int k = 0;
        while (k < K_COUNT && strcmp(key, keys[k]) != 0)
            k++;
        if (k == K_COUNT)
            return xchg_fail(err, XCHG_EINVAL,
                             "line %zu: unknown key '%.40s'; accepted: " KEY_LIST, lineno, key);
        if (words != 2)
            return xchg_fail(err, XCHG_EINVAL,
                             "line %zu: '%s' needs exactly one value (%s)", lineno, key,
                             words == 1 ? "none given" : "more than one given");
        if (seen[k]++)
            return xchg_fail(err, XCHG_EINVAL, "line %zu: '%s' is given twice", lineno, key);
        if (k == K_NAME) {
            if (!good_name(val))
                return xchg_fail(err, XCHG_EINVAL,
                                 "line %zu: bad name '%.40s'; accepted: 1 to %zu letters, "
                                 "digits and . _ - +",
                                 lineno, val, sizeof m.name - 1);
            snprintf(m.name, sizeof m.name, "%s", val);
            continue;
        }
        if (k == K_UNITS) {
            if (strcmp(val, "us") != 0)
                return xchg_fail(err, XCHG_EINVAL,
                                 "line %zu: units '%.40s'; accepted: us (microseconds)", lineno,
                                 val);
            continue;
        }
        double v;
        if (!parse_value(val, &v))
            return xchg_fail(err, XCHG_EINVAL,
                             "line %zu: '%s' has the value '%.40s'; accepted: a number from 0 "
                             "to %g",
                             lineno, key, val, MACHINE_VALUE_MAX);
        double *field[K_COUNT] = {[K_TS] = &m.ts,           [K_TW] = &m.tw,
                                  [K_TR] = &m.tr,           [K_BARRIER] = &m.barrier,
                                  [K_EAGER] = &m.eager_bytes, [K_TS_EAGER] = &m.ts_eager,
                                  [K_TW_EAGER] = &m.tw_eager, [K_TS_NODE] = &m.ts_node,
                                  [K_TW_NODE] = &m.tw_node};
        *field[k] = v;
    }
    if (!header)
        return xchg_fail(err, XCHG_EINVAL,
                         "the file is empty; a machine file starts with '" MACHINE_FORMAT "'");
    if (!seen[K_TS] || !seen[K_TW])
        return xchg_fail(err, XCHG_EINVAL,
                         "line %zu (the end): no '%s' line; a machine file needs ts and tw "
                         "(is it cut short?)",
                         lineno, seen[K_TS] ? "tw" : "ts");
    int eager = seen[K_EAGER] + seen[K_TS_EAGER] + seen[K_TW_EAGER];
    if (eager != 0 && eager != 3)
        return xchg_fail(err, XCHG_EINVAL,
                         "eager, ts_eager and tw_eager go together; this file has %d of them",
                         eager);
    if (eager && m.eager_bytes < 1)
        return xchg_fail(err, XCHG_EINVAL,
                         "eager is %g bytes; accepted: 1 or more (or no eager lines at all)",
                         m.eager_bytes);
    /* the intra-node figures default from ts and tr (xchg_model.h) */
    if (!seen[K_TS_NODE])
        m.ts_node = m.ts;
    if (!seen[K_TW_NODE])
        m.tw_node = m.tr;
    *out = m;
    return XCHG_OK;
}

/* Nonzero when v is a value a machine file can hold. */
static int good_value(double v)
{
    return isfinite(v) && v >= 0 && v <= MACHINE_VALUE_MAX;
}

int xchg_machine_format(const xchg_machine *m, const char *comment, char *buf, size_t len)
{
    if (!m || !buf || len == 0 || strcmp(m->units, "us") != 0 || !good_name(m->name))
        return XCHG_EINVAL;
    const double v[] = {m->ts,       m->tw,       m->tr,      m->barrier, m->eager_bytes,
                        m->ts_eager, m->tw_eager, m->ts_node, m->tw_node};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!good_value(v[i]))
            return XCHG_EINVAL;
    size_t used = 0;
    int n = snprintf(buf, len, MACHINE_FORMAT "\n");
    for (const char *c = comment; c && *c && n >= 0 && (size_t)n < len - used;) {
        used += (size_t)n;
        size_t k = strcspn(c, "\n");
        n = snprintf(buf + used, len - used, "# %.*s\n", (int)k, c);
        c += k + (c[k] == '\n');
    }
    if (n < 0 || (size_t)n >= len - used)
        return XCHG_ETOOBIG;
    used += (size_t)n;
    n = snprintf(buf + used, len - used,
                 "name      %s\nunits     us\nts        %.9g\ntw        %.9g\n"
                 "tr        %.9g\nbarrier   %.9g\n",
                 m->name, m->ts, m->tw, m->tr, m->barrier);
    if (n >= 0 && (size_t)n < len - used && m->eager_bytes > 0) {
        used += (size_t)n;
        n = snprintf(buf + used, len - used, "eager     %.9g\nts_eager  %.9g\ntw_eager  %.9g\n",
                     m->eager_bytes, m->ts_eager, m->tw_eager);
    }
    /* the intra-node lines only where they are not the defaults, so a
     * machine without them reads back the same */
    if (n >= 0 && (size_t)n < len - used && (m->ts_node != m->ts || m->tw_node != m->tr)) {
        used += (size_t)n;
        n = snprintf(buf + used, len - used, "ts_node   %.9g\ntw_node   %.9g\n", m->ts_node,
                     m->tw_node);
    }
    if (n < 0 || (size_t)n >= len - used)
        return XCHG_ETOOBIG;
    return XCHG_OK;
}
