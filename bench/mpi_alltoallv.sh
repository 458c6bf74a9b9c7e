#!/usr/bin/env bash
# mpi_alltoallv.sh - xchg's MPI_Alltoallv (and MPI_Alltoallw) against the
# MPI library's own, in the same runs (xchg-bench --op alltoallv --pair:
# every iteration one call of each, the order alternating), for the count
# patterns of docs/alltoallv.md: uniform, random:50 (each block +-50%),
# hot:0 (rank 0's blocks 8x) and sparse:0.1 (a tenth of the pairs; the rest
# 0 bytes). Open MPI at p = 16 (mean blocks 8 B to 1 MiB, every pattern)
# and 64 (8 B to 16 KiB; uniform, random and sparse), MPICH at p = 16 (8 B
# to 4 KiB; uniform and random; a second build tree made with
# -DXCHG_MPI=mpich). And Open MPI at p = 2 (8 B to 1 MiB, uniform and
# random), where auto passes the call to the library, beside xchg's
# direct exchange forced there (--alg pairwise, what auto ran before: a
# reference, not held to the targets). And Open MPI at p = 4 (2 ranks a
# core; 8 B to 64 KiB, uniform and random), auto with the model alone and
# auto with a tuning file that `xchg tune --op alltoallv` makes at p = 4
# in the same run (its rows are printed after the tables).
#
# For each configuration: one validated pass of xchg's side (-c: every byte
# of every block checked at every size, for each pattern), then R
# repetitions of the paired runs. Per size the table gives the medians over
# the repetitions of xchg's and the library's times (xchg-bench's Avg
# Latency) and the speed-up library/xchg: each repetition's is 1 / its pair
# ratio (each rank's median over the iterations of xchg's call / the
# library's in that iteration, averaged over the ranks); the median over
# the repetitions [min..max].
#
# The targets checked at the end (issue 35): never slower than 1.1x the
# library (speed-up >= 1/1.1) at any size and p; >= 2x at mean blocks up
# to 1 KiB, uniform or random, Open MPI p = 16 and 64 and MPICH p = 16;
# >= 2x on the sparse pattern at p = 64.
#
# Usage: bench/mpi_alltoallv.sh [--reps R] [--build DIR] [--build-mpich DIR]
#                               [--no-mpich] [--quick] [--out FILE]
#   --reps R          repetitions (default 2)
#   --build DIR       Open MPI build tree (default <repo>/build)
#   --build-mpich DIR MPICH build tree (default <repo>/build-mpich)
#   --no-mpich        skip the MPICH configuration
#   --quick           fewer iterations and sizes, 1 repetition (a try-out)
#   --out FILE        results (default bench/results/mpi_alltoallv.txt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
reps=2
build=$repo/build
build_mpich=$repo/build-mpich
mpich=1
quick=0
out=$here/results/mpi_alltoallv.txt
cmdline="bench/mpi_alltoallv.sh $*"

die() {
    echo "mpi_alltoallv.sh: $*" >&2
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
    --quick) quick=1; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --reps R, --build DIR, --build-mpich DIR, --no-mpich, --quick, --out FILE, --help" ;;
    esac
done
[ "$quick" = 1 ] && reps=1
# shellcheck source=lib_bench.sh
source "$here/lib_bench.sh"
bench_deps
bench_build "$build" openmpi xchg-bench xchg_bench xchg_cli
[ "$mpich" = 1 ] && bench_build "$build_mpich" mpich xchg-bench xchg_bench xchg_cli

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load_start%% *}" 'BEGIN { exit !(l > 1.5) }'; then
    echo "mpi_alltoallv.sh: warning: load average $load_start before starting;" \
        "other work on the machine will show in the figures" >&2
fi

