#!/usr/bin/env bash
# cli_basic.sh - drives the xchg tool the way a user does on good input:
# list, verify (exit 0 on correct schedules), cost (JSON counts equal the
# closed forms of the textbook, time equal to the model's formula), export
# (JSON and text, --output to a file), compare (winner, crossovers where the
# two lines really cross), Liu et al.'s algorithms padded with virtual nodes
# where their sizes do not fit, and compare and plan naming the same winner. JSON
# is checked with node (scripts/install-deps.sh installs it); without node
# the test fails.
# Usage: bash tests/cli_basic.sh path/to/xchg
X="${1:?usage: cli_basic.sh path/to/xchg}"
SUITE=cli_basic
source "$(dirname "$0")/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# --- list ---------------------------------------------------------------------
"$X" list >"$TMP/list" 2>"$TMP/err"
expect "list exit status" $? 0
for name in ring hc-standard; do
    if grep -q "^$name\$" "$TMP/list"; then ok; else bad "list shows $name"; fi
done
"$X" list --json >"$TMP/list.json"
expect "list --json exit status" $? 0
nalg=$(jsx 'L.length' <"$TMP/list.json")
nfields=$(jsx 'L.filter(a => typeof a.name === "string" && typeof a.summary === "string" && typeof a.source === "string" && typeof a.topologies === "string" && typeof a.options === "string").length' <"$TMP/list.json")
expect "list --json: every line has the five fields" "$nfields" "$nalg"
expect "list --json lists several algorithms" "$(jsx 'L.length >= 2' <"$TMP/list.json")" true

# with --topo: which apply, and their variants
"$X" list --topo hypercube:3 --json >"$TMP/list.json"
expect "list --topo exit status" $? 0
expect "list --topo: hc-standard applies to hypercube:3" \
    "$(jsx 'L.find(a => a.name === "hc-standard").applies' <"$TMP/list.json")" true
expect "list --topo: ring does not apply to hypercube:3, with a reason" \
    "$(jsx 'const r = L.find(a => a.name === "ring"); !r.applies && r.variants.length === 0 && r.reason.length > 0' <"$TMP/list.json")" true
expect "list --topo: every variant of an algorithm is named after it" \
    "$(jsx 'L.every(a => a.variants.every(v => v === a.name || v.startsWith(a.name + ":")))' <"$TMP/list.json")" true

# --- verify: exit 0 on correct schedules ---------------------------------------------
for case in "ring:8 ring" "ring:7 ring" "hypercube:4 hc-standard" "hypercube:3 hc-direct" \
    "torus:4x4 mesh2" "mesh:3x5 mesh2" "complete:6 bruck:3"; do
    set -- $case
    "$X" verify --topo "$1" --alg "$2" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^result  *ok' "$TMP/out"; then
        ok
    else
        bad "verify --topo $1 --alg $2 -> exit $rc: $(cat "$TMP/out" "$TMP/err" | head -c 400)"
    fi
done
"$X" verify --topo hypercube:4 --alg hc-standard --threads 2 --json >"$TMP/v.json"
expect "verify --json exit status" $? 0
expect "verify --json ok" "$(jsx 'o.ok' <"$TMP/v.json")" true
expect "verify --json blocks = p*p" "$(jsx 'o.blocks' <"$TMP/v.json")" 256
expect "verify --json startups = d" "$(jsx 'o.startups' <"$TMP/v.json")" 4
expect "verify --json volume = d*p/2" "$(jsx 'o.volume_blocks' <"$TMP/v.json")" 32
# --messages-only follows no block but still measures the links: hc-direct on
# a torus has contention (conflicts > 0), its link volume is above its volume
"$X" verify --topo torus:4x4 --alg hc-direct --messages-only --json >"$TMP/m.json"
expect "verify --messages-only exit status" $? 0
expect "verify --messages-only: no block followed" \
    "$(jsx 'o.messages_only && o.blocks === 0' <"$TMP/m.json")" true
"$X" verify --topo torus:4x4 --alg hc-direct --json >"$TMP/f.json"
expect "verify --messages-only: same link volume as the full run" \
    "$(jsx 'o.link_volume_blocks' <"$TMP/m.json")" "$(jsx 'o.link_volume_blocks' <"$TMP/f.json")"
