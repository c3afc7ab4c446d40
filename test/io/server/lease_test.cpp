// Worker leases through server_api and expire_lost_workers: heartbeats start and renew a lease
// (claims renew it too), a node silent past the lease is marked inactive and its pending and
// running jobs go back to ready, or running ones fail with -128 and cancel their dependents, per
// the server's lost_worker_jobs; nodes that never sent a heartbeat are never expired. Leases run
// on the steady clock: a wall-clock jump expires nobody, and a restarted server gives every leased
// node a full lease. Jobs held by deactivated nodes go back too.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
namespace io = torcrun::io;
using std::chrono::seconds;
using torcrun::test::lifecycle_fixture;
using clock_point = std::chrono::system_clock::time_point;
using steady_point = std::chrono::steady_clock::time_point;

BOOST_AUTO_TEST_SUITE(lease)

// A second server over the same store whose clock the test moves, with the policy under test.
struct lease_fixture : lifecycle_fixture {
    clock_point now = clock_point(std::chrono::milliseconds(1768862490123));
    steady_point steady = steady_point{} + std::chrono::hours(1000);
    std::vector<std::int64_t> woken;
    std::unique_ptr<io::server_api> leased;
    std::int64_t pending_job = 0, running_job = 0, dependent = 0, foreign = 0, lost = 0, silent = 0;

    explicit lease_fixture(
        torcrun::core::orphan_policy policy = torcrun::core::orphan_policy::ready)
    {
        io::server_options options;
        options.clock = [this] { return now; };
        options.lease_clock = [this] { return steady; };
        options.worker_lease_seconds = 60;
        options.lost_worker_jobs = policy;
        leased = std::make_unique<io::server_api>(db, options);
        leased->set_change_listener([this](std::int64_t id) { woken.push_back(id); });
        pending_job = job("pending");
        running_job = job("running");
        dependent = job("dependent", R"("depends_on_job_ids":[2])");
        foreign = job("foreign");
        lost = node();
        silent = node();  // a Torc runner: never sends a heartbeat
        initialize();
        heartbeat(lost);
        on_leased("POST", "/workflows/1/claim_next_jobs", "",
                  {{"limit", "2"}, {"compute_node_id", "1"}});
        start(running_job, lost);
        ok("PUT", "/jobs/4/manage_status_change/pending/0");
        start(foreign, silent);
    }

    api::response on_leased(std::string method, std::string path, std::string body = {},
                            torcrun::test::query q = {})
    {
        api::request req;
        req.method = std::move(method);
        req.path = std::move(path);
        req.body = std::move(body);
        for (auto& [k, v] : q) req.query.emplace(k, v);
        return std::get<api::response>(leased->handle(req));
    }
    api::response heartbeat(std::int64_t id)
    {
        return on_leased("POST", "/compute_nodes/" + std::to_string(id) + "/heartbeat");
    }
    io::lease_sweep sweep(seconds after)
    {
        return io::expire_lost_workers(*leased, steady + after).value();
    }
    void advance(seconds by)
    {
        now += by;
        steady += by;
    }
};

BOOST_FIXTURE_TEST_CASE(heartbeats_answer_with_the_lease, lease_fixture)
{
    auto res = heartbeat(lost);
    BOOST_TEST(res.status == 200u);
    BOOST_TEST(res.body == R"({"compute_node_id":1,"lease_seconds":60})");
    BOOST_TEST(scalar("SELECT last_heartbeat_ms FROM compute_node WHERE id = 1") == 1768862490123);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM compute_node WHERE last_heartbeat_ms IS NULL") == 1);
}

BOOST_FIXTURE_TEST_CASE(a_lost_worker_hands_its_jobs_back, lease_fixture)
{
    BOOST_TEST((sweep(seconds(60)) == io::lease_sweep{}));  // exactly the lease: still alive
    woken.clear();
    auto const swept = sweep(seconds(61));
    BOOST_TEST((swept.lost_workers == std::vector<std::int64_t>{lost}));
    BOOST_TEST((swept.jobs_ready == std::vector<std::int64_t>{pending_job, running_job}));
    BOOST_TEST(swept.jobs_failed.empty());
    BOOST_TEST((woken == std::vector<std::int64_t>{1}));
    BOOST_TEST(status(pending_job) == "ready");
    BOOST_TEST(status(running_job) == "ready");
    BOOST_TEST(status(foreign) == "running");  // its node holds no lease
    BOOST_TEST(scalar("SELECT is_active FROM compute_node WHERE id = 1") == 0);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE active_compute_node_id = 1") == 0);
    BOOST_TEST(
        scalar("SELECT COUNT(*) FROM event WHERE json_extract(data, '$.source') = 'lease'") == 2);
    // The lost worker learns it on its next call.
    auto late = heartbeat(lost);
    BOOST_TEST(late.status == 409u);
    BOOST_TEST(boost::json::parse(late.body).at("message").as_string() ==
               "heartbeat: compute node 1 is inactive (shut down, or its lease ran out and its "
               "jobs went back); register a new node");
    BOOST_TEST((sweep(seconds(600)) == io::lease_sweep{}));  // nothing twice
}

