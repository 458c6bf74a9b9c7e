#!/usr/bin/env bash
# cli_ppn.sh - --ppn K, ranks a node (docs/hierarchical.md), as a user
# drives it: plan and compare rank the flat algorithms and the node-aware
# variants (leader:X, leaders:L:X, pairs:X, aggregate) on one line and
# name the same winner; --ppn 1 changes nothing; cost --ppn gives the
# page's worked examples from a machine file with intra-node figures (the
# lanes' and the flat ranks' start-ups side by side);
# compare verifies aggregate's composition; sim --ppn equals the model on
# a contention-free inner schedule and exceeds it where links are shared;
# every bad input exits 2 with what is accepted (aggregate:X, sim
# aggregate).
# Usage: bash tests/cli_ppn.sh path/to/xchg
X="${1:?usage: cli_ppn.sh path/to/xchg}"
SUITE=cli_ppn
source "$(dirname "$0")/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# the worked example's machine (docs/hierarchical.md)
cat >"$TMP/node.txt" <<'M'
xchg-machine/1
name      example
ts        10
tw        0.01
tr        0.001
ts_node   1
tw_node   0.002
M

# cost --ppn: leader:pairwise on 4 nodes of 4 ranks at 64 B is 36 + 0.8*64
out=$("$X" cost --topo complete:4 --ppn 4 --alg leader:pairwise --m 64 --machine "$TMP/node.txt" --json)
expect "cost leader: exit" "$?" 0
expect "cost leader: time" "$(echo "$out" | jsx o.time)" 87.2
expect "cost leader: fixed" "$(echo "$out" | jsx o.fixed)" 36
expect "cost leader: node start-ups" "$(echo "$out" | jsx o.node_startups)" 6
# pairs:pairwise: the 4 lanes' 3 start-ups side by side, 33 + 0.52*m
out=$("$X" cost --topo complete:4 --ppn 4 --alg pairs:pairwise --m 64 --machine "$TMP/node.txt" --json)
expect "cost pairs: start-ups" "$(echo "$out" | jsx o.startups)" 3
expect "cost pairs: fixed" "$(echo "$out" | jsx o.fixed)" 33
expect "cost pairs: per byte" "$(echo "$out" | jsx o.per_unit)" 0.52
expect "cost pairs: time" "$(echo "$out" | jsx o.time)" 66.28
out=$("$X" cost --topo complete:4 --ppn 4 --alg leaders:2:pairwise --m 64 --machine "$TMP/node.txt" --json)
expect "cost leaders:2: time" "$(echo "$out" | jsx o.time)" 76.008
# flat pairwise on complete:16, 4 ranks a node: steps 4-15 leave the node,
# the 4 ranks start theirs side by side: 12 start-ups between nodes, not 48
out=$("$X" cost --topo complete:4 --ppn 4 --alg pairwise --m 64 --machine "$TMP/node.txt" --json)
expect "cost flat: start-ups" "$(echo "$out" | jsx o.startups)" 12
expect "cost flat: volume" "$(echo "$out" | jsx o.volume_blocks)" 48
expect "cost flat: fixed" "$(echo "$out" | jsx o.fixed)" 123
expect "cost flat: time" "$(echo "$out" | jsx o.time)" 154.104
# aggregate on the same cluster: 16 + 0.598*m; on 6 nodes of 4 (O = 2)
out=$("$X" cost --topo complete:4 --ppn 4 --alg aggregate --m 64 --machine "$TMP/node.txt" --json)
expect "cost aggregate: exit" "$?" 0
expect "cost aggregate: time" "$(echo "$out" | jsx o.time)" 54.272
expect "cost aggregate: start-ups" "$(echo "$out" | jsx o.startups)" 1
expect "cost aggregate: node start-ups" "$(echo "$out" | jsx o.node_startups)" 6
expect "cost aggregate: node volume" "$(echo "$out" | jsx o.node_volume_blocks)" 27
out=$("$X" cost --topo complete:6 --ppn 4 --alg aggregate --m 64 --machine "$TMP/node.txt" --json)
expect "cost aggregate 6x4: start-ups" "$(echo "$out" | jsx o.startups)" 2
expect "cost aggregate 6x4: volume" "$(echo "$out" | jsx o.volume_blocks)" 80
expect "cost aggregate 6x4: time" "$(echo "$out" | jsx o.time)" 89.872
# on a ring of 8 nodes the busiest link, not the port, sets the volume:
# 1+2+3+4 node pairs of 2*2 blocks cross each link going up
out=$("$X" cost --topo ring:8 --ppn 2 --alg aggregate --m 64 --json)
expect "cost aggregate ring: volume" "$(echo "$out" | jsx o.volume_blocks)" 28
expect "cost aggregate ring: link volume" "$(echo "$out" | jsx o.link_volume_blocks)" 40
# the text form names both levels
"$X" cost --topo torus:4x4 --ppn 16 --alg leaders:4:t2 --m 64 >"$TMP/out" 2>&1
expect "cost text: exit" "$?" 0
grep -q '^within nodes  9 start-ups' "$TMP/out" && ok || bad "cost text: $(cat "$TMP/out")"
# leader alone is leader:auto, the planner's inner choice
"$X" cost --topo torus:4x4 --ppn 16 --alg leader --m 64 >"$TMP/out" 2>&1
grep -q '(auto) on torus:4x4' "$TMP/out" && ok || bad "cost leader auto: $(cat "$TMP/out")"

