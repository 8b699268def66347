// Writers and binary readers: write_mel/read_mel, write_gcg/read_gcg, and the
// text writers read back through load_graph, give back the same graph (same
// checksum, weights bit for bit) at this rank count and on each rank alone.
// The files are also decoded here, on one rank, following the layouts
// documented in binary_io.hpp and write_text.hpp, so that a writer and a
// reader cannot agree on a wrong layout. No temporary file may remain.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "core/output.hpp"
#include "graph/binary_io.hpp"
#include "graph/build.hpp"
#include "graph/generators.hpp"
#include "graph/spec.hpp"
#include "graph/write_text.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using test::EdgeKey;
using test::EdgeSetSummary;

struct Sample {
  std::string name;
  std::function<DistGraph(const Comm&)> build;
  bool has_edges = true;  // an edge list without edges describes no graph
};

std::vector<Sample> samples() {
  return {
      {"rmat",
       [](const Comm& c) {
         RmatParams p;
         p.scale = 10;
         return build_graph(c, 1024, rmat_edges(c, p, 3));
       }},
      {"rmat_edge_balanced",
       [](const Comm& c) {
         RmatParams p;
         p.scale = 9;
         return build_graph(c, 512, rmat_edges(c, p, 4), Balance::edges);
       }},
      {"rgg",
       [](const Comm& c) {
         RggParams p;
         p.n = 5000;
         return build_graph(c, 5000, rgg_edges(c, p, 3));
       }},
      {"rgg_edge_balanced",
       [](const Comm& c) {
         RggParams p;
         p.n = 3000;
         return build_graph(c, 3000, rgg_edges(c, p, 5), Balance::edges);
       }},
      {"three_vertices",  // more ranks than vertices at 4 ranks; weights not from a seed
       [](const Comm& c) {
         std::vector<Edge> e;
         if (c.rank() == 0) e = {{0, 1, 0.1}, {2, 1, 1e-300}};
         return build_graph(c, 3, e);
       }},
      {"isolated_at_end",  // the edge list cannot tell the trailing isolated vertices
       [](const Comm& c) {
         std::vector<Edge> e;
         if (c.rank() == c.size() - 1) e = {{0, 5, 1.0 / 3.0}, {5, 7, 123456.789}, {1, 7, 2.5}};
         return build_graph(c, 20, e);
       }},
      {"no_edges", [](const Comm& c) { return build_graph(c, 5, std::vector<Edge>{}); }, false},
  };
}

