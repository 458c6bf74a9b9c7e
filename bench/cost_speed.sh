#!/usr/bin/env bash
# cost_speed.sh - wall time of `xchg cost` (generate the schedule + cost it
# from its declared sizes, no verification) for every algorithm variant that
# applies to three 16,384-node networks: hypercube:14, ring:16384 and
# complete:16384. The variants are the ones `xchg list --topo T` names.
# Each row is the median of RUNS runs, next to the median of `xchg --version`
# run the same way in the same script (process start-up, the floor), and
# their ratio. The goal: every row under 1 s.
#
# Usage: bash bench/cost_speed.sh [path/to/xchg] [runs]
# Writes bench/results/cost_speed.txt (and prints it). Exit 1 when a row
# takes 1 s or more or a cost call fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
RUNS="${2:-5}"
OUT="$HERE/results/cost_speed.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "cost_speed: no xchg binary at $X" >&2; exit 2; }

# median_ms CMD...: run CMD $RUNS times (output discarded), print the median
# wall time in milliseconds; returns the command's last exit status.
median_ms() {
    local i t0 t1 rc=0
    local -a ts=()
    for ((i = 0; i < RUNS; i++)); do
        t0=$EPOCHREALTIME
        "$@" >/dev/null 2>&1
        rc=$?
        t1=$EPOCHREALTIME
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')")
    done
    printf '%s\n' "${ts[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
    return $rc
}

base=$(median_ms "$X" --version)
status=0
{
    echo "# xchg cost speed: median wall time of one 'xchg cost --topo T --alg A --json' run"
    echo "# (generate + cost from declared sizes, no verification), $RUNS runs per row"
    echo "# command: bash bench/cost_speed.sh $X $RUNS"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(uname -sm), $(nproc) cores," \
        "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
    echo "# baseline: 'xchg --version' median ${base} ms (process start-up)"
    printf '# %-16s %-40s %12s %10s %10s %14s\n' Topology Algorithm "Median(ms)" Ratio \
        Start-ups Volume-blocks
    for topo in hypercube:14 ring:16384 complete:16384; do
        specs=$("$X" list --topo "$topo" --json | grep -o '"variants":\[[^]]*\]' |
            sed 's/"variants":\[//; s/\]$//; s/","/ /g; s/"//g')
        for spec in $specs; do
            ms=$(median_ms "$X" cost --topo "$topo" --alg "$spec" --json)
            rc=$?
            line=$("$X" cost --topo "$topo" --alg "$spec" --json 2>&1 | tail -n 1)
            # the first "startups" is the schedule's (the lower bound's comes later)
            su=$(echo "$line" | grep -o '"startups":[0-9]*' | head -n1 | cut -d: -f2)
            vol=$(echo "$line" | grep -o '"volume_blocks":[0-9]*' | head -n1 | cut -d: -f2)
            ratio=$(awk -v a="$ms" -v b="$base" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
            note=""
            if [ "$rc" -ne 0 ]; then
                note="  FAILED (exit $rc)"
                status=1
            elif awk -v a="$ms" 'BEGIN { exit !(a >= 1000) }'; then
                note="  OVER 1 s"
                status=1
            fi
            printf '  %-16s %-40s %12s %10s %10s %14s%s\n' "$topo" "$spec" "$ms" "$ratio" \
                "${su:--}" "${vol:--}" "$note"
        done
    done
    if [ "$status" -eq 0 ]; then
        echo "# every row under 1 s"
    else
        echo "# SOME ROWS FAILED OR TOOK 1 s OR MORE"
    fi
    exit "$status" # the group runs in a subshell (the pipe): pass its status on
} | tee "$OUT"
exit "${PIPESTATUS[0]}"
