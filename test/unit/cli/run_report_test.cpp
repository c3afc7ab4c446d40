// The HTML report's pure model: escaping of every name, one timeline bar per attempt, GPU lanes
// and node rows packed lowest-first, the allocation's held CPUs and GPUs as steps and the cores
// its samples measured busy, the time scale
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
    in.nodes = {{1, "host<1>", 4, 0, std::nullopt}};
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
    in.nodes = {{1, "n1", 4, 2, std::nullopt}, {2, "n2", 4, 0, std::nullopt}};
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

// slurm mode: a step ran on a Slurm node, not on the worker's host; the bar's title and the
// attempts table name that node, with the worker that started the step.
BOOST_AUTO_TEST_CASE(a_steps_own_node_is_shown_with_its_worker)
{
    core::report_input in;
    in.nodes = {{1, "login7", 16, 0, std::nullopt}};
    in.attempts = {attempt(1, 0, 2), attempt(2, 0, 2)};
    in.attempts[0].step_nodes = "n2";
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "on n2 (a step of login7 #1)") == 1u);  // the bar's title
    BOOST_TEST(count(page, "<td>n2 (a step of login7 #1)</td>") == 1u);  // the table
    BOOST_TEST(count(page, "on login7 #1,") == 1u);  // the other attempt: the worker's host
}

BOOST_AUTO_TEST_CASE(recorded_gpu_ids_are_the_lanes)
{
    // Node 1 recorded every GPU attempt's ids: lanes 2, 10 (numeric order), bars where the jobs
    // really were, not where lowest-free-first would put them. Node 2 has one attempt without
    // ids, so its lanes are assigned (and the page says so).
    std::vector<core::report_attempt> a{attempt(1, 0, 4, 1), attempt(2, 1, 2, 1),
                                        attempt(3, 0, 1, 0), attempt(4, 0, 1, 1, "completed", 2),
                                        attempt(5, 0, 1, 1, "completed", 2)};
    a[0].gpu_ids = {"10"};
    a[1].gpu_ids = {"2"};
    a[3].gpu_ids = {"7"};
    auto const plan = core::plan_gpu_lanes(a, {{1, 4}, {2, 2}});
    BOOST_TEST((plan.lanes.at(1) == std::vector<std::string>{"2", "10"}));
    BOOST_TEST((plan.lanes.at(2) == std::vector<std::string>{"0", "1"}));
    BOOST_TEST((plan.assigned == std::set<std::int64_t>{2}));
    BOOST_TEST((plan.held == std::vector<std::vector<std::size_t>>{{1}, {0}, {}, {0}, {1}}));

    core::report_input in;
    in.nodes = {{1, "n1", 4, 4, std::nullopt}, {2, "n2", 4, 2, std::nullopt}};
    in.attempts = a;
    auto const page = core::render_report_html(in);
    BOOST_TEST(page.find("n1 #1 GPU 10</text>") != std::string::npos);
    BOOST_TEST(page.find("n1 #1 GPU 0</text>") == std::string::npos);
    BOOST_TEST(page.find("GPU lanes of n2 #2: the device ids") != std::string::npos);
    BOOST_TEST(count(page, "<rect class=\"gpu-bar\"") == 4u);
    in.attempts.resize(3);
    BOOST_TEST(core::render_report_html(in).find("GPU lanes are the device ids each attempt "
                                                 "held.") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_attempts_series_is_a_small_chart)
{
    auto a = attempt(4, 0, 2);
    a.run_id = 1;
    BOOST_TEST(core::usage_series_svg(a).empty());  // no series: no chart
    a.series = {{1, 50, 1u << 20}, {2, 200, 4u << 20}};
    auto const svg = core::usage_series_svg(a);
    BOOST_TEST(svg.starts_with("<svg class=\"series\" data-attempt=\"4.1.1\" data-points=\"2\""));
    // CPU scaled to its peak 200 %: 50 % is three quarters down the 32-pixel chart, from 2 px.
    BOOST_TEST(svg.find("<path class=\"cpu\" d=\"M0,26.00 V26.00 H80.00 V2.00 H160.00\"/>") !=
               std::string::npos);
    // Memory scaled to its peak 4 MiB.
    BOOST_TEST(svg.find("<path class=\"mem\" d=\"M0,26.00 V26.00 H80.00 V2.00 H160.00\"/>") !=
               std::string::npos);
    BOOST_TEST(svg.find("<title>2 points over 2.0 s: CPU up to 200.0 % (blue), memory up to "
                        "4.0 MiB (orange)</title>") != std::string::npos);
    // Below 100 %: the scale stays at 100; no memory: a flat line; the chart spans the 2 s the
    // attempt lived, the one sample at 1 s ends half way.
    a.series = {{1, 25, 0}};
    BOOST_TEST(core::usage_series_svg(a).find(
                   "<path class=\"cpu\" d=\"M0,26.00 V26.00 H80.00\"") != std::string::npos);

    core::report_input in;
    in.nodes = {{1, "n1", 1, 0, std::nullopt}};
    in.attempts = {a, attempt(5, 0, 1)};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "<svg class=\"series\"") == 1u);
}

