#!/usr/bin/env bash
# cli_counts.sh - --counts, blocks of uneven sizes (MPI_Alltoallv's counts;
# docs/alltoallv.md), as a user drives it through cost, plan, compare, sim
# and verify: the page's counts file priced as worked out by hand (an
# empty step pays no start-up); each named distribution (uniform,
# random:X, hot:R[:F], sparse:F) and --seed; uniform counts give the plain
# run's figures in every command; on a sparse file pairwise pays one
# start-up per distinct XOR distance of the nonzero pairs and one message
# per nonzero block; verify weighs the messages' bytes; every bad file,
# spec or combination exits 2 saying what is accepted; the --help texts
# name --counts; and every command docs/alltoallv.md shows prints what the
# page says (tests/cli_readme.sh, the README's mechanism, run on that page).
# Usage: bash tests/cli_counts.sh path/to/xchg
X="${1:?usage: cli_counts.sh path/to/xchg}"
SUITE=cli_counts
source "$(dirname "$0")/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
REPO=$(cd "$(dirname "$0")/.." && pwd)
FILE4="$REPO/docs/examples/counts-4.txt"

# --- the page's counts file, by hand ------------------------------------
# pairwise on complete:4 goes to i XOR s at step s: step 1 carries 4096,
# 1024, 8192, 2048 (largest 8192); step 2 only 0-byte blocks (no start-up);
# step 3 carries 512 and 256. Paragon: 2*75 + 8704*0.011 = 245.744.
out=$("$X" cost --topo complete:4 --alg pairwise --counts "$FILE4" --json)
expect "file: exit" "$?" 0
expect "file: steps" "$(echo "$out" | jsx o.steps)" 3
expect "file: start-ups (the empty step is free)" "$(echo "$out" | jsx o.startups)" 2
expect "file: messages = nonzero blocks" "$(echo "$out" | jsx o.messages)" 6
expect "file: nonzero" "$(echo "$out" | jsx o.nonzero)" 6
expect "file: volume" "$(echo "$out" | jsx o.volume_bytes)" 8704
expect "file: time" "$(echo "$out" | jsx o.time)" 245.744
expect "file: injection bound" "$(echo "$out" | jsx o.lower_bound.injection_bytes)" 8704
expect "file: start-up bound" "$(echo "$out" | jsx o.lower_bound.startups)" 2
# the same file with CR LF line ends and without its header
sed -e '/^# xchg/d' -e 's/$/\r/' "$FILE4" >"$TMP/crlf.txt"
out=$("$X" cost --topo complete:4 --alg pairwise --counts "$TMP/crlf.txt" --json)
expect "file CR LF: time" "$(echo "$out" | jsx o.time)" 245.744
# sim: no contention on a switch, barrier steps: the cost's time
out=$("$X" sim --topo complete:4 --alg pairwise --counts "$FILE4" --json)
expect "sim file: time" "$(echo "$out" | jsx o.time)" 245.744
expect "sim file: messages" "$(echo "$out" | jsx o.messages)" 6
expect "sim file: counts named" "$(echo "$out" | jsx "o.counts.startsWith('file ')")" true

# verify: every block arrives (0-byte ones too); the messages' bytes
out=$("$X" verify --topo complete:4 --alg pairwise --counts "$FILE4" --json)
expect "verify file: exit" "$?" 0
expect "verify file: ok" "$(echo "$out" | jsx o.ok)" true
expect "verify file: bytes" \
    "$(echo "$out" | jsx '[o.startups_bytes, o.messages_bytes, o.volume_bytes, o.max_message_bytes].join(" ")')" \
    "2 6 8704 8192"
expect "verify file: start-ups of the blocks" "$(echo "$out" | jsx o.startups)" 3

# --- a sparse file: pairwise's start-ups are the distinct XOR distances ---
# nonzero blocks (0,1) (2,3) (0,5) (6,2) (1,0): distances 1, 5, 4, 1, 1
{
    echo "# xchg counts p=8"
    for i in 0 1 2 3 4 5 6 7; do
        row=""
        for j in 0 1 2 3 4 5 6 7; do
            v=0
            case "$i,$j" in 0,1 | 2,3 | 0,5 | 6,2 | 1,0) v=100 ;; esac
            row="$row $v"
        done
        echo "$row"
    done
} >"$TMP/sparse8.txt"
out=$("$X" cost --topo complete:8 --alg pairwise --counts "$TMP/sparse8.txt" --json)
expect "sparse file: start-ups = distinct XOR distances" "$(echo "$out" | jsx o.startups)" 3
expect "sparse file: messages = nonzero" "$(echo "$out" | jsx o.messages)" 5
expect "sparse file: volume" "$(echo "$out" | jsx o.volume_bytes)" 300
expect "sparse file: direct bound" "$(echo "$out" | jsx o.lower_bound.direct_startups)" 2
# sparse:F: one message per nonzero block, fewer start-ups than steps
out=$("$X" cost --topo complete:8 --alg pairwise --counts sparse:0.25 --json)
expect "sparse:0.25: messages = nonzero" "$(echo "$out" | jsx 'o.messages === o.nonzero')" true
expect "sparse:0.25: start-ups below steps" "$(echo "$out" | jsx 'o.startups < o.steps')" true
expect "sparse:0.25: named" "$(echo "$out" | jsx o.counts)" "sparse:0.25 (m = 1024, seed 1)"

