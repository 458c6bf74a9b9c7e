#!/usr/bin/env bash
# cli_draw.sh - "xchg draw" as a user runs it: the SVG it writes renders with
# a real renderer (rsvg-convert, Debian's librsvg2-bin) into a PNG of the
# SVG's width and height, holds one arrow per sending node, and a failure
# (bad step, missing -o, unknown option, --step with --all-steps) exits 2
# with a message and leaves no file behind. Senders' circles are filled by
# the groups the papers name, and the legend names them (t1: SG_p(1),
# SG_p(2); at2: even and odd nodes).
# Usage: bash tests/cli_draw.sh path/to/xchg
X="${1:?usage: cli_draw.sh path/to/xchg}"
SUITE=cli_draw
source "$(dirname "$0")/lib_cli.sh"
need rsvg-convert librsvg2-bin
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# render CASE ARGS...: xchg draw ARGS -o CASE.svg succeeds, writes an SVG
# that rsvg-convert renders at the SVG's own size.
render() {
    local name=$1
    shift
    local svg="$TMP/$name.svg" png="$TMP/$name.png"
    if ! "$X" draw "$@" -o "$svg" >"$TMP/out" 2>"$TMP/err"; then
        bad "xchg draw $* failed: $(head -c 300 "$TMP/err")"
        return
    fi
    expect "$name: nothing on stdout" "$(wc -c <"$TMP/out")" 0
    expect "$name: starts with <svg" "$(head -c 4 "$svg")" "<svg"
    expect "$name: ends with </svg>" "$(tail -n1 "$svg")" "</svg>"
    if ! rsvg-convert "$svg" -o "$png" 2>"$TMP/rsvg"; then
        bad "$name: rsvg-convert failed: $(head -c 300 "$TMP/rsvg")"
        return
    fi
    expect "$name: PNG size" "$(png_size "$png")" "$(attr width "$svg") $(attr height "$svg")"
}

render ring --topo ring:8 --alg ring --step 1
render array --topo array:6 --alg ring-bidir --step 2
render t1 --topo torus:8x8 --alg t1 --step 2
render pairwise --topo torus:4x4 --alg pairwise --step 2
render mesh --topo mesh:4x6 --alg mesh2 --step 1
render torus3d --topo torus:6x6x6 --alg mt3 --step 1
render cube --topo hypercube:6 --alg hc-direct --step 5
render complete --topo complete:8 --alg pairwise --step 4
render big --topo torus:64x64 --alg mesh2 --step 1
render sheet --topo torus:4x4 --alg t2 --all-steps
render default_step --topo hypercube:3 --alg hc-standard
render t1s1 --topo torus:8x8 --alg t1 --step 1
render t1s3 --topo torus:8x8 --alg t1 --step 3
render at2 --topo torus:8x8 --alg at2 --step 2

# legend_groups FILE: the group names of the legend, one line, sorted
legend_groups() {
    grep -o 'class="group-key"[^>]*/><text class="legend"[^>]*>[^<]*<' "$1" |
        sed 's/.*>\([^<]*\)<$/\1/' | sort | tr '\n' ',' | sed 's/,$//'
}
# t1 on torus:8x8 (d = 3, where T1 is T2): phase 1 is every node, the paper's
# first SG; phase 2 (steps 3, 4) SG_2(1) and SG_2(2), half the nodes each
expect "t1 step 1 legend groups" "$(legend_groups "$TMP/t1s1.svg")" "SG_1(1)"
expect "t1 step 1 group circles" "$(grep -o 'class="group" data-group="0"' "$TMP/t1s1.svg" | wc -l)" 64
expect "t1 step 3 legend groups" "$(legend_groups "$TMP/t1s3.svg")" "SG_2(1),SG_2(2)"
expect "t1 step 3 SG_2(1) circles" "$(grep -o 'class="group" data-group="0"' "$TMP/t1s3.svg" | wc -l)" 32
expect "t1 step 3 SG_2(2) circles" "$(grep -o 'class="group" data-group="1"' "$TMP/t1s3.svg" | wc -l)" 32
expect "at2 legend groups" "$(legend_groups "$TMP/at2.svg")" "even nodes,odd nodes"

