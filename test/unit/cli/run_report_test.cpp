// The HTML report's pure model: escaping of every name, one timeline bar per attempt, GPU lanes
// and node rows packed lowest-first, the allocation's busy CPUs and GPUs as steps, the time scale
// and the server's UTC timestamps.
#include "torcrun/cli/run_report.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

namespace {

core::report_attempt attempt(std::int64_t job, double start, double end, std::int64_t gpus = 0,
                             std::string status = "completed", std::int64_t node = 1)
{
    core::report_attempt a;
    a.job_id = job;
    a.job_name = "j" + std::to_string(job);
    a.compute_node_id = node;
    a.start_seconds = start;
    a.end_seconds = end;
    a.num_gpus = gpus;
    a.status = std::move(status);
    return a;
}

std::size_t count(std::string const& text, std::string const& what)
{
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_report)

BOOST_AUTO_TEST_CASE(escapes_markup)
{
    BOOST_TEST(core::html_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
    BOOST_TEST(core::html_escape("plain") == "plain");
}

BOOST_AUTO_TEST_CASE(every_name_is_escaped_in_the_page)
{
    core::report_input in;
    in.workflow_name = "<script>alert(1)</script>";
    in.nodes = {{1, "host<1>", 4, 0}};
    auto a = attempt(1, 0, 1, 0, "failed");
    a.job_name = "x\"><img src=y>";
    a.log_link = "jobs/a&b";
    a.log_files = {"stderr"};
    in.attempts = {a};
    in.job_counts = {{"failed", 1}};
    auto const page = core::render_report_html(in);
    BOOST_TEST(page.find("<script") == std::string::npos);
    BOOST_TEST(page.find("<img") == std::string::npos);
    BOOST_TEST(page.find("host<1>") == std::string::npos);
    BOOST_TEST(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    BOOST_TEST(page.find("x&quot;&gt;&lt;img src=y&gt;") != std::string::npos);
    BOOST_TEST(page.find("href=\"jobs/a&amp;b/stderr\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(one_bar_per_attempt_and_gpu_bars_per_lane)
{
    core::report_input in;
    in.nodes = {{1, "n1", 4, 2}, {2, "n2", 4, 0}};
    in.attempts = {attempt(1, 0, 2, 2), attempt(2, 1, 3, 0, "failed", 2),
                   attempt(3, 2, 4, 1, "terminated"), attempt(1, 5, 6, 0, "completed", 2)};
    in.attempts[3].attempt_id = 2;
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "<rect class=\"attempt\"") == 4u);
    BOOST_TEST(count(page, "<rect class=\"gpu-bar\"") == 3u);  // 2 lanes + 1 lane
    BOOST_TEST(count(page, "data-attempt=\"1.0.2\"") == 1u);
    BOOST_TEST(count(page, "fill=\"#c62828\"") == 1u);  // the failed one
    BOOST_TEST(count(page, "class=\"usage gpus\"") == 1u);
    BOOST_TEST(page.find("n1 #1 GPU 1") != std::string::npos);
    BOOST_TEST(page.find("n2 #2 GPU") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_gpu_chart_without_gpus)
{
    core::report_input in;
    in.nodes = {{1, "n1", 2, 0}};
    in.attempts = {attempt(1, 0, 1)};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "class=\"usage cpus\"") == 1u);
    BOOST_TEST(count(page, "class=\"usage gpus\"") == 0u);
    BOOST_TEST(page.find("<p>none</p>") != std::string::npos);  // no failures
}

BOOST_AUTO_TEST_CASE(gpu_lanes_lowest_free_first)
{
    std::vector<core::report_attempt> const a{attempt(1, 0, 4, 1), attempt(2, 1, 2, 2),
                                              attempt(3, 2, 3, 1), attempt(4, 0, 9, 0),
                                              attempt(5, 1, 2, 1, "completed", 2)};
    auto const lanes = core::assign_gpu_lanes(a);
    BOOST_TEST(lanes == (std::vector<std::int64_t>{0, 1, 1, -1, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(node_rows_reuse_a_row_once_free)
{
    std::vector<core::report_attempt> const a{attempt(1, 0, 2), attempt(2, 1, 3), attempt(3, 2, 4),
                                              attempt(4, 3, 5), attempt(5, 3.5, 4)};
    auto const rows = core::assign_node_rows(a);
    BOOST_TEST(rows == (std::vector<std::int64_t>{0, 1, 0, 1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(usage_steps_sum_held_resources)
{
    auto a = attempt(1, 0, 4, 1);
    a.num_cpus = 2;
    auto b = attempt(2, 1, 2, 2);
    b.num_cpus = 3;
    auto const steps = core::usage_steps({a, b});
    BOOST_TEST_REQUIRE(steps.size() == 4u);
    BOOST_TEST(steps[0].seconds == 0);
    BOOST_TEST(steps[0].cpus == 2);
    BOOST_TEST(steps[1].cpus == 5);
    BOOST_TEST(steps[1].gpus == 3);
    BOOST_TEST(steps[2].cpus == 2);
    BOOST_TEST(steps[3].seconds == 4);
    BOOST_TEST(steps[3].cpus == 0);
    BOOST_TEST(steps[3].gpus == 0);
}

BOOST_AUTO_TEST_CASE(time_scale)
{
    BOOST_TEST(core::time_to_x(5, 0, 10, 100, 200) == 200);
    BOOST_TEST(core::time_to_x(-1, 0, 10, 100, 200) == 100);  // clamped
    BOOST_TEST(core::time_to_x(20, 0, 10, 100, 200) == 300);
    BOOST_TEST(core::time_to_x(3, 3, 3, 100, 200) == 100);  // empty span
}

BOOST_AUTO_TEST_CASE(utc_timestamps)
{
    BOOST_TEST(*core::parse_utc_timestamp("1970-01-01T00:00:00Z") == 0);
    BOOST_TEST(*core::parse_utc_timestamp("2026-12-01T15:40:39.553Z") == 1796139639.553,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*core::parse_utc_timestamp("2000-03-01T00:00:01.5Z") == 951868801.5);
    BOOST_TEST(!core::parse_utc_timestamp("2026-12-01 15:40:39Z"));
    BOOST_TEST(!core::parse_utc_timestamp("2026-13-01T15:40:39Z"));
    BOOST_TEST(!core::parse_utc_timestamp("2026-12-01T15:40:39.x5Z"));
    BOOST_TEST(!core::parse_utc_timestamp("soon"));
}

BOOST_AUTO_TEST_CASE(times_shown_in_utc_as_the_server_writes_them)
{
    core::report_input in;
    in.attempts = {attempt(1, 1796139639.553, 1796139641.5)};
    auto const page = core::render_report_html(in);
    BOOST_TEST(page.find("<td>2026-12-01T15:40:39.553Z</td><td>1.947</td>") != std::string::npos);
    BOOST_TEST(page.find("to 2026-12-01T15:40:41.500Z (1.9 s)") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