# plan and compare: both kinds of candidates, one winner
"$X" plan --topo torus:4x4 --ppn 4 --m 64 --json >"$TMP/plan" 2>&1
expect "plan --ppn: exit" "$?" 0
n=$(grep -c '"algorithm":"leader:' "$TMP/plan")
[ "$n" -gt 0 ] && ok || bad "plan --ppn: no leader candidate"
n=$(grep -c '"algorithm":"pairs:' "$TMP/plan")
[ "$n" -gt 0 ] && ok || bad "plan --ppn: no pairs candidate"
n=$(grep -c '"algorithm":"leaders:2:' "$TMP/plan")
[ "$n" -gt 0 ] && ok || bad "plan --ppn: no leaders:2 candidate"
grep -q '"algorithm":"pairwise"' "$TMP/plan" && ok || bad "plan --ppn: no flat pairwise"
n=$(grep -c '"type":"candidate","algorithm":"aggregate"' "$TMP/plan")
expect "plan --ppn: one aggregate candidate" "$n" 1
best=$(grep '"type":"best"' "$TMP/plan" | jsx o.algorithm)
"$X" compare --topo torus:4x4 --ppn 4 --m 64 --json >"$TMP/cmp" 2>&1
expect "compare --ppn: exit" "$?" 0
cbest=$(grep '"type":"size"' "$TMP/cmp" | jsx o.best)
expect "compare and plan name one winner" "$cbest" "$best"
# compare follows aggregate's composition block by block
"$X" compare --topo torus:4x4 --ppn 4 --m 64 >"$TMP/cmp" 2>&1
grep -Eq '^  aggregate +4 +240 +240 +256 .* yes$' "$TMP/cmp" && ok ||
    bad "compare --ppn: aggregate not verified: $(grep aggregate "$TMP/cmp")"
# plan --ppn 16 on a torus of nodes ranks it with the others
"$X" plan --topo torus:4x4 --ppn 16 --m 64 --machine sp2 >"$TMP/plan16" 2>&1
expect "plan --ppn 16: exit" "$?" 0
grep -Eq '^  aggregate +1 +3840 +3840 +measured +1024 +30 +495 ' "$TMP/plan16" && ok ||
    bad "plan --ppn 16: aggregate row: $(grep aggregate "$TMP/plan16")"
# --ppn 1 is the plain planner
"$X" plan --topo torus:4x4 --m 64 >"$TMP/a" 2>&1
"$X" plan --topo torus:4x4 --m 64 --ppn 1 >"$TMP/b" 2>&1
cmp -s "$TMP/a" "$TMP/b" && ok || bad "plan --ppn 1 differs from plan"

