// See job_facts.hpp. The line is split at spaces: the fields read here (states, reasons, host
// lists, times) hold none, while the Command= or WorkDir= values that may are never read.
#include "torcrun/slurm/job_facts.hpp"

#include <array>

namespace torcrun::core {
namespace {

std::string value_of(std::string_view line, std::string_view key)
{
    std::size_t at = 0;
    while (at < line.size()) {
        auto const end = std::min(line.find_first_of(" \n", at), line.size());
        auto const item = line.substr(at, end - at);
        if (item.size() > key.size() && item.starts_with(key) && item[key.size()] == '=')
            return std::string(item.substr(key.size() + 1));
        at = end + 1;
    }
    return {};
}

std::string unless(std::string value, std::initializer_list<std::string_view> nothing)
{
    for (auto const n : nothing)
        if (value == n) return {};
    return value;
}

}  // namespace

std::optional<slurm_job_facts> parse_scontrol_job(std::string_view line)
{
    slurm_job_facts f;
    f.state = value_of(line, "JobState");
    if (f.state.empty()) return std::nullopt;
    f.reason = unless(value_of(line, "Reason"), {"None"});
    f.node_list = unless(value_of(line, "NodeList"), {"(null)"});
    f.submit_time = unless(value_of(line, "SubmitTime"), {"Unknown", "None"});
    f.start_time = f.state == "PENDING" ? "" : unless(value_of(line, "StartTime"), {"Unknown", "None"});
    f.exit_code = value_of(line, "ExitCode");
    f.end_time = slurm_state_ended(f.state) ? unless(value_of(line, "EndTime"), {"Unknown", "None"}) : "";
    return f;
}

std::string ended_because(slurm_job_facts const& f)
{
    if (f.state == "FAILED" && f.exit_code == "3:0")
        return "worker left: the ready jobs need another allocation (exit 3)";
    return "slurm: " + f.state + (f.reason.empty() ? "" : " (" + f.reason + ")");
}

bool slurm_state_ended(std::string_view state)
{
    static constexpr std::array<std::string_view, 9> ended{
        "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
        "PREEMPTED", "BOOT_FAIL", "DEADLINE"};
    for (auto const e : ended)
        if (state == e) return true;
    return false;
}

}  // namespace torcrun::core
