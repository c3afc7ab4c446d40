// worker_fsm, the lease: heartbeats and their answers as events, the lease they name, a lost
// lease (the server says the node is inactive, or no beat was answered for the lease minus the
// margin) under both server.lost_lease_policy values, reconciliation after an answer that never
// came, and the release of an earlier worker's nodes at start.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

#include <cmath>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

auto const start = opening(n0_node, n0_claim);

std::string const inactive =
    "POST /compute_nodes/9/heartbeat: 409 heartbeat: compute node 9 is inactive (shut down, or "
    "its lease ran out and its jobs went back); register a new node";

core::worker_config with_policy(core::lost_lease_policy p)
{
    auto c = test_config();
    c.server.lost_lease = p;
    return c;
}

core::worker_config without_extensions()
{
    auto c = test_config();
    c.server.extensions = false;
    return c;
}

make_event beat_ok(double lease)
{
    return reply<worker::heartbeat_answered>("heartbeat", std::optional<double>(lease));
}

make_event registered(std::int64_t node)
{
    return reply<worker::node_registered>("register_node", node);
}

// The opening, its first beat answered with a 9 s lease at 0.5 (next beat 3.1, deadline 7.1 -
// 9 s minus the 2 s margin after the beat was sent at 0.1), and job 42 running since 1.03.
std::vector<step> leased_with_42()
{
    return start + std::vector<step>{{0.5, beat_ok(9), {"..."}}} +
           launched(1, job(42), needs(2));
}

std::string const lost_stop =
    "warning: worker: the lease of compute node 9 is lost (the server says: " + inactive +
    "); policy stop: 1 running jobs stopped, none reported, 0 handed back; registering a fresh "
    "compute node in 1 s";

