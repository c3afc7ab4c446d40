// Newer Torc's `execution_config` and `stdio` spec entries (docs/TORC-COMPATIBILITY.md §4.13):
// every key typed and range-checked as read, and Torc's create-time checks of how the keys fit
// the mode and the actions. The spec reader only reads, checks and carries them; the worker acts
// on the workflow's stored `execution_config`.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core::spec {

enum class execution_mode { direct, slurm, automatic };  // spec spelling: direct, slurm, auto
enum class stdio_mode { separate, combined, no_stdout, no_stderr, none };

std::string_view to_string(execution_mode mode);
std::string_view to_string(stdio_mode mode);

struct stdio_spec {
    std::optional<stdio_mode> mode;          // absent: separate
    std::optional<bool> delete_on_success;   // absent: false

    bool operator==(stdio_spec const&) const = default;
};

// The object the worker reads: both keys, Torc's defaults filled in (a per-job setting replaces
// the workflow's whole, so it must say everything).
boost::json::object stdio_json(stdio_spec const& stdio);

struct execution_config_spec {
    std::optional<execution_mode> mode;
    std::optional<bool> limit_resources;
    std::optional<std::string> termination_signal;  // as parse_signal reads it
    std::optional<std::int64_t> sigterm_lead_seconds;
    std::optional<std::int64_t> sigkill_headroom_seconds;
    std::optional<std::int64_t> oom_exit_code;
    std::optional<std::int64_t> timeout_exit_code;
    std::optional<std::string> srun_termination_signal;  // srun --signal syntax
    std::optional<bool> enable_cpu_bind;
    std::optional<std::string> srun_mpi;
    std::optional<bool> staggered_start;
    std::optional<stdio_spec> stdio;
    std::vector<std::pair<std::string, stdio_spec>> job_stdio_overrides;  // as written
    boost::json::object written;  // the entry as the spec wrote it (null members dropped)
    std::string where;            // file:line:col of the entry
    // file:line:col of each key present, for the create-time checks.
    std::vector<std::pair<std::string, std::string>> key_where;

    std::string const* location_of(std::string_view key) const;
};

// What the create-time checks need of the rest of the spec.
struct execution_context {
    bool has_slurm_schedulers = false;
    // file:line:col of each action with start_one_worker_per_node: true.
    std::vector<std::string> per_node_actions;
};

// Torc's mode for these checks: `auto` counts as slurm when the spec has Slurm schedulers.
execution_mode creation_mode(std::optional<execution_config_spec> const& config,
                             execution_context const& context);

// Torc's create-time checks (newer Torc's create_workflow): in slurm mode no
// `limit_resources: false`, termination_signal, sigterm_lead_seconds or oom_exit_code; in direct
// mode no srun_termination_signal or `enable_cpu_bind: true`; `srun_mpi` one token of
// [A-Za-z0-9+_.-] and a schedule_nodes action with start_one_worker_per_node; such actions only
// in direct mode. Every problem is reported, one line each, each with its file:line:col.
result<void> check_execution_config(std::optional<execution_config_spec> const& config,
                                    execution_context const& context);

}  // namespace torcrun::core::spec
