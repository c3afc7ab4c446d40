// The whole compute node's CPU and memory over the worker's life (newer Torc's
// `resource_monitor.compute_node`): /proc/stat's and /proc/meminfo's text read as values, the
// samples summed into Torc's compute-node fields (sample_count, peak/avg CPU %, peak/avg memory
// bytes) and, for `granularity: time_series`, kept as a bounded series (usage_series) that the
// worker writes once at its end as node_usage_<compute node id>.json beside its logs.
//
// CPU % of a sample = busy ticks / all ticks of every CPU since the previous reading x 100, so a
// fully busy node shows 100 whatever its core count (Torc's sysinfo global CPU usage); idle and
// iowait are the idle ticks. Memory used = MemTotal - MemAvailable. Averages are plain means of
// the samples, as Torc's; a figure whose flag is off is recorded as 0, as Torc does.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/usage_series.hpp"
#include "torcrun/worker/usage_stats.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// The aggregate `cpu` line of /proc/stat, in clock ticks.
struct cpu_times {
    std::uint64_t busy = 0;   // user, nice, system, irq, softirq, steal
    std::uint64_t total = 0;  // busy plus idle and iowait

    bool operator==(cpu_times const&) const = default;
};

// Errors: `/proc/stat: no "cpu" line`, `/proc/stat: cpu field 2 "x" is not a number`.
result<cpu_times> parse_cpu_times(std::string_view proc_stat_text);

struct memory_reading {
    std::uint64_t total_bytes = 0;
    std::uint64_t used_bytes = 0;  // MemTotal - MemAvailable

    bool operator==(memory_reading const&) const = default;
};

// Errors: `/proc/meminfo: no "MemAvailable" line`, `/proc/meminfo: MemTotal "x kB" is not a
// number of kB`.
result<memory_reading> parse_meminfo(std::string_view meminfo_text);

// One reading of both files, `seconds` after the worker's sampling started.
struct node_reading {
    double seconds = 0;
    cpu_times cpu;
    memory_reading memory;
};

struct node_usage_options {
    bool cpu = true;
    bool memory = true;
    bool keep_series = false;
};

class node_usage {
public:
    explicit node_usage(node_usage_options options);

    // The first reading is the baseline (a CPU % needs two); each later one is a sample.
    // A reading not after the previous one is ignored.
    void add(node_reading const& reading);

    usage_summary summary() const;  // all zero with sample_count 0 before the second reading
    std::vector<usage_point> points() const;  // empty unless keep_series
    std::uint64_t total_memory_bytes() const { return total_memory_bytes_; }

private:
    node_usage_options options_;
    std::optional<node_reading> last_;
    usage_summary summary_;
    double cpu_percent_sum_ = 0;
    long double memory_sum_ = 0;
    double busy_seconds_ = 0;  // the series' cumulative "CPU seconds": busy fraction x time
    std::uint64_t total_memory_bytes_ = 0;
    std::optional<usage_series> series_;
};

// The node usage file: `{"compute_node_id":7,"hostname":"n1","start_unix":..,
// "total_memory_bytes":..,"seconds":[..],"cpu_percent":[..],"memory_bytes":[..]}`; seconds
// count from start_unix (the sampling's start).
struct node_series {
    std::int64_t compute_node_id = 0;
    std::string hostname;
    double start_unix = 0;
    std::uint64_t total_memory_bytes = 0;
    std::vector<usage_point> points;
};

std::string node_usage_file_name(std::int64_t compute_node_id);  // node_usage_7.json
std::string node_series_json(node_series const& series);

// Errors name `source`: `node_usage_7.json: not JSON: ...`, `...: "start_unix" is missing or
// not a number`, and parse_usage_series' own.
result<node_series> parse_node_series(std::string_view text, std::string_view source);

}  // namespace torcrun::core
