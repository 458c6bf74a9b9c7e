/*
 * cmd_plot.c - "xchg plot": time against block size on log-log axes from
 * recorded results, one line per algorithm (xchg_plot_*, docs/drawing.md):
 *   --bench FILE  the JSON lines of `xchg-bench --json` (alg, bytes, avg_us);
 *   --sim FILE    the JSON lines of `xchg sim --json`, one run per line
 *                 (algorithm, m, time, units): xchg sim runs one block size,
 *                 so a sweep is several runs appended to one file.
 * Both may be given, and each more than once. The lines are read with a
 * small scanner of flat JSON objects: the fields above are looked up at the
 * top level and everything else (nested arrays included) is skipped.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char xchg_cli_plot_help[] =
    "usage: xchg plot (--bench FILE | --sim FILE)... --output FILE [--format svg|png]\n"
    "                 [--title TEXT]\n\n"
    "Plot recorded times against block size on log-log axes, one line per\n"
    "algorithm, with axis titles and a legend (docs/drawing.md).\n\n"
    "options:\n"
    "  --bench FILE      JSON lines of 'xchg-bench --json': one line per size and\n"
    "                    algorithm (alg, bytes, avg_us); may be given again\n"
    "  --sim FILE        JSON lines of 'xchg sim --json', one run per line\n"
    "                    (algorithm, m, time, units): run xchg sim once per size\n"
    "                    and algorithm, appending to FILE; may be given again.\n"
    "                    With --bench too, these lines are named 'ALG (sim)'\n"
    "  --output FILE, -o FILE\n"
    "                    the picture to write (replaced only when it succeeds;\n"
    "                    - means stdout)\n"
    "  --format F        svg (default) or png (made by rsvg-convert, package\n"
    "                    librsvg2-bin); without it, a FILE ending in .png is PNG\n"
    "  --title TEXT      the title (default: what was plotted)\n\n"
    "Blank lines and lines starting with # are skipped; every other line must be\n"
    "a JSON object with the fields above, sizes and times above 0.\n\n"
    "exit status: 0 ok, 2 bad input or a file that cannot be written.\n";

/* Most input files, and the largest one read. */
#define PLOT_MAX_FILES 64
#define PLOT_MAX_BYTES (64u << 20)

/* The points of one line of the plot. */
typedef struct line_pts {
    char name[96];
    double *x, *y;
    size_t n, cap;
} line_pts;

/* Everything read. */
typedef struct plot_data {
    line_pts lines[XCHG_PLOT_MAX_SERIES];
    size_t nlines;
    char units[16]; /* the time unit of the lines ("us") */
} plot_data;

