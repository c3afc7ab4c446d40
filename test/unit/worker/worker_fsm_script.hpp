// Scripted scenarios for worker_fsm: a table of (time, event, expected actions), compared by
// describe() text; the standard opening and setup steps that scenarios share.
#pragma once

#include "worker_fsm_harness.hpp"

#include <functional>
#include <ostream>

namespace fsm_test {

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
// complete_and_claim answered: these completions accepted, these jobs claimed.
inline make_event exchanged(std::vector<std::int64_t> completed,
                            std::vector<core::claimed_job> jobs)
{
    return [=](harness& h) {
        auto const id = h.req("complete_and_claim");
        return worker_event{worker::completed_and_claimed{
            id, worker::jobs_reported{id, completed, {}}, worker::jobs_claimed{id, jobs}, {}}};
    };
}
inline make_event requirements(std::int64_t id, core::job_resources r)
{
    return reply<worker::requirements_read>("read_requirements " + std::to_string(id), r);
}
inline make_event tick() { return ev(worker::tick{}); }
inline make_event spawned(std::int64_t id) { return ev(worker::job_spawned{id}); }
inline make_event exit_of(std::int64_t id, core::exit_status s)
{
    return ev(worker::job_exited{id, s, std::nullopt, std::nullopt, "", {}});
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

// The start-up every running scenario begins with: registration (and the first heartbeat, with
// the extensions), run id, no start actions, the first claim (`claim`) and the first
// status-check timer.
inline std::vector<step> opening(std::string node, std::string claim,
                                 std::string timer = "arm_timer 5.4", bool pending_failed = false,
                                 bool extensions = true)
{
    using actions = std::vector<core::workflow_action>;
    std::vector<std::string> registered{"info: worker: registered as compute node 9",
                                        "journal_node 9", "read_workflow"};
    if (extensions) registered.push_back("heartbeat");
    return {
        {0, ev(worker::begin{unix_t0, {}}), {"register_node " + node}},
        {0.1, reply<worker::node_registered>("register_node", std::int64_t{9}), registered},
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

