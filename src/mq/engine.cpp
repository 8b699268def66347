#include "mq/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "mq/engines.hpp"

namespace gc::mq {

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names{
      "linked-list",    "rank-array",      "bins",           "hash", "vectors",
      "partner-static", "partner-dynamic", "partner-vectors"};
  return names;
}

bool takes_profile(std::string_view name) {
  return name == "partner-static" || name == "partner-vectors";
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options) {
  if (name == "linked-list") return make_linked_list(options);
  if (name == "rank-array") return make_rank_array(options);
  if (name == "bins") return make_bins(options);
  if (name == "hash") return make_hash(options);
  if (name == "vectors") return make_vectors(options);
  if (name == "partner-static") return make_partner_static(options);
  if (name == "partner-dynamic") return make_partner_dynamic(options);
  if (name == "partner-vectors") return make_partner_vectors(options);
  fail(fmt::format("unknown matching engine '{}' (one of: {})", name,
                   fmt::join(engine_names(), ", ")));
}

}  // namespace gc::mq
