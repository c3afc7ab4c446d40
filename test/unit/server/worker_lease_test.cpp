// Lost workers at the lease boundary, and what happens to each status a lost worker held under
// both policies.
#include "torcrun/server/worker_lease.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using st = core::job_status;
using namespace std::chrono_literals;

namespace {

auto const t0 = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 20000);

struct lease_case {
    std::string name;
    std::vector<core::worker_heartbeat> workers;
    std::vector<std::int64_t> lost;
};
std::ostream& operator<<(std::ostream& os, lease_case const& c) { return os << c.name; }

// The check runs at t0 with a 60 s lease.
std::vector<lease_case> const lease_cases{
    {"recent heartbeat", {{1, true, t0 - 10s}}, {}},
    {"exactly one lease old is alive", {{1, true, t0 - 60s}}, {}},
    {"one millisecond more is lost", {{1, true, t0 - 60s - 1ms}}, {1}},
    {"long gone", {{1, true, t0 - 24h}}, {1}},
    {"an inactive worker is not lost again", {{1, false, t0 - 24h}}, {}},
    {"a heartbeat from the future is alive", {{1, true, t0 + 5min}}, {}},
    {"sorted by id", {{9, true, t0 - 2min}, {3, true, t0 - 5min}, {5, true, t0}}, {3, 9}},
    {"no workers", {}, {}},
};

struct orphan_case {
    st status;
    core::orphan_policy policy;
    std::optional<core::orphan_outcome> outcome;
};
std::ostream& operator<<(std::ostream& os, orphan_case const& c)
{
    return os << c.status << '/' << c.policy;
}

std::vector<orphan_case> orphan_cases()
{
    std::vector<orphan_case> cases;
    for (auto const policy : {core::orphan_policy::ready, core::orphan_policy::failed}) {
        for (auto const s : core::all_job_statuses) {
            std::optional<core::orphan_outcome> outcome;
            if (s == st::pending) outcome = core::orphan_outcome{st::ready, std::nullopt};
            if (s == st::running) {
                outcome = policy == core::orphan_policy::ready
                              ? core::orphan_outcome{st::ready, std::nullopt}
                              : core::orphan_outcome{st::failed, -128};
            }
            cases.push_back({s, policy, outcome});
        }
    }
    return cases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_lease)

BOOST_DATA_TEST_CASE(workers_past_their_lease_are_lost, bdata::make(lease_cases), c)
{
    BOOST_TEST(core::lost_workers(c.workers, t0, 60s) == c.lost, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(orphaned_jobs_never_stay_running, bdata::make(orphan_cases()), c)
{
    auto const outcome = core::orphaned_job_outcome(c.status, c.policy);
    BOOST_TEST_REQUIRE(outcome.has_value() == c.outcome.has_value());
    if (outcome) {
        BOOST_TEST(outcome->status == c.outcome->status);
        BOOST_TEST((outcome->return_code == c.outcome->return_code));
        BOOST_TEST(outcome->status != st::running);
    }
}

BOOST_AUTO_TEST_CASE(policy_names)
{
    BOOST_TEST(core::orphaned_return_code == -128);
    BOOST_TEST(core::parse_orphan_policy("ready").value() == core::orphan_policy::ready);
    BOOST_TEST(core::parse_orphan_policy("failed").value() == core::orphan_policy::failed);
    BOOST_TEST(core::to_string(core::orphan_policy::failed) == "failed");
    BOOST_TEST(core::to_string(core::orphan_policy::ready) == "ready");
    auto const bad = core::parse_orphan_policy("fail");
    BOOST_TEST_REQUIRE(bad.has_error());
    BOOST_TEST(bad.error().message == "orphaned jobs: \"fail\" is not one of ready or failed");
}

BOOST_AUTO_TEST_SUITE_END()
