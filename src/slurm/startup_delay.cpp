// Torc's startup delay formula (startup_delay.hpp).
#include "torcrun/slurm/startup_delay.hpp"

namespace torcrun::core {

std::int64_t startup_delay_seconds(std::int64_t worker_count)
{
    if (worker_count <= 1) return 0;
    if (worker_count <= 10) return worker_count;
    if (worker_count <= 100) return 10 + (worker_count - 10) * 50 / 90;
    return 60;
}

}  // namespace torcrun::core
