// The allocations of a staged spec: one whose jobs name slurm schedulers (`scheduler:` per job)
// but which has no schedule_nodes action. As Torc's `torc slurm generate` does for such specs,
// `torcrun submit` gives each scheduler one on_jobs_ready schedule_nodes action over the jobs
// that name it (docs/TORC-COMPATIBILITY.md §4.12), so every stage gets its allocation when its
// jobs become ready: the first at submit, the later ones from the workers of earlier stages.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace torcrun::core {

struct derived_action {
    std::size_t index = 0;     // in the plan's actions
    std::string description;   // for the submitter: what was derived, over which jobs
};

// Appends the derived actions to plan.actions (in slurm_schedulers order, each with the jobs in
// the plan's order, num_allocations 1, scheduler_type slurm, located at the scheduler) and says
// what they are; none when the plan has a schedule_nodes action or no job names a scheduler.
// Labelled jobs are left out: the allocations' workers have no label and would never claim them.
std::vector<derived_action> derive_stage_actions(spec::creation_plan& plan);

}  // namespace torcrun::core
