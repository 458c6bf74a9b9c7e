/*
 * auto.c - how "auto" picks an algorithm for the MPI executor: the time
 * each candidate's line predicts when the executor runs it on MPI's shared
 * memory, with the execution the executor really does.
 *
 * The planner (xchg_plan_sweep) gives each candidate's start-ups S and
 * volume V (blocks). The executor's time for block size m is
 *     S_eff * t_s  +  V * m * t_w(message)  +  C * m * t_r
 * where
 *   - C = 2V: the executor packs every block a step sends and unpacks every
 *     block it receives (the line's own copy count is the paper's local
 *     rearrangement, which the executor does not do), except for a direct
 *     schedule, which copies nothing (C = 0);
 *   - S_eff = S, except for a direct schedule (one block a step, straight
 *     home: pairwise, hc-direct), whose steps the executor posts 64 at a
 *     time (exec.c): they overlap, and each costs about a quarter of a step;
 *   - t_w is four times larger for messages under 8 KiB, which MPI libraries
 *     copy twice through shared-memory fragments (Open MPI's vader below its
 *     single-copy threshold) instead of once: the machine's eager range
 *     (eager_bytes, ts_eager, tw_eager), which a machine file from `xchg
 *     probe` (XCHG_MACHINE_FILE) replaces with measured figures;
 *   - t_s, t_w and t_r grow with f, the ranks per core on the busiest node
 *     (ranks waiting for a partner that is not running): t_s = 0.8 f^1.44 us,
 *     t_w = 0.0002 f us/B, t_r = 0.0001 f us/B, fitted to hc-standard and
 *     pairwise at 16 and 64 ranks on 2 cores, 8 B to 1 MiB (docs/mpi.md,
 *     bench/results/mpi_alltoall.txt). A machine file's figures, measured
 *     by `xchg probe` with one rank per core, are scaled by f the same way
 *     (xchg_mpi_machine_scale).
 *
 * Another operation's line (xchg_mpi_predict_op) is priced on blocks of
 * b = m/pieces: S start-ups and V*b bytes at the machine's start-up and
 * per-byte time for the typical message (V/S blocks; the eager figures
 * below the machine's eager size), plus local copies at t_r: none for
 * messages of one piece (sent from and received into their slots, which
 * lie in the caller's buffers where they can), a pack and an unpack of
 * every block when messages carry several pieces (V > S), and one pass
 * over every block received for a reduction's combinations. Unlike the
 * exchange's, no step is taken as independent of the others: an
 * operation's steps wait for the data the step before brought.
 *
 * The shared-memory exchange (alg "shm", shm.c) sends no message: each rank
 * copies its p blocks in, waits at one barrier, and copies p blocks out
 * (blocks larger than the grid's slots go in ceil(m / chunk) rounds). Its
 * time is 2 t_s a round + 2 p m t_c: a barrier costs about two start-ups
 * (every rank is descheduled once and woken once), and t_c, a byte copied
 * by memcpy of whole blocks with f ranks sharing a core, is
 * 3e-5 f^1.36 us/B, fitted to shm's times at 16 and 64 ranks, 8 B to
 * 64 KiB (bench/results/mpi_alltoall.txt); copying whole blocks costs less
 * than the executor's packing (t_r) at 16 ranks and more at 64, where the
 * ranks' copies no longer share the caches.
 *
 * Making a communicator's segment costs once: a broadcast and an
 * agreement, zeroing it (rank 0), and every rank's first touch of the
 * pages of its column and row, f ranks to a core. auto buys it only when
 * the calls that wanted it have saved that much (call.c): a communicator
 * used for a few calls never pays for a segment it cannot earn back, and
 * one used many times pays at most twice what it saves (rent or buy).
 */
#include "mpi/auto.h"

#include <math.h>

/* Messages under this size cost four times as much a byte. */
#define XCHG_MPI_EAGER_BYTES 8192.0

/* The first touch of a page of shared memory mapped in advance, and
 * zeroing a byte of a new segment (us), on the machine the defaults were
 * fitted on (bench/page_touch.sh; docs/mpi.md, "What a plan costs"). */
#define XCHG_MPI_PAGE_US 7.0
#define XCHG_MPI_ZERO_US_PER_BYTE 1.5e-4
#define XCHG_MPI_PAGE_BYTES 4096.0

void xchg_mpi_machine(double f, xchg_machine *out)
{
    if (f < 1)
        f = 1;
    *out = (xchg_machine){.name = "mpi-shm",
                          .ts = 0.8 * pow(f, 1.44),
                          .tw = 0.0002 * f,
                          .tr = 0.0001 * f,
                          .barrier = 0,
                          .units = "us",
                          .eager_bytes = XCHG_MPI_EAGER_BYTES,
                          .ts_eager = 0.8 * pow(f, 1.44),
                          .tw_eager = 4 * 0.0002 * f};
}

void xchg_mpi_machine_scale(double f, xchg_machine *m)
{
    if (f < 1)
        f = 1;
    double s = pow(f, 1.44);
    m->ts *= s;
    m->ts_eager *= s;
    m->tw *= f;
    m->tw_eager *= f;
    m->tr *= f;
}

double xchg_mpi_predict(const xchg_line *line, const xchg_machine *mach, double m)
{
    double S = (double)line->startups, V = (double)line->volume_blocks;
    int direct = line->startups > 0 && line->volume_blocks == line->startups;
    double C = direct ? 0 : 2 * V;
    double msg = S > 0 ? V / S * m : 0; /* a typical message */
    int eager = msg < mach->eager_bytes;
    double ts = eager ? mach->ts_eager : mach->ts, tw = eager ? mach->tw_eager : mach->tw;
    return (direct ? S / 4 : S) * ts + V * m * tw + C * m * mach->tr;
}

double xchg_mpi_predict_shm(double f, const xchg_machine *mach, int p, double m, double chunk)
{
    double rounds = chunk > 0 ? ceil(m / chunk) : 1;
    double tc = 3e-5 * pow(f < 1 ? 1 : f, 1.36);
    /* a barrier's messages are small: the eager start-up (the same as ts
     * in the default machine; a probed one's is far below its ts) */
    double ts = mach->eager_bytes > 0 ? mach->ts_eager : mach->ts;
    return 2 * rounds * ts + 2 * (double)p * m * tc;
}

double xchg_mpi_predict_op(const xchg_line *line, const xchg_machine *mach, double m,
                           int reduction)
{
    double b = m / (line->pieces > 1 ? line->pieces : 1);
    double S = (double)line->startups, V = (double)line->volume_blocks;
    double msg = S > 0 ? V / S * b : 0;
    int eager = msg < mach->eager_bytes;
    double ts = eager ? mach->ts_eager : mach->ts, tw = eager ? mach->tw_eager : mach->tw;
    double copies = (V > S ? 2 * V : 0) + (reduction ? V : 0);
    return S * ts + V * b * tw + copies * b * mach->tr;
}

double xchg_mpi_predict_shm_making(double f, const xchg_machine *mach, int p, double bytes,
                                   double chunk)
{
    double pages = 4.0 * p * ceil(chunk / XCHG_MPI_PAGE_BYTES); /* column and row, two grids */
    double ts = mach->eager_bytes > 0 ? mach->ts_eager : mach->ts;
    return 2 * ts + bytes * XCHG_MPI_ZERO_US_PER_BYTE + pages * XCHG_MPI_PAGE_US * (f < 1 ? 1 : f);
}
