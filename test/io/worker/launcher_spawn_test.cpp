// Starting jobs: every spawn failure comes back as a value with its message verbatim and
// leaves no child behind, no descriptor is kept per start, the PATH search, fifty children at
// once seen promptly with either exit watch, the job dying with its worker (PR_SET_PDEATHSIG),
// and the descriptor sweep with close_range and with the /proc/self/fd walk used where
// close_range is missing.
#include "torcrun/worker/io/launcher.hpp"

#include "child_fixture.hpp"
#include "time_factor.hpp"
#include "worker/io/spawn_child.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>

#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <optional>
#include <ostream>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;

namespace torcrun::io {
std::ostream& operator<<(std::ostream& os, exit_watch w);  // launcher_test.cpp
}  // namespace torcrun::io

BOOST_AUTO_TEST_SUITE(launcher_spawn)

std::string replace_dir(std::string text, std::string const& dir)
{
    for (auto at = text.find("{dir}"); at != std::string::npos; at = text.find("{dir}"))
        text.replace(at, 5, dir);
    return text;
}

struct failure_case {
    std::string name;
    std::function<void(io::spawn_request&)> change;
    std::string message;  // "{dir}" stands for the test's directory
};
std::ostream& operator<<(std::ostream& os, failure_case const& c) { return os << c.name; }

std::vector<failure_case> const failures{
    {"empty command", [](auto& r) { r.argv.clear(); }, "spawn: the command is empty"},
    {"missing working directory", [](auto& r) { r.working_directory = "/nonexistent-torcrun"; },
     R"m(spawn: working directory "/nonexistent-torcrun": No such file or directory)m"},
    {"working directory is a file", [](auto& r) { r.working_directory = r.stdout_path + ".plain"; },
     R"m(spawn: working directory "{dir}/stdout.plain": Not a directory)m"},
    {"exec of a file without x", [](auto& r) { r.argv = {r.stdout_path + ".plain"}; },
     R"m(spawn: exec "{dir}/stdout.plain": Permission denied)m"},
    {"exec of a directory", [](auto& r) { r.argv = {"/tmp"}; },
     R"m(spawn: exec "/tmp": Permission denied)m"},
    {"exec of a missing path", [](auto& r) { r.argv = {"/nonexistent-torcrun/job"}; },
     R"m(spawn: exec "/nonexistent-torcrun/job": No such file or directory)m"},
    {"exec of a relative path, from the working directory",
     [](auto& r) {
         r.working_directory = r.stdout_path.substr(0, r.stdout_path.rfind('/'));
         r.argv = {"./stdout.plain"};
     },
     R"m(spawn: exec "./stdout.plain": Permission denied)m"},
    {"not in the job's PATH",
     [](auto& r) {
         r.argv = {"no-such-torcrun-job"};
         r.environment["PATH"] = "/nonexistent-a:/tmp";
     },
     R"m(spawn: "no-such-torcrun-job" was not found in PATH "/nonexistent-a:/tmp")m"},
    {"no PATH: the default",
     [](auto& r) {
         r.argv = {"no-such-torcrun-job", "x"};
     },
     R"m(spawn: "no-such-torcrun-job" was not found in PATH "/bin:/usr/bin")m"},
    {"a PATH match without x is no match",
     [](auto& r) {
         r.argv = {"stdout.plain"};
         r.environment["PATH"] = r.stdout_path.substr(0, r.stdout_path.rfind('/'));
     },
     R"m(spawn: "stdout.plain" was not found in PATH "{dir}")m"},
    {"an empty program name", [](auto& r) { r.argv = {""}; },
     R"m(spawn: "" was not found in PATH "/bin:/usr/bin")m"},
    {"stdout in a missing directory", [](auto& r) { r.stdout_path = "/nonexistent-torcrun/o"; },
     R"m(spawn: stdout "/nonexistent-torcrun/o": No such file or directory)m"},
    {"stderr in a missing directory", [](auto& r) { r.stderr_path = "/nonexistent-torcrun/e"; },
     R"m(spawn: stderr "/nonexistent-torcrun/e": No such file or directory)m"},
    {"stdout is a directory", [](auto& r) { r.stdout_path = "/tmp"; },
     R"m(spawn: stdout "/tmp": Is a directory)m"},
    {"a variable name with '='", [](auto& r) { r.environment["A=B"] = "1"; },
     R"m(spawn: environment variable name "A=B" is empty or contains '=' or a NUL character)m"},
    {"an empty variable name", [](auto& r) { r.environment[""] = "1"; },
     R"m(spawn: environment variable name "" is empty or contains '=' or a NUL character)m"},
    {"a NUL in a value", [](auto& r) { r.environment["V"] = std::string("a\0b", 3); },
     R"m(spawn: the value of environment variable "V" contains a NUL character)m"},
    {"a NUL in an argument", [](auto& r) { r.argv.push_back(std::string("a\0b", 3)); },
     "spawn: argument 3 contains a NUL character"},
    {"a NUL in the working directory",
     [](auto& r) { r.working_directory = std::string("/tmp\0x", 6); },
     "spawn: the working directory contains a NUL character"},
    {"a NUL in the stdout path", [](auto& r) { r.stdout_path = std::string("/tmp/\0x", 7); },
     "spawn: the stdout path contains a NUL character"},
    {"a NUL in the stderr path", [](auto& r) { r.stderr_path = std::string("/tmp/\0x", 7); },
     "spawn: the stderr path contains a NUL character"},
    {"a CPU the machine does not have", [](auto& r) { r.cpus = {60000}; },
     R"m(spawn: binding to CPUs "60000": Invalid argument)m"},
};

