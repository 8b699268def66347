// Readers for the text graph formats: Matrix Market coordinate, SNAP-style
// edge lists and Graph Challenge TSV; plain or gzip. Each rank parses its own
// part of the file. Self-loops are dropped, duplicates merged (largest weight
// kept) and asymmetric input symmetrized by the builder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "graph/types.hpp"

namespace gc {

enum class TextFormat { matrix_market, edge_list, graph_challenge_tsv };

// Where weights come from: `file` where the format has them (Matrix Market
// real/integer, TSV) and the seed otherwise; `seed` always from the seed;
// `column` from the third column, required (edge lists too).
enum class WeightSource { file, seed, column };

struct TextGraph {
  vid_t vertices = 0;
  std::vector<Edge> edges;  // this rank's share, 0-based ids
  int id_base = 0;          // 1 for the 1-based formats
  bool weights_from_file = false;
  std::uint64_t entries = 0;  // global count of edge lines read
};

TextGraph read_text_graph(const Comm& comm, const std::string& path, TextFormat format,
                          WeightSource weights, std::uint64_t seed);

}  // namespace gc
