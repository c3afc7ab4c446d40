// Compute-node leases (a torcrun extension; Torc only has offline orphan cleanup): a worker
// that has not sent a heartbeat for longer than its lease is lost, and the jobs it held are
// handed back or failed so that none stays pending or running forever. The time of the check
// is passed in; core reads no clock.
//
// Leases are kept on the steady clock, in the server's memory (lease_book): a step of the wall
// clock (NTP, an operator) moves no lease, and a server that was down or stopped for longer than
// the lease does not count its own downtime against the workers. The store's last_heartbeat_ms
// (wall clock) says only which nodes hold a lease and when they last renewed it, for display.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/server/job_status.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torcrun::core {

// Torc's ORPHANED_JOB_RETURN_CODE, used by `torc recover` and `torc watch` to fail jobs stuck
// `running` (docs/TORC-COMPATIBILITY.md §3.2).
inline constexpr std::int64_t orphaned_return_code = -128;

// The last renewal of each leased compute node on the steady clock. A node the book has not seen
// renew — every leased node after a server (re)start — is entered at the time of the first check
// that sees it, so it has one full lease from then before it can expire.
class lease_book {
public:
    using time_point = std::chrono::steady_clock::time_point;

    // A heartbeat, or a claim of a node that holds a lease.
    void renew(std::int64_t node, time_point now);
    bool knows(std::int64_t node) const { return renewed_.contains(node); }
    std::size_t size() const { return renewed_.size(); }

    // The nodes of `leased` (the active nodes that hold a lease, as the store says) whose last
    // renewal is more than `lease` before `now`, sorted by id. A renewal exactly `lease` old is
    // still alive. Nodes not in `leased` (deactivated, expired) are forgotten.
    std::vector<std::int64_t> expired(std::span<std::int64_t const> leased, time_point now,
                                      std::chrono::milliseconds lease);

private:
    std::unordered_map<std::int64_t, time_point> renewed_;
};

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
    // The job goes back to ready on attempt_id + 1: its process may still run on the lost worker
    // (lost_lease_policy finish, or a worker only frozen), so the next holder runs an attempt of
    // its own and the old one's late report is fenced off (409) instead of taken for the new one.
    bool new_attempt = false;

    bool operator==(orphan_outcome const&) const = default;
};

// A job held by a lost worker. pending (claimed, never started) always goes back to ready on its
// attempt; running goes to ready on a new attempt (new_attempt; it counts against a failure
// handler's max_retries like any other attempt) or, by policy, to failed with a result of return
// code -128 on its attempt (then resolve its dependents like any completion). Any other status
// needs nothing: nullopt.
std::optional<orphan_outcome> orphaned_job_outcome(job_status s, orphan_policy policy);

}  // namespace torcrun::core
