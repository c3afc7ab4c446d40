// initialize_jobs in both modes, resolve_completions (unblocking, cancellation cascades, fan-in,
// batches), downstream_jobs, that a completion reads only its neighbourhood, and a whole
// workflow driven from initialize to completion.
#include "torcrun/server/dependency_resolution.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using core::dependency_edge;
using core::job_node;
using st = core::job_status;

namespace {

job_node j(std::int64_t id, st s, bool cancel = true) { return {id, s, cancel}; }

struct init_case {
    std::string name;
    std::vector<job_node> jobs;
    std::vector<dependency_edge> edges;  // {waits, for}
    bool only_uninitialized;
    std::vector<core::status_update> updates;
};
std::ostream& operator<<(std::ostream& os, init_case const& c) { return os << c.name; }

constexpr auto U = st::uninitialized;
constexpr auto B = st::blocked;
constexpr auto R = st::ready;
constexpr auto P = st::pending;
constexpr auto Run = st::running;
constexpr auto C = st::completed;
constexpr auto F = st::failed;
constexpr auto X = st::canceled;
constexpr auto T = st::terminated;
constexpr auto D = st::disabled;
constexpr auto PF = st::pending_failed;

std::vector<init_case> const init_cases{
    {"fresh chain", {j(1, U), j(2, U), j(3, U)}, {{2, 1}, {3, 2}}, false,
     {{1, U, R}, {2, U, B}, {3, U, B}}},
    {"fresh diamond", {j(1, U), j(2, U), j(3, U), j(4, U)}, {{2, 1}, {3, 1}, {4, 2}, {4, 3}},
     false, {{1, U, R}, {2, U, B}, {3, U, B}, {4, U, B}}},
    {"disabled stays disabled and blocks its dependents", {j(1, D), j(2, U)}, {{2, 1}}, false,
     {{2, U, B}}},
    {"a finished blocker releases at once", {j(1, C), j(2, U), j(3, F), j(4, X), j(5, U)},
     {{2, 1}, {5, 3}, {5, 4}}, false, {{2, U, R}, {5, U, R}}},
    {"finished jobs keep their status while released", {j(1, C), j(2, C), j(3, F)},
     {{2, 1}, {3, 2}}, false, {}},
    {"finished jobs after a job that runs again are blocked", {j(1, U), j(2, C), j(3, F)},
     {{2, 1}, {3, 2}}, false, {{1, U, R}, {2, C, B}, {3, F, B}}},
    {"terminated runs again, and so does what follows", {j(1, T), j(2, C)}, {{2, 1}}, false,
     {{1, T, R}, {2, C, B}}},
    {"pending, running and pending_failed run again", {j(1, P), j(2, Run), j(3, PF), j(4, U)},
     {{4, 3}}, false, {{1, P, R}, {2, Run, R}, {3, PF, R}, {4, U, B}}},
    {"a self-edge keeps a job blocked", {j(1, U)}, {{1, 1}}, false, {{1, U, B}}},
    {"a finished job with a self-edge stays finished", {j(1, C)}, {{1, 1}}, false, {}},
    {"a cycle stays blocked", {j(1, U), j(2, U), j(3, U)}, {{1, 2}, {2, 1}}, false,
     {{1, U, B}, {2, U, B}, {3, U, R}}},
    {"already consistent: nothing changes", {j(1, R), j(2, B)}, {{2, 1}}, false, {}},
    {"edges to unknown jobs are ignored", {j(1, U)}, {{1, 99}, {98, 1}}, false, {{1, U, R}}},
    {"only_uninitialized: a new job after a finished run", {j(1, C), j(2, U)}, {{2, 1}}, true,
     {{2, U, R}}},
    {"only_uninitialized: everything downstream is reset",
     {j(1, U), j(2, C), j(3, R), j(4, Run), j(5, B), j(6, T)}, {{2, 1}, {3, 2}}, true,
     {{1, U, R}, {2, C, B}, {3, R, B}}},
    {"only_uninitialized: a disabled job downstream stays disabled",
     {j(1, U), j(2, D), j(3, C)}, {{2, 1}, {3, 2}}, true, {{1, U, R}, {3, C, B}}},
    {"only_uninitialized: nothing uninitialized, nothing changes", {j(1, T), j(2, PF), j(3, P)},
     {}, true, {}},
    {"only_uninitialized: an out-of-scope unfinished blocker blocks",
     {j(1, Run), j(2, U)}, {{2, 1}}, true, {{2, U, B}}},
};

struct completion_case {
    std::string name;
    std::vector<job_node> jobs;  // statuses after the finished jobs were written
    std::vector<dependency_edge> edges;
    std::vector<std::int64_t> finished;
    core::unblock_outcome outcome;
};
std::ostream& operator<<(std::ostream& os, completion_case const& c) { return os << c.name; }

std::vector<completion_case> const completion_cases{
    {"the next job of a chain", {j(1, C), j(2, B), j(3, B)}, {{2, 1}, {3, 2}}, {1}, {{2}, {}}},
    {"fan-in waits for the last blocker", {j(1, C), j(2, Run), j(3, B)}, {{3, 1}, {3, 2}}, {1},
     {{}, {}}},
    {"fan-in: the last blocker releases", {j(1, C), j(2, C), j(3, B)}, {{3, 1}, {3, 2}}, {2},
     {{3}, {}}},
    {"a failed blocker cancels, down the chain", {j(1, F), j(2, B), j(3, B), j(4, B)},
     {{2, 1}, {3, 2}, {4, 3}}, {1}, {{}, {2, 3, 4}}},
    {"without cancel_on_blocking_job_failure the dependent runs", {j(1, F), j(2, B, false)},
     {{2, 1}}, {1}, {{2}, {}}},
    {"the cascade stops at a job that does not cancel",
     {j(1, F), j(2, B), j(3, B, false), j(4, B)}, {{2, 1}, {3, 2}, {4, 3}}, {1},
     {{3}, {2}}},
    {"terminated cancels", {j(1, T), j(2, B)}, {{2, 1}}, {1}, {{}, {2}}},
    {"canceled cancels", {j(1, X), j(2, B)}, {{2, 1}}, {1}, {{}, {2}}},
    {"cancellation waits for the other blockers", {j(1, F), j(2, Run), j(3, B)},
     {{3, 1}, {3, 2}}, {1}, {{}, {}}},
    {"...and comes with the last one", {j(1, F), j(2, C), j(3, B)}, {{3, 1}, {3, 2}}, {2},
     {{}, {3}}},
    {"a disabled blocker keeps the dependent blocked", {j(1, C), j(2, D), j(3, B)},
     {{3, 1}, {3, 2}}, {1}, {{}, {}}},
    {"a pending_failed blocker keeps the dependent blocked", {j(1, PF), j(2, B)}, {{2, 1}}, {1},
     {{}, {}}},
    {"dependents that are not blocked are left alone", {j(1, C), j(2, R), j(3, U), j(4, X)},
     {{2, 1}, {3, 1}, {4, 1}}, {1}, {{}, {}}},
    {"a batch with a shared fan-in", {j(1, C), j(2, C), j(3, B), j(4, B), j(5, B)},
     {{3, 1}, {3, 2}, {4, 1}, {5, 2}}, {1, 2}, {{3, 4, 5}, {}}},
    {"a batch with a failure: the fan-in is canceled once", {j(1, C), j(2, F), j(3, B)},
     {{3, 1}, {3, 2}}, {2, 1}, {{}, {3}}},
    {"a cascade releases a job that tolerates failures",
     {j(1, F), j(2, B), j(3, B, false), j(4, C)}, {{2, 1}, {3, 2}, {3, 4}}, {1}, {{3}, {2}}},
    {"diamond cascade", {j(1, F), j(2, B), j(3, B), j(4, B)}, {{2, 1}, {3, 1}, {4, 2}, {4, 3}},
     {1}, {{}, {2, 3, 4}}},
    {"a cascade into a job that still waits elsewhere", {j(1, F), j(2, B), j(3, Run), j(4, B)},
     {{2, 1}, {4, 2}, {4, 3}}, {1}, {{}, {2}}},
    {"no dependents", {j(1, C)}, {}, {1}, {{}, {}}},
    {"a blocked self-edge job is not released by itself", {j(1, C), j(2, B)},
     {{2, 1}, {2, 2}}, {1}, {{}, {}}},
};

struct downstream_case {
    std::string name;
    std::vector<job_node> jobs;
    std::vector<dependency_edge> edges;
    std::vector<std::int64_t> roots;
    std::vector<std::int64_t> found;
};
std::ostream& operator<<(std::ostream& os, downstream_case const& c) { return os << c.name; }

std::vector<downstream_case> const downstream_cases{
    {"a chain", {j(1, C), j(2, C), j(3, R)}, {{2, 1}, {3, 2}}, {1}, {2, 3}},
    {"not upstream", {j(1, C), j(2, C), j(3, R)}, {{2, 1}, {3, 2}}, {2}, {3}},
    {"disabled jobs are passed through, not listed", {j(1, C), j(2, D), j(3, B)},
     {{2, 1}, {3, 2}}, {1}, {3}},
    {"a cycle leads back to the root", {j(1, C), j(2, C)}, {{2, 1}, {1, 2}}, {1}, {1, 2}},
    {"several roots, each job once", {j(1, F), j(2, F), j(3, B), j(4, B)},
     {{3, 1}, {3, 2}, {4, 3}}, {1, 2}, {3, 4}},
    {"no dependents", {j(1, F)}, {}, {1}, {}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(dependency_resolution)

BOOST_DATA_TEST_CASE(initialize_jobs_sets_blocked_and_ready, bdata::make(init_cases), c)
{
    auto const updates = core::initialize_jobs(c.jobs, c.edges, c.only_uninitialized);
    BOOST_TEST(updates == c.updates, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(completions_release_or_cancel, bdata::make(completion_cases), c)
{
    core::graph_view view(c.jobs, c.edges);
    auto const outcome = core::resolve_completions(c.finished, view);
    BOOST_TEST(outcome.ready == c.outcome.ready, boost::test_tools::per_element());
    BOOST_TEST(outcome.canceled == c.outcome.canceled, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(downstream_of_reverted_jobs, bdata::make(downstream_cases), c)
{
    core::graph_view view(c.jobs, c.edges);
    BOOST_TEST(core::downstream_jobs(c.roots, view) == c.found, boost::test_tools::per_element());
}

// 20,000 independent two-job chains: completing one reads its own neighbourhood only.
BOOST_AUTO_TEST_CASE(a_completion_reads_only_its_neighbourhood)
{
    std::vector<job_node> jobs;
    std::vector<dependency_edge> edges;
    for (std::int64_t i = 1; i <= 20'000; ++i) {
        jobs.push_back(j(2 * i - 1, i == 7 ? C : R));
        jobs.push_back(j(2 * i, B));
        edges.push_back({2 * i, 2 * i - 1});
    }
    core::graph_view view(jobs, edges);
    std::vector<std::int64_t> const finished{13};
    auto const outcome = core::resolve_completions(finished, view);
    BOOST_TEST(outcome.ready == (std::vector<std::int64_t>{14}), boost::test_tools::per_element());
    BOOST_TEST(view.reads() == 2u);  // dependents of 13, blockers of 14
}

// A workflow run to the end: jobs 3 and 7 fail. 1 -> 2 -> 4, 3 -> 5 -> 6 (6 tolerates
// failures), 7 -> 8 -> 9, and 10 waits for 2 and 8.
BOOST_AUTO_TEST_CASE(a_workflow_runs_to_completion_with_cascades)
{
    std::vector<job_node> jobs;
    for (std::int64_t id = 1; id <= 10; ++id) jobs.push_back(j(id, U, id != 6));
    std::vector<dependency_edge> const edges{{2, 1}, {4, 2}, {5, 3}, {6, 5}, {8, 7},
                                             {9, 8}, {10, 2}, {10, 8}};
    std::set<std::int64_t> const failing{3, 7};
    std::map<std::int64_t, st> status;
    for (auto const& job : jobs) status[job.id] = job.status;
    core::graph_view view(jobs, edges);
    auto apply = [&](std::int64_t id, st s) {
        status[id] = s;
        view.set_status(id, s);
    };
    for (auto const& u : core::initialize_jobs(jobs, edges, false)) apply(u.job_id, u.to);
    std::vector<std::string> rounds;
    for (int round = 0; round < 10; ++round) {
        std::vector<std::int64_t> running;
        for (auto const& [id, s] : status) {
            if (s == R) running.push_back(id);
        }
        if (running.empty()) break;
        for (auto const id : running) apply(id, failing.contains(id) ? F : C);
        auto const outcome = core::resolve_completions(running, view);
        std::string line = std::to_string(running.size()) + " ran;";
        for (auto const id : outcome.ready) {
            line += " +" + std::to_string(id);
            apply(id, R);
        }
        for (auto const id : outcome.canceled) {
            line += " x" + std::to_string(id);
            apply(id, X);
        }
        rounds.push_back(line);
    }
    // 10 is canceled only in round 2: in round 1 its blocker 2 had just become ready.
    std::vector<std::string> const expected_rounds{"3 ran; +2 +6 x5 x8 x9", "2 ran; +4 x10",
                                                   "1 ran;"};
    BOOST_TEST(rounds == expected_rounds, boost::test_tools::per_element());
    std::map<std::int64_t, st> const expected{{1, C}, {2, C}, {3, F}, {4, C},  {5, X},
                                              {6, C}, {7, F}, {8, X}, {9, X}, {10, X}};
    BOOST_TEST((status == expected));
}

BOOST_AUTO_TEST_SUITE_END()
