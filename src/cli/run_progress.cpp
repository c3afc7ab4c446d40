// The numbers and texts of `torcrun run`. The rate is the average since the start rather than a
// recent window: with jobs of a few seconds a window jumps between 0 and bursts, and the
// average is what the ETA of a homogeneous sweep needs.
#include "torcrun/cli/run_progress.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace torcrun::core {

namespace {

using detail::cat;

std::string fixed(double value, int decimals)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

std::string two_digits(long long n) { return cat(n < 10 ? "0" : "", std::to_string(n)); }

std::string job_line(unfinished_job const& j)
{
    auto line = cat("  ", j.name, " (job ", std::to_string(j.id), "): ", to_string(j.status));
    if (j.return_code) line += cat(", return code ", std::to_string(*j.return_code));
    line += j.log_dir ? cat(", logs ", *j.log_dir) : std::string(", never ran");
    line += "\n";
    return line;
}

void append_tail(std::string& out, std::vector<std::string> const& tail)
{
    for (auto const& l : tail) out += cat("    | ", l, "\n");
}

// "failures by return code:" and one group per return code of the failed jobs that have one.
std::string failure_groups(std::vector<unfinished_job> const& jobs)
{
    std::map<std::int64_t, std::vector<unfinished_job const*>> groups;
    for (auto const& j : jobs)
        if (j.status == job_status::failed && j.return_code) groups[*j.return_code].push_back(&j);
    if (groups.empty()) return {};
    std::string out = "failures by return code:\n";
    for (auto const& [rc, members] : groups) {
        auto const& first = *members.front();
        out += cat("  return code ", std::to_string(rc), ": ", std::to_string(members.size()),
                   members.size() == 1 ? " job, " : " jobs, first ", first.name, " (job ",
                   std::to_string(first.id), ")\n");
        append_tail(out, first.stderr_tail);
    }
    return out;
}

}  // namespace

std::vector<std::string> last_lines(std::string_view text, std::size_t count)
{
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    std::vector<std::string> out;
    while (out.size() < count && !text.empty()) {
        auto const at = text.rfind('\n');
        auto const start = at == std::string_view::npos ? 0 : at + 1;
        out.emplace_back(text.substr(start));
        text = at == std::string_view::npos ? std::string_view() : text.substr(0, at);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string format_failure(unfinished_job const& j)
{
    auto out = cat("torcrun run: failed: ", j.name, " (job ", std::to_string(j.id), ")");
    if (j.return_code) out += cat(", return code ", std::to_string(*j.return_code));
    if (j.log_dir) out += cat(", logs ", *j.log_dir);
    out += "\n";
    append_tail(out, j.stderr_tail);
    return out;
}

progress_numbers compute_progress(status_counts const& counts, double elapsed_seconds)
{
    using st = job_status;
    progress_numbers p;
    p.total = counts.total();
    p.done = counts[st::completed];
    p.running = counts[st::pending] + counts[st::running];
    p.failed = counts[st::failed];
    p.canceled = counts[st::canceled];
    p.terminated = counts[st::terminated];
    auto const finished = p.done + p.failed + p.canceled + p.terminated;
    p.remaining = p.total - finished - p.running - counts[st::disabled];
    auto const left = p.remaining + p.running;
    if (left == 0) p.eta_seconds = 0.0;
    if (finished > 0 && elapsed_seconds > 0) {
        p.rate = static_cast<double>(finished) / elapsed_seconds;
        p.eta_seconds = static_cast<double>(left) / *p.rate;
    }
    return p;
}

std::string format_elapsed(double seconds)
{
    auto const s = std::llround(std::max(seconds, 0.0));
    if (s < 60) return cat(std::to_string(s), "s");
    if (s < 3600) return cat(std::to_string(s / 60), "m", two_digits(s % 60), "s");
    auto const minutes = (s + 30) / 60;
    return cat(std::to_string(minutes / 60), "h", two_digits(minutes % 60), "m");
}

std::string format_progress_line(progress_numbers const& p, double elapsed_seconds)
{
    auto line = cat("[", format_elapsed(elapsed_seconds), "] done ", std::to_string(p.done), "/",
                    std::to_string(p.total), "  running ", std::to_string(p.running),
                    "  failed ", std::to_string(p.failed));
    if (p.canceled != 0) line += cat("  canceled ", std::to_string(p.canceled));
    if (p.terminated != 0) line += cat("  terminated ", std::to_string(p.terminated));
    line += cat("  remaining ", std::to_string(p.remaining), "  ");
    line += p.rate ? fixed(*p.rate, 2) : std::string("-");
    line += cat(" jobs/s  ETA ", p.eta_seconds ? format_elapsed(*p.eta_seconds) : "-");
    return line;
}

std::string format_summary(run_summary const& s)
{
    auto out = cat("torcrun run: workflow ", std::to_string(s.workflow_id), " (", s.workflow_name,
                   "): ", std::to_string(s.counts.total()), " jobs in ",
                   format_elapsed(s.wall_seconds), "\n ");
    for (auto const status : all_job_statuses) {
        if (s.counts[status] == 0) continue;
        out += cat(" ", to_string(status), " ", std::to_string(s.counts[status]));
    }
    out += s.counts.total() == 0 ? " no jobs\n" : "\n";
    if (!s.unfinished.empty()) {
        out += "jobs that did not complete:\n";
        auto const shown = std::min(s.unfinished.size(), summary_job_limit);
        for (std::size_t i = 0; i < shown; ++i) out += job_line(s.unfinished[i]);
        if (shown < s.unfinished.size())
            out += cat("  ... and ", std::to_string(s.unfinished.size() - shown), " more\n");
        out += failure_groups(s.unfinished);
    }
    out += cat("database:   ", s.database, "\noutput:     ", s.output_dir, "\n");
    if (!s.worker_log.empty()) out += cat("worker log: ", s.worker_log, "\n");
    if (!s.report.empty()) out += cat("report:     ", s.report, "\n");
    return out;
}

int run_exit_status(status_counts const& counts)
{
    return counts[job_status::completed] == counts.total() ? 0 : 1;
}

}  // namespace torcrun::core
