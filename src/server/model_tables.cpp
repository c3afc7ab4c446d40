// The field tables of Torc v0.10's models (test/data/torc-openapi-v0.10.0-prism.yaml,
// components/schemas), with the server-side defaults Torc applies on create
// (docs/TORC-COMPATIBILITY.md §2.2) and the storage of each field. Deliberate differences from
// Torc, all stricter or safer:
// - compute_node.is_active defaults to true (Torc stores NULL, which its own reader trips on).
// - counts have minimums (num_cpus >= 0, num_nodes >= 1, attempt_id >= 1).
// - resource_requirements.tasks_per_node is a torcrun extension (optional, >= 1).
// - ids that name other rows (`references`) must exist in the same workflow.
// Fields of newer Torc's models (the workflow's project, metadata, env and execution_config, its
// run_id, is_canceled and is_archived, the job's env and priority, the slurm scheduler's
// serialize_allocations, 0.23's task) are taken as newer Torc defines them, in both the API 0.17
// (JSON string) and the newest (object) shapes.
#include "torcrun/server/model_schema.hpp"

#include "json_parse.hpp"
#include "torcrun/common/units.hpp"
#include "torcrun/server/spawn_jobs.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

// GCC 12 reports members left to their default initializers in designated initializer lists
// (fixed in GCC 13); every field_spec member has a default on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// The model checks beyond single fields, wired into the tables below. Resource requirements keep
// their memory and runtime strings as sent (Torc echoes them back) plus the parsed values the
// claim query compares; workflow actions follow the action_config rules of Torc's server
// (docs/TORC-COMPATIBILITY.md §4.3).
namespace torcrun::api::detail {
namespace {

std::string field_prefix(std::string_view what, std::string_view field)
{
    return std::string(what) + ": field \"" + std::string(field) + "\": ";
}

api_result<void> check_run_commands(boost::json::object const& config, std::string const& prefix)
{
    for (auto const& kv : config) {
        if (kv.key() != "commands") {
            return unprocessable(prefix + "run_commands allows only \"commands\", found " +
                                 quoted(kv.key()));
        }
    }
    auto const* commands = config.if_contains("commands");
    if (commands == nullptr) return unprocessable(prefix + "run_commands needs \"commands\"");
    if (!commands->is_array()) {
        return unprocessable(prefix + "\"commands\" must be an array of strings, found " +
                             std::string(describe(*commands)));
    }
    if (commands->get_array().empty()) {
        return unprocessable(prefix + "\"commands\" must not be empty");
    }
    auto const& list = commands->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string()) {
            return unprocessable(prefix + "\"commands[" + std::to_string(i) +
                                 "]\" must be a string, found " + std::string(describe(list[i])));
        }
    }
    return {};
}

api_result<void> check_schedule_nodes(boost::json::object const& config, std::string const& prefix)
{
    struct allowed_key {
        std::string_view name;
        bool (*ok)(boost::json::value const&);
        std::string_view type;
    };
    static constexpr std::array<allowed_key, 5> keys{{
        {"scheduler_id", [](auto const& v) { return v.is_int64() || v.is_uint64(); }, "an integer"},
        {"scheduler_type", [](auto const& v) { return v.is_string(); }, "a string"},
        {"num_allocations", [](auto const& v) { return v.is_int64() || v.is_uint64(); },
         "an integer"},
        {"start_one_worker_per_node", [](auto const& v) { return v.is_bool(); }, "a boolean"},
        {"max_parallel_jobs", [](auto const& v) { return v.is_int64() || v.is_uint64(); },
         "an integer"},
    }};
    for (auto const& kv : config) {
        auto const* key = std::find_if(keys.begin(), keys.end(),
                                       [&](auto const& k) { return k.name == kv.key(); });
        if (key == keys.end()) {
            return unprocessable(prefix + "schedule_nodes does not allow " + quoted(kv.key()) +
                                 " (allowed: scheduler_id, scheduler_type, num_allocations, "
                                 "start_one_worker_per_node, max_parallel_jobs)");
        }
        if (!key->ok(kv.value())) {
            return unprocessable(prefix + quoted(key->name) + " must be " + std::string(key->type) +
                                 ", found " + std::string(describe(kv.value())));
        }
    }
    return {};
}

}  // namespace

