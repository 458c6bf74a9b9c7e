/*
 * plot.c - plots of time against block size on log-log axes, as SVG
 * (xchg_plot_*; docs/drawing.md, "Plots"): `xchg compare --plot` draws one
 * line per algorithm, the lower bound dashed and the crossovers marked;
 * `xchg plot` draws measured (xchg-bench) or simulated (xchg sim) times.
 *
 * The SVG is written here, with the step diagrams' writer (svg.c), rather
 * than by gnuplot: no new dependency, exact control of the classes the tests
 * count (series, bound, crossover), and the same escaping and failure
 * handling as the diagrams. A plot holds copies of its points; nothing is
 * computed until xchg_plot_write.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h"

/* One line of the plot. */
typedef struct plot_series {
    char *name;
    double *x, *y;
    size_t n;
    int style; /* XCHG_PLOT_LINE or XCHG_PLOT_BOUND */
} plot_series;

/* One marked point. */
typedef struct plot_marker {
    double x, y;
    char *label;
} plot_marker;

struct xchg_plot {
    char *title, *x_title, *y_title;
    int x_bytes;
    double w, h; /* plotting area, px */
    plot_series series[XCHG_PLOT_MAX_SERIES];
    size_t nseries;
    plot_marker markers[XCHG_PLOT_MAX_MARKERS];
    size_t nmarkers;
};

/* A logarithmic axis: exponents lo..hi of base, a labelled tick every step. */
typedef struct plot_axis {
    double base;
    int lo, hi, step;
    int bytes; /* labels as sizes (base 2) */
} plot_axis;

/* Margins around the plotting area and the legend's line height, px. */
#define PLOT_LEFT 84.0
#define PLOT_TOP 44.0
#define PLOT_BOTTOM 58.0
#define PLOT_GAP 24.0
#define PLOT_LINE 17.0

/* Line colours (Tableau 10), then again with a dash pattern each round. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NCOLOURS (sizeof palette / sizeof palette[0])
static const char *const rounds[] = {"", "2 3", "9 3 2 3", "1 2"};
#define NROUNDS (sizeof rounds / sizeof rounds[0])

/* A copy of s ("" for NULL), or NULL when out of memory. */
static char *plot_strdup(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

int xchg_plot_new(const xchg_plot_opts *opts, xchg_plot **out, xchg_err *err)
{
    if (!opts || !out)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plot_new: NULL argument");
    xchg_plot *p = calloc(1, sizeof *p);
    if (!p)
        return xchg_fail(err, XCHG_ENOMEM, "xchg_plot_new: out of memory");
    p->title = plot_strdup(opts->title);
    p->x_title = plot_strdup(opts->x_title);
    p->y_title = plot_strdup(opts->y_title);
    if (!p->title || !p->x_title || !p->y_title) {
        xchg_plot_free(p);
        return xchg_fail(err, XCHG_ENOMEM, "xchg_plot_new: out of memory");
    }
    p->x_bytes = opts->x_bytes != 0;
    p->w = opts->width ? opts->width : 560;
    p->h = opts->height ? opts->height : 400;
    *out = p;
    return 0;
}

void xchg_plot_free(xchg_plot *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nseries; i++) {
        free(p->series[i].name);
        free(p->series[i].x);
        free(p->series[i].y);
    }
    for (size_t i = 0; i < p->nmarkers; i++)
        free(p->markers[i].label);
    free(p->title);
    free(p->x_title);
    free(p->y_title);
    free(p);
}

/* 0 when v may go on a logarithmic axis. */
static int plot_bad_value(double v) { return !(isfinite(v) && v > 0); }

