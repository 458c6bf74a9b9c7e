#!/usr/bin/env bash
# sim_vs_smpi_cluster.sh - xchg sim --ppn beside SimGrid's SMPI on the same
# cases (issue 34, Evidence: "xchg sim --ppn is set beside SMPI on the same
# cases"; docs/clusters.md, "xchg sim --ppn beside SimGrid").
#
# Reads bench/results/smpi_cluster.runs (written by bench/smpi_cluster.sh;
# this script never runs SMPI) and takes every node-aware xchg run with
# copies free on a torus of nodes (torus-4x4, torus-8x8, torus-4x4x4):
# variants leader[:X], leaders:L[:X], pairs[:X], and their X@nodes forms.
# The fat-tree and dragonfly platforms have no xchg sim equivalent (xchg
# sim takes ring, mesh, torus, hypercube and complete networks) and are
# left out. Where a platform's run was repeated (a rebuilt executor), the
# last line of the runs file counts.
#
# For each run it writes the platform's figures as machine files
# (docs/machine-file.md) and runs
#   build/xchg sim  --topo torus:AxB --ppn 16 --alg SPEC:X --machine SIM
#                   --th LAT --m M --routing vct --mode async
#   build/xchg cost --topo torus:AxB --ppn 16 --alg SPEC:X --machine COST --m M
# The mapping (SimGrid CM02: a flow's latency is the sum of its route's
# links' latencies, and a link's latency delays a flow without occupying
# the link; flows share each link's bandwidth max-min):
#   SIM:  ts = 0, th = one link's latency (0.49 us on Tofu-D), so that a
#         route of h links costs h x 0.49 us as in SimGrid; tw = 1/link
#         bandwidth; tr = 0 (copies free); ts_node = the host's loopback
#         latency, tw_node = 1/loopback bandwidth. Virtual cut-through (a
#         link held th + bytes*tw, one after another) is xchg's closest
#         match to a flow model (docs/simulator.md, "Cross-check against
#         SimGrid"), async steps are what MPI runs.
#   COST: the cost model has no per-hop term, so ts = a typical route's
#         latency (HOPS x 0.49 us: 2, 4, 3 links on 4x4, 8x8, 4x4x4), the
#         machine file bench/smpi_cluster.sh gives the executor's auto.
# X: a variant without X (or X = auto) is resolved as the executor's auto
# would price it: `xchg plan` on the network of nodes the executor saw
# (the torus for SPEC@nodes, else complete:N, XCHG_TOPOLOGY being unset)
# with the COST machine at the lanes' blocks (G x K x m bytes); X is then
# simulated on the platform's torus (the messages are the same: node ids
# are the same, and pairwise, hc-direct, bruck and multiphase do not depend
# on the network).
#
# Besides sim's time the table splits it (the why, docs/clusters.md):
#   between  sim's steps between nodes (simulated, with contention)
#   within   the model's steps within nodes: G-1 gather and G-1 scatter
#            messages one after another at ts_node + p*m*tw_node
#   fatpipe  the same steps as SimGrid's loopback runs them (a fat pipe:
#            every pair of a host at the full rate): each of gather,
#            leaders' exchange, scatter takes one message's time
#   sim+fp   between + fatpipe, and its ratio to SMPI
#   once     for a direct X (pairwise, hc-direct), whose messages the
#            executor posts all at once: the busiest link's bytes over the
#            whole exchange (xchg sim's busiest link, th = 0) + the
#            network's diameter in link latencies + fatpipe; its ratio
#
# Usage: bash bench/sim_vs_smpi_cluster.sh [--runs FILE] [--out FILE]
#   --runs FILE  the SMPI runs file (default bench/results/smpi_cluster.runs)
#   --out FILE   where the table goes (default bench/results/sim_vs_smpi_cluster.txt)
# Needs build/xchg (not rebuilt here). Re-runnable: it reads the runs file
# as it is now. Takes about 0.3 s a case (6 s for 20 cases).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
XCHG=$ROOT/build/xchg
RUNS=$HERE/results/smpi_cluster.runs
OUT=$HERE/results/sim_vs_smpi_cluster.txt

