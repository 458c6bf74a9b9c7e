/*
 * counts.c - count matrices: the size in bytes of every block (origin,
 * destination) of a complete exchange whose blocks differ, as the counts
 * of MPI_Alltoallv give them (xchg_model.h, "Uneven block sizes";
 * docs/alltoallv.md). A matrix is read from a counts file
 * (xchg_vcounts_parse) or made from a named distribution
 * (xchg_vcounts_named: uniform, random:X, hot:R[:F], sparse:F), the one
 * generator the CLI, the tests and the benchmarks share; it builds without
 * MPI. What a schedule costs on a matrix is cost_counts.c's.
 *
 * Memory: p*p uint64, row-major (row = origin). The random distributions
 * draw from splitmix64 (Steele, Lea, Flood, OOPSLA 2014), seeded by the
 * caller, one draw per block in row-major order, so a (spec, p, m, seed)
 * names one matrix on every machine.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "xchg_model.h"

struct xchg_vcounts {
    uint32_t p;
    uint64_t *b; /* p*p sizes, b[origin*p + dest] */
};

/* What a counts file's optional first line starts with. */
#define COUNTS_HEADER "# xchg counts p="
/* The named distributions, for messages. */
#define NAMED_FORMS "uniform, random:X (0 <= X <= 100), hot:R[:F] (0 <= R < p, F > 0, " \
                    "default 8), sparse:F (0 < F <= 1)"

