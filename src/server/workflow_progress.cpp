// Workflow-level decisions from counts. Messages name the endpoint and the jobs that stand in
// the way, so `torcrun` and Torc's CLI can show them as they are.
#include "torcrun/server/workflow_progress.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace torcrun::core {

std::int64_t status_counts::total() const
{
    return std::accumulate(by_status.begin(), by_status.end(), std::int64_t{0});
}

is_complete_answer is_complete(workflow_flags const& flags, status_counts const& counts)
{
    bool const any_unfinished = std::any_of(all_job_statuses.begin(), all_job_statuses.end(),
                                            [&](job_status s) {
                                                return !counts_as_complete(s) && counts[s] > 0;
                                            });
    return is_complete(flags, any_unfinished);
}

is_complete_answer is_complete(workflow_flags const& flags, bool any_unfinished)
{
    return {flags.is_canceled, flags.is_canceled || !any_unfinished,
            flags.has_detected_need_to_run_completion_script};
}

bool is_uninitialized(status_counts const& counts)
{
    return counts[job_status::uninitialized] + counts[job_status::disabled] == counts.total();
}

decision<workflow_flags> decide_reset_status(workflow_flags const& flags,
                                             status_counts const& counts, bool force)
{
    if (flags.is_archived) {
        return rejection{422, "reset_status: the workflow is archived; unarchive it first"};
    }
    auto const pending = counts[job_status::pending];
    auto const running = counts[job_status::running];
    if (!force && pending + running > 0) {
        return rejection{422, "reset_status: " + std::to_string(pending) + " pending and " +
                                  std::to_string(running) +
                                  " running jobs are active; wait for them or pass force=true"};
    }
    return workflow_flags{flags.run_id, false, false, false};
}

std::vector<std::int64_t> failed_jobs_to_reset(std::span<reset_candidate const> jobs)
{
    std::vector<std::int64_t> ids;
    for (auto const& job : jobs) {
        auto const s = job.status;
        if (s == job_status::failed || s == job_status::canceled || s == job_status::terminated ||
            s == job_status::pending_failed) {
            ids.push_back(job.job_id);
        }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

bool reset_all_changes(job_status s) { return s != job_status::uninitialized; }

std::optional<job_status> status_after_cancel(job_status s)
{
    if (s == job_status::pending || s == job_status::running) return job_status::canceled;
    return std::nullopt;
}

}  // namespace torcrun::core
