#!/usr/bin/env bash
# smpi_cluster.sh - the node-aware exchange on simulated clusters of
# 16-core nodes (issue 34, "Simulated clusters"; docs/clusters.md, "How
# the tables were made"): xchg-bench built with smpicc (build-smpi) under
# smpirun, 256 and 1,024 ranks, on a torus of nodes (Fugaku's Tofu-D links),
# a two-level fat-tree (InfiniBand NDR) and a dragonfly (HPE Slingshot),
# against SimGrid's own MPI_Alltoall.
#
# What runs, per platform, block size and way of counting copies:
#   ompi, mpich  SimGrid's smpi/coll-selector:ompi and :mpich: the
#                algorithm Open MPI and MPICH would choose
#   sg:NAME      each of SimGrid's own alltoall algorithms (smpi/alltoall:NAME)
#   auto         xchg flat, over every rank (XCHG's auto on complete:p)
#   VARIANTS     xchg's node-aware variants, each an XCHG_ALG spec given to
#                xchg-bench --alg (leader, leader:bruck, pairs, leaders:4,
#                leader:t2, ...); SPEC@nodes runs it with xchg-bench --topo set
#                to the platform's torus of nodes (torus platforms only;
#                elsewhere it is not run), SPEC@TOPO with --topo TOPO.
# Three ways to count the executor's copies:
#   free     smpi/simulate-computation:no: messages only; deterministic
#   counted  as free, and each copying pass of the executor charges itself
#            C ns a copy and T ns a byte of simulated time
#            (XCHG_SMPI_COPY_COST=C,T: src/mpi/charge.c), the figures this
#            machine's copies take (bench/results/copy_cost.txt, made by
#            bench/copy_cost.sh); deterministic. SimGrid's own collectives
#            are the same run as free (their copies are never charged).
#   charged  simulate-computation:yes, host-speed = the hosts' speed: this
#            machine's CPU time between MPI calls (xchg's packing) is
#            charged; the median of RUNS runs. Not reproducible on a
#            loaded machine (docs/clusters.md), kept to show why.
#            SimGrid never charges the copies inside its own collectives.
# Each figure is xchg-bench's Avg Latency (us, simulated): each rank's time
# of one call after one untimed call (the plan made, as osu_alltoall's
# warm-up does), averaged over the ranks. xchg's auto prices each platform
# by a machine file of its figures (machine_file, below: XCHG_MACHINE_FILE). Where the ranks' buffers fit
# (p*p*m <= 2^30 bytes) every exchange is validated (-c); above that they
# are SimGrid's shared malloc (smpi/auto-shared-malloc-thresh: the data is
# garbage, the messages the same) and not checked. The network model is
# SimGrid's plain CM02 without cross traffic (as tests/smpi), so the links
# are the figures below, not scaled by SMPI's default calibration factors.
#
# Usage: bash bench/smpi_cluster.sh [--mode quick|full] [--ranks 256|1024|all]
#            [--platforms LIST] [--sizes LIST] [--sizes-1024 LIST] [--variants LIST]
#            [--sg-algs LIST] [--selectors LIST] [--copies LIST] [--runs N] [--limit S]
#            [--out FILE] [--fresh] [--dry-run]
#   or set VARIANTS, SIZES, SIZES_1024, SG_ALGS, RUNS, LIMIT in the environment;
#   XCHG_BENCH: an smpicc-built xchg-bench other than build-smpi's.
#   --mode quick (default): 256 ranks at 8, 64, 512 and 4096 B, 1,024 ranks
#          at 8 and 64 B; the two selectors, SimGrid's bruck and pair, xchg
#          auto and VARIANTS; copies free and charged once. full: 8 B to
#          64 KiB in eight sizes on every platform, every one of SimGrid's
#          algorithms, charged RUNS=3 times.
#   --platforms  names from the table below (default: all of --ranks)
#   --sizes, --sizes-1024  block sizes (bytes) at 256 and at 1,024 ranks
#   --limit S    seconds one smpirun may take (default 600 quick, 1800 full);
#          a run stopped there shows as >Ss, one stopped because the machine
#          ran short of memory (under 3 GiB left) as 'mem'.
#   --copies     free, counted, charged, a comma list of them, or both
#          (free,charged; the default)
#   --selectors  which of ompi and mpich run (default both; none: neither,
#          for sizes where they cannot finish: their columns then show '-')
#   --dry-run    print how many runs, and exit.
# Every run's figure goes to bench/results/smpi_cluster.runs, keyed by its
# platform, figures and settings (and xchg-bench's checksum for xchg's
# runs), with its wall time and memory; a rerun takes what is there
# (--fresh: run everything again), so a stopped matrix resumes and a
# rebuilt executor reruns only xchg's columns.
# Writes bench/results/smpi_cluster.txt (--out FILE elsewhere). One
# smpirun at a time: each is one process simulating every rank.
# How long, on this 2-core machine: a 256-rank run takes 1-10 s; at 1,024
# ranks xchg's runs and SimGrid's bruck 3-30 s, the selectors 30-60 s at 8
# and 64 B, and SimGrid's basic_linear (ompi's choice from 256 B to 3 KB)
# over 10 minutes from 1 KiB. QUICK takes about 50 minutes by those
# figures (its 1,024-rank part with copies free took 18 minutes; charged
# doubles that); FULL is some 4,700 runs, days here, and the leader
# variants as built at 919d103 need 16 GiB at 512 B on 1,024 ranks
# (docs/clusters.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BENCH=smpi_cluster
. "$HERE/lib_smpi_cluster.sh"
SB=${XCHG_BENCH:-$ROOT/build-smpi/xchg-bench} # XCHG_BENCH: another smpicc-built xchg-bench
[[ $SB == /* ]] || SB=$PWD/$SB
RUNSFILE="$HERE/results/smpi_cluster.runs"

usage() {
    echo "smpi_cluster: $1" >&2
    echo "usage: bash bench/smpi_cluster.sh [--mode quick|full] [--ranks 256|1024|all] [--platforms LIST]" \
        "[--sizes LIST] [--sizes-1024 LIST] [--variants LIST] [--sg-algs LIST] [--selectors LIST]" \
        "[--copies LIST] [--runs N] [--limit S] [--out FILE] [--fresh] [--dry-run]" >&2
    exit 2
}

# The platforms: NAME RANKS KIND SHAPE LINKS NODE-TORUS (- where not a torus)
# HOPS (the links of a typical route between two nodes: xchg's machine
# file for the platform takes ts = HOPS x a link's latency, below).
# 16 cores a host, ranks placed block-wise.
PLATFORMS="torus-4x4 256 torus 4x4 tofu-d torus:4x4 2
torus-8x8 1024 torus 8x8 tofu-d torus:8x8 4
torus-4x4x4 1024 torus 4x4x4 tofu-d torus:4x4x4 3
fat-tree-16 256 fat-tree 2;4,4;1,4;1,1 ib-ndr - 4
fat-tree-64 1024 fat-tree 2;8,8;1,8;1,1 ib-ndr - 4
dragonfly-16 256 dragonfly 2,1;2,1;2,1;2 slingshot - 4
dragonfly-64 1024 dragonfly 4,2;2,1;4,1;2 slingshot - 5"
CORES=16
# The links of each machine (bytes/s, s per link, each way) and where the
# figures come from (docs/clusters.md says more):
#   tofu-d     Fugaku's Tofu interconnect D: 6.8 GB/s a link (28 Gb/s x 2
#              lanes), 0.49 us one-way 8-byte Put between neighbours (Ajima
#              et al., "The Tofu Interconnect D", IEEE Cluster 2018), taken
#              as every link's latency (a route of h links: h x 0.49 us)
#   ib-ndr     InfiniBand NDR: 400 Gb/s = 50 GB/s a port (NVIDIA Quantum-2 /
#              ConnectX-7); 0.25 us a link, so that the 4 links between two
#              leaf switches make 1 us (our choice: switch port-to-port is
#              under 0.6 us; an MPI ping-pong across the tree about 1 us)
#   slingshot  HPE Slingshot-11: 200 Gb/s = 25 GB/s a port (ALCF, Aurora's
#              interconnect; De Sensi et al., SC20); 0.3 us a link (our
#              choice: routes of 2 to 7 links, 0.6 to 2.1 us)
#   in a host  8.75 GB/s and 0.14 us, this machine's MPI ping-pong through
#              shared memory (bench/results/probe-machine.txt: tw_eager,
#              ts_eager), as the charged copies are this machine's: SimGrid's
#              loopback link of a host, a fat pipe (every pair at full rate)
links_of() {
    case $1 in
    tofu-d) echo "6.8e9 4.9e-7" ;;
    ib-ndr) echo "50e9 2.5e-7" ;;
    slingshot) echo "25e9 3e-7" ;;
    esac
}
HOST_BW=8.75e9 HOST_LAT=1.4e-7
ALL_SG_ALGS="basic_linear bruck pair pair_light_barrier pair_mpi_barrier pair_one_barrier pair_rma rdb ring ring_light_barrier ring_mpi_barrier ring_one_barrier 2dmesh 3dmesh mvapich2_scatter_dest"
SHARED_THRESH=1048576    # smpi/auto-shared-malloc-thresh where buffers are shared
SHARED_BLOCK=67108864    # smpi/shared-malloc-blocksize: 64 MiB, so that a rank's
                         # 64 MiB buffer is one mapping (1 MiB blocks would make
                         # 131,072 mappings at 1,024 ranks, past vm.max_map_count)
MEM_FLOOR_MIB=3072       # a run is stopped when less memory than this is left

mode=quick ranks=all platforms='' sizes=${SIZES:-} sizes1024=${SIZES_1024:-} variants=${VARIANTS:-} sg_algs=${SG_ALGS:-}
selectors='ompi mpich'
copies=both runs=${RUNS:-} limit=${LIMIT:-} out="$HERE/results/smpi_cluster.txt" fresh=0 dry=0
while [ $# -gt 0 ]; do
    case "$1" in
    --mode | --ranks | --platforms | --sizes | --sizes-1024 | --variants | --sg-algs | --selectors | --copies | --runs | --limit | --out)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case "$1" in
        --mode) mode=$2 ;;
        --ranks) ranks=$2 ;;
        --platforms) platforms=$2 ;;
        --sizes) sizes=$2 ;;
        --sizes-1024) sizes1024=$2 ;;
        --variants) variants=$2 ;;
        --sg-algs) sg_algs=$2 ;;
        --selectors) selectors=$2 ;;
        --copies) copies=$2 ;;
        --runs) runs=$2 ;;
        --limit) limit=$2 ;;
        --out) out=$2 ;;
        esac
        shift 2
        ;;
    --fresh) fresh=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'; accepted: --mode, --ranks, --platforms, --sizes, --sizes-1024, --variants, --sg-algs, --selectors, --copies, --runs, --limit, --out, --fresh, --dry-run, --help" ;;
    esac
done
case $mode in
quick) : "${sizes:=8 64 512 4096}" "${sizes1024:=8 64}" "${sg_algs:=bruck pair}" "${runs:=1}" "${limit:=600}" ;;
full) : "${sizes:=8 32 128 512 1024 4096 16384 65536}" "${sg_algs:=$ALL_SG_ALGS}" "${runs:=3}" "${limit:=1800}" ;;
*) usage "--mode '$mode' is not a mode; accepted: quick, full" ;;
esac
: "${variants:=leader leader:bruck leader:pairwise}"
case $ranks in 256 | 1024 | all) ;; *) usage "--ranks '$ranks'; accepted: 256, 1024, all" ;; esac
[ "$copies" = both ] && copies=free,charged
modes=${copies//,/ }
for mode_ in $modes; do
    case $mode_ in free | counted | charged) ;; *) usage "--copies: '$mode_' is not a way to count copies; accepted: free, counted, charged (a comma list), both" ;; esac
done
[[ $runs =~ ^[1-9][0-9]?$ ]] || usage "--runs '$runs' is not a count from 1 to 99"
[[ $limit =~ ^[1-9][0-9]*$ ]] || usage "--limit '$limit' is not a number of seconds from 1"
: "${sizes1024:=$sizes}"
sizes=${sizes//,/ } sizes1024=${sizes1024//,/ } variants=${variants//,/ } sg_algs=${sg_algs//,/ } platforms=${platforms//,/ }
for m in $sizes $sizes1024; do
    [[ $m =~ ^[1-9][0-9]*$ ]] && [ "$m" -le 1048576 ] ||
        usage "--sizes: '$m' is not a block size; accepted: bytes from 1 to 1048576"
done
selectors=${selectors//,/ }
[ "$selectors" = none ] && selectors=''
for a in $selectors; do
    [[ $a == ompi || $a == mpich ]] || usage "--selectors: '$a' is not a selector; accepted: ompi, mpich, none"
done
for a in $sg_algs; do
    [[ " $ALL_SG_ALGS " == *" $a "* ]] ||
        usage "--sg-algs: '$a' is not one of SimGrid's alltoall algorithms; accepted: $ALL_SG_ALGS"
done
for v in $variants; do
    [[ $v =~ ^[a-z0-9][a-z0-9:,.x-]*(@[a-z0-9:x,]+)?$ ]] ||
        usage "--variants: '$v' is not an XCHG_ALG spec (such as leader:bruck, or leader:t2@nodes)"
done
chosen=$(while read -r name np _; do
    if [ -n "$platforms" ]; then
        [[ " $platforms " == *" $name "* ]] && echo "$name"
    elif [ "$ranks" = all ] || [ "$ranks" = "$np" ]; then echo "$name"; fi
done <<<"$PLATFORMS" || true)
for p in $platforms; do
    grep -q "^$p " <<<"$PLATFORMS" ||
        usage "--platforms: '$p' is not a platform; accepted: $(cut -d' ' -f1 <<<"$PLATFORMS" | tr '\n' ' ')"
done
[ -n "$chosen" ] || usage "no platform chosen"

# The columns: NAME (ompi, mpich, sg:ALG, auto, or a variant)
columns="$selectors $(for a in $sg_algs; do printf 'sg:%s ' "$a"; done)auto $variants"

if [ "$dry" = 1 ]; then
    n=0
    for plat in $chosen; do
        grep -q "^$plat 1024 " <<<"$PLATFORMS" && s_=$sizes1024 || s_=$sizes
        for mode_ in $modes; do
            reps=1
            [ "$mode_" = charged ] && reps=$runs
            for m in $s_; do for c in $columns; do n=$((n + reps)); done; done
        done
    done
    echo "smpi_cluster: $n runs on: $(echo $chosen); sizes: $sizes (1,024 ranks: $sizes1024); columns: $columns; copies: $modes; charged runs: $runs; limit ${limit}s a run"
    exit 0
fi

[ -n "${XCHG_BENCH:-}" ] || smpi_build
[ -x "$SB" ] || usage "XCHG_BENCH '$SB' is not a program"
mkdir -p "$HERE/results"
[ "$fresh" = 1 ] && rm -f "$RUNSFILE"
touch "$RUNSFILE"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)
binsum=$(md5sum "$SB" | cut -c1-12)
SG_VERSION=$(smpi_simgrid_version)
# counted: C ns a copy, T ns a byte, as bench/copy_cost.sh measured them
COPY_COST=$(awk '$1 == "figures" { c = $2; t = $3 } END { if (c != "") print c "," t }' \
    "$HERE/results/copy_cost.txt" 2>/dev/null || true)
[[ " $modes " != *" counted "* ]] || [ -n "$COPY_COST" ] ||
    usage "--copies counted needs bench/results/copy_cost.txt: run bash bench/copy_cost.sh first"

# run PLAT NP SHAPE-NODES COLUMN SIZE MODE REP: one smpirun (or the runs
# file's figure for it); its "PLAT MODE SIZE COLUMN REP US" line into
# $TMP/results. US is the simulated Avg Latency, >Ss (stopped at the
# limit), mem (stopped short of memory), lmm (SimGrid's max-min solver gave
# up), n/a (the run failed or does not apply), or wrong (the data came back
# wrong).
run() {
    local plat=$1 np=$2 nodes=$3 col=$4 m=$5 mode_=$6 rep=$7
    local cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/host-speed:1Gf)
    local args=(-m "$m:$m" -i 1 -x 1) envs=() alg topo='' who
    if [ "$mode_" = charged ]; then cfg+=(--cfg=smpi/simulate-computation:yes); else
        cfg+=(--cfg=smpi/simulate-computation:no); fi
    # SimGrid's own collectives run counted exactly as free: one run for both
    local keymode=$mode_
    case $col in
    ompi | mpich) cfg+=("--cfg=smpi/coll-selector:$col"); alg=mpi who=sg ;;&
    sg:*) cfg+=("--cfg=smpi/alltoall:${col#sg:}"); alg=mpi who=sg ;;&
    ompi | mpich | sg:*) [ "$mode_" = counted ] && keymode=free ;;
    *)
        # the executor is rebuilt as it changes; its auto prices the platform
        alg=${col%%@*} who=$(md5sum "$SB" | cut -c1-12)-m1
        envs=("XCHG_MACHINE_FILE=$TMP/$plat.$mode_.machine")
        [ "$mode_" = counted ] && envs+=("XCHG_SMPI_COPY_COST=$COPY_COST")
        if [[ $col == *@* ]]; then
            topo=${col#*@}
            if [ "$topo" = nodes ]; then
                [ "$nodes" != - ] || { echo "$plat $mode_ $m $col $rep n/a" >>"$TMP/results"; return; }
                topo=$nodes
            fi
            args+=(--topo "$topo")
        fi
        ;;
    esac
    args+=(--alg "$alg")
    local shared=no
    if awk -v p="$np" -v m="$m" 'BEGIN { exit !(p * p * m > 2^30) }'; then
        cfg+=(--cfg=smpi/auto-shared-malloc-thresh:$SHARED_THRESH
            --cfg=smpi/shared-malloc-blocksize:$SHARED_BLOCK)
        shared=yes
    else
        args+=(-c)
    fi
    local key="$plat $(cat "$TMP/$plat.figures") $keymode $m $col $rep $who $shared"
    [ "$mode_" = counted ] && [ "$keymode" = counted ] && key+=" $COPY_COST"
    local kept
    kept=$(awk -v k="$key " 'index($0, k) == 1' "$RUNSFILE" | tail -n 1)
    if [ -n "$kept" ]; then
        local f=($kept)
        local us=${f[-5]} # the key, then us, wall, memory, commit, date
        # a run stopped at a shorter limit is run again
        if [[ $us != '>'* ]] || [ "${us//[^0-9]/}" -ge "$limit" ]; then
            echo "$plat $mode_ $m $col $rep $us" >>"$TMP/results"
            return
        fi
    fi
    local t0=$EPOCHREALTIME avail0 avail low kb over=''
    avail0=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
    low=$avail0
    # its own process group, so that stopping it stops SimGrid's process too
    # in $TMP: smpirun leaves its unrolled hostfile where it runs
    (cd "$TMP" && exec env "${envs[@]}" setsid /usr/bin/time -f '%e %M' -o "$TMP/time" smpirun \
        -np "$np" -platform "$TMP/$plat.xml" -hostfile "$TMP/$plat.hosts" "${cfg[@]}" "$SB" \
        "${args[@]}") >"$TMP/log" 2>&1 &
    local job=$!
    while kill -0 "$job" 2>/dev/null; do
        avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
        [ "$avail" -lt "$low" ] && low=$avail
        if [ -z "$over" ] && [ "$avail" -lt "$MEM_FLOOR_MIB" ]; then over=mem; fi
        if [ -z "$over" ] && awk -v a="$t0" -v b="$EPOCHREALTIME" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
            over=">${limit}s"
        fi
        if [ -n "$over" ]; then
            kill -TERM -- "-$job" 2>/dev/null || true
            sleep 3
            kill -KILL -- "-$job" 2>/dev/null || true
            break
        fi
        sleep 1
    done
    local rc=0
    wait "$job" || rc=$?
    local wall rss us
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    rss=$(awk 'NF == 2 { printf "%.0f", $2 / 1024 }' "$TMP/time" 2>/dev/null || true)
    us=$(awk -v m="$m" '$1 == m && $2 ~ /^[0-9.]+$/ { print $2 }' "$TMP/log" | tail -n 1)
    if [ -n "$over" ]; then
        us=$over
    elif grep -q Fail "$TMP/log"; then
        us=wrong
        echo "$BENCH: $col on $plat at $m B ($mode_) delivered wrong data:" >&2
        grep -v '^\[' "$TMP/log" | tail -n 3 >&2
    elif [ "$rc" -ne 0 ] && grep -q 'Cannot saturate more a constraint' "$TMP/log"; then
        # SimGrid's max-min solver gave up (docs/clusters.md: many flows at once)
        us=lmm
        echo "$BENCH: $col on $plat at $m B ($mode_): SimGrid's max-min solver gave up" >&2
    elif [ "$rc" -ne 0 ] || [ -z "$us" ]; then
        us=n/a
        echo "$BENCH: $col on $plat at $m B ($mode_) failed (status $rc):" >&2
        grep -v 'xbt_cfg/INFO\|smpi_coll/INFO' "$TMP/log" | tail -n 3 >&2
    fi
    echo "$plat $mode_ $m $col $rep $us" >>"$TMP/results"
    # the key, then: us, wall seconds, peak MiB (SimGrid's RSS / the
    # machine's memory taken), commit, date
    echo "$key $us $wall ${rss:-?}/$((avail0 - low)) $(git -C "$ROOT" rev-parse --short HEAD) $(date -u +%Y-%m-%dT%H:%MZ)" \
        >>"$RUNSFILE"
    printf '%s: %-14s %-8s %6s B %-22s %s us  (%s s, %s MiB)\n' "$BENCH" "$plat" "$mode_" "$m" "$col" \
        "$us" "$wall" "${rss:-?}" >&2
}

# machine_file PLAT MODE BW LAT HOPS: the platform's figures as a machine
# file for xchg's auto (docs/machine-file.md): ts a route's latency, tw a
# link's time a byte, within a host the loopback's; tr this machine's copy
# where copies are charged (7.35e-5 us, the figure of the first charged
# tables), or counted (bench/results/copy_cost.txt: T ns a byte), 0 where free.
machine_file() {
    local tr=0
    [ "$2" = charged ] && tr=7.35e-5
    [ "$2" = counted ] && tr=$(awk -v t="${COPY_COST#*,}" 'BEGIN { printf "%.4g", t / 1000 }')
    awk -v bw="$3" -v lat="$4" -v hops="$5" -v hbw="$HOST_BW" -v hlat="$HOST_LAT" -v tr="$tr" -v n="$1" 'BEGIN {
        print "xchg-machine/1"; print "name", n; print "units us"
        printf "ts %.6g\ntw %.6g\ntr %s\n", hops * lat * 1e6, 1e6 / bw, tr
        printf "ts_node %.6g\ntw_node %.6g\n", hlat * 1e6, 1e6 / hbw }' >"$TMP/$1.$2.machine"
}

while read -r plat np kind shape links nodes hops; do
    [[ " $(echo $chosen) " == *" $plat "* ]] || continue
    read -r bw lat <<<"$(links_of "$links")"
    for mode_ in free counted charged; do machine_file "$plat" "$mode_" "$bw" "$lat" "$hops"; done
    made=$(bash "$ROOT/scripts/simgrid-platform.sh" --kind "$kind" --shape "$shape" --bw "$bw" --lat "$lat" \
        --cores $CORES --host-bw $HOST_BW --host-lat $HOST_LAT --out "$TMP")
    mv "$made" "$TMP/$plat.xml"
    mv "${made%.xml}.hosts" "$TMP/$plat.hosts"
    echo "$kind:$shape:$bw:$lat:c$CORES:$HOST_BW:$HOST_LAT" >"$TMP/$plat.figures"
    s_=$sizes
    [ "$np" = 1024 ] && s_=$sizes1024
    for mode_ in $modes; do
        reps=1
        [ "$mode_" = charged ] && reps=$runs
        for m in $s_; do
            for col in $columns; do
                for r in $(seq 1 "$reps"); do run "$plat" "$np" "$nodes" "$col" "$m" "$mode_" "$r"; done
            done
        done
    done
    echo "$BENCH: $plat done ($(($(date +%s) - start)) s)" >&2
done <<<"$PLATFORMS"

# The tables: per platform and way of counting, the selectors, SimGrid's
# best algorithm, xchg flat and each variant, then the ratios of the better
# selector's time to each of xchg's (above 1: xchg faster); then every one
# of SimGrid's algorithms.
cmdline="bash bench/smpi_cluster.sh --mode $mode --copies $copies --runs $runs --limit $limit --platforms '$(echo $chosen | tr ' ' ,)' --sizes '$(echo $sizes | tr ' ' ,)' --sizes-1024 '$(echo $sizes1024 | tr ' ' ,)' --sg-algs '$(echo $sg_algs | tr ' ' ,)' --variants '$(echo $variants | tr ' ' ,)'"
[ "$(echo $selectors)" = "ompi mpich" ] || cmdline+=" --selectors '$(echo ${selectors:-none} | tr ' ' ,)'"
{
    echo "# xchg flat and node-aware against SimGrid's MPI_Alltoall on simulated clusters of 16-core nodes"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src include 2>/dev/null || echo ' (src/ with changes not committed)')  xchg-bench: ${XCHG_BENCH:-build-smpi/xchg-bench} (md5 $binsum)  wall time: $(($(date +%s) - start)) s (runs taken from the runs file count 0)"
    echo "# SimGrid $SG_VERSION, network/model:CM02, network/crosstraffic:0; 16 cores a host, ranks placed block-wise"
    echo "# links (each way): tofu-d 6.8e9 B/s, 0.49 us a link (Fugaku's Tofu-D: Ajima et al., IEEE Cluster 2018);"
    echo "#   ib-ndr 50e9 B/s, 0.25 us a link (InfiniBand NDR 400 Gb/s); slingshot 25e9 B/s, 0.3 us a link (HPE Slingshot 200 Gb/s);"
    echo "#   within a host 8.75e9 B/s, 0.14 us (this machine's MPI through shared memory, bench/results/probe-machine.txt)"
    while read -r plat np kind shape links _; do
        [[ " $(echo $chosen) " == *" $plat "* ]] || continue
        echo "# $plat: $np ranks, $((np / CORES)) hosts; SimGrid ${kind^^} $shape; $links links"
    done <<<"$PLATFORMS"
    echo "# us: xchg-bench Avg Latency (simulated, one call). free: copies not timed; counted: each of xchg's"
    echo "# copying passes charged ${COPY_COST%,*} ns a copy + ${COPY_COST#*,} ns a byte (bench/results/copy_cost.txt; SimGrid's"
    echo "# own collectives as free); charged: this machine's CPU time between MPI calls charged (median of $runs)."
    echo "# Buffers shared (not validated) where p*p*m > 2^30."
    echo "# >Ns: stopped at the time limit; mem: stopped short of memory; lmm: SimGrid's max-min solver gave up"
    echo "#   ('Cannot saturate more a constraint'); n/a: failed or does not apply."
    echo "# sg-best: the fastest of SimGrid's algorithms run (which in brackets); sel: the better of ompi and mpich;"
    echo "# sel/X: sel's time over X's (above 1: X faster than the better selector)"
    while read -r plat _; do
        [[ " $(echo $chosen) " == *" $plat "* ]] || continue
        for mode_ in $modes; do
            echo
            echo "## $plat, copies $mode_"
            awk -v plat="$plat" -v mode="$mode_" -v cols="$columns" "$(smpi_median)"'
                $1 == plat && $2 == mode { v[$3, $4] = v[$3, $4] " " $6; sizes[$3] = 1 }
                function val(s, c,   x) {
                    x = v[s, c]; if (x == "") return "-"
                    if (x ~ /[^ 0-9.]/) { sub(/^ /, "", x); split(x, a, " "); return a[1] }
                    return median(x)
                }
                function num(x) { return x ~ /^[0-9.]+$/ }
                END {
                    n = split(cols, c, " ")
                    for (s in sizes) order[++k] = s + 0
                    for (i = 2; i <= k; i++) { x = order[i]; for (j = i - 1; j > 0 && order[j] > x; j--) order[j + 1] = order[j]; order[j + 1] = x }
                    printf "%-7s %10s %10s %10s %-13s", "# Size", "ompi", "mpich", "sg-best", ""
                    for (j = 1; j <= n; j++) if (c[j] !~ /^(ompi|mpich|sg:)/) { xs[++nx] = c[j]; printf " %12s", substr(c[j], 1, 12) }
                    for (j = 1; j <= nx; j++) printf " %12s", "sel/" substr(xs[j], 1, 8)
                    printf "\n"
                    for (i = 1; i <= k; i++) {
                        s = order[i]; o = val(s, "ompi"); mp = val(s, "mpich")
                        sel = num(o) && num(mp) ? (o + 0 < mp + 0 ? o : mp) : num(o) ? o : num(mp) ? mp : ""
                        best = ""; bn = ""
                        for (j = 1; j <= n; j++) if (c[j] ~ /^sg:/) { x = val(s, c[j]); if (num(x) && (best == "" || x + 0 < best + 0)) { best = x; bn = substr(c[j], 4) } }
                        printf "%-7s %10s %10s %10s %-13s", s, o, mp, best == "" ? "-" : best, best == "" ? "" : "(" bn ")"
                        for (j = 1; j <= nx; j++) printf " %12s", val(s, xs[j])
                        for (j = 1; j <= nx; j++) { x = val(s, xs[j]); if (sel != "" && num(x)) printf " %12.2f", sel / x; else printf " %12s", "-" }
                        printf "\n"
                    }
                    if (cols ~ /sg:/) {
                        printf "# SimGrid'"'"'s algorithms, us:\n%-7s", "# Size"
                        for (j = 1; j <= n; j++) if (c[j] ~ /^sg:/) printf " %12s", substr(c[j], 4, 12)
                        printf "\n"
                        for (i = 1; i <= k; i++) {
                            printf "%-7s", order[i]
                            for (j = 1; j <= n; j++) if (c[j] ~ /^sg:/) printf " %12s", val(order[i], c[j])
                            printf "\n"
                        }
                    }
                }' "$TMP/results"
        done
    done <<<"$PLATFORMS"
} >"$out"
cat "$out"
