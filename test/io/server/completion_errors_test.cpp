// Refusals of start_job, complete_job, manage_status_change, retry and batch_complete_jobs
// through server_api: each status and message verbatim, with nothing changed behind it (the
// request transaction rolls back) and nobody woken.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(completion_errors)

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

// Workflow 1: job 1 running on node 1, job 2 ready, job 3 completed, job 4 in workflow 2.
struct refusal_fixture : lifecycle_fixture {
    refusal_fixture()
    {
        job("running");
        job("ready");
        job("done");
        workflow("other");
        job("elsewhere", "", 2);
        node();
        node(2);
        initialize();
        initialize(2);
        run(3, 1);
        ok("PUT", "/jobs/1/manage_status_change/pending/0");
        start(1, 1);
        notified.clear();
    }
};

std::vector<refusal> const refusals{
    {"PUT", "/jobs/9/start_job/0/1", "", {}, 404, "start_job: no job has id 9"},
    {"PUT",
     "/jobs/2/start_job/0/1",
     "",
     {},
     409,
     R"(start_job: job 2 is "ready"; only a "pending" job can start)"},
    {"PUT",
     "/jobs/1/start_job/0/1",
     "[1]",
     {},
     422,
     "start_job: request body: expected an object or null, found an array"},
    {"POST",
     "/jobs/1/complete_job/done/0",
     lifecycle_fixture::result_body(1, "completed", 1),
     {},
     422,
     R"(complete_job: job status: "done" is not one of uninitialized, blocked, ready, pending, running, completed, failed, canceled, terminated, disabled or pending_failed)"},
    {"POST",
     "/jobs/1/complete_job/running/0",
     lifecycle_fixture::result_body(1, "running", 1),
     {},
     422,
     R"(complete_job: "running" is not a final status; use completed, failed, canceled, terminated or pending_failed)"},
    {"POST",
     "/jobs/9/complete_job/completed/0",
     lifecycle_fixture::result_body(9, "completed", 1),
     {},
     404,
     "complete_job: no job has id 9"},
    {"POST",
     "/jobs/3/complete_job/completed/0",
     lifecycle_fixture::result_body(3, "completed", 1),
     {},
     422,
     R"(complete_job: job 3 is already complete ("completed"))"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     lifecycle_fixture::result_body(2, "completed", 1),
     {},
     422,
     "complete_job: the result is for job 2, not job 1"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     lifecycle_fixture::result_body(1, "completed", 1, 0, 2),
     {},
     422,
     "complete_job: the result is for workflow 2, job 1 belongs to workflow 1"},
    {"POST",
     "/jobs/1/complete_job/completed/4",
     lifecycle_fixture::result_body(1, "completed", 1),
     {},
     422,
     "complete_job: run_id 4 is not the workflow's current run_id 0"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     lifecycle_fixture::result_body(1, "failed", 1),
     {},
     422,
     R"(complete_job: the result's status "failed" differs from "completed" in the path)"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     lifecycle_fixture::result_body(1, "completed", 7),
     {},
     404,
     R"(complete_job: field "compute_node_id": no compute_node with id 7)"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     lifecycle_fixture::result_body(1, "completed", 2),
     {},
     422,
     R"(complete_job: field "compute_node_id": compute_node 2 belongs to workflow 2, not 1)"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     R"({"job_id":1})",
     {},
     422,
     R"(complete_job: field "workflow_id": required field is missing)"},
    {"PUT",
     "/jobs/1/manage_status_change/completed/0",
     "",
     {},
     422,
     R"(manage_status_change: "completed" is a final status; use complete_job)"},
    {"PUT",
     "/jobs/9/manage_status_change/ready/0",
     "",
     {},
     404,
     "manage_status_change: no job has id 9"},
    {"PUT",
     "/jobs/1/manage_status_change/ready/3",
     "",
     {},
     422,
     "manage_status_change: run_id 3 is not the workflow's current run_id 0"},
    {"POST",
     "/jobs/1/retry/0",
     "",
     {},
     400,
     R"(retry: query parameter "max_retries": required parameter is missing)"},
    {"POST",
     "/jobs/2/retry/0",
     "",
     {{"max_retries", "3"}},
     422,
     R"(retry: job 2 is "ready"; only a running, failed or terminated job can be retried)"},
    {"POST",
     "/jobs/1/retry/0",
     "",
     {{"max_retries", "1"}},
     422,
     "retry: job 1 is on attempt 1 and max_retries is 1"},
    {"POST",
     "/jobs/1/retry/2",
     "",
     {{"max_retries", "3"}},
     422,
     "retry: run_id 2 is not the workflow's current run_id 0"},
    {"POST", "/jobs/9/retry/0", "", {{"max_retries", "3"}}, 404, "retry: no job has id 9"},
    {"PUT",
     "/jobs/1/manage_status_change/later/0",
     "",
     {},
     422,
     R"(manage_status_change: job status: "later" is not one of uninitialized, blocked, ready, pending, running, completed, failed, canceled, terminated, disabled or pending_failed)"},
    {"POST",
     "/jobs/1/complete_job/completed/0",
     "{",
     {},
     400,
     "complete_job: request body is not valid JSON: incomplete JSON at byte 1"},
    {"POST",
     "/workflows/1/batch_complete_jobs",
     "[",
     {},
     400,
     "batch_complete_jobs: request body is not valid JSON: incomplete JSON at byte 1"},
    {"POST",
     "/workflows/1/batch_complete_jobs",
     R"({"completions":{}})",
     {},
     422,
     R"(batch_complete_jobs: field "completions": expected an array, found an object)"},
    {"POST",
     "/workflows/1/batch_complete_jobs",
     R"({"completions":[{"job_id":1,"status":"completed","run_id":0,"result":[]}]})",
     {},
     422,
     R"(batch_complete_jobs: completions[0]: field "result": expected an object, found an array)"},
    {"POST",
     "/workflows/9/batch_complete_jobs",
     R"({"completions":[]})",
     {},
     404,
     "batch_complete_jobs: no workflow with id 9"},
    {"POST",
     "/workflows/1/batch_complete_jobs",
     R"({"completions":[{"job_id":1}]})",
     {},
     422,
     R"(batch_complete_jobs: completions[0]: field "status": required field is missing)"},
};

