#!/usr/bin/env bash
# sim_async.sh - async steps against barrier steps, simulated, for every
# algorithm (each variant the planner offers) on 16x16 and 64x64 tori:
# Paragon parameters (Bokhari, Table 1), one-port nodes, th = 0, blocks of
# 64 B and 4 KiB. Barrier mode is the cost model's assumption (with no
# barrier time); async is what an MPI implementation does: a node starts its
# next step when its own send and receive are done.
#
# Usage: bash bench/sim_async.sh [path/to/xchg]
# Writes bench/results/sim_async.txt (and prints it).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/sim_async.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "sim_async: no xchg binary at $X" >&2; exit 2; }

# time T A M MODE: simulated time in us.
simtime() {
    "$X" sim --topo "$1" --alg "$2" --m "$3" --mode "$4" --machine paragon --json |
        grep -o '"time":[0-9.e+-]*' | cut -d: -f2
}

{
    echo "# async against barrier steps, simulated: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "# paragon (ts = 75 us, tw = 0.011 us/B), one-port, th = 0, no barrier time;"
    echo "# times in us; async/barrier < 1: async is faster"
    for topo in torus:16x16 torus:64x64; do
        echo "#"
        echo "# $topo"
        printf "# %-26s %13s %13s %8s %13s %13s %8s\n" Algorithm "barrier 64B" "async 64B" ratio \
            "barrier 4KiB" "async 4KiB" ratio
        algs=$("$X" plan --topo "$topo" --m 64 --json | grep '"type":"candidate"' |
            grep -o '"algorithm":"[^"]*"' | cut -d'"' -f4)
        for alg in $algs; do
            printf "  %-26s" "$alg"
            for m in 64 4096; do
                b=$(simtime "$topo" "$alg" "$m" barrier)
                a=$(simtime "$topo" "$alg" "$m" async)
                printf " %13.1f %13.1f %8.3f" "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')"
            done
            echo
        done
    done
} | tee "$OUT"
