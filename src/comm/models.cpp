#include "comm/models.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/shmem.hpp"

namespace gc {

// The factories, one per model file.
std::unique_ptr<Exchange> make_nsr_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_nsr_agg_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_rma_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_ncl_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_ncl_combined_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_rma_fence_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_rma_hash_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_shmem_fence_exchange(const Comm& comm, Neighborhood nb);
std::unique_ptr<Exchange> make_shmem_hash_exchange(const Comm& comm, Neighborhood nb);

namespace {

// The OpenSHMEM models' files are compiled only where OpenSHMEM is
// (src/CMakeLists.txt): elsewhere their rows have no factory.
#if GRAPHCOMM_HAVE_OPENSHMEM
std::unique_ptr<Exchange> make_hybrid(const Comm& comm, Neighborhood nb) {
  return make_hybrid_exchange(comm, std::move(nb), {});
}
constexpr ExchangeFactory shmem_fence = make_shmem_fence_exchange;
constexpr ExchangeFactory shmem_hash = make_shmem_hash_exchange;
constexpr ExchangeFactory hybrid = make_hybrid;
#else
constexpr ExchangeFactory shmem_fence = nullptr, shmem_hash = nullptr, hybrid = nullptr;
#endif

}  // namespace

#if !GRAPHCOMM_HAVE_OPENSHMEM
std::unique_ptr<Exchange> make_hybrid_exchange(const Comm& comm, Neighborhood nb, HybridOptions) {
  return make_exchange("hybrid", comm, std::move(nb));  // fails, saying why
}
#endif

const std::vector<ExchangeModel>& exchange_model_table() {
  static const std::vector<ExchangeModel> table = {
      {"nsr",
       "one MPI_Isend per message, MPI_Iprobe + MPI_Recv, termination by per-neighbour message "
       "counts (nsr.cpp)",
       Needs::mpi, make_nsr_exchange},
      {"nsr-agg",
       "per-destination coalescing buffers of 256 messages, sent by MPI_Issend (4 in flight at "
       "most) when full or when they stop growing, receives kept posted: the Graph500 "
       "reference's mpi_simple design (nsr_agg.cpp; under SMPI: MPI_Isend, and received when "
       "MPI_Iprobe finds a packet, docs/simulation.md)",
       Needs::mpi, make_nsr_agg_exchange},
      {"rma",
       "MPI-3 passive target, one lock_all epoch, MPI_Put into per-neighbour window regions; "
       "counts by MPI_Neighbor_alltoall; a global reduction ends a phase (rma.cpp)",
       Needs::mpi, make_rma_exchange},
      {"ncl",
       "MPI_Neighbor_alltoall of counts and MPI_Neighbor_alltoallv of data on a distributed "
       "graph topology; a global reduction ends a phase (ncl.cpp)",
       Needs::mpi, make_ncl_exchange},
      {"ncl-combined",
       "ncl with its collectives done by a collaborative plan of nbr/: friend groups combine "
       "messages to common neighbours (ncl.cpp)",
       Needs::mpi, make_ncl_combined_exchange},
      {"rma-fence",
       "Boothe & George's Concurrent-Fence over MPI-3 RMA: packets put into one receive buffer "
       "per rank, room reserved by fetch-and-add, complete once a seal written after a flush is "
       "there (rma_packets.cpp)",
       Needs::mpi, make_rma_fence_exchange},
      {"rma-hash",
       "Boothe & George's Concurrent-Hash over MPI-3 RMA: as rma-fence, a packet complete once "
       "its CRC matches (rma_packets.cpp)",
       Needs::mpi, make_rma_hash_exchange},
      {"shmem-fence", "Concurrent-Fence over OpenSHMEM (shmem_packets.cpp)", Needs::openshmem,
       shmem_fence},
      {"shmem-hash", "Concurrent-Hash over OpenSHMEM (shmem_packets.cpp)", Needs::openshmem,
       shmem_hash},
      {"hybrid",
       "Jose et al.'s hybrid MPI+OpenSHMEM: MPI for setup and level synchronization, OpenSHMEM "
       "for data in a bounded ring per rank, within a node shmem_ptr stores and work sharing "
       "(hybrid.cpp)",
       Needs::openshmem, hybrid},
  };
  return table;
}

std::string why_unavailable(const ExchangeModel& model) {
  if (model.make) return "";
  return fmt::format("OpenSHMEM not available ({})", shmem_unavailable_reason());
}

std::string unavailable_reason(const ExchangeModel& model) {
  if (model.make) return "";
  return fmt::format("{}: {}", model.name, why_unavailable(model));
}

const std::vector<std::string>& exchange_models() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ExchangeModel& m : exchange_model_table())
      if (m.make) out.emplace_back(m.name);
    return out;
  }();
  return names;
}

const std::vector<std::pair<std::string, std::string>>& unavailable_exchange_models() {
  static const std::vector<std::pair<std::string, std::string>> lacking = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const ExchangeModel& m : exchange_model_table())
      if (!m.make) out.emplace_back(m.name, unavailable_reason(m));
    return out;
  }();
  return lacking;
}

std::unique_ptr<Exchange> make_exchange(const std::string& model, const Comm& comm,
                                        Neighborhood nb) {
  for (const ExchangeModel& m : exchange_model_table())
    if (model == m.name) {
      if (!m.make) fail_everywhere(unavailable_reason(m));
      return m.make(comm, std::move(nb));
    }
  fail_everywhere(fmt::format("unknown communication model '{}' (one of: {})", model,
                              fmt::join(exchange_models(), ", ")));
}

}  // namespace gc
