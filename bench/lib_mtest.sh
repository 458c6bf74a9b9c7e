# lib_mtest.sh - sourced by the benchmarks that build MPICH's own tests
# outside MPICH's tree (bench/mpich_alltoall1.sh, bench/mpich_coll.sh):
#
#   mtest_stubs DIR   write into DIR what MPICH's configure would write for
#                     this machine (mpitestconf.h, an empty mtest_mpix.h)
#                     and the one-test main() its build generates for a
#                     test written as run()
mtest_stubs() {
    local dir=$1
    : >"$dir/mtest_mpix.h"
    cat >"$dir/mpitestconf.h" <<'CONF'
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_MPI_INTEGER16 0
#define USE_STRICT_MPI 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_IO 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
CONF
    cat >"$dir/main.c" <<'MAIN'
#include "mpitest.h"
int run(const char *arg);
int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    int errs = run(argc > 1 ? argv[1] : "");
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
MAIN
}
