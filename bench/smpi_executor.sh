#!/usr/bin/env bash
# smpi_executor.sh - xchg's MPI executor on tori we do not have: xchg-bench,
# built with SimGrid's smpicc, run unchanged under smpirun on simulated
# tori of 216, 256, 1,024 and 4,096 ranks, xchg's algorithms against
# SimGrid's own MPI_Alltoall algorithms, and beside xchg's own simulator
# (docs/mpi.md, "On tori you do not have").
#
# Every run is one smpirun of xchg-bench at one block size, one timed call
# (-i 1 -x 0: SMPI's time is simulated, so it is the same on every call
# and does not depend on what else this machine runs). The figure is
# xchg-bench's Avg Latency: each rank's simulated time of the call, averaged
# over the ranks, as osu_alltoall reports it, for xchg's executor and for
# SMPI's MPI_Alltoall alike.
#
# The platform (scripts/simgrid-platform.sh): a TORUS cluster with links of
# $BW bytes/s and $LAT s each way, one rank per node, SimGrid's plain flow
# model (network/model:CM02: a route's latency is the sum of its links',
# flows share a link's bandwidth max-min fairly) and no cross traffic;
# computation, and with it packing and copying, is not timed. Each row is
# also run in xchg's simulator (xchg sim, async steps, virtual cut-through,
# ts = 0, tw = 1/bandwidth, th = latency).
#
# Memory: where p * p * m is at most 1 GiB the ranks' buffers are real and
# every exchange is validated (xchg-bench -c); above it the buffers of 1 MiB
# and more are SimGrid's shared memory (smpi/auto-shared-malloc-thresh), so
# the data is garbage and not checked, while the messages, and so the
# simulated times, are the same (the script checks that on one case).
#
# Wall time bounds what can run here: an SMPI run's time grows with the
# number of messages in flight at once. xchg's pairwise posts 64 steps at a
# time (XCHG_MPI_WINDOW), SMPI's basic_linear all p-1 at once; those runs
# take many minutes at 256 ranks, so they run at one size, or stop at a
# time limit and say so ('>Ns' in the table). The simulation also does
# every rank's real work in its one process (the executor's packing and
# unpacking of every block), which at 1,024 ranks no longer fits in the
# caches (perf, docs/mpi.md: over half the time in memmove and page faults),
# so a run's wall time grows faster than its bytes (the runs file: at2 on
# 32x32 at 512 B and at 4 KiB). The 32x32 table stops at 4 KiB, with a
# limit of its own (GRID_LIMIT_1024): at 64 KiB one run of xchg's would
# take hours here, and SMPI's own algorithms keep p temporary blocks a rank
# (64 GiB in all), which do not fit. The 64x64 table (4,096 ranks) is at
# 8 B.
#
# Usage: [FRESH=1] bash bench/smpi_executor.sh
# Builds build/ (ordinary) and build-smpi/ (smpicc) when they are missing.
# Writes bench/results/smpi_executor.txt, and every run's figures to
# bench/results/smpi_executor.runs, from which a rerun takes what is there
# already (FRESH=1: run everything again). Takes about four hours here.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
X="$ROOT/build/xchg"
SB="$ROOT/build-smpi/xchg-bench"
OUT="$HERE/results/smpi_executor.txt"
BW=1e9   # bytes per second, every link, each way
LAT=1e-7 # seconds per link
TW=$(awk -v b="$BW" 'BEGIN { print 1e6 / b }')  # us per byte
TH=$(awk -v l="$LAT" 'BEGIN { print l * 1e6 }') # us per hop
SIZES="8 64 512 4096 65536" # block sizes of the 256- and 216-rank tables
GRID_LIMIT=180 # seconds an SMPI run of the table may take
GRID_LIMIT_1024=1500 # the same for the 1,024- and 4,096-rank tables
ONCE_LIMIT=900 # seconds a run at one size may take
SHARED_THRESH=1048576    # smpi/auto-shared-malloc-thresh where buffers are shared
MEM_FLOOR_GIB=2          # an SMPI run is stopped when less memory than this is left
# Every run's figures, one line each; kept so that a run stopped half way
# resumes (FRESH=1 starts over). Its settings are in each line's key.
RUNS="$HERE/results/smpi_executor.runs"
[ "${FRESH:-0}" = 1 ] && rm -f "$RUNS"

