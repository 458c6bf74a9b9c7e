#!/usr/bin/env bash
# cli_errors.sh - drives the xchg tool with bad usage and bad input: each
# case must exit 2, print nothing on stdout, and print one "xchg: ..." message
# on stderr that names the problem. Also: --help and --version exit 0, a
# failed export --output leaves no file behind, and nothing crashes.
# Usage: bash tests/cli_errors.sh path/to/xchg
X="${1:?usage: cli_errors.sh path/to/xchg}"
SUITE=cli_errors
source "$(dirname "$0")/lib_cli.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The sanitizer build (XCHG_TEST_REDUCED=1, CMakeLists.txt) leaves the
# next section, the numbers and help and version to the plain build: they
# are the CLI's option and number parsing alone (much of this test's
# time under the sanitizers), which the fuzz tree also runs under ASan and
# UBSan (tests/fuzz/fuzz_cli.c, fuzz_machine.c).
if [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
# --- subcommands and options ------------------------------------------------
usage_error 'no command'                                  # no arguments at all
usage_error "unknown command 'frobnicate'.*accepted" frobnicate
usage_error "unknown command 'nosuch'" help nosuch
usage_error "unknown option '--bogus'.*accepted" cost --topo ring:8 --alg ring --bogus
usage_error "unknown option '--frob'" list --frob
usage_error "unknown option '--alg'" list --alg ring
usage_error "topo.*'ring:x'" list --topo ring:x
usage_error "--alg needs a value" cost --topo ring:8 --alg
usage_error "--topo needs a value" cost --topo --alg ring
usage_error "--m needs a value" cost --topo ring:8 --alg ring --m
usage_error "--format needs a value" export --topo ring:4 --alg ring --format
usage_error "--json takes no value" cost --topo ring:8 --alg ring --json=yes
usage_error "--m given twice" cost --topo ring:8 --alg ring --m 8 --m 16
usage_error "unexpected argument 'extra'" cost --topo ring:8 --alg ring extra
usage_error "unexpected argument '-m'" cost --topo ring:8 --alg ring -m 8
usage_error "needs --topo" cost --alg ring
usage_error "needs --alg" verify --topo ring:8
usage_error "needs --alg" export --topo ring:8
usage_error "needs --topo" compare

fi

# --- topology specs -----------------------------------------------------------
usage_error "topo.*'foo:3'" cost --topo foo:3 --alg ring
usage_error "topo.*'ring'" cost --topo ring --alg ring
usage_error "topo.*'ring:0'" verify --topo ring:0 --alg ring
usage_error "topo.*'ring:abc'" cost --topo ring:abc --alg ring
usage_error "topo.*'ring:-4'" cost --topo ring:-4 --alg ring
usage_error "topo.*'torus:1x4'" cost --topo torus:1x4 --alg mesh2
usage_error "topo.*'mesh:4x'" compare --topo mesh:4x
usage_error "topo.*'hypercube:40'" cost --topo hypercube:40 --alg hc-standard
usage_error "topo.*'ring:99999999999'" cost --topo ring:99999999999 --alg ring

# --- algorithms -----------------------------------------------------------------
usage_error "nosuch" cost --topo ring:8 --alg nosuch
usage_error "nosuch" verify --topo ring:8 --alg nosuch
usage_error "nosuch" export --topo ring:8 --alg nosuch
usage_error "hc-standard" cost --topo ring:6 --alg hc-standard      # needs p = 2^D
usage_error "mesh2" verify --topo ring:8 --alg mesh2                 # needs 2-D
usage_error "multiphase" cost --topo hypercube:3 --alg multiphase:9  # parts must sum to 3
usage_error "bruck" cost --topo ring:8 --alg bruck:1                 # radix >= 2
usage_error "bruck" cost --topo ring:8 --alg bruck:x

# (plain build only, as above)
if [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
# --- numbers ------------------------------------------------------------------------
usage_error "'abc'.*--m" cost --topo ring:8 --alg ring --m abc
usage_error "'-5'.*--m" cost --topo ring:8 --alg ring --m -5
usage_error "'0'.*--m" cost --topo ring:8 --alg ring --m 0
usage_error "'1e400'.*--m" cost --topo ring:8 --alg ring --m 1e400
usage_error "'0x10'.*--m" cost --topo ring:8 --alg ring --m 0x10
usage_error "'8k'.*--m" cost --topo ring:8 --alg ring --m 8k
usage_error "--m has an empty value" cost --topo ring:8 --alg ring --m=
usage_error "'nan'.*--ts" cost --topo ring:8 --alg ring --ts nan --tw 1
usage_error "'-nan'.*--ts" cost --topo ring:8 --alg ring --ts -nan --tw 1
usage_error "'inf'.*--tw" cost --topo ring:8 --alg ring --ts 1 --tw inf
usage_error "'-1'.*--tr" cost --topo ring:8 --alg ring --ts 1 --tw 1 --tr -1
usage_error "'x'.*--a" cost --topo ring:8 --alg ring --a x
usage_error "'-1'.*--threads" verify --topo ring:8 --alg ring --threads -1
usage_error "'two'.*--threads" verify --topo ring:8 --alg ring --threads two
usage_error "'64:8'.*MIN.*MAX" compare --topo ring:8 --m 64:8
usage_error "'8:'" compare --topo ring:8 --m 8:
usage_error "':8'" compare --topo ring:8 --m :8
usage_error "'nope'.*not a registry name" compare --topo ring:8 --only ring,nope
usage_error "'' in the algorithm list" compare --topo ring:8 --only ring,,bruck
usage_error "needs a value" compare --topo ring:8 --only
usage_error "--messages-only" verify --topo ring:8 --alg ring --messages-only=yes
usage_error "'a'.*--m" compare --topo ring:8 --m a:b
usage_error "'0'.*--m" compare --topo ring:8 --m 0:8
# compare's --m and plan's --sweep share one range parser: decimals with
# 0 < MIN <= MAX <= 1e15, refused by both in the same words
usage_error "'2e15'.*--m.*1e\+15" compare --topo ring:8 --m 8:2e15
usage_error "'2e15'.*--sweep.*1e\+15" plan --topo ring:8 --sweep 8:2e15
usage_error "'0'.*--sweep" plan --topo ring:8 --sweep 0:8
usage_error "'64:8'.*MIN.*MAX" plan --topo ring:8 --sweep 64:8
usage_error "'8:'" plan --topo ring:8 --sweep 8:
usage_error "'1:2:3'" compare --topo ring:8 --m 1:2:3
for r in 8:2e15 0:8 a:b 64:8 8: :8 1:2:3; do
    m=$("$X" compare --topo ring:8 --m "$r" 2>&1 >/dev/null | sed 's/--m /--RANGE /')
    s=$("$X" plan --topo ring:8 --sweep "$r" 2>&1 >/dev/null | sed 's/--sweep /--RANGE /')
    expect "compare --m $r and plan --sweep $r: one message" "$m" "$s"
done
usage_error "'0'.*--max-work" compare --topo ring:8 --max-work 0
usage_error "'-3'.*--max-work" verify --topo ring:8 --alg ring --max-work -3

fi

# --- machines and formats -------------------------------------------------------------
usage_error "machine.*'cray'.*paragon" cost --topo ring:8 --alg ring --machine cray
usage_error "machine.*'cray'" compare --topo ring:8 --machine cray
usage_error "alternatives" cost --topo ring:8 --alg ring --machine sp2 --ts 1 --tw 1
usage_error "alternatives" compare --topo ring:8 --a 5000 --ts 1 --tw 1
usage_error "--ts and --tw go together" cost --topo ring:8 --alg ring --ts 1
usage_error "--ts and --tw go together" cost --topo ring:8 --alg ring --tw 1 --tr 1
usage_error "--barrier" cost --topo ring:8 --alg ring --a 5000 --barrier
usage_error "--barrier" cost --topo ring:8 --alg ring --ts 1 --tw 1 --barrier
usage_error "format 'xml'.*json" export --topo ring:4 --alg ring --format xml

# --- too big --------------------------------------------------------------------------
usage_error "verify" verify --topo ring:16384 --alg ring
usage_error "verify" verify --topo ring:8 --alg ring --max-work 10
usage_error "export" export --topo ring:16384 --alg ring
usage_error "export" export --topo ring:8 --alg ring --max-work 10 --output "$TMP/big.json"
if [ -e "$TMP/big.json" ] || ls "$TMP"/big.json.* >/dev/null 2>&1; then
    bad "failed export --output left a file behind: $(ls "$TMP")"
else
    ok
fi
usage_error "cannot write --output" export --topo ring:4 --alg ring --output "$TMP/no/such/dir/x.json"

# (plain build only, as above)
if [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
# --- help and version: stdout, exit 0 -------------------------------------------------------
for args in "--help" "-h" "--version" "help" "help cost" "list --help" "verify --help" \
    "cost --help" "export --help" "compare --help" "cost --topo bad --help"; do
    # shellcheck disable=SC2086
    "$X" $args >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
        ok
    else
        bad "xchg $args -> exit $rc (wanted 0, text on stdout only)"
    fi
done
if "$X" --version | grep -qE '^xchg [0-9]+\.[0-9]+\.[0-9]+$'; then ok; else bad "--version format"; fi
if "$X" cost --help | grep -q -- '--machine'; then ok; else bad "cost --help lists --machine"; fi
# every command's help ends with its exit statuses, and the no-command
# message names every command the help lists
for c in list verify cost export compare plan; do
    if "$X" "$c" --help | tail -n 2 | grep -q 'exit status'; then ok; else
        bad "xchg $c --help does not end with the exit statuses"
    fi
    usage_error "no command given; accepted:.* $c[ ,]"
done
usage_error "unexpected argument '--foo' after --version" --version --foo
usage_error "unexpected argument 'list' after --help" --help list

fi

# --- limits (docs/limits.md): accepted at the limit, refused just past it --------------------
# accepted PATTERN ARGS...: exit 0
accepted() {
    "$X" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 0 ]; then ok; else bad "xchg $* -> exit $rc at the limit: $(head -c 300 "$TMP/err")"; fi
}
accepted list --topo ring:16777216
accepted list --topo torus:4096x4096
accepted list --topo hypercube:24
usage_error "ring:16777217.*1 to 16777216" list --topo ring:16777217
usage_error "torus:4096x4097.*more than 16777216 nodes" list --topo torus:4096x4097
usage_error "hypercube:25.*0 to 24.*0 <= D <= 24" list --topo hypercube:25
accepted cost --topo ring:8 --alg ring --m 1e15
usage_error "'1.1e15' for --m" cost --topo ring:8 --alg ring --m 1.1e15
accepted cost --topo ring:8 --alg ring --ts 1e12 --tw 1
usage_error "'2e12' for --ts.*at most 1e\+12" cost --topo ring:8 --alg ring --ts 2e12 --tw 1
accepted verify --topo ring:4 --alg ring --threads 1024
usage_error "'1025' for --threads.*0 to 1024" verify --topo ring:4 --alg ring --threads 1025
# one rule for --max-work in every command: a whole number from 1
for cmd in "verify --alg ring" "export --alg ring" "cost --alg ring" "compare" "plan --m 8"; do
    usage_error "'0' for --max-work.*from 1" $cmd --topo ring:4 --max-work 0
    accepted $cmd --topo ring:4 --max-work 1000000
done

# --- work and memory: estimated, and refused before anything is built -----------
# refused_fast PATTERN ARGS...: usage_error, and the answer comes within 1 s
# (the estimate is closed-form; building these would take minutes or more
# memory than the machine has)
refused_fast() {
    local t0 t1
    t0=$(date +%s%N)
    usage_error "$@"
    t1=$(date +%s%N)
    if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then ok; else
        bad "xchg ${*:2} took $(((t1 - t0) / 1000000)) ms to refuse (wanted under 1 s)"
    fi
}
refused_fast "verifying hypercube:24: .* block-steps .*accepted: --max-work W to raise it" \
    verify --topo hypercube:24 --alg hc-direct
refused_fast "checking the messages of hypercube:24: .*link hops.*--max-work W" \
    verify --topo hypercube:24 --alg hc-direct --messages-only
refused_fast "cost: hc-direct on hypercube:24 would take about [0-9.]+ GiB of memory \(its schedule: 16777215 steps\), more than the limit of 4.0 GiB; accepted: --max-memory BYTES" \
    cost --topo hypercube:24 --alg hc-direct
refused_fast "export follows every block.*above the limit" export --topo torus:4096x4096 --alg t1
refused_fast "cost: pairwise on mesh:2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2 would take about .* GiB.*--max-memory" \
    cost --topo mesh:2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2 --alg pairwise
refused_fast "cost: ar1:virtual on ring:16777215 would take about [0-9.]+ PiB of memory" \
    cost --topo ring:16777215 --alg ar1:virtual --max-memory 1024T
refused_fast "cost: building t1:paper on torus:4096x4096 would take about [0-9.e+]+ operations \(33 steps\), more than the limit of 2e\+10; accepted: --max-work W" \
    cost --topo torus:4096x4096 --alg t1:paper --max-memory 16G
# the limit is the estimate itself: at it accepted, one byte under it refused
est=$("$X" cost --topo ring:100000 --alg ring --json | sed 's/.*"estimate_bytes":\([0-9]*\).*/\1/')
if [ -n "$est" ] && [ "$est" -gt $((1 << 20)) ]; then ok; else bad "cost --json gave estimate_bytes '$est'"; fi
accepted cost --topo ring:100000 --alg ring --max-memory "$est"
usage_error "ring on ring:100000 would take about .* MiB.*more than the limit" \
    cost --topo ring:100000 --alg ring --max-memory $((est - 1))
usage_error "would take about .* of memory.*and the verifier's counts" \
    verify --topo ring:2048 --alg ring --max-memory 16M
# --max-memory: whole bytes or K, M, G, T; 1M to 1024T
accepted cost --topo ring:8 --alg ring --max-memory 1M
accepted cost --topo ring:8 --alg ring --max-memory 1024T
accepted cost --topo ring:8 --alg ring --max-memory 1048576
for v in 0 1048575 1023K 1025T 4X 4GB -1 1.5G; do
    usage_error "bad size '$v' for --max-memory; accepted: .*K, M, G or T.*from 1M to 1024T" \
        cost --topo ring:8 --alg ring --max-memory "$v"
done
# compare and plan skip, and name, what is too big, and go on with the rest
"$X" compare --topo ring:100000 --only ring,bruck --m 64 --max-memory 64M >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && grep -qE '^  ring +skipped: its schedule would take about [0-9.]+ MiB \(99999 steps\), over the memory limit of 64.0 MiB' "$TMP/out" &&
    grep -qE '^  bruck:2 +[0-9]+ ' "$TMP/out" && grep -q '^# skipped: too large to build.*--max-memory BYTES' "$TMP/out"; then
    ok
else
    bad "compare skipping ring: exit $rc: $(head -c 600 "$TMP/out") $(head -c 300 "$TMP/err")"
fi
usage_error "plan: none of the 2 candidates on ring:100000 may win \(ring: skipped: its schedule would take about" \
    plan --topo ring:100000 --only ring,ring-bidir --m 64 --max-memory 64M
XCHG_PROGRESS_AFTER=soon usage_error "bad XCHG_PROGRESS_AFTER 'soon'; accepted: seconds from 0 to 3600" \
    verify --topo ring:4 --alg ring

# --- schedules from files (--schedule FILE) ------------------------------------
"$X" export --topo ring:4 --alg ring --output "$TMP/ring4.json"
usage_error "--alg and --schedule are alternatives" cost --topo ring:4 --alg ring --schedule "$TMP/ring4.json"
usage_error "'xchg sim' needs --alg; accepted: --alg A .*, or --schedule FILE" sim --topo ring:4
usage_error "cannot read --schedule '$TMP/nosuch'" verify --schedule "$TMP/nosuch"
usage_error "--topo ring:5 is not the topology of --schedule .* \(ring:4\)" cost --topo ring:5 --schedule "$TMP/ring4.json"
accepted cost --topo ring:4 --schedule "$TMP/ring4.json"
sed 's/"from":1,"to":2/"from":1,"to":1/' "$TMP/ring4.json" >"$TMP/bad.json"
usage_error "bad --schedule '.*': line 1, column [0-9]+, steps\[0\]\[1\]: node 1 sends to itself" sim --schedule "$TMP/bad.json"
printf '# xchg-schedule/1 topology ring:4 algorithm x nodes 4 steps 1\nstep 1\n  0 -> 1  route d0+1x1  blocks (0,1) (7,1)\n' >"$TMP/bad.txt"
usage_error "line 3, column [0-9]+: block \(7,1\) names a node past the last one" verify --schedule "$TMP/bad.txt"
printf '{"format":"xchg-schedule/1","topology":{"kind":"ring","dims":[1024]},"steps":[]}' >"$TMP/ring1024.json"
usage_error "replaying its blocks takes 4.0 MiB .*over the memory limit of 1.0 MiB" cost --schedule "$TMP/ring1024.json" --max-memory 1M
"$X" verify --schedule "$TMP/ring1024.json" --max-memory 5M >/dev/null 2>&1
expect "read under 5M, but no step delivers anything: verify exit" $? 1
head -c 100 "$TMP/ring4.json" >"$TMP/cut.json"
usage_error "bad --schedule '.*': line 1, column 101" cost --schedule "$TMP/cut.json"
# a file that reads but does not deliver: verify says so (exit 1), and cost
# and sim refuse to use it (exit 1)
printf '# xchg-schedule/1 topology ring:3 algorithm short nodes 3 steps 1\nstep 1\n  0 -> 1  route d0+1x1  blocks (0,1)\n' >"$TMP/short.txt"
for cmd in verify cost sim; do
    "$X" $cmd --schedule "$TMP/short.txt" >"$TMP/out" 2>"$TMP/err"
    expect "$cmd --schedule of a schedule that does not deliver: exit" $? 1
done
grep -q "fails verification" "$TMP/err" && ok || bad "sim: no 'fails verification' message: $(cat "$TMP/err")"

# --- machine files (--machine FILE) --------------------------------------------
usage_error "bad --machine 'nosuch': not a preset and not a file we can read.*accepted: paragon, sp2, cs2, or a machine file" \
    cost --topo ring:4 --alg ring --machine nosuch
printf 'xchg-machine/1\nname cut\nts 2\n' >"$TMP/machine"
usage_error "bad machine file '.*': line 3 .the end.: no 'tw' line" cost --topo ring:4 --alg ring --machine "$TMP/machine"
printf 'xchg-machine/1\nts 2\ntw 0.001\nspeed 3\n' >"$TMP/machine"
usage_error "line 4: unknown key 'speed'; accepted: name, units, ts, tw" sim --topo ring:4 --alg ring --machine "$TMP/machine"
printf 'xchg-machine/1\nts 2\ntw 0.001\n' >"$TMP/machine"
accepted cost --topo ring:4 --alg ring --machine "$TMP/machine"
accepted compare --topo ring:4 --machine "$TMP/machine"
accepted plan --topo ring:4 --m 64 --machine "$TMP/machine"
printf 'xchg-tuning/1\n4 ring:4 1 64 ring\n' >"$TMP/tuning"
usage_error "line 1: 'xchg-tuning/1' is not the header of a machine file" \
    plan --topo ring:4 --m 64 --machine "$TMP/tuning"

# --- sim --------------------------------------------------------------------------
usage_error "needs --alg" sim --topo ring:4
usage_error "unknown --mode 'fast'; accepted: barrier, async" sim --topo ring:4 --alg ring --mode fast
usage_error "unknown --ports 'two'; accepted: one, all" sim --topo ring:4 --alg ring --ports two
usage_error "unknown --routing 'adaptive'; accepted: wormhole, vct" sim --topo ring:4 --alg ring --routing adaptive
accepted sim --topo ring:4 --alg ring --routing vct
usage_error "'-1' for --th" sim --topo ring:4 --alg ring --th -1
accepted sim --topo ring:4 --alg ring --th 1e12
usage_error "'2e12' for --th" sim --topo ring:4 --alg ring --th 2e12
usage_error "--barrier needs barrier mode" sim --topo ring:4 --alg ring --mode async --barrier
usage_error "--barrier needs barrier mode and a machine" sim --topo ring:4 --alg ring --ts 1 --tw 1 --barrier
usage_error "cannot write --trace '$TMP/no/such/dir/t'" sim --topo ring:4 --alg ring --trace "$TMP/no/such/dir/t"
refused_fast "sim: hc-direct on hypercube:24 would take about .* GiB of memory.*--max-memory" \
    sim --topo hypercube:24 --alg hc-direct
usage_error "cannot read --map 'spiral'.*accepted: row-major, snake, or a file of node ids" \
    sim --topo mesh:2x2 --alg hc-direct --map spiral
printf '0 1\n2 x\n' >"$TMP/map"
usage_error "bad --map '.*', line 2: 'x' is not a node of the network; accepted: whole numbers from 0 to 3" \
    sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
printf '0 1\n2\n' >"$TMP/map"
usage_error "bad --map '.*': 3 numbers for a network of 4 nodes; accepted: exactly 4" \
    sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
printf '0 1 2 3\n\n0\n' >"$TMP/map"
usage_error "bad --map '.*', line 3: more than the 4 nodes" sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
printf '0 1 2 4\n' >"$TMP/map"
usage_error "line 1: '4' is not a node of the network" sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
printf '0 1 1 3\n' >"$TMP/map"
usage_error "sim: node map: network node 1 is given twice" sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
printf '3 2\n1 0\n' >"$TMP/map"
accepted sim --topo mesh:2x2 --alg hc-direct --map "$TMP/map"
accepted sim --topo hypercube:2 --alg hc-direct --network mesh:2x2 --map "$TMP/map"
usage_error "--network mesh:4x4 has 16 nodes but --topo has 4; accepted: a network of as many nodes" \
    sim --topo hypercube:2 --alg hc-direct --network mesh:4x4
usage_error "bad --network: .*'mesh:0x4'" sim --topo hypercube:2 --alg hc-direct --network mesh:0x4

# --- messages that say what applies --------------------------------------------------------
usage_error "ring does not apply to torus:8x8; accepted: an algorithm that does \(.*at2.*\)\. Why: ring needs a one-dimensional" \
    compare --topo torus:8x8 --only ring
usage_error "none of at2,t1 applies to ring:7; accepted: an algorithm that does \(ring, .*bruck.*\)\. Why: t1 needs.*at2 needs" \
    plan --topo ring:7 --only at2,t1 --m 64
# one rule for the block size: above 0 for cost, plan and compare alike
usage_error "bad number '0' for --m; accepted: a decimal number above 0" cost --topo ring:8 --alg ring --m 0
usage_error "bad number '0' for --m; accepted: a decimal number above 0" plan --topo ring:8 --m 0
usage_error "-m|--m.*0" compare --topo ring:8 --m 0:64

finish
