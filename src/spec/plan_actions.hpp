// The action and scheduler steps of plan_creation (private to src/spec). Section numbers are
// those of docs/TORC-COMPATIBILITY.md.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <string>
#include <vector>

namespace torcrun::core::spec::detail {

// §4.3: each action's job selection against the created jobs.
result<std::vector<planned_action>> plan_actions(workflow_spec const& spec,
                                                 std::vector<expanded_job> const& jobs,
                                                 std::vector<std::string>& warnings);

// §4.2: a multi-node schedule_nodes action needs a job asking for that many nodes.
result<void> check_scheduler_nodes(workflow_spec const& spec,
                                   std::vector<expanded_job> const& jobs);

// Torc's --dry-run warning about schedulers that differ while some jobs name none.
void warn_heterogeneous_schedulers(workflow_spec const& spec, std::vector<expanded_job> const& jobs,
                                   std::vector<std::string>& warnings);

}  // namespace torcrun::core::spec::detail
