// worker_fsm, job life: how an exit becomes a result (status, return code, record), output
// files, failure handlers (retry with the failed attempt's record kept, max_retries, match-all
// rules, pending_failed), runtime and memory enforcement, and events about unknown jobs.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

make_event handler_is(std::int64_t id, std::vector<core::failure_rule> rules)
{
    return reply<worker::failure_handler_read>("read_failure_handler " + std::to_string(id),
                                               core::failure_handler{id, rules});
}

core::failure_rule rule(std::vector<int> codes, std::uint32_t max_retries,
                        std::optional<std::string> script = std::nullopt, bool all = false)
{
    return {std::move(codes), all, std::move(script), max_retries};
}
core::claimed_job with_outputs(core::claimed_job j)
{
    j.output_file_ids = {11, 12};
    return j;
}

// Long polls and status checks out of the way for scenarios that let minutes pass.
core::worker_config slow_polls(std::optional<double> runtime_factor = std::nullopt)
{
    auto c = test_config();
    c.poll.interval_seconds = 3600;
    c.limits.runtime_factor = runtime_factor;
    return c;
}

core::worker_config enforcing_memory()
{
    auto c = test_config();
    c.limits.enforce_memory = true;
    return c;
}

auto const start = opening(n0_node, n0_claim);
auto const start_pending_failed = opening(n0_node, n0_claim, "arm_timer 5.4", true);
auto const start_slow = opening(n0_node, n0_claim, "arm_timer 3600.4");
std::string const retry_refusal = "POST /jobs/42/retry/1: 422 attempt 1 >= max_retries 1";