# --- every named form ------------------------------------------------------
for spec in uniform random:50 hot:3 hot:3:2.5 sparse:0.5 sparse:1; do
    out=$("$X" cost --topo torus:4x4 --alg t1 --counts "$spec" --m 512 --json)
    expect "$spec: exit" "$?" 0
    expect "$spec: startups" "$(echo "$out" | jsx 'o.startups > 0 && o.startups <= o.steps')" true
done
out=$("$X" cost --topo complete:8 --alg pairwise --counts hot:2 --m 100 --json)
expect "hot:2: largest block 8m" "$(echo "$out" | jsx o.max_block)" 800
expect "hot:2: total" "$(echo "$out" | jsx o.total_bytes)" $((15 * 800 + 49 * 100))
out=$("$X" cost --topo complete:8 --alg pairwise --counts hot:2:3 --m 100 --json)
expect "hot:2:3: largest block 3m" "$(echo "$out" | jsx o.max_block)" 300
out=$("$X" cost --topo complete:8 --alg pairwise --counts random:50 --m 1000 --json)
expect "random:50: blocks within m/2..3m/2" "$(echo "$out" | jsx 'o.max_block <= 1500')" true
a=$("$X" cost --topo complete:8 --alg pairwise --counts random:50 --seed 9 --json | jsx o.total_bytes)
b=$("$X" cost --topo complete:8 --alg pairwise --counts random:50 --seed 9 --json | jsx o.total_bytes)
c=$("$X" cost --topo complete:8 --alg pairwise --counts random:50 --seed 10 --json | jsx o.total_bytes)
expect "random: one seed, one matrix" "$a" "$b"
expect "random: another seed, another matrix" "$([ "$a" != "$c" ] && echo differ)" differ
a=$("$X" cost --topo complete:8 --alg pairwise --counts sparse:0.25 --json | jsx o.nonzero)
b=$("$X" cost --topo complete:8 --alg pairwise --counts sparse:0.25 --seed 1 --json | jsx o.nonzero)
expect "sparse: the default seed is 1" "$a" "$b"

# --- uniform counts give the plain figures --------------------------------
for case in "complete:8 bruck:2 1024" "torus:4x4 t1 4096" "hypercube:4 hc-standard 512" \
    "ring:6 ring 1000" "mesh:3x4 mesh2 64"; do
    set -- $case
    plain=$("$X" cost --topo "$1" --alg "$2" --m "$3" --json)
    even=$("$X" cost --topo "$1" --alg "$2" --m "$3" --counts uniform --json)
    expect "uniform $2 on $1: time" "$(echo "$even" | jsx o.time)" "$(echo "$plain" | jsx o.time)"
    expect "uniform $2 on $1: start-ups" "$(echo "$even" | jsx o.startups)" \
        "$(echo "$plain" | jsx o.startups)"
    expect "uniform $2 on $1: volume" "$(echo "$even" | jsx o.volume_bytes)" \
        "$(echo "$plain" | jsx "o.volume_blocks * $3")"
    plain=$("$X" sim --topo "$1" --alg "$2" --m "$3" --json)
    even=$("$X" sim --topo "$1" --alg "$2" --m "$3" --counts uniform --json)
    expect "uniform sim $2 on $1" "$(echo "$even" | jsx o.time)" "$(echo "$plain" | jsx o.time)"
done
plain=$("$X" plan --topo torus:4x4 --m 2048 --json | jsx 'o.algorithm + " " + o.time')
even=$("$X" plan --topo torus:4x4 --m 2048 --counts uniform --json | jsx 'o.algorithm + " " + o.time')
expect "uniform plan: the same winner and time" "$even" "$plain"
plain=$("$X" compare --topo complete:8 --m 256 --json | jsx 'L.filter(l => l.type == "size")[0].best')
even=$("$X" compare --topo complete:8 --m 256 --counts uniform --json | jsx o.algorithm)
expect "uniform compare: the same winner" "$even" "$plain"

# --- plan and compare rank by the counts ----------------------------------
out=$("$X" plan --topo complete:8 --counts sparse:0.25 --only pairwise,bruck --json)
expect "plan sparse at 1024: pairwise" "$(echo "$out" | jsx o.algorithm)" pairwise
expect "plan: candidates ranked" \
    "$(echo "$out" | jsx 'L.slice(0, -1).every((l, i, a) => i == 0 || a[i-1].link_time <= l.link_time)')" true
