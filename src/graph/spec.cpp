#include "graph/spec.hpp"

#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/memory.hpp"
#include "core/output.hpp"
#include "graph/binary_io.hpp"
#include "graph/generators.hpp"

namespace gc {

namespace {

// "name:first,key=value,..." -> name, first, {key: value}.
struct ParsedSpec {
  std::string name;
  std::string first;
  std::map<std::string, std::string> params;
};

ParsedSpec split_spec(const std::string& spec) {
  ParsedSpec out;
  auto colon = spec.find(':');
  out.name = spec.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  size_t start = 0;
  bool first = true;
  while (start <= rest.size()) {
    size_t comma = rest.find(',', start);
    std::string item =
        rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (first) {
      out.first = item;
      first = false;
    } else {
      auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        fail_everywhere(fmt::format("graph '{}': parameter '{}' is not key=value", spec, item));
      out.params[item.substr(0, eq)] = item.substr(eq + 1);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

template <class T>
T number(const std::string& spec, const std::string& what, const std::string& text) {
  T value{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    fail_everywhere(fmt::format("graph '{}': {} '{}' is not a valid number", spec, what, text));
  return value;
}

class Params {
 public:
  Params(const std::string& spec, ParsedSpec parsed) : spec_(spec), parsed_(std::move(parsed)) {}
  template <class T>
  T get(const std::string& key, T fallback) {
    auto it = parsed_.params.find(key);
    if (it == parsed_.params.end()) return fallback;
    T v = number<T>(spec_, key, it->second);
    parsed_.params.erase(it);
    return v;
  }
  template <class T>
  T first(const char* what) {
    return number<T>(spec_, what, parsed_.first);
  }
  void done() {
    if (!parsed_.params.empty())
      fail_everywhere(
          fmt::format("graph '{}': unknown parameter '{}'", spec_, parsed_.params.begin()->first));
  }

 private:
  std::string spec_;
  ParsedSpec parsed_;
};

void require(bool ok, const std::string& spec, const std::string& what) {
  if (!ok) fail_everywhere(fmt::format("graph '{}': {}", spec, what));
}

// Peak bytes per rank of building a graph with `directed_edges` entries: the
// generated slice, send and receive buffers and the CSR under construction.
double build_bytes_per_rank(const Comm& comm, double undirected_edges, double vertices) {
  const double per_rank = undirected_edges / comm.size();
  return per_rank * (24 + 2 * 24 + 2 * 24 + 2 * 16 + 2 * 8) + vertices / comm.size() * 24 +
         (64 << 20);
}

std::string extension_format(const std::string& path) {
  std::string p = path;
  if (p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0) p.resize(p.size() - 3);
  auto dot = p.rfind('.');
  std::string ext = dot == std::string::npos ? "" : p.substr(dot + 1);
  if (ext == "mtx" || ext == "mm") return "mtx";
  if (ext == "tsv") return "tsv";
  if (ext == "txt" || ext == "edges" || ext == "el" || ext == "edgelist" || ext == "snap")
    return "el";
  if (ext == "bin" || ext == "mel") return "mel";
  if (ext == "gcg") return "gcg";
  return "";
}

LoadedGraph from_edges(const Comm& comm, vid_t n, std::vector<Edge> edges,
                       const LoadOptions& options) {
  LoadedGraph out;
  if (options.inspect_edges) options.inspect_edges(edges);
  PhaseTimer timer(comm);
  out.graph = build_graph(comm, n, std::move(edges), options.balance);
  out.build_seconds = timer.stop();
  return out;
}

}  // namespace

const char* graph_spec_help() {
  return "Graph: a generator or a file.\n"
         "  rmat:SCALE[,ef=16,a=0.57,b=0.19,c=0.19]  Graph500 Kronecker, 2^SCALE vertices\n"
         "  rgg:N[,r=RADIUS]                        random geometric graph in the unit square\n"
         "  er:N[,d=AVG_DEGREE|p=PROB]              Erdos-Renyi G(n,p) (default d=16)\n"
         "  sbm:N[,blocks=8,pin=P,pout=Q]           stochastic block model\n"
         "  grid:SIDE[,d=3]                         SIDE^d grid (7-point stencil in 3D), mesh "
         "order\n"
         "  [FORMAT:]FILE  FORMAT one of mtx (Matrix Market), el (SNAP edge list, 0-based),\n"
         "                 tsv (Graph Challenge, 1-based), mel (matching paper binary CSR),\n"
         "                 gcg (graphcomm binary); taken from the extension when omitted\n"
         "                 (.mtx .txt/.edges/.el .tsv .bin/.mel .gcg, optionally .gz)";
}

static LoadedGraph load_input(const Comm& comm, const std::string& spec,
                              const LoadOptions& options) {
  PhaseTimer timer(comm);
  const std::string kind = spec.substr(0, spec.find(':'));
  const bool generator = kind == "rmat" || kind == "kronecker" || kind == "rgg" || kind == "er" ||
                         kind == "sbm" || kind == "grid";
  ParsedSpec parsed;
  if (generator) parsed = split_spec(spec);
  LoadedGraph out;
  nlohmann::json desc = {{"spec", spec},
                         {"seed", options.seed},
                         {"distribution", options.balance == Balance::edges ? "edges" : "block"},
                         {"ordering", "none"}};

  if (kind == "rmat" || kind == "kronecker") {
    Params p(spec, parsed);
    RmatParams r;
    r.scale = p.first<int>("SCALE");
    r.edgefactor = p.get<int>("ef", 16);
    r.a = p.get<double>("a", r.a);
    r.b = p.get<double>("b", r.b);
    r.c = p.get<double>("c", r.c);
    p.done();
    require(r.scale >= 1 && r.scale <= 42, spec, "SCALE must be between 1 and 42");
    require(r.edgefactor >= 1, spec, "edgefactor must be at least 1");
    require(r.a > 0 && r.b >= 0 && r.c >= 0 && r.a + r.b + r.c < 1 && r.a + r.b < 1, spec,
            "a, b, c must be probabilities with a+b+c < 1");
    const double n = std::ldexp(1.0, r.scale), m = n * r.edgefactor;
    refuse_if_too_big(comm, build_bytes_per_rank(comm, m, n), fmt::format("graph '{}'", spec));
    Progress::say(comm,
                  "generating {} ({} vertices, {} edges before dropping self-loops and duplicates)",
                  spec, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m));
    out = from_edges(comm, vid_t{1} << r.scale, rmat_edges(comm, r, options.seed), options);
    desc.update({{"generator", "rmat"},
                 {"scale", r.scale},
                 {"edgefactor", r.edgefactor},
                 {"a", r.a},
                 {"b", r.b},
                 {"c", r.c}});
  } else if (kind == "rgg") {
    Params p(spec, parsed);
    RggParams r;
    r.n = p.first<vid_t>("N");
    r.radius = p.get<double>("r", 0.0);
    p.done();
    require(r.n >= 1, spec, "N must be at least 1");
    require(r.radius >= 0 && r.radius < 1.5, spec, "radius must be in (0, 1.5)");
    if (r.radius == 0) r.radius = rgg_default_radius(r.n);
    const double expected =
        std::min(static_cast<double>(r.n) * r.n / 2,
                 static_cast<double>(r.n) * r.n * 3.1416 * r.radius * r.radius / 2);
    refuse_if_too_big(comm, build_bytes_per_rank(comm, expected, static_cast<double>(r.n)),
                      fmt::format("graph '{}'", spec));
    Progress::say(comm, "generating {} (radius {:.6g})", spec, r.radius);
    out = from_edges(comm, r.n, rgg_edges(comm, r, options.seed), options);
    desc.update({{"generator", "rgg"}, {"n", r.n}, {"radius", r.radius}});
  } else if (kind == "er") {
    Params p(spec, parsed);
    ErParams r;
    r.n = p.first<vid_t>("N");
    r.avg_degree = p.get<double>("d", 16.0);
    r.p = p.get<double>("p", 0.0);
    p.done();
    require(r.n >= 1, spec, "N must be at least 1");
    require(r.p >= 0 && r.p <= 1 && r.avg_degree >= 0, spec,
            "p must be in [0,1] and d non-negative");
    if (r.p == 0)
      r.p = std::min(1.0, r.avg_degree / std::max<double>(1, static_cast<double>(r.n) - 1));
    refuse_if_too_big(
        comm, build_bytes_per_rank(comm, r.p * r.n * (r.n - 1) / 2, static_cast<double>(r.n)),
        fmt::format("graph '{}'", spec));
    Progress::say(comm, "generating {} (p = {:.6g})", spec, r.p);
    if (r.p > 0)
      out = from_edges(comm, r.n, er_edges(comm, r, options.seed), options);
    else
      out = from_edges(comm, r.n, {}, options);
    desc.update({{"generator", "er"}, {"n", r.n}, {"p", r.p}});
  } else if (kind == "sbm") {
    Params p(spec, parsed);
    SbmParams r;
    r.n = p.first<vid_t>("N");
    r.blocks = p.get<int>("blocks", 8);
    r.p_in = p.get<double>("pin", 0.0);
    r.p_out = p.get<double>("pout", 0.0);
    p.done();
    require(r.n >= 1, spec, "N must be at least 1");
    require(r.blocks >= 1 && static_cast<vid_t>(r.blocks) <= r.n, spec,
            "blocks must be between 1 and N");
    require(r.p_in >= 0 && r.p_in <= 1 && r.p_out >= 0 && r.p_out <= 1, spec,
            "pin and pout must be in [0,1]");
    const double bs = static_cast<double>(r.n) / r.blocks;
    if (r.p_in == 0) r.p_in = std::min(1.0, 12.0 / std::max(1.0, bs - 1));
    if (r.p_out == 0 && r.blocks > 1) r.p_out = std::min(1.0, 4.0 / std::max(1.0, r.n - bs));
    const double expected = r.p_in * bs * bs / 2 * r.blocks +
                            r.p_out * (static_cast<double>(r.n) * r.n - bs * bs * r.blocks) / 2;
    refuse_if_too_big(comm, build_bytes_per_rank(comm, expected, static_cast<double>(r.n)),
                      fmt::format("graph '{}'", spec));
    Progress::say(comm, "generating {} (p_in = {:.6g}, p_out = {:.6g})", spec, r.p_in, r.p_out);
    out = from_edges(comm, r.n, sbm_edges(comm, r, options.seed), options);
    desc.update({{"generator", "sbm"},
                 {"n", r.n},
                 {"blocks", r.blocks},
                 {"p_in", r.p_in},
                 {"p_out", r.p_out}});
  } else if (kind == "grid") {
    Params p(spec, parsed);
    GridParams r;
    r.side = p.first<vid_t>("SIDE");
    r.dimensions = p.get<int>("d", 3);
    p.done();
    require(r.dimensions >= 1 && r.dimensions <= 6, spec, "d must be between 1 and 6");
    require(r.side >= 1 && std::pow(static_cast<double>(r.side), r.dimensions) < 0x1p40, spec,
            "SIDE must be at least 1, and SIDE^d below 2^40");
    const vid_t n = grid_vertex_count(r);
    refuse_if_too_big(
        comm,
        build_bytes_per_rank(comm, static_cast<double>(n) * r.dimensions, static_cast<double>(n)),
        fmt::format("graph '{}'", spec));
    Progress::say(comm, "generating {} ({} vertices)", spec, n);
    out = from_edges(comm, n, grid_edges(comm, r, options.seed), options);
    desc.update({{"generator", "grid"}, {"side", r.side}, {"dimensions", r.dimensions}});
  } else {
    // A file, with or without a format prefix.
    std::string format, path;
    static const char* prefixes[] = {"mtx", "el", "tsv", "mel", "gcg"};
    bool prefixed = false;
    for (const char* prefix : prefixes)
      if (kind == prefix && kind.size() < spec.size()) {
        format = prefix;
        path = spec.substr(kind.size() + 1);
        prefixed = true;
      }
    if (!prefixed) {
      path = spec;
      format = extension_format(path);
      if (format.empty())
        fail_everywhere(fmt::format(
            "graph '{}': not a generator, and the file format cannot be told from the name; "
            "prefix it with mtx:, el:, tsv:, mel: or gcg:",
            spec));
    }
    Progress::say(comm, "reading {} ({})", path, format);
    if (format == "mel" || format == "gcg") {
      BinaryGraph b = format == "mel" ? read_mel(comm, path) : read_gcg(comm, path);
      out.graph = std::move(b.graph);
      out.id_base = b.id_base;
      if (options.balance == Balance::edges)
        out.graph = redistribute(
            comm, out.graph, edge_balanced(comm, out.graph.distribution(), out.graph.offsets()));
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
      refuse_if_too_big(comm,
                        build_bytes_per_rank(comm, static_cast<double>(t.entries),
                                             static_cast<double>(t.vertices)),
                        fmt::format("graph '{}' with {} vertices", path, t.vertices));
      out = from_edges(comm, t.vertices, std::move(t.edges), options);
      out.id_base = base;
      desc["weights"] = file_weights ? "file" : "seed";
    }
    desc.update({{"file", path}, {"format", format}});
  }
  out.seconds = timer.stop();
  desc["id_base"] = out.id_base;
  out.description = std::move(desc);
  return out;
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
