#!/usr/bin/env bash
# bench_cli.sh - a quick smoke test of xchg-bench under the build's launcher:
# bad options exit 2 with a message from rank 0 saying what was wrong and
# what is accepted, --help and --version exit 0 on stdout, small validated
# runs at p = 4 (xchg's auto, the MPI library's own, in place) print the
# OSU-style header and one Pass row per size, and --json prints one object
# per size that node parses. --op: bad operations, roots and shifts exit 2;
# every operation runs validated at p = 4, with xchg's auto and with the
# MPI library's own call.
# With XCHG_TEST_REDUCED=1 (the sanitizer build, CMakeLists.txt) a
# representative part: xchg-bench's own code under ASan, each of its modes
# once (a table, in place, --pair, --json, --alg mpi, each operation's
# buffers and validation); what it leaves to the plain build is said where.
# Usage: bash tests/mpi/bench_cli.sh path/to/xchg-bench [LAUNCHER]
B="${1:?usage: bench_cli.sh path/to/xchg-bench [launcher]}"
SUITE=bench_cli
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib_mpi.sh" "${2:-mpirun}"
source "$HERE/../lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
reduced=0
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && reduced=1

# usage_error PATTERN ARGS...: 2 ranks; exit 2, nothing on stdout, exactly one
# "xchg-bench: " line on stderr (rank 0 only) matching PATTERN. The runs go
# in the background, a few at once (mpi_bg: each is mostly the launcher
# starting and stopping); mpi_refusals_check "xchg-bench: " waits and checks each.
REFUSED_CMD=("$B")
usage_error() { mpi_refused 2 "$@"; }

# The refusals that depend on the job (its number of ranks), in every build.
usage_error "--topo 'torus:3x3' has 9 nodes.*2 ranks" --topo torus:3x3
# a node-aware exchange may name the network of nodes: a count that divides the ranks
usage_error "--topo 'ring:3' has 3 nodes.*2 ranks.*node-aware" --alg leader --topo ring:3
usage_error "--root '2' is not a rank of this job; accepted: 0 to 1" --op bcast --root 2
usage_error "--q 4 is a multiple of the 2 ranks.*accepted" --op shift --q 4
usage_error "unknown option '--bogus'.*accepted" --bogus
# The rest check the option parsing alone, the same code in every build: the
# sanitizer build (XCHG_TEST_REDUCED=1) leaves them to the plain one (each
# launch of 2 ranks under ASan is slow).
if [ $reduced = 0 ]; then
usage_error "unknown option '-z'.*accepted" -z
usage_error "-m 'abc' is not a size range.*accepted" -m abc
usage_error "-m '0:8'.*at least 1 byte" -m 0:8
usage_error "-m '64:8'.*below MIN" -m 64:8
usage_error "-i '0' is not an iteration count.*1 to" -i 0
usage_error "-x 'x' is not a warm-up count" -x x
usage_error "-M '0' is not a memory size" -M 0
usage_error "--alg 'nosuch'.*known:.*auto .*shm .*mpi" --alg nosuch
usage_error "--topo 'bogus:2'.*accepted" --topo bogus:2
usage_error "--alg needs a value" --alg
usage_error "--alg 'bcast-hc'.*bcast-hc performs bcast, not the complete exchange" --alg bcast-hc
usage_error "unexpected argument 'stray'" stray
usage_error "--op 'nosuch': unknown operation.*accepted: alltoall, bcast" --op nosuch
usage_error "--op needs a value" --op
usage_error "--root '-1' is not a rank.*0 to 1" --op gather --root -1
usage_error "--root 'x' is not a rank" --op scatter --root x
usage_error "--root applies to bcast, reduce, gather and scatter; --op allreduce has no root" \
    --op allreduce --root 0
usage_error "--root applies to.*--op alltoall has no root" --root 1
usage_error "--q 'x' is not an integer; accepted:" --op shift --q x
usage_error "--q '1.5' is not an integer" --op shift --q 1.5
usage_error "--q applies to --op shift only, not --op bcast" --op bcast --q 1
usage_error "--q applies to --op shift only, not --op alltoall" --q 1
usage_error "-l \(in place\) is for --op alltoall only, not --op allgather" --op allgather -l
usage_error "--alg 'hc-standard': hc-standard performs alltoall, not bcast; accepted" \
    --op bcast --alg hc-standard
