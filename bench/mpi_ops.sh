#!/usr/bin/env bash
# mpi_ops.sh - xchg's executor against the MPI library's own call for each of
# the other operations (bcast, reduce, allreduce, reduce_scatter, scan,
# allgather, gather, scatter, shift; the exchange is bench/mpi_alltoall.sh),
# Open MPI at p = 16 and p = 64 ranks, sizes 8 B to 1 MiB (xchg-bench's
# size: one rank's block, as the OSU benchmark of the operation counts it).
#
# First the tuning: for each (operation, p), `xchg tune --op OP` times the
# operation's algorithms and the MPI library's call at every size and
# writes the winners to a tuning file (bench/results/mpi_ops-tuning.txt,
# committed beside the results; docs/tuning.md). An algorithm that wins
# the tuner's rounds must then hold its lead in its paired check against
# the library (--confirm-ms: 0.5 s of pairs, 1 s at p >= 64), and a second
# tuner run (another mpirun, xchg tune --agree) times again only the sizes
# where the first chose an algorithm: a row names one only when both runs
# found it faster (the state of one run, which ranks share a core, moved
# reduce-hc at 8 B on 16 ranks by 20% either way). The tuner's tables of
# both runs, with each paired ratio, go beside it (...-tuning-log.txt).
#
# Then for each (operation, p): one validated pass of each xchg side (-c:
# every output checked against the operation's definition at every size,
# one call per size), then R interleaved repetitions "tuned, auto, mpi"
# (each a whole xchg-bench run over every size): --alg auto with that
# tuning file (what a user who ran xchg tune gets), --alg auto with the
# cost model alone (no file), and --alg mpi, which calls PMPI_Bcast, ... by
# its profiling name. Repetitions are the outer loop, so a drift of the
# machine hits every side and every operation alike, and a run cut short by
# --until still has whole repetitions of everything. Per size the table
# gives the median over repetitions of each side's time (xchg-bench's Avg
# Latency: the mean over ranks of each rank's mean time per call) and the
# ratios tuned/mpi and auto/mpi: the median of the per-repetition ratios,
# with their min..max (< 1: xchg is faster). Then a summary per operation:
# the worst median ratio (within 1.1x?) and the sizes where xchg is faster,
# by how much.
#
# With --paired, one side only: auto with the tuning file and --pair, which
# times the MPI library's call in the same xchg-bench run, each iteration
# one call of each in alternating order (a drift of the machine, or of the
# MPI library's own state, hits both alike); the ratio is the run's own.
# The figure judged is the median ratio (xchg-bench --help: each rank's
# median call of each side, averaged over the ranks): at 64 ranks on 2
# cores a few calls that lose the core for a scheduler's slice move a
# mean by 10-20% either way. The ratio of the means is shown beside it,
# and the pair ratio (each rank's median over the iterations of its two
# calls' ratio, averaged over the ranks). In the first repetition a
# control run, xchg-bench --alg mpi --pair (the library's call on both
# sides), gives each size's noise floor: its ratios should be 1. The two
# calls of an iteration meet the same state of the machine, so the pair
# ratio's control strays less than the median ratio's (the summary gives
# both spreads), and where auto passes the call to the library (the same
# call on both sides) it shows the short way's cost that the median
# ratio hides in its noise. Where xchg's own algorithm runs it is not a
# measure of the slowdown: a call that returns almost at once on some
# ranks (the first ranks of the library's linear scan) against one that
# never does makes those ranks' ratios, and their mean, huge
# (docs/mpi-ops.md). Results go to mpi_ops-paired.txt. --tuning FILE skips
# the tuning and uses that file (a tuning file an earlier run wrote).
#
# Caps at p = 64: allgather, gather, scatter and reduce_scatter hold p
# blocks on a rank (every rank for allgather and reduce_scatter), p x 1 MiB
# = 64 MiB per rank and 4 GiB over the 64 ranks. allgather, gather and
# scatter run to 1 MiB (about 5 GiB in use for allgather, a call 0.4 s);
# --cap64 SIZE stops them earlier. reduce_scatter stops at 64 KiB: Open
# MPI's own MPI_Reduce_scatter_block took 19 s a call at 512 KiB while
# xchg tune ran it, with 20.6 of the machine's 23.5 GiB in use, and 1 MiB
# would not fit. The results file says where each stops.
#
# Usage: bench/mpi_ops.sh [--reps R] [--build DIR] [--ops "bcast scan ..."]
#                         [--nps "16 64"] [--cap64 SIZE] [--until HH:MM]
#                         [--quick] [--out FILE] [--paired] [--tuning FILE]
#                         [--min-time S]
#   --reps R      interleaved repetitions (default 3)
#   --build DIR   Open MPI build tree (default <repo>/build; configured and
#                 built here when xchg-bench is missing or stale)
#   --ops LIST    the operations (default all nine)
#   --nps LIST    rank counts (default "16 64")
#   --cap64 SIZE  largest block of allgather, gather and scatter at p = 64
#                 (default 1M; reduce_scatter: 64K or SIZE, the smaller)
#   --until HH:MM (UTC) start no repetition of an (operation, p) that would
#                 not end by then (the time its first one took); the results
#                 say how many repetitions each row has
#   --quick       fewer iterations, sizes to 64 KiB, 1 repetition (a try-out)
#   --out FILE    results file (default bench/results/mpi_ops.txt, with
#                 --paired mpi_ops-paired.txt; the tuning file goes beside it,
#                 its name ending -tuning.txt, and the tuner's tables,
#                 -tuning-log.txt)
#   --paired      auto with the tuning file against the library in one run
#   --tuning FILE use this tuning file instead of tuning first
#   --min-time S  xchg-bench --min-time: at each size at least as many timed
#                 calls as fill S seconds, 2S at p >= 64 (default 1 with
#                 --paired, off otherwise; 0 turns it off). A paired ratio of
#                 the few calls -i gives strays by up to 1.9x when both sides
#                 make the very same call (bench/results/pair_control.txt);
#                 at 64 ranks 0.5 s of pairs still strays by 20-30%, 2 s by
#                 about 5% (the control's median ratio).
# Installs what is missing (scripts/install-deps.sh: cmake, a compiler,
# Open MPI, node) and builds xchg-bench and xchg-tune. On the 2-core
# machine the results were made on: --paired about 60 minutes (17 of them
# tuning, both tuner runs); the three-side run about 35 (before 1 MiB at p = 64).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
reps=3
build=$repo/build
ops="bcast reduce allreduce reduce_scatter scan allgather gather scatter shift"
nps="16 64"
cap64=1M
until=
quick=0
out=
paired=0
tuning_in=
min_time=
cmdline="bench/mpi_ops.sh $*"

