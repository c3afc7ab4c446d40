// Step exit classification: a line scan of the stderr tail for the messages of Slurm 22.05
// (slurmstepd's task/cgroup and jobacct_gather, its time-limit notice, srun's task report and
// step-creation retries) and newer wordings of the same events.
#include "torcrun/worker/step_exit.hpp"

#include <array>
#include <span>

namespace torcrun::core {
namespace {

// "srun: ..." or "slurmstepd: ..." / "slurmstepd-n1: ...": printed by Slurm, not by the job.
bool from_slurm(std::string_view line)
{
    if (line.starts_with("srun: ")) return true;
    if (!line.starts_with("slurmstepd")) return false;
    auto const rest = line.substr(std::string_view("slurmstepd").size());
    return rest.starts_with(": ") || rest.starts_with("-");
}

bool contains_any(std::string_view line, std::span<std::string_view const> needles)
{
    for (auto const needle : needles) {
        if (line.find(needle) != std::string_view::npos) return true;
    }
    return false;
}

// cgroup v1 "Detected 1 oom-kill event(s) in StepId=12.0 ...", v2 "Detected 1 oom_kill event in
// ...", jobacct_gather "StepId=12.0 exceeded memory limit (2048 > 1024), being killed", srun's
// "srun: error: n1: task 0: Out Of Memory". Not "hit memory limit at least once", which newer
// releases print for a step that was only throttled.
constexpr std::array<std::string_view, 4> oom_marks{"oom-kill event", "oom_kill event",
                                                    "exceeded memory limit", ": Out Of Memory"};
// "*** STEP 12.3 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO TIME LIMIT ***" (also JOB).
constexpr std::array<std::string_view, 1> time_limit_marks{" DUE TO TIME LIMIT ***"};
// "*** STEP 12.3 ON n1 CANCELLED AT 2026-11-29T17:13:31 ***" (also JOB, and "... DUE TO
// PREEMPTION ***" or "NODE FAILURE"): the step or its allocation was ended from outside
// (scancel); a time-limit line is the time limit instead.
constexpr std::array<std::string_view, 1> cancel_marks{" CANCELLED AT "};
// "srun: Job 12 step creation temporarily disabled, retrying (Requested nodes are busy)" and
// "srun: Job 12 step creation still disabled, retrying (Requested nodes are busy)".
constexpr std::array<std::string_view, 2> wait_marks{"step creation temporarily disabled",
                                                     "step creation still disabled"};

struct evidence {
    std::string oom;
    std::string time_limit;
    std::string canceled;
    bool waited = false;
};

evidence scan(std::string_view text)
{
    evidence found;
    while (!text.empty()) {
        auto const end = text.find('\n');
        auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (!from_slurm(line)) continue;
        if (found.oom.empty() && contains_any(line, oom_marks)) found.oom = line;
        if (found.time_limit.empty() && contains_any(line, time_limit_marks)) {
            found.time_limit = line;
        } else if (found.canceled.empty() && contains_any(line, cancel_marks) &&
                   !contains_any(line, time_limit_marks)) {
            found.canceled = line;
        }
        if (contains_any(line, wait_marks)) found.waited = true;
    }
    return found;
}

}  // namespace

step_exit classify_step_exit(exit_status const& srun, std::string_view stderr_tail)
{
    auto found = scan(stderr_tail);
    step_exit out;
    out.waited_for_resources = found.waited;
    out.return_code = srun.return_code();
    out.status = out.return_code == 0 ? result_status::completed : result_status::failed;
    if (!found.oom.empty()) {
        out.cause = step_cause::out_of_memory;
        out.return_code = oom_return_code;
        out.status = result_status::failed;
        out.evidence = std::move(found.oom);
    } else if (!found.time_limit.empty()) {
        out.cause = step_cause::time_limit;
        out.evidence = std::move(found.time_limit);
        if (out.return_code != 0) {
            out.return_code = time_limit_return_code;
            out.status = result_status::terminated;
        }
    } else if (!found.canceled.empty()) {
        out.cause = step_cause::canceled;
        out.evidence = std::move(found.canceled);
        if (out.return_code != 0) out.status = result_status::terminated;
    }
    return out;
}

}  // namespace torcrun::core
