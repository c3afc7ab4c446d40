// The claim-ahead queue's depth (claim_ahead.hpp).
#include "torcrun/worker/claim_ahead.hpp"

#include <algorithm>
#include <cmath>

namespace torcrun::core {

namespace {
constexpr double shortest_job_seconds = 1e-3;  // a rate from a 0 s job would be infinite
}  // namespace

std::size_t claim_ahead_depth(claim_ahead_inputs const& in)
{
    if (!in.job_seconds || !in.round_trip_seconds || !in.lease_seconds || in.running == 0 ||
        *in.lease_seconds <= 0)
        return 0;
    double const rate = static_cast<double>(in.running) /
                        std::max(*in.job_seconds, shortest_job_seconds);
    double const round_trip = std::max(*in.round_trip_seconds, 0.0);
    double const wanted = std::max(1.0, std::ceil(2 * rate * round_trip));
    double const within_lease = std::floor(rate * queued_wait_limit_seconds(*in.lease_seconds));
    double const cap = static_cast<double>(std::min(in.running, max_claim_ahead));
    return static_cast<std::size_t>(std::max(0.0, std::min({wanted, within_lease, cap})));
}

double queued_wait_limit_seconds(double lease_seconds) { return lease_seconds / 4; }

double moving_average(std::optional<double> average, double value)
{
    if (!average) return value;
    return *average + (value - *average) / 5;
}

}  // namespace torcrun::core