die() {
    echo "mpi_ops.sh: $*" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] ||
        die "--reps needs a count >= 1, got '${2:-}'"
        reps=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift 2 ;;
    --ops) [ $# -ge 2 ] || die "--ops needs a list of operations"; ops=$2; shift 2 ;;
    --nps) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9\ ]+$ ]] || die "--nps needs rank counts, e.g. \"16 64\""
        nps=$2; shift 2 ;;
    --cap64) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+[KM]?$ ]] || die "--cap64 needs a size such as 64K"
        cap64=$2; shift 2 ;;
    --until) [ $# -ge 2 ] && [[ "$2" =~ ^[0-2][0-9]:[0-5][0-9]$ ]] || die "--until needs HH:MM (UTC)"
        until=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out=$2; shift 2 ;;
    --paired) paired=1; shift ;;
    --tuning) [ $# -ge 2 ] && [ -r "$2" ] || die "--tuning needs a readable tuning file"
        tuning_in=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --min-time) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]*\.?[0-9]+$ ]] ||
        die "--min-time needs seconds such as 0.3, got '${2:-}'"
        min_time=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --reps R, --build DIR, --ops LIST, --nps LIST, --cap64 SIZE, --until HH:MM, --quick, --out FILE, --paired, --tuning FILE, --min-time S, --help" ;;
    esac