command -v smpicc >/dev/null 2>&1 && [ -x /usr/bin/time ] || bash "$ROOT/scripts/install-deps.sh"
[ -x "$X" ] || { make -C "$ROOT" build >/dev/null || exit 1; }
if [ ! -x "$SB" ]; then
    CC=smpicc cmake -S "$ROOT" -B "$ROOT/build-smpi" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=smpi \
        -DXCHG_HOST_CLI="$X" >/dev/null && cmake --build "$ROOT/build-smpi" -j2 >/dev/null ||
        { echo "smpi_executor: the smpicc build failed" >&2; exit 1; }
fi
mkdir -p "$HERE/results"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run SHAPE KIND ALG M [shared]: one smpirun of xchg-bench. KIND is xchg
# (ALG is xchg's --alg) or smpi (ALG is SimGrid's smpi/alltoall). Sets
# $us (simulated Avg Latency; '>Ns' past $limit seconds; 'mem' when the
# machine ran out of memory), $check (Pass; shared: not checked; -)
# and $wall (s). A run already in $RUNS (same platform, build and
# settings) is taken from there, so an interrupted script resumes.
run() {
    local shape=$1 kind=$2 alg=$3 m=$4 nodes
    nodes=$(awk -v s="$shape" 'BEGIN { n = split(s, a, "x"); p = 1; for (i = 1; i <= n; i++) p *= a[i]; print p }')
    local plat="$TMP/torus-$shape.xml"
    [ -e "$plat" ] || bash "$ROOT/scripts/simgrid-platform.sh" --shape "$shape" --bw "$BW" \
        --lat "$LAT" --out "$TMP" >/dev/null || exit 1
    local cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0
        --cfg=smpi/simulate-computation:no) args=(-m "$m:$m" -i 1 -x 0) mode
    if [ "${5:-}" = shared ] ||
        awk -v p="$nodes" -v m="$m" 'BEGIN { exit !(p * p * m > 2^30) }'; then
        cfg+=(--cfg=smpi/auto-shared-malloc-thresh:$SHARED_THRESH)
        mode=shared
    else
        args+=(-c)
        mode=Pass
    fi
    if [ "$kind" = xchg ]; then
        args+=(--alg "$alg" --topo "torus:$shape")
    else
        cfg+=(--cfg=smpi/alltoall:"$alg")
        args+=(--alg mpi)
    fi
    local key="$shape $kind $alg $m $mode $limit" kept klimit
    # a run that finished (or ran out of memory) gives the same figure
    # whatever the time limit was; one stopped at a limit is run again
    # when the limit is now longer
    kept=$(awk -v k="$shape $kind $alg $m $mode " 'index($0, k) == 1' "$RUNS" 2>/dev/null | tail -n 1)
    if [ -n "$kept" ]; then
        read -r _ _ _ _ _ klimit us check wall _ <<<"$kept"
        [[ $us == '>'* ]] && [ "$klimit" -lt "$limit" ] || return
    fi
    check=$mode
    local t0=$EPOCHREALTIME rc=0
    timeout "$limit" smpirun -platform "$plat" -hostfile "${plat%.xml}.hosts" "${cfg[@]}" \
        "$SB" "${args[@]}" >"$TMP/out" 2>&1 &
    local job=$! over=0 kb
    # the simulation is one process holding every rank: stop it when the
    # machine runs short of memory, before the kernel's OOM killer stops
    # something else (the machine's free memory, not the process's RSS,
    # which counts SimGrid's shared buffers once per rank mapping them)
    while kill -0 "$job" 2>/dev/null; do
        kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
        if [ "$kb" -lt $((MEM_FLOOR_GIB * 1048576)) ]; then
            over=1
            pkill -KILL -f -- "$plat" 2>/dev/null
        fi
        sleep 1
    done
    wait "$job" || rc=$?
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ "$over" = 1 ] || [ "$rc" = 124 ]; then
        # smpirun's simulation process outlives it: stop it too
        pkill -KILL -f -- "$plat" 2>/dev/null
        if [ "$over" = 1 ]; then us=mem; else us=">${limit}s"; fi
        check=-
    else
        local line
        line=$(grep -E "^$m +[0-9]" "$TMP/out")
        if [ "$rc" != 0 ] || [ -z "$line" ] || { [ "$check" = Pass ] && [[ $line != *Pass* ]]; }; then
            echo "smpi_executor: $kind $alg on $shape at $m B failed (exit $rc):" >&2
            grep -v '^ *->' "$TMP/out" | tail -n 8 >&2
            exit 1
        fi
        us=$(echo "$line" | awk '{ print $2 }')
    fi
    echo "$key $us $check $wall $(date -u +%Y-%m-%dT%H:%M)" >>"$RUNS"
}

