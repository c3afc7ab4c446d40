// Scripted scenarios for worker_fsm: a table of (time, event, expected actions). Actions are
// compared by their describe() text (arm_timer shows seconds since the clock's epoch, which is
// the scenario's time 0). Replies name their request by the start of its description
// ("start_job 42"), the newest open one first, so scripts never spell request ids.
#pragma once

#include "torcrun/core/worker_fsm.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace fsm_test {

namespace core = torcrun::core;
namespace worker = torcrun::core::worker;
using core::http_failure;
using core::worker_event;

inline constexpr std::uint64_t gib = std::uint64_t{1} << 30;
inline constexpr double unix_t0 = 1'750'000'000;  // the wall clock at time 0

inline core::worker_fsm::time_point at(double seconds)
{
    return core::worker_fsm::time_point{} +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

// The defaults of a scenario: realistic polling, no long poll, no idle exit.
inline core::worker_config test_config()
{
    core::worker_config c;
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
    return {0, "rr", {cpus, gpus, nodes, bytes}, runtime};
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
            if (auto id = core::request_of(action)) open_[*id] = lines.back();
        }
        return lines;
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
    std::map<core::request_id, std::string> open_;
};

using make_event = std::function<worker_event(harness&)>;

inline make_event ev(worker_event e)
{
    return [e = std::move(e)](harness&) { return e; };
}
inline make_event done(std::string prefix)
{
    return [p = std::move(prefix)](harness& h) { return worker::request_done{h.req(p)}; };
}
inline make_event failed(std::string prefix, http_failure kind, int status, std::string message)
{
    return [=](harness& h) { return worker::request_failed{h.req(prefix), kind, status, message}; };
}
inline make_event refused(std::string prefix, int status, std::string message)
{
    return failed(std::move(prefix), http_failure::http_4xx, status, std::move(message));
}
inline make_event down(std::string prefix)
{
    return failed(std::move(prefix), http_failure::connect, 0,
                  "POST /x: connect 127.0.0.1:8080: Connection refused");
}
template <class Reply, class... Args>
make_event reply(std::string prefix, Args... args)
{
    return [=](harness& h) { return worker_event{Reply{h.req(prefix), args...}}; };
}
inline make_event claimed(std::vector<core::claimed_job> jobs)
{
    return reply<worker::jobs_claimed>("claim_jobs", std::move(jobs));
}
inline make_event requirements(std::int64_t id, core::job_resources r)
{
    return reply<worker::requirements_read>("read_requirements " + std::to_string(id), r);
}
inline make_event tick() { return ev(worker::tick{}); }
inline make_event spawned(std::int64_t id) { return ev(worker::job_spawned{id}); }
inline make_event exit_of(std::int64_t id, core::exit_status s)
{
    return ev(worker::job_exited{id, s, std::nullopt});
}
inline make_event sig(int signal) { return ev(worker::signal_received{signal}); }

struct step {
    double at = 0;
    make_event event;
    std::vector<std::string> expect;
};

struct scenario {
    std::string name;
    core::worker_config config = test_config();
    std::vector<core::node_capacity> nodes;
    std::vector<step> steps;
    std::function<void(harness&)> after{};  // extra checks at the end
};

inline std::ostream& operator<<(std::ostream& os, scenario const& s) { return os << s.name; }

inline std::string lines(std::vector<std::string> const& items)
{
    std::string text;
    for (auto const& item : items) text += "\n    " + item;
    return text;
}

inline void play(scenario const& s)
{
    harness h(s.config, s.nodes);
    std::size_t n = 0;
    for (auto const& st : s.steps) {
        ++n;
        auto const got = h.feed(st.at, st.event(h));
        if (st.expect == std::vector<std::string>{"..."}) continue;  // a setup step
        BOOST_TEST(lines(got) == lines(st.expect), "step " << n << " at " << st.at << "\n  got:"
                                                            << lines(got) << "\n  expected:"
                                                            << lines(st.expect));
        auto const bad = h.fsm().check_invariants();
        BOOST_TEST(!bad.has_value(), "step " << n << ": " << bad.value_or(""));
    }
    if (s.after) s.after(h);
}

// The start-up every running scenario begins with: registration, run id, no start actions, the
// first claim (`claim`) and the first status-check timer.
inline std::vector<step> opening(std::string node, std::string claim,
                                 std::string timer = "arm_timer 5.4", bool pending_failed = false)
{
    using actions = std::vector<core::workflow_action>;
    return {
        {0, ev(worker::begin{unix_t0, {}}), {"register_node " + node}},
        {0.1, reply<worker::node_registered>("register_node", std::int64_t{9}),
         {"info: worker: registered as compute node 9", "read_workflow"}},
        {0.2, reply<worker::workflow_read>("read_workflow", std::int64_t{1}, pending_failed),
         {std::string("info: worker: workflow 5 run 1") +
              (pending_failed ? " (use_pending_failed)" : ""),
          "read_pending_actions on_workflow_start"}},
        {0.3, reply<worker::pending_actions_read>("read_pending_actions", actions{}),
         {"read_pending_actions on_worker_start"}},
        {0.4, reply<worker::pending_actions_read>("read_pending_actions", actions{}),
         {"info: worker: running", "claim_jobs " + claim, timer}},
    };
}

// The usual pool: one node with 8 CPUs, 16 GiB and 4 GPUs.
inline std::vector<core::node_capacity> n0_pool() { return {node("n0", 8, 16 * gib, 4)}; }
inline std::string const n0_node = "cpus=8 memory=16g gpus=4 nodes=1";
inline std::string const n0_claim = "limit=8 cpus=8 memory=16g gpus=4 nodes=1";

// Setup steps (unchecked) that claim, place, start and spawn one job at time t. `r`: its
// requirements, or nullopt when they are cached already.
inline std::vector<step> launched(double t, core::claimed_job j,
                                  std::optional<core::job_resources> r)
{
    auto const id = j.id;
    std::vector<step> steps{{t, claimed({j}), {"..."}}};
    if (r) steps.push_back({t + 0.01, requirements(j.resource_requirements_id, *r), {"..."}});
    steps.push_back({t + 0.02, done("start_job " + std::to_string(id)), {"..."}});
    steps.push_back({t + 0.03, spawned(id), {"..."}});
    return steps;
}

inline std::vector<step> operator+(std::vector<step> a, std::vector<step> const& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace fsm_test
