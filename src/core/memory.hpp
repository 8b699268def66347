// Memory figures: peak resident set of this process, and what the node has.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/mpi.hpp"
#include "core/page_advice.hpp"

namespace gc {

// Peak resident set since the process started or since the last successful
// reset_peak_rss() (Linux: VmHWM, reset through /proc/self/clear_refs), so a
// phase's own peak can be reported. reset_peak_rss() returns false where the
// kernel does not allow it; the peak then covers the whole run so far.
std::uint64_t peak_rss_bytes();
bool reset_peak_rss();
std::uint64_t node_memory_bytes();  // physical memory available on this node
int ranks_on_my_node(const Comm& comm);
std::string format_bytes(double bytes);

// Fails (collectively, before anything is allocated) when `bytes_per_rank`
// times the ranks sharing a node exceeds the node's available memory.
void refuse_if_too_big(const Comm& comm, double bytes_per_rank, const std::string& what);

}  // namespace gc
