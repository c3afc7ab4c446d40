// Fenced job transitions and idempotent claims through server_api on a real SQLite store: each
// stale transition the fence refuses, with its message verbatim and nothing written; the repeats
// of a transition already applied (a lost reply sent again) answered 200 without a second write;
// claims sent again under their request_key; claims that also start (start=true).
#include "lifecycle_fixture.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace test = torcrun::test;
using test::node_body;
using test::query;

namespace {

// Workflow 1: a -> b (b depends on a), compute nodes A (1) and B (2), both active.
struct fence_fixture : test::lifecycle_fixture {
    std::int64_t a = 0;
    std::int64_t b = 0;
    std::int64_t node_a = 0;
    std::int64_t node_b = 0;

    fence_fixture()
    {
        a = job("a");
        b = job("b", R"("depends_on_job_ids":[1])");
        node_a = node();
        node_b = node();
        initialize();
    }

    static query on(std::int64_t node, std::int64_t attempt = 1)
    {
        return {{"compute_node_id", std::to_string(node)}, {"attempt_id", std::to_string(attempt)}};
    }

    std::vector<std::int64_t> keyed_claim(std::int64_t node, std::string const& key)
    {
        return ids_of(ok("POST", "/workflows/1/claim_jobs_based_on_resources/5",
                         node_body(8, 16, 0, 1),
                         {{"compute_node_id", std::to_string(node)}, {"request_key", key}}));
    }

    boost::json::value starting_claim(std::int64_t node, std::string const& key)
    {
        return ok("POST", "/workflows/1/claim_jobs_based_on_resources/5", node_body(8, 16, 0, 1),
                  {{"compute_node_id", std::to_string(node)},
                   {"request_key", key},
                   {"start", "true"}});
    }

    std::string complete_path(std::int64_t job_id, std::string const& status = "completed")
    {
        return "/jobs/" + std::to_string(job_id) + "/complete_job/" + status + "/0";
    }

    // a claimed by A and started there.
    void a_runs_on_a()
    {
        BOOST_TEST_REQUIRE((keyed_claim(node_a, "k1") == std::vector<std::int64_t>{a}));
        ok("PUT", "/jobs/1/start_job/0/" + std::to_string(node_a), "", {{"attempt_id", "1"}});
    }

    void deactivate(std::int64_t node)
    {
        auto const done =
            db.db().exec("UPDATE compute_node SET is_active = 0 WHERE id = " + std::to_string(node));
        BOOST_TEST_REQUIRE(done.has_value());
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(fencing)

BOOST_FIXTURE_TEST_CASE(completion_from_a_node_that_does_not_hold_the_job, fence_fixture)
{
    a_runs_on_a();
    auto const before = snapshot();
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_b), on(node_b)) ==
               "complete_job: job 1 is held by compute node 1 on attempt 1, not by compute node 2");
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_a),
                     on(node_a, 2)) ==
               "complete_job: job 1 is on attempt 1 (held by compute node 1), not on attempt 2");
    BOOST_TEST(fails(422, "POST", complete_path(a), result_body(a, "completed", node_b), on(node_a)) ==
               "complete_job: the result is for compute node 2, the request acts for compute node 1");
    BOOST_TEST(snapshot() == before);
    // The holder completes it; b is released.
    ok("POST", complete_path(a), result_body(a, "completed", node_a), on(node_a));
    BOOST_TEST(status(b) == "ready");
}

// A Torc v0.10 runner names its node only in the result: an unfenced completion whose result
// names a node that does not hold the job is refused as the query's fence refuses it, alone and
// in a batch; sent twice, the refusal is the same and nothing is written.
BOOST_FIXTURE_TEST_CASE(unfenced_completion_naming_another_node, fence_fixture)
{
    a_runs_on_a();
    auto const before = snapshot();
    for (int i = 0; i < 2; ++i) {
        BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_b)) ==
                   "complete_job: job 1 is held by compute node 1 on attempt 1, not by compute "
                   "node 2");
    }
    auto batch = ok("POST", "/workflows/1/batch_complete_jobs",
                    R"({"completions":[{"job_id":1,"status":"completed","run_id":0,"result":)" +
                        result_body(a, "completed", node_b) + "}]}");
    BOOST_TEST(boost::json::serialize(batch) ==
               R"({"completed":[],"errors":[{"job_id":1,"status":409,"message":)"
               R"("batch_complete_jobs: job 1 is held by compute node 1 on attempt 1, not by )"
               R"(compute node 2"}]})");
    BOOST_TEST(snapshot() == before);
    // The holder's own unfenced result (0.23's batch entry: job, status, run and result only).
    batch = ok("POST", "/workflows/1/batch_complete_jobs",
               R"({"completions":[{"job_id":1,"status":"completed","run_id":0,"result":)" +
                   result_body(a, "completed", node_a) + "}]}");
    BOOST_TEST(boost::json::serialize(batch) == R"({"completed":[1],"errors":[]})");
    BOOST_TEST(status(b) == "ready");
}