std::vector<scenario> const scenarios{
    {"exit 0 with output files: checked before the report", test_config(), n0_pool(),
     start + launched(1, with_outputs(job(42)), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "check_outputs 42 files=11,12"}},
         {2.1, ev(worker::outputs_checked{42, {}}), {"complete_jobs 42#1 completed rc=0"}},
     }},
    {"missing output files turn the attempt into failed with rc 1", test_config(), n0_pool(),
     start + launched(1, with_outputs(job(42)), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "check_outputs 42 files=11,12"}},
         {2.1, ev(worker::outputs_checked{42, {"out/a.txt", "out/b.txt"}}),
          {"warning: job 42: failed rc=1 (missing output files: out/a.txt, out/b.txt)",
           "complete_jobs 42#1 failed rc=1"}},
     }},
    {"a matching rule retries: the job goes back to ready, the failed attempt keeps its record",
     test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)),
          {"warning: job 42: failed rc=1 (exited with 1)", "read_failure_handler 2"}},
         {2.1, handler_is(2, {rule({1}, 3, "bash fix.sh")}), {"retry_job 42 max_retries=3"}},
         {2.2, done("retry_job 42"),
          {"info: job 42: retried after rc=1 (attempt 1 of 3)",
           "run_recovery 42#1 rc=1: bash fix.sh",
           "record_result 42#1 failed rc=1"}},
         {2.3, done("record_result 42"), {}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().retried == 1u);
         BOOST_TEST(h.fsm().live_jobs() == 0u);
     }},
    {"the last attempt allowed by max_retries is reported failed", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2, 3), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)),
          {"warning: job 42: failed rc=1 (exited with 1)", "read_failure_handler 2"}},
         {2.1, handler_is(2, {rule({1}, 3, "bash fix.sh")}),
          {"info: job 42: attempt 3 reached max_retries=3; failed",
           "complete_jobs 42#3 failed rc=1"}},
     }},
    {"no listed code: the first match-all rule applies", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(5)),
          {"warning: job 42: failed rc=5 (exited with 5)", "read_failure_handler 2"}},
         {2.1, handler_is(2, {rule({2}, 3), rule({}, 2, std::nullopt, true)}),
          {"retry_job 42 max_retries=2"}},
         {2.2, done("retry_job 42"),
          {"info: job 42: retried after rc=5 (attempt 1 of 2)", "record_result 42#1 failed rc=5"}},
     }},
    {"use_pending_failed: no matching rule gives pending_failed", test_config(), n0_pool(),
     start_pending_failed + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(7)),
          {"warning: job 42: failed rc=7 (exited with 7)", "read_failure_handler 2"}},
         {2.1, handler_is(2, {rule({1}, 3)}),
          {"info: job 42: no failure rule matches rc=7; pending_failed",
           "complete_jobs 42#1 pending_failed rc=7"}},
     }},
    {"use_pending_failed: a job without a handler gives pending_failed", test_config(),
     n0_pool(),
     start_pending_failed + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(7)),
          {"warning: job 42: failed rc=7 (exited with 7)",
           "info: job 42: no failure rule matches rc=7; pending_failed",
           "complete_jobs 42#1 pending_failed rc=7"}},
     }},
    {"an unreadable failure handler: no retry, failed", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)),
          {"warning: job 42: failed rc=1 (exited with 1)", "read_failure_handler 2"}},
         {2.1, refused("read_failure_handler 2", 404, "GET /failure_handlers/2: 404 not found"),
          {"warning: failure handler 2: unread, no retry: GET /failure_handlers/2: 404 not found",
           "complete_jobs 42#1 failed rc=1"}},
     }},
    {"a refused retry reports the attempt failed", test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + std::vector<step>{
         {2, exit_of(42, exited(1)),
          {"warning: job 42: failed rc=1 (exited with 1)", "read_failure_handler 2"}},
         {2.1, handler_is(2, {rule({1}, 3)}), {"retry_job 42 max_retries=3"}},
         {2.2, refused("retry_job 42", 422, retry_refusal),
          {"warning: job 42: retry refused, reported failed: " + retry_refusal,
           "complete_jobs 42#1 failed rc=1"}},
     }},
    {"one handler read serves every job waiting for it, and later ones from the cache",
     test_config(), n0_pool(),
     start + launched(1, job(42, 1, 2), needs(1)) + launched(1.1, job(43, 1, 2), std::nullopt) +
         launched(1.2, job(44, 1, 2), std::nullopt) + std::vector<step>{
             {2, exit_of(42, exited(1)),
              {"warning: job 42: failed rc=1 (exited with 1)", "read_failure_handler 2"}},
             {2, exit_of(43, exited(1)), {"warning: job 43: failed rc=1 (exited with 1)"}},
             {2.1, handler_is(2, {rule({1}, 3)}),
              {"retry_job 42 max_retries=3", "retry_job 43 max_retries=3"}},
             {2.2, exit_of(44, exited(1)),
              {"warning: job 44: failed rc=1 (exited with 1)", "retry_job 44 max_retries=3"}},
         }},
    {"runtime enforcement: SIGTERM at factor x runtime, then rc 152 terminated",
     slow_polls(2.0), n0_pool(),
     start_slow + launched(1, job(42), needs(1, 0, 0, 1, 60.0)) + std::vector<step>{
         {121.03, tick(),
          {"warning: job 42: running longer than 120 s (2 x its runtime of 60 s); stopping it",
           "signal_job 42 SIGTERM", "arm_timer 151.03"}},
         {122, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: terminated rc=152 (killed by SIGTERM (15))",
           "complete_jobs 42#1 terminated rc=152", "arm_timer 3600.4"}},
     }},
    {"runtime enforcement: a job ignoring SIGTERM gets SIGKILL after the grace",
     slow_polls(2.0), n0_pool(),
     start_slow + launched(1, job(42), needs(1, 0, 0, 1, 60.0)) + std::vector<step>{
         {121.03, tick(), {"..."}},
         {151.03, tick(),
          {"warning: job 42: still running after the grace; SIGKILL", "signal_job 42 SIGKILL",
           "arm_timer 3600.4"}},
         {151.1, exit_of(42, killed(SIGKILL)),
          {"warning: job 42: terminated rc=152 (killed by SIGKILL (9))",
           "complete_jobs 42#1 terminated rc=152"}},
     }},
    {"runtime enforcement: a job that exits 0 on the signal is completed", slow_polls(2.0),
     n0_pool(),
     start_slow + launched(1, job(42), needs(1, 0, 0, 1, 60.0)) + std::vector<step>{
         {121.03, tick(), {"..."}},
         {121.5, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0",
           "arm_timer 3600.4"}},
     }},
    {"a job over its memory is killed and failed with rc 137", enforcing_memory(), n0_pool(),
     start + launched(1, job(42), needs(1, gib)) + std::vector<step>{
         {1.5, ev(worker::memory_used{42, gib}), {}},
         {2, ev(worker::memory_used{42, 3 * gib}),
          {"warning: job 42: uses 3.0 GiB, more than its 1.0 GiB; SIGKILL",
           "signal_job 42 SIGKILL"}},
         {2.1, ev(worker::memory_used{42, 4 * gib}), {}},
         {2.2, exit_of(42, killed(SIGKILL)),
          {"warning: job 42: failed rc=137 (killed by SIGKILL (9))",
           "complete_jobs 42#1 failed rc=137"}},
     }},
    {"memory is not enforced without limits.enforce_memory or without a requirement",
     enforcing_memory(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, ev(worker::memory_used{42, 3 * gib}), {}},
         {2.5, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
     }},
    {"memory is not enforced by default", test_config(), n0_pool(),
     start + launched(1, job(42), needs(1, gib)) + std::vector<step>{
         {2, ev(worker::memory_used{42, 3 * gib}), {}},
     }},
    {"events about jobs in another phase are ignored with a warning", test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, spawned(99), {"warning: job 99: spawned while not starting: ignored"}},
         {2, ev(worker::spawn_failed{42, "x"}),
          {"warning: job 42: spawn failure while not starting: ignored"}},
         {2, exit_of(99, exited(0)), {"warning: job 99: exit while not running: ignored"}},
         {2, ev(worker::outputs_checked{42, {}}),
          {"warning: job 42: output check while not checking: ignored"}},
         {2, ev(worker::memory_used{99, 1}),
          {"warning: job 99: memory report while not running: ignored"}},
         {2, done("claim_jobs"),
          {"error: worker: a reply of the wrong kind answers \"claim_jobs limit=7 cpus=7 "
           "memory=16g gpus=4 nodes=1\"",
           "error: claim: refused: wrong reply", "arm_timer 2.5"}},
     }},
};

