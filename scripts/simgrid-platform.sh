#!/usr/bin/env bash
# simgrid-platform.sh - write a SimGrid platform of a torus and its hostfile,
# for running MPI programs under SimGrid's smpirun on tori we do not have
# (bench/sim_simgrid.sh; docs/simulator.md, "Cross-check against SimGrid").
#
# Usage: bash scripts/simgrid-platform.sh --shape AxB[xC...] --bw BYTES_PER_S
#            --lat SECONDS [--out DIR]
#   --shape  the torus as xchg writes it (torus:16x32 is --shape 16x32):
#            2 to 8 sizes, each from 2, at most 65536 nodes in all
#   --bw     bandwidth of every link, each direction, in bytes per second
#            (a number such as 1e9)
#   --lat    latency of every link, in seconds (such as 1e-6; 0 allowed)
#   --out    where to write (default: the current directory)
# Writes DIR/torus-SHAPE.xml and DIR/torus-SHAPE.hosts and prints the
# platform's path. Exit 2 with a message on a bad argument.
#
# How the two numberings meet: xchg numbers torus nodes row-major, the first
# coordinate slowest; SimGrid's TORUS cluster takes its first dimension as
# the fastest. The sizes are therefore written in reverse order, so that
# host nK is xchg's node K, the hostfile lists n0, n1, ... in that order,
# and rank K of smpirun runs on node K. Both route dimension by dimension,
# the fastest-varying first, the shorter way round. Links are full duplex
# (SPLITDUPLEX: one link each way, each with the whole bandwidth), as in
# xchg's model. A message from a host to itself (some of SMPI's own
# MPI_Alltoall algorithms send a rank its own block) takes a loopback link
# that costs nothing, as a local copy costs nothing in xchg's simulator.
set -euo pipefail

usage() {
    echo "simgrid-platform: $1" >&2
    echo "usage: bash scripts/simgrid-platform.sh --shape AxB[xC...] --bw BYTES_PER_S --lat SECONDS [--out DIR]" >&2
    exit 2
}

shape='' bw='' lat='' out=.
while [ $# -gt 0 ]; do
    case "$1" in
    --shape | --bw | --lat | --out)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case "$1" in
        --shape) shape=$2 ;;
        --bw) bw=$2 ;;
        --lat) lat=$2 ;;
        --out) out=$2 ;;
        esac
        shift 2
        ;;
    *) usage "unknown argument '$1'; accepted: --shape, --bw, --lat, --out" ;;
    esac
done
[ -n "$shape" ] || usage "--shape is required (such as 16x16)"
[ -n "$bw" ] || usage "--bw is required (bytes per second, such as 1e9)"
[ -n "$lat" ] || usage "--lat is required (seconds, such as 1e-6)"

number='^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
[[ $bw =~ $number ]] && awk -v v="$bw" 'BEGIN { exit !(v > 0 && v < 1e18) }' ||
    usage "--bw '$bw' is not a bandwidth; accepted: a number of bytes per second above 0 (such as 1e9)"
[[ $lat =~ $number ]] && awk -v v="$lat" 'BEGIN { exit !(v >= 0 && v < 1e6) }' ||
    usage "--lat '$lat' is not a latency; accepted: a number of seconds from 0 (such as 1e-6)"

[[ $shape =~ ^[0-9]+(x[0-9]+)+$ ]] ||
    usage "--shape '$shape' is not a torus shape; accepted: 2 to 8 sizes joined by x (such as 16x16 or 8x8x8)"
IFS=x read -r -a sizes <<<"$shape"
[ ${#sizes[@]} -le 8 ] || usage "--shape '$shape' has ${#sizes[@]} sizes; accepted: 2 to 8"
nodes=1
for s in "${sizes[@]}"; do
    [ ${#s} -le 6 ] && [ "$((10#$s))" -ge 2 ] ||
        usage "--shape '$shape': size '$s' is out of range; accepted: sizes from 2"
    nodes=$((nodes * 10#$s))
    [ "$nodes" -le 65536 ] || usage "--shape '$shape' has over 65536 nodes; accepted: at most 65536"
done

# SimGrid's dimension order: the fastest-varying (xchg's last size) first.
params=''
for ((i = ${#sizes[@]} - 1; i >= 0; i--)); do
    params+="$((10#${sizes[i]})),"
done
params=${params%,}

mkdir -p "$out" || usage "cannot make the output folder '$out'"
plat="$out/torus-$shape.xml"
cat >"$plat" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- A torus $shape for xchg (scripts/simgrid-platform.sh): $nodes hosts,
     links of $bw bytes/s and $lat s each way. -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="torus" prefix="n" radical="0-$((nodes - 1))" suffix="" speed="1Gf"
             bw="${bw}Bps" lat="${lat}s" sharing_policy="SPLITDUPLEX"
             loopback_bw="1e15Bps" loopback_lat="0s"
             topology="TORUS" topo_parameters="$params"/>
  </zone>
</platform>
EOF
seq -f 'n%.0f' 0 $((nodes - 1)) >"$out/torus-$shape.hosts"
echo "$plat"
