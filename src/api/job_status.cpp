// Job status names and codes (TORC-FACTS §2.1): the wire uses the lower-case name, the database
// the integer, so that claims and cascades compare integers.
#include "torcrun/api/model_schema.hpp"

#include <array>

namespace torcrun::api {

namespace {
constexpr std::array<std::string_view, 11> status_names{
    "uninitialized", "blocked",  "ready",      "pending",  "running",       "completed",
    "failed",        "canceled", "terminated", "disabled", "pending_failed"};
}  // namespace

std::optional<std::int64_t> job_status_code(std::string_view name)
{
    for (std::size_t i = 0; i < status_names.size(); ++i) {
        if (status_names[i] == name) return static_cast<std::int64_t>(i);
    }
    return std::nullopt;
}

std::string_view job_status_name(std::int64_t code)
{
    if (code < 0 || code >= static_cast<std::int64_t>(status_names.size())) return {};
    return status_names[static_cast<std::size_t>(code)];
}

std::string_view job_status_list()
{
    return "uninitialized, blocked, ready, pending, running, completed, failed, canceled, "
           "terminated, disabled, pending_failed";
}

}  // namespace torcrun::api
