// The compute node's own CPU and memory (resource_monitor.compute_node), sampled on the
// worker's reactor: a steady_timer every interval reads /proc/stat and /proc/meminfo (procfs
// files the kernel writes from memory: the read never waits on a device, a few KiB however many
// CPUs) and hands them to core::node_usage, which does the arithmetic. The shell starts it when
// its node is registered and stops it before deactivating the node; the summary goes into the
// deactivation's PUT and, for time_series, the series into node_usage_<id>.json.
#pragma once

#include "torcrun/config/execution_config_merge.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/worker/node_usage.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace torcrun::io {

// One reading of `root`/stat and `root`/meminfo, `seconds` since the sampling started.
// Errors: `cannot read /proc/stat: No such file or directory`, and the parsers' own.
core::result<core::node_reading> read_node(std::string const& root, double seconds);

class node_sampler {
public:
    using clock = std::chrono::steady_clock;

    node_sampler(boost::asio::any_io_executor executor, core::node_monitor_settings settings,
                 std::string proc_root = "/proc");

    // Starts (or restarts, for a fresh node after a lost lease) sampling for `compute_node_id`:
    // a baseline now, a sample every interval.
    void start(std::int64_t compute_node_id, std::string hostname, double start_unix);

    // A last sample, then no more; nullopt when not started. Its series is empty unless the
    // settings ask for time_series.
    struct finished {
        core::usage_summary summary;
        core::node_series series;
    };
    std::optional<finished> stop();

    bool running() const { return usage_.has_value(); }
    // The last reading's problem (a missing /proc), kept for the shell to log once.
    std::optional<std::string> take_problem() { return std::exchange(problem_, std::nullopt); }

private:
    void sample();
    void arm();

    core::node_monitor_settings settings_;
    std::string root_;
    boost::asio::steady_timer timer_;
    std::uint64_t generation_ = 0;
    clock::time_point started_;
    std::optional<core::node_usage> usage_;
    core::node_series series_;  // id, hostname, start; points filled at stop()
    std::optional<std::string> problem_;
};

// Writes `series` as `output_dir`/node_usage_<id>.json (through a temporary file renamed into
// place). Errors: `cannot write /out/node_usage_7.json: Permission denied`.
core::result<std::string> write_node_series(std::string const& output_dir,
                                            core::node_series const& series);

}  // namespace torcrun::io
