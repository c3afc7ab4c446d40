// `torcrun workflows sync-status`'s decision, as Torc v0.25.1's orphan cleanup
// (src/client/commands/orphan_detection.rs, cleanup_orphaned_jobs): a Slurm allocation recorded
// `active` whose Slurm job squeue no longer lists as queued or running is gone (an external
// scancel, a node failure, its time limit with a worker that could not report): the jobs its
// compute nodes still hold (pending or running) are failed with Torc's return code -128, those
// nodes are made inactive and the record becomes `complete`. An allocation recorded `pending`
// that squeue no longer lists never started: its record becomes `complete` too. Pure: squeue's
// answers and the server's records come in, what to change goes out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// Torc's ORPHANED_JOB_RETURN_CODE.
inline constexpr std::int64_t orphaned_job_return_code = -128;

// squeue's %T of a Slurm job ("" when squeue no longer lists it). Torc's SlurmInterface: PENDING
// and CONFIGURING are queued, RUNNING running; anything else (COMPLETED, COMPLETING, CANCELLED,
// TIMEOUT, ..., none) is neither, so the allocation's workers are gone.
bool slurm_job_alive(std::string_view squeue_state);

struct sync_allocation {
    std::int64_t record_id = 0;     // the scheduled compute node's id
    std::int64_t slurm_job_id = 0;  // its scheduler_id
    std::string status;             // the record's: "pending", "active", ...
    std::string squeue_state;       // squeue -j <slurm_job_id> -o %T; "" when not listed
};

// A compute node names its allocation in its `scheduler` object: Torc's runners by the record
// (scheduler_id), torcrun's workers by the Slurm job (slurm_job_id); either one matches.
struct sync_node {
    std::int64_t id = 0;
    std::int64_t record_id = 0;     // scheduler.scheduler_id; 0: none
    std::int64_t slurm_job_id = 0;  // scheduler.slurm_job_id; 0: none
};

struct sync_job {
    std::int64_t id = 0;
    std::string name;
    std::string status;
    std::int64_t attempt_id = 1;
    std::int64_t compute_node_id = 0;  // the node that holds it (active_compute_node_id)
};

struct orphaned_job {
    std::int64_t job_id = 0;
    std::string job_name;
    std::int64_t compute_node_id = 0;
    std::int64_t attempt_id = 1;
    std::int64_t slurm_job_id = 0;
    std::string reason;  // "Slurm job 12 no longer running"
};

struct status_sync {
    std::vector<orphaned_job> failed;                 // in allocation, node, job order
    std::vector<std::int64_t> inactive_nodes;         // compute nodes of gone allocations
    std::vector<std::int64_t> completed_allocations;  // active records whose job is gone
    std::vector<std::int64_t> dead_pending;           // pending records whose job is gone
};

// Only Slurm records of the workflow come in; jobs are those some node holds (any status: only
// pending and running ones are failed).
status_sync plan_status_sync(std::vector<sync_allocation> const& allocations,
                             std::vector<sync_node> const& nodes,
                             std::vector<sync_job> const& jobs);

// Torc's OrphanCleanupResult as `-f json` prints it: slurm_jobs_failed,
// pending_allocations_cleaned, running_jobs_failed (0: torcrun's server fails the jobs of a
// worker without a lease itself), failed_job_details (left out when empty).
std::string render_sync_json(status_sync const& sync);

// The text Torc prints: "Cleaned up orphaned jobs:" (or "Would clean up" for a dry run) with the
// counts and one line per job, or "No orphaned jobs found" when there is nothing.
std::string render_sync_text(status_sync const& sync, bool dry_run);

}  // namespace torcrun::core
