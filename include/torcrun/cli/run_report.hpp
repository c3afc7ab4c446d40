// The HTML report of a workflow (`torcrun report WF --html FILE`, `D/report.html` after
// `torcrun run`): one self-contained page (inline CSS and SVG, no script, nothing fetched) built
// from the attempts' results. It shows a timeline per compute node and per GPU with one bar per
// attempt coloured by outcome, the allocation's CPUs and GPUs held over time against its totals
// with the CPU cores the samples measured busy,
// each attempt's peak and average CPU and memory with a small chart of both over its life (the
// series of its usage.json, where the output directory is at hand), the failures with links to
// their logs, and the summary tables.
//
// GPU lanes: a node's lanes are the device ids its attempts got (result.json's gpu_ids) when
// every GPU attempt on it has them. Otherwise (no output directory, or results of a worker that
// did not record them) its attempts are laid onto lanes 0..n-1 in start order, each taking the
// lowest lanes free at its start, as the worker's pool hands out ids, and the page says so.
// Every name is HTML-escaped.
#pragma once

#include "torcrun/worker/gpu_usage.hpp"

#include "torcrun/worker/node_usage.hpp"
#include "torcrun/worker/usage_series.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core {

struct report_attempt {
    std::int64_t job_id = 0;
    std::string job_name;
    std::string origin;  // dynamic jobs: "spawn by 8"; empty for a job the spec declared
    std::int64_t run_id = 0;
    std::int64_t attempt_id = 1;
    std::int64_t compute_node_id = 0;
    double start_seconds = 0;  // Unix time
    double end_seconds = 0;
    std::int64_t return_code = 0;
    std::string status;  // completed, failed, canceled, terminated
    std::int64_t num_cpus = 1;
    std::int64_t num_gpus = 0;
    std::optional<std::uint64_t> peak_memory_bytes, avg_memory_bytes;
    std::optional<double> peak_cpu_percent, avg_cpu_percent;
    std::string log_link;  // its log directory relative to the page; empty when not at hand
    std::vector<std::string> log_files;  // the files in it to link (stderr, stdout, output)
    std::vector<std::string> gpu_ids;    // the ids it held (result.json); empty: not known
    std::string step_nodes;  // slurm mode: its step's node(s) (result.json); empty: the worker's
    std::vector<usage_point> series;     // CPU and memory over its life (usage.json)
    std::optional<gpu_usage_summary> gpu;  // its GPU readings (the job record's gpu line)
};

struct report_node {
    std::int64_t id = 0;
    std::string hostname;
    std::int64_t num_cpus = 0;
    std::int64_t num_gpus = 0;
    // The whole node's CPU and memory as its worker sampled them (resource_monitor.compute_node
    // with time_series: node_usage_<id>.json); nullopt where there is none.
    std::optional<node_series> usage;
};

struct report_input {
    std::int64_t workflow_id = 0;
    std::string workflow_name;
    std::vector<report_node> nodes;
    std::vector<report_attempt> attempts;
    std::vector<std::pair<std::string, std::int64_t>> job_counts;  // status, jobs; in order
};

// & < > " ' as entities.
std::string html_escape(std::string_view text);

// Seconds since the epoch of the server's `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nothing for other text.
std::optional<double> parse_utc_timestamp(std::string_view text);

// Per attempt (input order), the first GPU lane it holds (lanes first..first+num_gpus-1 of its
// node); -1 for attempts without GPUs. Lanes go beyond a node's num_gpus only when the attempts
// overlap more than it has.
std::vector<std::int64_t> assign_gpu_lanes(std::vector<report_attempt> const& attempts);

// The GPU lanes of each node and the lanes each attempt's bars lie on.
struct gpu_lane_plan {
    std::map<std::int64_t, std::vector<std::string>> lanes;  // node -> lane names, in order
    std::set<std::int64_t> assigned;  // nodes laid out by assign_gpu_lanes: ids not recorded
    std::vector<std::vector<std::size_t>> held;  // per attempt, indices into its node's lanes
};
// A node whose GPU attempts all recorded their ids gets those ids as lanes (numeric ids in
// numeric order); any other node with GPU attempts gets lanes "0".."n-1" from assign_gpu_lanes,
// n being at least `node_gpus`' count for it.
gpu_lane_plan plan_gpu_lanes(std::vector<report_attempt> const& attempts,
                             std::map<std::int64_t, std::int64_t> const& node_gpus);

// A small chart of one attempt's series: `<svg class="series" data-attempt="J.R.A"
// data-points="N">` with CPU % (path "cpu", scaled to at least 100) and memory (path "mem",
// scaled to its peak) as steps over the attempt's life (end - start, or the last point if later);
// empty text when the series is empty.
std::string usage_series_svg(report_attempt const& attempt);

// Per attempt (input order), its row within its node's lane: the lowest row free at its start.
std::vector<std::int64_t> assign_node_rows(std::vector<report_attempt> const& attempts);

// The allocation's use as steps: at `seconds` and until the next point, `cpus` and `gpus` were
// held by running attempts. Ends with a point of zero use at the last end.
struct usage_step {
    double seconds = 0;
    std::int64_t cpus = 0;
    std::int64_t gpus = 0;
};
std::vector<usage_step> usage_steps(std::vector<report_attempt> const& attempts);

// The CPU cores the attempts' own samples (their series) found busy, as steps: at `seconds` and
// until the next point, `cores` were in use, summed over every attempt whose stretch covers
// it (a point's CPU % holds from the point before it, or from the attempt's start). Ends with
// zero use; empty when no attempt has a series.
struct measured_step {
    double seconds = 0;
    double cores = 0;
};
std::vector<measured_step> measured_cpu_steps(std::vector<report_attempt> const& attempts);

// The CPU cores a node's own samples found busy (each point's CPU % of the node's num_cpus,
// holding from the point before it, or from the sampling's start), as steps in Unix time
// ending with zero; empty without a series.
std::vector<measured_step> node_cpu_steps(report_node const& node);

// The node's used memory in bytes as steps the same way (`cores` holds bytes); empty without a
// series.
std::vector<measured_step> node_memory_steps(report_node const& node);

// The GPUs the attempts' NVML readings found busy (each point's utilisation / 100, holding from
// the point before it, or from the attempt's start), summed over the attempts, as steps ending
// with zero; empty when no attempt has GPU readings with a utilisation (gpu_report.cpp).
std::vector<measured_step> measured_gpu_steps(std::vector<report_attempt> const& attempts);

// `<svg class="gpu-series" data-attempt="J.R.A" data-points="N">` with the GPU utilisation (path
// "util", scaled to at least 100 per GPU held) and GPU memory used (path "gmem", scaled to its
// peak) as steps over the attempt's life; empty text without GPU readings.
std::string gpu_series_svg(report_attempt const& attempt);

// The attempt's GPU cell: "98.0 % / 41.3 %, 3.0 GiB" (peak / average utilisation, peak memory)
// and its chart, "-" without readings.
std::string gpu_use_cell(report_attempt const& attempt);

// The x position in [left, left + width] of `seconds` on a timeline from `begin` to `end`.
double time_to_x(double seconds, double begin, double end, double left, double width);

// The whole page. Each attempt is one `<rect class="attempt" data-attempt="JOB.RUN.ATTEMPT">`
// of the node timeline (its GPU lanes' bars are class "gpu-bar"). A node with a usage series
// adds `<path class="node-cpu" data-node="ID">` to the CPU chart and `<path class="node-mem"
// data-node="ID">` to a chart of the nodes' memory; without any the page is as before.
std::string render_report_html(report_input const& input);

}  // namespace torcrun::core
