// Workflow actions through server_api: trigger counts as jobs become ready and complete, the start
// triggers armed by initialize_jobs, on_workflow_complete, the pending list with its trigger_type
// filter, and claims (once, persistent, refusals).
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(workflow_actions)

// Jobs a (1) and b (2, after a); actions 1..5 of every kind the runner asks for.
struct actions_fixture : lifecycle_fixture {
    std::int64_t cn = 0;
    actions_fixture()
    {
        job("a");
        job("b", R"("depends_on_job_ids":[1])");
        cn = node();
        action("on_workflow_start", "");
        action("on_worker_start", R"(,"persistent":true)");
        action("on_jobs_ready", R"(,"job_ids":[2])");
        action("on_jobs_complete", R"(,"job_ids":[1,2])");
        action("on_workflow_complete", "");
    }
    void action(std::string const& trigger, std::string const& extra)
    {
        ok("POST", "/workflows/1/actions",
           R"({"workflow_id":1,"trigger_type":")" + trigger +
               R"(","action_type":"run_commands","action_config":{"commands":["echo"]})" + extra +
               "}");
    }
    std::vector<std::int64_t> pending(query q = {})
    {
        std::vector<std::int64_t> out;
        auto const list = ok("GET", "/workflows/1/actions/pending", "", std::move(q));
        for (auto const& a : list.as_array()) {
            torcrun::test::check_shape(api::workflow_action_model, a);
            out.push_back(a.at("id").as_int64());
        }
        return out;
    }
    std::string counts()
    {
        std::string out;
        auto const list = ok("GET", "/workflows/1/actions");
        for (auto const& a : list.as_array()) {
            out += std::to_string(a.at("trigger_count").as_int64()) + "/" +
                   std::to_string(a.at("required_triggers").as_int64()) + " ";
        }
        return out;
    }
    std::string claim(std::int64_t id)
    {
        return call("POST", "/workflows/1/actions/" + std::to_string(id) + "/claim",
                    R"({"compute_node_id":)" + std::to_string(cn) + "}")
            .body;
    }
};

BOOST_FIXTURE_TEST_CASE(triggers_follow_the_jobs, actions_fixture)
{
    BOOST_TEST(pending().empty());
    BOOST_TEST(counts() == "0/1 0/1 0/1 0/2 0/1 ");
    initialize();
    BOOST_TEST(counts() == "1/1 1/1 0/1 0/2 0/1 ");
    BOOST_TEST((pending() == std::vector<std::int64_t>{1, 2}));
    BOOST_TEST((pending({{"trigger_type", "on_worker_start"}}) == std::vector<std::int64_t>{2}));
    BOOST_TEST(
        pending({{"trigger_type", "on_jobs_ready"}, {"trigger_type", "on_jobs_complete"}}).empty());
    run(1, cn);
    BOOST_TEST(counts() == "1/1 1/1 1/1 1/2 0/1 ");
    BOOST_TEST((pending({{"trigger_type", "on_jobs_ready"},
                         {"trigger_type", "on_jobs_complete"}}) == std::vector<std::int64_t>{3}));
    run(2, cn);
    BOOST_TEST(counts() == "1/1 1/1 1/1 2/2 1/1 ");
    BOOST_TEST((pending() == std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

BOOST_FIXTURE_TEST_CASE(claims_once_or_persistently, actions_fixture)
{
    initialize();
    BOOST_TEST(claim(1) == R"({"action_id":1,"success":true,"claimed":true})");
    auto const done = ok("GET", "/workflows/1/actions").at(0);
    BOOST_TEST(done.at("executed").as_bool());
    BOOST_TEST(done.at("executed_by").as_int64() == cn);
    BOOST_TEST(done.at("executed_at").as_string() == "2026-01-19T22:41:30.123Z");
    BOOST_TEST(fails(409, "POST", "/workflows/1/actions/1/claim", R"({"compute_node_id":1})") ==
               "claim_action: action 1 already claimed");
    // Persistent: every worker runs it, and it stays pending.
    BOOST_TEST(claim(2) == R"({"action_id":2,"success":true,"claimed":true})");
    BOOST_TEST(claim(2) == R"({"action_id":2,"success":true,"claimed":true})");
    BOOST_TEST((pending() == std::vector<std::int64_t>{2}));
    // A submitter without a compute node may claim too (executed_by stays unset).
    BOOST_TEST(call("POST", "/workflows/1/actions/3/claim", "null").status == 200u);
    BOOST_TEST(!ok("GET", "/workflows/1/actions").at(2).as_object().contains("executed_by"));
}

BOOST_FIXTURE_TEST_CASE(a_partial_initialization_keeps_the_start_action, actions_fixture)
{
    initialize();
    claim(1);
    run(1, cn);
    run(2, cn);
    for (auto id : {3, 4, 5}) claim(id);
    ok("PUT", "/jobs/2/manage_status_change/uninitialized/0");
    initialize(1, {{"only_uninitialized", "true"}});
    // on_workflow_start stays executed; b runs again, so its actions are re-armed.
    BOOST_TEST((pending() == std::vector<std::int64_t>{2, 3}));
    initialize();
    BOOST_TEST((pending() == std::vector<std::int64_t>{1, 2, 3}));
}

BOOST_FIXTURE_TEST_CASE(a_handed_back_job_counts_once, actions_fixture)
{
    action("on_jobs_ready", R"(,"job_ids":[1,2])");
    initialize();
    BOOST_TEST(counts() == "1/1 1/1 0/1 0/2 0/1 1/2 ");
    // Claimed, then handed back by a worker that could not start it, then retried after a
    // failure (which canceled b and so completed the workflow): still only one of the last
    // action's two jobs has become ready.
    claim_next(1);
    ok("PUT", "/jobs/1/manage_status_change/ready/0");
    run(1, cn, "failed", 1);
    ok("POST", "/jobs/1/retry/0", "", {{"max_retries", "3"}});
    BOOST_TEST(counts() == "1/1 1/1 0/1 2/2 1/1 1/2 ");
    BOOST_TEST(pending({{"trigger_type", "on_jobs_ready"}}).empty());
}

struct refusal {
    std::string method;
    std::string path;
    std::string body;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, refusal const& c) { return os << c.path; }

std::vector<refusal> const refusals{
    {"GET", "/workflows/9/actions/pending", "", 404, "pending_actions: no workflow with id 9"},
    {"POST", "/workflows/9/actions/1/claim", R"({"compute_node_id":1})", 404,
     "claim_action: no workflow with id 9"},
    {"POST", "/workflows/1/actions/99/claim", R"({"compute_node_id":1})", 404,
     "claim_action: workflow 1 has no action 99"},
    {"POST", "/workflows/2/actions/1/claim", R"({"compute_node_id":1})", 404,
     "claim_action: workflow 2 has no action 1"},
    {"POST", "/workflows/1/actions/1/claim", R"({"compute_node_id":9})", 404,
     "claim_action: compute_node_id: no compute_node with id 9"},
    {"POST", "/workflows/1/actions/1/claim", R"({"compute_node_id":"x"})", 422,
     R"(claim_action: field "compute_node_id": expected an integer, found a string)"},
};

struct refusal_fixture : actions_fixture {
    refusal_fixture()
    {
        workflow("other");
        initialize();
    }
};

BOOST_DATA_TEST_CASE_F(refusal_fixture, refusals_change_nothing, bdata::make(refusals), c)
{
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, c.method, c.path, c.body) == c.message);
    BOOST_TEST(snapshot() == before);
}

BOOST_AUTO_TEST_SUITE_END()
