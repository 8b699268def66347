#include "comm/exchange.hpp"

#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/shmem.hpp"

namespace gc {

std::uint64_t CommCounters::messages() const {
  return std::accumulate(messages_to.begin(), messages_to.end(), std::uint64_t{0});
}
std::uint64_t CommCounters::bytes() const {
  return std::accumulate(bytes_to.begin(), bytes_to.end(), std::uint64_t{0});
}

Exchange::Exchange(const Comm& comm, Neighborhood nb) : comm_(comm), neighborhood_(std::move(nb)) {
  counters_.messages_to.assign(static_cast<size_t>(comm.size()), 0);
  counters_.bytes_to.assign(static_cast<size_t>(comm.size()), 0);
}

void Exchange::count(int index, std::uint64_t messages) {
  const int rank = neighborhood_.ranks[static_cast<size_t>(index)];
  counters_.messages_to[static_cast<size_t>(rank)] += messages;
  counters_.bytes_to[static_cast<size_t>(rank)] += messages * sizeof(Message);
}

const std::vector<std::string>& exchange_models() {
  static const std::vector<std::string> models = [] {
    std::vector<std::string> m = {"nsr",          "nsr-agg",   "rma",     "ncl",
                                  "ncl-combined", "rma-fence", "rma-hash"};
    if (GRAPHCOMM_HAVE_OPENSHMEM) m.insert(m.end(), {"shmem-fence", "shmem-hash", "hybrid"});
    return m;
  }();
  return models;
}

const std::vector<std::pair<std::string, std::string>>& unavailable_exchange_models() {
  static const std::vector<std::pair<std::string, std::string>> models = [] {
    std::vector<std::pair<std::string, std::string>> m;
    if (!GRAPHCOMM_HAVE_OPENSHMEM)
      for (const char* model : {"shmem-fence", "shmem-hash", "hybrid"})
        m.emplace_back(model, fmt::format("{}: OpenSHMEM not available ({})", model,
                                          shmem_unavailable_reason()));
    return m;
  }();
  return models;
}

std::unique_ptr<Exchange> make_exchange(const std::string& model, const Comm& comm,
                                        Neighborhood nb) {
  if (model == "nsr") return make_nsr_exchange(comm, std::move(nb));
  if (model == "nsr-agg") return make_nsr_agg_exchange(comm, std::move(nb));
  if (model == "rma") return make_rma_exchange(comm, std::move(nb));
  if (model == "ncl") return make_ncl_exchange(comm, std::move(nb));
  if (model == "ncl-combined") return make_ncl_combined_exchange(comm, std::move(nb));
  if (model == "rma-fence") return make_rma_fence_exchange(comm, std::move(nb));
  if (model == "rma-hash") return make_rma_hash_exchange(comm, std::move(nb));
#if GRAPHCOMM_HAVE_OPENSHMEM
  if (model == "shmem-fence") return make_shmem_fence_exchange(comm, std::move(nb));
  if (model == "shmem-hash") return make_shmem_hash_exchange(comm, std::move(nb));
  if (model == "hybrid") return make_hybrid_exchange(comm, std::move(nb));
#endif
  for (const auto& [name, reason] : unavailable_exchange_models())
    if (model == name) fail_everywhere(reason);
  fail_everywhere(fmt::format("unknown communication model '{}' (one of: {})", model,
                              fmt::join(exchange_models(), ", ")));
}

#if !GRAPHCOMM_HAVE_OPENSHMEM
std::unique_ptr<Exchange> make_hybrid_exchange(const Comm&, Neighborhood, HybridOptions) {
  fail_everywhere(unavailable_exchange_models().back().second);
}
#endif

nlohmann::json gather_comm_matrix(const Comm& comm, const CommCounters& counters) {
  const size_t p = static_cast<size_t>(comm.size());
  std::vector<std::uint64_t> messages(comm.rank() == 0 ? p * p : 0), bytes(messages.size());
  MPI_Gather(counters.messages_to.data(), comm.size(), MPI_UINT64_T, messages.data(), comm.size(),
             MPI_UINT64_T, 0, comm.get());
  MPI_Gather(counters.bytes_to.data(), comm.size(), MPI_UINT64_T, bytes.data(), comm.size(),
             MPI_UINT64_T, 0, comm.get());
  if (comm.rank() != 0) return {};
  nlohmann::json m = nlohmann::json::array(), b = nlohmann::json::array();
  for (size_t r = 0; r < p; ++r) {
    m.push_back(
        std::vector<std::uint64_t>(messages.begin() + r * p, messages.begin() + (r + 1) * p));
    b.push_back(std::vector<std::uint64_t>(bytes.begin() + r * p, bytes.begin() + (r + 1) * p));
  }
  return {{"messages", m}, {"bytes", b}};
}

}  // namespace gc
