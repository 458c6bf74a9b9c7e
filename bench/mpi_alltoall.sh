#!/usr/bin/env bash
# mpi_alltoall.sh - xchg's executor (xchg-bench --alg auto) against the MPI
# library's own MPI_Alltoall (--alg mpi), side by side on this machine:
# Open MPI at p = 16 and p = 64, MPICH at p = 16 (a second build tree made
# with -DXCHG_MPI=mpich), block sizes 8 B to 1 MiB.
#
# For each configuration: one validated pass of the xchg side (-c, every
# byte of every block checked at every size), then R interleaved
# repetitions "auto, mpi, auto, mpi, ..." (each a whole xchg-bench run over
# every size), so drifts of the machine hit both sides alike. Per size the
# table gives the median over repetitions of each side's time (xchg-bench's
# Avg Latency: the mean over ranks of each rank's mean time per call) and
# the speed-up mpi_time / auto_time: the median of the R per-repetition
# ratios, with their min..max.
#
# Copy limit (blocks of 64 KiB and more): an all-to-all on one node must
# copy every off-diagonal block at least once, p*(p-1)*m bytes over all
# ranks, and every core copies; so no exchange beats
#     copy_limit = p*(p-1)*m / B,
# B = the median aggregate memcpy rate of all cores (bench/memcpy_bw,
# measured at the start of this run). The table gives auto_time / copy_limit
# (and mpi_time / copy_limit, for scale).
#
# The targets checked at the end: auto >= 2x faster than Open MPI's
# MPI_Alltoall at p = 64 for blocks up to 64 B; auto never slower than
# 1.1x MPI_Alltoall (speed-up >= 1/1.1) at any size at p = 16 and 64; blocks
# of 64 KiB and up within 2x of the copy limit.
#
# Usage: bench/mpi_alltoall.sh [--reps R] [--build DIR] [--build-mpich DIR]
#                              [--no-mpich] [--alg SPEC] [--quick] [--out FILE]
#   --reps R          interleaved repetitions (default 5)
#   --build DIR       Open MPI build tree (default <repo>/build; configured
#                     and built here when xchg-bench is missing or stale)
#   --build-mpich DIR MPICH build tree (default <repo>/build-mpich; made here
#                     with -DXCHG_MPI=mpich)
#   --no-mpich        skip the MPICH configuration
#   --alg SPEC        what the xchg side runs (default auto); --alg mpi on
#                     both sides measures the method's own noise
#   --quick           fewer iterations and 2 repetitions (a try-out)
#   --out FILE        results file (default bench/results/mpi_alltoall.txt)
# Takes about 10 minutes on the 2-core machine the results were made on.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
reps=5
build=$repo/build
build_mpich=$repo/build-mpich
mpich=1
alg=auto
quick=0
out=$here/results/mpi_alltoall.txt
cmdline="bench/mpi_alltoall.sh $*"

die() {
    echo "mpi_alltoall.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] ||
        die "--reps needs a count >= 1, got '${2:-}'"
        reps=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --build-mpich) [ $# -ge 2 ] || die "--build-mpich needs a directory"; build_mpich=$2; shift 2 ;;
    --no-mpich) mpich=0; shift ;;
    --alg) [ $# -ge 2 ] || die "--alg needs a spec (auto, mpi or a registry spec)"; alg=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --reps R, --build DIR, --build-mpich DIR, --no-mpich, --alg SPEC, --quick, --out FILE, --help" ;;
    esac
done
if [ "$quick" = 1 ] && [ "$reps" = 5 ]; then reps=2; fi
# shellcheck source=lib_bench.sh
source "$here/lib_bench.sh"
bench_deps
bench_build "$build" openmpi xchg-bench xchg_bench memcpy_bw
[ "$mpich" = 1 ] && bench_build "$build_mpich" mpich xchg-bench xchg_bench memcpy_bw

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# Other work on the machine shows in every figure: say how busy it was.
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load_start%% *}" 'BEGIN { exit !(l > 1.5) }'; then
    echo "mpi_alltoall.sh: warning: load average $load_start before starting;" \
        "other work on the machine will show in the figures" >&2
fi