// The lost worker's running job comes back on attempt 2 (its process may still run there, with
// lost_lease_policy finish): the next holder starts attempt 2, and the lost worker's late report of
// attempt 1, sent under a fresh node as policy finish does, is refused by the fence; a pending job
// never started and keeps its attempt. Deactivating a node opens a new attempt the same way.
BOOST_FIXTURE_TEST_CASE(a_lost_running_job_comes_back_on_a_new_attempt, lease_fixture)
{
    BOOST_TEST(scalar("SELECT attempt_id FROM job WHERE id = 2") == 1);
    sweep(seconds(61));
    BOOST_TEST(scalar("SELECT attempt_id FROM job WHERE id = 2") == 2);
    BOOST_TEST(scalar("SELECT attempt_id FROM job WHERE id = 1") == 1);
    auto const fresh = node();
    auto const other = node();
    ok("PUT", "/jobs/2/manage_status_change/pending/0");
    auto const stale = on_leased("PUT", "/jobs/2/start_job/0/" + std::to_string(other), "",
                                 {{"attempt_id", "1"}});
    BOOST_TEST(stale.status == 409u);
    BOOST_TEST(boost::json::parse(stale.body).at("message").as_string() ==
               "start_job: job 2 is on attempt 2, not on attempt 1");
    BOOST_TEST(on_leased("PUT", "/jobs/2/start_job/0/" + std::to_string(other), "",
                         {{"attempt_id", "2"}})
                   .status == 200u);
    auto body = result_body(running_job, "completed", fresh);
    auto const late = on_leased("POST", "/jobs/2/complete_job/completed/0", body,
                                {{"compute_node_id", std::to_string(fresh)}, {"attempt_id", "1"}});
    BOOST_TEST(late.status == 409u);
    BOOST_TEST(boost::json::parse(late.body).at("message").as_string() ==
               "complete_job: job 2 is held by compute node " + std::to_string(other) +
                   " on attempt 2, not by compute node " + std::to_string(fresh));
    BOOST_TEST(status(running_job) == "running");
    // The holder of attempt 2 loses its node too: attempt 3.
    BOOST_TEST(on_leased("PUT", "/compute_nodes/" + std::to_string(other), node_record(1, false))
                   .status == 200u);
    BOOST_TEST(status(running_job) == "ready");
    BOOST_TEST(scalar("SELECT attempt_id FROM job WHERE id = 2") == 3);
}