int xchg_plot_add_series(xchg_plot *p, const char *name, const double *x, const double *y, size_t n,
                         int style, xchg_err *err)
{
    if (!p || !name || !x || !y)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plot_add_series: NULL argument");
    if (n == 0)
        return xchg_fail(err, XCHG_EINVAL, "series '%s' has no points", name);
    if (style != XCHG_PLOT_LINE && style != XCHG_PLOT_BOUND)
        return xchg_fail(err, XCHG_EINVAL,
                         "series '%s': bad style %d; accepted: XCHG_PLOT_LINE, XCHG_PLOT_BOUND",
                         name, style);
    if (p->nseries == XCHG_PLOT_MAX_SERIES)
        return xchg_fail(err, XCHG_EINVAL, "more than %d series in one plot", XCHG_PLOT_MAX_SERIES);
    for (size_t i = 0; i < n; i++)
        if (plot_bad_value(x[i]) || plot_bad_value(y[i]))
            return xchg_fail(err, XCHG_EINVAL,
                             "series '%s', point %zu: (%g, %g) cannot go on log axes; "
                             "accepted: finite values above 0",
                             name, i + 1, x[i], y[i]);
    plot_series *s = &p->series[p->nseries];
    s->name = plot_strdup(name);
    s->x = malloc(n * sizeof *s->x);
    s->y = malloc(n * sizeof *s->y);
    if (!s->name || !s->x || !s->y) {
        free(s->name);
        free(s->x);
        free(s->y);
        memset(s, 0, sizeof *s);
        return xchg_fail(err, XCHG_ENOMEM, "xchg_plot_add_series: out of memory");
    }
    memcpy(s->x, x, n * sizeof *s->x);
    memcpy(s->y, y, n * sizeof *s->y);
    s->n = n;
    s->style = style;
    p->nseries++;
    return 0;
}

int xchg_plot_add_marker(xchg_plot *p, double x, double y, const char *label, xchg_err *err)
{
    if (!p || !label)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plot_add_marker: NULL argument");
    if (p->nmarkers == XCHG_PLOT_MAX_MARKERS)
        return xchg_fail(err, XCHG_EINVAL, "more than %d markers in one plot",
                         XCHG_PLOT_MAX_MARKERS);
    if (plot_bad_value(x) || plot_bad_value(y))
        return xchg_fail(err, XCHG_EINVAL,
                         "marker '%s': (%g, %g) cannot go on log axes; accepted: finite "
                         "values above 0",
                         label, x, y);
    plot_marker *m = &p->markers[p->nmarkers];
    m->label = plot_strdup(label);
    if (!m->label)
        return xchg_fail(err, XCHG_ENOMEM, "xchg_plot_add_marker: out of memory");
    m->x = x;
    m->y = y;
    p->nmarkers++;
    return 0;
}

/* log_base(v); callers allow 1e-9 of rounding around whole exponents. */
static double plot_log(double base, double v) { return log(v) / log(base); }

/*
 * Fit an axis of the given base over [vmin, vmax]: whole exponents around
 * them, a labelled tick every step exponents from the low end, at most
 * max_ticks + 1 of them. A single value gets one exponent either side.
 */
static void axis_fit(plot_axis *a, double base, int bytes, double vmin, double vmax, int max_ticks)
{
    a->base = base;
    a->bytes = bytes;
    a->lo = (int)floor(plot_log(base, vmin) + 1e-9);
    a->hi = (int)ceil(plot_log(base, vmax) - 1e-9);
    if (a->hi <= a->lo) {
        a->lo--;
        a->hi++;
    }
    int span = a->hi - a->lo;
    a->step = (span + max_ticks - 1) / max_ticks;
    if (a->step < 1)
        a->step = 1;
}

/* Where v falls on the axis, 0 at its low end to 1 at its high end. */
static double axis_frac(const plot_axis *a, double v)
{
    return (plot_log(a->base, v) - a->lo) / (double)(a->hi - a->lo);
}

/* The label of the tick at exponent e, into buf. */
static const char *axis_label(const plot_axis *a, int e, char *buf, size_t len)
{
    if (a->bytes) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int u = e < 0 ? 0 : e / 10;
        if (u > 5)
            u = 5;
        snprintf(buf, len, "%g %s", ldexp(1.0, e - 10 * u), units[u]);
    } else if (e >= -3 && e <= 5) {
        snprintf(buf, len, "%g", pow(10.0, e));
    } else {
        snprintf(buf, len, "1e%d", e);
    }
    return buf;
}

