/*
 * cli_common.c - the xchg tool's shared pieces: long-option parsing against
 * a per-command table, the common options (--topo, --alg, machine
 * parameters, --counts for blocks of uneven sizes), strict number parsing,
 * the one block-size range parser (compare's --m, plan's --sweep), error
 * printing and JSON writers.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

int xchg_cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("xchg: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return XCHG_CLI_USAGE;
}

int xchg_cli_lib_error(int rc, const char *what, const xchg_err *err)
{
    const char *msg = err && err->msg[0] ? err->msg : "failed (no message)";
    if (rc == XCHG_EINTERNAL) {
        fprintf(stderr, "xchg: internal error: %s: %s; please report it\n", what, msg);
        return XCHG_CLI_INTERNAL;
    }
    if (rc == XCHG_ENOMEM && !(err && err->msg[0]))
        msg = "out of memory; try a smaller topology";
    fprintf(stderr, "xchg: %s: %s\n", what, msg);
    return XCHG_CLI_USAGE;
}

int xchg_cli_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* Find an option by name, the name given as the first len bytes of s. */
static xchg_cli_opt *find_opt(xchg_cli_opt *opts, const char *s, size_t len)
{
    for (xchg_cli_opt *o = opts; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, s, len) == 0)
            return o;
    return NULL;
}

/* Print the accepted options of a table after an error, on one line. */
static void print_accepted(const xchg_cli_opt *opts)
{
    fputs("accepted:", stderr);
    for (const xchg_cli_opt *o = opts; o->name; o++)
        fprintf(stderr, "%s --%s%s%s", o == opts ? "" : ",", o->name, o->meta ? " " : "",
                o->meta ? o->meta : "");
    fputs(", --help", stderr);
}

int xchg_cli_parse(const char *cmd, int argc, char **argv, xchg_cli_opt *opts)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            fprintf(stderr,
                    "xchg: unexpected argument '%s' for 'xchg %s'; options are long "
                    "(--name value), see 'xchg %s --help'\n",
                    a, cmd, cmd);
            return XCHG_CLI_USAGE;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        xchg_cli_opt *o = find_opt(opts, name, len);
        if (!o) {
            fprintf(stderr, "xchg: unknown option '--%.*s' for 'xchg %s'; ", (int)len, name,
                    cmd);
            print_accepted(opts);
            fputc('\n', stderr);
            return XCHG_CLI_USAGE;
        }
        if (o->seen)
            return xchg_cli_error("option --%s given twice; give each option once", o->name);
        if (!o->meta) {
            if (eq)
                return xchg_cli_error("option --%s takes no value; write just --%s", o->name,
                                      o->name);
            o->seen = 1;
            continue;
        }
        const char *v;
        if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc && !(strncmp(argv[i + 1], "--", 2) == 0 && argv[i + 1][2])) {
            v = argv[++i];
        } else {
            return xchg_cli_error("option --%s needs a value; accepted: --%s %s", o->name,
                                  o->name, o->meta);
        }
        if (v[0] == '\0')
            return xchg_cli_error("option --%s has an empty value; accepted: --%s %s",
                                  o->name, o->name, o->meta);
        o->value = v;
        o->seen = 1;
    }
    return 0;
}

xchg_cli_opt *xchg_cli_get(xchg_cli_opt *opts, const char *name)
{
    return find_opt(opts, name, strlen(name));
}

const char *xchg_cli_val(xchg_cli_opt *opts, const char *name)
{
    xchg_cli_opt *o = xchg_cli_get(opts, name);
    return o && o->seen ? o->value : NULL;
}

int xchg_cli_has(xchg_cli_opt *opts, const char *name)
{
    xchg_cli_opt *o = xchg_cli_get(opts, name);
    return o && o->seen;
}