usage() {
    echo "sim_vs_smpi_cluster: $1" >&2
    echo "usage: bash bench/sim_vs_smpi_cluster.sh [--runs FILE] [--out FILE]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --runs | --out)
        [ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a file name"
        [ "$1" = --runs ] && RUNS=$2 || OUT=$2
        shift 2
        ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'; accepted: --runs FILE, --out FILE, --help" ;;
    esac
done
[ -r "$RUNS" ] || usage "cannot read the runs file '$RUNS' (bench/smpi_cluster.sh writes it)"
[ -x "$XCHG" ] || usage "no $XCHG: build xchg first (make build)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
K=16
HOST_BW=8.75e9 HOST_LAT=1.4e-7 # the loopback of a host, as bench/smpi_cluster.sh

# machines PLAT BW LAT HOPS: $TMP/PLAT.sim and $TMP/PLAT.cost
machines() {
    awk -v bw="$2" -v lat="$3" -v hops="$4" -v hbw="$HOST_BW" -v hlat="$HOST_LAT" -v n="$1" -v d="$TMP" 'BEGIN {
        for (k = 0; k < 2; k++) {
            f = d "/" n (k ? ".cost" : ".sim")
            print "xchg-machine/1" > f; print "name", n > f; print "units us" > f
            printf "ts %.6g\ntw %.6g\ntr 0\n", k ? hops * lat * 1e6 : 0, 1e6 / bw > f
            printf "ts_node %.6g\ntw_node %.6g\n", hlat * 1e6, 1e6 / hbw > f
        } }'
}

# jnum KEY: the number of "KEY": in the JSON line on stdin
jnum() { grep -o "\"$1\":[-0-9.eE+]*" | head -n 1 | cut -d: -f2; }

# The torus platforms: NAME SHAPE BW LAT HOPS (a typical route, for COST) DIAMETER (links)
PLATS="torus-4x4 4x4 6.8e9 4.9e-7 2 4
torus-8x8 8x8 6.8e9 4.9e-7 4 8
torus-4x4x4 4x4x4 6.8e9 4.9e-7 3 6"

# The runs: copies free, xchg's node-aware variants, a number for a time;
# the last line of each (platform, figures, size, variant) counts.
awk '$1 ~ /^torus-/ && $3 == "free" && $5 ~ /^(leader|leaders:|pairs)/ && $9 ~ /^[0-9.]+$/ {
        k = $1 " " $2 " " $4 " " $5; if (!(k in v)) o[++n] = k; v[k] = $9 " " substr($7, 1, 6) }
     END { for (i = 1; i <= n; i++) print o[i], v[o[i]] }' "$RUNS" >"$TMP/cases"
# the newest executor: the last xchg run's checksum
newest=$(awk '$7 != "sg" { w = substr($7, 1, 6) } END { print w }' "$RUNS")
# the other runs, said so below
nonnum=$(awk '$1 ~ /^torus-/ && $3 == "free" && $5 ~ /^(leader|leaders:|pairs)/ && $9 !~ /^[0-9.]+$/' "$RUNS" | wc -l)
others=$(awk '$1 !~ /^torus-/ && $3 == "free" && $5 ~ /^(leader|leaders:|pairs)/' "$RUNS" | wc -l)