expect "verify --messages-only: contention counted" \
    "$(jsx 'o.link_conflicts > 0 && o.link_volume_blocks > o.volume_blocks' <"$TMP/m.json")" true

# --- cost: counts against the closed forms (Grama et al. section 4.5, eqs. 4.7, 4.9) -------
for p in 5 8 13; do
    "$X" cost --topo "ring:$p" --alg ring --json >"$TMP/c.json"
    expect "cost ring:$p exit status" $? 0
    expect "cost ring:$p startups = p-1" "$(jsx 'o.startups' <"$TMP/c.json")" $((p - 1))
    expect "cost ring:$p volume = p(p-1)/2" "$(jsx 'o.volume_blocks' <"$TMP/c.json")" \
        $((p * (p - 1) / 2))
done
for d in 3 4 6; do
    p=$((1 << d))
    "$X" cost --topo "hypercube:$d" --alg hc-standard --json >"$TMP/c.json"
    expect "cost hypercube:$d exit status" $? 0
    expect "cost hypercube:$d startups = d" "$(jsx 'o.startups' <"$TMP/c.json")" $d
    expect "cost hypercube:$d volume = d*p/2" "$(jsx 'o.volume_blocks' <"$TMP/c.json")" \
        $((d * p / 2))
done
# the last line is the JSON object, with the fields a script reads
"$X" cost --topo ring:8 --alg ring --json | tail -n 1 >"$TMP/c.json"
expect "cost --json fields" "$(jsx '["topology","algorithm","steps","startups","volume_blocks","copy_blocks","m","time","lower_bound"].every(k => k in o) && "startups" in o.lower_bound && "binding" in o.lower_bound' <"$TMP/c.json")" true
expect "cost default m" "$(jsx 'o.m' <"$TMP/c.json")" 1024
expect "cost default machine" "$(jsx 'o.machine' <"$TMP/c.json")" paragon
# Suh et al.'s model: ts = a, tw = 1 per flit, tr = 0 -> time = a*startups + volume*m
"$X" cost --topo ring:8 --alg ring --a 5000 --m 16 --json >"$TMP/c.json"
expect "cost --a time = 7*5000 + 28*16" "$(jsx 'o.time' <"$TMP/c.json")" $((7 * 5000 + 28 * 16))
expect "cost --a units" "$(jsx 'o.units' <"$TMP/c.json")" t_c
# custom machine: time = startups*ts + volume*m*tw + copies*m*tr
"$X" cost --topo hypercube:4 --alg hc-standard --ts 10 --tw 0.5 --tr 0.25 --m 8 --json \
    >"$TMP/c.json"
expect "cost custom time = formula" \
    "$(jsx 'Math.abs(o.time - (o.startups*10 + o.volume_blocks*8*0.5 + o.copy_blocks*8*0.25)) < 1e-9' <"$TMP/c.json")" true
# --barrier adds the preset's barrier once per start-up
t0=$("$X" cost --topo hypercube:4 --alg hc-standard --json | jsx 'o.time')
t1=$("$X" cost --topo hypercube:4 --alg hc-standard --barrier --json | jsx 'o.time')
if awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }'; then ok; else
    bad "cost --barrier should cost more: $t0 vs $t1"
fi
# the contention claim travels with the cost: mesh2 is contention-free on a
# torus, pairwise is not, and its text output says the model does not see it
expect "cost --json: mesh2 on torus:8x8 is contention-free" \
    "$("$X" cost --topo torus:8x8 --alg mesh2 --json | jsx 'o.contention_free')" true
expect "cost --json: pairwise on torus:8x8 is not" \
    "$("$X" cost --topo torus:8x8 --alg pairwise --json | jsx 'o.contention_free')" false
if "$X" cost --topo torus:8x8 --alg pairwise | grep -q "congestion-scaled"; then ok; else
    bad "cost text warns that the model ignores contention"
fi
if "$X" cost --topo torus:8x8 --alg mesh2 | grep -q "congestion-scaled"; then
    bad "cost text warns about contention on a contention-free schedule"
else ok; fi
"$X" cost --topo torus:4x4 --alg mesh2 --machine sp2 >"$TMP/out"
expect "cost text exit status" $? 0
for word in start-ups volume copies time "lower bounds" binding; do
    if grep -q "$word" "$TMP/out"; then ok; else bad "cost text shows '$word'"; fi
