#!/usr/bin/env bash
# install.sh - `cmake --install` a build into a scratch prefix, check that
# the tree holds what the issue lists, and build a program from outside the
# tree against it: with pkg-config and with find_package(xchg), against the
# shared and the static library; with the MPI executor also an MPI program,
# run on 2 ranks.
#
#   bash tests/install.sh BUILD_DIR SOURCE_DIR [MPI_LAUNCHER]
#
# BUILD_DIR/install-test.env (written by CMake) says what the build has: its
# compiler, whether it is sanitized, whether it has the executor and
# xchg-bench, and the install directories. Exits 1 on the first failure.
set -u

if [ $# -lt 2 ]; then
    echo "usage: bash tests/install.sh BUILD_DIR SOURCE_DIR [MPI_LAUNCHER]" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd) || exit 2
SRC=$(cd "$2" && pwd) || exit 2
LAUNCHER=${3:-}
if [ ! -f "$BUILD/install-test.env" ]; then
    echo "install.sh: $BUILD/install-test.env is missing (configure with CMake first)" >&2
    exit 2
fi
# shellcheck source=/dev/null
. "$BUILD/install-test.env"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/xchg-install.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix
LIB=$PREFIX/$XCHG_LIBDIR
CC=${XCHG_CC:-cc}
START=$SECONDS

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() {
    echo "ok: $*"
}
# run LOGNAME CMD... : run, keep its output; on failure show it and stop.
run() {
    local log=$WORK/$1.log
    shift
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        fail "$*"
    fi
}

# A sanitized build's libraries call into the sanitizer runtimes, which must
# be loaded first: the outside programs are built with the same flags.
SAN_FLAGS=""
if [ "$XCHG_SANITIZE" = ON ]; then
    SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
    echo "sanitized build: outside programs are built with $SAN_FLAGS"
fi

# ---- install and the list of files ---------------------------------------
run cmake-install cmake --install "$BUILD" --prefix "$PREFIX"
ok "cmake --install $BUILD --prefix $PREFIX"

expect=(
    "$XCHG_LIBDIR/libxchg.a"
    "$XCHG_LIBDIR/libxchg.so"
    "$XCHG_LIBDIR/libxchg.so.0"
    "$XCHG_LIBDIR/libxchg.so.0.1.0"
    "$XCHG_INCLUDEDIR/xchg.h"
    "$XCHG_INCLUDEDIR/xchg_core.h"
    "$XCHG_INCLUDEDIR/xchg_model.h"
    "$XCHG_INCLUDEDIR/xchg_rank.h"
    "$XCHG_INCLUDEDIR/xchg_consumers.h"
    "$XCHG_BINDIR/xchg"
    "$XCHG_LIBDIR/pkgconfig/xchg.pc"
    "$XCHG_LIBDIR/cmake/xchg/xchgConfig.cmake"
    "$XCHG_LIBDIR/cmake/xchg/xchgConfigVersion.cmake"
    "$XCHG_LIBDIR/cmake/xchg/xchgTargets.cmake"
)
if [ "$XCHG_HAVE_MPI" = ON ]; then
    expect+=(
        "$XCHG_LIBDIR/libxchg_mpi.a"
        "$XCHG_LIBDIR/libxchg_mpi.so"
        "$XCHG_LIBDIR/libxchg_mpi.so.0"
        "$XCHG_LIBDIR/libxchg_mpi.so.0.1.0"
        "$XCHG_INCLUDEDIR/xchg_mpi.h"
        "$XCHG_LIBDIR/pkgconfig/xchg-mpi.pc"
    )
fi
if [ "$XCHG_INSTALL_BENCH" = ON ]; then
    expect+=("$XCHG_BINDIR/xchg-bench")
fi
for f in "${expect[@]}"; do
    [ -e "$PREFIX/$f" ] || fail "the install lacks $f (it has: $(cd "$PREFIX" && find . -type f | sort | tr '\n' ' '))"
done
ok "the install holds ${#expect[@]} files: ${expect[*]}"
if [ "$XCHG_HAVE_MPI" = ON ] && [ "$XCHG_INSTALL_BENCH" != ON ]; then
    echo "note: this build has no xchg_bench target, so xchg-bench is not expected"
fi
for h in xchg.h xchg_core.h xchg_model.h xchg_rank.h xchg_consumers.h; do
    cmp -s "$SRC/include/$h" "$PREFIX/$XCHG_INCLUDEDIR/$h" || fail "installed $h differs from the source"
