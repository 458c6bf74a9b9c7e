#!/usr/bin/env bash
# fft_uneven.sh - a real MPI application, unchanged, whose transposes call
# MPI_Alltoallv: examples/fft_mpi_uneven (2-D 37x45 and 3-D 13x10x11
# complex DFTs with FFTW's MPI interface, forward checked against serial
# FFTW and backward against the input, max relative error < 1e-12) on p = 3
# and p = 4 ranks, which divide none of the first two sizes, so FFTW's
# transpose-alltoall solver sees unequal blocks and calls MPI_Alltoallv
# (examples/README.md). Each p runs:
#   - without xchg: every transform OK (the reference output);
#   - with the counting interposer (examples/count_alltoall.c), when given:
#     FFTW really calls MPI_Alltoallv (the count is reported), and the
#     output is unchanged;
#   - with LD_PRELOAD=libxchg_mpi.so XCHG_VERBOSE=1: every transform OK and
#     stdout identical to the reference, byte for byte (each line carries
#     the FNV-1a 64 hash of the gathered result), and the drop-in's
#     MPI_Finalize lines that mention MPI_Alltoallv are reported.
#
# With --expect-carried (how CMake runs it) the script fails unless the
# drop-in's Finalize line for MPI_Alltoallv and MPI_Alltoallw shows calls
# carried by xchg (the number before "carried"); without it, a run where
# the calls were passed to the library (XCHG_DISABLE=1 in the
# environment, say) is reported, not a failure.
#
# A sanitizer build: libasan is preloaded first when the program or the
# library links it (as tests/mpi/fft2d.sh does). XCHG_TEST_REDUCED=1: p = 3
# only, without the counting interposer.
#
# Usage: bash tests/mpi/fft_uneven.sh [--expect-carried] FFT_MPI_UNEVEN LIBXCHG_MPI
#                                     LAUNCHER [LIBCOUNT_ALLTOALL]
USAGE="usage: fft_uneven.sh [--expect-carried] FFT_MPI_UNEVEN LIBXCHG_MPI LAUNCHER [LIBCOUNT_ALLTOALL]"
SUITE=mpi_fft_uneven
EXPECT_CARRIED=0
if [ "${1:-}" = --expect-carried ]; then
    EXPECT_CARRIED=1
    shift
