// The accept loop's decisions: the default connection cap from the descriptor limit, the pause
// after a failed accept, and one report per interval with the count of failures it covers.
#include "torcrun/server/accept_policy.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <ostream>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(accept_policy)

struct cap_case {
    std::uint64_t fd_limit;
    std::size_t cap;
};
std::ostream& operator<<(std::ostream& os, cap_case const& c) { return os << c.fd_limit; }

std::vector<cap_case> const caps{
    {0, 1},        {10, 1},       {64, 1},     {65, 1},        {100, 36},
    {256, 192},    {1024, 768},   {4096, 3072}, {65536, 49152}, {1048576, 786432},
};

BOOST_DATA_TEST_CASE(cap_leaves_a_quarter_and_at_least_64_descriptors, bdata::make(caps), c) {
    BOOST_TEST(core::connection_cap_for(c.fd_limit) == c.cap);
}

BOOST_AUTO_TEST_CASE(backoff_doubles_from_50_ms_to_1_s) {
    std::vector<long> got;
    for (std::size_t n = 1; n <= 8; ++n) got.push_back(core::accept_backoff(n).count());
    std::vector<long> const want{50, 100, 200, 400, 800, 1000, 1000, 1000};
    BOOST_TEST(got == want, boost::test_tools::per_element());
    BOOST_TEST(core::accept_backoff(0).count() == 50);
    BOOST_TEST(core::accept_backoff(1000000).count() == 1000);
}

BOOST_AUTO_TEST_CASE(reports_the_first_failure_then_one_count_per_interval) {
    core::accept_failure_log log(10s);
    auto const t0 = std::chrono::steady_clock::time_point{} + 1000h;
    BOOST_TEST(log.failed(t0).value_or(0) == 1U);
    for (int i = 1; i <= 99; ++i) BOOST_TEST(!log.failed(t0 + i * 100ms).has_value());
    BOOST_TEST(log.failures_in_a_row() == 100U);
    // 99 failures since the first report, plus this one.
    BOOST_TEST(log.failed(t0 + 10s).value_or(0) == 100U);
    BOOST_TEST(!log.failed(t0 + 19s).has_value());
    BOOST_TEST(log.failures_in_a_row() == 102U);
    BOOST_TEST(log.succeeded() == 102U);
    BOOST_TEST(log.failures_in_a_row() == 0U);
    BOOST_TEST(log.succeeded() == 0U);
    // A new run is reported at once, with only its own failures.
    BOOST_TEST(log.failed(t0 + 20s).value_or(0) == 1U);
}

BOOST_AUTO_TEST_SUITE_END()
