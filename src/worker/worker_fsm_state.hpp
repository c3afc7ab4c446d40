// Internal to worker_fsm: what it keeps per job, per request and per report. A job's phase is a
// variant of per-phase structs, each holding only what that phase has (a placement while it is
// placed, the result once it has exited), so no job can hold a reservation after its exit or
// lack a result while it is reported; each transition builds the next phase from the last.
#pragma once

#include "torcrun/worker/worker_actions.hpp"

#include <chrono>
#include <optional>
#include <string_view>
#include <variant>

namespace torcrun::core {

using fsm_time = std::chrono::steady_clock::time_point;

inline fsm_time::duration seconds(double s)
{
    return std::chrono::duration_cast<fsm_time::duration>(std::chrono::duration<double>(s));
}

inline constexpr double report_budget = 5;  // seconds a stop leaves for reports after the grace

enum class job_phase {  // where a live job is, in the order of job_state's alternatives
    requirements,
    queued,
    starting,
    spawning,
    running,
    outputs,
    handler,
    retrying,
    reporting,
    handing_back
};
std::string_view to_string(job_phase phase);

// Why the worker signalled a job; lease: the lease it ran under was lost (lost_lease_policy stop)
enum class stop_cause { none, drain, runtime, memory, lease };

// The phases of one job; see the diagram in worker_fsm.hpp.
namespace job_state {

struct awaiting_requirements {};  // claimed; its resource requirements are being read
struct queued {                   // claimed ahead: waits here for free resources (no placement)
    fsm_time since;
};
struct starting {                 // reserved; start_job sent
    reservation placement;
};
struct spawning {  // the server marked it running; spawn sent
    reservation placement;
};
struct running {  // its process runs
    reservation placement;
    fsm_time spawned_at;
    std::optional<fsm_time> limit_at{};  // runtime enforcement: stop it then
    std::optional<fsm_time> kill_at{};   // SIGKILL then
    stop_cause cause = stop_cause::none;
    bool killed = false;  // SIGKILL sent
};
struct checking_outputs {  // exited 0; check_outputs sent
    job_result result;
};
struct fetching_handler {  // failed; its failure handler is being read
    job_result result;
};
struct retrying {  // retry_job sent under `rule`
    job_result result;
    failure_rule rule;
};
struct reporting {};     // its result is in the report queue
struct handing_back {};  // hand_back sent

}  // namespace job_state

using job_phase_state =
    std::variant<job_state::awaiting_requirements, job_state::queued, job_state::starting,
                 job_state::spawning, job_state::running, job_state::checking_outputs,
                 job_state::fetching_handler, job_state::retrying, job_state::reporting,
                 job_state::handing_back>;
static_assert(std::variant_size_v<job_phase_state> ==
              static_cast<std::size_t>(job_phase::handing_back) + 1);

struct job_entry {
    claimed_job job;
    job_phase_state state{};

    job_phase phase() const { return static_cast<job_phase>(state.index()); }
    template <class Phase>
    Phase* in()
    {
        return std::get_if<Phase>(&state);
    }
    // The reservation it holds: in starting, spawning and running only.
    reservation const* placement() const
    {
        return std::visit(
            [](auto const& s) -> reservation const* {
                if constexpr (requires { s.placement; })
                    return &s.placement;
                else
                    return nullptr;
            },
            state);
    }
};

struct request_entry {
    worker_action action;  // re-sent as is after a transient failure
    int failures = 0;
    bool ambiguous = false;  // the last failure was a timeout or reset: it may have been applied
    std::optional<fsm_time> retry_at{};
};

struct pending_report {
    job_report report;
    bool journaled = false;
    std::optional<request_id> request;  // sent (or waiting to be re-sent)
};

}  // namespace torcrun::core