out=$("$X" plan --topo complete:8 --counts sparse:0.25 --only pairwise,bruck --m 64 --json)
expect "plan sparse at 64: bruck:2" "$(echo "$out" | jsx o.algorithm)" bruck:2
out=$("$X" compare --topo complete:8 --counts "$TMP/sparse8.txt" --only pairwise,bruck --json)
expect "compare file: exit" "$?" 0
expect "compare file: verified" \
    "$(echo "$out" | jsx 'L.filter(l => l.type == "algorithm").every(l => l.verified == "yes")')" true
expect "compare file: pairwise" "$(echo "$out" | jsx o.algorithm)" pairwise
out=$("$X" compare --topo complete:8 --counts sparse:0.25 --only pairwise,bruck)
expect "compare text: best line" "$(echo "$out" | tail -n1)" "best on these counts: pairwise (time 431.32 us)"

# --- refusals ----------------------------------------------------------------
usage_error "cannot read --counts '.*nosuch.txt'.*accepted: a counts file.*uniform, random:X" \
    cost --topo complete:4 --alg pairwise --counts "$TMP/nosuch.txt"
usage_error "bad --counts file .* for 8 nodes: counts line 1: the file is for p = 4 nodes, but 8" \
    cost --topo complete:8 --alg pairwise --counts "$FILE4"
printf '1 2\n3 -4\n' >"$TMP/neg.txt"
usage_error "counts line 2, column 2: '-4' is negative; accepted: a whole number" \
    cost --topo complete:2 --alg pairwise --counts "$TMP/neg.txt"
printf '1 2\n3 4 5\n' >"$TMP/cols.txt"
usage_error "counts line 2: 3 numbers; accepted: 2" \
    sim --topo complete:2 --alg pairwise --counts "$TMP/cols.txt"
printf '1 2\n' >"$TMP/short.txt"
usage_error "1 row, 2 wanted" plan --topo complete:2 --counts "$TMP/short.txt"
usage_error "random:X needs X.*from 0 to 100.*accepted: uniform, random:X" \
    cost --topo complete:8 --alg pairwise --counts random:200
usage_error "hot:R\[:F\] needs R.*from 0 to 7" cost --topo complete:8 --alg pairwise --counts hot:8
usage_error "sparse:F needs F.*0 < F <= 1" plan --topo complete:8 --counts sparse:0
usage_error "unknown counts|cannot read --counts 'zipf:1'" \
    cost --topo complete:8 --alg pairwise --counts zipf:1
usage_error "--seed seeds --counts random:X or sparse:F" \
    cost --topo complete:4 --alg pairwise --seed 3
usage_error "--seed seeds .* not a file" \
    cost --topo complete:4 --alg pairwise --counts "$FILE4" --seed 3
usage_error "--seed seeds .* 'hot:1' draws nothing" \
    cost --topo complete:4 --alg pairwise --counts hot:1 --seed 3
usage_error "--m with a counts file" cost --topo complete:4 --alg pairwise --counts "$FILE4" --m 8
usage_error "--counts does not go with --ppn" \
    cost --topo complete:4 --ppn 2 --alg pairwise --counts uniform
usage_error "--counts does not go with --ppn" sim --topo complete:4 --ppn 2 --alg pairs --counts uniform
usage_error "--counts does not go with --sweep" plan --topo complete:8 --counts uniform --sweep 8:64
usage_error "--counts does not go with --op" plan --topo hypercube:3 --counts uniform --op bcast
usage_error "--counts does not go with --sim" compare --topo complete:8 --counts uniform --sim
usage_error "--m 8:64 with --counts.*accepted: --m N" compare --topo complete:8 --counts uniform --m 8:64
usage_error "--m is the block size of a named --counts" verify --topo complete:4 --alg pairwise --m 8
usage_error "--counts does not go with --messages-only" \
    verify --topo complete:4 --alg pairwise --counts uniform --messages-only
usage_error "performs bcast; accepted: a schedule of the complete exchange" \
    cost --topo hypercube:3 --alg bcast-hc --counts uniform

# --- the --help texts ---------------------------------------------------------
for cmd in cost plan compare sim verify; do
    expect "$cmd --help names --counts" "$("$X" "$cmd" --help | grep -c -- '--counts C ')" 1
done

# --- the page's commands print what it shows ---------------------------------
if bash "$(dirname "$0")/cli_readme.sh" "$X" "$REPO/docs/alltoallv.md" >"$TMP/readme" 2>&1; then
    ok
else
    bad "docs/alltoallv.md: $(cat "$TMP/readme")"
fi

finish
