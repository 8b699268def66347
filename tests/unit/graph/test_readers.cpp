// Text readers: every quirk listed in shared/datasets/README.md on small files
// written here (plain and gzip), read through load_graph and compared with the
// edge set the file describes; a larger random file whose expected graph is
// computed here while writing it (ranks then split its bytes mid-line); the
// errors a bad file must raise on every rank; and every real dataset, checked
// against the figures of the README.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/output.hpp"
#include "core/rng.hpp"
#include "graph/spec.hpp"
#include "unit/graph/graph_checks.hpp"

namespace gc {
namespace {

using test::EdgeKey;
using UndirectedList = std::vector<std::tuple<vid_t, vid_t, weight_t>>;

// Writes `text` byte for byte, plain and gzip-compressed (name + ".gz").
void write_both(const std::string& path, const std::string& text) {
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  gzFile gz = gzopen((path + ".gz").c_str(), "wb");
  if (gz) {
    gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
    gzclose(gz);
  }
}

constexpr std::uint64_t kSeed = 42;

weight_t seeded(vid_t u, vid_t v) {
  return edge_weight_from_seed(kSeed, u, v);
}

struct QuirkCase {
  std::string name;  // also the file name, whose extension tells the format
  std::string text;
  WeightSource weights;
  vid_t vertices;
  UndirectedList edges;   // what the graph must hold (0-based)
  std::uint64_t entries;  // edge lines in the file, self-loops included
  int id_base;
  std::string prefix = "";  // a format prefix for load_graph, when the name has no extension
};

std::vector<QuirkCase> quirk_cases() {
  std::vector<QuirkCase> c;
  const std::string mm_symmetric =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "% comment in the header\n"
      "%\n"
      "6 6 7\n"
      "2 1 0.5\n"
      "% a comment between data lines\n"
      "3 1 0.25\n"
      "3 3 7.0\n"  // diagonal: a self-loop, dropped
      "4 2 1e-3\n"
      "5 4 2.5\n"
      "  % an indented comment\n"
      "5 1 0.125\n"
      "  6 6 1\n";  // the only entry of vertex 6: it stays, isolated
  c.push_back({"symmetric_real.mtx",
               mm_symmetric,
               WeightSource::file,
               6,
               {{1, 0, 0.5}, {2, 0, 0.25}, {3, 1, 1e-3}, {4, 3, 2.5}, {4, 0, 0.125}},
               7,
               1});
  c.push_back({"symmetric_real_seeded.mtx",
               mm_symmetric,
               WeightSource::seed,
               6,
               {{1, 0, seeded(1, 0)},
                {2, 0, seeded(2, 0)},
                {3, 1, seeded(3, 1)},
                {4, 3, seeded(4, 3)},
                {4, 0, seeded(4, 0)}},
               7,
               1});
  c.push_back({"pattern.mtx",
               "%%MatrixMarket matrix coordinate pattern symmetric\n"
               "4 4 4\n"
               "1 1\n"
               "2 1\n"
               "4 2\n"
               "4 3\n",
               WeightSource::file,
               4,
               {{1, 0, seeded(1, 0)}, {3, 1, seeded(3, 1)}, {3, 2, seeded(3, 2)}},
               4,
               1});
  c.push_back({"asymmetric_integer.mtx",
               "%%MatrixMarket matrix coordinate integer general\n"
               "% asymmetric: the reader symmetrizes, duplicates keep the largest weight\n"
               "5 5 8\n"
               "1 2 3\n"
               "2 1 5\n"  // the reverse of 1 2, heavier
               "2 3 4\n"  // one direction only
               "3 3 9\n"
               "1 2 2\n"  // a lighter duplicate
               "4 5 1\n"
               "5 4 1\n"
               "1 5 10\n",
               WeightSource::file,
               5,
               {{0, 1, 5}, {1, 2, 4}, {3, 4, 1}, {0, 4, 10}},
               8,
               1});
  c.push_back({"crlf_blank_no_newline.mtx",
               "%%MatrixMarket matrix coordinate real general\r\n"
               "% CRLF line endings\r\n"
               "\r\n"
               "3 3 3\r\n"
               "1 2 0.5\r\n"
               "\r\n"
               "2 3 0.75\r\n"
               "   \r\n"
               "3 1 1.5",  // last line without a newline
               WeightSource::file,
               3,
               {{0, 1, 0.5}, {1, 2, 0.75}, {2, 0, 1.5}},
               3,
               1});
  c.push_back({"empty_matrix.mtx",
               "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 0\n",
               WeightSource::file,
               3,
               {},
               0,
               1});
  c.push_back({"no_extension_matrix",
               mm_symmetric,
               WeightSource::file,
               6,
               {{1, 0, 0.5}, {2, 0, 0.25}, {3, 1, 1e-3}, {4, 3, 2.5}, {4, 0, 0.125}},
               7,
               1,
               "mtx"});
  const std::string snap =
      "# SNAP-style header\n"
      "# Nodes: 6 Edges: 9\n"
      "0\t1\n"
      "1\t0\n"  // both directions listed
      "0 2\n"
      "# a comment between data lines\n"
      "2 0\r\n"
      "% a percent comment\n"
      "3 3\n"  // self-loop: vertex 3 stays, isolated
      "\n"
      "1 4\n"
      "\t\n"
      "  4   1  \n"
      "1 4\n"
      "5 4";  // no newline at the end
  c.push_back(
      {"snap.el",
       snap,
       WeightSource::file,  // an edge list has no weights: from the seed
       6,
       {{0, 1, seeded(0, 1)}, {0, 2, seeded(0, 2)}, {1, 4, seeded(1, 4)}, {4, 5, seeded(4, 5)}},
       9,
       0});
  const std::string weighted_el =
      "0 1 0.5\n"
      "1 0 0.75\n"
      "1 2 1\n"
      "2 2 0.3\n"
      "2 3 2.5e-1\r\n"
      "3 2 0.125\n";
  c.push_back({"weighted.edges",
               weighted_el,
               WeightSource::column,
               4,
               {{0, 1, 0.75}, {1, 2, 1.0}, {2, 3, 0.25}},
               6,
               0});
  c.push_back({"weighted_ignored.txt",
               weighted_el,
               WeightSource::file,
               4,
               {{0, 1, seeded(0, 1)}, {1, 2, seeded(1, 2)}, {2, 3, seeded(2, 3)}},
               6,
               0});
  const std::string tsv =
      "1\t2\t1\n"
      "2\t1\t3\n"
      "2\t3\t2\n"
      "# a comment\n"
      "4\t3\t1\n"
      "3\t5\t7\n"
      "5\t5\t4\n";
  c.push_back({"challenge.tsv",
               tsv,
               WeightSource::file,
               5,
               {{0, 1, 3}, {1, 2, 2}, {2, 3, 1}, {2, 4, 7}},
               6,
               1});
  c.push_back(
      {"challenge_seeded.tsv",
       tsv,
       WeightSource::seed,
       5,
       {{0, 1, seeded(0, 1)}, {1, 2, seeded(1, 2)}, {2, 3, seeded(2, 3)}, {2, 4, seeded(2, 4)}},
       6,
       1});
  // A comment line far longer than a rank's share of the bytes: whole ranges
  // lie inside one line.
  c.push_back(
      {"long_comment.el",
       "0 1\n# " + std::string(20000, 'x') + "\n1 2\n# " + std::string(5000, 'y') + "\r\n2 3\n",
       WeightSource::seed,
       4,
       {{0, 1, seeded(0, 1)}, {1, 2, seeded(1, 2)}, {2, 3, seeded(2, 3)}},
       3,
       0});
  // Fewer bytes than ranks, no newline.
  c.push_back({"tiny.el", "0 1", WeightSource::seed, 2, {{0, 1, seeded(0, 1)}}, 1, 0});
  c.push_back({"tiny.tsv", "2\t1\t9", WeightSource::file, 2, {{0, 1, 9}}, 1, 1});
  return c;
}

class Readers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Progress::set_quiet(true); }
};

