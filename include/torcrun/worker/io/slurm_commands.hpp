// Slurm's own commands as workers and `torcrun submit` / `slurm-script` run them: writing a batch
// script, sbatch, scancel and squeue, each a launcher child awaited without blocking the reactor
// (the CLI runs them on an io_context of its own). Failures carry the command's own text:
// `sbatch /x.sh: exited with 1: sbatch: error: invalid account`.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/slurm/step_stats.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// `scontrol -o show job JOB`: its one line, "" once Slurm no longer knows the job.
boost::asio::awaitable<core::result<std::string>> show_slurm_job(launcher& launch,
                                                                 std::int64_t job_id,
                                                                 core::env_map environment);

// `sinfo -h -N -o '%P|%N|%c|%m|%G|%l|%s'`: a line per node and partition, for
// core::parse_partition_listing.
boost::asio::awaitable<core::result<std::string>> partition_listing(launcher& launch,
                                                                    core::env_map environment);

// The id ("12.3") of the step named `name` of Slurm job `job_id`
// (`squeue -h -s -j JOB -o "%i %j"`); nullopt when squeue lists none of that name (not yet
// registered, or over).
boost::asio::awaitable<core::result<std::optional<std::string>>> find_slurm_step(
    launcher& launch, std::string job_id, std::string name, core::env_map environment);

// The running steps of Slurm job `job_id`, one "<id> <name>" a line
// (`squeue -h -s -j JOB -o "%i %j"`, read with core::step_id_named).
boost::asio::awaitable<core::result<std::string>> list_slurm_steps(launcher& launch,
                                                                   std::string job_id,
                                                                   core::env_map environment);

// What Slurm's job accounting gathering has measured of running steps so far
// (`sstat -P -o JobID,MaxRSS,TRESUsageInTot,NodeList -j 12.3,12.4`). A step that has ended is
// missing from the answer (sstat: "not found running"), which is no error; an error is sstat
// failing for all of them, with its own text (`sstat: ... jobacct_gather/none ...`).
boost::asio::awaitable<core::result<std::vector<core::step_reading>>> read_step_stats(
    launcher& launch, std::vector<std::string> step_ids, core::env_map environment);

// What Slurm's accounting storage kept of the steps of job `job_id`
// (`sacct -P -o JobID,JobName,MaxRSS,TotalCPU,NodeList -j JOB`); nullopt where the cluster keeps
// none (sacct: "Slurm accounting storage is disabled").
boost::asio::awaitable<core::result<std::optional<std::vector<core::step_reading>>>>
read_step_accounting(launcher& launch, std::string job_id, core::env_map environment);

// `scancel --signal=NAME STEP`, or with no signal `scancel STEP` (the step's end: Slurm kills
// its tasks on every node). A step that has ended already is no error.
boost::asio::awaitable<core::result<void>> cancel_slurm_step(launcher& launch, std::string step_id,
                                                             std::optional<int> signal,
                                                             core::env_map environment);

}  // namespace torcrun::io
