// What a job sees and how its end comes back, with real children (fake_job): exit codes and signal
// deaths through core::exit_status, descriptors 0-2 only (a Process v2 child inherited the daemon's
// listening socket), its own session, exactly the given environment and directory, clean signal
// state, log files, the PATH search, the exit totals, group clean-up at the exit, many children at
// once, both exit watches, and the job dying with its worker.
#include "torcrun/worker/io/launcher.hpp"

#include "child_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <optional>
#include <ostream>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;

namespace torcrun::io {
std::ostream& operator<<(std::ostream& os, exit_watch w)
{
    return os << (w == exit_watch::automatic ? "pidfd" : "sigchld");
}
}  // namespace torcrun::io

BOOST_AUTO_TEST_SUITE(launcher)

std::vector<io::exit_watch> const watches{io::exit_watch::automatic, io::exit_watch::sigchld};

io::exit_report run_to_exit(io::spawn_request const& request,
                            io::exit_watch watch = io::exit_watch::automatic,
                            test::start_mode mode = test::start_mode::spawn)
{
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor(), watch);
    auto child = test::start(ioc, launcher, request, mode);
    BOOST_TEST_REQUIRE(child.has_value(), child.error().message);
    return test::run_coro(ioc, (*child)->wait(), 10s);
}

BOOST_DATA_TEST_CASE(exit_codes_come_back,
                     bdata::make(watches) *
                         bdata::make({test::start_mode::spawn, test::start_mode::launch}) *
                         bdata::make(std::vector<int>{0, 1, 3, 15, 42, 255}),
                     watch, mode, code)
{
    test::temp_dir dir;
    auto const report =
        run_to_exit(test::fake_job_request({"exit", std::to_string(code)}, dir), watch, mode);
    BOOST_TEST((report.status == torcrun::core::exit_status{{}, code, 0, false}));
    BOOST_TEST(report.status.return_code() == code);
    BOOST_TEST(!report.leftovers.has_value());
    BOOST_TEST((report.ended >= report.started));
}

BOOST_DATA_TEST_CASE(signal_deaths_are_128_plus_the_signal,
                     bdata::make(std::vector<int>{SIGTERM, SIGKILL, SIGINT, SIGHUP, SIGUSR1}), sig)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const child = launcher.spawn(test::fake_job_request({"sleep", "10000"}, dir)).value();
    BOOST_TEST_REQUIRE(child->signal_group(sig).has_value());
    auto const report = test::run_coro(ioc, child->wait(), 10s);
    using kind = torcrun::core::exit_status::kind;
    BOOST_TEST((report.status == torcrun::core::exit_status{kind::signaled, 0, sig, false}));
    BOOST_TEST(report.status.return_code() == 128 + sig);
}

BOOST_AUTO_TEST_CASE(only_the_standard_descriptors_reach_the_job)
{
    // Descriptors without close-on-exec below and above the launcher's own: a listening socket
    // (the leak a Process v2 child showed), a pipe, and a copy at 100.
    int const listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) ==
                       0);
    BOOST_TEST_REQUIRE(::listen(listener, 4) == 0);
    int pipe_fds[2];
    BOOST_TEST_REQUIRE(::pipe(pipe_fds) == 0);
    BOOST_TEST_REQUIRE(::dup2(pipe_fds[0], 100) == 100);

    test::temp_dir dir;
    auto const request = test::fake_job_request({"list-fds"}, dir);
    auto const report = run_to_exit(request);
    for (int fd : {listener, pipe_fds[0], pipe_fds[1], 100}) ::close(fd);
    BOOST_TEST(report.status.return_code() == 0);
    std::vector<std::string> const expected{"0 /dev/null", "1 " + request.stdout_path,
                                            "2 " + request.stderr_path};
    BOOST_TEST(test::lines(test::read_file(request.stdout_path)) == expected,
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(one_path_for_both_streams_shares_one_file)
{
    test::temp_dir dir;
    auto request = test::fake_job_request({"write", "to stdout", "to stderr"}, dir);
    request.stderr_path = request.stdout_path;
    test::write_file(request.stdout_path, "old content that is longer than the new one\n");
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == "to stdout\nto stderr\n");
}

BOOST_AUTO_TEST_CASE(log_files_are_truncated_and_separate)
{
    test::temp_dir dir;
    auto const request = test::fake_job_request({"write", "out", "err"}, dir);
    test::write_file(request.stdout_path, "stale stdout, long enough to show through\n");
    test::write_file(request.stderr_path, "stale stderr, long enough to show through\n");
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == "out\n");
    BOOST_TEST(test::read_file(request.stderr_path) == "err\n");
}

BOOST_AUTO_TEST_CASE(empty_log_paths_mean_dev_null)
{
    test::temp_dir dir;
    auto request = test::fake_job_request({"list-fds"}, dir);
    auto const listing = request.stdout_path;
    request.stderr_path = "";
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(listing) == "0 /dev/null\n1 " + listing + "\n2 /dev/null\n");
    request.stdout_path = "";
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
}

