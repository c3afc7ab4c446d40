// Compute-node leases (a torcrun extension; Torc only has offline orphan cleanup): a worker
// that has not sent a heartbeat for longer than its lease is lost, and the jobs it held are
// handed back or failed so that none stays pending or running forever. The time of the check
// is passed in; core reads no clock.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/server/job_status.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace torcrun::core {

// Torc's ORPHANED_JOB_RETURN_CODE, used by `torc recover` and `torc watch` to fail jobs stuck
// `running` (docs/TORC-COMPATIBILITY.md §3.2).
inline constexpr std::int64_t orphaned_return_code = -128;

struct worker_heartbeat {
    std::int64_t compute_node_id = 0;
    bool is_active = true;
    std::chrono::system_clock::time_point last_heartbeat;  // registration counts as one
};

// Active workers whose last heartbeat is more than `lease` before `now`, sorted by id. A
// heartbeat exactly `lease` old is still alive; one from the future (clock skew) is alive.
std::vector<std::int64_t> lost_workers(std::span<worker_heartbeat const> workers,
                                       std::chrono::system_clock::time_point now,
                                       std::chrono::seconds lease);

// The workflow setting for jobs that were running on a lost worker.
enum class orphan_policy {
    ready,   // run them again (default: a job runs at least once)
    failed,  // fail them with orphaned_return_code, so a job with side effects runs at most once
};
std::string_view to_string(orphan_policy p);
result<orphan_policy> parse_orphan_policy(std::string_view text);

struct orphan_outcome {
    job_status status = job_status::ready;
    std::optional<std::int64_t> return_code;  // set when the store must record a result

    bool operator==(orphan_outcome const&) const = default;
};

// A job held by a lost worker. pending (claimed, never started) always goes back to ready;
// running goes to ready or, by policy, to failed with a result of return code -128 (then resolve
// its dependents like any completion). Any other status needs nothing: nullopt.
std::optional<orphan_outcome> orphaned_job_outcome(job_status s, orphan_policy policy);

}  // namespace torcrun::core
