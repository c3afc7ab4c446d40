// How many jobs a worker claims beyond its free resources (the claim-ahead queue), from what it
// measured: a slot that frees starts its next job from the queue instead of waiting for a claim's
// round trip. Pure: the state machine passes its measurements in (worker_fsm_claiming.cpp).
//
// Jobs end at about `running / job_seconds` per second, so in one round trip
// `running x round_trip / job_seconds` slots free; the queue holds twice that (the answer's own
// handling, jobs that end together), at least one job, at most one per running job and
// max_claim_ahead. A queued job is the worker's under its lease and waits about
// `depth x job_seconds / running` seconds; the depth is cut so that this stays within a quarter
// of the lease, which for jobs of hours on a few slots means no queue at all (the jobs are
// better left ready for other workers). Without a lease (a Torc server, no heartbeats) or before
// the first job ran here and the first claim was answered there is nothing to size it from: 0.
#pragma once

#include <cstddef>
#include <optional>

namespace torcrun::core {

inline constexpr std::size_t max_claim_ahead = 16;

struct claim_ahead_inputs {
    std::optional<double> job_seconds;        // the recent wall time of a job here (average)
    std::optional<double> round_trip_seconds;  // of the recent claims that did not wait
    std::size_t running = 0;                  // jobs holding resources now
    std::optional<double> lease_seconds;      // the lease the server named; nullopt: none
};

std::size_t claim_ahead_depth(claim_ahead_inputs const& in);

// How long a queued job may wait for resources before it goes back to ready: a quarter of the
// lease. One that jobs behind it overtook (it needs more than frees up) is not held for ever.
double queued_wait_limit_seconds(double lease_seconds);

// An average that follows the recent values (exponential, weight 1/5 for the new value).
double moving_average(std::optional<double> average, double value);

}  // namespace torcrun::core
