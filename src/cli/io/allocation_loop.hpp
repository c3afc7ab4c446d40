// The allocator of `torcrun watch --auto-schedule` and `submit --auto-schedule`, one pass at a
// time: it reads the ready jobs, the workflow's Slurm allocations (the server's records, squeue
// for where each is) and the partitions (sinfo), asks core::decide_allocations what to do, and
// does it: scancel the queued allocations whose work is gone, sbatch the new ones (a scheduler
// record sized for the shape, the script of `torcrun slurm-script`, a pending record), retrying a
// refused sbatch after growing waits. The loop around it is workflow_watch.
#pragma once

#include "torc_client.hpp"
#include "workflow_watch.hpp"

#include "torcrun/cli/auto_schedule.hpp"
#include "torcrun/slurm/allocation_request.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace torcrun::apps {

// What the allocator reads of the workflow once: its Slurm defaults and how its workers start.
struct workflow_facts {
    std::optional<std::string> slurm_defaults;
    core::worker_launch launch;
    std::optional<std::string> account, partition, qos;  // from slurm_defaults, else schedulers
};

// A shape whose sbatch was refused waits before the next try, longer after each refusal.
struct submit_backoff {
    int failures = 0;
    std::chrono::steady_clock::time_point next{};
};

// The allocator of one watch; its state (what it said, the waits after refusals) lives across
// passes.
class allocation_loop {
public:
    allocation_loop(torc_client& client, std::int64_t wf, watch_settings const& s)
        : client_(client), wf_(wf), s_(s), last_allocation_(std::chrono::steady_clock::now())
    {
    }

    // One pass. `done`: the workflow is complete (queued allocations go). Returns whether
    // anything can still run: false when the allocator is stuck.
    core::result<bool> pass(bool done);

private:
    core::result<std::int64_t> submit(core::new_allocation const& a, workflow_facts const& f,
                                      std::size_t sequence);
    void say(std::string const& line) { std::cerr << s_.prefix << ": " << line << "\n"; }

    torc_client& client_;
    std::int64_t wf_;
    watch_settings const& s_;
    std::chrono::steady_clock::time_point last_allocation_;
    std::optional<workflow_facts> facts_;
    std::set<std::int64_t> named_never_fits_;
    std::set<std::string> said_waiting_;
    std::map<std::string, submit_backoff> backoff_;
    std::size_t submitted_ = 0;
};

// Fills in the history of each allocation record not yet ended (torcrun's extension fields):
// its nodes and start once Slurm has started it, its end and why once it has ended (Slurm's
// state, from scontrol while Slurm remembers the job; else the moment it was found gone).
// Returns how many records are still open (no end written yet).
core::result<int> record_history(torc_client& client, std::int64_t wf);

}  // namespace torcrun::apps
