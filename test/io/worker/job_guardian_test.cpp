// The job guardian with real processes. A forked "worker" (a child of this test binary) starts
// a guardian and tells it of process groups; the test then SIGKILLs that worker, as an operator
// would, and looks at what is left: a job launched through a launcher that has the guardian is
// gone with its SIGTERM-ignoring children (the leader alone would get its parent-death signal),
// a group the worker said it reaped is left alone, and the guardian itself has exited. A
// guardian closed with nothing to do exits at once.
#include "torcrun/worker/io/job_guardian.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include "child_fixture.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace io = torcrun::io;
namespace test = torcrun::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(job_guardian)

namespace {

// The fake worker's report: `<word> <pid>` lines, then "ready"; written whole, then renamed.
void report(std::string const& file, std::string const& text)
{
    test::write_file(file + ".part", text + "ready\n");
    std::filesystem::rename(file + ".part", file);
}

// Waits until the fake worker's report is there; the `word` pids in it.
std::vector<int> pids_in(std::string const& file, std::string const& word)
{
    auto const deadline = std::chrono::steady_clock::now() + 10s;
    while (test::read_file(file).find("ready\n") == std::string::npos) {
        BOOST_TEST_REQUIRE((std::chrono::steady_clock::now() < deadline));
        std::this_thread::sleep_for(5ms);
    }
    std::vector<int> pids;
    for (auto const& line : test::lines(test::read_file(file)))
        if (line.starts_with(word + " ")) pids.push_back(std::stoi(line.substr(word.size() + 1)));
    return pids;
}

void kill_and_reap(pid_t pid)
{
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

// Waits for the fake_job at `stdout_path` to print "ready" (no io_context needed: it is
// polled on a plain loop in the fake worker, which has nothing else to do).
bool ready(std::string const& stdout_path)
{
    for (int i = 0; i < 1000; ++i) {
        if (test::read_file(stdout_path).find("ready\n") != std::string::npos) return true;
        std::this_thread::sleep_for(5ms);
    }
    return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_killed_worker_takes_all_of_its_jobs_with_it)
{
    test::temp_dir dir;
    auto const file = dir.file("worker");
    pid_t const worker = ::fork();
    BOOST_TEST_REQUIRE(worker >= 0);
    if (worker == 0) {
        auto guardian = io::job_guardian::start({});
        if (!guardian) std::_Exit(3);
        boost::asio::io_context ioc;
        io::launcher launcher(ioc.get_executor(), io::exit_watch::automatic, *guardian);
        auto const request = test::fake_job_request({"fork-tree", "3", "60000"}, dir);
        auto const child = launcher.spawn(request);
        if (!child || !ready(request.stdout_path)) std::_Exit(4);
        std::string text = "guardian " + std::to_string((*guardian)->pid()) + "\n";
        text += "job " + std::to_string((*child)->pid()) + "\n";
        for (int pid : test::printed_pids(request.stdout_path))
            text += "job " + std::to_string(pid) + "\n";
        report(file, text);
        for (;;) ::pause();
    }
    auto const jobs = pids_in(file, "job");
    auto const guardian = pids_in(file, "guardian");
    BOOST_TEST_REQUIRE(jobs.size() == 4U);  // the leader and its 3 children
    BOOST_TEST_REQUIRE(guardian.size() == 1U);
    for (int pid : jobs) BOOST_TEST(!test::is_gone(pid));

    kill_and_reap(worker);
    BOOST_TEST(test::wait_until_gone(jobs, 3000ms));
    BOOST_TEST(test::wait_until_gone(guardian, 3000ms));
    for (int pid : jobs) ::kill(pid, SIGKILL);  // should the test fail
}

BOOST_AUTO_TEST_CASE(a_group_the_worker_reaped_is_left_alone)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());  // no guardian: the test's own processes
    auto const watched = launcher.spawn(test::fake_job_request({"sleep", "60000"}, dir));
    auto const forgotten = launcher.spawn(test::fake_job_request({"sleep", "60000"}, dir));
    BOOST_TEST_REQUIRE(watched.has_value());
    BOOST_TEST_REQUIRE(forgotten.has_value());
    auto const file = dir.file("worker");
    pid_t const worker = ::fork();
    BOOST_TEST_REQUIRE(worker >= 0);
    if (worker == 0) {
        auto guardian = io::job_guardian::start({});
        if (!guardian) std::_Exit(3);
        (*guardian)->watch_group((*watched)->pid());
        (*guardian)->watch_group((*forgotten)->pid());
        (*guardian)->forget_group((*forgotten)->pid());
        report(file, "guardian " + std::to_string((*guardian)->pid()) + "\n");
        for (;;) ::pause();
    }
    auto const guardian = pids_in(file, "guardian");
    kill_and_reap(worker);
    BOOST_TEST_REQUIRE(guardian.size() == 1U);
    BOOST_TEST(test::wait_until_gone(guardian, 3000ms));
    // The guardian has done all it does once it is gone.
    BOOST_TEST(test::run_until(ioc, [&] { return !(*watched)->running(); }, 3s));
    BOOST_TEST((*forgotten)->running());
    BOOST_TEST(!test::is_gone((*forgotten)->pid()));
    BOOST_TEST((*forgotten)->signal_group(SIGKILL).has_value());
    BOOST_TEST(test::run_until(ioc, [&] { return !(*forgotten)->running(); }, 3s));
}

BOOST_AUTO_TEST_CASE(a_guardian_closed_with_nothing_to_do_exits_at_once)
{
    auto guardian = io::job_guardian::start({});
    BOOST_TEST_REQUIRE(guardian.has_value(), guardian.error().message);
    auto const pid = (*guardian)->pid();
    BOOST_TEST(!test::is_gone(pid));
    auto const before = std::chrono::steady_clock::now();
    guardian->reset();  // closes the socket and reaps the guardian
    BOOST_TEST((std::chrono::steady_clock::now() - before < 1s));
    BOOST_TEST(!std::filesystem::exists("/proc/" + std::to_string(pid)));
}

BOOST_AUTO_TEST_SUITE_END()
