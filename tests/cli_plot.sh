#!/usr/bin/env bash
# cli_plot.sh - every kind of picture the CLI makes, rendered with a real
# renderer (rsvg-convert, Debian's librsvg2-bin): step diagrams as SVG and
# PNG, compare --plot, plot --bench (a small JSON file made here) and plot
# --sim (lines of xchg sim --json). Each SVG renders to a PNG of its own
# width and height; each PNG xchg writes is a PNG (its signature) of the
# size of the same picture's SVG; the plots hold one line per algorithm,
# one dashed bound and one marker per crossover, as compare --json counts
# them; compare's stdout is the same with and without --plot. Failures
# (bad --format, no rsvg-convert, bad or empty result files, unwritable
# --plot) exit 2 with a message and leave no file behind.
# Usage: bash tests/cli_plot.sh path/to/xchg
X="${1:?usage: cli_plot.sh path/to/xchg}"
SUITE=cli_plot
source "$(dirname "$0")/lib_cli.sh"
need rsvg-convert librsvg2-bin
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# cnt CLASS FILE: how many class="CLASS" FILE holds.
cnt() { grep -o "class=\"$1\"" "$2" | wc -l | tr -d ' '; }

# svg_ok NAME SVG: well formed at both ends, renders at its own size.
svg_ok() {
    expect "$1: starts with <svg" "$(head -c 4 "$2")" "<svg"
    expect "$1: ends with </svg>" "$(tail -n1 "$2")" "</svg>"
    if rsvg-convert "$2" -o "$TMP/render.png" 2>"$TMP/rsvg"; then
        expect "$1: rendered size" "$(png_size "$TMP/render.png")" "$(attr width "$2") $(attr height "$2")"
    else
        bad "$1: rsvg-convert failed: $(head -c 300 "$TMP/rsvg")"
    fi
}
# png_ok NAME PNG SVG: PNG is a PNG of the SVG's size.
png_ok() {
    if [ -f "$2" ] && is_png "$2"; then
        expect "$1: PNG size" "$(png_size "$2")" "$(attr width "$3") $(attr height "$3")"
    else
        bad "$1: $2 is not a PNG"
    fi
}

# --- step diagrams: SVG, PNG by extension and by --format ----------------
"$X" draw --topo torus:8x8 --alg t1 --step 1 -o "$TMP/t1.svg" && ok || bad "draw svg"
svg_ok "draw t1" "$TMP/t1.svg"
"$X" export --topo torus:8x8 --alg t1 --format text --output "$TMP/t1.txt" 2>/dev/null
want=$(awk '/^step /{k=$2; next} k==1 && /->/{n++} END{print n+0}' "$TMP/t1.txt")
[ "$want" -gt 0 ] && ok || bad "export lists t1's first step"
expect "t1 step 1: one arrow per message" "$(cnt msg "$TMP/t1.svg")" "$want"
"$X" draw --topo torus:8x8 --alg t1 --step 1 -o "$TMP/t1.png" >"$TMP/out" 2>"$TMP/err" && ok ||
    bad "draw -o t1.png: $(cat "$TMP/err")"
expect "draw png: nothing on stdout" "$(wc -c <"$TMP/out")" 0
png_ok "draw t1 (.png)" "$TMP/t1.png" "$TMP/t1.svg"
"$X" draw --topo torus:8x8 --alg t1 --step 1 --format png -o "$TMP/t1-png.img" && ok || bad "draw --format png"
png_ok "draw t1 (--format png)" "$TMP/t1-png.img" "$TMP/t1.svg"
"$X" draw --topo torus:8x8 --alg t1 --step 1 --format svg -o "$TMP/t1-svg.png" && ok || bad "draw --format svg"
cmp -s "$TMP/t1-svg.png" "$TMP/t1.svg" && ok || bad "--format svg writes SVG whatever the extension"
"$X" draw --topo torus:4x4 --alg t2 --all-steps -o "$TMP/sheet.svg" && ok || bad "draw sheet"
"$X" draw --topo torus:4x4 --alg t2 --all-steps -o "$TMP/sheet.png" && ok || bad "draw sheet png"
png_ok "contact sheet" "$TMP/sheet.png" "$TMP/sheet.svg"
"$X" draw --topo ring:8 --alg ring --format png -o - >"$TMP/stdout.png" 2>"$TMP/err" && ok ||
    bad "draw png to stdout: $(cat "$TMP/err")"
is_png "$TMP/stdout.png" && ok || bad "-o - --format png writes a PNG on stdout"
[ -z "$(ls "$TMP" | grep '\.tmp\.')" ] && ok || bad "temporary files left: $(ls "$TMP")"

