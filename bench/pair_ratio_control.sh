#!/usr/bin/env bash
# pair_ratio_control.sh - how far xchg-bench --pair's two ratios stray
# when nothing differs: MPI_Scatter timed against itself (--alg mpi
# --pair, the library's call on both sides of every pair), 8 B to 1 MiB,
# on 16 ranks (R runs) and 64 ranks (R runs), each size timed for at
# least 1 s (2 s at 64 ranks) as bench/mpi_ops.sh --paired times it. For
# each rank count it gives the range of the median ratio (each side's
# median call) and of the pair ratio (each iteration's two calls
# compared), over every size and run, and how many are beyond 1.05x and
# 1.1x either way (docs/mpi-ops.md, Measured).
#
# Usage: bench/pair_ratio_control.sh [--build DIR] [--runs R]
#   --build DIR   the Open MPI build tree (default <repo>/build)
#   --runs R      runs per rank count (default 3)
# Writes bench/results/pair_ratio_control.txt. About 5 minutes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=$repo/build
runs=3
die() {
    echo "pair_ratio_control.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --runs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a count >= 1"
        runs=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --build DIR, --runs R, --help" ;;
    esac
done
if ! command -v cmake >/dev/null || ! command -v node >/dev/null ||
    ! command -v mpicc.openmpi >/dev/null; then
    echo "pair_ratio_control.sh: installing what is missing (scripts/install-deps.sh)" >&2
    bash "$repo/scripts/install-deps.sh" >&2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=openmpi >/dev/null
fi
cmake --build "$build" --target xchg_bench -j2 >/dev/null
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq 1 "$runs"); do
    for np in 16 64; do
        # bench/mpi_ops.sh --paired's counts (its iters_of)
        t=1 i=20 il=5
        [ "$np" -ge 64 ] && t=2 i=10 il=3
        mpi_run "$np" "$build/xchg-bench" --op scatter --alg mpi --pair -m 8:1M -i "$i" -x 10 \
            --iterations-large "$il" --warmup-large 1 --min-time "$t" --json \
            >"$tmp/$np.$r.json" 2>"$tmp/$np.$r.err" ||
            die "xchg-bench on $np ranks failed: $(head -c 300 "$tmp/$np.$r.err")"
    done
done
out=$here/results/pair_ratio_control.txt
{
    echo "# xchg-bench --pair's two ratios when nothing differs: MPI_Scatter against itself"
    echo "# command: bench/pair_ratio_control.sh --runs $runs"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)  wall time: $(($(date +%s) - start)) s"
    echo "# machine: $(nproc) online cores; ranks oversubscribed on one node; load average $load_start at the start"
    echo "# each run: mpirun -np P xchg-bench --op scatter --alg mpi --pair -m 8:1M --min-time T --json"
    echo "# (T = 1 s at 16 ranks, 2 s at 64); median ratio = each side's median call (per rank,"
    echo "# averaged over the ranks), their ratio; pair ratio = each rank's median over the iterations"
    echo "# of one side's call / the other side's in that iteration (the order alternating), averaged"
    echo "# over the ranks. Over every size of every run:"
    node - "$tmp" "$runs" <<'JS'
const fs = require("fs");
const [dir, runs] = [process.argv[2], +process.argv[3]];
for (const np of [16, 64]) {
  const L = [];
  for (let r = 1; r <= runs; r++)
    L.push(...fs.readFileSync(`${dir}/${np}.${r}.json`, "utf8").split("\n").filter(l => l.startsWith("{")).map(l => JSON.parse(l)));
  for (const [name, key] of [["median ratio", "median_ratio"], ["pair ratio", "pair_ratio"]]) {
    const v = L.map(o => o[key]);
    const beyond = x => v.filter(c => c > x || c < 1 / x).length;
    console.log(`p=${String(np).padEnd(3)} ${name.padEnd(13)} ${v.length} sizes: ${Math.min(...v).toFixed(2)}..${Math.max(...v).toFixed(2)}, ` +
                `${beyond(1.05)} beyond 1.05x, ${beyond(1.1)} beyond 1.1x either way`);
  }
}
JS
} >"$out"
cat "$out"