done
if [ "$quick" = 1 ] && [ "$reps" = 3 ]; then reps=1; fi
if [ -z "$min_time" ]; then min_time=0; [ "$paired" = 1 ] && min_time=1; fi
if [ -z "$out" ]; then
    out=$here/results/mpi_ops.txt
    [ "$paired" = 1 ] && out=$here/results/mpi_ops-paired.txt
fi
for op in $ops; do
    case " bcast reduce allreduce reduce_scatter scan allgather gather scatter shift " in
    *" $op "*) ;;
    *) die "--ops: unknown operation '$op'; accepted: bcast reduce allreduce reduce_scatter scan allgather gather scatter shift" ;;
    esac
done

# What the run needs: cmake, a compiler, Open MPI and node.
if ! command -v cmake >/dev/null || ! command -v node >/dev/null ||
    ! command -v mpicc.openmpi >/dev/null; then
    echo "mpi_ops.sh: installing what is missing (scripts/install-deps.sh)" >&2
    bash "$repo/scripts/install-deps.sh" >&2
fi
command -v node >/dev/null || die "node not found after scripts/install-deps.sh"
# Configure when needed, build xchg-bench (quick when up to date).
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI=openmpi >/dev/null
fi
cmake --build "$build" --target xchg_bench xchg_tune -j2 >/dev/null
bench=$build/xchg-bench
tune=$build/xchg-tune
[ -x "$bench" ] && [ -x "$tune" ] || die "$bench or $tune was not built (is Open MPI found? see cmake -B $build)"
tuning=${tuning_in:-${out%.txt}-tuning.txt}
tuning_log=${out%.txt}-tuning-log.txt
# shellcheck source=../tests/mpi/lib_mpi.sh
source "$repo/tests/mpi/lib_mpi.sh" "$(sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$build/CMakeCache.txt")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load_start%% *}" 'BEGIN { exit !(l > 1.5) }'; then
    echo "mpi_ops.sh: warning: load average $load_start before starting;" \
        "other work on the machine will show in the figures" >&2
fi
deadline=0
if [ -n "$until" ]; then
    deadline=$(date -u -d "$(date -u +%F) $until" +%s)
    [ "$deadline" -gt "$start" ] || deadline=$((deadline + 86400))
fi

# A size such as 64K in bytes.
bytes_of() {
    case "$1" in
    *K) echo $((${1%K} * 1024)) ;;
    *M) echo $((${1%M} * 1048576)) ;;
    *) echo "$1" ;;
    esac
}
# The smaller of two sizes.
smaller() { [ "$(bytes_of "$1")" -le "$(bytes_of "$2")" ] && echo "$1" || echo "$2"; }
# The largest block reduce_scatter runs at p >= 64 (the header says why).
cap64_rs=$(smaller 64K "$cap64")

# The sizes and iteration counts of (op, p).
sizes_of() {
    local op=$1 np=$2 max=1M
    [ "$quick" = 1 ] && max=64K
    if [ "$np" -ge 64 ]; then
        case "$op" in
        allgather | gather | scatter) max=$(smaller "$max" "$cap64") ;;
        reduce_scatter) max=$(smaller "$max" "$cap64_rs") ;;
        esac
    fi
    echo "-m 8:$max"
}
# xchg-bench's --min-time flag at np ranks ("" when off): twice the time
# at 64 ranks and more, where a call's time strays more. With it, 10
# warm-up calls of the small sizes, whose pace sets the timed count (the
# first size's first calls, which set up the library's connections, would
# leave it too few).
iters_of() {
    local np=$1 t= x=2
    if awk -v t="$min_time" 'BEGIN { exit !(t > 0) }'; then
        t=" --min-time $(awk -v t="$min_time" -v p="$np" 'BEGIN { print (p >= 64 ? 2 * t : t) }')"
        x=10
    fi
    if [ "$quick" = 1 ]; then
        echo "-i 3 -x 1 --iterations-large 2 --warmup-large 1$t"
    elif [ "$np" -ge 64 ]; then
        echo "-i 10 -x $x --iterations-large 3 --warmup-large 1$t"
    else
        echo "-i 20 -x $x --iterations-large 5 --warmup-large 1$t"
    fi
}

