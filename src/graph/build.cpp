#include "graph/build.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "core/page_advice.hpp"
#include "graph/csr_builder.hpp"

namespace gc {

namespace {

// Sends each edge to the owner of its source and, when symmetrizing, to the
// owner of its target too if that is another rank: once per rank that keeps a
// direction of it. Self-loops are dropped. One piece of the input at a time:
// what a rank holds beyond the input and what it has received is one piece's
// records, sent and received.
template <class Layout>
std::vector<std::vector<typename Layout::Undirected>> shuffle_to_owners(const Comm& comm,
                                                                        const Distribution& dist,
                                                                        const EdgePieces& input,
                                                                        bool symmetrize) {
  using Undirected = typename Layout::Undirected;
  const int p = comm.size();
  const vid_t n = dist.global_count();
  auto for_each_owner = [&](const Edge& e, auto&& f) {
    if (e.u == e.v) return;
    const int a = dist.owner_of(e.u);
    f(a);
    if (symmetrize) {
      const int b = dist.owner_of(e.v);
      if (b != a) f(b);
    }
  };
  std::vector<std::vector<Undirected>> received;
  std::vector<std::uint64_t> counts(static_cast<size_t>(p)), cursor(static_cast<size_t>(p));
  for (std::uint64_t i = 0; i < input.count; ++i) {
    const std::span<const Edge> edges = input.piece(i);
    std::fill(counts.begin(), counts.end(), 0);
    for (const Edge& e : edges) {
      if (e.u >= n || e.v >= n) fail("internal: edge endpoint beyond the vertex count");
      for_each_owner(e, [&](int r) { ++counts[static_cast<size_t>(r)]; });
    }
    cursor[0] = 0;
    for (int r = 1; r < p; ++r) cursor[r] = cursor[r - 1] + counts[r - 1];
    std::vector<Undirected> send(cursor.back() + counts.back());
    for (const Edge& e : edges) {
      const Undirected packed = Layout::pack(e);
      for_each_owner(e, [&](int r) { send[cursor[static_cast<size_t>(r)]++] = packed; });
    }
    received.push_back(p == 1 ? std::move(send) : alltoallv(comm, send, counts));
  }
  return received;
}

template <class Layout>
DistGraph assemble_as(const Comm& comm, const Distribution& dist, const EdgePieces& input,
                      bool symmetrize, Duplicates duplicates) {
  auto mine = shuffle_to_owners<Layout>(comm, dist, input, symmetrize);
  std::vector<eid_t> offsets;
  std::vector<lid_t> targets;
  std::vector<weight_t> weights;
  std::vector<vid_t> ghosts;
  CsrBuilder<Layout>(comm, dist, symmetrize, duplicates)
      .build(std::move(mine), offsets, targets, weights, ghosts);
  return DistGraph::from_local_csr(comm, dist, std::move(offsets), std::move(targets),
                                   Layout::kWeighted, std::move(weights), std::move(ghosts));
}

DistGraph assemble(const Comm& comm, const Distribution& dist, const EdgePieces& input,
                   bool symmetrize, EdgeWeights weights,
                   BuildRecords records = BuildRecords::automatic,
                   Duplicates duplicates = Duplicates::heaviest) {
  const bool packed = records == BuildRecords::automatic && dist.global_count() <= (vid_t{1} << 32);
  const bool weighted = weights != EdgeWeights::none;
  DistGraph g;
  if (packed)
    g = weighted ? assemble_as<PackedLayout<true>>(comm, dist, input, symmetrize, duplicates)
                 : assemble_as<PackedLayout<false>>(comm, dist, input, symmetrize, duplicates);
  else
    g = weighted ? assemble_as<WideLayout<true>>(comm, dist, input, symmetrize, duplicates)
                 : assemble_as<WideLayout<false>>(comm, dist, input, symmetrize, duplicates);
  // Rounded once the rows are written (duplicates merged in double, the
  // largest or smallest kept: rounding is monotonic, so the same edge wins): the double
  // column and the float one together (12 bytes per edge) stay below the
  // sort's 16-byte records.
  if (weights == EdgeWeights::as_float) g.round_weights_to_float();
  return g;
}

template <class Layout>
LoadFootprint footprint_as(double m, double vertices, int ranks, bool input_whole,
                           double kernel_per_edge, double kernel_per_vertex) {
  using Undirected = typename Layout::Undirected;
  using Directed = typename Layout::Directed;
  using Builder = CsrBuilder<Layout>;
  constexpr double kPage = 4096, kReleaseStep = 16 << 20;
  const double p = ranks;
  const double piece =
      std::min(m, static_cast<double>(input_whole ? kPieceEdges : kGeneratedPieceEdges));
  // Records a rank receives: an edge goes to both endpoints' owners, which
  // differ for all but 1/P of random pairs; directed records: two per edge.
  const double received = m * (2 * p - 1) / p, directed = 2 * m;
  const double n_local = vertices / p;
  const double ghosts = std::min(vertices, directed);
  LoadFootprint f;
  f.input = sizeof(Edge) * (input_whole ? m : piece);
  const double in_flight = 2 * sizeof(Undirected) * 2 * piece;  // a piece sent and received
  f.shuffle = (input_whole ? std::max(f.input, sizeof(Undirected) * received)
                           : f.input + sizeof(Undirected) * received) +
              in_flight;
  // One buffer of directed records whole, the one it is made from given back
  // behind the reader (one release step of it still resident), an open page
  // per stream written, and the rows' slots and offsets.
  const double buffer = std::max(sizeof(Undirected) * received, sizeof(Directed) * directed);
  const vid_t n = static_cast<vid_t>(vertices);
  const double streams =
      kPage * (std::ldexp(1.0, Builder::digit_bits_for(n)) + static_cast<double>(Builder::kBlocks));
  f.sort = buffer + std::min(kReleaseStep, buffer) + std::min(streams, buffer) +
           2 * sizeof(eid_t) * n_local;
  const double per_edge = sizeof(lid_t) + (Layout::kWeighted ? sizeof(weight_t) : 0);
  f.graph = per_edge * directed + sizeof(eid_t) * n_local + (sizeof(vid_t) + sizeof(int)) * ghosts;
  f.kernel = f.graph + kernel_per_edge * directed + kernel_per_vertex * (n_local + ghosts);
  return f;
}

}  // namespace

double LoadFootprint::peak() const {
  // The process before it loads anything (MPI and its libraries), with room
  // for its variation from run to run; and a tenth more of the data for the
  // allocator's and the libraries' slack. tests/cli/memory_cli.py holds the
  // result to the measured peak; bench/README.md has the ratios.
  constexpr double kProcess = 28 << 20, kSlack = 1.1;
  return kSlack * std::max({input, shuffle, sort, kernel}) + kProcess;
}

LoadFootprint load_footprint(double undirected_edges, double vertices, int ranks,
                             EdgeWeights weights, bool input_whole, double kernel_per_edge,
                             double kernel_per_vertex) {
  const double m = undirected_edges / ranks;
  const bool packed = vertices <= std::ldexp(1.0, 32);
  const bool weighted = weights != EdgeWeights::none;
  auto as = [&]<class Layout>() {
    return footprint_as<Layout>(m, vertices, ranks, input_whole, kernel_per_edge,
                                kernel_per_vertex);
  };
  if (packed)
    return weighted ? as.template operator()<PackedLayout<true>>()
                    : as.template operator()<PackedLayout<false>>();
  return weighted ? as.template operator()<WideLayout<true>>()
                  : as.template operator()<WideLayout<false>>();
}

EdgePieces pieces_of(const Comm& comm, std::vector<Edge>& edges) {
  const std::uint64_t count =
      max_over_ranks<std::uint64_t>(comm, (edges.size() + kPieceEdges - 1) / kPieceEdges);
  auto done_with = std::make_shared<ReleaseBehind<Edge>>(edges.data(), edges.size());
  return {count, [&edges, done_with](std::uint64_t i) {
            const std::size_t begin = std::min<std::size_t>(edges.size(), i * kPieceEdges);
            const std::size_t end = std::min<std::size_t>(edges.size(), begin + kPieceEdges);
            // The pieces before this one are done with: their pages go back.
            done_with->consumed(begin);
            return std::span<const Edge>(edges.data() + begin, end - begin);
          }};
}

EdgePieces generated_pieces(std::uint64_t count,
                            std::function<std::vector<Edge>(std::uint64_t)> generate) {
  auto buffer = std::make_shared<std::vector<Edge>>();
  return {count, [buffer, generate = std::move(generate)](std::uint64_t i) {
            release(*buffer);
            *buffer = generate(i);
            return std::span<const Edge>(*buffer);
          }};
}

DistGraph build_graph(const Comm& comm, vid_t n, std::vector<Edge> edges, Balance balance,
                      BuildRecords records, EdgeWeights weights, Duplicates duplicates) {
  return build_graph(comm, n, pieces_of(comm, edges), balance, records, weights, duplicates);
}

DistGraph build_graph(const Comm& comm, vid_t n, const EdgePieces& input, Balance balance,
                      BuildRecords records, EdgeWeights weights, Duplicates duplicates) {
  DistGraph g = assemble(comm, Distribution::block(n, comm.size()), input, true, weights, records,
                         duplicates);
  if (balance == Balance::edges)
    g = redistribute(comm, g, edge_balanced(comm, g.distribution(), g.offsets()));
  return g;
}

Distribution edge_balanced(const Comm& comm, const Distribution& current,
                           const std::vector<eid_t>& offsets, int parts) {
  const int p = parts > 0 ? parts : comm.size();
  const vid_t begin = current.begin(comm.rank());
  const vid_t count = current.count(comm.rank());
  // Work of a vertex = its degree + 1, so isolated vertices are spread too.
  const std::uint64_t local_work = offsets.back() + count;
  const std::uint64_t before = exscan_sum(comm, local_work);
  const std::uint64_t total = sum_over_ranks(comm, local_work);
  // Boundary k is the first vertex whose preceding work reaches k*total/P; it
  // is found by the rank whose work interval (before, before+local] holds it.
  auto threshold = [&](int k) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(total) * k) / p);
  };
  std::vector<vid_t> bounds(static_cast<size_t>(p) + 1, 0);
  std::uint64_t work = before;
  int k = 1;
  while (k < p && threshold(k) <= before) ++k;  // found by an earlier rank (or 0)
  for (vid_t i = 0; i < count && k < p; ++i) {
    work += offsets[i + 1] - offsets[i] + 1;
    while (k < p && threshold(k) <= work) bounds[static_cast<size_t>(k++)] = begin + i + 1;
  }
  std::vector<vid_t> global(bounds.size());
  MPI_Allreduce(bounds.data(), global.data(), p + 1, MPI_UINT64_T, MPI_MAX, comm.get());
  global[static_cast<size_t>(p)] = current.global_count();
  return Distribution::from_offsets(std::move(global));
}

