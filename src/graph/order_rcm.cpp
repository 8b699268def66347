// Distributed reverse Cuthill-McKee, after Azad, Jacquelin, Buluc, Ng, "The
// Reverse Cuthill-McKee Algorithm in Distributed-Memory", IPDPS 2017:
// level-synchronous BFS from a pseudo-peripheral vertex; the vertices a level
// discovers are ordered by (position of their first-labeled neighbour,
// degree, id) with a distributed sort; the order is reversed at the end.
//
// Every connected component is ordered, all of them at once:
//  1. components: min-label propagation of (degree, id) tags, so every vertex
//     learns its component's minimum-degree vertex (ties: smallest id), which
//     names the component and ranks it (components come in that order);
//  2. pseudo-peripheral roots (George & Liu, 1979): from that vertex, BFS
//     sweeps; a sweep's last level offers its minimum-degree vertex as the
//     next root while the eccentricity grows (at most kMaxSweeps sweeps);
//     one multi-source BFS serves every component still searching;
//  3. Cuthill-McKee levels from the roots, each level sorted globally by
//     (parent's position, degree, id) -- positions are global within a level
//     and level 0 is sorted by component, so one sort orders every component;
//  4. one global sort by (component, level, position) numbers the vertices;
//     RCM takes them in reverse.
// Nothing is gathered: per rank the work and memory are those of its
// vertices, edges and ghosts. Every choice is a minimum over a well-defined
// set or a position in a global sort of distinct keys, so the order depends
// on the graph only, not on the rank count or the distribution.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "graph/order.hpp"
#include "graph/sort.hpp"

namespace gc {

namespace {

constexpr int kMaxSweeps = 8;
constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

// The order in which components, and vertices of equal rank, are taken.
struct DegreeId {
  std::uint64_t degree = kNone, id = kNone;
  friend auto operator<=>(const DegreeId&, const DegreeId&) = default;
};

template <class V>
struct Addressed {
  vid_t vertex;
  V value;
};

// Sends every record to the owner (under dist) of its vertex.
template <class R, class VertexOf>
std::vector<R> to_owners(const Comm& comm, const Distribution& dist, const std::vector<R>& records,
                         VertexOf vertex_of) {
  const int p = comm.size();
  std::vector<std::uint64_t> counts(static_cast<size_t>(p), 0);
  for (const R& r : records) ++counts[static_cast<size_t>(dist.owner_of(vertex_of(r)))];
  std::vector<std::uint64_t> cursor(static_cast<size_t>(p), 0);
  for (int r = 1; r < p; ++r) cursor[r] = cursor[r - 1] + counts[r - 1];
  std::vector<R> send(records.size());
  for (const R& r : records) send[cursor[static_cast<size_t>(dist.owner_of(vertex_of(r)))]++] = r;
  return alltoallv(comm, send, counts);
}

// Values pushed along edges to local vertices (owned or ghosts), combined by
// minimum on this rank, sent once per ghost to its owner, combined there, and
// delivered once per owned vertex that received any.
template <class V>
class MinPush {
 public:
  MinPush(const Comm& comm, const DistGraph& g)
      : comm_(comm), g_(g), best_(g.owned_count() + g.ghost_count()), has_(best_.size(), 0) {}

  void push(lid_t target, const V& value) {
    if (!has_[target]) {
      has_[target] = 1;
      best_[target] = value;
      touched_.push_back(target);
    } else if (value < best_[target]) {
      best_[target] = value;
    }
  }

  // Collective: fn(owned local id, smallest value) for every owned vertex reached.
  template <class Fn>
  void deliver(Fn&& fn) {
    const lid_t owned = g_.owned_count();
    std::vector<Addressed<V>> out;
    for (lid_t t : touched_)
      if (t >= owned) out.push_back({g_.global_id(t), best_[t]});
    const std::vector<Addressed<V>> in =
        to_owners(comm_, g_.distribution(), out, [](const Addressed<V>& a) { return a.vertex; });
    for (const Addressed<V>& a : in) push(a.vertex - g_.first_owned(), a.value);
    for (lid_t t : touched_) {
      if (t < owned) fn(t, best_[t]);
      has_[t] = 0;
    }
    touched_.clear();
  }

