// torcrun run's progress numbers (rate and ETA unknown at the start, zero jobs, what counts as
// running, failed, canceled, terminated and remaining), the duration and progress-line texts,
// the summary block and the exit status.
#include "torcrun/cli/run_progress.hpp"

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

struct progress_case {
    std::string name;
    core::status_counts counts;
    double elapsed;
    core::progress_numbers expected;
    std::string line;
};
std::ostream& operator<<(std::ostream& os, progress_case const& c) { return os << c.name; }

std::vector<progress_case> const progress_cases{
    {"at the start: nothing finished, rate and ETA unknown",
     counts({{st::ready, 3}, {st::blocked, 7}}), 0.0, {10, 0, 0, 0, 10, {}, {}},
     "[0s] done 0/10  running 0  failed 0  remaining 10  - jobs/s  ETA -"},
    {"running but none finished yet",
     counts({{st::pending, 1}, {st::running, 2}, {st::ready, 1}}), 4.0, {4, 0, 3, 0, 1, {}, {}},
     "[4s] done 0/4  running 3  failed 0  remaining 1  - jobs/s  ETA -"},
    {"zero jobs: nothing left, ETA 0", counts({}), 1.0, {0, 0, 0, 0, 0, {}, 0.0},
     "[1s] done 0/0  running 0  failed 0  remaining 0  - jobs/s  ETA 0s"},
    {"midway: rate over finished jobs, ETA over what is left",
     counts({{st::completed, 8}, {st::failed, 1}, {st::canceled, 1}, {st::running, 4},
             {st::blocked, 6}}),
     4.0, {20, 8, 4, 1, 6, 2.5, 4.0, 1, 0},
     "[4s] done 8/20  running 4  failed 1  canceled 1  remaining 6  2.50 jobs/s  ETA 4s"},
    {"terminated counted apart, pending_failed as remaining, disabled as neither",
     counts({{st::completed, 1}, {st::terminated, 1}, {st::pending_failed, 1},
             {st::disabled, 2}, {st::uninitialized, 1}}),
     10.0, {6, 1, 0, 0, 2, 0.2, 10.0, 0, 1},
     "[10s] done 1/6  running 0  failed 0  terminated 1  remaining 2  0.20 jobs/s  ETA 10s"},
    {"all finished", counts({{st::completed, 3}}), 90.0, {3, 3, 0, 0, 0, 3.0 / 90.0, 0.0},
     "[1m30s] done 3/3  running 0  failed 0  remaining 0  0.03 jobs/s  ETA 0s"},
    {"a finished count with no elapsed time yet has no rate",
     counts({{st::completed, 1}, {st::ready, 1}}), 0.0, {2, 1, 0, 0, 1, {}, {}},
     "[0s] done 1/2  running 0  failed 0  remaining 1  - jobs/s  ETA -"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(run_progress)

BOOST_DATA_TEST_CASE(numbers_and_line, bdata::make(progress_cases), c)
{
    auto const p = core::compute_progress(c.counts, c.elapsed);
    BOOST_TEST(p.total == c.expected.total);
    BOOST_TEST(p.done == c.expected.done);
    BOOST_TEST(p.running == c.expected.running);
    BOOST_TEST(p.failed == c.expected.failed);
    BOOST_TEST(p.canceled == c.expected.canceled);
    BOOST_TEST(p.terminated == c.expected.terminated);
    BOOST_TEST(p.remaining == c.expected.remaining);
    BOOST_TEST(p.rate.has_value() == c.expected.rate.has_value());
    if (p.rate && c.expected.rate) BOOST_TEST(*p.rate == *c.expected.rate, 1e-9);
    BOOST_TEST(p.eta_seconds.has_value() == c.expected.eta_seconds.has_value());
    if (p.eta_seconds && c.expected.eta_seconds)
        BOOST_TEST(*p.eta_seconds == *c.expected.eta_seconds, 1e-9);
    BOOST_TEST(core::format_progress_line(p, c.elapsed) == c.line);
}

BOOST_AUTO_TEST_CASE(durations)
{
    std::vector<std::pair<double, std::string>> const cases{
        {-3, "0s"},      {0, "0s"},        {0.4, "0s"},         {0.6, "1s"},
        {59.4, "59s"},   {59.6, "1m00s"},  {65, "1m05s"},       {3599, "59m59s"},
        {3600, "1h00m"}, {7619, "2h07m"},  {7170, "2h00m"},     {90061, "25h01m"},
    };
    for (auto const& [seconds, text] : cases) {
        BOOST_TEST_CONTEXT(seconds) { BOOST_TEST(core::format_elapsed(seconds) == text); }
    }
}

BOOST_AUTO_TEST_CASE(exit_status_is_zero_only_when_every_job_completed)
{
    BOOST_TEST(core::run_exit_status(counts({})) == 0);
    BOOST_TEST(core::run_exit_status(counts({{st::completed, 4}})) == 0);
    BOOST_TEST(core::run_exit_status(counts({{st::completed, 4}, {st::failed, 1}})) == 1);
    BOOST_TEST(core::run_exit_status(counts({{st::completed, 4}, {st::canceled, 1}})) == 1);
    BOOST_TEST(core::run_exit_status(counts({{st::completed, 4}, {st::ready, 1}})) == 1);
    BOOST_TEST(core::run_exit_status(counts({{st::completed, 4}, {st::disabled, 1}})) == 1);
}

BOOST_AUTO_TEST_CASE(summary_lists_counts_unfinished_jobs_and_paths)
{
    core::run_summary s;
    s.workflow_id = 3;
    s.workflow_name = "failing";
    s.counts = counts({{st::completed, 2}, {st::failed, 3}, {st::canceled, 1}});
    s.wall_seconds = 75;
    s.unfinished = {{7, "bad", st::failed, 3, "out/jobs/wf3_j7/r1_a1", {"oops", "bye"}},
                    {8, "after_bad", st::canceled, {}, {}},
                    {9, "bad_too", st::failed, 3, "out/jobs/wf3_j9/r1_a1", {"not shown"}},
                    {10, "other", st::failed, 1, "out/jobs/wf3_j10/r1_a1", {}}};
    s.database = "out/torcrun.db";
    s.output_dir = "out";
    s.worker_log = "out/worker.log";
    s.report = "out/report.html";
    BOOST_TEST(core::format_summary(s) ==
               "torcrun run: workflow 3 (failing): 6 jobs in 1m15s\n"
               "  completed 2 failed 3 canceled 1\n"
               "jobs that did not complete:\n"
               "  bad (job 7): failed, return code 3, logs out/jobs/wf3_j7/r1_a1\n"
               "  after_bad (job 8): canceled, never ran\n"
               "  bad_too (job 9): failed, return code 3, logs out/jobs/wf3_j9/r1_a1\n"
               "  other (job 10): failed, return code 1, logs out/jobs/wf3_j10/r1_a1\n"
               "failures by return code:\n"
               "  return code 1: 1 job, other (job 10)\n"
               "  return code 3: 2 jobs, first bad (job 7)\n"
               "    | oops\n"
               "    | bye\n"
               "database:   out/torcrun.db\n"
               "output:     out\n"
               "worker log: out/worker.log\n"
               "report:     out/report.html\n");
}

BOOST_AUTO_TEST_CASE(last_lines_of_a_stderr)
{
    using lines = std::vector<std::string>;
    BOOST_TEST((core::last_lines("a\nb\nc\n", 2) == lines{"b", "c"}));
    BOOST_TEST((core::last_lines("a\nb\nc", 5) == lines{"a", "b", "c"}));
    BOOST_TEST((core::last_lines("cut\nx\n", 2) == lines{"cut", "x"}));
    BOOST_TEST((core::last_lines("a\n\nb\n", 2) == lines{"", "b"}));
    BOOST_TEST(core::last_lines("", 5).empty());
    BOOST_TEST(core::last_lines("\n", 5).empty());
}

BOOST_AUTO_TEST_CASE(a_failure_as_it_happens)
{
    BOOST_TEST(core::format_failure({4, "train", st::failed, 3, "D/jobs/wf1_j4/r0_a1",
                                     {"Traceback", "ValueError: x"}}) ==
               "torcrun run: failed: train (job 4), return code 3, logs D/jobs/wf1_j4/r0_a1\n"
               "    | Traceback\n"
               "    | ValueError: x\n");
    BOOST_TEST(core::format_failure({5, "quiet", st::failed, 1, "L", {}}) ==
               "torcrun run: failed: quiet (job 5), return code 1, logs L\n");
}

BOOST_AUTO_TEST_CASE(summary_of_zero_jobs_and_a_verbose_run)
{
    core::run_summary s;
    s.workflow_id = 1;
    s.workflow_name = "empty";
    s.database = "d.db";
    s.output_dir = "o";
    BOOST_TEST(core::format_summary(s) ==
               "torcrun run: workflow 1 (empty): 0 jobs in 0s\n"
               "  no jobs\n"
               "database:   d.db\n"
               "output:     o\n");
}

BOOST_AUTO_TEST_CASE(summary_caps_the_job_list)
{
    core::run_summary s;
    s.workflow_name = "many";
    s.counts = counts({{st::failed, 53}});
    for (std::int64_t id = 1; id <= 53; ++id)
        s.unfinished.push_back({id, "j" + std::to_string(id), st::failed, 1, "l"});
    auto const text = core::format_summary(s);
    BOOST_TEST(text.find("  j50 (job 50): failed, return code 1, logs l\n  ... and 3 more\n") !=
               std::string::npos);
    BOOST_TEST(text.find("j51") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
