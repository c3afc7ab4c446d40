// Job status names and codes on the wire and in the database: thin adapters over
// core::job_status (docs/TORC-COMPATIBILITY.md §1), which owns the one table of names and integers.
#include "torcrun/server/model_schema.hpp"

#include "torcrun/server/job_status.hpp"

namespace torcrun::api {

std::optional<std::int64_t> job_status_code(std::string_view name)
{
    auto const status = core::parse_job_status(name);
    if (!status) return std::nullopt;
    return core::to_int(*status);
}

std::string_view job_status_name(std::int64_t code)
{
    auto const status = core::job_status_from_int(code);
    if (!status) return {};
    return core::to_string(*status);
}

std::string_view job_status_list()
{
    return "uninitialized, blocked, ready, pending, running, completed, failed, canceled, "
           "terminated, disabled, pending_failed";
}

}  // namespace torcrun::api
