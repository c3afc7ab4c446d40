// Backoff windows per attempt, the jitter's ends, clamping of odd inputs, and a sweep that the
// delay stays within [min, max] and its window never shrinks as attempts grow.
#include "torcrun/worker/retry_backoff.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <climits>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using ms = std::chrono::milliseconds;

namespace {

struct backoff_case {
    std::string name;
    int attempt;
    ms min;
    ms max;
    double random01;
    ms delay;
};
std::ostream& operator<<(std::ostream& os, backoff_case const& c) { return os << c.name; }

std::vector<backoff_case> const cases{
    {"first retry, low end", 1, ms(100), ms(10'000), 0.0, ms(100)},
    {"first retry, high end", 1, ms(100), ms(10'000), 1.0, ms(200)},
    {"first retry, middle", 1, ms(100), ms(10'000), 0.5, ms(150)},
    {"third retry, high end", 3, ms(100), ms(10'000), 1.0, ms(800)},
    {"third retry, a quarter", 3, ms(100), ms(10'000), 0.25, ms(275)},
    {"capped at max", 10, ms(100), ms(10'000), 1.0, ms(10'000)},
    {"capped window, low end stays min", 10, ms(100), ms(10'000), 0.0, ms(100)},
    {"attempt 0 counts as 1", 0, ms(100), ms(10'000), 1.0, ms(200)},
    {"negative attempt counts as 1", -7, ms(100), ms(10'000), 1.0, ms(200)},
    {"random above 1 is clamped", 2, ms(100), ms(10'000), 7.5, ms(400)},
    {"random below 0 is clamped", 2, ms(100), ms(10'000), -1.0, ms(100)},
    {"NaN counts as 0", 2, ms(100), ms(10'000), std::nan(""), ms(100)},
    {"max below min is min", 5, ms(500), ms(100), 1.0, ms(500)},
    {"min 0 never grows", 30, ms(0), ms(10'000), 1.0, ms(0)},
    {"negative min is 0", 3, ms(-50), ms(10'000), 1.0, ms(0)},
    {"huge attempt does not overflow", INT_MAX, ms(1), ms(60'000), 1.0, ms(60'000)},
    {"huge max does not overflow", 80, ms(1), ms(std::numeric_limits<std::int64_t>::max()), 1.0,
     ms(std::numeric_limits<std::int64_t>::max())},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(retry_backoff)

BOOST_DATA_TEST_CASE(exponential_with_full_jitter, bdata::make(cases), c)
{
    BOOST_TEST(core::backoff(c.attempt, c.min, c.max, c.random01).count() == c.delay.count());
}

BOOST_AUTO_TEST_CASE(delays_stay_within_bounds_and_windows_grow)
{
    ms previous_top{0};
    for (int attempt = 1; attempt <= 40; ++attempt) {
        auto const top = core::backoff(attempt, ms(250), ms(120'000), 1.0);
        BOOST_TEST(top >= previous_top);
        previous_top = top;
        for (double r = 0.0; r <= 1.0; r += 0.125) {
            auto const d = core::backoff(attempt, ms(250), ms(120'000), r);
            BOOST_TEST(d >= ms(250));
            BOOST_TEST(d <= top);
        }
    }
    BOOST_TEST(previous_top == ms(120'000));
}

BOOST_AUTO_TEST_SUITE_END()
