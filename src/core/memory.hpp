// Memory figures: peak resident set of this process, and what the node has.
#pragma once

#include <cstdint>

#include "core/mpi.hpp"

namespace gc {

std::uint64_t peak_rss_bytes();
std::uint64_t node_memory_bytes();  // physical memory available on this node
int ranks_on_my_node(const Comm& comm);
std::string format_bytes(double bytes);

// Fails (collectively, before anything is allocated) when `bytes_per_rank`
// times the ranks sharing a node exceeds the node's available memory.
void refuse_if_too_big(const Comm& comm, double bytes_per_rank, const std::string& what);

}  // namespace gc
