// The terminate sequence with real process trees: a job that obeys, a job and children that
// all ignore SIGTERM (SIGKILL after the grace, within grace + epsilon), a leader that obeys
// while its children ignore (they are counted and killed at once), a second, graceless
// terminate cutting the first short, and a job that had already exited; with both exit watches.
#include "torcrun/worker/io/launcher.hpp"

#include "child_control.hpp"
#include "child_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <optional>
#include <ostream>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;
using kind = torcrun::core::exit_status::kind;
using clock_type = std::chrono::steady_clock;

namespace torcrun::io {
std::ostream& operator<<(std::ostream& os, exit_watch w);  // launcher_test.cpp
}  // namespace torcrun::io

BOOST_AUTO_TEST_SUITE(launcher_terminate)

auto const both_watches =
    bdata::make(std::vector{io::exit_watch::automatic, io::exit_watch::sigchld});

struct started_job {
    std::shared_ptr<io::child_process> child;
    std::vector<int> children;  // what fake_job printed before "ready"
};

started_job start(boost::asio::io_context& ioc, io::launcher& launcher,
                  std::vector<std::string> args, test::temp_dir const& dir)
{
    auto const request = test::fake_job_request(std::move(args), dir);
    auto child = launcher.spawn(request);
    BOOST_TEST_REQUIRE(child.has_value(), child.error().message);
    BOOST_TEST_REQUIRE(test::run_coro(ioc, test::wait_for_ready(request.stdout_path, 5000ms), 6s));
    return {*child, test::printed_pids(request.stdout_path)};
}

BOOST_DATA_TEST_CASE(a_job_that_obeys_ends_at_once, both_watches, watch)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor(), watch);
    auto const job = start(ioc, launcher, {"fork-tree", "0", "30000"}, dir);
    auto const before = clock_type::now();
    auto const report = test::run_coro(ioc, test::terminate(job.child, SIGTERM, 20s), 10s);
    BOOST_TEST((clock_type::now() - before < 2s));
    BOOST_TEST((report.status == torcrun::core::exit_status{kind::signaled, 0, SIGTERM, false}));
    BOOST_TEST(report.status.return_code() == 143);
    BOOST_TEST_REQUIRE(report.leftovers.has_value());
    BOOST_TEST(*report.leftovers == 0u);
}

BOOST_DATA_TEST_CASE(a_tree_that_ignores_sigterm_is_killed_after_the_grace, both_watches, watch)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor(), watch);
    auto const job = start(ioc, launcher, {"ignore-term", "30000", "3"}, dir);
    BOOST_TEST_REQUIRE(job.children.size() == 3u);
    auto const grace = 300ms;
    auto const before = clock_type::now();
    auto const report = test::run_coro(ioc, test::terminate(job.child, SIGTERM, grace), 10s);
    auto const took = clock_type::now() - before;
    BOOST_TEST((took >= grace));
    BOOST_TEST((took < grace + 1500ms));
    BOOST_TEST((report.status == torcrun::core::exit_status{kind::signaled, 0, SIGKILL, false}));
    BOOST_TEST(report.status.return_code() == 137);
    BOOST_TEST(report.leftovers.has_value());
    BOOST_TEST(test::wait_until_gone(job.children, 1000ms));
}

BOOST_DATA_TEST_CASE(children_left_by_an_obedient_leader_are_counted_and_killed, both_watches,
                     watch)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor(), watch);
    auto const job = start(ioc, launcher, {"fork-tree", "3", "30000"}, dir);
    BOOST_TEST_REQUIRE(job.children.size() == 3u);
    auto const before = clock_type::now();
    auto const report = test::run_coro(ioc, test::terminate(job.child, SIGTERM, 20s), 10s);
    BOOST_TEST((clock_type::now() - before < 2s));  // the grace is not waited out
    BOOST_TEST(report.status.return_code() == 143);
    BOOST_TEST_REQUIRE(report.leftovers.has_value());
    BOOST_TEST(*report.leftovers == 3u);
    BOOST_TEST(test::wait_until_gone(job.children, 1000ms));
}

BOOST_AUTO_TEST_CASE(a_second_terminate_without_grace_cuts_the_first_short)
{
    // The worker's double SIGINT: the first terminate waits a long grace, the second kills.
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const job = start(ioc, launcher, {"ignore-term", "30000", "2"}, dir);
    std::optional<io::exit_report> first;
    boost::asio::co_spawn(ioc, test::terminate(job.child, SIGTERM, 60s),
                          [&](std::exception_ptr, io::exit_report r) { first = r; });
    auto const before = clock_type::now();
    auto const second = test::run_coro(ioc, test::terminate(job.child, SIGKILL, 0s), 10s);
    BOOST_TEST_REQUIRE(test::run_until(
        ioc, [&] { return first.has_value(); }, 2s));
    BOOST_TEST((clock_type::now() - before < 2s));
    BOOST_TEST(second.status.return_code() == 137);
    BOOST_TEST((first->status == second.status));
    BOOST_TEST(test::wait_until_gone(job.children, 1000ms));
}

BOOST_AUTO_TEST_CASE(terminating_a_finished_job_returns_its_report)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const child = launcher.spawn(test::fake_job_request({"exit", "5"}, dir)).value();
    auto const exited = test::run_coro(ioc, child->wait(), 10s);
    auto const report = test::run_coro(ioc, test::terminate(child, SIGTERM, 10s), 1s);
    BOOST_TEST(report.status.return_code() == 5);
    BOOST_TEST((report.ended == exited.ended));
    BOOST_TEST(!report.leftovers.has_value());
}

BOOST_AUTO_TEST_CASE(the_signal_given_is_the_one_sent)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const job = start(ioc, launcher, {"fork-tree", "0", "30000"}, dir);
    auto const report = test::run_coro(ioc, test::terminate(job.child, SIGINT, 10s), 10s);
    BOOST_TEST(report.status.return_code() == 130);
    BOOST_TEST(report.status.describe() == "killed by SIGINT (2)");
}

BOOST_AUTO_TEST_SUITE_END()
