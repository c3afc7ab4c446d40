// What a worker needs before it starts (io::worker_setup), from its configuration, the process
// environment and this machine: the allocation (core::read_allocation), the mode and its pool
// (core::choose_mode), the configured resource overrides, the host name and the Slurm job id.
// `torcrun worker` and `torcrun run` both build their worker here.
#pragma once

#include "torcrun/core/config.hpp"
#include "torcrun/core/error.hpp"
#include "torcrun/io/logger.hpp"
#include "torcrun/io/worker_shell.hpp"

namespace torcrun::apps {

// Logs the allocation and its nodes, the mode and why, the pool, and any warnings of the
// allocation and the mode choice (e.g. the nodes a single direct worker leaves idle). Errors: an
// environment that cannot be read as an allocation, a mode that cannot run here, an empty pool.
core::result<io::worker_setup> make_worker_setup(core::worker_config config,
                                                 io::logger const& log);

}  // namespace torcrun::apps
