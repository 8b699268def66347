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
//
// The matching's rounds: a rank's choices depend only on the records of the
// members of its own hyperedges. So the first round goes to every candidate
// and says who is such a member; later rounds go only between partners (a
// rank and the members of its hyperedges, both ways). A rank that has sent
// its last record (matched, or nothing left) leaves; its partners hear of it
// in that round and stop exchanging with it. The groups are those of rounds
// over every candidate until no rank chooses, without a global step per
// round. Partnership is symmetric, so a rank's round i meets its partners'
// round i: a driver may run every rank in lockstep.
#include "nbr/plan_builder.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gc::nbr::detail {

namespace {

constexpr size_t kMaxCandidates = 16;  // the best ones enumerate hyperedges

enum Status : int { kChoosing = 0, kMatched = 1, kNone = 2 };

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

}  // namespace

void check_options(const PlanOptions& options) {
  const int k_min = options.k == 0 ? 2 : options.k, k_max = options.k == 0 ? kMaxGroup : options.k;
  if (k_min < 2 || k_max > kMaxGroup)
    fail_everywhere(
        fmt::format("group size k = {}: must be 2 to {} (or auto)", options.k, kMaxGroup));
  if (options.max_steps < 1 || options.max_steps > kMaxSteps)
    fail_everywhere(fmt::format("max_steps = {}: must be 1 to {}", options.max_steps, kMaxSteps));
}

PlanBuilder::PlanBuilder(int me, Topology topology, const PlanOptions& options,
                         std::vector<int> node, bool keep_considered)
    : me_(me),
      k_min_(options.k == 0 ? 2 : options.k),
      k_max_(options.k == 0 ? kMaxGroup : options.k),
      theta_(options.theta > 0 ? options.theta : k_min_ + 1),
      node_(std::move(node)),
      keep_considered_(keep_considered) {
  plan_.topology = std::move(topology);
  const Topology& t = plan_.topology;
  out_active_ = first_positions(t.destinations, me_);
  in_active_ = first_positions(t.sources, me_);
  out_combined_.assign(t.destinations.size(), 0);
  in_combined_.assign(t.sources.size(), 0);
}

void PlanBuilder::begin_step(int step) {
  step_ = step;
  in_ranks_.clear();
  out_ranks_.clear();
  for (const auto& [r, pos] : in_active_) in_ranks_.push_back(r);
  for (const auto& [r, pos] : out_active_) out_ranks_.push_back(r);
}

void PlanBuilder::take_lists(const std::vector<std::vector<int>>& lists) {
  const size_t d = out_ranks_.size();
  words_ = (d + 63) / 64;
  common_.clear();
  for (size_t o = 0; o < d; ++o)
    for (int q : lists[o]) {
      if (q == me_) continue;
      if (!node_.empty() && node_[static_cast<size_t>(q)] != node_[static_cast<size_t>(me_)])
        continue;
      Row& row = common_[q];
      if (row.empty()) row.assign(words_, 0);
      row[o / 64] |= std::uint64_t{1} << (o % 64);
    }
  // 2. Friendship: candidates share at least theta; hyperedges of the best.
  std::vector<std::pair<std::uint64_t, int>> ranked;
  for (const auto& [q, row] : common_)
    if (popcount(row) >= static_cast<std::uint64_t>(theta_)) ranked.emplace_back(popcount(row), q);
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
      if (m < theta_ || weight <= 0) return;
      Hyperedge h{pick, weight};
      h.members.push_back(me_);
      std::sort(h.members.begin(), h.members.end());
      edges.push_back(std::move(h));
      return;
    }
    for (size_t i = from; i < ranked.size(); ++i) {
      Row next = row;
      const Row& other = common_[ranked[i].second];
      for (size_t w = 0; w < words_; ++w) next[w] &= other[w];
      if (popcount(next) < static_cast<std::uint64_t>(theta_)) continue;
      pick.push_back(ranked[i].second);
      self(self, i + 1, next, size);
      pick.pop_back();
    }
  };
  for (int size = k_min_; size <= k_max_; ++size)
    extend(extend, 0, Row(words_, ~std::uint64_t{0}), size);
  plan_.figures.hyperedges += edges.size();
  if (keep_considered_) {
    auto& considered = plan_.considered.emplace_back();
    for (const Hyperedge& h : edges) considered.push_back(h.members);
  }

  // 3. Matching: its state.
  members_.clear();
  for (const Hyperedge& h : edges)
    for (int m : h.members)
      if (m != me_) members_.push_back(m);
  std::sort(members_.begin(), members_.end());
  members_.erase(std::unique(members_.begin(), members_.end()), members_.end());
  std::sort(edges.begin(), edges.end(), before);
  edges_ = std::move(edges);
  gone_.clear();
  matched_ = Hyperedge{};
  partners_ = std::move(candidates);
  first_ = true;
  left_ = false;
}

std::vector<int> PlanBuilder::records() {
  // Drop what includes a rank that is gone.
  std::erase_if(edges_, [&](const Hyperedge& h) {
    return std::any_of(h.members.begin(), h.members.end(),
                       [&](int m) { return std::binary_search(gone_.begin(), gone_.end(), m); });
  });
  status_ = !matched_.members.empty() ? kMatched : edges_.empty() ? kNone : kChoosing;
  const size_t c = partners_.size();
  std::vector<int> out(c * kRecord, -1);
  for (size_t q = 0; q < c; ++q) {
    int* r = out.data() + q * kRecord;
    r[0] = status_;
    r[1] = std::binary_search(members_.begin(), members_.end(), partners_[q]);
    if (status_ == kChoosing) {
      r[2] = static_cast<int>(edges_.front().weight);
      std::copy(edges_.front().members.begin(), edges_.front().members.end(), r + 3);
    }
  }
  return out;
}

