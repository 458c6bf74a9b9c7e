#!/usr/bin/env bash
# plan_cost_v.sh - what the drop-in costs a program whose MPI_Alltoallv
# counts change at every call, on three communicators in turn, from one
# thread or from two at once (MPI_THREAD_MULTIPLE), against the MPI
# library's own MPI_Alltoallv in the same runs (bench/plan_cost_v.c).
#
# Configurations: Open MPI at p = 16 and MPICH at p = 4 (it busy-polls
# when oversubscribed: small p), each with 1 and 2 threads. Each run is
# one mpirun of plan_cost_v: a warm-up round, then ROUNDS rounds of 100
# calls a thread through MPI_Alltoallv and the same calls through
# PMPI_Alltoallv, the order alternating; blocks of 0 to 1 KiB, new counts
# at every call, every int checked. Under the drop-in (LD_PRELOAD) the
# ratio of a round is xchg's row over the library's; without it (the
# control) both rows are the library's, which shows what the ratio's
# noise is. Goal: xchg's median ratio at most 1.1 (no new cost where
# counts change at every call).
#
# Usage: bench/plan_cost_v.sh [--runs R] [--build DIR] [--build-mpich DIR]
#                             [--no-mpich] [--out FILE]
#   --runs R          mpiruns of each configuration and side (default 3)
#   --build DIR       Open MPI build tree (default <repo>/build)
#   --build-mpich DIR MPICH build tree (default <repo>/build-mpich)
#   --no-mpich        skip the MPICH configurations
#   --out FILE        results (default bench/results/plan_cost_v.txt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
runs=3
build=$repo/build
build_mpich=$repo/build-mpich
mpich=1
out=$here/results/plan_cost_v.txt
cmdline="bench/plan_cost_v.sh $*"
rounds=5
calls=100
maxbytes=1024

die() {
    echo "plan_cost_v.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a count >= 1, got '${2:-}'"
        runs=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --build-mpich) [ $# -ge 2 ] || die "--build-mpich needs a directory"; build_mpich=$2; shift 2 ;;
    --no-mpich) mpich=0; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --runs R, --build DIR, --build-mpich DIR, --no-mpich, --out FILE, --help" ;;
    esac
done
# shellcheck source=lib_bench.sh
source "$here/lib_bench.sh"
bench_deps
# the program, and the drop-in it runs under
bench_build "$build" openmpi libxchg_mpi.so plan_cost_v xchg_mpi
[ "$mpich" = 1 ] && bench_build "$build_mpich" mpich libxchg_mpi.so plan_cost_v xchg_mpi
export OMPI_MCA_mpi_yield_when_idle=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# config NAME TREE NP THREADS: R runs of each side, interleaved; stdout in
# $tmp/NAME.xchg and $tmp/NAME.lib.
config() {
    local name=$1 tree=$2 np=$3 threads=$4
    # shellcheck source=../tests/mpi/lib_mpi.sh
    source "$repo/tests/mpi/lib_mpi.sh" "$(bench_launcher "$tree")"
    local version
    version=$("$MPI_LAUNCHER" --version 2>&1 | grep -m1 -i 'version\|open mpi\|openrte' | sed 's/^ *//')
    echo "$name $np $threads $(mpi_flavor): $version" >>"$tmp/configs"
    for r in $(seq 1 "$runs"); do
        mpi_run "$np" env LD_PRELOAD="$tree/libxchg_mpi.so" "$tree/plan_cost_v" \
            "$rounds" "$calls" "$threads" "$maxbytes" >>"$tmp/$name.xchg"
        mpi_run "$np" "$tree/plan_cost_v" "$rounds" "$calls" "$threads" "$maxbytes" >>"$tmp/$name.lib"
        echo "$name: run $r of $runs done ($(($(date +%s) - start)) s)" >&2
    done
}
config openmpi-16-t1 "$build" 16 1
config openmpi-16-t2 "$build" 16 2
if [ "$mpich" = 1 ]; then
    config mpich-4-t1 "$build_mpich" 4 1
    config mpich-4-t2 "$build_mpich" 4 2
fi
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)

{
    echo "# MPI_Alltoallv with counts new at every call, three communicators in turn,"
    echo "# one or two threads: xchg under the drop-in against the MPI library's own"
    echo "# call in the same runs (docs/alltoallv.md, \"What a call costs\")"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s"
    echo "# machine: $(nproc) online cores; ranks oversubscribed on one node"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# each run: $rounds rounds of $calls calls a thread each side, blocks 0..$maxbytes B;"
    echo "# $runs runs of each side; ratio = MPI_Alltoallv's row / PMPI_Alltoallv's"
    node - "$tmp" <<'EOF'
const fs = require("fs");
const dir = process.argv[2];
const lines = f => fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l);
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const f2 = x => x.toFixed(2);
const verdicts = [];
for (const cfg of lines("configs")) {
  const [name, np, threads, ...lib] = cfg.split(" ");
  console.log(`\n## ${name}: ${np} ranks, ${threads} thread(s), ${lib.join(" ")}`);
  for (const side of ["xchg", "lib"]) {
    const rows = lines(`${name}.${side}`).map(l => l.split(" ").map(Number));
    const r = rows.map(x => x[3] / x[4]);
    const tm = med(rows.map(x => x[3])) * 1e3, tl = med(rows.map(x => x[4])) * 1e3;
    console.log(`${side === "xchg" ? "xchg (drop-in)     " : "control (no xchg)  "} ratio per round: ` +
                `median ${f2(med(r))} [${f2(Math.min(...r))}..${f2(Math.max(...r))}] over ` +
                `${r.length} rounds; a row: MPI_Alltoallv ${f2(tm)} ms, PMPI_Alltoallv ${f2(tl)} ms`);
    if (side === "xchg")
      verdicts.push([`${name}: MPI_Alltoallv under the drop-in at most 1.1x the library's ` +
                     `(median ${f2(med(r))})`, med(r) <= 1.1]);
  }
}
console.log("\n## Goals");
for (const [what, ok] of verdicts) console.log(`${ok ? "met    " : "NOT met"}  ${what}`);
EOF
} >"$out"
cat "$out"
