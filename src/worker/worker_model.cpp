// Names of the worker model's enumerations and Torc's failure-rule matching.
#include "torcrun/worker/worker_model.hpp"

#include <algorithm>

namespace torcrun::core {

failure_rule const* match_rule(failure_handler const& handler, int return_code)
{
    for (auto const& rule : handler.rules)
        if (std::ranges::find(rule.exit_codes, return_code) != rule.exit_codes.end()) return &rule;
    for (auto const& rule : handler.rules)
        if (rule.match_all_exit_codes) return &rule;
    return nullptr;
}

std::string_view to_string(result_status status)
{
    static constexpr std::string_view names[] = {"completed", "failed", "canceled", "terminated",
                                                 "pending_failed"};
    return names[static_cast<int>(status)];
}

std::string_view to_string(action_trigger trigger)
{
    static constexpr std::string_view names[] = {"on_workflow_start",    "on_worker_start",
                                                 "on_workflow_complete", "on_worker_complete",
                                                 "on_jobs_ready",        "on_jobs_complete"};
    return names[static_cast<int>(trigger)];
}

}  // namespace torcrun::core
