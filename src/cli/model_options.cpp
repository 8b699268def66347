// --model options: a model of this build, "all" or "auto" (advise/'s choice); a model this build
// lacks (OpenSHMEM models under MPICH) says why.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "comm/models.hpp"

namespace gc::cli {

CLI::Validator model_validator() {
  return CLI::Validator(
      [](const std::string& model) -> std::string {
        if (model == "all" || model == "auto") return {};
        for (const std::string& m : exchange_models())
          if (m == model) return {};
        for (const auto& [name, reason] : unavailable_exchange_models())
          if (name == model) return reason;
        return fmt::format("unknown model '{}' ({}, all or auto)", model,
                           fmt::join(exchange_models(), ", "));
      },
      "MODEL");
}

void add_exchange_options(CLI::App& app, ExchangeOptions& options) {
  app.add_option("--round-messages", options.round_messages,
                 "Bound on the exchange's buffers: at most N messages per neighbour and round in "
                 "flight, the rest wait for the next round (0: unbounded, buffers sized for "
                 "everything a phase may send)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 40))
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--plan-build",
         [&options](const std::string& build) { options.gathered_plan = build == "gathered"; },
         "ncl-combined's collaborative plan: distributed (every rank its side, as the paper), "
         "or gathered (rank 0 runs every rank's side and scatters the plans: the same plan, for "
         "simulations at thousands of ranks)")
      ->check(CLI::IsMember({"distributed", "gathered"}))
      ->default_str("distributed");
}

const char* plan_build_name(const ExchangeOptions& options) {
  return options.gathered_plan ? "gathered" : "distributed";
}

}  // namespace gc::cli
