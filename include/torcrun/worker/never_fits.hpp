// Jobs that can never run in this allocation: a ready job compared with the pool's capacity
// (what its nodes offer with nothing reserved) and with the time left, so a job that only waits
// for others to finish is never named. Pure; the worker state machine asks when it would go idle.
#pragma once

#include "torcrun/common/resources.hpp"
#include "torcrun/worker/worker_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

// Torc v0.25.1's STARTUP_GRACE_PERIOD_SECONDS (job_runner.rs, update_remaining_time_limit): a
// claim offers the time to the allocation's end plus this grace, so a job whose runtime is the
// allocation's walltime still fits a worker that started a minute late; `srun --time` (slurm
// mode) or the worker's drain before the end (direct mode) then ends a job that runs too long.
inline constexpr double claim_grace_seconds = 120;

// Why `job` can never run on `nodes` within `seconds_left` plus `grace_seconds` (seconds_left
// nullopt: no end known), as one line for the user: `job 7 "wide" needs 4 CPUs on each of 2
// nodes; this allocation has 1 CPU per node`, `job 7 "long" needs a runtime of PT2H; this
// allocation has 1800 s left (and a 120 s grace)`. nullopt when it could run once the nodes are
// free.
std::optional<std::string> never_fits(ready_job const& job, std::vector<node_capacity> const& nodes,
                                      std::optional<double> seconds_left,
                                      double grace_seconds = 0);

// Job labels (extension): whether a worker with `worker_label` claims `job` (the same label, or
// neither has one).
bool serves_label(ready_job const& job, std::optional<std::string> const& worker_label);

// Why a worker with `worker_label` never claims `job`, which it does not serve: `job 2 "g1" has
// label "gpu"; this worker claims only unlabelled jobs (a worker started with --label gpu claims
// it)`.
std::string label_not_served(ready_job const& job, std::optional<std::string> const& worker_label);

}  // namespace torcrun::core