std::vector<scenario> const scenarios{
    {"the first answer names the lease: beats go a third of it apart", test_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, beat_ok(9), {"arm_timer 3.1"}},
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {3.2, beat_ok(9), {"..."}},
     }},
    {"no heartbeats without the extensions", without_extensions(), n0_pool(),
     {
         {0, ev(worker::begin{unix_t0, {}}), {"register_node " + n0_node}},
         {0.1, registered(9), {"info: worker: registered as compute node 9", "journal_node 9", "read_workflow"}},
     }},
    {"stop: the server says the node is inactive: SIGKILL, no report, a fresh node",
     with_policy(core::lost_lease_policy::stop), n0_pool(),
     leased_with_42() + std::vector<step>{
         {2, tick(), {"..."}},
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {3.2, refused("heartbeat", 409, inactive),
          {"signal_job 42 SIGKILL", lost_stop, "arm_timer 4.2"}},
         {3.3, exit_of(42, killed(SIGKILL)),
          {"info: job 42: its process of the lost lease ended; not reported"}},
         // the claim sent while 42 ran was sent under node 9: its jobs go back
         {3.4, claimed({job(43)}),
          {"info: job 43: handed back: claimed under a lease that was lost", "hand_back 43"}},
         // the fresh node is registered a second after the loss, not at once
         {4.2, tick(), {"register_node " + n0_node, "arm_timer 5.4"}},
         {4.3, registered(10),
          {"warning: worker: registered again as compute node 10 (compute node 9 lost its "
           "lease)",
           "journal_node 10", "heartbeat", "claim_jobs " + n0_claim}},
     },
     [](harness& h) {
         auto const& l = h.fsm().ledger();
         BOOST_TEST(l.lease_lost == 1u);
         BOOST_TEST(l.reported == 0u);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    {"stop: no answer for the lease minus the margin counts as lost",
     with_policy(core::lost_lease_policy::stop), n0_pool(),
     leased_with_42() + std::vector<step>{
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {4.1, failed("heartbeat", http_failure::timeout, 0, "heartbeat: timeout"),
          {"debug: worker: heartbeat failed: heartbeat: timeout", "arm_timer 5.1"}},
         {5.4, tick(), {"..."}},
         {7.1, tick(),
          {"signal_job 42 SIGKILL",
           "warning: worker: the lease of compute node 9 is lost (no heartbeat answered for 7 s "
           "of a 9 s lease); policy stop: 1 running jobs stopped, none reported, 0 handed back; "
           "registering a fresh compute node in 1 s",
           "arm_timer 8.1"}},
     }},
    {"finish: after the silence the jobs go on, claims wait, a late answer resumes them",
     with_policy(core::lost_lease_policy::finish), n0_pool(),
     leased_with_42() + std::vector<step>{
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {7.1, tick(),
          {"warning: worker: the lease of compute node 9 may be lost (no heartbeat answered for "
           "7 s of a 9 s lease); policy finish: 1 jobs go on, no claims until the server "
           "answers",
           "check_workflow"}},
         // the beat sent at 3.1 answers late: due again at 6.1, so at once; lost at 10.1
         {7.2, beat_ok(9),
          {"warning: worker: the lease of compute node 9 is held again; claiming resumes",
           "heartbeat", "arm_timer 10.1"}},
     }},
    {"finish: the node is inactive: the job goes on and is reported under the fresh node",
     with_policy(core::lost_lease_policy::finish), n0_pool(),
     leased_with_42() + std::vector<step>{
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {3.2, refused("heartbeat", 409, inactive),
          {"warning: worker: the lease of compute node 9 is lost (the server says: " + inactive +
               "); policy finish: 1 running jobs go on, 0 handed back; registering a fresh "
               "compute node in 1 s",
           "arm_timer 4.2"}},
         {4.2, tick(), {"register_node " + n0_node, "arm_timer 5.4"}},
         {4.3, registered(10),
          {"warning: worker: registered again as compute node 10 (compute node 9 lost its "
           "lease)",
           "journal_node 10", "heartbeat"}},
         {4.5, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         // the claim sent under node 9 answers empty; only now may the fresh node claim
         {4.6, claimed({}), {"..."}},
     },
     [](harness& h) { BOOST_TEST(h.fsm().ledger().lease_lost == 0u); }},
    // A worker killed with its jobs running left nodes 7 and 8 in the journal: both are
    // released before the first claim; 8 was taken over already. The claim goes out only once
    // both are answered, and the journal forgets them.
    {"the nodes of an earlier worker are released before the first claim", test_config(),
     n0_pool(),
     {
         {0, ev(worker::begin{unix_t0, {}}), {"register_node " + n0_node}},
         {0, ev(worker::earlier_nodes_found{{7, 8}}),
          {"info: worker: 2 compute nodes of an earlier worker in the journal; releasing their "
           "jobs before the first claim",
           "release_node 7", "release_node 8"}},
         {0.1, registered(9),
          {"info: worker: registered as compute node 9", "journal_node 9", "read_workflow",
           "heartbeat"}},
         {0.2, reply<worker::workflow_read>("read_workflow", std::int64_t{1}, false),
          {"info: worker: workflow 5 run 1", "read_pending_actions on_workflow_start"}},
         {0.3, reply<worker::pending_actions_read>("read_pending_actions",
                                                   std::vector<core::workflow_action>{}),
          {"read_pending_actions on_worker_start"}},
         {0.4, reply<worker::pending_actions_read>("read_pending_actions",
                                                   std::vector<core::workflow_action>{}),
          {"info: worker: running", "arm_timer 5.4"}},
         {0.5, reply<worker::node_released>("release_node 7", std::int64_t{7},
                                             worker::earlier_node::released,
                                             std::vector<worker::held_job>{{41, "running", 1},
                                                                           {42, "running", 2},
                                                                           {43, "pending", 1}}),
          {"warning: worker: compute node 7 of an earlier worker deactivated; the server put "
           "back the 3 jobs it held (2 of them running)",
           "journal_node drop 7"}},
         {0.6, reply<worker::node_released>("release_node 8", std::int64_t{8},
                                             worker::earlier_node::inactive,
                                             std::vector<worker::held_job>{}),
          {"info: worker: compute node 8 of an earlier worker is inactive already; nothing to "
           "release",
           "journal_node drop 8", "claim_jobs " + n0_claim}},
     }},
    {"an earlier node refused stays in the journal; claims go on", test_config(), n0_pool(),
     {
         {0, ev(worker::begin{unix_t0, {}}), {"..."}},
         {0, ev(worker::earlier_nodes_found{{7}}), {"..."}},
         {0.1, refused("release_node 7", 403, "get_compute_node: 403 forbidden"),
          {"warning: worker: compute node 7 of an earlier worker not released: "
           "get_compute_node: 403 forbidden"}},
     }},
    {"without the extensions earlier nodes are left to the server", without_extensions(),
     n0_pool(),
     {
         {0, ev(worker::begin{unix_t0, {}}), {"register_node " + n0_node}},
         {0, ev(worker::earlier_nodes_found{{7}}), {}},
     }},
    // A server without the heartbeat endpoint (a Torc server; Prism over Torc's contract in front
    // of torcrun's): its 404 to the first beat is no lost lease - no fresh node, ever.
    {"a 404 to the first heartbeat: no heartbeat endpoint, no lease, no fresh node", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {0.5, refused("heartbeat", 404, "heartbeat: HTTP 404: no route"),
          {"warning: worker: the server has no heartbeat endpoint (heartbeat: HTTP 404: no "
           "route); going on without a lease, as with a Torc server: a job this worker holds "
           "when it dies stays with its compute node until that node is deactivated"}},
         {5.4, tick(), {"..."}},
         {60, tick(), {"..."}},
     },
     [](harness& h) {
         BOOST_TEST(h.count("heartbeat") == 1u);
         BOOST_TEST(h.count("register_node") == 1u);
     }},
    {"a 405 to a later heartbeat: the same, the lease given up with no fresh node", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {0.5, beat_ok(9), {"..."}},
         {3.1, tick(), {"heartbeat", "arm_timer 5.4"}},
         {3.2, refused("heartbeat", 405, "heartbeat: HTTP 405: method not allowed"),
          {"warning: worker: the server has no heartbeat endpoint (heartbeat: HTTP 405: method "
           "not allowed); going on without a lease, as with a Torc server: a job this worker "
           "holds when it dies stays with its compute node until that node is deactivated"}},
         {30, tick(), {"..."}},
     },
     [](harness& h) { BOOST_TEST(h.count("heartbeat") == 2u); }},
    {"a claim refused with 409 sends a heartbeat at once", test_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, beat_ok(9), {"..."}},
         {1, refused("claim_jobs", 409, "claim: compute node 9 is inactive"),
          {"error: claim: refused: claim: compute node 9 is inactive", "heartbeat",
           "arm_timer 1.5"}},
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_lease)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

