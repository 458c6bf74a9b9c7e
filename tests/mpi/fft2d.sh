#!/usr/bin/env bash
# fft2d.sh - a real MPI application, unchanged, whose MPI_Alltoall goes
# through xchg: examples/fft2d_mpi (a 2-D FFT with FFTW's MPI interface) must
# print the same bytes with and without LD_PRELOAD=libxchg_mpi.so, and xchg's
# verbose end-of-run line must show that it carried FFTW's MPI_Alltoall calls.
#
# The plan: FFTW_ESTIMATE (no timing, so the same plan and the same bits on
# every run) with FFTW_MPI_TRANSPOSED_OUT forward and _IN backward, both
# sizes multiples of p. FFTW then picks its transpose-alltoall solver with
# equal blocks, which calls MPI_Alltoall once per transform: reps + 1 calls
# for --reps R --backward (examples/README.md shows how that was measured).
#
# With the optional counting interposer (examples/count_alltoall.c, built as
# a shared library) the script first shows, without xchg, that FFTW itself
# makes exactly those MPI_Alltoall calls and no MPI_Alltoallv or
# MPI_Sendrecv.
#
# A sanitizer build: when the program or the library links libasan, libasan
# is preloaded first (ASan must be the first library loaded), so an ASan
# libxchg_mpi.so also works with a program built without sanitizers.
#
# With XCHG_TEST_REDUCED=1 (the sanitizer build, CMakeLists.txt) one case,
# p = 3 on the non-square array, without the counting interposer: what
# ASan adds is the drop-in's memory under FFTW's calls, the same at any p;
# the counts are FFTW's own, the same in every build; p = 4 and 8 run in
# the plain build (and the drop-in at p = 3 and 4 under ASan in mpi_dropin,
# the executor at p = 8 in mpi_exec).
#
# Usage: bash tests/mpi/fft2d.sh FFT2D_MPI LIBXCHG_MPI LAUNCHER [LIBCOUNT_ALLTOALL]
PROG="${1:?usage: fft2d.sh FFT2D_MPI LIBXCHG_MPI LAUNCHER [LIBCOUNT_ALLTOALL]}"
LIB="${2:?usage: fft2d.sh FFT2D_MPI LIBXCHG_MPI LAUNCHER [LIBCOUNT_ALLTOALL]}"
LAUNCHER="${3:?usage: fft2d.sh FFT2D_MPI LIBXCHG_MPI LAUNCHER [LIBCOUNT_ALLTOALL]}"
COUNT_LIB="${4:-}"
LIB_MPI="$(dirname "$0")/lib_mpi.sh"
source "$LIB_MPI" "$LAUNCHER"
SUITE=mpi_fft2d
REPS=3
WANT_CALLS=$((REPS + 1)) # REPS forward transforms and one backward
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in "$PROG" "$LIB" ${COUNT_LIB:+"$COUNT_LIB"}; do
    if [ ! -e "$f" ]; then
        echo "$SUITE: $f not found" >&2
        exit 1
    fi
done
LIB=$(readlink -f "$LIB")
[ -n "$COUNT_LIB" ] && COUNT_LIB=$(readlink -f "$COUNT_LIB")
[ "${XCHG_TEST_REDUCED:-0}" = 1 ] && COUNT_LIB=
# ASan refuses to start unless its runtime is the first library loaded, and
# LD_PRELOAD comes before everything: with a sanitized program or library,
# preload libasan itself first.
ASAN_FIRST=$(ldd "$PROG" "$LIB" 2>/dev/null | awk '/libasan\.so/ { print $3 " "; exit }')
[ -n "$ASAN_FIRST" ] && echo "$SUITE: sanitizer build; preloading ${ASAN_FIRST% } first"