done

# --- export ---------------------------------------------------------------------------
"$X" export --topo ring:4 --alg ring >"$TMP/e.json"
expect "export exit status" $? 0
expect "export JSON starts with the format" "$(head -c 27 "$TMP/e.json")" '{"format":"xchg-schedule/1"'
expect "export JSON parses, 3 steps" "$(jsx 'o.steps.length' <"$TMP/e.json")" 3
"$X" export --topo ring:4 --alg ring --format json --output "$TMP/sched.json"
expect "export --output exit status" $? 0
if cmp -s "$TMP/e.json" "$TMP/sched.json"; then ok; else bad "export --output differs from stdout"; fi
expect "export --output leaves no temporary file" "$(ls "$TMP" | grep -c 'sched.json.tmp')" 0
"$X" export --topo ring:4 --alg ring --format text --output "$TMP/sched.json"
if head -n1 "$TMP/sched.json" 2>/dev/null | grep -q 'xchg-schedule/1'; then ok; else
    bad "export --output replaced by text"
fi
"$X" export --topo hypercube:2 --alg hc-standard --format text >"$TMP/e.txt"
expect "export text exit status" $? 0
expect "export text has a line per step" "$(grep -c '^step ' "$TMP/e.txt")" 2

# --- compare ----------------------------------------------------------------------------
"$X" compare --topo hypercube:3 --m 8:65536 >"$TMP/cmp.txt"
expect "compare exit status" $? 0
if grep -q '^# Size(B)' "$TMP/cmp.txt" && grep -q 'best' "$TMP/cmp.txt"; then ok; else
    bad "compare prints the OSU-style table"
fi
if grep -q '^crossover: ' "$TMP/cmp.txt"; then ok; else bad "compare prints crossover lines"; fi
if grep -q 'link_volume_blocks' "$TMP/cmp.txt"; then ok; else bad "compare explains the model"; fi
# docs/torus-suh.md, "Own blocks": t1 moves 128 own blocks (i,i) out in step 1
# and back in step 9 on 16x16, where t1:paper and t2 move none
own_moves() { # ALG: "step count" of every message block (i,i)
    "$X" export --topo torus:16x16 --alg "$1" --format text |
        awk '/^step/ {s = $2; next} {n = split($0, a, "blocks "); if (n < 2) next
             m = split(a[2], b, " "); for (i = 1; i <= m; i++) {
                 split(substr(b[i], 2, length(b[i]) - 2), c, ","); if (c[1] == c[2]) k[s]++ } }
             END {for (s in k) print s, k[s]}' | sort -n | tr '\n' ' '
}
expect "t1 on 16x16 moves own blocks in steps 1 and 9" "$(own_moves t1)" "1 128 9 128 "
expect "t1:paper on 16x16 moves no own block" "$(own_moves t1:paper)" ""
expect "t2 on 16x16 moves no own block" "$(own_moves t2)" ""
"$X" cost --topo torus:16x16 --alg t1 --json >"$TMP/t1cost.json"
expect "t1 on 16x16: volume 2176" "$(jsx 'o.volume_blocks' <"$TMP/t1cost.json")" 2176

# the text fits 100 columns: the times table comes in pages, each with the
# size column, every candidate in exactly one page, best and lower bound last;
# --wide prints it in one piece
"$X" compare --topo hypercube:6 --machine paragon --m 16:4096 >"$TMP/cmp6.txt"
expect "compare fits 100 columns" "$(awk 'length($0) > 100' "$TMP/cmp6.txt" | wc -l)" 0
times_headers() { # the header lines of the times table, one word per line
    awk '/^# predicted time/ {t = 1} /^# crossovers/ {t = 0} t && /^# Size/' "$1" |
        tr -s ' ' '\n' | grep -vE '^(#|Size\(B\)|)$'
}
pages=$(awk '/^# predicted time/ {t = 1} /^# crossovers/ {t = 0} t && /^# Size/' "$TMP/cmp6.txt" | wc -l)
if [ "$pages" -ge 2 ]; then ok; else bad "compare on hypercube:6 pages its times table ($pages pages)"; fi
"$X" compare --topo hypercube:6 --machine paragon --m 16:4096 --wide >"$TMP/cmpw.txt"
expect "compare --wide: one times table" \
    "$(awk '/^# predicted time/ {t = 1} /^# crossovers/ {t = 0} t && /^# Size/' "$TMP/cmpw.txt" | wc -l)" 1
