! dropin_v_prog.f90 - a Fortran MPI program that knows nothing of xchg, for
! the drop-in's MPI_ALLTOALLV and MPI_ALLTOALLW (tests/mpi/dropin.sh):
! rank i sends rank j mod(i + 2j, 4) integers (0 for some pairs), each
! 1000 i + 10 j + e; one MPI_ALLTOALLV and one MPI_ALLTOALLW (displacements
! in bytes) a rank, each result checked. Prints "dropin_v_prog_f: OK" on
! rank 0 when every rank's results are right.
program dropin_v_prog_f
  use mpi
  implicit none
  integer :: ierr, rank, p, j, e, at, rat, errs, total
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), bsd(:), brd(:), types(:)
  integer, allocatable :: s(:), r(:), w(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  allocate(sc(p), sd(p), rc(p), rd(p), bsd(p), brd(p), types(p), s(4 * p), r(4 * p), w(4 * p))
  errs = 0
  at = 0
  rat = 0
  do j = 0, p - 1
    sc(j + 1) = mod(rank + 2 * j, 4)
    sd(j + 1) = at
    at = at + sc(j + 1)
    rc(j + 1) = mod(j + 2 * rank, 4)
    rd(j + 1) = rat
    rat = rat + rc(j + 1)
    bsd(j + 1) = 4 * sd(j + 1)
    brd(j + 1) = 4 * rd(j + 1)
    types(j + 1) = MPI_INTEGER
    do e = 1, sc(j + 1)
      s(sd(j + 1) + e) = 1000 * rank + 10 * j + e
    end do
    do e = 1, rc(j + 1)
      w(rd(j + 1) + e) = 1000 * j + 10 * rank + e
    end do
  end do
  r = -1
  call MPI_ALLTOALLV(s, sc, sd, MPI_INTEGER, r, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(r(1:rat) /= w(1:rat))) errs = errs + 1
  r = -1
  call MPI_ALLTOALLW(s, sc, bsd, types, r, rc, brd, types, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(r(1:rat) /= w(1:rat))) errs = errs + 1
  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', 'dropin_v_prog_f: OK'
    else
      print '(a,i0,a)', 'dropin_v_prog_f: FAILED (', total, ' errors)'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program dropin_v_prog_f
