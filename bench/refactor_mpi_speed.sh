#!/usr/bin/env bash
# refactor_mpi_speed.sh - is the executor as fast as it was before issue 33
# rewrote it into one call path? Builds xchg-bench from a base revision
# (default 453ac38, the last commit before the rewrite) in a temporary git
# worktree and from the working tree, both Release with Open MPI, and runs
# them interleaved (base, current, base, current, ...) so both see the same
# load on this shared machine.
#
# Each run is `xchg-bench --alg auto --pair --json`: every timed iteration
# makes one call of xchg's and one of the MPI library's own (PMPI_), so each
# side's speed is read as its median ratio to the library in the same run
# (xchg-bench's `median_ratio`), which a drift of the machine moves little.
# The exchange (the sizes of bench/mpi_alltoall.sh) and every other
# operation (those of bench/mpi_ops.sh), at p = 16 and p = 64 ranks,
# oversubscribed. Per (operation, p, size): the median over the rounds of
# each side's ratio, and change = current / base with its min..max over the
# rounds; per (operation, p): the median change, the worst size, and
# whether it is within noise: the median change within max(0.1, the base's
# own spread over the rounds, as a fraction of its median) of 1. Where the
# two sides' auto chose differently, the line says both.
#
# Usage: bench/refactor_mpi_speed.sh [--rounds R] [--base REV] [--build DIR]
#                                    [--quick] [--out FILE]
#   --rounds R   interleaved rounds (default 3)
#   --base REV   the revision before (default 453ac38)
#   --build DIR  the current build tree (default <repo>/build)
#   --quick      the exchange and bcast only, p = 16, one round (a try-out)
#   --out FILE   results (default bench/results/refactor_mpi_speed.txt)
# Takes about 35 minutes on the 2-core machine the results were made on.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
rounds=3
base=453ac38
build=$repo/build
quick=0
out=$here/results/refactor_mpi_speed.txt
cmdline="bench/refactor_mpi_speed.sh $*"

die() {
    echo "refactor_mpi_speed.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a count >= 1, got '${2:-}'"
        rounds=$2; shift 2 ;;
    --base) [ $# -ge 2 ] || die "--base needs a revision"; base=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --rounds R, --base REV, --build DIR, --quick, --out FILE, --help" ;;
    esac
done
command -v node >/dev/null && command -v mpicc.openmpi >/dev/null || bash "$repo/scripts/install-deps.sh"
git -C "$repo" rev-parse --verify -q "$base^{commit}" >/dev/null || die "no revision '$base' in $repo"
[ "$quick" = 1 ] && rounds=1

# shellcheck source=lib_base_tree.sh
source "$here/lib_base_tree.sh" "$repo" "$base"
cmake -S "$work/base-src" -B "$work/base" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=openmpi >/dev/null
cmake --build "$work/base" --target xchg_bench -j2 >/dev/null
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xchg_bench -j2 >/dev/null
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"
export OMPI_MCA_mpi_yield_when_idle=1

ops="alltoall bcast reduce allreduce reduce_scatter scan allgather gather scatter shift"
ps="16 64"
if [ "$quick" = 1 ]; then
    ops="alltoall bcast"
    ps=16
fi
# sizes and iterations per p: 8 B to 64 KiB at 16 ranks, to 4 KiB at 64
# (the sizes where the runs of bench/mpi_alltoall.sh and mpi_ops.sh differ
# most from the library's; the calls take milliseconds at 64 ranks)
flags() {
    if [ "$1" = 16 ]; then echo "-m 8:64K -i 50 -x 5"; else echo "-m 8:4K -i 10 -x 2"; fi
}
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq 1 "$rounds"); do
    for np in $ps; do
        for op in $ops; do
            for side in base cur; do
                dir=$build
                [ "$side" = base ] && dir=$work/base
                # shellcheck disable=SC2046
                mpi_run "$np" "$dir/xchg-bench" --op "$op" --alg auto --pair $(flags "$np") --json \
                    >"$work/$op.$np.$side.$r.json"
            done
        done
    done
    echo "round $r of $rounds done ($(($(date +%s) - start)) s)" >&2
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

{
    echo "# xchg's executor before and after issue 33's rewrite: each side's median"
    echo "# call over the MPI library's in the same run (xchg-bench --pair, median_ratio)"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  wall time: ${elapsed} s"
    echo "# base: $(git -C "$repo" log -1 --format='%h %s' "$base" | cut -c1-72)"
    echo "# current: $(git -C "$repo" log -1 --format='%h' HEAD)$(git -C "$repo" diff --quiet HEAD -- src include tools || echo ' + uncommitted changes')"
    echo "# machine: $(nproc) online cores, ranks oversubscribed; $("$MPI_LAUNCHER" --version 2>&1 | head -1)"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# rounds: $rounds, base and current interleaved; flags: p=16 $(flags 16); p=64 $(flags 64)"
    node - "$work" "$rounds" "$ops" "$ps" <<'EOF'
const fs = require("fs");
const [dir, rounds, ops, ps] = [process.argv[2], +process.argv[3], process.argv[4].split(" "), process.argv[5].split(" ")];
const read = f => fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l.startsWith("{")).map(l => JSON.parse(l));
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const f2 = x => x.toFixed(2);
const verdicts = [];
for (const p of ps) for (const op of ops) {
  const runs = side => Array.from({length: rounds}, (_, r) => read(`${op}.${p}.${side}.${r + 1}.json`));
  const B = runs("base"), C = runs("cur");
  console.log(`\n## ${op}, p = ${p}`);
  console.log("# size    base ratio  current ratio  change [min..max]   auto's choice (base / current)");
  const changes = [];
  let spread = 0;
  B[0].forEach((row, k) => {
    const rb = B.map(R => R[k].median_ratio), rc = C.map(R => R[k].median_ratio);
    const mb = med(rb), mc = med(rc), ch = rc.map((x, r) => x / rb[r]);
    changes.push([row.bytes, med(ch)]);
    spread = Math.max(spread, (Math.max(...rb) - Math.min(...rb)) / 2 / mb);
    const ab = [...new Set(B.map(R => R[k].alg))].join("/"), ac = [...new Set(C.map(R => R[k].alg))].join("/");
    console.log(`${String(row.bytes).padEnd(8)}${f2(mb).padStart(11)}${f2(mc).padStart(15)}` +
                `${f2(med(ch)).padStart(8)} [${f2(Math.min(...ch))}..${f2(Math.max(...ch))}]`.padEnd(16) +
                `   ${ab === ac ? ab : ab + " / " + ac}`);
  });
  const mch = med(changes.map(c => c[1]));
  const worst = changes.reduce((a, b) => (b[1] > a[1] ? b : a));
  const band = Math.max(0.1, spread);
  const ok = Math.abs(mch - 1) <= band;
  console.log(`# median change ${f2(mch)}, worst ${f2(worst[1])} at ${worst[0]} B; noise band ±${f2(band)}: ` +
              (ok ? "within noise" : mch < 1 ? "faster" : "SLOWER"));
  verdicts.push(`${op.padEnd(15)} p = ${p}: median change ${f2(mch)} (band ±${f2(band)}) ` +
                (ok ? "within noise" : mch < 1 ? "faster" : "SLOWER"));
}
console.log("\n## Summary (change = current / base of the median ratio to the library)");
for (const v of verdicts) console.log(v);
EOF
} >"$out"
cat "$out"