Distribution cut_into_parts(const Comm& comm, const DistGraph& g, Balance balance, int parts) {
  return balance == Balance::edges ? edge_balanced(comm, g.distribution(), g.offsets(), parts)
                                   : Distribution::block(g.global_vertex_count(), parts);
}

std::vector<vid_t> ghost_values(const Comm& comm, const DistGraph& g,
                                const std::vector<vid_t>& owned_values) {
  // Ghosts are sorted by global id, hence grouped by owner in rank order: ask
  // each owner for its block of them, and it answers in the same order.
  const GhostRelation& rel = g.ghost_relation();
  std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0), asked_counts;
  for (size_t i = 0; i < rel.ranks.size(); ++i)
    counts[static_cast<size_t>(rel.ranks[i])] = rel.ghost_end[i] - rel.ghost_begin[i];
  std::vector<vid_t> asked = alltoallv(comm, g.ghosts(), counts, &asked_counts);
  for (vid_t& v : asked) v = owned_values[v - g.first_owned()];
  return alltoallv(comm, asked, asked_counts);
}

namespace {

// redistribute (new_ids null) and relabel in one.
DistGraph relayout(const Comm& comm, const DistGraph& g, const std::vector<vid_t>* new_ids,
                   const Distribution& target) {
  const bool renaming = new_ids != nullptr;
  if (renaming && new_ids->size() != g.owned_count())
    fail("internal: relabel needs one new id per owned vertex");
  const lid_t owned = g.owned_count();
  std::vector<vid_t> ghost_new;
  if (renaming) ghost_new = ghost_values(comm, g, *new_ids);
  auto new_id = [&](lid_t l) {
    if (!renaming) return g.global_id(l);
    return l < owned ? (*new_ids)[l] : ghost_new[l - owned];
  };
  std::vector<Edge> edges;
  edges.reserve(g.local_edge_count());
  for (lid_t l = 0; l < owned; ++l) {
    auto nbrs = g.neighbors(l);
    const vid_t u = new_id(l);
    const eid_t first = g.offsets()[l];
    for (size_t j = 0; j < nbrs.size(); ++j)
      edges.push_back(Edge{u, new_id(nbrs[j]), g.weight_at(first + j)});
  }
  release(ghost_new);
  const bool track_input = renaming || g.relabeled();
  // Each vertex's input id travels to its new owner (as an edge record to itself).
  std::vector<Edge> names;
  if (track_input) {
    std::vector<std::uint64_t> counts(static_cast<size_t>(comm.size()), 0);
    std::vector<std::pair<int, Edge>> tagged;
    tagged.reserve(owned);
    for (lid_t l = 0; l < owned; ++l) {
      const vid_t v = new_id(l);
      const int r = target.owner_of(v);
      ++counts[static_cast<size_t>(r)];
      tagged.emplace_back(r, Edge{v, g.input_id(l), 0});
    }
    std::stable_sort(tagged.begin(), tagged.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& t : tagged) names.push_back(t.second);
    names = alltoallv(comm, names, counts);
  }
  DistGraph out = assemble(comm, target, pieces_of(comm, edges), false,
                           !g.weighted()       ? EdgeWeights::none
                           : g.float_weights() ? EdgeWeights::as_float
                                               : EdgeWeights::kept);
  release(edges);
  if (track_input) {
    std::vector<vid_t> input(out.owned_count());
    for (const Edge& e : names) input[e.u - out.first_owned()] = e.v;
    std::vector<vid_t> ghosts = ghost_values(comm, out, input);
    input.insert(input.end(), ghosts.begin(), ghosts.end());
    out.set_input_ids(std::move(input));
  }
  return out;
}

}  // namespace

DistGraph redistribute(const Comm& comm, const DistGraph& g, const Distribution& target) {
  return relayout(comm, g, nullptr, target);
}

DistGraph relabel(const Comm& comm, const DistGraph& g, const std::vector<vid_t>& new_ids,
                  const Distribution& target) {
  return relayout(comm, g, &new_ids, target);
}

}  // namespace gc