auto const modes = bdata::make({test::start_mode::spawn, test::start_mode::launch});

BOOST_DATA_TEST_CASE(spawn_failures_are_values_and_leave_nothing_behind,
                     bdata::make(failures) * modes, sample, mode)
{
    test::temp_dir dir;
    auto request = test::fake_job_request({"exit", "0"}, dir);
    test::write_file(request.stdout_path + ".plain", "not a program\n");
    sample.change(request);
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const before = std::chrono::steady_clock::now();
    auto const child = test::start(ioc, launcher, request, mode);
    BOOST_TEST((std::chrono::steady_clock::now() - before < 2s));
    BOOST_TEST_REQUIRE(child.has_error());
    BOOST_TEST(child.error().message == replace_dir(sample.message, dir.path()));
    BOOST_TEST(test::children_of_self().empty());
}

struct lookup_case {
    std::string name;
    std::string program;
    std::string path;               // "{dir}" stands for the test's directory
    std::string working_directory;  // relative to the test's directory
};
std::ostream& operator<<(std::ostream& os, lookup_case const& c) { return os << c.name; }

std::vector<lookup_case> const lookups{
    {"found in a later entry", "fj", "/nonexistent-torcrun:{dir}/bin", ""},
    {"a relative entry, from the working directory", "fj", "/nonexistent-torcrun:bin", "."},
    {"an empty entry is the working directory", "fj", "/nonexistent-torcrun:", "bin"},
    {"a path with a slash is not searched", "bin/fj", "/nonexistent-torcrun", "."},
};

BOOST_DATA_TEST_CASE(programs_are_found_in_the_jobs_path, bdata::make(lookups), sample)
{
    test::temp_dir dir;
    std::filesystem::create_directory(dir.file("bin"));
    std::filesystem::create_symlink(test::fake_job(), dir.file("bin/fj"));
    auto request = test::fake_job_request({"exit", "7"}, dir);
    request.argv.front() = sample.program;
    request.environment["PATH"] = replace_dir(sample.path, dir.path());
    if (!sample.working_directory.empty())
        request.working_directory = dir.file(sample.working_directory);
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const child = launcher.spawn(request);
    BOOST_TEST_REQUIRE(child.has_value(), child.error().message);
    BOOST_TEST(test::run_coro(ioc, (*child)->wait(), 10s).status.return_code() == 7);
}

