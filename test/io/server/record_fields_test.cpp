// The record fields of newer Torc that torcrun's server holds (the workflow's project, metadata,
// env and execution_config; the job's env and priority; serialize_allocations; the scheduled
// compute node's status vocabulary) through server_api on a real SQLite store: what is stored and
// returned in both wire shapes (API 0.17 JSON strings, newest objects), every refusal verbatim,
// and the priority feeding both claim endpoints.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::api_fixture;
using torcrun::test::check_shape;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;

BOOST_AUTO_TEST_SUITE(record_fields)

BOOST_FIXTURE_TEST_CASE(workflow_fields_are_stored_and_returned, api_fixture)
{
    auto w = ok("POST", "/workflows",
                R"({"name":"w","user":"me","project":"p1","metadata":{"owner":"x","n":[1,2]},)"
                R"("env":{"A":"1","_b2":"two words"},)"
                R"("execution_config":{"mode":"direct","stdio":{"mode":"combined"}},)"
                R"("resource_monitor_config":{"jobs":{"enabled":true}},)"
                R"("slurm_defaults":{"qos":"high"}})");
    check_shape(api::workflow_model, w);
    BOOST_TEST(w.at("project").as_string() == "p1");
    BOOST_TEST(boost::json::serialize(w.at("metadata")) == R"({"owner":"x","n":[1,2]})");
    BOOST_TEST(boost::json::serialize(w.at("env")) == R"({"A":"1","_b2":"two words"})");
    BOOST_TEST(boost::json::serialize(w.at("execution_config")) ==
               R"({"mode":"direct","stdio":{"mode":"combined"}})");
    // The form that came in (0.23's objects here; both_contracts has v0.10's strings).
    BOOST_TEST(boost::json::serialize(w.at("resource_monitor_config")) ==
               R"({"jobs":{"enabled":true}})");
    BOOST_TEST(boost::json::serialize(w.at("slurm_defaults")) == R"({"qos":"high"})");
    BOOST_TEST(ok("GET", "/workflows/1") == w);
}

BOOST_FIXTURE_TEST_CASE(api_0_17_strings_are_accepted, api_fixture)
{
    auto w = ok("POST", "/workflows",
                R"({"name":"w","user":"me","metadata":"{\"k\": 1}",)"
                R"("execution_config":"{\"mode\": \"slurm\", \"enable_cpu_bind\": true}"})");
    BOOST_TEST(w.at("metadata").as_string() == R"({"k": 1})");  // a string stays a string
    BOOST_TEST(w.at("execution_config").as_string() ==
               R"({"mode": "slurm", "enable_cpu_bind": true})");  // so does this one
    // PUT replaces what it carries and keeps the rest.
    auto put = ok("PUT", "/workflows/1", R"({"name":"w","user":"me","project":"q"})");
    BOOST_TEST(put.at("project").as_string() == "q");
    BOOST_TEST(put.at("execution_config") == w.at("execution_config"));
    BOOST_TEST(!put.as_object().contains("env"));
}

struct refusal {
    std::string body;  // fields after name and user
    std::string message;
};
std::ostream& operator<<(std::ostream& os, refusal const& r) { return os << r.body; }

