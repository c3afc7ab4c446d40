// Server-sent-event frames of `GET /workflows/{id}/events/stream`, as Torc's server writes them:
// `event: <event_type>\ndata: <JSON>\n\n`, the JSON being
// {"workflow_id", "timestamp" (ms since the epoch), "event_type", "severity", "data"}.
// A job's status change becomes `job_started` (to running) or `job_<new status>`, e.g.
// `job_completed`, `job_failed`, `job_canceled`, `job_terminated`, `job_ready`, `job_blocked`;
// severity is error for failed, warning for canceled and terminated, info otherwise. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace torcrun::core {

// One row of the `event` table, with what the store knows of its job at broadcast time.
struct stored_event {
    std::int64_t workflow_id = 0;
    std::int64_t timestamp_ms = 0;
    std::string data;  // the row's JSON text
    std::optional<std::string> job_name;
    std::optional<std::int64_t> return_code;      // of the job's current result
    std::optional<std::int64_t> compute_node_id;  // the job's active compute node
    std::optional<std::int64_t> run_id;
};

// The frame of a job status change event ({"category":"job","type":"status_change","job_id",
// "to", ...}); nullopt for any other event (those are stored, not streamed, as in Torc).
std::optional<std::string> format_sse_frame(stored_event const& e);

// The keep-alive comment line written when nothing else was for `sse_keep_alive_seconds`.
inline constexpr char sse_keep_alive[] = ": keep-alive\n\n";
inline constexpr int sse_keep_alive_seconds = 15;

}  // namespace torcrun::core
