/*
 * draw_internal.h - what the files of the drawing layer share: the SVG
 * writer and path builder (svg.c) and the layouts (layout.c) that place a
 * topology's nodes on the page and give the geometry of one hop.
 *
 * The layer reads schedules only through xchg_consumers.h (docs/architecture.md);
 * nothing here is part of the public API, and every symbol is hidden from
 * the shared library.
 */
#ifndef XCHG_DRAW_INTERNAL_H
#define XCHG_DRAW_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "xchg_consumers.h"
#include "base/util.h"

#if defined(__GNUC__)
#define XCHG_DRAW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define XCHG_DRAW_PRINTF(a, b)
#endif

/* ---- svg.c ---------------------------------------------------------- */

/* An SVG document being written through the caller's callback. After the
 * first failed write or allocation nothing more is written. */
typedef struct draw_svg {
    xchg_write_fn write;
    void *ctx;
    int write_rc; /* what the callback returned when it failed, else 0 */
    int oom;      /* an allocation failed */
} draw_svg;

/* Write formatted text. */
XCHG_INTERNAL void xchg_draw_svg_printf(draw_svg *o, const char *fmt, ...)
    XCHG_DRAW_PRINTF(2, 3);
/* Write s with &, <, > and " escaped for XML text and attributes. */
XCHG_INTERNAL void xchg_draw_svg_text(draw_svg *o, const char *s);

/* The "d" attribute of a path, built piece by piece. */
typedef struct draw_path {
    char *buf;
    size_t len, cap;
    int oom;
} draw_path;

/* Append formatted text to p (sets p->oom when it cannot grow). */
XCHG_INTERNAL void xchg_draw_path_add(draw_path *p, const char *fmt, ...) XCHG_DRAW_PRINTF(2, 3);
XCHG_INTERNAL void xchg_draw_path_clear(draw_path *p);
XCHG_INTERNAL void xchg_draw_path_free(draw_path *p);

/* ---- layout.c ------------------------------------------------------- */

typedef enum draw_shape {
    DRAW_CIRCLE, /* ring, complete: nodes on a circle, node 0 at the top */
    DRAW_ROW,    /* array (and a ring too long for a circle): one row */
    DRAW_GRID,   /* mesh, torus: rows x columns, higher dims as slices */
    DRAW_CUBE,   /* hypercube: bits alternately across and down */
    DRAW_TREE    /* tree: leaves in a row, switches above them by level */
} draw_shape;

/* Where every shown node is and how hops are drawn. A node is shown when
 * each of its coordinates is below lim[]; the shown nodes form a box. */
typedef struct draw_layout {
    const xchg_topo *t;
    draw_shape shape;
    uint32_t lim[XCHG_MAX_DIMS];    /* shown coordinates per dimension */
    uint32_t weight[XCHG_MAX_DIMS]; /* compact index of a shown node */
    uint32_t shown;                 /* number of shown nodes */
    int clipped;                    /* some node is not shown */
    int gx, gy;                     /* grid: the dims across and down */
    uint32_t slice_cols;            /* grid: slices per row of slices */
    double cube_w[XCHG_MAX_DIMS];   /* cube: offset of bit b (across or down) */
    int tree_levels;                /* tree: levels of switches shown */
    double level_h;                 /* tree: height of a level, px */
    double spacing;                 /* distance of neighbouring nodes, px */
    double radius;                  /* node radius, px */
    double cx, cy, rr;              /* circle: centre and radius */
    double width, height;           /* size of the drawing, px, from (0, 0) */
    char note[160];                 /* what is shown when clipped, else "" */
} draw_layout;

/* Lay out t. opts may be NULL (defaults). Always succeeds. */
XCHG_INTERNAL void xchg_draw_layout_init(draw_layout *l, const xchg_topo *t,
                                            const xchg_draw_opts *opts);
/* Nonzero when node id is shown. */
XCHG_INTERNAL int xchg_draw_layout_shown(const draw_layout *l, uint32_t id);
/* Compact index of a shown node, in 0..shown-1. */
XCHG_INTERNAL uint32_t xchg_draw_layout_index(const draw_layout *l, uint32_t id);
/* The shown node of compact index i (the inverse of _index). */
XCHG_INTERNAL uint32_t xchg_draw_layout_node(const draw_layout *l, uint32_t i);
/* Position of node id (shown or not: the grid goes on beyond the box). */
XCHG_INTERNAL void xchg_draw_layout_pos(const draw_layout *l, uint32_t id, double *x, double *y);
/* Nonzero when the hop from a to b along dim is in the picture: both ends
 * shown, and on a tree the switch it reaches below the top shown. */
XCHG_INTERNAL int xchg_draw_layout_hop_shown(const draw_layout *l, uint32_t a, uint32_t b, int dim);

/*
 * Append the geometry of one hop from a to b (neighbours along dim in
 * direction dir; dim < 0: a straight chord, for the complete topology) to
 * path: "M" at its start when first, else "L" from where the path is; the
 * hop runs `lane` px to the right of the line between the nodes so the two
 * directions of a link stay apart. Wrap-around links of a grid leave the
 * edge as stubs, far hypercube bits and slice-to-slice hops as arcs.
 * (*mx, *my), when mx is not NULL, gets a point beside the hop's middle for
 * a label.
 */
XCHG_INTERNAL void xchg_draw_layout_hop(const draw_layout *l, uint32_t a, uint32_t b, int dim,
                                           int dir, double lane, int first, draw_path *path,
                                           double *mx, double *my);

/* Write the network under the arrows: links between shown nodes, the
 * nodes (with their ids when node_ids and there is room), slice names. */
XCHG_INTERNAL void xchg_draw_layout_background(const draw_layout *l, draw_svg *o, int node_ids);

/* Name of the first-hop class (dim, dir) for the legend, into buf; on a
 * tree the class of a message is the level it climbs to (dim + 1). */
XCHG_INTERNAL const char *xchg_draw_layout_class_name(const draw_layout *l, int dim, int dir,
                                                         char *buf, size_t len);

#endif /* XCHG_DRAW_INTERNAL_H */
