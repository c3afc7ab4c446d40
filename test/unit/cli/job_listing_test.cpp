// The --status list of `torcrun jobs` (order kept, repeats once, unknown and empty entries
// named) and the cells of a job's latest attempt, known and unknown.
#include "torcrun/cli/job_listing.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;
using st = core::job_status;

BOOST_AUTO_TEST_SUITE(job_listing)

BOOST_AUTO_TEST_CASE(status_lists_are_read_in_order)
{
    auto list = core::parse_status_list("failed,canceled,failed");
    BOOST_TEST_REQUIRE(list.has_value());
    BOOST_TEST((*list == std::vector<st>{st::failed, st::canceled}));
    auto one = core::parse_status_list("ready");
    BOOST_TEST_REQUIRE(one.has_value());
    BOOST_TEST((*one == std::vector<st>{st::ready}));
}

BOOST_AUTO_TEST_CASE(status_lists_name_what_is_wrong)
{
    auto unknown = core::parse_status_list("failed,bogus");
    BOOST_TEST_REQUIRE(!unknown.has_value());
    BOOST_TEST(unknown.error().message.starts_with("job status: \"bogus\" is not one of "));
    auto empty = core::parse_status_list("failed,");
    BOOST_TEST_REQUIRE(!empty.has_value());
    BOOST_TEST(empty.error().message == "--status: an empty status in \"failed,\"");
}

BOOST_AUTO_TEST_CASE(attempt_cells_show_what_is_known)
{
    core::attempt_facts f;
    f.attempts = 2;
    f.start_unix = 1751302800.7;
    f.seconds = 65;
    f.node = "n1";
    f.peak_memory_bytes = 512ULL << 20;
    f.peak_cpu_percent = 97.54;
    f.log_dir = "D/jobs/wf1_j4/r0_a2";
    f.gpu_ids = std::vector<std::string>{"1", "3"};
    BOOST_TEST((core::attempt_cells(f) ==
                std::vector<std::string>{"2", "2025-06-30T17:00:00Z", "1m05s", "n1", "1,3",
                                         "512.0 MiB", "97.5%", "D/jobs/wf1_j4/r0_a2"}));
    f.gpu_ids = std::vector<std::string>{};
    BOOST_TEST(core::attempt_cells(f)[4] == "none");
    BOOST_TEST((core::attempt_cells({}) ==
                std::vector<std::string>{"0", "-", "-", "-", "-", "-", "-", "-"}));
    BOOST_TEST(core::attempt_headings().size() == core::attempt_cells({}).size());
}

BOOST_AUTO_TEST_CASE(gpu_cells_show_peak_and_average_or_a_dash)
{
    core::attempt_facts f;
    f.attempts = 1;
    f.gpu_ids = std::vector<std::string>{"GPU-aaaa"};
    f.peak_gpu_percent = 98.04;
    f.avg_gpu_percent = 41.26;
    f.peak_gpu_memory_bytes = 3ULL << 30;
    f.bound_cpus = "0-3";
    auto const headings = core::attempt_headings(true);
    auto const cells = core::attempt_cells(f, true);
    BOOST_TEST_REQUIRE(headings.size() == cells.size());
    std::vector<std::string> const want_h{"ATTEMPTS", "START", "DURATION", "NODE",
                                          "GPUS",     "PEAK_RSS", "PEAK_CPU", "GPU_UTIL",
                                          "GPU_MEM",  "CPUS",  "LOGS"};
    BOOST_TEST(headings == want_h, boost::test_tools::per_element());
    BOOST_TEST(cells[4] == "GPU-aaaa");
    BOOST_TEST(cells[7] == "98.0%/41.3%");
    BOOST_TEST(cells[8] == "3.0 GiB");
    BOOST_TEST(cells[9] == "0-3");
    // Held a GPU, nothing measured (no NVML), not bound: dashes.
    core::attempt_facts unmeasured;
    unmeasured.gpu_ids = std::vector<std::string>{"0"};
    auto const dashes = core::attempt_cells(unmeasured, true);
    BOOST_TEST(dashes[7] == "-");
    BOOST_TEST(dashes[8] == "-");
    BOOST_TEST(dashes[9] == "-");
    // A MIG device: memory measured, utilisation not.
    unmeasured.peak_gpu_memory_bytes = 1ULL << 20;
    BOOST_TEST(core::attempt_cells(unmeasured, true)[7] == "-");
    BOOST_TEST(core::attempt_cells(unmeasured, true)[8] == "1.0 MiB");
}

BOOST_AUTO_TEST_CASE(origin_cells_name_the_spawning_job)
{
    BOOST_TEST(core::origin_cell("", std::nullopt) == "-");
    BOOST_TEST(core::origin_cell("spawn", std::int64_t{8}) == "spawn by 8");
    BOOST_TEST(core::origin_cell("retry", std::nullopt) == "retry");
}

BOOST_AUTO_TEST_SUITE_END()
