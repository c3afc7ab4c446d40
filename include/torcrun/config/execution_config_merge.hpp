// The workflow's execution_config (newer Torc) and the worker's configuration combined by one
// rule, each key keeping the source of its effective value:
//
//   built-in default  <  workflow N execution_config  <  the configuration file  <  --set / flags
//
// The operator of the allocation (file, command line) wins over the workflow's author, who wins
// over torcrun's defaults: a workflow value lands only on a key that still has its default.
// Each Torc key sets one torcrun key:
//
//   mode                      mode (auto keeps torcrun's meaning: slurm in a multi-node allocation)
//   termination_signal        termination.signal
//   sigterm_lead_seconds      termination.grace_seconds
//   sigkill_headroom_seconds  termination.drain_buffer_seconds = headroom + the effective grace,
//                             so SIGKILL comes `headroom` seconds before the end, as in Torc
//   timeout_exit_code         termination.timeout_exit_code
//   oom_exit_code             limits.oom_exit_code
//   limit_resources           limits.enforce_memory
//   srun_termination_signal   srun.signal
//   enable_cpu_bind           srun.cpu_bind
//   stdio {mode, delete_on_success}   stdio.mode, stdio.delete_on_success
//   job_stdio_overrides       worker_config::job_stdio (per job name, replacing stdio whole);
//                             dropped when the file or the command line set a stdio key
// staggered_start and srun_mpi shape the sbatch scripts of allocations (core::worker_launch_of)
// and are accepted here without effect; any other key is an error, as Torc's
// deny_unknown_fields makes it.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/config/config.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace torcrun::core {

// Key path -> where its value came from: "file worker.json", "--set", "flag --grace",
// "workflow 3 execution_config". A key not listed has its default.
using config_sources = std::map<std::string, std::string, std::less<>>;

struct sourced_worker_config {
    worker_config config;
    config_sources sources;
};

// "default" for a key no file, override or workflow set.
std::string source_of(config_sources const& sources, std::string_view key_path);

// parse_worker_config, also recording each key's source.
result<sourced_worker_config> parse_sourced_worker_config(
    std::string_view text, std::string_view origin, std::span<config_override const> overrides);

// The execution_config of a workflow record as an object: absent or null -> empty; a JSON string
// holding an object (API 0.17 clients) is parsed. Errors: `workflow 3 execution_config: expected
// an object, found a number`.
result<boost::json::object> execution_config_object(boost::json::value const* value,
                                                    std::int64_t workflow_id);

// The /proc sampling interval a workflow's resource_monitor_config asks for: its
// sample_interval_seconds when job monitoring is on (jobs.enabled, or the legacy top-level
// enabled when `jobs` is absent); nullopt otherwise, and torcrun keeps its own interval (it
// samples every job anyway, for result.json and limits.enforce_memory). Object or JSON string.
// Errors: `workflow 3 resource_monitor_config.sample_interval_seconds: 0 is out of range (0.1
// to 3600)`.
result<std::optional<double>> job_sample_interval(boost::json::value const* monitor_config,
                                                  std::int64_t workflow_id);

// Node monitoring as a workflow's resource_monitor_config asks for it (newer Torc's
// `compute_node: {enabled, granularity, cpu, memory}`): nullopt when the block is absent, null
// or not enabled (Torc's default is off). The interval is the shared sample_interval_seconds,
// Torc's 10 s when absent. Errors as job_sample_interval's, and
// `workflow 3 resource_monitor_config.compute_node: expected an object, found a string`.
struct node_monitor_settings {
    double interval_seconds = 10;
    bool cpu = true;      // false: CPU % recorded as 0, as Torc
    bool memory = true;   // false: memory recorded as 0
    bool time_series = false;  // granularity "time_series": keep the bounded series too

    bool operator==(node_monitor_settings const&) const = default;
};
result<std::optional<node_monitor_settings>> node_monitor_of(
    boost::json::value const* monitor_config, std::int64_t workflow_id);

// The combine rule above. Every problem is reported, one per line, each naming the key:
// `workflow 3 execution_config.sigterm_lead_seconds: -1 is out of range (0 to 3600)`,
// `workflow 3 execution_config: unknown key "modee" (did you mean "mode"?)`.
result<sourced_worker_config> apply_execution_config(sourced_worker_config base,
                                                     boost::json::object const& execution_config,
                                                     std::int64_t workflow_id);

// Torc's rules that depend on the mode the worker runs in (`effective`: direct or slurm), for a
// workflow another client created without checking them: in slurm mode limit_resources false,
// termination_signal, sigterm_lead_seconds and oom_exit_code are errors; in direct mode
// srun_termination_signal and enable_cpu_bind true are.
result<void> check_execution_config(boost::json::object const& execution_config,
                                    run_mode effective, std::int64_t workflow_id);

}  // namespace torcrun::core
