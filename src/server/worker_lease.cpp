#include "torcrun/server/worker_lease.hpp"

#include <algorithm>
#include <string>

namespace torcrun::core {

void lease_book::renew(std::int64_t node, time_point now)
{
    auto [it, added] = renewed_.try_emplace(node, now);
    if (!added) it->second = std::max(it->second, now);
}

std::vector<std::int64_t> lease_book::expired(std::span<std::int64_t const> leased,
                                              time_point now, std::chrono::milliseconds lease)
{
    std::unordered_map<std::int64_t, time_point> kept;
    std::vector<std::int64_t> lost;
    for (auto const node : leased) {
        auto const it = renewed_.find(node);
        auto const renewed = it == renewed_.end() ? now : it->second;
        kept.insert_or_assign(node, renewed);
        if (now > renewed && now - renewed > lease) lost.push_back(node);
    }
    renewed_ = std::move(kept);
    std::sort(lost.begin(), lost.end());
    lost.erase(std::unique(lost.begin(), lost.end()), lost.end());
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
    if (s == job_status::pending) return orphan_outcome{job_status::ready, std::nullopt, false};
    if (s != job_status::running) return std::nullopt;
    if (policy == orphan_policy::failed) {
        return orphan_outcome{job_status::failed, orphaned_return_code, false};
    }
    return orphan_outcome{job_status::ready, std::nullopt, true};
}

}  // namespace torcrun::core
