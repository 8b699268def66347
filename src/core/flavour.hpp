// The MPI flavour this build was compiled against, and what it lacks: the one
// place that decides it. Open MPI has everything graphcomm uses; MPICH has no
// OpenSHMEM; SimGrid's SMPI (simulated ranks, scripts/simulate) has no
// OpenSHMEM, no distributed-graph topologies (SMPI 3.32 aborts in
// MPI_Dist_graph_create_adjacent: "Not yet implemented") and no LD_PRELOAD
// libraries (every simulated rank lives in the simulator's process).
#pragma once

#include <string_view>

#ifndef GRAPHCOMM_MPI_FLAVOUR
#define GRAPHCOMM_MPI_FLAVOUR "openmpi"
#endif

namespace gc::flavour {

inline constexpr std::string_view name = GRAPHCOMM_MPI_FLAVOUR;
// Ranks are simulated actors on a modeled platform: MPI_Wtime is simulated time.
inline constexpr bool simulated = name == "smpi";
// The library implements MPI_Dist_graph_create_adjacent and the MPI_Neighbor_*
// collectives; where it does not, core/neighborhood.hpp runs graphcomm's own
// direct schedule in their place.
inline constexpr bool library_has_neighborhood_collectives = !simulated;

// MPI_Ibarrier completes on no rank before every rank has entered it. SMPI
// 3.32's does not: its ranks other than 0 complete as soon as rank 0 entered
// (colls/smpi_nbc_impl.cpp starts rank 0's release sends with its receives),
// so core/barrier.hpp runs a barrier of its own there.
inline constexpr bool library_ibarrier_synchronizes = !simulated;

// MPI-IO on files of the machine's file system. SMPI's simulates disks and
// refuses a file on a host without one (core/mpi_file.hpp reads and writes
// with POSIX calls there).
inline constexpr bool library_has_mpi_io = !simulated;

// MPI_Waitall on n requests costs the library O(n). SMPI 3.32's is a loop of
// MPI_Waitany, each of which registers with, and on completion scans, every
// request still pending (Request::waitany, CommImpl::finish): O(n^2) steps of
// the simulator (measured: bench/README.md, "Simulated ranks").
// core/wait.hpp waits for each request in turn there.
inline constexpr bool library_waitall_is_linear = !simulated;

// MPI_Comm_dup charges the calling rank only its own time. SMPI 3.32's (and
// its MPI_Comm_create) charge a simulated rank, as computation, what the other
// ranks do while it waits in them (measured: bench/README.md, "Simulated
// ranks").
// core/dup.hpp duplicates with MPI_Comm_split there, which does not.
inline constexpr bool library_comm_dup_charges_own_time = !simulated;

// MPI_Alltoallv moves only the blocks that are not empty. SMPI 3.32's costs
// the simulator a step per rank pair, empty blocks included, so a sparse
// exchange over 1024 ranks is a million of them (measured: bench/README.md,
// "Simulated ranks"). gc::alltoallv (core/mpi.hpp) sends only the non-empty
// blocks, point to point, there.
inline constexpr bool library_alltoallv_skips_empty_blocks = !simulated;

// MPI_Exscan costs the library O(log P) steps. SMPI 3.32's sends every rank's
// value to every later rank and waits for them one MPI_Waitany at a time
// (colls::exscan in smpi_coll.cpp): a number of messages quadratic in the
// ranks (measured: docs/simulation.md). gc::exscan_sum (core/mpi.hpp) runs
// recursive doubling over point-to-point messages there.
inline constexpr bool library_exscan_is_logarithmic = !simulated;

// A rank with nothing left to send that waits for arrivals polls for them
// (MPI_Test), each failed poll cheap for the library. Under SMPI each is a
// step of the simulator charged a small fixed simulated time
// (scripts/simulate), so a long wait is many steps of wall time. In that
// state nsr-agg waits in MPI_Wait on its oldest posted receive there, and nsr
// in MPI_Wait on a receive from any source (SMPI's MPI_Probe, the blocking
// form of nsr's MPI_Iprobe, is itself a loop of probes); SMPI simulates a
// wait as one event (measured: docs/simulation.md).
inline constexpr bool waiting_ranks_poll = !simulated;

// A request that MPI_Test finds complete is gone from the library. SMPI 3.32
// finishes it without the rank registered on it (ActivityImpl::test), so its
// communication stays in the rank's list of pending activities until the rank
// ends, and the simulator walks that list whenever one of the rank's
// computations or communications ends: a rank that completes thousands of
// requests by tests slows the simulation quadratically, and its simulated
// time grows with them (measured: docs/simulation.md). comm/nsr_agg.cpp
// completes no communication by a test there: it receives what MPI_Iprobe
// found, by MPI_Recv, and sends packets by MPI_Isend, which SMPI detaches
// below its eager threshold (no communication in the request to test).
inline constexpr bool library_forgets_tested_requests = !simulated;

// An RMA operation costs the library the same however many ranks hold a lock
// on the target window. SMPI 3.32 records each lock in the target window's
// list of lockers and every Put, Get, Accumulate and Fetch_and_op searches
// that list (CHECK_WIN_LOCKED in smpi_win.cpp), so after MPI_Win_lock_all each
// operation walks a list of every rank; its MPI_Win_flush_all visits every
// rank's window, a step of the simulator each (measured: docs/simulation.md).
// core/window.hpp locks and flushes only the ranks a window is used with there.
inline constexpr bool library_rma_ignores_lockers = !simulated;

// A rank reads the counters in its own window with MPI_Fetch_and_op, which the
// standard makes safe against other ranks' concurrent atomic updates and which
// costs the library a local atomic. SMPI 3.32's costs a search of the window's
// lockers, simulated mutexes and a flush, and a waiting rank polls its counter
// about a hundred times per packet it receives (measured: docs/simulation.md).
// SMPI's RMA operations write window memory within the simulator's process,
// so comm/rma_packets.cpp reads its own counter with an atomic load there.
inline constexpr bool own_window_reads_need_mpi = !simulated;

// Why the library's neighborhood collectives are replaced ("" when they are not).
inline constexpr std::string_view neighborhood_collectives_missing =
    simulated ? "SimGrid SMPI has no distributed-graph topologies" : "";

}  // namespace gc::flavour