# xsim SHAPE ALG M: xchg sim's time (us) in $sim_us.
xsim() {
    sim_us=$("$X" sim --topo "torus:$1" --alg "$2" --m "$3" --ts 0 --tw "$TW" --th "$TH" \
        --mode async --routing vct --json | grep -o '"time":[0-9.e+-]*' | head -n1 | cut -d: -f2)
}

# ratio A B: A/B, or '-' when either is not a time (a stopped or missing run)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9]/ || b !~ /^[0-9]/ || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

# section SHAPE "SIZES" "XCHG ALGS" "SMPI ALGS" "KIND:ALG@M ..." [LIMIT]: one
# table of simulated times (rows: block sizes; columns: algorithms), the
# best of each side and their ratio, then xchg's rows beside xchg sim.
# LIMIT: seconds a run of the table may take (GRID_LIMIT).
section() {
    local shape=$1 SIZES=$2 xalgs=$3 salgs=$4 once=$5
    limit=${6:-$GRID_LIMIT}
    local -A T=() C=()
    for m in $SIZES; do
        for a in $xalgs; do
            run "$shape" xchg "$a" "$m"
            T["x:$a:$m"]=$us C["x:$a:$m"]=$check
            echo "# ran xchg $a $shape $m: $us us ($check, ${wall} s wall)" >&2
        done
        for a in $salgs; do
            run "$shape" smpi "$a" "$m"
            T["s:$a:$m"]=$us C["s:$a:$m"]=$check
            echo "# ran smpi $a $shape $m: $us us ($check, ${wall} s wall)" >&2
        done
    done
    limit=$ONCE_LIMIT
    for spec in $once; do
        local kind=${spec%%:*} rest=${spec#*:}
        local a=${rest%@*} m=${rest#*@}
        run "$shape" "$kind" "$a" "$m"
        T["${kind:0:1}:$a:$m"]=$us C["${kind:0:1}:$a:$m"]=$check
        echo "# ran $kind $a $shape $m: $us us ($check, ${wall} s wall; $kind $a runs at $m B only)" >&2
        if [[ $us == '>'* ]]; then
            once_note+="  $kind $a on $shape ran at $m B only, and was stopped after ${wall} s of wall time"$'\n'
        else
            once_note+="  $kind $a on $shape ran at $m B only: ${wall} s of wall time for one call"$'\n'
        fi
    done
    local nodes
    nodes=$(awk -v s="$shape" 'BEGIN { n = split(s, a, "x"); p = 1; for (i = 1; i <= n; i++) p *= a[i]; print p }')
    echo "## torus:$shape ($nodes ranks): simulated Avg Latency (us) of one MPI_Alltoall"
    printf "# %-8s" "Size(B)"
    local cols=() a
    for a in $xalgs; do cols+=("x:$a"); done
    for spec in $once; do [[ $spec == xchg:* ]] && { a=${spec#xchg:}; cols+=("x:${a%@*}"); }; done
    for a in $salgs; do cols+=("s:$a"); done
    for spec in $once; do [[ $spec == smpi:* ]] && { a=${spec#smpi:}; cols+=("s:${a%@*}"); }; done
    for c in "${cols[@]}"; do
        if [[ $c == x:* ]]; then printf " %11s" "${c#x:}"; else printf " %11s" "smpi:${c#s:}"; fi
    done
    printf " %-13s %-15s %6s\n" " best-xchg" " best-smpi" "ratio"
    for m in $SIZES; do
        printf "  %-8s" "$m"
        local bx='' bxv='' bs='' bsv='' v k
        for c in "${cols[@]}"; do
            k="$c:$m"
            v=${T[$k]:--}
            printf " %11s" "$v"
            [[ $v =~ ^[0-9] ]] || continue
            if [[ $c == x:* ]]; then
                if [ -z "$bxv" ] || awk -v a="$v" -v b="$bxv" 'BEGIN { exit !(a < b) }'; then bx=${c#x:} bxv=$v; fi
            else
                if [ -z "$bsv" ] || awk -v a="$v" -v b="$bsv" 'BEGIN { exit !(a < b) }'; then bs=${c#s:} bsv=$v; fi
            fi
        done
        printf "  %-13s %-15s %6s\n" "$bx" "$bs" "$(ratio "$bsv" "$bxv")"
    done
    echo "# ratio = best SMPI algorithm's time / best xchg algorithm's time (above 1: xchg is faster)."
    echo "# '>Ns': stopped after N s of wall time; 'mem': stopped when this machine (24 GiB) ran"
    echo "# short of memory; '-': not run at that size."
    echo "# Validation: exchanges with real buffers were checked byte by byte (all Pass);"
    printf "# shared buffers (not checked) at:"
    for c in "${cols[@]}"; do for m in $SIZES; do
        [ "${C[$c:$m]:-}" = shared ] && printf " %s@%s" "${c#*:}" "$m"
    done; done
    echo
    echo
    echo "## torus:$shape: xchg's executor under SMPI beside xchg sim (same links, async, VCT)"
    echo "# algorithm    Size(B)     SMPI(us)   xchg-sim(us)  sim/SMPI"
    for c in "${cols[@]}"; do
        [[ $c == x:* ]] || continue
        a=${c#x:}
        for m in $SIZES; do
            v=${T[$c:$m]:-}
            [ -n "$v" ] || continue
            xsim "$shape" "$a" "$m"
            printf "  %-12s %7s %12s %14s %9s\n" "$a" "$m" "$v" "$sim_us" "$(ratio "$sim_us" "$v")"
        done
    done
    echo
}

once_note=''
{
    echo "# xchg's executor (xchg-bench) under SimGrid $(smpirun -version 2>/dev/null | head -n1 | grep -o '[0-9][0-9.]*' | head -n1) SMPI, $(date -u +%Y-%m-%d)"
    echo "# links: $BW bytes/s and $LAT s each way; CM02 flow model, no cross traffic,"
    echo "# computation not timed; one rank per node; one timed call per run."
    echo "# xchg columns: xchg-bench --alg NAME (the executor); smpi:NAME columns: xchg-bench"
    echo "# --alg mpi with --cfg=smpi/alltoall:NAME (SimGrid's MPI_Alltoall algorithms; ompi"
    echo "# and mpich are its selectors that pick as Open MPI and MPICH do)."
    echo
    section 16x16 "$SIZES" "t1 t2 at2 bruck" "pair ring bruck 2dmesh mpich ompi" "xchg:pairwise@4096"
    # (SimGrid's pair needs a power of two: ring is its pairwise here)
    section 6x6x6 "$SIZES" "mt3 bruck" "ring bruck 3dmesh mpich" ""
    # SMPI's own algorithms keep a temporary copy of p blocks per rank in
    # memory SimGrid does not share: 64 MiB a rank at 64 KiB, 64 GiB in all.
    section 32x32 "8 64 512 4096" "t1 t2 at2 bruck" "bruck 2dmesh" "xchg:pairwise@512 smpi:pair@512" \
        "$GRID_LIMIT_1024"
    # 4,096 ranks at 8 B: t1 and t2 follow every block in each rank's plan
    # and are refused above 1,024 ranks (docs/limits.md); at2 and Bruck
    # derive theirs from a symmetry.
    section 64x64 "8" "at2 bruck" "bruck" "" "$GRID_LIMIT_1024"

    echo "## Shared buffers against real ones (same messages, so the same simulated time)"
    limit=$GRID_LIMIT
    run 16x16 xchg t1 4096
    real=$us
    run 16x16 xchg t1 4096 shared
    echo "  t1 on torus:16x16 at 4096 B: real buffers $real us, shared buffers $us us"
    echo
    echo "## Runs at one size only (wall time of SMPI)"
    printf "%s" "$once_note"
} | tee "$OUT"
