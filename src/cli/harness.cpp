#include "cli/harness.hpp"

#include "core/memory.hpp"

namespace gc::cli {

SumMax sum_and_max(const Comm& comm, std::uint64_t mine) {
  SumMax out;
  out.sum = sum_over_ranks(comm, mine);
  out.max = max_over_ranks(comm, mine);
  return out;
}

void to_json(nlohmann::json& j, const SumMax& s) {
  j = {{"sum", s.sum}, {"max", s.max}};
}

PeakRss peak_rss_over_ranks(const Comm& comm) {
  const double rss = static_cast<double>(peak_rss_bytes());
  PeakRss out;
  out.max = max_over_ranks(comm, rss);
  out.mean = mean_over_ranks(comm, rss);
  return out;
}

nlohmann::json memory_report(const Comm& comm, const DistGraph& g, std::uint64_t view_bytes,
                             double estimated_peak_bytes) {
  const PeakRss rss = peak_rss_over_ranks(comm);
  const double edges =
      static_cast<double>(std::max<std::uint64_t>(1, sum_over_ranks(comm, g.local_edge_count())));
  const std::uint64_t graph_bytes = g.memory_bytes() + view_bytes;
  const double per_local_edge =
      static_cast<double>(peak_rss_bytes()) /
      static_cast<double>(std::max<std::uint64_t>(1, g.local_edge_count()));
  return {{"graph_bytes_max", max_over_ranks(comm, graph_bytes)},
          {"graph_bytes_per_directed_edge",
           static_cast<double>(sum_over_ranks(comm, graph_bytes)) / edges},
          {"csr_bytes_per_directed_edge",
           static_cast<double>(sum_over_ranks(comm, g.csr_bytes())) / edges},
          {"peak_rss_bytes_max", rss.max},
          {"peak_rss_bytes_mean", rss.mean},
          {"peak_rss_bytes_per_local_edge_max", max_over_ranks(comm, per_local_edge)},
          {"estimated_peak_bytes_per_rank", estimated_peak_bytes}};
}

bool reset_peak_rss_everywhere(const Comm& comm) {
  return max_over_ranks(comm, reset_peak_rss() ? 0 : 1) == 0;
}

double sort_for_median(std::vector<double>& seconds) {
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

void write_results(const Comm& comm, const Invocation& inv, const std::string& command,
                   const std::string& path, const std::function<nlohmann::json()>& fields) {
  if (path.empty()) return;
  nlohmann::json doc = result_envelope(comm, command, inv.argc, inv.argv);
  doc.update(fields());
  write_json_on_root(comm, path, doc);
}

}  // namespace gc::cli
