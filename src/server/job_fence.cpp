// The fence of a worker's job transition (job_fence.hpp): who holds the job, on which attempt,
// and when a request is the same transition sent again.
#include "torcrun/server/job_fence.hpp"

#include <string>

namespace torcrun::core {
namespace {

std::string quoted(job_status s) { return '"' + std::string(to_string(s)) + '"'; }

std::string node_text(std::int64_t node) { return "compute node " + std::to_string(node); }

bool attempt_matches(job_state const& job, job_fence const& fence)
{
    return !fence.attempt || *fence.attempt == job.attempt_id;
}

}  // namespace

std::optional<rejection> check_holder(std::string_view endpoint, job_state const& job,
                                      job_fence const& fence)
{
    if (!fence.fenced()) return std::nullopt;
    auto const head = std::string(endpoint) + ": job " + std::to_string(job.id);
    auto const caller = node_text(*fence.node);
    // Claimed without a claimant (a Torc v0.10 claim): nobody to tell apart, only the attempt.
    bool const anonymous = !job.holder && job.status == job_status::pending;
    if (!job.holder && !anonymous) {
        return rejection{409, head + " is " + quoted(job.status) +
                                  ", held by no compute node, not by " + caller};
    }
    if (!anonymous && *job.holder != *fence.node) {
        return rejection{409, head + " is held by " + node_text(*job.holder) + " on attempt " +
                                  std::to_string(job.attempt_id) + ", not by " + caller};
    }
    if (!attempt_matches(job, fence)) {
        return rejection{409, head + " is on attempt " + std::to_string(job.attempt_id) +
                                  (anonymous ? "" : " (held by " + caller + ")") +
                                  ", not on attempt " + std::to_string(*fence.attempt)};
    }
    return std::nullopt;
}

std::optional<rejection> check_result_node(std::string_view endpoint, job_state const& job,
                                           std::int64_t result_node)
{
    if (!job.holder || *job.holder == result_node) return std::nullopt;
    return check_holder(endpoint, job, job_fence{result_node, std::nullopt});
}

bool repeats_start(job_state const& job, job_fence const& fence)
{
    return fence.fenced() && job.status == job_status::running && job.holder == fence.node &&
           attempt_matches(job, fence);
}

bool repeats_completion(job_status requested, std::int64_t run_id, job_state const& job,
                        std::optional<kept_result> const& kept, job_fence const& fence)
{
    return fence.fenced() && kept && job.status == requested && kept->status == requested &&
           kept->compute_node_id == *fence.node && kept->run_id == run_id &&
           (!fence.attempt || kept->attempt_id == *fence.attempt);
}

bool repeats_retry(std::int64_t run_id, std::optional<applied_retry> const& applied,
                   job_fence const& fence)
{
    return fence.fenced() && fence.attempt && applied && applied->compute_node_id == *fence.node &&
           applied->attempt_id == *fence.attempt && applied->run_id == run_id;
}

std::optional<rejection> check_retry_holder(job_state const& job, job_fence const& fence)
{
    if (!fence.fenced()) return std::nullopt;
    if (job.holder) return check_holder("retry", job, fence);
    if (attempt_matches(job, fence)) return std::nullopt;
    return rejection{409, "retry: job " + std::to_string(job.id) + " is " + quoted(job.status) +
                              " on attempt " + std::to_string(job.attempt_id) +
                              ", held by no compute node, not on attempt " +
                              std::to_string(*fence.attempt) + " of " + node_text(*fence.node)};
}

decision<status_change> decide_hand_back(std::int64_t job_id, job_status requested,
                                         std::optional<job_state> const& job, run_ids run,
                                         job_fence const& fence)
{
    constexpr char const* what = "manage_status_change";
    if (requested != job_status::ready) {
        return rejection{409, std::string(what) +
                                  ": a compute node hands a job back to \"ready\" only, not to " +
                                  quoted(requested)};
    }
    if (!job) return rejection{404, std::string(what) + ": no job has id " + std::to_string(job_id)};
    if (job->status == job_status::ready && !job->holder)
        return status_change{job_status::ready, false, false};
    if (job->status != job_status::pending && job->status != job_status::running) {
        return rejection{409, std::string(what) + ": job " + std::to_string(job_id) + " is " +
                                  quoted(job->status) +
                                  "; a compute node hands back only a pending or running job"};
    }
    if (auto refused = check_holder(what, *job, fence)) return *refused;
    if (run.sent != run.current) {
        return rejection{422, std::string(what) + ": run_id " + std::to_string(run.sent) +
                                  " is not the workflow's current run_id " +
                                  std::to_string(run.current)};
    }
    return status_change{job_status::ready, true, false};
}

}  // namespace torcrun::core