BOOST_AUTO_TEST_CASE(no_gpu_chart_without_gpus)
{
    core::report_input in;
    in.nodes = {{1, "n1", 2, 0, std::nullopt}};
    in.attempts = {attempt(1, 0, 1)};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "class=\"usage cpus\"") == 1u);
    BOOST_TEST(count(page, "class=\"usage gpus\"") == 0u);
    BOOST_TEST(page.find("<p>none</p>") != std::string::npos);  // no failures
}

// GPU readings: the attempt's chart (utilisation scaled to 100 per GPU held, memory to its peak)
// and figures, the GPUs measured busy summed over attempts, drawn on the allocation's GPU chart
// beside the GPUs held; an attempt that held a GPU but was never read shows "-".
BOOST_AUTO_TEST_CASE(gpu_readings_are_charted_beside_the_gpus_held)
{
    auto busy = attempt(4, 100, 104, 1);
    busy.run_id = 1;
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({2, 100.0, 2u << 20, false}).has_value());
    BOOST_TEST(stats.add({4, 50.0, 4u << 20, false}).has_value());
    busy.gpu = stats.summary();
    auto const idle_held = attempt(5, 100, 104, 1);
    BOOST_TEST(core::gpu_series_svg(idle_held).empty());
    BOOST_TEST(core::gpu_use_cell(idle_held) == "-");
    auto const svg = core::gpu_series_svg(busy);
    BOOST_TEST(
        svg.starts_with("<svg class=\"gpu-series\" data-attempt=\"4.1.1\" data-points=\"2\""));
    BOOST_TEST(svg.find("<path class=\"util\" d=\"M0,2.00 V2.00 H80.00 V18.00 H160.00\"/>")
               != std::string::npos);
    BOOST_TEST(svg.find("<path class=\"gmem\" d=\"M0,18.00 V18.00 H80.00 V2.00 H160.00\"/>")
               != std::string::npos);
    BOOST_TEST(core::gpu_use_cell(busy).starts_with(
        "<span class=\"gpu-use\">100.0 % / 75.0 %, 4.0 MiB</span> <svg"));

    auto const steps = core::measured_gpu_steps({busy, idle_held});
    BOOST_TEST_REQUIRE(steps.size() == 3u);
    BOOST_TEST(steps[0].seconds == 100.0);
    BOOST_TEST(steps[0].cores == 1.0);   // 100 % for the first 2 s
    BOOST_TEST(steps[1].seconds == 102.0);
    BOOST_TEST(steps[1].cores == 0.5);
    BOOST_TEST(steps[2].cores == 0.0);
    BOOST_TEST(core::measured_gpu_steps({idle_held}).empty());

    core::report_input in;
    in.nodes = {{1, "n1", 2, 2, std::nullopt}};
    in.attempts = {busy, idle_held};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "<svg class=\"gpu-series\"") == 1u);
    BOOST_TEST(page.find("<title>GPUs measured busy, at most 1.00</title>") != std::string::npos);
    BOOST_TEST(page.find("GPU utilisation is not sampled") == std::string::npos);
    in.attempts = {idle_held};
    BOOST_TEST(core::render_report_html(in).find("No GPU readings are at hand")
               != std::string::npos);
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

