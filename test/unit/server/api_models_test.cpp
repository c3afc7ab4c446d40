// The model tables against the v0.10 contract: every component's properties, in the contract's
// order, and its required list (for request models). The expected lists were taken from
// test/data/torc-openapi-v0.10.0-prism.yaml (components/schemas); `extra` names the fields torcrun
// adds, as Torc's server does (trigger_count, required_triggers), and those of newer Torc
// (docs/TORC-COMPATIBILITY.md §2).
#include "torcrun/server/model_schema.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(api_models)

struct contract_case {
    std::string model;
    std::string properties;  // space separated, contract order
    std::string required;    // space separated, sorted; "-" for response-only models
    std::string extra = {};  // torcrun's fields beyond the contract, table order
};
std::ostream& operator<<(std::ostream& os, contract_case const& c) { return os << c.model; }

std::vector<contract_case> const contract{
    {"workflow_model",
     "id name user description timestamp compute_node_expiration_buffer_seconds "
     "compute_node_wait_for_new_jobs_seconds compute_node_ignore_workflow_completion "
     "compute_node_wait_for_healthy_database_minutes compute_node_min_time_for_new_jobs_seconds "
     "jobs_sort_method resource_monitor_config slurm_defaults use_pending_failed status_id",
     "name user",
     "project metadata env execution_config submission_directory enable_ro_crate dynamic_jobs "
     "run_id "
     "is_canceled is_archived"},
    {"workflow_status_model",
     "id is_canceled is_archived run_id has_detected_need_to_run_completion_script",
     "is_canceled run_id"},
    {"job_model",
     "id workflow_id name command invocation_script status cancel_on_blocking_job_failure "
     "supports_termination depends_on_job_ids input_file_ids output_file_ids input_user_data_ids "
     "output_user_data_ids resource_requirements_id scheduler_id failure_handler_id attempt_id",
     "command name workflow_id",
     "env priority label origin spawned_by_job_id compute_node_id"},
    {"file_model", "id workflow_id name path st_mtime", "name path workflow_id"},
    {"user_data_model", "id workflow_id is_ephemeral name data", "name workflow_id"},
    {"resource_requirements_model",
     "id workflow_id name num_cpus num_gpus num_nodes memory runtime tasks_per_node",
     "name workflow_id"},
    {"failure_handler_model", "id workflow_id name rules", "name rules workflow_id"},
    {"slurm_scheduler_model",
     "id workflow_id name account gres mem nodes ntasks_per_node partition qos tmp walltime extra",
     "account nodes walltime workflow_id", "serialize_allocations"},
    {"local_scheduler_model", "id workflow_id name memory num_cpus", "workflow_id"},
    {"compute_node_model",
     "id workflow_id hostname pid start_time duration_seconds is_active num_cpus memory_gb "
     "num_gpus num_nodes time_limit scheduler_config_id compute_node_type scheduler",
     "compute_node_type hostname memory_gb num_cpus num_gpus num_nodes pid start_time "
     "workflow_id",
     "end_time sample_count peak_cpu_percent avg_cpu_percent peak_memory_bytes "
     "avg_memory_bytes"},
    {"scheduled_compute_nodes_model",
     "id workflow_id scheduler_id scheduler_config_id scheduler_type status",
     "scheduler_config_id scheduler_id scheduler_type status workflow_id",
     "made_for shape submit_time start_time end_time node end_reason"},
    {"result_model",
     "id job_id workflow_id run_id attempt_id compute_node_id return_code exec_time_minutes "
     "completion_time status peak_memory_bytes avg_memory_bytes peak_cpu_percent "
     "avg_cpu_percent",
     "completion_time compute_node_id exec_time_minutes job_id return_code run_id status "
     "workflow_id"},
    {"event_model", "id workflow_id timestamp data", "data timestamp workflow_id"},
    {"workflow_action_model",
     "id workflow_id trigger_type action_type action_config job_ids executed executed_at "
     "executed_by persistent",
     "action_config action_type trigger_type workflow_id", "trigger_count required_triggers"},
    {"compute_nodes_resources",
     "id num_cpus memory_gb num_gpus num_nodes time_limit scheduler_config_id",
     "memory_gb num_cpus num_gpus num_nodes"},
    {"job_dependency_model", "job_id job_name depends_on_job_id depends_on_job_name workflow_id",
     "-"},
    {"job_file_relationship_model",
     "file_id file_name file_path producer_job_id producer_job_name consumer_job_id "
     "consumer_job_name workflow_id",
     "-"},
    {"job_user_data_relationship_model",
     "user_data_id user_data_name producer_job_id producer_job_name consumer_job_id "
     "consumer_job_name workflow_id",
     "-"},
    {"access_group_model", "id name description created_at", "name"},
    {"user_group_membership_model", "id user_name group_id role created_at", "group_id user_name"},
    {"workflow_access_group_model", "workflow_id group_id created_at", "group_id workflow_id"},
    // 0.23's TaskModel (test/data/torc-openapi-v0.23.0.yaml), written by the server only.
    {"task_model",
     "id workflow_id operation status created_at_ms started_at_ms finished_at_ms error", "-"},
    // 0.23's RoCrateEntityModel.
    {"ro_crate_entity_model", "id workflow_id file_id entity_id entity_type metadata",
     "entity_id entity_type metadata workflow_id"},
};

