/*
 * tool_usage.c - the MPI tools' messages on stderr (tool_usage.h).
 */
#include "tool_usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static const char *g_prog = "xchg";
static const char *g_tail = "";
static int g_speaks = 1;

void xchg_tool_usage_setup(const char *prog, const char *tail, int speaks)
{
    g_prog = prog;
    g_tail = tail ? tail : "";
    g_speaks = speaks;
}

/* One line of prog, message and tail, written under stderr's lock so that
 * it reaches the launcher, which forwards ranks' stderr by line, whole. */
static void say_line(const char *tail, const char *fmt, va_list ap)
{
    if (!g_speaks)
        return;
    flockfile(stderr);
    fprintf(stderr, "%s: ", g_prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", tail);
    funlockfile(stderr);
}

int xchg_tool_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_line(g_tail, fmt, ap);
    va_end(ap);
    return XCHG_TOOL_USAGE;
}

void xchg_tool_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_line("", fmt, ap);
    va_end(ap);
}

int xchg_tool_getopt_error(int c, char *const argv[], const char *accepted)
{
    const char *word = argv[optind - 1];
    if (c == ':')
        return xchg_tool_usage_error("%s needs a value", word);
    if (word[0] == '-' && word[1] != '-' && optopt > 0 && optopt < 128)
        return xchg_tool_usage_error("unknown option '-%c'; accepted: %s", optopt, accepted);
    return xchg_tool_usage_error("unknown option '%s'; accepted: %s", word, accepted);
}

int xchg_tool_getopt_rest(int c, char *const argv[], const char *usage, const char *accepted)
{
    if (c != 'h')
        return xchg_tool_getopt_error(c, argv, accepted);
    if (g_speaks)
        fputs(usage, stdout);
    return -1;
}

int xchg_tool_no_operands(int argc, char *const argv[], int optind_now)
{
    if (optind_now < argc)
        return xchg_tool_usage_error("unexpected argument '%s'; options only (see --help)",
                                     argv[optind_now]);
    return 0;
}