fi
if [ $# -lt 3 ] || [ $# -gt 4 ] || [ "${1#-}" != "$1" ]; then
    echo "$SUITE: want 3 or 4 arguments after the options, got '$*'" >&2
    echo "$USAGE" >&2
    exit 2
fi
PROG=$1 LIB=$2 LAUNCHER=$3 COUNT_LIB=${4:-}
for f in "$PROG" "$LIB" ${COUNT_LIB:+"$COUNT_LIB"}; do
    if [ ! -e "$f" ]; then
        echo "$SUITE: $f not found" >&2
        echo "$USAGE" >&2
        exit 2
    fi
done
LIB_MPI="$(dirname "$0")/lib_mpi.sh"
# shellcheck source=lib_mpi.sh
source "$LIB_MPI" "$LAUNCHER"
SIZES=(37x45 13x10x11)
NPS=(3 4)
if [ "${XCHG_TEST_REDUCED:-0}" = 1 ]; then
    NPS=(3)
    COUNT_LIB=
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LIB=$(readlink -f "$LIB")
[ -n "$COUNT_LIB" ] && COUNT_LIB=$(readlink -f "$COUNT_LIB")
ASAN_FIRST=$(ldd "$PROG" "$LIB" 2>/dev/null | awk '/libasan\.so/ { print $3 " "; exit }')
[ -n "$ASAN_FIRST" ] && echo "$SUITE: sanitizer build; preloading ${ASAN_FIRST% } first"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run NAME NP ENV...: the program on NP ranks under "env ENV..." (so the
# launcher itself is not preloaded), killed after two minutes if it hangs;
# stdout to $TMP/NAME.out, stderr to $TMP/NAME.err. Returns the status.
run() {
    local name=$1 np=$2
    shift 2
    timeout 120 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
        "$LIB_MPI" "$LAUNCHER" "$np" env "$@" "$PROG" "${SIZES[@]}" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# show FILE: the first lines of a file, indented, for a failure message.
show() {
    if [ -s "$1" ]; then sed -n '1,12s/^/    /p' "$1"; else echo "    (nothing)"; fi
}

# all_ok FILE: one OK line per transform (forward and backward per size).
all_ok() {
    [ "$(grep -c ' OK$' "$1")" -eq $((2 * ${#SIZES[@]})) ] && ! grep -q ' FAIL$' "$1"
}

# v_lines FILE: the drop-in's MPI_Finalize lines that name MPI_Alltoallv
# (not MPI_Ialltoallv), whatever their wording.
v_lines() {
    grep '^xchg: at MPI_Finalize' "$1" | grep -E '(^|[^A-Za-z_])MPI_Alltoallv([^A-Za-z_]|$)'
}

# carried_of LINE: the number just before "carried" in LINE ("N
# MPI_Alltoallv calls carried by xchg" or "...: N calls carried by xchg"),
# or nothing.
carried_of() {
    printf '%s\n' "$1" | sed -nE 's/^(.*[^0-9])?([0-9]+)[^0-9]*carried.*/\2/p' | head -n 1
}

for np in "${NPS[@]}"; do
    tag="p=$np ${SIZES[*]}"
    if run "p$np.plain" "$np" -u LD_PRELOAD && all_ok "$TMP/p$np.plain.out"; then
        ok "$tag: without xchg, every transform within 1e-12"
        sed 's/^/    /' "$TMP/p$np.plain.out"
    else
        bad "$tag: fft_mpi_uneven without xchg failed"
        show "$TMP/p$np.plain.out"
        show "$TMP/p$np.plain.err"
        continue
    fi

    calls=
    if [ -n "$COUNT_LIB" ]; then
        run "p$np.count" "$np" "LD_PRELOAD=$ASAN_FIRST$COUNT_LIB"
        line=$(grep '^count_alltoall:' "$TMP/p$np.count.err")
        calls=$(printf '%s\n' "$line" | sed -nE 's/.*, ([0-9]+) MPI_Alltoallv,.*/\1/p')
        if [ -n "$calls" ] && [ "$calls" -gt 0 ]; then
            ok "$tag: FFTW calls MPI_Alltoallv $calls times on rank 0 ($line)"
        else
            bad "$tag: FFTW made no MPI_Alltoallv call, or no count: '$line'"
            show "$TMP/p$np.count.err"
        fi
        if cmp -s "$TMP/p$np.plain.out" "$TMP/p$np.count.out"; then
            ok "$tag: output unchanged under the counting interposer"
        else
            bad "$tag: output differs under the counting interposer"
        fi
    fi

    if ! run "p$np.xchg" "$np" "LD_PRELOAD=$ASAN_FIRST$LIB" XCHG_VERBOSE=1; then
        bad "$tag: fft_mpi_uneven with LD_PRELOAD=$LIB failed"
        show "$TMP/p$np.xchg.out"
        show "$TMP/p$np.xchg.err"
        continue
    fi
    if all_ok "$TMP/p$np.xchg.out"; then
        ok "$tag: with xchg, every transform within 1e-12"
    else
        bad "$tag: with xchg, a transform failed or is missing:"
        show "$TMP/p$np.xchg.out"
    fi
    if cmp -s "$TMP/p$np.plain.out" "$TMP/p$np.xchg.out"; then
        ok "$tag: output (errors and result hashes) bit-identical with and without xchg"
    else
        bad "$tag: output differs with xchg:"
        diff "$TMP/p$np.plain.out" "$TMP/p$np.xchg.out" | head -n 12 | sed 's/^/    /'
    fi
    echo "    drop-in's totals (rank 0, summed over the $np ranks):"
    grep '^xchg: at MPI_Finalize' "$TMP/p$np.xchg.err" | sed 's/^/      /'
    vl=$(v_lines "$TMP/p$np.xchg.err")
    want=${calls:+$((calls * np))}
    if [ -z "$vl" ]; then
        msg="no MPI_Finalize line names MPI_Alltoallv: the drop-in passed FFTW's"
        msg="$msg ${want:+$want }MPI_Alltoallv calls to the MPI library uncounted"
        if [ "$EXPECT_CARRIED" = 1 ]; then
            bad "$tag: --expect-carried: $msg"
        else
            echo "    note: $msg"
        fi
        continue
    fi
    n=$(carried_of "$(printf '%s\n' "$vl" | head -n 1)")
    if [ -n "$n" ] && [ "$n" -gt 0 ]; then
        ok "$tag: xchg carried $n MPI_Alltoallv calls${want:+ (FFTW made $want over the $np ranks)}"
    elif [ "$EXPECT_CARRIED" = 1 ]; then
        bad "$tag: --expect-carried: the MPI_Alltoallv line shows no carried call: $vl"
    else
        echo "    note: the MPI_Alltoallv line shows no carried call (passed): $vl"
    fi
done

echo "$SUITE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
