/*
 * bench_print.c - what xchg-bench prints on rank 0: the OSU benchmarks'
 * header and columns (their titles and widths, so the tables read the
 * same), a "# plan" comment line whenever the executor's choice changes,
 * and with --json one object per size instead.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "tool_json.h"
#include "tool_ops.h"

/* OSU's column widths. */
#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2

void bench_print_json(const bench_args *a, int p, const bench_row *r)
{
    printf("{\"op\":\"%s\",", bench_op_name(a));
    if (xchg_tool_op_has_root(a->op))
        printf("\"root\":%d,", a->root);
    if (a->op == XCHG_OP_SHIFT)
        printf("\"q\":%d,", a->q);
    if (a->vexchange) {
        fputs("\"counts\":", stdout);
        xchg_tool_json_str(stdout, a->counts);
        printf(",\"seed\":%llu,", (unsigned long long)a->seed);
    }
    fputs("\"alg\":", stdout);
    xchg_tool_json_str(stdout, r->info.alg);
    fputs(",\"requested\":", stdout);
    xchg_tool_json_str(stdout, a->alg);
    fputs(",\"topology\":", stdout);
    if (strcmp(a->alg, "mpi") == 0)
        fputs("null", stdout);
    else
        xchg_tool_json_str(stdout, r->info.topology);
    if (a->pair)
        printf(",\"mpi_avg_us\":%.3f,\"ratio\":%.4f,\"median_us\":%.3f,\"mpi_median_us\":%.3f,"
               "\"median_ratio\":%.4f,\"pair_ratio\":%.4f",
               r->mpi_avg_us, r->ratio, r->med_us, r->mpi_med_us, r->med_ratio, r->pair_ratio);
    printf(",\"fallback\":%s,\"steps\":%zu,\"p\":%d,\"bytes\":%zu,\"avg_us\":%.3f,\"min_us\":%.3f,"
           "\"max_us\":%.3f,\"iterations\":%ld,\"in_place\":%s,\"valid\":%s}\n",
           r->info.fallback ? "true" : "false", r->info.steps, p, r->bytes, r->avg_us, r->min_us,
           r->max_us, r->iters, a->in_place ? "true" : "false",
           r->checked ? (r->valid ? "true" : "false") : "null");
}

void bench_print_header(const bench_args *a, int p)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = '\0';
    char *nl = strpbrk(lib, "\r\n");
    if (nl)
        *nl = '\0';
    printf("\n# " BENCH_NAME " MPI %s Latency Test v" XCHG_VERSION "\n", bench_op_title(a));
    printf("# MPI library: %s\n", lib);
    printf("# Ranks: %d, algorithm: %s, topology: %s, in place: %s, datatype: %s", p, a->alg,
           a->topo ? a->topo : "auto", a->in_place ? "yes" : "no",
           xchg_tool_op_reduces(a->op) ? "MPI_INT, op: MPI_SUM" : "MPI_BYTE");
    if (xchg_tool_op_has_root(a->op))
        printf(", root: %d", a->root);
    if (a->op == XCHG_OP_SHIFT)
        printf(", q: %d", a->q);
    if (a->vexchange)
        printf(", counts: %s (seed %llu), Size: the mean block", a->counts,
               (unsigned long long)a->seed);
    putchar('\n');
    printf("%-*s%*s", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
    if (a->full)
        printf("%*s%*s%*s", FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12,
               "Iterations");
    if (a->pair)
        printf("%*s%*s%*s%*s", FIELD_WIDTH, "MPI Avg(us)", 12, "xchg/MPI", 14, "median ratio", 12,
               "pair ratio");
    if (a->validate)
        printf("%*s", FIELD_WIDTH, "Validation");
    putchar('\n');
}

void bench_print_plan_line(const bench_args *a, const bench_row *r, const bench_row *prev)
{
    if (strcmp(a->alg, "mpi") == 0) {
        if (!prev)
            printf("# plan: %s of the MPI library (--alg mpi)\n", bench_op_mpi_name(a));
        return;
    }
    if (prev && strcmp(prev->info.alg, r->info.alg) == 0 &&
        strcmp(prev->info.topology, r->info.topology) == 0 &&
        prev->info.fallback == r->info.fallback)
        return;
    if (r->info.fallback)
        printf("# plan from %zu B: %s (xchg falls back to the MPI library); %s\n", r->bytes,
               bench_op_mpi_name(a), r->info.why);
    else if (r->info.shared_bytes)
        printf("# plan from %zu B: %s, %zu round%s through a shared segment of %zu B; %s\n",
               r->bytes, r->info.alg, r->info.steps, r->info.steps == 1 ? "" : "s",
               r->info.shared_bytes, r->info.why);
    else
        printf("# plan from %zu B: %s on %s, %zu steps, scratch %zu B; %s\n", r->bytes,
               r->info.alg, r->info.topology, r->info.steps, r->info.scratch_bytes, r->info.why);
}

void bench_print_row(const bench_args *a, const bench_row *r)
{
    printf("%-*zu%*.*f", 10, r->bytes, FIELD_WIDTH, FLOAT_PRECISION, r->avg_us);
    if (a->full)
        printf("%*.*f%*.*f%*ld", FIELD_WIDTH, FLOAT_PRECISION, r->min_us, FIELD_WIDTH,
               FLOAT_PRECISION, r->max_us, 12, r->iters);
    if (a->pair)
        printf("%*.*f%*.*f%*.*f%*.*f", FIELD_WIDTH, FLOAT_PRECISION, r->mpi_avg_us, 12, 3, r->ratio,
               14, 3, r->med_ratio, 12, 3, r->pair_ratio);
    if (a->validate)
        printf("%*s", FIELD_WIDTH, r->valid ? "Pass" : "Fail");
    putchar('\n');
}
