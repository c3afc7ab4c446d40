#include "torcrun/server/worker_lease.hpp"

#include <algorithm>
#include <string>

namespace torcrun::core {

std::vector<std::int64_t> lost_workers(std::span<worker_heartbeat const> workers,
                                       std::chrono::system_clock::time_point now,
                                       std::chrono::seconds lease)
{
    std::vector<std::int64_t> lost;
    for (auto const& w : workers) {
        if (w.is_active && now > w.last_heartbeat && now - w.last_heartbeat > lease) {
            lost.push_back(w.compute_node_id);
        }
    }
    std::sort(lost.begin(), lost.end());
    return lost;
}

std::string_view to_string(orphan_policy p)
{
    return p == orphan_policy::failed ? "failed" : "ready";
}

result<orphan_policy> parse_orphan_policy(std::string_view text)
{
    if (text == "ready") return orphan_policy::ready;
    if (text == "failed") return orphan_policy::failed;
    return error{"orphaned jobs: \"" + std::string(text) + "\" is not one of ready or failed"};
}

std::optional<orphan_outcome> orphaned_job_outcome(job_status s, orphan_policy policy)
{
    if (s == job_status::pending) return orphan_outcome{job_status::ready, std::nullopt};
    if (s != job_status::running) return std::nullopt;
    if (policy == orphan_policy::failed) {
        return orphan_outcome{job_status::failed, orphaned_return_code};
    }
    return orphan_outcome{job_status::ready, std::nullopt};
}

}  // namespace torcrun::core