expect "compare pages hold the same columns as --wide" "$(times_headers "$TMP/cmp6.txt" | sort)" \
    "$(times_headers "$TMP/cmpw.txt" | sort)"
expect "compare --wide: best and lower-bound end the header" \
    "$(times_headers "$TMP/cmpw.txt" | tail -n 2 | tr '\n' ' ')" "best lower-bound "
"$X" compare --topo hypercube:3 --m 8:65536 --json >"$TMP/cmp.json"
expect "compare --json exit status" $? 0
expect "compare --json: 14 sizes 8..65536" "$(jsx 'L.filter(x => x.type === "size").length' <"$TMP/cmp.json")" 14
# every size line's best is the least time among the eligible algorithms
expect "compare --json: best is the least time" "$(jsx '
const el = new Set(L.filter(x => x.type === "algorithm" && x.eligible).map(x => x.algorithm));
L.filter(x => x.type === "size").every(s => {
  const t = Object.entries(s.times).filter(([k]) => el.has(k)).map(([, v]) => v);
  return Math.abs(s.best_time - Math.min(...t)) < 1e-9 && s.times[s.best] === s.best_time;
})' <"$TMP/cmp.json")" true
# at each crossover the two lines meet, inside the range
expect "compare --json has crossover lines" \
    "$(jsx 'L.filter(x => x.type === "crossover").length >= 1' <"$TMP/cmp.json")" true
expect "compare --json: lines meet at each crossover" "$(jsx '
const A = {}; L.filter(x => x.type === "algorithm").forEach(x => A[x.algorithm] = x);
L.filter(x => x.type === "crossover").every(c => {
  const f = A[c.from], t = A[c.to];
  const tf = f.a + f.b * c.m, tt = t.a + t.b * c.m;
  return c.m >= 8 && c.m <= 65536 && Math.abs(tf - tt) <= 1e-9 * Math.max(1, tf);
})' <"$TMP/cmp.json")" true
# the winner changes at a crossover: the first winner wins below, the second above
expect "compare --json: winners agree with crossovers" "$(jsx '
const S = L.filter(x => x.type === "size"), C = L.filter(x => x.type === "crossover");
C.every(c => S.filter(s => s.m < c.m).slice(-1).every(s => s.best === c.from) &&
             S.filter(s => s.m > c.m).slice(0, 1).every(s => s.best !== c.from))' <"$TMP/cmp.json")" true
# a 2-D torus with a custom machine: contention shows up in the link volume
"$X" compare --topo torus:4x4 --ts 100 --tw 0.01 --m 16:1024 --json >"$TMP/cmp.json"
expect "compare torus exit status" $? 0
expect "compare torus: link volume >= volume" "$(jsx 'L.filter(x => x.type === "algorithm" && "volume_blocks" in x).every(x => x.link_volume_blocks >= x.volume_blocks)' <"$TMP/cmp.json")" true
# a schedule with too many blocks to follow gets the message-level check; one
# with too many messages even for that is costed but marked not verified
"$X" compare --topo hypercube:4 --max-work 3000 --m 1024 --json >"$TMP/cmp.json"
expect "compare --max-work exit status" $? 0
expect "compare --max-work: hc-direct (16*16*15 block-steps, 240 messages) is checked by its messages" \
    "$(jsx 'L.find(x => x.algorithm === "hc-direct").verified' <"$TMP/cmp.json")" \
    "messages only (too large to follow blocks)"
expect "compare --max-work: hc-standard (16*16*4 block-steps) is verified" \
    "$(jsx 'L.find(x => x.algorithm === "hc-standard").verified' <"$TMP/cmp.json")" yes
"$X" compare --topo hypercube:4 --max-work 200 --m 1024 --json >"$TMP/cmp.json"
expect "compare --max-work 200: hc-direct (240 messages) is not verified" \
    "$(jsx 'L.find(x => x.algorithm === "hc-direct").verified' <"$TMP/cmp.json")" "not verified (too large)"
expect "compare --max-work 200: its link volume is not measured" \
    "$(jsx 'L.find(x => x.algorithm === "hc-direct").link_volume_measured' <"$TMP/cmp.json")" false
