#!/usr/bin/env bash
# tune.sh - `xchg tune` and the files auto reads, under the build's
# launcher: a short tune writes a tuning file whose rows cover the sizes it
# measured, with each size's fastest candidate (its --json times say so),
# or the library's call where the fastest did not hold its lead in the
# paired check; a second tune for another topology keeps the first one's
# rows; a damaged file is refused and left as it was; with --agree FILE
# only the sizes FILE gives to an algorithm are timed. Then the executor:
# xchg-bench with that file runs the tuned choices (validated), and with a
# damaged, cut or foreign tuning or machine file says so once and runs on
# the cost model, every byte still validated. Bad options exit 2 with one
# message.
# Usage: bash tests/mpi/tune.sh path/to/xchg path/to/xchg-bench [LAUNCHER]
X="${1:?usage: tune.sh path/to/xchg path/to/xchg-bench [launcher]}"
B="${2:?usage: tune.sh path/to/xchg path/to/xchg-bench [launcher]}"
SUITE=mpi_tune
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib_mpi.sh" "${3:-mpirun}"
source "$HERE/../lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# usage_error PATTERN ARGS...: exit 2, one "xchg tune: " line. The runs go in
# the background, a few at once (mpi_bg: each is mostly the launcher
# starting and stopping); mpi_refusals_check "xchg tune: " waits and checks each.
# Under MPICH (its launches are one at a time, mpi_bg) and under the
# sanitizers (XCHG_TEST_REDUCED=1) only the refusals that depend on the job
# (its size, its memory): the rest is the same option parsing with any MPI
# and in any build, and runs in the plain Open MPI build.
REFUSED_CMD=("$X" tune)
usage_error() { mpi_refused 2 "$@"; }
usage_error "--topo ring:5 does not have one node per rank" --topo ring:5
usage_error "blocks of MAX bytes do not fit -M" -m 8:1G -M 1M
if [ "$(mpi_flavor)" = openmpi ] && [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
    usage_error "unknown option '--bogus'; accepted:" --bogus
    usage_error "-m '64:8' is not a size range" -m 64:8
    usage_error "-m 'x' is not a size range" -m x
    usage_error "--only: .*nosuch" --only nosuch
    usage_error "--only: scan-hc performs scan, not alltoall" --only ring,scan-hc
    usage_error "--only: pairwise performs alltoall, not bcast" --op bcast --only bcast-hc,pairwise
    usage_error "--op: .*nosuch" --op nosuch
    usage_error "-m: MIN is below one MPI_INT, which --op reduce reduces" --op reduce -m 2:8
    usage_error "--round-ms '0' is not a duration" --round-ms 0
    usage_error "--confirm-ms '-1' is not a duration; accepted: 0 .no paired check." --confirm-ms -1
    usage_error "--margin 'x' is not a percentage; accepted: 0 to 100" --margin x
    usage_error "--margin '101' is not a percentage" --margin 101
    usage_error "--agree: there is no tuning file '$TMP/nosuch.txt'; accepted: a file that xchg tune -o wrote" \
        --agree "$TMP/nosuch.txt"
    printf 'xchg-tuning/2\nbcast 2 complete:2 1 64 mpi\n' >"$TMP/agree-bcast.txt"
    usage_error "--agree: the tuning file has no row for alltoall on 2 ranks laid out as complete:2; accepted:" \
        --agree "$TMP/agree-bcast.txt"
    printf 'xchg-tuning/2\nbcast 2 complete:2 1 64 nosuch\n' >"$TMP/agree-bad.txt"
    usage_error "'$TMP/agree-bad.txt' is not one xchg can read .*algorithm 'nosuch'.*; accepted: a file that xchg tune -o wrote" \
        --op bcast --agree "$TMP/agree-bad.txt"
fi
mpi_refusals_check "xchg tune: "
"$X" tune --help >"$TMP/out" 2>&1
expect "tune --help exit" "$?" 0

# The runs below on NP ranks: 4, or 2 under MPICH, whose ranks spin
# through every wait when more of them than cores (4 ranks there took most
# of this test's time); 4 ranks, sharing the cores, in the Open MPI
# builds.
NP=4
[ "$(mpi_flavor)" = mpich ] && NP=2
F="$TMP/tuning.txt"
mpi_run $NP "$X" tune -m 8:64 --round-ms 1 -o "$F" --json >"$TMP/json" 2>"$TMP/err"
expect "tune on $NP ranks: exit" "$?" 0
expect "tune --json: 4 sizes, the best the fastest, mpi always timed" "$(jsx '
L.length === 4 && L.every(x => x.ranks === '$NP' && x.topology === "complete:'$NP'" &&
  typeof x.times.mpi === "number" && x.times[x.best] === Math.min(...Object.values(x.times)))' <"$TMP/json")" true
# the default margin: a row names an algorithm only when it was 5% faster
# than the library's call in the rounds and then in the paired check; an
# algorithm that passed the rounds, and only such, has a paired check
PAIRED_RULE='(x => (x.best !== "mpi" && x.times.mpi > x.times[x.best] * (1 + x.margin / 100)
  ? x.paired !== null && x.paired.alg === x.best && x.paired.us > 0 &&
    x.row === (x.paired.mpi_us > x.paired.us * (1 + x.margin / 100) ? x.best : "mpi")
  : x.paired === null && x.row === "mpi"))'
