// claim_ahead_depth: nothing to size from (no lease, no job ran, no claim answered) is no queue;
// short jobs queue twice what frees in a round trip, at most one per running job and 16; long
// jobs on few slots queue nothing, since a queued job would wait past a quarter of the lease.
#include "torcrun/worker/claim_ahead.hpp"

#include <boost/test/unit_test.hpp>

using torcrun::core::claim_ahead_depth;
using torcrun::core::claim_ahead_inputs;

BOOST_AUTO_TEST_SUITE(claim_ahead)

BOOST_AUTO_TEST_CASE(nothing_to_size_from_is_no_queue)
{
    BOOST_TEST(claim_ahead_depth({std::nullopt, 0.001, 2, 120.0}) == 0u);
    BOOST_TEST(claim_ahead_depth({0.004, std::nullopt, 2, 120.0}) == 0u);
    BOOST_TEST(claim_ahead_depth({0.004, 0.001, 2, std::nullopt}) == 0u);  // a Torc server
    BOOST_TEST(claim_ahead_depth({0.004, 0.001, 0, 120.0}) == 0u);         // nothing running
    BOOST_TEST(claim_ahead_depth({0.004, 0.001, 2, 0.0}) == 0u);
}

BOOST_AUTO_TEST_CASE(short_jobs_queue_what_frees_in_two_round_trips)
{
    // 2 slots of 4 ms jobs: 500 ends per second, 0.5 in a 1 ms round trip: at least one
    BOOST_TEST(claim_ahead_depth({0.004, 0.001, 2, 120.0}) == 1u);
    // a 3 ms round trip: 1.5 end in it, 3 wanted, but no more than the 2 running jobs
    BOOST_TEST(claim_ahead_depth({0.004, 0.003, 2, 120.0}) == 2u);
    // 128 slots of 10 s jobs, 10 ms round trips: 0.128 end in one: one queued job
    BOOST_TEST(claim_ahead_depth({10.0, 0.01, 128, 120.0}) == 1u);
    // 64 slots of 1 ms jobs: capped at 16
    BOOST_TEST(claim_ahead_depth({0.001, 0.005, 64, 120.0}) == 16u);
    // a 0 s job counts as 1 ms, not as an infinite rate
    BOOST_TEST(claim_ahead_depth({0.0, 0.001, 1, 120.0}) == 1u);
}

BOOST_AUTO_TEST_CASE(long_jobs_on_few_slots_queue_nothing)
{
    // one slot of one-hour jobs under a 120 s lease: a queued job would wait an hour
    BOOST_TEST(claim_ahead_depth({3600.0, 0.01, 1, 120.0}) == 0u);
    // 128 such slots: one ends every 28 s, within a quarter of the lease (30 s): one
    BOOST_TEST(claim_ahead_depth({3600.0, 0.01, 128, 120.0}) == 1u);
}

BOOST_AUTO_TEST_CASE(the_average_follows_recent_values)
{
    using torcrun::core::moving_average;
    BOOST_TEST(moving_average(std::nullopt, 2.0) == 2.0);
    BOOST_TEST(moving_average(2.0, 7.0) == 3.0);
}

BOOST_AUTO_TEST_SUITE_END()