// Torc v0.10's own flow: claim_next_jobs names no node, start_job names it and makes it the
// holder; that node's unfenced result completes the job, another node's is refused.
BOOST_FIXTURE_TEST_CASE(v0_10_claim_then_start_names_the_holder, fence_fixture)
{
    auto claimed = ok("POST", "/workflows/1/claim_next_jobs", "", {{"limit", "1"}});
    BOOST_TEST_REQUIRE((ids_of(claimed) == std::vector<std::int64_t>{a}));
    ok("PUT", "/jobs/1/start_job/0/" + std::to_string(node_a), "null");
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_b)) ==
               "complete_job: job 1 is held by compute node 1 on attempt 1, not by compute node 2");
    ok("POST", complete_path(a), result_body(a, "completed", node_a));
    BOOST_TEST(status(a) == "completed");
    BOOST_TEST(status(b) == "ready");
}

// Claimed without a claimant and never started: no node holds it, so the node a result names
// is no fence (Torc v0.10 completes a pending job).
BOOST_FIXTURE_TEST_CASE(unfenced_completion_of_a_job_no_node_holds, fence_fixture)
{
    auto const claimed = ok("POST", "/workflows/1/claim_next_jobs", "{}", {{"limit", "1"}});
    BOOST_TEST_REQUIRE((ids_of(claimed) == std::vector<std::int64_t>{a}));
    ok("POST", complete_path(a), result_body(a, "completed", node_b));
    BOOST_TEST(status(a) == "completed");
}

BOOST_FIXTURE_TEST_CASE(completions_of_jobs_nobody_claimed, fence_fixture)
{
    auto const before = snapshot();
    // Unfenced (a Torc v0.10 client) too: nobody can have run a ready or blocked job.
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_a)) ==
               "complete_job: job 1 is \"ready\"; nobody claimed it, so only a pending, running or "
               "pending_failed job can complete");
    BOOST_TEST(fails(409, "POST", complete_path(b), result_body(b, "completed", node_a)) ==
               "complete_job: job 2 is \"blocked\"; nobody claimed it, so only a pending, running "
               "or pending_failed job can complete");
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_a), on(node_a)) ==
               "complete_job: job 1 is \"ready\"; nobody claimed it, so only a pending, running or "
               "pending_failed job can complete");
    BOOST_TEST(snapshot() == before);
}

BOOST_FIXTURE_TEST_CASE(a_result_for_another_run, fence_fixture)
{
    a_runs_on_a();
    auto const before = snapshot();
    BOOST_TEST(fails(422, "POST", complete_path(a), result_body(a, "completed", node_a, 0, 1, 3)) ==
               "complete_job: the result is for run_id 3, the path names run_id 0");
    BOOST_TEST(snapshot() == before);
}

BOOST_FIXTURE_TEST_CASE(completions_from_a_deactivated_node, fence_fixture)
{
    a_runs_on_a();
    deactivate(node_a);
    auto const before = snapshot();
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_a), on(node_a)) ==
               "complete_job: compute node 1 is inactive (shut down, or its lease ran out and its "
               "jobs went back); register a new node");
    // Unfenced (a Torc v0.10 client): the result's compute_node_id names the deactivated node.
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_a)) ==
               "complete_job: compute node 1 is inactive (shut down, or its lease ran out and its "
               "jobs went back); register a new node");
    auto batch = ok("POST", "/workflows/1/batch_complete_jobs",
                    R"({"completions":[{"job_id":1,"status":"completed","run_id":0,)"
                    R"("compute_node_id":1,"attempt_id":1,"result":)" +
                        result_body(a, "completed", node_a) + "}]}");
    BOOST_TEST(boost::json::serialize(batch) ==
               R"({"completed":[],"errors":[{"job_id":1,"status":409,"message":"batch_complete_jobs: )"
               R"(compute )"
               R"(node 1 is inactive (shut down, or its lease ran out and its jobs went back); )"
               R"(register a new node"}]})");
    auto unfenced = ok("POST", "/workflows/1/batch_complete_jobs",
                       R"({"completions":[{"job_id":1,"status":"completed","run_id":0,"result":)" +
                           result_body(a, "completed", node_a) + "}]}");
    BOOST_TEST(unfenced.at("errors").at(0).at("status").as_int64() == 409);
    BOOST_TEST(snapshot() == before);
}

