/*
 * layout.c - where the drawing layer puts a topology's nodes, and how it
 * draws one hop between neighbours (docs/drawing.md, "Layouts"):
 *   ring, complete  a circle, node 0 at the top, ids clockwise;
 *   array           a row, node 0 on the left;
 *   mesh, torus     a grid, the last dimension across and the one before it
 *                   down; a 3-D or larger network as its 2-D slices side by
 *                   side (the leading coordinates number the slices);
 *                   wrap-around links leave the edge as stubs;
 *   hypercube       the papers' recursive layout: bits 0, 2, 4, ... across
 *                   and 1, 3, 5, ... down, with a widening gap at each
 *                   higher bit, so every subcube is a block; the edges of
 *                   bits above 1 are drawn as arcs;
 *   tree            the leaves in a row at the bottom, each switch above
 *                   the middle of its subtree, a level higher per level.
 * Large networks show a box of nodes at the origin: the top-left
 * sub_side x sub_side submesh (subcube), the first slices, or the first
 * nodes of a ring or array; the layout says which in its note.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw_internal.h"

/* Blank space around the drawing, px. */
#define MARGIN 24.0
/* Most slices of a 3-D or larger grid drawn. */
#define MAX_SLICES 16u
/* pi (M_PI is not C11). */
#define DRAW_PI 3.14159265358979323846
/* An arc's control point lies this fraction of the hop's length aside. */
#define BOW 0.15

/* Largest side shown in full and the side of the submesh beyond it. */
static void sides(const xchg_draw_opts *opts, uint32_t *max_side, uint32_t *sub)
{
    *max_side = opts && opts->max_side ? opts->max_side : 32;
    *sub = opts && opts->sub_side ? opts->sub_side : 16;
    if (*sub > *max_side)
        *sub = *max_side;
}

/* Distance of neighbours for a picture of `side` nodes across. */
static double spacing_for(uint32_t side) { return side <= 8 ? 56.0 : side <= 16 ? 36.0 : 24.0; }

/* A one-dimensional network: a circle or a row, the first nodes when long. */
static void layout_1d(draw_layout *l, uint32_t max_side, uint32_t sub)
{
    const xchg_topo *t = l->t;
    uint32_t most = max_side * max_side / 4;
    uint32_t n = t->nodes;
    int circle = t->kind == XCHG_TOPO_COMPLETE || t->kind == XCHG_TOPO_RING;
    if (n > most) {
        n = 4 * sub;
        /* a piece of a ring is a row: a circle would close it */
        if (t->kind == XCHG_TOPO_RING)
            circle = 0;
        snprintf(l->note, sizeof l->note, "nodes 0..%u of %u", n - 1, t->nodes);
    }
    l->lim[0] = n;
    if (circle) {
        l->shape = DRAW_CIRCLE;
        l->spacing = n <= 32 ? 44.0 : 26.0;
        l->rr = fmax(n * l->spacing / (2 * DRAW_PI), l->spacing);
        l->cx = l->cy = MARGIN + l->spacing * 0.5 + l->rr;
        l->width = l->height = 2 * l->cx;
    } else {
        l->shape = DRAW_ROW;
        l->spacing = n <= 32 ? 56.0 : 28.0;
        l->width = 2 * (MARGIN + 0.8 * l->spacing) + (n - 1) * l->spacing;
        l->height = 2 * (MARGIN + 0.8 * l->spacing);
    }
}

/* Number of the slice holding id (row-major over the shown leading dims). */
static uint32_t slice_of(const draw_layout *l, uint32_t id)
{
    uint32_t si = 0;
    for (int d = 0; d < l->t->ndims - 2; d++)
        si = si * l->lim[d] + xchg_topo_coord(l->t, id, d);
    return si;
}

