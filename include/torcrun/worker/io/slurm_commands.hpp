// Slurm's own commands as workers and `torcrun submit` / `slurm-script` run them: writing a batch
// script, sbatch, scancel and squeue, each a launcher child awaited without blocking the reactor
// (the CLI runs them on an io_context of its own). Failures carry the command's own text:
// `sbatch /x.sh: exited with 1: sbatch: error: invalid account`.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>

namespace torcrun::io {

// Writes an executable script, creating its folder; errors name `option` and the path.
core::result<void> write_script(std::string const& path, std::string const& text,
                                std::string const& option);

// `sbatch SCRIPT` with `environment`: the Slurm job id.
boost::asio::awaitable<core::result<std::int64_t>> submit_batch_script(launcher& launch,
                                                                       std::string script,
                                                                       core::env_map environment);

// `scancel JOB`.
boost::asio::awaitable<core::result<void>> cancel_slurm_job(launcher& launch, std::int64_t job_id,
                                                            core::env_map environment);

// `squeue -h -j JOB -o %T`: "PENDING", "RUNNING", ...; "" when squeue no longer lists the job.
boost::asio::awaitable<core::result<std::string>> slurm_job_state(launcher& launch,
                                                                  std::int64_t job_id,
                                                                  core::env_map environment);

}  // namespace torcrun::io
