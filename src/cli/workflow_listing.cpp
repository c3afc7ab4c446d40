// See workflow_listing.hpp.
#include "torcrun/cli/workflow_listing.hpp"

#include <algorithm>
#include <array>

namespace torcrun::core {

std::string_view workflow_state(workflow_line const& w)
{
    auto const& j = w.jobs;
    if (w.is_canceled) return "canceled";
    if (j.total() == 0) return "empty";
    if (w.is_complete) return j[job_status::completed] == j.total() ? "completed" : "failed";
    if (j[job_status::pending] + j[job_status::running] > 0) return "running";
    if (is_uninitialized(j)) return "uninitialized";
    return "waiting";
}

std::string format_workflow_table(std::vector<workflow_line> const& lines)
{
    using row = std::array<std::string, 5>;
    std::vector<row> cells{{"ID", "NAME", "USER", "STATUS", "COMPLETED"}};
    for (auto const& w : lines)
        cells.push_back({std::to_string(w.id), w.name, w.user, std::string(workflow_state(w)),
                         std::to_string(w.jobs[job_status::completed]) + "/" +
                             std::to_string(w.jobs.total())});
    std::array<std::size_t, 5> widths{};
    for (auto const& r : cells)
        for (std::size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], r[c].size());
    std::string out;
    for (auto const& r : cells) {
        for (std::size_t c = 0; c + 1 < r.size(); ++c)
            out += r[c] + std::string(widths[c] - r[c].size() + 2, ' ');
        out += r.back() + "\n";
    }
    return out;
}

}  // namespace torcrun::core
