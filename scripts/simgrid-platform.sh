#!/usr/bin/env bash
# simgrid-platform.sh - write a SimGrid platform and its hostfile, for
# running MPI programs under SimGrid's smpirun on networks we do not have:
# a torus (bench/sim_simgrid.sh; docs/simulator.md, "Cross-check against
# SimGrid"), a fat-tree or a dragonfly, with hosts of one core or of many
# (clusters of many-core nodes).
#
# Usage: bash scripts/simgrid-platform.sh [--kind torus|fat-tree|dragonfly]
#            --shape SHAPE --bw BYTES_PER_S --lat SECONDS
#            [--cores C --host-bw BYTES_PER_S --host-lat SECONDS
#             [--placement block|cyclic]] [--out DIR]
#        bash scripts/simgrid-platform.sh --help   (this text)
#   --kind   torus (the default), fat-tree or dragonfly: SimGrid's TORUS,
#            FAT_TREE and DRAGONFLY clusters
#   --shape  torus: the torus as xchg writes it (torus:16x32 is --shape
#            16x32): 2 to 8 sizes, each from 2;
#            fat-tree: SimGrid's FAT_TREE parameters LEVELS;DOWN;UP;PARALLEL,
#            each of DOWN, UP and PARALLEL a list of LEVELS counts from 1,
#            lowest level first ("2;4,4;1,4;1,1": 4 switches of 4 hosts
#            under 4 top switches, 16 hosts); the hosts are the product of
#            DOWN;
#            dragonfly: SimGrid's DRAGONFLY parameters G,GL;C,CL;R,RL;N:
#            G groups joined by GL links, C chassis a group joined by CL,
#            R routers a chassis joined by RL, N hosts a router
#            ("2,1;2,1;2,1;2": 16 hosts); the hosts are G*C*R*N.
#            At most 65536 hosts in all.
#   --bw     bandwidth of every link, each direction, in bytes per second
#            (a number such as 1e9)
#   --lat    latency of every link, in seconds (such as 1e-6; 0 allowed)
#   --cores  cores a host (default 1), each for one rank. With more than
#            one, give --host-bw and --host-lat: the bandwidth and latency
#            of a message between two ranks of one host (SimGrid's loopback
#            link). With one, a message to oneself costs nothing. A
#            torus of many-core hosts is a torus of nodes (--shape 4x4x4
#            --cores 16: 1,024 ranks on 64 nodes; bench/smpi_cluster.sh).
#   --placement  where rank r runs, with --cores C: block (the default;
#            ranks C*h to C*h+C-1 on host h) or cyclic (rank r on host
#            r mod H, for H hosts)
#   --out    where to write (default: the current directory)
# Writes DIR/NAME.xml and DIR/NAME.hosts and prints the platform's path:
# NAME is KIND-SHAPE (torus-8x8; a fat-tree's or dragonfly's shape with ;
# as _ and , as -), then -cC with more than one core, and -cyclic. Run
# H*C ranks on it (smpirun -np). Exit 2 with a message on a bad argument.
#
# How the numberings meet on a torus: xchg numbers torus nodes row-major,
# the first coordinate slowest; SimGrid's TORUS cluster takes its first
# dimension as the fastest. The sizes are therefore written in reverse
# order, so that host nK is xchg's node K, the hostfile lists n0, n1, ...
# in that order, and with one core rank K of smpirun runs on node K. Both
# route dimension by dimension, the fastest-varying first, the shorter way
# round. Links are full duplex (SPLITDUPLEX: one link each way, each with
# the whole bandwidth), as in xchg's model. With one core, a message from
# a host to itself (some of SMPI's own MPI_Alltoall algorithms send a rank
# its own block) takes a loopback link that costs nothing, as a local copy
# costs nothing in xchg's simulator.
set -euo pipefail