BOOST_AUTO_TEST_SUITE(worker_fsm_jobs)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

// ---- exit classification and the result record

struct exit_case {
    std::string name;
    core::exit_status status;
    std::string log;
    std::string report;
    std::optional<core::step_exit> step = std::nullopt;  // slurm mode: Slurm's verdict
};

core::step_exit verdict(int rc, core::result_status status, core::step_cause cause,
                        std::string evidence)
{
    return {rc, status, cause, false, std::move(evidence)};
}
std::ostream& operator<<(std::ostream& os, exit_case const& c) { return os << c.name; }

std::vector<exit_case> const exit_cases{
    {"exit 0", exited(0), "info: job 42: completed rc=0 (exited with 0)", "completed rc=0"},
    {"exit 3", exited(3), "warning: job 42: failed rc=3 (exited with 3)", "failed rc=3"},
    {"SIGKILL", killed(SIGKILL), "warning: job 42: failed rc=137 (killed by SIGKILL (9))",
     "failed rc=137"},
    {"SIGSEGV with core", {core::exit_status::kind::signaled, 0, SIGSEGV, true},
     "warning: job 42: failed rc=139 (killed by SIGSEGV (11), core dumped)", "failed rc=139"},
    {"exit 255", exited(255), "warning: job 42: failed rc=255 (exited with 255)",
     "failed rc=255"},
    // slurm mode: the step's verdict replaces srun's own exit
    {"step out of memory", exited(0),
     "warning: job 42: failed rc=137 (exited with 0; slurmstepd: error: Detected 1 oom-kill "
     "event(s) in StepId=3.1)",
     "failed rc=137",
     verdict(137, core::result_status::failed, core::step_cause::out_of_memory,
             "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=3.1")},
    {"step time limit", exited(143),
     "warning: job 42: terminated rc=152 (exited with 143; slurmstepd: error: *** STEP 3.1 ON "
     "n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO TIME LIMIT ***)",
     "terminated rc=152",
     verdict(152, core::result_status::terminated, core::step_cause::time_limit,
             "slurmstepd: error: *** STEP 3.1 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO "
             "TIME LIMIT ***")},
    {"step time limit, job handled the signal and exited 0", exited(0),
     "info: job 42: completed rc=0 (exited with 0; slurmstepd: error: *** STEP 3.1 ON n1 "
     "CANCELLED AT 2026-11-29T17:13:31 DUE TO TIME LIMIT ***)",
     "completed rc=0",
     verdict(0, core::result_status::completed, core::step_cause::time_limit,
             "slurmstepd: error: *** STEP 3.1 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO "
             "TIME LIMIT ***")},
    {"step canceled from outside: terminated, the job's own code", exited(143),
     "warning: job 42: terminated rc=143 (exited with 143; slurmstepd: error: *** STEP 3.1 ON "
     "n1 CANCELLED AT 2026-11-29T17:13:31 ***)",
     "terminated rc=143",
     verdict(143, core::result_status::terminated, core::step_cause::canceled,
             "slurmstepd: error: *** STEP 3.1 ON n1 CANCELLED AT 2026-11-29T17:13:31 ***")},
    {"step out of memory after exit 0 in the grace", exited(0),
     "warning: job 42: failed rc=137 (exited with 0; srun: error: n1: task 0: Out Of Memory)",
     "failed rc=137",
     verdict(137, core::result_status::failed, core::step_cause::out_of_memory,
             "srun: error: n1: task 0: Out Of Memory")},
    {"step exited", exited(3), "warning: job 42: failed rc=3 (exited with 3)", "failed rc=3",
     verdict(3, core::result_status::failed, core::step_cause::exited, "")},
};

