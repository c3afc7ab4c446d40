// What Slurm says of one job in `scontrol -o show job ID` (one line of KEY=VALUE pairs; Slurm
// keeps a finished job there MinJobAge seconds): its state, why, its nodes and its times, for
// the allocator's history of each allocation. Pure: the caller runs scontrol.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core {

struct slurm_job_facts {
    std::string state;        // JobState: PENDING, RUNNING, COMPLETED, TIMEOUT, ...
    std::string reason;       // Reason, "" for None
    std::string node_list;    // NodeList, "" while none is assigned
    std::string submit_time;  // Slurm's local times, as written ("2026-12-02T09:01:23")
    std::string start_time;   // "" while pending
    std::string end_time;     // "" until it has ended
    std::string exit_code;    // ExitCode: "0:0", "3:0" (the batch script's code and signal)

    bool operator==(slurm_job_facts const&) const = default;
};

// The facts of the line; nullopt when it has no JobState (empty answer, an error text).
std::optional<slurm_job_facts> parse_scontrol_job(std::string_view line);

// Why an ended allocation ended, for its history: "slurm: COMPLETED", "slurm: TIMEOUT
// (TimeLimit)"; a torcrun worker's exit 3 (the ready jobs can never run in this allocation: the
// next stage needs another) is "worker left: the ready jobs need another allocation (exit 3)".
std::string ended_because(slurm_job_facts const& f);

// Whether a job in `state` has ended (COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL,
// OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE).
bool slurm_state_ended(std::string_view state);

}  // namespace torcrun::core