void expect_graph(const Comm& comm, const LoadedGraph& loaded, vid_t vertices,
                  const UndirectedList& edges) {
  EXPECT_EQ(loaded.graph.global_vertex_count(), vertices);
  EXPECT_EQ(loaded.graph.global_edge_count(), edges.size());
  const std::vector<EdgeKey> got = test::gather_edges(comm, loaded.graph);
  const std::vector<EdgeKey> want = test::both_directions(edges);
  EXPECT_EQ(got.size(), want.size());
  if (got != want) {
    std::string diff;
    for (const EdgeKey& e : got)
      if (!std::binary_search(want.begin(), want.end(), e))
        diff += fmt::format(" unexpected ({}, {}, {})", e.u, e.v, test::weight_of(e));
    for (const EdgeKey& e : want)
      if (!std::binary_search(got.begin(), got.end(), e))
        diff += fmt::format(" missing ({}, {}, {})", e.u, e.v, test::weight_of(e));
    ADD_FAILURE() << "edge sets differ:" << diff;
  }
}

TEST_F(Readers, EveryQuirkPlainAndGzip) {
  const Comm world = Comm::world();
  test::TempDir dir(world, "readers");
  ASSERT_TRUE(dir.ok());
  const std::vector<QuirkCase> cases = quirk_cases();
  if (world.rank() == 0)
    for (const QuirkCase& c : cases) write_both(dir.file(c.name), c.text);
  world.barrier();
  for (const QuirkCase& c : cases) {
    for (const bool gz : {false, true}) {
      SCOPED_TRACE(c.name + (gz ? ".gz" : ""));
      LoadOptions options;
      options.seed = kSeed;
      options.weights = c.weights;
      const std::string path = dir.file(c.name) + (gz ? ".gz" : "");
      const std::string spec = c.prefix.empty() ? path : c.prefix + ":" + path;
      std::optional<LoadedGraph> loaded;
      std::string error;
      try {
        loaded = load_graph(world, spec, options);
      } catch (const Error& e) {
        error = e.what();
      }
      EXPECT_EQ(error, "");
      if (!test::all_ranks(world, loaded.has_value())) continue;
      expect_graph(world, *loaded, c.vertices, c.edges);
      EXPECT_EQ(loaded->id_base, c.id_base);
      EXPECT_EQ(loaded->description.value("entries", std::uint64_t{0}), c.entries);
      EXPECT_EQ(test::asymmetric_edges(world, loaded->graph), 0u);
    }
  }
}