dists="uniform random:50 hot:0 sparse:0.1"
# name build np op distributions -- sizes and iteration flags (small;
# large = above 8 KiB). At 64 ranks, and with MPICH (whose ranks
# busy-poll when oversubscribed), the library's own calls take tens of
# milliseconds: fewer sizes there, so a run takes minutes, not hours.
configs=("ompi16 $build 16 alltoallv $dists -- -m 8:1M -i 100 -x 10 --iterations-large 10 --warmup-large 2"
         "ompi16w $build 16 alltoallw uniform -- -m 8:1M -i 100 -x 10 --iterations-large 10 --warmup-large 2"
         "ompi64 $build 64 alltoallv uniform random:50 sparse:0.1 -- -m 8:16K -i 10 -x 1 --iterations-large 3 --warmup-large 1"
         "ompi2 $build 2 alltoallv uniform random:50 -- -m 8:1M -i 2000 -x 100 --iterations-large 200 --warmup-large 20"
         "ompi2pairwise $build 2 alltoallv uniform -- -m 8:1M --alg pairwise -i 2000 -x 100 --iterations-large 200 --warmup-large 20"
         "ompi4 $build 4 alltoallv uniform random:50 -- -m 8:64K -i 2000 -x 100 --iterations-large 200 --warmup-large 20"
         "ompi4tuned $build 4 alltoallv uniform random:50 -- -m 8:64K --tuning $tmp/tune4.txt -i 2000 -x 100 --iterations-large 200 --warmup-large 20")
[ "$mpich" = 1 ] &&
    configs+=("mpich16 $build_mpich 16 alltoallv uniform random:50 -- -m 8:4K -i 5 -x 1")
if [ "$quick" = 1 ]; then
    configs=("ompi16 $build 16 alltoallv $dists -- -m 8:64K -i 20 -x 2 --iterations-large 3 --warmup-large 1")
fi

# the tuning file of ompi4tuned, made here at p = 4 (uniform counts)
if [[ "${configs[*]}" == *"$tmp/tune4.txt"* ]]; then
    # shellcheck source=../tests/mpi/lib_mpi.sh
    source "$repo/tests/mpi/lib_mpi.sh" "$(bench_launcher "$build")"
    mpi_run 4 "$build/xchg" tune --op alltoallv -m 8:64K -o "$tmp/tune4.txt" >"$tmp/tune4.log"
fi

for cfg in "${configs[@]}"; do
    read -r name dir np op rest <<<"$cfg"
    ds=${rest%% -- *}
    iters=${rest#* -- }
    # shellcheck source=../tests/mpi/lib_mpi.sh
    source "$repo/tests/mpi/lib_mpi.sh" "$(bench_launcher "$dir")"
    mpi_run 2 "$dir/xchg-bench" --alg mpi -m 8:8 -i 1 -x 0 | sed -n 's/^# MPI library: //p' \
        | cut -d, -f1 | tr -s " \t" " " >"$tmp/$name.version"
    for d in $ds; do
        tag="$name.${d//[:.]/_}"
        echo "== $name $op $d: p = $np, $iters" >&2
        # shellcheck disable=SC2086
        mpi_run "$np" "$dir/xchg-bench" --op "$op" --counts "$d" ${iters%% -i*} -i 1 -x 0 -c --json \
            >"$tmp/$tag.valid.json"
        for r in $(seq 1 "$reps"); do
            # shellcheck disable=SC2086
            mpi_run "$np" "$dir/xchg-bench" --op "$op" --counts "$d" $iters --pair --json \
                >"$tmp/$tag.$r.json"
        done
        echo "$name $np $op $d $tag $iters" >>"$tmp/configs"
        echo "   done ($(($(date +%s) - start)) s)" >&2
    done
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)

