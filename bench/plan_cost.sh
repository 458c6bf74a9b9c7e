#!/usr/bin/env bash
# plan_cost.sh - what xchg's plans cost programs that use many counts and
# communicators, against the MPI library's own MPI_Alltoall in the same
# runs (Open MPI, p = 16 and 64, oversubscribed on this machine).
#
# Three measures, each with the drop-in (LD_PRELOAD=libxchg_mpi.so) and,
# interleaved with it, without (the control: the library on both sides):
#   new count  bench/plan_cost.c "first": after 100 other new counts (a
#              program that has run a while: what is made once per
#              communicator is made), 60 counts never seen before
#              (4 B to 16 KiB blocks); at each, the slowest rank's time of
#              the first MPI_Alltoall at that count (xchg: a new plan)
#              over the same of PMPI_Alltoall (the library). Per count the
#              median ratio over the runs. Goal: at most 2 at every count.
#   in a row   bench/plan_cost.c "row": 100 distinct counts in a row
#              through MPI_Alltoall over the same 100 through
#              PMPI_Alltoall, each side first in half of them, new counts
#              each round, after a round that warms the process (2 rounds a
#              run). Goal: the median ratio at most 1.2.
#   programs   bench/many_comms.c, a program that knows nothing of xchg:
#              7 communicators made and freed, counts 1..MAX ints doubling,
#              each exchanged into a new buffer and in place. Its time with
#              the drop-in over its time without. Goal: the median ratio at
#              most 1.2.
# The communicator's state is made by a warm-up call before "new count"
# and "in a row" (what a new communicator costs is in "programs").
#
# Usage: bench/plan_cost.sh [--runs R] [--build DIR] [--out FILE]
#   --runs R    interleaved runs of each measure per p (default 5)
#   --build DIR build tree (default <repo>/build; configured and built here
#               when a program is missing)
#   --out FILE  results file (default bench/results/plan_cost.txt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
runs=5
build=$repo/build
out=$here/results/plan_cost.txt
cmdline="bench/plan_cost.sh $*"

