// One slurm-mode job's usage from Slurm's readings of its step (sstat), in place of the /proc
// figures of srun, which are only the client's: the attempt's peak and average CPU and memory
// (usage_stats), its bounded series (usage_series) and the nodes the step ran on.
//
// Slurm's figures are coarse: CPU in whole seconds, refreshed by jobacct_gather every few
// seconds. A rate over a 2 s stretch would read 0 % or 150 % for a job busy on one core, so a
// reading becomes a sample of the record only once `cpu_window_seconds` have passed since the
// last one (the first reading always does); the memory of a sample is the largest seen since
// the previous sample, so no peak between them is lost, and the peak memory is never below
// Slurm's own MaxRSS. Every reading stays the latest (for limits.enforce_memory).
// Times are seconds since the spawn, so this stays clock-free.
#pragma once

#include "torcrun/slurm/step_stats.hpp"
#include "torcrun/worker/usage_series.hpp"
#include "torcrun/worker/usage_stats.hpp"

#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

// Seconds of a step's life one CPU rate spans at least.
inline constexpr double step_cpu_window_seconds = 10;

class step_usage {
public:
    explicit step_usage(double cpu_window_seconds = step_cpu_window_seconds);

    // A reading taken `seconds` after the spawn; one not after the previous is ignored.
    void add(double seconds, step_reading const& reading);

    // The last reading as a sample; nullopt before the first.
    std::optional<usage_sample> latest() const;
    std::size_t readings() const { return readings_; }
    // NodeList of the last reading that named one; "" before.
    std::string const& nodes() const { return nodes_; }

    struct finished {
        std::optional<usage_summary> summary;  // nullopt: Slurm never gave a reading
        std::vector<usage_point> series;
    };
    // Closes the record at the step's end. What the step did after the last reading is unknown
    // (Slurm forgets a step when it ends), so the figures cover the spawn to the last reading:
    // the averages over that time, the peak memory the largest of the samples and MaxRSS.
    finished finish();

private:
    double window_;
    usage_stats stats_;
    usage_series series_;
    std::size_t readings_ = 0;
    std::optional<usage_sample> latest_;
    double fed_seconds_ = 0;              // of the last sample given to stats_
    std::uint64_t memory_since_fed_ = 0;  // largest memory of the readings since then
    std::uint64_t max_rss_ = 0;
    std::string nodes_;
};

}  // namespace torcrun::core