# The copy rate of all cores, median of 20 copies of 256 MiB per core.
"$build/memcpy_bw" --json --reps 20 >"$tmp/memcpy.json"
cat "$tmp/memcpy.json"

sizes="-m 8:1M"
# name launcher-build np iteration flags (small; large = above 8 KiB). The
# oversubscribed calls take milliseconds (p = 64) to a second (MPICH, which
# busy-polls), so the iteration counts keep each configuration to minutes.
configs=("ompi16 $build 16 -i 100 -x 10 --iterations-large 20 --warmup-large 2"
         "ompi64 $build 64 -i 20 -x 2 --iterations-large 5 --warmup-large 1")
[ "$mpich" = 1 ] && configs+=("mpich16 $build_mpich 16 -i 5 -x 1 --iterations-large 2 --warmup-large 1")
if [ "$quick" = 1 ]; then
    configs=("ompi16 $build 16 -i 20 -x 2 --iterations-large 3 --warmup-large 1"
             "ompi64 $build 64 -i 5 -x 1 --iterations-large 2 --warmup-large 1")
    [ "$mpich" = 1 ] && configs+=("mpich16 $build_mpich 16 -i 3 -x 1 --iterations-large 2 --warmup-large 1")
fi

for cfg in "${configs[@]}"; do
    read -r name dir np iters <<<"$cfg"
    # shellcheck source=../tests/mpi/lib_mpi.sh
    source "$repo/tests/mpi/lib_mpi.sh" "$(bench_launcher "$dir")"
    echo "== $name: p = $np, $(basename "$MPI_LAUNCHER"), $iters" >&2
    # The library as MPI_Get_library_version names it (xchg-bench's header).
    mpi_run 2 "$dir/xchg-bench" --alg mpi -m 8:8 -i 1 -x 0 | sed -n 's/^# MPI library: //p' \
        | cut -d, -f1 | tr -s " \t" " " >"$tmp/$name.version"
    # One validated pass of the xchg side over every size.
    # shellcheck disable=SC2086
    mpi_run "$np" "$dir/xchg-bench" --alg "$alg" $sizes -i 1 -x 0 -c --json >"$tmp/$name.valid.json"
    for r in $(seq 1 "$reps"); do
        for side in xchg mpi; do
            a=$alg
            [ "$side" = mpi ] && a=mpi
            # shellcheck disable=SC2086
            mpi_run "$np" "$dir/xchg-bench" --alg "$a" $sizes $iters --json \
                >"$tmp/$name.$side.$r.json"
        done
        echo "   repetition $r of $reps done ($(($(date +%s) - start)) s)" >&2
    done
    echo "$name $np $iters" >>"$tmp/configs"
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Machine and libraries, for the results' head.
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)

{
    echo "# xchg's MPI executor (xchg-bench --alg $alg) against the MPI library's MPI_Alltoall"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s"
    echo "# machine: $cpu, $(nproc) online cores, $mem; ranks oversubscribed on one node"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# launch: tests/mpi/lib_mpi.sh (Open MPI --oversubscribe, which yields when idle;"
    echo "# MPICH as installed, which busy-polls, so its oversubscribed calls are slow)"
    node - "$tmp" "$reps" "$alg" <<'EOF'
const fs = require("fs");
const [dir, reps, alg] = [process.argv[2], +process.argv[3], process.argv[4]];
const read = f => fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l).map(l => JSON.parse(l));
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const mc = JSON.parse(fs.readFileSync(`${dir}/memcpy.json`, "utf8"));
const B = mc.median_GBps * 1e9; // bytes per second, all cores
const fmt = (x, w, d = 2) => (x === null ? "-" : x.toFixed(d)).padStart(w);
const human = b => b >= 1 << 20 ? `${b / (1 << 20)}M` : b >= 1024 ? `${b / 1024}K` : `${b}`;
console.log(`# memcpy_bw: ${mc.threads} threads x ${mc.mib_per_thread} MiB, ${mc.reps} copies: ` +
            `median ${mc.median_GBps.toFixed(2)} GB/s (best ${mc.best_GBps.toFixed(2)}); B = the median`);
