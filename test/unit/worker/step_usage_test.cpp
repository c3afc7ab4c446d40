// A slurm-mode job's usage from Slurm's readings of its step.
#include "torcrun/worker/step_usage.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

namespace {

core::step_reading reading(double cpu, std::uint64_t rss_mib, std::uint64_t max_rss_mib,
                           std::string nodes = "n2")
{
    core::step_reading r;
    r.step_id = "4.0";
    r.cpu_seconds = cpu;
    r.rss_bytes = rss_mib << 20;
    r.max_rss_bytes = max_rss_mib << 20;
    r.nodes = std::move(nodes);
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(step_usage)

BOOST_AUTO_TEST_CASE(a_step_never_read_has_no_figures)
{
    core::step_usage usage;
    BOOST_TEST(!usage.latest().has_value());
    auto const done = usage.finish();
    BOOST_TEST(!done.summary.has_value());
    BOOST_TEST(done.series.empty());
    BOOST_TEST(usage.nodes().empty());
}

// Readings every 2 s of a job busy on one core, Slurm's CPU in whole seconds lagging behind:
// the rates come from 10 s stretches, so the peak is near 100 %, never the 150 % of one 2 s
// stretch (3 s of CPU read between 6 s and 8 s).
BOOST_AUTO_TEST_CASE(cpu_rates_span_the_window_not_one_reading)
{
    core::step_usage usage(10);
    double const cpu[] = {1, 2, 4, 5, 8, 9, 11, 13, 15, 17, 19};
    for (int i = 0; i < 11; ++i) usage.add(2.0 * (i + 1), reading(cpu[i], 300, 300));
    BOOST_TEST(usage.readings() == 11u);
    BOOST_TEST(usage.latest()->cpu_seconds == 19.0);
    auto const done = usage.finish();
    BOOST_TEST_REQUIRE(done.summary.has_value());
    // Samples at 2 s (1 s of CPU), 12 s (9 s: 80 %) and 22 s (19 s: 100 %).
    BOOST_TEST(done.summary->peak_cpu_percent < 110.0);
    BOOST_TEST(done.summary->peak_cpu_percent > 80.0);
    BOOST_TEST(done.summary->avg_cpu_percent == 19.0 / 22.0 * 100, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(done.summary->peak_memory_bytes == 300ull << 20);
    BOOST_TEST(done.summary->avg_memory_bytes == 300ull << 20);
}

BOOST_AUTO_TEST_CASE(a_peak_between_samples_is_kept_and_maxrss_counts)
{
    core::step_usage usage(10);
    usage.add(2, reading(1, 100, 100));
    usage.add(4, reading(3, 900, 900));  // not a sample of the record, but its memory is
    usage.add(6, reading(5, 120, 900));
    usage.add(12, reading(11, 110, 950));  // a sample: memory 900 MiB, the largest since 2 s
    auto const done = usage.finish();
    BOOST_TEST(done.summary->peak_memory_bytes == 950ull << 20);  // MaxRSS above every sample
    BOOST_TEST_REQUIRE(done.series.size() == 2u);
    BOOST_TEST(done.series[1].memory_bytes == 900ull << 20);
    BOOST_TEST(done.series[1].seconds == 12.0);
}

BOOST_AUTO_TEST_CASE(readings_after_the_last_sample_close_the_series)
{
    core::step_usage usage(10);
    usage.add(2, reading(2, 50, 50));
    usage.add(4, reading(4, 60, 60));
    usage.add(6, reading(6, 70, 70));
    auto const done = usage.finish();
    BOOST_TEST_REQUIRE(done.series.size() == 2u);
    BOOST_TEST(done.series.back().seconds == 6.0);
    BOOST_TEST(done.series.back().memory_bytes == 70ull << 20);
    BOOST_TEST(done.summary->avg_cpu_percent == 100.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(done.summary->peak_memory_bytes == 70ull << 20);
}

BOOST_AUTO_TEST_CASE(the_nodes_are_slurms_and_a_reading_without_them_keeps_them)
{
    core::step_usage usage;
    usage.add(2, reading(0, 10, 10, "n[1-2]"));
    usage.add(4, reading(0, 10, 10, ""));
    BOOST_TEST(usage.nodes() == "n[1-2]");
}

BOOST_AUTO_TEST_CASE(a_reading_not_after_the_last_or_missing_figures_changes_nothing_odd)
{
    core::step_usage usage;
    usage.add(3, reading(2, 10, 10));
    usage.add(3, reading(9, 99, 99));  // same instant: ignored
    usage.add(1, reading(9, 99, 99));  // earlier: ignored
    BOOST_TEST(usage.readings() == 1u);
    core::step_reading blank;
    blank.step_id = "4.0";
    usage.add(5, blank);  // no CPU figure: CPU as last read; no memory figure: 0
    BOOST_TEST(usage.latest()->cpu_seconds == 2.0);
    core::step_reading lower = reading(1, 10, 10);  // CPU never goes back
    usage.add(7, lower);
    BOOST_TEST(usage.latest()->cpu_seconds == 2.0);
}

BOOST_AUTO_TEST_SUITE_END()
