// Sampling job trees from /proc: exact figures from a crafted /proc tree (the root is a
// parameter), the real table (this test process, a job's whole session), and real jobs: the
// memory of `alloc 100` and the CPU of a spinning tree, sampled by run_sampler until cancelled.
#include "torcrun/worker/io/proc_sampler.hpp"

#include "torcrun/worker/io/launcher.hpp"

#include "child_control.hpp"
#include "child_fixture.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <thread>

namespace io = torcrun::io;
namespace core = torcrun::core;
namespace test = torcrun::test;
namespace tt = boost::test_tools;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(proc_sampler)

// A /proc of our own: <root>/<pid>/stat files written from the fields that matter.
struct fake_proc {
    test::temp_dir dir;

    void process(int pid, int session, char state, int utime, int cutime, int rss) const
    {
        std::filesystem::create_directories(dir.file(std::to_string(pid)));
        write(pid, std::to_string(pid) + " (job " + std::to_string(pid) + ") " + state + " 1 " +
                       std::to_string(session) + " " + std::to_string(session) +
                       " 0 -1 0 0 0 0 0 " + std::to_string(utime) + " 0 " + std::to_string(cutime) +
                       " 0 20 0 1 0 100 0 " + std::to_string(rss) + " 0\n");
    }
    void write(int pid, std::string const& text) const
    {
        test::write_file(dir.file(std::to_string(pid) + "/stat"), text);
    }
};

double const tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
std::uint64_t const page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));

BOOST_AUTO_TEST_CASE(figures_come_from_every_process_of_the_session)
{
    fake_proc proc;
    proc.process(500, 500, 'S', 0, 0, 100);    // the job's leader
    proc.process(501, 500, 'R', 0, 0, 300);    // its child
    proc.process(502, 500, 'Z', 0, 0, 0);      // a zombie
    proc.process(600, 600, 'R', 999, 0, 999);  // another session
    std::filesystem::create_directories(proc.dir.file("self"));
    std::filesystem::create_directories(proc.dir.file("700"));
    proc.write(700, "garbage\n");

    io::proc_sampler sampler(proc.dir.path());
    auto const start = io::proc_sampler::clock::now();
    sampler.track(500, start);
    BOOST_TEST(sampler.tracked() == 1u);
    sampler.sample(start + 1s);
    auto first = sampler.latest(500);
    BOOST_TEST_REQUIRE(first.has_value());
    BOOST_TEST(first->seconds == 1.0, tt::tolerance(1e-9));
    BOOST_TEST(first->memory_bytes == 400 * page);
    BOOST_TEST(first->cpu_seconds == 0.0);

    // One second later the child used 50 ticks and the leader reaped one that used 30.
    proc.process(500, 500, 'S', 0, 30, 100);
    proc.process(501, 500, 'R', 50, 0, 500);
    sampler.sample(start + 2s);
    auto const summary = sampler.summary(500).value();
    BOOST_TEST(summary.sample_count == 2u);
    BOOST_TEST(summary.peak_memory_bytes == 600 * page);
    BOOST_TEST(summary.avg_memory_bytes == 500 * page);
    BOOST_TEST(summary.peak_cpu_percent == 80 * tick * 100, tt::tolerance(1e-9));

    io::exit_report exit;
    exit.started = start;
    exit.ended = start + 4s;
    exit.cpu_seconds = 100 * tick;
    exit.max_rss_bytes = 1;
    auto const finished = sampler.finish(500, exit);
    auto const& final_summary = finished.summary;
    // The series has the two samples: no CPU in the first second, 80 ticks in the second; then
    // the exit ends it: 20 more ticks over the last 2 s, the memory as last seen.
    BOOST_TEST_REQUIRE(finished.series.size() == 3u);
    BOOST_TEST(finished.series[0].cpu_percent == 0.0);
    BOOST_TEST(finished.series[0].memory_bytes == 400 * page);
    BOOST_TEST(finished.series[1].seconds == 2.0, tt::tolerance(1e-9));
    BOOST_TEST(finished.series[1].cpu_percent == 80 * tick * 100, tt::tolerance(1e-9));
    BOOST_TEST(finished.series[1].memory_bytes == 600 * page);
    BOOST_TEST(finished.series[2].seconds == 4.0, tt::tolerance(1e-9));
    BOOST_TEST(finished.series[2].cpu_percent == 20 * tick / 2 * 100, tt::tolerance(1e-9));
    BOOST_TEST(finished.series[2].memory_bytes == 600 * page);
    BOOST_TEST(final_summary.avg_cpu_percent == 100 * tick / 4 * 100, tt::tolerance(1e-9));
    BOOST_TEST(final_summary.peak_memory_bytes == 600 * page);
    BOOST_TEST(sampler.tracked() == 0u);
    BOOST_TEST(!sampler.summary(500).has_value());
}

BOOST_AUTO_TEST_CASE(a_session_without_a_living_process_adds_no_sample)
{
    fake_proc proc;
    proc.process(800, 800, 'Z', 5, 0, 0);
    io::proc_sampler sampler(proc.dir.path());
    auto const start = io::proc_sampler::clock::now();
    sampler.track(800, start);
    sampler.track(900, start);  // no process at all
    sampler.sample(start + 1s);
    BOOST_TEST(sampler.summary(800).value().sample_count == 0u);
    BOOST_TEST(!sampler.latest(800).has_value());
    BOOST_TEST(sampler.summary(900).value().sample_count == 0u);
}