usage_error "--alg 'shm' runs the complete exchange only, not --op reduce; accepted" \
    --op reduce --alg shm
usage_error "--alg 'bcast-hc,bruck'.*one algorithm, not a list" --op bcast --alg bcast-hc,bruck
usage_error "--alg 'bcast-hc:root=1': bcast-hc:root=1: the call gives the root and the shift; name the algorithm alone \(bcast-hc\)" \
    --op bcast --alg bcast-hc:root=1
usage_error "-m MAX 2 is below one MPI_INT; accepted for --op scan: MAX >= 4" --op scan -m 2
usage_error "--pair times xchg's call against the MPI library's in one run" --pair -l
usage_error "--min-time '0' is not a time; accepted: seconds above 0 and up to 3600" --min-time 0
usage_error "--min-time '1e3' is not a time" --min-time 1e3
# the executor's environment, which xchg-bench's own options would leave unread
XCHG_SMPI_COPY_COST=fast usage_error "XCHG_SMPI_COPY_COST=fast: expected C,T.*for example" -m 8:8
XCHG_SMPI_COPY_COST=1,-2 usage_error "XCHG_SMPI_COPY_COST=1,-2: expected C,T" -m 8:8
XCHG_ALG=nonsense usage_error "XCHG_ALG=nonsense" -m 8:8
fi
mpi_refusals_check "xchg-bench: "

# (reduced: --help and --version print fixed text, in the plain build)
if [ $reduced = 0 ]; then
mpi_run 2 "$B" --help >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "--help exit" "$rc" 0
grep -q -- '--message-size' "$TMP/out" && grep -q -- '--alg' "$TMP/out" && ok ||
    bad "--help: no option list on stdout: '$(head -c 300 "$TMP/out")'"
mpi_run 2 "$B" --version >"$TMP/out" 2>"$TMP/err"
expect "--version exit" "$?" 0
expect "--version output" "$(cat "$TMP/out")" "xchg-bench $(sed -n 's/.*XCHG_VERSION "\(.*\)"/\1/p' \
    "$HERE/../../include/xchg_core.h")"
fi

# table RUN-NAME ARGS...: p = 4, sizes 1..64 (7 rows), validated, full.
table() {
    local name="$1"
    shift
    mpi_run 4 "$B" -m 1:64 -i 20 -x 2 -c -f "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    expect "$name: exit" "$rc" 0
    grep -q '^# xchg-bench MPI All-to-All Personalized Exchange Latency Test' "$TMP/out" && ok ||
        bad "$name: no title line"
    grep -q '^# MPI library: ' "$TMP/out" && ok || bad "$name: no MPI library line"
    grep -qE '^# Size +Avg Latency\(us\) +Min Latency\(us\) +Max Latency\(us\) +Iterations +Validation$' \
        "$TMP/out" && ok || bad "$name: no OSU column header in '$(cat "$TMP/out")'"
    grep -q '^# plan' "$TMP/out" && ok || bad "$name: no plan line"
    local rows
    rows=$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +20 +Pass$' "$TMP/out")
    expect "$name: Pass rows" "$rows" 7
    expect "$name: first size" "$(grep -E '^[0-9]' "$TMP/out" | head -n1 | awk '{print $1}')" 1
    expect "$name: last size" "$(grep -E '^[0-9]' "$TMP/out" | tail -n1 | awk '{print $1}')" 64
}
# (reduced: the MPI library's call in a table, not in place and in place,
# is the same code of xchg-bench as "json mpi" below, which runs there)
table "auto"
[ $reduced = 0 ] && table "mpi" --alg mpi
table "auto in place" -l
[ $reduced = 0 ] && table "mpi in place" --alg mpi --in-place

