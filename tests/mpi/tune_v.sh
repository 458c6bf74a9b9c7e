#!/usr/bin/env bash
# tune_v.sh - `xchg tune --op alltoallv` and auto following its rows
# (docs/tuning.md, "MPI_Alltoallv"), under the build's launcher: the tuner
# refuses --counts without --op alltoallv; a short tune writes rows of
# alltoallv that cover the sizes it measured, each the measured choice,
# sized by the call's largest block, naming only candidates it timed; the
# executor reads them (xchg-bench, validated). Then a hand-written file
# (shm to 256 B, pairwise to 4096, bruck:2 to 32768, mpi above) and
# test_mpi_tune_v: each call takes its row's way, the unasked calls after
# one that went another way too, mpi's calls counted as passed; without
# the segment (XCHG_NODE_SIZE=2) the model's auto where the rows differ,
# the rows' one way where they agree. Every byte of every call checked.
# Usage: bash tests/mpi/tune_v.sh path/to/xchg path/to/test_mpi_tune_v path/to/xchg-bench [LAUNCHER]
X="${1:?usage: tune_v.sh path/to/xchg path/to/test_mpi_tune_v path/to/xchg-bench [launcher]}"
T="${2:?usage: tune_v.sh path/to/xchg path/to/test_mpi_tune_v path/to/xchg-bench [launcher]}"
B="${3:?usage: tune_v.sh path/to/xchg path/to/test_mpi_tune_v path/to/xchg-bench [launcher]}"
SUITE=mpi_tune_v
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib_mpi.sh" "${4:-mpirun}"
source "$HERE/../lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

REFUSED_CMD=("$X" tune)
if [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
    mpi_refused 2 "--counts and --seed apply to --op alltoallv only" --counts uniform
    mpi_refused 2 "--counts 'nosuch': " --op alltoallv --counts nosuch
    mpi_refused 2 "--op: unknown operation 'nosuch'; accepted: .*, alltoallv" --op nosuch
    mpi_refused 4 "-m with a counts file" --op alltoallv --counts "$HERE/../../docs/examples/counts-4.txt" -m 8:16
fi
mpi_refusals_check "xchg tune: "

NP=4
F="$TMP/tuning.txt"
# the tune: pairwise, Bruck's radices, shm and mpi at 8 to 64 B
mpi_run $NP "$X" tune --op alltoallv --only pairwise,bruck -m 8:64 --round-ms 1 --confirm-ms 20 \
    -o "$F" --json >"$TMP/json" 2>"$TMP/err"
expect "tune --op alltoallv: exit" "$?" 0
expect "tune --op alltoallv --json: 4 sizes, the candidates timed, the row one of them" "$(jsx '
L.length === 4 && L.every((x, i) => x.operation === "alltoallv" && x.size === 8 << i && x.m === x.size &&
  typeof x.times.mpi === "number" &&
  Object.keys(x.times).concat(Object.keys(x.skipped)).every(k => /^(pairwise|bruck:[0-9]+|shm|mpi)$/.test(k)) &&
  x.times[x.best] === Math.min(...Object.values(x.times)) && x.row in x.times)' <"$TMP/json")" true
expect "tuning file header" "$(head -n1 "$F")" "xchg-tuning/2"
expect "rows of alltoallv cover 1..64 in order, naming candidates" "$(awk '!/^#/ && NR > 1 {
    if ($1 != "alltoallv" || $2 != '$NP' || $3 != "complete:'$NP'" || $4 != next_from || $6 !~ /^(pairwise|bruck:[0-9]+|shm|mpi)$/) bad = 1
    next_from = $5 + 1 }
  END { print (bad || next_from != 65) ? "bad" : "covered" }' next_from=1 "$F")" covered
for m in 8 16 32 64; do
    want=$(jsx "L.find(x => x.size === $m).row" <"$TMP/json")
    got=$(awk -v m=$m '$1 == "alltoallv" && $4 <= m && m <= $5 { print $6 }' "$F")
    expect "row for $m B is the measured choice" "$got" "$want"
