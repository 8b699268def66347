#include "comm/exchange.hpp"

#include <numeric>

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
