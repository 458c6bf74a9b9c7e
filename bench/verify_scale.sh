#!/usr/bin/env bash
# verify_scale.sh - how fast xchg_verify follows every block: hc-standard on
# hypercube:6,8,10,12,13,14, once with 1 thread and once with all online
# cores, best of REPEATS wall-clock runs each (schedule generation not timed).
# Writes an OSU-style table to bench/results/verify_scale.txt (or $1).
#
# Usage: bench/verify_scale.sh [OUTPUT]
# Environment: BUILD_DIR (default <repo>/build; configured and built here
# with the repo's CMake, Release), REPEATS (default 3), DIMS (default
# "6 8 10 12 13 14").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build}
repeats=${REPEATS:-3}
dims=${DIMS:-"6 8 10 12 13 14"}
out=${1:-$here/results/verify_scale.txt}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_verify -j2 >/dev/null
bin=$build/bench_verify
ncpu=$(nproc)

mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# One run: prints "nodes blocks steps seconds ok threads".
for d in $dims; do
    for th in 1 0; do
        line=$("$bin" "hypercube:$d" hc-standard "$th" "$repeats")
        set -- $line
        if [ "$5" != 1 ]; then
            echo "verify_scale: hc-standard on hypercube:$d did not verify" >&2
            exit 1
        fi
        echo "$d $th $line" >>"$tmp"
    done
done

{
    echo "# xchg verifier scaling: hc-standard on hypercube:D, every block followed"
    echo "# command: BUILD_DIR=$build REPEATS=$repeats bench/verify_scale.sh" \
         "(Time = best of $repeats runs of xchg_verify, Release build)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -m), $ncpu online cores," \
         "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
    echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)"
    echo "# Blocks = p*p; block-steps = Blocks*Steps; Speedup is against the 1-thread run above"
    for th in 1 0; do
        if [ "$th" = 1 ]; then
            echo "#"
            echo "# 1 thread"
        else
            echo "#"
            echo "# $ncpu threads (threads = 0: all online cores)"
        fi
        printf "%-8s %12s %6s %10s %16s %20s\n" "# Nodes" "Blocks" "Steps" "Time(s)" \
            "Mblock-steps/s" "Speedup-vs-1-thread"
        awk -v th="$th" '
            $2 == 1 { base[$1] = $6 }
            $2 == th { rows[n++] = $0 }
            END {
                for (i = 0; i < n; i++) {
                    split(rows[i], f, " ")
                    t = f[6]; work = f[4] * f[5]
                    rate = t > 0 ? work / t / 1e6 : 0
                    sp = t > 0 ? base[f[1]] / t : 0
                    printf "%-8d %12d %6d %10.6f %16.1f %20.2f\n", f[3], f[4], f[5], t, rate, sp
                }
            }' "$tmp"
    done
} >"$out"
cat "$out"
