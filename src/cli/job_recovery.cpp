// See job_recovery.hpp.
#include "torcrun/cli/job_recovery.hpp"

#include "torcrun/common/units.hpp"

#include <cmath>

namespace torcrun::core {
namespace {

std::string job_text(failed_job const& j)
{
    return "job " + std::to_string(j.id) + " \"" + j.name + "\"";
}

std::string seconds_text(double s) { return std::to_string(static_cast<std::int64_t>(std::ceil(s))) + " s"; }

}  // namespace

recovery_decisions decide_recovery(std::vector<failed_job> const& failed,
                                   recovery_policy const& policy,
                                   std::map<std::int64_t, int> const& recovered)
{
    recovery_decisions out;
    for (auto const& j : failed) {
        auto const done = recovered.contains(j.id) ? recovered.at(j.id) : 0;
        auto const kind = j.return_code == 137   ? failure_kind::out_of_memory
                          : j.return_code == 152 ? failure_kind::timeout
                                                 : failure_kind::unknown;
        auto const rc = " (rc " + std::to_string(j.return_code) + ")";
        if (policy.max_retries && done >= *policy.max_retries) {
            out.left.push_back(job_text(j) + rc + ": run again " + std::to_string(done) +
                               " times already (--max-retries " +
                               std::to_string(*policy.max_retries) + ")");
            continue;
        }
        job_recovery r;
        r.job_id = j.id;
        r.kind = kind;
        auto const attempt = " (recovery " + std::to_string(done + 1) +
                             (policy.max_retries ? " of " + std::to_string(*policy.max_retries) : "") + ")";
        if (kind == failure_kind::unknown) {
            if (!policy.retry_unknown) {
                out.left.push_back(job_text(j) + rc + ": neither out of memory (137) nor out of "
                                   "time (152); --retry-unknown runs such jobs again");
                continue;
            }
            r.line = job_text(j) + rc + ": run again unchanged" + attempt;
            out.retry.push_back(std::move(r));
            continue;
        }
        if (!j.requirement) {
            out.left.push_back(job_text(j) + rc + ": it has no resource requirement to raise");
            continue;
        }
        auto next = *j.requirement;
        if (kind == failure_kind::out_of_memory) {
            if (next.memory_bytes == 0) {
                out.left.push_back(job_text(j) + rc + ": out of memory, but it asks for no memory to multiply");
                continue;
            }
            next.memory_bytes = static_cast<std::uint64_t>(
                std::ceil(static_cast<double>(next.memory_bytes) * policy.memory_multiplier));
            // Whole megabytes: what srun --mem and sbatch take.
            next.memory_bytes = (next.memory_bytes + (1u << 20) - 1) / (1u << 20) * (1u << 20);
            r.line = job_text(j) + rc + ": out of memory; memory " +
                     format_memory(j.requirement->memory_bytes) + " -> " +
                     format_memory(next.memory_bytes);
        } else {
            if (next.runtime_seconds <= 0) {
                out.left.push_back(job_text(j) + rc + ": out of time, but it gives no runtime to multiply");
                continue;
            }
            next.runtime_seconds = std::ceil(next.runtime_seconds * policy.runtime_multiplier / 60) * 60;
            r.line = job_text(j) + rc + ": out of time; runtime " +
                     seconds_text(j.requirement->runtime_seconds) + " -> " +
                     seconds_text(next.runtime_seconds);
        }
        next.id = 0;
        next.name = j.requirement->name + "_recovered_j" + std::to_string(j.id) + "_" + std::to_string(done + 1);
        r.line += " (new resource requirement \"" + next.name + "\"); run again" + attempt;
        r.new_requirement = std::move(next);
        out.retry.push_back(std::move(r));
    }
    return out;
}

}  // namespace torcrun::core