/* A mesh or torus of two or more dimensions. */
static void layout_grid(draw_layout *l, uint32_t max_side, uint32_t sub)
{
    const xchg_topo *t = l->t;
    l->shape = DRAW_GRID;
    l->gx = t->ndims - 1;
    l->gy = t->ndims - 2;
    int big = t->size[l->gx] > max_side || t->size[l->gy] > max_side;
    if (big) {
        l->lim[l->gx] = t->size[l->gx] < sub ? t->size[l->gx] : sub;
        l->lim[l->gy] = t->size[l->gy] < sub ? t->size[l->gy] : sub;
    }
    uint32_t budget = MAX_SLICES, slices = 1;
    for (int d = t->ndims - 3; d >= 0; d--) {
        l->lim[d] = t->size[d] < budget ? t->size[d] : budget;
        budget /= l->lim[d];
        if (budget == 0)
            budget = 1;
        slices *= l->lim[d];
    }
    uint32_t cols = l->lim[l->gx], rows = l->lim[l->gy];
    l->spacing = spacing_for(cols > rows ? cols : rows);
    l->slice_cols = slices <= 8 ? slices : (uint32_t)ceil(sqrt((double)slices));
    uint32_t slice_rows = (slices + l->slice_cols - 1) / l->slice_cols;
    double pad = 0.8 * l->spacing;
    double pw = (cols - 1) * l->spacing + 2 * pad, ph = (rows - 1) * l->spacing + 2 * pad;
    double inner_w = l->slice_cols * pw + (l->slice_cols - 1) * l->spacing;
    double inner_h = slice_rows * ph + (slice_rows - 1) * l->spacing + (slices > 1 ? 14 : 0);
    /* slice-to-slice arcs bow out of the box by up to BOW/2 of their length */
    double room = MARGIN + (slices > 1 ? BOW / 2 * fmax(inner_w, inner_h) : 0);
    l->cx = room; /* the origin of the first panel */
    l->cy = room + (slices > 1 ? 14 : 0);
    l->width = inner_w + 2 * room;
    l->height = inner_h + 2 * room;
}

/* A hypercube: bit b across when b is even, down when odd. */
static void layout_cube(draw_layout *l, uint32_t max_side, uint32_t sub)
{
    const xchg_topo *t = l->t;
    l->shape = DRAW_CUBE;
    int bits = t->ndims;
    uint32_t side = 1u << ((bits + 1) / 2);
    if (side > max_side) {
        int b = 0;
        while ((1u << ((b + 2) / 2)) <= sub && b + 2 <= bits)
            b += 2;
        bits = b;
        snprintf(l->note, sizeof l->note,
                 "the subcube of bits 0..%d (top-left %ux%u) of 2^%d nodes", bits - 1,
                 1u << ((bits + 1) / 2), 1u << (bits / 2), t->ndims);
    }
    for (int b = 0; b < t->ndims; b++)
        l->lim[b] = b < bits ? 2 : 1;
    uint32_t cols = 1u << ((bits + 1) / 2), rows = 1u << (bits / 2);
    l->spacing = spacing_for(cols > rows ? cols : rows);
    /* offsets: a block of the lower bits, then a gap, then its copy */
    double ext[2] = {0, 0};
    for (int b = 0; b < bits; b++) {
        int k = b / 2;
        double off = ext[b % 2] + l->spacing + (k > 0 ? 0.3 * l->spacing : 0);
        l->cube_w[b] = off;
        ext[b % 2] += off;
    }
    double room = MARGIN + 0.8 * l->spacing + BOW / 2 * fmax(ext[0], ext[1]);
    l->cx = l->cy = room;
    l->width = ext[0] + 2 * room;
    l->height = ext[1] + 2 * room;
}

/* A tree: the leaves in a row, the first 2^b of them when there are more
 * than max_side (b the most with 2^b <= sub), and their switches above. */
static void layout_tree(draw_layout *l, uint32_t max_side, uint32_t sub)
{
    const xchg_topo *t = l->t;
    l->shape = DRAW_TREE;
    int bits = t->ndims;
    if (t->nodes > max_side) {
        bits = 0;
        while ((2u << bits) <= sub && bits + 1 < t->ndims)
            bits++;
        snprintf(l->note, sizeof l->note, "the subtree of leaves 0..%u of %u", (1u << bits) - 1,
                 t->nodes);
    }
    for (int b = 0; b < t->ndims; b++)
        l->lim[b] = b < bits ? 2 : 1;
    uint32_t leaves = 1u << bits;
    l->tree_levels = bits;
    l->spacing = spacing_for(leaves);
    l->level_h = 0.9 * l->spacing;
    l->width = 2 * (MARGIN + 0.8 * l->spacing) + (leaves - 1) * l->spacing;
    l->height = 2 * (MARGIN + 0.8 * l->spacing) + bits * l->level_h;
}

/* Position of the tree's vertex named id at level (0: a leaf). */
static void tree_pos(const draw_layout *l, uint32_t id, int level, double *x, double *y)
{
    double s = l->spacing, first = MARGIN + 0.8 * s;
    *x = first + (id + ((1u << level) - 1) / 2.0) * s;
    *y = first + (l->tree_levels - level) * l->level_h;
}

