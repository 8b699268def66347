#include "graph/dist_graph.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/page_advice.hpp"
#include "graph/ghost_index.hpp"

namespace gc {

namespace {

// Sorts `keys` (each below `bound`) and drops repeats: an LSD radix sort by
// 11-bit digits, as many as `bound` needs. (std::sort took a second on the
// 12M cut-edge targets a rank reads of rmat:20 at 2 ranks.)
void sort_distinct(std::vector<vid_t>& keys, vid_t bound) {
  constexpr int kBits = 11;
  constexpr vid_t kMask = (vid_t{1} << kBits) - 1;
  const int bits = std::bit_width(bound);
  std::vector<vid_t> scratch(keys.size());
  std::vector<std::size_t> count(kMask + 2);
  for (int shift = 0; shift < bits; shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    for (vid_t k : keys) ++count[((k >> shift) & kMask) + 1];
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (vid_t k : keys) scratch[count[(k >> shift) & kMask]++] = k;
    keys.swap(scratch);
  }
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  keys.shrink_to_fit();
}

}  // namespace

void check_local_ids(const Comm& comm, std::uint64_t local_vertices, std::uint64_t limit) {
  collectively(comm.get(), [&] {
    if (local_vertices > limit)
      fail(fmt::format(
          "rank {} would hold {} local vertices (owned and ghosts), more than the {} that "
          "{}-bit local ids number: run on more ranks, or build with "
          "-DGRAPHCOMM_LOCAL_ID_BITS=64",
          comm.rank(), local_vertices, limit, 8 * sizeof(lid_t)));
  });
}

int GhostRelation::index_of(int rank) const {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
  return (it != ranks.end() && *it == rank) ? static_cast<int>(it - ranks.begin()) : -1;
}

DistGraph::DistGraph(const Comm& comm, Distribution dist, std::vector<eid_t> offsets,
                     std::vector<vid_t> global_targets, std::vector<weight_t> weights)
    : dist_(std::move(dist)),
      rank_(comm.rank()),
      offsets_(std::move(offsets)),
      weights_(std::move(weights)) {
  const vid_t begin = first_owned();
  const lid_t owned = owned_count();
  if (offsets_.size() != owned + 1 || global_targets.size() != offsets_.back() ||
      weights_.size() != global_targets.size())
    fail("internal: inconsistent CSR handed to DistGraph");
  sort_rows(global_targets);

  // Ghosts: the distinct targets not owned here, sorted (so grouped by owner).
  for (vid_t v : global_targets)
    if (v - begin >= owned) ghosts_.push_back(v);
  sort_distinct(ghosts_, dist_.global_count());
  check_local_ids(comm, dist_.count(rank_) + ghosts_.size());
  const SortedIdIndex ghost_at(ghosts_.data(), ghosts_.size(), 0, dist_.global_count());

  targets_.resize(global_targets.size());
  for (size_t i = 0; i < global_targets.size(); ++i) {
    const vid_t v = global_targets[i];
    targets_[i] = v - begin < owned ? v - begin : owned + static_cast<lid_t>(ghost_at.find(v));
  }
  release(global_targets);
  finish(comm);
}

DistGraph DistGraph::from_local_csr(const Comm& comm, Distribution dist, std::vector<eid_t> offsets,
                                    std::vector<lid_t> targets, bool weighted,
                                    std::vector<weight_t> weights, std::vector<vid_t> ghosts) {
  DistGraph g;
  g.dist_ = std::move(dist);
  g.rank_ = comm.rank();
  g.offsets_ = std::move(offsets);
  g.targets_ = std::move(targets);
  g.weighted_ = weighted;
  g.weights_ = std::move(weights);
  g.ghosts_ = std::move(ghosts);
  const lid_t owned = g.owned_count();
  const lid_t local = owned + g.ghosts_.size();
  bool ok = g.offsets_.size() == owned + 1 && g.offsets_.front() == 0 &&
            g.offsets_.back() == g.targets_.size() &&
            g.weights_.size() == (weighted ? g.targets_.size() : 0) &&
            std::is_sorted(g.offsets_.begin(), g.offsets_.end()) &&
            std::adjacent_find(g.ghosts_.begin(), g.ghosts_.end(), std::greater_equal<>()) ==
                g.ghosts_.end();
  for (vid_t v : g.ghosts_) ok = ok && !g.is_owned(v) && v < g.global_vertex_count();
  for (lid_t t : g.targets_) ok = ok && t < local;
  if (!ok) fail("internal: inconsistent local CSR handed to DistGraph");
  g.finish(comm);
  return g;
}

void DistGraph::finish(const Comm& comm) {
  const lid_t owned = owned_count();
  ghost_owner_.resize(ghosts_.size());
  for (size_t g = 0; g < ghosts_.size(); ++g) {
    const int r = dist_.owner_of(ghosts_[g]);
    ghost_owner_[g] = r;
    if (relation_.ranks.empty() || relation_.ranks.back() != r) {
      relation_.ranks.push_back(r);
      relation_.ghost_begin.push_back(owned + g);
      relation_.ghost_end.push_back(owned + g);
      relation_.cut_edges.push_back(0);
    }
    relation_.ghost_end.back() = owned + g + 1;
  }
  eid_t self_loops = 0;
  for (lid_t l = 0; l < owned; ++l)
    for (lid_t t : neighbors(l)) {
      if (t == l) ++self_loops;
      if (t >= owned)
        ++relation_.cut_edges[static_cast<size_t>(relation_.index_of(ghost_owner(t)))];
    }
  if (self_loops) fail("internal: self-loop reached DistGraph");

  global_edges_ = sum_over_ranks<std::uint64_t>(comm, local_edge_count()) / 2;
}

void DistGraph::sort_rows(std::vector<vid_t>& global_targets) {
  std::vector<std::pair<vid_t, weight_t>> row;
  for (lid_t l = 0; l < owned_count(); ++l) {
    const auto b = static_cast<std::ptrdiff_t>(offsets_[l]);
    const auto e = static_cast<std::ptrdiff_t>(offsets_[l + 1]);
    if (std::is_sorted(global_targets.begin() + b, global_targets.begin() + e)) continue;
    row.clear();
    for (auto i = b; i < e; ++i) row.emplace_back(global_targets[i], weights_[i]);
    std::sort(row.begin(), row.end());
    for (auto i = b; i < e; ++i) std::tie(global_targets[i], weights_[i]) = row[i - b];
  }
}

void DistGraph::round_weights_to_float() {
  if (!weighted_ || float_) return;
  float_weights_.reserve(weights_.size());
  for (weight_t w : weights_) float_weights_.push_back(static_cast<float>(w));
  release(weights_);
  float_ = true;
}

void DistGraph::require_weights(const char* kernel) const {
  if (!weighted_)
    fail(fmt::format("internal: {} needs the edges' weights, loaded without", kernel));
}

void DistGraph::set_input_ids(std::vector<vid_t> ids) {
  if (ids.size() != owned_count() + ghost_count())
    fail("internal: input ids must cover every owned vertex and ghost");
  input_ids_ = std::move(ids);
  relabeled_ = true;
}

std::uint64_t DistGraph::memory_bytes() const {
  auto bytes = [](const auto& v) -> std::uint64_t {
    return v.size() * sizeof(typename std::decay_t<decltype(v)>::value_type);
  };
  return bytes(offsets_) + bytes(targets_) + bytes(weights_) + bytes(float_weights_) +
         bytes(ghosts_) + bytes(ghost_owner_) + bytes(input_ids_) + bytes(relation_.ranks) +
         bytes(relation_.ghost_begin) + bytes(relation_.ghost_end) + bytes(relation_.cut_edges) +
         dist_.offsets().capacity() * sizeof(vid_t);
}

std::uint64_t DistGraph::csr_bytes() const {
  return offsets_.size() * sizeof(eid_t) + targets_.size() * sizeof(lid_t) +
         weights_.size() * sizeof(weight_t) + float_weights_.size() * sizeof(float);
}

lid_t DistGraph::local_id(vid_t v) const {
  if (is_owned(v)) return v - first_owned();
  auto it = std::lower_bound(ghosts_.begin(), ghosts_.end(), v);
  if (it != ghosts_.end() && *it == v)
    return owned_count() + static_cast<lid_t>(it - ghosts_.begin());
  return kNoLocal;
}

}  // namespace gc
