// Peak and average memory and CPU of a job from scripted sample sequences: rates per interval,
// time weighting, several cores, samples that go down, the exit's exact totals with and without
// samples, and every rejected call verbatim (a rejected call changes nothing).
#include "torcrun/worker/usage_stats.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(usage_stats)

using step = std::variant<core::usage_sample, core::exit_usage>;
constexpr std::uint64_t mib = 1ULL << 20, gib = 1ULL << 30;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

core::result<void> apply(core::usage_stats& stats, step const& s)
{
    if (auto const* sample = std::get_if<core::usage_sample>(&s)) return stats.add(*sample);
    return stats.finish(std::get<core::exit_usage>(s));
}

struct scenario {
    std::string name;
    std::vector<step> steps;
    core::usage_summary expected;
};
std::ostream& operator<<(std::ostream& os, scenario const& s) { return os << s.name; }

std::vector<scenario> const scenarios{
    {"nothing yet", {}, {0, 0, 0, 0, 0}},
    {"one sample rates the time since the spawn",
     {core::usage_sample{2, 100 * mib, 1}},
     {100 * mib, 100 * mib, 50, 50, 1}},
    {"intervals are rated one by one, averages weighted by time",
     {core::usage_sample{1, 100 * mib, 0.5}, core::usage_sample{2, 300 * mib, 1.5},
      core::usage_sample{4, 200 * mib, 1.5}},
     // CPU 50 %, 100 %, 0 %: 1.5 s over 4 s. Memory (100 + 300 + 2 x 200) / 4.
     {300 * mib, 200 * mib, 100, 37.5, 3}},
    {"a tree busy on three cores shows 300 %",
     {core::usage_sample{1, 0, 3}, core::usage_sample{3, 0, 7}},
     {0, 0, 300, 700.0 / 3, 2}},
    {"CPU that goes down counts as zero for that interval",
     {core::usage_sample{1, 0, 2}, core::usage_sample{2, 0, 1}, core::usage_sample{3, 0, 2.5}},
     {0, 0, 200, 3.5 / 3 * 100, 3}},
    {"uneven intervals",
     {core::usage_sample{0.25, 4 * gib, 0.25}, core::usage_sample{10.25, 8 * gib, 5.25}},
     {8 * gib, (4 * gib / 4 + 8 * gib * 10) * 4 / 41, 100, 5.25 / 10.25 * 100, 2}},
    {"large memory stays exact",
     {core::usage_sample{1, 512 * gib + 2, 0}, core::usage_sample{2, 512 * gib, 0}},
     {512 * gib + 2, 512 * gib + 1, 0, 0, 2}},
    {"a job never sampled is rated by its exit alone",
     {core::exit_usage{0.5, 0.25, 1000}},
     {1000, 1000, 50, 50, 0}},
    {"the exit tail counts for the average; the peak rises only to the average",
     {core::usage_sample{1, 100, 0.5}, core::usage_sample{2, 100, 1.0},
      core::exit_usage{2.5, 1.4, 150}},
     {150, 100, 56, 56, 2}},
    {"samples that saw no CPU leave the peak at the exit's whole-life rate, not 0",
     // A sleeping job: its samples round to no CPU, the exit's totals hold 0.03 s in 5 s.
     {core::usage_sample{1, 100, 0}, core::usage_sample{3, 100, 0},
      core::exit_usage{5, 0.03, 100}},
     {100, 100, 0.6, 0.6, 2}},
    {"the exit may come at the instant of the last sample",
     {core::usage_sample{1, 10, 1}, core::exit_usage{1, 1, 0}},
     {10, 10, 100, 100, 1}},
    {"an exit total below the samples (orphans left the tree) adds nothing",
     {core::usage_sample{1, 0, 2}, core::exit_usage{2, 1, 0}},
     {0, 0, 200, 100, 1}},
    {"the largest single process raises the memory peak",
     {core::usage_sample{1, 10 * mib, 0}, core::exit_usage{2, 0, 64 * mib}},
     {64 * mib, 10 * mib, 0, 0, 1}},
};

