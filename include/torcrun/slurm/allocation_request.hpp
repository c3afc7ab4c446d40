// What one `schedule_nodes` action asks of Slurm, for `torcrun submit` (from the spec) and for
// workers (from the server's records) alike: the action's slurm_scheduler over the workflow's
// slurm_defaults, made into the sbatch request of one allocation. Scheduler values win over the
// defaults, as in Torc's `schedule_nodes`; a default key the script sets itself is refused rather
// than silently doubled. Pure: the caller renders, writes and submits the script.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/slurm/sbatch_script.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core {

// A slurm_scheduler as the spec writes it and the server stores it (SlurmSchedulerModel).
struct scheduler_options {
    std::string name;
    std::string account;
    std::int64_t nodes = 1;
    std::string walltime;
    std::optional<std::string> partition;
    std::optional<std::string> qos;
    std::optional<std::string> mem;
    std::optional<std::string> gres;
    std::optional<std::string> tmp;
    std::optional<std::string> extra;
};

// What the action itself adds: a worker per node (direct mode) and a cap on parallel jobs.
struct schedule_options {
    bool per_node_workers = false;
    std::optional<std::int64_t> max_parallel_jobs;
};

// Where the allocations' workers report and write.
struct allocation_target {
    std::int64_t workflow_id = 0;
    std::string output_dir;    // absolute
    std::string torcrun_path;  // absolute
    std::optional<std::string> config_path;
    std::optional<std::string> url;
};

// The request of one allocation (job_name left unset); `slurm_defaults` is the workflow's JSON
// object text, if any. Errors: `slurm_defaults: "output" is set by the script itself`,
// `slurm_defaults: not a JSON object`.
result<sbatch_request> allocation_request(scheduler_options const& scheduler,
                                          std::optional<std::string> const& slurm_defaults,
                                          schedule_options const& action,
                                          allocation_target const& target);

// A SlurmSchedulerModel answer of the server; errors name the field:
// `slurm_scheduler 3: nodes: expected an integer, found a string`.
result<scheduler_options> decode_slurm_scheduler(std::string_view json, std::int64_t id);

// The workflow record's slurm_defaults as JSON object text (the server stores a JSON string,
// newer servers may answer an object); nullopt when absent, null or empty.
result<std::optional<std::string>> slurm_defaults_of(std::string_view workflow_json);

}  // namespace torcrun::core
