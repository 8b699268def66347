#include "core/memory.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace gc {

std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      if (status >> kib) return kib * 1024;
      break;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

bool reset_peak_rss() {
  malloc_trim(0);  // give freed heap back first, so an earlier phase's garbage does not count
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // resets the peak RSS to the current RSS
  clear.flush();
  return static_cast<bool>(clear);
}

std::uint64_t node_memory_bytes() {
  // MemAvailable counts reclaimable cache; fall back to physical pages.
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
}

int ranks_on_my_node(const Comm& comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
  Comm owned = Comm::adopt(node);
  return owned.size();
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

void refuse_if_too_big(const Comm& comm, double bytes_per_rank, const std::string& what) {
  const double on_node = bytes_per_rank * ranks_on_my_node(comm);
  const double available = static_cast<double>(node_memory_bytes());
  // Every rank decides from the same formula; a node differing in memory
  // is covered by agreeing on the verdict.
  int too_big = on_node > 0.9 * available ? 1 : 0;
  too_big = max_over_ranks(comm, too_big);
  if (too_big) {
    fail_everywhere(fmt::format(
        "{} needs an estimated {} per rank ({} on this node), more than 90% of the {} "
        "this node has available; use a smaller size or more nodes",
        what, format_bytes(bytes_per_rank), format_bytes(on_node), format_bytes(available)));
  }
}

void advise_huge_pages(const void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

void release_pages(const void* data, std::size_t bytes) {
  // Only whole pages inside the range: its neighbours may share the ends'.
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace gc