// Starts one child and records its exit. `launcher`, `reports` and `done` belong to the test,
// which runs the io_context until every one of these has finished.
boost::asio::awaitable<void> run_one(io::launcher& launcher, io::spawn_request request,
                                     test::start_mode mode,
                                     std::vector<std::optional<io::exit_report>>& reports,
                                     int index, int& done)
{
    // No co_await inside a conditional expression (GCC 12 mishandles such forms): plain
    // statements.
    std::optional<torcrun::core::result<std::shared_ptr<io::child_process>>> child;
    if (mode == test::start_mode::spawn) {
        child.emplace(launcher.spawn(request));
    } else {
        auto launched = co_await launcher.launch(request);
        child.emplace(std::move(launched));
    }
    if (child->has_value()) {
        auto const report = co_await child->value()->wait();
        reports[index] = report;
    }
    ++done;
}

BOOST_DATA_TEST_CASE(fifty_children_at_once_are_reaped_promptly,
                     bdata::make({io::exit_watch::automatic, io::exit_watch::sigchld}) * modes,
                     watch, mode)
{
    constexpr int count = 50;
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor(), watch);
    std::vector<std::optional<io::exit_report>> reports(count);
    int done = 0;
    for (int i = 0; i < count; ++i) {
        // Half exit at once with their index, half sleep 200 ms.
        auto request =
            test::fake_job_request(i % 2 ? std::vector<std::string>{"sleep", "200"}
                                         : std::vector<std::string>{"exit", std::to_string(i)},
                                   dir);
        request.stdout_path = dir.file("out-" + std::to_string(i));
        boost::asio::co_spawn(ioc, run_one(launcher, request, mode, reports, i, done),
                              boost::asio::detached);
    }
    BOOST_TEST_REQUIRE(test::run_until(
        ioc, [&] { return done == count; }, test::scaled(10s)));
    for (int i = 0; i < count; ++i) {
        BOOST_TEST_REQUIRE(reports[i].has_value());
        BOOST_TEST(reports[i]->status.return_code() == (i % 2 ? 0 : i));
        // Seen within 1.5 s of the exit even on a loaded 2-core machine.
        BOOST_TEST((reports[i]->ended - reports[i]->started <
                    test::scaled(i % 2 ? 1700ms : 1500ms)));
    }
    BOOST_TEST(test::children_of_self().empty());
}

// The launcher finds a program in PATH once per PATH and working directory: the same name under
// another PATH is looked up again (a job's own PATH picks its own program), and a PATH that holds
// no such program still fails with the search's message.
BOOST_AUTO_TEST_CASE(a_program_is_found_once_per_path)
{
    test::temp_dir dir;
    std::filesystem::create_directories(dir.file("fake"));
    test::write_file(dir.file("fake/bash"), "#!/bin/sh\necho fake bash\n");
    std::filesystem::permissions(dir.file("fake/bash"), std::filesystem::perms::owner_all);
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const run = [&](std::string const& path, std::string const& out) {
        io::spawn_request request{{"bash", "-c", "echo real bash"},
                                  {{"PATH", path}},
                                  "",
                                  dir.file(out),
                                  dir.file(out + ".err"),
                                  {}};
        auto launched = test::run_coro(ioc, launcher.launch(request), 10s);
        if (!launched) return launched.error().message;
        test::run_coro(ioc, (*launched)->wait(), 10s);
        return test::read_file(dir.file(out));
    };
    BOOST_TEST(run("/usr/bin:/bin", "a") == "real bash\n");
    BOOST_TEST(run(dir.file("fake") + ":/usr/bin:/bin", "b") == "fake bash\n");
    BOOST_TEST(run("/usr/bin:/bin", "c") == "real bash\n");  // found once, kept
    BOOST_TEST(run(dir.file("fake") + ":/usr/bin:/bin", "d") == "fake bash\n");
    BOOST_TEST(run(dir.file("nothing"), "e") ==
               "spawn: \"bash\" was not found in PATH \"" + dir.file("nothing") + "\"");
    // Not looked up again: once the program found is gone, its exec fails (a fresh search would
    // have gone on to /usr/bin/bash).
    std::filesystem::remove(dir.file("fake/bash"));
    BOOST_TEST(run(dir.file("fake") + ":/usr/bin:/bin", "f").starts_with(
        "spawn: exec \"" + dir.file("fake/bash") + "\": "));
}