int xchg_vcounts_new(uint32_t p, xchg_vcounts **out, xchg_err *err)
{
    if (!out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_vcounts_new: out is NULL");
    if (p == 0 || p > XCHG_MAX_NODES)
        return xchg_fail(err, XCHG_EINVAL,
                         "a count matrix of %u nodes is not accepted: want 1 to %u nodes",
                         (unsigned)p, (unsigned)XCHG_MAX_NODES);
    xchg_vcounts *c = malloc(sizeof *c);
    uint64_t *b = calloc((size_t)p * p, sizeof *b);
    if (!c || !b) {
        free(c);
        free(b);
        char sz[32];
        return xchg_fail(err, XCHG_ENOMEM, "out of memory for a count matrix of %u nodes (%s)",
                         (unsigned)p,
                         xchg_bytes_text((uint64_t)p * p * sizeof *b, sz, sizeof sz));
    }
    c->p = p;
    c->b = b;
    *out = c;
    return XCHG_OK;
}

void xchg_vcounts_free(xchg_vcounts *c)
{
    if (!c)
        return;
    free(c->b);
    free(c);
}

uint32_t xchg_vcounts_nodes(const xchg_vcounts *c)
{
    return c ? c->p : 0;
}

uint64_t xchg_vcounts_get(const xchg_vcounts *c, uint32_t origin, uint32_t dest)
{
    if (!c || origin >= c->p || dest >= c->p)
        return 0;
    return c->b[(size_t)origin * c->p + dest];
}

int xchg_vcounts_set(xchg_vcounts *c, uint32_t origin, uint32_t dest, uint64_t bytes)
{
    if (!c || origin >= c->p || dest >= c->p || bytes > XCHG_VCOUNTS_MAX_BLOCK)
        return XCHG_EINVAL;
    c->b[(size_t)origin * c->p + dest] = bytes;
    return XCHG_OK;
}

const uint64_t *xchg_vcounts_row(const xchg_vcounts *c, uint32_t origin)
{
    if (!c || origin >= c->p)
        return NULL;
    return c->b + (size_t)origin * c->p;
}

/* a + b, saturating at UINT64_MAX. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * One pass over the matrix: row sums and nonzero counts as it goes, column
 * sums into a scratch array of p entries (freed here). Returns 0, EINVAL
 * on NULL arguments, ENOMEM (no message: the caller has no err; the
 * scratch is small).
 */
int xchg_vcounts_summarize(const xchg_vcounts *c, xchg_vcounts_summary *out)
{
    if (!c || !out)
        return XCHG_EINVAL;
    uint32_t p = c->p;
    uint64_t *col = calloc(p, sizeof *col), *colall = calloc(p, sizeof *colall);
    uint64_t *colnz = calloc(p, sizeof *colnz);
    if (!col || !colall || !colnz) {
        free(col);
        free(colall);
        free(colnz);
        return XCHG_ENOMEM;
    }
    xchg_vcounts_summary s;
    memset(&s, 0, sizeof s);
    s.nodes = p;
    uint64_t heavy = 0; /* the largest row or column sum, diagonal included */
    for (uint32_t i = 0; i < p; i++) {
        const uint64_t *row = c->b + (size_t)i * p;
        uint64_t send = 0, all = 0, nz = 0;
        for (uint32_t j = 0; j < p; j++) {
            uint64_t x = row[j];
            all = add_sat(all, x);
            colall[j] = add_sat(colall[j], x);
            if (x > s.max_block)
                s.max_block = x;
            if (j == i || x == 0)
                continue;
            send = add_sat(send, x);
            col[j] = add_sat(col[j], x);
            colnz[j]++;
            nz++;
        }
        s.total = add_sat(s.total, all);
        s.nonzero += nz;
        if (send > s.max_send)
            s.max_send = send;
        if (nz > s.max_send_blocks)
            s.max_send_blocks = nz;
        if (all > heavy)
            heavy = all;
    }
    for (uint32_t j = 0; j < p; j++) {
        if (col[j] > s.max_recv)
            s.max_recv = col[j];
        if (colnz[j] > s.max_recv_blocks)
            s.max_recv_blocks = colnz[j];
        if (colall[j] > heavy)
            heavy = colall[j];
    }
    s.mean = (double)s.total / ((double)p * (double)p);
    s.copy_block = (double)heavy / (double)p;
    free(col);
    free(colall);
    free(colnz);
    *out = s;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* Counts files                                                        */
/* ------------------------------------------------------------------ */

/* Where the parser is: the text, the line being read and its number. */
typedef struct reader {
    const char *text;
    size_t len, pos;
    size_t lineno;
    const char *line; /* the current line (not NUL-terminated) */
    size_t n;         /* its length, without the comment and the CR */
} reader;

/* Read the next line into r (comments cut off). 1 when there was one, 0
 * at the end, -1 on a NUL byte. */
static int next_line(reader *r)
{
    if (r->pos >= r->len)
        return 0;
    size_t start = r->pos;
    const char *nl = memchr(r->text + start, '\n', r->len - start);
    size_t end = nl ? (size_t)(nl - r->text) : r->len;
    r->pos = end + 1;
    r->lineno++;
    r->line = r->text + start;
    r->n = end - start;
    if (memchr(r->line, '\0', r->n))
        return -1;
    if (r->n > 0 && r->line[r->n - 1] == '\r')
        r->n--;
    return 1;
}

/* Nonzero when line (n bytes) holds only spaces and tabs. */
static int blank(const char *line, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return 0;
    return 1;
}

/* The header's P from line (n bytes) when it is "# xchg counts p=P" (P a
 * whole number, nothing after it but blanks): 1 and *p; 0 when the line is
 * not a header at all (an ordinary comment); -1 when it starts like one but
 * its P is bad. */
static int header_p(const char *line, size_t n, uint64_t *p)
{
    size_t h = strlen(COUNTS_HEADER);
    if (n < h || memcmp(line, COUNTS_HEADER, h) != 0)
        return 0;
    char buf[32];
    size_t k = 0;
    for (size_t i = h; i < n && line[i] != ' ' && line[i] != '\t'; i++) {
        if (k + 1 >= sizeof buf)
            return -1;
        buf[k++] = line[i];
    }
    buf[k] = '\0';
    if (!blank(line + h + k, n - h - k))
        return -1;
    return xchg_parse_u64(buf, 1, XCHG_MAX_NODES, p) == 0 ? 1 : -1;
}

/* Why word (n bytes, no blanks) is not a block size, for messages. */
static const char *bad_number(const char *w, size_t n)
{
    if (w[0] == '-')
        return "is negative";
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)w[digits]))
        digits++;
    if (digits == n)
        return "is over " "the largest block, 1e15 bytes";
    if (digits > 0 && (w[digits] == '.' || w[digits] == 'e' || w[digits] == 'E'))
        return "is not a whole number";
    return "is not a number";
}

/*
 * Read the P numbers of data line r into row (P entries), or fail with the
 * line's number and what is wrong: a row of another length, a word that is
 * not a whole number of bytes in 0..XCHG_VCOUNTS_MAX_BLOCK.
 */
