// The workflow's `dynamic_jobs` (dynamic_jobs_reader.hpp).
#include "dynamic_jobs_reader.hpp"

#include <limits>

namespace torcrun::core::spec::detail {

std::optional<dynamic_jobs_spec> read_dynamic_jobs(field_reader& workflow)
{
    auto const* value = workflow.get("dynamic_jobs");
    if (!value) return std::nullopt;
    field_reader r(workflow.state(), *value, workflow.member_pointer("dynamic_jobs"),
                   "dynamic_jobs");
    if (!r.begin(spec_object_kind::dynamic_jobs)) return std::nullopt;
    dynamic_jobs_spec out;
    out.max_iterations =
        r.optional_integer("max_iterations", 1, std::numeric_limits<std::int64_t>::max());
    return out;
}

}  // namespace torcrun::core::spec::detail