int xchg_cli_require(xchg_cli_opt *opts, const char *name, const char *cmd)
{
    if (xchg_cli_has(opts, name))
        return 0;
    const char *example = strcmp(name, "topo") == 0  ? "torus:8x8, hypercube:4, ring:16"
                          : strcmp(name, "alg") == 0 ? "an algorithm from 'xchg list'"
                                                     : "see --help";
    return xchg_cli_error("'xchg %s' needs --%s; accepted: --%s %s (%s)", cmd, name, name,
                          xchg_cli_get(opts, name)->meta, example);
}

int xchg_cli_op(xchg_cli_opt *opts, uint32_t p, xchg_op *op)
{
    memset(op, 0, sizeof *op);
    xchg_err err = {{0}};
    if (xchg_cli_has(opts, "op") && xchg_op_parse(xchg_cli_val(opts, "op"), &op->kind, &err))
        return xchg_cli_error("--op: %s", err.msg);
    int rooted = op->kind == XCHG_OP_BCAST || op->kind == XCHG_OP_REDUCE ||
                 op->kind == XCHG_OP_SCATTER || op->kind == XCHG_OP_GATHER;
    uint64_t v;
    int rc;
    if (xchg_cli_has(opts, "root")) {
        if (!rooted)
            return xchg_cli_error("--root goes with a rooted operation; accepted: --op bcast, "
                                  "reduce, scatter or gather");
        if ((rc = xchg_cli_uint("root", xchg_cli_val(opts, "root"), 0, p ? p - 1 : 0, &v)))
            return rc;
        op->root = (uint32_t)v;
    }
    op->shift = op->kind == XCHG_OP_SHIFT ? 1 : 0;
    if (xchg_cli_has(opts, "q")) {
        if (op->kind != XCHG_OP_SHIFT)
            return xchg_cli_error("--q goes with --op shift");
        if (p < 2)
            return xchg_cli_error("--q: a shift needs 2 or more nodes, and this has %u", p);
        if ((rc = xchg_cli_uint("q", xchg_cli_val(opts, "q"), 1, p - 1, &v)))
            return rc;
        op->shift = (uint32_t)v;
    }
    return 0;
}

int xchg_cli_topo(xchg_cli_opt *opts, const char *cmd, xchg_topo *t)
{
    int rc = xchg_cli_require(opts, "topo", cmd);
    if (rc)
        return rc;
    xchg_err err = {{0}};
    const char *spec = xchg_cli_val(opts, "topo");
    rc = xchg_topo_parse(spec, t, &err);
    if (rc) {
        char what[160];
        snprintf(what, sizeof what, "bad --topo '%.100s'", spec);
        return xchg_cli_lib_error(rc, what, &err);
    }
    return 0;
}

/*
 * Strict decimal: s is a finite number in [lo, hi] (in (lo, hi] when
 * lo_open) with no spaces, trailing text, hex, nan or inf. Returns 1 and
 * sets *out, or 0.
 */
static int strict_number(const char *s, double lo, double hi, int lo_open, double *out)
{
    int ok = s && s[0] && (s[0] == '-' || s[0] == '+' || s[0] == '.' ||
                           (s[0] >= '0' && s[0] <= '9')) &&
             !strpbrk(s, "xXpP"); /* no hex floats */
    if (!ok)
        return 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    ok = errno == 0 && end && *end == '\0' && isfinite(v) && (lo_open ? v > lo : v >= lo) &&
         v <= hi;
    if (ok)
        *out = v;
    return ok;
}

int xchg_cli_number(const char *opt, const char *s, double lo, double hi, int lo_open,
                    double *out)
{
    if (!strict_number(s, lo, hi, lo_open, out))
        return xchg_cli_error("bad number '%s' for --%s; accepted: a decimal number %s %g and "
                              "at most %g",
                              s ? s : "", opt, lo_open ? "above" : "from", lo, hi);
    return 0;
}

/* What a block-size range accepts, for every range option. */
#define RANGE_ACCEPTED                                                                  \
    "accepted: MIN:MAX or a single size N (N:N), decimal numbers with 0 < MIN <= MAX <= " \
    "1e+15, e.g. 8:65536 or 0.0625:4096"

