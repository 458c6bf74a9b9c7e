/*
 * test_plot.c - the log-log plots (xchg_plot_*):
 *   - the document starts with <svg, ends with </svg>, has a width and a
 *     height, and holds one <path class="series"> per line, one
 *     <path class="bound"> per bound and one <g class="crossover"> per
 *     marker, with the names and labels escaped;
 *   - the axes: labelled ticks move right along x and up along y as their
 *     values grow; sizes are labelled 8 B ... 64 KiB; a point at the low
 *     end of both axes is at the plotting area's bottom-left corner;
 *   - a plot of one point still has axes around it;
 *   - refused: NULL arguments, no points, values that cannot go on a log
 *     axis (0, negative, NaN, infinity), a bad style, too many series or
 *     markers, writing a plot of no series, a failing write callback; a
 *     refused series leaves the plot as it was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The number after `attr="` in the first <svg ...> line, or -1. */
static double svg_attr(const check_doc *d, const char *attr)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *p = d->buf ? strstr(d->buf, key) : NULL;
    return p ? strtod(p + strlen(key), NULL) : -1;
}

/* A plot of nlines lines and a bound over 8..65536, x as sizes, and
 * nmarkers markers. */
static xchg_plot *sample(size_t nlines, size_t nmarkers)
{
    xchg_plot_opts po = {"T <&> \"q\"", "block size (bytes)", "time (us)", 1, 0, 0};
    xchg_plot *p = NULL;
    CHECK(xchg_plot_new(&po, &p, NULL) == 0 && p, "xchg_plot_new");
    if (!p)
        return NULL;
    double x[14], y[14];
    for (size_t i = 0; i < nlines; i++) {
        for (size_t k = 0; k < 14; k++) {
            x[k] = 8.0 * (double)(1u << k);
            y[k] = 100.0 * (double)(i + 1) + 0.01 * x[k] * (double)(nlines - i);
        }
        char name[32];
        snprintf(name, sizeof name, "alg<%zu>", i);
        CHECK(xchg_plot_add_series(p, name, x, y, 14, XCHG_PLOT_LINE, NULL) == 0, "series %zu", i);
    }
    for (size_t k = 0; k < 14; k++)
        y[k] = 50 + 0.001 * x[k];
    CHECK(xchg_plot_add_series(p, "lower bound", x, y, 14, XCHG_PLOT_BOUND, NULL) == 0, "bound");
    for (size_t i = 0; i < nmarkers; i++)
        CHECK(xchg_plot_add_marker(p, 100.0 * (double)(i + 1), 300.0, "a -> b", NULL) == 0,
              "marker %zu", i);
    return p;
}

/* Counts of the classes, the document's shape, escaping. */
static void test_counts(void)
{
    const size_t lines[] = {1, 3, 12};
    for (size_t t = 0; t < 3; t++) {
        xchg_plot *p = sample(lines[t], t);
        check_doc d = {0};
        xchg_err err = {{0}};
        CHECK(xchg_plot_write(p, check_doc_write, &d, &err) == 0, "write: %s", err.msg);
        CHECK(d.buf && strncmp(d.buf, "<svg ", 5) == 0, "starts with <svg");
        CHECK(d.len > 7 && strcmp(d.buf + d.len - 7, "</svg>\n") == 0, "ends with </svg>");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"series\""), lines[t], "series paths");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"bound\""), 1, "bound paths");
        CHECK_EQ_U64(check_doc_count(&d, "class=\"crossover\""), t, "crossover markers");
        CHECK(svg_attr(&d, "width") >= 560 + 84 && svg_attr(&d, "height") >= 400 + 44,
              "width %g and height %g hold the plotting area", svg_attr(&d, "width"),
              svg_attr(&d, "height"));
        CHECK(check_doc_count(&d, "T &lt;&amp;&gt; &quot;q&quot;") == 1, "title escaped");
        CHECK(check_doc_count(&d, "alg&lt;0&gt;") >= 2, "series name escaped (path title and legend)");
        CHECK(check_doc_count(&d, "alg<0>") == 0, "no raw name");
        CHECK(check_doc_count(&d, ">8 B<") == 1 && check_doc_count(&d, ">32 KiB<") == 1, "size labels 8 B, 32 KiB");
        CHECK(check_doc_count(&d, "time (us)") == 1 && check_doc_count(&d, "block size (bytes)") == 1, "axis titles");
        free(d.buf);
        xchg_plot_free(p);
    }
}