# --- compare --plot ------------------------------------------------------
C=(compare --topo torus:8x8 --machine paragon --m 8:65536)
"$X" "${C[@]}" >"$TMP/plain.txt" 2>/dev/null
"$X" "${C[@]}" --plot "$TMP/cmp.svg" >"$TMP/plot.txt" 2>"$TMP/err" && ok || bad "compare --plot: $(cat "$TMP/err")"
cmp -s "$TMP/plain.txt" "$TMP/plot.txt" && ok || bad "compare's stdout changes with --plot"
svg_ok "compare --plot" "$TMP/cmp.svg"
"$X" "${C[@]}" --json >"$TMP/cmp.json"
expect "compare --plot: a line per eligible algorithm" "$(cnt series "$TMP/cmp.svg")" \
    "$(jsx 'L.filter(l => l.type === "algorithm" && l.eligible).length' <"$TMP/cmp.json")"
expect "compare --plot: one dashed bound" "$(cnt bound "$TMP/cmp.svg")" 1
grep -q 'class="bound" stroke="#000" stroke-dasharray' "$TMP/cmp.svg" && ok || bad "the bound is dashed"
nx=$(jsx 'L.filter(l => l.type === "crossover").length' <"$TMP/cmp.json")
[ "$nx" -gt 0 ] && ok || bad "torus:8x8 on paragon has a crossover to mark"
expect "compare --plot: a marker per crossover" "$(cnt crossover "$TMP/cmp.svg")" "$nx"
grep -q '>block size m (bytes)<' "$TMP/cmp.svg" && grep -q '>predicted time (us)<' "$TMP/cmp.svg" &&
    ok || bad "axis titles with units"
grep -q '>8 B<' "$TMP/cmp.svg" && grep -q '>32 KiB<' "$TMP/cmp.svg" && ok || bad "size tick labels"
"$X" "${C[@]}" --plot "$TMP/cmp.png" >/dev/null && ok || bad "compare --plot x.png"
png_ok "compare --plot png" "$TMP/cmp.png" "$TMP/cmp.svg"
"$X" compare --topo torus:32x32 --only t1,t1.x,t2 --a 1000 --m 0.125:32 --plot "$TMP/suh.svg" >/dev/null &&
    ok || bad "compare --a --plot"
grep -q '>block size m (flits)<' "$TMP/suh.svg" && grep -q '>predicted time (t_c)<' "$TMP/suh.svg" &&
    ok || bad "flits and t_c in the axis titles under --a"

# --- plot --bench: a hand-made xchg-bench --json file ----------------------
cat >"$TMP/bench.json" <<'EOF'
{"alg":"t1","requested":"auto","topology":"torus:8x8","fallback":false,"p":64,"bytes":8,"avg_us":120.5,"min_us":110.0,"max_us":130.0,"iterations":100,"in_place":false,"valid":true}
{"alg":"t1","requested":"auto","topology":"torus:8x8","fallback":false,"p":64,"bytes":1024,"avg_us":300.25,"min_us":290.0,"max_us":310.0,"iterations":100,"in_place":false,"valid":true}

{"alg":"t1","requested":"auto","topology":"torus:8x8","fallback":false,"p":64,"bytes":65536,"avg_us":9000,"min_us":8000.0,"max_us":9900.0,"iterations":10,"in_place":false,"valid":true}
EOF
cat >"$TMP/bench2.json" <<'EOF'
# xchg-bench --alg mpi
{"alg":"mpi","requested":"mpi","topology":null,"fallback":false,"p":64,"bytes":65536,"avg_us":12000.0,"min_us":1.0,"max_us":2.0,"iterations":10,"in_place":false,"valid":null}
{"alg":"mpi","requested":"mpi","topology":null,"fallback":false,"p":64,"bytes":8,"avg_us":90.0,"min_us":1.0,"max_us":2.0,"iterations":10,"in_place":false,"valid":null}
EOF
"$X" plot --bench "$TMP/bench.json" --bench="$TMP/bench2.json" -o "$TMP/bench.svg" 2>"$TMP/err" &&
    ok || bad "plot --bench: $(cat "$TMP/err")"
svg_ok "plot --bench" "$TMP/bench.svg"
expect "plot --bench: one line per alg" "$(cnt series "$TMP/bench.svg")" 2
expect "plot --bench: no bound" "$(cnt bound "$TMP/bench.svg")" 0
expect "plot --bench: t1 goes through 3 points" \
    "$(grep 'class="series"' "$TMP/bench.svg" | head -n1 | grep -o '[ML]' | wc -l | tr -d ' ')" 3
grep -q '>time per exchange (us)<' "$TMP/bench.svg" && ok || bad "bench y title"
"$X" plot --bench "$TMP/bench.json" --title "bench <1>" -o "$TMP/bench.png" && ok || bad "plot --bench png"
"$X" plot --bench "$TMP/bench.json" --title "bench <1>" -o "$TMP/bench1.svg" && ok || bad "plot --bench svg"
grep -q 'bench &lt;1&gt;' "$TMP/bench1.svg" && ok || bad "--title, escaped"
png_ok "plot --bench png" "$TMP/bench.png" "$TMP/bench1.svg"