# run NAME NP ENV... -- ARGS...: runs the program on NP ranks under
# "env ENV..." (so the launcher itself is not preloaded), killed after two
# minutes if it hangs; stdout to $TMP/NAME.out, stderr to $TMP/NAME.err.
# Returns the status.
run() {
    local name=$1 np=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    timeout 120 bash -c 'source "$1" "$2"; shift 2; mpi_run "$@"' _ \
        "$LIB_MPI" "$LAUNCHER" "$np" env "${envs[@]}" "$PROG" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# show FILE: the first lines of a file, indented, for a failure message.
show() {
    if [ -s "$1" ]; then sed -n '1,12s/^/    /p' "$1"; else echo "    (nothing)"; fi
}

# check_case NP SIZE: one process count and array size.
check_case() {
    local np=$1 size=$2
    local args=(--size "$size" --reps "$REPS" --transposed --backward)
    local tag="p=$np ${size}"
    local base="p${np}_$size"

    # Without xchg: the reference output.
    if run "$base.plain" "$np" -u LD_PRELOAD -- "${args[@]}" &&
        grep -q '^forward: .* fnv1a64 [0-9a-f]\{16\}$' "$TMP/$base.plain.out" &&
        grep -q '^backward: .* fnv1a64 [0-9a-f]\{16\}$' "$TMP/$base.plain.out"; then
        ok "$tag: runs without xchg ($(grep -c . "$TMP/$base.plain.out") lines of hashes and values)"
    else
        bad "$tag: fft2d_mpi without xchg failed"
        show "$TMP/$base.plain.err"
        return
    fi

    # FFTW itself calls MPI_Alltoall (counted without xchg).
    if [ -n "$COUNT_LIB" ]; then
        run "$base.count" "$np" "LD_PRELOAD=$ASAN_FIRST$COUNT_LIB" -- "${args[@]}"
        local want="count_alltoall: rank 0: $WANT_CALLS MPI_Alltoall, 0 MPI_Alltoallv, 0 MPI_Sendrecv"
        local got
        got=$(grep '^count_alltoall:' "$TMP/$base.count.err")
        if [ "$got" = "$want" ]; then
            ok "$tag: FFTW calls MPI_Alltoall $WANT_CALLS times, no MPI_Alltoallv or MPI_Sendrecv"
        else
            bad "$tag: counting interposer says '$got', want '$want'"
            show "$TMP/$base.count.err"
        fi
        if cmp -s "$TMP/$base.plain.out" "$TMP/$base.count.out"; then
            ok "$tag: output unchanged under the counting interposer"
        else
            bad "$tag: output differs under the counting interposer"
        fi
    fi

    # With xchg: same bytes, and xchg carried the calls.
    if ! run "$base.xchg" "$np" "LD_PRELOAD=$ASAN_FIRST$LIB" XCHG_VERBOSE=1 -- "${args[@]}"; then
        bad "$tag: fft2d_mpi with LD_PRELOAD=$LIB failed"
        show "$TMP/$base.xchg.err"
        return
    fi
    if cmp -s "$TMP/$base.plain.out" "$TMP/$base.xchg.out"; then
        ok "$tag: output byte-identical with and without xchg"
    else
        bad "$tag: output differs with xchg:"
        diff "$TMP/$base.plain.out" "$TMP/$base.xchg.out" | head -n 12 | sed 's/^/    /'
    fi
    local line n m
    line=$(grep -E '^xchg: at MPI_Finalize: [0-9]+ MPI_Alltoall calls carried by xchg, [0-9]+ passed to the MPI library$' \
        "$TMP/$base.xchg.err")
    if [ "$(printf '%s\n' "$line" | grep -c .)" -ne 1 ]; then
        bad "$tag: want one 'xchg: at MPI_Finalize: ...' line on stderr, got:"
        show "$TMP/$base.xchg.err"
        return
    fi
    n=$(printf '%s\n' "$line" | sed -E 's/^xchg: at MPI_Finalize: ([0-9]+) .*/\1/')
    m=$(printf '%s\n' "$line" | sed -E 's/.* by xchg, ([0-9]+) passed .*/\1/')
    if [ "$n" -gt 0 ]; then
        ok "$tag: xchg carried $n MPI_Alltoall calls, passed $m to the MPI library"
    else
        bad "$tag: xchg carried no MPI_Alltoall call ($line)"
    fi
    # the line sums over the ranks: every rank makes each collective call
    if [ $((n + m)) -eq $((WANT_CALLS * np)) ]; then
        ok "$tag: xchg saw all $WANT_CALLS of FFTW's MPI_Alltoall calls on each of $np ranks"
    else
        bad "$tag: xchg saw $((n + m)) MPI_Alltoall calls, FFTW makes $WANT_CALLS on each of $np ranks ($line)"
    fi
}

# Both sizes multiples of p (FFTW's equal blocks), p even and odd, and one
# non-square array.
if [ "${XCHG_TEST_REDUCED:-0}" != 1 ]; then
    check_case 4 64x64
    check_case 8 64x64
fi
check_case 3 48x60

echo "$SUITE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