/* Skip JSON white space. */
static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* Skip a JSON string starting at its opening quote; NULL when unterminated. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Skip one JSON value (string, number, literal, object or array). */
static const char *skip_value(const char *p, const char *end)
{
    if (p < end && *p == '"')
        return skip_string(p, end);
    int depth = 0;
    while (p < end) {
        if (*p == '"') {
            if (!(p = skip_string(p, end)))
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (*p == ',' && depth == 0)
            return p;
        p++;
    }
    return depth ? NULL : p;
}

/*
 * Find top-level field key of the object in [p, end): *val gets its value's
 * start and *vend its end. Returns 1 found, 0 not there, -1 not a JSON
 * object.
 */
static int field(const char *p, const char *end, const char *key, const char **val,
                 const char **vend)
{
    p = ws(p, end);
    if (p == end || *p != '{')
        return -1;
    p = ws(p + 1, end);
    if (p < end && *p == '}')
        return 0;
    size_t klen = strlen(key);
    while (p < end) {
        if (*p != '"')
            return -1;
        const char *k = p + 1, *ke = skip_string(p, end);
        if (!ke)
            return -1;
        p = ws(ke, end);
        if (p == end || *p != ':')
            return -1;
        p = ws(p + 1, end);
        const char *v = p, *ve = skip_value(p, end);
        if (!ve || ve == v)
            return -1;
        if ((size_t)(ke - 1 - k) == klen && memcmp(k, key, klen) == 0) {
            *val = v;
            *vend = ve;
            return 1;
        }
        p = ws(ve, end);
        if (p < end && *p == '}')
            return 0;
        if (p == end || *p != ',')
            return -1;
        p = ws(p + 1, end);
    }
    return -1;
}

/* A string field's text (escapes other than \" and \\ kept as written). */
static int str_field(const char *line, const char *end, const char *key, char *buf, size_t len)
{
    const char *v, *ve;
    if (field(line, end, key, &v, &ve) != 1 || *v != '"')
        return -1;
    size_t n = 0;
    for (const char *c = v + 1; c < ve - 1 && n + 1 < len; c++) {
        if (*c == '\\' && (c[1] == '"' || c[1] == '\\'))
            c++;
        buf[n++] = *c;
    }
    buf[n] = '\0';
    return 0;
}

/* A number field's value. */
static int num_field(const char *line, const char *end, const char *key, double *out)
{
    const char *v, *ve;
    if (field(line, end, key, &v, &ve) != 1)
        return -1;
    char tmp[64];
    size_t n = (size_t)(ve - v);
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    char *e;
    *out = strtod(tmp, &e);
    return *e == '\0' && (isdigit((unsigned char)tmp[0]) || tmp[0] == '-') ? 0 : -1;
}

/* Add (x, y) to the line called name. 0 or an exit status after printing. */
static int add_point(plot_data *D, const char *name, double x, double y)
{
    line_pts *l = NULL;
    for (size_t i = 0; i < D->nlines && !l; i++)
        if (strcmp(D->lines[i].name, name) == 0)
            l = &D->lines[i];
    if (!l) {
        if (D->nlines == XCHG_PLOT_MAX_SERIES)
            return xchg_cli_error("more than %d algorithms to plot", XCHG_PLOT_MAX_SERIES);
        l = &D->lines[D->nlines++];
        snprintf(l->name, sizeof l->name, "%s", name);
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        double *nx = realloc(l->x, cap * sizeof *nx);
        if (nx)
            l->x = nx;
        double *ny = nx ? realloc(l->y, cap * sizeof *ny) : NULL;
        if (!ny)
            return xchg_cli_error("out of memory");
        l->y = ny;
        l->cap = cap;
    }
    l->x[l->n] = x;
    l->y[l->n] = y;
    l->n++;
    return 0;
}

/* Read one file of JSON lines; sim: xchg sim's fields, else xchg-bench's.
 * suffix is appended to every algorithm's name. 0 or an exit status. */
static int read_results(plot_data *D, const char *path, int sim, const char *suffix)
{
    const char *opt = sim ? "--sim" : "--bench";
    const char *kname = sim ? "algorithm" : "alg", *kx = sim ? "m" : "bytes",
               *ky = sim ? "time" : "avg_us";
    char *buf;
    size_t len;
    int rc = xchg_cli_read_file(opt, path, PLOT_MAX_BYTES, &buf, &len);
    if (rc)
        return rc;
    const char *p = buf, *end = buf + len;
    size_t lineno = 0, used = 0;
    while (p < end && !rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *s = ws(p, le);
        p = nl ? nl + 1 : end;
        if (s == le || *s == '#')
            continue;
        char name[80], units[16] = "us";
        double x, y;
        const char *v, *ve;
        if (field(s, le, kname, &v, &ve) < 0) {
            rc = xchg_cli_error("%s '%s', line %zu: not a JSON object on one line; accepted: "
                                "the lines of %s --json",
                                opt, path, lineno, sim ? "xchg sim" : "xchg-bench");
        } else if (str_field(s, le, kname, name, sizeof name) || num_field(s, le, kx, &x) ||
                   num_field(s, le, ky, &y)) {
            rc = xchg_cli_error("%s '%s', line %zu: needs the fields \"%s\" (a string), \"%s\" "
                                "and \"%s\" (numbers), as %s --json writes them",
                                opt, path, lineno, kname, kx, ky, sim ? "xchg sim" : "xchg-bench");
        } else if (!(isfinite(x) && x > 0 && isfinite(y) && y > 0)) {
            rc = xchg_cli_error("%s '%s', line %zu: %s %g, %s %g cannot go on log axes; "
                                "accepted: values above 0",
                                opt, path, lineno, kx, x, ky, y);
        } else if (sim && str_field(s, le, "units", units, sizeof units) == 0 && D->units[0] &&
                   strcmp(units, D->units) != 0) {
            rc = xchg_cli_error("%s '%s', line %zu: times in %s, others in %s; accepted: "
                                "results in one unit",
                                opt, path, lineno, units, D->units);
        } else {
            if (!D->units[0])
                snprintf(D->units, sizeof D->units, "%s", units);
            char full[96];
            snprintf(full, sizeof full, "%s%s", name, suffix);
            rc = add_point(D, full, x, y);
            used++;
        }
    }
    free(buf);
    if (!rc && used == 0)
        rc = xchg_cli_error("%s '%s' holds no results; accepted: the JSON lines of %s --json", opt,
                            path, sim ? "xchg sim" : "xchg-bench");
    return rc;
}

/* Sort a line's points by x (insertion sort: lines are short and mostly
 * sorted already). */
static void sort_line(line_pts *l)
{
    for (size_t i = 1; i < l->n; i++)
        for (size_t j = i; j > 0 && l->x[j - 1] > l->x[j]; j--) {
            double tx = l->x[j], ty = l->y[j];
            l->x[j] = l->x[j - 1];
            l->y[j] = l->y[j - 1];
            l->x[j - 1] = tx;
            l->y[j - 1] = ty;
        }
}

/* xchg_cli_picture_fn: write the plot. */
static int plot_run(void *arg, xchg_write_fn write, void *ctx, xchg_err *err)
{
    return xchg_plot_write(arg, write, ctx, err);
}

/* Take every --bench and --sim from argv into bench[] and sim[], and -o as
 * --output; the rest go to rest[] for the option parser (which takes each
 * option once). 0 or an exit status after printing. */
static int split_args(int argc, char **argv, const char **bench, size_t *nb, const char **sim,
                      size_t *ns, char **rest, int *nrest)
{
    static char output[] = "--output";
    *nb = *ns = 0;
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int is_b = strncmp(a, "--bench", 7) == 0 && (a[7] == '\0' || a[7] == '=');
        int is_s = strncmp(a, "--sim", 5) == 0 && (a[5] == '\0' || a[5] == '=');
        if (!is_b && !is_s) {
            rest[(*nrest)++] = strcmp(a, "-o") == 0 ? output : argv[i];
            continue;
        }
        const char *name = is_b ? "--bench" : "--sim";
        const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!v || !*v)
            return xchg_cli_error("plot: %s needs a value (FILE)", name);
        if (*nb + *ns == PLOT_MAX_FILES)
            return xchg_cli_error("plot: more than %d result files", PLOT_MAX_FILES);
        if (is_b)
            bench[(*nb)++] = v;
        else
            sim[(*ns)++] = v;
    }
    rest[*nrest] = NULL;
    return 0;
}