expect "tune --json: each row the fastest, or mpi within 5% of it, rounds then pairs" "$(jsx '
L.every(x => x.margin === 5 && '"$PAIRED_RULE"'(x))' <"$TMP/json")" true
expect "tuning file header" "$(head -n1 "$F")" "xchg-tuning/2"
# the rows cover 1..64 without a gap, and each size's choice is its row's
expect "rows cover 1..64 in order" "$(awk '!/^#/ && NR > 1 { if ($1 != "alltoall" || $4 != next_from) bad = 1; next_from = $5 + 1 }
  END { print (bad || next_from != 65) ? "gap" : "covered" }' next_from=1 "$F")" covered
for m in 8 16 32 64; do
    want=$(jsx "L.find(x => x.size === $m).row" <"$TMP/json")
    got=$(awk -v m=$m '!/^#/ && NR > 1 && $4 <= m && m <= $5 { print $6 }' "$F")
    expect "row for $m B is the measured choice" "$got" "$want"
done

# another topology keeps the first rows
mpi_run $NP "$X" tune -m 8:16 --round-ms 1 --topo ring:$NP --only ring,pairwise -o "$F" >"$TMP/out" 2>"$TMP/err"
expect "second tune exit" "$?" 0
# the table docs/tuning.md shows: its header, and a row per size whose last
# column is the fastest or "mpi (within 5%)"
expect "tune's table header" "$(sed -n 2p "$TMP/out")" \
    "# Size        fastest                    time(us)     mpi(us) mpi/fast   row"