BOOST_DATA_TEST_CASE(exit_becomes_a_result, bdata::make(exit_cases), c)
{
    play({c.name, test_config(), n0_pool(),
          start + launched(1, job(42), needs(1)) +
              std::vector<step>{
                  {2, ev(worker::job_exited{42, c.status, std::nullopt, c.step, "", {}}),
                   {c.log, "complete_jobs 42#1 " + c.report}}}});
}

BOOST_AUTO_TEST_CASE(result_record_carries_times_ids_and_usage)
{
    harness h(test_config(), n0_pool());
    for (auto const& st : start + launched(1, job(42, 1, std::nullopt, 2), needs(1)))
        h.feed(st.at, st.event(h));
    core::job_usage const usage{5 * gib, 2 * gib, 180.5, 95.25};
    h.feed(91.03, worker::job_exited{42, exited(0), usage, std::nullopt, "", {}});
    core::worker::complete_jobs const* batch = nullptr;
    for (auto const& a : h.last())
        if (auto const* b = std::get_if<core::worker::complete_jobs>(&a)) batch = b;
    BOOST_TEST_REQUIRE(batch != nullptr);
    BOOST_TEST_REQUIRE(batch->results.size() == 1u);
    auto const& r = batch->results.front();
    BOOST_TEST(r.job_id == 42);
    BOOST_TEST(r.workflow_id == 5);
    BOOST_TEST(r.run_id == 1);
    BOOST_TEST(r.attempt_id == 2u);
    BOOST_TEST(r.compute_node_id == 9);
    BOOST_TEST(r.return_code == 0);
    BOOST_TEST(r.exec_time_minutes == 1.5, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(r.completion_time == unix_t0 + 91.03, boost::test_tools::tolerance(1e-12));
    BOOST_TEST((r.status == core::result_status::completed));
    BOOST_TEST((r.usage == usage));
}

// ---- Torc's rule matching

struct match_case {
    std::string name;
    std::vector<core::failure_rule> rules;
    int rc;
    std::optional<std::size_t> expected;  // index of the matching rule
};
std::ostream& operator<<(std::ostream& os, match_case const& c) { return os << c.name; }

std::vector<match_case> const match_cases{
    {"listed code", {rule({1, 137}, 3)}, 137, 0},
    {"listed code wins over an earlier match-all", {rule({}, 1, {}, true), rule({2}, 3)}, 2, 1},
    {"first match-all when no code is listed", {rule({2}, 3), rule({}, 1, {}, true),
                                                rule({}, 5, {}, true)}, 9, 1},
    {"first of two rules listing the code", {rule({4}, 1), rule({4}, 2)}, 4, 0},
    {"no rule", {rule({2}, 3)}, 9, std::nullopt},
    {"no rules at all", {}, 0, std::nullopt},
};

BOOST_DATA_TEST_CASE(match_rule_follows_torc, bdata::make(match_cases), c)
{
    core::failure_handler const handler{2, c.rules};
    auto const* got = core::match_rule(handler, c.rc);
    BOOST_TEST((got != nullptr) == c.expected.has_value());
    if (got && c.expected) BOOST_TEST(got == &handler.rules[*c.expected]);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