# --only keeps the named registry entries, with every variant of each
"$X" compare --topo hypercube:4 --only hc-standard,multiphase --m 1024 --json >"$TMP/cmp.json"
expect "compare --only exit status" $? 0
expect "compare --only: just those entries" \
    "$(jsx 'L.filter(x => x.type === "algorithm").every(x => x.algorithm === "hc-standard" || x.algorithm.startsWith("multiphase:"))' <"$TMP/cmp.json")" true
expect "compare --only: multiphase's variants are there" \
    "$(jsx 'L.filter(x => x.type === "algorithm" && x.algorithm.startsWith("multiphase:")).length > 0' <"$TMP/cmp.json")" true
"$X" compare --topo ring:6 --a 5000 --m 64 >"$TMP/cmp.txt"
expect "compare --a, one size exit status" $? 0
if grep -q 'Size(flits)' "$TMP/cmp.txt"; then ok; else bad "compare --a sizes in flits"; fi
# --m takes what plan's --sweep takes: decimal sizes, doubling exactly
"$X" compare --topo ring:6 --a 5000 --m 0.0625:0.5 --json >"$TMP/cmp.json"
expect "compare --m with decimals exit status" $? 0
expect "compare --m 0.0625:0.5: four sizes" \
    "$(jsx 'L.filter(x => x.type === "size").map(x => x.m).join(" ")' <"$TMP/cmp.json")" \
    "0.0625 0.125 0.25 0.5"

# --- Liu et al.'s algorithms padded with virtual nodes ---------------------------
# Where their sizes do not fit (torus:5x7, torus:6x10), compare offers the
# :virtual forms, verified block by block, with the start-ups, volume and
# time `xchg cost` gives the same spec; plan picks at2:virtual on torus:6x10
# at 1 KiB on the Paragon (docs/virtual-nodes.md shows the times).
for topo in torus:5x7 torus:6x10; do
    "$X" compare --topo "$topo" --m 1024 --json >"$TMP/pad.cmp"
    expect "compare $topo exit status" $? 0
    expect "compare $topo: the padded Liu forms, no plain one" "$(jsx '
L.filter(x => x.type === "algorithm" && /^(ar1|at2|pt4|ptk|mt3|mtk)\b/.test(x.algorithm))
 .map(x => x.algorithm).join(" ")' <"$TMP/pad.cmp")" "at2:virtual ptk:virtual mtk:virtual"
    for alg in at2:virtual ptk:virtual mtk:virtual; do
        "$X" cost --topo "$topo" --alg "$alg" --m 1024 --json >"$TMP/pad.cost"
        expect "cost $topo $alg exit status" $? 0
        cat "$TMP/pad.cmp" "$TMP/pad.cost" >"$TMP/pad.both"
        expect "compare $topo: $alg verified, contention-free, costed as xchg cost says" "$(jsx '
const a = L.find(x => x.type === "algorithm" && x.algorithm === "'"$alg"'");
const t = L.find(x => x.type === "size").times["'"$alg"'"];
a.verified === "yes" && a.eligible && a.link_conflicts === 0 &&
  a.link_volume_blocks === a.volume_blocks && a.startups === o.startups &&
  a.volume_blocks === o.volume_blocks && Math.abs(t - o.time) <= 1e-9 * o.time ||
  JSON.stringify([a, t, o])' <"$TMP/pad.both")" true
    done
done
"$X" plan --topo torus:6x10 --m 1024 --json >"$TMP/pad.plan"
expect "plan torus:6x10 exit status" $? 0
expect "plan torus:6x10 --m 1024 picks at2:virtual" "$(jsx 'o.algorithm' <"$TMP/pad.plan")" \
    at2:virtual

# --- one cost model: compare and plan name the same winner ----------------------
# The same question (network, machine, block sizes) asked of compare (which
# verifies every candidate) and plan (which measures only the link volumes
# it must) gets the same winner at every size and the same crossovers, and
# the same time line for every candidate. torus:64x64 is the slow one
# (compare verifies every candidate); it runs once, in the plain build: the
# sanitizer build (XCHG_TEST_REDUCED=1, CMakeLists.txt) asks torus:32x32,
# the same question with 22 of 64x64's 25 candidates, in far less time.
big_torus=torus:64x64
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && big_torus=torus:32x32
for topo in torus:8x8 $big_torus hypercube:6 ring:16; do
    "$X" compare --topo "$topo" --m 1:65536 --threads 0 --json >"$TMP/same.cmp"
    expect "same winner: compare $topo exit status" $? 0
    "$X" plan --topo "$topo" --sweep 1:65536 --threads 0 --json >"$TMP/same.plan"
    expect "same winner: plan $topo exit status" $? 0
    cat "$TMP/same.cmp" "$TMP/same.plan" >"$TMP/same.both"
    expect "same winner on $topo at every size" "$(jsx '
