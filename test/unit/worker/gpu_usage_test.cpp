// A job's GPU figures from scripted readings: peak and time-weighted average utilisation,
// readings without a utilisation (MIG), peak memory, the bounded series merged, rejected
// readings verbatim, and the JSON written into the attempt record read back.
#include "torcrun/worker/gpu_usage.hpp"

#include <boost/test/unit_test.hpp>

#include <limits>

namespace core = torcrun::core;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(gpu_usage)

BOOST_AUTO_TEST_CASE(peak_and_time_weighted_average)
{
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({1.0, 100.0, 4000, false}).has_value());
    BOOST_TEST(stats.add({4.0, 0.0, 1000, false}).has_value());  // 3 s idle
    auto const s = stats.summary();
    BOOST_TEST(s.sample_count == 2u);
    BOOST_TEST(*s.peak_percent == 100.0);
    BOOST_TEST(*s.avg_percent == 25.0, tt::tolerance(1e-9));  // 100 x 1 s + 0 x 3 s over 4 s
    BOOST_TEST(s.peak_memory_bytes == 4000u);
    BOOST_TEST(!s.per_process);
    BOOST_TEST(s.points.size() == 2u);
}

BOOST_AUTO_TEST_CASE(readings_without_utilisation_count_for_memory_only)
{
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({1.0, std::nullopt, 500, true}).has_value());
    BOOST_TEST(stats.add({2.0, std::nullopt, 700, true}).has_value());
    auto s = stats.summary();
    BOOST_TEST(!s.peak_percent.has_value());
    BOOST_TEST(!s.avg_percent.has_value());
    BOOST_TEST(s.peak_memory_bytes == 700u);
    BOOST_TEST(s.per_process);
    BOOST_TEST(stats.add({4.0, 50.0, 100, false}).has_value());
    s = stats.summary();
    BOOST_TEST(*s.avg_percent == 50.0);  // only the stretch that had a figure
    BOOST_TEST(s.per_process);
}

BOOST_AUTO_TEST_CASE(rejected_readings_change_nothing)
{
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({2.5, 10.0, 1, false}).has_value());
    BOOST_TEST(stats.add({2.0, 10.0, 1, false}).error().message
               == "GPU usage: 2 s is not after the previous reading at 2.5 s");
    BOOST_TEST(stats.add({3.0, -1.0, 1, false}).error().message
               == "GPU usage: utilisation -1.000000 is not a non-negative number");
    BOOST_TEST(stats.add({3.0, std::numeric_limits<double>::quiet_NaN(), 1, false}).has_value()
               == false);
    BOOST_TEST(stats.summary().sample_count == 1u);
}

BOOST_AUTO_TEST_CASE(series_stays_bounded_and_keeps_peaks)
{
    core::gpu_usage_stats stats(4);
    // 1 s each: 0, 100, 0, 100, 0 ... memory peak at the third reading.
    for (int i = 1; i <= 9; ++i)
        BOOST_TEST(stats
                       .add({double(i), i % 2 ? 0.0 : 100.0,
                             static_cast<std::uint64_t>(i == 3 ? 9000 : 10), false})
                       .has_value());
    auto const s = stats.summary();
    BOOST_TEST(s.points.size() <= 4u);
    BOOST_TEST(s.points.back().seconds == 9.0);
    std::uint64_t peak = 0;
    for (auto const& p : s.points) peak = std::max(peak, p.memory_bytes);
    BOOST_TEST(peak == 9000u);
    BOOST_TEST(*s.avg_percent == 400.0 / 9.0, tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(json_round_trip)
{
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({1.0, 80.0, 2048, false}).has_value());
    BOOST_TEST(stats.add({2.0, std::nullopt, 4096, true}).has_value());
    auto const s = stats.summary();
    auto const back = core::gpu_usage_from_json(core::gpu_usage_json(s));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((*back == s));
    BOOST_TEST(core::gpu_usage_from_json(boost::json::object{{"samples", "x"}}).error().message
               == "GPU usage: \"samples\" and \"peak_memory_bytes\" must be non-negative numbers");
    boost::json::object bad{{"samples", 1},
                            {"peak_memory_bytes", 1},
                            {"points", boost::json::array{boost::json::array{1}}}};
    BOOST_TEST(core::gpu_usage_from_json(bad).error().message
               == "GPU usage: a point is not [seconds, percent, bytes]");
}

BOOST_AUTO_TEST_SUITE_END()
