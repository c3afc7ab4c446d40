// worker_fsm, reporting: one batch in flight at a time, complete_job per job without the
// extensions (or when the server has no batch endpoint), refused results, the journal while
// the server is down, re-sending when it answers, and the server counted lost.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

using rejections = std::vector<worker::rejected_report>;
make_event batch_reply(std::vector<std::int64_t> ids, rejections rejected = {})
{
    return reply<worker::jobs_reported>("complete_jobs", ids, rejected);
}
make_event handler_is(std::int64_t id, std::vector<core::failure_rule> rules)
{
    return reply<worker::failure_handler_read>("read_failure_handler " + std::to_string(id),
                                               core::failure_handler{id, rules});
}

core::worker_config no_extensions()
{
    auto c = test_config();
    c.server.extensions = false;
    c.poll.long_poll_seconds = 30;  // ignored without the extensions
    return c;
}

core::worker_config lost_after(double window)
{
    auto c = test_config();
    c.poll.interval_seconds = 3600;
    c.server.retry_window_seconds = window;
    return c;
}

auto const start = opening(n0_node, n0_claim);
auto const start_slow = opening(n0_node, n0_claim, "arm_timer 3600.4");
auto const two_jobs = start + launched(1, job(42), needs(1)) + launched(1.1, job(43), std::nullopt);
std::string const claim7 = "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1";
std::string const refused_text = "connect 127.0.0.1:8080: Connection refused";
std::string down_line(int failure, std::string delay)
{
    return "warning: server: POST /x: " + refused_text + " (connect, failure " +
           std::to_string(failure) + "); retrying in " + delay + " s";
}
std::string const done42 = "info: job 42: completed rc=0 (exited with 0)";
std::string const done43 = "info: job 43: completed rc=0 (exited with 0)";

// The server stops answering at 1.5 (the claim out since 1.01 fails); with a window of 10 s it
// counts as lost at 11.5 while job 42 still runs.
std::vector<step> const losing_the_server = std::vector<step>{
    {1.5, down("claim_jobs"), {down_line(1, "0.5"), "arm_timer 2"}},
    {2, tick(), {claim7, "arm_timer 11.5"}},
    {2.1, down("claim_jobs"), {down_line(2, "1"), "arm_timer 3.1"}},
    {3.1, tick(), {claim7, "arm_timer 11.5"}},
    {3.2, down("claim_jobs"), {down_line(3, "2"), "arm_timer 5.2"}},
    {5.2, tick(), {claim7, "arm_timer 11.5"}},
    {5.3, down("claim_jobs"), {down_line(4, "4"), "arm_timer 9.3"}},
    {9.3, tick(), {claim7, "arm_timer 11.5"}},
    {9.4, down("claim_jobs"), {down_line(5, "8")}},
    {11.5, tick(),
     {"error: server: no answer for 10 s (server.retry_window_seconds); results are journaled",
      "arm_timer 17.4"}},
};

