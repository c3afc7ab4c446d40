// is_complete and is_uninitialized from status counts, reset_status refusals verbatim, which
// jobs reset_job_status resets, and what cancel does to each status.
#include "torcrun/server/workflow_progress.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using st = core::job_status;

namespace {

core::status_counts counts(std::vector<std::pair<st, std::int64_t>> const& entries)
{
    core::status_counts c;
    for (auto const& [s, n] : entries) c[s] += n;
    return c;
}

struct complete_case {
    std::string name;
    core::workflow_flags flags;
    core::status_counts counts;
    core::is_complete_answer answer;
    bool uninitialized;
};
std::ostream& operator<<(std::ostream& os, complete_case const& c) { return os << c.name; }

core::workflow_flags const plain{1, false, false, false};
core::workflow_flags const canceled{1, true, false, false};
core::workflow_flags const needs_script{1, false, false, true};

std::vector<complete_case> const complete_cases{
    {"all completed", plain, counts({{st::completed, 5}}), {false, true, false}, false},
    {"every finished status and disabled", plain,
     counts({{st::completed, 1}, {st::failed, 1}, {st::canceled, 1}, {st::terminated, 1},
             {st::disabled, 1}}),
     {false, true, false}, false},
    {"pending_failed keeps it open", plain, counts({{st::completed, 4}, {st::pending_failed, 1}}),
     {false, false, false}, false},
    {"uninitialized", plain, counts({{st::uninitialized, 2}}), {false, false, false}, true},
    {"uninitialized and disabled", plain, counts({{st::uninitialized, 2}, {st::disabled, 1}}),
     {false, false, false}, true},
    {"blocked", plain, counts({{st::completed, 1}, {st::blocked, 1}}), {false, false, false},
     false},
    {"ready", plain, counts({{st::ready, 1}}), {false, false, false}, false},
    {"pending", plain, counts({{st::pending, 1}}), {false, false, false}, false},
    {"running", plain, counts({{st::running, 1}}), {false, false, false}, false},
    {"no jobs", plain, counts({}), {false, true, false}, true},
    {"only disabled", plain, counts({{st::disabled, 3}}), {false, true, false}, true},
    {"canceled with jobs still running", canceled, counts({{st::running, 3}, {st::ready, 2}}),
     {true, true, false}, false},
    {"the completion-script flag is passed on", needs_script, counts({{st::running, 1}}),
     {false, false, true}, false},
};

struct reset_case {
    std::string name;
    core::workflow_flags flags;
    core::status_counts counts;
    bool force;
    std::string outcome;
};
std::ostream& operator<<(std::ostream& os, reset_case const& c) { return os << c.name; }

std::vector<reset_case> const reset_cases{
    {"archived", {4, true, true, true}, counts({}), false,
     "422 reset_status: the workflow is archived; unarchive it first"},
    {"archived even with force", {4, false, true, false}, counts({}), true,
     "422 reset_status: the workflow is archived; unarchive it first"},
    {"active jobs", {4, true, false, false}, counts({{st::pending, 2}, {st::running, 1}}), false,
     "422 reset_status: 2 pending and 1 running jobs are active; wait for them or pass "
     "force=true"},
    {"active jobs with force", {4, true, false, true}, counts({{st::running, 1}}), true,
     "run 4 canceled 0 archived 0 script 0"},
    {"nothing active", {4, true, false, true}, counts({{st::completed, 9}, {st::ready, 1}}),
     false, "run 4 canceled 0 archived 0 script 0"},
};

struct failed_reset_case {
    std::string name;
    std::vector<core::reset_candidate> jobs;
    std::vector<std::int64_t> reset;
};
std::ostream& operator<<(std::ostream& os, failed_reset_case const& c) { return os << c.name; }

std::vector<failed_reset_case> const failed_reset_cases{
    {"failed, canceled, terminated and pending_failed, as Torc v0.10",
     {{3, st::failed}, {1, st::terminated}, {2, st::completed}, {4, st::canceled},
      {5, st::pending_failed}},
     {1, 3, 4, 5}},
    {"the status decides, not a return code", {{1, st::completed}, {2, st::failed}}, {2}},
    {"jobs that did not finish are not reset",
     {{1, st::running}, {2, st::pending}, {3, st::disabled}, {4, st::ready}, {5, st::blocked},
      {6, st::uninitialized}},
     {}},
};

std::string show(core::decision<core::workflow_flags> const& d)
{
    if (!d) return std::to_string(d.error().http_status) + " " + d.error().message;
    return "run " + std::to_string(d->run_id) + " canceled " + std::to_string(d->is_canceled) +
           " archived " + std::to_string(d->is_archived) + " script " +
           std::to_string(d->has_detected_need_to_run_completion_script);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workflow_progress)

BOOST_DATA_TEST_CASE(is_complete_as_torc, bdata::make(complete_cases), c)
{
    auto const answer = core::is_complete(c.flags, c.counts);
    BOOST_TEST(answer.is_canceled == c.answer.is_canceled);
    BOOST_TEST(answer.is_complete == c.answer.is_complete);
    BOOST_TEST(answer.needs_to_run_completion_script == c.answer.needs_to_run_completion_script);
    BOOST_TEST(core::is_uninitialized(c.counts) == c.uninitialized);
    // The server's is_complete asks only whether one job is unfinished: the same answer.
    bool any_unfinished = false;
    for (auto s : core::all_job_statuses)
        any_unfinished = any_unfinished || (!core::counts_as_complete(s) && c.counts[s] > 0);
    BOOST_TEST((core::is_complete(c.flags, any_unfinished) == c.answer));
}

BOOST_DATA_TEST_CASE(reset_status_decisions, bdata::make(reset_cases), c)
{
    BOOST_TEST(show(core::decide_reset_status(c.flags, c.counts, c.force)) == c.outcome);
}

BOOST_DATA_TEST_CASE(failed_only_resets_jobs_that_failed, bdata::make(failed_reset_cases), c)
{
    BOOST_TEST(core::failed_jobs_to_reset(c.jobs) == c.reset, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(reset_all_and_cancel_per_status, bdata::make(core::all_job_statuses), s)
{
    BOOST_TEST(core::reset_all_changes(s) == (s != st::uninitialized));
    auto const after = core::status_after_cancel(s);
    bool const active = s == st::pending || s == st::running;
    BOOST_TEST(after.has_value() == active);
    if (after) BOOST_TEST(*after == st::canceled);
}

BOOST_AUTO_TEST_SUITE_END()
