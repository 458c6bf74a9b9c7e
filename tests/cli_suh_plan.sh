#!/usr/bin/env bash
# cli_suh_plan.sh - Suh et al.'s family and the planner from the command
# line: t1.N specs verify, `xchg plan` names a winner no slower than any
# candidate it lists, --only t1.x keeps to t1.x, --sweep prints crossovers
# where the two candidates' lines really cross, a schedule that is not
# contention-free is charged its measured link volume (and one whose link
# volume is not measured never wins), JSON lines parse, and bad input exits
# 2 with a message on stderr. JSON is checked with node.
# Usage: bash tests/cli_suh_plan.sh path/to/xchg
X="${1:?usage: cli_suh_plan.sh path/to/xchg}"
SUITE=cli_suh_plan
source "$(dirname "$0")/lib_cli.sh"

# t1.2 is t1.x:2; both verify on 64x64 with the same counts.
a=$("$X" verify --topo torus:64x64 --alg t1.2 --json | jsx 'L[0].ok + " " + L[0].startups + " " + L[0].volume_blocks')
b=$("$X" verify --topo torus:64x64 --alg t1.x:2 --json | jsx 'L[0].ok + " " + L[0].startups + " " + L[0].volume_blocks')
expect "t1.2 verifies" "${a%% *}" true
expect "t1.2 = t1.x:2" "$a" "$b"

# plan --m: the best is no slower than any candidate at that m.
out=$("$X" plan --topo torus:64x64 --a 5000 --m 3 --only t1,t1.x,t2 --json)
expect "plan exit" "$?" 0
v=$(echo "$out" | jsx 'const c = L.filter(o => o.type === "candidate"), b = L.find(o => o.type === "best");
  c.length + " " + c.every(o => o.fixed + o.per_unit * 3 >= b.time - 1e-6) + " " +
  c.some(o => o.algorithm === b.algorithm)')
expect "plan --m candidates/best" "$v" "4 true true"

# --only t1.x keeps to the t1.x variants (t1.1 .. t1.3 on 128x128).
v=$("$X" plan --topo torus:128x128 --a 5000 --m 5 --only t1.x --json |
    jsx 'L.filter(o => o.type === "candidate").map(o => o.algorithm).join(",")')
expect "only t1.x" "$v" "t1.1,t1.2,t1.3"

# --sweep: at each crossover the two lines are equal, and the winner changes.
v=$("$X" plan --topo torus:64x64 --a 5000 --sweep 0.0625:4096 --only t1,t1.x,t2 --json |
    jsx 'const c = {}; L.filter(o => o.type === "candidate").forEach(o => c[o.algorithm] = o);
  const x = L.filter(o => o.type === "crossover");
  x.length > 0 && x.every(k => { const f = c[k.from], t = c[k.to];
    return Math.abs((f.fixed + f.per_unit * k.m) - (t.fixed + t.per_unit * k.m)) <= 1e-6 * f.fixed
      && t.per_unit < f.per_unit; })')
expect "sweep crossovers are real" "$v" true

# The line charges the link volume: on torus:8x8 hc-direct's is measured
# (153 blocks against a volume of 63), contention-free ones are claimed.
v=$("$X" plan --topo torus:8x8 --m 65536 --json |
    jsx 'const h = L.find(o => o.algorithm === "hc-direct"), t = L.find(o => o.algorithm === "t1");
  [h.link_volume_source, h.link_volume_blocks, h.volume_blocks, h.eligible,
   t.link_volume_source, t.link_volume_blocks, o.algorithm].join(" ")')
expect "plan charges the link volume" "$v" "measured 153 63 true claimed 192 hc-direct"
# Over --max-work the link volume is not measured: shown, not eligible.
v=$("$X" plan --topo ring:16 --m 64 --max-work 100 --json |
    jsx 'const h = L.find(o => o.algorithm === "hc-direct");
  [h.link_volume_source, h.eligible, h.why.length > 0, o.algorithm].join(" ")')
expect "plan: an unmeasured link volume may not win" "$v" "not measured false true ar1"

# Bad input: exit 2, message on stderr, nothing on stdout.
for args in "--topo torus:64x64 --a 5000" \
            "--topo torus:64x64 --a 5000 --m 1 --sweep 1:2" \
            "--topo torus:64x64 --a 5000 --m 1 --only nope" \
            "--topo ring:8 --a 5000 --m 1 --only t1" \
            "--topo torus:64x64 --a 5000 --sweep 8:2" \
            "--topo torus:64x64 --a 5000 --m -1" \
            "--topo ring:16 --m 64 --max-work 10 --only pairwise"; do
    # shellcheck disable=SC2086
    so=$("$X" plan $args 2>/tmp/cli_suh_plan_err.$$)
    rc=$?
    expect "plan $args exit" "$rc" 2
    expect "plan $args stdout" "$so" ""
    if [ -s /tmp/cli_suh_plan_err.$$ ]; then ok; else bad "plan $args: no message"; fi
done
rm -f /tmp/cli_suh_plan_err.$$
"$X" verify --topo torus:16x16 --alg t1.1 >/dev/null 2>&1
expect "t1.1 on 16x16 refused" "$?" 2

finish
