// The workflow-level life-cycle endpoints through server_api: initialize_jobs (implied edges,
// only_uninitialized, ephemeral user data), is_complete, is_uninitialized, status, cancel,
// reset_status, reset_job_status and ready_job_requirements, and their refusals verbatim with
// nothing changed behind them.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::query;
using status_map = std::map<std::string, std::string>;

BOOST_AUTO_TEST_SUITE(lifecycle)

std::string const complete_false =
    R"({"is_canceled":false,"is_complete":false,"needs_to_run_completion_script":false})";
std::string const complete_true =
    R"({"is_canceled":false,"is_complete":true,"needs_to_run_completion_script":false})";

BOOST_FIXTURE_TEST_CASE(progress_answers, lifecycle_fixture)
{
    BOOST_TEST(call("GET", "/workflows/1/is_complete").body == complete_true);  // no jobs
    BOOST_TEST(call("GET", "/workflows/1/is_uninitialized").body == R"({"is_uninitialized":true})");
    auto const a = job("a");
    job("b", R"("depends_on_job_ids":[1])");
    job("off");
    ok("PUT", "/jobs/3",
       R"({"workflow_id":1,"name":"off","command":"run off","status":"disabled"})");
    BOOST_TEST(call("GET", "/workflows/1/is_uninitialized").body == R"({"is_uninitialized":true})");
    BOOST_TEST(call("GET", "/workflows/1/is_complete").body == complete_false);
    auto init = initialize();
    BOOST_TEST(boost::json::serialize(init) ==
               R"({"workflow_id":1,"implied_edges_added":0,"updated_count":2,"ready_count":1})");
    BOOST_TEST((statuses() == status_map{{"a", "ready"}, {"b", "blocked"}, {"off", "disabled"}}));
    BOOST_TEST(call("GET", "/workflows/1/is_uninitialized").body ==
               R"({"is_uninitialized":false})");
    auto const cn = node();
    run(a, cn, "pending_failed", 1);
    BOOST_TEST(call("GET", "/workflows/1/is_complete").body == complete_false);
    ok("PUT", "/jobs/1/manage_status_change/ready/0");
    run(a, cn);
    run(2, cn);
    BOOST_TEST(call("GET", "/workflows/1/is_complete").body == complete_true);
}

BOOST_FIXTURE_TEST_CASE(initialize_from_user_data_and_partially, lifecycle_fixture)
{
    ok("POST", "/user_data",
       R"({"workflow_id":1,"name":"model","is_ephemeral":true,"data":{"w":1}})");
    ok("POST", "/user_data", R"({"workflow_id":1,"name":"keep","data":[1]})");
    auto const train = job("train", R"("output_user_data_ids":[1])");
    auto const eval = job("eval", R"("input_user_data_ids":[1])");
    auto const report = job("report", R"("depends_on_job_ids":[2])");
    auto init = initialize(1, {{"clear_ephemeral_user_data", "false"}});
    BOOST_TEST(init.at("implied_edges_added").as_int64() == 1);
    BOOST_TEST(ok("GET", "/user_data/1").as_object().contains("data"));
    BOOST_TEST(
        (statuses() == status_map{{"train", "ready"}, {"eval", "blocked"}, {"report", "blocked"}}));
    auto const cn = node();
    run(train, cn);
    run(eval, cn);
    // A new job, initialized alone: the others keep their status.
    auto const extra = job("extra", R"("depends_on_job_ids":[1])");
    init = initialize(1, {{"only_uninitialized", "true"}});
    BOOST_TEST(init.at("updated_count").as_int64() == 1);
    BOOST_TEST((statuses() == status_map{{"train", "completed"},
                                         {"eval", "completed"},
                                         {"report", "ready"},
                                         {"extra", "ready"}}));
    // A full initialization keeps finished work whose blockers stay finished, and clears ephemeral
    // user data (the default).
    initialize();
    BOOST_TEST(status(train) == "completed");
    BOOST_TEST(!ok("GET", "/user_data/1").as_object().contains("data"));
    BOOST_TEST(ok("GET", "/user_data/2").as_object().contains("data"));
    (void)report;
    (void)extra;
}

BOOST_FIXTURE_TEST_CASE(status_get_and_put, lifecycle_fixture)
{
    // v0.10's workflow_status_model leads the answer (0.23's summary follows: both_contracts).
    BOOST_TEST(call("GET", "/workflows/1/status").body.starts_with(
        R"({"id":1,"is_canceled":false,"is_archived":false,"run_id":0,)"
        R"("has_detected_need_to_run_completion_script":false,"workflow_id":1,)"));
    notified.clear();
    auto put = ok("PUT", "/workflows/1/status", R"({"is_canceled":false,"run_id":1})");
    BOOST_TEST(put.at("run_id").as_int64() == 1);
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    // The new run_id is the one job endpoints check.
    job("a");
    initialize();
    claim_next(1);
    BOOST_TEST(fails(422, "PUT", "/jobs/1/start_job/0/1") ==
               "start_job: run_id 0 is not the workflow's current run_id 1");
}

