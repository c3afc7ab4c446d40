// A Torc 0.10 workflow spec as typed values (docs/TORC-COMPATIBILITY.md §4.2-§4.3), with the keys
// newer Torc added (§4.13): every field, Torc's defaults, and nothing expanded yet. Job, file and
// user-data entries are templates until spec_expansion turns them into one entry per parameter
// combination.
#pragma once

#include "torcrun/spec/execution_config_spec.hpp"
#include "torcrun/spec/parameter_combinations.hpp"
#include "torcrun/spec/parameter_table.hpp"
#include "torcrun/spec/spec_entries.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core::spec {

// An `env` map (newer Torc) in spec order: name -> value.
using env_list = std::vector<std::pair<std::string, std::string>>;

// How a template takes its parameters (docs/TORC-COMPATIBILITY.md §4.4): its own `parameters`, or
// `use_parameters` names from the workflow's pool. `parameter_mode` is checked when the entry is
// expanded.
// A table source (newer Torc's `parameters_file`, or `use_parameters_file: true` taking the
// workflow's) excludes the other three; `table` is its index in workflow_spec::tables.
struct template_parameters {
    std::optional<raw_parameters> parameters;
    std::optional<std::string> parameter_mode;
    std::optional<std::vector<std::string>> use_parameters;
    std::optional<std::size_t> table;
};

struct file_spec {
    std::string name;
    std::string path;
    std::optional<double> mtime;  // newer Torc's `st_mtime`, sent as written
    template_parameters params;
    std::string where;
};

// A dataset (newer Torc): a directory many jobs write (`output_datasets`) and others read
// (`input_datasets`) once every writer completed and the server hashed it. Not templated.
struct dataset_spec {
    std::string name;
    std::string path;
    std::optional<std::string> description;
    std::string hash_mode = "manifest";  // manifest, content or none
    std::string where;
};

// Parameterized user data is accepted and expanded like files (docs/TORC-COMPATIBILITY.md §4.10
// item 5): the name and every string inside `data` are templated.
struct user_data_spec {
    std::string name;  // required by torcrun (Torc 0.10 silently drops unnamed entries)
    std::optional<boost::json::value> data;
    std::optional<bool> is_ephemeral;
    template_parameters params;
    std::string where;
};

struct job_spec {
    std::string name;
    std::string command;
    std::optional<std::string> invocation_script;
    std::optional<std::string> resource_requirements;
    std::optional<std::string> scheduler;
    std::optional<std::string> failure_handler;  // not templated
    bool cancel_on_blocking_job_failure = true;  // Torc's code, not its docs (§4.10 item 1)
    bool supports_termination = false;
    std::vector<std::string> depends_on;
    std::vector<std::string> depends_on_regexes;
    std::vector<std::string> input_files;
    std::vector<std::string> input_file_regexes;
    std::vector<std::string> output_files;
    std::vector<std::string> output_file_regexes;
    std::vector<std::string> input_user_data;
    std::vector<std::string> input_user_data_regexes;
    std::vector<std::string> output_user_data;
    std::vector<std::string> output_user_data_regexes;
    std::vector<std::string> input_datasets;   // newer Torc; templated
    std::vector<std::string> output_datasets;  // newer Torc; templated
    env_list env;               // newer Torc; values templated per expansion
    std::int64_t priority = 0;  // newer Torc; >= 0, higher claimed first
    // torcrun extension: only workers started with this label claim the job; templated
    std::optional<std::string> label;
    std::optional<stdio_spec> stdio;  // newer Torc; becomes execution_config.job_stdio_overrides
    template_parameters params;
    std::string where;
};

enum class jobs_sort_method { gpus_runtime_memory, gpus_memory_runtime, none };

// Newer Torc's `dynamic_jobs`: how many spawn_jobs calls each orchestrator lineage may make.
struct dynamic_jobs_spec {
    std::optional<std::int64_t> max_iterations;  // absent: the server's default (1000)

    bool operator==(dynamic_jobs_spec const&) const = default;
};

struct workflow_spec {
    std::string name;
    std::optional<std::string> user;  // used when given (§4.10 item 8)
    std::optional<std::string> description;
    std::optional<std::string> project;              // newer Torc
    std::vector<std::string> access_groups;          // 0.23: shared with these groups
    std::optional<boost::json::value> metadata;      // newer Torc: a string or an object
    env_list env;                                    // newer Torc; single-valued parameters
    std::optional<execution_config_spec> execution_config;  // newer Torc
    std::optional<dynamic_jobs_spec> dynamic_jobs;          // newer Torc: spawn_jobs' cap
    raw_parameters parameters;  // the pool that `use_parameters` draws from
    std::optional<std::string> parameters_file;  // newer Torc: the workflow's shared table
    std::vector<parameter_table> tables;         // the parameters_file tables, each read once
    std::vector<job_spec> jobs;
    std::vector<file_spec> files;
    std::vector<user_data_spec> user_data;
    std::vector<dataset_spec> datasets;  // newer Torc
    std::vector<resource_requirements_spec> resource_requirements;
    std::vector<failure_handler_spec> failure_handlers;
    std::vector<slurm_scheduler_spec> slurm_schedulers;
    std::optional<boost::json::object> slurm_defaults;
    std::optional<resource_monitor_spec> resource_monitor;
    std::vector<action_spec> actions;
    bool use_pending_failed = false;
    bool enable_ro_crate = false;  // newer Torc: the server records RO-Crate entities
    std::int64_t compute_node_expiration_buffer_seconds = 60;
    std::int64_t compute_node_wait_for_new_jobs_seconds = 90;
    bool compute_node_ignore_workflow_completion = false;
    std::int64_t compute_node_wait_for_healthy_database_minutes = 20;
    std::optional<jobs_sort_method> sort_method;  // spec key `jobs_sort_method`
    std::vector<std::string> warnings;            // found while reading, e.g. ignored keys
    // The first key of newer Torc the spec uses, as `"env" at w.yaml:4:1`, or empty: such a spec
    // is read by newer Torc's rules where they differ from 0.10's (unique job names).
    std::string newer_form;
};

// The wire spellings of the enums.
std::string_view to_string(jobs_sort_method method);
std::string_view to_string(monitor_granularity granularity);

}  // namespace torcrun::core::spec
