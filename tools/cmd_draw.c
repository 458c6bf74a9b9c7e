/*
 * cmd_draw.c - "xchg draw": one step of a schedule, or all of them as a
 * contact sheet, as an SVG (or PNG) picture (xchg_draw_step,
 * xchg_draw_all_steps; docs/drawing.md). Steps are numbered from 1, as
 * export's text format numbers them. The picture is written by
 * cli_picture.c: under a temporary name renamed over --output only when
 * drawing succeeded, so a failure never leaves a half-written file.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char xchg_cli_draw_help[] =
    "usage: xchg draw (--topo T --alg A | --schedule FILE) [--step K | --all-steps]\n"
    "                 --output FILE [--format svg|png] [--max-memory BYTES] [--max-work W]\n\n"
    "Draw step K of algorithm A's schedule on topology T as an SVG picture: the\n"
    "network (ring and complete on a circle, array in a row, mesh and torus as a\n"
    "grid, 3-D as 2-D slices side by side, hypercube as a grid of its bits), each\n"
    "message as an arrow along its route coloured by the dimension and direction\n"
    "of its first hop, with its size in blocks, and in red every link that two or\n"
    "more messages cross in the step. A caption and a legend say what is shown.\n"
    "Networks wider than 32 nodes show their top-left 16x16 submesh\n"
    "(docs/drawing.md).\n\n"
    "options:\n"
    "  --topo T          ring:P array:P mesh:A[xB..] torus:A[xB..] hypercube:D\n"
    "                    complete:P tree:D\n"
    "  --alg A           an algorithm from 'xchg list', with options as NAME:OPTIONS\n"
    "  --schedule FILE   a schedule in the export format instead of --alg\n"
    "  --step K          the step to draw, 1 to the number of steps (default 1)\n"
    "  --all-steps       every step, one small panel each (at most 256 steps)\n"
    "  --output FILE, -o FILE\n"
    "                    the SVG file to write (replaced only when drawing\n"
    "                    succeeds; - means stdout)\n"
    "  --format F        svg (default) or png (made from the SVG by rsvg-convert,\n"
    "                    package librsvg2-bin); without it, a FILE ending in .png\n"
    "                    is PNG\n"
    "  --max-memory BYTES  refuse a schedule that would take more memory\n"
    "                    (default 4G; suffixes K, M, G, T)\n"
    "  --max-work W      refuse a schedule that takes more than W operations to\n"
    "                    build (default 2e10)\n\n"
    "exit status: 0 ok, 2 bad input or a file that cannot be written, 3 internal\n"
    "error (a bug in xchg).\n";

/* What to draw: one step or every step of a schedule. */
typedef struct draw_job {
    const xchg_sched *s;
    int all;
    size_t step; /* 0-based */
} draw_job;

/* xchg_cli_picture_fn: the step, or the contact sheet. */
static int draw_job_run(void *arg, xchg_write_fn write, void *ctx, xchg_err *err)
{
    const draw_job *j = arg;
    return j->all ? xchg_draw_all_steps(j->s, NULL, write, ctx, err)
                  : xchg_draw_step(j->s, j->step, NULL, write, ctx, err);
}

/* Check --step against the schedule's steps; *step gets it 0-based. */
static int step_arg(xchg_cli_opt *opts, size_t nsteps, size_t *step)
{
    *step = 0;
    if (!xchg_cli_has(opts, "step")) {
        if (nsteps == 0)
            return xchg_cli_error("the schedule has no steps: nothing to draw");
        return 0;
    }
    const char *v = xchg_cli_val(opts, "step");
    if (nsteps == 0)
        return xchg_cli_error("bad --step '%s': the schedule has no steps", v);
    uint64_t k;
    if (xchg_cli_uint("step", v, 1, nsteps, &k))
        return XCHG_CLI_USAGE;
    *step = (size_t)(k - 1);
    return 0;
}

int xchg_cli_draw(int argc, char **argv)
{
    /* -o is the one short option: read it as --output */
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args)
        return xchg_cli_error("out of memory");
    static char output[] = "--output";
    for (int i = 0; i < argc; i++)
        args[i] = strcmp(argv[i], "-o") == 0 ? output : argv[i];
    args[argc] = NULL;
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},        {"alg", "A", NULL, 0},
                           {"schedule", "FILE", NULL, 0}, {"step", "K", NULL, 0},
                           {"all-steps", NULL, NULL, 0},  {"output", "FILE", NULL, 0},
                           {"format", "F", NULL, 0},      {"max-memory", "BYTES", NULL, 0},
                           {"max-work", "W", NULL, 0},    {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("draw", argc, args, opts);
    free(args);
    if (rc)
        return rc;
    if (!xchg_cli_has(opts, "output"))
        return xchg_cli_error("draw needs --output FILE (or -o FILE), the SVG file to write; "
                              "e.g. xchg draw --topo torus:8x8 --alg t1 --step 1 -o t1.svg");
    if (xchg_cli_has(opts, "step") && xchg_cli_has(opts, "all-steps"))
        return xchg_cli_error("--step and --all-steps given together; accepted: one of them");
    int png = 0;
    if ((rc = xchg_cli_picture_format(xchg_cli_val(opts, "format"), xchg_cli_val(opts, "output"),
                                      &png)))
        return rc;
    xchg_topo t;
    xchg_sched *file_s = NULL, *s = NULL;
    xchg_estimate est;
    if ((rc = xchg_cli_input(opts, "draw", 0, &t, &file_s)))
        return rc;
    if ((rc = xchg_cli_schedule(opts, "draw", &t, file_s, &est, &s))) {
        xchg_sched_free(file_s);
        return rc;
    }
    draw_job job = {s, xchg_cli_has(opts, "all-steps"), 0};
    if (!job.all)
        rc = step_arg(opts, xchg_sched_nsteps(s), &job.step);
    if (rc == 0)
        rc = xchg_cli_picture_write(xchg_cli_val(opts, "output"), "--output", png, "draw",
                                    draw_job_run, &job);
    xchg_sched_free(s);
    return rc;
}