// 1 + the largest id with an edge (0 without edges).
vid_t used_vertex_count(const Comm& comm, const DistGraph& g) {
  std::uint64_t top = 0;
  for (lid_t l = 0; l < g.owned_count(); ++l)
    if (g.degree(l) > 0) top = std::max<std::uint64_t>(top, g.global_id(l) + 1);
  return max_over_ranks(comm, top);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <class T>
T at(const std::string& bytes, size_t offset) {
  T v{};
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

// Decodes a mel file: int64 nv, ne, offsets[nv+1], {int64 target, double w}[ne].
std::vector<EdgeKey> decode_mel(const std::string& bytes, vid_t& nv) {
  nv = static_cast<vid_t>(at<std::int64_t>(bytes, 0));
  const auto ne = static_cast<std::uint64_t>(at<std::int64_t>(bytes, 8));
  std::vector<EdgeKey> out;
  EXPECT_EQ(bytes.size(), 16 + 8 * (nv + 1) + 16 * ne);
  if (bytes.size() != 16 + 8 * (nv + 1) + 16 * ne) return out;
  EXPECT_EQ(at<std::int64_t>(bytes, 16), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(at<std::int64_t>(bytes, 16 + 8 * nv)), ne);
  const size_t records = 16 + 8 * (nv + 1);
  for (vid_t u = 0; u < nv; ++u) {
    const auto begin = at<std::int64_t>(bytes, 16 + 8 * u),
               end = at<std::int64_t>(bytes, 16 + 8 * (u + 1));
    for (std::int64_t e = begin; e < end; ++e)
      out.push_back(test::key(u, static_cast<vid_t>(at<std::int64_t>(bytes, records + 16 * e)),
                              at<double>(bytes, records + 16 * e + 8)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Decodes a gcg file: 64-byte header, uint64 offsets[nv+1], targets[ne], double weights[ne].
std::vector<EdgeKey> decode_gcg(const std::string& bytes, vid_t& nv, std::uint64_t& id_base) {
  std::vector<EdgeKey> out;
  EXPECT_EQ(bytes.substr(0, 8), "GCOMMCSR");
  EXPECT_EQ(at<std::uint64_t>(bytes, 8), 1u);
  nv = at<std::uint64_t>(bytes, 16);
  const std::uint64_t ne = at<std::uint64_t>(bytes, 24);
  id_base = at<std::uint64_t>(bytes, 32);
  EXPECT_EQ(bytes.size(), 64 + 8 * (nv + 1) + 16 * ne);
  if (bytes.size() != 64 + 8 * (nv + 1) + 16 * ne) return out;
  const size_t targets = 64 + 8 * (nv + 1), weights = targets + 8 * ne;
  EXPECT_EQ(at<std::uint64_t>(bytes, 64), 0u);
  EXPECT_EQ(at<std::uint64_t>(bytes, 64 + 8 * nv), ne);
  for (vid_t u = 0; u < nv; ++u)
    for (std::uint64_t e = at<std::uint64_t>(bytes, 64 + 8 * u);
         e < at<std::uint64_t>(bytes, 64 + 8 * (u + 1)); ++e)
      out.push_back(test::key(u, at<std::uint64_t>(bytes, targets + 8 * e),
                              at<double>(bytes, weights + 8 * e)));
  std::sort(out.begin(), out.end());
  return out;
}

// Decodes the text outputs: every non-comment line "a b w", each undirected
// edge once, a > b in Matrix Market (the lower triangle) and a < b in the edge
// list. Returns both directions, 0-based.
std::vector<EdgeKey> decode_text(const std::string& text, int id_base, bool matrix_market,
                                 std::uint64_t& header_size_entries) {
  std::istringstream in(text);
  std::string line;
  std::vector<EdgeKey> out;
  bool size_line = matrix_market;
  header_size_entries = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%' || line[0] == '#') continue;
    std::istringstream fields(line);
    if (size_line) {
      std::uint64_t rows = 0, cols = 0;
      fields >> rows >> cols >> header_size_entries;
      size_line = false;
      continue;
    }
    std::uint64_t a = 0, b = 0;
    std::string w;
    fields >> a >> b >> w;
    const double weight = std::strtod(w.c_str(), nullptr);
    a -= static_cast<std::uint64_t>(id_base);
    b -= static_cast<std::uint64_t>(id_base);
    if (matrix_market)
      EXPECT_GT(a, b) << line;
    else
      EXPECT_LT(a, b) << line;
    out.push_back(test::key(a, b, weight));
    out.push_back(test::key(b, a, weight));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Binary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Progress::set_quiet(true); }
};

TEST_F(Binary, RoundTripsAtThisRankCountAndOnOneRank) {
  const Comm world = Comm::world();
  const Comm self = Comm::self();
  test::TempDir dir(world, "binary");
  ASSERT_TRUE(dir.ok());
  for (const Sample& s : samples()) {
    SCOPED_TRACE(s.name);
    const DistGraph g = s.build(world);
    const EdgeSetSummary want = test::summarize_edges(world, g);
    const std::vector<EdgeKey> all = test::gather_edges(world, g);
    const std::string mel = dir.file(s.name + ".mel"), gcg = dir.file(s.name + ".gcg"),
                      mtx = dir.file(s.name + ".mtx"), el = dir.file(s.name + ".el"),
                      tsv = dir.file(s.name + ".tsv");
    write_mel(world, g, mel);
    write_gcg(world, g, gcg, 1);
    write_matrix_market(world, g, mtx);
    write_edge_list(world, g, el, 0);
    write_edge_list(world, g, tsv, 1);

    // The files themselves, decoded on one rank.
    if (world.rank() == 0) {
      vid_t nv = 0;
      std::uint64_t id_base = 0, entries = 0;
      EXPECT_TRUE(decode_mel(slurp(mel), nv) == all);
      EXPECT_EQ(nv, g.global_vertex_count());
      EXPECT_TRUE(decode_gcg(slurp(gcg), nv, id_base) == all);
      EXPECT_EQ(nv, g.global_vertex_count());
      EXPECT_EQ(id_base, 1u);
      EXPECT_TRUE(decode_text(slurp(mtx), 1, true, entries) == all);
      EXPECT_EQ(entries, g.global_edge_count());
      EXPECT_TRUE(decode_text(slurp(el), 0, false, entries) == all);
      EXPECT_TRUE(decode_text(slurp(tsv), 1, false, entries) == all);
    }

    // Read back at this rank count, then on each rank alone.
    EdgeSetSummary el_want = want;
    el_want.vertices = used_vertex_count(world, g);  // ids beyond the last edge are lost
    for (const Comm* c : {&world, &self}) {
      SCOPED_TRACE(c == &world ? "read on world" : "read on self");
      const BinaryGraph from_mel = read_mel(*c, mel);
      EXPECT_EQ(test::summarize_edges(*c, from_mel.graph), want);
      const BinaryGraph from_gcg = read_gcg(*c, gcg);
      EXPECT_EQ(test::summarize_edges(*c, from_gcg.graph), want);
      EXPECT_EQ(from_gcg.id_base, 1);
      EXPECT_EQ(test::asymmetric_edges(*c, from_gcg.graph), 0u);
      if (c == &world && from_gcg.graph.distribution().offsets() == g.distribution().offsets()) {
        // The same rows, local ids and ghost table as the graph written.
        EXPECT_EQ(from_gcg.graph.offsets(), g.offsets());
        EXPECT_EQ(from_gcg.graph.targets(), g.targets());
        EXPECT_EQ(from_gcg.graph.edge_weights(), g.edge_weights());
        EXPECT_EQ(from_gcg.graph.ghosts(), g.ghosts());
      }

      LoadOptions options;
      options.balance = Balance::edges;
      EXPECT_EQ(test::summarize_edges(*c, load_graph(*c, "gcg:" + gcg, options).graph), want);
      options.balance = Balance::vertices;
      const LoadedGraph from_mtx = load_graph(*c, "mtx:" + mtx, options);
      EXPECT_EQ(test::summarize_edges(*c, from_mtx.graph), want);
      if (!s.has_edges) continue;  // (no entries: no weights read from the file either)
      EXPECT_EQ(from_mtx.description.value("weights", ""), "file");

      options.weights = WeightSource::column;
      const LoadedGraph from_el = load_graph(*c, "el:" + el, options);
      EXPECT_EQ(test::summarize_edges(*c, from_el.graph), el_want);
      // 1-based, it is a Graph Challenge TSV file.
      options.weights = WeightSource::file;
      const LoadedGraph from_tsv = load_graph(*c, "tsv:" + tsv, options);
      EXPECT_EQ(test::summarize_edges(*c, from_tsv.graph), el_want);
      EXPECT_EQ(from_tsv.id_base, 1);
    }
    if (world.rank() == 0) {
      // The full lists, not only the checksum, on one rank.
      EXPECT_TRUE(test::gather_edges(self, read_gcg(self, gcg).graph) == all);
      EXPECT_TRUE(test::gather_edges(self, read_mel(self, mel).graph) == all);
    }
  }

  // Written on one rank, read on all.
  {
    const DistGraph serial = samples()[0].build(self);
    if (world.rank() == 0) write_gcg(self, serial, dir.file("serial.gcg"), 0);
    world.barrier();
    const BinaryGraph back = read_gcg(world, dir.file("serial.gcg"));
    EXPECT_EQ(test::summarize_edges(world, back.graph),
              test::summarize_edges(world, samples()[0].build(world)));
    EXPECT_EQ(back.id_base, 0);
  }

  // Overwriting a larger file with a smaller graph leaves exactly the new one.
  {
    const std::string over = dir.file("over.gcg");
    write_gcg(world, samples()[0].build(world), over, 0);
    const DistGraph small = samples()[4].build(world);
    write_gcg(world, small, over, 0);
    EXPECT_EQ(test::summarize_edges(world, read_gcg(world, over).graph),
              test::summarize_edges(world, small));
  }

  // A write that cannot happen fails on every rank and leaves nothing behind.
  {
    bool threw = false;
    try {
      write_mel(world, samples()[4].build(world), dir.file("missing/dir/g.mel"));
    } catch (const Error&) {
      threw = true;
    }
    EXPECT_TRUE(threw);
  }

  world.barrier();
  if (world.rank() == 0) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
      const std::string name = entry.path().filename().string();
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << "left behind: " << name;
    }
  }
}

}  // namespace
}  // namespace gc