int xchg_cli_range(const char *opt, const char *s, double *lo, double *hi)
{
    const char *colon = s ? strchr(s, ':') : NULL;
    char part[64];
    size_t n = colon ? (size_t)(colon - s) : (s ? strlen(s) : 0);
    if (!s || n == 0 || n >= sizeof part || (colon && (!colon[1] || strchr(colon + 1, ':'))))
        return xchg_cli_error("bad --%s '%.80s'; " RANGE_ACCEPTED, opt, s ? s : "");
    memcpy(part, s, n);
    part[n] = '\0';
    const char *hs = colon ? colon + 1 : part;
    double a, b;
    if (!strict_number(part, 0, XCHG_CLI_MAX_M, 1, &a))
        return xchg_cli_error("bad block size '%s' in --%s '%.80s'; " RANGE_ACCEPTED, part, opt,
                              s);
    if (!strict_number(hs, 0, XCHG_CLI_MAX_M, 1, &b))
        return xchg_cli_error("bad block size '%.40s' in --%s '%.80s'; " RANGE_ACCEPTED, hs, opt,
                              s);
    if (a > b)
        return xchg_cli_error("bad --%s '%.80s': MIN %s is above MAX %.40s; " RANGE_ACCEPTED,
                              opt, s, part, hs);
    *lo = a;
    *hi = b;
    return 0;
}

const char *xchg_cli_size(double m, char *buf, size_t len)
{
    snprintf(buf, len, "%.15g", m);
    if (strtod(buf, NULL) != m)
        snprintf(buf, len, "%.17g", m);
    return buf;
}

int xchg_cli_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    int ok = s && s[0] >= '0' && s[0] <= '9';
    unsigned long long v = 0;
    if (ok) {
        char *end = NULL;
        errno = 0;
        v = strtoull(s, &end, 10);
        ok = errno == 0 && *end == '\0' && v >= lo && v <= hi;
    }
    if (!ok)
        return xchg_cli_error("bad number '%s' for --%s; accepted: a whole number from %llu "
                              "to %llu",
                              s ? s : "", opt, (unsigned long long)lo,
                              (unsigned long long)hi);
    *out = v;
    return 0;
}

static int is_preset_name(const char *name);

int xchg_cli_machine(xchg_cli_opt *opts, uint32_t nodes, xchg_machine *out)
{
    int has_m = xchg_cli_has(opts, "machine"), has_a = xchg_cli_has(opts, "a");
    int has_ts = xchg_cli_has(opts, "ts"), has_tw = xchg_cli_has(opts, "tw");
    int has_tr = xchg_cli_has(opts, "tr");
    int custom = has_ts || has_tw || has_tr;
    if (has_m + has_a + (custom != 0) > 1)
        return xchg_cli_error("--machine, --a and --ts/--tw/--tr are alternatives; accepted: "
                              "one of --machine NAME, --a A, --ts S --tw W [--tr R]");
    if (custom && !(has_ts && has_tw))
        return xchg_cli_error("--ts and --tw go together (--tr is optional); accepted: "
                              "--ts S --tw W [--tr R], e.g. --ts 75 --tw 0.011");
    xchg_machine m;
    memset(&m, 0, sizeof m);
    if (custom) {
        int rc;
        const double hi = XCHG_CLI_MAX_PARAM;
        if ((rc = xchg_cli_number("ts", xchg_cli_val(opts, "ts"), 0, hi, 0, &m.ts)) ||
            (rc = xchg_cli_number("tw", xchg_cli_val(opts, "tw"), 0, hi, 0, &m.tw)) ||
            (has_tr && (rc = xchg_cli_number("tr", xchg_cli_val(opts, "tr"), 0, hi, 0, &m.tr))))
            return rc;
        snprintf(m.name, sizeof m.name, "custom");
        snprintf(m.units, sizeof m.units, "us");
        xchg_machine_node_defaults(&m);
    } else if (has_a) {
        const double hi = XCHG_CLI_MAX_PARAM;
        double a;
        int rc = xchg_cli_number("a", xchg_cli_val(opts, "a"), 0, hi, 0, &a);
        if (rc)
            return rc;
        xchg_err err = {{0}};
        if ((rc = xchg_machine_ratio(a, &m, &err)))
            return xchg_cli_lib_error(rc, "bad --a", &err);
    } else {
        const char *name = has_m ? xchg_cli_val(opts, "machine") : "paragon";
        xchg_err err = {{0}};
        int rc = xchg_machine_preset(name, nodes, &m, &err);
        if (rc && is_preset_name(name)) {
            char what[96];
            snprintf(what, sizeof what, "bad --machine '%.40s'", name);
            return xchg_cli_lib_error(rc, what, &err);
        }
        if (rc && (rc = xchg_cli_machine_file(name, &m)))
            return rc;
    }
    *out = m;
    return 0;
}