done
# uneven counts: a row's size is the call's largest block (hot:1:4: rank
# 1's blocks 4 m). Reduced (the sanitizer build): not this tune, nor the
# refusals and the hand file's plan line below; they read no memory the
# runs kept do not.
reduced=0
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && reduced=1
[ $reduced = 0 ] && {
mpi_run $NP "$X" tune --op alltoallv --only pairwise --counts hot:1:4 -m 8:16 --round-ms 1 \
    --confirm-ms 0 --json >"$TMP/json2" 2>"$TMP/err"
expect "tune --counts hot:1:4: exit" "$?" 0
expect "tune --counts hot:1:4: sizes 32 and 64, the mean blocks 8 and 16" \
    "$(jsx 'L.map(x => x.size + "/" + x.m).join(" ")' <"$TMP/json2")" "32/8 64/16"
# a counts file: one size, its blocks as they are (docs/examples/counts-4.txt:
# the largest 8192 B), one row from 1 to it
C4="$HERE/../../docs/examples/counts-4.txt"
mpi_run $NP "$X" tune --op alltoallv --only pairwise --counts "$C4" --round-ms 1 --confirm-ms 0 \
    -o "$TMP/file-rows.txt" --json >"$TMP/json3" 2>"$TMP/err"
expect "tune --counts FILE: exit" "$?" 0
expect "tune --counts FILE: one size, the largest block" "$(jsx 'L.length + ":" + L[0].size' <"$TMP/json3")" "1:8192"
expect "tune --counts FILE: one row" "$(awk '$1 == "alltoallv" { print $4 "-" $5 }' "$TMP/file-rows.txt")" "1-8192"
}

# the executor reads the tuned rows (the file parses: no refusal), validated
mpi_run $NP "$B" --op alltoallv -m 8:64 -i 3 -x 1 -c --tuning "$F" --verbose >"$TMP/out" 2>"$TMP/err"
expect "xchg-bench --op alltoallv --tuning: exit" "$?" 0
expect "xchg-bench --op alltoallv --tuning: every size validated" "$(grep -c ' Pass$' "$TMP/out")" 4
grep -q "XCHG_TUNING_FILE\|cannot\|refused" "$TMP/err" && bad "tuned file refused: $(head -c 600 "$TMP/err")" || ok
grep -q "Alltoallv, $NP ranks: .*auto: tuned ($F)" "$TMP/err" && ok ||
    bad "no tuned alltoallv line: $(head -c 600 "$TMP/err")"

# a hand-written file forcing each way by size
H="$TMP/hand.txt"
printf 'xchg-tuning/2\n# shm below 257 B, pairwise to 4 KiB, bruck:2 to 32 KiB, mpi above\n' >"$H"
printf 'alltoallv %d complete:%d %s\n' $NP $NP "1 256 shm" $NP $NP "257 4096 pairwise" \
    $NP $NP "4097 32768 bruck:2" $NP $NP "32769 1048576 mpi" >>"$H"
if [ $reduced = 0 ]; then
mpi_run $NP "$B" --op alltoallv -m 8:8 -i 2 -x 1 -c --tuning "$H" --verbose >"$TMP/out" 2>"$TMP/err"
grep -q "Alltoallv, $NP ranks: shm (auto: tuned ($H): shm to 256 B, pairwise to 4096 B, bruck:2 to 32768 B, mpi above, by each call's largest block" "$TMP/err" &&
    grep -q ' Pass$' "$TMP/out" && ok || bad "hand file's plan line: $(head -c 600 "$TMP/err")"
fi
mpi_run $NP "$T" "$H" rows >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "each call by its row's way: exit (stderr: $(head -c 600 "$TMP/err"))" "$rc" 0
# without the segment (nodes of 2 ranks): no agreement per call
node2() {
    env XCHG_NODE_SIZE=2 "$MPI_LAUNCHER" $( [ "$(mpi_flavor)" = openmpi ] && echo "--oversubscribe -x XCHG_NODE_SIZE" ) \
        -np $NP "$@"
}
node2 "$T" "$H" model >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "rows that differ, no segment: the model's auto: exit (stderr: $(head -c 600 "$TMP/err"))" "$rc" 0
for alg in mpi bruck:2; do
    printf 'xchg-tuning/2\nalltoallv %d complete:%d 1 1024 %s\nalltoallv %d complete:%d 1025 1048576 %s\n' \
        $NP $NP $alg $NP $NP $alg >"$TMP/all.txt"
    node2 "$T" "$TMP/all.txt" "all:$alg" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    expect "every row $alg, no segment: $alg for every call: exit (stderr: $(head -c 600 "$TMP/err"))" "$rc" 0
done
finish
