// The longest startup delay of the workers an action starts together (Torc's
// `staggered_start`): they would all register and ask for jobs in the same second, so each waits
// a random time up to this many seconds first. From the number of workers, as Torc computes it:
// 0 or 1 -> 0; 2..10 -> the count; 11..100 -> 10 + (count - 10) * 50 / 90 (integer division);
// above 100 -> 60.
#pragma once

#include <cstdint>

namespace torcrun::core {

std::int64_t startup_delay_seconds(std::int64_t worker_count);

}  // namespace torcrun::core
