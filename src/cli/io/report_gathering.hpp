// The facts of a workflow's HTML report (run_report.hpp) read over the REST API: every attempt's
// result (all runs), the jobs' names and resource requirements, the compute nodes, the job
// counts; and the page written to a file. Where an attempt's files are at hand (the output
// directory given, else the one its compute node recorded: worker_output_dirs.hpp), its GPU
// ids and CPU and memory series are read there (its directory's result.json and usage.json, else
// the workers' attempt records: attempt_records.hpp), and a failed attempt's log directory that
// exists there is linked, relative to the page.
#pragma once

#include "torc_client.hpp"
#include "torcrun/cli/run_report.hpp"
#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace torcrun::apps {

// Errors: the failed request's message, `result N: completion_time "x" is not a UTC time`, or
// a result.json or usage.json that does not read (attempt_records.hpp).
core::result<core::report_input> gather_report(torc_client& client, std::int64_t workflow_id,
                                               std::optional<std::string> const& output_dir,
                                               std::string const& html_path);

// Gathers, renders and writes `html_path` whole (a reader never sees half a page). Error:
// `FILE: cannot write: REASON`, or gather_report's.
core::result<void> write_report(torc_client& client, std::int64_t workflow_id,
                                std::optional<std::string> const& output_dir,
                                std::string const& html_path);

}  // namespace torcrun::apps
