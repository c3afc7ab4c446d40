// Sampling the whole node: one reading of this machine's real /proc, the sampler on a real
// io_context (a baseline, samples every 50 ms, a last one at stop, the timer gone), a missing
// /proc named, and the node usage file written and read back.
#include "torcrun/worker/io/node_sampler.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace io = torcrun::io;
namespace core = torcrun::core;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(node_sampler)

BOOST_AUTO_TEST_CASE(this_machine_s_proc_reads)
{
    auto const r = io::read_node("/proc", 0);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->cpu.total > 0u);
    BOOST_TEST(r->cpu.busy <= r->cpu.total);
    BOOST_TEST(r->memory.total_bytes > 0u);
    BOOST_TEST(r->memory.used_bytes > 0u);
    BOOST_TEST(r->memory.used_bytes < r->memory.total_bytes);
}

BOOST_AUTO_TEST_CASE(a_missing_proc_is_named)
{
    auto const r = io::read_node("/nonexistent-proc", 0);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message ==
               "cannot read /nonexistent-proc/stat: No such file or directory");
}

BOOST_AUTO_TEST_CASE(the_sampler_samples_on_its_timer_until_stopped)
{
    boost::asio::io_context ioc;
    io::node_sampler sampler(ioc.get_executor(), {0.05, true, true, true});
    BOOST_TEST(!sampler.stop().has_value());  // never started
    sampler.start(7, "n1", 1761000000);
    BOOST_TEST(sampler.running());
    boost::asio::steady_timer wait(ioc, 330ms);
    std::optional<io::node_sampler::finished> done;
    wait.async_wait([&](auto) { done = sampler.stop(); });
    ioc.run_for(5s);  // returns at once when nothing is left: the sampler's timer is gone
    BOOST_TEST(ioc.stopped());
    BOOST_TEST_REQUIRE(done.has_value());
    BOOST_TEST(!sampler.running());
    // Six or so ticks and the last sample; a loaded machine may delay some ticks.
    BOOST_TEST(done->summary.sample_count >= 2u);
    BOOST_TEST(done->summary.sample_count <= 8u);
    BOOST_TEST(done->summary.peak_cpu_percent >= done->summary.avg_cpu_percent);
    BOOST_TEST(done->summary.peak_cpu_percent <= 100.0);
    BOOST_TEST(done->summary.avg_memory_bytes > 0u);
    BOOST_TEST(done->series.compute_node_id == 7);
    BOOST_TEST(done->series.points.size() == done->summary.sample_count);
    BOOST_TEST(done->series.total_memory_bytes > 0u);
    BOOST_TEST(!sampler.take_problem().has_value());
}

BOOST_AUTO_TEST_CASE(the_node_usage_file_lands_in_the_output_directory)
{
    auto const dir = std::filesystem::temp_directory_path() /
                     ("node_sampler_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    core::node_series const s{7, "n1", 1761000000, 4096, {{1, 50, 300}}};
    auto const path = io::write_node_series(dir.string(), s);
    BOOST_TEST_REQUIRE(path.has_value());
    BOOST_TEST(*path == (dir / "node_usage_7.json").string());
    std::ifstream in(*path);
    std::stringstream text;
    text << in.rdbuf();
    auto const back = core::parse_node_series(text.str(), *path);
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((back->points == s.points));
    BOOST_TEST(!std::filesystem::exists(*path + ".tmp"));
    auto const refused = io::write_node_series((dir / "missing").string(), s);
    BOOST_TEST(!refused.has_value());
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
