#!/usr/bin/env bash
# model_vs_measured.sh - how good is auto's cost model on this machine, and
# what a tuning file buys (docs/tuning.md, "How good is the model?").
#
# 1. `xchg probe` on 2 ranks writes this machine's file.
# 2. For p = 16 and p = 64, `xchg tune --json --machine FILE` times every
#    candidate at block sizes 8 B to 1 MiB (and writes the tuning file), and
#    reports what auto's cost model predicts for each on the probed figures.
#    Per size, over the candidates both rank (the registry's schedules, and
#    shm where it is one): does the model's first choice win the
#    measurement, how far is it from the winner when it does not (measured
#    time of the model's choice over the winner's), and Spearman's rank
#    correlation between predicted and measured times.
# 3. xchg-bench, side by side, interleaved, RUNS times: auto with the tuning
#    file, auto with the model alone (the machine file), and the MPI
#    library's MPI_Alltoall; medians, and ratios to MPI_Alltoall with their
#    spread (min..max over the runs).
#
# Usage: bash bench/model_vs_measured.sh [build-dir] [runs]
# Writes bench/results/model_vs_measured.txt (and prints it).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="${1:-$HERE/../build}"
RUNS="${2:-3}"
X="$BUILD/xchg"
OUT="$HERE/results/model_vs_measured.txt"
[ -x "$BUILD/xchg-tune" ] || { echo "model_vs_measured: no xchg-tune in $BUILD (build with an MPI)" >&2; exit 2; }
command -v node >/dev/null 2>&1 || bash "$HERE/../scripts/install-deps.sh"
MPIRUN=$(command -v mpirun.openmpi || command -v mpirun)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() { "$MPIRUN" --oversubscribe -np "$@"; }

