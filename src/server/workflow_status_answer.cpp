// GET /workflows/{id}/status for both contracts (workflow_status_answer.hpp): the walltime left
// to the allocations and the one JSON object.
#include "torcrun/server/workflow_status_answer.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/common/units.hpp"
#include "torcrun/server/model_json.hpp"

#include <algorithm>
#include <cmath>

namespace torcrun::core {
namespace {

std::string json_bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::optional<std::int64_t> max_allocation_remaining(std::span<allocation_clock const> nodes,
                                                     double now_unix_seconds)
{
    std::optional<std::int64_t> best;
    for (auto const& node : nodes) {
        std::optional<double> end;
        if (node.end_time) {
            if (auto const reported = parse_date_time(*node.end_time)) end = *reported;
        }
        if (!end && node.time_limit) {
            auto const start = parse_date_time(node.start_time);
            auto const limit = parse_duration(*node.time_limit);
            if (start && limit) end = *start + *limit;
        }
        if (!end) continue;
        auto const left = std::max(0.0, std::floor(*end - now_unix_seconds));
        best = std::max(best.value_or(0), static_cast<std::int64_t>(left));
    }
    return best;
}

std::string encode_workflow_status(workflow_summary const& s)
{
    auto const& f = s.flags;
    std::string out = "{\"id\":" + std::to_string(s.workflow_id);
    out += ",\"is_canceled\":" + json_bool(f.is_canceled);
    out += ",\"is_archived\":" + json_bool(f.is_archived);
    out += ",\"run_id\":" + std::to_string(f.run_id);
    out += ",\"has_detected_need_to_run_completion_script\":" +
           json_bool(f.has_detected_need_to_run_completion_script);
    out += ",\"workflow_id\":" + std::to_string(s.workflow_id);
    out += ",\"workflow_name\":" + api::json_quote(s.workflow_name);
    out += ",\"workflow_user\":" + api::json_quote(s.workflow_user);
    out += ",\"total_jobs\":" + std::to_string(s.counts.total());
    out += ",\"jobs_by_status\":{";
    for (auto status : all_job_statuses) {
        if (status != all_job_statuses.front()) out += ',';
        out += api::json_quote(to_string(status)) + ":" + std::to_string(s.counts[status]);
    }
    out += "}";
    auto const minutes = std::isfinite(s.total_exec_time_minutes) ? s.total_exec_time_minutes : 0;
    out += ",\"total_exec_time_minutes\":" + format_number(minutes);
    out += ",\"active_compute_nodes\":" + std::to_string(s.active_compute_nodes);
    out += ",\"pending_scheduled_nodes\":" + std::to_string(s.pending_scheduled_nodes);
    out += ",\"active_scheduled_nodes\":" + std::to_string(s.active_scheduled_nodes);
    out += ",\"is_complete\":" + json_bool(s.is_complete);
    out += ",\"runtime_blocked_ready_jobs\":" + std::to_string(s.ready.blocked);
    if (s.ready.blocked > 0) {
        out += ",\"longest_ready_runtime_seconds\":" + std::to_string(s.ready.longest);
    }
    if (s.max_allocation_remaining_seconds) {
        out += ",\"max_allocation_remaining_seconds\":" +
               std::to_string(*s.max_allocation_remaining_seconds);
    }
    return out + "}";
}

}  // namespace torcrun::core