/* Build the plot from D into *out. 0 or an exit status after printing. */
static int make_plot(plot_data *D, size_t nb, size_t ns, const char *title, xchg_plot **out)
{
    char ytitle[64];
    snprintf(ytitle, sizeof ytitle, "%s (%s)", nb ? "time per exchange" : "simulated time",
             D->units[0] ? D->units : "us");
    const char *what = nb && ns ? "measured (xchg-bench) and simulated (xchg sim) times"
                       : nb     ? "measured times (xchg-bench)"
                                : "simulated times (xchg sim)";
    int flits = strcmp(D->units, "t_c") == 0;
    xchg_plot_opts po = {title ? title : what,
                         flits ? "block size (flits)" : "block size (bytes)",
                         ytitle,
                         !flits,
                         0,
                         0};
    xchg_err err = {{0}};
    int rc = xchg_plot_new(&po, out, &err);
    for (size_t i = 0; i < D->nlines && rc == 0; i++) {
        sort_line(&D->lines[i]);
        rc = xchg_plot_add_series(*out, D->lines[i].name, D->lines[i].x, D->lines[i].y,
                                  D->lines[i].n, XCHG_PLOT_LINE, &err);
    }
    return rc ? xchg_cli_lib_error(rc, "plot", &err) : 0;
}

int xchg_cli_plot(int argc, char **argv)
{
    const char *bench[PLOT_MAX_FILES], *sim[PLOT_MAX_FILES];
    size_t nb = 0, ns = 0;
    int nrest = 0;
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    plot_data *D = calloc(1, sizeof *D);
    xchg_plot *plot = NULL;
    int rc = rest && D ? 0 : xchg_cli_error("out of memory");
    if (!rc)
        rc = split_args(argc, argv, bench, &nb, sim, &ns, rest, &nrest);
    xchg_cli_opt opts[] = {{"output", "FILE", NULL, 0},
                           {"format", "F", NULL, 0},
                           {"title", "TEXT", NULL, 0},
                           {NULL, NULL, NULL, 0}};
    if (!rc)
        rc = xchg_cli_parse("plot", nrest, rest, opts);
    if (!rc && nb + ns == 0)
        rc = xchg_cli_error("plot needs --bench FILE or --sim FILE, the results to plot; e.g. "
                            "xchg plot --bench bench.json -o bench.svg");
    if (!rc && !xchg_cli_has(opts, "output"))
        rc = xchg_cli_error("plot needs --output FILE (or -o FILE), the picture to write");
    int png = 0;
    if (!rc)
        rc = xchg_cli_picture_format(xchg_cli_val(opts, "format"), xchg_cli_val(opts, "output"),
                                     &png);
    for (size_t i = 0; i < nb && !rc; i++)
        rc = read_results(D, bench[i], 0, "");
    for (size_t i = 0; i < ns && !rc; i++)
        rc = read_results(D, sim[i], 1, nb ? " (sim)" : "");
    if (!rc)
        rc = make_plot(D, nb, ns, xchg_cli_val(opts, "title"), &plot);
    if (!rc)
        rc = xchg_cli_picture_write(xchg_cli_val(opts, "output"), "--output", png, "plot", plot_run,
                                    plot);
    xchg_plot_free(plot);
    if (D)
        for (size_t i = 0; i < D->nlines; i++) {
            free(D->lines[i].x);
            free(D->lines[i].y);
        }
    free(D);
    free(rest);
    return rc;
}
