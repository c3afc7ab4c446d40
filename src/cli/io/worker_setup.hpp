// The worker as `torcrun worker` and `torcrun run` both start it: its setup (io::worker_setup)
// from the configuration, the process environment and this machine - the allocation
// (core::read_allocation), the mode and its pool (core::choose_mode), the configured resource
// overrides, the host name and the Slurm job id - and its reactor in the calling thread.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/worker/io/worker_shell.hpp"
#include "workflow_settings.hpp"

namespace torcrun::apps {

// Logs the allocation and its nodes, the mode and why, the pool, and any warnings of the
// allocation and the mode choice (e.g. the nodes a single direct worker leaves idle). Errors: an
// environment that cannot be read as an allocation, a mode that cannot run here, an empty pool,
// an execution_config key that does not apply to the chosen mode (core::check_execution_config).
// `workflow` is what the workflow's record says (workflow_settings.hpp): its config is used.
core::result<io::worker_setup> make_worker_setup(workflow_settings workflow,
                                                 io::logger const& log);

// Runs io::run_worker on an io_context in this thread until it returns; its exit code, 1 when it
// threw (logged). Requests still in flight then are abandoned.
int run_worker_here(io::worker_setup setup, io::logger const& log);

}  // namespace torcrun::apps