BOOST_FIXTURE_TEST_CASE(a_batch_entry_from_another_node, fence_fixture)
{
    auto const c = job("c");
    initialize();
    BOOST_TEST_REQUIRE((keyed_claim(node_a, "k1") == std::vector<std::int64_t>{a, c}));
    start(a, node_a);
    start(c, node_a);
    auto entry = [&](std::int64_t id, std::int64_t node) {
        return R"({"job_id":)" + std::to_string(id) +
               R"(,"status":"completed","run_id":0,"compute_node_id":)" + std::to_string(node) +
               R"(,"attempt_id":1,"result":)" + result_body(id, "completed", node) + "}";
    };
    auto out = ok("POST", "/workflows/1/batch_complete_jobs",
                  R"({"completions":[)" + entry(a, node_b) + "," + entry(c, node_a) + "]}");
    BOOST_TEST(boost::json::serialize(out) ==
               R"({"completed":[3],"errors":[{"job_id":1,"status":409,"message":"batch_complete_jobs: )"
               R"(job 1 )"
               R"(is held by compute node 1 on attempt 1, not by compute node 2"}]})");
    BOOST_TEST(status(a) == "running");
    BOOST_TEST(status(c) == "completed");
    BOOST_TEST(status(b) == "blocked");
    // The same batch sent again (its reply lost): c is a repeat, a still refused.
    out = ok("POST", "/workflows/1/batch_complete_jobs",
             R"({"completions":[)" + entry(a, node_b) + "," + entry(c, node_a) + "]}");
    BOOST_TEST(out.at("completed").as_array().size() == 1u);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result WHERE job_id = 3") == 1);
}

BOOST_FIXTURE_TEST_CASE(a_finished_job_is_not_made_ready, fence_fixture)
{
    run(a, node_a);
    BOOST_TEST(status(b) == "ready");
    auto const before = snapshot();
    BOOST_TEST(fails(409, "PUT", "/jobs/1/manage_status_change/ready/0") ==
               "manage_status_change: job 1 is \"completed\"; a finished job goes back only to "
               "\"uninitialized\" (initialize_jobs then resolves it and its dependents again), "
               "not to \"ready\"");
    BOOST_TEST(fails(409, "PUT", "/jobs/1/manage_status_change/ready/0", "", on(node_a)) ==
               "manage_status_change: job 1 is \"completed\"; a compute node hands back only a "
               "pending or running job");
    BOOST_TEST(snapshot() == before);
}

BOOST_FIXTURE_TEST_CASE(hand_back_for_this_node_only, fence_fixture)
{
    BOOST_TEST_REQUIRE((keyed_claim(node_a, "k1") == std::vector<std::int64_t>{a}));
    auto const before = snapshot();
    BOOST_TEST(fails(409, "PUT", "/jobs/1/manage_status_change/ready/0", "", on(node_b)) ==
               "manage_status_change: job 1 is held by compute node 1 on attempt 1, not by compute "
               "node 2");
    BOOST_TEST(fails(409, "PUT", "/jobs/1/manage_status_change/blocked/0", "", on(node_a)) ==
               "manage_status_change: a compute node hands a job back to \"ready\" only, not to "
               "\"blocked\"");
    BOOST_TEST(snapshot() == before);
    ok("PUT", "/jobs/1/manage_status_change/ready/0", "", on(node_a));
    BOOST_TEST(status(a) == "ready");
    // Sent again: already ready, held by nobody; nothing more is written.
    auto const events = scalar("SELECT COUNT(*) FROM event");
    ok("PUT", "/jobs/1/manage_status_change/ready/0", "", on(node_a));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM event") == events);
    // Claimed by B meanwhile: A's late hand-back is refused.
    BOOST_TEST_REQUIRE((keyed_claim(node_b, "k1") == std::vector<std::int64_t>{a}));
    BOOST_TEST(fails(409, "PUT", "/jobs/1/manage_status_change/ready/0", "", on(node_a)) ==
               "manage_status_change: job 1 is held by compute node 2 on attempt 1, not by compute "
               "node 1");
    BOOST_TEST(status(a) == "pending");
}

