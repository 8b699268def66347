// The plan of collaborative neighborhood collectives (Ghazimirsaeed,
// Mirsadeghi, Afsahi, "Collaborative communication for MPI neighborhood
// collectives"), built in steps; each step runs the paper's three algorithms
// on the edges not yet combined (the *active* sets):
//
// 1. Common neighbourhood: every rank sends its active incoming list to each
//    active incoming neighbour, so each rank learns, for every other rank q,
//    which of its own active outgoing neighbours q also sends to.
// 2. Friendship: every combination of k-1 candidate friends whose common
//    outgoing neighbours (the bitwise AND of their rows) number at least
//    theta is a hyperedge; its weight is the messages it saves,
//    (k - 1) * (m - k) for m common neighbours.
// 3. Matching: a distributed maximal weighted matching on that hypergraph,
//    Hoepman's algorithm extended to hyperedges: each rank requests its
//    heaviest available hyperedge (ties broken by the members' ranks, one
//    order for everybody); a hyperedge whose members all request it is
//    matched; a rank drops a hyperedge when a member is taken, has nothing
//    left to request, or requests one that comes after it in the order (the
//    member cannot have it any more). Each round the first request in the
//    order either matches or is dropped, so the rounds end. As in the
//    paper's Algorithm 3, a rank's requests go to the members of its
//    hyperedges only (and theirs to it), not to every candidate.
//
// A matched group splits its common neighbours evenly by rank order; every
// rank tells each active outgoing neighbour whether (and through whom) its
// block will arrive combined, and both sides retire the edge. The steps stop
// when one forms no group. Duplicate edges and self-loops stay direct.
#include "nbr/plan.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "core/dup.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/neighborhood.hpp"
#include "core/wait.hpp"

namespace gc::nbr {

namespace {

constexpr int kTagLists = 1, kTagNotify = 2, kTagRequest = 3;
constexpr size_t kMaxCandidates = 16;  // the best ones enumerate hyperedges
constexpr int kMaxGroup = 4;
constexpr int kMaxSteps = 8;  // collectives.cpp gives each step its tags

struct Hyperedge {
  std::vector<int> members;  // sorted, this rank included
  std::int64_t weight = 0;
};

// The one order of hyperedges every rank uses: heavier first, then by members.
bool before(const Hyperedge& a, const Hyperedge& b) {
  if (a.weight != b.weight) return a.weight > b.weight;
  return a.members < b.members;
}

using Row = std::vector<std::uint64_t>;  // a bitset over this rank's active outgoing list

std::uint64_t popcount(const Row& r) {
  std::uint64_t n = 0;
  for (std::uint64_t w : r) n += static_cast<std::uint64_t>(std::popcount(w));
  return n;
}

// Distinct neighbours (self excluded) with the position of their first copy.
std::map<int, int> first_positions(const std::vector<int>& list, int me) {
  std::map<int, int> out;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] != me) out.emplace(list[i], static_cast<int>(i));
  return out;
}

bool has_repeats(std::vector<int> list) {
  std::sort(list.begin(), list.end());
  return std::adjacent_find(list.begin(), list.end()) != list.end();
}

