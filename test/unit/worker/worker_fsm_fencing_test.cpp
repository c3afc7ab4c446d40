// worker_fsm, fencing: a 409 on a job transition means the job is not this worker's any more
// (another node holds it, it moved on, or this node was deactivated). The job is dropped with a
// warning that quotes the server's message (which names the holder): not handed back, not
// retried, not reported again; a next attempt of it that a claim returns is this worker's and runs.
// And a claim re-sent after a lost reply keeps its request id, which the wire sends as the claim's
// request_key.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

auto const start = opening(n0_node, n0_claim);

std::string const held_by_other =
    "PUT /jobs/42/start_job/1/9: 409 start_job: job 42 is held by compute node 3 on attempt 1, "
    "not by compute node 9";

void fenced_off_is(harness& h, std::size_t n)
{
    auto const& l = h.fsm().ledger();
    BOOST_TEST(l.fenced_off == n);
    BOOST_TEST(l.handed_back == 0u);
    BOOST_TEST(l.rejected == 0u);
    BOOST_TEST(l.claimed == l.ended() + h.fsm().live_jobs());
    BOOST_TEST(h.fsm().pool().idle());
}

make_event handler_is(std::int64_t id, std::vector<core::failure_rule> rules)
{
    return reply<worker::failure_handler_read>("read_failure_handler " + std::to_string(id),
                                               core::failure_handler{id, rules});
}

// Job 42 (failure handler 2) claimed, started and exited with 1 on attempt 1.
void attempt_1_failed(harness& h)
{
    for (auto const& st : start) h.feed(st.at, st.event(h));
    h.feed(1, worker::jobs_claimed{h.req("claim_jobs"), {job(42, 1, 2)}});
    h.feed(1.1, worker::requirements_read{h.req("read_requirements 1"), needs(1)});
    h.feed(1.2, worker::request_done{h.req("start_job 42")});
    h.feed(1.3, worker::job_spawned{42});
    h.feed(2, worker::job_exited{42, exited(1), std::nullopt, std::nullopt, "", {}});
}

std::vector<scenario> const scenarios{
    {"start_job fenced off: dropped, its reservation released, not handed back", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, refused("start_job 42", 409, held_by_other),
          {"warning: job 42: not this worker's any more; dropped: " + held_by_other}},
     },
     [](harness& h) { fenced_off_is(h, 1); }},
    {"a start_job refusal that is not the fence still hands the job back", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)), {"..."}},
         {1.2, refused("start_job 42", 422, "422 run_id"),
          {"error: job 42: handed back: start_job refused: 422 run_id", "hand_back 42"}},
     }},
    {"hand_back fenced off: dropped without the 'stays pending' error", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1, 0, 5)), {"..."}},
         {1.2, refused("hand_back 42", 409, "manage_status_change: job 42 is held by node 3"),
          {"warning: job 42: not this worker's any more; dropped: manage_status_change: job 42 "
           "is held by node 3"}},
     },
     [](harness& h) { fenced_off_is(h, 1); }},
    {"a completion fenced off in a batch: a warning, the job leaves, nothing is re-sent",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {2.1,
          reply<worker::jobs_reported>(
              "complete_jobs", std::vector<std::int64_t>{},
              std::vector<worker::rejected_report>{
                  {42, "batch_complete_jobs: job 42 is held by compute node 3 on attempt 1, not "
                       "by compute node 9", 409}}),
          {"warning: job 42: not this worker's any more; result dropped: batch_complete_jobs: "
           "job 42 is held by compute node 3 on attempt 1, not by compute node 9"}},
     },
     [](harness& h) {
         fenced_off_is(h, 1);
         BOOST_TEST(h.fsm().ledger().reported == 0u);
     }},
    {"retry fenced off: dropped, not reported as failed", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)), {"..."}},
         {2.1, handler_is(2, {{{1}, false, std::nullopt, 3}}), {"retry_job 42 max_retries=3"}},
         {2.2, refused("retry_job 42", 409, "retry: job 42 is held by compute node 3"),
          {"warning: job 42: not this worker's any more; dropped: retry: job 42 is held by "
           "compute node 3"}},
     },
     [](harness& h) { fenced_off_is(h, 1); }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_fencing)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

// The reply of a claim was lost (the connection dropped after the server committed it): the claim
// is re-sent under the same request id, so the wire sends the same request_key and the server
// answers with the jobs the first attempt took; they then start as usual.
BOOST_AUTO_TEST_CASE(a_claim_resent_after_a_lost_reply_keeps_its_key)
{
    harness h(test_config(), n0_pool());
    for (auto const& st : start) h.feed(st.at, st.event(h));
    auto claim_id = [&] {
        for (auto const& a : h.last())
            if (std::holds_alternative<worker::claim_jobs>(a)) return core::request_of(a);
        return std::optional<core::request_id>{};
    };
    auto const first = claim_id();
    BOOST_TEST_REQUIRE(first.has_value());
    h.feed(1, worker::request_failed{*first, http_failure::reset, 0,
                                     "POST /workflows/5/claim_jobs_based_on_resources/8: reset"});
    BOOST_TEST(!claim_id().has_value());  // not before the backoff
    h.feed(2, worker::tick{});
    auto const again = claim_id();
    BOOST_TEST_REQUIRE(again.has_value());
    BOOST_TEST(static_cast<std::uint64_t>(*again) == static_cast<std::uint64_t>(*first));
    auto const got = h.feed(2.1, worker::jobs_claimed{*again, {job(42)}});
    // and, the reset being ambiguous, the worker then reads what the server holds for it
    BOOST_TEST(lines(got) ==
               lines({"info: server: answering again", "read_requirements 1", "read_held_jobs"}));
    BOOST_TEST(h.fsm().ledger().claimed == 1u);
}