expect "tune's table rows" "$(awk 'NR > 2 && !/^#/ { n++; if (!($6 == $2 || ($6 == "mpi" && $7 == "(within" && $8 == "5%)") || $7 == "(paired")) bad = 1 }
  END { print (n == 2 && !bad) ? "rows" : "bad" }' "$TMP/out")" rows
expect "complete:$NP rows kept, ring:$NP rows added" \
    "$(awk '!/^#/ && NR > 1 { n[$3]++ } END { print (n["complete:'$NP'"] > 0 && n["ring:'$NP'"] > 0) ? "both" : "lost" }' "$F")" both
grep -q "^alltoall *$NP *ring:$NP .*\(ring\|pairwise\|mpi\|shm\)$" "$F" && ok || bad "ring:$NP rows name only the candidates asked for: $(cat "$F")"

# another operation: its own rows, the exchange's kept; each size's row is
# its measured fastest among bcast's algorithms and MPI_Bcast (--margin 0)
mpi_run $NP "$X" tune --op bcast -m 8:64 --round-ms 1 --margin 0 -o "$F" --json >"$TMP/json" 2>"$TMP/err"
expect "tune --op bcast: exit" "$?" 0
expect "tune --op bcast --json: 4 sizes, bcast's candidates and mpi, the best the fastest" "$(jsx '
L.length === 4 && L.every(x => x.operation === "bcast" && typeof x.times.mpi === "number" &&
  Object.keys(x.times).every(k => k === "mpi" || k.startsWith("bcast-")) &&
  x.times[x.best] === Math.min(...Object.values(x.times)) && x.margin === 0 && '"$PAIRED_RULE"'(x))' <"$TMP/json")" true
for m in 8 64; do
    want=$(jsx "L.find(x => x.size === $m).row" <"$TMP/json")
    got=$(awk -v m=$m '$1 == "bcast" && $4 <= m && m <= $5 { print $6 }' "$F")
    expect "bcast row for $m B is the measured choice" "$got" "$want"
done

# the paired check, at sizes where an algorithm often wins the rounds (the
# reduce-scatter ring at 128 and 256 KiB on 4 ranks, by a margin that
# varies from run to run, so not always); its table gives the paired
# ratio in the row's column
mpi_run $NP "$X" tune --op reduce_scatter -m 128K:256K --round-ms 2 --confirm-ms 50 --json >"$TMP/json" 2>"$TMP/err"
expect "tune --op reduce_scatter --json: exit" "$?" 0
expect "reduce_scatter: rounds then pairs" "$(jsx 'L.length === 2 && L.every('"$PAIRED_RULE"')' <"$TMP/json")" true
mpi_run $NP "$X" tune --op reduce_scatter -m 128K:256K --round-ms 2 --confirm-ms 50 >"$TMP/out" 2>"$TMP/err"
expect "tune --op reduce_scatter: exit" "$?" 0
expect "reduce_scatter table: a row the fastest, or mpi within 5%, or the paired ratio" \
    "$(awk 'NR > 2 && !/^#/ { n++; if (!($6 == $2 || $6 == "mpi") || ($7 != "" && $7 != "(within" && !($7 == "(paired" && $8 == "mpi/fast" && $9 ~ /^[0-9.]+\)$/))) bad = 1 }
  END { print (n == 2 && !bad) ? "rows" : "bad" }' "$TMP/out")" rows
expect "alltoall rows kept beside bcast's" "$(awk '$1 == "alltoall" { a++ } $1 == "bcast" { b++ } END { print (a > 0 && b > 0) ? "both" : "lost" }' "$F")" both

# --agree: a size whose row in the earlier run's file is mpi is not timed
# and stays mpi; the others are timed and chosen as usual (--margin 0, no
# paired check: the fastest), each line naming the other file's row
printf 'xchg-tuning/2\nbcast %d complete:%d 1 15 mpi\nbcast %d complete:%d 16 1048576 bcast-hc\n' \
    $NP $NP $NP $NP >"$TMP/agree.txt"
mpi_run $NP "$X" tune --op bcast -m 8:32 --round-ms 1 --margin 0 --confirm-ms 0 --agree "$TMP/agree.txt" \
    -o "$TMP/agreed.txt" --json >"$TMP/json" 2>"$TMP/err"
expect "tune --agree: exit" "$?" 0
expect "tune --agree --json: 8 B not timed and mpi; 16 and 32 B timed, the fastest" "$(jsx '
L.length === 3 && L[0].size === 8 && L[0].agree === "mpi" && L[0].row === "mpi" &&
  Object.keys(L[0].times).length === 0 &&
  L.slice(1).every(x => x.agree === "bcast-hc" && typeof x.times.mpi === "number" &&
    x.times[x.best] === Math.min(...Object.values(x.times)) &&
    x.row === (x.best !== "mpi" && x.times.mpi > x.times[x.best] ? x.best : "mpi"))' <"$TMP/json")" true
for m in 8 16 32; do
    want=$(jsx "L.find(x => x.size === $m).row" <"$TMP/json")
    got=$(awk -v m=$m '$1 == "bcast" && $4 <= m && m <= $5 { print $6 }' "$TMP/agreed.txt")
    expect "--agree: the row for $m B is the run's choice" "$got" "$want"
done
mpi_run $NP "$X" tune --op bcast -m 8:16 --round-ms 1 --agree "$TMP/agree.txt" >"$TMP/out" 2>"$TMP/err"
expect "tune --agree: table exit" "$?" 0
expect "tune --agree: table rows" "$(awk 'NR > 2 && !/^#/ { n++; line[n] = $0 }
  END { print (n == 2 && line[1] ~ /^8 +\(not timed\) +- +- +-   mpi \(--agree file: mpi\)$/ &&
               line[2] ~ /^16 .* \(--agree file: bcast-hc\)$/) ? "rows" : "bad: " line[1] " / " line[2] }' "$TMP/out")" rows

# the operations' auto follows its rows: a row "mpi" passes the call to the
# MPI library, a row naming an algorithm runs it, every byte validated
printf 'xchg-tuning/2\nbcast %d complete:%d 1 1024 mpi\nbcast %d complete:%d 1025 1048576 bcast-hc\n' \
    $NP $NP $NP $NP >"$TMP/ops.txt"
mpi_run $NP "$B" --op bcast -m 8:4096 -i 3 -x 1 -c --tuning "$TMP/ops.txt" --verbose >"$TMP/out" 2>"$TMP/err"
expect "xchg-bench --op bcast --tuning exit" "$?" 0
expect "bcast: every size validated" "$(grep -c ' Pass$' "$TMP/out")" 10
grep -q "8 bytes: the MPI library's MPI_Bcast (auto: tuned ($TMP/ops.txt): the MPI library's own bcast measured fastest" "$TMP/err" && ok ||
    bad "no tuned fallback line for bcast: $(head -c 600 "$TMP/err")"
grep -q "2048 bytes: bcast-hc on complete:$NP (auto: tuned ($TMP/ops.txt): bcast-hc measured fastest" "$TMP/err" && ok ||
    bad "no tuned bcast-hc line: $(head -c 600 "$TMP/err")"
# a row for another operation leaves this one to the cost model (reduced,
# the sanitizer build: the lookup's answer, the same in every build, is
# left to the plain one; the file is read under ASan in the run above)
reduced=0
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && reduced=1
if [ $reduced = 0 ]; then
mpi_run $NP "$B" --op gather -m 8:8 -i 3 -x 1 -c --tuning "$TMP/ops.txt" --verbose >"$TMP/out" 2>"$TMP/err"
grep -q "auto: predicted fastest.*the tuning file has no row of gather for $NP ranks on complete:$NP" "$TMP/err" && grep -q ' Pass$' "$TMP/out" && ok ||
    bad "gather with bcast's rows: $(head -c 600 "$TMP/err")"
fi

# a damaged file is refused and left as it was
printf 'xchg-tuning/1\n4 complete:4 1 64 nosuch\n' >"$TMP/damaged.txt"
cp "$TMP/damaged.txt" "$TMP/damaged.keep"
mpi_run 2 "$X" tune -m 8:8 --round-ms 1 -o "$TMP/damaged.txt" >"$TMP/out" 2>"$TMP/err"
expect "damaged tuning file: exit" "$?" 2
grep -q "is not one xchg can read .*line 2: algorithm 'nosuch'" "$TMP/err" && ok || bad "damaged: $(cat "$TMP/err")"
cmp -s "$TMP/damaged.txt" "$TMP/damaged.keep" && ok || bad "the damaged file was changed"

# a file of the first version gains the operation column when the tuner
# adds to it; its rows stay, as the exchange's
printf 'xchg-tuning/1\n8 ring:8 1 64 ring\n' >"$TMP/v1.txt"
mpi_run 2 "$X" tune --op scan -m 8:8 --round-ms 1 -o "$TMP/v1.txt" >"$TMP/out" 2>"$TMP/err"
expect "tune into a version 1 file: exit" "$?" 0
expect "version 1 file rewritten as version 2" "$(head -n1 "$TMP/v1.txt")" "xchg-tuning/2"
grep -q "^alltoall *8 *ring:8 *1 *64 *ring$" "$TMP/v1.txt" && grep -q "^scan *2 *complete:2 " "$TMP/v1.txt" && ok ||
    bad "version 1 rows kept as alltoall's beside scan's: $(cat "$TMP/v1.txt")"

# the executor runs the tuned choices, validated
mpi_run $NP "$B" -m 8:64 -i 3 -x 1 -c --tuning "$F" --verbose >"$TMP/out" 2>"$TMP/err"
expect "xchg-bench --tuning exit" "$?" 0
expect "every size validated" "$(grep -c ' Pass$' "$TMP/out")" 4
grep -q "auto: tuned ($F)" "$TMP/err" && ok || bad "no 'auto: tuned' line: $(head -c 400 "$TMP/err")"

# damaged, cut or foreign files: said once by rank 0, auto goes on, validated
# (reduced: one tuning file and one machine file; the readers' refusals are
# the same in every build, and fuzzed under ASan, tests/fuzz/fuzz_files.c)
printf 'xchg-tuning/2\nalltoall %d complete:%d 1 64 pairwise\nalltoall %d complete:%d 60 1024 mpi\n' \
    $NP $NP $NP $NP >"$TMP/overlap.txt"
printf 'xchg-machine/1\nts 2\n' >"$TMP/cut-machine.txt"
# cut inside a row (as a copy cut short would be)
{ head -n 3 "$F"; sed -n 4p "$F" | cut -c1-16; } >"$TMP/cut-tuning.txt"
envs=("XCHG_TUNING_FILE=$TMP/overlap.txt:overlaps an earlier row"
      "XCHG_MACHINE_FILE=$TMP/cut-machine.txt:no 'tw' line")
[ $reduced = 0 ] && envs+=("XCHG_TUNING_FILE=$TMP/cut-tuning.txt:line 4: 2 fields"
                            "XCHG_TUNING_FILE=$TMP/nosuch.txt:cannot read it"
                            "XCHG_TUNING_FILE=$HERE/../../README.md:is not the header of a tuning file"
                            "XCHG_MACHINE_FILE=$F:is not the header of a machine file")
for env in "${envs[@]}"; do
    var=${env%%=*} rest=${env#*=}
    val=${rest%%:*} pat=${rest#*:}
    env "$var=$val" "$MPI_LAUNCHER" $( [ "$(mpi_flavor)" = openmpi ] && echo "--oversubscribe -x $var" ) \
        -np $NP "$B" -m 8:8 -i 3 -x 1 -c >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q ' Pass$' "$TMP/out" && grep -q "$var=$val: .*$pat" "$TMP/out" "$TMP/err"; then ok; else
        bad "$var=$val: exit $rc, out '$(tail -c 300 "$TMP/out")', err '$(head -c 300 "$TMP/err")'"
    fi
done
finish
