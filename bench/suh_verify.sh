#!/usr/bin/env bash
# suh_verify.sh - Suh et al.'s t1, t2 and every t1.x on 2^d x 2^d tori:
#   part 1: `xchg verify` block by block on 4x4 .. 128x128 (all threads),
#           with the wall time of the whole command (generation included);
#   part 2: 256x256 (4.3e9 blocks), counts and contention only, with
#           `xchg verify --messages-only` (routes, one port, no directed link
#           twice in a step; start-ups and volume from the declared sizes);
# and Table 1 of Suh et al. next to the counts (awk, from the formulas).
# Writes bench/results/suh_verify.txt (or $1).
#
# Usage: bench/suh_verify.sh [OUTPUT]
# Environment: BUILD_DIR (default <repo>/build, configured Release and built
# here), DMAX (default 7: 128x128 is the largest block-by-block run).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${BUILD_DIR:-$repo/build}
dmax=${DMAX:-7}
out=${1:-$here/results/suh_verify.txt}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_cli xchg -j2 >/dev/null
xchg=$build/xchg
# checker TOPO ALG: one line "TOPO ALG steps S startups U volume V conflicts C
# port P routes R max_hops H ok 0|1 seconds T" from the message-level check.
checker() {
    "$xchg" verify --topo "$1" --alg "$2" --messages-only --json | node -e '
const o = JSON.parse(require("fs").readFileSync(0, "utf8").trim().split("\n").pop());
console.log([o.topology, o.algorithm, "steps", o.steps, "startups", o.startups, "volume",
  o.volume_blocks, "conflicts", o.link_conflicts, "port", o.port_violations, "routes",
  o.route_failures, "max_hops", o.max_hops, "ok", o.ok ? 1 : 0, "seconds",
  o.seconds.toFixed(3)].join(" "));'
}

mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# Suh et al. Table 1 (start-ups, blocks) for alg on 2^d; "-" where none.
table1() {
    awk -v alg="$1" -v d="$2" 'BEGIN {
        p = 2^(2*d)
        if (alg == "t1" || alg == "t1:paper" || (alg == "t2" && d < 4)) {
            if (d < 4) { s = 2*d; v = d*p }
            else { s = 3*d - 3; v = 9*2^(3*d-4) + (d*d - 5*d + 3)*2^(2*d-1) }
        } else if (alg == "t2") { s = 3*2^(d-2); v = 3*2^(3*d-3) }
        else { x = substr(alg, 4) + 0
               s = 3*2^(d-3) + 3*x + 2 - 2^x; v = 3*2^(3*d+x-4) + (2*x+3)*2^(2*d+x-2) }
        printf "%d %.0f\n", s, v }'
}

algs_for() {
    local d=$1
    echo t1 t1:paper t2
    for ((x = 1; x <= d - 4; x++)); do echo "t1.$x"; done
}

{
    echo "# Suh et al. T1/T2/T1.x on 2^d x 2^d tori"
    echo "# command: BUILD_DIR=$build DMAX=$dmax bench/suh_verify.sh"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -m), $(nproc) online cores," \
         "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
    echo "#"
    echo "# part 1: xchg verify --topo torus:NxN --alg A --max-work 1e11 (every block followed;"
    echo "# Wall(s) = the whole command, generation included; Verify(s) = the verifier's own time)"
    printf "# %-9s %-8s %12s %6s %9s %12s %12s %5s %9s %9s %6s %12s %s\n" Topology Alg Blocks \
        Steps Start-ups Volume Link-volume Conf Verify\(s\) Wall\(s\) Tab1-st Tab1-volume vs-Table-1
} >"$tmp"

for ((d = 2; d <= dmax; d++)); do
    n=$((1 << d))
    for a in $(algs_for "$d"); do
        t0=$(date +%s.%N)
        j=$("$xchg" verify --topo "torus:${n}x${n}" --alg "$a" --max-work 100000000000 --json)
        t1=$(date +%s.%N)
        read -r ts tv < <(table1 "$a" "$d")
        echo "$j" | awk -v topo="${n}x${n}" -v alg="$a" -v t0="$t0" -v t1="$t1" -v ts="$ts" \
            -v tv="$tv" '{
            ok = ($0 ~ /"ok":true/) ? "ok" : "FAILED"
            match($0, /"blocks":[0-9]+/); b = substr($0, RSTART+9, RLENGTH-9)
            match($0, /"steps":[0-9]+/); st = substr($0, RSTART+8, RLENGTH-8)
            match($0, /"startups":[0-9]+/); su = substr($0, RSTART+11, RLENGTH-11)
            match($0, /"volume_blocks":[0-9]+/); v = substr($0, RSTART+16, RLENGTH-16)
            match($0, /"link_volume_blocks":[0-9]+/); lv = substr($0, RSTART+21, RLENGTH-21)
            match($0, /"link_conflicts":[0-9]+/); c = substr($0, RSTART+17, RLENGTH-17)
            match($0, /"seconds":[0-9.e+-]+/); sec = substr($0, RSTART+10, RLENGTH-10)
            same = (su == ts && v == tv) ? "equal" : "differs"
            printf "  %-9s %-8s %12s %6s %9s %12s %12s %5s %9.3f %9.3f %6s %12s %s %s\n", topo, alg,
                b, st, su, v, lv, c, sec, t1 - t0, ts, tv, same, ok }' >>"$tmp"
        if ! echo "$j" | grep -q '"ok":true'; then
            echo "suh_verify: $a on torus:${n}x${n} failed verification" >&2
            cat "$tmp" >&2
            exit 1
        fi
    done
done

{
    echo "#"
    echo "# part 2: torus:256x256, xchg verify --messages-only (routes, one port, link"
    echo "# contention, counts from the declared sizes; no delivery check at this size)"
    printf "# %-9s %-8s %6s %9s %12s %9s %5s %6s %8s %3s %9s %6s %12s %s\n" Topology Alg Steps \
        Start-ups Volume Conflicts Port Routes MaxHops OK Check\(s\) Tab1-st Tab1-volume vs-Table-1
} >>"$tmp"
for a in $(algs_for 8); do
    line=$(checker torus:256x256 "$a")
    read -r ts tv < <(table1 "$a" 8)
    echo "$line" | awk -v ts="$ts" -v tv="$tv" '{
        same = ($6 == ts && $8 == tv) ? "equal" : "differs"
        printf "  %-9s %-8s %6s %9s %12s %9s %5s %6s %8s %3s %9s %6s %12s %s\n", "256x256", $2,
            $4, $6, $8, $10, $12, $14, $16, $18, $20, ts, tv, same }' >>"$tmp"
    case "$line" in *" ok 1 "*) ;; *) echo "suh_verify: $a on 256x256: $line" >&2; exit 1 ;; esac
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)" >>"$tmp"

cp "$tmp" "$out"
cat "$out"
