// One on_jobs_ready schedule_nodes action per scheduler that unlabelled jobs name, over those
// jobs.
#include "torcrun/cli/stage_actions.hpp"

#include <algorithm>

namespace torcrun::core {
namespace {

constexpr std::size_t jobs_named_in_description = 3;

std::string job_list(std::vector<std::string> const& names)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < jobs_named_in_description; ++i)
        out += (i ? ", " : "") + names[i];
    if (names.size() > jobs_named_in_description) {
        out += ", ... (" + std::to_string(names.size()) + " jobs)";
    }
    return out;
}

}  // namespace

std::vector<derived_action> derive_stage_actions(spec::creation_plan& plan)
{
    bool const scheduling = std::any_of(plan.actions.begin(), plan.actions.end(), [](auto const& a) {
        return a.action_type == "schedule_nodes";
    });
    if (scheduling) return {};
    std::vector<derived_action> out;
    for (auto const& s : plan.slurm_schedulers) {
        std::vector<std::string> names;
        // A labelled job waits for a worker of its label, which these allocations' workers
        // (started without one) are not: it counts toward no derived allocation.
        for (auto const& j : plan.jobs) {
            if (j.scheduler == s.name && !j.label) names.push_back(j.name);
        }
        if (names.empty()) continue;
        spec::planned_action a;
        a.trigger_type = "on_jobs_ready";
        a.action_type = "schedule_nodes";
        a.scheduler = s.name;
        a.scheduler_type = "slurm";
        a.num_allocations = 1;
        a.required_triggers = static_cast<std::int64_t>(names.size());
        a.where = s.where;
        auto const index = plan.actions.size();
        std::string description = "actions[" + std::to_string(index) +
                                  "] derived: on_jobs_ready schedule_nodes, slurm_schedulers \"" +
                                  s.name + "\", over " + job_list(names);
        a.job_names = std::move(names);
        plan.actions.push_back(std::move(a));
        out.push_back({index, std::move(description)});
    }
    return out;
}

}  // namespace torcrun::core