BOOST_DATA_TEST_CASE_F(refusal_fixture, refusals_change_nothing, bdata::make(refusals), c)
{
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, c.method, c.path, c.body, c.q) == c.message);
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(notified.empty());
}

BOOST_FIXTURE_TEST_CASE(start_job_checks_the_compute_node, refusal_fixture)
{
    ok("PUT", "/jobs/2/manage_status_change/pending/0");
    BOOST_TEST(fails(404, "PUT", "/jobs/2/start_job/0/9") ==
               "start_job: compute_node_id: no compute_node with id 9");
    BOOST_TEST(fails(422, "PUT", "/jobs/2/start_job/0/2") ==
               "start_job: compute_node_id: compute_node 2 belongs to workflow 2, not 1");
    BOOST_TEST(fails(409, "PUT", "/jobs/4/start_job/0/2") ==
               R"(start_job: job 4 is "ready"; only a "pending" job can start)");
    BOOST_TEST(status(2) == "pending");
}

BOOST_FIXTURE_TEST_CASE(batch_entries_stay_in_their_workflow, refusal_fixture)
{
    auto out = ok("POST", "/workflows/2/batch_complete_jobs",
                  R"({"completions":[{"job_id":1,"status":"completed","run_id":0,"result":)" +
                      result_body(1, "completed", 1) + "}]}");
    BOOST_TEST(
        boost::json::serialize(out) ==
        R"({"completed":[],"errors":[{"job_id":1,"status":422,"message":"batch_complete_jobs: job 1 belongs to workflow 1, not 2"}]})");
    BOOST_TEST(status(1) == "running");
}

BOOST_AUTO_TEST_SUITE_END()