/* Nonzero when name is a preset's name. */
static int is_preset_name(const char *name)
{
    for (size_t i = 0; i < xchg_machine_preset_count(); i++)
        if (strcmp(name, xchg_machine_preset_name(i)) == 0)
            return 1;
    return 0;
}

int xchg_cli_read_file(const char *opt, const char *path, size_t max, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return xchg_cli_error("cannot read %s '%s': %s", opt, path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    int rc = b ? 0 : xchg_cli_error("out of memory reading %s '%s'", opt, path);
    while (!rc) {
        if (n == cap) {
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = ncap > cap ? realloc(b, ncap) : NULL;
            if (!nb) {
                rc = ncap > cap ? xchg_cli_error("out of memory reading %s '%s'", opt, path)
                                : xchg_cli_error("%s '%s' is larger than %zu bytes", opt, path,
                                                 max);
                break;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = xchg_cli_error("cannot read %s '%s': %s", opt, path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

int xchg_cli_machine_file(const char *path, xchg_machine *out)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        char list[96] = "";
        for (size_t i = 0; i < xchg_machine_preset_count(); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     xchg_machine_preset_name(i));
        return xchg_cli_error("bad --machine '%s': not a preset and not a file we can read "
                              "(%s); accepted: %s, or a machine file (xchg probe writes one; "
                              "docs/machine-file.md)",
                              path, strerror(errno), list);
    }
    fclose(probe);
    char *text;
    size_t len;
    /* A machine file is a dozen short lines. */
    int rc = xchg_cli_read_file("--machine", path, 65536, &text, &len);
    if (rc)
        return rc;
    xchg_err err = {{0}};
    rc = xchg_machine_parse(text, len, out, &err);
    free(text);
    if (rc)
        return xchg_cli_error("bad machine file '%s': %s", path, err.msg);
    return 0;
}

int xchg_cli_alg_error(int rc, const char *alg_spec, const xchg_err *err)
{
    char what[160];
    snprintf(what, sizeof what, "--alg '%.100s'", alg_spec);
    return xchg_cli_lib_error(rc, what, err);
}

int xchg_cli_generate(const xchg_topo *t, const char *alg_spec, xchg_sched **out)
{
    xchg_err err = {{0}};
    int rc = xchg_generate(t, alg_spec, out, &err);
    return rc ? xchg_cli_alg_error(rc, alg_spec, &err) : 0;
}

const char *xchg_cli_link_source(int source)
{
    switch (source) {
    case XCHG_LINK_MEASURED:
        return "measured";
    case XCHG_LINK_UNMEASURED:
        return "not measured";
    default:
        return "claimed";
    }
}

double xchg_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void xchg_cli_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

void xchg_cli_json_size(FILE *f, double m)
{
    char buf[40];
    if (isfinite(m))
        fputs(xchg_cli_size(m, buf, sizeof buf), f);
    else
        fputs("null", f);
}

void xchg_cli_json_u64(FILE *f, uint64_t v)
{
    fprintf(f, "%llu", (unsigned long long)v);
}

void xchg_cli_json_machine(FILE *f, const xchg_machine *mach)
{
    fputs(",\"machine\":", f);
    xchg_tool_json_str(f, mach->name);
    fputs(",\"units\":", f);
    xchg_tool_json_str(f, mach->units);
    fputs(",\"ts\":", f);
    xchg_cli_json_num(f, mach->ts);
    fputs(",\"tw\":", f);
    xchg_cli_json_num(f, mach->tw);
    fputs(",\"tr\":", f);
    xchg_cli_json_num(f, mach->tr);
}

void xchg_cli_json_vcost(FILE *f, const xchg_vcost *v, int full)
{
    fputs(",\"startups\":", f);
    xchg_cli_json_u64(f, v->startups);
    fputs(",\"messages\":", f);
    xchg_cli_json_u64(f, v->messages);
    if (full) {
        fputs(",\"max_node_messages\":", f);
        xchg_cli_json_u64(f, v->max_node_messages);
    }
    fputs(",\"max_message_bytes\":", f);
    xchg_cli_json_u64(f, v->max_message_bytes);
    fputs(",\"volume_bytes\":", f);
    xchg_cli_json_u64(f, v->volume_bytes);
    fputs(",\"link_volume_bytes\":", f);
    xchg_cli_json_u64(f, v->link_volume_bytes);
    fputs(",\"link_volume_source\":", f);
    xchg_tool_json_str(f, xchg_cli_link_source(v->link_source));
    if (full) {
        fputs(",\"copy_blocks\":", f);
        xchg_cli_json_u64(f, v->copy_blocks);
    }
    fputs(",\"copy_bytes\":", f);
    xchg_cli_json_num(f, v->copy_bytes);
    fputs(",\"time\":", f);
    xchg_cli_json_num(f, v->time);
    fputs(",\"link_time\":", f);
    xchg_cli_json_num(f, v->link_time);
}

int xchg_cli_no_line(const xchg_plan_entry *e)
{
    return e->check == XCHG_CHECK_ERROR || e->check == XCHG_CHECK_SKIPPED;
}

int xchg_cli_block_size(xchg_cli_opt *opts, double *m)
{
    *m = 1024;
    if (xchg_cli_has(opts, "m"))
        return xchg_cli_number("m", xchg_cli_val(opts, "m"), 0, XCHG_CLI_MAX_M, 1, m);
    return 0;
}

FILE *xchg_cli_tmp_beside(const char *path, const char *opt, char **tmp)
{
    size_t n = strlen(path);
    *tmp = malloc(n + 16);
    if (!*tmp) {
        xchg_cli_error("out of memory");
        return NULL;
    }
    snprintf(*tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        int e = errno;
        xchg_cli_error("cannot write %s '%s': %s; accepted: a file in a writable directory", opt,
                       path, strerror(e));
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        xchg_cli_error("cannot write %s '%s': %s", opt, path, strerror(e));
    }
    return f;
}

/* The named distributions' names: a --counts value whose word before ':'
 * (or whole value) is one of them is a distribution, anything else a file. */
static int counts_named(const char *v)
{
    static const char *const names[] = {"uniform", "random", "hot", "sparse"};
    size_t n = strcspn(v, ":");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && strncmp(v, names[i], n) == 0)
            return 1;
    return 0;
}

/* The largest counts file read: 1 GiB (p = 4096 nodes of 16-digit sizes). */
#define XCHG_CLI_COUNTS_FILE_MAX (1u << 30)

/*
 * --counts: a named distribution when its first word is one (the library
 * makes it at block size m with --seed, default 1), else a file read whole
 * and parsed for t's nodes. --seed only goes with the random kinds and --m
 * not with a file, so nothing given is silently ignored.
 */
int xchg_cli_counts(xchg_cli_opt *opts, const xchg_topo *t, double m, xchg_vcounts **out,
                    char *desc, size_t len)
{
    *out = NULL;
    desc[0] = '\0';
    const char *v = xchg_cli_val(opts, "counts");
    if (!v) {
        if (xchg_cli_has(opts, "seed"))
            return xchg_cli_error("--seed seeds --counts random:X or sparse:F; accepted: "
                                  "--seed N with one of them");
        return 0;
    }
    xchg_err err = {{0}};
    char sz[40];
    xchg_cli_limits lim;
    int lrc = xchg_cli_limits_get(opts, &lim);
    if (lrc)
        return lrc;
    uint64_t need = (uint64_t)t->nodes * t->nodes * sizeof(uint64_t);
    if (need > lim.max_bytes) {
        char a[32], b[32];
        return xchg_cli_error("--counts on %u nodes takes %s (p*p sizes of 8 bytes), over the "
                              "memory limit of %s; accepted: fewer nodes, or --max-memory "
                              "BYTES to raise it",
                              (unsigned)t->nodes, xchg_bytes_text(need, a, sizeof a),
                              xchg_bytes_text(lim.max_bytes, b, sizeof b));
    }
    if (counts_named(v)) {
        uint64_t seed = 1;
        int random = strncmp(v, "random", 6) == 0 || strncmp(v, "sparse", 6) == 0;
        if (xchg_cli_has(opts, "seed") && !random)
            return xchg_cli_error("--seed seeds --counts random:X or sparse:F, and '%s' draws "
                                  "nothing; accepted: --seed N with random:X or sparse:F",
                                  v);
        if (xchg_cli_has(opts, "seed") &&
            xchg_cli_uint("seed", xchg_cli_val(opts, "seed"), 0, UINT64_MAX, &seed))
            return XCHG_CLI_USAGE;
        int rc = xchg_vcounts_named(v, t->nodes, m, seed, out, &err);
        if (rc)
            return xchg_cli_lib_error(rc, "bad --counts", &err);
        if (random)
            snprintf(desc, len, "%s (m = %s, seed %llu)", v, xchg_cli_size(m, sz, sizeof sz),
                     (unsigned long long)seed);
        else
            snprintf(desc, len, "%s (m = %s)", v, xchg_cli_size(m, sz, sizeof sz));
        return 0;
    }
    if (xchg_cli_has(opts, "seed"))
        return xchg_cli_error("--seed seeds --counts random:X or sparse:F, not a file ('%s'); "
                              "accepted: --seed N with random:X or sparse:F",
                              v);
    if (xchg_cli_has(opts, "m"))
        return xchg_cli_error("--m with a counts file ('%s'): the file gives every block's "
                              "size; accepted: --m with a named --counts (uniform, random:X, "
                              "hot:R[:F], sparse:F)",
                              v);
    FILE *probe = fopen(v, "rb");
    if (!probe)
        return xchg_cli_error("cannot read --counts '%s': %s; accepted: a counts file "
                              "(docs/alltoallv.md) or uniform, random:X, hot:R[:F], sparse:F",
                              v, strerror(errno));
    fclose(probe);
    char *text = NULL;
    size_t n = 0;
    int rc = xchg_cli_read_file("--counts", v, XCHG_CLI_COUNTS_FILE_MAX, &text, &n);
    if (rc)
        return rc;
    rc = xchg_vcounts_parse(text, n, t->nodes, out, &err);
    free(text);
    if (rc == XCHG_ENOMEM)
        return xchg_cli_lib_error(rc, "--counts", &err);
    if (rc)
        return xchg_cli_error("bad --counts file '%s' for %u nodes: %s", v,
                              (unsigned)t->nodes, err.msg);
    snprintf(desc, len, "file '%s'", v);
    return 0;
}

int xchg_cli_counts_work(xchg_cli_opt *opts, const xchg_topo *t, uint64_t steps)
{
    xchg_cli_limits lim;
    int rc = xchg_cli_limits_get(opts, &lim);
    if (rc)
        return rc;
    uint64_t pp = (uint64_t)t->nodes * t->nodes;
    if (steps && pp > lim.max_work / steps)
        return xchg_cli_error("--counts follows every block: %llu blocks over %llu steps is "
                              "more than the limit of %.3g block-steps; accepted: --max-work W "
                              "to raise it, or fewer nodes",
                              (unsigned long long)pp, (unsigned long long)steps,
                              (double)lim.max_work);
    return 0;
}
