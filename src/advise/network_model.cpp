#include "advise/network_model.hpp"

#include <algorithm>
#include <map>

#include "advise/least_squares.hpp"
#include "core/error.hpp"

namespace gc::advise {

namespace {

// The network model's four counts in the fit's first four slots (the fifth
// stays zero).
std::array<double, kTerms> counts_of(double messages, double bytes, double node_bytes,
                                     double hops) {
  return {messages, bytes, node_bytes, hops, 0};
}

// The bytes the busiest node sends to other nodes: each rank's, summed per node.
double busiest_node(const Comm& comm, const std::vector<int>& node_of, std::uint64_t off_node) {
  const std::vector<std::uint64_t> all = allgather(comm, off_node);
  std::map<int, double> per_node;
  for (std::size_t r = 0; r < all.size(); ++r) per_node[node_of[r]] += static_cast<double>(all[r]);
  double most = 0;
  for (const auto& [node, bytes] : per_node) most = std::max(most, bytes);
  return most;
}

}  // namespace

NetworkCosts fit_network(const std::vector<NetworkSample>& samples, int ranks) {
  const bool at_ranks = std::any_of(samples.begin(), samples.end(),
                                    [&](const NetworkSample& s) { return s.ranks == ranks; });
  std::vector<Observation> obs;
  for (const NetworkSample& s : samples)
    if (s.seconds > 0 && (!at_ranks || s.ranks == ranks))
      obs.push_back({counts_of(s.messages, s.bytes, s.node_bytes, s.hops), s.seconds});
  if (obs.empty())
    fail_everywhere(
        "no calibration for the neighbour collectives: run `graphcomm advise --calibrate "
        "--kernel nbr` at the rank count to advise for");
  const Coefficients k = fit(obs);
  NetworkCosts c;
  c.per_message = k.cost[0];
  c.per_byte = k.cost[1];
  c.per_node_byte = k.cost[2];
  c.per_hop = k.cost[3];
  c.samples = k.samples;
  c.ranks = at_ranks ? ranks : 0;
  c.median_error = k.median_error;
  c.max_error = k.max_error;
  return c;
}

std::vector<NetworkSample> network_samples(const nlohmann::json& calibration) {
  if (!calibration.contains("network")) return {};
  return calibration.at("network").get<std::vector<NetworkSample>>();
}

NbrConfiguration global_counts(const Comm& comm, const std::vector<int>& node_of,
                               const std::string& name, const nbr::CallCounts& mine,
                               std::uint64_t groups) {
  NbrConfiguration g;
  g.name = name;
  g.node_bytes = busiest_node(comm, node_of, mine.bytes_sent_off_node);
  g.messages = static_cast<double>(max_over_ranks(
      comm, static_cast<std::uint64_t>(mine.messages_sent + mine.messages_received)));
  g.bytes = static_cast<double>(
      max_over_ranks(comm, static_cast<std::uint64_t>(mine.bytes_sent + mine.bytes_received)));
  g.hops = max_over_ranks(comm, mine.hops);
  g.groups = sum_over_ranks(comm, groups);
  return g;
}

double predict_seconds(const NetworkCosts& c, const NbrConfiguration& n) {
  return c.per_message * n.messages + c.per_byte * n.bytes + c.per_node_byte * n.node_bytes +
         c.per_hop * n.hops;
}

NbrConfiguration at_block(NbrConfiguration per_byte, std::uint64_t block) {
  per_byte.bytes *= static_cast<double>(block);
  per_byte.node_bytes *= static_cast<double>(block);
  return per_byte;
}

}  // namespace gc::advise
