#include "nbr/call_counts.hpp"

namespace gc::nbr {

namespace {

// Tallies one rank's messages.
struct Tally {
  CallCounts c;
  std::uint64_t block;
  int my_node;
  const std::vector<int>& node_of;
  void sent(std::uint64_t blocks, int to) {
    ++c.messages_sent;
    c.bytes_sent += blocks * block;
    if (!node_of.empty() && node_of[static_cast<std::size_t>(to)] != my_node)
      c.bytes_sent_off_node += blocks * block;
  }
  void received(std::uint64_t blocks) {
    ++c.messages_received;
    c.bytes_received += blocks * block;
  }
};

int node(const std::vector<int>& node_of, int me) {
  return node_of.empty() ? 0 : node_of[static_cast<std::size_t>(me)];
}

}  // namespace

CallCounts direct_counts(const Topology& t, std::uint64_t block, int me,
                         const std::vector<int>& node_of) {
  Tally tally{{}, block, node(node_of, me), node_of};
  for (int to : t.destinations) tally.sent(1, to);
  for (std::size_t i = 0; i < t.sources.size(); ++i) tally.received(1);
  return tally.c;
}

CallCounts plan_counts(const Plan& plan, int me, const std::string& collective, std::uint64_t block,
                       const std::vector<int>& node_of) {
  if (!plan.combines_anywhere) return direct_counts(plan.topology, block, me, node_of);
  const bool allgather = collective == "allgather";
  const Topology& t = plan.topology;
  Tally tally{{}, block, node(node_of, me), node_of};
  for (const GroupRole& role : plan.roles) {
    // Request::start: to each friend the blocks it forwards for me
    // (allgather: my one block); Request::wait: from each, its blocks for the
    // neighbours assigned to me.
    for (std::size_t i = 0; i < role.members.size(); ++i) {
      if (role.members[i] == me) continue;
      tally.sent(allgather ? 1 : role.my_blocks_for[i].size(), role.members[i]);
      tally.received(allgather ? 1 : role.own_positions.size());
    }
    // One combined message per common neighbour assigned to me, every
    // member's block in it.
    for (int pos : role.own_positions)
      tally.sent(role.members.size(), t.destinations[static_cast<std::size_t>(pos)]);
    tally.c.hops = 2;
  }
  for (int j : plan.direct_destinations) tally.sent(1, t.destinations[static_cast<std::size_t>(j)]);
  for (std::size_t i = 0; i < plan.direct_sources.size(); ++i) tally.received(1);
  for (const CombinedIncoming& in : plan.combined_in) {
    tally.received(in.positions.size());
    tally.c.hops = 2;
  }
  return tally.c;
}

}  // namespace gc::nbr
