#include "comm/combined_plan_report.hpp"

namespace gc {

std::optional<CombinedPlanReport> report_combined_plan(const Comm& comm, const nbr::Plan* plan) {
  if (!plan) return std::nullopt;
  CombinedPlanReport r;
  r.groups = sum_over_ranks(comm, plan->figures.groups);
  r.steps = plan->figures.steps;
  r.messages = sum_over_ranks(comm, plan->figures.messages);
  r.direct_messages = sum_over_ranks(comm, plan->figures.default_messages);
  return r;
}

nlohmann::json to_json(const CombinedPlanReport& r) {
  return {{"groups", r.groups},
          {"steps", r.steps},
          {"messages_per_call", r.messages},
          {"direct_messages_per_call", r.direct_messages}};
}

}  // namespace gc
