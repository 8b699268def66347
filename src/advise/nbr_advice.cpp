#include "advise/nbr_advice.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/flavour.hpp"
#include "core/output.hpp"
#include "core/table.hpp"
#include "nbr/bench_caller.hpp"
#include "nbr/call_counts.hpp"
#include "nbr/topologies.hpp"

namespace gc::advise {

std::vector<NetworkSample> measure_network(const Comm& comm, int repeats) {
  const int p = comm.size(), me = comm.rank();
  if (p < 2)
    fail_everywhere("advise --calibrate --kernel nbr: needs 2 ranks or more (it times messages)");
  // Simulated time is deterministic but for the computation charged: a few
  // calls are enough there; a real machine needs more against its noise.
  const int calls = flavour::simulated ? 2 : 50;
  const std::vector<int> node_of = nbr::node_of_every_rank(comm.get(), 0);
  std::vector<NetworkSample> out;
  for (int degree : {1, 2, 4, 8, 16, 32}) {
    if (degree > p - 1) break;
    std::vector<int> sources, destinations;
    for (int j = 1; j <= degree; ++j) {
      destinations.push_back((me + j) % p);
      sources.push_back((me - j + p) % p);
    }
    const Comm ring = Comm::adopt(nbr::make_dist_graph(comm.get(), sources, destinations));
    for (std::uint64_t block : {8, 2048, 32768}) {
      nbr::Caller caller(ring.get(), "allgather", block, me);
      caller.call(nullptr, false);  // warm-up
      std::vector<double> seconds;
      for (int r = 0; r < repeats; ++r) {
        PhaseTimer timer(comm);
        for (int i = 0; i < calls; ++i) caller.call(nullptr, false);
        seconds.push_back(timer.stop() / calls);
      }
      std::sort(seconds.begin(), seconds.end());
      NetworkSample s;
      s.ranks = p;
      s.degree = degree;
      s.block = block;
      s.messages = 2.0 * degree;
      s.bytes = 2.0 * degree * static_cast<double>(block);
      s.node_bytes =
          global_counts(comm, node_of, "direct",
                        nbr::direct_counts({sources, destinations}, block, me, node_of), 0)
              .node_bytes;
      s.seconds = seconds[seconds.size() / 2];
      out.push_back(s);
      Progress::say(comm, "calibrating: allgather over {} neighbours, {} B: {:.3f} us", degree,
                    block, s.seconds * 1e6);
    }
  }
  return out;
}

namespace {

std::string us(double seconds) {
  return fmt::format("{:.2f} us", seconds * 1e6);
}

// The group sizes advised among: k = 2, 3, 4 and auto (0).
constexpr int kGroupSizes[] = {2, 3, 4, 0};

std::string plan_name(int k) {
  return k == 0 ? "k=auto" : fmt::format("k={}", k);
}

// Direct (`configurations[0]`) and the plans where a group formed, at one
// block size: predicted, ranked, and the choice said in words.
NbrAdvice ranked(std::uint64_t block, std::vector<NbrConfiguration> configurations,
                 const NetworkCosts& costs) {
  NbrAdvice a;
  a.block = block;
  a.ranked = std::move(configurations);
  for (NbrConfiguration& c : a.ranked) c.seconds = predict_seconds(costs, c);
  const NbrConfiguration direct = a.ranked.front();
  std::stable_sort(
      a.ranked.begin(), a.ranked.end(),
      [](const NbrConfiguration& x, const NbrConfiguration& y) { return x.seconds < y.seconds; });
  const NbrConfiguration& best = a.ranked.front();
  if (best.name == "direct") {
    a.reason = a.ranked.size() > 1 ? fmt::format(
                                         "do not combine: the messages saved do not pay for the "
                                         "second hop and the blocks sent twice at {} B",
                                         block)
                                   : "do not combine: no friend group forms on this topology";
  } else {
    a.reason = fmt::format(
        "combine, {}: the busiest rank {:.0f} -> {:.0f} messages, {:.0f} -> {:.0f} bytes, a "
        "second hop; {} against {} direct",
        best.name, direct.messages, best.messages, direct.bytes, best.bytes, us(best.seconds),
        us(direct.seconds));
  }
  return a;
}

}  // namespace

std::vector<NbrAdvice> advise_nbr(const Comm& comm, const std::vector<int>& sources,
                                  const std::vector<int>& destinations, const NbrQuery& query,
                                  const NetworkCosts& costs) {
  const Comm graph = Comm::adopt(nbr::make_dist_graph(comm.get(), sources, destinations));
  const std::vector<int> node_of = nbr::node_of_every_rank(comm.get(), 0);  // the network's nodes
  std::vector<std::pair<std::string, nbr::Plan>> plans;
  for (int k : kGroupSizes) {
    Progress::say(comm, "the plan with k = {}", k == 0 ? std::string("auto") : std::to_string(k));
    nbr::PlanOptions o = query.plan;
    o.k = k;
    plans.emplace_back(plan_name(k), nbr::build_plan(graph.get(), o));
  }
  const nbr::Topology t{sources, destinations};
  std::vector<NbrAdvice> out;
  for (std::uint64_t block : query.blocks) {
    std::vector<NbrConfiguration> configurations{global_counts(
        comm, node_of, "direct", nbr::direct_counts(t, block, comm.rank(), node_of), 0)};
    for (const auto& [name, plan] : plans) {
      NbrConfiguration c =
          global_counts(comm, node_of, name,
                        nbr::plan_counts(plan, comm.rank(), query.collective, block, node_of),
                        plan.figures.groups);
      if (c.groups > 0) configurations.push_back(c);  // else its calls are the direct ones
    }
    out.push_back(ranked(block, std::move(configurations), costs));
  }
  return out;
}

std::vector<NbrAdvice> advise_nbr_for(const std::vector<nbr::Topology>& every,
                                      const NbrQuery& query, const NetworkCosts& costs) {
  const int p = static_cast<int>(every.size());
  const std::vector<int> node_of =
      nbr::consecutive_nodes(p, std::max(1, query.plan.ranks_per_node));
  std::vector<std::pair<std::string, std::vector<nbr::Plan>>> plans;
  for (int k : kGroupSizes) {
    nbr::PlanOptions o = query.plan;
    o.k = k;
    plans.emplace_back(plan_name(k), nbr::plans_of_every_rank(every, o));
  }
  std::vector<NbrAdvice> out;
  std::vector<nbr::CallCounts> counts(every.size());
  for (std::uint64_t block : query.blocks) {
    for (int r = 0; r < p; ++r)
      counts[static_cast<size_t>(r)] =
          nbr::direct_counts(every[static_cast<size_t>(r)], block, r, node_of);
    std::vector<NbrConfiguration> configurations{total_counts(node_of, "direct", counts, 0)};
    for (const auto& [name, every_plan] : plans) {
      std::uint64_t groups = 0;
      for (int r = 0; r < p; ++r) {
        const nbr::Plan& plan = every_plan[static_cast<size_t>(r)];
        counts[static_cast<size_t>(r)] =
            nbr::plan_counts(plan, r, query.collective, block, node_of);
        groups += plan.figures.groups;
      }
      if (groups > 0) configurations.push_back(total_counts(node_of, name, counts, groups));
    }
    out.push_back(ranked(block, std::move(configurations), costs));
  }
  return out;
}

std::string format_nbr_advice(const std::vector<NbrAdvice>& advice, const NetworkCosts& costs) {
  std::string out = fmt::format(
      "network costs: {:.3g} us per message, {:.3g} ns per byte, {:.3g} ns per byte leaving "
      "the busiest node, {:.3g} us per hop (fitted on {} calls{}; leave-one-out error median "
      "{:.0f}%, max {:.0f}%)\n",
      costs.per_message * 1e6, costs.per_byte * 1e9, costs.per_node_byte * 1e9, costs.per_hop * 1e6,
      costs.samples,
      costs.ranks > 0 ? fmt::format(" at {} ranks", costs.ranks)
                      : std::string(" at other rank counts: extrapolated"),
      100 * costs.median_error, 100 * costs.max_error);
  const Table table({{"bytes", ">9"},
                     {"configuration", "<10"},
                     {"groups", ">7"},
                     {"messages", ">9.0f"},
                     {"bytes_max", ">11.0f"},
                     {"node_bytes", ">11.0f"},
                     {"hops", ">5.0f"},
                     {"predicted_us", ">13.2f"}});
  std::string rows = table.header();
  for (const NbrAdvice& a : advice) {
    for (const NbrConfiguration& c : a.ranked)
      rows += table.row(a.block, c.name, c.groups, c.messages, c.bytes, c.node_bytes, c.hops,
                        c.seconds * 1e6);
    out += fmt::format("advice at {} B: {} ({})\n", a.block, a.ranked.front().name, a.reason);
  }
  return out + rows;
}

nlohmann::json to_json(const NbrAdvice& a) {
  nlohmann::json ranked = nlohmann::json::array();
  for (const NbrConfiguration& c : a.ranked)
    ranked.push_back({{"configuration", c.name},
                      {"groups", c.groups},
                      {"messages_max", c.messages},
                      {"bytes_max", c.bytes},
                      {"node_bytes_max", c.node_bytes},
                      {"hops", c.hops},
                      {"predicted_seconds", c.seconds}});
  return {{"bytes", a.block},
          {"choice", a.ranked.front().name},
          {"reason", a.reason},
          {"ranked", ranked}};
}

}  // namespace gc::advise
