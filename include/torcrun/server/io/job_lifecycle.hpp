// The job life cycle on the server: initialization, claims, start and completion, dependents
// released in the completing transaction, cascades, workflow actions and worker leases. Every
// decision comes from core (job_transitions, claim_selection, dependency_resolution,
// workflow_progress, worker_lease); these routes read the rows the decisions need, write what they
// decide, record an event row per job status change and wake long-poll claims through
// server_api::notify.
//
// Extensions beyond Torc v0.10, each ignored by Torc-only clients:
// - claims take `wait_seconds` (long poll, at most server_options::long_poll_max_seconds and 60)
//   and `compute_node_id` (the claimant, so a lost worker's pending jobs can be handed back);
// - POST /workflows/{id}/batch_complete_jobs (as in newer Torc; docs/TORC-COMPATIBILITY.md §5);
// - POST /workflows/{id}/complete_and_claim_jobs/{limit}: batch_complete_jobs, then a claim, in
//   one request (complete_and_claim_routes.cpp);
// - POST /compute_nodes/{id}/heartbeat starts and renews a worker's lease. Only nodes that have
//   sent one are subject to expire_lost_workers, so Torc's own runners, which never send one, are
//   never expired;
// - PUT /compute_nodes/{id} that deactivates a node releases the jobs it still holds.
#pragma once

#include "torcrun/server/workflow_progress.hpp"
#include "torcrun/server/io/server_api.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace torcrun::io {

// The route groups; server_api's constructor adds them after the plain-resource routes.
void add_workflow_state_routes(server_api& api);  // is_complete, status, cancel, resets, ...
void add_initialize_routes(server_api& api);      // initialize_jobs
void add_job_lifecycle_routes(server_api& api);   // start, complete, manage, retry, batch
void add_claim_routes(server_api& api);           // claim_jobs_based_on_resources, claim_next
void add_complete_and_claim_routes(server_api& api);  // batch completion and a claim in one
void add_action_routes(server_api& api);          // pending actions, claim an action
void add_lease_routes(server_api& api);           // heartbeat
void add_spawn_routes(server_api& api);           // spawn_jobs (dynamic jobs)

struct lease_sweep {
    std::vector<std::int64_t> lost_workers;      // compute nodes marked inactive, sorted
    std::vector<std::int64_t> inactive_holders;  // inactive nodes whose jobs were released
    std::vector<std::int64_t> jobs_ready;        // handed back, sorted
    std::vector<std::int64_t> jobs_failed;       // failed with return code -128, sorted

    bool operator==(lease_sweep const&) const = default;
};

// Marks the active compute nodes whose last renewal (server_api::leases, on the steady clock) is
// older than server_options::worker_lease_seconds at `now` inactive, and moves the jobs they hold:
// pending -> ready; running -> ready or failed (a result with return code -128, dependents
// resolved) per server_options::lost_worker_jobs. A leased node the server has not seen renew
// since it started gets a full lease from the first sweep. Jobs still held by nodes that are
// already inactive move the same way. One BEGIN IMMEDIATE transaction of its own; the workflows
// whose jobs became claimable reach the change listener after the commit. The server process calls
// it from a timer every few seconds.
api_result<lease_sweep> expire_lost_workers(server_api& api,
                                            std::chrono::steady_clock::time_point now);

// The workflow's jobs per status, outside any request: one indexed GROUP BY, cheap enough for
// `torcrun run` to poll on the server's thread for its progress line.
api_result<core::status_counts> job_status_counts(server_api& api, std::int64_t workflow_id);

}  // namespace torcrun::io
