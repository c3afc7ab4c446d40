// GET /workflows/{id}/status answered for both of Torc's contracts in one object
// (docs/TORC-COMPATIBILITY.md, "Both contracts: v0.10 and 0.23"): v0.10's workflow_status_model
// (id, is_canceled, is_archived, run_id, has_detected_need_to_run_completion_script) and 0.23's
// WorkflowStatusResponse (a summary computed by the server: job counts by status, execution
// time, compute and scheduled nodes, and the ready jobs no active allocation has the walltime
// left to run). Neither contract forbids the other's keys, and is_canceled means the same in
// both. Also the walltime arithmetic of the summary, on the allocations' own records.
#pragma once

#include "torcrun/server/job_status.hpp"
#include "torcrun/server/workflow_progress.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace torcrun::core {

// An active compute node as its record reports its allocation: end_time (RFC 3339, as 0.23's
// runner registers it) or else start_time (RFC 3339) and time_limit (an ISO 8601 duration,
// "PT3H57M", as v0.10's runner registers it); absent for a node without a walltime.
struct allocation_clock {
    std::string_view start_time;
    std::optional<std::string_view> time_limit;
    std::optional<std::string_view> end_time;
};

// The greatest walltime left, in whole seconds (rounded down, never below 0), over the nodes
// whose end_time reads, or whose start_time and time_limit both do; nullopt when none does.
std::optional<std::int64_t> max_allocation_remaining(std::span<allocation_clock const> nodes,
                                                     double now_unix_seconds);

// The ready jobs whose runtime exceeds what the best allocation has left: counted (0 when no
// allocation is walltime-bounded), and the longest ready runtime, reported only when some job is
// blocked so.
struct ready_runtimes {
    std::int64_t blocked = 0;  // ready jobs with runtime_s > the remaining walltime
    std::int64_t longest = 0;  // the longest runtime_s of any ready job
};

struct workflow_summary {
    std::int64_t workflow_id = 0;
    std::string workflow_name;
    std::string workflow_user;
    workflow_flags flags;
    status_counts counts;
    bool is_complete = false;
    double total_exec_time_minutes = 0;  // of the jobs' current results
    std::int64_t active_compute_nodes = 0;
    std::int64_t pending_scheduled_nodes = 0;
    std::int64_t active_scheduled_nodes = 0;
    std::optional<std::int64_t> max_allocation_remaining_seconds;
    ready_runtimes ready;  // computed against max_allocation_remaining_seconds
};

// The one JSON object both contracts accept, keys in a fixed order: v0.10's first, then 0.23's;
// jobs_by_status has a count for every status, pending_failed included; the optional
// max_allocation_remaining_seconds only when an allocation reports its walltime, and
// longest_ready_runtime_seconds only when some ready job is runtime-blocked.
std::string encode_workflow_status(workflow_summary const& s);

}  // namespace torcrun::core