done

# The installed programs and libraries find every library they need.
bins=("$PREFIX/$XCHG_BINDIR/xchg" "$LIB/libxchg.so")
[ "$XCHG_HAVE_MPI" = ON ] && bins+=("$LIB/libxchg_mpi.so")
[ "$XCHG_INSTALL_BENCH" = ON ] && bins+=("$PREFIX/$XCHG_BINDIR/xchg-bench")
for b in "${bins[@]}"; do
    if ldd "$b" | grep -q 'not found'; then
        ldd "$b" >&2
        fail "$b: a library it needs is not found"
    fi
done
ok "ldd finds every library of: ${bins[*]#"$PREFIX/"}"
if [ "$XCHG_HAVE_MPI" = ON ]; then
    ldd "$LIB/libxchg_mpi.so" | grep -q "libxchg.so.0 => $LIB/libxchg.so.0" ||
        fail "installed libxchg_mpi.so does not load the libxchg.so next to it"
    ok "installed libxchg_mpi.so loads $XCHG_LIBDIR/libxchg.so.0 next to it (RUNPATH \$ORIGIN)"
fi
version=$("$PREFIX/$XCHG_BINDIR/xchg" --version 2>&1) || fail "installed xchg --version: $version"
case $version in *0.1.0*) ;; *) fail "installed xchg --version says '$version', not 0.1.0" ;; esac
ok "installed xchg --version: $version"

# needed PROGRAM : its DT_NEEDED entries, one line.
needed() {
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '
}
# check_links PROGRAM shared|static LIBNAME : libLIBNAME.so is (not) needed.
check_links() {
    local n
    n=$(needed "$1")
    case "$2 $n" in
        "shared "*"lib$3.so.0"*) ;;
        static*"lib$3.so"*) fail "$1 should link lib$3.a but needs: $n" ;;
        static*) ;;
        *) fail "$1 should link lib$3.so but needs: $n" ;;
    esac
}

# archives WORDS... : the words with -lxchg and -lxchg_mpi naming the
# archives (-l:libxchg.a): with both present the linker prefers the .so.
archives() {
    local w res=()
    for w in "$@"; do
        case $w in
            -lxchg | -lxchg_mpi) res+=("-l:lib${w#-l}.a") ;;
            *) res+=("$w") ;;
        esac
    done
    echo "${res[*]}"
}

# ---- (a) pkg-config --------------------------------------------------------
export PKG_CONFIG_PATH=$LIB/pkgconfig
unset PKG_CONFIG_LIBDIR
pc() { pkg-config "$@" || fail "pkg-config $*"; }
[ "$(pc --modversion xchg)" = 0.1.0 ] || fail "pkg-config --modversion xchg is not 0.1.0"
[ "$(pc --variable=prefix xchg)" -ef "$PREFIX" ] ||
    fail "xchg.pc's prefix $(pc --variable=prefix xchg) is not $PREFIX"
CFLAGS_PC=$(pc --cflags xchg)
LIBS_PC=$(pc --libs xchg)
LIBS_PC_STATIC=$(pc --static --libs xchg)
ok "pkg-config xchg 0.1.0 (prefix relative to the .pc file): --cflags '$CFLAGS_PC' --libs '$LIBS_PC' --static --libs '$LIBS_PC_STATIC'"

# Shared: -lxchg finds libxchg.so; the rpath finds it at run time.
# Static: the --static flags with the archive named.
# shellcheck disable=SC2086
run cc-pc-shared $CC $SAN_FLAGS "$SRC/tests/install/consumer.c" -o "$WORK/pc_shared" \
    $CFLAGS_PC $LIBS_PC -Wl,-rpath,"$LIB"
# shellcheck disable=SC2046,SC2086
run cc-pc-static $CC $SAN_FLAGS "$SRC/tests/install/consumer.c" -o "$WORK/pc_static" \
    $CFLAGS_PC $(archives $LIBS_PC_STATIC)
check_links "$WORK/pc_shared" shared xchg
check_links "$WORK/pc_static" static xchg
for v in shared static; do
    out=$("$WORK/pc_$v") || fail "pkg-config consumer ($v) failed: $out"
    ok "pkg-config consumer ($v libxchg): $out"
done

