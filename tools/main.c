/*
 * main.c - entry point of the xchg command-line tool: picks the subcommand,
 * answers --help and --version, and checks that stdout was written.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

typedef struct cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    const char *help;
} cmd;

static const cmd commands[] = {
    {"list", "list every algorithm of the registry", xchg_cli_list, xchg_cli_list_help},
    {"verify", "follow every block through a schedule and check it", xchg_cli_verify,
     xchg_cli_verify_help},
    {"cost", "start-ups, volume, predicted time and lower bounds of a schedule", xchg_cli_cost,
     xchg_cli_cost_help},
    {"export", "write a schedule, every block of every message, as JSON or text",
     xchg_cli_export, xchg_cli_export_help},
    {"compare", "every algorithm that applies to a topology: verified, costed, crossovers",
     xchg_cli_compare, xchg_cli_compare_help},
    {"plan", "the fastest algorithm for a block size, or crossovers over a range", xchg_cli_plan,
     xchg_cli_plan_help},
    {"sim", "run a schedule on a network with contention, event by event", xchg_cli_sim,
     xchg_cli_sim_help},
    {"draw", "draw a step of a schedule, or all of them, as an SVG picture", xchg_cli_draw,
     xchg_cli_draw_help},
    {"plot", "plot recorded times (xchg-bench, xchg sim) against block size", xchg_cli_plot,
     xchg_cli_plot_help},
    /* MPI programs (run under mpirun); their own --help answers. */
    {"probe", "measure this machine's t_s, t_w, t_r and barrier (under mpirun)",
     xchg_cli_probe, NULL},
    {"tune", "time every candidate here and write the winners for auto (under mpirun)",
     xchg_cli_tune, NULL},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* Print the top-level help to f. */
static void usage(FILE *f)
{
    fputs("xchg " XCHG_VERSION " - complete exchange (all-to-all personalized communication)\n"
          "on direct networks: generate, verify, cost and export schedules.\n\n"
          "usage: xchg COMMAND [OPTIONS]\n"
          "       xchg COMMAND --help\n"
          "       xchg help [COMMAND]\n"
          "       xchg --help | --version\n\n"
          "commands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fputs("\ntopologies: ring:P array:P mesh:A[xB...] torus:A[xB...] hypercube:D "
          "complete:P tree:D\n"
          "options are long: --name value or --name=value; --json prints one JSON object\n"
          "per line.\n"
          "exit status: 0 ok, 1 a verification failed, 2 bad usage or input,\n"
          "3 internal error (a bug in xchg).\n",
          f);
}

/* The command called name, or NULL. */
static const cmd *find_cmd(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* Finish an error line on stderr with the commands accepted. */
static int accepted_commands(void)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(stderr, " %s", commands[i].name);
    fputs(", help (see xchg --help)\n", stderr);
    return XCHG_CLI_USAGE;
}

/* Complain about an unknown command name, listing the known ones. */
static int unknown_cmd(const char *name)
{
    fprintf(stderr, "xchg: unknown command '%s'; accepted:", name);
    return accepted_commands();
}

/* Print c's help; a command without help text is asked for its own. */
static int show_help(const cmd *c)
{
    if (c->help) {
        fputs(c->help, stdout);
        return XCHG_CLI_OK;
    }
    char help[] = "--help";
    char *args[] = {help, NULL};
    return c->run(1, args);
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        fputs("xchg: no command given; accepted:", stderr);
        return accepted_commands();
    }
    const char *name = argv[1];
    int top_flag = strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
                   strcmp(name, "--version") == 0;
    if (top_flag && argc > 2)
        return xchg_cli_error("unexpected argument '%s' after %s; accepted: xchg %s alone, or "
                              "xchg COMMAND --help",
                              argv[2], name, name);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        rc = XCHG_CLI_OK;
    } else if (strcmp(name, "--version") == 0) {
        printf("xchg %s\n", XCHG_VERSION);
        rc = XCHG_CLI_OK;
    } else if (strcmp(name, "help") == 0) {
        if (argc > 3)
            return xchg_cli_error("'xchg help' takes at most one command; accepted: xchg "
                                  "help [COMMAND]");
        if (argc == 2) {
            usage(stdout);
            rc = XCHG_CLI_OK;
        } else {
            const cmd *c = find_cmd(argv[2]);
            if (!c)
                return unknown_cmd(argv[2]);
            rc = show_help(c);
        }
    } else {
        const cmd *c = find_cmd(name);
        if (!c)
            return unknown_cmd(name);
        if (xchg_cli_wants_help(argc - 2, argv + 2)) {
            rc = show_help(c);
        } else {
            rc = c->run(argc - 2, argv + 2);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "xchg: writing standard output failed: %s\n", strerror(errno));
        return XCHG_CLI_USAGE;
    }
    return rc;
}
