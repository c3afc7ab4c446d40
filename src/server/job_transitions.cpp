// The job endpoints' refusals. Each message starts with the endpoint's name, so a log line or a
// client error says which call was refused, and quotes the status or id that was wrong.
#include "torcrun/server/job_transitions.hpp"

#include <string>

namespace torcrun::core {
namespace {

std::string quoted(job_status s) { return '"' + std::string(to_string(s)) + '"'; }

// Statuses a worker may hold a job in when it reports: claimed (pending), started (running), or
// waiting for its failure handler (pending_failed).
bool is_held_status(job_status s)
{
    return s == job_status::pending || s == job_status::running || s == job_status::pending_failed;
}

rejection not_found(char const* endpoint, std::int64_t job_id)
{
    return {404, std::string(endpoint) + ": no job has id " + std::to_string(job_id)};
}

std::optional<rejection> run_mismatch(char const* endpoint, run_ids run)
{
    if (run.sent == run.current) return std::nullopt;
    return rejection{422, std::string(endpoint) + ": run_id " + std::to_string(run.sent) +
                              " is not the workflow's current run_id " +
                              std::to_string(run.current)};
}

}  // namespace

decision<job_status> decide_start_job(std::int64_t job_id, std::optional<job_state> const& job,
                                      run_ids run)
{
    if (!job) return not_found("start_job", job_id);
    if (job->status != job_status::pending) {
        return rejection{409, "start_job: job " + std::to_string(job_id) + " is " +
                                  quoted(job->status) + "; only a \"pending\" job can start"};
    }
    if (auto refused = run_mismatch("start_job", run)) return *refused;
    return job_status::running;
}

decision<job_status> decide_complete_job(std::int64_t job_id, job_status requested,
                                         std::optional<job_state> const& job, run_ids run,
                                         result_ids result)
{
    if (!is_terminal_for_complete_job(requested)) {
        return rejection{422, "complete_job: " + quoted(requested) +
                                  " is not a final status; use completed, failed, canceled, "
                                  "terminated or pending_failed"};
    }
    if (!job) return not_found("complete_job", job_id);
    if (counts_as_complete(job->status)) {
        return rejection{422, "complete_job: job " + std::to_string(job_id) +
                                  " is already complete (" + quoted(job->status) + ")"};
    }
    if (!is_held_status(job->status)) {
        return rejection{409, "complete_job: job " + std::to_string(job_id) + " is " +
                                  quoted(job->status) +
                                  "; nobody claimed it, so only a pending, running or "
                                  "pending_failed job can complete"};
    }
    if (result.job_id != job_id) {
        return rejection{422, "complete_job: the result is for job " +
                                  std::to_string(result.job_id) + ", not job " +
                                  std::to_string(job_id)};
    }
    if (result.workflow_id != job->workflow_id) {
        return rejection{422, "complete_job: the result is for workflow " +
                                  std::to_string(result.workflow_id) + ", job " +
                                  std::to_string(job_id) + " belongs to workflow " +
                                  std::to_string(job->workflow_id)};
    }
    if (auto refused = run_mismatch("complete_job", run)) return *refused;
    if (result.run_id && *result.run_id != run.sent) {
        return rejection{422, "complete_job: the result is for run_id " +
                                  std::to_string(*result.run_id) + ", the path names run_id " +
                                  std::to_string(run.sent)};
    }
    return requested;
}

canceled_result classify_canceled_result(job_state const& job, bool workflow_canceled,
                                         job_status requested, std::int64_t current_run,
                                         std::int64_t result_run, std::int64_t result_attempt,
                                         std::optional<std::int64_t> kept_run,
                                         std::optional<std::int64_t> kept_attempt)
{
    if (job.status != job_status::canceled || !workflow_canceled ||
        !is_terminal_for_complete_job(requested) || result_run != current_run ||
        result_attempt != job.attempt_id)
        return canceled_result::not_one;
    if (kept_run == result_run && kept_attempt == result_attempt) return canceled_result::repeat;
    return canceled_result::record;
}

decision<status_change> decide_manage_status_change(std::int64_t job_id, job_status requested,
                                                    std::optional<job_state> const& job,
                                                    run_ids run)
{
    if (is_terminal_for_complete_job(requested)) {
        return rejection{422, "manage_status_change: " + quoted(requested) +
                                  " is a final status; use complete_job"};
    }
    if (!job) return not_found("manage_status_change", job_id);
    if (job->status == requested) return status_change{requested, false, false};
    if (satisfies_dependency(job->status) && requested != job_status::uninitialized) {
        return rejection{409, "manage_status_change: job " + std::to_string(job_id) + " is " +
                                  quoted(job->status) + "; a finished job goes back only to "
                                  "\"uninitialized\" (initialize_jobs then resolves it and its "
                                  "dependents again), not to " + quoted(requested)};
    }
    if (auto refused = run_mismatch("manage_status_change", run)) return *refused;
    return status_change{requested, true, satisfies_dependency(job->status)};
}

decision<retry_outcome> decide_retry(std::int64_t job_id, std::optional<job_state> const& job,
                                     run_ids run, std::int64_t max_retries)
{
    if (!job) return not_found("retry", job_id);
    auto const s = job->status;
    if (s != job_status::running && s != job_status::failed && s != job_status::terminated) {
        return rejection{422, "retry: job " + std::to_string(job_id) + " is " + quoted(s) +
                                  "; only a running, failed or terminated job can be retried"};
    }
    if (auto refused = run_mismatch("retry", run)) return *refused;
    if (job->attempt_id >= max_retries) {
        return rejection{422, "retry: job " + std::to_string(job_id) + " is on attempt " +
                                  std::to_string(job->attempt_id) + " and max_retries is " +
                                  std::to_string(max_retries)};
    }
    return retry_outcome{job_status::ready, job->attempt_id + 1};
}

}  // namespace torcrun::core
