// What each job endpoint may do from each status, decided before the store writes anything.
// Codes a Torc client depends on are kept: run_id mismatches, retry refusals and complete_job
// refusals are 422 as in Torc. Where Torc answers 500 with a plain-text body (start_job on a job
// that is not pending, complete_job with a non-final status) torcrun answers 409 and 422 with a
// JSON message that says what was wrong. Unknown jobs are 404.
//
// Order of the checks, as Torc makes them: the request's own status value, then the job's
// existence, then its current status, then the ids that must match (result body, run_id).
#pragma once

#include "torcrun/server/job_status.hpp"
#include "torcrun/server/rejection.hpp"

#include <cstdint>
#include <optional>

namespace torcrun::core {

// What the store read for the job named in the path; nullopt when there is no such job.
struct job_state {
    std::int64_t id = 0;
    std::int64_t workflow_id = 0;
    job_status status = job_status::uninitialized;
    std::int64_t attempt_id = 1;
    std::optional<std::int64_t> holder;  // active_compute_node_id: set while pending or running

    bool operator==(job_state const&) const = default;
};

// The run_id in the request path and the workflow's current one (workflow_status.run_id).
struct run_ids {
    std::int64_t sent = 0;
    std::int64_t current = 0;
};

// PUT start_job/{run_id}/{compute_node_id}: pending -> running.
// 404 unknown job; 409 any other status; 422 run_id mismatch.
decision<job_status> decide_start_job(std::int64_t job_id, std::optional<job_state> const& job,
                                      run_ids run);

// The ids inside the ResultModel body of complete_job.
struct result_ids {
    std::int64_t job_id = 0;
    std::int64_t workflow_id = 0;
    std::optional<std::int64_t> run_id;  // nullopt: not checked against the path
};

// POST complete_job/{status}/{run_id}: a pending, running or pending_failed job -> `requested`.
// 422 `requested` not final (not is_terminal_for_complete_job); 404 unknown job; 422 job already
// complete (counts_as_complete); 409 a job nobody holds (uninitialized, blocked, ready: nobody
// can have run it); 422 result job_id, workflow_id or run_id differ from the path; 422 run_id
// mismatch. Whether the caller holds the job is job_fence.hpp's check_holder.
// The caller then records the result and resolves dependents (dependency_resolution.hpp).
decision<job_status> decide_complete_job(std::int64_t job_id, job_status requested,
                                         std::optional<job_state> const& job, run_ids run,
                                         result_ids result);

// The result of an attempt that a workflow's cancel stopped (PUT cancel made the running job
// `canceled` while its worker still ran it; the worker reports after it stopped the process).
// What complete_job does with it instead of decide_complete_job's 422 "already complete".
enum class canceled_result {
    not_one,  // not such a result: decide_complete_job decides
    record,   // store it; the job stays `canceled`, its dependents as the cancel left them
    repeat,   // already stored (a resend after a lost reply): success, nothing written
};

// A result is one when the job is `canceled`, its workflow is canceled, the result is for the
// current run and for the job's attempt, and its status is final. `kept` is the job's current
// result: stored for this run and attempt already, the request repeats it.
canceled_result classify_canceled_result(job_state const& job, bool workflow_canceled,
                                         job_status requested, std::int64_t current_run,
                                         std::int64_t result_run, std::int64_t result_attempt,
                                         std::optional<std::int64_t> kept_run,
                                         std::optional<std::int64_t> kept_attempt);

struct status_change {
    job_status status = job_status::uninitialized;  // the job's status afterwards
    bool changed = false;             // false: the job already has it; write nothing
    bool reverts_completion = false;  // it left a status that released dependents: reset them
                                      // (downstream_jobs in dependency_resolution.hpp)

    bool operator==(status_change const&) const = default;
};

// PUT manage_status_change/{status}/{run_id}: to any status complete_job does not take.
// 422 final status ("use complete_job"); 404 unknown job; same status: success, no change, no
// run_id check (as Torc); 409 a job that released its dependents (satisfies_dependency) to
// anything but "uninitialized": "ready" or "blocked" would leave them reset and never resolved
// again, while uninitialized goes through initialize_jobs like a reset; 422 run_id mismatch.
// A fenced request (a worker's hand-back) is job_fence.hpp's decide_hand_back instead.
decision<status_change> decide_manage_status_change(std::int64_t job_id, job_status requested,
                                                    std::optional<job_state> const& job,
                                                    run_ids run);

struct retry_outcome {
    job_status status = job_status::ready;
    std::int64_t attempt_id = 1;  // the job's attempt_id plus one

    bool operator==(retry_outcome const&) const = default;
};

// POST retry/{run_id}?max_retries=N: running, failed or terminated -> ready, attempt_id + 1.
// 404 unknown job; 422 any other status; 422 run_id mismatch; 422 attempt_id >= max_retries.
decision<retry_outcome> decide_retry(std::int64_t job_id, std::optional<job_state> const& job,
                                     run_ids run, std::int64_t max_retries);

}  // namespace torcrun::core
