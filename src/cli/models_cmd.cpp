// graphcomm models: what this build can run, from the registries themselves
// (exchange models, algorithms, methods, engines, graph kinds), as a table
// or as JSON. graphcomm-lab takes its model lists from the JSON.
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "comm/models.hpp"
#include "core/output.hpp"
#include "graph/spec_kinds.hpp"
#include "kernels/bfs/bfs.hpp"
#include "kernels/match/match.hpp"
#include "kernels/spmm/spmm.hpp"
#include "kernels/sssp/sssp.hpp"
#include "mq/engines/engine.hpp"
#include "nbr/bench_caller.hpp"

namespace gc::cli {

namespace {

const char* needs_name(Needs needs) {
  return needs == Needs::openshmem ? "openshmem" : "mpi";
}

nlohmann::json registries() {
  nlohmann::json doc;
  auto& models = doc["exchange_models"] = nlohmann::json::array();
  for (const ExchangeModel& m : exchange_model_table()) {
    nlohmann::json row = {{"name", m.name},
                          {"summary", m.summary},
                          {"needs", needs_name(m.needs)},
                          {"available", m.make != nullptr}};
    if (!m.make) row["unavailable"] = why_unavailable(m);
    models.push_back(row);
  }
  auto& match = doc["match_algorithms"] = nlohmann::json::array();
  for (const match::AlgorithmInfo& a : match::algorithm_table())
    match.push_back({{"name", a.name}, {"summary", a.summary}});
  auto& bfs = doc["bfs_algorithms"] = nlohmann::json::array();
  for (const bfs::AlgorithmInfo& a : bfs::algorithm_table())
    bfs.push_back({{"name", a.name}, {"summary", a.summary}, {"uses_exchange", a.uses_exchange}});
  auto& sssp = doc["sssp_algorithms"] = nlohmann::json::array();
  for (const sssp::AlgorithmInfo& a : sssp::algorithm_table())
    sssp.push_back({{"name", a.name}, {"summary", a.summary}});
  auto& spmm = doc["spmm_methods"] = nlohmann::json::array();
  for (const spmm::MethodInfo& m : spmm::method_table())
    spmm.push_back({{"name", m.name}, {"summary", m.summary}});
  auto& nbr = doc["nbr_collectives"] = nlohmann::json::array();
  for (const auto& [name, summary] : nbr::collective_table())
    nbr.push_back({{"name", name}, {"summary", summary}});
  auto& engines = doc["mq_engines"] = nlohmann::json::array();
  for (const mq::EngineInfo& e : mq::engine_table())
    engines.push_back(
        {{"name", e.name}, {"summary", e.summary}, {"takes_profile", e.takes_profile}});
  auto& generators = doc["graph_generators"] = nlohmann::json::array();
  for (const GeneratorKind& g : generator_table()) {
    nlohmann::json row = {{"name", g.name}, {"syntax", g.syntax}, {"summary", g.summary}};
    if (g.alias) row["alias"] = g.alias;
    generators.push_back(row);
  }
  auto& formats = doc["graph_formats"] = nlohmann::json::array();
  for (const FileFormat& f : format_table())
    formats.push_back({{"name", f.prefix}, {"summary", f.summary}, {"extensions", f.extensions}});
  return doc;
}

// The sections of the table: the JSON key and where the values go.
constexpr std::pair<const char*, const char*> kSections[] = {
    {"exchange_models", "exchange models (match, bfs, sssp: --model)"},
    {"match_algorithms", "matching algorithms (match --algorithm)"},
    {"bfs_algorithms", "BFS algorithms (bfs --algorithm)"},
    {"sssp_algorithms", "SSSP algorithms (sssp --algorithm)"},
    {"spmm_methods", "SpMM methods (spmm --method)"},
    {"nbr_collectives", "neighbour collectives (nbr bench --collective)"},
    {"mq_engines", "matching engines (mq replay --engine)"},
    {"graph_generators", "graph generators (--graph NAME:...)"},
    {"graph_formats", "graph file formats (--graph [FORMAT:]FILE)"},
};

// `text` in lines of at most kWidth columns, the first after a name column,
// the others indented to it.
constexpr size_t kName = 22, kWidth = 100;
std::string wrapped(const std::string& name, const std::string& text) {
  std::string out = fmt::format("  {:<{}}", name, kName), line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && 2 + kName + line.size() + 1 + word.size() > kWidth) {
      out += line + "\n" + std::string(2 + kName, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line + "\n";
}

void print_table(const nlohmann::json& doc) {
  std::string out;
  for (const auto& [key, title] : kSections) {
    out += fmt::format("{}:\n", title);
    for (const nlohmann::json& row : doc[key]) {
      std::string what = row.value("summary", "");
      if (row.contains("unavailable"))
        what = fmt::format("unavailable in this build: {}", row["unavailable"].get<std::string>());
      out += wrapped(row["name"].get<std::string>(), what);
    }
  }
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_models_command(CLI::App& app, Runner& run) {
  static std::string json;
  CLI::App* cmd = app.add_subcommand(
      "models", "What this build runs: exchange models, algorithms, engines, graph kinds");
  cmd->add_option("--json", json, "Write them as JSON (docs/json-schema.md)");
  cmd->callback([&run] {
    run = [](const Comm& comm, const Invocation& inv) {
      const nlohmann::json doc = registries();
      if (comm.rank() == 0) print_table(doc);
      if (!json.empty()) {
        nlohmann::json out = result_envelope(comm, "models", inv.argc, inv.argv);
        out.update(doc);
        write_json_on_root(comm, json, out);
      }
    };
  });
}

}  // namespace gc::cli
