#!/usr/bin/env bash
# cli_ops.sh - the other operations (docs/operations.md) as a user drives
# them: every one of their algorithms verifies with exit 0 and names its
# operation; xchg cost --json gives the slides' counts and the operation
# (a -split algorithm cuts m into p blocks); compare and plan rank one
# operation's algorithms (--op, --root, --q) and agree on the winner; bad
# --op, --root and --q values exit 2 with what is accepted; export writes
# the operation and verify/cost read it back (a damaged operation field
# exits 2 naming where); plan and compare refuse another operation's
# algorithm in --only (exit 2); list names each algorithm's operation and
# --op lists one operation's.
# Usage: bash tests/cli_ops.sh path/to/xchg
X="${1:?usage: cli_ops.sh path/to/xchg}"
SUITE=cli_ops
source "$(dirname "$0")/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# every hypercube algorithm of every operation verifies and names its
# operation
for alg in bcast-hc:root=5 reduce-hc:root=3 scatter-hc:root=7 gather-hc:root=1 allgather-hc \
    reduce-scatter-hc allreduce-hc scan-hc shift-hc:q=3 shift-hc-ecube:q=5 \
    bcast-split:root=2 reduce-split:root=6 allreduce-split; do
    "$X" verify --topo hypercube:3 --alg "$alg" >"$TMP/out" 2>"$TMP/err"
    expect "verify $alg: exit" "$?" 0
    grep -q '^result          ok$' "$TMP/out" && ok || bad "verify $alg: $(head -c 300 "$TMP/out")"
    grep -q '^operation       ' "$TMP/out" && ok || bad "verify $alg names no operation"
done

# the ring, linear-array and mesh ones, on sizes that are not powers of two
for case in "ring:6 bcast-ring:root=4" "array:7 scatter-ring:root=5" "ring:6 allgather-ring" \
    "ring:6 reduce-scatter-ring" "ring:7 shift-ring:q=5" "ring:6 allreduce-split" \
    "mesh:3x5 bcast-mesh:root=7" "torus:3x4 allgather-mesh" "mesh:3x5 gather-mesh:root=14" \
    "torus:4x4 shift-mesh:q=10" "mesh:3x4 reduce-split:root=11"; do
    set -- $case
    "$X" verify --topo "$1" --alg "$2" >"$TMP/out" 2>"$TMP/err"
    expect "verify $2 on $1: exit" "$?" 0
    grep -q '^result          ok$' "$TMP/out" && ok || bad "verify $2 on $1: $(head -c 300 "$TMP/out")"
done
# the 10-shift on 4x4 reaches the slide's bound sqrt(p) + 1 = 5
"$X" cost --topo torus:4x4 --alg shift-mesh:q=10 --json >"$TMP/c"
expect "shift-mesh:q=10 on 4x4: 5 start-ups" "$(jsx 'o.startups' <"$TMP/c")" 5

# cost --json: counts of eq. (2) and eq. (10), the operation and its pieces
"$X" cost --topo hypercube:4 --alg allgather-hc --m 100 --json >"$TMP/c" 2>"$TMP/err"
expect "cost allgather-hc" \
    "$(jsx 'o.operation + " " + o.startups + " " + o.volume_blocks + " " + o.pieces' <"$TMP/c")" \
    "allgather 4 15 1"
"$X" cost --topo hypercube:4 --alg bcast-split:root=9 --ts 1 --tw 1 --m 1600 --json >"$TMP/c"
expect "cost bcast-split: 2(log p + (p-1) m/p) at m = 1600" \
    "$(jsx 'o.operation + " " + o.root + " " + o.pieces + " " + o.time' <"$TMP/c")" \
    "bcast 9 16 3008"
"$X" cost --topo hypercube:4 --alg shift-hc:q=7 --json >"$TMP/c"
expect "cost shift-hc:q=7: three steps" "$(jsx 'o.q + " " + o.startups' <"$TMP/c")" "7 3"

# compare and plan pick the same winner, per size
for m in 64 65536; do
    "$X" compare --topo hypercube:6 --op bcast --m "$m" --machine sp2 --json >"$TMP/cmp"
    c=$(grep '"type":"size"' "$TMP/cmp" | head -n1 | jsx 'o.best')
    "$X" plan --topo hypercube:6 --op bcast --m "$m" --machine sp2 --json >"$TMP/plan"
    p=$(grep '"type":"best"' "$TMP/plan" | head -n1 | jsx 'o.algorithm')
    expect "bcast at $m B: compare and plan agree" "$c" "$p"
done
"$X" plan --topo hypercube:6 --op bcast --m 64 --machine sp2 >"$TMP/p1"
grep -q 'best at m = 64 B: bcast-hc' "$TMP/p1" && ok || bad "small broadcast: $(tail -n1 "$TMP/p1")"
"$X" plan --topo hypercube:6 --op bcast --root 33 --m 65536 --machine sp2 >"$TMP/p2"
grep -q 'best at m = 65536 B: bcast-split:root=33' "$TMP/p2" && ok ||
    bad "large broadcast from 33: $(tail -n1 "$TMP/p2")"
"$X" compare --topo hypercube:3 --op shift --q 6 --json >"$TMP/cmp"
grep -q '"algorithm":"shift-hc-ecube:q=6"' "$TMP/cmp" && ok || bad "compare --q: $(head -c 300 "$TMP/cmp")"
# the exchange's compare is unchanged: no other operation's algorithm in it
"$X" compare --topo hypercube:3 --json >"$TMP/cmp"
grep -q 'bcast-hc\|allgather-hc' "$TMP/cmp" && bad "the exchange's compare lists another operation" || ok

usage_error "unknown operation 'broadcast'; accepted: alltoall, bcast" \
    compare --topo hypercube:3 --op broadcast