# One arrow per sending node: export --format text lists a step's messages
# one per line (a line "from -> to ...") under "step K".
"$X" export --topo torus:4x4 --alg pairwise --format text --output "$TMP/pw.txt" 2>/dev/null
want=$(awk '/^step /{k=$2; next} k==2 && /->/{n++} END{print n+0}' "$TMP/pw.txt")
expect "pairwise step 2 arrows = export's messages" "$(grep -o 'class="msg"' "$TMP/pairwise.svg" | wc -l)" "$want"
c=$(grep -o 'class="conflict"' "$TMP/pairwise.svg" | wc -l)
[ "$c" -gt 0 ] && ok || bad "pairwise on torus:4x4 step 2 has no conflict links"
expect "t1 on torus:8x8 has no conflict links" "$(grep -o 'class="conflict"' "$TMP/t1.svg" | wc -l)" 0
grep -q "step 2 of" "$TMP/t1.svg" && ok || bad "t1 caption names the step"
grep -q "not drawn" "$TMP/big.svg" && ok || bad "torus:64x64 caption says what is not drawn"

# --output - writes the picture on stdout
"$X" draw --topo ring:4 --alg ring --output - >"$TMP/stdout.svg" 2>"$TMP/err"
expect "--output - writes stdout" "$(head -c 4 "$TMP/stdout.svg")" "<svg"

# usage_error PATTERN ARGS...: exit 2, empty stdout, stderr "xchg: ..."
# matching PATTERN, and no out.svg left behind.
usage_error() {
    local pattern="$1"
    shift
    rm -f "$TMP/out.svg"
    "$X" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && head -n1 "$TMP/err" | grep -q '^xchg: ' &&
        grep -qiE -- "$pattern" "$TMP/err" && [ ! -e "$TMP/out.svg" ] &&
        [ -z "$(ls "$TMP" | grep 'out.svg.tmp')" ]; then
        ok
    else
        bad "xchg $* -> exit $rc, stderr '$(head -c 400 "$TMP/err")' (wanted exit 2," \
            "stderr matching /$pattern/, no file)"
    fi
}
usage_error "bad number '0' for --step; accepted: a whole number from 1 to 7" \
    draw --topo ring:8 --alg ring --step 0 -o "$TMP/out.svg"
usage_error "bad number '8' for --step; accepted: a whole number from 1 to 7" \
    draw --topo ring:8 --alg ring --step 8 -o "$TMP/out.svg"
usage_error "bad number 'x' for --step" draw --topo ring:8 --alg ring --step x -o "$TMP/out.svg"
usage_error "needs --output FILE" draw --topo ring:8 --alg ring --step 1
usage_error "unknown option '--bogus'.*accepted" draw --topo ring:8 --alg ring --bogus -o "$TMP/out.svg"
usage_error "--step and --all-steps" draw --topo ring:8 --alg ring --step 1 --all-steps -o "$TMP/out.svg"
usage_error "needs --alg" draw --topo ring:8 -o "$TMP/out.svg"
usage_error "topo.*'ring:x'" draw --topo ring:x --alg ring -o "$TMP/out.svg"
usage_error "more than a contact sheet's 256" draw --topo hypercube:9 --alg hc-direct --all-steps -o "$TMP/out.svg"
usage_error "cannot write --output" draw --topo ring:8 --alg ring -o "$TMP/no/such/dir/out.svg"

# --help on stdout, exit 0
"$X" draw --help >"$TMP/out" 2>&1
expect "draw --help exits 0" "$?" 0
grep -q -- "--all-steps" "$TMP/out" && ok || bad "draw --help lists --all-steps"

finish
