// Which jobs become blocked, ready or canceled, and when. Two entry points:
//
// initialize_jobs(jobs, edges): a whole-workflow pass at POST initialize_jobs, over the (id,
// status) of every job and every edge (explicit plus implied_edges()).
//
// resolve_completions(finished, view): the incremental step run in the transaction that
// completes jobs, so dependents become ready at once instead of at Torc's next unblock tick. It
// reads only the neighbourhood it needs through `dependency_view`, so the store never loads a
// 100,000-job workflow for one completion.
//
// A blocker releases its dependents when it is completed, failed, canceled or terminated
// (satisfies_dependency); a disabled or pending_failed blocker keeps them blocked, as in Torc.
#pragma once

#include "torcrun/server/dependency_graph.hpp"
#include "torcrun/server/job_status.hpp"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace torcrun::core {

struct job_node {
    std::int64_t id = 0;
    job_status status = job_status::uninitialized;
    bool cancel_on_blocking_job_failure = true;  // Torc's default

    bool operator==(job_node const&) const = default;
};

struct status_update {
    std::int64_t job_id = 0;
    job_status from = job_status::uninitialized;
    job_status to = job_status::uninitialized;

    bool operator==(status_update const&) const = default;
};

// The new status of every job that changes, sorted by id. Scope: every job, or with
// `only_uninitialized` the uninitialized jobs and everything downstream of them (Torc first
// resets that set to uninitialized); jobs outside the scope keep their status. In scope:
// - disabled stays disabled;
// - completed, failed and canceled keep their status and result while every blocker ends in a
//   releasing status, and become blocked otherwise (they run again after the blocker);
// - every other status (uninitialized, blocked, ready, pending, running, terminated,
//   pending_failed) becomes ready, or blocked when a blocker does not end releasing.
// "Ends" means after this pass: a dependent of a job that will run again is blocked, also
// transitively through kept jobs. Edges naming ids not in `jobs` are ignored. The store drops
// the workflow_result link of every job whose new status does not satisfy_dependency.
std::vector<status_update> initialize_jobs(std::span<job_node const> jobs,
                                           std::span<dependency_edge const> edges,
                                           bool only_uninitialized);

// The store's window on the dependency graph, read inside the completing transaction after the
// finished jobs' new statuses are written.
class dependency_view {
public:
    virtual ~dependency_view() = default;
    // Jobs that wait for `job_id`, with their status and cancel flag.
    virtual std::vector<job_node> dependents_of(std::int64_t job_id) = 0;
    // Jobs `job_id` waits for, with their status.
    virtual std::vector<job_node> blockers_of(std::int64_t job_id) = 0;
};

struct unblock_outcome {
    std::vector<std::int64_t> ready;     // sorted
    std::vector<std::int64_t> canceled;  // sorted

    bool operator==(unblock_outcome const&) const = default;
};

// After jobs finished: every blocked dependent whose blockers all release it becomes ready, or
// canceled when one of them is failed, canceled or terminated and the dependent has
// cancel_on_blocking_job_failure. A canceled job is a finished blocker in turn, so cancellation
// runs down the chain. Dependents that are not blocked are left alone. Differences from Torc,
// whose background task runs the same two queries: no rc != 0 check on the failed blocker's
// result (every failed, canceled or terminated status counts), and cascades pass through
// canceled jobs, which Torc's result join stops at.
unblock_outcome resolve_completions(std::span<std::int64_t const> finished, dependency_view& view);

// Every job downstream of `roots` (transitively; the roots only when a cycle leads back), not
// counting disabled jobs, sorted. Torc resets these to uninitialized when a complete job is
// reverted (manage_status_change, reset_job_status with failed_only).
std::vector<std::int64_t> downstream_jobs(std::span<std::int64_t const> roots,
                                          dependency_view& view);

// A dependency_view over vectors, for small workflows and tests.
class graph_view : public dependency_view {
public:
    graph_view(std::span<job_node const> jobs, std::span<dependency_edge const> edges);
    std::vector<job_node> dependents_of(std::int64_t job_id) override;
    std::vector<job_node> blockers_of(std::int64_t job_id) override;
    void set_status(std::int64_t job_id, job_status s);  // apply an outcome between steps
    std::size_t reads() const { return reads_; }        // calls so far, to test locality

private:
    std::unordered_map<std::int64_t, job_node> jobs_;
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> dependents_;
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> blockers_;
    std::size_t reads_ = 0;
};

}  // namespace torcrun::core
