// What the worker wrote of an attempt and the client commands read back: the GPU ids and step
// nodes of its result (the server's result has no such fields: Torc v0.10's model) and its CPU
// and memory series. An attempt directory's result.json and usage.json where the directory
// exists (the attempt failed, attempt_directory: always, or an older worker), else the workers'
// attempt records in job_records/ (torcrun/worker/attempt_record.hpp). Used by `torcrun jobs` (its
// GPUS column) and the report.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/attempt_record.hpp"
#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/node_usage.hpp"
#include "torcrun/worker/usage_series.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::apps {

// The attempt records under each output directory asked about, each directory read once
// (every *.jsonl of its job_records/). Lines that do not read are skipped and kept in
// skipped() as `FILE:LINE: why`, for the command to say.
class recorded_attempts {
public:
    // What the record says of the attempt; null when it names it nowhere.
    core::attempt_facts_recorded const* find(std::string const& output_dir,
                                             core::torc_job_identity const& id);
    std::vector<std::string> const& skipped() const noexcept { return skipped_; }

private:
    std::map<std::string, core::attempt_record_book> books_;
    std::vector<std::string> skipped_;
};

// Where to look for the attempt's logs: its directory where there is one (it failed, or
// attempt_directory: always, or an older worker), else its stdout file, else its stderr file,
// else the directory's name (nothing ran yet).
std::string log_location(core::attempt_paths const& paths);

// What the worker records of an attempt's result beyond the server's result.
struct recorded_attempt {
    // `gpu_ids`; nothing when the file is absent or has no such field (a worker that did not
    // record them).
    std::optional<std::vector<std::string>> gpu_ids;
    // `nodes`: the node(s) a slurm-mode step ran on, as Slurm names them ("n2", "n[1-2]");
    // empty when not recorded (direct mode: the compute node's host).
    std::string nodes;
};

// From result.json where it exists, else from the recorded result (`recorded` may be null).
// Errors: `FILE: cannot read: ...` (it is there but does not read), `FILE: not JSON: ...`,
// `FILE: gpu_ids is not an array of strings`, `FILE: nodes is not a string` (FILE: "job record"
// for a recorded result).
core::result<recorded_attempt> read_recorded_attempt(
    std::string const& result_file, core::attempt_facts_recorded const* recorded = nullptr);

// usage.json's points, else the recorded series; nothing when neither is there (the attempt
// never ran or ended before its first sample, or an older worker). Errors: `FILE: cannot read:
// ...`, or parse_usage_series's message after FILE.
core::result<std::optional<std::vector<core::usage_point>>> read_usage_series(
    std::string const& usage_file, core::attempt_facts_recorded const* recorded = nullptr);

// The node usage file a worker with resource_monitor.compute_node (time_series) wrote into its
// output directory, `output_dir`/node_usage_<node>.json; nothing when it is absent. Errors:
// `FILE: cannot read: ...`, or parse_node_series's message after FILE.
core::result<std::optional<core::node_series>> read_node_series(std::string const& output_dir,
                                                                std::int64_t compute_node_id);

}  // namespace torcrun::apps
