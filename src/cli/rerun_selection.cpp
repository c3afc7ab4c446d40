// See rerun_selection.hpp.
#include "torcrun/cli/rerun_selection.hpp"

#include <algorithm>

namespace torcrun::core {

namespace {

std::string some_names(std::span<named_job const> jobs)
{
    constexpr std::size_t shown = 10;
    std::string out;
    for (std::size_t i = 0; i < jobs.size() && i < shown; ++i) {
        if (i) out += ", ";
        out += jobs[i].name;
    }
    if (jobs.size() > shown) out += ", ... (" + std::to_string(jobs.size()) + " in all)";
    return out.empty() ? "none" : out;
}

}  // namespace

result<std::vector<std::int64_t>> jobs_named(std::span<named_job const> jobs,
                                             std::span<std::string const> names,
                                             std::int64_t workflow_id)
{
    std::vector<std::int64_t> ids;
    for (auto const& name : names) {
        bool found = false;
        for (auto const& j : jobs) {
            if (j.name != name) continue;
            ids.push_back(j.id);
            found = true;
        }
        if (!found)
            return error{"--job \"" + name + "\": workflow " + std::to_string(workflow_id) +
                         " has no job of that name (its jobs: " + some_names(jobs) + ")"};
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

}  // namespace torcrun::core