api_result<void> finish_resource_requirements(record& fields, std::string_view what)
{
    if (auto const* memory = fields.text("memory")) {
        auto bytes = core::parse_memory(*memory);
        if (!bytes) return unprocessable(field_prefix(what, "memory") + bytes.error().message);
        if (*bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return unprocessable(field_prefix(what, "memory") + quoted(*memory) +
                                 " is more than 9223372036854775807 bytes");
        }
        fields.set("memory_bytes", static_cast<std::int64_t>(*bytes));
    }
    if (auto const* runtime = fields.text("runtime")) {
        auto seconds = core::parse_duration(*runtime);
        if (!seconds) return unprocessable(field_prefix(what, "runtime") + seconds.error().message);
        // Rounded up: a claim must never hand out a job whose limit exceeds the time left.
        fields.set("runtime_s", static_cast<std::int64_t>(std::ceil(*seconds)));
    }
    return {};
}

api_result<void> finish_workflow(record& fields, std::string_view what)
{
    if (auto const* config = fields.text("dynamic_jobs"))
        return core::check_dynamic_jobs_config(*config, what);
    return {};
}

api_result<void> finish_workflow_action(record& fields, std::string_view what)
{
    auto const* type = fields.text("action_type");
    auto const* config_text = fields.text("action_config");
    if (type != nullptr && config_text != nullptr) {
        auto const config = boost::json::parse(*config_text);
        auto const prefix = field_prefix(what, "action_config");
        auto const& object = config.get_object();
        auto checked = *type == "run_commands" ? check_run_commands(object, prefix)
                                               : check_schedule_nodes(object, prefix);
        if (!checked) return checked.error();
    }
    // Torc: job triggers wait for one trigger per listed job (duplicates count), others for one.
    std::int64_t required = 1;
    auto const* trigger = fields.text("trigger_type");
    auto const* job_ids = fields.ids("job_ids");
    if (trigger != nullptr && job_ids != nullptr &&
        (*trigger == "on_jobs_ready" || *trigger == "on_jobs_complete")) {
        required = static_cast<std::int64_t>(job_ids->size());
    }
    fields.set("required_triggers", required);
    return {};
}

}  // namespace torcrun::api::detail

