// What ncl-combined's collaborative plan (nbr/plan.hpp) does for a kernel's
// exchanges, summed over the ranks, for its report: the friend groups formed
// and the messages one exchange call sends with the plan against the plain
// schedule's one per neighbour (Ghazimirsaeed et al.'s measure of what
// combining saves).
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"
#include "nbr/plan.hpp"

namespace gc {

struct CombinedPlanReport {
  std::uint64_t groups = 0;           // group memberships, summed (a group of k counts k)
  int steps = 0;                      // matching steps the build took
  std::uint64_t messages = 0;         // per exchange call, with the plan
  std::uint64_t direct_messages = 0;  // per exchange call, one per neighbour
};

// Collective. `plan`: Exchange::combined_plan() of this rank (null, on every
// rank, for the other models: then nullopt).
std::optional<CombinedPlanReport> report_combined_plan(const Comm& comm, const nbr::Plan* plan);

// {groups, steps, messages_per_call, direct_messages_per_call}
nlohmann::json to_json(const CombinedPlanReport& r);

}  // namespace gc