std::vector<scenario> const scenarios{
    {"one batch at a time: completions queue behind the batch in flight", test_config(),
     n0_pool(),
     two_jobs + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2.1, exit_of(43, exited(0)), {done43}},
         {2.2, batch_reply({42}), {"complete_jobs 43#1 completed rc=0"}},
         {2.3, batch_reply({43}), {}},
     },
     [](harness& h) { BOOST_TEST(h.fsm().ledger().reported == 2u); }},
    {"without the extensions: complete_job per job and claims that do not wait",
     no_extensions(), n0_pool(),
     opening(n0_node, n0_claim, "arm_timer 5.4", false, false) + launched(1, job(42), needs(1)) +
         launched(1.1, job(43), std::nullopt) + std::vector<step>{
             {2, exit_of(42, exited(0)), {done42, "complete_job 42#1 completed rc=0"}},
             {2.1, exit_of(43, exited(0)), {done43, "complete_job 43#1 completed rc=0"}},
             {2.2, done("complete_job 43"), {}},
             {2.3, done("complete_job 42"), {}},
         },
     [](harness& h) { BOOST_TEST(h.fsm().ledger().reported == 2u); }},
    {"a server without batch completion (404): every queued result goes per job",
     test_config(), n0_pool(),
     two_jobs + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2.05, exit_of(43, exited(0)), {done43}},
         {2.1, refused("complete_jobs", 404, "POST /workflows/5/batch_complete_jobs: 404"),
          {"warning: server: no batch completion (HTTP 404); reporting each job with "
           "complete_job",
           "complete_job 42#1 completed rc=0", "complete_job 43#1 completed rc=0"}},
     }},
    {"per-entry refusals and entries missing from the batch reply are logged", test_config(),
     n0_pool(),
     two_jobs + launched(1.2, job(44), std::nullopt) + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2, exit_of(43, exited(0)), {done43}},
         {2, exit_of(44, exited(0)), {"info: job 44: completed rc=0 (exited with 0)"}},
         {2.1, batch_reply({42}), {"complete_jobs 43#1 completed rc=0, 44#1 completed rc=0"}},
         {2.2, batch_reply({}, {{43, "run_id 1 does not match 2"}}),
          {"error: job 43: its result was refused: run_id 1 does not match 2",
           "error: job 44: its result was refused: absent from the server's reply"}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().reported == 1u);
         BOOST_TEST(h.fsm().ledger().rejected == 2u);
     }},
    {"a batch refused as a whole (4xx) drops its results with an error", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2.1, refused("complete_jobs", 400, "POST /workflows/5/batch_complete_jobs: 400"),
          {"error: job 42: its result was refused: POST /workflows/5/batch_complete_jobs: 400"}},
     },
     [](harness& h) { BOOST_TEST(h.fsm().ledger().rejected == 1u); }},
    {"a refused complete_job is logged", no_extensions(), n0_pool(),
     opening(n0_node, n0_claim, "arm_timer 5.4", false, false) + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_job 42#1 completed rc=0"}},
         {2.1, refused("complete_job 42", 422, "POST /jobs/42/complete_job/completed/1: 422"),
          {"error: job 42: its result was refused: POST /jobs/42/complete_job/completed/1: "
           "422"}},
     }},
    {"server down: the result is journaled, re-sent with backoff, sent at once when the "
     "server answers, then removed from the journal",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2.1, down("complete_jobs"),
          {down_line(1, "0.5"), "journal_append 42#1 completed rc=0", "arm_timer 2.6"}},
         {2.6, tick(), {"complete_jobs 42#1 completed rc=0", "arm_timer 5.4"}},
         {2.7, down("complete_jobs"), {down_line(2, "1"), "arm_timer 3.7"}},
         {3.0, claimed({}),
          {"info: server: answering again; re-sending 1 requests now",
           "complete_jobs 42#1 completed rc=0", "claim_jobs " + n0_claim, "arm_timer 5.4"}},
         {3.1, batch_reply({42}), {"journal_remove 42#1"}},
     }},
    {"server down: a result queued behind the failed batch is journaled too, then sent in the "
     "next batch",
     test_config(), n0_pool(),
     two_jobs + std::vector<step>{
         {2, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {2.1, down("complete_jobs"),
          {down_line(1, "0.5"), "journal_append 42#1 completed rc=0", "arm_timer 2.6"}},
         {2.2, exit_of(43, exited(0)), {done43, "journal_append 43#1 completed rc=0"}},
         {2.6, tick(), {"complete_jobs 42#1 completed rc=0", "arm_timer 5.4"}},
         {2.7, batch_reply({42}),
          {"info: server: answering again", "journal_remove 42#1",
           "complete_jobs 43#1 completed rc=0"}},
         {2.8, batch_reply({43}), {"journal_remove 43#1"}},
     }},
    {"a refused record of a retried attempt is logged", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)), {"..."}},
         {2.1, handler_is(2, {{{1}, false, std::nullopt, 3}}), {"retry_job 42 max_retries=3"}},
         {2.2, done("retry_job 42"),
          {"info: job 42: retried after rc=1 (attempt 1 of 3)", "record_result 42#1 failed rc=1"}},
         {2.3, down("record_result 42"),
          {down_line(1, "0.5"), "journal_append record 42#1 failed rc=1", "arm_timer 2.8"}},
         {2.8, tick(), {"record_result 42#1 failed rc=1", "arm_timer 5.4"}},
         {2.9, refused("record_result 42", 422, "POST /results: 422"),
          {"info: server: answering again",
           "error: job 42: the record of attempt 1 was refused: POST /results: 422",
           "journal_remove record 42#1"}},
     }},
    {"server lost: no more claims, the running job finishes, its result is journaled, exit 1",
     lost_after(10), n0_pool(),
     start_slow + launched(1, job(42), needs(1)) + losing_the_server + std::vector<step>{
         {12, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {12.1, down("complete_jobs"),
          {down_line(1, "0.5"), "journal_append 42#1 completed rc=0",
           "error: job 42: its result is journaled, not reported",
           "info: worker: exit 1 (server lost)", "exit 1"}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().journaled == 1u);
         BOOST_TEST((h.fsm().reason() == core::stop_reason::server_lost));
     }},
    {"a signal during the server-lost drain stops the running jobs", lost_after(10),
     n0_pool(),
     start_slow + launched(1, job(42), needs(1)) + losing_the_server + std::vector<step>{
         {11.6, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping the running jobs", "signal_job 42 SIGTERM"}},
         {11.7, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 terminated rc=143"}},
     }},
    {"server lost, then back: the report goes through and claiming resumes", lost_after(10),
     n0_pool(),
     start_slow + launched(1, job(42), needs(1)) + losing_the_server + std::vector<step>{
         {12, exit_of(42, exited(0)), {done42, "complete_jobs 42#1 completed rc=0"}},
         {12.1, batch_reply({42}),
          {"info: server: answering again; re-sending 1 requests now",
           "info: worker: claiming resumes", "claim_jobs " + n0_claim, "arm_timer 3600.4"}},
     },
     [](harness& h) {
         BOOST_TEST((h.fsm().stage() == core::worker_stage::running));
         BOOST_TEST(h.fsm().ledger().reported == 1u);
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_reporting)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
