// Reading sstat's and sacct's tables of a step's usage, as Slurm 22.05 prints them.
#include "torcrun/slurm/step_stats.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(step_stats)

BOOST_AUTO_TEST_CASE(sizes_in_slurm_units)
{
    BOOST_TEST(core::parse_slurm_size("320636K").value() == 320636ull * 1024);
    BOOST_TEST(core::parse_slurm_size("1.50M").value() == 1572864ull);
    BOOST_TEST(core::parse_slurm_size("2G").value() == 2ull << 30);
    BOOST_TEST(core::parse_slurm_size("0").value() == 0u);
    BOOST_TEST(core::parse_slurm_size("4096").value() == 4096u);
    BOOST_TEST(core::parse_slurm_size("12Q").error().message == "\"12Q\" is not a size");
    BOOST_TEST(!core::parse_slurm_size(""));
    BOOST_TEST(!core::parse_slurm_size("K"));
    BOOST_TEST(!core::parse_slurm_size("-1K"));
    BOOST_TEST(!core::parse_slurm_size("inf"));
    BOOST_TEST(!core::parse_slurm_size("16384P"));  // 2^64 bytes
    BOOST_TEST(core::parse_slurm_size("16383P").value() == 16383ull << 50);
}

BOOST_AUTO_TEST_CASE(cpu_times_in_each_of_slurms_forms)
{
    BOOST_TEST(core::parse_slurm_cpu_time("00:00:01").value() == 1.0);
    BOOST_TEST(core::parse_slurm_cpu_time("01:02:03").value() == 3723.0);
    BOOST_TEST(core::parse_slurm_cpu_time("01:02.500").value() == 62.5);
    BOOST_TEST(core::parse_slurm_cpu_time("1-02:03:04").value() == 93784.0);
    BOOST_TEST(core::parse_slurm_cpu_time("12.5").value() == 12.5);
    BOOST_TEST(core::parse_slurm_cpu_time("1:x").error().message == "\"1:x\" is not a CPU time");
    BOOST_TEST(!core::parse_slurm_cpu_time("00:61:00"));
    BOOST_TEST(!core::parse_slurm_cpu_time("1-02:03"));
    BOOST_TEST(!core::parse_slurm_cpu_time("1:2:3:4"));
    BOOST_TEST(!core::parse_slurm_cpu_time(""));
    BOOST_TEST(!core::parse_slurm_cpu_time("1e308-00:00:00"));
    BOOST_TEST(!core::parse_slurm_cpu_time("nan"));
}

// sstat -P -o JobID,MaxRSS,TRESUsageInTot,NodeList -j 1.0,1.1 on the lab cluster.
BOOST_AUTO_TEST_CASE(an_sstat_table_gives_one_reading_per_step)
{
    auto const table =
        "JobID|MaxRSS|TRESUsageInTot|NodeList\n"
        "1.0|320636K|cpu=00:00:07,energy=0,fs/disk=1685845,mem=320636K,pages=0,vmem=323772K|n1\n"
        "1.1|13460K|cpu=00:01:02,energy=0,mem=13000K,pages=0|n[1-2]\n";
    auto const readings = core::parse_step_readings(table).value();
    BOOST_TEST_REQUIRE(readings.size() == 2u);
    BOOST_TEST(readings[0].step_id == "1.0");
    BOOST_TEST(readings[0].max_rss_bytes.value() == 320636ull * 1024);
    BOOST_TEST(readings[0].rss_bytes.value() == 320636ull * 1024);
    BOOST_TEST(readings[0].cpu_seconds.value() == 7.0);
    BOOST_TEST(readings[0].nodes == "n1");
    BOOST_TEST(readings[1].cpu_seconds.value() == 62.0);
    BOOST_TEST(readings[1].rss_bytes.value() == 13000ull * 1024);
    BOOST_TEST(readings[1].nodes == "n[1-2]");
    BOOST_TEST(readings[1].name.empty());
}

// sacct -P -o JobID,JobName,MaxRSS,TotalCPU,NodeList -j 7: the allocation, its steps.
BOOST_AUTO_TEST_CASE(an_sacct_table_reads_by_its_own_columns)
{
    auto const table = "JobID|JobName|MaxRSS|TotalCPU|NodeList\n"
                       "7|alloc||00:12.100|n[1-2]\n"
                       "7.0|wf1_j3_r1_a1|307200K|00:09.250|n2\n";
    auto const readings = core::parse_step_readings(table, "sacct").value();
    BOOST_TEST_REQUIRE(readings.size() == 2u);
    BOOST_TEST(!readings[0].max_rss_bytes.has_value());
    BOOST_TEST(readings[1].name == "wf1_j3_r1_a1");
    BOOST_TEST(readings[1].max_rss_bytes.value() == 307200ull * 1024);
    BOOST_TEST(!readings[1].rss_bytes.has_value());
    BOOST_TEST(readings[1].cpu_seconds.value() == 9.25);
    BOOST_TEST(readings[1].nodes == "n2");
}

BOOST_AUTO_TEST_CASE(empty_answers_and_empty_cells_are_no_figures)
{
    BOOST_TEST(core::parse_step_readings("").value().empty());
    BOOST_TEST(core::parse_step_readings("JobID|MaxRSS\n").value().empty());
    auto const r = core::parse_step_readings("JobID|MaxRSS|TRESUsageInTot\n|5K|\n3.1||\n").value();
    BOOST_TEST_REQUIRE(r.size() == 1u);
    BOOST_TEST(r[0].step_id == "3.1");
    BOOST_TEST(!r[0].max_rss_bytes.has_value());
    BOOST_TEST(!r[0].cpu_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(bad_figures_name_the_line_and_column)
{
    BOOST_TEST(core::parse_step_readings("JobID|MaxRSS\n1.0|12Q\n").error().message ==
               "sstat line 2: MaxRSS \"12Q\" is not a size");
    BOOST_TEST(core::parse_step_readings("JobID|TRESUsageInTot\n1.0|cpu=1:x\n").error().message ==
               "sstat line 2: TRESUsageInTot cpu \"1:x\" is not a CPU time");
    BOOST_TEST(core::parse_step_readings("JobID|TotalCPU\n\n1.0|zz\n", "sacct").error().message ==
               "sacct line 3: TotalCPU \"zz\" is not a CPU time");
    BOOST_TEST(core::parse_step_readings("MaxRSS|NodeList\n5K|n1\n").error().message ==
               "sstat: no JobID column in the header \"MaxRSS|NodeList\"");
}

BOOST_AUTO_TEST_SUITE_END()
