// The server's data as the worker state machine needs it: plain values, no JSON. The io shell
// converts Torc's models (docs/TORC-COMPATIBILITY.md §2.2, §3.1, §3.3) into these and back; memory
// strings and ISO-8601 runtimes arrive already parsed.
#pragma once

#include "torcrun/common/env_map.hpp"

#include "torcrun/common/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// A job as a claim reply returns it: `pending` on the server, or `running` when the claim also
// started it (a claim with start=true, extension): then no start_job follows.
struct claimed_job {
    std::int64_t id = 0;
    std::string name;
    std::string command;
    std::optional<std::string> invocation_script;
    std::int64_t resource_requirements_id = 0;
    std::optional<std::int64_t> failure_handler_id;
    std::uint32_t attempt_id = 1;
    std::vector<std::int64_t> output_file_ids;  // checked after a zero exit
    env_map env;  // the job's own `env` (newer Torc); the workflow's is applied under it
    bool started = false;  // the reply's status is "running": the claim started it

    bool operator==(claimed_job const&) const = default;
};

// ResourceRequirementsModel, per node: `need.memory_bytes` from the memory string, the runtime
// in seconds from the ISO-8601 duration (nullopt when the server sent none). tasks_per_node is
// torcrun's extension of the model (MPI ranks per node of a multi-node job); Torc sends none.
struct job_resources {
    std::int64_t id = 0;
    std::string name;
    job_requirement need;
    std::optional<double> runtime_seconds;
    std::optional<std::uint32_t> tasks_per_node;

    bool operator==(job_resources const&) const = default;
};

// A job the server holds `ready`, with its requirements, as the never-fit check reads them;
// `memory` and `runtime` are the texts the user wrote ("1000g", "PT2H"; empty when absent).
struct ready_job {
    std::int64_t id = 0;
    std::string name;
    job_resources resources;
    std::string memory;
    std::string runtime;
    std::optional<std::string> label;  // extension: claimed only by workers of this label

    bool operator==(ready_job const&) const = default;
};

// One rule of a failure handler, parsed from the handler's `rules` JSON string.
struct failure_rule {
    std::vector<int> exit_codes;
    bool match_all_exit_codes = false;
    std::optional<std::string> recovery_script;
    std::uint32_t max_retries = 0;

    bool operator==(failure_rule const&) const = default;
};

struct failure_handler {
    std::int64_t id = 0;
    std::vector<failure_rule> rules;

    bool operator==(failure_handler const&) const = default;
};

// Torc's matching: the first rule listing the code, else the first match-all rule; nullptr when
// neither exists.
failure_rule const* match_rule(failure_handler const& handler, int return_code);

// The statuses a worker reports for an attempt (complete_job accepts exactly these).
enum class result_status { completed, failed, canceled, terminated, pending_failed };

std::string_view to_string(result_status status);

// Resource use of the job's process tree, when sampled.
struct job_usage {
    std::uint64_t peak_memory_bytes = 0;
    std::uint64_t avg_memory_bytes = 0;
    double peak_cpu_percent = 0;
    double avg_cpu_percent = 0;

    bool operator==(job_usage const&) const = default;
};

// ResultModel: the record of one attempt. completion_time is Unix seconds (the shell formats it).
struct job_result {
    std::int64_t job_id = 0;
    std::int64_t workflow_id = 0;
    std::int64_t run_id = 0;
    std::uint32_t attempt_id = 1;
    std::int64_t compute_node_id = 0;
    int return_code = 0;
    double exec_time_minutes = 0;
    double completion_time = 0;
    result_status status = result_status::completed;
    std::optional<job_usage> usage;
    // The GPU ids the attempt held (every node of its placement, in order); kept in result.json
    // and the journal, not sent: Torc v0.10's result has no such field.
    std::vector<std::string> gpu_ids;
    // slurm mode: the node(s) of the attempt's step ("n2", "n[1-2]"); empty in direct mode (the
    // compute node's host). Kept like gpu_ids, not sent.
    std::string nodes;

    bool operator==(job_result const&) const = default;
};

// complete: `complete_job` (or a batch entry) ends the attempt and sets the job's status.
// record: `POST /results` only stores the record of an attempt that was retried; the job itself
// went back to `ready` through `retry`, so no failure cascade is triggered by it.
enum class report_kind { complete, record };

struct job_report {
    report_kind kind = report_kind::complete;
    job_result result;

    bool operator==(job_report const&) const = default;
};

// The workflow action triggers a worker runs itself (docs/TORC-COMPATIBILITY.md §2.2, §6.2):
// the start and exit ones at its start and exit, the job-gated ones while it runs.
enum class action_trigger {
    on_workflow_start,
    on_worker_start,
    on_workflow_complete,
    on_worker_complete,
    on_jobs_ready,
    on_jobs_complete
};

std::string_view to_string(action_trigger trigger);

// action_config of a `schedule_nodes` action: which slurm_scheduler (its record id), how many
// allocations, a worker per node, the workers' cap on parallel jobs.
struct allocation_config {
    std::string scheduler_type;  // only "slurm" is carried out by workers
    std::int64_t scheduler_id = 0;
    std::int64_t num_allocations = 1;
    bool start_one_worker_per_node = false;
    std::optional<std::int64_t> max_parallel_jobs;

    bool operator==(allocation_config const&) const = default;
};

// WorkflowActionModel, reduced to what workers run: `run_commands` (its commands) and
// `schedule_nodes` (its allocation_config). A persistent action may be claimed by every worker;
// each worker runs it once.
struct workflow_action {
    std::int64_t id = 0;
    std::string action_type;            // "run_commands", "schedule_nodes", ...
    std::vector<std::string> commands;  // action_config.commands for run_commands
    std::string trigger_type;           // as the server names it
    bool persistent = false;
    std::optional<allocation_config> allocations;  // schedule_nodes

    bool operator==(workflow_action const&) const = default;
};

}  // namespace torcrun::core