# --pair: the library's call timed in the same run; its column and ratio,
# xchg's results still validated; in JSON the ratio is avg_us / mpi_avg_us
# (printed to 4 decimals: within 5e-5 of it, which a ratio below 0.05, one
# noisy row on a loaded machine, would fail as 1e-3 of itself alone).
# --min-time 0.25 raises the 10 timed pairs of each size to fill 0.25 s
# (a pair of 8-64 B allreduces on 4 ranks is far quicker; only a
# pace above 25 ms a pair would leave 10).
mpi_run 4 "$B" -m 8:64 -i 10 -x 1 -c --pair --op allreduce >"$TMP/out" 2>"$TMP/err"
expect "pair: exit" "$?" 0
grep -qE '^# Size +Avg Latency\(us\) +MPI Avg\(us\) +xchg/MPI +median ratio +pair ratio +Validation$' "$TMP/out" && ok ||
    bad "pair: no column header in '$(cat "$TMP/out")'"
expect "pair: Pass rows" "$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +Pass$' "$TMP/out")" 4
# (reduced: --pair's JSON fields and --min-time; its timing and buffers run
# just above)
if [ $reduced = 0 ]; then
mpi_run 4 "$B" -m 8:64 -i 10 -x 1 -c --pair --json --min-time 0.25 >"$TMP/out" 2>"$TMP/err"
expect "pair json" "$(jsx 'L.length === 4 && L.every(o => o.mpi_avg_us > 0 && o.valid === true &&
    Math.abs(o.ratio - o.avg_us / o.mpi_avg_us) < 1e-3 * o.ratio + 5e-5)' <"$TMP/out")" true
# the median ratio: each side's median call (per rank, averaged over ranks)
expect "pair json: median ratio" "$(jsx 'L.every(o => o.median_us > 0 && o.mpi_median_us > 0 &&
    Math.abs(o.median_ratio - o.median_us / o.mpi_median_us) < 1e-3 * o.median_ratio + 5e-5)' \
    <"$TMP/out")" true
# the pair ratio: each rank's median of its iterations' xchg / library
expect "pair json: pair ratio" "$(jsx 'L.every(o => o.pair_ratio > 0 && isFinite(o.pair_ratio))' \
    <"$TMP/out")" true
expect "min-time: more than -i's 10 pairs" "$(jsx 'L.every(o => o.iterations > 10 &&
    o.iterations <= 1000000)' <"$TMP/out")" true
# --pair --alg mpi: the control, the library's call on both sides of each
# pair (the row says so; validation checks the first side's results)
mpi_run 4 "$B" -m 8:16 -i 10 -x 1 -c --pair --alg mpi --op gather --json --min-time 0.25 \
    >"$TMP/out" 2>"$TMP/err"
expect "pair control: exit" "$?" 0
expect "pair control json" "$(jsx 'L.length === 2 && L.every(o => o.alg === "mpi" &&
    o.requested === "mpi" && o.mpi_avg_us > 0 && o.median_ratio > 0 && o.valid === true)' \
    <"$TMP/out")" true
# two identical calls: the pair ratio sits near 1 (within a few percent
# at 64 ranks on 2 cores, with thousands of pairs: --min-time above); the
# band is loose, for a loaded machine: it catches a unit slip or a side
# left out, not a small bias
expect "pair control: pair ratio near 1" "$(jsx 'L.every(o => o.pair_ratio > 0.5 &&
    o.pair_ratio < 2)' <"$TMP/out")" true
fi

# --json: one object per size with the issue's fields.
mpi_run 4 "$B" -m 8:1K -i 10 -x 1 -c --json >"$TMP/out" 2>"$TMP/err"
expect "json: exit" "$?" 0
expect "json: lines" "$(jsx 'L.length' <"$TMP/out")" 8
expect "json: sizes" "$(jsx 'L.map(o => o.bytes).join(",")' <"$TMP/out")" \
    "8,16,32,64,128,256,512,1024"
expect "json: fields" "$(jsx 'L.every(o => typeof o.alg === "string" && o.p === 4 &&
    o.avg_us > 0 && o.min_us <= o.avg_us && o.avg_us <= o.max_us && o.iterations === 10 &&
    o.valid === true && o.requested === "auto")' <"$TMP/out")" true