std::vector<std::string> words(std::string const& text)
{
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

api::model_spec const* find_model(std::string const& name)
{
    for (auto const* m : api::all_models()) {
        if (m->name == name) return m;
    }
    return nullptr;
}

BOOST_DATA_TEST_CASE(tables_match_the_contract, bdata::make(contract), c)
{
    auto const* model = find_model(c.model);
    BOOST_TEST_REQUIRE(model != nullptr);
    std::vector<std::string> names, required, extra_names;
    auto const extras = words(c.extra);
    for (auto const& f : model->fields) {
        std::string const name(f.name);
        if (std::find(extras.begin(), extras.end(), name) != extras.end()) {
            extra_names.push_back(name);
            continue;
        }
        names.push_back(name);
        if (f.required) required.push_back(name);
    }
    std::sort(required.begin(), required.end());
    BOOST_TEST(names == words(c.properties), boost::test_tools::per_element());
    BOOST_TEST(extra_names == extras, boost::test_tools::per_element());
    if (c.required != "-")
        BOOST_TEST(required == words(c.required), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_table_is_in_the_contract_list)
{
    BOOST_TEST(api::all_models().size() == contract.size());
}

// The invariants the store and codec rely on, for every table.
BOOST_DATA_TEST_CASE(fields_are_consistent, bdata::make(contract), c)
{
    auto const* model = find_model(c.model);
    BOOST_TEST_REQUIRE(model != nullptr);
    for (auto const& f : model->fields) {
        BOOST_TEST_CONTEXT(f.name)
        {
            BOOST_TEST(!(f.required && f.default_value));  // a default would never apply
            BOOST_TEST(!(f.required && f.read_only));
            if (f.storage == api::field_storage::link) BOOST_TEST(model->name == "job_model");
            if (f.storage == api::field_storage::link) BOOST_TEST((f.kind == api::field_kind::ids));
            if (f.storage == api::field_storage::computed) BOOST_TEST(f.read_only);
            if (!f.sql.empty()) BOOST_TEST((f.storage == api::field_storage::computed));
            if (!f.choices.empty() && f.default_value) {
                BOOST_TEST((std::find(f.choices.begin(), f.choices.end(), *f.default_value) !=
                            f.choices.end()));
            }
            // entity_id is an RO-Crate entity's `@id`, a string.
            if (f.name.ends_with("_id") && f.name != "id" && f.name != "entity_id") {
                BOOST_TEST((f.kind == api::field_kind::integer));
            }
        }
    }
}

struct status_case {
    std::string name;
    std::int64_t code;
};
std::ostream& operator<<(std::ostream& os, status_case const& c) { return os << c.name; }

// docs/TORC-COMPATIBILITY.md §1
std::vector<status_case> const statuses{
    {"uninitialized", 0}, {"blocked", 1},   {"ready", 2},          {"pending", 3},
    {"running", 4},       {"completed", 5}, {"failed", 6},         {"canceled", 7},
    {"terminated", 8},    {"disabled", 9},  {"pending_failed", 10}};

BOOST_DATA_TEST_CASE(job_status_codes, bdata::make(statuses), c)
{
    BOOST_TEST((api::job_status_code(c.name) == std::optional<std::int64_t>(c.code)));
    BOOST_TEST(api::job_status_name(c.code) == c.name);
}

BOOST_AUTO_TEST_CASE(unknown_job_statuses)
{
    BOOST_TEST(!api::job_status_code("done"));
    BOOST_TEST(!api::job_status_code("Ready"));
    BOOST_TEST(api::job_status_name(11).empty());
    BOOST_TEST(api::job_status_name(-1).empty());
}

BOOST_AUTO_TEST_SUITE_END()