void xchg_draw_layout_init(draw_layout *l, const xchg_topo *t, const xchg_draw_opts *opts)
{
    memset(l, 0, sizeof *l);
    l->t = t;
    l->gx = l->gy = -1;
    uint32_t max_side, sub;
    sides(opts, &max_side, &sub);
    for (int d = 0; d < t->ndims; d++)
        l->lim[d] = t->size[d];
    if (t->kind == XCHG_TOPO_HYPERCUBE)
        layout_cube(l, max_side, sub);
    else if (t->kind == XCHG_TOPO_TREE)
        layout_tree(l, max_side, sub);
    else if (t->ndims >= 2)
        layout_grid(l, max_side, sub);
    else
        layout_1d(l, max_side, sub);
    l->shown = 1;
    for (int d = t->ndims - 1; d >= 0; d--) {
        l->weight[d] = l->shown;
        l->shown *= l->lim[d];
    }
    l->clipped = l->shown < t->nodes;
    l->radius = l->spacing * 0.2;
    if (l->clipped && !l->note[0]) {
        /* a grid's box: its sides, at the origin */
        size_t n = (size_t)snprintf(l->note, sizeof l->note, "the submesh ");
        for (int d = 0; d < t->ndims && n < sizeof l->note; d++)
            n += (size_t)snprintf(l->note + n, sizeof l->note - n, "%s%u", d ? "x" : "", l->lim[d]);
        if (n < sizeof l->note)
            snprintf(l->note + n, sizeof l->note - n, " at node 0 (top-left)");
    }
}

int xchg_draw_layout_shown(const draw_layout *l, uint32_t id)
{
    if (id >= l->t->nodes)
        return 0;
    for (int d = 0; d < l->t->ndims; d++)
        if (xchg_topo_coord(l->t, id, d) >= l->lim[d])
            return 0;
    return 1;
}

uint32_t xchg_draw_layout_node(const draw_layout *l, uint32_t i)
{
    uint32_t id = 0;
    for (int d = 0; d < l->t->ndims; d++) {
        id += i / l->weight[d] * l->t->stride[d];
        i %= l->weight[d];
    }
    return id;
}

uint32_t xchg_draw_layout_index(const draw_layout *l, uint32_t id)
{
    uint32_t i = 0;
    for (int d = 0; d < l->t->ndims; d++)
        i += xchg_topo_coord(l->t, id, d) * l->weight[d];
    return i;
}

void xchg_draw_layout_pos(const draw_layout *l, uint32_t id, double *x, double *y)
{
    const xchg_topo *t = l->t;
    double s = l->spacing;
    switch (l->shape) {
    case DRAW_CIRCLE: {
        double a = 2 * DRAW_PI * id / l->lim[0];
        *x = l->cx + l->rr * sin(a);
        *y = l->cy - l->rr * cos(a);
        return;
    }
    case DRAW_ROW:
        *x = MARGIN + 0.8 * s + id * s;
        *y = l->height / 2;
        return;
    case DRAW_GRID: {
        uint32_t cols = l->lim[l->gx], rows = l->lim[l->gy];
        double pad = 0.8 * s;
        double pw = (cols - 1) * s + 2 * pad + s, ph = (rows - 1) * s + 2 * pad + s;
        uint32_t si = slice_of(l, id);
        *x = l->cx + (si % l->slice_cols) * pw + pad + xchg_topo_coord(t, id, l->gx) * s;
        *y = l->cy + (si / l->slice_cols) * ph + pad + xchg_topo_coord(t, id, l->gy) * s;
        return;
    }
    case DRAW_TREE:
        tree_pos(l, id, 0, x, y);
        return;
    case DRAW_CUBE:
        *x = l->cx;
        *y = l->cy;
        for (int b = 0; b < t->ndims && l->lim[b] == 2; b++)
            if (id >> b & 1) {
                if (b % 2 == 0)
                    *x += l->cube_w[b];
                else
                    *y += l->cube_w[b];
            }
        return;
    }
}

int xchg_draw_layout_hop_shown(const draw_layout *l, uint32_t a, uint32_t b, int dim)
{
    if (!xchg_draw_layout_shown(l, a) || !xchg_draw_layout_shown(l, b))
        return 0;
    return l->shape != DRAW_TREE || dim < l->tree_levels;
}

/* How a hop is drawn. */
enum { HOP_STRAIGHT, HOP_WRAP, HOP_ARC };

/* Which of the three a hop from a along dim, dir is; for a wrap, the unit
 * vector (*ux, *uy) it leaves the edge along. */
