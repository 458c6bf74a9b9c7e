/*
 * draw.c - step diagrams as SVG (xchg_draw_step, xchg_draw_all_steps;
 * docs/drawing.md). A step is read only through the public API: each
 * node's message (xchg_sched_message) and its route (xchg_topo_route).
 * Every message is one arrow, <path class="msg">, along its route from
 * sender to receiver, coloured by the dimension and direction of its first
 * hop; each directed link that two or more messages of the step cross is
 * drawn under them in red, <path class="conflict"> (links as the library
 * numbers them, xchg_topo_link_id, so its red links are the verifier's
 * conflicts). A sender that the
 * algorithm puts in a named group (xchg_sched_group: T1's SG_p(1), AT2's
 * even nodes, a phase of multiphase) has its circle filled with the group's
 * tint, <circle class="group" data-group="K">. A caption names the
 * algorithm, the topology, the step and its messages; a legend names the
 * colours and the groups. Large networks show a box of nodes (layout.c): an arrow is drawn
 * when its whole route stays in the box, and the caption counts the others.
 *
 * The document is built in two passes over a step: the first counts the
 * messages, the load of every shown link and the colours used (the size of
 * the picture and the caption depend on them), the second writes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h"

/* First-hop colours: dimension d going +1 is colour 2d, going -1 is 2d+1
 * (a dark and a light shade of one hue). Red is kept for conflicts. */
static const char *const palette[] = {
    "#1f77b4", "#6baed6", "#2ca02c", "#74c476", "#6a3d9a", "#9e9ac8", "#e6550d", "#fdae6b",
    "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#17becf", "#9edae5", "#7f7f7f", "#bcbd22"};
#define NCOLOURS (sizeof palette / sizeof palette[0])
#define CONFLICT_COLOUR "#d62728"
/* Fills of the sender groups, by group index: light tints, so that the
 * arrows' strong colours and the red conflicts stay apart from them. */
static const char *const group_palette[] = {"#ffe066", "#a8e6cf", "#ffb3c6", "#b4c7ff",
                                            "#ffd1a1", "#d7b8f3", "#b8f2f2", "#e2f0a8",
                                            "#e6cfa8", "#d0d0d0", "#f4b6e8", "#9fd8cb"};
#define NGROUP_COLOURS (sizeof group_palette / sizeof group_palette[0])
/* Most distinct groups the legend names; more are counted. */
#define MAX_GROUPS 64
/* Longest group name kept. */
#define GROUP_NAME 48
/* Width of one group entry of the legend, px. */
#define GROUP_ENTRY_W 170.0
/* Classes of first hops: two per dimension. */
#define NCLASSES (2 * XCHG_MAX_DIMS)
/* Most nodes times steps a contact sheet reads. */
#define SHEET_MAX_WORK ((uint64_t)1 << 26)
/* Largest width of a panel of a contact sheet, px. */
#define PANEL_MAX 260.0
/* Most arrows in a single step that still get their sizes written. */
#define LABEL_MAX 300

/* What the first pass finds about one step. */
typedef struct step_stats {
    uint64_t messages;  /* nodes sending to another node */
    uint64_t drawn;     /* of those, routes inside the shown box */
    uint64_t conflicts; /* shown directed links crossed by >= 2 messages */
    uint64_t max_blocks;
} step_stats;

/* A sender group the picture shows: its index and name, and the first
 * step it appears in (the legend's order). */
typedef struct drawn_group {
    int index;
    size_t step;
    char name[GROUP_NAME];
} drawn_group;

/* One drawing in progress. */
typedef struct drawer {
    const xchg_sched *s;
    const xchg_topo *t;
    draw_layout l;
    draw_svg o;
    uint32_t *load; /* messages per shown directed link */
    size_t nload;
    draw_path path;
    unsigned char used[NCLASSES]; /* first-hop classes drawn */
    int labels;                   /* write message sizes */
    drawn_group groups[MAX_GROUPS]; /* sender groups drawn, for the legend */
    size_t ngroups;
    size_t more_groups;           /* groups beyond MAX_GROUPS (not named) */
} drawer;

/* Fill of group index k. */
static const char *group_fill(int k)
{
    return group_palette[(size_t)k % NGROUP_COLOURS];
}