BOOST_AUTO_TEST_CASE(the_job_leads_its_own_session_and_group)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const request = test::fake_job_request({"print-pgid"}, dir);
    auto const child = launcher.spawn(request).value();
    auto const pid = std::to_string(child->pid());
    BOOST_TEST(test::run_coro(ioc, child->wait(), 10s).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) ==
               "pid=" + pid + " pgid=" + pid + " sid=" + pid + "\n");
    BOOST_TEST(::getpgrp() != child->pid());
}

BOOST_AUTO_TEST_CASE(the_environment_is_exactly_the_one_given)
{
    test::temp_dir dir;
    auto request = test::fake_job_request({"print-env"}, dir);
    request.environment = {{"A", "1"}, {"EMPTY", ""}, {"SPACES", "two words"}, {"EQ", "a=b=c"}};
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == "A=1\nEMPTY=\nEQ=a=b=c\nSPACES=two words\n");

    request.environment = {};
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == "");

    // Nothing of the worker's own environment comes through.
    BOOST_TEST_REQUIRE(::getenv("PATH") != nullptr);
    request.argv = {request.argv.front(), "print-env", "PATH", "A"};
    request.environment = {{"A", "x"}};
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == "PATH unset\nA=x\n");
}

BOOST_AUTO_TEST_CASE(the_working_directory_is_applied)
{
    test::temp_dir dir, work;
    auto request = test::fake_job_request({"print-cwd"}, dir);
    request.working_directory = work.path();
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) == work.path() + "\n");

    request.working_directory = "";
    BOOST_TEST(run_to_exit(request).status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) ==
               std::filesystem::current_path().string() + "\n");
}

BOOST_AUTO_TEST_CASE(signal_dispositions_and_mask_start_clean)
{
    // A worker that ignores SIGPIPE (common with sockets) and blocks SIGUSR2 while spawning.
    auto const previous_pipe = ::signal(SIGPIPE, SIG_IGN);
    sigset_t blocked, previous_mask;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGUSR2);
    ::sigprocmask(SIG_BLOCK, &blocked, &previous_mask);
    test::temp_dir dir;
    auto const request = test::fake_job_request({"print-signals"}, dir);
    auto const report = run_to_exit(request);
    ::sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
    ::signal(SIGPIPE, previous_pipe);
    BOOST_TEST(report.status.return_code() == 0);
    BOOST_TEST(test::read_file(request.stdout_path) ==
               "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

BOOST_AUTO_TEST_CASE(the_exit_report_carries_cpu_time_and_peak_memory)
{
    test::temp_dir dir;
    // 300 ms of CPU in each of two processes; the leader reaps the other one.
    auto const spin = run_to_exit(test::fake_job_request({"spin", "300", "2"}, dir));
    BOOST_TEST(spin.status.return_code() == 0);
    BOOST_TEST(spin.cpu_seconds >= 0.6);
    BOOST_TEST(spin.cpu_seconds <= 1.0);
    auto const alloc = run_to_exit(test::fake_job_request({"alloc", "64", "0"}, dir));
    BOOST_TEST(alloc.max_rss_bytes >= 64ULL << 20);
    BOOST_TEST(alloc.status.return_code() == 0);
}

BOOST_AUTO_TEST_CASE(what_a_finished_job_leaves_in_its_group_is_killed)
{
    // The leader exits at once, two children that ignore SIGTERM stay behind.
    test::temp_dir dir;
    auto const request = test::fake_job_request({"fork-tree", "2", "20000", "0"}, dir);
    auto const report = run_to_exit(request);
    BOOST_TEST(report.status.return_code() == 0);
    BOOST_TEST(!report.leftovers.has_value());  // not counted outside terminate()
    auto const left = test::printed_pids(request.stdout_path);
    BOOST_TEST_REQUIRE(left.size() == 2u);
    BOOST_TEST(test::wait_until_gone(left, 2000ms));
}

BOOST_AUTO_TEST_CASE(wait_serves_many_waiters_and_late_ones)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const child = launcher.spawn(test::fake_job_request({"sleep", "50"}, dir)).value();
    BOOST_TEST(child->running());
    std::optional<io::exit_report> b;
    boost::asio::co_spawn(ioc, child->wait(),
                          [&](std::exception_ptr, io::exit_report r) { b = r; });
    auto const a = test::run_coro(ioc, child->wait(), 10s);
    BOOST_TEST_REQUIRE(test::run_until(
        ioc, [&] { return b.has_value(); }, 1s));
    auto const late = test::run_coro(ioc, child->wait(), 1s);
    BOOST_TEST(!child->running());
    BOOST_TEST((a.status == b->status && b->status == late.status));
    BOOST_TEST((a.ended == late.ended));
    BOOST_TEST(child->report().has_value());
}

BOOST_AUTO_TEST_CASE(signals_to_a_finished_job_do_nothing_and_bad_ones_are_errors)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const child = launcher.spawn(test::fake_job_request({"sleep", "10000"}, dir)).value();
    auto const refused = child->signal_group(4000);
    BOOST_TEST_REQUIRE(refused.has_error());
    BOOST_TEST(refused.error().message == "signal: signal 4000 to process group " +
                                              std::to_string(child->pid()) + ": Invalid argument");
    BOOST_TEST_REQUIRE(child->signal_group(SIGKILL).has_value());
    test::run_coro(ioc, child->wait(), 10s);
    BOOST_TEST(child->signal_group(SIGTERM).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
