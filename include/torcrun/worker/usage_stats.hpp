// A job's resource use over its life, from periodic samples of its process tree: Torc's result
// fields peak_memory_bytes, avg_memory_bytes, peak_cpu_percent and avg_cpu_percent
// (docs/TORC-COMPATIBILITY.md §3.1). Times are seconds since the job was spawned, so this stays
// clock-free.
//
// CPU % of an interval = CPU seconds the whole tree used in it / its length x 100, summed over
// all processes (a tree busy on 3 cores shows 300). The first interval starts at the spawn with
// zero CPU, so a job sampled once still gets a rate. Averages are weighted by time: memory by
// the interval each sample closes, CPU as total CPU / total time. CPU samples that go down (a
// process left the tree without being reaped inside it) count as zero for that interval.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>

namespace torcrun::core {

struct usage_sample {
    double seconds = 0;              // since the spawn; strictly increasing
    std::uint64_t memory_bytes = 0;  // resident memory summed over the tree
    double cpu_seconds = 0;          // cumulative CPU of the tree, reaped children included
};

struct usage_summary {
    std::uint64_t peak_memory_bytes = 0;
    std::uint64_t avg_memory_bytes = 0;
    double peak_cpu_percent = 0;
    double avg_cpu_percent = 0;
    std::size_t sample_count = 0;  // samples taken while the job ran

    bool operator==(usage_summary const&) const = default;
};

// What the kernel reports when the job's leader is reaped (wait4's rusage).
struct exit_usage {
    double seconds = 0;               // since the spawn
    double cpu_seconds = 0;           // user + system of the leader and the children it reaped
    std::uint64_t max_rss_bytes = 0;  // the largest single process among those
};

class usage_stats {
public:
    // `usage: 2 s is not after the previous sample at 2.5 s`, `usage: CPU time -1 s is not a
    // non-negative number`; a rejected sample changes nothing.
    result<void> add(usage_sample const& sample);

    // Closes the record with the exact totals of the exit: the last stretch counts towards the
    // CPU average (not the peak: tick-granular samples against exact totals over a short tail
    // would invent spikes), except that the peak is never below the average (a job whose
    // samples saw no CPU and whose exit did gets that rate as its peak); a job never sampled gets its whole-life rate as peak and average
    // and max_rss_bytes as both memory figures, the only measurement there is. Same time
    // rules as add().
    result<void> finish(exit_usage const& exit);

    usage_summary summary() const;

private:
    result<void> check_time(double seconds) const;

    usage_summary summary_;
    double last_seconds_ = 0;
    double last_cpu_seconds_ = 0;
    double cpu_seconds_total_ = 0;  // clamped deltas summed
    double memory_byte_seconds_ = 0;
    double memory_seconds_ = 0;
    bool finished_ = false;
};

}  // namespace torcrun::core
