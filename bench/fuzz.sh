#!/usr/bin/env bash
# Run every libFuzzer harness of tests/fuzz/ for a while (10 minutes each by
# default), at most two at once (the machine has two cores), and record what
# each run did in bench/results/fuzz.txt: harness, minutes, executions,
# corpus size, crashes/leaks/timeouts found, date, clang version.
#
#   bash bench/fuzz.sh [BUILD_DIR [SECONDS [HARNESS...]]]
#
# BUILD_DIR is a build tree configured with CC=clang -DXCHG_FUZZ=ON (default
# build-fuzz, which `make test-fuzz` makes). Each run starts from the kept
# corpus (tests/fuzz/corpus/H, read only) and writes what it finds to
# BUILD_DIR/fuzz-work/H; crash, leak and timeout inputs land in
# BUILD_DIR/fuzz-work/H-artifacts/. Afterwards the new inputs are merged,
# minimized (-merge=1: only those that add coverage), into
# tests/fuzz/corpus/H, so the regression tests replay them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-fuzz}
secs=${2:-600}
shift $(( $# > 2 ? 2 : $# ))
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(topo alg machine cli files mpi_env)
cd "$root"
out=bench/results/fuzz.txt

# Longest input worth trying: a topology or algorithm spec is short (the
# library refuses an algorithm spec past 128 characters anyway); a command
# line or three environment values are longer.
max_len() {
  case $1 in
    topo|machine) echo 64 ;;
    alg) echo 160 ;;
    *) echo 256 ;;
  esac
}

run_one() {
  local h=$1 bin=$build/fuzz_$1 work=$build/fuzz-work/$1
  local art=$build/fuzz-work/$1-artifacts
  rm -rf "$work" "$art"
  mkdir -p "$work" "$art"
  # -close_fd_mask=3: the CLI's messages would fill the log; libFuzzer and
  # the sanitizers still report on their own copy of stderr.
  "$bin" -max_total_time="$secs" -max_len="$(max_len "$h")" -timeout=10 \
         -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/" \
         "$work" "tests/fuzz/corpus/$h" >"$build/fuzz-work/$h.log" 2>&1 || true
}

summarize() {
  local h=$1 log=$build/fuzz-work/$1.log art=$build/fuzz-work/$1-artifacts
  local execs secs_run corp crashes leaks timeouts
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  secs_run=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' |
             grep -o '[0-9]*' || true)
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1 | sed 's/corp: //')
  crashes=$(find "$art" -name 'crash-*' | wc -l)
  leaks=$(find "$art" -name 'leak-*' | wc -l)
  timeouts=$(find "$art" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)
  local ooms
  ooms=$(find "$art" -name 'oom-*' | wc -l)
  local mins
  if [ -n "$secs_run" ]; then
    mins=$(awk -v s="$secs_run" 'BEGIN { printf "%.1f", s / 60 }')
  else
    mins="stopped early (see log)"
  fi
  printf '%-8s %8s %12s %14s %7s %5s %8s %4s  %s\n' "$h" "$mins" "${execs:-?}" \
         "${corp:-?}" "$crashes" "$leaks" "$timeouts" "$ooms" "$(date -u +%Y-%m-%d)"
}

# At most two harnesses at once.
for h in "${harnesses[@]}"; do
  [ -x "$build/fuzz_$h" ] || { echo "fuzz.sh: $build/fuzz_$h not built; skipped" >&2; continue; }
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
  echo "fuzzing $h for ${secs}s"
  run_one "$h" &
done
wait

{
  echo "# bench/fuzz.sh: each libFuzzer harness of tests/fuzz/ run for ${secs}s, two at once,"
  echo "# on $(nproc) cores shared with other work; $(clang --version | head -n 1)."
  echo "# corpus = inputs/bytes in the fuzzing corpus at the end; crash, leak, timeout and"
  echo "# oom count the artifacts the run wrote (a run stops at its first crash)."
  printf '%-8s %8s %12s %14s %7s %5s %8s %4s  %s\n' harness minutes executions corpus \
         crashes leaks timeouts oom date
  for h in "${harnesses[@]}"; do
    [ -f "$build/fuzz-work/$h.log" ] && summarize "$h"
  done
} >"$out.new"
# Keep the lines of harnesses not run this time.
if [ -f "$out" ]; then
  for h in topo alg machine cli files mpi_env; do
    case " ${harnesses[*]} " in *" $h "*) continue ;; esac
    grep "^$h " "$out" >>"$out.new" || true
  done
fi
mv "$out.new" "$out"
cat "$out"

# Merge what the runs found, minimized, into the kept corpus.
for h in "${harnesses[@]}"; do
  [ -d "$build/fuzz-work/$h" ] || continue
  "$build/fuzz_$h" -merge=1 -close_fd_mask=3 -max_len="$(max_len "$h")" \
                   "tests/fuzz/corpus/$h" "$build/fuzz-work/$h" >"$build/fuzz-work/$h.merge.log" 2>&1 ||
    echo "fuzz.sh: merging $h failed; see $build/fuzz-work/$h.merge.log" >&2
done
