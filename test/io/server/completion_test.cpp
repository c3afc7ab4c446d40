// start_job, complete_job, manage_status_change, retry and batch_complete_jobs through server_api:
// a diamond run end to end with dependents ready in the completing request, cascade cancellation,
// results and current results, reverting, retries, batches with a bad entry, and every refusal
// verbatim with nothing changed behind it.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::query;
using status_map = std::map<std::string, std::string>;

BOOST_AUTO_TEST_SUITE(completion)

// The diamond of docs/TORC-COMPATIBILITY.md §4.7: edges implied by files only.
struct diamond_fixture : lifecycle_fixture {
    std::int64_t pre = 0, work1 = 0, work2 = 0, post = 0, cn = 0;
    diamond_fixture()
    {
        for (int i = 1; i <= 6; ++i) {
            auto const n = std::to_string(i);
            ok("POST", "/files",
               R"({"workflow_id":1,"name":"f)" + n + R"(","path":"/f)" + n + "\"}");
        }
        pre = job("preprocess", R"("input_file_ids":[1],"output_file_ids":[2,3])");
        work1 = job("work1", R"("input_file_ids":[2],"output_file_ids":[4])");
        work2 = job("work2", R"("input_file_ids":[3],"output_file_ids":[5])");
        post = job("postprocess", R"("input_file_ids":[4,5],"output_file_ids":[6])");
        cn = node();
    }
};

BOOST_FIXTURE_TEST_CASE(diamond_end_to_end, diamond_fixture)
{
    auto init = initialize();
    BOOST_TEST(init.at("implied_edges_added").as_int64() == 4);
    BOOST_TEST((statuses() == status_map{{"preprocess", "ready"},
                                         {"work1", "blocked"},
                                         {"work2", "blocked"},
                                         {"postprocess", "blocked"}}));
    BOOST_TEST((claim_next(10) == std::vector<std::int64_t>{pre}));
    BOOST_TEST(status(pre) == "pending");
    start(pre, cn);
    BOOST_TEST(status(pre) == "running");
    BOOST_TEST(scalar("SELECT active_compute_node_id FROM job WHERE id = 1") == cn);

    notified.clear();
    auto done = complete(pre, "completed", cn);
    BOOST_TEST(done.at("status").as_string() == "completed");
    // Released in the completing request, and parked claims were told.
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    BOOST_TEST((statuses() == status_map{{"preprocess", "completed"},
                                         {"work1", "ready"},
                                         {"work2", "ready"},
                                         {"postprocess", "blocked"}}));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE active_compute_node_id IS NOT NULL") == 0);
    BOOST_TEST((claim_next(10) == std::vector<std::int64_t>{work1, work2}));
    start(work1, cn);
    start(work2, cn);
    complete(work2, "completed", cn);
    BOOST_TEST(status(post) == "blocked");  // work1 still running
    complete(work1, "completed", cn);
    BOOST_TEST(status(post) == "ready");
    BOOST_TEST(!ok("GET", "/workflows/1/is_complete").at("is_complete").as_bool());
    run(post, cn);
    BOOST_TEST(
        boost::json::serialize(ok("GET", "/workflows/1/is_complete")) ==
        R"({"is_canceled":false,"is_complete":true,"needs_to_run_completion_script":false})");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result") == 4);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM workflow_result") == 4);
}

BOOST_FIXTURE_TEST_CASE(results_and_events, diamond_fixture)
{
    initialize();
    claim_next(1);
    start(pre, cn);
    complete(pre, "failed", cn, 3);
    auto results = ok("GET", "/results", "", {{"workflow_id", "1"}});
    BOOST_TEST_REQUIRE(results.at("items").as_array().size() == 1u);
    auto const& r = results.at("items").at(0);
    BOOST_TEST(r.at("return_code").as_int64() == 3);
    BOOST_TEST(r.at("status").as_string() == "failed");
    BOOST_TEST(r.at("compute_node_id").as_int64() == cn);
    // Every status change is an event: ready, pending, running, failed, then the cascade.
    auto events = ok("GET", "/events", "", {{"workflow_id", "1"}, {"limit", "100"}});
    std::vector<std::string> changes;
    for (auto const& e : events.at("items").as_array()) {
        auto const& d = e.at("data");
        BOOST_TEST(d.at("category").as_string() == "job");
        if (d.at("job_id").as_int64() == pre) {
            changes.push_back(std::string(d.at("from").as_string()) + ">" +
                              std::string(d.at("to").as_string()) + "@" +
                              std::string(d.at("source").as_string()));
        }
    }
    BOOST_TEST((changes == std::vector<std::string>{"uninitialized>ready@initialize_jobs",
                                                    "ready>pending@claim_next_jobs",
                                                    "pending>running@start_job",
                                                    "running>failed@complete_job"}));
    BOOST_TEST(events.at("items").at(0).at("timestamp").as_int64() == 1768862490123);
}

struct cascade_case {
    std::string name;
    std::string blocker_status;
    bool b_cancels;  // b's cancel_on_blocking_job_failure
    status_map after;
};
std::ostream& operator<<(std::ostream& os, cascade_case const& c) { return os << c.name; }

