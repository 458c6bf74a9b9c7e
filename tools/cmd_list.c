/*
 * cmd_list.c - "xchg list": every algorithm of the registry with its
 * summary, the collective operation it performs, source, accepted
 * topologies, options and declared claims (contention-free on which kinds,
 * in place or not); with --topo, also whether it applies to that topology
 * and the variants worth running there; with --op, only the algorithms of
 * that operation.
 */
#include "cli.h"

const char xchg_cli_list_help[] =
    "usage: xchg list [--topo T] [--op NAME] [--json]\n\n"
    "List every algorithm of the registry: name, one-line summary, the collective\n"
    "operation it performs (alltoall: the complete exchange; bcast, reduce, ...),\n"
    "the paper it comes from, the topologies it accepts, its options (an\n"
    "algorithm with options is named as name:options, e.g. multiphase:2,3) and\n"
    "what it claims: on which topologies its schedules are contention-free (the\n"
    "verifier holds them to it) and whether it runs in place (no node ever holds\n"
    "more than p blocks).\n\n"
    "options:\n"
    "  --topo T   also say whether each algorithm applies to T (and if not, why)\n"
    "             and list its variants on T, the specs 'xchg compare' runs\n"
    "  --op NAME  only the algorithms of operation NAME: alltoall, bcast, reduce,\n"
    "             allgather, reduce_scatter, allreduce, scan, scatter, gather,\n"
    "             shift\n"
    "  --json     one JSON object per algorithm and line: name, summary,\n"
    "             operation, source, topologies, options, contention_free_on\n"
    "             (kind names), in_place (with --topo also applies, variants,\n"
    "             reason)\n\n"
    "exit status: 0 ok, 2 bad input, 3 internal error (a bug in xchg).\n";

/* The kinds of the free_on mask, "hypercube, complete", into buf. */
static const char *free_on_words(unsigned mask, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = XCHG_TOPO_RING; k < XCHG_TOPO_KINDS && at < len; k++)
        if (mask & XCHG_KIND(k)) {
            int n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                             xchg_topo_kind_name((xchg_topo_kind)k));
            if (n < 0)
                break;
            at += (size_t)n;
        }
    return buf;
}

/* Print one algorithm as a JSON line; nv < 0 when no --topo was given. */
static void print_json(const xchg_alg *a, const char *opt, xchg_spec *specs, int nv,
                       const xchg_err *why)
{
    fputs("{\"name\":", stdout);
    xchg_tool_json_str(stdout, a->name);
    fputs(",\"summary\":", stdout);
    xchg_tool_json_str(stdout, a->summary);
    fputs(",\"operation\":", stdout);
    xchg_tool_json_str(stdout, xchg_op_name(a->op));
    fputs(",\"source\":", stdout);
    xchg_tool_json_str(stdout, a->source);
    fputs(",\"topologies\":", stdout);
    xchg_tool_json_str(stdout, a->topologies);
    fputs(",\"options\":", stdout);
    xchg_tool_json_str(stdout, opt ? opt : "");
    fputs(",\"contention_free_on\":[", stdout);
    for (int k = XCHG_TOPO_RING, first = 1; k < XCHG_TOPO_KINDS; k++)
        if (a->free_on & XCHG_KIND(k)) {
            fputs(first ? "" : ",", stdout);
            xchg_tool_json_str(stdout, xchg_topo_kind_name((xchg_topo_kind)k));
            first = 0;
        }
    printf("],\"in_place\":%s", a->in_place ? "true" : "false");
    if (nv >= 0) {
        printf(",\"applies\":%s,\"variants\":[", nv > 0 ? "true" : "false");
        for (int k = 0; k < nv; k++) {
            if (k)
                fputc(',', stdout);
            xchg_tool_json_str(stdout, specs[k]);
        }
        fputc(']', stdout);
        if (nv == 0) {
            fputs(",\"reason\":", stdout);
            xchg_tool_json_str(stdout, why->msg);
        }
    }
    fputs("}\n", stdout);
}

int xchg_cli_list(int argc, char **argv)
{
    xchg_cli_opt opts[] = {{"topo", "T", NULL, 0},
                           {"op", "NAME", NULL, 0},
                           {"json", NULL, NULL, 0},
                           {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("list", argc, argv, opts);
    if (rc)
        return rc;
    xchg_topo t;
    int have_topo = xchg_cli_has(opts, "topo");
    if (have_topo && (rc = xchg_cli_topo(opts, "list", &t)))
        return rc;
    xchg_op op;
    int have_op = xchg_cli_has(opts, "op");
    if ((rc = xchg_cli_op(opts, 0, &op)))
        return rc;
    int json = xchg_cli_has(opts, "json");
    size_t n = 0, napplies = 0;
    xchg_spec specs[XCHG_MAX_VARIANTS];
    for (size_t i = 0; i < xchg_alg_count(); i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!a || (have_op && a->op != op.kind))
            continue;
        n++;
        const char *opt = a->options && a->options[0] ? a->options : NULL;
        int nv = -1;
        xchg_err why = {{0}};
        if (have_topo) {
            nv = xchg_alg_variants(&t, a, specs, XCHG_MAX_VARIANTS, &why);
            napplies += nv > 0;
        }
        if (json) {
            print_json(a, opt, specs, nv, &why);
            continue;
        }
        printf("%s\n", a->name);
        printf("    %s\n", a->summary ? a->summary : "");
        printf("    operation:  %s\n", a->op == XCHG_OP_ALLTOALL
                                            ? "alltoall (the complete exchange)"
                                            : xchg_op_name(a->op));
        printf("    source:     %s\n", a->source ? a->source : "");
        printf("    topologies: %s\n", a->topologies ? a->topologies : "");
        printf("    options:    %s\n", opt ? opt : "(none)");
        char kinds[128];
        if ((a->free_on & XCHG_KINDS_ALL) == XCHG_KINDS_ALL)
            snprintf(kinds, sizeof kinds, "wherever it applies");
        else
            free_on_words(a->free_on, kinds, sizeof kinds);
        printf("    claims:     contention-free %s%s; %s\n",
               (a->free_on & XCHG_KINDS_ALL) == XCHG_KINDS_ALL ? "" : "on ", kinds,
               a->in_place ? "in place (p blocks a node)" : "not in place");
        if (nv > 0) {
            printf("    variants:  ");
            for (int k = 0; k < nv; k++)
                printf(" %s", specs[k]);
            putchar('\n');
        } else if (nv == 0) {
            printf("    applies:    no: %s\n", why.msg);
        }
    }
    char which[64] = "";
    if (have_op)
        snprintf(which, sizeof which, " of %s", xchg_op_name(op.kind));
    if (!json && have_topo) {
        char buf[128];
        printf("%zu algorithms%s, %zu apply to %s; use one with --alg NAME[:OPTIONS]\n", n,
               which, napplies, xchg_topo_spec(&t, buf, sizeof buf));
    } else if (!json) {
        printf("%zu algorithms%s; use one with --alg NAME[:OPTIONS]\n", n, which);
    }
    return XCHG_CLI_OK;
}
