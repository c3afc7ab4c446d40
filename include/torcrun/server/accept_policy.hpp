// The accept loop's decisions, on plain values: how many connections a server may hold open when
// no cap is configured (from the descriptor limit), how long to wait after accept fails for lack
// of descriptors, and when such failures are worth a log line, so that a server at its limit
// logs one warning per interval with a count instead of one line per attempt.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace torcrun::core {

// The default connection cap for a process whose soft RLIMIT_NOFILE is `fd_limit`: the limit
// minus headroom for everything else the process opens (the database and its WAL files, the
// reactor's own descriptors, log files, and in `torcrun run` the worker's jobs: their output
// files, pipes and pidfds). Headroom is a quarter of the limit, at least 64; never below 1.
std::size_t connection_cap_for(std::uint64_t fd_limit) noexcept;

// The pause after the `failures`-th accept failure in a row (1, 2, ...): 50 ms doubling up to
// 1 s. While the process has no descriptor to spare, retrying at once only spins.
std::chrono::milliseconds accept_backoff(std::size_t failures) noexcept;

// Counts accept failures and says when to report them: the first failure of a run at once, then
// at most one report per `interval`, each with the failures since the previous report.
class accept_failure_log {
public:
    using time_point = std::chrono::steady_clock::time_point;

    explicit accept_failure_log(std::chrono::milliseconds interval) : interval_(interval) {}

    // A failure at `now`; the count to report, or nullopt when the last report is too recent.
    std::optional<std::size_t> failed(time_point now);
    // An accept succeeded: the failures of the run that just ended (0 if there was none), which
    // the caller reports once; the next failure starts a new run and is reported at once.
    std::size_t succeeded() noexcept;
    std::size_t failures_in_a_row() const noexcept { return in_a_row_; }

private:
    std::chrono::milliseconds interval_;
    std::optional<time_point> last_report_;
    std::size_t unreported_ = 0;
    std::size_t in_a_row_ = 0;
};

}  // namespace torcrun::core