std::vector<refusal> const workflow_refusals{
    {R"("env":{"1A":"x"})",
     R"(workflows: field "env": "1A" is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*))"},
    {R"("env":{"A-B":"x"})",
     R"(workflows: field "env": "A-B" is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*))"},
    {R"("env":{"":"x"})",
     R"(workflows: field "env": "" is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*))"},
    {R"("env":{"A":1})", R"(workflows: field "env": value of "A": expected a string, found an integer)"},
    {R"("env":"A=1")", R"(workflows: field "env": expected an object, found a string)"},
    {R"("execution_config":[1])",
     R"(workflows: field "execution_config": expected an object or a string holding one, found an array)"},
    {R"("execution_config":"[1]")",
     R"(workflows: field "execution_config": the string must hold a JSON object, found an array)"},
    {R"("execution_config":"{mode")",
     R"(workflows: field "execution_config": "{mode" is not valid JSON)"},
    {R"("metadata":3)", R"(workflows: field "metadata": expected a string or an object, found an integer)"},
    {R"("project":{"a":1})", R"(workflows: field "project": expected a string, found an object)"},
    {R"("resource_monitor_config":[true])",
     R"(workflows: field "resource_monitor_config": expected a JSON string or an object, found an array)"},
    {R"("slurm_defaults":"{qos")", R"(workflows: field "slurm_defaults": "{qos" is not valid JSON)"},
};

BOOST_DATA_TEST_CASE_F(api_fixture, workflow_refusals_name_the_field, bdata::make(workflow_refusals),
                       r)
{
    BOOST_TEST(fails(422, "POST", "/workflows", R"({"name":"w","user":"me",)" + r.body + "}") ==
               r.message);
    BOOST_TEST(count("workflow") == 0);
}

BOOST_FIXTURE_TEST_CASE(job_env_and_priority, lifecycle_fixture)
{
    auto a = ok("POST", "/jobs",
                R"({"workflow_id":1,"name":"a","command":"x","env":{"OMP_NUM_THREADS":"4"},)"
                R"("priority":7})");
    check_shape(api::job_model, a);
    BOOST_TEST(boost::json::serialize(a.at("env")) == R"({"OMP_NUM_THREADS":"4"})");
    BOOST_TEST(a.at("priority").as_int64() == 7);
    auto b = ok("POST", "/jobs", R"({"workflow_id":1,"name":"b","command":"x"})");
    BOOST_TEST(b.at("priority").as_int64() == 0);  // Torc's default
    BOOST_TEST(!b.as_object().contains("env"));
    auto bulk = ok("POST", "/bulk_jobs",
                   R"({"jobs":[{"workflow_id":1,"name":"c","command":"x","priority":2,)"
                   R"("env":{"X":""}}]})");
    BOOST_TEST(bulk.at("jobs").at(0).at("priority").as_int64() == 2);

    BOOST_TEST(fails(422, "POST", "/jobs", R"({"workflow_id":1,"name":"d","command":"x","priority":-1})") ==
               R"(jobs: field "priority": -1 is less than the minimum 0)");
    BOOST_TEST(fails(422, "POST", "/jobs", R"({"workflow_id":1,"name":"d","command":"x","priority":1.5})") ==
               R"(jobs: field "priority": expected an integer, found a number)");
    BOOST_TEST(fails(422, "POST", "/jobs", R"({"workflow_id":1,"name":"d","command":"x","env":{"A B":"1"}})") ==
               R"(jobs: field "env": "A B" is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*))");
    BOOST_TEST(fails(422, "POST", "/bulk_jobs",
                     R"({"jobs":[{"workflow_id":1,"name":"d","command":"x","priority":"high"}]})") ==
               R"(bulk_jobs: jobs[0]: field "priority": expected an integer, found a string)");
    BOOST_TEST(count("job") == 3);
}

BOOST_FIXTURE_TEST_CASE(priority_orders_both_claims, lifecycle_fixture)
{
    // Same requirements and scheduler: one group, so the store's per-group read must honour it.
    job("low");
    job("high", R"("priority":5)");
    job("mid", R"("priority":2)");
    job("high2", R"("priority":5)");
    initialize();
    auto names = [](boost::json::value const& claim) {
        std::vector<std::string> out;
        for (auto const& j : claim.at("jobs").as_array()) {
            out.emplace_back(j.at("name").as_string());
        }
        return out;
    };
    auto first = ok("POST", "/workflows/1/claim_jobs_based_on_resources/2", node_body(8, 16, 0, 1));
    BOOST_TEST((names(first) == std::vector<std::string>{"high", "high2"}));
    auto rest = ok("POST", "/workflows/1/claim_next_jobs", "", {{"limit", "1"}});
    BOOST_TEST((names(rest) == std::vector<std::string>{"mid"}));
    rest = ok("POST", "/workflows/1/claim_next_jobs", "", {{"limit", "5"}});
    BOOST_TEST((names(rest) == std::vector<std::string>{"low"}));
}

BOOST_FIXTURE_TEST_CASE(priority_beats_the_sort_method_across_groups, lifecycle_fixture)
{
    auto gpu = ok("POST", "/resource_requirements", R"({"workflow_id":1,"name":"g","num_gpus":1})");
    job("gpu", R"("resource_requirements_id":)" + std::to_string(gpu.at("id").as_int64()));
    job("cpu", R"("priority":1)");
    initialize();
    auto out = ok("POST", "/workflows/1/claim_jobs_based_on_resources/1", node_body(8, 16, 1, 1));
    BOOST_TEST(out.at("jobs").at(0).at("name").as_string() == "cpu");
}

BOOST_FIXTURE_TEST_CASE(serialize_allocations, api_fixture)
{
    workflow();
    auto s = ok("POST", "/slurm_schedulers",
                R"({"workflow_id":1,"account":"a","nodes":1,"walltime":"01:00:00"})");
    check_shape(api::slurm_scheduler_model, s);
    BOOST_TEST(s.at("serialize_allocations").as_bool() == false);
    s = ok("PUT", "/slurm_schedulers/1",
           R"({"workflow_id":1,"account":"a","nodes":1,"walltime":"01:00:00","serialize_allocations":true})");
    BOOST_TEST(s.at("serialize_allocations").as_bool() == true);
    BOOST_TEST(fails(422, "POST", "/slurm_schedulers",
                     R"({"workflow_id":1,"account":"a","nodes":1,"walltime":"1:00:00","serialize_allocations":"yes"})") ==
               R"(slurm_schedulers: field "serialize_allocations": expected a boolean, found a string)");
}

BOOST_FIXTURE_TEST_CASE(scheduled_compute_node_statuses, api_fixture)
{
    workflow();
    auto const body = [](std::string const& status) {
        return R"({"workflow_id":1,"scheduler_id":1,"scheduler_config_id":1,)"
               R"("scheduler_type":"slurm","status":")" +
               status + "\"}";
    };
    for (auto status : {"pending", "active", "complete", "canceled"}) {
        BOOST_TEST(ok("POST", "/scheduled_compute_nodes", body(status)).at("status").as_string() ==
                   status);
    }
    BOOST_TEST(ok("PUT", "/scheduled_compute_nodes/1", body("active")).at("status").as_string() ==
               "active");
    BOOST_TEST(fails(422, "POST", "/scheduled_compute_nodes", body("running")) ==
               R"(scheduled_compute_nodes: field "status": "running" is not one of pending, active, complete, canceled)");
    BOOST_TEST(fails(422, "PUT", "/scheduled_compute_nodes/1", body("done")) ==
               R"(scheduled_compute_nodes: field "status": "done" is not one of pending, active, complete, canceled)");
    BOOST_TEST(count("scheduled_compute_node") == 4);
}

BOOST_AUTO_TEST_SUITE_END()