// Each rank sends `send[d]` to rank `to[d]` and receives one list from each
// of `from` (any length): a sparse exchange on a private communicator.
std::vector<std::vector<int>> exchange_lists(MPI_Comm comm, int tag, const std::vector<int>& to,
                                             const std::vector<std::vector<int>>& send,
                                             const std::vector<int>& from) {
  Requests requests(to.size());
  for (size_t d = 0; d < to.size(); ++d)
    MPI_Isend(send[d].data(), static_cast<int>(send[d].size()), MPI_INT, to[d], tag, comm,
              requests.next());
  std::vector<std::vector<int>> received(from.size());
  for (size_t s = 0; s < from.size(); ++s) {
    MPI_Status status;
    MPI_Probe(from[s], tag, comm, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    received[s].resize(static_cast<size_t>(count));
    MPI_Recv(received[s].data(), count, MPI_INT, from[s], tag, comm, MPI_STATUS_IGNORE);
  }
  requests.wait();
  return received;
}

// One step's hypergraph matching. Returns the matched hyperedge, or an empty
// one. A rank's choices depend only on the records of the members of its own
// hyperedges. So the first round goes to every candidate and says who is
// such a member; later rounds go only between partners (a rank and the
// members of its hyperedges, both ways). A rank that has sent its last
// record (matched, or nothing left) leaves; its partners hear of it in that
// round and stop exchanging with it. The groups are those of rounds over
// every candidate until no rank chooses, without a global step per round.
Hyperedge match_hyperedges(MPI_Comm comm, const std::vector<int>& candidates,
                           std::vector<Hyperedge> edges, PlanFigures& figures) {
  // A record: status, whether the receiver is a member of the sender's
  // hyperedges (first round), weight, then the members padded with -1.
  enum Status : int { kChoosing = 0, kMatched = 1, kNone = 2 };
  constexpr int kRecord = 3 + kMaxGroup;
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<int> members;  // of my hyperedges, me excluded
  for (const Hyperedge& h : edges)
    for (int m : h.members)
      if (m != me) members.push_back(m);
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  auto member = [&](int q) { return std::binary_search(members.begin(), members.end(), q); };

  std::sort(edges.begin(), edges.end(), before);
  std::vector<int> gone;  // partners matched elsewhere or with nothing to request
  Hyperedge matched;
  std::vector<int> partners = candidates;  // sorted
  for (bool first = true; !partners.empty(); first = false) {
    // Drop what includes a rank that is gone.
    std::erase_if(edges, [&](const Hyperedge& h) {
      return std::any_of(h.members.begin(), h.members.end(),
                         [&](int m) { return std::binary_search(gone.begin(), gone.end(), m); });
    });
    const int status = !matched.members.empty() ? kMatched : edges.empty() ? kNone : kChoosing;
    const size_t c = partners.size();
    std::vector<int> out(c * kRecord, -1), in(c * kRecord);
    for (size_t q = 0; q < c; ++q) {
      int* r = out.data() + q * kRecord;
      r[0] = status;
      r[1] = member(partners[q]);
      if (status == kChoosing) {
        r[2] = static_cast<int>(edges.front().weight);
        std::copy(edges.front().members.begin(), edges.front().members.end(), r + 3);
      }
    }
    {
      Requests requests(2 * c);
      for (size_t q = 0; q < c; ++q)
        MPI_Irecv(in.data() + q * kRecord, kRecord, MPI_INT, partners[q], kTagRequest, comm,
                  requests.next());
      for (size_t q = 0; q < c; ++q)
        MPI_Isend(out.data() + q * kRecord, kRecord, MPI_INT, partners[q], kTagRequest, comm,
                  requests.next());
      requests.wait();
    }
    ++figures.rounds;
    figures.matching_messages += c;
    std::map<int, Hyperedge> request;  // what each choosing partner asks for
    std::vector<int> staying;
    for (size_t q = 0; q < c; ++q) {
      const int* r = in.data() + q * kRecord;
      if (r[0] != kChoosing) {
        gone.insert(std::upper_bound(gone.begin(), gone.end(), partners[q]), partners[q]);
        continue;
      }
      if (!first || r[1] != 0 || member(partners[q])) staying.push_back(partners[q]);
      Hyperedge h;
      h.weight = r[2];
      for (int m = 0; m < kMaxGroup && r[3 + m] >= 0; ++m) h.members.push_back(r[3 + m]);
      request[partners[q]] = std::move(h);
    }
    partners = std::move(staying);
    if (status != kChoosing) break;  // my partners now know: I leave
    const Hyperedge& mine = edges.front();
    bool mutual = true, dead = false;
    for (int m : mine.members) {
      if (m == me) continue;
      auto it = request.find(m);
      if (it == request.end()) {
        dead = true;  // gone
        break;
      }
      if (it->second.members != mine.members) {
        mutual = false;
        if (before(mine, it->second)) dead = true;  // m cannot have it any more
      }
    }
    if (mutual && !dead)
      matched = mine;
    else if (dead)
      edges.erase(edges.begin());
  }
  return matched;
}

}  // namespace

std::vector<int> node_of_every_rank(MPI_Comm comm, int ranks_per_node) {
  int p = 0, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  std::vector<int> node(static_cast<size_t>(p));
  if (ranks_per_node > 0) {
    for (int r = 0; r < p; ++r) node[static_cast<size_t>(r)] = r / ranks_per_node;
    return node;
  }
  MPI_Comm shared_handle = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared_handle);
  const Comm shared = Comm::adopt(shared_handle);
  int leader = me;  // the lowest rank of the node names it
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared.get());
  MPI_Allgather(&leader, 1, MPI_INT, node.data(), 1, MPI_INT, comm);
  return node;
}