# --- plot --sim: one xchg sim --json run per size and algorithm ------------
: >"$TMP/sim.json"
for alg in t1 at2; do
    for m in 64 1024 16384; do
        "$X" sim --topo torus:8x8 --alg $alg --m $m --json >>"$TMP/sim.json"
    done
done
"$X" plot --sim "$TMP/sim.json" -o "$TMP/sim.svg" 2>"$TMP/err" && ok || bad "plot --sim: $(cat "$TMP/err")"
svg_ok "plot --sim" "$TMP/sim.svg"
expect "plot --sim: one line per algorithm" "$(cnt series "$TMP/sim.svg")" 2
grep -q '>simulated time (us)<' "$TMP/sim.svg" && ok || bad "sim y title"
"$X" plot --sim "$TMP/sim.json" --bench "$TMP/bench.json" -o "$TMP/both.svg" && ok || bad "plot both"
grep -q '>t1 (sim)<' "$TMP/both.svg" && expect "both: 3 lines" "$(cnt series "$TMP/both.svg")" 3 ||
    bad "simulated lines named 'ALG (sim)' beside benchmarks"

# --- failures: exit 2, a message, stdout empty, no file --------------------
# fails PATTERN FILE [--no-path] ARGS...: xchg ARGS exits 2 saying PATTERN
# and leaves neither FILE nor a temporary file.
fails() {
    local pattern="$1" file="$2" pre=()
    shift 2
    if [ "$1" = --no-path ]; then # run with no rsvg-convert in PATH
        pre=(env PATH=/nonexistent)
        shift
    fi
    rm -f "$file"
    "${pre[@]}" "$X" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && head -n1 "$TMP/err" | grep -q '^xchg: ' &&
        grep -qiE -- "$pattern" "$TMP/err" && [ ! -e "$file" ] &&
        [ -z "$(ls "$TMP" | grep '\.tmp\.')" ]; then
        ok
    else
        bad "xchg $* -> exit $rc, stderr '$(head -c 400 "$TMP/err")' (wanted exit 2," \
            "stderr matching /$pattern/, no $file)"
    fi
}
O="$TMP/out.png"
fails "bad --format 'gif'; accepted: svg, png" "$O" draw --topo ring:8 --alg ring --format gif -o "$O"
fails "needs rsvg-convert.*install librsvg2-bin" "$O" --no-path draw --topo ring:8 --alg ring -o "$O"
fails "needs rsvg-convert.*install librsvg2-bin" "$O" --no-path "${C[@]}" --plot "$O"
fails "needs rsvg-convert.*install librsvg2-bin" "$O" --no-path plot --bench "$TMP/bench.json" -o "$O"
fails "--format is the format of --plot" "$O" "${C[@]}" --format png
fails "cannot write --plot" "$TMP/no/dir/x.svg" "${C[@]}" --plot "$TMP/no/dir/x.svg"
printf '{"alg":"x","bytes":8,"avg_us":1}\nnot json\n' >"$TMP/badline.json"
fails "line 2: not a JSON object" "$O" plot --bench "$TMP/badline.json" -o "$O"
printf '{"alg":"x","bytes":8}\n' >"$TMP/nofield.json"
fails "line 1: needs the fields \"alg\".*\"avg_us\"" "$O" plot --bench "$TMP/nofield.json" -o "$O"
printf '{"alg":"x","bytes":8,"avg_us":0}\n' >"$TMP/zero.json"
fails "line 1: .*cannot go on log axes" "$O" plot --bench "$TMP/zero.json" -o "$O"
printf '# nothing\n\n' >"$TMP/empty.json"
fails "holds no results" "$O" plot --bench "$TMP/empty.json" -o "$O"
fails "cannot read --bench" "$O" plot --bench "$TMP/missing.json" -o "$O"
fails "plot needs --bench FILE or --sim FILE" "$O" plot -o "$O"
fails "plot needs --output" "$O" plot --bench "$TMP/bench.json"
fails "--bench needs a value" "$O" plot -o "$O" --bench
printf '{"algorithm":"x","units":"t_c","m":8,"time":5}\n' >"$TMP/tc.json"
fails "times in t_c, others in us" "$O" plot --bench "$TMP/bench.json" --sim "$TMP/tc.json" -o "$O"

"$X" plot --help >"$TMP/out" 2>&1
expect "plot --help exits 0" "$?" 0
grep -q -- "--bench FILE" "$TMP/out" && ok || bad "plot --help names --bench"
finish
