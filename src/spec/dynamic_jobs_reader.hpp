// Reading newer Torc's `dynamic_jobs` entry (private to src/spec): the per-lineage cap on
// spawn_jobs calls, through the strict field reader.
#pragma once

#include "field_reader.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <optional>

namespace torcrun::core::spec::detail {

// The workflow's `dynamic_jobs`, or nullopt when absent. Only `max_iterations` is known (an
// integer of at least 1, or null for the server's default); Torc refuses 0 and below.
std::optional<dynamic_jobs_spec> read_dynamic_jobs(field_reader& workflow);

}  // namespace torcrun::core::spec::detail