rows=$TMP/rows
: >"$rows"
while read -r plat figs m col smpi exe; do
    line=$(grep "^$plat " <<<"$PLATS") || continue
    read -r _ shape bw lat hops diam <<<"$line"
    # the platform's figures must be the ones this script maps
    [ "$figs" = "torus:$shape:$bw:$lat:c$K:$HOST_BW:$HOST_LAT" ] || {
        echo "sim_vs_smpi_cluster: $plat $col at $m B: figures $figs are not this script's; skipped" >&2
        continue
    }
    [ -f "$TMP/$plat.sim" ] || machines "$plat" "$bw" "$lat" "$hops"
    T=torus:$shape
    N=$(tr x '\n' <<<"$shape" | awk '{ n = (NR == 1 ? $1 : n * $1) } END { print n }')
    spec=${col%%@*} at=
    [[ $col == *@* ]] && at=${col#*@}
    # leaders L, inner X
    case $spec in
    leader) L=1 X=auto ;;
    leader:*) L=1 X=${spec#leader:} ;;
    pairs) L=$K X=auto ;;
    pairs:*) L=$K X=${spec#pairs:} ;;
    leaders:*)
        rest=${spec#leaders:} L=${rest%%:*} X=auto
        [[ $rest == *:* ]] && X=${rest#*:}
        ;;
    esac
    [[ $L =~ ^[0-9]+$ ]] && [ "$L" -ge 1 ] && [ $((K % L)) -eq 0 ] || {
        echo "sim_vs_smpi_cluster: $col: cannot read its leaders; skipped" >&2
        continue
    }
    G=$((K / L))
    net=complete:$N
    case $at in '') ;; nodes) net=$T ;; *) net=$at ;; esac
    how=named
    if [ "$X" = auto ]; then
        X=$("$XCHG" plan --topo "$net" --machine "$TMP/$plat.cost" --m $((G * K * m)) --json |
            grep '"type":"best"' | grep -o '"algorithm":"[^"]*"' | cut -d'"' -f4) || X=
        how="auto on $net"
        [ -n "$X" ] || { echo "sim_vs_smpi_cluster: $col: xchg plan chose nothing; skipped" >&2; continue; }
    fi
    case $L in 1) full=leader:$X ;; "$K") full=pairs:$X ;; *) full=leaders:$L:$X ;; esac
    sj=$("$XCHG" sim --topo "$T" --ppn $K --alg "$full" --machine "$TMP/$plat.sim" --th "$(awk -v l="$lat" 'BEGIN { printf "%.6g", l * 1e6 }')" \
        --m "$m" --routing vct --mode async --json 2>"$TMP/err") || {
        echo "sim_vs_smpi_cluster: xchg sim $full on $T: $(cat "$TMP/err"); skipped" >&2
        continue
    }
    cj=$("$XCHG" cost --topo "$T" --ppn $K --alg "$full" --machine "$TMP/$plat.cost" --m "$m" --json)
    sim=$(jnum time <<<"$sj") between=$(jnum between_nodes <<<"$sj") within=$(jnum within_nodes <<<"$sj")
    cost=$(jnum time <<<"$cj")
    # all at once: the busiest directed link's bytes over the whole exchange
    once=-
    case $X in pairwise | hc-direct)
        bj=$("$XCHG" sim --topo "$T" --alg "$X" --ts 0 --tw "$(awk -v b="$bw" 'BEGIN { printf "%.9g", 1e6 / b }')" \
            --m $((K * K * m)) --routing vct --json)
        once=$(grep -o '"busy":[0-9.eE+-]*' <<<"$bj" | head -n 1 | cut -d: -f2)
        once=$(awk -v b="$once" -v d="$diam" -v l="$lat" 'BEGIN { printf "%.6g", b + d * l * 1e6 }')
        ;;
    esac
    echo "$plat $m $col $X $smpi $sim $cost $between $within $once $G $L $N $exe" >>"$rows"
done <"$TMP/cases"

