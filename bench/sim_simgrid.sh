#!/usr/bin/env bash
# sim_simgrid.sh - xchg's simulator against SimGrid's SMPI on the same tori
# (docs/simulator.md, "Cross-check against SimGrid").
#
# SMPI runs a real MPI program (bench/smpi_alltoall.c, built with smpicc)
# on a TORUS platform (scripts/simgrid-platform.sh) with its own
# MPI_Alltoall algorithms: "pair" (step k: rank i exchanges with i XOR k,
# which is xchg's pairwise when p is a power of two) and "bruck" (radix 2,
# xchg's bruck). xchg sim runs the same algorithm on the same torus with
# the same link bandwidth and per-hop latency (tw = 1/bandwidth, th =
# latency, ts = 0), in async mode, as MPI runs. SimGrid is set to its plain
# flow model (network/model:CM02: a route's latency is the sum of its links'
# latencies, flows share a link's bandwidth max-min fairly, no correction
# factors) with no reverse traffic, and computation is not timed.
#
# Tables: (1) a contention-free case, where both models must agree;
# (2) pairwise and Bruck on 16x16 and 32x32 tori over block sizes, both
# simulated times and their ratio; (3) wall time of the two simulators on
# pairwise on a 32x32 torus (1,047,552 messages) and their ratio.
#
# Usage: bash bench/sim_simgrid.sh [path/to/xchg]
# Writes bench/results/sim_simgrid.txt (and prints it). Takes about
# 10 minutes here; SMPI's 32x32 runs need about 2.5 GiB each.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT="$HERE/.."
X="${1:-$ROOT/build/xchg}"
OUT="$HERE/results/sim_simgrid.txt"
BW=1e9    # bytes per second, every link, each way
LAT=1e-7  # seconds per link
TW=$(awk -v b="$BW" 'BEGIN { print 1e6 / b }')   # us per byte
TH=$(awk -v l="$LAT" 'BEGIN { print l * 1e6 }')  # us per hop
mkdir -p "$HERE/results"
[ -x "$X" ] || { echo "sim_simgrid: no xchg binary at $X" >&2; exit 2; }
command -v smpicc >/dev/null 2>&1 && [ -x /usr/bin/time ] || bash "$ROOT/scripts/install-deps.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
smpicc -O2 -o "$TMP/smpi_alltoall" "$HERE/smpi_alltoall.c" 2>"$TMP/cc.log" ||
    { cat "$TMP/cc.log" >&2; echo "sim_simgrid: smpicc failed" >&2; exit 1; }

# smpi SHAPE ALG M: SMPI's simulated time (us) in $smpi_us, its wall time
# (s) in $smpi_wall, its peak memory (MiB) in $smpi_mb.
smpi() {
    local plat
    plat=$(bash "$ROOT/scripts/simgrid-platform.sh" --shape "$1" --bw "$BW" --lat "$LAT" \
        --out "$TMP") || exit 1
    local t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$TMP/rss" smpirun -platform "$plat" -hostfile "${plat%.xml}.hosts" \
        --cfg=smpi/alltoall:"$2" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
        --cfg=smpi/simulate-computation:no "$TMP/smpi_alltoall" "$3" >"$TMP/smpi.out" 2>&1
    local t1=$EPOCHREALTIME
    smpi_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    smpi_mb=$(awk -v k="$(tail -n1 "$TMP/rss")" 'BEGIN { printf "%.0f", k / 1024 }')
    local line
    line=$(grep '^ranks ' "$TMP/smpi.out")
    case "$line" in
    *" bad 0") smpi_us=$(echo "$line" | awk '{ print $6 }') ;;
    *) echo "sim_simgrid: SMPI run failed or delivered wrong blocks: $1 $2 $3" >&2
       tail -n 5 "$TMP/smpi.out" >&2; exit 1 ;;
    esac
}

# xsim SHAPE ALG M ROUTING: xchg's simulated time (us) in $x_us, its wall
# time (s) in $x_wall.
xsim() {
    local t0=$EPOCHREALTIME
    "$X" sim --topo "torus:$1" --alg "$2" --m "$3" --ts 0 --tw "$TW" --th "$TH" --mode async \
        --routing "$4" --json >"$TMP/x.json" || exit 1
    local t1=$EPOCHREALTIME
    x_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    x_us=$(grep -o '"time":[0-9.e+-]*' "$TMP/x.json" | head -n1 | cut -d: -f2)
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

{
echo "# xchg sim against SimGrid $(smpirun -version 2>/dev/null | head -n1 | grep -o '[0-9][0-9.]*' | head -n1) SMPI, $(date -u +%Y-%m-%d)"
echo "# links: $BW bytes/s and $LAT s each way (xchg: tw = $TW us/byte, th = $TH us/hop,"
echo "# ts = 0, async steps, one-port nodes); SMPI: CM02 flow model, no cross traffic."
echo "# Times are simulated microseconds; ratio = xchg / SMPI."
echo
echo "## 1. Contention-free: pairwise on torus:2x2x2x2 (a 4-cube; every step's routes are disjoint)"
echo "# block(B)      SMPI(us)   xchg(us)    ratio"
for m in 64 1024 65536; do
    smpi 2x2x2x2 pair "$m"
    xsim 2x2x2x2 pairwise "$m" wormhole
    printf "  %-9s %11s %10s %8s\n" "$m" "$smpi_us" "$x_us" "$(ratio "$x_us" "$smpi_us")"
done
echo
echo "## 2. Pairwise and Bruck on 16x16 and 32x32 tori"
echo "# torus   algorithm  block(B)    SMPI(us)  wormhole(us)  ratio     vct(us)  ratio"
for shape in 16x16 32x32; do
    if [ "$shape" = 16x16 ]; then sizes="64 1024 16384"; else sizes="64 1024"; fi
    for alg in pairwise bruck; do
        sg=pair
        [ "$alg" = bruck ] && sg=bruck
        for m in $sizes; do
            smpi "$shape" "$sg" "$m"
            [ "$shape/$alg/$m" = 32x32/pairwise/1024 ] && { big_wall=$smpi_wall; big_mb=$smpi_mb; }
            xsim "$shape" "$alg" "$m" wormhole
            w=$x_us
            xsim "$shape" "$alg" "$m" vct
            printf "  %-7s %-9s %8s %12s %12s %7s %12s %7s\n" "$shape" "$alg" "$m" "$smpi_us" \
                "$w" "$(ratio "$w" "$smpi_us")" "$x_us" "$(ratio "$x_us" "$smpi_us")"
        done
    done
done
echo
echo "## 3. Wall time: pairwise on torus:32x32, 1024-byte blocks (1,047,552 messages)"
walls=()
for i in 1 2 3; do
    xsim 32x32 pairwise 1024 wormhole
    walls+=("$x_wall")
done
xw=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
echo "# simulator            wall(s)"
printf "  %-20s %8s   (one run, peak %s MiB)\n" "SimGrid SMPI" "$big_wall" "$big_mb"
printf "  %-20s %8s   (median of 3: %s)\n" "xchg sim" "$xw" "${walls[*]}"
echo "  ratio SMPI / xchg: $(ratio "$big_wall" "$xw") (goal: at least 50)"
} | tee "$OUT"
