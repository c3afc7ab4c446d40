// slurm mode: each job's usage as Slurm measures its step, in place of /proc, where a slurm-mode
// job is only `srun`, the client (a step Slurm killed at 4.37 GB read 11.4 MiB there).
//
// One sample() for all tracked steps: one `squeue -s` for the steps whose id is not known yet
// (srun prints none; the worker names each step), then one `sstat` for every step with an id.
// Both are launcher children awaited on the reactor, never blocking it. The arithmetic is
// core::step_usage. A step that ends keeps its last reading (Slurm forgets a running step when
// it ends); one never read (it ended before its first sample) is looked up once in Slurm's
// accounting storage (sacct) where the cluster has one, and has no usage where it has none.
// Slurm's silence is logged once per worker, not once per job: sstat failing (no job
// accounting gathering), sacct answering that accounting storage is disabled.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/worker/step_usage.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

class step_sampler {
public:
    using clock = std::chrono::steady_clock;

    // `launch` outlives the sampler; `environment` is the worker's (SLURM_CONF and friends).
    step_sampler(launcher& launch, std::string slurm_job_id, core::env_map environment,
                 logger log);

    // Job `job_id`'s step named `step_name` (launch_plan's step_name), spawned at `started`.
    void track(std::int64_t job_id, std::string step_name, clock::time_point started);
    std::size_t tracked() const { return steps_.size(); }

    // One reading of every tracked step. Steps that end while it runs are left alone.
    boost::asio::awaitable<void> sample();

    // The newest reading of the job's step, e.g. to compare with its memory limit.
    std::optional<core::usage_sample> latest(std::int64_t job_id) const;

    struct finished_step {
        std::optional<core::usage_summary> summary;  // nullopt: Slurm reported nothing
        std::vector<core::usage_point> series;
        std::string nodes;  // Slurm's NodeList of the step; "" when it never named one
    };
    // Stops tracking the job's step and closes its record.
    boost::asio::awaitable<finished_step> finish(std::int64_t job_id);

private:
    struct tracked_step {
        std::string name;
        std::optional<std::string> id;  // "12.3" once squeue listed it
        clock::time_point started;
        core::step_usage usage;
    };

    launcher& launch_;
    std::string slurm_job_id_;
    core::env_map environment_;
    logger log_;
    std::map<std::int64_t, tracked_step> steps_;
    bool stats_failure_logged_ = false;
    bool accounting_absent_ = false;  // sacct said the cluster keeps no accounting
};

}  // namespace torcrun::io
