// The worker's append-only record of its attempts: one JSON object per line in
// <output>/job_records/wf<W>_<host>_<pid>.jsonl (launch_plan.hpp: attempt_record_dir), one file
// per worker process, so that an attempt costs its two stdio files and no directory of its own.
// Every line names its attempt (workflow_id, job_id, run_id, attempt_id) and its `kind`:
//   "attempt"  at the spawn: `command` (render_command_line of the argv, with any srun wrapper)
//              and `environment` (render_env_change: what was set for the job) — what
//              command.txt and environment.txt hold in an attempt directory;
//   "usage"    at the exit of a job that outlived its first sample: `points`, the CPU and
//              memory series (usage_series_json) — usage.json;
//   "gpu"      at the exit of a job that held GPUs the sampler could read (direct mode, NVML):
//              `gpu`, its figures and series (gpu_usage_json);
//   "result"   when the worker reports it: result_json's fields (worker_journal.hpp), its
//              `completion_time` as the server holds it — result.json.
// A later line about the same attempt and kind replaces an earlier one (a result re-sent).
// Pure: building lines and reading a record's text back; the file is io/attempt_record_file.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/env_policy.hpp"
#include "torcrun/worker/gpu_usage.hpp"
#include "torcrun/worker/usage_series.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace torcrun::core {

struct record_key {  // an attempt as the record names it
    std::int64_t workflow_id = 0;
    std::int64_t job_id = 0;
    std::int64_t run_id = 0;
    std::int64_t attempt_id = 1;
    auto operator<=>(record_key const&) const = default;
};

record_key key_of(torc_job_identity const& id);

// What the record says of one attempt; each part absent until its line is read.
struct attempt_facts_recorded {
    std::optional<std::string> command;
    std::optional<std::string> environment;
    std::string bound_cpus;  // empty: not bound
    std::optional<std::vector<usage_point>> usage;
    std::optional<gpu_usage_summary> gpu;
    std::optional<boost::json::object> result;
};

using attempt_record_book = std::map<record_key, attempt_facts_recorded>;

// The lines, without their newline.
std::string attempt_line(torc_job_identity const& id, std::string_view command,
                         std::string_view environment, std::string_view bound_cpus = {});
std::string usage_line(torc_job_identity const& id, std::vector<usage_point> const& points);
std::string gpu_line(torc_job_identity const& id, gpu_usage_summary const& gpu);
// `result` is result_json of the attempt (it names the attempt itself).
std::string result_line(boost::json::object result);

// Adds the lines of one record's text to `book`. A line that does not read (a torn last line of
// a worker killed mid-write, or another version's kind) is skipped and named in the returned
// list as `origin:line: why`; the others still count.
std::vector<std::string> read_attempt_record(std::string_view text, std::string_view origin,
                                             attempt_record_book& book);

}  // namespace torcrun::core