# ---- (b) find_package(xchg) ------------------------------------------------
gen=()
[ -n "${XCHG_CMAKE_GENERATOR:-}" ] && gen=(-G "$XCHG_CMAKE_GENERATOR")
run cmake-consumer-configure cmake -S "$SRC/tests/install" -B "$WORK/consumer-build" "${gen[@]}" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$SAN_FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$SAN_FLAGS"
grep -- "-- consumer:" "$WORK/cmake-consumer-configure.log"
grep -q "from $PREFIX/" "$WORK/cmake-consumer-configure.log" ||
    fail "find_package(xchg) did not find the package under $PREFIX"
run cmake-consumer-build cmake --build "$WORK/consumer-build" -j2
check_links "$WORK/consumer-build/consumer_shared" shared xchg
check_links "$WORK/consumer-build/consumer_static" static xchg
for v in shared static; do
    out=$("$WORK/consumer-build/consumer_$v") || fail "find_package consumer ($v) failed: $out"
    ok "find_package consumer (xchg::xchg$([ $v = shared ] && echo _shared)): $out"
done

# ---- (c) the MPI executor --------------------------------------------------
if [ "$XCHG_HAVE_MPI" != ON ]; then
    echo "skip: this build has no MPI executor (no xchg_mpi.h installed)"
else
    [ -f "$PREFIX/$XCHG_INCLUDEDIR/xchg_mpi.h" ] || fail "xchg_mpi.h not installed"
    [ -n "$LAUNCHER" ] || LAUNCHER=mpirun
    # shellcheck source=/dev/null
    . "$SRC/tests/mpi/lib_mpi.sh" "$LAUNCHER"
    MCFLAGS=$(pc --cflags xchg-mpi)
    MLIBS=$(pc --libs xchg-mpi)
    ok "pkg-config xchg-mpi: Requires '$(pc --print-requires xchg-mpi | tr '\n' ' ')' --cflags '$MCFLAGS' --libs '$MLIBS'"
    # shellcheck disable=SC2086
    run cc-pc-mpi-shared $CC $SAN_FLAGS "$SRC/tests/install/consumer_mpi.c" -o "$WORK/pc_mpi_shared" \
        $MCFLAGS $MLIBS -Wl,-rpath,"$LIB"
    # shellcheck disable=SC2046
    MLIBS_STATIC=$(archives $(pc --static --libs xchg-mpi))
    # shellcheck disable=SC2086
    run cc-pc-mpi-static $CC $SAN_FLAGS "$SRC/tests/install/consumer_mpi.c" -o "$WORK/pc_mpi_static" \
        $MCFLAGS $MLIBS_STATIC
    check_links "$WORK/pc_mpi_shared" shared xchg_mpi
    check_links "$WORK/pc_mpi_static" static xchg_mpi
    check_links "$WORK/pc_mpi_static" static xchg
    # The MPI library libxchg_mpi.so was linked with (libmpi.so.40,
    # libmpich.so.12): every MPI program must load that one, not another MPI.
    mpilib=$(needed "$LIB/libxchg_mpi.so" | tr ' ' '\n' | grep -E '^libmpi(ch)?\.so' | head -1)
    [ -n "$mpilib" ] || fail "libxchg_mpi.so needs no MPI library? ($(needed "$LIB/libxchg_mpi.so"))"
    progs=("$WORK/pc_mpi_shared" "$WORK/pc_mpi_static"
           "$WORK/consumer-build/consumer_mpi_shared" "$WORK/consumer-build/consumer_mpi_static")
    for p in "${progs[@]}"; do
        [ -x "$p" ] || fail "$p was not built (find_package gave no xchg::xchg_mpi?)"
        case " $(needed "$p") " in
            *" $mpilib "*) ;;
            *) fail "$p does not load $mpilib, the MPI of libxchg_mpi.so (it needs: $(needed "$p"))" ;;
        esac
        out=$(mpi_run 2 "$p" 2>&1) || { echo "$out" >&2; fail "mpi_run 2 $p"; }
        [ "$(grep -c 'data ok' <<<"$out")" = 2 ] || { echo "$out" >&2; fail "$p: not 2 ranks with data ok"; }
        ok "$(mpi_flavor) ($mpilib), 2 ranks, ${p#"$WORK/"}: $(tr '\n' ' ' <<<"$out")"
    done
fi

echo "install test passed in $((SECONDS - START)) s"