// gpu.cpu_bind's binding: the child is bound before exec, and reads its own affinity back
// (/proc/self/status Cpus_allowed_list) as each of the machine's CPUs, alone and together.
BOOST_AUTO_TEST_CASE(a_job_is_bound_to_its_cpus)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    BOOST_TEST_REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
    std::vector<unsigned> cpus;
    for (unsigned c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mine)) cpus.push_back(c);
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const allowed = [&](std::vector<unsigned> bind, std::string const& out) {
        io::spawn_request request{{"bash", "-c", "grep Cpus_allowed_list: /proc/self/status"},
                                  {{"PATH", "/usr/bin:/bin"}},
                                  "",
                                  dir.file(out),
                                  dir.file(out + ".err"),
                                  std::move(bind)};
        auto launched = test::run_coro(ioc, launcher.launch(request), 10s);
        BOOST_TEST_REQUIRE(launched.has_value());
        test::run_coro(ioc, (*launched)->wait(), 10s);
        auto const text = test::read_file(dir.file(out));
        auto const value = text.find_first_not_of("\t ", text.find_first_of("\t "));
        return text.substr(value, text.size() - 1 - value);  // without the newline
    };
    for (auto c : cpus)
        BOOST_TEST(allowed({c}, "one" + std::to_string(c)) == std::to_string(c));
    if (cpus.size() >= 2)
        BOOST_TEST(allowed({cpus.front(), cpus.back()}, "two") ==
                   std::to_string(cpus.front()) + (cpus.back() == cpus.front() + 1 ? "-" : ",") +
                       std::to_string(cpus.back()));
}

