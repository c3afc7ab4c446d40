// What the worker wrote into an attempt's directory and the client commands read back: the GPU
// ids and step nodes of result.json (the server's result has no such fields: Torc v0.10's model) and the CPU
// and memory series of usage.json. Used by `torcrun jobs` (its GPUS column) and the report.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/node_usage.hpp"
#include "torcrun/worker/usage_series.hpp"

#include <optional>
#include <string>
#include <vector>

namespace torcrun::apps {

// What result.json records beyond the server's result.
struct recorded_attempt {
    // `gpu_ids`; nothing when the file is absent or has no such field (a worker that did not
    // record them).
    std::optional<std::vector<std::string>> gpu_ids;
    // `nodes`: the node(s) a slurm-mode step ran on, as Slurm names them ("n2", "n[1-2]");
    // empty when not recorded (direct mode: the compute node's host).
    std::string nodes;
};

// Errors: `FILE: cannot read: ...` (it is there but does not read), `FILE: not JSON: ...`,
// `FILE: gpu_ids is not an array of strings`, `FILE: nodes is not a string`.
core::result<recorded_attempt> read_recorded_attempt(std::string const& result_file);

// usage.json's points; nothing when the file is absent (the attempt never ran, or an older
// worker). Errors: `FILE: cannot read: ...`, or parse_usage_series's message after FILE.
core::result<std::optional<std::vector<core::usage_point>>> read_usage_series(
    std::string const& usage_file);

// The node usage file a worker with resource_monitor.compute_node (time_series) wrote into its
// output directory, `output_dir`/node_usage_<node>.json; nothing when it is absent. Errors:
// `FILE: cannot read: ...`, or parse_node_series's message after FILE.
core::result<std::optional<core::node_series>> read_node_series(std::string const& output_dir,
                                                                std::int64_t compute_node_id);

}  // namespace torcrun::apps