/* The page position of a point. */
static double px(const xchg_plot *p, const plot_axis *ax, double x)
{
    return PLOT_LEFT + axis_frac(ax, x) * p->w;
}
static double py(const xchg_plot *p, const plot_axis *ay, double y)
{
    return PLOT_TOP + (1.0 - axis_frac(ay, y)) * p->h;
}

/* Rough width of text in a 12 px sans-serif font. */
static double text_w(const char *s) { return (double)strlen(s) * 6.8; }

/* The axes: grid, ticks, tick labels, frame and titles. */
static void write_axes(const xchg_plot *p, draw_svg *o, const plot_axis *ax, const plot_axis *ay)
{
    char lab[48];
    double x0 = PLOT_LEFT, y0 = PLOT_TOP, x1 = PLOT_LEFT + p->w, y1 = PLOT_TOP + p->h;
    /* minor ticks at 2..9 times each decade when every decade is labelled */
    if (ay->base == 10 && ay->step == 1)
        for (int e = ay->lo; e < ay->hi; e++)
            for (int k = 2; k <= 9; k++) {
                double y = py(p, ay, k * pow(10.0, e));
                xchg_draw_svg_printf(o, "<path class=\"minor\" d=\"M%.1f %.1fH%.1f\"/>\n", x0, y,
                                     x0 + 4);
            }
    /* sizes: a short tick at every power of two between the labelled ones */
    if (ax->step > 1)
        for (int e = ax->lo; e <= ax->hi; e++)
            if ((e - ax->lo) % ax->step)
                xchg_draw_svg_printf(o, "<path class=\"minor\" d=\"M%.1f %.1fv-4\"/>\n",
                                     px(p, ax, pow(ax->base, e)), y1);
    for (int e = ax->lo; e <= ax->hi; e += ax->step) {
        double x = px(p, ax, pow(ax->base, e));
        xchg_draw_svg_printf(o,
                             "<path class=\"grid\" d=\"M%.1f %.1fV%.1f\"/>"
                             "<path class=\"tick\" d=\"M%.1f %.1fv6\"/>"
                             "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\">",
                             x, y0, y1, x, y1, x, y1 + 20);
        xchg_draw_svg_text(o, axis_label(ax, e, lab, sizeof lab));
        xchg_draw_svg_printf(o, "</text>\n");
    }
    for (int e = ay->lo; e <= ay->hi; e += ay->step) {
        double y = py(p, ay, pow(ay->base, e));
        xchg_draw_svg_printf(o,
                             "<path class=\"grid\" d=\"M%.1f %.1fH%.1f\"/>"
                             "<path class=\"tick\" d=\"M%.1f %.1fh-6\"/>"
                             "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\">",
                             x0, y, x1, x0, y, x0 - 9, y + 4);
        xchg_draw_svg_text(o, axis_label(ay, e, lab, sizeof lab));
        xchg_draw_svg_printf(o, "</text>\n");
    }
    xchg_draw_svg_printf(o,
                         "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\"/>\n",
                         x0, y0, p->w, p->h);
    xchg_draw_svg_printf(o, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">", (x0 + x1) / 2, y1 + 44);
    xchg_draw_svg_text(o, p->x_title);
    xchg_draw_svg_printf(o,
                         "</text>\n<text class=\"axis\" transform=\"translate(%.1f %.1f) "
                         "rotate(-90)\">",
                         x0 - 62, (y0 + y1) / 2);
    xchg_draw_svg_text(o, p->y_title);
    xchg_draw_svg_printf(o, "</text>\n");
    if (p->title[0]) {
        xchg_draw_svg_printf(o, "<text class=\"title\" x=\"%.1f\" y=\"26\">", x0);
        xchg_draw_svg_text(o, p->title);
        xchg_draw_svg_printf(o, "</text>\n");
    }
}

