#!/usr/bin/env bash
# layers.sh - the house rules of docs/architecture.md, checked on the source
# tree: every quoted #include in src/ points down (base <- sched <- alg,
# check, export, model; rank, sim and draw see the public headers and
# base/) or stays in its own folder; each src/ layer includes only the
# public headers of its layer and those below it (the table in allowed());
# each public header includes only the public headers below it
# (public_allowed()); tools/ sees only the public headers; every library
# source sits in a layer folder; and every .c under src/ is listed by name
# in CMakeLists.txt (so none is built by accident and none is silently left
# out).
#
# Usage: tests/layers.sh [REPO]   (default: the checkout this script is in)
set -u
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo" || exit 2
passed=0
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# What each folder of src/ may include besides its own files and system
# headers: folders of src/ (ending in /) and public headers (include/).
# The public headers are layers too: xchg_core.h <- xchg_model.h <-
# xchg_consumers.h, and xchg_core.h <- xchg_rank.h; xchg.h includes all
# four. src/mpi/ (the executor) uses the core, the model (machines, tuning
# files, the planner) and the rank programs, never the consumers; its public
# header xchg_mpi.h includes the umbrella for the programs that use it.
allowed() {
    case $1 in
        base)   echo "xchg_core.h base/" ;;
        sched)  echo "xchg_core.h base/ sched/" ;;
        alg)    echo "xchg_core.h base/ sched/ alg/" ;;
        check)  echo "xchg_core.h xchg_model.h base/ sched/ check/" ;;
        model)  echo "xchg_core.h xchg_model.h base/ model/" ;;
        rank)   echo "xchg_core.h xchg_rank.h base/ rank/" ;;
        export) echo "xchg_core.h xchg_model.h xchg_consumers.h base/ sched/ export/" ;;
        sim)    echo "xchg_core.h xchg_model.h xchg_consumers.h base/ sim/" ;;
        draw)   echo "xchg_core.h xchg_model.h xchg_consumers.h base/ draw/" ;;
        mpi)    echo "xchg_core.h xchg_model.h xchg_rank.h xchg_mpi.h mpi/" ;;
        *)      echo "" ;;
    esac
}

# The includes of file $1 that the rules govern: every quoted one, and the
# public headers however they are written (<xchg_core.h> too).
includes() {
    sed -n -e 's/^#include "\([^"]*\)".*/\1/p' -e 's/^#include <\(xchg[^>]*\)>.*/\1/p' "$1"
}

# What each public header may include of the others (the ones below it).
public_allowed() {
    case $1 in
        xchg_core.h)      echo "" ;;
        xchg_model.h)     echo "xchg_core.h" ;;
        xchg_rank.h)      echo "xchg_core.h" ;;
        xchg_consumers.h) echo "xchg_core.h xchg_model.h" ;;
        xchg.h)           echo "xchg_core.h xchg_model.h xchg_rank.h xchg_consumers.h" ;;
        xchg_mpi.h)       echo "xchg.h" ;;
        *)                echo "-" ;;
    esac
}

# Every source file of the library is in a layer folder.
for f in $(find src -type f \( -name '*.c' -o -name '*.h' \) | sort); do
    layer=$(echo "$f" | cut -d/ -f2)
    if [ "$f" = "src/$layer" ] || [ -z "$(allowed "$layer")" ]; then
        fail "$f is not in a layer folder (src/base, sched, alg, check, export, model, rank, sim, draw, mpi)"
        continue
    fi
    pass
    # Each quoted include: a file of the same folder (no slash), or an
    # allowed prefix.
    while read -r inc; do
        [ -n "$inc" ] || continue
        ok=0
        case $inc in
            */*) for a in $(allowed "$layer"); do
                     case $inc in "$a"*) ok=1 ;; esac
                 done ;;
            xchg*.h) for a in $(allowed "$layer"); do [ "$a" = "$inc" ] && ok=1; done ;;
            *) [ -f "$(dirname "$f")/$inc" ] && ok=1 ;;
        esac
        if [ $ok = 1 ]; then pass; else fail "$f includes \"$inc\"; $layer may include: $(allowed "$layer") and its own folder"; fi
    done < <(includes "$f")
done

# Each public header is one of the table's and includes only the public
# headers below it (quoted, as installed side by side) and system headers.
for f in include/*.h; do
    h=$(basename "$f")
    if [ "$(public_allowed "$h")" = "-" ]; then
        fail "$f is a public header that tests/layers.sh does not know (add it to public_allowed)"
        continue
    fi
    pass
    while read -r inc; do
        [ -n "$inc" ] || continue
        ok=0
        for a in $(public_allowed "$h"); do [ "$a" = "$inc" ] && ok=1; done
        if [ $ok = 1 ]; then pass; else
            fail "$f includes \"$inc\"; $h may include: $(public_allowed "$h") (the public headers below it)"
        fi
    done < <(includes "$f")
done

# The CLI and the MPI tools see the public API only, and their own
# headers in tools/ (cli.h, tool_size.h, ...).
for f in tools/*.c tools/*.h; do
    while read -r inc; do
        [ -n "$inc" ] || continue
        case $inc in
            xchg*.h) if [ -f "include/$inc" ]; then pass; else
                         fail "$f includes \"$inc\", which is not a public header"
                     fi ;;
            */*) fail "$f includes \"$inc\"; tools/ may include the public headers and its own headers only" ;;
            *) if [ -f "tools/$inc" ]; then pass; else
                   fail "$f includes \"$inc\"; tools/ may include the public headers and its own headers only"
               fi ;;
        esac
    done < <(includes "$f")
done

# Every library source is listed by name in CMakeLists.txt.
for f in $(find src -type f -name '*.c' | sort); do
    if grep -q "$f" CMakeLists.txt; then pass; else fail "$f is not listed in CMakeLists.txt"; fi
done

echo "layers: $passed passed, $failed failed"
[ "$failed" = 0 ]
