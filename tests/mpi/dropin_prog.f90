! dropin_prog.f90 - an unmodified Fortran MPI program (use mpi) for the
! drop-in test (tests/mpi/dropin.sh): one MPI_ALLTOALL of 5 integers per
! block on MPI_COMM_WORLD, then one in place, each block checked against
! what its origin put there. Rank 0 prints "dropin_prog_f: OK" and the
! program exits 0, or it prints the mismatches and stops with code 1.
program dropin_prog_f
  use mpi
  implicit none
  integer, parameter :: n = 5
  integer :: ierr, rank, p, i, k, errs, total
  integer, allocatable :: sb(:), rb(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  allocate(sb(n * p), rb(n * p))
  do i = 0, p - 1
    do k = 0, n - 1
      sb(i * n + k + 1) = rank * 1000000 + i * 1000 + k
    end do
  end do
  rb = -1
  errs = 0

  ! sb(1), not sb: MPICH's `use mpi` declares no interface for choice
  ! buffers, so gfortran holds every call in the file to one argument rank,
  ! and the in-place call below passes the scalar MPI_IN_PLACE.
  call MPI_ALLTOALL(sb(1), n, MPI_INTEGER, rb, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call check('MPI_ALLTOALL')

  rb = sb
  call MPI_ALLTOALL(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INTEGER, &
                    MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call check('MPI_ALLTOALL in place')

  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', 'dropin_prog_f: OK'
    else
      print '(a,i0,a)', 'dropin_prog_f: FAILED (', total, ' errors)'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1

contains

  ! Block i of rb must hold what rank i sent this rank.
  subroutine check(what)
    character(*), intent(in) :: what
    do i = 0, p - 1
      do k = 0, n - 1
        if (rb(i * n + k + 1) /= i * 1000000 + rank * 1000 + k) then
          errs = errs + 1
          if (errs <= 5) print '(a,a,i0,a,i0,a,i0,a,i0)', what, ': rank ', rank, &
                ' block from ', i, ' element ', k, ' is ', rb(i * n + k + 1)
        end if
      end do
    end do
  end subroutine check
end program dropin_prog_f