void PlanBuilder::take_records(const std::vector<int>& in) {
  const size_t c = partners_.size();
  ++plan_.figures.rounds;
  plan_.figures.matching_messages += c;
  auto member = [&](int q) { return std::binary_search(members_.begin(), members_.end(), q); };
  std::map<int, Hyperedge> request;  // what each choosing partner asks for
  std::vector<int> staying;
  for (size_t q = 0; q < c; ++q) {
    const int* r = in.data() + q * kRecord;
    if (r[0] != kChoosing) {
      gone_.insert(std::upper_bound(gone_.begin(), gone_.end(), partners_[q]), partners_[q]);
      continue;
    }
    if (!first_ || r[1] != 0 || member(partners_[q])) staying.push_back(partners_[q]);
    Hyperedge h;
    h.weight = r[2];
    for (int m = 0; m < kMaxGroup && r[3 + m] >= 0; ++m) h.members.push_back(r[3 + m]);
    request[partners_[q]] = std::move(h);
  }
  partners_ = std::move(staying);
  first_ = false;
  if (status_ != kChoosing) {  // my partners now know: I leave
    left_ = true;
    return;
  }
  const Hyperedge& mine = edges_.front();
  bool mutual = true, dead = false;
  for (int m : mine.members) {
    if (m == me_) continue;
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
    matched_ = mine;
  else if (dead)
    edges_.erase(edges_.begin());
}

std::vector<std::vector<int>> PlanBuilder::notes(bool any_formed) {
  any_formed_ = any_formed;
  if (any_formed) plan_.combines_anywhere = true;
  // The common neighbours, split evenly among the members by rank order.
  via_of_.clear();
  if (formed()) {
    const size_t d = out_ranks_.size();
    Row row(words_, ~std::uint64_t{0});
    for (int q : matched_.members)
      if (q != me_)
        for (size_t w = 0; w < words_; ++w) row[w] &= common_[q][w];
    std::vector<int> shared;
    for (size_t o = 0; o < d; ++o)
      if (row[o / 64] >> (o % 64) & 1) shared.push_back(out_ranks_[o]);
    GroupRole role;
    role.step = step_;
    role.members = matched_.members;
    const size_t n = matched_.members.size(), m = shared.size();
    for (size_t i = 0; i < n; ++i) {
      std::vector<int> part(shared.begin() + static_cast<std::ptrdiff_t>(i * m / n),
                            shared.begin() + static_cast<std::ptrdiff_t>((i + 1) * m / n));
      std::vector<int> positions;
      for (int o : part) {
        positions.push_back(out_active_.at(o));
        via_of_[o] = matched_.members[i];
      }
      if (matched_.members[i] == me_) role.own_positions = positions;
      role.my_blocks_for.push_back(std::move(positions));
      role.assigned.push_back(std::move(part));
    }
    plan_.roles.push_back(std::move(role));
    ++plan_.figures.groups;
  }
  // Tell every active outgoing neighbour how my block reaches it.
  std::vector<std::vector<int>> out;
  for (int o : out_ranks_) {
    auto it = via_of_.find(o);
    out.push_back({it == via_of_.end() ? -1 : it->second});
  }
  return out;
}

bool PlanBuilder::take_notes(const std::vector<std::vector<int>>& heard) {
  for (size_t s = 0; s < in_ranks_.size(); ++s) {
    const int via = heard[s].at(0);
    if (via < 0) continue;
    const int pos = in_active_.at(in_ranks_[s]);
    incoming_[{step_, via}].push_back(pos);
    in_combined_[static_cast<size_t>(pos)] = 1;
    in_active_.erase(in_ranks_[s]);
  }
  for (const auto& [o, via] : via_of_) {
    out_combined_[static_cast<size_t>(out_active_.at(o))] = 1;
    out_active_.erase(o);
  }
  if (!any_formed_) return false;
  plan_.figures.steps = step_ + 1;
  return true;
}

Plan PlanBuilder::finish() {
  const Topology& t = plan_.topology;
  for (size_t j = 0; j < t.destinations.size(); ++j)
    if (!out_combined_[j]) plan_.direct_destinations.push_back(static_cast<int>(j));
  for (size_t i = 0; i < t.sources.size(); ++i)
    if (!in_combined_[i]) plan_.direct_sources.push_back(static_cast<int>(i));
  for (auto& [key, positions] : incoming_) {
    // A combined message holds its blocks in the order of their senders' ranks.
    std::sort(positions.begin(), positions.end(), [&](int a, int b) {
      return t.sources[static_cast<size_t>(a)] < t.sources[static_cast<size_t>(b)];
    });
    plan_.combined_in.push_back({key.first, key.second, positions});
  }
  plan_.figures.default_messages = t.destinations.size();
  plan_.figures.messages = plan_.direct_destinations.size();
  for (const GroupRole& r : plan_.roles)
    plan_.figures.messages += r.members.size() - 1 + r.own_positions.size();
  return std::move(plan_);
}

}  // namespace gc::nbr::detail