/* Note that the picture shows group (k, name), first at step. */
static void note_group(drawer *w, int k, const char *name, size_t step)
{
    for (size_t i = 0; i < w->ngroups; i++)
        if (w->groups[i].index == k && strcmp(w->groups[i].name, name) == 0)
            return;
    if (w->ngroups == MAX_GROUPS) {
        w->more_groups++;
        return;
    }
    drawn_group *g = &w->groups[w->ngroups++];
    g->index = k;
    g->step = step;
    snprintf(g->name, sizeof g->name, "%s", name);
}

/* Order of the legend's groups: by first step, then index, then name. */
static int group_cmp(const void *pa, const void *pb)
{
    const drawn_group *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The load counter of the link leaving shown node a along dim, dir: the
 * library's link id (xchg_topo_link_id) with its node's part replaced by
 * the node's place among the shown ones, so that a box of a large network
 * needs counters for the box only. */
static uint32_t *link_load(drawer *w, uint32_t a, int dim, int dir)
{
    size_t id = xchg_topo_link_id(w->t, a, dim, dir), per = (size_t)w->t->ndims * 2;
    size_t i = (size_t)xchg_draw_layout_index(&w->l, (uint32_t)(id / per)) * per + id % per;
    return &w->load[i];
}

/* The link of load counter i (link_load's numbering): its node, dim, dir
 * and far end. */
static void load_link(const drawer *w, size_t i, uint32_t *a, int *dim, int *dir, uint32_t *b)
{
    size_t per = (size_t)w->t->ndims * 2;
    size_t id = (size_t)xchg_draw_layout_node(&w->l, (uint32_t)(i / per)) * per + i % per;
    xchg_topo_link_ends(w->t, id, a, dim, dir, b);
}

/* Class of a message on t whose route is segs (nsegs 0: a chord): its first
 * hop, on a tree the level it climbs to. */
static int first_class(const xchg_topo *t, const xchg_seg *segs, int nsegs)
{
    if (nsegs == 0)
        return 0;
    if (t->kind == XCHG_TOPO_TREE)
        return 2 * segs[nsegs / 2 - 1].dim;
    return 2 * segs[0].dim + (segs[0].dir < 0);
}

/* Walk the route of a's message m: count it on the shown links it crosses
 * (when count) and return whether every node on it is shown. */
static int walk_route(drawer *w, const xchg_msg *m, int count)
{
    xchg_seg segs[XCHG_MAX_DIMS];
    int nsegs = 0;
    xchg_topo_route(w->t, m->from, m->to, m->route_policy, segs, &nsegs);
    int inside = xchg_draw_layout_shown(&w->l, m->from) && xchg_draw_layout_shown(&w->l, m->to);
    uint32_t cur = m->from;
    for (int g = 0; g < nsegs; g++) {
        for (uint32_t h = 0; h < segs[g].hops; h++) {
            uint32_t nxt = xchg_topo_neighbor(w->t, cur, segs[g].dim, segs[g].dir);
            if (nxt == XCHG_NONE)
                return 0;
            int both = xchg_draw_layout_hop_shown(&w->l, cur, nxt, segs[g].dim);
            if (!both)
                inside = 0;
            else if (count)
                (*link_load(w, cur, segs[g].dim, segs[g].dir))++;
            cur = nxt;
        }
    }
    if (inside)
        w->used[first_class(w->t, segs, nsegs)] = 1;
    return inside;
}

/* First pass over a step: its counts into *st and the links' loads. */
static void step_scan(drawer *w, size_t step, step_stats *st)
{
    memset(st, 0, sizeof *st);
    if (w->load)
        memset(w->load, 0, w->nload * sizeof *w->load);
    int links = xchg_topo_has_links(w->t);
    for (uint32_t a = 0; a < w->t->nodes; a++) {
        xchg_msg m;
        xchg_sched_message(w->s, step, a, &m);
        if (m.to == XCHG_NONE || m.to == a || m.to >= w->t->nodes)
            continue;
        st->messages++;
        if (m.blocks > st->max_blocks)
            st->max_blocks = m.blocks;
        if (walk_route(w, &m, links))
            st->drawn++;
    }
    for (size_t i = 0; i < w->nload; i++)
        if (w->load[i] >= 2)
            st->conflicts++;
    char name[GROUP_NAME];
    for (uint32_t k = 0; k < w->l.shown; k++) {
        int g = xchg_sched_group(w->s, step, xchg_draw_layout_node(&w->l, k), name, sizeof name);
        if (g >= 0)
            note_group(w, g, name, step);
    }
}

/* Distance of an arrow from the middle of its link, px. */
static double lane_of(const drawer *w) { return w->l.spacing * 0.1; }

/* The shown senders' group fills over their circles, with the ids written
 * again on top when ids (as the background writes them). */
static void group_nodes(drawer *w, size_t step, int ids)
{
    char name[GROUP_NAME];
    for (uint32_t k = 0; k < w->l.shown; k++) {
        uint32_t a = xchg_draw_layout_node(&w->l, k);
        int g = xchg_sched_group(w->s, step, a, name, sizeof name);
        if (g < 0)
            continue;
        double x, y;
        xchg_draw_layout_pos(&w->l, a, &x, &y);
        xchg_draw_svg_printf(&w->o,
                             "<circle class=\"group\" data-group=\"%d\" cx=\"%.1f\" "
                             "cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>%u: ",
                             g, x, y, w->l.radius, group_fill(g), a);
        xchg_draw_svg_text(&w->o, name);
        xchg_draw_svg_printf(&w->o, "</title></circle>\n");
        if (ids)
            xchg_draw_svg_printf(&w->o, "<text class=\"id\" x=\"%.1f\" y=\"%.1f\">%u</text>\n",
                                 x, y + w->l.radius * 0.45, a);
    }
}

/* Second pass: the senders' groups, the conflict links, then the arrows
 * (the loads are those step_scan left); ids: node ids are shown. */
static void step_body(drawer *w, size_t step, int labels, int ids)
{
    const xchg_topo *t = w->t;
    double lane = lane_of(w);
    group_nodes(w, step, ids);
    for (size_t i = 0; i < w->nload; i++) {
        if (w->load[i] < 2)
            continue;
        uint32_t a, b;
        int dim, dir;
        load_link(w, i, &a, &dim, &dir, &b);
        xchg_draw_path_clear(&w->path);
        xchg_draw_layout_hop(&w->l, a, b, dim, dir, lane, 1, &w->path, NULL, NULL);
        xchg_draw_svg_printf(
            &w->o, "<path class=\"conflict\" d=\"%s\"><title>%u messages</title></path>\n",
            w->path.buf, w->load[i]);
    }
    for (uint32_t k = 0; k < w->l.shown; k++) {
        uint32_t a = xchg_draw_layout_node(&w->l, k);
        xchg_msg m;
        xchg_sched_message(w->s, step, a, &m);
        if (m.to == XCHG_NONE || m.to == a || m.to >= t->nodes)
            continue;
        if (!walk_route(w, &m, 0))
            continue;
        xchg_seg segs[XCHG_MAX_DIMS];
        int nsegs = 0;
        xchg_topo_route(t, a, m.to, m.route_policy, segs, &nsegs);
        xchg_draw_path_clear(&w->path);
        double lx = 0, ly = 0;
        if (nsegs == 0)
            xchg_draw_layout_hop(&w->l, a, m.to, -1, +1, lane, 1, &w->path, &lx, &ly);
        uint32_t cur = a;
        int first = 1;
        for (int g = 0; g < nsegs; g++) {
            for (uint32_t h = 0; h < segs[g].hops; h++) {
                uint32_t nxt = xchg_topo_neighbor(t, cur, segs[g].dim, segs[g].dir);
                xchg_draw_layout_hop(&w->l, cur, nxt, segs[g].dim, segs[g].dir, lane, first,
                                     &w->path, first ? &lx : NULL, first ? &ly : NULL);
                first = 0;
                cur = nxt;
            }
        }
        int c = first_class(t, segs, nsegs);
        xchg_draw_svg_printf(&w->o,
                             "<path class=\"msg\" d=\"%s\" stroke=\"%s\" "
                             "marker-end=\"url(#ah%zu)\"><title>%u to %u, %llu blocks</title>"
                             "</path>\n",
                             w->path.buf ? w->path.buf : "", palette[(size_t)c % NCOLOURS],
                             (size_t)c % NCOLOURS, a, m.to, (unsigned long long)m.blocks);
        if (labels)
            xchg_draw_svg_printf(&w->o, "<text class=\"size\" x=\"%.1f\" y=\"%.1f\">%llu</text>\n",
                                 lx, ly + 3, (unsigned long long)m.blocks);
    }
    if (w->path.oom)
        w->o.oom = 1;
}

/* Start a drawing of s: lay it out and allocate the link loads. */
static int drawer_init(drawer *w, const xchg_sched *s, const xchg_draw_opts *opts,
                       xchg_write_fn write, void *ctx, xchg_err *err)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->t = xchg_sched_topo(s);
    w->o.write = write;
    w->o.ctx = ctx;
    xchg_draw_layout_init(&w->l, w->t, opts);
    w->labels = !(opts && opts->no_labels) && w->l.spacing >= 30;
    if (xchg_topo_has_links(w->t) && w->t->ndims > 0) {
        w->nload = (size_t)w->l.shown * (size_t)w->t->ndims * 2;
        w->load = calloc(w->nload, sizeof *w->load);
        if (!w->load)
            return xchg_fail(err, XCHG_ENOMEM, "draw: out of memory for %zu link counters",
                             w->nload);
    }
    return 0;
}