Mode parse_mode(const std::string& name) {
  if (name == "agnostic") return Mode::agnostic;
  if (name == "aware") return Mode::aware;
  fail_everywhere(fmt::format("unknown mode '{}' (agnostic or aware)", name));
}

Topology topology_of(MPI_Comm comm) {
  if (!is_dist_graph(comm))
    fail_everywhere("collaborative neighborhood collectives need a distributed-graph communicator");
  Topology t;
  dist_graph_neighbors(comm, t.sources, t.destinations);
  return t;
}

Plan build_plan(MPI_Comm user_comm, const PlanOptions& options) {
  const double start = MPI_Wtime();
  Plan plan;
  plan.topology = topology_of(user_comm);
  const int k_min = options.k == 0 ? 2 : options.k;
  const int k_max = options.k == 0 ? kMaxGroup : options.k;
  if (k_min < 2 || k_max > kMaxGroup)
    fail_everywhere(
        fmt::format("group size k = {}: must be 2 to {} (or auto)", options.k, kMaxGroup));
  if (options.max_steps < 1 || options.max_steps > kMaxSteps)
    fail_everywhere(fmt::format("max_steps = {}: must be 1 to {}", options.max_steps, kMaxSteps));
  const int theta = options.theta > 0 ? options.theta : k_min + 1;
  const Comm owned = Comm::adopt(duplicate(user_comm));
  const MPI_Comm comm = owned.get();
  int repeats = has_repeats(plan.topology.sources) || has_repeats(plan.topology.destinations);
  MPI_Allreduce(MPI_IN_PLACE, &repeats, 1, MPI_INT, MPI_MAX, comm);
  plan.repeats_anywhere = repeats != 0;
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const std::vector<int> node = options.mode == Mode::aware
                                    ? node_of_every_rank(comm, options.ranks_per_node)
                                    : std::vector<int>{};
  const Topology& t = plan.topology;
  std::map<int, int> out_active = first_positions(t.destinations, me);  // rank -> position
  std::map<int, int> in_active = first_positions(t.sources, me);
  std::vector<char> out_combined(t.destinations.size(), 0), in_combined(t.sources.size(), 0);
  std::map<std::pair<int, int>, std::vector<int>> incoming;  // (step, via) -> positions

  for (int step = 0; step < options.max_steps; ++step) {
    // 1. Common neighbourhood: my active incoming list to each active source.
    std::vector<int> in_ranks, out_ranks;
    for (const auto& [r, pos] : in_active) in_ranks.push_back(r);
    for (const auto& [r, pos] : out_active) out_ranks.push_back(r);
    const std::vector<std::vector<int>> lists =
        exchange_lists(comm, kTagLists, in_ranks,
                       std::vector<std::vector<int>>(in_ranks.size(), in_ranks), out_ranks);
    const size_t d = out_ranks.size(), words = (d + 63) / 64;
    std::map<int, Row> common;  // q -> my active outgoing neighbours q also sends to
    for (size_t o = 0; o < d; ++o)
      for (int q : lists[o]) {
        if (q == me) continue;
        if (!node.empty() && node[static_cast<size_t>(q)] != node[static_cast<size_t>(me)])
          continue;
        Row& row = common[q];
        if (row.empty()) row.assign(words, 0);
        row[o / 64] |= std::uint64_t{1} << (o % 64);
      }
    // 2. Friendship: candidates share at least theta; hyperedges of the best.
    std::vector<std::pair<std::uint64_t, int>> ranked;
    for (const auto& [q, row] : common)
      if (popcount(row) >= static_cast<std::uint64_t>(theta)) ranked.emplace_back(popcount(row), q);
    std::vector<int> candidates;
    for (const auto& [n, q] : ranked) candidates.push_back(q);  // sorted by rank
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (ranked.size() > kMaxCandidates) ranked.resize(kMaxCandidates);
    std::vector<Hyperedge> edges;
    std::vector<int> pick;
    // Every combination of size-1 of the best candidates, by recursion.
    auto extend = [&](auto&& self, size_t from, const Row& row, int size) -> void {
      if (static_cast<int>(pick.size()) == size - 1) {
        const auto m = static_cast<std::int64_t>(popcount(row));
        const std::int64_t weight = (size - 1) * (m - size);
        if (m < theta || weight <= 0) return;
        Hyperedge h{pick, weight};
        h.members.push_back(me);
        std::sort(h.members.begin(), h.members.end());
        edges.push_back(std::move(h));
        return;
      }
      for (size_t i = from; i < ranked.size(); ++i) {
        Row next = row;
        const Row& other = common[ranked[i].second];
        for (size_t w = 0; w < words; ++w) next[w] &= other[w];
        if (popcount(next) < static_cast<std::uint64_t>(theta)) continue;
        pick.push_back(ranked[i].second);
        self(self, i + 1, next, size);
        pick.pop_back();
      }
    };
    for (int size = k_min; size <= k_max; ++size)
      extend(extend, 0, Row(words, ~std::uint64_t{0}), size);
    plan.figures.hyperedges += edges.size();
    auto& considered = plan.considered.emplace_back();
    for (const Hyperedge& h : edges) considered.push_back(h.members);

    // 3. Matching.
    const Hyperedge group = match_hyperedges(comm, candidates, std::move(edges), plan.figures);
    int formed = !group.members.empty(), any_formed = 0;
    MPI_Allreduce(&formed, &any_formed, 1, MPI_INT, MPI_MAX, comm);
    if (any_formed) plan.combines_anywhere = true;

    // The common neighbours, split evenly among the members by rank order.
    std::map<int, int> via_of;  // my active outgoing neighbour -> who forwards to it
    if (formed) {
      Row row(words, ~std::uint64_t{0});
      for (int q : group.members)
        if (q != me)
          for (size_t w = 0; w < words; ++w) row[w] &= common[q][w];
      std::vector<int> shared;
      for (size_t o = 0; o < d; ++o)
        if (row[o / 64] >> (o % 64) & 1) shared.push_back(out_ranks[o]);
      GroupRole role;
      role.step = step;
      role.members = group.members;
      const size_t n = group.members.size(), m = shared.size();
      for (size_t i = 0; i < n; ++i) {
        std::vector<int> part(shared.begin() + static_cast<std::ptrdiff_t>(i * m / n),
                              shared.begin() + static_cast<std::ptrdiff_t>((i + 1) * m / n));
        std::vector<int> positions;
        for (int o : part) {
          positions.push_back(out_active.at(o));
          via_of[o] = group.members[i];
        }
        if (group.members[i] == me) role.own_positions = positions;
        role.my_blocks_for.push_back(std::move(positions));
        role.assigned.push_back(std::move(part));
      }
      plan.roles.push_back(std::move(role));
      ++plan.figures.groups;
    }
    // Tell every active outgoing neighbour how my block reaches it.
    std::vector<std::vector<int>> notes;
    for (int o : out_ranks) {
      auto it = via_of.find(o);
      notes.push_back({it == via_of.end() ? -1 : it->second});
    }
    const std::vector<std::vector<int>> heard =
        exchange_lists(comm, kTagNotify, out_ranks, notes, in_ranks);
    for (size_t s = 0; s < in_ranks.size(); ++s) {
      const int via = heard[s].at(0);
      if (via < 0) continue;
      const int pos = in_active.at(in_ranks[s]);
      incoming[{step, via}].push_back(pos);
      in_combined[static_cast<size_t>(pos)] = 1;
      in_active.erase(in_ranks[s]);
    }
    for (const auto& [o, via] : via_of) {
      out_combined[static_cast<size_t>(out_active.at(o))] = 1;
      out_active.erase(o);
    }
    if (!any_formed) break;
    plan.figures.steps = step + 1;
  }

  for (size_t j = 0; j < t.destinations.size(); ++j)
    if (!out_combined[j]) plan.direct_destinations.push_back(static_cast<int>(j));
  for (size_t i = 0; i < t.sources.size(); ++i)
    if (!in_combined[i]) plan.direct_sources.push_back(static_cast<int>(i));
  for (auto& [key, positions] : incoming) {
    // A combined message holds its blocks in the order of their senders' ranks.
    std::sort(positions.begin(), positions.end(), [&](int a, int b) {
      return t.sources[static_cast<size_t>(a)] < t.sources[static_cast<size_t>(b)];
    });
    plan.combined_in.push_back({key.first, key.second, positions});
  }
  plan.figures.default_messages = t.destinations.size();
  plan.figures.messages = plan.direct_destinations.size();
  for (const GroupRole& r : plan.roles)
    plan.figures.messages += r.members.size() - 1 + r.own_positions.size();
  plan.figures.build_seconds = MPI_Wtime() - start;
  return plan;
}

}  // namespace gc::nbr
