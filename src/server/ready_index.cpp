// The ready index (ready_index.hpp): a hash from job id to its priority and group, and per claim
// group an ordered set in claim order. std::map/std::set rather than a flat structure: jobs enter
// and leave one at a time in any order, and a group is read from its front.
#include "torcrun/server/ready_index.hpp"

#include <algorithm>

namespace torcrun::core {

ready_index::group_key ready_index::key_of(ready_job const& job)
{
    return {job.workflow_id, job.label, job.requirements_id, job.scheduler_id};
}

std::optional<ready_job> ready_index::put(std::int64_t id, std::optional<ready_job> job)
{
    std::optional<ready_job> before;
    if (auto found = jobs_.find(id); found != jobs_.end()) {
        auto const [priority, group] = found->second;
        auto const& key = group->first;
        before = ready_job{key.workflow_id, priority, key.requirements_id, key.scheduler_id,
                           key.label};
        group->second.erase({-priority, id});
        if (group->second.empty()) groups_.erase(group);
        jobs_.erase(found);
    }
    if (job) {
        auto const group = groups_.try_emplace(key_of(*job)).first;
        group->second.emplace(-job->priority, id);
        jobs_.emplace(id, entry{job->priority, group});
    }
    return before;
}

bool ready_index::has_jobs(std::int64_t wf) const
{
    auto const it = groups_.lower_bound({wf, std::nullopt, std::nullopt, std::nullopt});
    return it != groups_.end() && it->first.workflow_id == wf;  // groups are never empty
}

void ready_index::clear()
{
    jobs_.clear();
    groups_.clear();
}

std::vector<ready_group> ready_index::groups(std::int64_t wf,
                                             std::optional<std::string> const& label,
                                             std::int64_t limit) const
{
    std::vector<ready_group> out;
    if (limit <= 0) return out;
    // nullopt orders before every value, so this is the first group of (wf, label).
    for (auto it = groups_.lower_bound({wf, label, std::nullopt, std::nullopt});
         it != groups_.end() && it->first.workflow_id == wf && it->first.label == label; ++it) {
        ready_group g{it->first.requirements_id, it->first.scheduler_id, {}};
        auto const n = std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(limit));
        g.jobs.reserve(n);
        for (auto m = it->second.begin(); g.jobs.size() < n; ++m)
            g.jobs.emplace_back(m->second, -m->first);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> ready_index::first(
    std::int64_t wf, std::optional<std::string> const& label, std::int64_t limit) const
{
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (auto& g : groups(wf, label, limit)) out.insert(out.end(), g.jobs.begin(), g.jobs.end());
    // Claim order: higher priority first, then lower id.
    std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (out.size() > static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)))
        out.resize(static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)));
    return out;
}

}  // namespace torcrun::core