die() {
    echo "plan_cost.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a count >= 1, got '${2:-}'"
        runs=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --runs R, --build DIR, --out FILE, --help" ;;
    esac
done
command -v node >/dev/null && command -v mpicc.openmpi >/dev/null || bash "$repo/scripts/install-deps.sh"
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target plan_cost many_comms xchg_mpi -j2 >/dev/null
lib=$build/libxchg_mpi.so
[ -x "$build/plan_cost" ] && [ -f "$lib" ] || die "$build lacks plan_cost or libxchg_mpi.so (is an MPI found?)"
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"
export OMPI_MCA_mpi_yield_when_idle=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# run NAME NP SIDE PROGRAM ARGS...: SIDE xchg (preloaded) or lib; stdout
# appended to $tmp/NAME.SIDE.
run() {
    local name=$1 np=$2 side=$3
    shift 3
    if [ "$side" = xchg ]; then
        mpi_run "$np" env LD_PRELOAD="$lib" "$@" >>"$tmp/$name.$side"
    else
        mpi_run "$np" "$@" >>"$tmp/$name.$side"
    fi
}

for np in 16 64; do
    max=32768
    [ "$np" = 64 ] && max=4096
    echo "$np $max" >>"$tmp/configs"
    for r in $(seq 1 "$runs"); do
        for side in xchg lib; do
            run "first$np" "$np" "$side" "$build/plan_cost" first 60
            run "row$np" "$np" "$side" "$build/plan_cost" row 100 2
            run "comms$np" "$np" "$side" "$build/many_comms" "$max"
        done
        echo "p = $np: run $r of $runs done ($(($(date +%s) - start)) s)" >&2
    done
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
library=$("$MPI_LAUNCHER" --version 2>&1 | head -1)

{
    echo "# What a plan costs a program: xchg under the drop-in against the MPI library's"
    echo "# own MPI_Alltoall in the same runs (docs/mpi.md, \"What a plan costs\")"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s"
    echo "# machine: $(nproc) online cores; ranks oversubscribed on one node; $library"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# runs: $runs of each measure, with the drop-in and without (the control) interleaved"
    node - "$tmp" <<'EOF'
const fs = require("fs");
const dir = process.argv[2];
const lines = f => fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l);
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const f2 = x => x.toFixed(2);
const verdicts = [];
for (const cfg of lines("configs")) {
  const [p, max] = cfg.split(" ").map(Number);
  console.log(`\n## p = ${p}`);
  // new count: per count, the ratio T_MPI/T_PMPI of each run, then the median
  for (const side of ["xchg", "lib"]) {
    const per = new Map();
    for (const l of lines(`first${p}.${side}`)) {
      const [, count, bytes, tm, tl] = l.split(" ");
      if (!per.has(+bytes)) per.set(+bytes, []);
      per.get(+bytes).push(+tm / +tl);
    }
    const meds = [...per.entries()].map(([b, r]) => [b, med(r)]).sort((a, b) => a[0] - b[0]);
    const vals = meds.map(m => m[1]);
    const worst = meds.reduce((a, b) => (b[1] > a[1] ? b : a));
    const over2 = vals.filter(v => v > 2).length, over12 = vals.filter(v => v > 1.2).length;
    console.log(`new count, ${side === "xchg" ? "xchg (drop-in)" : "control (library on both)"}: ` +
                `${meds.length} counts, 4 B..16 KiB blocks; median ratio per count: ` +
                `median ${f2(med(vals))}, range ${f2(Math.min(...vals))}..${f2(worst[1])} ` +
                `(worst at ${worst[0]} B), ${over12} over 1.2, ${over2} over 2`);
    if (side === "xchg")
      verdicts.push([`p = ${p}: a new count costs at most 2x the library's call ` +
                     `(worst count's median ratio ${f2(worst[1])})`, worst[1] <= 2]);
  }
  // in a row
  for (const side of ["xchg", "lib"]) {
    const r = lines(`row${p}.${side}`).map(l => { const [, , tm, tl] = l.split(" "); return +tm / +tl; });
    const t = lines(`row${p}.${side}`).map(l => l.split(" ").map(Number));
    console.log(`100 new counts in a row, ${side === "xchg" ? "xchg" : "control"}: ratio per run ` +
                `${r.map(f2).join(" ")}; median ${f2(med(r))} (xchg side ${f2(med(t.map(x => x[2])) * 1e3)} ms, ` +
                `library ${f2(med(t.map(x => x[3])) * 1e3)} ms)`);
    if (side === "xchg")
      verdicts.push([`p = ${p}: 100 new counts in a row cost at most 1.2x the library's ` +
                     `(median ${f2(med(r))})`, med(r) <= 1.2]);
  }
  // programs
  const secs = side => lines(`comms${p}.${side}`).map(l => +l.match(/([0-9.]+) s/)[1]);
  const X = secs("xchg"), L = secs("lib");
  const ratios = X.map((x, i) => x / L[i]);
  console.log(`many_comms ${max}: ${lines(`comms${p}.xchg`)[0].replace(/, [0-9.]+ s$/, "")}`);
  console.log(`  with the drop-in (s): ${X.map(f2).join(" ")}; median ${f2(med(X))}`);
  console.log(`  without (s):          ${L.map(f2).join(" ")}; median ${f2(med(L))}`);
  console.log(`  ratio per run: ${ratios.map(f2).join(" ")}; median ${f2(med(ratios))}`);
  verdicts.push([`p = ${p}: a program of many communicators runs within 1.2x of its time ` +
                 `without the drop-in (median ${f2(med(ratios))})`, med(ratios) <= 1.2]);
}
console.log("\n## Goals");
for (const [what, ok] of verdicts) console.log(`${ok ? "met    " : "NOT met"}  ${what}`);
EOF
} >"$out"
cat "$out"
