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

void add_round_messages_option(CLI::App& app, std::uint64_t& round_messages) {
  app.add_option("--round-messages", round_messages,
                 "Bound on the exchange's buffers: at most N messages per neighbour and round in "
                 "flight, the rest wait for the next round (0: unbounded, buffers sized for "
                 "everything a phase may send)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 40))
      ->capture_default_str();
}

}  // namespace gc::cli