// The sweep put the lost worker's running job back on attempt 2; that worker, with
// lost_lease_policy finish, sends the retry of attempt 1 under a fresh node. The server made no
// such retry: 409 naming the job's attempt (or its next holder), nothing written. A retry the
// server did make is a repeat when its node sends it again: after the job moved on, after a
// restart, after the node was deactivated. A Torc v0.10 client (no fence) gets the status check.
BOOST_FIXTURE_TEST_CASE(a_retry_of_an_attempt_the_sweep_ended, lease_fixture)
{
    sweep(seconds(61));
    auto const fresh = node();
    auto const other = node();
    auto const retry = [&](std::int64_t by, std::int64_t attempt) {
        return on_leased("POST", "/jobs/2/retry/0", "",
                         {{"max_retries", "5"},
                          {"compute_node_id", std::to_string(by)},
                          {"attempt_id", std::to_string(attempt)}});
    };
    auto const message = [](api::response const& r) {
        return std::to_string(r.status) + " " +
               std::string(boost::json::parse(r.body).at("message").as_string());
    };
    auto before = snapshot();
    BOOST_TEST(message(retry(fresh, 1)) ==
               "409 retry: job 2 is \"ready\" on attempt 2, held by no compute node, not on "
               "attempt 1 of compute node " + std::to_string(fresh));
    BOOST_TEST(snapshot() == before);
    // Attempt 2 runs on another node: the late retry names that holder.
    ok("PUT", "/jobs/2/manage_status_change/pending/0");
    BOOST_TEST(on_leased("PUT", "/jobs/2/start_job/0/" + std::to_string(other), "",
                         {{"attempt_id", "2"}})
                   .status == 200u);
    before = snapshot();
    BOOST_TEST(message(retry(fresh, 1)) == "409 retry: job 2 is held by compute node " +
                                               std::to_string(other) +
                                               " on attempt 2, not by compute node " +
                                               std::to_string(fresh));
    BOOST_TEST(snapshot() == before);
    // Its holder retries attempt 2 (attempt 3 is ready); the same retry again is a repeat.
    auto const retried = retry(other, 2);
    BOOST_TEST(retried.status == 200u);
    BOOST_TEST(boost::json::parse(retried.body).at("attempt_id").as_int64() == 3);
    BOOST_TEST(scalar("SELECT compute_node_id FROM job_retry WHERE job_id = 2 AND attempt_id = 2") ==
               other);
    before = snapshot();
    BOOST_TEST(retry(other, 2).status == 200u);
    BOOST_TEST(message(retry(fresh, 2)) ==
               "409 retry: job 2 is \"ready\" on attempt 3, held by no compute node, not on "
               "attempt 2 of compute node " + std::to_string(fresh));
    BOOST_TEST(snapshot() == before);
    // Attempt 3 runs on the fresh node: the retry of attempt 2 sent again is still a repeat, also
    // to a server started again over the same database, also once the node is deactivated.
    ok("PUT", "/jobs/2/manage_status_change/pending/0");
    start(running_job, fresh);
    before = snapshot();
    BOOST_TEST(retry(other, 2).status == 200u);
    torcrun::io::server_api restarted{db, torcrun::test::fixed_clock()};
    api::request again;
    again.method = "POST";
    again.path = "/jobs/2/retry/0";
    again.query.emplace("max_retries", "5");
    again.query.emplace("compute_node_id", std::to_string(other));
    again.query.emplace("attempt_id", "2");
    BOOST_TEST(std::get<api::response>(restarted.handle(again)).status == 200u);
    BOOST_TEST(deactivate_node(other).status == 200u);
    BOOST_TEST(std::get<api::response>(restarted.handle(again)).status == 200u);
    BOOST_TEST(status(running_job) == "running");
    BOOST_TEST(scalar("SELECT attempt_id FROM job WHERE id = 2") == 3);
    // Unfenced (Torc v0.10): no memory to consult, only the status (the lost node's pending job
    // went back to ready).
    auto const plain = on_leased("POST", "/jobs/1/retry/0", "", {{"max_retries", "5"}});
    BOOST_TEST(message(plain) ==
               "422 retry: job 1 is \"ready\"; only a running, failed or terminated job can be "
               "retried");
}

BOOST_FIXTURE_TEST_CASE(heartbeats_and_claims_renew, lease_fixture)
{
    advance(seconds(50));
    heartbeat(lost);
    advance(seconds(50));
    on_leased("POST", "/workflows/1/claim_next_jobs", "", {{"compute_node_id", "1"}});
    BOOST_TEST(sweep(seconds(59)).lost_workers.empty());
    BOOST_TEST(sweep(seconds(61)).lost_workers.size() == 1u);
}

// The wall clock steps forward a day (or back): the lease, on the steady clock, is untouched.
BOOST_FIXTURE_TEST_CASE(a_wall_clock_jump_expires_nobody, lease_fixture)
{
    now += std::chrono::hours(24);
    BOOST_TEST((sweep(seconds(30)) == io::lease_sweep{}));
    now -= std::chrono::hours(48);
    heartbeat(lost);
    BOOST_TEST((sweep(seconds(60)) == io::lease_sweep{}));
    BOOST_TEST(sweep(seconds(61)).lost_workers.size() == 1u);
}

// A server started again over the same database (an outage longer than the lease: the node's last
// heartbeat is long past): the node has one full lease from the restart before it can expire.
BOOST_FIXTURE_TEST_CASE(a_restarted_server_gives_a_full_lease, lease_fixture)
{
    advance(std::chrono::hours(2));  // the server was down for two hours
    io::server_options options;
    options.clock = [this] { return now; };
    options.lease_clock = [this] { return steady; };
    options.worker_lease_seconds = 60;
    leased = std::make_unique<io::server_api>(db, options);
    BOOST_TEST((sweep(seconds(0)) == io::lease_sweep{}));
    BOOST_TEST((sweep(seconds(60)) == io::lease_sweep{}));
    BOOST_TEST(status(running_job) == "running");
    advance(seconds(50));
    heartbeat(lost);  // the worker is back: a fresh lease
    BOOST_TEST((sweep(seconds(60)) == io::lease_sweep{}));
    BOOST_TEST((sweep(seconds(61)).lost_workers == std::vector<std::int64_t>{lost}));
}

