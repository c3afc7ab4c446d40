// Every job endpoint against every current status (and every requested status where the path
// names one), then the refusals that depend on ids: unknown job, result body ids, run_id, retry
// count, and the order in which Torc makes its checks. Outcomes are compared as text: the new
// status, or the HTTP status and the message verbatim.
#include "torcrun/server/job_transitions.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using st = core::job_status;

namespace {

struct transition_case {
    std::string name;
    std::function<std::string()> run;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, transition_case const& c) { return os << c.name; }

std::string refused(core::rejection const& r)
{
    return std::to_string(r.http_status) + " " + r.message;
}

std::string show(core::decision<st> const& d)
{
    return d ? "-> " + std::string(core::to_string(*d)) : refused(d.error());
}

std::string show(core::decision<core::status_change> const& d)
{
    if (!d) return refused(d.error());
    return std::string(d->changed ? "-> " : "stays ") + std::string(core::to_string(d->status)) +
           (d->reverts_completion ? ", reset downstream" : "");
}

std::string show(core::decision<core::retry_outcome> const& d)
{
    if (!d) return refused(d.error());
    return "-> " + std::string(core::to_string(d->status)) + " attempt " +
           std::to_string(d->attempt_id);
}

std::string name_of(st s) { return std::string(core::to_string(s)); }
std::string quoted(st s) { return '"' + name_of(s) + '"'; }

core::job_state job42(st s, std::int64_t attempt = 1) { return {42, 7, s, attempt, std::nullopt}; }
constexpr core::run_ids same_run{3, 3};
core::result_ids const result42{42, 7, std::nullopt};

bool one_of(st s, std::initializer_list<st> set)
{
    return std::find(set.begin(), set.end(), s) != set.end();
}

std::vector<transition_case> start_cases()
{
    std::vector<transition_case> cases;
    for (auto const s : core::all_job_statuses) {
        cases.push_back({"start_job from " + name_of(s),
                         [s] { return show(core::decide_start_job(42, job42(s), same_run)); },
                         s == st::pending ? "-> running"
                                          : "409 start_job: job 42 is " + quoted(s) +
                                                "; only a \"pending\" job can start"});
    }
    cases.push_back({"start_job unknown job",
                     [] { return show(core::decide_start_job(42, std::nullopt, same_run)); },
                     "404 start_job: no job has id 42"});
    cases.push_back({"start_job old run",
                     [] { return show(core::decide_start_job(42, job42(st::pending), {2, 3})); },
                     "422 start_job: run_id 2 is not the workflow's current run_id 3"});
    cases.push_back({"start_job: status before run_id",
                     [] { return show(core::decide_start_job(42, job42(st::ready), {2, 3})); },
                     "409 start_job: job 42 is \"ready\"; only a \"pending\" job can start"});
    return cases;
}

std::vector<transition_case> complete_cases()
{
    std::vector<transition_case> cases;
    auto const final_set = {st::completed, st::failed, st::canceled, st::terminated,
                            st::pending_failed};
    for (auto const r : core::all_job_statuses) {
        cases.push_back(
            {"complete_job running as " + name_of(r),
             [r] {
                 return show(core::decide_complete_job(42, r, job42(st::running), same_run,
                                                       result42));
             },
             one_of(r, final_set) ? "-> " + name_of(r)
                                  : "422 complete_job: " + quoted(r) +
                                        " is not a final status; use completed, failed, "
                                        "canceled, terminated or pending_failed"});
    }
    auto const complete_set = {st::completed, st::failed, st::canceled, st::terminated,
                               st::disabled};
    for (auto const c : core::all_job_statuses) {
        cases.push_back(
            {"complete_job from " + name_of(c),
             [c] {
                 return show(
                     core::decide_complete_job(42, st::failed, job42(c), same_run, result42));
             },
             one_of(c, complete_set)
                 ? "422 complete_job: job 42 is already complete (" + quoted(c) + ")"
             : one_of(c, {st::uninitialized, st::blocked, st::ready})
                 ? "409 complete_job: job 42 is " + quoted(c) +
                       "; nobody claimed it, so only a pending, running or pending_failed job "
                       "can complete"
                 : "-> failed"});
    }
    return cases;
}

std::vector<transition_case> complete_refusals()
{
    std::vector<transition_case> cases;
    auto add = [&cases](std::string name, std::function<std::string()> run, std::string want) {
        cases.push_back({std::move(name), std::move(run), std::move(want)});
    };
    add("complete_job unknown job",
        [] { return show(core::decide_complete_job(42, st::completed, std::nullopt, same_run,
                                                   result42)); },
        "404 complete_job: no job has id 42");
    add("complete_job: the status is checked before the job",
        [] { return show(core::decide_complete_job(42, st::running, std::nullopt, same_run,
                                                   result42)); },
        "422 complete_job: \"running\" is not a final status; use completed, failed, canceled, "
        "terminated or pending_failed");
    add("complete_job result for another job",
        [] { return show(core::decide_complete_job(42, st::completed, job42(st::running),
                                                   same_run, {43, 7, std::nullopt})); },
        "422 complete_job: the result is for job 43, not job 42");
    add("complete_job result for another workflow",
        [] { return show(core::decide_complete_job(42, st::completed, job42(st::running),
                                                   same_run, {42, 8, std::nullopt})); },
        "422 complete_job: the result is for workflow 8, job 42 belongs to workflow 7");
    add("complete_job result for another run",
        [] { return show(core::decide_complete_job(42, st::completed, job42(st::running),
                                                   same_run, {42, 7, 2})); },
        "422 complete_job: the result is for run_id 2, the path names run_id 3");
    add("complete_job old run",
        [] { return show(core::decide_complete_job(42, st::completed, job42(st::running), {1, 3},
                                                   result42)); },
        "422 complete_job: run_id 1 is not the workflow's current run_id 3");
    add("complete_job: already complete before run_id",
        [] { return show(core::decide_complete_job(42, st::completed, job42(st::canceled),
                                                   {1, 3}, result42)); },
        "422 complete_job: job 42 is already complete (\"canceled\")");
    return cases;
}

std::vector<transition_case> manage_cases()
{
    std::vector<transition_case> cases;
    auto const final_set = {st::completed, st::failed, st::canceled, st::terminated,
                            st::pending_failed};
    for (auto const r : core::all_job_statuses) {
        std::string want = one_of(r, final_set)
                               ? "422 manage_status_change: " + quoted(r) +
                                     " is a final status; use complete_job"
                           : r == st::running ? "stays running"
                                              : "-> " + name_of(r);
        cases.push_back({"manage_status_change running to " + name_of(r),
                         [r] {
                             return show(core::decide_manage_status_change(
                                 42, r, job42(st::running), same_run));
                         },
                         want});
    }
    auto const releasing = {st::completed, st::failed, st::canceled, st::terminated};
    for (auto const c : core::all_job_statuses) {
        std::string want = c == st::ready ? "stays ready"
                           : one_of(c, releasing)
                               ? "409 manage_status_change: job 42 is " + quoted(c) +
                                     "; a finished job goes back only to \"uninitialized\" "
                                     "(initialize_jobs then resolves it and its dependents "
                                     "again), not to \"ready\""
                               : "-> ready";
        cases.push_back({"manage_status_change " + name_of(c) + " to ready",
                         [c] {
                             return show(core::decide_manage_status_change(42, st::ready,
                                                                           job42(c), same_run));
                         },
                         want});
    }
    cases.push_back({"manage_status_change unknown job",
                     [] {
                         return show(core::decide_manage_status_change(42, st::ready,
                                                                       std::nullopt, same_run));
                     },
                     "404 manage_status_change: no job has id 42"});
    cases.push_back({"manage_status_change old run",
                     [] {
                         return show(core::decide_manage_status_change(
                             42, st::ready, job42(st::pending), {4, 3}));
                     },
                     "422 manage_status_change: run_id 4 is not the workflow's current run_id 3"});
    cases.push_back({"manage_status_change completed to uninitialized resets downstream",
                     [] {
                         return show(core::decide_manage_status_change(
                             42, st::uninitialized, job42(st::completed), same_run));
                     },
                     "-> uninitialized, reset downstream"});
    cases.push_back({"manage_status_change to the same status skips the run_id check",
                     [] {
                         return show(core::decide_manage_status_change(
                             42, st::pending, job42(st::pending), {4, 3}));
                     },
                     "stays pending"});
    return cases;
}

std::vector<transition_case> retry_cases()
{
    std::vector<transition_case> cases;
    for (auto const c : core::all_job_statuses) {
        cases.push_back(
            {"retry from " + name_of(c),
             [c] { return show(core::decide_retry(42, job42(c), same_run, 3)); },
             one_of(c, {st::running, st::failed, st::terminated})
                 ? "-> ready attempt 2"
                 : "422 retry: job 42 is " + quoted(c) +
                       "; only a running, failed or terminated job can be retried"});
    }
    auto add = [&cases](std::string name, std::function<std::string()> run, std::string want) {
        cases.push_back({std::move(name), std::move(run), std::move(want)});
    };
    add("retry last allowed attempt",
        [] { return show(core::decide_retry(42, job42(st::failed, 2), same_run, 3)); },
        "-> ready attempt 3");
    add("retry at max_retries",
        [] { return show(core::decide_retry(42, job42(st::failed, 3), same_run, 3)); },
        "422 retry: job 42 is on attempt 3 and max_retries is 3");
    add("retry with max_retries 0",
        [] { return show(core::decide_retry(42, job42(st::terminated), same_run, 0)); },
        "422 retry: job 42 is on attempt 1 and max_retries is 0");
    add("retry unknown job",
        [] { return show(core::decide_retry(42, std::nullopt, same_run, 3)); },
        "404 retry: no job has id 42");
    add("retry old run",
        [] { return show(core::decide_retry(42, job42(st::failed, 3), {2, 3}, 3)); },
        "422 retry: run_id 2 is not the workflow's current run_id 3");
    return cases;
}

std::vector<transition_case> all_cases()
{
    std::vector<transition_case> cases;
    for (auto part : {start_cases(), complete_cases(), complete_refusals(), manage_cases(),
                      retry_cases()}) {
        cases.insert(cases.end(), part.begin(), part.end());
    }
    return cases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_transitions)

BOOST_DATA_TEST_CASE(every_endpoint_from_every_status, bdata::make(all_cases()), c)
{
    BOOST_TEST(c.run() == c.expected);
}

BOOST_AUTO_TEST_CASE(a_rejection_thrown_carries_status_and_message)
{
    auto const d = core::decide_start_job(42, std::nullopt, same_run);
    BOOST_CHECK_EXCEPTION(d.value(), core::error_exception, [](auto const& e) {
        return std::string(e.what()) == "HTTP 404: start_job: no job has id 42";
    });
}

// A result for the attempt a cancel stopped: recorded once, a resend is a repeat, anything else is
// left to decide_complete_job (its 422 "already complete").
BOOST_AUTO_TEST_CASE(a_canceled_attempts_result_is_recorded_once)
{
    using cr = core::canceled_result;
    core::job_state const job{7, 1, st::canceled, 2, std::nullopt};
    auto const classify = [&](core::job_state const& j, bool wf_canceled, st requested,
                              std::int64_t result_run, std::int64_t result_attempt,
                              std::optional<std::int64_t> kept_run = std::nullopt,
                              std::optional<std::int64_t> kept_attempt = std::nullopt) {
        return core::classify_canceled_result(j, wf_canceled, requested, 3, result_run,
                                              result_attempt, kept_run, kept_attempt);
    };
    BOOST_TEST((classify(job, true, st::canceled, 3, 2) == cr::record));
    BOOST_TEST((classify(job, true, st::terminated, 3, 2) == cr::record));
    BOOST_TEST((classify(job, true, st::canceled, 3, 2, 3, 1) == cr::record));  // attempt 1's kept
    BOOST_TEST((classify(job, true, st::canceled, 3, 2, 2, 2) == cr::record));  // run 2's kept
    BOOST_TEST((classify(job, true, st::canceled, 3, 2, 3, 2) == cr::repeat));
    BOOST_TEST((classify(job, false, st::canceled, 3, 2) == cr::not_one));  // not the cancel's
    BOOST_TEST((classify(job, true, st::running, 3, 2) == cr::not_one));
    BOOST_TEST((classify(job, true, st::canceled, 2, 2) == cr::not_one));  // an earlier run
    BOOST_TEST((classify(job, true, st::canceled, 3, 1) == cr::not_one));  // another attempt
    auto failed = job;
    failed.status = st::failed;
    BOOST_TEST((classify(failed, true, st::canceled, 3, 2) == cr::not_one));
}

BOOST_AUTO_TEST_SUITE_END()
