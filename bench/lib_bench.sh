#!/usr/bin/env bash
# lib_bench.sh - what the benchmarks that build their own trees share
# (mpi_alltoall.sh, mpi_alltoallv.sh, mpi_persistent.sh, plan_cost_v.sh).
# Sourced after the script has set $repo and defined die().
#
#   bench_deps                      Node.js and both MPIs: scripts/install-deps.sh
#                                   installs what is missing
#   bench_build DIR FLAVOR FILE T.. a Release tree of FLAVOR's MPI (openmpi,
#                                   mpich) in DIR, configured when it has none;
#                                   targets T built; dies unless DIR/FILE exists
#   bench_launcher DIR              the MPI launcher DIR's tree found

bench_deps() {
    command -v node >/dev/null && command -v mpicc.openmpi >/dev/null &&
        command -v mpicc.mpich >/dev/null || bash "${repo:?}/scripts/install-deps.sh"
}

bench_build() {
    local dir=$1 flavor=$2 file=$3
    shift 3
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DXCHG_MPI="$flavor" >/dev/null
    fi
    cmake --build "$dir" --target "$@" -j2 >/dev/null
    [ -e "$dir/$file" ] || die "$dir/$file was not built (is $flavor's MPI found? see cmake -B $dir)"
}

bench_launcher() {
    sed -n 's/^XCHG_MPIEXEC:FILEPATH=//p' "$1/CMakeCache.txt"
}