BOOST_FIXTURE_TEST_CASE(cancel_and_reset, lifecycle_fixture)
{
    for (auto name : {"pending", "running", "ready", "done"}) job(name);
    auto const cn = node();
    initialize();
    run(4, cn);
    ok("PUT", "/jobs/1/manage_status_change/pending/0");
    ok("PUT", "/jobs/2/manage_status_change/pending/0");
    start(2, cn);
    notified.clear();
    auto canceled = ok("PUT", "/workflows/1/cancel");
    BOOST_TEST(boost::json::serialize(canceled) ==
               R"({"id":1,"is_canceled":true,"is_archived":false,"run_id":0,)"
               R"("has_detected_need_to_run_completion_script":false})");
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    BOOST_TEST((statuses() == status_map{{"pending", "canceled"},
                                         {"running", "canceled"},
                                         {"ready", "ready"},
                                         {"done", "completed"}}));
    BOOST_TEST(boost::json::serialize(ok("GET", "/workflows/1/is_complete")) ==
               R"({"is_canceled":true,"is_complete":true,"needs_to_run_completion_script":false})");
    auto reset = ok("POST", "/workflows/1/reset_status");
    BOOST_TEST(!reset.at("is_canceled").as_bool());
    // Every job back to uninitialized, then a fresh start.
    auto all = ok("POST", "/workflows/1/reset_job_status");
    BOOST_TEST(
        boost::json::serialize(all) ==
        R"({"workflow_id":1,"updated_count":4,"status":"uninitialized","reset_type":"all"})");
    initialize();
    BOOST_TEST(claim_next(10).size() == 4u);
    BOOST_TEST(fails(422, "POST", "/workflows/1/reset_status") ==
               "reset_status: 4 pending and 0 running jobs are active; wait for them or pass "
               "force=true");
    ok("POST", "/workflows/1/reset_status", "", {{"force", "true"}});
}

// A job running when the workflow is canceled: its worker stops it and reports it afterwards.
// That result is stored (the attempt's return code and times are kept) and the job stays
// canceled; a resend is answered alike and stores nothing; a result for a job the cancel did not
// stop, or once the workflow is no longer canceled, is still refused.
BOOST_FIXTURE_TEST_CASE(a_canceled_running_jobs_result_is_kept, lifecycle_fixture)
{
    auto const running = job("running");
    auto const never = job("never", R"("depends_on_job_ids":[1])");
    auto const cn = node();
    initialize();
    ok("PUT", "/jobs/1/manage_status_change/pending/0");
    start(running, cn);
    ok("PUT", "/workflows/1/cancel");
    auto const body = result_body(running, "canceled", cn, 143);
    ok("POST", "/jobs/1/complete_job/canceled/0", body);
    BOOST_TEST(status(running) == "canceled");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result") == 1);
    BOOST_TEST(scalar("SELECT r.return_code FROM workflow_result w JOIN result r ON "
                      "r.id = w.result_id WHERE w.job_id = 1") == 143);
    auto const before = snapshot();
    ok("POST", "/jobs/1/complete_job/canceled/0", body);  // a resend after a lost reply
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(status(never) == "blocked");
    BOOST_TEST(fails(409, "POST", "/jobs/2/complete_job/canceled/0",
                     result_body(never, "canceled", cn, 1)) ==
               "complete_job: job 2 is \"blocked\"; nobody claimed it, so only a pending, "
               "running or pending_failed job can complete");
    ok("POST", "/workflows/1/reset_status");
    BOOST_TEST(fails(422, "POST", "/jobs/1/complete_job/canceled/0", body) ==
               "complete_job: job 1 is already complete (\"canceled\")");
}

BOOST_FIXTURE_TEST_CASE(reset_failed_jobs_only, lifecycle_fixture)
{
    auto const ok_job = job("ok");
    auto const bad = job("bad");
    auto const after_bad =
        job("after_bad", R"("depends_on_job_ids":[2],"cancel_on_blocking_job_failure":false)");
    auto const cn = node();
    initialize();
    run(ok_job, cn);
    run(bad, cn, "failed", 2);
    run(after_bad, cn);
    auto reset = ok("POST", "/workflows/1/reset_job_status", "", {{"failed_only", "true"}});
    BOOST_TEST(
        boost::json::serialize(reset) ==
        R"({"workflow_id":1,"updated_count":1,"status":"uninitialized","reset_type":"failed_only"})");
    BOOST_TEST((statuses() == status_map{{"ok", "completed"},
                                         {"bad", "uninitialized"},
                                         {"after_bad", "uninitialized"}}));
    initialize(1, {{"only_uninitialized", "true"}});
    BOOST_TEST((statuses() ==
                status_map{{"ok", "completed"}, {"bad", "ready"}, {"after_bad", "blocked"}}));
}