static int hop_kind(const draw_layout *l, uint32_t a, int dim, int dir, double *ux, double *uy)
{
    const xchg_topo *t = l->t;
    if (dim < 0 || l->shape == DRAW_CIRCLE || l->shape == DRAW_TREE)
        return HOP_STRAIGHT;
    if (l->shape == DRAW_CUBE)
        return dim >= 2 ? HOP_ARC : HOP_STRAIGHT;
    int across = l->shape == DRAW_ROW || dim == l->gx;
    if (!across && dim != l->gy)
        return HOP_ARC; /* slice to slice */
    if (t->kind != XCHG_TOPO_TORUS && t->kind != XCHG_TOPO_RING)
        return HOP_STRAIGHT;
    uint32_t c = xchg_topo_coord(t, a, dim);
    if ((dir > 0 && c + 1 == t->size[dim]) || (dir < 0 && c == 0)) {
        *ux = across ? dir : 0;
        *uy = across ? 0 : dir;
        return HOP_WRAP;
    }
    return HOP_STRAIGHT;
}

void xchg_draw_layout_hop(const draw_layout *l, uint32_t a, uint32_t b, int dim, int dir,
                          double lane, int first, draw_path *path, double *mx, double *my)
{
    double ax, ay, bx, by, ux = 0, uy = 0;
    if (l->shape == DRAW_TREE) { /* dir 0 climbs from level dim, else comes down to it */
        tree_pos(l, a, dir == 0 ? dim : dim + 1, &ax, &ay);
        tree_pos(l, b, dir == 0 ? dim + 1 : dim, &bx, &by);
    } else {
        xchg_draw_layout_pos(l, a, &ax, &ay);
        xchg_draw_layout_pos(l, b, &bx, &by);
    }
    double r = l->radius;
    int kind = hop_kind(l, a, dim, dir, &ux, &uy);
    if (kind != HOP_WRAP) {
        double len = hypot(bx - ax, by - ay);
        if (len <= 0)
            len = 1;
        ux = (bx - ax) / len;
        uy = (by - ay) / len;
    }
    /* the right of the direction of travel (y grows downwards) */
    double nx = -uy, ny = ux;
    double sx = ax + ux * r + nx * lane, sy = ay + uy * r + ny * lane;
    double ex = bx - ux * r + nx * lane, ey = by - uy * r + ny * lane;
    xchg_draw_path_add(path, "%c%.1f %.1f", first ? 'M' : 'L', sx, sy);
    double lx, ly;
    if (kind == HOP_WRAP) {
        double stub = 0.6 * l->spacing;
        double ox = ax + ux * stub + nx * lane, oy = ay + uy * stub + ny * lane;
        xchg_draw_path_add(path, "L%.1f %.1fM%.1f %.1fL%.1f %.1f", ox, oy,
                           bx - ux * stub + nx * lane, by - uy * stub + ny * lane, ex, ey);
        lx = ox + nx * 8;
        ly = oy + ny * 8;
    } else if (kind == HOP_ARC) {
        double bow = BOW * hypot(bx - ax, by - ay);
        double qx = (ax + bx) / 2 + nx * (lane + bow), qy = (ay + by) / 2 + ny * (lane + bow);
        xchg_draw_path_add(path, "Q%.1f %.1f %.1f %.1f", qx, qy, ex, ey);
        lx = (ax + bx) / 2 + nx * (lane + bow / 2 + 8);
        ly = (ay + by) / 2 + ny * (lane + bow / 2 + 8);
    } else {
        xchg_draw_path_add(path, "L%.1f %.1f", ex, ey);
        lx = (ax + bx) / 2 + nx * (lane + 8);
        ly = (ay + by) / 2 + ny * (lane + 8);
    }
    if (mx) {
        *mx = lx;
        *my = ly;
    }
}

const char *xchg_draw_layout_class_name(const draw_layout *l, int dim, int dir, char *buf,
                                        size_t len)
{
    const char *sign = dir > 0 ? "+1" : "-1";
    if (dim < 0)
        snprintf(buf, len, "straight through the switch");
    else if (l->shape == DRAW_TREE)
        snprintf(buf, len, "over a level-%d switch", dim + 1);
    else if (l->shape == DRAW_CIRCLE)
        snprintf(buf, len, "%s (%s)", sign, dir > 0 ? "clockwise" : "anticlockwise");
    else if (l->shape == DRAW_ROW)
        snprintf(buf, len, "%s (%s)", sign, dir > 0 ? "right" : "left");
    else if (l->shape == DRAW_CUBE)
        snprintf(buf, len, "bit %d, %s (%s)", dim, dir > 0 ? "0 to 1" : "1 to 0",
                 dim % 2 ? "down" : "across");
    else if (dim == l->gx)
        snprintf(buf, len, "dim %d %s (%s)", dim, sign, dir > 0 ? "right" : "left");
    else if (dim == l->gy)
        snprintf(buf, len, "dim %d %s (%s)", dim, sign, dir > 0 ? "down" : "up");
    else
        snprintf(buf, len, "dim %d %s (%s slice)", dim, sign, dir > 0 ? "next" : "previous");
    return buf;
}

