# lib_cli.sh - what the CLI test scripts (tests/cli_*.sh) share: pass and
# fail counting, the closing "NAME: N passed, N failed" line, and JSON
# checks with node. Source it after setting SUITE (the script's name).
#   ok / bad MESSAGE        count a check (bad prints "FAIL: MESSAGE")
#   expect WHAT ACTUAL WANT count a check that ACTUAL equals WANT
#   jsx EXPR < lines        parse every stdin line as JSON into L (an array),
#                           o = the last one; print EXPR's value, or
#                           "error: ..." when a line does not parse (one
#                           node process answers every jsx of a script)
#   finish                  print the closing line; status 1 on a failure
#   usage_error PATTERN ARGS  "$X" ARGS exits 2, prints nothing on stdout
#                           and an "xchg: " error matching PATTERN ($TMP
#                           holds its output)
#   need PROGRAM PACKAGE    exit 1 with a message unless PROGRAM is installed
#   attr NAME FILE          the number in NAME="..." on FILE's <svg> line
#   png_size FILE           "W H" of a PNG, from its IHDR
#   is_png FILE             status 0 when FILE starts with the PNG signature
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

expect() {
    if [ "$2" = "$3" ]; then
        ok
    else
        bad "$1: got '$2', want '$3'"
    fi
}

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "$SUITE: $1 not found; scripts/install-deps.sh installs it (package $2)" >&2
        exit 1
    fi
}
need node nodejs

# jsx's evaluator: one node process for the whole script, started here, in
# the script's own shell, so that every jsx (most run in a $(...) subshell)
# reaches the same one. Starting node is slow, and cli_basic.sh alone asks
# many questions: one node per question was much of its time. A request is
# EXPR NUL TEXT NUL on its stdin, the answer the
# value NUL on its stdout; it ends when the script's end closes the pipe.
# It runs in a subshell so that it is not one of the script's jobs
# (mpi_bg_wait waits for those).
JSX_SERVER='
const evaluate = (expr, text) => {
  try {
    const L = text.split("\n").filter(l => l.length).map(l => JSON.parse(l));
    const o = L[L.length - 1];
    const v = eval(expr);
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  } catch (e) {
    return "error: " + e.message;
  }
};
let buf = "";
const fields = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", d => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\0")) >= 0) {
    fields.push(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (fields.length === 2) {
      const [expr, text] = fields.splice(0, 2);
      process.stdout.write(evaluate(expr, text) + "\0");
    }
  }
});'
jsx_dir=$(mktemp -d)
mkfifo "$jsx_dir/in" "$jsx_dir/out"
(node -e "$JSX_SERVER" <"$jsx_dir/in" >"$jsx_dir/out" &)
exec {JSX_IN}>"$jsx_dir/in" {JSX_OUT}<"$jsx_dir/out"
rm -rf "$jsx_dir"

jsx() {
    local text answer
    text=$(cat)
    printf '%s\0%s\0' "$1" "$text" >&"$JSX_IN"
    IFS= read -r -d '' answer <&"$JSX_OUT" || answer="error: jsx: node gave no answer"
    printf '%s\n' "$answer"
    [ "${answer#error: }" = "$answer" ]
}

# usage_error PATTERN ARGS...: exit 2, empty stdout, stderr starting with
# "xchg: ", matching PATTERN (extended regex, case-insensitive).
usage_error() {
    local pattern="$1"
    shift
    "$X" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && head -n1 "$TMP/err" | grep -q '^xchg: ' &&
        grep -qiE -- "$pattern" "$TMP/err"; then
        ok
    else
        bad "xchg $* -> exit $rc, stdout '$(head -c 200 "$TMP/out")', stderr" \
            "'$(head -c 400 "$TMP/err")' (wanted exit 2, no stdout, stderr matching /$pattern/)"
    fi
}

finish() {
    echo "$SUITE: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# Pictures (tests/cli_draw.sh, tests/cli_plot.sh).
attr() { sed -n "s/^<svg .* $1=\"\([0-9]*\)\".*/\1/p" "$2" | head -n1; }
# bytes 16..23 of a PNG, its IHDR's width and height, big-endian
png_size() {
    od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }'
}
is_png() { [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
