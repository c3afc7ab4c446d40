// Shared pieces of the job_runner tests: a runner on its own io_context writing into a
// temporary output directory, the events and log lines it produced, calls made from inside a
// handler with a flag the sink checks (so an event delivered inside a call is caught), and
// spawn actions for shell commands on one node.
#pragma once

#include "torcrun/worker/attempt_record.hpp"
#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/io/job_runner.hpp"

#include "child_fixture.hpp"
#include "worker/io/attempt_record_file.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace torcrun::test {

// fake_job's path quoted for a shell command line, followed by `args`.
inline std::string fake_job_command(std::string const& args)
{
    return core::shell_quote(fake_job()) + " " + args;
}

inline core::worker::spawn spawn_action(std::int64_t job_id, std::string command,
                                        std::vector<std::string> gpus = {})
{
    core::worker::spawn action;
    action.job.id = job_id;
    action.job.name = "job" + std::to_string(job_id);
    action.job.command = std::move(command);
    action.run_id = 1;
    action.placement.id = core::reservation_id{job_id};
    action.placement.nodes = {core::node_share{0, "n1", 1, 0, std::move(gpus)}};
    return action;
}

struct runner_fixture {
    boost::asio::io_context ioc;
    temp_dir dir;
    std::vector<core::worker_event> events;
    std::vector<std::string> log_lines;
    bool inside_call = false;
    bool delivered_inside = false;  // an event reached the sink during a call
    std::unique_ptr<io::job_runner> runner;

    io::job_runner_settings settings() const
    {
        io::job_runner_settings s;
        s.config.output_dir = dir.file("out");
        s.config.server.url = "http://127.0.0.1:9/torc-service/v1";
        s.worker_env = {{"PATH", "/usr/bin:/bin"}, {"HOME", dir.path()}};
        s.workflow_id = 5;
        s.sample_interval = std::chrono::milliseconds(20);
        s.record = std::make_shared<io::attempt_record_file>(dir.file("out"), 5, "testhost");
        return s;
    }

    void make(io::job_runner_settings s)
    {
        io::logger log{io::log_level::debug,
                       [this](io::log_level, std::string_view line) {
                           log_lines.emplace_back(line);
                       }};
        runner = std::make_unique<io::job_runner>(
            ioc.get_executor(), std::move(s),
            [this](core::worker_event e) {
                if (inside_call) delivered_inside = true;
                events.push_back(std::move(e));
            },
            log);
    }

    // Calls `f` from inside a handler, as the worker shell does, with inside_call set.
    template <class F>
    void call(F f)
    {
        bool done = false;
        boost::asio::post(ioc, [&] {
            inside_call = true;
            f(*runner);
            inside_call = false;
            done = true;
        });
        BOOST_TEST_REQUIRE(run_until(ioc, [&] { return done; }));
    }

    template <class E>
    std::vector<E> all() const
    {
        std::vector<E> out;
        for (auto const& e : events)
            if (auto const* p = std::get_if<E>(&e)) out.push_back(*p);
        return out;
    }

    // Runs until an event of type E for `id` (job or action id) arrives; it is returned.
    template <class E>
    E wait_for(std::int64_t id, std::chrono::steady_clock::duration limit = 20s)
    {
        auto const found = [&]() -> E const* {
            for (auto const& e : events)
                if (auto const* p = std::get_if<E>(&e); p && id_of(*p) == id) return p;
            return nullptr;
        };
        BOOST_TEST_REQUIRE(run_until(ioc, [&] { return found() != nullptr; }, limit));
        return *found();
    }

    bool logged(std::string const& text) const
    {
        for (auto const& line : log_lines)
            if (line.find(text) != std::string::npos) return true;
        return false;
    }

    std::string output_dir() const { return dir.file("out"); }

    // What the worker's attempt record says of the action's attempt (every record under the
    // output directory read); nothing recorded fails the test.
    core::attempt_facts_recorded recorded(core::worker::spawn const& action) const
    {
        core::attempt_record_book book;
        std::error_code ec;
        for (auto const& file : std::filesystem::directory_iterator(
                 core::attempt_record_dir(output_dir()), ec))
            BOOST_TEST(core::read_attempt_record(read_file(file.path().string()),
                                                 file.path().string(), book)
                           .empty());
        auto const it = book.find({5, action.job.id, action.run_id, action.job.attempt_id});
        BOOST_TEST_REQUIRE((it != book.end()), "no record of job " << action.job.id);
        return it->second;
    }

    core::attempt_paths paths(core::worker::spawn const& action) const
    {
        return core::attempt_log_paths(
            output_dir(), {5, action.job.id, action.job.name, action.run_id, action.job.attempt_id,
                           std::nullopt});
    }

private:
    template <class E>
    static std::int64_t id_of(E const& e)
    {
        if constexpr (requires { e.job_id; })
            return e.job_id;
        else
            return e.action_id;
    }
};

}  // namespace torcrun::test