namespace torcrun::api {
namespace {

using k = field_kind;
using s = field_storage;

constexpr std::string_view sort_methods[] = {"gpus_runtime_memory", "gpus_memory_runtime", "none"};
constexpr std::string_view action_types[] = {"run_commands", "schedule_nodes"};
constexpr std::string_view scheduled_node_statuses[] = {"pending", "active", "complete",
                                                        "canceled"};

constexpr field_spec id_field{.name = "id", .kind = k::integer, .read_only = true};
constexpr field_spec workflow_ref{
    .name = "workflow_id", .kind = k::integer, .required = true, .references = "workflow"};

constexpr field_spec workflow_fields[] = {
    id_field,
    {.name = "name", .required = true},
    {.name = "user", .required = true},
    {.name = "description"},
    {.name = "timestamp", .read_only = true},
    {.name = "compute_node_expiration_buffer_seconds",
     .kind = k::integer,
     .default_value = "60",
     .minimum = 0},
    {.name = "compute_node_wait_for_new_jobs_seconds",
     .kind = k::integer,
     .default_value = "90",
     .minimum = 0},
    {.name = "compute_node_ignore_workflow_completion",
     .kind = k::boolean,
     .default_value = "false"},
    {.name = "compute_node_wait_for_healthy_database_minutes",
     .kind = k::integer,
     .default_value = "20",
     .minimum = 0},
    {.name = "compute_node_min_time_for_new_jobs_seconds",
     .kind = k::integer,
     .default_value = "300",
     .minimum = 0},
    {.name = "jobs_sort_method", .default_value = "gpus_runtime_memory", .choices = sort_methods},
    {.name = "resource_monitor_config", .kind = k::json_config},
    {.name = "slurm_defaults", .kind = k::json_config},
    {.name = "use_pending_failed", .kind = k::boolean, .default_value = "false"},
    {.name = "project"},
    {.name = "metadata", .kind = k::string_or_object},
    {.name = "env", .kind = k::env_map},
    {.name = "execution_config", .kind = k::json_document},
    // 0.23, kept and echoed: where the workflow was submitted from, and whether its client asked
    // for RO-Crate records (torcrun's server keeps none: its RO-Crate routes are absent).
    {.name = "submission_directory"},
    {.name = "enable_ro_crate", .kind = k::boolean},
    // newer Torc: the spawn_jobs cap per lineage, {"max_iterations": N} (finish_workflow checks)
    {.name = "dynamic_jobs", .kind = k::json_object},
    {.name = "status_id", .kind = k::integer, .read_only = true, .storage = s::computed},
    // 0.23 reads these from the workflow (v0.10 from GET /workflows/{id}/status); they live in
    // workflow_status and are set by cancel, reset_status and PUT status, never by a body here.
    {.name = "run_id",
     .kind = k::integer,
     .read_only = true,
     .storage = s::computed,
     .sql = "(SELECT run_id FROM workflow_status s WHERE s.id = workflow.id)"},
    {.name = "is_canceled",
     .kind = k::boolean,
     .read_only = true,
     .storage = s::computed,
     .sql = "(SELECT is_canceled FROM workflow_status s WHERE s.id = workflow.id)"},
    {.name = "is_archived",
     .kind = k::boolean,
     .read_only = true,
     .storage = s::computed,
     .sql = "(SELECT is_archived FROM workflow_status s WHERE s.id = workflow.id)"},
};

constexpr field_spec workflow_status_fields[] = {
    id_field,
    {.name = "is_canceled", .kind = k::boolean, .required = true},
    {.name = "is_archived", .kind = k::boolean, .default_value = "false"},
    {.name = "run_id", .kind = k::integer, .required = true, .minimum = 0},
    {.name = "has_detected_need_to_run_completion_script",
     .kind = k::boolean,
     .default_value = "false"},
};

constexpr field_spec job_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name", .required = true},
    {.name = "command", .required = true},
    {.name = "invocation_script"},
    {.name = "status", .kind = k::job_status},
    {.name = "cancel_on_blocking_job_failure", .kind = k::boolean, .default_value = "true"},
    {.name = "supports_termination", .kind = k::boolean, .default_value = "false"},
    {.name = "depends_on_job_ids", .kind = k::ids, .references = "job", .storage = s::link},
    {.name = "input_file_ids", .kind = k::ids, .references = "file", .storage = s::link},
    {.name = "output_file_ids", .kind = k::ids, .references = "file", .storage = s::link},
    {.name = "input_user_data_ids", .kind = k::ids, .references = "user_data", .storage = s::link},
    {.name = "output_user_data_ids", .kind = k::ids, .references = "user_data", .storage = s::link},
    {.name = "resource_requirements_id", .kind = k::integer, .references = "resource_requirements"},
    {.name = "scheduler_id", .kind = k::integer},
    {.name = "failure_handler_id", .kind = k::integer, .references = "failure_handler"},
    {.name = "attempt_id", .kind = k::integer, .default_value = "1", .minimum = 1},
    // The job's own variables; workers overlay them on the workflow's env.
    {.name = "env", .kind = k::env_map},
    {.name = "priority", .kind = k::integer, .default_value = "0", .minimum = 0},
    // torcrun extension: only a claim with this label takes the job (schema version 10)
    {.name = "label"},
    // newer Torc: "spawn" for a job spawn_jobs added, absent for a declared one; the job that
    // spawned it is a torcrun extension. Both are the server's to set.
    {.name = "origin", .read_only = true},
    {.name = "spawned_by_job_id", .kind = k::integer, .read_only = true},
    // 0.23: the compute node holding the job (its claimant while pending, then its runner).
    {.name = "compute_node_id",
     .kind = k::integer,
     .read_only = true,
     .storage = s::computed,
     .sql = "active_compute_node_id"},
};
constexpr std::string_view job_hidden[] = {"active_compute_node_id"};

constexpr field_spec file_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name", .required = true},
    {.name = "path", .required = true},
    {.name = "st_mtime", .kind = k::number},
};

constexpr field_spec user_data_fields[] = {
    id_field,
    workflow_ref,
    {.name = "is_ephemeral", .kind = k::boolean, .default_value = "false"},
    {.name = "name", .required = true},
    {.name = "data", .kind = k::json_any},
};

