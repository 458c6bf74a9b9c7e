/*
 * layout.c - how a call's buffer holds its blocks for a datatype, packing
 * derived datatypes to plain bytes and back, and posting one message in
 * pieces whose MPI counts fit int. Used by every run (exec.c, shm.c,
 * op_exec.c) and by the argument checks (describe.c); calls nothing else
 * of the executor.
 *
 * A block is count elements of a datatype. It is "contiguous" when the
 * type is plain bytes: its size equals its extent and its true extent,
 * and both lower bounds are 0, so block j is stride bytes after block
 * j - 1 with nothing in between. Anything else (holes, a shifted lower
 * bound, different send and receive types of one signature) is packed
 * with MPI_Pack into a staging buffer of plain bytes first.
 */
#include "mpi/mpi_internal.h"

#include <limits.h>

int xchg_mpi_layout_of(MPI_Count count, MPI_Datatype type, xchg_mpi_layout *out,
                       size_t *block_bytes)
{
    MPI_Count size, lb, extent, tlb, textent;
    int rc = MPI_Type_size_x(type, &size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_extent_x(type, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_true_extent_x(type, &tlb, &textent);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0 || size < 0 || extent < 0 || (size > 0 && count > INT64_MAX / size) ||
        (extent > 0 && count > INT64_MAX / extent))
        return MPI_ERR_COUNT;
    out->contiguous = count == 0 || (size == extent && size == textent && lb == 0 && tlb == 0);
    out->count = count;
    out->type = type;
    out->stride = (MPI_Aint)(count * extent);
    out->elem_bytes = (size_t)size;
    *block_bytes = (size_t)(count * size);
    return MPI_SUCCESS;
}

/* Pack (unpack) one block of lay at blk to (from) packed, B bytes, in calls
 * of at most INT_MAX elements and INT_MAX bytes each. */
static int pack_block(MPI_Comm comm, const xchg_mpi_layout *lay, unsigned char *blk,
                      unsigned char *packed, size_t B, int unpack)
{
    size_t esize = lay->elem_bytes;
    if (esize == 0 || B == 0)
        return MPI_SUCCESS;
    if (esize > (size_t)INT_MAX)
        return MPI_ERR_COUNT; /* one element's bytes do not fit an int */
    size_t per_call = (size_t)INT_MAX / esize, done = 0, count = (size_t)lay->count;
    MPI_Aint lb, extent;
    int rc = MPI_Type_get_extent(lay->type, &lb, &extent);
    while (rc == MPI_SUCCESS && done < count) {
        size_t n = count - done < per_call ? count - done : per_call;
        unsigned char *at = blk + done * (size_t)extent;
        int pos = 0, k = (int)n;
        MPI_Datatype type = lay->type, moved = MPI_DATATYPE_NULL;
        if (!at) {
            /* MPI_BOTTOM (absolute addresses in the type), which MPICH
             * 4.0.2's MPI_Pack and MPI_Unpack refuse as a null buffer:
             * the same bytes from address 1, the n elements moved back a
             * byte */
            MPI_Aint back = -1;
            rc = MPI_Type_create_hindexed(1, &k, &back, lay->type, &moved);
            if (rc == MPI_SUCCESS)
                rc = MPI_Type_commit(&moved);
            if (rc != MPI_SUCCESS)
                break;
            at = (unsigned char *)(uintptr_t)1, k = 1, type = moved;
        }
        if (unpack)
            rc = MPI_Unpack(packed, (int)(n * esize), &pos, at, k, type, comm);
        else
            rc = MPI_Pack(at, k, type, packed, (int)(n * esize), &pos, comm);
        if (moved != MPI_DATATYPE_NULL)
            MPI_Type_free(&moved);
        if (rc == MPI_SUCCESS && (size_t)pos != n * esize)
            rc = MPI_ERR_INTERN; /* packed form is not the type signature's bytes */
        packed += n * esize;
        done += n;
    }
    return rc;
}

int xchg_mpi_pack_blocks(MPI_Comm comm, const xchg_mpi_layout *lay, unsigned char *user,
                         unsigned char *staging, size_t stride, size_t nblocks, size_t B,
                         int unpack)
{
    for (size_t j = 0; j < nblocks; j++) {
        int rc = pack_block(comm, lay, user + j * (size_t)lay->stride, staging + j * stride, B,
                            unpack);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    xchg_mpi_charge(nblocks, xchg_mpi_mul(nblocks, B));
    return MPI_SUCCESS;
}

int xchg_mpi_post(MPI_Comm comm, int recv, unsigned char *buf, size_t bytes, int peer,
                  MPI_Request *reqs, size_t *nreq)
{
    int tag = 0;
    do {
        size_t n = bytes < XCHG_MPI_PIECE ? bytes : XCHG_MPI_PIECE;
        int rc = recv ? MPI_Irecv(buf, (int)n, MPI_BYTE, peer, tag, comm, &reqs[*nreq])
                      : MPI_Isend(buf, (int)n, MPI_BYTE, peer, tag, comm, &reqs[*nreq]);
        if (rc != MPI_SUCCESS)
            return rc;
        (*nreq)++;
        buf += n;
        bytes -= n;
        tag++;
    } while (bytes > 0);
    return MPI_SUCCESS;
}
