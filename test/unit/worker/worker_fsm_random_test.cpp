// worker_fsm_random: 10,000 simulated sequences (worker_fsm_simulation.hpp), each with its own
// seed; a failure names it, and fsm_sim::run_sequence(seed, ...) replays it alone.
#include "worker_fsm_simulation.hpp"

#include <boost/test/data/test_case.hpp>

#include <iostream>

namespace bdata = boost::unit_test::data;

namespace {

constexpr std::uint64_t base_seed = 0x776f'726b'6572'0000;
constexpr std::uint64_t batches = 10;
constexpr std::uint64_t per_batch = 1'000;

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_random)

// 10,000 sequences in 10 batches. To replay a failure, call run_sequence(<printed seed>, ...).
BOOST_DATA_TEST_CASE(random_sequences_keep_every_invariant, bdata::xrange(batches), batch)
{
    std::size_t passed = 0;
    fsm_sim::tally seen;
    for (std::uint64_t i = 0; i < per_batch; ++i) {
        auto const seed = base_seed + batch * per_batch + i;
        if (auto const bad = fsm_sim::run_sequence(seed, seen)) {
            BOOST_ERROR("seed " << seed << ": " << *bad);
            break;
        }
        ++passed;
    }
    BOOST_TEST(passed == per_batch);
    for (auto const count :
         {seen.spawns / 10, seen.retries, seen.hand_backs / 10, seen.journaled, seen.signals,
          seen.kills, seen.deadline, seen.lost, seen.idle, seen.exit_1, seen.replies_lost,
          seen.restarts, seen.leases_expired, seen.leases_lost, seen.reregistered,
          seen.reconciled, seen.multi, seen.started_by_claims / 10, seen.started_again,
          seen.retries_repeated, seen.exchanges})
        BOOST_TEST(count >= 5u);
    // The rarest path (a retry of an attempt the lease sweep ended, with policy finish): about
    // 11 per 1,000 sequences, 3 to 17 per batch seen.
    BOOST_TEST(seen.retries_bumped >= 2u);
    BOOST_TEST_MESSAGE("spawns " << seen.spawns << ", retries " << seen.retries << ", hand backs "
                                 << seen.hand_backs << ", journal appends " << seen.journaled
                                 << ", signals " << seen.signals << ", SIGKILLs " << seen.kills
                                 << ", deadline " << seen.deadline << ", server lost " << seen.lost
                                 << ", idle " << seen.idle << ", exit 1 " << seen.exit_1
                                 << ", replies lost " << seen.replies_lost << ", restarts "
                                 << seen.restarts << ", leases expired " << seen.leases_expired
                                 << ", leases lost " << seen.leases_lost << ", registered again "
                                 << seen.reregistered << ", reconciled " << seen.reconciled
                                 << ", multi-worker " << seen.multi << ", started by claims "
                                 << seen.started_by_claims << ", started again "
                                 << seen.started_again << ", retries repeated "
                                 << seen.retries_repeated << ", retries of bumped attempts "
                                 << seen.retries_bumped << ", exchanges " << seen.exchanges
                                 << ", steps " << seen.steps);
}

// `torcrun_unit_tests --run_test=worker_fsm_random/replay -- <seed>`: one sequence, with every
// event and action on stdout.
BOOST_AUTO_TEST_CASE(replay, *boost::unit_test::disabled())
{
    auto const& suite = boost::unit_test::framework::master_test_suite();
    if (suite.argc != 2) {
        BOOST_TEST_MESSAGE("replay: give a seed after --");
        return;
    }
    fsm_sim::tally seen;
    auto const bad = fsm_sim::run_sequence(std::stoull(suite.argv[1]), seen, &std::cout);
    BOOST_TEST(!bad.has_value(), bad.value_or(""));
}

BOOST_AUTO_TEST_SUITE_END()