// finish: the result of a job that outlived its lease names the fresh node, so the server's
// fence takes it only if that node holds the attempt again.
BOOST_AUTO_TEST_CASE(finish_reports_under_the_fresh_node)
{
    harness h(with_policy(core::lost_lease_policy::finish), n0_pool());
    for (auto const& st : leased_with_42()) h.feed(st.at, st.event(h));
    h.feed(3.1, worker::tick{});
    h.feed(3.2, worker::request_failed{h.req("heartbeat"), http_failure::http_4xx, 409, inactive});
    h.feed(4.2, worker::tick{});
    h.feed(4.3, worker::node_registered{h.req("register_node"), 10});
    h.feed(4.5, worker::job_exited{42, exited(0), std::nullopt, std::nullopt, "", {}});
    core::worker::complete_jobs const* batch = nullptr;
    for (auto const& a : h.last())
        if (auto const* b = std::get_if<worker::complete_jobs>(&a)) batch = b;
    BOOST_TEST_REQUIRE(batch != nullptr);
    BOOST_TEST(batch->results.at(0).compute_node_id == 10);
}

// A claim timed out (the server may have committed it): once the claims are quiet the worker
// reads what the server holds for it, adopts what it knows and hands back what it never got.
BOOST_AUTO_TEST_CASE(reconciliation_hands_back_jobs_never_received)
{
    harness h(test_config(), n0_pool());
    for (auto const& st : start + launched(1, job(42), needs(2))) h.feed(st.at, st.event(h));
    auto const claim = h.req("claim_jobs");
    auto lines = h.feed(2, worker::request_failed{claim, http_failure::timeout, 0, "claim: timeout"});
    h.feed(3, worker::tick{});
    lines = h.feed(3.1, worker::jobs_claimed{h.req("claim_jobs"), {}});
    BOOST_TEST(std::ranges::count(lines, std::string("read_held_jobs")) == 1);
    std::vector<worker::held_job> held{{42, "running", 1}, {77, "pending", 2}};
    lines = h.feed(3.2, worker::held_jobs_read{h.req("read_held_jobs"), held});
    BOOST_TEST(std::ranges::count(lines, std::string("hand_back 77")) == 1);
    BOOST_TEST(std::ranges::count(lines, std::string("hand_back 42")) == 0);
    // the hand-back's answer leaves job 42, known here, alone
    h.feed(3.3, worker::request_done{h.req("hand_back 77")});
    BOOST_TEST(h.fsm().live_jobs() == 1u);
    BOOST_TEST(h.fsm().ledger().handed_back == 0u);
}