# The three sides' xchg-bench flags.
side_flags() {
    case "$1" in
    tuned) echo "--alg auto --tuning $tuning" ;;
    paired) echo "--alg auto --tuning $tuning --pair" ;;
    control) echo "--alg mpi --pair" ;;
    auto) echo "--alg auto" ;;
    mpi) echo "--alg mpi" ;;
    esac
}

mpi_run 2 "$bench" --alg mpi -m 8:8 -i 1 -x 0 | sed -n 's/^# MPI library: //p' |
    cut -d, -f1 | tr -s " \t" " " >"$tmp/version"
# The tuning file: every (operation, p) tuned over the sizes the run times.
[ -z "$tuning_in" ] && rm -f "$tuning" "$tuning_log"
for np in $( [ -z "$tuning_in" ] && echo "$nps"); do
    for op in $ops; do
        t0=$(date +%s)
        # two runs, two mpiruns: the second times only the sizes where the
        # first chose an algorithm (--agree), so a row names one only when
        # both found it faster than the library
        for pass in first agree; do
            # shellcheck disable=SC2086
            mpi_run "$np" "$tune" --op "$op" $(sizes_of "$op" "$np") --round-ms 10 \
                --confirm-ms $((np >= 64 ? 1000 : 500)) \
                $( [ $pass = first ] && echo "-o $tmp/first.$op.$np.txt" ) \
                $( [ $pass = agree ] && echo "--agree $tmp/first.$op.$np.txt -o $tuning" ) \
                >"$tmp/tune.$op.$np.out" 2>"$tmp/tune.$op.$np.err" ||
                die "xchg tune --op $op on $np ranks failed ($pass run): $(head -c 300 "$tmp/tune.$op.$np.err")"
            { echo "# $pass run"; cat "$tmp/tune.$op.$np.out"; } >>"$tuning_log"
        done
        echo "   tuned $op p=$np: $(($(date +%s) - t0)) s" >&2
    done
done
tune_took=$(($(date +%s) - start))

: >"$tmp/pairs"
stopped=
for r in $(seq 1 "$reps"); do
    for np in $nps; do
        for op in $ops; do
            key="$op.$np"
            sz=$(sizes_of "$op" "$np")
            it=$(iters_of "$np")
            if [ "$r" -gt 1 ] && [ "$deadline" -gt 0 ]; then
                took=$(cat "$tmp/$key.took")
                if [ $(($(date +%s) + took)) -gt "$deadline" ]; then
                    stopped="${stopped:+$stopped, }$op p=$np after $((r - 1))"
                    continue
                fi
            fi
            t0=$(date +%s)
            if [ "$r" = 1 ]; then
                for side in tuned $( [ "$paired" = 0 ] && echo auto); do
                    # shellcheck disable=SC2086
                    mpi_run "$np" "$bench" --op "$op" $(side_flags $side) $sz -i 1 -x 0 -c --json \
                        >"$tmp/$key.valid-$side.json" 2>"$tmp/$key.valid-$side.err" || true
                done
                echo "$op $np $sz $it" >>"$tmp/pairs"
            fi
            for side in $( [ "$paired" = 1 ] && echo paired $( [ "$r" = 1 ] && echo control) ||
                echo tuned auto mpi); do
                # shellcheck disable=SC2086
                mpi_run "$np" "$bench" --op "$op" $(side_flags $side) $sz $it --json \
                    >"$tmp/$key.${side/paired/tuned}.$r.json" 2>"$tmp/$key.$side.$r.err" ||
                    echo "   $op p=$np --alg $side repetition $r: exit $? ($(head -c 200 \
                        "$tmp/$key.$side.$r.err"))" >&2
            done
            [ "$r" = 1 ] && echo $(($(date +%s) - t0)) >"$tmp/$key.took"
            echo "   $op p=$np repetition $r of $reps: $(($(date +%s) - t0)) s" \
                "(total $(($(date +%s) - start)) s)" >&2
        done
    done
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)