static int read_row(const reader *r, uint32_t P, uint64_t *row, xchg_err *err)
{
    size_t i = 0;
    uint32_t k = 0;
    while (i < r->n) {
        while (i < r->n && (r->line[i] == ' ' || r->line[i] == '\t'))
            i++;
        if (i >= r->n)
            break;
        size_t s = i;
        while (i < r->n && r->line[i] != ' ' && r->line[i] != '\t')
            i++;
        size_t wn = i - s;
        const char *w = r->line + s;
        if (k == P) {
            uint32_t more = k + 1;
            for (size_t j = i; j < r->n;) { /* count the rest, for the message */
                while (j < r->n && (r->line[j] == ' ' || r->line[j] == '\t'))
                    j++;
                if (j < r->n)
                    more++;
                while (j < r->n && r->line[j] != ' ' && r->line[j] != '\t')
                    j++;
            }
            return xchg_fail(err, XCHG_EINVAL,
                             "counts line %zu: %u numbers; accepted: %u (one block size in "
                             "bytes per destination, p = %u)",
                             r->lineno, (unsigned)more, (unsigned)P, (unsigned)P);
        }
        char buf[24];
        uint64_t v = 0;
        int ok = wn < sizeof buf;
        if (ok) {
            memcpy(buf, w, wn);
            buf[wn] = '\0';
            ok = xchg_parse_u64(buf, 0, XCHG_VCOUNTS_MAX_BLOCK, &v) == 0;
        }
        if (!ok)
            return xchg_fail(err, XCHG_EINVAL,
                             "counts line %zu, column %u: '%.*s' %s; accepted: a whole "
                             "number of bytes from 0 to 1e15",
                             r->lineno, (unsigned)k + 1, wn > 24 ? 24 : (int)wn, w,
                             bad_number(w, wn));
        row[k++] = v;
    }
    if (k != P)
        return xchg_fail(err, XCHG_EINVAL,
                         "counts line %zu: %u number%s; accepted: %u (one block size in bytes "
                         "per destination, p = %u)",
                         r->lineno, (unsigned)k, k == 1 ? "" : "s", (unsigned)P, (unsigned)P);
    return XCHG_OK;
}

/* The number of words on data line r (its row's length when p is not
 * given). */
static uint32_t words(const reader *r)
{
    uint32_t k = 0;
    for (size_t i = 0; i < r->n;) {
        while (i < r->n && (r->line[i] == ' ' || r->line[i] == '\t'))
            i++;
        if (i < r->n)
            k++;
        while (i < r->n && r->line[i] != ' ' && r->line[i] != '\t')
            i++;
    }
    return k;
}

/*
 * The parser: lines one by one; the first non-blank line may be the
 * header; '#' starts a comment anywhere; the matrix is made when P is
 * known (the argument, the header, or the first row's length) and filled
 * row by row. One cleanup path: the matrix is freed on any failure.
 */