// A pseudo-random edge list with every quirk mixed in, large enough that the
// ranks' byte ranges start and end mid-line; its expected graph is computed
// while writing it. Written as a 0-based weighted edge list and as a 1-based
// general Matrix Market file.
TEST_F(Readers, RandomFileWithQuirks) {
  const Comm world = Comm::world();
  test::TempDir dir(world, "readers_random");
  ASSERT_TRUE(dir.ok());
  const vid_t ids = 400;
  std::map<std::pair<vid_t, vid_t>, weight_t> expected;
  std::string el = "# random edge list\n", mm_body;
  std::uint64_t entries = 0;
  vid_t max_id = 0;
  const CounterRng rng(2024);
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const auto w4 = rng.words(Stream::edge_weight, i, 99);
    const vid_t u = w4[0] % ids, v = (w4[1] % 7 == 0) ? u : w4[1] % ids;
    const double w = CounterRng::to_unit_open_closed(w4[2]) * 10;
    const char* eol = (i % 7 == 3) ? "\r\n" : "\n";
    el += fmt::format("{}{}{}{}\t{:.17g}{}", i % 11 == 0 ? "  " : "", u, i % 3 ? " " : "\t", v, w,
                      eol);
    mm_body += fmt::format("{} {} {:.17g}{}", u + 1, v + 1, w, eol);
    ++entries;
    max_id = std::max({max_id, u, v});
    if (u != v) {
      auto& slot = expected[{std::min(u, v), std::max(u, v)}];
      slot = std::max(slot, w);
    }
    if (i % 37 == 0) {
      el += "# comment " + std::to_string(i) + "\n";
      mm_body += "% comment " + std::to_string(i) + "\n";
    }
    if (i % 53 == 0) {
      el += "\n";
      mm_body += i % 2 ? "\r\n" : "  \n";
    }
  }
  UndirectedList want;
  for (const auto& [uv, w] : expected) want.emplace_back(uv.first, uv.second, w);
  const std::string mm =
      fmt::format("%%MatrixMarket matrix coordinate real general\n% random\n{} {} {}\n{}", ids, ids,
                  entries, mm_body);
  if (world.rank() == 0) {
    write_both(dir.file("random.el"), el);
    write_both(dir.file("random.mtx"), mm);
  }
  world.barrier();
  for (const bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "plain");
    const std::string ext = gz ? ".gz" : "";
    LoadOptions options;
    options.weights = WeightSource::column;
    const LoadedGraph a = load_graph(world, dir.file("random.el") + ext, options);
    expect_graph(world, a, max_id + 1, want);
    EXPECT_EQ(a.description.value("entries", std::uint64_t{0}), entries);
    options.weights = WeightSource::file;
    const LoadedGraph b = load_graph(world, dir.file("random.mtx") + ext, options);
    expect_graph(world, b, ids, want);
    EXPECT_EQ(b.description.value("entries", std::uint64_t{0}), entries);
  }
}

