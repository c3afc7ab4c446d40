// core::node_usage: /proc/stat's cpu line and /proc/meminfo read from captured text, the node's
// samples summed as Torc's compute-node fields, the series kept for time_series, and the node
// usage file written and read back.
#include "torcrun/worker/node_usage.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace core = torcrun::core;
namespace tt = boost::test_tools;

namespace {

// Captured from a 4-CPU machine (cpu0..cpu3 lines shortened).
constexpr char const* stat_a =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 175628 0\n"
    "cpu0 1393280 32966 581917 11725045 5767 0 24051 0 0 0\n"
    "intr 1985218624 19 0 0\nctxt 3581216341\nbtime 1761000000\n";
// 400 ticks later: 100 user, 20 nice, 30 system, 240 idle, 10 iowait.
constexpr char const* stat_b =
    "cpu  10132253 290716 3084749 46828723 16693 0 25195 0 175628 0\n"
    "cpu0 1393300 32966 581917 11725100 5767 0 24051 0 0 0\n";

constexpr char const* meminfo =
    "MemTotal:       16305412 kB\n"
    "MemFree:         1021952 kB\n"
    "MemAvailable:    9876544 kB\n"
    "Buffers:          412360 kB\n";

core::node_reading reading(double seconds, std::uint64_t busy, std::uint64_t total,
                           std::uint64_t used)
{
    return {seconds, {busy, total}, {1000, used}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_usage)

BOOST_AUTO_TEST_CASE(the_cpu_line_splits_into_busy_and_idle_ticks)
{
    auto const a = core::parse_cpu_times(stat_a);
    BOOST_TEST_REQUIRE(a.has_value());
    // guest (175628) is inside user already and not added again.
    BOOST_TEST(a->busy == 10132153u + 290696u + 3084719u + 0u + 25195u + 0u);
    BOOST_TEST(a->total == a->busy + 46828483u + 16683u);
    auto const b = core::parse_cpu_times(stat_b);
    BOOST_TEST(b->busy - a->busy == 150u);
    BOOST_TEST(b->total - a->total == 400u);
}

BOOST_AUTO_TEST_CASE(an_old_kernel_s_short_cpu_line_is_read)
{
    auto const t = core::parse_cpu_times("cpu 5 1 4 90\n");
    BOOST_TEST_REQUIRE(t.has_value());
    BOOST_TEST((*t == core::cpu_times{10, 100}));
}

BOOST_AUTO_TEST_CASE(bad_stat_text_is_named)
{
    BOOST_TEST(core::parse_cpu_times("cpu0 1 2 3 4\n").error().message ==
               "/proc/stat: no \"cpu\" line");
    BOOST_TEST(core::parse_cpu_times("cpu  1 x 3 4\n").error().message ==
               "/proc/stat: cpu field 2 \"x\" is not a number");
    BOOST_TEST(core::parse_cpu_times("cpu  1 2\n").error().message ==
               "/proc/stat: the cpu line has fewer than 4 fields");
}

BOOST_AUTO_TEST_CASE(memory_used_is_total_less_available)
{
    auto const m = core::parse_meminfo(meminfo);
    BOOST_TEST_REQUIRE(m.has_value());
    BOOST_TEST(m->total_bytes == 16305412ull * 1024);
    BOOST_TEST(m->used_bytes == (16305412ull - 9876544ull) * 1024);
}

BOOST_AUTO_TEST_CASE(bad_meminfo_text_is_named)
{
    BOOST_TEST(core::parse_meminfo("MemTotal: 10 kB\nMemFree: 5 kB\n").error().message ==
               "/proc/meminfo: no \"MemAvailable\" line");
    BOOST_TEST(core::parse_meminfo("MemTotal: lots kB\nMemAvailable: 5 kB\n").error().message ==
               "/proc/meminfo: MemTotal \"lots kB\" is not a number of kB");
}

BOOST_AUTO_TEST_CASE(samples_make_torc_s_peak_and_plain_mean)
{
    core::node_usage u({});
    u.add(reading(0, 0, 0, 100));  // the baseline: no sample yet
    BOOST_TEST(u.summary().sample_count == 0u);
    u.add(reading(1, 50, 100, 300));    // 50 %
    u.add(reading(2, 60, 200, 500));    // 10 %
    u.add(reading(2, 999, 999, 999));   // not after the previous: ignored
    u.add(reading(3, 150, 300, 400));   // 90 %
    auto const s = u.summary();
    BOOST_TEST(s.sample_count == 3u);
    BOOST_TEST(s.peak_cpu_percent == 90.0, tt::tolerance(1e-9));
    BOOST_TEST(s.avg_cpu_percent == 50.0, tt::tolerance(1e-9));
    BOOST_TEST(s.peak_memory_bytes == 500u);
    BOOST_TEST(s.avg_memory_bytes == 400u);
    BOOST_TEST(u.points().empty());  // summary granularity keeps no series
}

BOOST_AUTO_TEST_CASE(a_figure_turned_off_is_recorded_as_zero)
{
    core::node_usage u({.cpu = false, .memory = true, .keep_series = false});
    u.add(reading(0, 0, 0, 100));
    u.add(reading(1, 100, 100, 300));
    BOOST_TEST(u.summary().peak_cpu_percent == 0.0);
    BOOST_TEST(u.summary().peak_memory_bytes == 300u);
    core::node_usage v({.cpu = true, .memory = false, .keep_series = false});
    v.add(reading(0, 0, 0, 100));
    v.add(reading(1, 100, 100, 300));
    BOOST_TEST(v.summary().peak_cpu_percent == 100.0);
    BOOST_TEST(v.summary().peak_memory_bytes == 0u);
    BOOST_TEST(v.total_memory_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(counters_that_did_not_move_or_went_back_give_zero_cpu)
{
    core::node_usage u({});
    u.add(reading(0, 50, 100, 1));
    u.add(reading(1, 50, 100, 1));  // no tick elapsed
    u.add(reading(2, 40, 200, 1));  // busy went back
    BOOST_TEST(u.summary().sample_count == 2u);
    BOOST_TEST(u.summary().peak_cpu_percent == 0.0);
}

BOOST_AUTO_TEST_CASE(time_series_keeps_each_sample_s_cpu_percent)
{
    core::node_usage u({.cpu = true, .memory = true, .keep_series = true});
    u.add(reading(0, 0, 0, 100));
    u.add(reading(1, 50, 100, 300));
    u.add(reading(3, 60, 200, 500));
    auto const p = u.points();
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST(p[0].seconds == 1.0);
    BOOST_TEST(p[0].cpu_percent == 50.0, tt::tolerance(1e-9));
    BOOST_TEST(p[0].memory_bytes == 300u);
    BOOST_TEST(p[1].seconds == 3.0);
    BOOST_TEST(p[1].cpu_percent == 10.0, tt::tolerance(1e-9));
    BOOST_TEST(u.total_memory_bytes() == 1000u);
}

BOOST_AUTO_TEST_CASE(a_long_life_keeps_at_most_80_points)
{
    core::node_usage u({.cpu = true, .memory = true, .keep_series = true});
    for (int i = 0; i <= 1000; ++i)
        u.add(reading(i, static_cast<std::uint64_t>(i) * 25, static_cast<std::uint64_t>(i) * 100,
                      7));
    BOOST_TEST(u.points().size() <= core::usage_series_capacity);
    BOOST_TEST(u.points().size() >= core::usage_series_capacity / 2);
    BOOST_TEST(u.points().back().cpu_percent == 25.0, tt::tolerance(1e-6));
    BOOST_TEST(u.summary().sample_count == 1000u);
}

BOOST_AUTO_TEST_CASE(the_node_usage_file_is_read_back)
{
    core::node_series s{7, "n1", 1761000000.5, 4096, {{1, 50, 300}, {2.5, 12.5, 400}}};
    auto const text = core::node_series_json(s);
    BOOST_TEST(text ==
               R"({"compute_node_id":7,"hostname":"n1","start_unix":1.7610000005E9,)"
               R"("total_memory_bytes":4096,"seconds":[1E0,2.5E0],"cpu_percent":[5E1,1.25E1],)"
               R"("memory_bytes":[300,400]})");
    auto const back = core::parse_node_series(text, "node_usage_7.json");
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(back->compute_node_id == 7);
    BOOST_TEST(back->hostname == "n1");
    BOOST_TEST(back->start_unix == 1761000000.5);
    BOOST_TEST(back->total_memory_bytes == 4096u);
    BOOST_TEST((back->points == s.points));
    BOOST_TEST(core::node_usage_file_name(7) == "node_usage_7.json");
}

BOOST_AUTO_TEST_CASE(a_bad_node_usage_file_is_named)
{
    BOOST_TEST(core::parse_node_series("[", "n.json").error().message.starts_with(
        "n.json: not JSON"));
    BOOST_TEST(core::parse_node_series(
                   R"({"compute_node_id":7,"seconds":[],"cpu_percent":[],"memory_bytes":[]})",
                   "n.json")
                   .error()
                   .message == "n.json: \"start_unix\" is missing or not a number");
    BOOST_TEST(core::parse_node_series(
                   R"({"start_unix":1,"seconds":[],"cpu_percent":[],"memory_bytes":[]})",
                   "n.json")
                   .error()
                   .message == "n.json: \"compute_node_id\" is missing or not an integer");
}

BOOST_AUTO_TEST_SUITE_END()