/*
 * The labelled ticks: x positions of the "xtick" labels grow with their
 * values (left to right in document order), y positions of "ytick" labels
 * fall (up the page) as their values grow.
 */
static void test_ticks(void)
{
    xchg_plot *p = sample(2, 0);
    check_doc d = {0};
    CHECK(xchg_plot_write(p, check_doc_write, &d, NULL) == 0, "write");
    double last = -1;
    size_t n = 0;
    int mono = 1;
    for (const char *q = d.buf; q && (q = strstr(q, "class=\"xtick\" x=\"")); q++, n++) {
        double x = strtod(q + strlen("class=\"xtick\" x=\""), NULL);
        mono &= x > last;
        last = x;
    }
    CHECK(mono && n >= 4 && n <= 11, "%zu x ticks, left to right", n);
    last = 1e9;
    n = 0;
    mono = 1;
    double prev_v = 0;
    for (const char *q = d.buf; q && (q = strstr(q, "class=\"ytick\"")); q++, n++) {
        const char *yq = strstr(q, " y=\"");
        const char *vq = strchr(q, '>');
        double y = yq ? strtod(yq + 4, NULL) : 0, v = vq ? strtod(vq + 1, NULL) : 0;
        mono &= y < last && v > prev_v;
        last = y;
        prev_v = v;
    }
    CHECK(mono && n >= 2, "%zu y ticks, values up the page", n);
    free(d.buf);
    xchg_plot_free(p);

    /* one decade each way: the point (1, 1) on [0.1.., ...] and (10, 10) at
     * the corners of a plot of the points (1, 1) and (10, 10) */
    xchg_plot_opts po = {"", "x", "y", 0, 100, 100};
    xchg_plot *q = NULL;
    CHECK(xchg_plot_new(&po, &q, NULL) == 0, "new");
    double xs[] = {1, 10}, ys[] = {1, 10};
    CHECK(xchg_plot_add_series(q, "s", xs, ys, 2, XCHG_PLOT_LINE, NULL) == 0, "series");
    check_doc e = {0};
    CHECK(xchg_plot_write(q, check_doc_write, &e, NULL) == 0, "write");
    CHECK(strstr(e.buf, "d=\"M84.0 144.0L184.0 44.0\"") != NULL,
          "(1, 1) at the bottom-left corner (84, 144), (10, 10) at the top-right (184, 44)");
    free(e.buf);
    xchg_plot_free(q);

    /* one point: axes a decade either side, a path that shows */
    xchg_plot *r = NULL;
    CHECK(xchg_plot_new(&po, &r, NULL) == 0, "new");
    double one = 10;
    CHECK(xchg_plot_add_series(r, "one", &one, &one, 1, XCHG_PLOT_LINE, NULL) == 0, "one point");
    check_doc f = {0};
    CHECK(xchg_plot_write(r, check_doc_write, &f, NULL) == 0, "write one point");
    CHECK_EQ_U64(check_doc_count(&f, "class=\"xtick\""), 3, "x ticks 1, 10, 100 around 10");
    CHECK_EQ_U64(check_doc_count(&f, "class=\"series\""), 1, "the point's path");
    free(f.buf);
    xchg_plot_free(r);
}