/* The stroke attributes of line series number k (counting lines only). */
static void line_style(size_t k, char *buf, size_t len)
{
    const char *dash = rounds[(k / NCOLOURS) % NROUNDS];
    snprintf(buf, len, "stroke=\"%s\"%s%s%s", palette[k % NCOLOURS],
             dash[0] ? " stroke-dasharray=\"" : "", dash, dash[0] ? "\"" : "");
}

/* Every series, lines in their colours and bounds dashed. */
static void write_series(const xchg_plot *p, draw_svg *o, const plot_axis *ax, const plot_axis *ay,
                         draw_path *d)
{
    size_t k = 0;
    for (size_t i = 0; i < p->nseries; i++) {
        const plot_series *s = &p->series[i];
        xchg_draw_path_clear(d);
        for (size_t j = 0; j < s->n; j++)
            xchg_draw_path_add(d, "%s%.1f %.1f", j ? "L" : "M", px(p, ax, s->x[j]),
                               py(p, ay, s->y[j]));
        if (s->n == 1) /* one point: a dot-length stroke so it shows */
            xchg_draw_path_add(d, "h0.1");
        if (d->oom)
            return;
        char st[96];
        if (s->style == XCHG_PLOT_BOUND)
            snprintf(st, sizeof st, "stroke=\"#000\" stroke-dasharray=\"7 5\"");
        else
            line_style(k++, st, sizeof st);
        xchg_draw_svg_printf(o, "<path class=\"%s\" %s d=\"%s\"><title>",
                             s->style == XCHG_PLOT_BOUND ? "bound" : "series", st, d->buf);
        xchg_draw_svg_text(o, s->name);
        xchg_draw_svg_printf(o, "</title></path>\n");
    }
}

/* The markers: a dot and a label, staggered upwards so neighbours part. */
static void write_markers(const xchg_plot *p, draw_svg *o, const plot_axis *ax, const plot_axis *ay)
{
    for (size_t i = 0; i < p->nmarkers; i++) {
        const plot_marker *m = &p->markers[i];
        double x = px(p, ax, m->x), y = py(p, ay, m->y);
        double ly = y - 10 - 14 * (double)(i % 3);
        /* keep the label inside the plotting area */
        double lx = x + 6;
        if (lx + text_w(m->label) * 0.9 > PLOT_LEFT + p->w)
            lx = x - 6 - text_w(m->label) * 0.9;
        if (ly < PLOT_TOP + 12)
            ly = y + 18 + 14 * (double)(i % 3);
        xchg_draw_svg_printf(o,
                             "<g class=\"crossover\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>"
                             "<text x=\"%.1f\" y=\"%.1f\">",
                             x, y, lx, ly);
        xchg_draw_svg_text(o, m->label);
        xchg_draw_svg_printf(o, "</text></g>\n");
    }
}

/* Width of the legend, px. */
static double legend_width(const xchg_plot *p)
{
    double w = p->nmarkers ? text_w("crossover") : 0;
    for (size_t i = 0; i < p->nseries; i++)
        if (text_w(p->series[i].name) > w)
            w = text_w(p->series[i].name);
    return 36 + w;
}

/* The legend, right of the plot: a sample of each series, then the marker. */
static void write_legend(const xchg_plot *p, draw_svg *o)
{
    double x = PLOT_LEFT + p->w + PLOT_GAP, y = PLOT_TOP + 8;
    size_t k = 0;
    for (size_t i = 0; i < p->nseries; i++, y += PLOT_LINE) {
        const plot_series *s = &p->series[i];
        char st[96];
        if (s->style == XCHG_PLOT_BOUND)
            snprintf(st, sizeof st, "stroke=\"#000\" stroke-dasharray=\"7 5\"");
        else
            line_style(k++, st, sizeof st);
        xchg_draw_svg_printf(o,
                             "<path class=\"key\" %s d=\"M%.1f %.1fh26\"/>"
                             "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">",
                             st, x, y, x + 32, y + 4);
        xchg_draw_svg_text(o, s->name);
        xchg_draw_svg_printf(o, "</text>\n");
    }
    if (p->nmarkers)
        xchg_draw_svg_printf(o,
                             "<circle class=\"keydot\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>"
                             "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">crossover</text>\n",
                             x + 13, y, x + 32, y + 4);
}

