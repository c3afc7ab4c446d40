// A job's GPU use over its life, from the GPU sampler's readings (worker/io/gpu_sampler): peak
// and average utilisation, peak memory used, and a bounded series of points for the report's
// chart. Times are seconds since the spawn, so this stays clock-free.
//
// Utilisation is NVML's "percent of time over the past sample period during which one or more
// kernels was executing", summed over the devices the job holds (two busy GPUs read 200, as a
// CPU tree busy on two cores reads 200 %). Each reading closes the stretch since the previous one
// (the first: since the spawn); the average is weighted by those stretches. A reading without a
// utilisation (NVML cannot say for a MIG device) counts towards memory only; a job none of whose
// readings had one has no utilisation figures.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

struct gpu_sample {
    double seconds = 0;  // since the spawn; strictly increasing
    std::optional<double> utilization_percent;
    std::uint64_t memory_bytes = 0;
    bool per_process = false;  // from the job's own processes (MIG, a GPU others use too)
};

struct gpu_point {
    double seconds = 0;                         // the stretch's end
    std::optional<double> utilization_percent;  // mean over the stretch
    std::uint64_t memory_bytes = 0;             // largest in the stretch

    bool operator==(gpu_point const&) const = default;
};

struct gpu_usage_summary {
    std::optional<double> peak_percent;
    std::optional<double> avg_percent;
    std::uint64_t peak_memory_bytes = 0;
    std::size_t sample_count = 0;
    bool per_process = false;  // any reading was per-process
    std::vector<gpu_point> points;

    bool operator==(gpu_usage_summary const&) const = default;
};

inline constexpr std::size_t gpu_series_capacity = 80;

class gpu_usage_stats {
public:
    explicit gpu_usage_stats(std::size_t capacity = gpu_series_capacity);

    // `GPU usage: 2 s is not after the previous reading at 2.5 s`; a rejected sample changes
    // nothing.
    result<void> add(gpu_sample const& sample);

    gpu_usage_summary summary() const;

private:
    std::size_t capacity_;
    gpu_usage_summary summary_;
    double last_seconds_ = 0;
    double percent_seconds_ = 0;
    double known_seconds_ = 0;
};

// The summary as the attempt record and `--json` write it, and read back. Figures NVML could not
// give are absent; the object is
//   {"samples": N, "peak_percent": P, "avg_percent": A, "peak_memory_bytes": M,
//    "per_process": false, "points": [[seconds, percent|null, memory_bytes], ...]}
boost::json::object gpu_usage_json(gpu_usage_summary const& s);
result<gpu_usage_summary> gpu_usage_from_json(boost::json::object const& o);

}  // namespace torcrun::core
