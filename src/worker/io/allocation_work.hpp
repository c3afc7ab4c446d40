// What a worker does with Slurm allocations besides running jobs (allocation_work.cpp):
// - a claimed schedule_nodes action: its slurm_scheduler and the workflow's slurm_defaults read
//   from the server, num_allocations scripts written and sbatch'ed, each then recorded as a
//   pending scheduled compute node (a failed sbatch leaves no record; a refused record has its
//   Slurm job scancel'ed);
// - the record of the worker's own allocation: `active` once the worker has registered, and
//   `complete` when the last worker of that allocation leaves (no other active compute node of
//   the workflow names the same Slurm job);
// - at exit, when no job of the workflow is ready, pending or running: every pending
//   allocation still queued in Slurm is scancel'ed and its record marked canceled (Torc #398).
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/config/config.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_events.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace torcrun::io {

struct allocation_context {
    std::int64_t workflow_id = 0;
    core::worker_config config;  // output_dir absolute; server.url goes into the scripts
    std::optional<std::string> config_path;
    std::string torcrun_path;  // absolute
    core::env_map environment;
    std::function<void(log_level, std::string)> say;
};

boost::asio::awaitable<core::worker::action_finished> schedule_allocations(
    http_client& client, launcher& launch, allocation_context context,
    core::worker::schedule_allocations action);

// PUT status=active on the pending record holding `slurm_job_id`, if there is one.
boost::asio::awaitable<void> mark_allocation_active(http_client& client,
                                                    allocation_context context,
                                                    std::int64_t slurm_job_id);

// At exit (after this worker's node was deactivated): complete and cancel, as above.
boost::asio::awaitable<void> finish_allocations(http_client& client, launcher& launch,
                                                allocation_context context,
                                                std::int64_t slurm_job_id);

}  // namespace torcrun::io