int xchg_vcounts_parse(const char *text, size_t len, uint32_t p, xchg_vcounts **out,
                       xchg_err *err)
{
    if ((!text && len) || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_vcounts_parse: NULL argument");
    if (p > XCHG_MAX_NODES)
        return xchg_fail(err, XCHG_EINVAL, "xchg_vcounts_parse: p = %u is over %u nodes",
                         (unsigned)p, (unsigned)XCHG_MAX_NODES);
    reader r = {text, len, 0, 0, NULL, 0};
    xchg_vcounts *c = NULL;
    uint32_t P = p, rows = 0;
    int rc = XCHG_OK, seen = 0, more;
    while (rc == XCHG_OK && (more = next_line(&r)) != 0) {
        if (more < 0) {
            rc = xchg_fail(err, XCHG_EINVAL,
                           "counts line %zu: a NUL byte: this is not a counts file (text: "
                           "an optional '" COUNTS_HEADER "P' line, then P lines of P "
                           "whole numbers)",
                           r.lineno);
            break;
        }
        if (!seen && !blank(r.line, r.n)) {
            seen = 1;
            uint64_t hp = 0;
            int h = header_p(r.line, r.n, &hp);
            if (h < 0) {
                rc = xchg_fail(err, XCHG_EINVAL,
                               "counts line %zu: '%.*s' is not a header; accepted: '"
                               COUNTS_HEADER "P' with P a whole number from 1 to %u",
                               r.lineno, r.n > 40 ? 40 : (int)r.n, r.line,
                               (unsigned)XCHG_MAX_NODES);
                break;
            }
            if (h > 0) {
                if (p && hp != p) {
                    rc = xchg_fail(err, XCHG_EINVAL,
                                   "counts line %zu: the file is for p = %llu nodes, but %u "
                                   "are wanted (the topology's); accepted: a file of %u "
                                   "lines of %u numbers",
                                   r.lineno, (unsigned long long)hp, (unsigned)p,
                                   (unsigned)p, (unsigned)p);
                    break;
                }
                P = (uint32_t)hp;
                continue;
            }
        }
        const char *hash = memchr(r.line, '#', r.n);
        if (hash)
            r.n = (size_t)(hash - r.line);
        if (blank(r.line, r.n))
            continue;
        if (!c) {
            if (!P)
                P = words(&r);
            if ((rc = xchg_vcounts_new(P, &c, err)))
                break;
        }
        if (rows == P) {
            rc = xchg_fail(err, XCHG_EINVAL,
                           "counts line %zu: a row more than the %u wanted; accepted: %u "
                           "lines of %u numbers (row i: what node i sends to 0 .. %u)",
                           r.lineno, (unsigned)P, (unsigned)P, (unsigned)P, (unsigned)P - 1);
            break;
        }
        rc = read_row(&r, P, c->b + (size_t)rows * P, err);
        rows++;
    }
    if (rc == XCHG_OK && !P)
        rc = xchg_fail(err, XCHG_EINVAL,
                       "counts: no rows (the text is empty or only comments); accepted: an "
                       "optional '" COUNTS_HEADER "P' line, then P lines of P whole numbers");
    else if (rc == XCHG_OK && rows < P)
        rc = xchg_fail(err, XCHG_EINVAL,
                       "counts: %u row%s, %u wanted; accepted: %u lines of %u numbers (row i: "
                       "what node i sends to 0 .. %u)",
                       (unsigned)rows, rows == 1 ? "" : "s", (unsigned)P, (unsigned)P,
                       (unsigned)P, (unsigned)P - 1);
    if (rc) {
        xchg_vcounts_free(c);
        return rc;
    }
    *out = c;
    return XCHG_OK;
}

/* ------------------------------------------------------------------ */
/* Named distributions                                                 */
/* ------------------------------------------------------------------ */

/* splitmix64: the next 64 random bits of the stream at *state. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from the stream (53 bits). */
static double uniform01(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

/* The number in text (the whole of it): decimal, finite, no sign, no hex,
 * inf or nan. 0 and *v, or -1. */
static int parse_num(const char *text, double *v)
{
    if (!*text || !(isdigit((unsigned char)text[0]) || text[0] == '.') ||
        text[strspn(text, "0123456789.eE+-")] != '\0')
        return -1;
    char *end = NULL;
    double x = strtod(text, &end);
    if (*end || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

/* x rounded to the nearest whole byte (x >= 0 and at most the largest
 * block, which the caller has checked). */
static uint64_t whole_bytes(double x)
{
    return (uint64_t)llround(x);
}

/* The parameters of a named spec. */
typedef struct named {
    enum { N_UNIFORM, N_RANDOM, N_HOT, N_SPARSE } kind;
    double x;   /* random: X; hot: F; sparse: F */
    uint32_t r; /* hot: R */
} named;

/* Parse spec (for p nodes) into *n; EINVAL with the accepted forms. */
static int parse_named(const char *spec, uint32_t p, named *n, xchg_err *err)
{
    char buf[96];
    if (!spec || strlen(spec) >= sizeof buf)
        return xchg_fail(err, XCHG_EINVAL, "bad counts '%.40s': accepted: " NAMED_FORMS,
                         spec ? spec : "(null)");
    strcpy(buf, spec);
    char *arg = strchr(buf, ':');
    if (arg)
        *arg++ = '\0';
    memset(n, 0, sizeof *n);
    if (strcmp(buf, "uniform") == 0) {
        if (arg)
            return xchg_fail(err, XCHG_EINVAL,
                             "bad counts '%s': uniform takes no parameter (every block is "
                             "m); accepted: " NAMED_FORMS, spec);
        n->kind = N_UNIFORM;
        return XCHG_OK;
    }
    if (strcmp(buf, "random") == 0) {
        n->kind = N_RANDOM;
        if (!arg || parse_num(arg, &n->x) || n->x > 100)
            return xchg_fail(err, XCHG_EINVAL,
                             "bad counts '%s': random:X needs X, the spread in percent, a "
                             "number from 0 to 100 (random:50: blocks from m/2 to 3m/2); "
                             "accepted: " NAMED_FORMS, spec);
        return XCHG_OK;
    }
    if (strcmp(buf, "hot") == 0) {
        n->kind = N_HOT;
        n->x = 8;
        char *f = arg ? strchr(arg, ':') : NULL;
        if (f)
            *f++ = '\0';
        uint64_t r;
        if (!arg || xchg_parse_u64(arg, 0, p ? p - 1 : 0, &r))
            return xchg_fail(err, XCHG_EINVAL,
                             "bad counts '%s': hot:R[:F] needs R, the hot rank, a whole number "
                             "from 0 to %u; accepted: " NAMED_FORMS, spec,
                             (unsigned)(p ? p - 1 : 0));
        n->r = (uint32_t)r;
        if (f && (parse_num(f, &n->x) || !(n->x > 0) || n->x > 1e6))
            return xchg_fail(err, XCHG_EINVAL,
                             "bad counts '%s': hot:R:F needs F, the hot blocks' factor, a "
                             "number > 0 and at most 1e6 (default 8); accepted: " NAMED_FORMS,
                             spec);
        return XCHG_OK;
    }
    if (strcmp(buf, "sparse") == 0) {
        n->kind = N_SPARSE;
        if (!arg || parse_num(arg, &n->x) || !(n->x > 0) || n->x > 1)
            return xchg_fail(err, XCHG_EINVAL,
                             "bad counts '%s': sparse:F needs F, the share of nonzero blocks, "
                             "a number with 0 < F <= 1; accepted: " NAMED_FORMS, spec);
        return XCHG_OK;
    }
    return xchg_fail(err, XCHG_EINVAL, "unknown counts '%s'; accepted: " NAMED_FORMS, spec);
}

/*
 * Parse the spec, check m, make the matrix and fill it block by block in
 * row-major order, one draw per block for the random kinds (so a seed names
 * the same matrix whatever else happens); the hot factor's blocks are
 * checked against the largest block.
 */
int xchg_vcounts_named(const char *spec, uint32_t p, double m, uint64_t seed,
                       xchg_vcounts **out, xchg_err *err)
{
    if (!out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_vcounts_named: out is NULL");
    named n;
    int rc = parse_named(spec, p, &n, err);
    if (rc)
        return rc;
    double top = n.kind == N_RANDOM ? m * (1 + n.x / 100) : n.kind == N_HOT && n.x > 1 ? m * n.x
                                                                                     : m;
    if (!isfinite(m) || m < 0 || !(top <= (double)XCHG_VCOUNTS_MAX_BLOCK))
        return xchg_fail(err, XCHG_EINVAL,
                         "counts '%s' with m = %g: the blocks would not be whole numbers of "
                         "bytes from 0 to 1e15; accepted: 0 <= m and the largest block "
                         "(m*(1+X/100) for random, F*m for hot) at most 1e15",
                         spec, m);
    xchg_vcounts *c = NULL;
    if ((rc = xchg_vcounts_new(p, &c, err)))
        return rc;
    uint64_t state = seed;
    uint64_t base = whole_bytes(m);
    uint64_t hot = n.kind == N_HOT ? whole_bytes(m * n.x) : 0;
    for (uint32_t i = 0; i < p; i++) {
        uint64_t *row = c->b + (size_t)i * p;
        for (uint32_t j = 0; j < p; j++) {
            switch (n.kind) {
            case N_UNIFORM:
                row[j] = base;
                break;
            case N_RANDOM: {
                double u = 2 * uniform01(&state) - 1;
                double x = m * (1 + u * n.x / 100);
                row[j] = whole_bytes(x > 0 ? x : 0);
                break;
            }
            case N_HOT:
                row[j] = (i == n.r || j == n.r) ? hot : base;
                break;
            case N_SPARSE: {
                double u = uniform01(&state);
                row[j] = (i == j || u < n.x) ? base : 0;
                break;
            }
            }
        }
    }
    *out = c;
    return XCHG_OK;
}