constexpr field_spec resource_requirements_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name", .required = true},
    {.name = "num_cpus", .kind = k::integer, .default_value = "1", .minimum = 0},
    {.name = "num_gpus", .kind = k::integer, .default_value = "0", .minimum = 0},
    {.name = "num_nodes", .kind = k::integer, .default_value = "1", .minimum = 1},
    {.name = "memory", .default_value = "1m"},
    {.name = "runtime", .default_value = "P0DT1M"},
    // torcrun extension: MPI ranks per node of a multi-node job (absent: one per node).
    {.name = "tasks_per_node", .kind = k::integer, .minimum = 1},
};
constexpr std::string_view resource_requirements_hidden[] = {"memory_bytes", "runtime_s"};

constexpr field_spec failure_handler_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name", .required = true},
    {.name = "rules", .kind = k::json_text, .required = true},
};

constexpr field_spec slurm_scheduler_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name"},
    {.name = "account", .required = true},
    {.name = "gres"},
    {.name = "mem"},
    {.name = "nodes", .kind = k::integer, .required = true, .minimum = 1},
    {.name = "ntasks_per_node", .kind = k::integer, .minimum = 1},
    {.name = "partition"},
    {.name = "qos", .default_value = "normal"},
    {.name = "tmp"},
    {.name = "walltime", .required = true},
    {.name = "extra"},
    {.name = "serialize_allocations", .kind = k::boolean, .default_value = "false"},
};

constexpr field_spec local_scheduler_fields[] = {
    id_field,
    workflow_ref,
    {.name = "name", .default_value = "default"},
    {.name = "memory"},
    {.name = "num_cpus", .kind = k::integer, .minimum = 0},
};

constexpr field_spec compute_node_fields[] = {
    id_field,
    workflow_ref,
    {.name = "hostname", .required = true},
    {.name = "pid", .kind = k::integer, .required = true},
    {.name = "start_time", .required = true},
    {.name = "duration_seconds", .kind = k::number},
    {.name = "is_active", .kind = k::boolean, .default_value = "true"},
    {.name = "num_cpus", .kind = k::integer, .required = true, .minimum = 0},
    {.name = "memory_gb", .kind = k::number, .required = true},
    {.name = "num_gpus", .kind = k::integer, .required = true, .minimum = 0},
    {.name = "num_nodes", .kind = k::integer, .required = true, .minimum = 1},
    {.name = "time_limit"},
    {.name = "scheduler_config_id", .kind = k::integer},
    {.name = "compute_node_type", .required = true},
    {.name = "scheduler", .kind = k::json_any},
    // 0.23: the allocation's end (RFC 3339) as the runner reports it at registration (GET status
    // reads the walltime left from it), and the node's usage as its runner reports it.
    {.name = "end_time"},
    {.name = "sample_count", .kind = k::integer, .minimum = 0},
    {.name = "peak_cpu_percent", .kind = k::number},
    {.name = "avg_cpu_percent", .kind = k::number},
    {.name = "peak_memory_bytes", .kind = k::integer, .minimum = 0},
    {.name = "avg_memory_bytes", .kind = k::integer, .minimum = 0},
};

constexpr field_spec scheduled_compute_nodes_fields[] = {
    id_field,
    workflow_ref,
    {.name = "scheduler_id", .kind = k::integer, .required = true},
    {.name = "scheduler_config_id", .kind = k::integer, .required = true},
    {.name = "scheduler_type", .required = true},
    {.name = "status", .required = true, .choices = scheduled_node_statuses},
    // torcrun extension (schema version 11): the allocation's history for `torcrun allocations`
    {.name = "made_for"},
    {.name = "shape"},
    {.name = "submit_time"},
    {.name = "start_time"},
    {.name = "end_time"},
    {.name = "node"},
    {.name = "end_reason"},
};