# (XCHG_VERBOSE: the same run checks the drop-in's count, at the end)
XCHG_VERBOSE=1 mpi_run 4 "$B" -m 8:8 -i 5 -x 0 --alg mpi --json >"$TMP/out" 2>"$TMP/mpi-err"
expect "json mpi" "$(jsx 'o.alg + " " + o.topology + " " + o.valid' <"$TMP/out")" "mpi null null"

# Every operation, validated at p = 4 (sizes 1..4096: 13 rows, 11 for the
# reductions, which start at one MPI_INT), xchg's auto and the MPI library's
# own call; rooted ones at a root other than 0, the shift by -3.
# The runs go in the background, a few at once (mpi_bg); op_runs_check
# waits and checks each.
op_n=0
op_run() {
    op_n=$((op_n + 1))
    local d="$TMP/op$op_n"
    mkdir -p "$d"
    printf '%s\n%s\n%s\n' "$1" "$2" "$3" >"$d/what"
    shift 3
    mpi_bg "$d" 4 "$B" -m 1:4096 -i 5 -x 1 -c "$@"
}
op_runs_check() {
    mpi_bg_wait
    local i d name rows title
    for ((i = 1; i <= op_n; i++)); do
        d="$TMP/op$i"
        { read -r name; read -r rows; read -r title; } <"$d/what"
        expect "$name: exit" "$(cat "$d/rc")" 0
        grep -q "^# xchg-bench MPI $title.*Latency Test v" "$d/out" && ok ||
            bad "$name: no title '$title' in '$(head -n3 "$d/out")'"
        grep -q '^# plan' "$d/out" && ok || bad "$name: no plan line"
        expect "$name: Pass rows" "$(grep -cE '^[0-9]+ +[0-9.]+ +Pass$' "$d/out")" "$rows"
        [ -s "$d/err" ] && bad "$name: stderr '$(head -c 300 "$d/err")'" || ok
    done
}
# The sanitizer build (XCHG_TEST_REDUCED=1, CMakeLists.txt) runs xchg's
# auto alone: the MPI library's own call of every operation through
# xchg-bench runs in the plain build; under ASan, --alg mpi runs in the
# tables above.
algs="auto mpi"
[ $reduced = 1 ] && algs=auto
for alg in $algs; do
    op_run "bcast $alg" 13 Broadcast --op bcast --root 2 --alg $alg
    op_run "reduce $alg" 11 Reduce --op reduce --root 3 --alg $alg
    op_run "allreduce $alg" 11 Allreduce --op allreduce --alg $alg
    op_run "reduce_scatter $alg" 11 Reduce_scatter_block --op reduce_scatter --alg $alg
    op_run "scan $alg" 11 Scan --op scan --alg $alg
    op_run "allgather $alg" 13 Allgather --op allgather --alg $alg
    op_run "gather $alg" 13 Gather --op gather --root 1 --alg $alg
    op_run "scatter $alg" 13 Scatter --op scatter --root 3 --alg $alg
    op_run "shift $alg" 13 "Circular Shift" --op shift --q -3 --alg $alg
    op_run "alltoall $alg" 13 "All-to-All" --op alltoall --alg $alg
done
# a node-aware exchange on a network of 2 nodes of 2 ranks (emulated)
XCHG_NODE_SIZE=2 op_run "leader:ring on ring:2" 13 "All-to-All" --alg leader:ring --topo ring:2
# An algorithm of the operation by name, and a reduction's header; the
# tree's broadcast and reduction on the 4 ranks laid out as tree:2 (which
# mpi_ops, on Cartesian communicators, does not run: under ASan too).
# Reduced: the hypercube's two by name, whose executor runs under ASan in
# mpi_ops at p = 4, and the header, which names them.
op_run "bcast-tree" 13 Broadcast --op bcast --root 3 --alg bcast-tree --topo tree:2
op_run "reduce-tree" 11 Reduce --op reduce --root 1 --alg reduce-tree --topo tree:2
if [ $reduced = 0 ]; then
    op_run "bcast-hc" 13 Broadcast --op bcast --alg bcast-hc
    op_run "allreduce-hc" 11 Allreduce --op allreduce --alg allreduce-hc
