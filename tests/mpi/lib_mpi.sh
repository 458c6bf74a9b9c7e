# lib_mpi.sh - sourced by the MPI tests: start ranks with the launcher of the
# MPI the build found, oversubscribed (this machine has 2 cores) and allowed
# to run as root (CI runs as root).
#
#   source tests/mpi/lib_mpi.sh LAUNCHER   (the build's XCHG_MPIEXEC)
#   mpi_run NP PROGRAM [ARGS...]           start NP ranks of PROGRAM
#   mpi_flavor                             prints openmpi or mpich
#   mpi_bg DIR NP PROGRAM [ARGS...]        mpi_run in the background: stdout
#                                          in DIR/out, stderr in DIR/err, the
#                                          exit status in DIR/rc; at most
#                                          MPI_BG_JOBS at once (4; 1 with
#                                          MPICH)
#   mpi_bg_wait                            wait for every mpi_bg job
#   mpi_refused NP PATTERN ARGS...         a run that must be refused (below)
#   mpi_refusals_check PREFIX              check the refused runs (below)
MPI_LAUNCHER=${1:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's default of no more ranks than cores; and a sanitizer build must
# not stop on the MPI library's own leaks at exit.
export OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

mpi_flavor() {
    if "$MPI_LAUNCHER" --version 2>&1 | grep -qi 'open mpi\|open-mpi\|openrte'; then
        echo openmpi
    else
        echo mpich
    fi
}

mpi_run() {
    local np=$1
    shift
    if [ "$(mpi_flavor)" = openmpi ]; then
        "$MPI_LAUNCHER" --oversubscribe -np "$np" "$@"
    else
        "$MPI_LAUNCHER" -np "$np" "$@"
    fi
}

# Many short jobs (a refused option, a few validated rows) spend most of
# their time starting and stopping ranks, the cores idle: run a few at once.
# Not with MPICH, whose waiting ranks spin: one at a time.
mpi_bg() {
    local dir=$1
    shift
    if [ -z "${MPI_BG_JOBS:-}" ]; then
        MPI_BG_JOBS=4
        [ "$(mpi_flavor)" = mpich ] && MPI_BG_JOBS=1
    fi
    mkdir -p "$dir"
    while [ "$(jobs -rp | wc -l)" -ge "$MPI_BG_JOBS" ]; do
        wait -n
    done
    ( mpi_run "$@" >"$dir/out" 2>"$dir/err"; echo $? >"$dir/rc" ) &
}

mpi_bg_wait() {
    wait
}

# mpi_refused NP PATTERN ARGS...: start "${REFUSED_CMD[@]}" ARGS on NP
# ranks in the background (mpi_bg: a refused run is mostly the launcher
# starting and stopping), into $TMP/ue1, $TMP/ue2, ... with the pattern its
# one message must match; mpi_refusals_check checks them all.
ue_n=0
mpi_refused() {
    local np=$1 d
    ue_n=$((ue_n + 1))
    d="$TMP/ue$ue_n"
    mkdir -p "$d"
    printf '%s' "$2" >"$d/pattern"
    shift 2
    printf '%s on %s' "$*" "$np" >"$d/args"
    mpi_bg "$d" "$np" "${REFUSED_CMD[@]}" "$@"
}

# mpi_refusals_check PREFIX: wait for the refused runs mpi_refused started
# into $TMP/ue1 .. $TMP/ue$ue_n (each directory also holding the
# run's pattern and args) and check each: exit 2, nothing on stdout, exactly
# one stderr line starting with PREFIX ("xchg tune: "), matching the
# pattern. Calls the script's ok and bad.
mpi_refusals_check() {
    local prefix=$1 i d pattern rc n
    mpi_bg_wait
    for ((i = 1; i <= ue_n; i++)); do
        d="$TMP/ue$i"
        pattern=$(cat "$d/pattern")
        rc=$(cat "$d/rc")
        n=$(grep -c "^$prefix" "$d/err")
        if [ "$rc" -eq 2 ] && [ ! -s "$d/out" ] && [ "$n" -eq 1 ] &&
            grep "^$prefix" "$d/err" | grep -qiE -- "$pattern"; then
            ok
        else
            bad "${prefix% } $(cat "$d/args") -> exit $rc, stdout '$(head -c 200 "$d/out")'," \
                "$n message lines, stderr '$(head -c 400 "$d/err")'" \
                "(wanted exit 2, no stdout, one line matching /$pattern/)"
        fi
    done
}
