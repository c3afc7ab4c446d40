// worker_fsm, claim ahead and the combined exchange. A leased worker of 2 CPUs that measured a
// job and a claim claims beyond its free CPU (the queue), starts a queued job the moment a slot
// frees (no request between the exit and the spawn), and hands its queued jobs back when it
// drains or loses its lease. A completion goes with the next claim in one complete_and_claim;
// one finishing while it is out waits for the next; a server without the route (404) gets both
// separately from then on; a timeout sends the same exchange again (the claim under its key); a
// refused claim inside the answer keeps the completions. Without a lease: no queue.
#include "worker_fsm_script.hpp"

#include <csignal>

using namespace fsm_test;

namespace {

auto const two_cpus = std::vector<core::node_capacity>{node("n0", 2, 4 * gib, 0)};
std::string const two_cpu_node = "cpus=2 memory=4g gpus=0 nodes=1";
std::string const two_cpu_claim = "limit=2 cpus=2 memory=4g gpus=0 nodes=1";

core::claimed_job started(std::int64_t id)
{
    auto j = job(id);
    j.started = true;
    return j;
}

bool has(std::vector<std::string> const& lines, std::string const& prefix)
{
    return std::ranges::any_of(lines, [&](auto const& l) { return l.starts_with(prefix); });
}

std::string text(std::vector<std::string> const& lines)
{
    std::string out;
    for (auto const& l : lines) out += "\n  " + l;
    return out;
}

// Feeds the steps without checking what they emit.
void setup(harness& h, std::vector<step> const& steps)
{
    for (auto const& s : steps) h.feed(s.at, s.event(h));
}

// Jobs 1 and 2 run on the two CPUs (claimed at 1, started by the claim); the first claim took
// 0.6 s, the lease is 40 s (a wait limit of 10 s).
std::vector<step> two_running(bool leased = true)
{
    auto steps = opening(two_cpu_node, two_cpu_claim);
    if (leased)
        steps.push_back(
            {0.5, reply<worker::heartbeat_answered>("heartbeat", std::optional<double>(40)), {}});
    steps.push_back({1, claimed({started(1), started(2)}), {}});
    steps.push_back({1.01, requirements(1, needs(1)), {}});
    steps.push_back({1.02, done("start_job 1"), {}});
    steps.push_back({1.02, done("start_job 2"), {}});
    steps.push_back({1.03, spawned(1), {}});
    steps.push_back({1.03, spawned(2), {}});
    return steps;
}

// ... then job 1 ends at 2 (the first job measured): its completion goes with a claim of one
// free CPU and one queued job, answered at 2.1 with jobs 3 (placed, spawned) and 4 (queued).
std::vector<std::string> queue_job_4(harness& h)
{
    setup(h, two_running());
    auto const exit = h.feed(2, exit_of(1, exited(0))(h));
    BOOST_TEST(has(exit, "complete_and_claim 1#1 completed rc=0; claim_jobs limit=2 cpus=2 "
                         "memory=4g gpus=0 nodes=1"),
               text(exit));
    auto const answer = h.feed(2.1, exchanged({1}, {started(3), started(4)})(h));
    BOOST_TEST(has(answer, "spawn 3#1"), text(answer));
    BOOST_TEST(has(answer, "debug: job 4: queued for free resources"), text(answer));
    BOOST_TEST(!has(answer, "hand_back"), text(answer));
    BOOST_TEST(!has(answer, "start_job"), text(answer));
    h.feed(2.2, spawned(3)(h));
    BOOST_TEST(h.fsm().ledger().reported == 1u);
    return answer;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_claim_ahead)

BOOST_AUTO_TEST_CASE(a_freed_slot_starts_the_queued_job_without_a_round_trip)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    auto const exit = h.feed(3, exit_of(2, exited(0))(h));
    BOOST_TEST(has(exit, "spawn 4#1 on n0 cpus=1"), text(exit));  // in the exit's own event
    BOOST_TEST(!has(exit, "start_job 4"), text(exit));              // the claim started it
    BOOST_TEST(!h.fsm().check_invariants());
}

BOOST_AUTO_TEST_CASE(the_queue_is_bounded_by_the_running_jobs)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    // 2 running, 1 queued: at most one more may be asked for, and it fits the node alone
    auto const claims = h.count("claim_jobs");
    auto const more = h.feed(2.3, tick()(h));
    if (h.count("claim_jobs") > claims)
        BOOST_TEST(has(more, "claim_jobs limit=1 cpus=2 memory=4g"), text(more));
    auto const answer = h.feed(2.4, claimed({started(5), started(6)})(h));
    // the server sent two for a limit of one: the extra goes back at once
    BOOST_TEST(has(answer, "hand_back"), text(answer));
    BOOST_TEST(h.fsm().live_jobs() <= 5u);
}

