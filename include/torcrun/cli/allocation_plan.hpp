// The Slurm allocations a workflow's `schedule_nodes` actions ask for, as `torcrun submit`
// carries them out (docs/TORC-COMPATIBILITY.md §4.12): per action,
// `num_allocations` sbatch scripts of its `slurm_scheduler` (account, partition, qos, nodes,
// walltime, gres, mem, tmp, extra) over the workflow's `slurm_defaults`, with one slurm-mode
// worker per allocation, or one direct-mode worker per node (`start_one_worker_per_node`).
// Pure: the caller supplies the paths, writes the scripts and runs sbatch.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/config/config.hpp"
#include "torcrun/slurm/allocation_request.hpp"
#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/spec/creation_plan.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

struct allocation_settings {
    std::int64_t workflow_id = 1;  // before creation: any id, to check the scripts
    std::string output_dir;        // absolute
    std::string torcrun_path;      // absolute
    std::optional<std::string> config_path;
    std::optional<std::string> url;
    std::optional<std::string> tls_ca_cert = {};  // the workers' --tls-ca-cert (absolute)
    // The server's scheduler ids by name, which name the serialize_allocations chains;
    // before creation none (id 0 in the chain name, to check the scripts).
    std::map<std::string, std::int64_t, std::less<>> scheduler_ids{};
};

struct planned_allocation {
    std::size_t action = 0;  // its index in the spec's actions
    std::string what;       // `actions[0] (schedule_nodes, slurm_schedulers "gpu")`
    std::string scheduler;  // the scheduler's name
    std::size_t number = 1;  // 1..num_allocations of its action
    sbatch_request request;
    std::string script_text;
    std::string script_path;  // <output_dir>/<job name>.sh
};

// Every allocation of the plan's on_workflow_start schedule_nodes actions, in action order;
// none when there are none. Refusals name the action and the scheduler:
// `spec.json5:20:5: actions[0] (schedule_nodes, slurm_schedulers "gpu"): --time: "1h" is not
// a Slurm time (...)`, a scheduler_type other than slurm, num_allocations below 1.
result<std::vector<planned_allocation>> plan_allocations(spec::creation_plan const& plan,
                                                         allocation_settings const& settings,
                                                         worker_config const& config);

// The same for the given schedule_nodes actions (indices into the plan's actions, in order),
// whatever their trigger: those whose trigger has fired when submit runs.
result<std::vector<planned_allocation>> plan_allocations(spec::creation_plan const& plan,
                                                         std::vector<std::size_t> const& actions,
                                                         allocation_settings const& settings,
                                                         worker_config const& config);

// The indices of the plan's on_workflow_start schedule_nodes actions.
std::vector<std::size_t> workflow_start_actions(spec::creation_plan const& plan);

// The indices of every schedule_nodes action submit or a worker may carry out: those of
// on_workflow_start, and the job-gated ones of scheduler_type slurm (their scripts are checked
// before the workflow is created).
std::vector<std::size_t> schedulable_actions(spec::creation_plan const& plan);

// A warning when compute nodes cannot reach `url` (a loopback host), else nullopt.
std::optional<std::string> unreachable_url_warning(std::string const& url);

}  // namespace torcrun::core
