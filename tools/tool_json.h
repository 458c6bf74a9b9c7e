/*
 * tool_json.h - the one JSON string writer of the tools: the xchg CLI's
 * --json output and xchg-bench's both write their strings through it, so
 * both escape the same way. (The library's exporter has its own, writing
 * to a caller's sink in another layer.)
 */
#ifndef XCHG_TOOL_JSON_H
#define XCHG_TOOL_JSON_H

#include <stdio.h>

/* Write s (NULL: "") to f as a JSON string: quoted, with '"' and '\\'
 * escaped, newline and tab as \n and \t, other control bytes and DEL as
 * \u00XX; other bytes (UTF-8 included) as they are. */
void xchg_tool_json_str(FILE *f, const char *s);

#endif