# report: run the JavaScript on stdin after the helpers every report uses
# (the run's folder and repetitions in argv, readj, med, human, pairs).
cat >"$tmp/report_common.js" <<'EOF'
const fs = require("fs");
const [dir, reps] = [process.argv[2], +process.argv[3]];
const readj = f => { try { return fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").filter(l => l.startsWith("{")).map(l => JSON.parse(l)); } catch (e) { return null; } };
const med = a => { const s = [...a].sort((x, y) => x - y), n = s.length;
                   return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const human = b => b >= 1 << 20 ? `${b / (1 << 20)}M` : b >= 1024 ? `${b / 1024}K` : `${b}`;
const pairs = fs.readFileSync(`${dir}/pairs`, "utf8").trim().split("\n").filter(l => l)
  .map(l => { const [op, np, ...rest] = l.split(" "); return {op, p: +np, flags: rest.join(" ")}; });
EOF
report() {
    { cat "$tmp/report_common.js"; cat; } | node - "$tmp" "$reps"
}

if [ "$paired" = 1 ]; then
{
    echo "# xchg's executor (xchg-bench --op OP --alg auto --tuning FILE --pair) against the MPI library's own call, in the same run"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s ($((elapsed / 60)) min; tuning ${tune_took} s)"
    echo "# machine: $cpu, $(nproc) online cores, $mem; ranks oversubscribed on one node; $(cat "$tmp/version")"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# size: one rank's block (xchg-bench --help); reductions MPI_INT, MPI_SUM; root 0, shift q = 1."
    echo "# caps at p = 64: allgather, gather and scatter stop at $cap64 per block, reduce_scatter at"
    echo "# $cap64_rs (the library's own call took 19 s at 512 KiB with 20.6 of 23.5 GiB in use: bench/mpi_ops.sh)."
    echo "# paired: in each xchg-bench run every iteration makes one call of auto (following the tuning"
    echo "# file $(basename "$tuning")) and one of the MPI library's, in alternating order, each timed"
    echo "# alone with a barrier after it. median ratio = auto's median call / the library's (each"
    echo "# rank's median, averaged over the ranks): the figure judged; pair ratio = the median over"
    echo "# a rank's iterations of its auto call's time / its library call's in that iteration,"
    echo "# averaged over the ranks (where auto ran the library's call: the short way's cost, which"
    echo "# the median ratio's noise hides; where it ran xchg's own, no measure of the slowdown:"
    echo "# bench/mpi_ops.sh); mean ratio = auto's Avg / the library's Avg (a few calls stretched by"
    echo "# the scheduler move it). Where the tuning row is 'mpi' both calls are the library's,"
    echo "# auto's after its short way (op_memo.c)."
    echo "# control: the median ratio / pair ratio of xchg-bench --alg mpi --pair in the first"
    echo "# repetition, the library's call on both sides of each pair: how far each strays here when"
    echo "# nothing differs."
    if awk -v t="$min_time" 'BEGIN { exit !(t > 0) }'; then
        echo "# --min-time: at each size the timed pairs are at least -i's and as many as fill $min_time s"
        echo "# ($(awk -v t="$min_time" 'BEGIN { print 2 * t }') s at p = 64) at the pace of 10 warm-up pairs (xchg-bench --help)."
    fi
    if [ -n "$stopped" ]; then
        echo "# PARTIAL: --until $until stopped repetitions of: $stopped repetition(s)"
    fi
    report <<'EOF'
console.log("# time(us): Avg, median over the repetitions; ratios: auto/mpi of each run, median over the");
console.log("# repetitions (the median ratio's [min..max] beside it)");
const summary = [];
for (const {op, p, flags} of pairs) {
  const key = `${op}.${p}`;
  const T = [];
  for (let r = 1; r <= reps; r++) { const t = readj(`${key}.tuned.${r}.json`); if (t && t.length) T.push(t); }
  const valid = readj(`${key}.valid-tuned.json`) || [];
  const vok = valid.length > 0 && valid.every(o => o.valid === true);
  console.log(`\n## ${op}, p = ${p}; ${flags}; ${T.length} repetition(s); validation pass (-c): ${vok ? "Pass" : "FAIL"} (${valid.length} sizes)`);
  if (T.length === 0) { summary.push({op, p, none: true}); continue; }
  const C = readj(`${key}.control.1.json`) || [];
  console.log("# Size        auto(us)      mpi(us)  median ratio [min..max]  pair ratio  mean ratio  control median/pair  auto ran");
  const rows = T[0].map((row, k) => {
    const rs = T.map(R => R[k].median_ratio);
    const own = T.every(R => !R[k].fallback);
    const ck = C[k] && C[k].bytes === row.bytes ? C[k] : null;
    const c = ck ? ck.median_ratio : null, cp = ck ? ck.pair_ratio : null;
    const pr = med(T.map(R => R[k].pair_ratio));
    const r = {bytes: row.bytes, m: med(rs), lo: Math.min(...rs), hi: Math.max(...rs), own, c, cp, pr};
    console.log(`${String(row.bytes).padEnd(8)}${med(T.map(R => R[k].avg_us)).toFixed(2).padStart(12)}` +
                `${med(T.map(R => R[k].mpi_avg_us)).toFixed(2).padStart(13)}  ${r.m.toFixed(2).padStart(6)} ` +
                `${`[${r.lo.toFixed(2)}..${r.hi.toFixed(2)}]`.padEnd(16)}` +
                `${pr.toFixed(2).padStart(12)}${med(T.map(R => R[k].ratio)).toFixed(2).padStart(12)}` +
                `${c === null ? "-".padStart(14) : `${c.toFixed(2)}/${cp.toFixed(2)}`.padStart(14)}         ` +
                [...new Set(T.map(R => (R[k].fallback ? "mpi" : R[k].alg)))].join("/"));
    return r;
  });
  summary.push({op, p, rows, vok});
}
console.log("\n## summary: worst median ratio auto/mpi (within 1.1x?); sizes where auto ran xchg's own algorithm and was faster");
const controlLine = (name, cs) => {
  if (cs.length)
    console.log(`# control (the library against itself): ${cs.length} sizes, ${name} ${Math.min(...cs).toFixed(2)}..${Math.max(...cs).toFixed(2)}, ` +
                `${cs.filter(c => c > 1.1 || c < 1 / 1.1).length} beyond 1.1x either way, ${cs.filter(c => c > 1.05 || c < 1 / 1.05).length} beyond 1.05x`);
};
const ctl = summary.filter(s => s.rows).flatMap(s => s.rows).filter(r => r.c !== null);
controlLine("median ratios", ctl.map(r => r.c));
controlLine("pair ratios", ctl.map(r => r.cp));
const libRows = summary.filter(s => s.rows).flatMap(s => s.rows.map(r => ({...r, p: s.p}))).filter(r => !r.own);
for (const p of [...new Set(libRows.map(r => r.p))]) {
  const prs = libRows.filter(r => r.p === p).map(r => r.pr);
  console.log(`# sizes tuned to the library, p=${p}: ${prs.length}, pair ratios ${Math.min(...prs).toFixed(2)}..${Math.max(...prs).toFixed(2)}, ` +
              `mean ${(prs.reduce((a, b) => a + b, 0) / prs.length).toFixed(3)}, ${prs.filter(x => x > 1.05).length} over 1.05, ${prs.filter(x => x > 1.1).length} over 1.1`);
}
for (const s of summary) {
  if (s.none) { console.log(`# ${s.op.padEnd(15)} p=${String(s.p).padEnd(3)} not run`); continue; }
  const worst = s.rows.reduce((a, b) => (b.m > a.m ? b : a));
  const own = s.rows.filter(r => r.own), lib = s.rows.filter(r => !r.own);
  const wins = own.filter(r => r.m < 1);
  const span = lib.length ? `; tuned to the library at ${lib.length}, ratios ${Math.min(...lib.map(r => r.m)).toFixed(2)}..${Math.max(...lib.map(r => r.m)).toFixed(2)}` : "";
  console.log(`# ${s.op.padEnd(15)} p=${String(s.p).padEnd(3)} worst ${worst.m.toFixed(2)} at ${human(worst.bytes)}` +
              ` (${worst.m <= 1.1 ? "within 1.1x" : "NOT within 1.1x"}); xchg's own algorithm at ${own.length} of ${s.rows.length} sizes, faster at ${wins.length}${span}` +
              (s.vok ? "" : "; VALIDATION FAILED"));
  if (wins.length) console.log(`#     faster: ${wins.map(r => `${human(r.bytes)} ${r.m.toFixed(2)} (${(1 / r.m).toFixed(1)}x)`).join(", ")}`);
  const slow = s.rows.filter(r => r.m > 1.1);
  if (slow.length) console.log(`#     over 1.1x: ${slow.map(r => `${human(r.bytes)} ${r.m.toFixed(2)} [${r.lo.toFixed(2)}..${r.hi.toFixed(2)}]${r.own ? "" : " (library)"}${r.c === null ? "" : ` control ${r.c.toFixed(2)}`}`).join(", ")}`);
  const libs = s.rows.filter(r => !r.own);
  if (libs.length) {
    const w = libs.reduce((a, b) => (b.pr > a.pr ? b : a));
    console.log(`#     pair ratio where tuned to the library: worst ${w.pr.toFixed(2)} at ${human(w.bytes)}, over 1.1 at ${libs.filter(r => r.pr > 1.1).length} of ${libs.length}`);
  }
}
EOF
} >"$out"
else
{
    echo "# xchg's executor (xchg-bench --op OP --alg auto) against the MPI library's own call (--alg mpi)"
    echo "# command: $cmdline"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $commit  wall time: ${elapsed} s ($((elapsed / 60)) min; tuning ${tune_took} s)"
    echo "# machine: $cpu, $(nproc) online cores, $mem; ranks oversubscribed on one node; $(cat "$tmp/version")"
    echo "# load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
    echo "# (other sessions share this machine: figures of one run can move by 2x; read the spreads)"
    echo "# size: one rank's block (xchg-bench --help): bcast/shift the message; reduce/allreduce/scan"
    echo "# the vector (MPI_INT, MPI_SUM); reduce_scatter the block each rank receives; allgather/"
    echo "# gather/scatter each rank's block. Root 0, shift q = 1."
    echo "# caps at p = 64: allgather, gather and scatter stop at $cap64 per block, reduce_scatter at"
    echo "# $cap64_rs (p blocks per rank: 1 MiB blocks would be 64 MiB a rank, 4 GiB over the ranks; the"
    echo "# library's own reduce_scatter took 19 s a call at 512 KiB: bench/mpi_ops.sh)"
    echo "# sides: tuned = --alg auto --tuning $(basename "$tuning") (made by xchg tune --op OP at the start"
    echo "# of this run, --round-ms 10; a row 'mpi' there passes the call to the library); auto = --alg"
    echo "# auto with the cost model alone; mpi = the library's own call"
    if [ -n "$stopped" ]; then
        echo "# PARTIAL: --until $until stopped repetitions of: $stopped repetition(s)"
    fi
    report <<'EOF'
const mpiName = {bcast: "MPI_Bcast", reduce: "MPI_Reduce", allreduce: "MPI_Allreduce",
  reduce_scatter: "MPI_Reduce_scatter_block", scan: "MPI_Scan", allgather: "MPI_Allgather",
  gather: "MPI_Gather", scatter: "MPI_Scatter", shift: "MPI_Sendrecv"};
console.log(`# time(us) = xchg-bench Avg Latency, median over the repetitions; ratio = side/mpi per`);
console.log(`# repetition: median [min..max] (< 1: xchg faster); ran = the plan's algorithm, tuned / auto`);
console.log(`# ("mpi": the side passed the call to the library: a tuning row, or no xchg algorithm applies)`);
const validation = (key, side) => {
  const valid = readj(`${key}.valid-${side}.json`) || [];
  const ok = valid.length > 0 && valid.every(o => o.valid === true);
  let err = "";
  try { err = fs.readFileSync(`${dir}/${key}.valid-${side}.err`, "utf8").split("\n").filter(l => l)[0] || ""; } catch (e) {}
  return {ok, text: `${side} ${ok ? "Pass" : `FAIL ${err}`} (${valid.length} sizes)`};
};
const ran = o => (o.fallback ? "mpi" : o.alg);
const summary = [];
for (const {op, p, flags} of pairs) {
  const key = `${op}.${p}`;
  const T = [], A = [], M = [];
  for (let r = 1; r <= reps; r++) {
    const t = readj(`${key}.tuned.${r}.json`), a = readj(`${key}.auto.${r}.json`), m = readj(`${key}.mpi.${r}.json`);
    if (t && a && m && m.length && t.length === m.length && a.length === m.length) { T.push(t); A.push(a); M.push(m); }
  }
  const vt = validation(key, "tuned"), va = validation(key, "auto");
  console.log(`\n## ${op} (${mpiName[op]}), p = ${p}; ${flags}; ${T.length} repetition(s)`);
  console.log(`## validation pass (-c, one call per size): ${vt.text}; ${va.text}`);
  if (T.length === 0) { console.log("# no complete repetition"); summary.push({op, p, none: true}); continue; }
  console.log("# Size      tuned(us)    auto(us)     mpi(us)  tuned/mpi [min..max]    auto/mpi [min..max]     ran");
  const rows = [];
  const ratio = (S, k) => { const rs = S.map((R, i) => R[k].avg_us / M[i][k].avg_us);
                            return {m: med(rs), lo: Math.min(...rs), hi: Math.max(...rs)}; };
  const span = r => `${r.m.toFixed(2).padStart(6)} ${`[${r.lo.toFixed(2)}..${r.hi.toFixed(2)}]`.padEnd(16)}`;
  M[0].forEach((row, k) => {
    const tt = med(T.map(R => R[k].avg_us)), ta = med(A.map(R => R[k].avg_us)), tm = med(M.map(R => R[k].avg_us));
    const rt = ratio(T, k), ra = ratio(A, k);
    const algs = [...new Set(T.map(R => ran(R[k])))].join("/") + " / " + [...new Set(A.map(R => ran(R[k])))].join("/");
    rows.push({bytes: row.bytes, rt, ra, tunedOwn: T.every(R => !R[k].fallback), autoOwn: A.every(R => !R[k].fallback)});
    console.log(`${String(row.bytes).padEnd(8)}${tt.toFixed(2).padStart(11)}${ta.toFixed(2).padStart(12)}${tm.toFixed(2).padStart(12)}` +
                `  ${span(rt)}  ${span(ra)}  ${algs}`);
  });
  summary.push({op, p, rows, vok: vt.ok && va.ok});
}
console.log("\n## summary: worst median ratio side/mpi per operation and p (within 1.1x?), and where xchg is faster");
console.log("# (faster: size ratio, i.e. xchg takes that fraction of the library's time; x = its speed-up;");
console.log("# counted only at sizes where the side ran an xchg algorithm on every repetition)");
const line = (s, side, key, ownKey) => {
  const worst = s.rows.reduce((a, b) => (b[key].m > a[key].m ? b : a));
  const own = s.rows.filter(r => r[ownKey]);
  const wins = own.filter(r => r[key].m < 1);
  const best = wins.length ? wins.reduce((a, b) => (b[key].m < a[key].m ? b : a)) : null;
  console.log(`# ${s.op.padEnd(15)} p=${String(s.p).padEnd(3)} ${side.padEnd(5)} worst ${worst[key].m.toFixed(2)} at ${human(worst.bytes)}` +
              ` (${worst[key].m <= 1.1 ? "within 1.1x" : "NOT within 1.1x"}); xchg's own algorithm at ${own.length} of ${s.rows.length} sizes, faster at ${wins.length}` +
              (best ? `, best ${best[key].m.toFixed(2)} (${(1 / best[key].m).toFixed(1)}x) at ${human(best.bytes)}` : "") +
              (s.vok ? "" : "; VALIDATION FAILED"));
  if (wins.length)
    console.log(`#     faster: ${wins.map(r => `${human(r.bytes)} ${r[key].m.toFixed(2)}`).join(", ")}`);
};
for (const s of summary) {
  if (s.none) { console.log(`# ${s.op.padEnd(15)} p=${String(s.p).padEnd(3)} not run`); continue; }
  line(s, "tuned", "rt", "tunedOwn");
  line(s, "auto", "ra", "autoOwn");
}
EOF
} >"$out"
fi
cat "$out"
echo "wrote $out ($elapsed s)" >&2
