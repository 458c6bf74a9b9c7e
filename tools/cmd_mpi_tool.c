/*
 * cmd_mpi_tool.c - xchg probe and xchg tune: the subcommands that are MPI
 * programs. The
 * xchg CLI itself links no MPI, so these run a sibling program built with
 * the executor (xchg-probe, xchg-tune: next to xchg in the build folder),
 * in place of this process: under mpirun every rank of `mpirun -np 2 xchg
 * probe` becomes xchg-probe with the same arguments and environment.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Replace this process by the program `tool` found next to the running
 * xchg, with args (argc, argv: what follows the subcommand). Returns only
 * on failure: exit status 2 after saying what is missing. */
static int run_sibling(const char *cmd, const char *tool, int argc, char **argv)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return xchg_cli_error("%s: cannot find the xchg program's folder (/proc/self/exe: "
                              "%s), where %s lives",
                              cmd, strerror(errno), tool);
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
    char path[PATH_MAX];
    if (dir + strlen(tool) + 1 > sizeof path)
        return xchg_cli_error("%s: the path of %s is too long", cmd, tool);
    memcpy(path, self, dir);
    strcpy(path + dir, tool);
    if (access(path, X_OK) != 0)
        return xchg_cli_error("%s needs %s, an MPI program built beside xchg when an MPI is "
                              "found, and there is none at %s; accepted: an xchg built with an "
                              "MPI (docs/mpi.md), run as mpirun -np 2 xchg %s",
                              cmd, tool, path, cmd);
    char **args = malloc((size_t)(argc + 2) * sizeof *args);
    if (!args)
        return xchg_cli_error("%s: out of memory", cmd);
    args[0] = path;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    fflush(stdout);
    execv(path, args);
    int e = errno;
    free(args);
    return xchg_cli_error("%s: cannot run %s: %s", cmd, path, strerror(e));
}

int xchg_cli_probe(int argc, char **argv)
{
    return run_sibling("probe", "xchg-probe", argc, argv);
}

int xchg_cli_tune(int argc, char **argv)
{
    return run_sibling("tune", "xchg-tune", argc, argv);
}
