#include "advise/network_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "advise/least_squares.hpp"
#include "core/error.hpp"

namespace gc::advise {

namespace {

// The network model's four counts in the fit's first four slots (the others
// stay zero).
std::array<double, kTerms> counts_of(double messages, double bytes, double node_bytes,
                                     double hops) {
  return {messages, bytes, node_bytes, hops, 0, 0};
}

// The calibration's smallest block: its calls cost their messages and hops,
// their bytes nothing next to a message's overheads.
constexpr std::uint64_t kSmallBlock = 8;

// The four costs, in two stages: per message and per hop from the calls of
// the smallest block, then per byte and per node byte from the larger calls,
// on what the first two leave unexplained there. Fitted all at once on
// relative errors, the calls of one or two neighbours (where a hop's latency
// is most of the time) pull the cost per message below what calls of many
// messages pay, and so every prediction for a dense neighbourhood low. Without
// calls of the smallest block: the four at once.
std::array<double, kTerms> fit_stages(const std::vector<NetworkSample>& samples) {
  std::vector<Observation> small, large;
  for (const NetworkSample& s : samples)
    (s.block <= kSmallBlock ? small : large)
        .push_back({counts_of(s.messages, s.bytes, s.node_bytes, s.hops), s.seconds});
  if (small.empty()) return fit_costs(large);
  for (Observation& o : small) o.counts = counts_of(o.counts[0], 0, 0, o.counts[3]);
  std::array<double, kTerms> cost = fit_costs(small);
  for (Observation& o : large) {
    o.known = cost[0] * o.counts[0] + cost[3] * o.counts[3];
    o.counts = counts_of(0, o.counts[1], o.counts[2], 0);
  }
  if (large.empty()) return cost;
  const std::array<double, kTerms> bytes = fit_costs(large);
  cost[1] = bytes[1];
  cost[2] = bytes[2];
  return cost;
}

double predict_sample(const std::array<double, kTerms>& cost, const NetworkSample& s) {
  Coefficients c;
  c.cost = cost;
  return predict(c, counts_of(s.messages, s.bytes, s.node_bytes, s.hops)).seconds;
}

}  // namespace

NetworkCosts fit_network(const std::vector<NetworkSample>& samples, int ranks) {
  const bool at_ranks = std::any_of(samples.begin(), samples.end(),
                                    [&](const NetworkSample& s) { return s.ranks == ranks; });
  std::vector<NetworkSample> used;
  for (const NetworkSample& s : samples)
    if (s.seconds > 0 && (!at_ranks || s.ranks == ranks)) used.push_back(s);
  if (used.empty())
    fail_everywhere(
        "no calibration for the neighbour collectives: run `graphcomm advise --calibrate "
        "--kernel nbr` at the rank count to advise for");
  const std::array<double, kTerms> cost = fit_stages(used);
  NetworkCosts c;
  c.per_message = cost[0];
  c.per_byte = cost[1];
  c.per_node_byte = cost[2];
  c.per_hop = cost[3];
  c.samples = used.size();
  c.ranks = at_ranks ? ranks : 0;
  // Leave-one-out: both stages fitted again without each call, which is then
  // predicted.
  const LeaveOneOut loo = leave_one_out(used.size(), [&](std::size_t i) {
    std::vector<NetworkSample> rest = used;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    return std::abs(predict_sample(fit_stages(rest), used[i]) / used[i].seconds - 1);
  });
  c.median_error = loo.median_error;
  c.max_error = loo.max_error;
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
  constexpr std::size_t kFields = 7;
  const std::vector<std::uint64_t> all =
      allgatherv(comm, std::vector<std::uint64_t>{
                           mine.messages_sent, mine.messages_received, mine.bytes_sent,
                           mine.bytes_received, mine.bytes_sent_off_node,
                           mine.bytes_received_off_node, static_cast<std::uint64_t>(mine.hops)});
  std::vector<nbr::CallCounts> every(all.size() / kFields);
  for (std::size_t r = 0; r < every.size(); ++r) {
    const std::uint64_t* f = all.data() + r * kFields;
    every[r] = {f[0], f[1], f[2], f[3], f[4], f[5], static_cast<int>(f[6])};
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
