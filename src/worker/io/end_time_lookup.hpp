// The allocation's end from Slurm when the environment does not carry SLURM_JOB_END_TIME:
// `squeue -h -j <id> -o %e`, started through the launcher so the reactor never blocks on it,
// its stdout captured in a file, its answer (local time without a zone) parsed into Unix seconds.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace torcrun::io {

// squeue's %e ("2025-06-30T17:00:00", this machine's local time) in Unix seconds. "N/A",
// "Unknown", "NONE" and anything else that is not a date-time is an error quoting the text.
core::result<double> parse_squeue_end_time(std::string_view text);

// Runs squeue with `environment` (its PATH finds it), stdout to `stdout_path`, and kills it
// after `timeout`. Errors: `squeue: <why>`.
boost::asio::awaitable<core::result<double>> look_up_end_time(
    launcher& launch, std::string slurm_job_id, core::env_map environment,
    std::string stdout_path, std::chrono::steady_clock::duration timeout);

}  // namespace torcrun::io