BOOST_AUTO_TEST_CASE(an_empty_claim_for_the_queue_is_not_repeated_until_progress)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    h.feed(2.3, tick()(h));
    auto const claims = h.count("claim_jobs");
    BOOST_TEST_REQUIRE(claims >= 2u);  // the first claim, and one for the queue after job 4
    h.feed(2.4, claimed({})(h));
    // nothing is ready: no claim while the node is full, however long (beats answered)
    for (double t = 3; t < 9; t += 0.5) {
        auto const out = h.feed(t, tick()(h));
        if (has(out, "heartbeat"))
            h.feed(t + 0.01, reply<worker::heartbeat_answered>("heartbeat",
                                                               std::optional<double>(40))(h));
    }
    BOOST_TEST(h.count("claim_jobs") == claims);
    // a job ends: the queued one starts, and its completion goes with a claim again
    auto const exit = h.feed(9, exit_of(2, exited(0))(h));
    BOOST_TEST(has(exit, "spawn 4#1"), text(exit));
    BOOST_TEST(has(exit, "complete_and_claim 2#1"), text(exit));
}

BOOST_AUTO_TEST_CASE(a_short_answer_leaves_the_next_claim_to_the_next_completion)
{
    // a chain: the exchange asks for two (one free CPU, one for the queue), one is ready
    harness h(test_config(), two_cpus);
    setup(h, two_running());
    h.feed(2, exit_of(1, exited(0))(h));
    auto const answer = h.feed(2.1, exchanged({1}, {started(3)})(h));
    BOOST_TEST(has(answer, "spawn 3#1"), text(answer));
    BOOST_TEST(!has(answer, "claim_jobs"), text(answer));  // nothing more is ready
    h.feed(2.2, spawned(3)(h));
    auto const idle = h.feed(2.5, tick()(h));
    BOOST_TEST(!has(idle, "claim_jobs"), text(idle));
    auto const exit = h.feed(3, exit_of(3, exited(0))(h));
    BOOST_TEST(has(exit, "complete_and_claim 3#1 completed rc=0; claim_jobs"), text(exit));
}

BOOST_AUTO_TEST_CASE(a_drain_hands_the_queued_jobs_back)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    auto const term = h.feed(2.5, sig(SIGTERM)(h));
    BOOST_TEST(has(term, "info: job 4: handed back: the worker is stopping"), text(term));
    BOOST_TEST(has(term, "hand_back 4"), text(term));
    BOOST_TEST(has(term, "signal_job 2 SIGTERM"), text(term));
    h.feed(2.6, done("hand_back 4")(h));
    BOOST_TEST(h.fsm().ledger().handed_back >= 1u);
    BOOST_TEST(!h.fsm().check_invariants());
}

BOOST_AUTO_TEST_CASE(a_lost_lease_hands_the_queued_jobs_back)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    // the claim that went out after job 4 was queued is refused: the node is inactive, so the
    // heartbeat goes at once and its 409 says the lease is gone
    auto const beat =
        h.feed(2.3, refused("claim_jobs", 409, "claim: compute node 9 is inactive")(h));
    BOOST_TEST(has(beat, "heartbeat"), text(beat));
    auto const lost = h.feed(
        2.4, refused("heartbeat", 409, "heartbeat: compute node 9 is inactive")(h));
    BOOST_TEST(has(lost, "hand_back 4"), text(lost));
}

BOOST_AUTO_TEST_CASE(a_queued_job_waits_at_most_a_quarter_of_the_lease)
{
    harness h(test_config(), two_cpus);
    queue_job_4(h);
    // jobs 2 and 3 run on; beats keep the lease; 10 s after it was queued job 4 goes back
    for (double t = 3; t < 12; t += 1) {
        auto const out = h.feed(t, tick()(h));
        if (has(out, "heartbeat"))
            h.feed(t + 0.01, reply<worker::heartbeat_answered>("heartbeat",
                                                               std::optional<double>(40))(h));
        BOOST_TEST(!has(out, "hand_back 4"), "at " << t << text(out));
    }
    auto const late = h.feed(12.2, tick()(h));
    BOOST_TEST(has(late, "hand_back 4"), text(late));
}

BOOST_AUTO_TEST_CASE(no_lease_no_queue)
{
    harness h(test_config(), two_cpus);
    setup(h, two_running(false));
    auto const exit = h.feed(2, exit_of(1, exited(0))(h));
    // one free CPU, nothing ahead
    BOOST_TEST(has(exit, "complete_and_claim 1#1 completed rc=0; claim_jobs limit=1 cpus=1 "
                         "memory=4g"),
               text(exit));
    auto const answer = h.feed(2.1, exchanged({1}, {started(3), started(4)})(h));
    BOOST_TEST(has(answer, "warning: claim: the server returned 2 jobs for a limit of 1"),
               text(answer));
    BOOST_TEST(!has(answer, "queued"), text(answer));
}