static void drawer_free(drawer *w)
{
    free(w->load);
    xchg_draw_path_free(&w->path);
}

/* The document's end: its status, with the message for a failure. */
static int drawer_finish(drawer *w, xchg_err *err)
{
    if (w->o.oom)
        return xchg_fail(err, XCHG_ENOMEM, "draw: out of memory");
    if (w->o.write_rc)
        return xchg_fail(err, XCHG_EINVAL,
                         "draw: the write callback failed (returned %d); output is incomplete",
                         w->o.write_rc);
    return 0;
}

/* Rough width of a line of text in the caption's font, px. */
static double text_width(const char *s, double font) { return (double)strlen(s) * font * 0.56; }

/* Open the document: the <svg> element, the styles and the arrowheads. */
static void open_svg(drawer *w, double width, double height)
{
    double s = w->l.spacing;
    xchg_draw_svg_printf(&w->o,
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                         "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"%.0f\" "
                         "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                         width, height, width, height);
    xchg_draw_svg_printf(&w->o,
                         "<style>\n"
                         ".link{fill:none;stroke:#c8c8c8;stroke-width:%.1f}\n"
                         ".node{fill:#fff;stroke:#555;stroke-width:1}\n"
                         "%s"
                         ".group{stroke:#555;stroke-width:1}\n"
                         ".id{font:%.0fpx sans-serif;text-anchor:middle;fill:#444}\n"
                         ".msg{fill:none;stroke-width:%.1f}\n"
                         ".conflict{fill:none;stroke:" CONFLICT_COLOUR
                         ";stroke-width:%.1f;stroke-opacity:0.5;stroke-linecap:round}\n"
                         ".size{font:%.0fpx sans-serif;text-anchor:middle;fill:#222}\n"
                         ".slice{font:12px sans-serif;fill:#444}\n"
                         ".caption{font:14px sans-serif;fill:#000}\n"
                         ".panel{font:11px sans-serif;fill:#000}\n"
                         ".legend{font:12px sans-serif;fill:#000}\n"
                         "</style>\n<defs>\n",
                         fmax(1, s * 0.04),
                         w->l.shape == DRAW_TREE ? ".switch{fill:#e8e8e8;stroke:#555;stroke-width:1}\n"
                                                 : "",
                         fmax(8, s * 0.22), fmax(1, s * 0.04), fmax(3, s * 0.16),
                         fmax(8, s * 0.2));
    for (size_t c = 0; c < NCOLOURS; c++)
        xchg_draw_svg_printf(&w->o,
                             "<marker id=\"ah%zu\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
                             "markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\">"
                             "<path d=\"M0 0L10 5L0 10z\" fill=\"%s\"/></marker>\n",
                             c, palette[c]);
}

/* Group entries per line of the legend on a picture `width` px wide. */
static size_t groups_per_line(double width)
{
    size_t n = (size_t)((width - 12) / GROUP_ENTRY_W);
    return n ? n : 1;
}

/* Lines of the legend on a picture `width` px wide: one per colour used,
 * the conflict colour, a heading and rows for the groups, and a line for
 * the groups not named. */
static size_t legend_lines(const drawer *w, double width)
{
    size_t n = 1;
    for (size_t c = 0; c < NCLASSES; c++)
        n += w->used[c];
    if (w->ngroups) {
        size_t per = groups_per_line(width);
        n += 1 + (w->ngroups + per - 1) / per;
    }
    return n + (w->more_groups > 0);
}

/* The groups' part of the legend from y on (legend_lines counts its lines);
 * returns the y of its last line. */
static double legend_groups(drawer *w, double y, double width)
{
    if (w->ngroups == 0)
        return y;
    qsort(w->groups, w->ngroups, sizeof w->groups[0], group_cmp);
    y += 18;
    xchg_draw_svg_printf(&w->o,
                         "<text class=\"legend\" x=\"12\" y=\"%.1f\">senders' groups (filled "
                         "circles), as the algorithm's paper names them:</text>\n",
                         y);
    size_t per = groups_per_line(width);
    for (size_t i = 0; i < w->ngroups; i++) {
        const drawn_group *g = &w->groups[i];
        double x = 12 + (double)(i % per) * GROUP_ENTRY_W;
        if (i % per == 0)
            y += 18;
        xchg_draw_svg_printf(&w->o,
                             "<circle class=\"group-key\" data-group=\"%d\" cx=\"%.1f\" "
                             "cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"#555\"/>"
                             "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">",
                             g->index, x + 8, y - 4, group_fill(g->index), x + 20, y);
        xchg_draw_svg_text(&w->o, g->name);
        xchg_draw_svg_printf(&w->o, "</text>\n");
    }
    if (w->more_groups) {
        y += 18;
        xchg_draw_svg_printf(&w->o,
                             "<text class=\"legend\" x=\"12\" y=\"%.1f\">and %zu more groups "
                             "(coloured, not named here)</text>\n",
                             y, w->more_groups);
    }
    return y;
}

/* Write the legend with its top at y on a picture `width` px wide;
 * conflicts: how many red links. */
static void legend(drawer *w, double y, double width, uint64_t conflicts)
{
    char name[96];
    for (size_t c = 0; c < NCLASSES; c++) {
        if (!w->used[c])
            continue;
        int dim = xchg_topo_has_links(w->t) ? (int)(c / 2) : -1;
        int dir = c % 2 ? -1 : +1;
        y += 18;
        xchg_draw_svg_printf(&w->o,
                             "<path d=\"M12 %.1fH40\" stroke=\"%s\" stroke-width=\"2.5\" "
                             "marker-end=\"url(#ah%zu)\"/>",
                             y - 4, palette[c % NCOLOURS], c % NCOLOURS);
        xchg_draw_svg_printf(&w->o, "<text class=\"legend\" x=\"48\" y=\"%.1f\">%s", y,
                             dim < 0 || w->l.shape == DRAW_TREE ? "a message, " : "first hop ");
        xchg_draw_svg_text(&w->o, xchg_draw_layout_class_name(&w->l, dim, dir, name, sizeof name));
        xchg_draw_svg_printf(&w->o, "</text>\n");
    }
    y += 18;
    xchg_draw_svg_printf(&w->o,
                         "<path d=\"M12 %.1fH40\" stroke=\"" CONFLICT_COLOUR
                         "\" stroke-width=\"6\" stroke-opacity=\"0.5\"/>"
                         "<text class=\"legend\" x=\"48\" y=\"%.1f\">a link that two or more "
                         "messages cross in the step (%llu here)</text>\n",
                         y - 4, y, (unsigned long long)conflicts);
    legend_groups(w, y, width);
}

/* Write the caption's lines (n of them) from y = 22 on. */
static void caption(drawer *w, char lines[][256], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xchg_draw_svg_printf(&w->o, "<text class=\"caption\" x=\"12\" y=\"%.0f\">",
                             22 + 18.0 * (double)i);
        xchg_draw_svg_text(&w->o, lines[i]);
        xchg_draw_svg_printf(&w->o, "</text>\n");
    }
}

