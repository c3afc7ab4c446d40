// Both of Torc's contracts through server_api on a real SQLite store (docs/TORC-COMPATIBILITY.md,
// "Both contracts: v0.10 and 0.23"): the workflow's run_id and flags, the configuration fields
// answered in the form they were sent, GET status as one object for both, initialize_jobs with
// async and its task, claim_action's optional node and both flags, and the body-less calls with
// no body, null or {}.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::api_fixture;
using torcrun::test::lifecycle_fixture;

BOOST_AUTO_TEST_SUITE(both_contracts)

BOOST_FIXTURE_TEST_CASE(workflow_carries_run_id_and_flags, lifecycle_fixture)
{
    auto w = ok("GET", "/workflows/1");
    BOOST_TEST(w.at("run_id").as_int64() == 0);
    BOOST_TEST(!w.at("is_canceled").as_bool());
    BOOST_TEST(!w.at("is_archived").as_bool());
    ok("PUT", "/workflows/1/status", R"({"is_canceled":false,"run_id":3})");  // v0.10's rerun
    ok("PUT", "/workflows/1/cancel");
    w = ok("GET", "/workflows/1");
    BOOST_TEST(w.at("run_id").as_int64() == 3);
    BOOST_TEST(w.at("is_canceled").as_bool());
    auto const listed = ok("GET", "/workflows").at("items").as_array().at(0);
    BOOST_TEST(listed.at("run_id").as_int64() == 3);
    BOOST_TEST(ok("GET", "/workflows", "", {{"sort_by", "run_id"}}).at("count").as_int64() == 1);
    // Read-only: what a body says of them is ignored, on create and on update.
    auto put = ok("PUT", "/workflows/1",
                  R"({"name":"w","user":"me","run_id":9,"is_canceled":false,"is_archived":true})");
    BOOST_TEST(put.at("run_id").as_int64() == 3);
    BOOST_TEST(put.at("is_canceled").as_bool());
    BOOST_TEST(!put.at("is_archived").as_bool());
    auto created = ok("POST", "/workflows", R"({"name":"n","user":"me","run_id":5})");
    BOOST_TEST(created.at("run_id").as_int64() == 0);
}

BOOST_FIXTURE_TEST_CASE(configuration_fields_come_back_as_sent, api_fixture)
{
    // v0.10 and API 0.17: strings holding JSON, answered as those strings, byte for byte.
    auto w = ok("POST", "/workflows",
                R"({"name":"w","user":"me","resource_monitor_config":"{\"jobs\": {}}",)"
                R"("slurm_defaults":"{\"qos\":\"high\"}",)"
                R"("execution_config":"{\"mode\": \"slurm\"}"})");
    BOOST_TEST(w.at("resource_monitor_config").as_string() == R"({"jobs": {}})");
    BOOST_TEST(w.at("slurm_defaults").as_string() == R"({"qos":"high"})");
    BOOST_TEST(w.at("execution_config").as_string() == R"({"mode": "slurm"})");
    BOOST_TEST(ok("GET", "/workflows/1") == w);
    // 0.23: objects, answered as objects.
    auto o = ok("POST", "/workflows",
                R"({"name":"o","user":"me","resource_monitor_config":{"jobs":{"enabled":true}},)"
                R"("slurm_defaults":{"qos":"high"},"execution_config":{"mode":"direct"}})");
    BOOST_TEST(boost::json::serialize(o.at("resource_monitor_config")) ==
               R"({"jobs":{"enabled":true}})");
    BOOST_TEST(boost::json::serialize(o.at("slurm_defaults")) == R"({"qos":"high"})");
    BOOST_TEST(boost::json::serialize(o.at("execution_config")) == R"({"mode":"direct"})");
    BOOST_TEST(ok("GET", "/workflows/2") == o);
    // An update in the other form switches it; what it leaves out keeps its form; absent stays
    // absent.
    auto put = ok("PUT", "/workflows/2", R"({"name":"o","user":"me","slurm_defaults":"{}"})");
    BOOST_TEST(put.at("slurm_defaults").as_string() == "{}");
    BOOST_TEST(put.at("execution_config").is_object());
    put = ok("PUT", "/workflows/1", R"({"name":"w","user":"me","slurm_defaults":{"qos":"low"}})");
    BOOST_TEST(put.at("slurm_defaults").is_object());
    BOOST_TEST(put.at("resource_monitor_config").is_string());
    auto bare = ok("POST", "/workflows", R"({"name":"b","user":"me"})").as_object();
    for (auto key : {"resource_monitor_config", "slurm_defaults", "execution_config"})
        BOOST_TEST(!bare.contains(key), key);
}

