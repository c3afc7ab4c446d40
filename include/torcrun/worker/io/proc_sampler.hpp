// Resource use of running jobs, sampled from /proc: one scan of /proc/*/stat per sample for
// all jobs together, each job's tree being every process of its session (the launcher makes
// the job a session leader, so descendants stay in it unless they call setsid themselves).
// Memory is RSS summed over the tree (pages shared between its processes count once per
// process, as in Torc); the arithmetic is core::usage_stats.
#pragma once

#include "torcrun/worker/proc_stat.hpp"
#include "torcrun/worker/usage_series.hpp"
#include "torcrun/worker/usage_stats.hpp"
#include "torcrun/worker/io/launcher.hpp"


#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

// Every process under `root` (/proc); processes that vanish during the scan are skipped.
std::vector<core::proc_stat> read_process_table(std::string const& root = "/proc");

class proc_sampler {
public:
    using clock = std::chrono::steady_clock;

    explicit proc_sampler(std::string proc_root = "/proc");

    void track(pid_t session, clock::time_point started);

    // What a finished job used: the summary and the bounded series of its samples.
    struct finished_usage {
        core::usage_summary summary;
        std::vector<core::usage_point> series;  // empty for a job never sampled
    };

    // Stops tracking and closes the record with the exit's exact totals (usage_stats::finish);
    // a session never tracked gets a summary from the exit alone.
    finished_usage finish(pid_t session, exit_report const& exit);

    // One scan for every tracked job. A job without a living process adds no sample.
    void sample(clock::time_point now);

    std::optional<core::usage_summary> summary(pid_t session) const;
    // The newest sample, e.g. to compare with the job's memory limit.
    std::optional<core::usage_sample> latest(pid_t session) const;
    std::size_t tracked() const { return jobs_.size(); }

private:
    struct tracked_job {
        clock::time_point started;
        core::usage_stats stats;
        core::usage_series series;
        std::optional<core::usage_sample> latest;
    };

    std::string root_;
    double seconds_per_tick_;
    std::uint64_t page_bytes_;
    std::map<pid_t, tracked_job> jobs_;
};

}  // namespace torcrun::io