/* What is refused, and that a refusal changes nothing. */
static void test_errors(void)
{
    xchg_plot_opts po = {"t", "x", "y", 1, 0, 0};
    xchg_plot *p = NULL;
    xchg_err err = {{0}};
    CHECK(xchg_plot_new(NULL, &p, &err) == XCHG_EINVAL, "NULL opts");
    CHECK(xchg_plot_new(&po, NULL, &err) == XCHG_EINVAL, "NULL out");
    CHECK(xchg_plot_new(&po, &p, &err) == 0, "new");
    check_doc d = {0};
    CHECK(xchg_plot_write(p, check_doc_write, &d, &err) == XCHG_EINVAL && strstr(err.msg, "no series"),
          "no series: %s", err.msg);
    CHECK(d.len == 0, "nothing written for a plot of no series");
    double x[] = {1, 2, 4}, y[] = {1, 2, 4};
    double bad[] = {0, -1, NAN, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        double yb[] = {1, bad[i], 4};
        CHECK(xchg_plot_add_series(p, "b", x, yb, 3, XCHG_PLOT_LINE, &err) == XCHG_EINVAL &&
                  strstr(err.msg, "log axes") && strstr(err.msg, "point 2"),
              "y = %g refused: %s", bad[i], err.msg);
        CHECK(xchg_plot_add_series(p, "b", yb, y, 3, XCHG_PLOT_BOUND, &err) == XCHG_EINVAL,
              "x = %g refused", bad[i]);
        CHECK(xchg_plot_add_marker(p, bad[i], 1, "m", &err) == XCHG_EINVAL, "marker x = %g",
              bad[i]);
        CHECK(xchg_plot_add_marker(p, 1, bad[i], "m", &err) == XCHG_EINVAL, "marker y = %g",
              bad[i]);
    }
    CHECK(xchg_plot_add_series(p, "e", x, y, 0, XCHG_PLOT_LINE, &err) == XCHG_EINVAL, "no points");
    CHECK(xchg_plot_add_series(p, "s", x, y, 3, 2, &err) == XCHG_EINVAL, "bad style");
    CHECK(xchg_plot_add_series(p, NULL, x, y, 3, 0, &err) == XCHG_EINVAL, "NULL name");
    CHECK(xchg_plot_add_series(p, "s", NULL, y, 3, 0, &err) == XCHG_EINVAL, "NULL x");
    CHECK(xchg_plot_add_marker(p, 1, 1, NULL, &err) == XCHG_EINVAL, "NULL label");
    CHECK(xchg_plot_write(p, check_doc_write, &d, &err) == XCHG_EINVAL, "refusals added nothing");
    CHECK(xchg_plot_add_series(p, "s", x, y, 3, XCHG_PLOT_LINE, &err) == 0, "good series");
    CHECK(xchg_plot_write(NULL, check_doc_write, &d, &err) == XCHG_EINVAL, "NULL plot");
    CHECK(xchg_plot_write(p, NULL, &d, &err) == XCHG_EINVAL, "NULL write");
    check_doc f = {0};
    f.fail_after = 3;
    CHECK(xchg_plot_write(p, check_doc_write, &f, &err) == XCHG_EINVAL && strstr(err.msg, "returned 7"),
          "failing write: %s", err.msg);
    free(f.buf);
    for (size_t i = 1; i < XCHG_PLOT_MAX_SERIES; i++)
        CHECK(xchg_plot_add_series(p, "s", x, y, 3, XCHG_PLOT_LINE, &err) == 0, "series %zu", i);
    CHECK(xchg_plot_add_series(p, "s", x, y, 3, XCHG_PLOT_LINE, &err) == XCHG_EINVAL,
          "more than XCHG_PLOT_MAX_SERIES series");
    for (size_t i = 0; i < XCHG_PLOT_MAX_MARKERS; i++)
        CHECK(xchg_plot_add_marker(p, 2, 2, "m", &err) == 0, "marker %zu", i);
    CHECK(xchg_plot_add_marker(p, 2, 2, "m", &err) == XCHG_EINVAL,
          "more than XCHG_PLOT_MAX_MARKERS markers");
    check_doc g = {0};
    CHECK(xchg_plot_write(p, check_doc_write, &g, &err) == 0, "the full plot writes");
    CHECK_EQ_U64(check_doc_count(&g, "class=\"series\""), XCHG_PLOT_MAX_SERIES, "every series drawn");
    CHECK_EQ_U64(check_doc_count(&g, "class=\"crossover\""), XCHG_PLOT_MAX_MARKERS, "every marker");
    free(g.buf);
    xchg_plot_free(p);
    xchg_plot_free(NULL);
}

int main(void)
{
    test_counts();
    test_ticks();
    test_errors();
    return check_finish("test_plot");
}