accepted="--kind, --shape, --bw, --lat, --cores, --host-bw, --host-lat, --placement, --out"
usage() {
    echo "simgrid-platform: $1" >&2
    echo "usage: bash scripts/simgrid-platform.sh [--kind torus|fat-tree|dragonfly] --shape SHAPE" \
        "--bw BYTES_PER_S --lat SECONDS [--cores C --host-bw BYTES_PER_S --host-lat SECONDS" \
        "[--placement block|cyclic]] [--out DIR]" >&2
    exit 2
}

kind=torus shape='' bw='' lat='' cores=1 host_bw='' host_lat='' placement=block out=.
while [ $# -gt 0 ]; do
    case "$1" in
    --kind | --shape | --bw | --lat | --cores | --host-bw | --host-lat | --placement | --out)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case "$1" in
        --kind) kind=$2 ;;
        --shape) shape=$2 ;;
        --bw) bw=$2 ;;
        --lat) lat=$2 ;;
        --cores) cores=$2 ;;
        --host-bw) host_bw=$2 ;;
        --host-lat) host_lat=$2 ;;
        --placement) placement=$2 ;;
        --out) out=$2 ;;
        esac
        shift 2
        ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'; accepted: $accepted, --help" ;;
    esac
done
case $kind in
torus | fat-tree | dragonfly) ;;
*) usage "--kind '$kind' is not a network; accepted: torus, fat-tree, dragonfly" ;;
esac
[ -n "$shape" ] || usage "--shape is required (such as 16x16)"
[ -n "$bw" ] || usage "--bw is required (bytes per second, such as 1e9)"
[ -n "$lat" ] || usage "--lat is required (seconds, such as 1e-6)"

number='^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
bandwidth() { # FLAG VALUE
    [[ $2 =~ $number ]] && awk -v v="$2" 'BEGIN { exit !(v > 0 && v < 1e18) }' ||
        usage "$1 '$2' is not a bandwidth; accepted: a number of bytes per second above 0 (such as 1e9)"
}
latency() { # FLAG VALUE
    [[ $2 =~ $number ]] && awk -v v="$2" 'BEGIN { exit !(v >= 0 && v < 1e6) }' ||
        usage "$1 '$2' is not a latency; accepted: a number of seconds from 0 (such as 1e-6)"
}
bandwidth --bw "$bw"
latency --lat "$lat"
[[ $cores =~ ^[1-9][0-9]{0,3}$ ]] && [ "$cores" -le 1024 ] ||
    usage "--cores '$cores' is not a core count; accepted: 1 to 1024"
case $placement in
block | cyclic) ;;
*) usage "--placement '$placement' is not a placement; accepted: block, cyclic" ;;
esac
if [ "$cores" -gt 1 ]; then
    [ -n "$host_bw" ] && [ -n "$host_lat" ] ||
        usage "--cores $cores needs --host-bw and --host-lat (a message between two ranks of one host)"
    bandwidth --host-bw "$host_bw"
    latency --host-lat "$host_lat"
else
    [ -z "$host_bw$host_lat" ] && [ "$placement" = block ] ||
        usage "--host-bw, --host-lat and --placement go with --cores above 1"
    host_bw=1e15 host_lat=0 # a message to oneself costs nothing
fi