const C = L.filter(x => x.type === "size" && "times" in x);
const P = L.filter(x => x.type === "size" && !("times" in x));
C.length === 17 && P.length === 17 &&
  C.every((c, i) => c.m === P[i].m && c.best === P[i].best &&
                    Math.abs(c.best_time - P[i].time) <= 1e-9 * c.best_time) ||
  JSON.stringify(C.map((c, i) => [c.m, c.best, P[i] && P[i].best]))' <"$TMP/same.both")" true
    expect "same crossovers on $topo" "$(jsx '
const X = L.filter(x => x.type === "crossover");
const n = X.length / 2, C = X.slice(0, n), P = X.slice(n);
X.length % 2 === 0 && C.every((c, i) => c.from === P[i].from && c.to === P[i].to &&
                                        Math.abs(c.m - P[i].m) <= 1e-9 * c.m)' <"$TMP/same.both")" true
    expect "same lines on $topo" "$(jsx '
const A = {}; L.filter(x => x.type === "algorithm").forEach(x => A[x.algorithm] = x);
const P = L.filter(x => x.type === "candidate");
P.length === Object.keys(A).length && P.every(p => {
  const a = A[p.algorithm];
  return a && a.a === p.fixed && a.b === p.per_unit && a.eligible === p.eligible &&
         a.link_volume_blocks === p.link_volume_blocks;
})' <"$TMP/same.both")" true
done

# --- sim: the simulator through the CLI ---------------------------------------
# hc-standard on array:4, worked by hand in docs/simulator.md: its second
# step sends two messages over each of two links, so 2 ts + 3 messages' time
"$X" sim --topo array:4 --alg hc-standard --m 100 --ts 75 --tw 0.011 --json >"$TMP/sim.json"
expect "sim --json exit status" $? 0
expect "sim: array:4 worked by hand" "$(jsx 'o.nodes === 4 && o.messages === 8 && o.waited === 2 &&
  Math.abs(o.time - (2 * 75 + 3 * 2 * 100 * 0.011)) < 1e-9 &&
  Math.abs(o.predicted - (2 * 75 + 2 * 2 * 100 * 0.011)) < 1e-9 && o.busiest_links[0].messages === 2' <"$TMP/sim.json")" true
# contention-free: the simulated time is the cost model's
"$X" sim --topo torus:16x16 --alg t2 --m 64 --json >"$TMP/sim.json"
expect "sim: t2 on 16x16 in the model's time" "$(jsx 'o.time === o.predicted && o.waited === 0' <"$TMP/sim.json")" true
# the trace: one JSON line per message, ready <= start <= end
"$X" sim --topo torus:8x8 --alg hc-direct --mode async --ports all --trace "$TMP/trace.jsonl" \
    --json >"$TMP/sim.json"
expect "sim --trace exit status" $? 0
expect "sim --trace: one line per message" "$(wc -l <"$TMP/trace.jsonl")" \
    "$(jsx 'o.messages' <"$TMP/sim.json")"
expect "sim --trace: ready <= start <= end" "$(jsx 'L.every(x => x.ready <= x.start && x.start <= x.end && x.blocks === 1)' <"$TMP/trace.jsonl")" true
# compare --sim: a second ranking by simulated time; a contention-free
# candidate simulates in its model time, the others in at least theirs
"$X" compare --topo torus:8x8 --m 64:4096 --sim --json >"$TMP/simcmp.json"
expect "compare --sim exit status" $? 0
expect "compare --sim: times and best per size" "$(jsx '
const A = {}; L.filter(x => x.type === "algorithm").forEach(x => A[x.algorithm] = x);
const S = L.filter(x => x.type === "size");
S.length === 7 && S.every(z => Object.keys(z.sim_times).length === Object.keys(z.times).length &&
  Object.keys(z.sim_times).every(a => A[a].contention_free_claim
      ? Math.abs(z.sim_times[a] - z.times[a]) <= 1e-9 * z.times[a]
      : z.sim_times[a] >= z.times[a] * (1 - 1e-12)) &&
  Object.keys(z.sim_times).every(a => !A[a].eligible || z.sim_times[z.sim_best] <= z.sim_times[a]))' \
    <"$TMP/simcmp.json")" true

