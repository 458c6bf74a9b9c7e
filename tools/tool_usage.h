/*
 * tool_usage.h - how the MPI tools (xchg-bench, xchg probe, xchg tune) say
 * what went wrong: one line "PROGRAM: message" on stderr, printed by one
 * rank only (every rank reads the same command line, and P copies of a
 * message would bury it), and exit status 2 for bad usage or input.
 * The xchg CLI, one process with no ranks, says it with xchg_cli_error.
 */
#ifndef XCHG_TOOL_USAGE_H
#define XCHG_TOOL_USAGE_H

#if defined(__GNUC__)
#define XCHG_TOOL_PRINTF __attribute__((format(printf, 1, 2)))
#else
#define XCHG_TOOL_PRINTF
#endif

/* The exit status of bad usage or input, as every xchg program has it. */
enum { XCHG_TOOL_USAGE = 2 };

/*
 * Say who speaks, once, before the first message: prog begins every line
 * ("xchg-bench", "xchg tune"), tail ends every usage error ("" or
 * " (see xchg-bench --help)"), and this process prints only when speaks is
 * nonzero (rank 0). Both strings are kept, not copied: pass literals.
 */
void xchg_tool_usage_setup(const char *prog, const char *tail, int speaks);

/* "PROGRAM: <message>TAIL" and a newline on stderr when this process
 * speaks. Returns XCHG_TOOL_USAGE on every rank, so that a caller can
 * write `return xchg_tool_usage_error(...)`. */
int xchg_tool_usage_error(const char *fmt, ...) XCHG_TOOL_PRINTF;

/* Say what getopt_long's c (':' or '?') means: an option without its
 * value, or one not accepted (accepted lists those that are), named as it
 * stands in argv, or as -X when it is one letter of a bundle of short
 * options. Returns XCHG_TOOL_USAGE. */
int xchg_tool_getopt_error(int c, char *const argv[], const char *accepted);

/* The end of an option loop of xchg probe and xchg tune: getopt_long's c
 * for an option the loop did not take: 'h' (rank 0 prints usage on
 * stdout; returns -1: done, exit 0), else getopt's refusal
 * (xchg_tool_getopt_error). */
int xchg_tool_getopt_rest(int c, char *const argv[], const char *usage, const char *accepted);

/* After the options: 0, or an error for the first operand left (the tools
 * take options only). */
int xchg_tool_no_operands(int argc, char *const argv[], int optind_now);

/* "PROGRAM: <message>" and a newline on stderr when this process speaks:
 * notes, warnings and failures that are not bad usage (no tail). */
void xchg_tool_say(const char *fmt, ...) XCHG_TOOL_PRINTF;

#endif
