#!/usr/bin/env bash
# sim_speed.sh - how fast the network simulator runs (xchg sim, barrier
# mode, one-port, Paragon parameters, 64-byte blocks): wall time, peak
# memory, messages and link hops simulated per second, for the issue's
# cases (pairwise on a 32x32 torus, t2 and at2 on 128x128, mt3 on 48x48x48)
# and for pairwise, hc-direct and t1 against network size. Each row is the
# median of RUNS runs; `xchg --version` run the same way is the floor.
# The time includes generating the schedule.
#
# Usage: bash bench/sim_speed.sh [path/to/xchg] [runs]
# Writes bench/results/sim_speed.txt (and prints it).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
RUNS="${2:-3}"
OUT="$HERE/results/sim_speed.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "sim_speed: no xchg binary at $X" >&2; exit 2; }
[ -x /usr/bin/time ] || bash "$HERE/../scripts/install-deps.sh" # GNU time, for the peak memory
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# one T A [MODE]: median wall seconds of RUNS runs, the peak RSS (MiB) of
# the last, and the last run's JSON report in $TMP/out. MODE is barrier or
# async, with "+vct" for virtual cut-through routing (wormhole otherwise).
one() {
    local i t0 t1 mode=${3:-barrier} routing=wormhole
    [ "${mode%+vct}" != "$mode" ] && { mode=${mode%+vct}; routing=vct; }
    local -a ts=()
    for ((i = 0; i < RUNS; i++)); do
        t0=$EPOCHREALTIME
        /usr/bin/time -f '%M' -o "$TMP/rss" "$X" sim --topo "$1" --alg "$2" --m 64 \
            --mode "$mode" --routing "$routing" --json >"$TMP/out" 2>"$TMP/err" || return 1
        t1=$EPOCHREALTIME
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    done
    secs=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    mb=$(awk -v k="$(tail -n1 "$TMP/rss")" 'BEGIN { printf "%.1f", k / 1024 }')
}

# field NAME: a number from the last JSON report.
field() {
    grep -o "\"$1\":[0-9.e+-]*" "$TMP/out" | head -n1 | cut -d: -f2
}

# row T A [MODE] [GOAL]: print one row.
row() {
    if ! one "$1" "$2" "${3:-barrier}"; then
        printf "  %-16s %-10s %-8s  failed: %s\n" "$1" "$2" "${3:-barrier}" "$(head -c 120 "$TMP/err")"
        return
    fi
    local msgs hops slow
    msgs=$(field messages)
    hops=$(field link_hops)
    slow=$(field slowdown)
    printf "  %-16s %-10s %-8s %9d %12d %9s %8s %12.3g %12.3g %9s  %s\n" "$1" "$2" \
        "${3:-barrier}" "$(field nodes)" "$msgs" "$secs" "$mb" \
        "$(awk -v a="$msgs" -v s="$secs" 'BEGIN { print a / s }')" \
        "$(awk -v a="$hops" -v s="$secs" 'BEGIN { print a / s }')" "$slow" "${4:-}"
}

t0=$EPOCHREALTIME
"$X" --version >/dev/null
floor=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
{
    echo "# xchg sim speed: median of $RUNS runs, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "# barrier mode unless said, one-port, paragon, m = 64 B; time includes generation;"
    echo "# wormhole routing unless the mode says +vct (virtual cut-through)"
    echo "# 'xchg --version' (start-up floor): $floor s"
    printf "# %-16s %-10s %-8s %9s %12s %9s %8s %12s %12s %9s  %s\n" Topology Algorithm Mode \
        Nodes Messages "Time(s)" "RSS(MiB)" "Msgs/s" "Hops/s" Slowdown Goal
    row torus:32x32 pairwise barrier "under 5 s"
    row torus:32x32 pairwise async "under 5 s"
    row torus:128x128 t2 barrier "under 30 s"
    row torus:128x128 at2 barrier "under 30 s"
    row torus:48x48x48 mt3 barrier "under 60 s"
    row torus:32x32 pairwise barrier+vct "under 5 s"
    row torus:32x32 pairwise async+vct "under 5 s"
    row torus:128x128 t2 barrier+vct "under 30 s"
    row torus:128x128 at2 barrier+vct "under 30 s"
    row torus:48x48x48 mt3 barrier+vct "under 60 s"
    echo "# against network size"
    for n in 8 16 32 64; do row "torus:${n}x${n}" pairwise; done
    for d in 8 10 12 13; do row "hypercube:$d" hc-direct; done
    for n in 16 32 64 128 256; do row "torus:${n}x${n}" t1; done
} | tee "$OUT"
