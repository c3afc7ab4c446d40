// How the runner's work ends: kill_all() and the destructor leave no process of any job (nor
// of their forked children), events are never delivered inside a call even when the work
// finishes at once, a signal sent while the job is still launching is not lost, and nothing is
// delivered after the runner is gone.
#include "torcrun/worker/io/job_runner.hpp"

#include "runner_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>

namespace io = torcrun::io;
namespace core = torcrun::core;
namespace test = torcrun::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(job_runner_ends)

// Starts `count` jobs that each fork two children ignoring SIGTERM; returns every pid.
std::vector<int> start_trees(test::runner_fixture& f, int count)
{
    std::vector<int> pids;
    for (int id = 1; id <= count; ++id) {
        auto const action = test::spawn_action(id, test::fake_job_command("fork-tree 2 30000"));
        f.call([&](io::job_runner& r) { r.spawn(action); });
        auto const out = f.paths(action).stdout_file;
        BOOST_TEST_REQUIRE(test::run_coro(f.ioc, test::wait_for_ready(out, 20s), 25s));
        for (int pid : test::printed_pids(out)) pids.push_back(pid);
    }
    return pids;
}

BOOST_AUTO_TEST_CASE(kill_all_leaves_no_process)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto pids = start_trees(f, 3);
    BOOST_TEST(f.runner->running() == 3u);
    BOOST_TEST(pids.size() == 6u);
    f.call([](io::job_runner& r) { r.kill_all(); });
    BOOST_TEST_REQUIRE(test::run_until(
        f.ioc, [&] { return f.all<core::worker::job_exited>().size() == 3u; }, 20s));
    for (auto const& exited : f.all<core::worker::job_exited>())
        BOOST_TEST(exited.status.describe() == "killed by SIGKILL (9)");
    BOOST_TEST(f.runner->running() == 0u);
    BOOST_TEST(test::wait_until_gone(pids, 5000ms));
    BOOST_TEST(!f.delivered_inside);
}

BOOST_AUTO_TEST_CASE(the_destructor_kills_and_delivers_nothing_more)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto const pids = start_trees(f, 2);
    auto const before = f.events.size();
    f.runner.reset();
    // The exits are still reaped on the io_context, but no event reaches the sink.
    test::run_to_completion(f.ioc, 5s);
    BOOST_TEST(test::wait_until_gone(pids, 5000ms));
    BOOST_TEST(f.events.size() == before);
    BOOST_TEST(test::children_of_self().empty());
}

BOOST_AUTO_TEST_CASE(events_are_never_delivered_inside_a_call)
{
    test::runner_fixture f;
    auto s = f.settings();
    f.make(s);
    auto no_node = test::spawn_action(1, "true");
    no_node.placement.nodes.clear();
    f.call([&](io::job_runner& r) {
        r.spawn(no_node);                              // fails in the plan, before any wait
        r.spawn(test::spawn_action(2, "true"));        // launched, exits at once
        r.signal({99, SIGTERM});                       // unknown job: a warning
        r.run_commands({3, {}});                       // nothing to run
        r.run_recovery({2, "job2", 1, 1, "true"});     // nothing is ever delivered for it
        BOOST_TEST(r.running() == 1u);                 // job 2 counts from the call on
    });
    BOOST_TEST(!f.delivered_inside);
    f.wait_for<core::worker::job_exited>(2);
    f.wait_for<core::worker::spawn_failed>(1);
    f.wait_for<core::worker::action_finished>(3);
    BOOST_TEST(!f.delivered_inside);
    BOOST_TEST(f.logged("warning runner: signal for a job that is not running job=99 signal=15"));
}

BOOST_AUTO_TEST_CASE(a_signal_sent_while_launching_is_delivered_after_the_launch)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([](io::job_runner& r) {
        r.spawn(test::spawn_action(4, "exec sleep 30"));
        r.signal({4, SIGTERM});
    });
    auto const exited = f.wait_for<core::worker::job_exited>(4);
    BOOST_TEST(exited.status.describe() == "killed by SIGTERM (15)");
}

BOOST_AUTO_TEST_CASE(a_job_id_already_running_is_refused)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([](io::job_runner& r) {
        r.spawn(test::spawn_action(5, "exec sleep 30"));
        r.spawn(test::spawn_action(5, "true"));
    });
    auto const failed = f.wait_for<core::worker::spawn_failed>(5);
    BOOST_TEST(failed.message == "spawn: job 5 is already running");
    f.wait_for<core::worker::job_spawned>(5);
    BOOST_TEST(f.runner->running() == 1u);
    f.call([](io::job_runner& r) { r.kill_all(); });
    f.wait_for<core::worker::job_exited>(5);
}

BOOST_AUTO_TEST_SUITE_END()