void check_summary(core::usage_summary const& got, core::usage_summary const& expected)
{
    BOOST_TEST(got.peak_memory_bytes == expected.peak_memory_bytes);
    BOOST_TEST(got.avg_memory_bytes == expected.avg_memory_bytes);
    BOOST_TEST(got.peak_cpu_percent == expected.peak_cpu_percent, tt::tolerance(1e-9));
    BOOST_TEST(got.avg_cpu_percent == expected.avg_cpu_percent, tt::tolerance(1e-9));
    BOOST_TEST(got.sample_count == expected.sample_count);
}

BOOST_DATA_TEST_CASE(scenarios_summarise_as_expected, bdata::make(scenarios), sample)
{
    core::usage_stats stats;
    for (auto const& s : sample.steps) {
        auto const ok = apply(stats, s);
        BOOST_TEST_REQUIRE(ok.has_value(), ok.error().message);
    }
    check_summary(stats.summary(), sample.expected);
}

struct rejection {
    std::vector<step> accepted;
    step rejected;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, rejection const& r) { return os << r.message; }

std::vector<rejection> const rejections{
    {{}, core::usage_sample{0, 0, 0}, "usage: 0 s is not after the spawn"},
    {{}, core::usage_sample{-1, 0, 0}, "usage: -1 s is not after the spawn"},
    {{}, core::usage_sample{nan, 0, 0}, "usage: nan s is not after the spawn"},
    {{core::usage_sample{2, 5, 1}},
     core::usage_sample{2, 5, 1},
     "usage: 2 s is not after the previous sample at 2 s"},
    {{core::usage_sample{2.5, 5, 1}},
     core::usage_sample{2, 5, 1},
     "usage: 2 s is not after the previous sample at 2.5 s"},
    {{}, core::usage_sample{1, 0, -1}, "usage: CPU time -1 s is not a non-negative number"},
    {{core::usage_sample{1, 7, 1}},
     core::usage_sample{2, 0, nan},
     "usage: CPU time nan s is not a non-negative number"},
    {{core::exit_usage{1, 0, 0}},
     core::exit_usage{2, 0, 0},
     "usage: the record is already finished"},
    {{core::exit_usage{1, 0, 0}},
     core::usage_sample{2, 0, 0},
     "usage: the record is already finished"},
    {{core::usage_sample{3, 1, 1}},
     core::exit_usage{2, 1, 1},
     "usage: the exit at 2 s is before the last sample at 3 s"},
    {{}, core::exit_usage{0, 1, 1}, "usage: the exit at 0 s is not after the spawn"},
    {{core::usage_sample{1, 1, 1}},
     core::exit_usage{2, -0.5, 1},
     "usage: CPU time -0.5 s is not a non-negative number"},
};

BOOST_DATA_TEST_CASE(rejected_calls_say_why_and_change_nothing, bdata::make(rejections), sample)
{
    core::usage_stats stats;
    for (auto const& s : sample.accepted) BOOST_TEST_REQUIRE(apply(stats, s).has_value());
    auto const before = stats.summary();
    auto const result = apply(stats, sample.rejected);
    BOOST_TEST_REQUIRE(result.has_error());
    BOOST_TEST(result.error().message == sample.message);
    check_summary(stats.summary(), before);
}

BOOST_AUTO_TEST_CASE(a_rejected_sample_leaves_the_next_one_rated_from_the_last_good_one)
{
    core::usage_stats stats;
    BOOST_TEST_REQUIRE(stats.add({1, 0, 1}).has_value());
    BOOST_TEST_REQUIRE(stats.add({0.5, 0, 9}).has_error());
    BOOST_TEST_REQUIRE(stats.add({2, 0, 1.5}).has_value());
    check_summary(stats.summary(), {0, 0, 100, 75, 2});
}

BOOST_AUTO_TEST_SUITE_END()
