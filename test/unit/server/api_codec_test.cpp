// Request bodies against the model tables (every rejection verbatim, with its status) and
// records back to JSON (defaults, read-only fields, omitted NULLs, numbers, escapes, envelopes).
#include "torcrun/server/model_json.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using api::decode_mode;

BOOST_AUTO_TEST_SUITE(api_codec)

struct reject_case {
    api::model_spec const* model;
    std::string what;
    std::string body;
    unsigned status;
    std::string message;
    decode_mode mode = decode_mode::create;
};
std::ostream& operator<<(std::ostream& os, reject_case const& c) { return os << c.body; }

std::string const file_ok = R"("workflow_id":1,"name":"f","path":"/p")";
std::string const statuses =
    "uninitialized, blocked, ready, pending, running, completed, failed, canceled, terminated, "
    "disabled, pending_failed";
std::string const rr = R"({"workflow_id":1,"name":"big",)";
std::string const run_commands = R"({"workflow_id":1,"trigger_type":"on_workflow_start",)"
                                 R"("action_type":"run_commands","action_config":)";
std::string const schedule_nodes = R"({"workflow_id":1,"trigger_type":"on_jobs_ready",)"
                                   R"("action_type":"schedule_nodes","action_config":)";

std::vector<reject_case> const rejected{
    {&api::file_model, "files", "", 400, "files: request body is empty"},
    {&api::file_model, "files", " \n", 400, "files: request body is empty"},
    {&api::file_model, "files", R"({"a":1,})", 400,
     "files: request body is not valid JSON: syntax error at byte 7"},
    {&api::file_model, "files", R"({"a":1} x)", 400,
     "files: request body is not valid JSON: extra data at byte 8"},
    {&api::file_model, "files", R"({"a":)", 400,
     "files: request body is not valid JSON: incomplete JSON at byte 5"},
    {&api::file_model, "files", "[1]", 422,
     "files: request body: expected an object, found an array"},
    {&api::file_model, "files", R"({"workflow_id":1,"name":"f","path":5})", 422,
     R"(files: field "path": expected a string, found an integer)"},
    {&api::file_model, "files", R"({"workflow_id":1,"path":"/p"})", 422,
     R"(files: field "name": required field is missing)"},
    {&api::file_model, "files", R"({"workflow_id":1,"name":null,"path":"/p"})", 422,
     R"(files: field "name": expected a string, found null)"},
    {&api::file_model, "files", R"({"workflow_id":1.5,"name":"f","path":"/p"})", 422,
     R"(files: field "workflow_id": expected an integer, found a number)"},
    {&api::file_model, "files", R"({"workflow_id":18446744073709551615,"name":"f","path":"/p"})",
     422, R"(files: field "workflow_id": expected an integer, found an integer out of range)"},
    {&api::file_model, "files", R"({"workflow_id":"1","name":"f","path":"/p"})", 422,
     R"(files: field "workflow_id": expected an integer, found a string)"},
    {&api::file_model, "files", "{" + file_ok + R"(,"st_mtime":1e400})", 422,
     R"(files: field "st_mtime": expected a number, found a number out of range)"},
    {&api::file_model, "files", "{" + file_ok + R"(,"st_mtime":"now"})", 422,
     R"(files: field "st_mtime": expected a number, found a string)"},
    {&api::file_model, "files", R"({"workflow_id":1,"path":"/p"})", 422,
     R"(files: field "name": required field is missing)", decode_mode::update},
    {&api::workflow_model, "workflows", R"({"name":"w","user":"u","jobs_sort_method":"fastest"})",
     422,
     R"(workflows: field "jobs_sort_method": "fastest" is not one of gpus_runtime_memory, gpus_memory_runtime, none)"},
    {&api::workflow_model, "workflows",
     R"({"name":"w","user":"u","compute_node_ignore_workflow_completion":"yes"})", 422,
     R"(workflows: field "compute_node_ignore_workflow_completion": expected a boolean, found a string)"},
    {&api::workflow_model, "workflows",
     R"({"name":"w","user":"u","compute_node_expiration_buffer_seconds":-1})", 422,
     R"(workflows: field "compute_node_expiration_buffer_seconds": -1 is less than the minimum 0)"},
    {&api::workflow_model, "workflows", R"({"name":"w","user":"u","slurm_defaults":"{"})", 422,
     R"(workflows: field "slurm_defaults": "{" is not valid JSON)"},
    {&api::workflow_model, "workflows", R"({"name":"w","user":"u","resource_monitor_config":[]})",
     422,
     R"(workflows: field "resource_monitor_config": expected a JSON string or an object, found an array)"},
    {&api::workflow_model, "workflows", R"({"name":"w","user":"u","id":"x"})", 422,
     R"(workflows: field "id": expected an integer, found a string)"},
    {&api::failure_handler_model, "failure_handlers",
     R"({"workflow_id":1,"name":"h","rules":"[{"})", 422,
     R"(failure_handlers: field "rules": "[{" is not valid JSON)"},
    {&api::job_model, "jobs", R"({"workflow_id":1,"name":"j","command":"c","status":"done"})", 422,
     R"(jobs: field "status": "done" is not a job status ()" + statuses + ")"},
    {&api::job_model, "jobs", R"({"workflow_id":1,"name":"j","command":"c","status":2})", 422,
     R"(jobs: field "status": expected a string, found an integer)"},
    {&api::job_model, "jobs",
     R"({"workflow_id":1,"name":"j","command":"c","depends_on_job_ids":[1,"2"]})", 422,
     R"(jobs: field "depends_on_job_ids": element 1: expected an integer, found a string)"},
    {&api::job_model, "jobs",
     R"({"workflow_id":1,"name":"j","command":"c","input_file_ids":{"a":1}})", 422,
     R"(jobs: field "input_file_ids": expected an array of integers, found an object)"},
    {&api::job_model, "jobs", R"({"workflow_id":1,"name":"j","command":"c","attempt_id":0})", 422,
     R"(jobs: field "attempt_id": 0 is less than the minimum 1)"},
    {&api::resource_requirements_model, "resource_requirements", rr + R"("memory":"1.5g"})", 422,
     R"(resource_requirements: field "memory": memory: "1.5g" is not an integer followed by an optional k, m, g or t)"},
    {&api::resource_requirements_model, "resource_requirements", rr + R"("memory":"8388608t"})",
     422,
     R"(resource_requirements: field "memory": "8388608t" is more than 9223372036854775807 bytes)"},
    {&api::resource_requirements_model, "resource_requirements", rr + R"("runtime":"1 hour"})", 422,
     R"(resource_requirements: field "runtime": duration: "1 hour" does not start with P (e.g. PT30M, P1DT12H))"},
    {&api::resource_requirements_model, "resource_requirements", rr + R"("num_nodes":0})", 422,
     R"(resource_requirements: field "num_nodes": 0 is less than the minimum 1)"},
    {&api::resource_requirements_model, "resource_requirements", rr + R"("tasks_per_node":0})",
     422, R"(resource_requirements: field "tasks_per_node": 0 is less than the minimum 1)"},
    {&api::event_model, "events", R"({"workflow_id":1,"timestamp":5,"data":null})", 422,
     R"(events: field "data": expected a JSON value, found null)"},
    {&api::workflow_action_model, "actions", run_commands + R"({"commands":[]}})", 422,
     R"(actions: field "action_config": "commands" must not be empty)"},
    {&api::workflow_action_model, "actions", run_commands + R"({}})", 422,
     R"(actions: field "action_config": run_commands needs "commands")"},
    {&api::workflow_action_model, "actions", run_commands + R"({"commands":["a"],"x":1}})", 422,
     R"(actions: field "action_config": run_commands allows only "commands", found "x")"},
    {&api::workflow_action_model, "actions", run_commands + R"({"commands":"ls"}})", 422,
     R"(actions: field "action_config": "commands" must be an array of strings, found a string)"},
    {&api::workflow_action_model, "actions", run_commands + R"({"commands":["a",2]}})", 422,
     R"(actions: field "action_config": "commands[1]" must be a string, found an integer)"},
    {&api::workflow_action_model, "actions", run_commands + R"([]})", 422,
     R"(actions: field "action_config": expected an object, found an array)"},
    {&api::workflow_action_model, "actions", schedule_nodes + R"({"nodes":2}})", 422,
     R"(actions: field "action_config": schedule_nodes does not allow "nodes" (allowed: scheduler_id, scheduler_type, num_allocations, start_one_worker_per_node, max_parallel_jobs))"},
    {&api::workflow_action_model, "actions", schedule_nodes + R"({"scheduler_id":"1"}})", 422,
     R"(actions: field "action_config": "scheduler_id" must be an integer, found a string)"},
    {&api::workflow_action_model, "actions", schedule_nodes + R"({"start_one_worker_per_node":1}})",
     422,
     R"(actions: field "action_config": "start_one_worker_per_node" must be a boolean, found an integer)"},
    {&api::workflow_action_model, "actions",
     R"({"workflow_id":1,"trigger_type":"t","action_type":"notify","action_config":{}})", 422,
     R"(actions: field "action_type": "notify" is not one of run_commands, schedule_nodes)"},
};

BOOST_DATA_TEST_CASE(rejections, bdata::make(rejected), c)
{
    auto out = api::decode_body(*c.model, c.body, c.mode, c.what);
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().status == c.status);
    BOOST_TEST(out.error().message == c.message);
}

struct accept_case {
    api::model_spec const* model;
    std::string body;
    decode_mode mode;
    std::string encoded;  // encode(decode(body))
};
std::ostream& operator<<(std::ostream& os, accept_case const& c) { return os << c.body; }

std::vector<accept_case> const accepted{
    // Defaults on create, read-only and unknown fields dropped.
    {&api::workflow_model, R"({"id":7,"name":"w","user":"u","status_id":3,"color":"red"})",
     decode_mode::create,
     R"({"name":"w","user":"u","compute_node_expiration_buffer_seconds":60,)"
     R"("compute_node_wait_for_new_jobs_seconds":90,"compute_node_ignore_workflow_completion":false,)"
     R"("compute_node_wait_for_healthy_database_minutes":20,)"
     R"("compute_node_min_time_for_new_jobs_seconds":300,"jobs_sort_method":"gpus_runtime_memory",)"
     R"("use_pending_failed":false})"},
    // No defaults on update.
    {&api::workflow_model, R"({"name":"w","user":"u","description":"d"})", decode_mode::update,
     R"({"name":"w","user":"u","description":"d"})"},
    // null optional fields are absent (serde's Option), as Torc's client sends scheduler_id.
    {&api::job_model,
     R"({"workflow_id":1,"name":"j","command":"c","scheduler_id":null,"depends_on_job_ids":[3,2]})",
     decode_mode::create,
     R"({"workflow_id":1,"name":"j","command":"c","cancel_on_blocking_job_failure":true,)"
     R"("supports_termination":false,"depends_on_job_ids":[3,2],"attempt_id":1,"priority":0})"},
    {&api::job_model, R"({"workflow_id":1,"name":"j","command":"c","status":"pending_failed"})",
     decode_mode::update,
     R"({"workflow_id":1,"name":"j","command":"c","status":"pending_failed"})"},
    {&api::file_model, R"({"workflow_id":1,"name":"f","path":"/p","st_mtime":1700000000})",
     decode_mode::create, R"({"workflow_id":1,"name":"f","path":"/p","st_mtime":1700000000})"},
    {&api::file_model, R"({"workflow_id":1,"name":"f","path":"/p","st_mtime":1.5})",
     decode_mode::create, R"({"workflow_id":1,"name":"f","path":"/p","st_mtime":1.5})"},
    // Any JSON value as user data, kept as sent (compact).
    {&api::user_data_model, R"({"workflow_id":1,"name":"d","data":[1, {"a" : "b"}]})",
     decode_mode::create,
     R"({"workflow_id":1,"is_ephemeral":false,"name":"d","data":[1,{"a":"b"}]})"},
    {&api::user_data_model, R"({"workflow_id":1,"name":"d","data":3})", decode_mode::create,
     R"({"workflow_id":1,"is_ephemeral":false,"name":"d","data":3})"},
    {&api::failure_handler_model, R"({"workflow_id":1,"name":"h","rules":"[]"})",
     decode_mode::create, R"({"workflow_id":1,"name":"h","rules":"[]"})"},
    {&api::resource_requirements_model, R"({"workflow_id":1,"name":"r"})", decode_mode::create,
     R"({"workflow_id":1,"name":"r","num_cpus":1,"num_gpus":0,"num_nodes":1,"memory":"1m",)"
     R"("runtime":"P0DT1M"})"},
    {&api::compute_node_model,
     R"({"workflow_id":1,"hostname":"n1","pid":9,"start_time":"t","num_cpus":4,"memory_gb":240.0,)"
     R"("num_gpus":0,"num_nodes":1,"compute_node_type":"slurm","scheduler":{"scheduler_id":3}})",
     decode_mode::create,
     R"({"workflow_id":1,"hostname":"n1","pid":9,"start_time":"t","is_active":true,"num_cpus":4,)"
     R"("memory_gb":240,"num_gpus":0,"num_nodes":1,"compute_node_type":"slurm",)"
     R"("scheduler":{"scheduler_id":3}})"},
    {&api::workflow_action_model,
     run_commands + R"({"commands":["echo hi"]},"job_ids":[4,4,5],"required_triggers":9})",
     decode_mode::create,
     R"({"workflow_id":1,"trigger_type":"on_workflow_start","action_type":"run_commands",)"
     R"("action_config":{"commands":["echo hi"]},"job_ids":[4,4,5],"trigger_count":0,)"
     R"("required_triggers":1,"executed":false,"persistent":false})"},
    // Job triggers wait for one trigger per listed job, duplicates included
    // (docs/TORC-COMPATIBILITY.md §4.3).
    {&api::workflow_action_model,
     schedule_nodes +
         R"({"scheduler_type":"slurm","scheduler_id":2,"num_allocations":1,)"
         R"("start_one_worker_per_node":true,"max_parallel_jobs":4},"job_ids":[4,4,5]})",
     decode_mode::create,
     R"({"workflow_id":1,"trigger_type":"on_jobs_ready","action_type":"schedule_nodes",)"
     R"("action_config":{"scheduler_type":"slurm","scheduler_id":2,"num_allocations":1,)"
     R"("start_one_worker_per_node":true,"max_parallel_jobs":4},"job_ids":[4,4,5],)"
     R"("trigger_count":0,"required_triggers":3,"executed":false,"persistent":false})"},
};

BOOST_DATA_TEST_CASE(accepted_bodies, bdata::make(accepted), c)
{
    auto out = api::decode_body(*c.model, c.body, c.mode, "x");
    BOOST_TEST_REQUIRE(out.has_value(), (out.has_error() ? out.error().message : ""));
    BOOST_TEST(api::encode(*c.model, *out) == c.encoded);
}

BOOST_AUTO_TEST_CASE(resource_requirements_keep_parsed_values_for_claims)
{
    auto out = api::decode_body(api::resource_requirements_model,
                                R"({"workflow_id":1,"name":"r","memory":"2g","runtime":"PT1.5S"})",
                                decode_mode::create, "x");
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST((out->int64("memory_bytes") == std::optional<std::int64_t>(2LL << 30)));
    BOOST_TEST((out->int64("runtime_s") == std::optional<std::int64_t>(2)));  // rounded up
    auto defaults = api::decode_body(api::resource_requirements_model,
                                     R"({"workflow_id":1,"name":"r"})", decode_mode::create, "x");
    BOOST_TEST((defaults->int64("memory_bytes") == std::optional<std::int64_t>(1LL << 20)));
    BOOST_TEST((defaults->int64("runtime_s") == std::optional<std::int64_t>(60)));
    auto update = api::decode_body(api::resource_requirements_model,
                                   R"({"workflow_id":1,"name":"r"})", decode_mode::update, "x");
    BOOST_TEST(!update->find("memory_bytes"));
}

struct batch_case {
    std::string body;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, batch_case const& c) { return os << c.body; }

std::vector<batch_case> const batches{
    {"{}", R"(bulk_jobs: field "jobs": required field is missing)"},
    {R"({"jobs":{}})", R"(bulk_jobs: field "jobs": expected an array, found an object)"},
    {"[]", "bulk_jobs: request body: expected an object, found an array"},
    {R"({"jobs":[{"workflow_id":1,"name":"a","command":"c"},{"workflow_id":1,"name":"b"}]})",
     R"(bulk_jobs: jobs[1]: field "command": required field is missing)"},
    {R"({"jobs":[7]})", "bulk_jobs: jobs[0]: request body: expected an object, found an integer"},
};

BOOST_DATA_TEST_CASE(batch_rejections, bdata::make(batches), c)
{
    auto out = api::decode_batch(api::job_model, c.body, "jobs", decode_mode::create, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().status == 422u);
    BOOST_TEST(out.error().message == c.message);
}

BOOST_AUTO_TEST_CASE(batch_keeps_order)
{
    auto out = api::decode_batch(
        api::job_model,
        R"({"jobs":[{"workflow_id":1,"name":"a","command":"x"},{"workflow_id":1,"name":"b","command":"y"}]})",
        "jobs", decode_mode::create, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST_REQUIRE(out->size() == 2u);
    BOOST_TEST(*(*out)[0].text("name") == "a");
    BOOST_TEST(*(*out)[1].text("name") == "b");
    auto empty =
        api::decode_batch(api::job_model, R"({"jobs":[]})", "jobs", decode_mode::create, "b");
    BOOST_TEST(empty->empty());
}

struct optional_body_case {
    std::string body;
    std::string message;  // empty: accepted
};
std::ostream& operator<<(std::ostream& os, optional_body_case const& c) { return os << c.body; }

std::vector<optional_body_case> const optional_bodies{
    {"", ""},
    {"null", ""},
    {"{}", ""},
    {R"({"a":1})", ""},
    {"[1]", "claims: request body: expected an object or null, found an array"},
    {"{", "claims: request body is not valid JSON: incomplete JSON at byte 1"},
};

BOOST_DATA_TEST_CASE(optional_bodies_accepted_and_rejected, bdata::make(optional_bodies), c)
{
    auto out = api::check_optional_body(c.body, "claims");
    if (c.message.empty()) {
        BOOST_TEST(out.has_value());
    } else {
        BOOST_TEST_REQUIRE(out.has_error());
        BOOST_TEST(out.error().message == c.message);
    }
}

BOOST_AUTO_TEST_CASE(encoding_values)
{
    api::record row;
    row.set("id", std::int64_t{3});
    row.set("workflow_id", std::int64_t{1});
    row.set("name", std::string("a \"quoted\"\\ name\n\x01"));
    row.set("path", std::monostate{});
    row.set("st_mtime", 2.0);
    BOOST_TEST(api::encode(api::file_model, row) ==
               R"({"id":3,"workflow_id":1,"name":"a \"quoted\"\\ name\n\u0001","st_mtime":2})");
    row.set("st_mtime", 0.1);
    BOOST_TEST(api::encode(api::file_model, row).ends_with(R"("st_mtime":0.1})"));
    row.set("st_mtime", 1e300);
    BOOST_TEST(api::encode(api::file_model, row).ends_with(R"("st_mtime":1e+300})"));
    row.set("st_mtime", -3.0);
    BOOST_TEST(api::encode(api::file_model, row).ends_with(R"("st_mtime":-3})"));
    api::record job;
    job.set("status", std::int64_t{10});
    job.set("supports_termination", std::int64_t{1});
    job.set("input_file_ids", api::id_list{});
    BOOST_TEST(api::encode(api::job_model, job) ==
               R"({"status":"pending_failed","supports_termination":true,"input_file_ids":[]})");
    job.set("status", std::int64_t{42});  // not a status: left out rather than sent wrong
    BOOST_TEST(api::encode(api::job_model, job) ==
               R"({"supports_termination":true,"input_file_ids":[]})");
}

BOOST_AUTO_TEST_CASE(envelopes)
{
    api::record a, b;
    a.set("id", std::int64_t{1});
    b.set("id", std::int64_t{2});
    std::vector<api::record> rows{a, b};
    BOOST_TEST(
        api::encode_list(api::file_model, rows,
                         {.offset = 4, .max_limit = 10000, .total_count = 7}) ==
        R"({"items":[{"id":1},{"id":2}],"offset":4,"max_limit":10000,"count":2,"total_count":7,"has_more":true})");
    BOOST_TEST(
        api::encode_list(api::file_model, rows,
                         {.offset = 5, .max_limit = 10000, .total_count = 7}) ==
        R"({"items":[{"id":1},{"id":2}],"offset":5,"max_limit":10000,"count":2,"total_count":7,"has_more":false})");
    BOOST_TEST(
        api::encode_list(api::file_model, {},
                         {.offset = 0, .max_limit = 10000, .total_count = 0}) ==
        R"({"items":[],"offset":0,"max_limit":10000,"count":0,"total_count":0,"has_more":false})");
    BOOST_TEST(api::encode_wrapped(api::job_model, rows, "jobs") ==
               R"({"jobs":[{"id":1},{"id":2}]})");
    BOOST_TEST(api::encode_array(api::file_model, rows) == R"([{"id":1},{"id":2}])");
    BOOST_TEST(
        api::error_body("files: no file with id 5") ==
        R"({"error":{"message":"files: no file with id 5"},"message":"files: no file with id 5"})");
}

BOOST_AUTO_TEST_SUITE_END()
