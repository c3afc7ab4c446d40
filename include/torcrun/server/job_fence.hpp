// Fencing: a worker's job transition names the compute node and the attempt it acts for, and is
// refused (409) when the job is not held by that node on that attempt. The fence is optional on
// the wire (query parameters `compute_node_id` and `attempt_id`, or the same fields of a batch
// completion entry), so a Torc v0.10 client that sends neither still works; it gets the status
// checks of job_transitions.hpp and, on a completion, the holder checked against the node its
// result names (check_result_node; docs/TORC-COMPATIBILITY.md §5, "Fenced transitions").
//
// A repeated request — the same fenced transition sent again because its reply was lost — finds
// the job already where the first one put it; `repeats_*` say when that is so, and the endpoint
// answers 200 without changing anything.
#pragma once

#include "torcrun/server/job_status.hpp"
#include "torcrun/server/job_transitions.hpp"
#include "torcrun/server/rejection.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace torcrun::core {

// What the request says it acts for; both nullopt: an unfenced (Torc v0.10) request.
struct job_fence {
    std::optional<std::int64_t> node;
    std::optional<std::int64_t> attempt;

    bool fenced() const { return node.has_value(); }
};

// 409 unless the job is held by the fence's node (job_state::holder) and, when the fence names an
// attempt, is on that attempt. A pending job with no holder was claimed without a claimant (a Torc
// v0.10 claim): any node may act for it, on its attempt. The message names the holder and its
// attempt:
//   "complete_job: job 7 is held by compute node 1 on attempt 1, not by compute node 2"
//   "complete_job: job 7 is \"ready\", held by no compute node, not by compute node 2"
//   "complete_job: job 7 is on attempt 2 (held by compute node 1), not on attempt 1"
// Unfenced: nullopt.
std::optional<rejection> check_holder(std::string_view endpoint, job_state const& job,
                                      job_fence const& fence);

// The fence a v0.10 runner's body draws: it names its compute node only in the result
// (`compute_node_id` of complete_job's body, of each batch_complete_jobs entry's result). For a
// request without a fence of its own, that node is checked against the holder: 409 when another
// node holds the job, in check_holder's words
//   "complete_job: job 7 is held by compute node 1 on attempt 1, not by compute node 2"
// A job that no node holds (claimed without a claimant and not started, or finished) passes: the
// status checks of job_transitions.hpp decide. The result's attempt_id is not checked: v0.10's
// model defaults it to 1, so a runner that leaves it out would name an attempt it never meant.
std::optional<rejection> check_result_node(std::string_view endpoint, job_state const& job,
                                           std::int64_t result_node);

// The result a finished job keeps (workflow_result): whose attempt it was.
struct kept_result {
    std::int64_t compute_node_id = 0;
    std::int64_t attempt_id = 0;
    std::int64_t run_id = 0;
    job_status status = job_status::uninitialized;
};

// start_job sent again: the job runs, held by the fence's node on the fence's attempt (any, when
// the fence names none).
bool repeats_start(job_state const& job, job_fence const& fence);

// complete_job (or a batch entry) sent again: fenced, the job has the requested status and its
// kept result is the fence's node, attempt and the request's run.
bool repeats_completion(job_status requested, std::int64_t run_id, job_state const& job,
                        std::optional<kept_result> const& kept, job_fence const& fence);

// A retry the server applied for a fenced request (the store's job_retry table): the compute
// node that retried which attempt of the job, in which run.
struct applied_retry {
    std::int64_t compute_node_id = 0;
    std::int64_t attempt_id = 0;
    std::int64_t run_id = 0;
};

// retry sent again: fenced with an attempt, and the server applied the retry of that attempt, in
// the request's run, for the fence's node - wherever the job has gone since. A job that is
// `ready` on the next attempt is not enough: the lease sweep puts a lost node's running job
// there too, and a worker that reports under a fresh node after losing its lease would take
// that for its own retry.
bool repeats_retry(std::int64_t run_id, std::optional<applied_retry> const& applied,
                   job_fence const& fence);

// The fence of a retry that is not a repeat: a held job as check_holder says; a job held by
// nobody (a failed or terminated one keeps its attempt) only on the fence's attempt:
//   "retry: job 7 is \"ready\" on attempt 2, held by no compute node, not on attempt 1 of
//    compute node 5"
// Unfenced: nullopt.
std::optional<rejection> check_retry_holder(job_state const& job, job_fence const& fence);

// A fenced manage_status_change is a hand-back: to "ready" only, of a pending or running job held
// by the fence's node (check_holder); a job already ready is a repeat (success, no change).
// 409 for any other target ("manage_status_change: a compute node hands a job back to \"ready\"
// only, not to \"blocked\"") or any other status of the job.
decision<status_change> decide_hand_back(std::int64_t job_id, job_status requested,
                                         std::optional<job_state> const& job, run_ids run,
                                         job_fence const& fence);

}  // namespace torcrun::core