BOOST_FIXTURE_TEST_CASE(start_from_another_node_and_start_again, fence_fixture)
{
    BOOST_TEST_REQUIRE((keyed_claim(node_a, "k1") == std::vector<std::int64_t>{a}));
    BOOST_TEST(fails(409, "PUT", "/jobs/1/start_job/0/" + std::to_string(node_b)) ==
               "start_job: job 1 is held by compute node 1 on attempt 1, not by compute node 2");
    BOOST_TEST(fails(422, "PUT", "/jobs/1/start_job/0/1", "", on(node_a)) ==
               "start_job: the compute node is the path's; query parameter \"compute_node_id\" is "
               "not taken here");
    start(a, node_a);
    auto const events = scalar("SELECT COUNT(*) FROM event");
    auto again = ok("PUT", "/jobs/1/start_job/0/1", "", {{"attempt_id", "1"}});
    BOOST_TEST(again.at("status").as_string() == "running");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM event") == events);
    BOOST_TEST(fails(409, "PUT", "/jobs/1/start_job/0/2") ==
               "start_job: job 1 is \"running\"; only a \"pending\" job can start");
    deactivate(node_a);
    BOOST_TEST(fails(409, "PUT", "/jobs/1/start_job/0/1") ==
               "start_job: compute node 1 is inactive (shut down, or its lease ran out and its "
               "jobs went back); register a new node");
}

BOOST_FIXTURE_TEST_CASE(complete_again_after_a_lost_reply, fence_fixture)
{
    a_runs_on_a();
    ok("POST", complete_path(a), result_body(a, "completed", node_a), on(node_a));
    auto const before = snapshot();
    auto again = ok("POST", complete_path(a), result_body(a, "completed", node_a), on(node_a));
    BOOST_TEST(again.at("status").as_string() == "completed");
    BOOST_TEST(snapshot() == before);
    // Unfenced, or from another node, it is Torc's "already complete".
    BOOST_TEST(fails(422, "POST", complete_path(a), result_body(a, "completed", node_a)) ==
               "complete_job: job 1 is already complete (\"completed\")");
    BOOST_TEST(fails(422, "POST", complete_path(a), result_body(a, "completed", node_b), on(node_b)) ==
               "complete_job: job 1 is already complete (\"completed\")");
    BOOST_TEST(fails(422, "POST", complete_path(a, "failed"), result_body(a, "failed", node_a),
                     on(node_a)) == "complete_job: job 1 is already complete (\"completed\")");
}

BOOST_FIXTURE_TEST_CASE(retry_by_the_holder_only, fence_fixture)
{
    a_runs_on_a();
    query const three{{"max_retries", "3"}};
    auto with = [&](query q) {
        q.insert(q.end(), three.begin(), three.end());
        return q;
    };
    BOOST_TEST(fails(409, "POST", "/jobs/1/retry/0", "", with(on(node_b))) ==
               "retry: job 1 is held by compute node 1 on attempt 1, not by compute node 2");
    auto retried = ok("POST", "/jobs/1/retry/0", "", with(on(node_a)));
    BOOST_TEST(retried.at("attempt_id").as_int64() == 2);
    // Sent again: ready on the next attempt; nothing more.
    auto const before = snapshot();
    ok("POST", "/jobs/1/retry/0", "", with(on(node_a)));
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(fails(422, "POST", "/jobs/1/retry/0", "", {{"max_retries", "3"}, {"attempt_id", "1"}}) ==
               "retry: query parameter \"attempt_id\" needs \"compute_node_id\"");
}

BOOST_FIXTURE_TEST_CASE(a_claim_sent_again_gets_the_same_jobs, fence_fixture)
{
    auto const c = job("c");
    initialize();
    BOOST_TEST((keyed_claim(node_a, "7") == std::vector<std::int64_t>{a, c}));
    // The reply was lost; the same claim again: the same jobs, not new ones.
    BOOST_TEST((keyed_claim(node_a, "7") == std::vector<std::int64_t>{a, c}));
    BOOST_TEST(status(a) == "pending");
    // One of them moved on (started): only the other comes back.
    start(a, node_a);
    BOOST_TEST((keyed_claim(node_a, "7") == std::vector<std::int64_t>{c}));
    // A new key is a new claim: nothing is left.
    BOOST_TEST(keyed_claim(node_a, "8").empty());
    // Another node's claim with the same key is its own.
    BOOST_TEST(keyed_claim(node_b, "7").empty());
    BOOST_TEST(fails(422, "POST", "/workflows/1/claim_next_jobs", "", {{"request_key", "7"}}) ==
               "claim_next_jobs: query parameter \"request_key\" needs \"compute_node_id\"");
    BOOST_TEST(fails(400, "POST", "/workflows/1/claim_next_jobs", "",
                     {{"request_key", ""}, {"compute_node_id", "1"}}) ==
               "claim_next_jobs: query parameter \"request_key\" must have 1 to 128 bytes, not 0");
}