/* The smallest and largest x and y over every series and marker. */
static void data_range(const xchg_plot *p, double *xmin, double *xmax, double *ymin, double *ymax)
{
    *xmin = *ymin = INFINITY;
    *xmax = *ymax = 0;
    for (size_t i = 0; i < p->nseries; i++)
        for (size_t j = 0; j < p->series[i].n; j++) {
            *xmin = fmin(*xmin, p->series[i].x[j]);
            *xmax = fmax(*xmax, p->series[i].x[j]);
            *ymin = fmin(*ymin, p->series[i].y[j]);
            *ymax = fmax(*ymax, p->series[i].y[j]);
        }
    for (size_t i = 0; i < p->nmarkers; i++) {
        *xmin = fmin(*xmin, p->markers[i].x);
        *xmax = fmax(*xmax, p->markers[i].x);
        *ymin = fmin(*ymin, p->markers[i].y);
        *ymax = fmax(*ymax, p->markers[i].y);
    }
}

int xchg_plot_write(const xchg_plot *p, xchg_write_fn write, void *ctx, xchg_err *err)
{
    if (!p || !write)
        return xchg_fail(err, XCHG_EINVAL, "xchg_plot_write: NULL argument");
    if (p->nseries == 0)
        return xchg_fail(err, XCHG_EINVAL, "the plot has no series: nothing to draw");
    double xmin, xmax, ymin, ymax;
    data_range(p, &xmin, &xmax, &ymin, &ymax);
    plot_axis ax, ay;
    if (p->x_bytes)
        axis_fit(&ax, 2, 1, xmin, xmax, 10);
    else
        axis_fit(&ax, 10, 0, xmin, xmax, 10);
    axis_fit(&ay, 10, 0, ymin, ymax, 8);
    double width = PLOT_LEFT + p->w + PLOT_GAP + legend_width(p) + 12;
    double entries = (double)p->nseries + (p->nmarkers ? 1 : 0);
    double height = fmax(PLOT_TOP + p->h + PLOT_BOTTOM, PLOT_TOP + entries * PLOT_LINE + 12);

    draw_svg o = {write, ctx, 0, 0};
    draw_path d = {0};
    xchg_draw_svg_printf(&o,
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                         "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                         ceil(width), ceil(height), ceil(width), ceil(height));
    xchg_draw_svg_printf(
        &o, "<style>\n"
            "text{font:12px sans-serif;fill:#000}\n"
            ".title{font:15px sans-serif}\n"
            ".axis{font:13px sans-serif;text-anchor:middle}\n"
            ".xtick{text-anchor:middle}\n"
            ".ytick{text-anchor:end}\n"
            ".grid{stroke:#e4e4e4;stroke-width:1}\n"
            ".tick,.minor{stroke:#000;stroke-width:1}\n"
            ".frame{fill:none;stroke:#000;stroke-width:1}\n"
            ".series,.bound,.key{fill:none;stroke-width:2;stroke-linejoin:round}\n"
            ".crossover circle,.keydot{fill:#fff;stroke:#000;stroke-width:1.5}\n"
            ".crossover text{font:11px sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3}\n"
            "</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    write_axes(p, &o, &ax, &ay);
    write_series(p, &o, &ax, &ay, &d);
    write_markers(p, &o, &ax, &ay);
    write_legend(p, &o);
    xchg_draw_svg_printf(&o, "</svg>\n");
    int oom = o.oom || d.oom;
    xchg_draw_path_free(&d);
    if (oom)
        return xchg_fail(err, XCHG_ENOMEM, "xchg_plot_write: out of memory");
    if (o.write_rc)
        return xchg_fail(err, XCHG_EINVAL,
                         "writing the plot failed (the write callback "
                         "returned %d)",
                         o.write_rc);
    return 0;
}
