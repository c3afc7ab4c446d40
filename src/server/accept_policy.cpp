// The accept loop's decisions (accept_policy.hpp).
#include "torcrun/server/accept_policy.hpp"

#include <algorithm>
#include <utility>

namespace torcrun::core {

std::size_t connection_cap_for(std::uint64_t fd_limit) noexcept {
    std::uint64_t const headroom = std::max<std::uint64_t>(64, fd_limit / 4);
    if (fd_limit <= headroom) return 1;
    return static_cast<std::size_t>(fd_limit - headroom);
}

std::chrono::milliseconds accept_backoff(std::size_t failures) noexcept {
    std::chrono::milliseconds delay{50};
    for (std::size_t i = 1; i < failures && delay < std::chrono::seconds(1); ++i) delay *= 2;
    return std::min<std::chrono::milliseconds>(delay, std::chrono::seconds(1));
}

std::optional<std::size_t> accept_failure_log::failed(time_point now) {
    ++in_a_row_;
    ++unreported_;
    if (last_report_ && now < *last_report_ + interval_) return std::nullopt;
    last_report_ = now;
    return std::exchange(unreported_, 0);
}

std::size_t accept_failure_log::succeeded() noexcept {
    last_report_.reset();
    unreported_ = 0;
    return std::exchange(in_a_row_, 0);
}

}  // namespace torcrun::core