console.log(`# time(us) = xchg-bench Avg Latency, median over ${reps} interleaved repetitions;`);
console.log(`# speed-up = mpi_time/auto_time per repetition: median [min..max];`);
console.log(`# copy limit = p*(p-1)*m / B (every off-diagonal block copied once by some core), m >= 64 KiB`);
const verdicts = [];
for (const line of fs.readFileSync(`${dir}/configs`, "utf8").trim().split("\n")) {
  const [name, np, ...iters] = line.split(" ");
  const p = +np, lib = fs.readFileSync(`${dir}/${name}.version`, "utf8").trim();
  const valid = read(`${name}.valid.json`);
  const allValid = valid.length > 0 && valid.every(o => o.valid === true);
  const runs = side => Array.from({length: reps}, (_, r) => read(`${name}.${side}.${r + 1}.json`));
  const X = runs("xchg"), M = runs("mpi");
  console.log(`\n## ${name}: p = ${p}, ${lib}; xchg-bench ${iters.join(" ")} (small / above 8 KiB)`);
  console.log(`## validation pass of --alg ${alg} (-c, every byte, sizes ${human(valid[0]?.bytes ?? 0)}..` +
              `${human(valid[valid.length - 1]?.bytes ?? 0)}): ${allValid ? "Pass" : "FAIL"}`);
  console.log("# Size      auto(us)       mpi(us)   speed-up [min..max]        auto alg (topology)" +
              "             copy limit(us)  auto/limit   mpi/limit");
  X[0].forEach((row, k) => {
    const m = row.bytes;
    const ta = med(X.map(R => R[k].avg_us)), tm = med(M.map(R => R[k].avg_us));
    const ratios = X.map((R, r) => M[r][k].avg_us / R[k].avg_us);
    const sp = med(ratios), lo = Math.min(...ratios), hi = Math.max(...ratios);
    const algs = [...new Set(X.map(R => R[k].alg + (R[k].topology ? ` (${R[k].topology})` : "") +
                                     (R[k].fallback ? " fallback" : "")))].join(" / ");
    const limit = m >= 65536 ? p * (p - 1) * m / B * 1e6 : null;
    const rel = limit === null ? null : ta / limit;
    const relm = limit === null ? null : tm / limit;
    console.log(`${String(m).padEnd(8)}${fmt(ta, 12)}${fmt(tm, 14)}${fmt(sp, 8)} ` +
                `[${lo.toFixed(2)}..${hi.toFixed(2)}]`.padEnd(17) + "  " + algs.padEnd(36) +
                `${fmt(limit, 14)}${fmt(rel, 12)}${fmt(relm, 12)}`);
    if (p === 64 && name.startsWith("ompi") && m <= 64)
      verdicts.push([`${name} ${m} B: speed-up ${sp.toFixed(2)} >= 2`, sp >= 2]);
    if (p === 16 || p === 64)
      verdicts.push([`${name} ${m} B: speed-up ${sp.toFixed(2)} >= 1/1.1`, sp >= 1 / 1.1]);
    if (rel !== null)
      verdicts.push([`${name} ${m} B: auto/copy limit ${rel.toFixed(2)} <= 2`, rel <= 2]);
  });
  verdicts.push([`${name}: validation pass`, allValid]);
}
console.log("\n## targets (from the issue)");
const groups = [
  ["auto >= 2x MPI_Alltoall, Open MPI p = 64, blocks <= 64 B", v => / >= 2$/.test(v[0])],
  ["auto never slower than 1.1x MPI_Alltoall (p = 16 and 64)", v => /1\/1\.1$/.test(v[0])],
  ["blocks >= 64 KiB within 2x of the copy limit", v => /copy limit/.test(v[0])],
  ["every validation pass", v => /validation/.test(v[0])],
];
for (const [title, f] of groups) {
  const vs = verdicts.filter(f), miss = vs.filter(v => !v[1]);
  console.log(`# ${miss.length === 0 ? "met    " : "NOT met"}  ${title}` +
              (miss.length ? `: ${miss.length} of ${vs.length} miss (${miss.map(v => v[0]).join("; ")})` : ""));
}
EOF
} >"$out"
cat "$out"
echo "wrote $out" >&2