{
    echo "# xchg sim --ppn 16 beside SimGrid SMPI (bench/results/smpi_cluster.runs), copies free, tori of 16-core nodes"
    echo "# command: bash bench/sim_vs_smpi_cluster.sh$([ "$RUNS" = "$HERE/results/smpi_cluster.runs" ] || echo " --runs $RUNS")"
    echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$ROOT" rev-parse --short HEAD)  runs file: $(wc -l <"$RUNS") lines"
    echo "# sim: xchg sim --topo torus:AxB --ppn 16 --alg SPEC:X --machine SIM --th 0.49 --m M --routing vct --mode async"
    echo "#      SIM: ts 0, th 0.49 us a link (SimGrid CM02: a route's latency is its links' sum), tw 1/6.8e9 s/B, tr 0,"
    echo "#      ts_node 0.14 us, tw_node 1/8.75e9 s/B (the host's loopback)"
    echo "# cost: xchg cost --ppn 16 --machine COST: ts = HOPS x 0.49 us (2, 4, 3 links: the executor's XCHG_MACHINE_FILE), the rest as SIM"
    echo "# X: the inner schedule; a variant without one is resolved as xchg plan prices it on the executor's network of"
    echo "#    nodes (complete:N unless @nodes) at blocks of G*K*m; simulated on the platform's torus"
    echo "# ratio = sim / SMPI. between, within: sim's parts (within from the model: G-1 messages into the leader one at a time);"
    echo "# fatpipe: within as SimGrid's loopback runs it (every pair of a host at full rate: one message's time per phase);"
    echo "# sim+fp = between + fatpipe; once: direct X (messages all posted at once by the executor): busiest link's bytes"
    echo "# over the whole exchange + diameter x 0.49 us + fatpipe. Not here: fat-tree and dragonfly ($others runs; xchg sim has"
    echo "# no such network), $nonnum torus runs without a time (stopped or failed)."
    echo "# exec: the first 6 hex digits of the xchg-bench that ran in SMPI (the newest: $newest; older builds carried a fixed"
    echo "#       extra of 14-31 us a call, docs/clusters.md)"
    printf '%-12s %6s %-22s %-16s %6s %10s %10s %7s %10s | %10s %9s %8s %10s %7s %10s %7s\n' "# platform" "m" "variant" "X" "exec" \
        "SMPI_us" "sim_us" "sim/SMPI" "cost_us" "between" "within" "fatpipe" "sim+fp" "ratio" "once" "ratio"
    awk -v newest="$newest" -v hbw="$HOST_BW" -v hlat="$HOST_LAT" -v K=$K '{
        plat = $1; m = $2; G = $11; L = $12; N = $13; p = N * K
        tsn = hlat * 1e6; twn = 1e6 / hbw
        fp = (G > 1 ? 2 * (tsn + p * m * twn) : 0) + (L > 1 ? tsn + N * (G > 1 ? G * G : 1) * m * twn : 0)
        simfp = $8 + fp
        r = $6 / $5; r2 = simfp / $5
        new = $14 == newest; nn += new
        if (r >= 0.9 && r <= 1.1) { ok++; okn += new }
        if (r2 >= 0.9 && r2 <= 1.1) { ok2++; ok2n += new }
        if ($10 != "-") { o = $10 + fp; r3 = o / $5; os = sprintf("%10.1f %7.3f", o, r3); no++; non += new; if (r3 >= 0.9 && r3 <= 1.1) { ok3++; ok3n += new } }
        else os = sprintf("%10s %7s", "-", "-")
        rb = $10 != "-" ? r3 : r2
        if (rb >= 0.9 && rb <= 1.1) { okb++; okbn += new }
        printf "%-12s %6d %-22s %-16s %6s %10.2f %10.2f %7.3f %10.2f | %10.2f %9.2f %8.2f %10.2f %7.3f %s\n",
            plat, m, $3, $4, $14, $5, $6, r, $7, $8, $9, fp, simfp, r2, os
        n++
    } END {
        printf "# summary: %d cases; sim within 10%% of SMPI: %d; sim+fp (SimGrid'"'"'s loopback) within 10%%: %d;", n, ok + 0, ok2 + 0
        printf " once (direct X, %d cases) within 10%%: %d\n", no + 0, ok3 + 0
        printf "# summary, the newest executor'"'"'s runs only (%s): %d cases; sim within 10%%: %d; sim+fp: %d; once (%d cases): %d\n",
            newest, nn + 0, okn + 0, ok2n + 0, non + 0, ok3n + 0
        printf "# summary, SimGrid'"'"'s way (once for a direct X, else sim+fp) within 10%%: %d of %d; the newest executor'"'"'s: %d of %d\n",
            okb + 0, n, okbn + 0, nn + 0
    }' "$rows"
} >"$OUT"
cat "$OUT"