BOOST_AUTO_TEST_CASE(measured_cpu_steps_sum_the_samples)
{
    // a: 50 % over [10, 11], 150 % over [11, 13]; b (from 12): 100 % over [12, 14].
    auto a = attempt(1, 10, 13);
    a.series = {{1, 50, 0}, {3, 150, 0}};
    auto b = attempt(2, 12, 14);
    b.series = {{2, 100, 0}};
    auto const steps = core::measured_cpu_steps({a, b, attempt(3, 0, 20)});
    std::vector<std::pair<double, double>> got;
    for (auto const& m : steps) got.emplace_back(m.seconds, m.cores);
    BOOST_TEST((got == std::vector<std::pair<double, double>>{
                           {10, 0.5}, {11, 1.5}, {12, 2.5}, {13, 1.0}, {14, 0.0}}));
    BOOST_TEST(core::measured_cpu_steps({attempt(1, 0, 1)}).empty());

    // On the page: the purple line over the CPU chart, which scales up to the 3 cores seen.
    core::report_input in;
    in.nodes = {{1, "n1", 2, 0, std::nullopt}};
    in.attempts = {a, b};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "<path class=\"measured\"") == 1u);
    BOOST_TEST(page.find("<title>CPU cores measured busy, at most 2.50</title>") !=
               std::string::npos);
    BOOST_TEST(page.find(">3 CPUs</text>") != std::string::npos);
    in.attempts = {attempt(1, 0, 1)};
    auto const bare = core::render_report_html(in);
    BOOST_TEST(count(bare, "class=\"measured\"") == 0u);
    BOOST_TEST(bare.find("No CPU samples are at hand") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(node_steps_are_each_point_s_share_of_the_node)
{
    // A 4-CPU node sampled from t=100: 50 % over [100, 101], 25 % over [101, 103].
    core::report_node n{3, "n3", 4, 0, core::node_series{3, "n3", 100, 8000,
                                                         {{1, 50, 1000}, {3, 25, 3000}}}};
    std::vector<std::pair<double, double>> got;
    for (auto const& m : core::node_cpu_steps(n)) got.emplace_back(m.seconds, m.cores);
    BOOST_TEST((got == std::vector<std::pair<double, double>>{{100, 2}, {101, 1}, {103, 0}}));
    got.clear();
    for (auto const& m : core::node_memory_steps(n)) got.emplace_back(m.seconds, m.cores);
    BOOST_TEST((got == std::vector<std::pair<double, double>>{
                           {100, 1000}, {101, 3000}, {103, 0}}));
    n.usage.reset();
    BOOST_TEST(core::node_cpu_steps(n).empty());
}

BOOST_AUTO_TEST_CASE(a_sampled_node_is_drawn_in_the_allocation_chart)
{
    core::report_input in;
    in.nodes = {{1, "n1", 2, 0, std::nullopt}};
    in.attempts = {attempt(1, 100, 104)};
    auto const before = core::render_report_html(in);
    BOOST_TEST(count(before, "node-cpu") == 0u);
    BOOST_TEST(count(before, "node-mem") == 0u);
    BOOST_TEST(count(before, "node-usage") == 0u);
    // An empty series draws nothing: the page is exactly the one without.
    in.nodes[0].usage = core::node_series{1, "n1", 99, 8192, {}};
    BOOST_TEST(core::render_report_html(in) == before);

    // Node 1 at 100 % of its 2 CPUs over [100, 102]: its line reaches the chart's top at 2 CPUs.
    in.nodes[0].usage = core::node_series{1, "n1", 100, 8192, {{2, 100, 4096}, {4, 50, 2048}}};
    auto const page = core::render_report_html(in);
    BOOST_TEST(count(page, "<path class=\"node-cpu\" data-node=\"1\"") == 1u);
    BOOST_TEST(count(page, "<path class=\"node-mem\" data-node=\"1\"") == 1u);
    BOOST_TEST(count(page, "<svg class=\"usage node-memory\"") == 1u);
    BOOST_TEST(page.find("n1 #1: CPU cores of the whole node measured busy, at most 2.00") !=
               std::string::npos);
    BOOST_TEST(page.find("n1 #1: memory used on the whole node, at most 4.0 KiB") !=
               std::string::npos);
    BOOST_TEST(page.find(">2 CPUs</text>") != std::string::npos);
    BOOST_TEST(count(page, "class=\"note node-usage\"") == 1u);
    // The jobs' own charts are unchanged beside it.
    BOOST_TEST(count(page, "<path class=\"busy\"") == count(before, "<path class=\"busy\""));
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
