#!/usr/bin/env bash
# sim_paragon.sh - seed 002's hypercube algorithms on the Paragon's mesh,
# simulated: hc-standard, hc-direct and multiphase (its equipartitions) on
# 16x16 and 16x32 meshes (node ids row-major, routes row-first: the
# Paragon's "row-column" routing), Paragon parameters from Bokhari, Table 1
# (ts = 75 us, tw = 0.011 us/B), one-port nodes, th = 0. For each block
# size: the simulated time over the cost model's contention-free time (the
# "predicted" curves of the paper, which assume a hypercube), in barrier
# and in async mode with wormhole routing, and in barrier mode with virtual
# cut-through ("vct"), and the busiest link at the largest size.
#
# Usage: bash bench/sim_paragon.sh [path/to/xchg]
# Writes bench/results/sim_paragon.txt (and prints it).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
X="${1:-$HERE/../build/xchg}"
OUT="$HERE/results/sim_paragon.txt"
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "sim_paragon: no xchg binary at $X" >&2; exit 2; }
SIZES="8 64 512 4096 32768"

declare -A SIM PRED
# slowdown T A M MODE: sets SLOW to the simulated time over the predicted
# one, and keeps both times (barrier mode) in SIM and PRED.
slowdown() {
    local j
    local mode=$4 routing=wormhole
    [ "$mode" = vct ] && { mode=barrier; routing=vct; }
    j=$("$X" sim --topo "$1" --alg "$2" --m "$3" --mode "$mode" --routing "$routing" \
        --machine paragon --json)
    if [ "$4" = barrier ]; then
        SIM[$1/$2/$3]=$(grep -o '"time":[0-9.e+-]*' <<<"$j" | cut -d: -f2)
        PRED[$1/$2/$3]=$(grep -o '"predicted":[0-9.e+-]*' <<<"$j" | cut -d: -f2)
    fi
    SLOW=$(grep -o '"slowdown":[0-9.e+-]*' <<<"$j" | cut -d: -f2)
}

# winners T ALGS...: per size, the fastest by the model and by the
# simulation (barrier mode), with their times.
winners() {
    local topo=$1 m a best_p best_s
    shift
    printf "# %-9s %-22s %12s   %-22s %12s\n" Size "model's fastest" "model(us)" \
        "simulation's fastest" "simulated(us)"
    for m in $SIZES; do
        best_p="" best_s=""
        for a in "$@"; do
            if [ -z "$best_p" ] || awk -v x="${PRED[$topo/$a/$m]}" -v y="${PRED[$topo/$best_p/$m]}" 'BEGIN { exit !(x < y) }'; then best_p=$a; fi
            if [ -z "$best_s" ] || awk -v x="${SIM[$topo/$a/$m]}" -v y="${SIM[$topo/$best_s/$m]}" 'BEGIN { exit !(x < y) }'; then best_s=$a; fi
        done
        printf "  %-9s %-22s %12.1f   %-22s %12.1f\n" "${m}B" "$best_p" "${PRED[$topo/$best_p/$m]}" \
            "$best_s" "${SIM[$topo/$best_s/$m]}"
    done
}

# busiest T A M: the busiest link and its share of the run at block size M.
busiest() {
    "$X" sim --topo "$1" --alg "$2" --m "$3" --machine paragon --json | node -e '
const o = JSON.parse(require("fs").readFileSync(0, "utf8"));
const l = o.busiest_links[0];
console.log(l ? `${l.from}->${l.to} (dim ${l.dim}${l.dir > 0 ? "+" : "-"}, ${l.messages} msgs, busy ${(100 * l.busy / o.time).toFixed(0)}% of the run)` : "-");'
}

{
    echo "# seed 002 on the Paragon's mesh, simulated: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "# slowdown = simulated time / cost model's contention-free time (Table 1: ts = 75 us,"
    echo "# tw = 0.011 us/B; one-port nodes; th = 0). Modes: barrier and async steps with"
    echo "# wormhole routing (the whole path held); vct: barrier steps, virtual cut-through"
    for topo in mesh:16x16 mesh:16x32; do
        case $topo in
        mesh:16x16) algs="hc-standard multiphase:2,2,2,2 multiphase:2,3,3 multiphase:4,4 hc-direct" ;;
        *) algs="hc-standard multiphase:2,2,2,3 multiphase:3,3,3 multiphase:4,5 hc-direct" ;;
        esac
        echo "#"
        echo "# $topo ($(echo "$topo" | awk -F'[:x]' '{ print $2 * $3 }') nodes)"
        printf "# %-20s %-8s" Algorithm Mode
        for m in $SIZES; do printf " %9s" "${m}B"; done
        printf "  %s\n" "busiest link at 32768 B (barrier)"
        for alg in $algs; do
            for mode in barrier async vct; do
                printf "  %-20s %-8s" "$alg" "$mode"
                for m in $SIZES; do
                    slowdown "$topo" "$alg" "$m" "$mode"
                    printf " %9.3f" "$SLOW"
                done
                if [ "$mode" = barrier ]; then printf "  %s\n" "$(busiest "$topo" "$alg" 32768)"; else echo; fi
            done
        done
        winners "$topo" $algs
    done
} | tee "$OUT"
