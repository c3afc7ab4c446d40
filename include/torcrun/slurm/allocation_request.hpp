// What one `schedule_nodes` action asks of Slurm, for `torcrun submit` (from the spec) and for
// workers (from the server's records) alike: the action's slurm_scheduler over the workflow's
// slurm_defaults, made into the sbatch request of one allocation. Scheduler values win over the
// defaults, as in Torc's `schedule_nodes`; a default key the script sets itself is refused rather
// than silently doubled. Pure: the caller renders, writes and submits the script.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/slurm/sbatch_script.hpp"

#include <boost/json/object.hpp>

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
    std::int64_t id = 0;  // the server's id; names the chain of serialize_allocations
    bool serialize_allocations = false;  // one allocation at a time (dependency=singleton)
};

// What the action itself adds: a worker per node (direct mode) and a cap on parallel jobs.
struct schedule_options {
    bool per_node_workers = false;
    std::optional<std::int64_t> max_parallel_jobs;
    std::int64_t num_allocations = 1;  // started together: they share the startup delay
};

// The workflow's execution_config keys that shape how the workers start (newer Torc).
struct worker_launch {
    // execution_config.mode: "direct" starts direct-mode workers, one per node in a multi-node
    // allocation (as Torc since #215) even when the action does not ask for it; otherwise (slurm,
    // auto, absent) the action decides: a worker per node, or one slurm-mode worker.
    std::optional<std::string> mode;
    std::optional<std::string> srun_mpi;  // the per-node workers' srun --mpi
    bool staggered_start = true;          // each worker waits up to startup_delay_seconds
};

// Where the allocations' workers report and write.
struct allocation_target {
    std::int64_t workflow_id = 0;
    std::string output_dir;    // absolute
    std::string torcrun_path;  // absolute
    std::optional<std::string> config_path;
    std::optional<std::string> url;
    worker_launch launch{};
    std::optional<std::string> tls_ca_cert = {};  // the workers' --tls-ca-cert (absolute)
};

// The chain of a scheduler's allocations under serialize_allocations, Torc's name for it:
// "torc-wf<workflow>-sched<scheduler id>", the same from `torcrun submit` and from workers.
std::string allocation_chain_name(std::int64_t workflow_id, std::int64_t scheduler_id);

// The request of one allocation (job_name left unset; singleton_chain set under
// serialize_allocations; the startup delay from the workers of all num_allocations);
// `slurm_defaults` is the workflow's JSON object text, if any. Errors: `slurm_defaults: "output" is set by the script itself`,
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

// srun_mpi and staggered_start of the workflow record's execution_config (object or its JSON
// text); Torc's defaults when absent. Errors: `workflow 3 execution_config: srun_mpi: expected a
// string, found a number`.
result<worker_launch> worker_launch_of(std::string_view workflow_json, std::int64_t workflow_id);

// The same from an execution_config object (a spec's, for `torcrun submit`).
result<worker_launch> worker_launch_from(boost::json::object const& execution_config,
                                         std::int64_t workflow_id);

}  // namespace torcrun::core
