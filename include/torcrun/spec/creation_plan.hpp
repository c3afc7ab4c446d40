// What a client creates on a Torc server for one spec, in Torc 0.10's order
// (docs/TORC-COMPATIBILITY.md §4.9): the workflow, files, user data, resource requirements, Slurm
// schedulers, failure handlers, jobs in one bulk_jobs batch per topological level (at most 1000
// each), then actions. Records refer to each other by name; the submitting client swaps names for
// the ids the server returns.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/spec_expansion.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core::spec {

inline constexpr std::size_t bulk_jobs_batch_size = 1000;

struct plan_options {
    // Who submits ($USER, else "unknown"): the workflow's owner, as Torc's client sends it,
    // whatever user the spec names.
    std::string submitting_user = "unknown";
    bool resource_monitoring = true;        // false: Torc's --no-resource-monitoring
    bool skip_checks = false;               // Torc's --skip-checks: no scheduler node check
};

// The POST /workflows body, Torc's client defaults applied.
struct planned_workflow {
    std::string name;
    std::string user;
    std::optional<std::string> description;
    std::int64_t compute_node_expiration_buffer_seconds = 60;
    std::int64_t compute_node_wait_for_new_jobs_seconds = 90;
    bool compute_node_ignore_workflow_completion = false;
    std::int64_t compute_node_wait_for_healthy_database_minutes = 20;
    std::int64_t compute_node_min_time_for_new_jobs_seconds = 300;  // not settable in a spec
    std::optional<std::string> jobs_sort_method;  // absent: the server stores gpus_runtime_memory
    std::optional<std::string> resource_monitor_config;  // JSON text, keys in Torc's order
    bool default_monitor = false;  // resource_monitor_config is Torc's default, not the spec's
    std::optional<std::string> slurm_defaults;           // JSON text, keys sorted
    bool use_pending_failed = false;
    bool enable_ro_crate = false;  // sent only when true
    // newer Torc's fields, sent only when the spec has them:
    std::optional<std::string> project;
    std::vector<std::string> access_groups;  // shared with at creation (0.23's WorkflowModel)
    std::optional<boost::json::value> metadata;  // a string or an object, as written
    std::optional<boost::json::object> env;      // values templated with single-valued parameters
    // The spec's entry, job_stdio_overrides holding every job's `stdio` (which replaces the
    // entry's own setting for that job, as Torc's client does).
    std::optional<boost::json::object> execution_config;
    std::optional<dynamic_jobs_spec> dynamic_jobs;  // newer Torc: spawn_jobs' cap per lineage
};

struct planned_failure_handler {
    std::string name;
    std::string rules;  // JSON text: `[{"exit_codes":[12],"max_retries":3}]`
};

// One POST /bulk_jobs: indices into creation_plan::jobs, all of one topological level.
struct job_batch {
    std::size_t level = 0;
    std::vector<std::size_t> jobs;
};

struct planned_action {
    std::string trigger_type;
    std::string action_type;
    std::vector<std::string> commands;          // run_commands
    std::optional<std::string> scheduler;       // schedule_nodes: a scheduler name
    std::optional<std::string> scheduler_type;  // schedule_nodes
    std::int64_t num_allocations = 1;
    bool start_one_worker_per_node = false;
    std::optional<std::int32_t> max_parallel_jobs;
    std::optional<std::vector<std::string>> job_names;  // nullopt: `job_ids: null`
    bool persistent = false;
    std::int64_t required_triggers = 1;  // what the server will store
    std::string where;                   // file:line:col of the action in the spec
};

// A dataset (newer Torc) with the jobs that write and read it, by name; created after the jobs
// (POST /workflows/{id}/datasets, a torcrun server's endpoint).
struct planned_dataset {
    std::string name;
    std::string path;
    std::optional<std::string> description;
    std::string hash_mode;
    std::vector<std::string> producers;
    std::vector<std::string> consumers;
};

struct creation_plan {
    planned_workflow workflow;
    std::vector<expanded_file> files;
    std::vector<expanded_user_data> user_data;
    std::vector<resource_requirements_spec>
        resource_requirements;  // besides the server's "default"
    std::vector<slurm_scheduler_spec> slurm_schedulers;
    std::vector<planned_failure_handler> failure_handlers;
    std::vector<expanded_job> jobs;  // expansion order
    std::vector<job_batch> job_batches;
    std::vector<planned_dataset> datasets;
    std::vector<planned_action> actions;
    std::vector<job_edge> explicit_edges;  // sent with the jobs
    std::vector<job_edge> implied_edges;   // added by the server at initialize_jobs
    std::vector<std::string> warnings;
};

// Resolves actions (job names and regexes, docs/TORC-COMPATIBILITY.md §4.3), runs the scheduler
// node check (§4.2) unless skipped, and orders the jobs. Errors name the action:
// `spec.json5:40:5: actions[1]: job_name_regexes "^x" selects no job`.
result<creation_plan> plan_creation(workflow_spec const& spec, expanded_workflow workflow,
                                    plan_options const& options);

// Each of the spec's datasets with its producers and consumers among `jobs`.
std::vector<planned_dataset> plan_datasets(workflow_spec const& spec,
                                           std::vector<expanded_job> const& jobs);

// expand_workflow, then plan_creation.
result<creation_plan> plan_spec(workflow_spec const& spec, plan_options const& options);

// The action's `action_config` as Torc sends it, with the scheduler's id filled in
// (schedule_nodes with a scheduler_type other than "slurm" sends 0, as Torc does).
boost::json::object action_config(planned_action const& action, std::int64_t scheduler_id);

// Jobs that wait for nothing are level 0; any other job is one above its highest dependency.
std::vector<std::size_t> topological_levels(std::vector<expanded_job> const& jobs);

}  // namespace torcrun::core::spec