// Reconciliation hands back a job it finds held but unknown here; that hand-back's answer is
// lost (the server may have applied it), and before it is re-sent a claim hands the same job to
// this worker again, already running. Re-sent, the hand-back would return the new holding (same
// node, same attempt) while its process runs: it is dropped instead.
BOOST_AUTO_TEST_CASE(a_hand_back_of_an_earlier_holding_is_not_resent)
{
    harness h(test_config(), n0_pool());
    for (auto const& st : start) h.feed(st.at, st.event(h));
    h.feed(1, worker::request_failed{h.req("claim_jobs"), http_failure::reset, 0, "reset"});
    h.feed(2, worker::tick{});
    auto const quiet = h.feed(2.1, worker::jobs_claimed{h.req("claim_jobs"), {}});
    BOOST_TEST(lines(quiet).find("read_held_jobs") != std::string::npos);
    auto const found = h.feed(
        2.2, worker::held_jobs_read{h.req("read_held_jobs"), {{42, "running", 1}}});
    BOOST_TEST_REQUIRE(lines(found).find("hand_back 42") != std::string::npos);
    h.feed(2.3, worker::request_failed{h.req("hand_back 42"), http_failure::reset, 0, "lost"});
    auto j = job(42);
    j.started = true;
    // The server answers again: what waits is re-sent now, but not the hand-back.
    auto const claimed = h.feed(2.4, worker::jobs_claimed{h.req("claim_jobs"), {j}});
    BOOST_TEST(lines(claimed).find("hand_back 42") == std::string::npos, lines(claimed));
    auto const placed = h.feed(2.5, worker::requirements_read{h.req("read_requirements 1"), needs(1)});
    BOOST_TEST(lines(placed).find("start_job 42") != std::string::npos);
    for (double t = 3; t <= 40; t += 1) {
        auto const later = h.feed(t, worker::tick{});
        BOOST_TEST(lines(later).find("hand_back 42") == std::string::npos, "at " << t);
    }
    BOOST_TEST(h.fsm().ledger().claimed == 1u);
}

// With lost_lease_policy finish the lease sweep put a failed job's attempt 1 back as attempt 2,
// and a claim of the fresh node took attempt 2 (started) before the answer to the retry of
// attempt 1 came: that answer is the fence's 409. Attempt 1 is dropped (no record, no recovery
// script); attempt 2 is this worker's and runs.
BOOST_AUTO_TEST_CASE(a_retry_fenced_off_after_a_claim_took_the_next_attempt)
{
    harness h(test_config(), n0_pool());
    attempt_1_failed(h);
    auto const asked = h.feed(2.1, worker::failure_handler_read{h.req("read_failure_handler 2"),
                                                                {2, {{{1}, false, "fix", 3}}}});
    BOOST_TEST_REQUIRE(lines(asked).find("retry_job 42") != std::string::npos, lines(asked));
    auto next = job(42, 1, 2, 2);
    next.started = true;
    h.feed(2.2, worker::jobs_claimed{h.req("claim_jobs"), {next}});
    std::string const why = "retry: job 42 is on attempt 2 (held by compute node 9), not on "
                            "attempt 1";
    auto const fenced = h.feed(2.3, worker::request_failed{h.req("retry_job 42"),
                                                           http_failure::http_4xx, 409, why});
    auto const shown = lines(fenced);
    BOOST_TEST(shown.find("warning: job 42: not this worker's any more; dropped: " + why) !=
                   std::string::npos,
               shown);
    BOOST_TEST(shown.find("run_recovery") == std::string::npos, shown);
    BOOST_TEST(shown.find("record_result") == std::string::npos, shown);
    BOOST_TEST(shown.find("start_job 42") != std::string::npos, shown);  // attempt 2, held here
    auto const& l = h.fsm().ledger();
    BOOST_TEST(l.fenced_off == 1u);
    BOOST_TEST(l.claimed == 2u);
    BOOST_TEST(h.fsm().live_jobs() == 1u);
}

// The same, with the claim's answer first, while the failure handler is still being read: the
// server ended attempt 1, so it is dropped at once (no retry is sent for it), and attempt 2 runs.
BOOST_AUTO_TEST_CASE(a_claim_of_the_next_attempt_before_the_failure_was_decided)
{
    harness h(test_config(), n0_pool());
    attempt_1_failed(h);
    auto next = job(42, 1, 2, 2);
    next.started = true;
    auto const shown = lines(h.feed(2.1, worker::jobs_claimed{h.req("claim_jobs"), {next}}));
    BOOST_TEST(shown.find("warning: job 42: not this worker's any more; dropped: a claim "
                          "returned its attempt 2, so attempt 1 is over on the server") !=
                   std::string::npos,
               shown);
    BOOST_TEST(shown.find("spawn 42#2") != std::string::npos, shown);  // the claim started it
    auto const read = lines(h.feed(2.2, worker::failure_handler_read{
                                            h.req("read_failure_handler 2"),
                                            {2, {{{1}, false, "fix", 3}}}}));
    BOOST_TEST(read.find("retry_job") == std::string::npos, read);
    BOOST_TEST(h.fsm().ledger().fenced_off == 1u);
    BOOST_TEST(h.fsm().ledger().claimed == 2u);
    BOOST_TEST(h.fsm().live_jobs() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
