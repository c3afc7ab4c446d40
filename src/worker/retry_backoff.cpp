// The window doubles in integers with a saturating step, so huge attempts and maxima stay exact.
#include "torcrun/worker/retry_backoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace torcrun::core {

std::chrono::milliseconds backoff(int attempt, std::chrono::milliseconds min,
                                  std::chrono::milliseconds max, double random01)
{
    std::int64_t const low = std::max<std::int64_t>(min.count(), 0);
    std::int64_t const high = std::max<std::int64_t>(max.count(), low);
    std::int64_t upper = low;
    for (int i = 0; i < std::max(attempt, 1) && upper > 0 && upper < high; ++i) {
        upper = upper > high / 2 ? high : upper * 2;
    }
    upper = std::min(upper, high);
    double const r = std::isnan(random01) ? 0.0 : std::clamp(random01, 0.0, 1.0);
    auto const span = static_cast<double>(upper - low);
    double const scaled = std::floor(r * span);
    // Only the exact end of the window can round up to `span`; take it as an integer.
    std::int64_t const extra = scaled >= span ? upper - low : static_cast<std::int64_t>(scaled);
    return std::chrono::milliseconds(low + extra);
}

}  // namespace torcrun::core
