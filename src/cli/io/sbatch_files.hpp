// What `torcrun slurm-script` and `torcrun submit` share to put an allocation into Slurm: the
// worker configuration the scripts pass on, the path of this binary, writing a script file, and
// running sbatch on it; scancel and squeue for the commands that end or look at allocations.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/config/config.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace torcrun::apps {

// The worker configuration of `path` (none: the defaults), `url` overriding server.url.
core::result<core::worker_config> load_worker_config(std::optional<std::string> const& path,
                                                     std::optional<std::string> const& url,
                                                     std::string const& url_origin);

// The absolute path of the running torcrun, for the scripts; the error names `option`.
core::result<std::string> this_torcrun_path(std::string const& option);

std::string absolute_path(std::string const& path);

// Writes an executable script, creating its folder; errors name `option` and the path.
core::result<void> write_script(std::string const& path, std::string const& text,
                                std::string const& option);

// Runs `sbatch SCRIPT` with this process's environment and returns the Slurm job id; a
// failure carries sbatch's own stderr (else stdout): `sbatch /x.sh: exit 1: error: ...`.
core::result<std::int64_t> run_sbatch(std::string const& script);

// Runs `scancel JOB`; a failure carries scancel's own text.
core::result<void> run_scancel(std::int64_t job_id);

// Runs `squeue -h -j JOB -o %T`: the job's state, "" once squeue no longer lists it.
core::result<std::string> run_squeue_state(std::int64_t job_id);

// Runs `scontrol -o show job JOB`: its line, "" once Slurm has forgotten the job.
core::result<std::string> run_scontrol_show_job(std::int64_t job_id);

// Runs sinfo for what each partition holds (io::partition_listing's text).
core::result<std::string> run_sinfo_partitions();

}  // namespace torcrun::apps