BOOST_AUTO_TEST_CASE(an_untracked_exit_is_summarised_from_the_exit_alone)
{
    io::proc_sampler sampler("/nonexistent-torcrun-proc");
    io::exit_report exit;
    exit.ended = exit.started + 2s;
    exit.cpu_seconds = 1;
    exit.max_rss_bytes = 4096;
    auto const finished = sampler.finish(1234, exit);
    auto const& summary = finished.summary;
    BOOST_TEST(finished.series.empty());
    BOOST_TEST(summary.peak_cpu_percent == 50.0, tt::tolerance(1e-9));
    BOOST_TEST(summary.avg_memory_bytes == 4096u);
    BOOST_TEST(io::read_process_table("/nonexistent-torcrun-proc").empty());
}

BOOST_AUTO_TEST_CASE(the_real_table_holds_this_process)
{
    auto const table = io::read_process_table();
    auto const self =
        std::find_if(table.begin(), table.end(), [](auto const& p) { return p.pid == ::getpid(); });
    BOOST_TEST_REQUIRE((self != table.end()));
    BOOST_TEST(self->ppid == ::getppid());
    BOOST_TEST(self->session == ::getsid(0));
    BOOST_TEST(self->pgrp == ::getpgrp());
    BOOST_TEST(self->comm == "torcrun_io_test");  // the kernel keeps 15 characters
    BOOST_TEST(self->rss_pages > 0u);
}

BOOST_AUTO_TEST_CASE(a_jobs_session_is_its_whole_tree)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const request = test::fake_job_request({"fork-tree", "3", "30000"}, dir);
    auto const child = launcher.spawn(request).value();
    BOOST_TEST_REQUIRE(test::run_coro(ioc, test::wait_for_ready(request.stdout_path, 5000ms), 6s));
    auto const table = io::read_process_table();
    auto const session = std::vector<int>{child->pid()};
    auto const usage = core::usage_by_session(table, session);
    BOOST_TEST_REQUIRE(usage.contains(child->pid()));
    BOOST_TEST(usage.at(child->pid()).processes == 4u);
    auto members = core::session_members(table, child->pid());
    auto printed = test::printed_pids(request.stdout_path);
    std::sort(members.begin(), members.end());
    std::sort(printed.begin(), printed.end());
    BOOST_TEST(members == printed, tt::per_element());
    test::run_coro(ioc, test::terminate(child, SIGKILL, 1s), 10s);
}

struct sampled {
    core::usage_summary while_running;  // from the samples alone
    core::usage_summary finished;       // with the exit's totals
    io::exit_report exit;
};

// Runs `args` to its end while run_sampler samples every 50 ms, then stops the sampler.
sampled sample_job(std::vector<std::string> args)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    io::proc_sampler sampler;
    auto const child = launcher.spawn(test::fake_job_request(std::move(args), dir)).value();
    sampler.track(child->pid(), child->started());
    boost::asio::cancellation_signal stop;
    bool stopped = false;
    auto on_stop = [&stopped](std::exception_ptr) { stopped = true; };
    boost::asio::co_spawn(ioc, test::run_sampler(sampler, 50ms),
                          boost::asio::bind_cancellation_slot(stop.slot(), on_stop));
    auto const report = test::run_coro(ioc, child->wait(), 20s);
    BOOST_TEST(report.status.return_code() == 0);
    auto const while_running = sampler.summary(child->pid()).value();
    stop.emit(boost::asio::cancellation_type::terminal);
    BOOST_TEST(test::run_until(
        ioc, [&] { return stopped; }, 1s));
    return {while_running, sampler.finish(child->pid(), report).summary, report};
}

BOOST_AUTO_TEST_CASE(the_memory_of_a_job_that_holds_100_mib_is_seen)
{
    auto const usage = sample_job({"alloc", "100", "1000"});
    BOOST_TEST(usage.while_running.sample_count >= 5u);
    BOOST_TEST(usage.while_running.peak_memory_bytes >= 100ULL << 20);
    BOOST_TEST(usage.while_running.avg_memory_bytes >= 50ULL << 20);
    BOOST_TEST(usage.finished.peak_memory_bytes >= 100ULL << 20);
}

BOOST_AUTO_TEST_CASE(a_spinning_trees_cpu_is_measured_as_the_kernel_counts_it)
{
    // Two spinning processes, 0.4 s of CPU each, summed over the tree. The share of the
    // machine they get depends on its load (with autogroup scheduling, per session rather than
    // per process): parallel builds on this 2-core box left the tree about 35 % of one core.
    // So the figures are checked against the kernel's own total for the job (wait4), not
    // against a fixed "> 50 %".
    auto const usage = sample_job({"spin", "400", "2"});
    auto const wall = std::chrono::duration<double>(usage.exit.ended - usage.exit.started).count();
    auto const exact = usage.exit.cpu_seconds / wall * 100;
    BOOST_TEST(usage.exit.cpu_seconds >= 0.8);
    BOOST_TEST(usage.while_running.sample_count >= 5u);
    BOOST_TEST(usage.while_running.avg_cpu_percent == exact, tt::tolerance(0.15));
    BOOST_TEST(usage.while_running.peak_cpu_percent >= 0.9 * exact);
    BOOST_TEST(usage.finished.avg_cpu_percent == exact, tt::tolerance(0.01));
    BOOST_TEST(usage.finished.avg_memory_bytes > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
