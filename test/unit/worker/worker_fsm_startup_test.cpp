// worker_fsm, start-up: registration, run id, on_workflow_start / on_worker_start actions,
// journaled results of an earlier worker, refusals and an unreachable server while starting,
// signals before the first claim, events out of place, and the retry backoff with its jitter.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

#include <numeric>
#include <set>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

make_event actions_read(std::vector<core::workflow_action> actions)
{
    return reply<worker::pending_actions_read>("read_pending_actions", std::move(actions));
}
make_event action_claimed(std::int64_t id, bool claimed)
{
    return reply<worker::action_claim_read>("claim_action " + std::to_string(id), claimed,
                                             std::optional<std::int64_t>{});
}
make_event registered() { return reply<worker::node_registered>("register_node", std::int64_t{9}); }
make_event run_id_read()
{
    return reply<worker::workflow_read>("read_workflow", std::int64_t{1}, false);
}
make_event begin() { return ev(worker::begin{unix_t0, {}}); }

std::string const register_line = "register_node " + n0_node;
std::string const down_text = "POST /x: connect 127.0.0.1:8080: Connection refused (connect";
std::string down_line(int failure, std::string delay)
{
    return "warning: server: " + down_text + ", failure " + std::to_string(failure) +
           "); retrying in " + delay + " s";
}
std::vector<std::string> exits(std::string code, std::string reason)
{
    return {"info: worker: compute node 9 deactivated", "journal_node drop 9",
            "info: worker: exit " + code + " (" + reason + ")", "exit " + code};
}

core::worker_config window(double seconds)
{
    auto c = test_config();
    c.server.retry_window_seconds = seconds;
    return c;
}

// The first steps up to the read of on_workflow_start actions.
std::vector<step> const registered_steps{
    {0, begin(), {register_line}},
    {0.1, registered(), {"info: worker: registered as compute node 9", "journal_node 9", "read_workflow", "heartbeat"}},
    {0.2, run_id_read(),
     {"info: worker: workflow 5 run 1", "read_pending_actions on_workflow_start"}},
};

core::job_result result_of(std::int64_t job, std::uint32_t attempt, core::result_status status,
                           int rc)
{
    core::job_result r;
    r.job_id = job;
    r.workflow_id = 5;
    r.run_id = 1;
    r.attempt_id = attempt;
    r.return_code = rc;
    r.status = status;
    return r;
}

