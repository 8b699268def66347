#include "graph/spec.hpp"

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/memory.hpp"
#include "core/output.hpp"
#include "graph/binary_io.hpp"
#include "graph/spec_kinds.hpp"

namespace gc {

// "name:first,key=value,..." -> first, {key: value}.
SpecParams::SpecParams(const std::string& spec) : spec_(spec) {
  const auto colon = spec.find(':');
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  size_t start = 0;
  bool first = true;
  while (start <= rest.size()) {
    const size_t comma = rest.find(',', start);
    std::string item =
        rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (first) {
      first_ = item;
      first = false;
    } else {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        fail_everywhere(fmt::format("graph '{}': parameter '{}' is not key=value", spec, item));
      params_[item.substr(0, eq)] = item.substr(eq + 1);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

namespace {

template <class T>
T number(const std::string& spec, const std::string& what, const std::string& text) {
  T value{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    fail_everywhere(fmt::format("graph '{}': {} '{}' is not a valid number", spec, what, text));
  return value;
}

}  // namespace

template <class T>
T SpecParams::first(const char* what) const {
  return number<T>(spec_, what, first_);
}

template <class T>
T SpecParams::get(const std::string& key, T fallback) {
  auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  T v = number<T>(spec_, key, it->second);
  params_.erase(it);
  return v;
}

template int SpecParams::first<int>(const char*) const;
template vid_t SpecParams::first<vid_t>(const char*) const;
template int SpecParams::get<int>(const std::string&, int);
template double SpecParams::get<double>(const std::string&, double);

void SpecParams::done() const {
  if (!params_.empty())
    fail_everywhere(
        fmt::format("graph '{}': unknown parameter '{}'", spec_, params_.begin()->first));
}

void SpecParams::require(bool ok, const std::string& what) const {
  if (!ok) fail_everywhere(fmt::format("graph '{}': {}", spec_, what));
}

const std::vector<FileFormat>& format_table() {
  static const std::vector<FileFormat> table = {
      {"mtx", "Matrix Market", {"mtx", "mm"}},
      {"el", "SNAP edge list, 0-based", {"txt", "edges", "el", "edgelist", "snap"}},
      {"tsv", "Graph Challenge, 1-based", {"tsv"}},
      {"mel", "matching paper binary CSR", {"bin", "mel"}},
      {"gcg", "graphcomm binary", {"gcg"}},
  };
  return table;
}

namespace {

// The load's estimated peak per rank (graph/build.hpp), with the kernel's
// arrays the options announce.
double load_bytes_per_rank(const Comm& comm, double undirected_edges, double vertices,
                           bool input_whole, const LoadOptions& options) {
  return load_footprint(undirected_edges, vertices, comm.size(), options.edge_weights, input_whole,
                        options.kernel_bytes_per_edge, options.kernel_bytes_per_vertex)
      .peak();
}

std::string extension_format(const std::string& path) {
  std::string p = path;
  if (p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0) p.resize(p.size() - 3);
  const auto dot = p.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : p.substr(dot + 1);
  for (const FileFormat& f : format_table())
    for (const char* e : f.extensions)
      if (ext == e) return f.prefix;
  return "";
}

// Builds from the input's pieces. build_seconds is the build's own time (the
// Graph500's kernel 1): this rank's time in build_graph less what it spent
// making pieces and inspecting them, max over ranks.
LoadedGraph from_pieces(const Comm& comm, vid_t n, const EdgePieces& input,
                        const LoadOptions& options) {
  double elsewhere = 0;
  const EdgePieces timed{input.count, [&](std::uint64_t i) {
                           const double t0 = MPI_Wtime();
                           const std::span<const Edge> piece = input.piece(i);
                           if (options.inspect_edges) options.inspect_edges(piece);
                           elsewhere += MPI_Wtime() - t0;
                           return piece;
                         }};
  LoadedGraph out;
  comm.barrier();
  const double t0 = MPI_Wtime();
  out.graph = build_graph(comm, n, timed, options.balance, BuildRecords::automatic,
                          options.edge_weights, options.duplicates);
  out.build_seconds = max_over_ranks(comm, MPI_Wtime() - t0 - elsewhere);
  return out;
}

LoadedGraph from_edges(const Comm& comm, vid_t n, std::vector<Edge> edges,
                       const LoadOptions& options) {
  return from_pieces(comm, n, pieces_of(comm, edges), options);
}

const GeneratorKind* generator_of(const std::string& kind) {
  for (const GeneratorKind& g : generator_table())
    if (kind == g.name || (g.alias && kind == g.alias)) return &g;
  return nullptr;
}

LoadedGraph generate(const Comm& comm, const std::string& spec, const GeneratorKind& kind,
                     const LoadOptions& options, nlohmann::json& desc) {
  SpecParams params(spec);
  Generated g = kind.parse(params, comm, options.seed);
  const double estimate = load_bytes_per_rank(
      comm, g.expected_edges, static_cast<double>(g.vertices), g.pieces == 0, options);
  refuse_if_too_big(comm, estimate, fmt::format("graph '{}'", spec));
  Progress::say(comm, "generating {} ({})", spec, g.note);
  const bool weights = options.edge_weights != EdgeWeights::none;
  auto piece = [&g, weights](std::uint64_t i) { return g.piece(i, weights); };
  LoadedGraph out = g.pieces > 0
                        ? from_pieces(comm, g.vertices, generated_pieces(g.pieces, piece), options)
                        : from_edges(comm, g.vertices, g.edges(), options);
  out.estimated_peak_bytes = estimate;
  desc.update(g.description);
  return out;
}

LoadedGraph read_file(const Comm& comm, const std::string& spec, const std::string& kind,
                      const LoadOptions& options, nlohmann::json& desc) {
  // With or without a format prefix.
  std::string format, path;
  for (const FileFormat& f : format_table())
    if (kind == f.prefix && kind.size() < spec.size()) {
      format = f.prefix;
      path = spec.substr(kind.size() + 1);
    }
  if (format.empty()) {
    path = spec;
    format = extension_format(path);
    if (format.empty()) {
      std::vector<std::string> prefixes;
      for (const FileFormat& f : format_table()) prefixes.push_back(std::string(f.prefix) + ":");
      fail_everywhere(fmt::format(
          "graph '{}': not a generator, and the file format cannot be told from the name; "
          "prefix it with {}",
          spec,
          fmt::format("{} or {}", fmt::join(prefixes.begin(), prefixes.end() - 1, ", "),
                      prefixes.back())));
    }
  }
  Progress::say(comm, "reading {} ({})", path, format);
  LoadedGraph out;
  if (format == "mel" || format == "gcg") {
    BinaryGraph b = format == "mel" ? read_mel(comm, path) : read_gcg(comm, path);
    out.graph = std::move(b.graph);
    if (options.edge_weights == EdgeWeights::none) out.graph.drop_weights();
    if (options.edge_weights == EdgeWeights::as_float) out.graph.round_weights_to_float();
    out.id_base = b.id_base;
    if (options.balance == Balance::edges)
      out.graph = redistribute(comm, out.graph,
                               edge_balanced(comm, out.graph.distribution(), out.graph.offsets()));
  } else {
    const TextFormat tf = format == "mtx"   ? TextFormat::matrix_market
                          : format == "tsv" ? TextFormat::graph_challenge_tsv
                                            : TextFormat::edge_list;
    TextGraph t = read_text_graph(comm, path, tf, options.weights, options.seed);
    const int base = t.id_base;
    const bool file_weights = t.weights_from_file;
    desc["entries"] = t.entries;
    // The vertex count comes from the file (size line or largest id): a
    // typo there must be refused here, not die of bad_alloc on every rank.
    const double estimate = load_bytes_per_rank(comm, static_cast<double>(t.entries),
                                                static_cast<double>(t.vertices), true, options);
    refuse_if_too_big(comm, estimate, fmt::format("graph '{}' with {} vertices", path, t.vertices));
    out = from_edges(comm, t.vertices, std::move(t.edges), options);
    out.estimated_peak_bytes = estimate;
    out.id_base = base;
    desc["weights"] = file_weights ? "file" : "seed";
  }
  desc.update({{"file", path}, {"format", format}});
  return out;
}

LoadedGraph load_input(const Comm& comm, const std::string& spec, const LoadOptions& options) {
  PhaseTimer timer(comm);
  const std::string kind = spec.substr(0, spec.find(':'));
  nlohmann::json desc = {{"spec", spec},
                         {"seed", options.seed},
                         {"distribution", options.balance == Balance::edges ? "edges" : "block"},
                         {"ordering", "none"}};
  const GeneratorKind* generator = generator_of(kind);
  LoadedGraph out = generator ? generate(comm, spec, *generator, options, desc)
                              : read_file(comm, spec, kind, options, desc);
  out.seconds = timer.stop();
  desc["id_base"] = out.id_base;
  out.description = std::move(desc);
  return out;
}

}  // namespace

const std::string& graph_spec_help() {
  static const std::string help = [] {
    std::string out = "Graph: a generator or a file.\n";
    for (const GeneratorKind& g : generator_table())
      out += fmt::format("  {:<40}{}\n", g.syntax, g.summary);
    for (const FileFormat& f : format_table()) {
      std::vector<std::string> extensions;
      for (const char* e : f.extensions) extensions.push_back(fmt::format(".{}", e));
      out += fmt::format("  {:<40}{} ({})\n", fmt::format("{}:FILE", f.prefix), f.summary,
                         fmt::join(extensions, " "));
    }
    out +=
        fmt::format("  {:<40}{}", "FILE", "the format taken from the extension (optionally .gz)");
    return out;
  }();
  return help;
}

std::string ordering_option(Ordering o) {
  return fmt::format("{} {}", o == Ordering::rcm ? "--reorder" : "--partition", ordering_name(o));
}

LoadedGraph load_graph(const Comm& comm, const std::string& spec, const LoadOptions& options) {
  if (options.ordering == Ordering::none) return load_input(comm, spec, options);
  const std::string why = ordering_unavailable(options.ordering);
  if (!why.empty()) fail_everywhere(fmt::format("{}: {}", ordering_option(options.ordering), why));
  LoadOptions input = options;
  input.balance = Balance::vertices;
  LoadedGraph out = load_input(comm, spec, input);
  out.description["distribution"] = options.balance == Balance::edges ? "edges" : "block";
  out.description["ordering"] = ordering_name(options.ordering);
  if (options.inspect_unordered) options.inspect_unordered(out.graph);
  Progress::say(comm, "{}",
                options.ordering == Ordering::rcm
                    ? "ordering by reverse Cuthill-McKee"
                    : fmt::format("partitioning by {}", ordering_name(options.ordering)));
  OrderedGraph ordered =
      order_graph(comm, out.graph, options.ordering, options.balance, options.seed);
  out.graph = std::move(ordered.graph);
  out.order_seconds = ordered.order_seconds;
  out.relabel_seconds = ordered.relabel_seconds;
  return out;
}

}  // namespace gc
