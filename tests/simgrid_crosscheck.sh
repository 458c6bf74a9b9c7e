#!/usr/bin/env bash
# simgrid_crosscheck.sh - xchg sim against SimGrid's SMPI where the two
# models must agree: pairwise exchange on torus:2x2x2x2 (a 4-cube), whose
# every step is contention-free, so each message takes its route's latency
# plus its bytes over one link's bandwidth in both simulators. SMPI runs a
# real MPI_Alltoall (its "pair" algorithm: i exchanges with i XOR k at step
# k, xchg's pairwise for p = 2^D) on a platform from
# scripts/simgrid-platform.sh. Also checks that script's platforms (tori,
# fat-trees, dragonflies, hosts of several cores) and its refusals.
# bench/sim_simgrid.sh compares the two where they differ (contention).
#
# Usage: bash tests/simgrid_crosscheck.sh path/to/xchg
SUITE=simgrid_crosscheck
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT="$HERE/.."
X="$1"
. "$HERE/lib_cli.sh"
for c in smpicc smpirun; do
    command -v $c >/dev/null 2>&1 ||
        { echo "$SUITE: $c not found; scripts/install-deps.sh installs it (package libsimgrid-dev)" >&2; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PLAT="$ROOT/scripts/simgrid-platform.sh"

# The platform script: what it writes, and what it refuses (exit 2).
plat=$(bash "$PLAT" --shape 2x2x2x2 --bw 1e9 --lat 1e-6 --out "$TMP")
expect "platform path" "$plat" "$TMP/torus-2x2x2x2.xml"
expect "hostfile lines" "$(wc -l <"$TMP/torus-2x2x2x2.hosts")" 16
expect "hostfile order" "$(sed -n '1p;16p' "$TMP/torus-2x2x2x2.hosts" | tr '\n' ' ')" "n0 n15 "
bash "$PLAT" --shape 4x8 --bw 1e9 --lat 0 --out "$TMP" >/dev/null
expect "sizes reversed for SimGrid (fastest first)" \
    "$(grep -o 'topo_parameters="[^"]*"' "$TMP/torus-4x8.xml")" 'topo_parameters="8,4"'
expect "a loopback link for messages to oneself" \
    "$(grep -c 'loopback_bw="1e15Bps" loopback_lat="0s"' "$TMP/torus-4x8.xml")" 1
refused() { # PATTERN ARGS...: exit 2 with PATTERN on stderr
    local pat=$1 rc
    shift
    bash "$PLAT" "$@" --out "$TMP" >/dev/null 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$TMP/err"; then ok; else
        bad "simgrid-platform.sh $*: status $rc, stderr: $(head -c 200 "$TMP/err")"
    fi
}
refused "is not a torus shape" --shape 16 --bw 1e9 --lat 1e-6
refused "is not a torus shape" --shape 4x-4 --bw 1e9 --lat 1e-6
refused "accepted: sizes from 2" --shape 4x1 --bw 1e9 --lat 1e-6
refused "over 65536 nodes" --shape 256x257 --bw 1e9 --lat 1e-6
refused "accepted: 2 to 8" --shape 2x2x2x2x2x2x2x2x2 --bw 1e9 --lat 1e-6
refused "is not a bandwidth" --shape 4x4 --bw 0 --lat 1e-6
refused "is not a bandwidth" --shape 4x4 --bw fast --lat 1e-6
refused "is not a latency" --shape 4x4 --bw 1e9 --lat -1
refused "is required" --shape 4x4 --bw 1e9
refused "unknown argument" --shape 4x4 --bw 1e9 --lat 0 --np 4
# Fat-trees and dragonflies, hosts of several cores, block and cyclic.
ft=$(bash "$PLAT" --kind fat-tree --shape '2;4,4;1,4;1,2' --bw 25e9 --lat 1e-6 --cores 4 \
    --host-bw 1e11 --host-lat 1e-7 --out "$TMP")
expect "fat-tree path" "$ft" "$TMP/fat-tree-2_4-4_1-4_1-2-c4.xml"
expect "fat-tree: SimGrid's parameters as given" \
    "$(grep -o 'topology="[A-Z_]*" topo_parameters="[^"]*"' "$ft")" 'topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,2"'
expect "fat-tree: cores and the links within a host" \
    "$(grep -c 'core="4".*' "$ft") $(grep -c 'loopback_bw="1e11Bps" loopback_lat="1e-7s"' "$ft")" "1 1"
expect "fat-tree hostfile: 16 hosts, 4 ranks each, block" \
    "$(wc -l <"${ft%.xml}.hosts") $(sed -n '1p;16p' "${ft%.xml}.hosts" | tr '\n' ' ')" "16 n0:4 n15:4 "
df=$(bash "$PLAT" --kind dragonfly --shape '2,1;2,1;2,1;2' --bw 25e9 --lat 1e-6 --cores 2 \
    --host-bw 1e11 --host-lat 0 --placement cyclic --out "$TMP")
expect "dragonfly path" "$df" "$TMP/dragonfly-2-1_2-1_2-1_2-c2-cyclic.xml"
expect "dragonfly: 16 hosts" "$(grep -o 'radical="[^"]*"' "$df")" 'radical="0-15"'
expect "dragonfly hostfile, cyclic: the hosts twice over" \
    "$(wc -l <"${df%.xml}.hosts") $(sed -n '1p;16p;17p' "${df%.xml}.hosts" | tr '\n' ' ')" "32 n0 n15 n0 "
refused "is not a network" --kind hypercube --shape 4x4 --bw 1e9 --lat 0
refused "is not a fat-tree" --kind fat-tree --shape 4x4 --bw 1e9 --lat 0
refused "accepted: 2 (one a level)" --kind fat-tree --shape '2;4;1,4;1,1' --bw 1e9 --lat 0
refused "out of range" --kind fat-tree --shape '2;4,0;1,4;1,1' --bw 1e9 --lat 0
refused "over 65536 hosts" --kind fat-tree --shape '2;512,512;1,4;1,1' --bw 1e9 --lat 0
refused "is not a dragonfly" --kind dragonfly --shape '2,1;2,1;2' --bw 1e9 --lat 0
refused "needs --host-bw and --host-lat" --shape 4x4 --bw 1e9 --lat 0 --cores 4
refused "is not a core count" --shape 4x4 --bw 1e9 --lat 0 --cores 0
refused "is not a bandwidth" --shape 4x4 --bw 1e9 --lat 0 --cores 2 --host-bw x --host-lat 0
refused "is not a placement" --shape 4x4 --bw 1e9 --lat 0 --cores 2 --host-bw 1e9 --host-lat 0 --placement round
refused "go with --cores above 1" --shape 4x4 --bw 1e9 --lat 0 --placement cyclic

# The two simulators on the contention-free case, three block sizes.
smpicc -O2 -o "$TMP/smpi_alltoall" "$ROOT/bench/smpi_alltoall.c" 2>"$TMP/cc.log" ||
    { cat "$TMP/cc.log"; bad "smpicc could not build bench/smpi_alltoall.c"; finish; exit 1; }
for m in 64 4096 65536; do
    smpirun -platform "$plat" -hostfile "${plat%.xml}.hosts" --cfg=smpi/alltoall:pair \
        --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
        --cfg=smpi/simulate-computation:no "$TMP/smpi_alltoall" "$m" >"$TMP/smpi.out" 2>&1
    line=$(grep '^ranks ' "$TMP/smpi.out")
    expect "SMPI m=$m: every block delivered" "${line##* bad }" 0
    smpi_us=$(echo "$line" | awk '{ print $6 }')
    x_us=$("$X" sim --topo torus:2x2x2x2 --alg pairwise --m "$m" --ts 0 --tw 0.001 --th 1 \
        --mode async --json | grep -o '"time":[0-9.e+-]*' | cut -d: -f2)
    # By hand: 15 steps of m bytes at 1 byte/ns, and 32 hops of 1 us
    # (step k crosses popcount(k) links).
    want=$(awk -v m="$m" 'BEGIN { printf "%.6f", 32 + 15 * m * 0.001 }')
    expect "xchg sim m=$m: 32 hops + 15 messages" "$(awk -v x="$x_us" 'BEGIN { printf "%.6f", x }')" "$want"
    # SMPI adds about 16 ns of its own per step of the exchange (the same at
    # every block size): allow 0.05 us per step, and nothing else.
    if awk -v a="$smpi_us" -v b="$x_us" 'BEGIN { d = a - b; exit !(d >= 0 && d <= 16 * 0.05) }'; then
        ok
    else
        bad "m=$m: SMPI $smpi_us us, xchg sim $x_us us: more apart than SMPI's own overhead"
    fi
done
finish