// 0.23's new optional fields that the server keeps come back; the job's compute_node_id is its
// holder, which no body sets.
BOOST_FIXTURE_TEST_CASE(new_fields_of_0_23_are_kept, lifecycle_fixture)
{
    auto w = ok("PUT", "/workflows/1",
                R"({"name":"w","user":"me","submission_directory":"/home/me/runs",)"
                R"("enable_ro_crate":false})");
    BOOST_TEST(w.at("submission_directory").as_string() == "/home/me/runs");
    BOOST_TEST(!w.at("enable_ro_crate").as_bool());
    auto n = ok("POST", "/compute_nodes",
                R"({"workflow_id":1,"hostname":"n1","pid":7,"start_time":"2026-01-19T22:41:30Z",)"
                R"("end_time":"2026-01-19T23:41:30Z","num_cpus":8,"memory_gb":16,"num_gpus":0,)"
                R"("num_nodes":1,"compute_node_type":"local","sample_count":3,)"
                R"("peak_cpu_percent":90.5,"avg_cpu_percent":40,"peak_memory_bytes":2048,)"
                R"("avg_memory_bytes":1024})");
    for (auto key : {"end_time", "sample_count", "peak_cpu_percent", "avg_cpu_percent",
                     "peak_memory_bytes", "avg_memory_bytes"})
        BOOST_TEST(n.as_object().contains(key), key);
    BOOST_TEST(n.at("peak_cpu_percent").as_double() == 90.5);
    BOOST_TEST(fails(422, "POST", "/compute_nodes",
                     R"({"workflow_id":1,"hostname":"n1","pid":7,"start_time":"t",)"
                     R"("num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,)"
                     R"("compute_node_type":"local","sample_count":-1})") ==
               R"(compute_nodes: field "sample_count": -1 is less than the minimum 0)");
    auto const cn = n.at("id").as_int64();
    job("a", R"("compute_node_id":99)");  // read-only: ignored
    BOOST_TEST(!ok("GET", "/jobs/1").as_object().contains("compute_node_id"));
    initialize();
    claim_next(1);
    start(1, cn);
    BOOST_TEST(ok("GET", "/jobs/1").at("compute_node_id").as_int64() == cn);
    complete(1, "completed", cn);
    BOOST_TEST(!ok("GET", "/jobs/1").as_object().contains("compute_node_id"));
}

// Workflow 1: a (60 s, ready), long (2 h, ready), done (completed), after (blocked by long);
// one active compute node with an hour from 2026-01-19T22:41:30Z (the clock reads .123 later),
// and scheduled compute nodes pending and active.
struct status_fixture : lifecycle_fixture {
    status_fixture()
    {
        ok("POST", "/resource_requirements",
           R"({"workflow_id":1,"name":"long","runtime":"PT2H"})");
        job("a");
        job("long", R"("resource_requirements_id":2)");
        job("done");
        job("after", R"("depends_on_job_ids":[2])");
        auto const cn = ok("POST", "/compute_nodes",
                           R"({"workflow_id":1,"hostname":"n1","pid":7,)"
                           R"("start_time":"2026-01-19T22:41:30Z","time_limit":"PT1H",)"
                           R"("num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,)"
                           R"("compute_node_type":"local"})")
                            .at("id")
                            .as_int64();
        initialize();
        run(3, cn);
        for (auto s : {"pending", "active", "active"}) {
            ok("POST", "/scheduled_compute_nodes",
               R"({"workflow_id":1,"scheduler_id":5,"scheduler_config_id":1,)"
               R"("scheduler_type":"slurm","status":")" +
                   std::string(s) + "\"}");
        }
    }
};