usage_error "--root goes with a rooted operation" compare --topo hypercube:3 --op allgather --root 1
usage_error "bad number '8' for --root; accepted: a whole number from 0 to 7" \
    plan --topo hypercube:3 --op bcast --root 8 --m 8
usage_error "--q goes with --op shift" plan --topo hypercube:3 --op bcast --q 2 --m 8
usage_error "for --q; accepted: a whole number from 1 to 7" compare --topo hypercube:3 --op shift --q 0
usage_error "root 8 is not a node; accepted: 0 to 7" verify --topo hypercube:3 --alg bcast-hc:root=8
usage_error "allgather-hc takes no options" verify --topo hypercube:3 --alg allgather-hc:root=1
# export and import carry the operation: the file names it, the import
# verifies as it and costs the same
for alg in bcast-hc:root=5 allreduce-split shift-hc:q=3 scan-hc reduce-split:root=6; do
    "$X" cost --topo hypercube:3 --alg "$alg" --json >"$TMP/c0"
    want=$(jsx 'o.operation + " " + o.root + " " + o.q + " " + o.pieces + " " + o.time' <"$TMP/c0")
    for f in json text; do
        "$X" export --topo hypercube:3 --alg "$alg" --format "$f" --output "$TMP/s.$f"
        expect "export $alg ($f): exit" "$?" 0
        grep -q 'operation' "$TMP/s.$f" && ok || bad "export $alg ($f) names no operation"
        "$X" verify --schedule "$TMP/s.$f" >"$TMP/out" 2>"$TMP/err"
        expect "verify --schedule $alg ($f): exit" "$?" 0
        grep -q "^operation       ${alg%%-*} " "$TMP/out" && ok ||
            bad "verify --schedule $alg ($f): $(head -c 300 "$TMP/out")"
        "$X" cost --schedule "$TMP/s.$f" --json >"$TMP/c1" 2>"$TMP/err"
        expect "cost --schedule $alg ($f)" \
            "$(jsx 'o.operation + " " + o.root + " " + o.q + " " + o.pieces + " " + o.time' <"$TMP/c1")" \
            "$want"
    done
done
# the complete exchange's file names no operation
"$X" export --topo hypercube:3 --alg hc-standard --format text >"$TMP/x.txt"
grep -q 'operation\|phase' "$TMP/x.txt" && bad "the exchange's file names an operation" || ok
# damaged operation fields: exit 2, with the line and field
"$X" export --topo hypercube:3 --alg bcast-hc:root=5 --format text --output "$TMP/b.txt"
sed 's/ root 5$/ root 9/' "$TMP/b.txt" >"$TMP/bad.txt"
usage_error "line 1, column 92: the header's operation: bcast: root 9 is not a node; accepted: 0 to 7" \
    verify --schedule "$TMP/bad.txt"
sed 's/ root 5$/ root 5 root 5/' "$TMP/b.txt" >"$TMP/bad.txt"
usage_error "'root' is given twice" cost --schedule "$TMP/bad.txt"
"$X" export --topo hypercube:3 --alg shift-hc:q=3 --output "$TMP/q.json"
sed 's/"q":3/"q":0/' "$TMP/q.json" >"$TMP/bad.json"
usage_error "column 118, operation: shift: q = 0; accepted: 1 to 7" sim --schedule "$TMP/bad.json"
sed 's/"q":3/"q":8/' "$TMP/q.json" >"$TMP/bad.json"
usage_error "operation: shift: q = 8; accepted: 1 to 7" verify --schedule "$TMP/bad.json"
sed 's/"name":"shift"/"name":"shfit"/' "$TMP/q.json" >"$TMP/bad.json"
usage_error "operation.name: unknown operation 'shfit'; accepted: alltoall, bcast" \
    verify --schedule "$TMP/bad.json"

# plan and compare refuse another operation's algorithm in --only
usage_error "bcast-hc performs bcast, not the complete exchange; accepted: an algorithm of the complete exchange" \
    plan --topo hypercube:3 --m 1024 --only bcast-hc
usage_error "scan-hc performs scan, not the complete exchange" \
    compare --topo hypercube:3 --only hc-direct,scan-hc
usage_error "hc-direct performs alltoall, not bcast" compare --topo hypercube:3 --op bcast --only hc-direct

# list: every algorithm's operation; --op lists one operation's
"$X" list --op bcast >"$TMP/l"
expect "list --op bcast" "$(grep -v '^ ' "$TMP/l" | tr '\n' ' ')" \
    "bcast-hc bcast-tree bcast-ring bcast-mesh bcast-split 5 algorithms of bcast; use one with --alg NAME[:OPTIONS] "
expect "list --op bcast: operation lines" "$(grep -c '^    operation:  bcast$' "$TMP/l")" 5
"$X" list --json >"$TMP/l"
all=$(jsx 'L.length' <"$TMP/l")
ops=$(jsx 'L.filter(x => x.operation !== "alltoall").length' <"$TMP/l")
"$X" list --op alltoall --json >"$TMP/l2"
expect "list --op alltoall: the others" "$(jsx 'L.length' <"$TMP/l2")" "$((all - ops))"
expect "list --op alltoall: only the exchange" \
    "$(jsx 'L.every(x => x.operation === "alltoall")' <"$TMP/l2")" true
# ten on the hypercube, two on trees, seven on rings and lines, seven on
# meshes, three split
expect "list: 29 algorithms of the other operations" "$ops" 29
"$X" list | grep -c '^    operation:  ' >"$TMP/n"
expect "list: an operation line per algorithm" "$(cat "$TMP/n")" "$all"
usage_error "--op: unknown operation 'broadcast'; accepted: alltoall, bcast, reduce" \
    list --op broadcast
finish
