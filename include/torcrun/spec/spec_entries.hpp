// The typed workflow-spec entries that are not templates: resource requirements, failure
// handlers, Slurm schedulers, the resource monitor and actions (docs/TORC-COMPATIBILITY.md
// §4.2-§4.3), with Torc 0.10's defaults. `where` is the entry's "file:line:col", for messages
// found after parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core::spec {

struct resource_requirements_spec {
    std::string name;
    std::int64_t num_cpus = 0;
    std::string memory;  // checked with parse_memory
    std::int64_t num_gpus = 0;
    std::int64_t num_nodes = 1;
    std::string runtime = "PT1H";  // checked with parse_duration
    std::optional<std::int64_t> tasks_per_node;  // torcrun extension; absent = one per node
    std::string where;
};

struct failure_handler_rule_spec {
    std::vector<std::int32_t> exit_codes;
    bool match_all_exit_codes = false;
    std::optional<std::string> recovery_script;
    std::int32_t max_retries = 3;
};

struct failure_handler_spec {
    std::string name;
    std::vector<failure_handler_rule_spec> rules;
    std::string where;
};

struct slurm_scheduler_spec {
    std::string name;  // required by torcrun (Torc 0.10 silently drops unnamed schedulers)
    std::string account;
    std::int64_t nodes = 1;
    std::string walltime = "01:00:00";
    std::optional<std::string> partition;
    std::optional<std::string> mem;
    std::optional<std::string> gres;
    std::optional<std::string> qos;
    std::optional<std::string> tmp;
    std::optional<std::string> extra;
    std::optional<std::int64_t> ntasks_per_node;
    bool serialize_allocations = false;  // newer Torc: chained allocations
    std::string where;
};

// Both spellings are read (§4.10 item 2); Torc's code knows only the snake_case one.
enum class monitor_granularity { summary, time_series };

// Newer Torc's `compute_node` block: the whole node's CPU % and used memory, sampled by the
// worker every sample_interval_seconds; a flag turned off records 0 for its figure (as Torc).
struct node_monitor_spec {
    bool enabled = false;
    monitor_granularity granularity = monitor_granularity::summary;
    bool cpu = true;
    bool memory = true;

    bool operator==(node_monitor_spec const&) const = default;
};

// v0.10's form (`enabled`, `granularity`) or newer Torc's split one (`jobs`, `compute_node`);
// `enabled`/`granularity` are the jobs' settings either way (the legacy keys apply only when
// `jobs` is absent). `split` remembers which form was written, so the stored settings say both.
struct resource_monitor_spec {
    bool enabled = false;
    monitor_granularity granularity = monitor_granularity::summary;
    std::int32_t sample_interval_seconds = 5;
    bool generate_plots = false;
    bool split = false;                                   // `jobs` or `compute_node` written
    std::optional<std::int32_t> flush_interval_seconds;  // newer Torc (time series only)
    std::optional<node_monitor_spec> compute_node;       // as written (absent: Torc's off)
};

// What a client stores when a spec has no `resource_monitor` (§4.2).
inline resource_monitor_spec default_resource_monitor()
{
    return {true, monitor_granularity::summary, 5, false, false, std::nullopt, std::nullopt};
}

struct action_spec {
    std::string trigger_type;  // not checked against the known triggers (a warning only)
    std::string action_type;   // "run_commands" or "schedule_nodes"
    std::optional<std::vector<std::string>> jobs;
    std::optional<std::vector<std::string>> job_name_regexes;
    std::optional<std::vector<std::string>> commands;
    std::optional<std::string> scheduler;
    std::optional<std::string> scheduler_type;
    std::int64_t num_allocations = 1;
    bool start_one_worker_per_node = false;
    std::optional<std::int32_t> max_parallel_jobs;
    bool persistent = false;
    std::string where;
};

}  // namespace torcrun::core::spec
