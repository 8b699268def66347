// Rules every option of every command follows, applied once to the whole
// command tree after the commands are declared.
#include <regex>

#include "cli/commands.hpp"

namespace gc::cli {

namespace {

// CLI11 converts "-3" to an unsigned type by wrapping it (to 2^64 - 3): a
// negative value for an unsigned option is refused as it was written.
CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& value) {
        return !value.empty() && value.front() == '-' ? "must not be negative, not " + value
                                                      : std::string();
      },
      "", "not negative");
}

void apply(CLI::App& app) {
  // A range's description names the type itself: "INT:INT in [1 - 9]" -> "INT in [1 - 9]".
  static const std::regex doubled(R"(^(\w+):\1 in (.*)$)");
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name() == "UINT" || opt->get_type_name().starts_with("UINT:"))
      opt->check(not_negative());
    std::smatch m;
    const std::string label = opt->get_type_name();
    if (std::regex_match(label, m, doubled)) {
      const std::string shown = opt->get_default_str().empty() ? "" : "=" + opt->get_default_str();
      opt->option_text(m[1].str() + " in " + m[2].str() + shown);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) apply(*sub);
}

}  // namespace

void apply_option_rules(CLI::App& app) {
  apply(app);
}

}  // namespace gc::cli
