// The kinds of graph specification, one row each: the generators
// (spec_generators.cpp) and the file formats (spec.cpp). load_graph, the
// --graph help and `graphcomm models` derive from these tables.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "graph/types.hpp"

namespace gc {

// The parameters of "name:FIRST,key=value,...": each read once, typed; a bad
// number, a repeated or unknown key fails everywhere naming the spec.
class SpecParams {
 public:
  explicit SpecParams(const std::string& spec);
  template <class T>
  T first(const char* what) const;
  template <class T>
  T get(const std::string& key, T fallback);
  // Fails everywhere if a parameter was not read.
  void done() const;
  // Fails everywhere with "graph 'SPEC': what" unless ok.
  void require(bool ok, const std::string& what) const;
  const std::string& spec() const { return spec_; }

 private:
  std::string spec_, first_;
  std::map<std::string, std::string> params_;
};

// What a generator's parameters describe: the graph's size, for the memory
// check and the progress line, and how to make this rank's edges.
struct Generated {
  vid_t vertices = 0;
  double expected_edges = 0;  // undirected, for the memory check
  std::string note;           // the progress line's "(...)"
  nlohmann::json description;
  std::function<std::vector<Edge>()> edges;  // this rank's slice
  // Where the generator can make its slice piece by piece (rmat), `pieces`
  // (the same on every rank) and piece(i, weights) (weights 0 unless asked
  // for): the build then never holds the whole slice as edge records.
  // 0: edges() only.
  std::uint64_t pieces = 0;
  std::function<std::vector<Edge>(std::uint64_t, bool)> piece = nullptr;
};

struct GeneratorKind {
  const char* name;
  const char* alias;  // another name for it, or nullptr
  const char* syntax;
  const char* summary;
  // Reads the parameters (without generating); fails everywhere on bad ones.
  Generated (*parse)(SpecParams& params, const Comm& comm, std::uint64_t seed);
};
const std::vector<GeneratorKind>& generator_table();

struct FileFormat {
  const char* prefix;  // "mtx:" ...
  const char* summary;
  std::vector<const char*> extensions;  // each also with ".gz"
};
const std::vector<FileFormat>& format_table();

}  // namespace gc
