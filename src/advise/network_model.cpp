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

NbrConfiguration total_counts(const std::vector<int>& node_of, const std::string& name,
                              const std::vector<nbr::CallCounts>& every, std::uint64_t groups) {
  NbrConfiguration g;
  g.name = name;
  g.groups = groups;
  std::map<int, double> per_node;  // bytes each node sends to other nodes
  for (std::size_t r = 0; r < every.size(); ++r) {
    const nbr::CallCounts& c = every[r];
    per_node[node_of[r]] += static_cast<double>(c.bytes_sent_off_node);
    g.messages = std::max(g.messages, static_cast<double>(c.messages_sent + c.messages_received));
    g.bytes = std::max(g.bytes, static_cast<double>(c.bytes_sent + c.bytes_received));
    g.hops = std::max(g.hops, static_cast<double>(c.hops));
  }
  for (const auto& [node, bytes] : per_node) g.node_bytes = std::max(g.node_bytes, bytes);
  return g;
}

NbrConfiguration global_counts(const Comm& comm, const std::vector<int>& node_of,
                               const std::string& name, const nbr::CallCounts& mine,
                               std::uint64_t groups) {
  constexpr std::size_t kFields = 6;
  const std::vector<std::uint64_t> all = allgatherv(
      comm, std::vector<std::uint64_t>{mine.messages_sent, mine.messages_received, mine.bytes_sent,
                                       mine.bytes_received, mine.bytes_sent_off_node,
                                       static_cast<std::uint64_t>(mine.hops)});
  std::vector<nbr::CallCounts> every(all.size() / kFields);
  for (std::size_t r = 0; r < every.size(); ++r) {
    const std::uint64_t* f = all.data() + r * kFields;
    every[r] = {f[0], f[1], f[2], f[3], f[4], static_cast<int>(f[5])};
  }
  return total_counts(node_of, name, every, sum_over_ranks(comm, groups));
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