 private:
  const Comm& comm_;
  const DistGraph& g_;
  std::vector<V> best_;
  std::vector<char> has_;
  std::vector<lid_t> touched_;
};

bool any_rank(const Comm& comm, bool local) {
  return max_over_ranks<int>(comm, local ? 1 : 0) == 1;
}

// Step 1: every vertex's component tag, the (degree, id) of its component's
// minimum-degree vertex.
std::vector<DegreeId> component_tags(const Comm& comm, const DistGraph& g) {
  const lid_t owned = g.owned_count();
  std::vector<DegreeId> tag(owned);
  std::vector<lid_t> changed(owned);
  for (lid_t l = 0; l < owned; ++l) {
    tag[l] = {g.degree(l), g.global_id(l)};
    changed[l] = l;
  }
  std::vector<DegreeId> ghost_known(g.ghost_count());  // smallest tag sent to each ghost
  MinPush<DegreeId> pusher(comm, g);
  while (any_rank(comm, !changed.empty())) {
    for (lid_t v : changed)
      for (lid_t t : g.neighbors(v)) {
        if (t < owned) {
          if (tag[v] < tag[t]) pusher.push(t, tag[v]);
        } else if (tag[v] < ghost_known[t - owned]) {
          ghost_known[t - owned] = tag[v];
          pusher.push(t, tag[v]);
        }
      }
    changed.clear();
    pusher.deliver([&](lid_t l, const DegreeId& value) {
      if (value < tag[l]) {
        tag[l] = value;
        changed.push_back(l);
      }
    });
  }
  return tag;
}

// Multi-source BFS from `roots` (owned local ids): level per owned vertex, -1
// where not reached.
std::vector<std::int64_t> bfs_levels(const Comm& comm, const DistGraph& g,
                                     const std::vector<lid_t>& roots) {
  const lid_t owned = g.owned_count();
  std::vector<std::int64_t> level(owned, -1);
  std::vector<char> ghost_sent(g.ghost_count(), 0);
  std::vector<lid_t> frontier = roots;
  for (lid_t r : roots) level[r] = 0;
  MinPush<char> pusher(comm, g);
  for (std::int64_t depth = 0; any_rank(comm, !frontier.empty()); ++depth) {
    for (lid_t v : frontier)
      for (lid_t t : g.neighbors(v)) {
        if (t < owned) {
          if (level[t] < 0) pusher.push(t, 0);
        } else if (!ghost_sent[t - owned]) {
          ghost_sent[t - owned] = 1;
          pusher.push(t, 0);
        }
      }
    frontier.clear();
    pusher.deliver([&](lid_t l, char) {
      if (level[l] < 0) {
        level[l] = depth + 1;
        frontier.push_back(l);
      }
    });
  }
  return level;
}

// What a sweep reports to a component's home rank: its farthest vertices'
// minimum, by (largest level, smallest degree, smallest id).
struct Farthest {
  vid_t component;
  std::int64_t level;
  DegreeId vertex;
  bool better_than(const Farthest& o) const {
    return level != o.level ? level > o.level : vertex < o.vertex;
  }
};

// Step 2: the pseudo-peripheral root of every component, as owned local ids.
std::vector<lid_t> peripheral_roots(const Comm& comm, const DistGraph& g,
                                    const std::vector<DegreeId>& tag) {
  const lid_t owned = g.owned_count();
  const Distribution& dist = g.distribution();
  std::vector<lid_t> roots, final_roots;
  for (lid_t l = 0; l < owned; ++l)
    if (tag[l].id == g.global_id(l)) roots.push_back(l);  // each component's minimum
  struct Home {
    vid_t root;
    std::int64_t eccentricity;
  };
  std::unordered_map<vid_t, Home> home;  // components whose minimum vertex I own
  struct Next {
    vid_t root;
    char last;  // 1: this root is final
  };
  for (int sweep = 0; any_rank(comm, !roots.empty()); ++sweep) {
    const std::vector<std::int64_t> level = bfs_levels(comm, g, roots);
    std::unordered_map<vid_t, Farthest> local;
    for (lid_t l = 0; l < owned; ++l) {
      if (level[l] < 0) continue;
      const Farthest f{tag[l].id, level[l], {g.degree(l), g.global_id(l)}};
      auto [it, fresh] = local.try_emplace(f.component, f);
      if (!fresh && f.better_than(it->second)) it->second = f;
    }
    std::vector<Farthest> reports;
    for (const auto& [c, f] : local) reports.push_back(f);
    std::vector<Next> next;
    std::unordered_map<vid_t, Farthest> best;
    for (const Farthest& f :
         to_owners(comm, dist, reports, [](const Farthest& f) { return f.component; })) {
      auto [it, fresh] = best.try_emplace(f.component, f);
      if (!fresh && f.better_than(it->second)) it->second = f;
    }
    for (const auto& [c, f] : best) {
      auto [it, fresh] = home.try_emplace(c, Home{c, -1});
      Home& h = it->second;
      // Keep going while the eccentricity grows (George & Liu); a single
      // vertex, or the last allowed sweep, ends the search at this root.
      const bool grows = f.level > h.eccentricity && f.level > 0 && sweep + 1 < kMaxSweeps;
      if (grows) {
        h.eccentricity = f.level;
        next.push_back({f.vertex.id, 0});
      } else {
        next.push_back({h.root, 1});
      }
      if (grows) h.root = f.vertex.id;
    }
    roots.clear();
    for (const Next& n : to_owners(comm, dist, next, [](const Next& n) { return n.root; }))
      (n.last ? final_roots : roots).push_back(n.root - g.first_owned());
  }
  std::sort(final_roots.begin(), final_roots.end());
  return final_roots;
}

// A vertex's sort key: (a, b, c, d), then the vertex.
struct LevelKey {
  std::uint64_t a, b, c, d;
  vid_t vertex;
  friend auto operator<=>(const LevelKey&, const LevelKey&) = default;
};

// Sorts `keys` globally and hands every vertex its position to its owner:
// fn(owned local id, position).
template <class Fn>
void positions_to_owners(const Comm& comm, const DistGraph& g, std::vector<LevelKey> keys,
                         Fn&& fn) {
  const SortedSlice slice = sort_globally(comm, keys);
  std::vector<Addressed<std::uint64_t>> positions(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) positions[i] = {keys[i].vertex, slice.first + i};
  for (const auto& p : to_owners(comm, g.distribution(), positions,
                                 [](const Addressed<std::uint64_t>& a) { return a.vertex; }))
    fn(p.vertex - g.first_owned(), p.value);
}

}  // namespace

std::vector<vid_t> rcm_order(const Comm& comm, const DistGraph& g) {
  const lid_t owned = g.owned_count();
  const std::vector<DegreeId> tag = component_tags(comm, g);
  const std::vector<lid_t> roots = peripheral_roots(comm, g, tag);

  // Step 3: Cuthill-McKee levels. Level 0 (the roots) in component order.
  std::vector<std::int64_t> level(owned, -1);
  std::vector<std::uint64_t> position(owned, 0);  // within its level, global
  std::vector<lid_t> frontier;
  std::vector<LevelKey> keys;
  for (lid_t r : roots) keys.push_back({tag[r].degree, tag[r].id, 0, 0, g.global_id(r)});
  auto place = [&](std::int64_t depth) {
    positions_to_owners(comm, g, std::move(keys), [&](lid_t l, std::uint64_t pos) {
      level[l] = depth;
      position[l] = pos;
      frontier.push_back(l);
    });
    keys.clear();
  };
  place(0);
  std::vector<std::int64_t> ghost_pushed(g.ghost_count(), -1);  // the level that pushed it
  MinPush<std::uint64_t> pusher(comm, g);
  for (std::int64_t depth = 0; any_rank(comm, !frontier.empty()); ++depth) {
    // A vertex of the next level takes its first-labeled neighbour's position:
    // the smallest position among its neighbours in this level.
    for (lid_t v : frontier)
      for (lid_t t : g.neighbors(v)) {
        if (t < owned) {
          if (level[t] < 0) pusher.push(t, position[v]);
        } else if (ghost_pushed[t - owned] < 0 || ghost_pushed[t - owned] == depth) {
          ghost_pushed[t - owned] = depth;
          pusher.push(t, position[v]);
        }
      }
    frontier.clear();
    pusher.deliver([&](lid_t l, std::uint64_t parent) {
      if (level[l] < 0) keys.push_back({parent, g.degree(l), g.global_id(l), 0, g.global_id(l)});
    });
    place(depth + 1);
  }

  // Step 4: number the vertices by (component, level, position), reversed.
  for (lid_t l = 0; l < owned; ++l) {
    if (level[l] < 0) fail("internal: RCM left a vertex unnumbered");
    keys.push_back({tag[l].degree, tag[l].id, static_cast<std::uint64_t>(level[l]), position[l],
                    g.global_id(l)});
  }
  const vid_t n = g.global_vertex_count();
  std::vector<vid_t> new_id(owned);
  positions_to_owners(comm, g, std::move(keys),
                      [&](lid_t l, std::uint64_t pos) { new_id[l] = n - 1 - pos; });
  return new_id;
}

}  // namespace gc