BOOST_FIXTURE_TEST_CASE(ready_job_requirements, lifecycle_fixture)
{
    ok("POST", "/resource_requirements",
       R"({"workflow_id":1,"name":"big","num_cpus":4,"num_gpus":1,"num_nodes":2,"memory":"2g","runtime":"PT2H"})");
    job("a");
    job("b", R"("resource_requirements_id":2,"scheduler_id":7)");
    job("c", R"("depends_on_job_ids":[1])");
    BOOST_TEST(
        call("GET", "/workflows/1/ready_job_requirements").body ==
        R"({"num_jobs":0,"num_cpus":0,"num_gpus":0,"memory_gb":0E0,"max_num_nodes":0,"max_runtime":"PT0M"})");
    initialize();
    auto all = ok("GET", "/workflows/1/ready_job_requirements");
    BOOST_TEST(all.at("num_jobs").as_int64() == 2);
    BOOST_TEST(all.at("num_cpus").as_int64() == 5);
    BOOST_TEST(all.at("num_gpus").as_int64() == 1);
    BOOST_TEST(all.at("memory_gb").as_double() == 2.0 + 1.0 / 1024);
    BOOST_TEST(all.at("max_num_nodes").as_int64() == 2);
    BOOST_TEST(all.at("max_runtime").as_string() == "PT2H");
    auto seven =
        ok("GET", "/workflows/1/ready_job_requirements", "", {{"scheduler_config_id", "7"}});
    BOOST_TEST(seven.at("num_jobs").as_int64() == 1);
}

struct refusal {
    std::string method;
    std::string path;
    std::string body;
    query q;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, refusal const& c)
{
    return os << c.method << " " << c.path;
}

std::vector<refusal> const refusals{
    {"GET", "/workflows/9/is_complete", "", {}, 404, "is_complete: no workflow with id 9"},
    {"GET",
     "/workflows/9/is_uninitialized",
     "",
     {},
     404,
     "is_uninitialized: no workflow with id 9"},
    {"GET", "/workflows/9/status", "", {}, 404, "workflow_status: no workflow with id 9"},
    {"PUT",
     "/workflows/9/status",
     R"({"is_canceled":false,"run_id":1})",
     {},
     404,
     "workflow_status: no workflow_status with id 9"},
    {"PUT",
     "/workflows/1/status",
     R"({"run_id":1})",
     {},
     422,
     R"(workflow_status: field "is_canceled": required field is missing)"},
    {"PUT", "/workflows/9/cancel", "", {}, 404, "cancel: no workflow with id 9"},
    {"POST",
     "/workflows/1/cancel",
     "",
     {},
     405,
     R"(method: POST is not allowed on "/workflows/1/cancel" (allowed: PUT))"},
    {"POST", "/workflows/9/reset_status", "", {}, 404, "reset_status: no workflow with id 9"},
    {"POST",
     "/workflows/1/reset_status",
     "",
     {{"force", "1"}},
     400,
     R"(reset_status: query parameter "force": "1" is not true or false)"},
    {"POST",
     "/workflows/1/reset_status",
     "",
     {},
     422,
     "reset_status: 1 pending and 0 running jobs are active; wait for them or pass force=true"},
    {"POST",
     "/workflows/9/reset_job_status",
     "",
     {},
     404,
     "reset_job_status: no workflow with id 9"},
    {"POST",
     "/workflows/1/reset_job_status",
     "",
     {{"failed_only", "yes"}},
     400,
     R"(reset_job_status: query parameter "failed_only": "yes" is not true or false)"},
    {"POST", "/workflows/9/initialize_jobs", "", {}, 404, "initialize_jobs: no workflow with id 9"},
    {"POST",
     "/workflows/1/initialize_jobs",
     "",
     {{"only_uninitialized", "maybe"}},
     400,
     R"(initialize_jobs: query parameter "only_uninitialized": "maybe" is not true or false)"},
    {"POST",
     "/workflows/1/initialize_jobs",
     "[]",
     {},
     422,
     "initialize_jobs: request body: expected an object or null, found an array"},
    {"GET",
     "/workflows/9/ready_job_requirements",
     "",
     {},
     404,
     "ready_job_requirements: no workflow with id 9"},
};

// Workflow 1 with a pending job and a ready one.
struct refusal_fixture : lifecycle_fixture {
    refusal_fixture()
    {
        job("a");
        job("b");
        initialize();
        claim_next(1);
        notified.clear();
    }
};

BOOST_DATA_TEST_CASE_F(refusal_fixture, refusals_change_nothing, bdata::make(refusals), c)
{
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, c.method, c.path, c.body, c.q) == c.message);
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(notified.empty());
}

BOOST_FIXTURE_TEST_CASE(an_archived_workflow_keeps_its_status, refusal_fixture)
{
    ok("PUT", "/workflows/1/status", R"({"is_canceled":false,"is_archived":true,"run_id":0})");
    BOOST_TEST(fails(422, "POST", "/workflows/1/reset_status", "", {{"force", "true"}}) ==
               "reset_status: the workflow is archived; unarchive it first");
}

BOOST_AUTO_TEST_SUITE_END()