/* Write the slices' names above them (a grid of 3 or more dimensions). */
static void slice_labels(const draw_layout *l, draw_svg *o)
{
    const xchg_topo *t = l->t;
    if (l->shape != DRAW_GRID || t->ndims < 3)
        return;
    uint32_t per = l->lim[l->gx] * l->lim[l->gy];
    for (uint32_t i = 0; i < l->shown; i += per) {
        uint32_t first = xchg_draw_layout_node(l, i);
        double x, y;
        xchg_draw_layout_pos(l, first, &x, &y);
        xchg_draw_svg_printf(o, "<text class=\"slice\" x=\"%.1f\" y=\"%.1f\">", x - l->radius,
                             y - 0.8 * l->spacing);
        for (int d = 0; d < t->ndims - 2; d++)
            xchg_draw_svg_printf(o, "%sx%d=%u", d ? ", " : "", d, xchg_topo_coord(t, first, d));
        xchg_draw_svg_printf(o, "</text>\n");
    }
}

/*
 * Write the network under the arrows: the links between shown nodes (one
 * path), the nodes as circles, with their ids when node_ids and there is
 * room, and the slices' names. Links between slices are left out.
 */
void xchg_draw_layout_background(const draw_layout *l, draw_svg *o, int node_ids)
{
    const xchg_topo *t = l->t;
    draw_path p = {0};
    if (l->shape == DRAW_TREE) {
        /* every edge below the top shown switch (the switches go on top, below) */
        for (int lv = 0; lv < l->tree_levels; lv++)
            for (uint32_t a = 0; a < l->shown; a += 1u << lv)
                xchg_draw_layout_hop(l, a, a & ~(1u << lv), lv, 0, 0, 1, &p, NULL, NULL);
    } else if (xchg_topo_has_links(t)) {
        for (uint32_t i = 0; i < l->shown; i++) {
            uint32_t a = xchg_draw_layout_node(l, i);
            for (int d = 0; d < t->ndims; d++) {
                if (t->kind == XCHG_TOPO_HYPERCUBE && (a >> d & 1))
                    continue;
                /* slice-to-slice links would hide the slices: only the
                 * messages that take them are drawn */
                if (l->shape == DRAW_GRID && d != l->gx && d != l->gy)
                    continue;
                uint32_t b = xchg_topo_neighbor(t, a, d, +1);
                if (b == XCHG_NONE || b == a || !xchg_draw_layout_shown(l, b))
                    continue;
                xchg_draw_layout_hop(l, a, b, d, +1, 0, 1, &p, NULL, NULL);
            }
        }
    }
    if (p.len)
        xchg_draw_svg_printf(o, "<path class=\"link\" d=\"%s\"/>\n", p.buf);
    for (int lv = 1; lv <= l->tree_levels; lv++) /* a tree's switches, over their edges */
        for (uint32_t a = 0; a < l->shown; a += 1u << lv) {
            double x, y, h = l->radius * 0.7;
            tree_pos(l, a, lv, &x, &y);
            xchg_draw_svg_printf(o,
                                 "<rect class=\"switch\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                                 "height=\"%.1f\"/>\n",
                                 x - h, y - h, 2 * h, 2 * h);
        }
    if (p.oom)
        o->oom = 1;
    xchg_draw_path_free(&p);
    int ids = node_ids && l->spacing >= 30;
    for (uint32_t i = 0; i < l->shown; i++) {
        uint32_t a = xchg_draw_layout_node(l, i);
        double x, y;
        xchg_draw_layout_pos(l, a, &x, &y);
        xchg_draw_svg_printf(o, "<circle class=\"node\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n", x,
                             y, l->radius);
        if (ids)
            xchg_draw_svg_printf(o, "<text class=\"id\" x=\"%.1f\" y=\"%.1f\">%u</text>\n", x,
                                 y + l->radius * 0.45, a);
    }
    slice_labels(l, o);
}