constexpr field_spec result_fields[] = {
    id_field,
    {.name = "job_id", .kind = k::integer, .required = true, .references = "job"},
    workflow_ref,
    {.name = "run_id", .kind = k::integer, .required = true},
    {.name = "attempt_id", .kind = k::integer, .default_value = "1", .minimum = 1},
    {.name = "compute_node_id", .kind = k::integer, .required = true, .references = "compute_node"},
    {.name = "return_code", .kind = k::integer, .required = true},
    {.name = "exec_time_minutes", .kind = k::number, .required = true},
    {.name = "completion_time", .required = true},
    {.name = "status", .kind = k::job_status, .required = true},
    {.name = "peak_memory_bytes", .kind = k::integer},
    {.name = "avg_memory_bytes", .kind = k::integer},
    {.name = "peak_cpu_percent", .kind = k::number},
    {.name = "avg_cpu_percent", .kind = k::number},
};

constexpr field_spec event_fields[] = {
    id_field,
    workflow_ref,
    {.name = "timestamp", .kind = k::integer, .required = true},
    {.name = "data", .kind = k::json_any, .required = true},
};

constexpr field_spec workflow_action_fields[] = {
    id_field,
    workflow_ref,
    {.name = "trigger_type", .required = true},
    {.name = "action_type", .required = true, .choices = action_types},
    {.name = "action_config", .kind = k::json_object, .required = true},
    {.name = "job_ids", .kind = k::ids, .references = "job"},
    {.name = "trigger_count", .kind = k::integer, .default_value = "0", .minimum = 0},
    {.name = "required_triggers", .kind = k::integer, .read_only = true},
    {.name = "executed", .kind = k::boolean, .default_value = "false"},
    {.name = "executed_at"},
    {.name = "executed_by", .kind = k::integer, .references = "compute_node"},
    {.name = "persistent", .kind = k::boolean, .default_value = "false"},
};

constexpr field_spec compute_nodes_resources_fields[] = {
    {.name = "id", .kind = k::integer},
    {.name = "num_cpus", .kind = k::integer, .required = true, .minimum = 0},
    {.name = "memory_gb", .kind = k::number, .required = true},
    {.name = "num_gpus", .kind = k::integer, .required = true, .minimum = 0},
    {.name = "num_nodes", .kind = k::integer, .required = true, .minimum = 1},
    {.name = "time_limit"},
    {.name = "scheduler_config_id", .kind = k::integer},
};

constexpr field_spec job_dependency_fields[] = {
    {.name = "job_id", .kind = k::integer},
    {.name = "job_name"},
    {.name = "depends_on_job_id", .kind = k::integer},
    {.name = "depends_on_job_name"},
    {.name = "workflow_id", .kind = k::integer},
};

constexpr field_spec job_file_relationship_fields[] = {
    {.name = "file_id", .kind = k::integer},
    {.name = "file_name"},
    {.name = "file_path"},
    {.name = "producer_job_id", .kind = k::integer},
    {.name = "producer_job_name"},
    {.name = "consumer_job_id", .kind = k::integer},
    {.name = "consumer_job_name"},
    {.name = "workflow_id", .kind = k::integer},
};

constexpr field_spec job_user_data_relationship_fields[] = {
    {.name = "user_data_id", .kind = k::integer},    {.name = "user_data_name"},
    {.name = "producer_job_id", .kind = k::integer}, {.name = "producer_job_name"},
    {.name = "consumer_job_id", .kind = k::integer}, {.name = "consumer_job_name"},
    {.name = "workflow_id", .kind = k::integer},
};

// -- access control (the contract's access-group schemas). created_at is the server's clock.
constexpr std::string_view membership_roles[] = {"member", "admin"};

constexpr field_spec access_group_fields[] = {
    id_field,
    {.name = "name", .required = true},
    {.name = "description"},
    {.name = "created_at", .read_only = true},
};
constexpr std::string_view access_group_hidden[] = {"is_system"};

constexpr field_spec user_group_membership_fields[] = {
    id_field,
    {.name = "user_name", .required = true},
    {.name = "group_id", .kind = k::integer, .required = true},
    {.name = "role", .default_value = "member", .choices = membership_roles},
    {.name = "created_at", .read_only = true},
};

constexpr field_spec workflow_access_group_fields[] = {
    {.name = "workflow_id", .kind = k::integer, .required = true},
    {.name = "group_id", .kind = k::integer, .required = true},
    {.name = "created_at", .read_only = true},
};

// -- 0.23's TaskModel: initialize_jobs?async=true records one (times in ms since the epoch).
constexpr std::string_view task_statuses[] = {"queued", "running", "succeeded", "failed"};

