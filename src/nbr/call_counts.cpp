#include "nbr/call_counts.hpp"

namespace gc::nbr {

namespace {

// Tallies one rank's messages.
struct Tally {
  CallCounts c;
  int my_node;
  const std::vector<int>& node_of;
  bool off_node(int rank) const {
    return !node_of.empty() && node_of[static_cast<std::size_t>(rank)] != my_node;
  }
  void sent(std::uint64_t bytes, int to) {
    ++c.messages_sent;
    c.bytes_sent += bytes;
    if (off_node(to)) c.bytes_sent_off_node += bytes;
  }
  void received(std::uint64_t bytes, int from) {
    ++c.messages_received;
    c.bytes_received += bytes;
    if (off_node(from)) c.bytes_received_off_node += bytes;
  }
};

int node(const std::vector<int>& node_of, int me) {
  return node_of.empty() ? 0 : node_of[static_cast<std::size_t>(me)];
}

// The bytes of the blocks of `ranks`, one each.
std::uint64_t blocks_of(const std::vector<int>& ranks, const BlockOf& block_of) {
  std::uint64_t bytes = 0;
  for (int r : ranks) bytes += block_of(r);
  return bytes;
}

}  // namespace

CallCounts direct_counts(const Topology& t, const BlockOf& block_of, int me,
                         const std::vector<int>& node_of) {
  Tally tally{{}, node(node_of, me), node_of};
  for (int to : t.destinations) tally.sent(block_of(me), to);
  for (int from : t.sources) tally.received(block_of(from), from);
  return tally.c;
}

CallCounts direct_counts(const Topology& t, std::uint64_t block, int me,
                         const std::vector<int>& node_of) {
  return direct_counts(
      t, [block](int) { return block; }, me, node_of);
}

CallCounts plan_counts(const Plan& plan, int me, const std::string& collective,
                       const BlockOf& block_of, const std::vector<int>& node_of) {
  if (!plan.combines_anywhere) return direct_counts(plan.topology, block_of, me, node_of);
  const bool allgather = collective == "allgather";
  const Topology& t = plan.topology;
  Tally tally{{}, node(node_of, me), node_of};
  for (const GroupRole& role : plan.roles) {
    // Request::start: to each friend the blocks it forwards for me
    // (allgather: my one block); Request::wait: from each, its blocks for the
    // neighbours assigned to me.
    for (std::size_t i = 0; i < role.members.size(); ++i) {
      const int friend_rank = role.members[i];
      if (friend_rank == me) continue;
      tally.sent((allgather ? 1 : role.my_blocks_for[i].size()) * block_of(me), friend_rank);
      tally.received((allgather ? 1 : role.own_positions.size()) * block_of(friend_rank),
                     friend_rank);
    }
    // One combined message per common neighbour assigned to me, every
    // member's block in it.
    for (int pos : role.own_positions)
      tally.sent(blocks_of(role.members, block_of), t.destinations[static_cast<std::size_t>(pos)]);
    tally.c.hops = 2;
  }
  for (int j : plan.direct_destinations)
    tally.sent(block_of(me), t.destinations[static_cast<std::size_t>(j)]);
  for (int j : plan.direct_sources) {
    const int from = t.sources[static_cast<std::size_t>(j)];
    tally.received(block_of(from), from);
  }
  for (const CombinedIncoming& in : plan.combined_in) {
    std::uint64_t bytes = 0;
    for (int pos : in.positions) bytes += block_of(t.sources[static_cast<std::size_t>(pos)]);
    tally.received(bytes, in.via);
    tally.c.hops = 2;
  }
  return tally.c;
}

CallCounts plan_counts(const Plan& plan, int me, const std::string& collective, std::uint64_t block,
                       const std::vector<int>& node_of) {
  return plan_counts(
      plan, me, collective, [block](int) { return block; }, node_of);
}

}  // namespace gc::nbr