fi
op_runs_check
if [ $reduced = 0 ]; then
    grep -q '^# Ranks: 4, algorithm: allreduce-hc, .*datatype: MPI_INT, op: MPI_SUM$' "$TMP/op$op_n/out" &&
        ok || bad "allreduce header: '$(grep '^# Ranks' "$TMP/op$op_n/out")'"
    grep -q '^# plan from 4 B: allreduce-hc on ' "$TMP/op$op_n/out" && ok ||
        bad "allreduce-hc plan line: '$(grep '^# plan' "$TMP/op$op_n/out")'"
fi
for t in bcast-tree reduce-tree; do
    grep -q "^# plan from [0-9]* B: $t on tree:2, " "$TMP"/op*/out && ok ||
        bad "$t: no plan line on tree:2"
done
# (the header of the run "shift auto" above)
shift_out=$(dirname "$(grep -lx 'shift auto' "$TMP"/op*/what)")/out
grep -q '^# Ranks: 4, .*datatype: MPI_BYTE, q: -3$' "$shift_out" && ok ||
    bad "shift header: '$(grep '^# Ranks' "$shift_out")'"

# --json of an operation: its name, root, the plan's algorithm and steps.
# Reduced: these four leave to the plain build the JSON of an operation
# (the same printing as the exchange's, "json" above) and auto's choice
# on 3 ranks (mpi_ops holds auto's choice at p = 3 under ASan).
if [ $reduced = 0 ]; then
mpi_run 4 "$B" --op gather --root 2 -m 8:64 -i 3 -x 1 -c --json >"$TMP/out" 2>"$TMP/err"
expect "json gather: exit" "$?" 0
expect "json gather: rows" "$(jsx 'L.map(o => o.op + ":" + o.root + ":" + o.bytes + ":" +
    o.valid).join(",")' <"$TMP/out")" \
    "gather:2:8:true,gather:2:16:true,gather:2:32:true,gather:2:64:true"
expect "json gather: plan" "$(jsx 'L.every(o => typeof o.alg === "string" && o.alg !== "mpi" &&
    o.steps > 0 && o.fallback === false && o.topology === "complete:4")' <"$TMP/out")" true
mpi_run 4 "$B" --op reduce_scatter -m 1:16 -i 3 -x 1 --alg mpi --json >"$TMP/out" 2>"$TMP/err"
expect "json reduce_scatter mpi" "$(jsx 'L.map(o => o.op + ":" + o.bytes + ":" + o.alg).join(",")' \
    <"$TMP/out")" "reduce_scatter:4:mpi,reduce_scatter:8:mpi,reduce_scatter:16:mpi"
# On 3 ranks scan-hc runs with node 1's partner 3 left out (docs/op-scan.md),
# validated. An all-reduce runs allreduce-split there (the ring's parts on a
# switch of any p).
mpi_run 3 "$B" --op scan -m 8:8 -i 3 -x 1 -c --json >"$TMP/out" 2>"$TMP/err"
expect "json scan p=3" "$(jsx 'o.alg + " " + o.fallback + " " + o.valid' <"$TMP/out")" \
    "scan-hc false true"
mpi_run 3 "$B" --op allreduce -m 8:8 -i 3 -x 1 -c --json >"$TMP/out" 2>"$TMP/err"
expect "json allreduce p=3" "$(jsx 'o.alg + " " + o.fallback + " " + o.valid' <"$TMP/out")" \
    "allreduce-split false true"
fi

# --alg mpi is the MPI library's own call, not xchg's drop-in (which this
# program links): the drop-in's count at MPI_Finalize carries none of it
# (the run "json mpi" above, with XCHG_VERBOSE=1).
grep -q "at MPI_Finalize: 0 MPI_Alltoall calls carried by xchg" "$TMP/mpi-err" && ok ||
    bad "--alg mpi went through xchg: '$(grep MPI_Finalize "$TMP/mpi-err")'"

finish
