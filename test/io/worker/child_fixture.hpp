// Shared pieces of the launcher and sampler tests: the fake_job path (given after `--`), a
// temporary directory per test, spawn requests for fake_job, and process facts read from /proc
// (who our children are, whether a pid is gone) that do not go through the code under test.
#pragma once

#include "torcrun/worker/io/launcher.hpp"

#include "run_coro.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace torcrun::test {

namespace fs = std::filesystem;

// The first argument after `--` (ctest passes $<TARGET_FILE:fake_job>), made absolute: the
// tests start it from other working directories.
inline std::string fake_job()
{
    auto const& suite = boost::unit_test::framework::master_test_suite();
    for (int i = 1; i < suite.argc; ++i)
        if (std::string(suite.argv[i]) != "--") return fs::absolute(suite.argv[i]).string();
    throw std::runtime_error("the fake_job path must follow `--` on the command line");
}

class temp_dir {
public:
    temp_dir()
    {
        static int counter = 0;
        path_ = fs::temp_directory_path() / ("torcrun-launcher-" + std::to_string(::getpid()) +
                                             "-" + std::to_string(++counter));
        fs::create_directories(path_);
        path_ = fs::canonical(path_);
    }
    temp_dir(temp_dir const&) = delete;
    temp_dir& operator=(temp_dir const&) = delete;
    ~temp_dir()
    {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    std::string file(std::string const& name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    fs::path path_;
};

inline std::string read_file(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void write_file(std::string const& path, std::string const& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// fake_job with `args`, stdout and stderr into `dir`, an empty environment.
inline io::spawn_request fake_job_request(std::vector<std::string> args, temp_dir const& dir)
{
    io::spawn_request request;
    request.argv.push_back(fake_job());
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.stdout_path = dir.file("stdout");
    request.stderr_path = dir.file("stderr");
    return request;
}

// The two ways to start a child: spawn() blocks until the exec, launch() awaits it.
enum class start_mode { spawn, launch };

inline std::ostream& operator<<(std::ostream& os, start_mode m)
{
    return os << (m == start_mode::spawn ? "spawn" : "launch");
}

inline core::result<std::shared_ptr<io::child_process>> start(boost::asio::io_context& ioc,
                                                              io::launcher& launcher,
                                                              io::spawn_request const& request,
                                                              start_mode mode)
{
    if (mode == start_mode::spawn) return launcher.spawn(request);
    return run_coro(ioc, launcher.launch(request), std::chrono::seconds(10));
}

inline std::vector<std::string> lines(std::string const& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// Our children, zombies included (/proc/self/task/<tid>/children, single-threaded).
inline std::vector<int> children_of_self()
{
    std::ifstream in("/proc/self/task/" + std::to_string(::getpid()) + "/children");
    std::vector<int> pids;
    for (int pid; in >> pid;) pids.push_back(pid);
    return pids;
}

// No /proc entry, or a zombie or dead task (the container's init may never reap orphans).
inline bool is_gone(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.empty()) return true;
    auto const close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() || text[close + 2] == 'Z' ||
           text[close + 2] == 'X';
}

inline bool wait_until_gone(std::vector<int> const& pids, std::chrono::milliseconds limit)
{
    auto const deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        bool all = true;
        for (int pid : pids) all = all && is_gone(pid);
        if (all) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

// Waits on the io_context (so exits keep being handled) until `path` holds a line "ready".
inline boost::asio::awaitable<bool> wait_for_ready(std::string path,
                                                   std::chrono::milliseconds limit)
{
    auto const executor = co_await boost::asio::this_coro::executor;
    boost::asio::steady_timer timer(executor);
    auto const deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (read_file(path).find("ready\n") != std::string::npos) co_return true;
        timer.expires_after(std::chrono::milliseconds(5));
        [[maybe_unused]] auto const [ec] =
            co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    co_return false;
}

// The pids fake_job printed before "ready".
inline std::vector<int> printed_pids(std::string const& path)
{
    std::vector<int> pids;
    for (auto const& line : lines(read_file(path))) {
        if (line == "ready") break;
        pids.push_back(std::stoi(line));
    }
    return pids;
}

}  // namespace torcrun::test
