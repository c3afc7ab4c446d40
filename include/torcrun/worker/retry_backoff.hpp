// How long the worker's HTTP client waits before its next attempt at an unreachable server:
// exponential growth with full jitter, so that a thousand workers that lost the server together
// do not come back together (Torc PR #224). The random value is passed in; core draws none.
#pragma once

#include <chrono>

namespace torcrun::core {

// attempt 1 is the first retry. The window's upper end is min * 2^attempt, capped at max; the
// delay is spread uniformly over [min, upper end] by random01 in [0, 1] (values outside are
// clamped, NaN counts as 0). Always within [min, max]; a max below min is taken as min; a
// negative min as 0 (and a min of 0 never grows: always 0); attempts below 1 as 1; no overflow
// for any attempt.
std::chrono::milliseconds backoff(int attempt, std::chrono::milliseconds min,
                                  std::chrono::milliseconds max, double random01);

}  // namespace torcrun::core