{
    echo "# xchg's MPI_Alltoallv / MPI_Alltoallw against the MPI library's, paired in the same runs"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s"
    echo "# machine: $cpu, $(nproc) online cores; ranks oversubscribed on one node"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    node - "$tmp" "$reps" <<'EOF'
const fs = require("fs");
const [dir, reps] = [process.argv[2], +process.argv[3]];
const read = f => fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l.startsWith("{"))
                    .map(l => JSON.parse(l));
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const fmt = (x, w, d = 2) => x.toFixed(d).padStart(w);
console.log(`# time(us) = xchg-bench Avg Latency (mean block = Size), median over ${reps} repetitions;`);
console.log("# speed-up = 1 / pair ratio per repetition: median [min..max]");
const verdicts = [];
for (const line of fs.readFileSync(`${dir}/configs`, "utf8").trim().split("\n")) {
  const [name, np, op, dist, tag, ...iters] = line.split(" ");
  const p = +np, lib = fs.readFileSync(`${dir}/${name}.version`, "utf8").trim();
  const valid = read(`${tag}.valid.json`);
  const ok = valid.length > 0 && valid.every(o => o.valid === true);
  const R = Array.from({length: reps}, (_, r) => read(`${tag}.${r + 1}.json`));
  console.log(`\n## ${name}: ${op}, counts ${dist}, p = ${p}, ${lib}; xchg-bench ${iters.join(" ")}`);
  console.log(`## validation pass (-c, every byte of every size): ${ok ? "Pass" : "FAIL"}`);
  console.log("# Size      xchg(us)       mpi(us)   speed-up [min..max]        xchg's plan");
  R[0].forEach((row, k) => {
    const m = row.bytes;
    const tx = med(R.map(r => r[k].avg_us)), tm = med(R.map(r => r[k].mpi_avg_us));
    const sps = R.map(r => 1 / r[k].pair_ratio);
    const sp = med(sps), lo = Math.min(...sps), hi = Math.max(...sps);
    const algs = [...new Set(R.map(r => r[k].alg + (r[k].fallback ? " (fallback)" : "")))].join(" / ");
    console.log(`${String(m).padEnd(8)}${fmt(tx, 12)}${fmt(tm, 14)}${fmt(sp, 8)} ` +
                `[${lo.toFixed(2)}..${hi.toFixed(2)}]`.padEnd(17) + "  " + algs);
    if (iters.includes("--alg"))
      return; /* a reference run of a forced algorithm: not held to the targets */
    verdicts.push([`${name} ${dist} ${m} B: ${sp.toFixed(2)} >= 1/1.1`, sp >= 1 / 1.1, "never"]);
    if (m <= 1024 && (dist === "uniform" || dist.startsWith("random")) && op === "alltoallv" &&
        (p === 16 || p === 64))
      verdicts.push([`${name} ${dist} ${m} B: ${sp.toFixed(2)} >= 2`, sp >= 2, "small"]);
    if (p === 64 && dist.startsWith("sparse"))
      verdicts.push([`${name} ${dist} ${m} B: ${sp.toFixed(2)} >= 2`, sp >= 2, "sparse"]);
  });
  verdicts.push([`${name} ${dist}: validation`, ok, "valid"]);
}
console.log("\n## targets (issue 35)");
for (const [title, g] of [["never slower than 1.1x the library", "never"],
                          [">= 2x at mean blocks up to 1 KiB, uniform or random", "small"],
                          [">= 2x on the sparse pattern at p = 64", "sparse"],
                          ["every validation pass", "valid"]]) {
  const vs = verdicts.filter(v => v[2] === g), miss = vs.filter(v => !v[1]);
  console.log(`# ${miss.length === 0 ? "met    " : "NOT met"}  ${title}` +
              (miss.length ? `: ${miss.length} of ${vs.length} miss (${miss.map(v => v[0]).join("; ")})` : ""));
}
if (fs.existsSync(`${dir}/tune4.log`)) {
  console.log("\n## ompi4tuned's tuning file: xchg tune --op alltoallv -m 8:64K, p = 4 (its output)");
  process.stdout.write(fs.readFileSync(`${dir}/tune4.log`, "utf8"));
}
EOF
} >"$out"
cat "$out"
echo "wrote $out" >&2
