// Internal to worker_fsm: what it keeps per job, per request and per report.
#pragma once

#include "torcrun/worker/worker_actions.hpp"

#include <chrono>
#include <optional>
#include <string_view>

namespace torcrun::core {

using fsm_time = std::chrono::steady_clock::time_point;

inline fsm_time::duration seconds(double s)
{
    return std::chrono::duration_cast<fsm_time::duration>(std::chrono::duration<double>(s));
}

inline constexpr double report_budget = 5;  // seconds a stop leaves for reports after the grace

enum class job_phase {  // where a live job is; see the diagram in worker_fsm.hpp
    requirements,
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

enum class stop_cause { none, drain, runtime, memory };  // why the worker signalled a job

struct job_entry {
    claimed_job job;
    job_phase phase = job_phase::requirements;
    std::optional<reservation> placement{};  // held in phases starting, spawning, running
    fsm_time spawned_at{};
    std::optional<fsm_time> limit_at{};  // runtime enforcement: stop it then
    std::optional<fsm_time> kill_at{};   // SIGKILL then
    stop_cause cause = stop_cause::none;
    bool killed = false;  // SIGKILL sent
    job_result result{};  // filled at exit
    std::optional<failure_rule> retry_rule{};
};

struct request_entry {
    worker_action action;  // re-sent as is after a transient failure
    int failures = 0;
    std::optional<fsm_time> retry_at{};
};

struct pending_report {
    job_report report;
    bool journaled = false;
    std::optional<request_id> request;  // sent (or waiting to be re-sent)
};

}  // namespace torcrun::core