// A node deactivated while it still holds jobs (its worker shut down while a claim's reply was
// lost): PUT compute_nodes releases them at once, pending and running alike; the sweep has none
// left to move.
BOOST_FIXTURE_TEST_CASE(deactivating_a_node_releases_its_jobs, lease_fixture)
{
    woken.clear();
    auto const res = on_leased("PUT", "/compute_nodes/2", node_record(1, false));
    BOOST_TEST_REQUIRE(res.status == 200u);
    BOOST_TEST(status(foreign) == "ready");
    BOOST_TEST(status(pending_job) == "pending");  // node 1 is still active
    BOOST_TEST((woken == std::vector<std::int64_t>{1}));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE active_compute_node_id = 2") == 0);
    on_leased("PUT", "/compute_nodes/1", node_record(1, false));
    BOOST_TEST(status(pending_job) == "ready");
    BOOST_TEST(status(running_job) == "ready");
    BOOST_TEST((sweep(seconds(600)) == io::lease_sweep{}));
}

// A database that already holds jobs under an inactive node: the sweep releases them.
BOOST_FIXTURE_TEST_CASE(the_sweep_releases_jobs_of_inactive_nodes, lease_fixture)
{
    BOOST_TEST_REQUIRE(db.db().exec("UPDATE compute_node SET is_active = 0").has_value());
    auto const swept = sweep(seconds(1));
    BOOST_TEST(swept.lost_workers.empty());
    BOOST_TEST((swept.inactive_holders == std::vector<std::int64_t>{lost, silent}));
    BOOST_TEST((swept.jobs_ready == std::vector<std::int64_t>{pending_job, running_job, foreign}));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE active_compute_node_id IS NOT NULL") == 0);
    BOOST_TEST((sweep(seconds(2)) == io::lease_sweep{}));
}

struct failing_fixture : lease_fixture {
    failing_fixture() : lease_fixture(torcrun::core::orphan_policy::failed) {}
};

BOOST_FIXTURE_TEST_CASE(running_jobs_fail_by_policy, failing_fixture)
{
    woken.clear();
    auto const swept = sweep(seconds(61));
    BOOST_TEST((swept.jobs_ready == std::vector<std::int64_t>{pending_job}));
    BOOST_TEST((swept.jobs_failed == std::vector<std::int64_t>{running_job}));
    BOOST_TEST(status(running_job) == "failed");
    BOOST_TEST(status(dependent) == "canceled");
    auto results = ok("GET", "/results", "", {{"workflow_id", "1"}});
    BOOST_TEST_REQUIRE(results.at("items").as_array().size() == 1u);
    auto const& r = results.at("items").at(0);
    BOOST_TEST(r.at("return_code").as_int64() == -128);
    BOOST_TEST(r.at("job_id").as_int64() == running_job);
    BOOST_TEST(r.at("compute_node_id").as_int64() == lost);
    BOOST_TEST(r.at("status").as_string() == "failed");
    BOOST_TEST((woken == std::vector<std::int64_t>{1}));
}

BOOST_FIXTURE_TEST_CASE(run_task_commits_or_rolls_back, lifecycle_fixture)
{
    auto const before = snapshot();
    notified.clear();
    auto failed = server.run_task([this]() -> torcrun::api::api_result<void> {
        (void)db.db().exec("UPDATE workflow_status SET run_id = 5");
        server.notify(1);
        return torcrun::api::conflict("sweep: refused after writing");
    });
    BOOST_TEST_REQUIRE(failed.has_error());
    BOOST_TEST(failed.error().message == "sweep: refused after writing");
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(notified.empty());
    auto done = server.run_task([this]() -> torcrun::api::api_result<void> {
        (void)db.db().exec("UPDATE workflow_status SET run_id = 5");
        server.notify(1);
        server.notify(1);  // once per task
        return {};
    });
    BOOST_TEST(done.has_value());
    BOOST_TEST(scalar("SELECT run_id FROM workflow_status") == 5);
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
}

struct refusal {
    std::string path;
    std::string body;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, refusal const& c) { return os << c.path; }

std::vector<refusal> const refusals{
    {"/compute_nodes/9/heartbeat", "", 404, "heartbeat: no compute_node with id 9"},
    {"/compute_nodes/1/heartbeat", "[]", 422,
     "heartbeat: request body: expected an object or null, found an array"},
};

BOOST_DATA_TEST_CASE_F(lifecycle_fixture, refusals_change_nothing, bdata::make(refusals), c)
{
    node();
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, "POST", c.path, c.body) == c.message);
    BOOST_TEST(snapshot() == before);
}

BOOST_AUTO_TEST_SUITE_END()