// The worker's own descriptors, by number and target.
std::vector<std::string> open_descriptors()
{
    std::vector<std::string> out;
    for (auto const& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        auto const target = std::filesystem::read_symlink(entry.path(), ec);
        out.push_back(entry.path().filename().string() + " " + target.string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Starting jobs keeps nothing open in the worker per job, whether the child exec'ed, failed at
// exec or failed before it (the vfork-style start reports failures in memory, not through a
// pipe); the one /dev/null kept for every job's stdin is opened at the first start.
BOOST_DATA_TEST_CASE(starts_leave_no_descriptor_behind, modes, mode)
{
    test::temp_dir dir;
    boost::asio::io_context ioc;
    io::launcher launcher(ioc.get_executor());
    auto const good = test::fake_job_request({"exit", "3"}, dir);
    auto bad_exec = good;
    bad_exec.argv = {"/nonexistent-torcrun/job"};
    auto bad_directory = good;
    bad_directory.working_directory = "/nonexistent-torcrun";
    auto const run = [&](io::spawn_request const& request) {
        auto const child = test::start(ioc, launcher, request, mode);
        if (child) return std::to_string(test::run_coro(ioc, (*child)->wait(), 10s)
                                             .status.return_code());
        return child.error().message;
    };
    BOOST_TEST_REQUIRE(run(good) == "3");
    auto const before = open_descriptors();
    for (int round = 0; round < 10; ++round) {
        BOOST_TEST(run(good) == "3");
        BOOST_TEST(run(bad_exec) ==
                   R"m(spawn: exec "/nonexistent-torcrun/job": No such file or directory)m");
        BOOST_TEST(
            run(bad_directory) ==
            R"m(spawn: working directory "/nonexistent-torcrun": No such file or directory)m");
    }
    BOOST_TEST(open_descriptors() == before, boost::test_tools::per_element());
    BOOST_TEST(test::children_of_self().empty());
}

BOOST_AUTO_TEST_CASE(a_cancelled_launch_leaves_no_child)
{
    // Cancelled while the status pipe is awaited; a child that exec'ed before the read was
    // even tried is a normal start. Both leave nothing behind once handled.
    test::temp_dir dir;
    int cancelled = 0;
    for (int round = 0; round < 20; ++round) {
        boost::asio::io_context ioc;
        io::launcher launcher(ioc.get_executor());
        boost::asio::cancellation_signal stop;
        std::optional<torcrun::core::result<std::shared_ptr<io::child_process>>> outcome;
        auto on_done = [&outcome](std::exception_ptr, auto r) { outcome = std::move(r); };
        boost::asio::co_spawn(ioc, launcher.launch(test::fake_job_request({"exit", "0"}, dir)),
                              boost::asio::bind_cancellation_slot(stop.slot(), on_done));
        ioc.poll_one();  // forks and starts the read
        stop.emit(boost::asio::cancellation_type::terminal);
        BOOST_TEST_REQUIRE(test::run_until(
            ioc, [&] { return outcome.has_value(); }, 5s));
        if (outcome->has_error()) {
            BOOST_TEST(outcome->error().message == "spawn: cancelled");
            ++cancelled;
        } else {
            test::run_coro(ioc, (*outcome)->get()->wait(), 5s);
        }
        BOOST_TEST(test::children_of_self().empty());
    }
    BOOST_TEST_MESSAGE("cancelled before the exec: " << cancelled << " of 20");
    // fork() returns before the child's exec, so some of the 20 are cancelled while it sets
    // itself up; the vfork-style start returns after it, and a cancel meets a finished start.
    if (io::detail::started_by_fork) BOOST_TEST(cancelled > 0);
}

BOOST_AUTO_TEST_CASE(the_job_dies_with_its_worker)
{
    int fds[2];
    BOOST_TEST_REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    auto const job = test::fake_job();
    pid_t const worker = ::fork();
    if (worker == 0) {
        // A worker of its own: starts a long job, says its pid, then waits to be killed.
        pid_t pid = -1;
        try {
            boost::asio::io_context ioc;
            io::launcher launcher(ioc.get_executor());
            auto child =
                launcher.spawn(io::spawn_request{{job, "sleep", "30000"}, {}, "", "", "", {}});
            if (child) pid = (*child)->pid();
            [[maybe_unused]] auto const written = ::write(fds[1], &pid, sizeof pid);
            for (;;) ::pause();
        } catch (...) {
        }
        ::_exit(1);
    }
    ::close(fds[1]);
    pid_t pid = -1;
    auto const got = ::read(fds[0], &pid, sizeof pid);
    ::close(fds[0]);
    BOOST_TEST_REQUIRE(got == static_cast<ssize_t>(sizeof pid));
    BOOST_TEST_REQUIRE(pid > 0);
    BOOST_TEST(!test::is_gone(pid));
    ::kill(worker, SIGKILL);
    ::waitpid(worker, nullptr, 0);
    BOOST_TEST(test::wait_until_gone({pid}, 2000ms));
}

// In a forked child: fds without close-on-exec below and above `keep`, then the sweep; the
// exit code is the number of descriptors >= 3 left besides `keep`, plus 100 if `keep` is gone.
int sweep_in_child(bool use_close_range)
{
    int low[2], keep[2];
    if (::pipe(low) != 0 || ::pipe(keep) != 0) return -1;
    pid_t const pid = ::fork();
    if (pid == 0) {
        ::dup2(low[0], 200);
        ::dup2(low[1], 1000);
        if (int const e = io::detail::close_descriptors(keep[1], use_close_range); e != 0)
            ::_exit(90);
        int left = 0;
        bool keep_open = false;
        DIR* dir = ::opendir("/proc/self/fd");
        while (auto* entry = dir ? ::readdir(dir) : nullptr) {
            int const fd = std::atoi(entry->d_name);
            if (entry->d_name[0] == '.' || fd == ::dirfd(dir) || fd < 3) continue;
            if (fd == keep[1])
                keep_open = true;
            else
                ++left;
        }
        ::_exit(left + (keep_open ? 0 : 100));
    }
    for (int fd : {low[0], low[1], keep[0], keep[1]}) ::close(fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

BOOST_DATA_TEST_CASE(the_descriptor_sweep_keeps_only_the_status_pipe,
                     bdata::make(std::vector<bool>{true, false}), use_close_range)
{
    BOOST_TEST(sweep_in_child(use_close_range) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