# sim --ppn: a contention-free inner schedule is the model exactly; one
# that shares links waits
out=$("$X" sim --topo torus:4x4 --ppn 16 --alg leaders:4:t2 --m 64 --json)
expect "sim t2: exit" "$?" 0
expect "sim t2 = model" "$(echo "$out" | jsx 'Math.abs(o.time - o.predicted) < 1e-6')" true
# every rank a lane: the 16 lanes start side by side, so between nodes
# they take what one leader's messages of the same bytes take
out=$("$X" sim --topo torus:4x4 --ppn 16 --alg pairs:t2 --m 64 --machine paragon --barrier --json)
expect "sim pairs:t2 = model" "$(echo "$out" | jsx 'Math.abs(o.time - o.predicted) < 1e-6')" true
lead=$("$X" sim --topo torus:4x4 --ppn 16 --alg leader:t2 --m 64 --machine paragon --barrier --json)
expect "sim pairs:t2 between nodes = leader:t2's" \
    "$(echo "$out" | jsx o.between_nodes)" "$(echo "$lead" | jsx o.between_nodes)"
out=$("$X" sim --topo torus:4x4 --ppn 16 --alg leader:bruck:2 --m 64 --json)
expect "sim bruck waits" "$(echo "$out" | jsx 'o.between_nodes > o.between_nodes_predicted')" true

# refusals: exit 2, nothing on stdout, what is accepted
usage_error "bad number '0' for --ppn; accepted: a whole number from 1" \
    plan --topo torus:4x4 --m 64 --ppn 0
usage_error "bad number 'four' for --ppn" cost --topo torus:4x4 --alg leader --ppn four
usage_error "bad number '-2' for --ppn" compare --topo torus:4x4 --ppn -2
usage_error "bad number .1073741824. for --ppn; accepted: a whole number from 1 to 16777216" \
    plan --topo torus:4x4 --m 64 --ppn 1073741824
usage_error "makes 16777232 ranks" plan --topo torus:4x4 --m 64 --ppn 1048577
usage_error "complete exchange only; accepted: --ppn with --op alltoall" \
    plan --topo hypercube:3 --m 64 --ppn 4 --op bcast
usage_error "complete exchange only" compare --topo hypercube:3 --ppn 2 --op allgather
usage_error "does not divide the 4 ranks a node; accepted: leaders:L\[:X\] with L a divisor of 4" \
    cost --topo torus:4x4 --ppn 4 --alg leaders:3:t2
usage_error "leaders needs its count" cost --topo torus:4x4 --ppn 4 --alg leaders
usage_error "nothing after ':'" cost --topo torus:4x4 --ppn 4 --alg leader:
usage_error "'aggregate:bruck': aggregate takes nothing after it .*accepted: aggregate" \
    cost --topo torus:4x4 --ppn 16 --alg aggregate:bruck --machine sp2 --m 64
usage_error "aggregate takes nothing after it" sim --topo torus:4x4 --ppn 4 --alg aggregate:t2
usage_error "sim --ppn does not simulate aggregate.*xchg cost --ppn 4 --alg aggregate" \
    sim --topo torus:4x4 --ppn 4 --alg aggregate
usage_error "t2 needs a two-dimensional torus" cost --topo ring:4 --ppn 4 --alg leader:t2
usage_error "does not go with --schedule" cost --topo torus:4x4 --ppn 4 --schedule x.json
usage_error "is flat" sim --topo torus:4x4 --ppn 4 --alg pairwise
usage_error "--map does not go with --ppn" sim --topo torus:4x4 --ppn 4 --alg leader --map snake
usage_error "--sim with --ppn" compare --topo torus:4x4 --ppn 4 --sim
printf 'xchg-machine/1\nts 1\ntw 0.1\nts_node -1\n' >"$TMP/bad.txt"
usage_error "'ts_node' has the value '-1'; accepted: a number" \
    cost --topo torus:4x4 --ppn 4 --alg leader --machine "$TMP/bad.txt"

finish