/* "ring on ring:8 (8 nodes)" into buf. */
static void title_line(const drawer *w, char *buf, size_t len, const char *tail)
{
    char spec[128];
    snprintf(buf, len, "%s on %s (%u nodes)%s", xchg_sched_algorithm(w->s),
             xchg_topo_spec(w->t, spec, sizeof spec), w->t->nodes, tail);
}

int xchg_draw_step(const xchg_sched *s, size_t step, const xchg_draw_opts *opts,
                   xchg_write_fn write, void *ctx, xchg_err *err)
{
    if (!s || !write)
        return xchg_fail(err, XCHG_EINVAL, "draw: NULL schedule or write callback");
    size_t nsteps = xchg_sched_nsteps(s);
    if (step >= nsteps) {
        if (nsteps == 0)
            return xchg_fail(err, XCHG_EINVAL, "draw: step %zu: the schedule has no steps", step);
        return xchg_fail(err, XCHG_EINVAL,
                         "draw: step %zu is out of range; accepted: 0..%zu (the schedule has "
                         "%zu steps)",
                         step, nsteps - 1, nsteps);
    }
    drawer w;
    int rc = drawer_init(&w, s, opts, write, ctx, err);
    if (rc) {
        drawer_free(&w);
        return rc;
    }
    step_stats st;
    step_scan(&w, step, &st);
    char lines[4][256];
    size_t n = 0;
    title_line(&w, lines[n++], sizeof lines[0], "");
    snprintf(lines[n++], sizeof lines[0], "step %zu of %zu: %llu messages, largest %llu blocks%s",
             step + 1, nsteps, (unsigned long long)st.messages, (unsigned long long)st.max_blocks,
             xchg_sched_contention_free(s) ? "; the algorithm claims no link conflicts" : "");
    if (w.l.clipped)
        snprintf(lines[n++], sizeof lines[0],
                 "shown: %s; %llu of %llu messages leave it and "
                 "are not drawn",
                 w.l.note, (unsigned long long)(st.messages - st.drawn),
                 (unsigned long long)st.messages);
    double top = 22 + 18.0 * (double)n;
    double width = w.l.width;
    for (size_t i = 0; i < n; i++)
        width = fmax(width, text_width(lines[i], 14) + 24);
    width = fmax(width, 420);
    double height = top + w.l.height + 18.0 * (double)legend_lines(&w, ceil(width)) + 16;
    open_svg(&w, ceil(width), ceil(height));
    xchg_draw_svg_printf(&w.o, "</defs>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    caption(&w, lines, n);
    xchg_draw_svg_printf(&w.o, "<g transform=\"translate(%.1f %.1f)\">\n",
                         (ceil(width) - w.l.width) / 2, top);
    xchg_draw_layout_background(&w.l, &w.o, 1);
    step_body(&w, step, w.labels && st.drawn <= LABEL_MAX, w.l.spacing >= 30);
    xchg_draw_svg_printf(&w.o, "</g>\n");
    legend(&w, top + w.l.height, ceil(width), st.conflicts);
    xchg_draw_svg_printf(&w.o, "</svg>\n");
    rc = drawer_finish(&w, err);
    drawer_free(&w);
    return rc;
}

int xchg_draw_all_steps(const xchg_sched *s, const xchg_draw_opts *opts, xchg_write_fn write,
                        void *ctx, xchg_err *err)
{
    if (!s || !write)
        return xchg_fail(err, XCHG_EINVAL, "draw: NULL schedule or write callback");
    size_t nsteps = xchg_sched_nsteps(s);
    const xchg_topo *t = xchg_sched_topo(s);
    if (nsteps > XCHG_DRAW_MAX_PANELS)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "draw: the schedule has %zu steps, more than a contact sheet's %d "
                         "panels; draw single steps instead",
                         nsteps, XCHG_DRAW_MAX_PANELS);
    if ((uint64_t)nsteps * t->nodes > SHEET_MAX_WORK)
        return xchg_fail(err, XCHG_ETOOBIG,
                         "draw: %zu steps of %u nodes are beyond a contact sheet's %llu "
                         "node-steps; draw single steps instead",
                         nsteps, t->nodes, (unsigned long long)SHEET_MAX_WORK);
    step_stats *st = calloc(nsteps ? nsteps : 1, sizeof *st);
    if (!st)
        return xchg_fail(err, XCHG_ENOMEM, "draw: out of memory");
    drawer w;
    int rc = drawer_init(&w, s, opts, write, ctx, err);
    if (rc) {
        drawer_free(&w);
        free(st);
        return rc;
    }
    step_stats all = {0};
    for (size_t k = 0; k < nsteps; k++) {
        step_scan(&w, k, &st[k]);
        all.messages += st[k].messages;
        all.drawn += st[k].drawn;
        all.conflicts += st[k].conflicts;
        if (st[k].max_blocks > all.max_blocks)
            all.max_blocks = st[k].max_blocks;
    }
    char lines[4][256];
    size_t n = 0;
    char tail[64];
    snprintf(tail, sizeof tail, ": all %zu steps", nsteps);
    title_line(&w, lines[n++], sizeof lines[0], tail);
    snprintf(lines[n++], sizeof lines[0],
             "%llu messages in all, largest %llu blocks, %llu link conflicts%s",
             (unsigned long long)all.messages, (unsigned long long)all.max_blocks,
             (unsigned long long)all.conflicts,
             xchg_sched_contention_free(s) ? "; the algorithm claims none" : "");
    if (w.l.clipped)
        snprintf(lines[n++], sizeof lines[0],
                 "each panel shows %s; %llu messages leave it and "
                 "are not drawn",
                 w.l.note, (unsigned long long)(all.messages - all.drawn));
    double scale = fmin(1.0, PANEL_MAX / fmax(w.l.width, w.l.height));
    double pw = w.l.width * scale + 12, ph = w.l.height * scale + 20;
    size_t cols = (size_t)ceil(sqrt((double)nsteps));
    if (cols == 0)
        cols = 1;
    size_t rows = (nsteps + cols - 1) / cols;
    double top = 22 + 18.0 * (double)n + 4;
    double width = fmax(12 + (double)cols * pw, 420);
    for (size_t i = 0; i < n; i++)
        width = fmax(width, text_width(lines[i], 14) + 24);
    double height = top + (double)rows * ph + 18.0 * (double)legend_lines(&w, ceil(width)) + 16;
    open_svg(&w, ceil(width), ceil(height));
    /* the network once, used by every panel */
    xchg_draw_svg_printf(&w.o, "<g id=\"net\">\n");
    xchg_draw_layout_background(&w.l, &w.o, 0);
    xchg_draw_svg_printf(&w.o, "</g>\n</defs>\n<rect width=\"100%%\" height=\"100%%\" "
                               "fill=\"#fff\"/>\n");
    caption(&w, lines, n);
    for (size_t k = 0; k < nsteps; k++) {
        double x = 12 + (double)(k % cols) * pw, y = top + (double)(k / cols) * ph;
        xchg_draw_svg_printf(&w.o,
                             "<text class=\"panel\" x=\"%.1f\" y=\"%.1f\">step %zu: %llu "
                             "messages, largest %llu%s</text>\n",
                             x, y + 12, k + 1, (unsigned long long)st[k].messages,
                             (unsigned long long)st[k].max_blocks,
                             st[k].conflicts ? ", conflicts" : "");
        xchg_draw_svg_printf(&w.o,
                             "<g transform=\"translate(%.1f %.1f) scale(%.4f)\">"
                             "<use xlink:href=\"#net\" href=\"#net\"/>\n",
                             x, y + 16, scale);
        step_stats again;
        step_scan(&w, k, &again);
        step_body(&w, k, 0, 0);
        xchg_draw_svg_printf(&w.o, "</g>\n");
    }
    legend(&w, top + (double)rows * ph, ceil(width), all.conflicts);
    xchg_draw_svg_printf(&w.o, "</svg>\n");
    rc = drawer_finish(&w, err);
    drawer_free(&w);
    free(st);
    return rc;
}
