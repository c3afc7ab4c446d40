// Which jobs `torcrun rerun WF --job NAME ...` resets: each name must be a job of the workflow
// (Torc 0.10 may create several jobs under one name; each of them is reset). Pure: the job list
// comes from the server.
#pragma once

#include "torcrun/cli/log_selection.hpp"
#include "torcrun/common/error.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace torcrun::core {

// The ids of the jobs with those names, sorted, each once. Error:
// `--job "x": workflow 3 has no job of that name (its jobs: a, b, c)`, at most 10 listed.
result<std::vector<std::int64_t>> jobs_named(std::span<named_job const> jobs,
                                             std::span<std::string const> names,
                                             std::int64_t workflow_id);

}  // namespace torcrun::core
