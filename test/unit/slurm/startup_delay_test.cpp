// startup_delay_seconds: Torc's formula at each boundary of its four ranges.
#include "torcrun/slurm/startup_delay.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(startup_delay)

BOOST_AUTO_TEST_CASE(delay_from_the_worker_count)
{
    BOOST_TEST(core::startup_delay_seconds(0) == 0);
    BOOST_TEST(core::startup_delay_seconds(1) == 0);
    BOOST_TEST(core::startup_delay_seconds(2) == 2);
    BOOST_TEST(core::startup_delay_seconds(10) == 10);
    BOOST_TEST(core::startup_delay_seconds(11) == 10);   // 10 + 50/90
    BOOST_TEST(core::startup_delay_seconds(28) == 20);   // 10 + 900/90
    BOOST_TEST(core::startup_delay_seconds(55) == 35);   // 10 + 2250/90
    BOOST_TEST(core::startup_delay_seconds(100) == 60);  // 10 + 4500/90
    BOOST_TEST(core::startup_delay_seconds(101) == 60);
    BOOST_TEST(core::startup_delay_seconds(5000) == 60);
}

BOOST_AUTO_TEST_SUITE_END()
