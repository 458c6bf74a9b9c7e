#!/usr/bin/env bash
# Install what building and testing xchg needs, when it is missing, from
# Debian's packages. Safe to run again: it installs nothing that is present.
set -euo pipefail
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v node >/dev/null 2>&1 || need+=(nodejs)
# MPI: Open MPI (the default) and MPICH, for the executor and its tests;
# FFTW's MPI interface for the unchanged application (examples/fft2d_mpi.c);
# gfortran for the Fortran drop-in test; pkg-config for the install test.
command -v mpicc.openmpi >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
command -v mpicc.mpich >/dev/null 2>&1 || need+=(mpich libmpich-dev)
[ -e /usr/include/fftw3-mpi.h ] || need+=(libfftw3-mpi-dev libfftw3-dev)
command -v gfortran >/dev/null 2>&1 || need+=(gfortran)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# SimGrid (smpicc, smpirun), to run MPI programs on simulated tori: the
# simulator's cross-check (tests/simgrid_crosscheck.sh, bench/sim_simgrid.sh).
command -v smpirun >/dev/null 2>&1 || need+=(libsimgrid-dev)
# GNU time (/usr/bin/time -f), for the peak memory the benchmarks record
# (bench/size_scaling.sh, bench/sim_speed.sh); not always installed.
[ -x /usr/bin/time ] || need+=(time)
# rsvg-convert, which renders xchg draw's pictures in tests/cli_draw.sh.
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
# clang, whose libFuzzer and sanitizers build the fuzz harnesses (make
# test-fuzz, tests/fuzz/).
command -v clang >/dev/null 2>&1 || need+=(clang)
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi
# libFuzzer's runtime is a package of its own (libclang-rt-N-dev), only
# recommended by clang: an apt set not to install recommendations, or a
# clang installed without it, leaves the fuzz build unable to link.
fuzzer_rt="$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a"
if [ ! -e "$fuzzer_rt" ]; then
  major=$(clang -dumpversion | cut -d. -f1)
  echo "installing: libclang-rt-$major-dev (libFuzzer for clang $major)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "libclang-rt-$major-dev"
fi
