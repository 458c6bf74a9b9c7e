! dropin_ops_prog.F90 - an unmodified Fortran MPI program (use mpi, or use
! mpi_f08 when built with XCHG_F08 defined) for the drop-in test
! (tests/mpi/dropin.sh): one call of each operation the drop-in
! carries besides MPI_ALLTOALL (MPI_BCAST, MPI_REDUCE, MPI_ALLREDUCE and in
! place, MPI_SCAN, MPI_REDUCE_SCATTER_BLOCK, MPI_ALLGATHER, MPI_GATHER,
! MPI_SCATTER and in place) on n integers a rank, each result checked
! against the operation's definition, then one MPI_ALLREDUCE of the error
! count: 11 calls a rank. Rank 0 prints "dropin_ops_prog_f: OK" and the
! program exits 0, or it prints the mismatches and stops with code 1.
program dropin_ops_prog_f
#ifdef XCHG_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: n = 3
  integer :: ierr, rank, p, i, k, errs, total, root
  integer, allocatable :: a(:), b(:), big(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  allocate(a(n * p), b(n * p), big(n * p))
  errs = 0
  root = p - 1

  ! (Arguments are x(1), not x: MPICH's `use mpi` declares no interface for
  ! choice buffers, so gfortran holds every call to one argument rank, and
  ! the in-place calls pass the scalar MPI_IN_PLACE.)

  ! broadcast from the last rank: its values everywhere
  do k = 1, n
    a(k) = merge(100 * k + 7, -1, rank == root)
  end do
  call MPI_BCAST(a(1), n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call want('MPI_BCAST', ierr, rank >= 0, [(100 * k + 7, k = 1, n)], a(1:n))

  ! reduce to the last rank: element k sums rank + k over the ranks
  call fill(a, n)
  b = -1
  call MPI_REDUCE(a(1), b(1), n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  call want('MPI_REDUCE', ierr, rank == root, [(sum_to(p - 1) + p * k, k = 1, n)], b(1:n))

  call fill(a, n)
  b = -1
  call MPI_ALLREDUCE(a(1), b(1), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call want('MPI_ALLREDUCE', ierr, .true., [(sum_to(p - 1) + p * k, k = 1, n)], b(1:n))

  call fill(b, n)
  call MPI_ALLREDUCE(MPI_IN_PLACE, b(1), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call want('MPI_ALLREDUCE in place', ierr, .true., [(sum_to(p - 1) + p * k, k = 1, n)], b(1:n))

  ! scan: ranks 0..rank
  call fill(a, n)
  b = -1
  call MPI_SCAN(a(1), b(1), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call want('MPI_SCAN', ierr, .true., [(sum_to(rank) + (rank + 1) * k, k = 1, n)], b(1:n))

  ! reduce-scatter: block j (n elements) of every rank holds rank + j + k;
  ! rank j gets the sums of its block
  do i = 0, p - 1
    do k = 1, n
      big(i * n + k) = rank + i + k
    end do
  end do
  b = -1
  call MPI_REDUCE_SCATTER_BLOCK(big(1), b(1), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call want('MPI_REDUCE_SCATTER_BLOCK', ierr, .true., &
            [(sum_to(p - 1) + p * (rank + k), k = 1, n)], b(1:n))

  ! allgather and gather: block i is rank i's n values 1000 i + k
  do k = 1, n
    a(k) = 1000 * rank + k
  end do
  big = -1
  call MPI_ALLGATHER(a(1), n, MPI_INTEGER, big(1), n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call want('MPI_ALLGATHER', ierr, .true., [((1000 * i + k, k = 1, n), i = 0, p - 1)], big)
  big = -1
  call MPI_GATHER(a(1), n, MPI_INTEGER, big(1), n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call want('MPI_GATHER', ierr, rank == root, [((1000 * i + k, k = 1, n), i = 0, p - 1)], big)

  ! scatter from the last rank: rank i gets block i; then in place at the root
  do i = 0, p - 1
    do k = 1, n
      big(i * n + k) = merge(2000 * i + k, -1, rank == root)
    end do
  end do
  b = -1
  call MPI_SCATTER(big(1), n, MPI_INTEGER, b(1), n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call want('MPI_SCATTER', ierr, .true., [(2000 * rank + k, k = 1, n)], b(1:n))
  b = -1
  if (rank == root) then
    call MPI_SCATTER(big(1), n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, &
                     MPI_COMM_WORLD, ierr)
    call want('MPI_SCATTER in place', ierr, .true., [(2000 * rank + k, k = 1, n)], &
              big(rank * n + 1:rank * n + n))
  else
    call MPI_SCATTER(big(1), n, MPI_INTEGER, b(1), n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call want('MPI_SCATTER (in place at the root)', ierr, .true., &
              [(2000 * rank + k, k = 1, n)], b(1:n))
  end if

  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', 'dropin_ops_prog_f: OK'
    else
      print '(a,i0,a)', 'dropin_ops_prog_f: FAILED (', total, ' errors)'
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1

contains

  ! x(k) = rank + k: what each rank contributes to the reductions
  subroutine fill(x, m)
    integer, intent(inout) :: x(:)
    integer, intent(in) :: m
    do k = 1, m
      x(k) = rank + k
    end do
  end subroutine fill

  ! 0 + 1 + ... + j
  integer function sum_to(j)
    integer, intent(in) :: j
    sum_to = j * (j + 1) / 2
  end function sum_to

  ! The call returned MPI_SUCCESS, and where `check` holds, got equals expected.
  subroutine want(what, code, check, expected, got)
    character(*), intent(in) :: what
    integer, intent(in) :: code
    logical, intent(in) :: check
    integer, intent(in) :: expected(:), got(:)
    integer :: j
    if (code /= MPI_SUCCESS) then
      errs = errs + 1
      print '(a,a,i0,a,i0)', what, ': rank ', rank, ' error code ', code
    end if
    if (.not. check) return
    do j = 1, size(expected)
      if (got(j) /= expected(j)) then
        errs = errs + 1
        if (errs <= 5) print '(a,a,i0,a,i0,a,i0,a,i0)', what, ': rank ', rank, &
              ' element ', j, ' is ', got(j), ', want ', expected(j)
      end if
    end do
  end subroutine want
end program dropin_ops_prog_f