# counts LIST N WHAT: LIST is N comma-separated counts from 1; their product
# in $product
counts() {
    local IFS=, c
    read -r -a c <<<"$1"
    [ "${#c[@]}" -eq "$2" ] || usage "--shape '$shape': $3 has ${#c[@]} counts; accepted: $2 (one a level)"
    product=1
    for x in "${c[@]}"; do
        [[ $x =~ ^[1-9][0-9]{0,4}$ ]] || usage "--shape '$shape': $3 count '$x' is out of range; accepted: 1 to 99999"
        product=$((product * 10#$x))
        [ "$product" -le 65536 ] || usage "--shape '$shape' has over 65536 hosts; accepted: at most 65536"
    done
}
case $kind in
torus)
    [[ $shape =~ ^[0-9]+(x[0-9]+)+$ ]] ||
        usage "--shape '$shape' is not a torus shape; accepted: 2 to 8 sizes joined by x (such as 16x16 or 8x8x8)"
    IFS=x read -r -a sizes <<<"$shape"
    [ ${#sizes[@]} -le 8 ] || usage "--shape '$shape' has ${#sizes[@]} sizes; accepted: 2 to 8"
    hosts=1
    for s in "${sizes[@]}"; do
        [ ${#s} -le 6 ] && [ "$((10#$s))" -ge 2 ] ||
            usage "--shape '$shape': size '$s' is out of range; accepted: sizes from 2"
        hosts=$((hosts * 10#$s))
        [ "$hosts" -le 65536 ] || usage "--shape '$shape' has over 65536 nodes; accepted: at most 65536"
    done
    # SimGrid's dimension order: the fastest-varying (xchg's last size) first.
    params=''
    for ((i = ${#sizes[@]} - 1; i >= 0; i--)); do
        params+="$((10#${sizes[i]})),"
    done
    params=${params%,}
    topology=TORUS
    ;;
fat-tree)
    re='^([1-9]);([0-9,]+);([0-9,]+);([0-9,]+)$'
    [[ $shape =~ $re ]] ||
        usage "--shape '$shape' is not a fat-tree; accepted: LEVELS;DOWN;UP;PARALLEL, each list LEVELS counts (such as '2;4,4;1,4;1,1')"
    levels=${BASH_REMATCH[1]} down=${BASH_REMATCH[2]} up=${BASH_REMATCH[3]} par=${BASH_REMATCH[4]}
    counts "$up" "$levels" "UP"
    counts "$par" "$levels" "PARALLEL"
    counts "$down" "$levels" "DOWN"
    hosts=$product params=$shape topology=FAT_TREE
    ;;
dragonfly)
    re='^([0-9]+),([0-9]+);([0-9]+),([0-9]+);([0-9]+),([0-9]+);([0-9]+)$'
    [[ $shape =~ $re ]] ||
        usage "--shape '$shape' is not a dragonfly; accepted: G,GL;C,CL;R,RL;N (such as '2,1;2,1;2,1;2')"
    m=("${BASH_REMATCH[@]}") # counts matches patterns of its own
    counts "${m[2]},${m[4]},${m[6]}" 3 "a link count (GL, CL, RL)"
    counts "${m[1]},${m[3]},${m[5]},${m[7]}" 4 "G, C, R, N"
    hosts=$product params=$shape topology=DRAGONFLY
    ;;
esac

name="$kind-$(tr ';,' '_-' <<<"$shape")"
[ "$cores" -gt 1 ] && name+="-c$cores"
[ "$placement" = cyclic ] && name+="-cyclic"
mkdir -p "$out" || usage "cannot make the output folder '$out'"
plat="$out/$name.xml"
if [ "$cores" -gt 1 ]; then
    what="$hosts hosts of $cores cores, ranks placed $placement"
    within="; $host_bw bytes/s and $host_lat s within a host"
else
    what="$hosts hosts" within=''
fi
cat >"$plat" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- A $kind $shape for xchg (scripts/simgrid-platform.sh): $what,
     links of $bw bytes/s and $lat s each way$within. -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="$kind" prefix="n" radical="0-$((hosts - 1))" suffix="" speed="1Gf"
             core="$cores" bw="${bw}Bps" lat="${lat}s" sharing_policy="SPLITDUPLEX"
             loopback_bw="${host_bw}Bps" loopback_lat="${host_lat}s"
             topology="$topology" topo_parameters="$params"/>
  </zone>
</platform>
EOF
if [ "$cores" -eq 1 ]; then
    seq -f 'n%.0f' 0 $((hosts - 1)) >"$out/$name.hosts"
elif [ "$placement" = block ]; then
    seq -f "n%.0f:$cores" 0 $((hosts - 1)) >"$out/$name.hosts"
else
    for ((k = 0; k < cores; k++)); do seq -f 'n%.0f' 0 $((hosts - 1)); done >"$out/$name.hosts"
fi
echo "$plat"