BOOST_FIXTURE_TEST_CASE(status_answers_both_contracts, status_fixture)
{
    BOOST_TEST(call("GET", "/workflows/1/status").body ==
               R"({"id":1,"is_canceled":false,"is_archived":false,"run_id":0,)"
               R"("has_detected_need_to_run_completion_script":false,)"
               R"("workflow_id":1,"workflow_name":"w","workflow_user":"me","total_jobs":4,)"
               R"("jobs_by_status":{"uninitialized":0,"blocked":1,"ready":2,"pending":0,)"
               R"("running":0,"completed":1,"failed":0,"canceled":0,"terminated":0,"disabled":0,)"
               R"("pending_failed":0},"total_exec_time_minutes":0.5,"active_compute_nodes":1,)"
               R"("pending_scheduled_nodes":1,"active_scheduled_nodes":2,"is_complete":false,)"
               R"("runtime_blocked_ready_jobs":1,"longest_ready_runtime_seconds":7200,)"
               R"("max_allocation_remaining_seconds":3599})");
    // Without a walltime-bounded node nothing is runtime-blocked and no remainder is known.
    ok("PUT", "/compute_nodes/1", node_record(1, false));
    auto const s = ok("GET", "/workflows/1/status").as_object();
    BOOST_TEST(s.at("runtime_blocked_ready_jobs").as_int64() == 0);
    BOOST_TEST(!s.contains("longest_ready_runtime_seconds"));
    BOOST_TEST(!s.contains("max_allocation_remaining_seconds"));
    BOOST_TEST(s.at("active_compute_nodes").as_int64() == 0);
    // v0.10's client raises run_id through PUT status with the object it read: extra keys are
    // ignored.
    auto body = boost::json::parse(call("GET", "/workflows/1/status").body).as_object();
    body["run_id"] = 1;
    BOOST_TEST(ok("PUT", "/workflows/1/status", boost::json::serialize(body))
                   .at("run_id")
                   .as_int64() == 1);
    BOOST_TEST(fails(404, "GET", "/workflows/9/status") ==
               "workflow_status: no workflow with id 9");
}

BOOST_FIXTURE_TEST_CASE(initialize_async_records_its_task, lifecycle_fixture)
{
    job("a");
    auto const answer = call("POST", "/workflows/1/initialize_jobs", "", {{"async", "true"}});
    BOOST_TEST(answer.status == 202u);
    BOOST_TEST(answer.body == R"({"id":1,"workflow_id":1,"operation":"initialize_jobs",)"
                              R"("status":"succeeded","created_at_ms":1768862490123,)"
                              R"("started_at_ms":1768862490123,"finished_at_ms":1768862490123})");
    BOOST_TEST(status(1) == "ready");  // done by the time the client polls
    BOOST_TEST(call("GET", "/tasks/1").body == answer.body);
    BOOST_TEST(call("GET", "/workflows/1/active_task").body == R"({"task":null})");
    // Sent twice: each request initializes and records its own task.
    BOOST_TEST(call("POST", "/workflows/1/initialize_jobs", "null", {{"async", "true"}}).status ==
               202u);
    BOOST_TEST(ok("GET", "/tasks/2").at("status").as_string() == "succeeded");
    // async=false is the synchronous answer; a failed one records nothing.
    BOOST_TEST(ok("POST", "/workflows/1/initialize_jobs", "{}", {{"async", "false"}})
                   .as_object()
                   .contains("ready_count"));
    BOOST_TEST(fails(404, "POST", "/workflows/9/initialize_jobs", "", {{"async", "true"}}) ==
               "initialize_jobs: no workflow with id 9");
    BOOST_TEST(count("task") == 2);
    BOOST_TEST(fails(400, "POST", "/workflows/1/initialize_jobs", "", {{"async", "soon"}}) ==
               R"(initialize_jobs: query parameter "async": "soon" is not true or false)");
    BOOST_TEST(fails(404, "GET", "/tasks/9") == "tasks: no task with id 9");
    BOOST_TEST(fails(404, "GET", "/workflows/9/active_task") ==
               "active_task: no workflow with id 9");
}

BOOST_FIXTURE_TEST_CASE(an_active_task_is_answered, lifecycle_fixture)
{
    // No request leaves one (initialize runs within its request); a task row that says so is
    // still answered as 0.23 answers it.
    BOOST_TEST_REQUIRE(db.db()
                           .exec("INSERT INTO task (workflow_id, operation, status, created_at_ms) "
                                 "VALUES (1, 'initialize_jobs', 'running', 5)")
                           .has_value());
    BOOST_TEST(call("GET", "/workflows/1/active_task").body ==
               R"({"task":{"id":1,"workflow_id":1,"operation":"initialize_jobs",)"
               R"("status":"running","created_at_ms":5}})");
}

