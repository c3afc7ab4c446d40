// Torc's wire models as field tables, read from the OpenAPI components of v0.10 (with the fields
// of newer Torc, up to 0.23, that the server keeps): JSON name, kind, required on create and
// update, server default on create, read-only, allowed values, minimum, the table a reference
// points into, and where the value is stored. One table drives request validation
// (model_json.hpp), response encoding and the store's generic SQL.
//
// Unknown fields in a request body are ignored, as Torc's serde models do (no
// deny_unknown_fields, and the contract sets no additionalProperties: false). A null optional
// field counts as absent (serde's Option), so clients may send `"scheduler_id": null`.
#pragma once

#include "torcrun/server/api_error.hpp"
#include "torcrun/server/record.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace torcrun::api {

enum class field_kind : std::uint8_t {
    integer,  // JSON integer in int64 range (a float is rejected, as serde's i64 does)
    number,   // any JSON number, stored as REAL
    string,
    boolean,      // stored as 0/1
    json_text,    // a JSON string whose content must itself be JSON (failure handler rules)
    json_object,  // a JSON object, stored as its text
    json_any,     // any JSON value but null, stored as its text (user data, scheduler info)
    // Torc sends these configuration fields as JSON strings (v0.10, API 0.17) or as objects
    // (0.23); both are accepted, and each is stored as the JSON text of the value that came
    // (a string literal or an object) and sent back in that form, so a client reads the shape it
    // wrote.
    json_config,       // a string holding JSON, or an object (resource_monitor_config,
                       // slurm_defaults)
    json_document,     // an object, or a string holding one (execution_config)
    string_or_object,  // a string or an object (metadata)
    env_map,  // an object of environment variables: names [A-Za-z_][A-Za-z0-9_]*, string values
    ids,          // JSON array of integers
    job_status,   // status string on the wire, integer (docs/TORC-COMPATIBILITY.md §1) in storage
};

enum class field_storage : std::uint8_t {
    column,    // a column of the model's table with the field's name
    link,      // rows of a link table, kept by the store's job code (ids only)
    computed,  // read, never written: a column the database computes (workflow.status_id), or
               // the field's `sql` expression (the workflow's run_id from workflow_status)
};

struct field_spec {
    std::string_view name;
    field_kind kind = field_kind::string;
    bool required = false;   // must be present and non-null in create and update bodies
    bool read_only = false;  // assigned by the server; ignored when a body carries it
    std::optional<std::string_view> default_value;  // on create: digits, true/false, or text
    std::span<std::string_view const> choices;      // fixed vocabulary of a string field
    std::optional<std::int64_t> minimum;            // smallest accepted integer
    std::string_view references;  // table of the row this id names (same workflow), if any
    field_storage storage = field_storage::column;
    std::string_view sql;  // computed: the SQL expression read as the field (empty: its column)
};

// Checks and derived values beyond single fields (memory bytes, action config); `what` prefixes
// the messages.
using model_hook = api_result<void> (*)(record& fields, std::string_view what);

struct model_spec {
    std::string_view name;   // contract component name, e.g. "file_model"
    std::string_view table;  // SQLite table; empty for wire-only models
    std::span<field_spec const> fields;
    std::span<std::string_view const> hidden_columns;  // stored, never sent (memory_bytes, ...)
    model_hook finish = nullptr;

    field_spec const* find(std::string_view field) const
    {
        for (auto const& f : fields) {
            if (f.name == field) return &f;
        }
        return nullptr;
    }
};

extern model_spec const workflow_model;
extern model_spec const workflow_status_model;
extern model_spec const job_model;
extern model_spec const file_model;
extern model_spec const user_data_model;
extern model_spec const resource_requirements_model;
extern model_spec const failure_handler_model;
extern model_spec const slurm_scheduler_model;
extern model_spec const local_scheduler_model;
extern model_spec const compute_node_model;
extern model_spec const scheduled_compute_nodes_model;
extern model_spec const result_model;
extern model_spec const event_model;
extern model_spec const workflow_action_model;
extern model_spec const compute_nodes_resources;  // the claim body (job-lifecycle endpoints)
extern model_spec const job_dependency_model;
extern model_spec const job_file_relationship_model;
extern model_spec const job_user_data_relationship_model;
extern model_spec const access_group_model;
extern model_spec const user_group_membership_model;
extern model_spec const workflow_access_group_model;  // no id: (workflow_id, group_id) is the key
extern model_spec const ro_crate_entity_model;  // 0.23's RoCrateEntityModel
extern model_spec const task_model;  // 0.23's TaskModel: an asynchronous initialize_jobs

// Every table above, for tests that walk them all.
std::span<model_spec const* const> all_models();

// Job statuses (docs/TORC-COMPATIBILITY.md §1): 0 uninitialized ... 10 pending_failed.
std::optional<std::int64_t> job_status_code(std::string_view name);
std::string_view job_status_name(std::int64_t code);  // empty for an unknown code
std::string_view job_status_list();                   // "uninitialized, blocked, ..."

}  // namespace torcrun::api
