#include "mq/engines/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "mq/engines/engines.hpp"

namespace gc::mq {

const std::vector<EngineInfo>& engine_table() {
  static const std::vector<EngineInfo> table = {
      {"linked-list", "one PRQ and one UMQ, each searched from the head (MPICH, MVAPICH)", false,
       make_linked_list},
      {"rank-array", "Open MPI ob1: per communicator, a PRQ and a UMQ per source rank", false,
       make_rank_array},
      {"bins", "Flajslik, Dinan and Underwood (ISC 2016): bins hashed by (comm, source, tag)",
       false, make_bins},
      {"hash", "UCX's tag matching: buckets hashed by the 64-bit tag", false, make_hash},
      {"vectors", "ob1's vector matching: SIMD scans of queue nodes of 8 or 16 slots", false,
       make_vectors},
      {"partner-static",
       "Ghazimirsaeed et al. (CCPE 2018), static: partner queues chosen from a profile", true,
       make_partner_static},
      {"partner-dynamic",
       "Ghazimirsaeed et al. (CCPE 2018), dynamic: partners extracted from long queues as they "
       "grow",
       false, make_partner_dynamic},
      {"partner-vectors", "partner-static with vector queues for the non-partners", true,
       make_partner_vectors},
  };
  return table;
}

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const EngineInfo& e : engine_table()) out.emplace_back(e.name);
    return out;
  }();
  return names;
}

bool takes_profile(std::string_view name) {
  for (const EngineInfo& e : engine_table())
    if (name == e.name) return e.takes_profile;
  return false;
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options) {
  for (const EngineInfo& e : engine_table())
    if (name == e.name) return e.make(options);
  fail(fmt::format("unknown matching engine '{}' (one of: {})", name,
                   fmt::join(engine_names(), ", ")));
}

}  // namespace gc::mq