TEST_F(Readers, BadFilesFailOnEveryRank) {
  const Comm world = Comm::world();
  test::TempDir dir(world, "readers_bad");
  ASSERT_TRUE(dir.ok());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"count.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n2 3 1\n"},
      {"range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n"},
      {"zero.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n"},
      {"banner.mtx", "%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n"},
      {"fields.tsv", "1\t2\t1\n2\t3\n"},
      {"weight.el", "0 1 0.5\n1 2 abc\n"},
      {"negative.el", "0 1 -0.5\n"},
      {"empty.el", "# nothing\n"},
  };
  if (world.rank() == 0)
    for (const auto& [name, text] : bad) write_both(dir.file(name), text);
  world.barrier();
  LoadOptions options;
  options.weights = WeightSource::column;
  for (const auto& [name, text] : bad)
    for (const std::string ext : {"", ".gz"}) {
      SCOPED_TRACE(name + ext);
      bool threw = false;
      try {
        load_graph(world, dir.file(name) + ext,
                   name.ends_with(".mtx") || name.ends_with(".tsv") ? LoadOptions{} : options);
      } catch (const Error& e) {
        threw = true;
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
      EXPECT_TRUE(threw);
    }
}

// The real datasets, against the README's table (counts from a full parse of
// each file, independent of this reader).
struct Dataset {
  const char* file;
  vid_t vertices;
  std::uint64_t stored;  // edge lines (entries), self-loops and duplicates included
  std::uint64_t loops;   // self-loops among them, where the README says
  std::optional<std::uint64_t> undirected;  // where the README gives it
  enum Weights { seed, integer, ones } weights;
};

TEST_F(Readers, RealDatasets) {
  // The real inputs are part of the test suite: without them this fails.
  ASSERT_TRUE(GRAPHCOMM_HAVE_DATASETS) << "no datasets at " << GRAPHCOMM_DATASETS;
  const Comm world = Comm::world();
  const std::string base = GRAPHCOMM_DATASETS;
  const std::vector<Dataset> sets = {
      {"ash292.mtx.gz", 292, 958 + 292, 292, 958, Dataset::seed},
      {"dwt_193.mtx.gz", 193, 1650 + 193, 193, 1650, Dataset::seed},
      {"Journals.mtx.gz", 124, 5972 + 124, 124, 5972, Dataset::integer},
      {"internet.mtx.gz", 124651, 207214, 12185, std::nullopt, Dataset::integer},
      {"luxembourg_osm.mtx.gz", 114599, 119666, 0, 119666, Dataset::seed},
      {"web-sk-2005.mtx.gz", 121422, 334419, 0, 334419, Dataset::seed},
      {"bio-grid-yeast.edges.gz", 6008, 313890, 0, 156945, Dataset::seed},
      {"email-Enron.txt.gz", 36692, 183831, 0, 183831, Dataset::seed},
      {"cit-HepPh.txt.gz", 34546, 421578, 44, std::nullopt, Dataset::seed},
      {"soc-Slashdot0902.txt.gz", 82168, 948464, 78303, std::nullopt, Dataset::seed},
      // Listed once per undirected edge, 14 of them self-loops.
      {"ego-Twitter-undirected.txt.gz", 81306, 1342310, 14, 1342310 - 14, Dataset::seed},
      {"static_lowOverlap_lowBlockSizeVar_1000_nodes.tsv.gz", 1000, 8067, 0, std::nullopt,
       Dataset::ones},
      {"static_lowOverlap_lowBlockSizeVar_5000_nodes.tsv.gz", 5000, 50850, 0, std::nullopt,
       Dataset::ones},
  };
  for (const Dataset& d : sets) {
    SCOPED_TRACE(d.file);
    LoadOptions options;
    options.seed = 5;
    const LoadedGraph loaded = load_graph(world, base + "/" + d.file, options);
    const DistGraph& g = loaded.graph;
    EXPECT_EQ(g.global_vertex_count(), d.vertices);
    EXPECT_EQ(loaded.description.value("entries", std::uint64_t{0}), d.stored);
    if (d.undirected) {
      EXPECT_EQ(g.global_edge_count(), *d.undirected);
    } else {
      // Directed input: each pair appears once or twice among the non-loops.
      EXPECT_LE(g.global_edge_count(), d.stored - d.loops);
      EXPECT_GE(2 * g.global_edge_count(), d.stored - d.loops);
    }
    EXPECT_EQ(test::asymmetric_edges(world, g), 0u);  // also: no self-loops, no duplicates
    std::uint64_t bad_weights = 0;
    for (lid_t l = 0; l < g.owned_count(); ++l) {
      auto nbrs = g.neighbors(l);
      auto ws = g.weights(l);
      for (size_t j = 0; j < ws.size(); ++j) {
        const double w = ws[j];
        switch (d.weights) {
          case Dataset::seed:
            bad_weights += w != edge_weight_from_seed(5, g.global_id(l), g.global_id(nbrs[j]));
            break;
          case Dataset::integer:
            bad_weights += !(w >= 1 && w == std::floor(w));
            break;
          case Dataset::ones:
            bad_weights += w != 1.0;
            break;
        }
      }
    }
    EXPECT_EQ(sum_over_ranks(world, bad_weights), 0u);
  }
}

}  // namespace
}  // namespace gc
