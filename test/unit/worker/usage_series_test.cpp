// core::usage_series: the bounded per-job series (merging keeps the CPU rate and the memory
// peak, the points stay spread over the whole life) and its usage.json text.
#include "torcrun/worker/usage_series.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(usage_series)

BOOST_AUTO_TEST_CASE(each_sample_is_a_point_while_there_is_room)
{
    core::usage_series s(8);
    s.add({1, 100, 0.5});  // half a core in the first second
    s.add({2, 300, 2.5});  // two cores in the next
    s.add({2, 999, 9.0});  // not after the previous: ignored
    auto const p = s.points();
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST((p[0] == core::usage_point{1, 50, 100}));
    BOOST_TEST(p[1].seconds == 2.0);
    BOOST_TEST(p[1].cpu_percent == 200.0, tt::tolerance(1e-9));
    BOOST_TEST(p[1].memory_bytes == 300u);
}

BOOST_AUTO_TEST_CASE(a_long_job_keeps_at_most_capacity_points_spread_over_its_life)
{
    core::usage_series s(8);
    // 1000 samples a second apart, one core busy, memory peaking once at sample 333.
    for (int i = 1; i <= 1000; ++i)
        s.add({static_cast<double>(i), i == 333 ? 5000u : 10u, static_cast<double>(i)});
    auto const p = s.points();
    BOOST_TEST(p.size() <= 8u);
    BOOST_TEST(p.size() >= 4u);
    BOOST_TEST(p.back().seconds == 1000.0);       // the newest sample is always there
    BOOST_TEST(p.front().seconds <= 1000.0 / 4);  // and the start is not dropped
    bool peak_kept = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        BOOST_TEST(p[i].cpu_percent == 100.0, tt::tolerance(1e-9));  // mean rate of merged parts
        if (i > 0) BOOST_TEST(p[i].seconds > p[i - 1].seconds);
        peak_kept = peak_kept || p[i].memory_bytes == 5000u;
    }
    BOOST_TEST(peak_kept);
    BOOST_TEST(s.stride() >= 128u);
}

BOOST_AUTO_TEST_CASE(merging_averages_the_cpu_of_the_merged_stretches)
{
    core::usage_series s(2);
    s.add({1, 10, 1.0});  // 100 %
    s.add({2, 20, 1.0});  // 0 %: the points fill up and merge into one stretch [0, 2]
    auto p = s.points();
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST((p[0] == core::usage_point{2, 50, 20}));
    s.add({3, 5, 2.0});  // collected: the stride is 2 now, shown as the open stretch
    p = s.points();
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST((p[1] == core::usage_point{3, 100, 5}));
}

BOOST_AUTO_TEST_CASE(cpu_totals_that_go_down_count_as_no_cpu)
{
    core::usage_series s(4);
    s.add({1, 1, 2.0});
    s.add({2, 1, 1.0});
    BOOST_TEST(s.points()[1].cpu_percent == 0.0);
}

BOOST_AUTO_TEST_CASE(the_json_reads_back_as_written)
{
    std::vector<core::usage_point> const points{{0.5, 12.5, 4096}, {1.5, 250, 1u << 20}};
    auto const text = core::usage_series_json(points);
    BOOST_TEST(text == R"({"seconds":[5E-1,1.5E0],"cpu_percent":[1.25E1,2.5E2],)"
                       R"("memory_bytes":[4096,1048576]})");
    auto const back = core::parse_usage_series(text);
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((*back == points));
    BOOST_TEST(core::parse_usage_series(core::usage_series_json({}))->empty());
}

BOOST_AUTO_TEST_CASE(bad_usage_json_is_named)
{
    auto const message = [](std::string const& text) {
        auto const r = core::parse_usage_series(text);
        return r ? std::string("accepted") : r.error().message;
    };
    BOOST_TEST(message("{").rfind("usage.json: not JSON: ", 0) == 0u);
    BOOST_TEST(message("[]") == "usage.json: not an object");
    BOOST_TEST(message(R"({"seconds":[],"cpu_percent":[]})") ==
               "usage.json: \"memory_bytes\" is missing or not an array");
    BOOST_TEST(message(R"({"seconds":[1,2],"cpu_percent":[1],"memory_bytes":[1,2]})") ==
               "usage.json: the arrays have 2, 1 and 2 entries");
    BOOST_TEST(message(R"({"seconds":[1,"x"],"cpu_percent":[1,2],"memory_bytes":[1,2]})") ==
               "usage.json: seconds[1] is not a number");
    BOOST_TEST(message(R"({"seconds":[1],"cpu_percent":[1],"memory_bytes":[-1]})") ==
               "usage.json: memory_bytes[0] is not a byte count");
}

BOOST_AUTO_TEST_SUITE_END()
