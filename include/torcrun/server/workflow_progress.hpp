// Workflow-level answers computed from job status counts and the workflow_status row: is_complete
// and is_uninitialized exactly as Torc, and the decisions of reset_status, reset_job_status and
// cancel (docs/TORC-COMPATIBILITY.md §1, §2.1; the contract's workflow endpoints).
#pragma once

#include "torcrun/server/job_status.hpp"
#include "torcrun/server/rejection.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace torcrun::core {

// Jobs of one workflow per status (SELECT status, COUNT(*) ... GROUP BY status).
struct status_counts {
    std::array<std::int64_t, job_status_count> by_status{};

    std::int64_t& operator[](job_status s) { return by_status.at(index(s)); }
    std::int64_t operator[](job_status s) const { return by_status.at(index(s)); }
    std::int64_t total() const;

private:
    static std::size_t index(job_status s) { return static_cast<std::size_t>(s); }
};

// The workflow_status row.
struct workflow_flags {
    std::int64_t run_id = 0;
    bool is_canceled = false;
    bool is_archived = false;
    bool has_detected_need_to_run_completion_script = false;

    bool operator==(workflow_flags const&) const = default;
};

struct is_complete_answer {
    bool is_canceled = false;
    bool is_complete = false;
    bool needs_to_run_completion_script = false;

    bool operator==(is_complete_answer const&) const = default;
};

// GET is_complete: a canceled workflow is complete; otherwise complete when every job
// counts_as_complete (a workflow without jobs is complete). pending_failed keeps it open.
is_complete_answer is_complete(workflow_flags const& flags, status_counts const& counts);
// The same from whether any job is in a status that does not count as complete (the server asks
// its index for one such job instead of counting every job).
is_complete_answer is_complete(workflow_flags const& flags, bool any_unfinished);

// GET is_uninitialized: every job is uninitialized or disabled (also with no jobs).
bool is_uninitialized(status_counts const& counts);

// POST reset_status?force=: the flags afterwards (run_id kept, everything else false).
// 422 archived; 422 pending or running jobs unless force.
decision<workflow_flags> decide_reset_status(workflow_flags const& flags,
                                             status_counts const& counts, bool force);

// One job as reset_job_status?failed_only=true sees it: its id and status.
struct reset_candidate {
    std::int64_t job_id = 0;
    job_status status = job_status::uninitialized;
};

// The jobs failed_only resets to uninitialized, as Torc v0.10's reset_failed_jobs_only: the
// status decides (failed, canceled, terminated, pending_failed), whatever the return code, so a
// job canceled before it ran is reset too; sorted. Their downstream_jobs() are reset too but are
// not counted in updated_count.
std::vector<std::int64_t> failed_jobs_to_reset(std::span<reset_candidate const> jobs);

// reset_job_status with failed_only=false resets every job that is not uninitialized,
// including disabled ones, as Torc; updated_count is how many changed.
bool reset_all_changes(job_status s);

// PUT cancel: the workflow becomes is_canceled and its pending and running jobs canceled (their
// workers see is_canceled and stop them); other statuses stay as they are.
std::optional<job_status> status_after_cancel(job_status s);

}  // namespace torcrun::core