{
echo "# auto's cost model against measurement, $(date -u +%Y-%m-%d), $(nproc) cores, $("$MPIRUN" --version | head -n1)"
echo "# ranks oversubscribed on this machine; block sizes 8 B .. 1 MiB"
run 2 "$X" probe -o "$TMP/machine.txt" >/dev/null || exit 1
echo "# probed: $(grep -v '^#' "$TMP/machine.txt" | tr -s ' \n' ' ')"
for p in 16 64; do
    echo
    echo "## p = $p"
    t0=$EPOCHREALTIME
    # p ranks share this machine's 24 GiB: -M bounds each rank's buffers
    # and scratch (a candidate needing more is left out at that size)
    mem=$((16384 / p))M
    echo "# xchg tune -M $mem: candidates needing more a rank are left out at that size"
    run "$p" "$X" tune -m 8:1M -M "$mem" --json --machine "$TMP/machine.txt" -o "$TMP/tuning.txt" \
        >"$TMP/tune$p.json" || exit 1
    echo "# xchg tune took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
    node - "$TMP/tune$p.json" <<'JS'
const L = require("fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map(JSON.parse);
function ranks(v) { // average ranks, 1 = smallest
  const idx = v.map((x, i) => i).sort((a, b) => v[a] - v[b]);
  const r = new Array(v.length);
  for (let i = 0; i < idx.length;) {
    let j = i; while (j + 1 < idx.length && v[idx[j + 1]] === v[idx[i]]) j++;
    for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}
function spearman(a, b) {
  const ra = ranks(a), rb = ranks(b), n = a.length;
  const ma = ra.reduce((s, x) => s + x, 0) / n, mb = rb.reduce((s, x) => s + x, 0) / n;
  let num = 0, da = 0, db = 0;
  for (let i = 0; i < n; i++) { num += (ra[i] - ma) * (rb[i] - mb); da += (ra[i] - ma) ** 2; db += (rb[i] - mb) ** 2; }
  return da && db ? num / Math.sqrt(da * db) : 1;
}
console.log("# Size       n  model's first            measured winner          hit  first/winner  spearman  tuned best (incl. mpi)   best(us)   mpi(us)");
let hits = 0, worst = 1, rhos = [];
for (const o of L) {
  const common = Object.keys(o.predicted).filter(s => s in o.times);
  const pred = common.map(s => o.predicted[s]), meas = common.map(s => o.times[s]);
  const mf = common[pred.indexOf(Math.min(...pred))], mw = common[meas.indexOf(Math.min(...meas))];
  const ratio = o.times[mf] / o.times[mw], rho = spearman(pred, meas);
  hits += mf === mw; worst = Math.max(worst, ratio); rhos.push(rho);
  console.log(`  ${String(o.size).padEnd(10)} ${String(common.length).padStart(2)}  ${mf.padEnd(24)} ${mw.padEnd(24)} ${mf === mw ? "yes" : "no "}  ${ratio.toFixed(2).padStart(12)}  ${rho.toFixed(2).padStart(8)}  ${o.best.padEnd(24)} ${o.times[o.best].toFixed(1).padStart(9)} ${o.times.mpi.toFixed(1).padStart(9)}`);
}
rhos.sort((a, b) => a - b);
console.log(`# model's first choice measured fastest at ${hits} of ${L.length} sizes; worst ratio ${worst.toFixed(2)}; median rank correlation ${rhos[rhos.length >> 1].toFixed(2)} (range ${rhos[0].toFixed(2)} .. ${rhos[rhos.length - 1].toFixed(2)})`);
JS
    # 3. side by side, interleaved
    for ((r = 1; r <= RUNS; r++)); do
        run "$p" "$BUILD/xchg-bench" -m 8:1M -i 20 -x 2 -c --tuning "$TMP/tuning.txt" --json >"$TMP/tuned$p.$r" || exit 1
        run "$p" "$BUILD/xchg-bench" -m 8:1M -i 20 -x 2 -c --machine "$TMP/machine.txt" --json >"$TMP/model$p.$r" || exit 1
        run "$p" "$BUILD/xchg-bench" -m 8:1M -i 20 -x 2 -c --alg mpi --json >"$TMP/mpi$p.$r" || exit 1
    done
    node - "$TMP" "$p" "$RUNS" <<'JS'
const fs = require("fs"), [dir, p, runs] = process.argv.slice(2);
const load = (kind) => Array.from({length: +runs}, (_, r) =>
  fs.readFileSync(`${dir}/${kind}${p}.${r + 1}`, "utf8").trim().split("\n").map(JSON.parse));
const T = load("tuned"), M = load("model"), P = load("mpi");
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s[s.length >> 1]; };
const size = (x) => x.size ?? x.bytes;
const lat = (x) => x.avg_us ?? x.avg_latency_us;
console.log("# side by side, median of " + runs + " interleaved runs (us); ratio = mpi / config (above 1: faster than MPI_Alltoall), min..max over the runs");
console.log("# Size        tuned(us)   model(us)     mpi(us)   mpi/tuned           mpi/model           all validated");
const sizes = T[0].map(size);
for (let k = 0; k < sizes.length; k++) {
  const t = T.map(run => lat(run[k])), m = M.map(run => lat(run[k])), q = P.map(run => lat(run[k]));
  const rt = q.map((x, i) => x / t[i]), rm = q.map((x, i) => x / m[i]);
  const ok = [T, M, P].every(R => R.every(run => run[k].validation === "Pass" || run[k].valid === true));
  const span = (v) => `${med(v).toFixed(2)} (${Math.min(...v).toFixed(2)}..${Math.max(...v).toFixed(2)})`;
  console.log(`  ${String(sizes[k]).padEnd(10)} ${med(t).toFixed(1).padStart(10)} ${med(m).toFixed(1).padStart(11)} ${med(q).toFixed(1).padStart(11)}   ${span(rt).padEnd(19)} ${span(rm).padEnd(19)} ${ok ? "yes" : "NO"}`);
}
JS
done
} | tee "$OUT"