// A retry window longer than the lease the first answer names, not asked for: refused by the
// state machine (an error naming both), the worker stops as on SIGTERM and exits 2; a window
// within the lease, or one asked for, goes on.
BOOST_AUTO_TEST_CASE(a_retry_window_beyond_the_lease_is_refused_with_exit_2)
{
    auto config = test_config();
    config.server.allow_retry_beyond_lease = false;
    config.server.retry_window_set = true;
    harness h(config, n0_pool());
    for (auto const& st : start) h.feed(st.at, st.event(h));
    auto lines = h.feed(0.5, worker::heartbeat_answered{h.req("heartbeat"), 9.0});
    std::string const refusal =
        "error: server.retry_window_seconds: 600 s is longer than the server's lease (9 s): the "
        "worker would go on retrying after its jobs went to other workers; lower it, or set "
        "server.allow_retry_beyond_lease=true";
    BOOST_TEST(std::ranges::count(lines, refusal) == 1);
    BOOST_TEST((h.fsm().stage() == core::worker_stage::draining));
    h.feed(0.6, worker::jobs_claimed{h.req("claim_jobs"), {}});
    lines = h.feed(0.7, worker::tick{});
    lines = h.feed(0.8, worker::request_done{h.req("deactivate_node")});
    BOOST_TEST(std::ranges::count(lines, std::string("exit 2")) == 1);
    // Only the first lease named is checked; within the window nothing happens.
    auto fits = test_config();
    fits.server.allow_retry_beyond_lease = false;
    fits.server.retry_window_seconds = 9;
    harness ok(fits, n0_pool());
    for (auto const& st : start) ok.feed(st.at, st.event(ok));
    ok.feed(0.5, worker::heartbeat_answered{ok.req("heartbeat"), 9.0});
    BOOST_TEST((ok.fsm().stage() == core::worker_stage::running));
}

// A retry window nobody set follows the first lease named: the lease less the worker's margin
// (max(2 s, lease / 5)), said once; the worker goes on.
BOOST_AUTO_TEST_CASE(a_retry_window_not_set_follows_the_lease)
{
    auto config = test_config();
    config.server.allow_retry_beyond_lease = false;
    config.server.retry_window_set = false;
    harness h(config, n0_pool());
    for (auto const& st : start) h.feed(st.at, st.event(h));
    auto lines = h.feed(0.5, worker::heartbeat_answered{h.req("heartbeat"), 10.0});
    BOOST_TEST(std::ranges::count(lines, std::string("info: worker: server.retry_window_seconds "
                                                     "follows the server's 10 s lease: 8 s")) ==
               1);
    BOOST_TEST((h.fsm().stage() == core::worker_stage::running));
    // the server silent from 1 s on: lost after the followed 8 s, not the configured 600
    auto const claim = h.req("claim_jobs");
    h.feed(1, worker::request_failed{claim, http_failure::connect, 0, "claim: refused"});
    h.feed(9.5, worker::tick{});
    BOOST_TEST((h.fsm().stage() != core::worker_stage::running));
}

// A lease lost again and again with no job completed between: the fresh registration waits
// 1, 2, 4, 8 s, and the fifth loss stops the worker with exit 4 - a server (or a proxy in front
// of it) that keeps answering 409 or 404 never gets a stream of compute nodes.
BOOST_AUTO_TEST_CASE(a_lease_lost_again_and_again_backs_off_then_stops_with_exit_4)
{
    harness h(with_policy(core::lost_lease_policy::stop), n0_pool());
    for (auto const& st : start) h.feed(st.at, st.event(h));
    h.feed(0.5, worker::heartbeat_answered{h.req("heartbeat"), 9.0});
    h.feed(3.1, worker::tick{});  // the next beat
    double t = 3.1;
    std::vector<double> registered_at;
    for (int loss = 1; loss <= core::max_lease_losses; ++loss) {
        if (loss > 1) {
            // registered again: its first beat is refused as inactive at once
            auto lines = h.feed(t, worker::node_registered{h.req("register_node"), 9 + loss});
            registered_at.push_back(t);
            BOOST_TEST(std::ranges::count(lines, std::string("heartbeat")) == 1);
        }
        t += 0.1;
        auto lines = h.feed(t, worker::request_failed{h.req("heartbeat"), http_failure::http_4xx,
                                                      409, "heartbeat: inactive"});
        if (loss < core::max_lease_losses) {
            BOOST_TEST(std::ranges::count(lines, std::string("register_node " + n0_node)) == 0);
            double const wait = std::exp2(loss - 1);
            lines = h.feed(t + wait - 0.05, worker::tick{});
            BOOST_TEST(std::ranges::count(lines, std::string("register_node " + n0_node)) == 0);
            t += wait;
            lines = h.feed(t, worker::tick{});
            BOOST_TEST(std::ranges::count(lines, std::string("register_node " + n0_node)) == 1);
            t += 0.1;
        }
    }
    BOOST_TEST((h.fsm().reason() == core::stop_reason::lease_lost));
    BOOST_TEST(h.count("register_node") == static_cast<std::size_t>(core::max_lease_losses));
    h.feed(t + 0.1, worker::jobs_claimed{h.req("claim_jobs"), {}});
    auto lines = h.feed(t + 0.2, worker::request_failed{h.req("deactivate_node"),
                                                         http_failure::http_4xx, 409, "inactive"});
    BOOST_TEST(std::ranges::count(lines, std::string("exit 4")) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