// The keys are kept in the store: a server started again over the same database answers a claim
// sent again under the first claim's key with the first claim's jobs. Deactivating the node
// forgets its keys (its jobs went back).
BOOST_FIXTURE_TEST_CASE(a_claim_sent_again_after_a_restart_gets_the_same_jobs, fence_fixture)
{
    BOOST_TEST((keyed_claim(node_a, "7") == std::vector<std::int64_t>{a}));
    torcrun::io::server_api restarted{db, test::fixed_clock()};
    torcrun::api::request req;
    req.method = "POST";
    req.path = "/workflows/1/claim_jobs_based_on_resources/5";
    req.body = node_body(8, 16, 0, 1);
    req.query.emplace("compute_node_id", std::to_string(node_a));
    req.query.emplace("request_key", "7");
    auto const res = std::get<torcrun::api::response>(restarted.handle(req));
    BOOST_TEST_REQUIRE(res.status == 200u);
    BOOST_TEST((ids_of(boost::json::parse(res.body)) == std::vector<std::int64_t>{a}));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM claim_key") == 1);
    BOOST_TEST(deactivate_node(node_a).status == 200u);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM claim_key") == 0);
    BOOST_TEST(status(a) == "ready");
}

// start=true: the claimed jobs run for the claimant at once, fenced as after start_job; the
// same claim again (a lost reply) answers them running, never new ones, and never starts twice.
BOOST_FIXTURE_TEST_CASE(a_claim_that_starts_its_jobs, fence_fixture)
{
    auto const c = job("c");
    initialize();
    auto const first = starting_claim(node_a, "7");
    BOOST_TEST((ids_of(first) == std::vector<std::int64_t>{a, c}));
    for (auto const& j : first.at("jobs").as_array()) {
        BOOST_TEST(j.at("status").as_string() == "running");
        BOOST_TEST(j.at("attempt_id").as_int64() == 1);
    }
    BOOST_TEST(status(a) == "running");
    BOOST_TEST(scalar("SELECT active_compute_node_id FROM job WHERE id = 1") == node_a);
    // One event per job: ready -> running, no pending step between.
    BOOST_TEST(scalar("SELECT COUNT(*) FROM event WHERE data LIKE '%\"job_id\":1,%'") == 2);
    auto const before = snapshot();
    auto const again = starting_claim(node_a, "7");
    BOOST_TEST((ids_of(again) == std::vector<std::int64_t>{a, c}));
    BOOST_TEST(snapshot() == before);
    // start_job from the claimant repeats (200, nothing written); any other node is fenced off.
    ok("PUT", "/jobs/1/start_job/0/" + std::to_string(node_a), "", {{"attempt_id", "1"}});
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(fails(409, "POST", complete_path(a), result_body(a, "completed", node_b), on(node_b)) ==
               "complete_job: job 1 is held by compute node 1 on attempt 1, not by compute node 2");
    // The holder completes one; the claim again answers only the one still running.
    ok("POST", complete_path(a), result_body(a, "completed", node_a), on(node_a));
    BOOST_TEST((ids_of(starting_claim(node_a, "7")) == std::vector<std::int64_t>{c}));
    // A job started by a claim goes back to ready when its node hands it back.
    ok("PUT", "/jobs/" + std::to_string(c) + "/manage_status_change/ready/0", "", on(node_a));
    BOOST_TEST(status(c) == "ready");
    BOOST_TEST(starting_claim(node_a, "7").at("jobs").as_array().empty());
}

BOOST_FIXTURE_TEST_CASE(a_starting_claim_needs_its_node, fence_fixture)
{
    auto const before = snapshot();
    BOOST_TEST(fails(422, "POST", "/workflows/1/claim_next_jobs", "", {{"start", "true"}}) ==
               "claim_next_jobs: query parameter \"start\" needs \"compute_node_id\"");
    BOOST_TEST(fails(400, "POST", "/workflows/1/claim_jobs_based_on_resources/5",
                     node_body(8, 16, 0, 1),
                     {{"start", "soon"}, {"compute_node_id", std::to_string(node_a)}})
                   .starts_with("claim_jobs_based_on_resources: query parameter \"start\""));
    BOOST_TEST(snapshot() == before);
    // claim_next_jobs starts as well; start=false is today's claim.
    BOOST_TEST(ids_of(ok("POST", "/workflows/1/claim_next_jobs", "",
                         {{"compute_node_id", std::to_string(node_a)}, {"start", "false"}}))
                   .size() == 1);
    BOOST_TEST(status(a) == "pending");
}

BOOST_AUTO_TEST_SUITE_END()