constexpr field_spec task_fields[] = {
    id_field,
    workflow_ref,
    {.name = "operation", .required = true},
    {.name = "status", .required = true, .choices = task_statuses},
    {.name = "created_at_ms", .kind = k::integer, .required = true},
    {.name = "started_at_ms", .kind = k::integer},
    {.name = "finished_at_ms", .kind = k::integer},
    {.name = "error"},
};

}  // namespace

model_spec const workflow_model{"workflow_model", "workflow", workflow_fields, {},
                                detail::finish_workflow};
model_spec const workflow_status_model{"workflow_status_model", "workflow_status",
                                       workflow_status_fields};
model_spec const job_model{"job_model", "job", job_fields, job_hidden};
model_spec const file_model{"file_model", "file", file_fields};
model_spec const user_data_model{"user_data_model", "user_data", user_data_fields};
model_spec const resource_requirements_model{
    "resource_requirements_model", "resource_requirements", resource_requirements_fields,
    resource_requirements_hidden, detail::finish_resource_requirements};
model_spec const failure_handler_model{"failure_handler_model", "failure_handler",
                                       failure_handler_fields};
model_spec const slurm_scheduler_model{"slurm_scheduler_model", "slurm_scheduler",
                                       slurm_scheduler_fields};
model_spec const local_scheduler_model{"local_scheduler_model", "local_scheduler",
                                       local_scheduler_fields};
model_spec const compute_node_model{"compute_node_model", "compute_node", compute_node_fields};
model_spec const scheduled_compute_nodes_model{
    "scheduled_compute_nodes_model", "scheduled_compute_node", scheduled_compute_nodes_fields};
model_spec const result_model{"result_model", "result", result_fields};
model_spec const event_model{"event_model", "event", event_fields};
model_spec const workflow_action_model{"workflow_action_model",
                                       "workflow_action",
                                       workflow_action_fields,
                                       {},
                                       detail::finish_workflow_action};
model_spec const compute_nodes_resources{"compute_nodes_resources", "",
                                         compute_nodes_resources_fields};
model_spec const job_dependency_model{"job_dependency_model", "", job_dependency_fields};
model_spec const job_file_relationship_model{"job_file_relationship_model", "",
                                             job_file_relationship_fields};
model_spec const job_user_data_relationship_model{"job_user_data_relationship_model", "",
                                                  job_user_data_relationship_fields};

model_spec const access_group_model{"access_group_model", "access_group", access_group_fields,
                                    access_group_hidden};
model_spec const user_group_membership_model{"user_group_membership_model",
                                             "user_group_membership",
                                             user_group_membership_fields};
model_spec const workflow_access_group_model{"workflow_access_group_model",
                                             "workflow_access_group",
                                             workflow_access_group_fields};

model_spec const task_model{"task_model", "task", task_fields};

namespace {
// 0.23's RoCrateEntityModel: one JSON-LD entity of a workflow's RO-Crate.
constexpr field_spec ro_crate_entity_fields[] = {
    id_field,
    workflow_ref,
    {.name = "file_id", .kind = k::integer, .references = "file"},
    {.name = "entity_id", .required = true},
    {.name = "entity_type", .required = true},
    {.name = "metadata", .kind = k::json_object, .required = true},
};
}  // namespace

model_spec const ro_crate_entity_model{"ro_crate_entity_model", "ro_crate_entity",
                                       ro_crate_entity_fields};

std::span<model_spec const* const> all_models()
{
    static model_spec const* const models[] = {&workflow_model,
                                               &workflow_status_model,
                                               &job_model,
                                               &file_model,
                                               &user_data_model,
                                               &resource_requirements_model,
                                               &failure_handler_model,
                                               &slurm_scheduler_model,
                                               &local_scheduler_model,
                                               &compute_node_model,
                                               &scheduled_compute_nodes_model,
                                               &result_model,
                                               &event_model,
                                               &workflow_action_model,
                                               &compute_nodes_resources,
                                               &job_dependency_model,
                                               &job_file_relationship_model,
                                               &job_user_data_relationship_model,
                                               &access_group_model,
                                               &user_group_membership_model,
                                               &workflow_access_group_model,
                                               &task_model,
                                               &ro_crate_entity_model};
    return models;
}

}  // namespace torcrun::api
