#!/usr/bin/env bash
# architecture.sh - docs/architecture.md names every source file, and only
# files that exist. Every .c and .h under src/, include/ and tools/ must be
# named on the page, by its name (`comm.c`) or by its path (`src/mpi/comm.c`,
# `mpi/comm.c`); a name two files share (`layout.c` in src/draw/ and
# src/mpi/) names neither, so each of them must be named with its folder.
# And every .c or .h file name the page writes (anywhere: lists, diagrams,
# prose) must be a file of the repository (by name or by path; outside
# src/, include/ and tools/ too: tests/mpi/test_mpi_ops.c), so the page
# never names a file that was renamed or removed.
#
# One line "FAIL: ..." on stderr per file missing from the page and per
# name on the page that is no file; then "architecture: N passed, M failed".
#
# Usage: tests/architecture.sh [REPO]   (default: the checkout this script is in)
# Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage
# (more than one argument, or REPO without docs/architecture.md).
set -u
usage="usage: tests/architecture.sh [REPO]   (default: the checkout this script is in)"
case ${1:-} in
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "architecture.sh: unknown option '$1'; $usage" >&2; exit 2 ;;
esac
if [ $# -gt 1 ]; then
    echo "architecture.sh: one argument at most (the repository); $usage" >&2
    exit 2
fi
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
page=docs/architecture.md
cd "$repo" 2>/dev/null || { echo "architecture.sh: no directory '$repo'; $usage" >&2; exit 2; }
if [ ! -f "$page" ]; then
    echo "architecture.sh: $repo has no $page; $usage" >&2
    exit 2
fi
passed=0
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# The repository's files: git's view (tracked and new, without what
# .gitignore leaves out: the build trees) where there is one, else every
# file outside .git and build*/. Only files that are there now count.
all_files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard
    else
        find . \( -name .git -o -path './build*' \) -prune -o -type f -print | sed 's|^\./||'
    fi | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done
}
files=$(all_files)
sources=$(find src include tools -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)

# Every .c/.h file name the page writes: a run of name characters and
# slashes ending in .c or .h, not followed by a name character (so
# `comm.c` is a name, and `dropin*.c` or `cmd_*.c`, patterns, are not).
names=$(grep -oE '[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[ch]([^A-Za-z0-9_]|$)' "$page" |
        sed -E -e 's/[^A-Za-z0-9_]$//' -e 's|^(\./)+||' | sort -u)

# For each name on the page, the files it stands for: the file of that
# path, or every file whose path ends in /NAME. One line per name:
# "0 NAME" (no file), "1 NAME FILE" (one file) or "2 NAME" (several).
resolve() {
    awk 'FNR == NR {
             n = split($0, part, "/"); suffix = part[n]
             count[suffix]++; file[suffix] = $0
             for (i = n - 1; i >= 1; i--) {
                 suffix = part[i] "/" suffix; count[suffix]++; file[suffix] = $0
             }
             next
         }
         { c = count[$0] + 0
           if (c == 1) print 1, $0, file[$0]; else print (c ? 2 : 0), $0 }' \
        <(echo "$files") <(echo "$names")
}
resolved=$(resolve)

# Each name on the page is a file.
while read -r c n _; do
    [ -n "$n" ] || continue
    if [ "$c" != 0 ]; then pass; else
        fail "$page names $n, which is no file of the repository (renamed or removed? fix the page)"
    fi
done <<<"$resolved"

# Each source file is named: by a name on the page that stands for it
# alone. One line per source: "ok FILE", "missing FILE", or "shared FILE"
# (missing, and its name is another source's too).
named=$(awk '$1 == 1 { print $3 }' <<<"$resolved")
while read -r state f; do
    [ -n "$f" ] || continue
    d=${f%/*}
    case $state in
        ok) pass ;;
        shared) fail "$f is not named on $page (its name is another file's too: name it" \
                     "with its folder, ${d##*/}/${f##*/})" ;;
        *) fail "$f is not named on $page (add it, with what it holds, to its folder's list)" ;;
    esac
done < <(awk 'FNR == NR { named[$0] = 1; next }
              { n = split($0, part, "/"); base[FNR] = part[n]; count[part[n]]++; src[FNR] = $0 }
              END { for (i = 1; i in src; i++)
                        print (src[i] in named ? "ok" : count[base[i]] > 1 ? "shared" : "missing"),
                              src[i] }' <(echo "$named") <(echo "$sources"))

echo "architecture: $passed passed, $failed failed"
[ "$failed" = 0 ]
