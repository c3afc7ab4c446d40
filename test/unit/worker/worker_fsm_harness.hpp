// A worker_fsm under test: events in at scenario times (seconds since the clock's epoch, so
// arm_timer reads as scenario time), actions out as describe() text. Replies name their request
// by the start of its description ("start_job 42"), newest open one first, so tests never spell
// request ids. Plus the value helpers every worker_fsm test uses.
#pragma once

#include "torcrun/worker/worker_fsm.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <csignal>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fsm_test {

namespace core = torcrun::core;
namespace worker = torcrun::core::worker;
using core::http_failure;
using core::worker_event;

inline constexpr std::uint64_t gib = std::uint64_t{1} << 30;
inline constexpr double unix_t0 = 1'750'000'000;  // the wall clock at time 0

// Rounded, not truncated: a time read back from an arm_timer (nanoseconds -> seconds) comes back
// as the same time point, so a tick delivered then is not a nanosecond before the timer.
inline core::worker_fsm::time_point at(double seconds)
{
    return core::worker_fsm::time_point{} +
           std::chrono::round<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

// The defaults of a scenario: realistic polling, no long poll, no idle exit, a 600 s retry
// window (the scenarios' outages are timed against it).
inline core::worker_config test_config()
{
    core::worker_config c;
    c.server.retry_window_seconds = 600;
    c.server.allow_retry_beyond_lease = true;  // the scripts name leases of a few seconds
    c.poll.long_poll_seconds = 0;
    c.limits.idle_timeout_seconds = 0;
    return c;
}

inline core::node_capacity node(std::string name, std::uint32_t cpus, std::uint64_t bytes,
                                int gpus)
{
    core::node_capacity n{std::move(name), cpus, bytes, {}};
    for (int g = 0; g < gpus; ++g) n.gpu_ids.push_back(std::to_string(g));
    return n;
}

inline core::claimed_job job(std::int64_t id, std::int64_t rr = 1,
                             std::optional<std::int64_t> handler = std::nullopt,
                             std::uint32_t attempt = 1)
{
    core::claimed_job j;
    j.id = id;
    j.name = "job" + std::to_string(id);
    j.command = "run " + std::to_string(id);
    j.resource_requirements_id = rr;
    j.failure_handler_id = handler;
    j.attempt_id = attempt;
    return j;
}

inline core::job_resources needs(std::uint32_t cpus, std::uint64_t bytes = 0,
                                 std::uint32_t gpus = 0, std::uint32_t nodes = 1,
                                 std::optional<double> runtime = std::nullopt)
{
    return {0, "rr", {cpus, gpus, nodes, bytes}, runtime, std::nullopt};
}

// Workflow actions as pending lists carry them: commands to run, or a type workers skip.
inline core::workflow_action commands_action(std::int64_t id, std::vector<std::string> commands)
{
    return {id, "run_commands", std::move(commands), "on_worker_start", false, std::nullopt};
}
inline core::workflow_action other_action(std::int64_t id, std::string type)
{
    return {id, std::move(type), {}, "on_worker_start", false, std::nullopt};
}

inline core::exit_status exited(int code) { return {core::exit_status::kind::exited, code, 0}; }
inline core::exit_status killed(int signal)
{
    return {core::exit_status::kind::signaled, 0, signal};
}

class harness {
public:
    harness(core::worker_config config, std::vector<core::node_capacity> nodes,
            std::optional<std::uint64_t> seed = std::nullopt)
        : fsm_(std::move(config), 5, core::resource_pool::create(std::move(nodes)).value(), seed)
    {
    }

    std::vector<std::string> feed(double seconds, worker_event const& event)
    {
        last_ = fsm_.on(event, at(seconds));
        std::vector<std::string> lines;
        for (auto const& action : last_) {
            lines.push_back(core::describe(action));
            history_.push_back(lines.back());
            if (auto id = core::request_of(action)) open_[*id] = lines.back();
        }
        return lines;
    }

    // How many actions so far were described starting with `prefix` ("heartbeat").
    std::size_t count(std::string_view prefix) const
    {
        return static_cast<std::size_t>(std::ranges::count_if(
            history_, [prefix](std::string const& line) { return line.starts_with(prefix); }));
    }

    // The newest open request whose description starts with `prefix`; it is closed by the reply.
    core::request_id req(std::string const& prefix)
    {
        for (auto it = open_.rbegin(); it != open_.rend(); ++it) {
            if (!it->second.starts_with(prefix)) continue;
            auto const id = it->first;
            open_.erase(id);
            return id;
        }
        BOOST_FAIL("no open request starts with \"" << prefix << '"');
        return {};
    }

    core::worker_fsm& fsm() { return fsm_; }
    std::vector<core::worker_action> const& last() const { return last_; }

private:
    core::worker_fsm fsm_;
    std::vector<core::worker_action> last_;
    std::vector<std::string> history_;
    std::map<core::request_id, std::string> open_;
};

}  // namespace fsm_test