// a <- b <- c (c waits for b, b for a) and a <- d with d not canceling.
std::vector<cascade_case> const cascades{
    {"failure cancels the chain",
     "failed",
     true,
     {{"a", "failed"}, {"b", "canceled"}, {"c", "canceled"}, {"d", "ready"}}},
    {"termination cancels the chain",
     "terminated",
     true,
     {{"a", "terminated"}, {"b", "canceled"}, {"c", "canceled"}, {"d", "ready"}}},
    {"cancellation cancels the chain",
     "canceled",
     true,
     {{"a", "canceled"}, {"b", "canceled"}, {"c", "canceled"}, {"d", "ready"}}},
    {"a dependent that does not cancel runs",
     "failed",
     false,
     {{"a", "failed"}, {"b", "ready"}, {"c", "blocked"}, {"d", "ready"}}},
    {"success releases",
     "completed",
     true,
     {{"a", "completed"}, {"b", "ready"}, {"c", "blocked"}, {"d", "ready"}}},
    {"pending_failed holds everything",
     "pending_failed",
     true,
     {{"a", "pending_failed"}, {"b", "blocked"}, {"c", "blocked"}, {"d", "blocked"}}},
};

BOOST_DATA_TEST_CASE_F(lifecycle_fixture, cascade, bdata::make(cascades), c)
{
    auto const a = job("a");
    auto const b = job("b", R"("depends_on_job_ids":[1],"cancel_on_blocking_job_failure":)" +
                                std::string(c.b_cancels ? "true" : "false"));
    job("c", R"("depends_on_job_ids":[2])");
    job("d", R"("depends_on_job_ids":[1],"cancel_on_blocking_job_failure":false)");
    auto const cn = node();
    initialize();
    run(a, cn, c.blocker_status, c.blocker_status == "completed" ? 0 : 1);
    BOOST_TEST(statuses() == c.after);
    (void)b;
}

BOOST_FIXTURE_TEST_CASE(manage_status_change_reverts, diamond_fixture)
{
    initialize();
    claim_next(1);
    // A worker that could not start the job hands it back.
    notified.clear();
    auto back = ok("PUT", "/jobs/1/manage_status_change/ready/0");
    BOOST_TEST(back.at("status").as_string() == "ready");
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    // Same status: success, nothing written, no run_id check (as Torc).
    auto const events = scalar("SELECT COUNT(*) FROM event");
    ok("PUT", "/jobs/1/manage_status_change/ready/7");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM event") == events);
    run(pre, cn);
    run(work1, cn);
    BOOST_TEST(status(work2) == "ready");
    // Reverting a completed job (only to uninitialized) takes everything downstream back too.
    ok("PUT", "/jobs/1/manage_status_change/uninitialized/0");
    BOOST_TEST((statuses() == status_map{{"preprocess", "uninitialized"},
                                         {"work1", "uninitialized"},
                                         {"work2", "uninitialized"},
                                         {"postprocess", "uninitialized"}}));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM workflow_result") == 0);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result") == 2);  // history stays
}

BOOST_FIXTURE_TEST_CASE(retry_a_failed_job, diamond_fixture)
{
    initialize();
    run(pre, cn, "failed", 1);
    notified.clear();
    auto again = ok("POST", "/jobs/1/retry/0", "", {{"max_retries", "3"}});
    BOOST_TEST(again.at("status").as_string() == "ready");
    BOOST_TEST(again.at("attempt_id").as_int64() == 2);
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    // The dependents were canceled by the failure; a retry does not bring them back.
    BOOST_TEST(status(work1) == "canceled");
    BOOST_TEST((claim_next(5) == std::vector<std::int64_t>{pre}));
}

// What Torc's clients check before initialize: the inputs no job writes (f1), then also what the
// completed jobs wrote (f2, f3 once preprocess completed); ids as Torc's server sends them.
BOOST_FIXTURE_TEST_CASE(required_existing_files, diamond_fixture)
{
    auto files = [this] {
        return boost::json::serialize(ok("GET", "/workflows/1/required_existing_files"));
    };
    BOOST_TEST(files() == R"({"files":[1]})");
    initialize();
    run(pre, cn);
    BOOST_TEST(files() == R"({"files":[1,2,3]})");
    BOOST_TEST(fails(404, "GET", "/workflows/99/required_existing_files").find("99") !=
               std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(batch_with_a_bad_entry, diamond_fixture)
{
    initialize();
    run(pre, cn);
    claim_next(2);
    start(work1, cn);
    start(work2, cn);
    auto const before = scalar("SELECT COUNT(*) FROM result");
    auto out = ok("POST", "/workflows/1/batch_complete_jobs",
                  R"({"completions":[)"
                  R"({"job_id":2,"status":"completed","run_id":0,"result":)" +
                      result_body(work1, "completed", cn) +
                      R"(},{"job_id":3,"status":"completed","run_id":5,"result":)" +
                      result_body(work2, "completed", cn) +
                      R"(},{"job_id":1,"status":"completed","run_id":0,"result":)" +
                      result_body(pre, "completed", cn) + "}]}");
    BOOST_TEST(
        boost::json::serialize(out) ==
        R"({"completed":[2],"errors":[)"
        R"({"job_id":3,"status":422,"message":"complete_job: run_id 5 is not the workflow's current run_id 0"},)"
        R"x({"job_id":1,"status":422,"message":"complete_job: job 1 is already complete (\"completed\")"}]})x");
    BOOST_TEST(status(work1) == "completed");
    BOOST_TEST(status(work2) == "running");  // its entry was rolled back alone
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result") == before + 1);
    auto second = ok("POST", "/workflows/1/batch_complete_jobs",
                     R"({"completions":[{"job_id":3,"status":"completed","run_id":0,"result":)" +
                         result_body(work2, "completed", cn) + "}]}");
    BOOST_TEST(boost::json::serialize(second) == R"({"completed":[3],"errors":[]})");
    BOOST_TEST(status(post) == "ready");
}

BOOST_AUTO_TEST_SUITE_END()
