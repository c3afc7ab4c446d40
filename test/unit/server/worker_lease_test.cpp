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

auto const t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1000);
using ids = std::vector<std::int64_t>;

struct renewal {
    std::int64_t node;
    std::chrono::steady_clock::duration before;  // renewed this long before t0
};

struct lease_case {
    std::string name;
    std::vector<renewal> renewals;
    ids leased;  // what the store says holds a lease at t0
    ids lost;
};
std::ostream& operator<<(std::ostream& os, lease_case const& c) { return os << c.name; }

// The check runs at t0 with a 60 s lease.
std::vector<lease_case> const lease_cases{
    {"recent renewal", {{1, 10s}}, {1}, {}},
    {"exactly one lease old is alive", {{1, 60s}}, {1}, {}},
    {"one millisecond more is lost", {{1, 60s + 1ms}}, {1}, {1}},
    {"long gone", {{1, 24h}}, {1}, {1}},
    {"the latest renewal counts", {{1, 24h}, {1, 5s}, {1, 2h}}, {1}, {}},
    {"a node no longer leased is not lost", {{1, 24h}}, {}, {}},
    {"a node never seen renew gets a full lease", {}, {4}, {}},
    {"sorted by id", {{9, 2min}, {3, 5min}, {5, 0s}}, {9, 5, 3}, {3, 9}},
    {"nothing leased", {}, {}, {}},
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
            // Only a job that may have run comes back on a new attempt; a failed one keeps its
            // attempt, as the result it gets names it.
            if (s == st::pending) outcome = core::orphan_outcome{st::ready, std::nullopt, false};
            if (s == st::running) {
                outcome = policy == core::orphan_policy::ready
                              ? core::orphan_outcome{st::ready, std::nullopt, true}
                              : core::orphan_outcome{st::failed, -128, false};
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
    core::lease_book book;
    for (auto const& r : c.renewals) book.renew(r.node, t0 - r.before);
    BOOST_TEST(book.expired(c.leased, t0, 60s) == c.lost, boost::test_tools::per_element());
}

// After a server restart the book is empty: every leased node gets one full lease from the first
// check, however old its last heartbeat in the store (the measured bug: a 20 s outage with a
// 10 s lease expired the live worker within 3 s of the restart).
BOOST_AUTO_TEST_CASE(a_restart_gives_every_leased_node_one_full_lease)
{
    core::lease_book book;
    ids const leased{1, 2};
    BOOST_TEST(book.expired(leased, t0, 10s).empty());
    BOOST_TEST(book.size() == 2u);
    BOOST_TEST(book.expired(leased, t0 + 10s, 10s).empty());
    book.renew(2, t0 + 10s);
    BOOST_TEST(book.expired(leased, t0 + 10s + 1ms, 10s) == ids{1}, boost::test_tools::per_element());
}

// The steady clock is what the book compares; a node renewed now is alive a lease from now
// whatever happened to the wall clock, and a node the store no longer leases is forgotten.
BOOST_AUTO_TEST_CASE(renewals_never_go_back_and_unleased_nodes_are_forgotten)
{
    core::lease_book book;
    book.renew(1, t0);
    book.renew(1, t0 - 1h);  // an older time never shortens a lease
    BOOST_TEST(book.expired(ids{1}, t0 + 60s, 60s).empty());
    BOOST_TEST(book.knows(1));
    BOOST_TEST(book.expired(ids{}, t0 + 1h, 60s).empty());
    BOOST_TEST(!book.knows(1));
    BOOST_TEST(book.size() == 0u);
}

BOOST_DATA_TEST_CASE(orphaned_jobs_never_stay_running, bdata::make(orphan_cases()), c)
{
    auto const outcome = core::orphaned_job_outcome(c.status, c.policy);
    BOOST_TEST_REQUIRE(outcome.has_value() == c.outcome.has_value());
    if (outcome) {
        BOOST_TEST(outcome->status == c.outcome->status);
        BOOST_TEST((outcome->return_code == c.outcome->return_code));
        BOOST_TEST(outcome->new_attempt == c.outcome->new_attempt);
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
