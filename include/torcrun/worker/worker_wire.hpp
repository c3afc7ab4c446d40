// The worker's side of the Torc REST contract: each server request the worker state machine
// makes (worker_actions.hpp) as the HTTP exchanges that carry it out, and the replies back as
// the state machine's events (worker_events.hpp). Pure: no sockets, no clocks; the io
// shell sends the requests in order and hands every answer back here.
//
// Most actions are one request. A few are several, sent in order, each only after the one before
// succeeded (docs/TORC-COMPATIBILITY.md §2.1): read_workflow (GET workflows/{id}, then .../status),
// deactivate_node (GET compute_nodes/{id}, then PUT it back with is_active false), release_node
// (the same GET; for an active node of this workflow, GET jobs?active_compute_node_id=, then the
// same PUT), check_workflow
// with_ready_jobs (is_complete, then, unless complete or canceled, GET jobs?status=ready and GET
// resource_requirements of the workflow). The shell stops
// at the first transport failure or non-2xx answer and decodes what it has.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_events.hpp"
#include "torcrun/worker/usage_stats.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::api {

// What the requests need beyond the action itself. The shell fills compute_node_id after
// node_registered and run_id after workflow_read.
struct wire_context {
    std::int64_t workflow_id = 0;
    std::int64_t compute_node_id = 0;
    std::int64_t run_id = 0;
    bool use_extensions = true;  // long-poll claims, batch completion, heartbeats
    // The worker's label (extension): its claims take only jobs with it; none = unlabelled jobs.
    std::optional<std::string> label;
    // register_node's ComputeNodeModel
    std::string hostname;
    std::int64_t pid = 0;
    double start_unix = 0;         // start_time, formatted by the wire
    std::string scheduler_job_id;  // SLURM_JOB_ID or empty
    // The worker's output directory (absolute), where its attempts' files lie: sent in the
    // node's free-form `scheduler` object as `output_dir`, so that clients find the logs.
    std::string output_dir;
    // The node's own usage (resource_monitor.compute_node), filled by the shell when it stops
    // sampling before deactivate_node: Torc's sample_count, peak/avg_cpu_percent and
    // peak/avg_memory_bytes in the deactivation's PUT. nullopt: the fields are left as they are.
    std::optional<core::usage_summary> node_usage;
};

struct wire_request {
    std::string method;  // "GET", "POST", "PUT"
    std::string target;  // relative to the base URL, query included: "/workflows/3/status"
    std::string body;    // JSON; empty for none
    double wait_seconds = 0;  // a long poll: the client's timeout must exceed this
};

// One answer from the server: any HTTP status that arrived (2xx, 4xx, 5xx).
struct wire_reply {
    unsigned status = 0;
    std::string body;
};

// The first request of a server action; nullopt for local actions (spawn, log, timer, ...).
// `previous` holds the replies to the earlier steps of a several-request action: the next
// request, or nullopt once the action's exchanges are complete.
std::optional<wire_request> next_request(core::worker_action const& action,
                                         wire_context const& context,
                                         std::span<wire_reply const> previous);

// The event for a finished exchange: `replies` holds one reply per request sent, all 2xx, or
// the last one non-2xx. 409 on claim_action is action_claim_read{claimed=false}; any other 4xx
// or 5xx is request_failed with kind http_4xx/http_5xx, the status, and a message naming the
// request and quoting the server's message. A 2xx body that does not decode is request_failed
// (http_5xx, status 0 kept as the reply's) with `<what>: <problem>`, never an exception.
core::worker_event decode_replies(core::worker_action const& action,
                                  std::span<wire_reply const> replies);

// The heartbeat of a registered worker (POST /compute_nodes/{id}/heartbeat); only with
// use_extensions.
wire_request heartbeat_request(wire_context const& context);
// The lease the server names in a heartbeat's answer (`lease_seconds`, > 0); nullopt when the
// answer names none (a server without leases, or a body that does not decode).
std::optional<double> heartbeat_lease_seconds(std::string_view body);

// Output-file checks: GET /files/{id}, and the FileModel's `path`.
wire_request read_file_request(std::int64_t file_id);
core::result<std::string> file_path_of(std::string_view body);

}  // namespace torcrun::api