std::vector<std::string> const claim_bodies{"", "null", "{}", R"({"compute_node_id":null})",
                                            R"({"compute_node_id":1})"};

BOOST_DATA_TEST_CASE_F(lifecycle_fixture, claim_action_body_is_optional, bdata::make(claim_bodies),
                       body)
{
    node();
    ok("POST", "/workflows/1/actions",
       R"({"workflow_id":1,"trigger_type":"on_workflow_start","action_type":"run_commands",)"
       R"("action_config":{"commands":["echo"]}})");
    initialize();
    auto const answer = call("POST", "/workflows/1/actions/1/claim", body);
    BOOST_TEST(answer.status == 200u, answer.body);
    BOOST_TEST(answer.body == R"({"action_id":1,"success":true,"claimed":true})");
    auto const action = ok("GET", "/workflows/1/actions").as_array().at(0).as_object();
    BOOST_TEST(action.contains("executed_by") == (body == R"({"compute_node_id":1})"));
    // Claimed twice: the second is refused, whatever the body.
    BOOST_TEST(fails(409, "POST", "/workflows/1/actions/1/claim", body) ==
               "claim_action: action 1 already claimed");
}

BOOST_FIXTURE_TEST_CASE(claim_action_bad_bodies, lifecycle_fixture)
{
    ok("POST", "/workflows/1/actions",
       R"({"workflow_id":1,"trigger_type":"on_workflow_start","action_type":"run_commands",)"
       R"("action_config":{"commands":["echo"]}})");
    BOOST_TEST(fails(422, "POST", "/workflows/1/actions/1/claim", "[1]") ==
               "claim_action: request body: expected an object or null, found an array");
    BOOST_TEST(fails(422, "POST", "/workflows/1/actions/1/claim", R"({"compute_node_id":"x"})") ==
               R"(claim_action: field "compute_node_id": expected an integer, found a string)");
    BOOST_TEST(fails(400, "POST", "/workflows/1/actions/1/claim", "{") ==
               "claim_action: request body is not valid JSON: incomplete JSON at byte 1");
}

std::vector<std::string> const no_bodies{"", "null", "{}", " null \n"};

// The calls 0.23 declares without a body, v0.10 with an optional object: all three forms do the
// same.
BOOST_DATA_TEST_CASE_F(lifecycle_fixture, body_less_calls, bdata::make(no_bodies), body)
{
    job("a");
    job("b");
    auto const cn = node();
    BOOST_TEST(call("POST", "/workflows/1/initialize_jobs", body).status == 200u);
    BOOST_TEST(call("POST", "/workflows/1/claim_next_jobs", body, {{"limit", "2"}}).status ==
               200u);
    auto const n = std::to_string(cn);
    BOOST_TEST(call("PUT", "/jobs/1/start_job/0/" + n, body).status == 200u);
    BOOST_TEST(call("PUT", "/jobs/2/manage_status_change/ready/0", body).status == 200u);
    complete(1, "failed", cn, 1);
    BOOST_TEST(call("POST", "/jobs/1/retry/0", body, {{"max_retries", "3"}}).status == 200u);
    BOOST_TEST(call("PUT", "/workflows/1/cancel", body).status == 200u);
    BOOST_TEST(call("POST", "/workflows/1/reset_status", body).status == 200u);
    BOOST_TEST(call("POST", "/workflows/1/reset_job_status", body).status == 200u);
    BOOST_TEST(call("DELETE", "/jobs/2", body).status == 200u);
    BOOST_TEST(call("DELETE", "/workflows/1", body).status == 200u);
}

BOOST_FIXTURE_TEST_CASE(retry_requires_max_retries, lifecycle_fixture)
{
    job("a");
    auto const cn = node();
    initialize();
    run(1, cn, "failed", 1);
    BOOST_TEST(fails(400, "POST", "/jobs/1/retry/0") ==
               R"(retry: query parameter "max_retries": required parameter is missing)");
    BOOST_TEST(
        ok("POST", "/jobs/1/retry/0", "", {{"max_retries", "2"}}).at("attempt_id").as_int64() == 2);
}

BOOST_AUTO_TEST_SUITE_END()
