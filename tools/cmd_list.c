/*
 * cmd_list.c - "xchg list": every algorithm of the registry with its
 * summary, source, accepted topologies, options and declared claims
 * (contention-free on which kinds, in place or not); with --topo, also
 * whether it applies to that topology and the variants worth running there.
 */
#include "cli.h"

const char xchg_cli_list_help[] =
    "usage: xchg list [--topo T] [--json]\n\n"
    "List every algorithm of the registry: name, one-line summary, the paper it\n"
    "comes from, the topologies it accepts, its options (an algorithm with\n"
    "options is named as name:options, e.g. multiphase:2,3) and what it claims:\n"
    "on which topologies its schedules are contention-free (the verifier holds\n"
    "them to it) and whether it runs in place (no node ever holds more than p\n"
    "blocks).\n\n"
    "options:\n"
    "  --topo T  also say whether each algorithm applies to T (and if not, why)\n"
    "            and list its variants on T, the specs 'xchg compare' runs\n"
    "  --json    one JSON object per algorithm and line: name, summary, source,\n"
    "            topologies, options, contention_free_on (kind names), in_place\n"
    "            (with --topo also applies, variants, reason)\n\n"
    "exit status: 0 ok, 2 bad input, 3 internal error (a bug in xchg).\n";

/* The kinds of the free_on mask, "hypercube, complete", into buf. */
static const char *free_on_words(unsigned mask, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = XCHG_TOPO_RING; k <= XCHG_TOPO_COMPLETE && at < len; k++)
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
    xchg_cli_json_str(stdout, a->name);
    fputs(",\"summary\":", stdout);
    xchg_cli_json_str(stdout, a->summary);
    fputs(",\"source\":", stdout);
    xchg_cli_json_str(stdout, a->source);
    fputs(",\"topologies\":", stdout);
    xchg_cli_json_str(stdout, a->topologies);
    fputs(",\"options\":", stdout);
    xchg_cli_json_str(stdout, opt ? opt : "");
    fputs(",\"contention_free_on\":[", stdout);
    for (int k = XCHG_TOPO_RING, first = 1; k <= XCHG_TOPO_COMPLETE; k++)
        if (a->free_on & XCHG_KIND(k)) {
            fputs(first ? "" : ",", stdout);
            xchg_cli_json_str(stdout, xchg_topo_kind_name((xchg_topo_kind)k));
            first = 0;
        }
    printf("],\"in_place\":%s", a->in_place ? "true" : "false");
    if (nv >= 0) {
        printf(",\"applies\":%s,\"variants\":[", nv > 0 ? "true" : "false");
        for (int k = 0; k < nv; k++) {
            if (k)
                fputc(',', stdout);
            xchg_cli_json_str(stdout, specs[k]);
        }
        fputc(']', stdout);
        if (nv == 0) {
            fputs(",\"reason\":", stdout);
            xchg_cli_json_str(stdout, why->msg);
        }
    }
    fputs("}\n", stdout);
}

int xchg_cli_list(int argc, char **argv)
{
    xchg_cli_opt opts[] = {
        {"topo", "T", NULL, 0}, {"json", NULL, NULL, 0}, {NULL, NULL, NULL, 0}};
    int rc = xchg_cli_parse("list", argc, argv, opts);
    if (rc)
        return rc;
    xchg_topo t;
    int have_topo = xchg_cli_has(opts, "topo");
    if (have_topo && (rc = xchg_cli_topo(opts, "list", &t)))
        return rc;
    int json = xchg_cli_has(opts, "json");
    size_t n = xchg_alg_count(), napplies = 0;
    xchg_spec specs[XCHG_MAX_VARIANTS];
    for (size_t i = 0; i < n; i++) {
        const xchg_alg *a = xchg_alg_at(i);
        if (!a)
            continue;
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
    if (!json && have_topo) {
        char buf[128];
        printf("%zu algorithms, %zu apply to %s; use one with --alg NAME[:OPTIONS]\n", n,
               napplies, xchg_topo_spec(&t, buf, sizeof buf));
    } else if (!json) {
        printf("%zu algorithms; use one with --alg NAME[:OPTIONS]\n", n);
    }
    return XCHG_CLI_OK;
}