BOOST_AUTO_TEST_CASE(what_ends_while_an_exchange_is_out_goes_in_the_next)
{
    harness h(test_config(), two_cpus);
    setup(h, two_running());
    auto const first = h.feed(2, exit_of(1, exited(0))(h));
    BOOST_TEST(has(first, "complete_and_claim 1#1"), text(first));
    auto const second = h.feed(2.05, exit_of(2, exited(0))(h));
    BOOST_TEST(!has(second, "complete"), text(second));  // one exchange at a time
    auto const answer = h.feed(2.1, exchanged({1}, {started(3)})(h));
    BOOST_TEST(has(answer, "spawn 3#1"), text(answer));
    BOOST_TEST(has(answer, "complete_and_claim 2#1 completed rc=0; claim_jobs"), text(answer));
}

BOOST_AUTO_TEST_CASE(a_server_without_the_route_gets_completions_and_claims_apart)
{
    harness h(test_config(), two_cpus);
    setup(h, two_running());
    h.feed(2, exit_of(1, exited(0))(h));
    auto const out = h.feed(2.1, refused("complete_and_claim", 404, "not found")(h));
    BOOST_TEST(has(out, "warning: server: no complete_and_claim_jobs (HTTP 404); completions and "
                        "claims go separately"),
               text(out));
    BOOST_TEST(has(out, "complete_jobs 1#1 completed rc=0"), text(out));
    BOOST_TEST(has(out, "claim_jobs limit="), text(out));
    h.feed(2.2, reply<worker::jobs_reported>("complete_jobs", std::vector<std::int64_t>{1},
                                             std::vector<worker::rejected_report>{})(h));
    h.feed(2.3, claimed({})(h));
    auto const next = h.feed(3, exit_of(2, exited(0))(h));
    BOOST_TEST(has(next, "complete_jobs 2#1"), text(next));
    BOOST_TEST(!has(next, "complete_and_claim"), text(next));
    h.feed(3.1, reply<worker::jobs_reported>("complete_jobs", std::vector<std::int64_t>{2},
                                             std::vector<worker::rejected_report>{})(h));
    BOOST_TEST(h.fsm().ledger().reported == 2u);
}

BOOST_AUTO_TEST_CASE(a_lost_answer_sends_the_same_exchange_again)
{
    harness h(test_config(), two_cpus);
    setup(h, two_running());
    h.feed(2, exit_of(1, exited(0))(h));
    auto const id = h.req("complete_and_claim");
    auto const lost =
        h.feed(2.1, worker::request_failed{id, http_failure::timeout, 0, "POST /x: timeout"});
    BOOST_TEST(has(lost, "journal_append"), text(lost));  // the completion is on disk meanwhile
    auto const again = h.feed(3.2, tick()(h));
    BOOST_TEST(has(again, "complete_and_claim 1#1 completed rc=0; claim_jobs"), text(again));
    // answered as the first would have been: job 3 comes (under the same key), 1 is reported
    BOOST_TEST((core::request_of(h.last().front()) == std::optional<core::request_id>(id)));
    auto const answer =
        h.feed(3.3, worker::completed_and_claimed{id, {id, {1}, {}}, {id, {started(3)}}, {}});
    BOOST_TEST(has(answer, "journal_remove"), text(answer));
    BOOST_TEST(has(answer, "spawn 3#1"), text(answer));
    BOOST_TEST(h.fsm().ledger().reported == 1u);
}

BOOST_AUTO_TEST_CASE(a_refused_claim_keeps_the_completions)
{
    harness h(test_config(), two_cpus);
    setup(h, two_running());
    h.feed(2, exit_of(1, exited(0))(h));
    auto const id = h.req("complete_and_claim");
    auto const out = h.feed(
        2.1, worker::completed_and_claimed{
                 id, {id, {1}, {}}, {id, {}},
                 worker::claim_refusal{409, "claim: compute node 9 is inactive"}});
    BOOST_TEST(has(out, "error: claim: refused: claim: compute node 9 is inactive"), text(out));
    BOOST_TEST(h.fsm().ledger().reported == 1u);
}

BOOST_AUTO_TEST_CASE(a_torc_server_gets_no_exchange)
{
    auto c = test_config();
    c.server.extensions = false;
    harness h(c, two_cpus);
    auto steps = opening(two_cpu_node, two_cpu_claim,
                         "arm_timer 5.4", false, false);
    setup(h, steps);
    h.feed(1, claimed({job(1), job(2)})(h));
    h.feed(1.01, requirements(1, needs(1))(h));
    h.feed(1.02, done("start_job 1")(h));
    h.feed(1.03, spawned(1)(h));
    auto const exit = h.feed(2, exit_of(1, exited(0))(h));
    BOOST_TEST(has(exit, "complete_job 1#1"), text(exit));
    BOOST_TEST(!has(exit, "complete_and_claim"), text(exit));
}

BOOST_AUTO_TEST_SUITE_END()