# sim --routing vct: the two hand-built cases of docs/simulator.md are in
# test_sim; here a contention-free schedule runs in the model's time either
# way, and the text and JSON say which routing ran
"$X" sim --topo torus:16x16 --alg t2 --m 64 --routing vct --json >"$TMP/sim.json"
expect "sim --routing vct: t2 in the model's time" "$(jsx 'o.routing === "vct" && o.time === o.predicted && o.waited === 0' <"$TMP/sim.json")" true
"$X" sim --topo torus:4x4 --alg pairwise --routing vct | grep -q '^mode .*virtual cut-through' && ok ||
    bad "sim --routing vct: the text does not say virtual cut-through"

# --- schedules from files (--schedule): an export read back gives what --alg
# gives, for verify, cost and sim; a file written by hand runs too
for f in json text; do
    "$X" export --topo torus:4x4 --alg t2 --format $f --output "$TMP/t2.$f"
    for cmd in "verify" "cost --m 256" "sim --m 256 --mode async --th 0.5"; do
        "$X" $cmd --topo torus:4x4 --alg t2 --json >"$TMP/a.json"
        "$X" $cmd --schedule "$TMP/t2.$f" --json >"$TMP/b.json"
        expect "$cmd --schedule ($f) exit status" $? 0
        expect "$cmd --schedule ($f): the same results as --alg" "$(cat "$TMP/a.json" "$TMP/b.json" | jsx '
const [a, b] = L;
// a file claims nothing (contention is counted, not failed), and its
// schedule was not estimated
const skip = ["seconds", "threads", "contention_free", "contention_free_claim", "estimate_bytes", "estimate_work", "events"];
const diff = Object.keys(a).filter(k => !skip.includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]));
L.length !== 2 ? L.length + " objects, not 2" : diff.length ? diff.join(",") : "same"')" same
    done
done
cat >"$TMP/hand.txt" <<'HAND'
# xchg-schedule/1 topology ring:3 algorithm by-hand nodes 3 steps 2
step 1
  0 -> 1  route d0+1x1  blocks (0,1) (0,2)
  1 -> 2  route d0+1x1  blocks (1,2) (1,0)
  2 -> 0  route d0+1x1  blocks (2,0) (2,1)
step 2
  0 -> 1  route d0+1x1  blocks (2,1)
  1 -> 2  route d0+1x1  blocks (0,2)
  2 -> 0  route d0+1x1  blocks (1,0)
HAND
"$X" cost --schedule "$TMP/hand.txt" --m 1000 --ts 10 --tw 0.01 --json >"$TMP/b.json"
expect "cost of a schedule written by hand" "$(jsx 'o.algorithm === "by-hand" && o.startups === 2 && o.volume_blocks === 3 && Math.abs(o.time - (2 * 10 + 3 * 1000 * 0.01)) < 1e-9' <"$TMP/b.json")" true

# --- progress: a bar on stderr when it is a terminal (script(1) gives the
# command one), nothing when it is a file; XCHG_PROGRESS_AFTER=0 shows it at
# once instead of after 2 s
XCHG_PROGRESS_AFTER=0 script -qec "'$X' verify --topo hypercube:10 --alg hc-direct >/dev/null" \
    /dev/null >"$TMP/tty" 2>&1
expect "progress bar on a terminal" \
    "$(grep -c 'verifying \[#*\.*\] *[0-9]*%  about [0-9]* s left' "$TMP/tty")" 1
expect "progress bar erased at the end" "$(tail -c 4 "$TMP/tty" | od -An -c | tr -d ' ')" '\r033[K'
XCHG_PROGRESS_AFTER=0 "$X" verify --topo hypercube:10 --alg hc-direct >/dev/null 2>"$TMP/notty"
expect "no progress bar when stderr is a file" "$(wc -c <"$TMP/notty")" 0

finish