std::vector<scenario> const scenarios{
    {"start actions: claimed ones run before the first claim, others are skipped",
     test_config(), n0_pool(),
     registered_steps + std::vector<step>{
         {0.3,
          actions_read({commands_action(7, {"echo a", "echo b"}), other_action(8, "schedule_nodes")}),
          {"claim_action 7"}},
         {0.4, action_claimed(7, true),
          {"info: action 7: running 2 commands", "run_commands 7: echo a; echo b"}},
         {0.5, ev(worker::action_finished{7, true, ""}),
          {"info: action 8: schedule_nodes actions are not run by workers",
           "read_pending_actions on_worker_start"}},
         {0.6, actions_read({commands_action(9, {"setup"})}), {"claim_action 9"}},
         {0.7, action_claimed(9, false),
          {"info: action 9: claimed by another worker", "info: worker: running",
           "claim_jobs " + n0_claim, "arm_timer 5.7"}},
     }},
    {"start actions: a 409 claim, failed commands and an unreadable trigger do not stop it",
     test_config(), n0_pool(),
     registered_steps + std::vector<step>{
         {0.3, actions_read({commands_action(7, {"false"}), commands_action(8, {"x"})}),
          {"claim_action 7"}},
         {0.4, refused("claim_action 7", 409, "POST /workflows/5/actions/7/claim: 409"),
          {"info: action 7: not claimed: POST "
           "/workflows/5/actions/7/claim: 409",
           "claim_action 8"}},
         {0.5, action_claimed(8, true),
          {"info: action 8: running 1 commands", "run_commands 8: x"}},
         {0.6, ev(worker::action_finished{8, false, "exit 1 from: x"}),
          {"warning: action 8: commands failed: exit 1 from: x",
           "read_pending_actions on_worker_start"}},
         {0.7, refused("read_pending_actions", 404, "GET /workflows/5/actions/pending: 404"),
          {"warning: action: on_worker_start actions unread: GET /workflows/5/actions/pending: "
           "404",
           "info: worker: running", "claim_jobs " + n0_claim, "arm_timer 5.7"}},
         {0.8, ev(worker::action_finished{8, true, ""}),
          {"warning: action 8: not running; its end was ignored"}},
     }},
    {"registration refused: exit 1", test_config(), n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.1, refused("register_node", 403, "POST /compute_nodes: 403 forbidden"),
          {"error: worker: registration refused: POST /compute_nodes: 403 forbidden",
           "info: worker: exit 1 (fatal)", "exit 1"}},
     }},
    {"registration unreachable: re-sent after the backoff until the server answers",
     test_config(), n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.1, down("register_node"), {down_line(1, "0.5"), "arm_timer 0.6"}},
         {0.6, tick(), {register_line, "arm_timer 600.1"}},
         {0.7, registered(),
          {"info: server: answering again", "info: worker: registered as compute node 9",
           "journal_node 9", "read_workflow", "heartbeat"}},
     }},
    {"no answer for the retry window while starting: exit 1", window(2), n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.1, down("register_node"), {down_line(1, "0.5"), "arm_timer 0.6"}},
         {0.6, tick(), {register_line, "arm_timer 2.1"}},
         {0.7, down("register_node"), {down_line(2, "1"), "arm_timer 1.7"}},
         {1.7, tick(), {register_line, "arm_timer 2.1"}},
         {1.8, down("register_node"), {down_line(3, "2")}},
         {2.1, tick(),
          {"error: server: no answer for 2 s (server.retry_window_seconds); results are "
           "journaled",
           "info: worker: exit 1 (server lost)", "exit 1"}},
     }},
    {"workflow refused: the node is deactivated, exit 1", test_config(), n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.1, registered(), {"info: worker: registered as compute node 9", "journal_node 9", "read_workflow", "heartbeat"}},
         {0.2, refused("read_workflow", 404, "GET /workflows/5: 404 not found"),
          {"error: worker: workflow 5 refused: GET /workflows/5: 404 not found",
           "deactivate_node after=0.2"}},
         {0.3, done("deactivate_node"), exits("1", "fatal")},
     }},
    {"SIGTERM during start-up: the node is deactivated, exit 0", test_config(), n0_pool(),
     registered_steps + std::vector<step>{
         {0.25, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping", "deactivate_node after=0.25",
           "arm_timer 5.25"}},
         {0.3, actions_read({commands_action(7, {"echo a"})}), {}},
         {0.35, done("deactivate_node"), exits("0", "signal")},
     }},
    {"SIGTERM before the registration answer: deactivated once registered", test_config(),
     n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.05, sig(SIGTERM), {"info: worker: SIGTERM received; stopping", "arm_timer 5.05"}},
         {0.1, registered(),
          {"info: worker: registered as compute node 9", "journal_node 9",
           "deactivate_node after=0.1"}},
         {0.2, done("deactivate_node"), exits("0", "signal")},
     }},
    {"SIGTERM while the server does not answer the registration: exit at the hard stop",
     test_config(), n0_pool(),
     {
         {0, begin(), {register_line}},
         {0.1, down("register_node"), {down_line(1, "0.5"), "arm_timer 0.6"}},
         {0.2, sig(SIGINT), {"info: worker: SIGINT received; stopping"}},
         {0.6, tick(), {register_line, "arm_timer 5.2"}},
         {0.7, down("register_node"), {down_line(2, "1"), "arm_timer 1.7"}},
         {1.7, tick(), {register_line, "arm_timer 5.2"}},
         {5.2, tick(),
          {"error: worker: the stop ran out of time; exiting now", "info: worker: exit 0 (signal)",
           "exit 0"}},
     }},
    {"results journaled by an earlier worker are reported first", test_config(), n0_pool(),
     {
         {0, ev(worker::begin{unix_t0,
                              {{core::report_kind::complete,
                                result_of(40, 1, core::result_status::completed, 0)},
                               {core::report_kind::record,
                                result_of(41, 2, core::result_status::failed, 3)}}}),
          {"info: worker: reporting 2 results left in the journal", register_line,
           "record_result 41#2 failed rc=3", "complete_jobs 40#1 completed rc=0"}},
         {0.1, reply<worker::jobs_reported>("complete_jobs", std::vector<std::int64_t>{40},
                                            std::vector<worker::rejected_report>{}),
          {"journal_remove 40#1"}},
         {0.2, done("record_result 41"), {"journal_remove record 41#2"}},
     },
     [](harness& h) { BOOST_TEST(h.fsm().ledger().claimed == 0u); }},
    {"events before begin, a second begin and replies to unknown requests are ignored",
     test_config(), n0_pool(),
     {
         {0, tick(), {}},
         {0, sig(SIGTERM), {"warning: worker: an event before begin was ignored"}},
         {0, begin(), {register_line}},
         {0.05, begin(), {"warning: worker: a second begin was ignored"}},
         {0.06, ev(worker::request_done{core::request_id{999}}),
          {"warning: worker: a reply to unknown request 999 was ignored"}},
         {0.07, ev(worker::request_failed{core::request_id{998}, http_failure::reset, 0, "x"}),
          {"warning: worker: a failure of unknown request 998 was ignored"}},
     }},
};

