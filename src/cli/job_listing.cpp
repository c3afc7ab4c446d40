// See job_listing.hpp.
#include "torcrun/cli/job_listing.hpp"

#include "torcrun/cli/run_progress.hpp"
#include "torcrun/common/concat.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/common/units.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace torcrun::core {

using detail::cat;

result<std::vector<job_status>> parse_status_list(std::string_view text)
{
    std::vector<job_status> out;
    for (std::size_t start = 0;;) {
        auto const end = std::min(text.find(',', start), text.size());
        auto const word = text.substr(start, end - start);
        if (word.empty()) return error{cat("--status: an empty status in \"", text, "\"")};
        auto status = parse_job_status(word);
        if (!status) return status.error();
        if (std::find(out.begin(), out.end(), *status) == out.end()) out.push_back(*status);
        if (end == text.size()) return out;
        start = end + 1;
    }
}

namespace {

std::string gpu_cell(std::optional<std::vector<std::string>> const& ids)
{
    if (!ids) return "-";
    return ids->empty() ? "none" : join(*ids, ",");
}

}  // namespace

std::vector<std::string> attempt_headings(bool gpu_columns)
{
    if (gpu_columns)
        return {"ATTEMPTS", "START", "DURATION", "NODE",    "GPUS", "PEAK_RSS",
                "PEAK_CPU", "GPU_UTIL", "GPU_MEM", "CPUS", "LOGS"};
    return {"ATTEMPTS", "START", "DURATION", "NODE", "GPUS", "PEAK_RSS", "PEAK_CPU", "LOGS"};
}

namespace {

std::string percent(std::optional<double> v)
{
    if (!v) return {};
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << *v << "%";
    return out.str();
}

}  // namespace

std::vector<std::string> attempt_cells(attempt_facts const& f, bool gpu_columns)
{
    auto const or_dash = [](std::string s) { return s.empty() ? std::string("-") : s; };
    std::vector<std::string> cells{std::to_string(f.attempts),
                                   f.start_unix ? format_date_time(std::floor(*f.start_unix)) : "-",
                                   f.seconds ? format_elapsed(*f.seconds) : "-",
                                   or_dash(f.node),
                                   gpu_cell(f.gpu_ids),
                                   f.peak_memory_bytes ? format_size(*f.peak_memory_bytes) : "-",
                                   or_dash(percent(f.peak_cpu_percent))};
    if (gpu_columns) {
        cells.push_back(or_dash(f.peak_gpu_percent && f.avg_gpu_percent
                                    ? percent(f.peak_gpu_percent) + "/" + percent(f.avg_gpu_percent)
                                    : ""));
        cells.push_back(f.peak_gpu_memory_bytes ? format_size(*f.peak_gpu_memory_bytes) : "-");
        cells.push_back(or_dash(f.bound_cpus));
    }
    cells.push_back(f.log_dir.value_or("-"));
    return cells;
}

std::string origin_cell(std::string_view origin, std::optional<std::int64_t> spawned_by)
{
    if (origin.empty()) return "-";
    std::string out(origin);
    if (spawned_by) out += " by " + std::to_string(*spawned_by);
    return out;
}

}  // namespace torcrun::core
