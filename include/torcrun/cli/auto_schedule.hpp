// The allocator of `torcrun watch --auto-schedule` (Torc's spelling): from the jobs the server
// holds ready and the workflow's live Slurm allocations, which allocations to submit, for which
// jobs, and which queued ones to cancel because their work is gone. Ready jobs are grouped by
// shape (nodes, CPUs, memory, GPUs per node, runtime); running allocations, then queued ones
// (oldest first), take the jobs that fit them up to what they hold; what is left of a shape gets
// a new allocation in the first partition that can hold it (the one asked for, else the default
// partition, then the others), as many nodes as its jobs fill within the partition's limits, a
// walltime covering the rounds of its longest job plus headroom. Blocked jobs are never an input,
// so no allocation is made for them; a job no partition can hold is named with the limit it
// exceeds. Pure: cmd_watch reads the server, sinfo and squeue, and submits.
#pragma once

#include "torcrun/common/resources.hpp"
#include "torcrun/slurm/partition_limits.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

// A job the server holds ready (unlabelled: labelled jobs wait for workers of their label).
struct waiting_job {
    std::int64_t id = 0;
    std::string name;
    job_requirement need;             // per node, as Torc's resource requirements
    std::int64_t runtime_seconds = 0;  // its requirement's runtime (0: none given)
};

// A Slurm allocation of the workflow that is queued or running (the server's record still
// pending or active, squeue still listing it), with what each of its nodes offers.
struct live_allocation {
    std::int64_t slurm_id = 0;
    bool queued = false;
    std::uint32_t nodes = 1;
    std::uint32_t cpus_per_node = 0;
    std::uint64_t memory_per_node = 0;
    std::uint32_t gpus_per_node = 0;
    std::optional<std::int64_t> walltime_seconds;  // nullopt: unknown (any runtime fits)
    bool automatic = true;  // made by the allocator; others (schedule_nodes) are never cancelled
};

struct auto_schedule_policy {
    std::optional<std::string> partition;  // only this partition (else any, the default first)
    std::uint32_t max_queued = 2;          // allocations of the workflow waiting in the queue
    std::uint32_t max_nodes = 0;           // per allocation; 0: the partition's limit
    std::int64_t headroom_seconds = 60;    // added to the walltime (and 10% of it)
    // Torc's --auto-schedule-threshold/-cooldown/-stranded-timeout, for ready jobs that a live
    // allocation could run but has no room for: more allocations for them once `threshold` wait
    // and `cooldown` has passed since the last allocation, or once they have waited
    // `stranded_timeout` (0: never). Jobs no live allocation can run are allocated for at once.
    std::uint32_t threshold = 5;
    std::int64_t cooldown_seconds = 1800;
    std::int64_t stranded_timeout_seconds = 7200;
};

// What one job asks of each node and for how long: the grouping key.
struct job_shape {
    job_requirement need;
    std::int64_t runtime_seconds = 0;

    bool operator==(job_shape const&) const = default;
};

struct new_allocation {
    job_shape shape;
    std::string partition;
    std::uint32_t nodes = 1;
    std::uint32_t gpus_per_node = 0;  // the partition's, when the jobs use GPUs
    std::int64_t walltime_seconds = 0;
    std::vector<std::int64_t> job_ids;  // the ready jobs it is made for
    std::string why;                    // one line for the log
};

struct allocation_decisions {
    std::vector<new_allocation> submit;
    std::vector<std::int64_t> cancel;       // Slurm ids of queued automatic allocations with no work
    std::vector<std::string> never_fits;    // one line per job no partition can hold
    std::vector<std::int64_t> never_fit_ids;  // those jobs' ids, in the same order
    std::vector<std::string> waiting;       // shapes left for later, and why
};

// `seconds_since_last_allocation`: since the last allocation this watcher made, or since it
// started (Torc's last_auto_schedule).
allocation_decisions decide_allocations(std::vector<waiting_job> const& ready,
                                        std::vector<live_allocation> const& live,
                                        std::vector<partition_limits> const& partitions,
                                        auto_schedule_policy const& policy,
                                        std::int64_t seconds_since_last_allocation);

// Why `job` cannot run in any allocation of `p`, or nullopt: `needs 16 CPUs per node; partition
// "debug" has 8`, `needs a runtime of 7200 s; partition "debug" allows 3600 s`.
std::optional<std::string> partition_refuses(waiting_job const& job, partition_limits const& p);

// The wait before the `failures`-th retry (1, 2, ...) of a refused sbatch: 10 s doubling, at most
// 600 s.
std::int64_t sbatch_retry_delay(int failures);

// "HH:MM:SS" or "D-HH:MM:SS" for sbatch --time (at least one minute).
std::string slurm_time(std::int64_t seconds);

}  // namespace torcrun::core
