#!/usr/bin/env bash
# layers.sh - the house rules of docs/architecture.md, checked on the source
# tree: every quoted #include in src/ points down (base <- sched <- alg,
# check, export, model; rank, sim and draw see the public header and base/) or stays in its own folder, tools/ sees only the
# public header, every library source sits in a layer folder, and every .c
# under src/ is listed by name in CMakeLists.txt (so none is built by
# accident and none is silently left out).
#
# Usage: tests/layers.sh [REPO]   (default: the checkout this script is in)
set -u
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo" || exit 2
passed=0
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# What each folder of src/ may include besides its own files and system headers.
allowed() {
    case $1 in
        base)   echo "xchg.h base/" ;;
        sched)  echo "base/ sched/" ;;
        alg)    echo "base/ sched/ alg/" ;;
        check)  echo "base/ sched/ check/" ;;
        export) echo "base/ sched/ export/" ;;
        model)  echo "xchg.h base/ model/" ;;
        rank)   echo "xchg.h base/ rank/" ;;
        sim)    echo "xchg.h base/ sim/" ;;
        draw)   echo "xchg.h base/ draw/" ;;
        mpi)    echo "xchg.h xchg_mpi.h mpi/" ;;
        *)      echo "" ;;
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
            xchg.h|xchg_mpi.h) for a in $(allowed "$layer"); do [ "$a" = "$inc" ] && ok=1; done ;;
            *) [ -f "$(dirname "$f")/$inc" ] && ok=1 ;;
        esac
        if [ $ok = 1 ]; then pass; else fail "$f includes \"$inc\"; $layer may include: $(allowed "$layer") and its own folder"; fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# The CLI and the MPI tools see the public API only, and their own
# headers in tools/ (cli.h, tool_size.h, ...).
for f in tools/*.c tools/*.h; do
    while read -r inc; do
        [ -n "$inc" ] || continue
        case $inc in
            xchg.h|xchg_mpi.h) pass ;;
            */*) fail "$f includes \"$inc\"; tools/ may include xchg.h, xchg_mpi.h and its own headers only" ;;
            *) if [ -f "tools/$inc" ]; then pass; else
                   fail "$f includes \"$inc\"; tools/ may include xchg.h, xchg_mpi.h and its own headers only"
               fi ;;
        esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# Every library source is listed by name in CMakeLists.txt.
for f in $(find src -type f -name '*.c' | sort); do
    if grep -q "$f" CMakeLists.txt; then pass; else fail "$f is not listed in CMakeLists.txt"; fi
done

echo "layers: $passed passed, $failed failed"
[ "$failed" = 0 ]