// The n-th consecutive failure of one request waits this long (no jitter).
struct backoff_case {
    int failures;
    std::string delay;
};
std::ostream& operator<<(std::ostream& os, backoff_case const& c) { return os << c.failures; }

std::vector<backoff_case> const backoff_cases{{1, "0.5"}, {2, "1"},  {3, "2"},  {4, "4"},
                                              {5, "8"},   {6, "16"}, {7, "30"}, {8, "30"}};

// The delays of n failures of the registration, read back from the arm_timer actions.
std::vector<double> delays(std::optional<std::uint64_t> seed, int n)
{
    harness h(test_config(), n0_pool(), seed);
    double t = 0;
    h.feed(t, worker::begin{unix_t0, {}});
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
        h.feed(t, worker::request_failed{h.req("register_node"), http_failure::timeout, 0, "t"});
        for (auto const& a : h.last())
            if (auto const* timer = std::get_if<worker::arm_timer>(&a))
                t = std::chrono::duration<double>(timer->at.time_since_epoch()).count();
        out.push_back(t - (out.empty() ? 0 : std::accumulate(out.begin(), out.end(), 0.0)));
        h.feed(t, worker::tick{});
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_startup)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_DATA_TEST_CASE(backoff_doubles_to_30_seconds, bdata::make(backoff_cases), c)
{
    harness h(test_config(), n0_pool());
    h.feed(0, worker::begin{unix_t0, {}});
    std::vector<std::string> got;
    for (int i = 1; i <= c.failures; ++i) {
        got = h.feed(i * 40, worker::request_failed{h.req("register_node"), http_failure::http_5xx,
                                                    503, "POST /compute_nodes: 503"});
        h.feed(i * 40 + 35, worker::tick{});
    }
    BOOST_TEST_REQUIRE(!got.empty());
    BOOST_TEST(got.front() == "warning: server: POST /compute_nodes: 503 (http_5xx, failure " +
                                  std::to_string(c.failures) + "); retrying in " + c.delay + " s");
}

BOOST_AUTO_TEST_CASE(jitter_spreads_delays_and_replays_per_seed)
{
    auto const exact = delays(std::nullopt, 7);
    auto const a = delays(11, 7);
    auto const b = delays(11, 7);
    auto const c = delays(12, 7);
    BOOST_TEST(a == b);
    BOOST_TEST(a != c);
    for (std::size_t i = 0; i < exact.size(); ++i) {
        BOOST_TEST(a[i] >= 0.5 - 1e-6);
        BOOST_TEST(a[i] <= exact[i] + 1e-6);
    }
    std::set<double> distinct(a.begin() + 1, a.end());
    BOOST_TEST(distinct.size() == a.size() - 1);
}

BOOST_AUTO_TEST_SUITE_END()
